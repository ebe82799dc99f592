"""Evaluation of MT n-best lists (Bremerman, Khayrallah, Oard & Post 2020, "On the Evaluation of MT n-best Lists").

The paper asks three questions of an n-best list and answers each with a measure (the STAPLE matching and the
measures of lists and correlations are in :mod:`mtsig.stats.ranking_measures.nbest`, the simulated systems in
:mod:`mtsig.studies.nbest_simulation`; the studies and the experiment here):

1. Head-weighted precision (Sec. 3): uninterpolated average precision of the list against the set of valid
   translations (eq. 1), averaged over prompts (MAP); and the ablation of incomplete gold (Sec. 3.2, Fig. 1):
   drop the least frequent valid translations and correlate the ablated MAP system ranking with the full one.
   STAPLE's own weighted macro F1 (Sec. 3.3, Fig. 2) is computed next to it.
2. Preference correlation (Sec. 4, Fig. 3): Spearman's rho and Pearson's r (log space) between a system's model
   scores for its translations and the gold learner frequencies.
3. Unweighted partial match (Sec. 5, Figs. 4-5): x-best y-reference BLEU over a pseudo-corpus.

System rankings are compared with Spearman's rho and with Pearson Rank (Gao, Bagdouri & Oard 2016).

Matching. A hypothesis is valid when its normalised form is a normalised gold translation
(:func:`mtsig.stats.ranking_measures.nbest.normalize_staple`, the official STAPLE scorer's; when two gold translations
normalise alike the later line's weight is kept, as the official reader does: 7 of the 500 en-pt dev prompts).

Real n-best lists of STAPLE systems are not public, so :func:`run_nbest_experiment` evaluates a family of
*simulated* systems generated from the gold (:func:`mtsig.studies.nbest_simulation.simulate_system`) plus the organisers' real AWS 1-best
baseline and any user-supplied system files.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from sacrebleu.metrics.bleu import BLEU

from mtsig.errors import InputError
from mtsig.io.staple import GoldPrompt, NBestList
from mtsig.metrics.bleu import closest_reference_lengths, line_ngram_counts
from mtsig.metrics.tokenizers import TokenIds
from mtsig.runtime import portable
from mtsig.settings import NBestParameters
from mtsig.stats.ranking_measures.nbest import (
    gold_weights,
    mean_average_precision,
    normalize_staple,
    normalized_lists,
    pearson_r,
    pearson_rank,
    spearman_rho,
    weighted_macro_f1,
)
from mtsig.studies.nbest_simulation import SimulatedSystem, simulated_systems

if TYPE_CHECKING:
    from mtsig.settings import NBestParameters

ALL = "all"
"""Grid label for "every hypothesis" (x) or "every reference" (y)."""

Depth = int | str  # a positive int or ALL


# ---------------------------------------------------------------------------------- Q2: preference correlation


def preference_correlation(
    nbest: NBestList,
    weights: Mapping[str, float],
    min_matched: int = NBestParameters.min_matched,
    normalized: Sequence[str] | None = None,
) -> tuple[float, float, int]:
    """Preference correlation of one prompt's list (Sec. 4): (Spearman's rho, Pearson's r, matched count).

    Only hypotheses that are gold translations take part (the paper's footnote 3: "excluding system
    translations not in the STAPLE references"), each at its first occurrence. Rho correlates the model scores
    with the gold weights; r correlates the model scores with the log gold weights, the model scores being
    taken as log-probabilities already ("Pearson's r in log space"). NaN for an unscored list, for fewer than
    ``min_matched`` matched translations (a correlation of two points is always +-1), or for constant input.
    ``normalized``: the list's texts already in :func:`normalize_staple` form, if the caller has them.
    """
    if nbest.scores is None:
        return math.nan, math.nan, 0
    if normalized is None:
        normalized = [normalize_staple(text) for text in nbest.texts]
    model_scores: list[float] = []
    gold_frequencies: list[float] = []
    seen: set[str] = set()
    for key, score in zip(normalized, nbest.scores, strict=True):
        if key in weights and key not in seen:
            seen.add(key)
            model_scores.append(score)
            gold_frequencies.append(weights[key])
    if len(model_scores) < min_matched:
        return math.nan, math.nan, len(model_scores)
    rho = spearman_rho(model_scores, gold_frequencies)
    r = pearson_r(model_scores, portable.log(gold_frequencies))
    return rho, r, len(model_scores)


def system_preference_correlation(
    system: Mapping[str, NBestList],
    weights_by_prompt: Mapping[str, Mapping[str, float]],
    min_matched: int = NBestParameters.min_matched,
    normalized: Mapping[str, Sequence[str]] | None = None,
) -> tuple[float, float, int]:
    """A system's preference correlation: the mean over prompts of :func:`preference_correlation`
    (``normalized``: the system's :func:`normalized_lists`, if the caller has them).

    The paper does not say whether it pools translations over prompts or averages per prompt; model scores and
    gold weights are both per-prompt quantities (weights sum to one per prompt), so we correlate within each
    prompt and average over the prompts where the correlation is defined. Returns (mean rho, mean r, number
    of prompts averaged); NaNs and 0 when no prompt qualifies (e.g. a 1-best or unscored system).
    """
    rhos, rs = [], []
    for prompt_id, weights in weights_by_prompt.items():
        if prompt_id in system:
            texts = normalized[prompt_id] if normalized is not None else None
            rho, r, _ = preference_correlation(system[prompt_id], weights, min_matched, texts)
            if not (math.isnan(rho) or math.isnan(r)):
                rhos.append(rho)
                rs.append(r)
    if not rhos:
        return math.nan, math.nan, 0
    return float(np.mean(rhos)), float(np.mean(rs)), len(rhos)


# ------------------------------------------------------------------------------------ ablation (Sec. 3.2)


def ablate_gold(gold: Mapping[str, GoldPrompt], kept_fraction: float) -> dict[str, frozenset[str]]:
    """The valid sets after removing each prompt's least frequent translations (Sec. 3.2, after Zobel 1998).

    Per prompt, translations are ordered by weight (descending) and the first ``ceil(kept_fraction * n)`` are
    kept, at least one (the most frequent). Ties in weight are broken by file order (the released files list
    translations by decreasing weight), so the kept count is exact even inside the long runs of equal low
    weights; keeping whole tie groups instead would make the smaller fractions meaningless. Returned in
    normalised form.
    """
    if not 0 < kept_fraction <= 1:
        raise ValueError(f"kept_fraction must be in (0, 1], got {kept_fraction}")
    valid_sets = {}
    for prompt_id, prompt in gold.items():
        order = sorted(range(len(prompt.weights)), key=lambda i: -prompt.weights[i])  # stable: file order
        # The epsilon keeps exact products such as 0.3 * 10 from rounding up to 4.
        kept = max(1, math.ceil(kept_fraction * len(order) - 1e-9))
        valid_sets[prompt_id] = frozenset(normalize_staple(prompt.translations[i]) for i in order[:kept])
    return valid_sets


def ablation_study(
    lists_by_system: Mapping[str, Mapping[str, Sequence[str]]],
    gold: Mapping[str, GoldPrompt],
    kept_fractions: Sequence[float],
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fig. 1: correlation of each ablated-gold MAP system ranking with the full-gold MAP ranking.

    Returns (correlations with columns kept_fraction, valid_translations, spearman, pearson_rank; and the
    long table system, kept_fraction, map). Pearson Rank takes the full-gold MAP as its reference ordering.
    """
    systems = list(lists_by_system)
    full_valid = ablate_gold(gold, 1.0)
    full_map = np.array([mean_average_precision(lists_by_system[s], full_valid) for s in systems])
    rows, map_rows = [], []
    for fraction in sorted(kept_fractions):
        valid = full_valid if fraction == 1.0 else ablate_gold(gold, fraction)
        ablated_map = np.array([mean_average_precision(lists_by_system[s], valid) for s in systems])
        rows.append(
            {
                "kept_fraction": fraction,
                "valid_translations": sum(len(v) for v in valid.values()),
                "spearman": spearman_rho(full_map, ablated_map),
                "pearson_rank": pearson_rank(full_map, ablated_map),
            }
        )
        map_rows += [
            {"system": s, "kept_fraction": fraction, "map": m}
            for s, m in zip(systems, ablated_map, strict=True)
        ]
    return pd.DataFrame(rows), pd.DataFrame(map_rows)


# ------------------------------------------------------------------------- Q3: x-best y-reference BLEU


def top_references(prompt: GoldPrompt, count: Depth) -> list[str]:
    """The ``count`` most frequent gold translations (ALL: every one), ties broken by file order."""
    order = sorted(range(len(prompt.weights)), key=lambda i: -prompt.weights[i])
    if count != ALL:
        order = order[: int(count)]
    return [prompt.translations[i] for i in order]


def pseudo_corpus(
    system: Mapping[str, NBestList], gold: Mapping[str, GoldPrompt], depth: Depth, references: Depth
) -> tuple[list[str], list[list[str]]]:
    """The x-best y-reference pseudo-corpus of Sec. 5: (hypothesis lines, per-line reference lists).

    Prompts are taken in gold order. Each of the top ``depth`` hypotheses of a prompt (fewer if the list is
    shorter; ALL: the whole list) becomes its own corpus line, paired with the same ``references`` most frequent
    gold translations of that prompt ("we simply treat them as independent translations in a larger
    pseudo-corpus, pairing each with the relevant reference(s)"). A prompt with fewer gold translations than
    ``references`` uses all it has, so lines have a variable number of references. A prompt the system did not
    translate contributes no line.
    """
    hypotheses: list[str] = []
    line_refs: list[list[str]] = []
    for prompt_id, prompt in gold.items():
        if prompt_id not in system:
            continue
        texts = system[prompt_id].texts
        chosen = texts if depth == ALL else texts[: int(depth)]
        refs = top_references(prompt, references)
        for text in chosen:
            hypotheses.append(text)
            line_refs.append(refs)
    return hypotheses, line_refs


def bleu_grid(
    systems: Mapping[str, Mapping[str, NBestList]],
    gold: Mapping[str, GoldPrompt],
    depths: Sequence[Depth],
    references: Sequence[Depth],
) -> pd.DataFrame:
    """x-best y-reference BLEU (Sec. 5, Fig. 4) of every system for every x in ``depths`` and y in ``references``.

    Each cell is sacrebleu's corpus BLEU of :func:`pseudo_corpus` (default BLEU: 13a tokenizer, exp smoothing),
    lowercased because the STAPLE gold is all lowercase (the cased 1-best baseline would otherwise lose every
    sentence-initial word). The computation is reorganised for speed, not changed: it runs prompt by prompt,
    computes the segment statistics of each distinct hypothesis of a prompt once per y with arrays (sacrebleu's
    preprocessing word by word, :class:`mtsig.metrics.tokenizers.TokenIds`, the
    tokenisation of BLEU's compiled statistics; n-gram counts, clipped matches against the maximum count
    over the top-y references and the closest reference length as sacrebleu defines them), and sums the line
    statistics of each system's top-x lines; ``BLEU.compute_bleu`` of those sums equals ``corpus_bleu`` on the
    pseudo-corpus (checked in the tests). Returns columns system, x, y, bleu (x and y as strings: "1", ..., "all").
    """
    metric = BLEU(lowercase=True)
    order = metric.max_ngram_order
    names = list(systems)
    totals = np.zeros((len(names), len(depths), len(references), 2 + 2 * order), dtype=np.int64)
    tokenise = TokenIds(metric._preprocess_segment)
    for prompt_id, prompt in gold.items():
        texts = list(
            dict.fromkeys(
                t for name in names if prompt_id in systems[name] for t in systems[name][prompt_id].texts
            )
        )
        if not texts:
            continue
        index = {text: i for i, text in enumerate(texts)}
        ranked_references = top_references(prompt, ALL)  # the top-y references are its first y
        ids, lengths = tokenise([*texts, *ranked_references])
        ngrams = line_ngram_counts(ids, lengths, order, tokenise.vocabulary_size)
        n_texts = len(texts)
        hypothesis_lengths, reference_lengths = lengths[:n_texts], lengths[n_texts:]
        # stats[y, hypothesis] = [hyp_len, ref_len, correct_1..4, total_1..4], as sacrebleu's segment statistics
        stats = np.zeros((len(references), n_texts, 2 + 2 * order), dtype=np.int64)
        stats[:, :, 0] = hypothesis_lengths
        for n, (line, _, count) in enumerate(ngrams):
            is_hypothesis = line < n_texts
            stats[:, :, 2 + order + n] = np.bincount(
                line[is_hypothesis], weights=count[is_hypothesis], minlength=n_texts
            ).astype(np.int64)
        for r, count in enumerate(references):
            kept = len(ranked_references) if count == ALL else min(int(count), len(ranked_references))
            stats[r, :, 1] = closest_reference_lengths(hypothesis_lengths, np.sort(reference_lengths[:kept]))
            for n, (line, code, ngram_count) in enumerate(ngrams):
                is_reference = (line >= n_texts) & (line < n_texts + kept)
                # the maximum count of each n-gram over the kept references (sacrebleu's ref_ngrams)
                reference_max = np.zeros(int(code.max()) + 1, dtype=np.int64)
                np.maximum.at(reference_max, code[is_reference], ngram_count[is_reference])
                is_hypothesis = line < n_texts
                clipped = np.minimum(ngram_count[is_hypothesis], reference_max[code[is_hypothesis]])
                stats[r, :, 2 + n] = np.bincount(
                    line[is_hypothesis], weights=clipped, minlength=n_texts
                ).astype(np.int64)
        for s, name in enumerate(names):
            if prompt_id not in systems[name]:
                continue
            rows = [index[t] for t in systems[name][prompt_id].texts]
            cumulative = np.cumsum(stats[:, rows], axis=1)  # (y, rank, k): sums of the top-(rank+1) lines
            for d, depth in enumerate(depths):
                last = len(rows) if depth == ALL else min(int(depth), len(rows))
                totals[s, d] += cumulative[:, last - 1]
    records = []
    for s, name in enumerate(names):
        for d, depth in enumerate(depths):
            for r, count in enumerate(references):
                score = metric._compute_score_from_stats([int(v) for v in totals[s, d, r]]).score
                records.append({"system": name, "x": str(depth), "y": str(count), "bleu": float(score)})
    return pd.DataFrame(records)


# ------------------------------------------------------------------------------------------- the experiment


def _check_parameters(params: NBestParameters) -> None:
    """Check the parameters beyond what the schema checks."""
    for key in ("p_valid_head", "p_valid_tail"):
        low, high = getattr(params, key)
        if not 0 <= low <= high <= 1:
            raise InputError(
                f"{key} must be a range [low, high] within [0, 1], got {list(getattr(params, key))}"
            )
    for key in ("bleu_depths", "bleu_references"):
        for value in getattr(params, key):
            if value != ALL and not (isinstance(value, int) and value >= 1):
                raise InputError(f"{key} entries must be positive integers or {ALL!r}, got {value!r}")
    if 1.0 not in [float(f) for f in params.kept_fractions]:
        raise InputError("kept_fractions must include 1.0 (the full gold every step is compared with)")


def _check_prompts(system: Mapping[str, NBestList], gold: Mapping[str, GoldPrompt], path: Path) -> None:
    unknown = sorted(set(system) - set(gold))
    if unknown:
        raise InputError(f"{len(unknown)} prompt id(s) not in the gold, e.g. {unknown[0]!r}", path)


def run_nbest_experiment(
    gold: Mapping[str, GoldPrompt],
    real_systems: Mapping[str, Mapping[str, NBestList]],
    params: NBestParameters,
    seed: int,
    sources: Mapping[str, str | Path] | None = None,
) -> dict[str, pd.DataFrame]:
    """The n-best experiment of Bremerman et al. (2020) on a STAPLE gold (:func:`mtsig.io.staple.read_staple_gold`).

    ``params``: the config's ``nbest.<name>.parameters`` (a Python user: ``mtsig.settings.NBestParameters(...)``,
    its defaults for the fields not given). Systems: ``params.n_systems`` simulated systems
    (:func:`mtsig.studies.nbest_simulation.simulate_system`, labelled ``simulated``), then
    ``real_systems`` in order (name -> n-best lists, :func:`mtsig.io.staple.read_system_file`; the pipeline puts
    the organisers' baseline ``aws_baseline`` first). ``sources`` (name -> file) names the file in errors.
    Returns DataFrames:

    - ``systems``: system, simulated, the simulation parameters (NaN for real systems), list_length (mean),
      map, weighted_f1, bleu_1best_1ref, bleu_100best_100ref, preference_spearman, preference_pearson,
      preference_prompts;
    - ``ablation``: kept_fraction, valid_translations, spearman, pearson_rank (Fig. 1);
      ``ablation_map``: system, kept_fraction, map;
    - ``bleu_scores``: system, x, y, bleu; ``bleu_grid``: x, y, spearman, pearson_rank of the BLEU system
      ranking against the MAP ranking (Fig. 4 plots the Spearman column);
    - ``parameters``: the parameters used, one row per key, for the record.
    """
    _check_parameters(params)
    systems, simulated = _all_systems(gold, real_systems, params, seed, sources or {})
    lists = {name: normalized_lists(system) for name, system in systems.items()}
    depths, references = list(params.bleu_depths), list(params.bleu_references)
    # 1-best 1-ref and 100-best 100-ref are always computed: the systems table and Fig. 5 report them.
    bleu_scores = bleu_grid(
        systems, gold, list(dict.fromkeys([*depths, 1, 100])), list(dict.fromkeys([*references, 1, 100]))
    )
    bleu_lookup = bleu_scores.set_index(["system", "x", "y"])["bleu"]
    systems_table = _systems_table(systems, simulated, lists, gold, bleu_lookup, params)
    bleu_scores = bleu_scores[bleu_scores["x"].isin([str(d) for d in depths])]
    bleu_scores = bleu_scores[bleu_scores["y"].isin([str(c) for c in references])].reset_index(drop=True)
    # System rankings are compared over the n-best systems only: a 1-best list has AP <= 1/N whatever its
    # quality and contributes one line per prompt where an n-best system contributes x, so ranking it with
    # them would measure list length, not quality. 1-best systems stay in the systems table and the figures.
    ranked = systems_table.loc[systems_table["in_rankings"], "system"].tolist()
    ablation, ablation_map = ablation_study(
        {name: lists[name] for name in ranked}, gold, [float(f) for f in params.kept_fractions]
    )
    return {
        "systems": systems_table,
        "ablation": ablation,
        "ablation_map": ablation_map,
        "bleu_scores": bleu_scores,
        "bleu_grid": _bleu_ranking_grid(systems_table, ranked, bleu_lookup, depths, references),
        "parameters": _parameters_table(params, seed, simulated),
    }


def _all_systems(
    gold: Mapping[str, GoldPrompt],
    real_systems: Mapping[str, Mapping[str, NBestList]],
    params: NBestParameters,
    seed: int,
    sources: Mapping[str, str | Path],
) -> tuple[dict[str, dict[str, NBestList]], dict[str, SimulatedSystem]]:
    """The experiment's systems (name -> n-best lists): the simulated ones, then ``real_systems`` in order, each
    checked (a name used twice, a prompt not in the gold); and the simulated systems' parameters by name."""
    simulated = simulated_systems(gold, params, seed)
    systems: dict[str, dict[str, NBestList]] = {name: lists for name, (_, lists) in simulated.items()}
    for name, system in real_systems.items():
        if name in systems:
            raise InputError(f"system name {name!r} is used twice", sources.get(name))
        _check_prompts(system, gold, sources.get(name))
        systems[name] = system
    return systems, {name: spec for name, (spec, _) in simulated.items()}


def _systems_table(
    systems: Mapping[str, Mapping[str, NBestList]],
    simulated: Mapping[str, SimulatedSystem],
    lists: Mapping[str, Mapping[str, Sequence[str]]],
    gold: Mapping[str, GoldPrompt],
    bleu_lookup: pd.Series,
    params: NBestParameters,
) -> pd.DataFrame:
    """One row per system: whether simulated (and its parameters), whether ranked (an n-best list, longer than
    one on average), MAP (Sec. 3.1), weighted macro F1 (Sec. 3.3), 1-best 1-ref and 100-best 100-ref BLEU
    (Sec. 5) and the preference correlations (Sec. 4)."""
    weights_by_prompt = {p: gold_weights(prompt) for p, prompt in gold.items()}
    valid_sets = {p: frozenset(w) for p, w in weights_by_prompt.items()}
    rows = []
    for name, system in systems.items():
        rho, r, n_prompts = system_preference_correlation(
            system, weights_by_prompt, params.min_matched, lists[name]
        )
        spec = simulated.get(name)
        mean_length = float(np.mean([len(v.texts) for v in system.values()]))
        rows.append(
            {
                "system": name,
                "simulated": spec is not None,
                "in_rankings": mean_length > 1,
                "p_valid_head": spec.p_valid_head if spec else math.nan,
                "p_valid_tail": spec.p_valid_tail if spec else math.nan,
                "drift": spec.drift if spec else math.nan,
                "list_length": mean_length,
                "map": mean_average_precision(lists[name], valid_sets),
                "weighted_f1": weighted_macro_f1(lists[name], weights_by_prompt, params.f1_depth),
                "bleu_1best_1ref": bleu_lookup[(name, "1", "1")],
                "bleu_100best_100ref": bleu_lookup[(name, "100", "100")],
                "preference_spearman": rho,
                "preference_pearson": r,
                "preference_prompts": n_prompts,
            }
        )
    return pd.DataFrame(rows)


def _bleu_ranking_grid(
    systems_table: pd.DataFrame,
    ranked: Sequence[str],
    bleu_lookup: pd.Series,
    depths: Sequence[Depth],
    references: Sequence[Depth],
) -> pd.DataFrame:
    """Fig. 4: for every x-best y-ref cell, Spearman's rho and Pearson Rank between the BLEU ranking of the
    ``ranked`` systems and their MAP ranking."""
    map_scores = systems_table.set_index("system").loc[list(ranked), "map"].to_numpy()
    rows = []
    for x in depths:
        for y in references:
            values = bleu_lookup.loc[[(name, str(x), str(y)) for name in ranked]].to_numpy()
            rows.append(
                {
                    "x": str(x),
                    "y": str(y),
                    "spearman": spearman_rho(map_scores, values),
                    "pearson_rank": pearson_rank(map_scores, values),
                }
            )
    return pd.DataFrame(rows)


def _parameters_table(
    params: NBestParameters, seed: int, simulated: Mapping[str, SimulatedSystem]
) -> pd.DataFrame:
    """The parameters used (as the config writes them), one row per key, then each simulated system's drawn
    parameters, for the record."""
    from mtsig.settings import as_block

    return pd.DataFrame(
        [{"parameter": k, "value": str(v)} for k, v in sorted({**as_block(params), "seed": seed}.items())]
        + [{"parameter": f"system.{s.name}", "value": str(asdict(s))} for s in simulated.values()]
    )
