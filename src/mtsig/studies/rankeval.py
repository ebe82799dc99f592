"""Segment-level meta-evaluation of predicted rankings against human relative rankings: the RankEval study.

Aligns judgments (WMT relative rankings, JCML sets, :mod:`mtsig.io.rankings`) and predictions (segment-level metric
scores, consensus scores, user-supplied rankings) into rank arrays and tabulates the measures of Avramidis (2013),
*RankEval: Open Tool for Evaluation of Machine-Learned Ranking* (PBML 100), defined in
:mod:`mtsig.stats.ranking_measures.rankeval`, with bootstrap confidence intervals and paired tests of micro
tau resampling judgments (:mod:`mtsig.stats.ranking_measures.tau_bootstrap`).

Two conventions (``segment_level.convention``), because the RankEval tool's released code departs from its paper:

* ``paper`` (the functions' default): the equations of Avramidis (2013).  Blank items are dropped from every
  measure, not treated as a rank; judgments with fewer than two ranked items are not rankings and are dropped; ties
  of the predicted ranking are placed at their *normalised* rank (default ``ceiling``), so NDCG, ERR, MRR and
  average-predicted treat a tie pessimistically, in the spirit of WMT's penalised ties.
* ``rankeval_tool``: what the tool's code (``ranking.set.allmetrics``) computes, so that published RankEval numbers
  can be reproduced; :func:`rankeval_tool_measures` lists every departure (blank ``-1`` as the best rank in every
  measure including tau, all judgments kept, tied predictions overwriting each other in NDCG/ERR, natural-log DCG,
  macro tau without zero-tau segments, tau's p-value over pairs, BPH with ``minimize``).

Predictions enter as scores, higher = better; candidates with exactly equal scores are tied.  BPH is reported in
percent of the judgments in both conventions (the tool's unit; the paper's counts are ``percent * judgments / 100``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import sacrebleu

from mtsig.errors import InputError
from mtsig.io.rankings import BLANK_RANK
from mtsig.metrics import get_metric
from mtsig.metrics.base import Metric
from mtsig.metrics.bleu import sentence_bleu_if_extracted_alike, sentence_bleu_scores
from mtsig.settings import SegmentLevel
from mtsig.stats.conclusions import conclude
from mtsig.stats.ranking_measures.rankeval import (
    best_predicted_human_rank,
    bph_percentages,
    expected_reciprocal_rank,
    kendall_tau_p_value,
    macro_tau,
    micro_tau,
    ndcg,
    pair_counts,
    rankeval_tool_macro_tau,
    rankeval_tool_ndcg_err,
    rankeval_tool_p_value,
    ranks_from_scores,
    reciprocal_ranks,
    round_half_away_from_zero,
)
from mtsig.stats.ranking_measures.tau_bootstrap import paired_tau_tests, tau_confidence_interval
from mtsig.stats.seeding import derive_seed

#: Conventions of the segment-level table: Avramidis (2013)'s equations, or the RankEval tool's released code.
CONVENTIONS = ("paper", "rankeval_tool")


@dataclass(frozen=True)
class RankEvalOptions:
    """How the RankEval measures of a data set are computed: ``ties``, the normalisation of tied predictions in the
    paper's convention (:func:`mtsig.stats.ranking_measures.rankeval.normalize_ranks`); the bootstrap interval of
    micro tau over judgments (``n_samples`` resamples, ``seed``, ``level``; :func:`tau_confidence_interval`); the
    ``convention`` (:data:`CONVENTIONS`, or ``both`` for a table: one block of rows each)."""

    ties: str = "ceiling"
    n_samples: int = SegmentLevel.bootstrap_samples
    seed: int = 0
    level: float = 0.95
    convention: str = "paper"


def convention_names(setting: str) -> tuple[str, ...]:
    """The conventions a ``segment_level.convention`` setting asks for: one of :data:`CONVENTIONS`, or ``both``."""
    if setting == "both":
        return CONVENTIONS
    if setting not in CONVENTIONS:
        raise ValueError(f"convention must be one of {', '.join(CONVENTIONS)} or both, got {setting!r}")
    return (setting,)


# --------------------------------------------------------------------------------------------------------------
# From tables to arrays, and the data-set tables
# --------------------------------------------------------------------------------------------------------------


def judgment_arrays(
    human: pd.DataFrame, predictions: pd.DataFrame, convention: str = "paper"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Align human ranks and predicted scores into ``(judgment ids [J], human ranks [J, K], predicted ranks [J, K])``.

    ``human`` has columns ``judgment, system, rank`` (lower = better, ``-1`` = blank); ``predictions`` has
    ``judgment, system, score`` (higher = better).  ``paper``: blank human ranks are dropped with their predictions,
    judgments with fewer than two ranked items are dropped, and items are ordered by system name.
    ``rankeval_tool``: as the RankEval tool reads a JCML file, every candidate is kept with its rank, a blank as
    the value ``-1`` (so it normalises to the best rank), every judgment is kept, and items keep the order of the
    input (the tool's NDCG/ERR depend on it).  Raises InputError if a kept item has no prediction or a
    (judgment, system) is predicted twice.
    """
    if convention not in CONVENTIONS:
        raise ValueError(f"convention must be one of {', '.join(CONVENTIONS)}, got {convention!r}")
    for name, frame, columns in (
        ("human rankings", human, ("judgment", "system", "rank")),
        ("predictions", predictions, ("judgment", "system", "score")),
    ):
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise InputError(f"{name} lack column(s) {', '.join(missing)}")
    duplicated = predictions.duplicated(["judgment", "system"])
    if duplicated.any():
        first = predictions.loc[duplicated].iloc[0]
        raise InputError(f"judgment {first['judgment']}, system {first['system']!r} is predicted twice")
    ranked = human[["judgment", "system", "rank"]].assign(input_order=np.arange(len(human)))
    if convention == "paper":
        ranked = ranked.loc[ranked["rank"] != BLANK_RANK]
        ranked = ranked.loc[ranked.groupby("judgment")["system"].transform("size") >= 2]
    merged = ranked.merge(
        predictions[["judgment", "system", "score"]],
        on=["judgment", "system"],
        how="left",
        validate="one_to_one",
    )
    lacking = merged["score"].isna()
    if lacking.any():
        first = merged.loc[lacking].iloc[0]
        blank_too = "" if convention == "paper" else " (rankeval_tool evaluates blank-ranked items too)"
        raise InputError(
            f"{int(lacking.sum())} ranked item(s) have no predicted score{blank_too}, e.g. judgment "
            f"{first['judgment']}, system {first['system']!r}"
        )
    order = ["judgment", "system"] if convention == "paper" else ["judgment", "input_order"]
    merged = merged.sort_values(order, kind="stable")
    judgment_ids, row = np.unique(merged["judgment"].to_numpy(), return_inverse=True)
    slot = merged.groupby("judgment").cumcount().to_numpy()
    shape = (len(judgment_ids), int(slot.max()) + 1 if len(slot) else 0)
    human_ranks = np.full(shape, np.nan)
    scores = np.full(shape, np.nan)
    human_ranks[row, slot] = merged["rank"].to_numpy(dtype=float)
    scores[row, slot] = merged["score"].to_numpy(dtype=float)
    return judgment_ids, human_ranks, ranks_from_scores(scores)


def _pair_measures(
    predicted_ranks: np.ndarray, human_ranks: np.ndarray, n_samples: int, seed: int, level: float
) -> tuple[np.ndarray, dict[str, float]]:
    """The pair counts of the judgments (:func:`pair_counts`) and the measures both conventions take from them
    alike: ``judgments``, ``concordant``, ``discordant``, ``tau_micro`` and its bootstrap interval
    ``tau_ci_low/high`` (:func:`tau_confidence_interval`), in that order."""
    counts = pair_counts(predicted_ranks, human_ranks)
    low, high = tau_confidence_interval(counts, n_samples, seed, level)
    measures = {
        "judgments": float(human_ranks.shape[0]),
        "concordant": float(counts[:, 0].sum()),
        "discordant": float(counts[:, 1].sum()),
        "tau_micro": micro_tau(counts),
        "tau_ci_low": low,
        "tau_ci_high": high,
    }
    return counts, measures


def segment_level_measures(
    predicted_ranks: np.ndarray, human_ranks: np.ndarray, options: RankEvalOptions = RankEvalOptions()
) -> dict[str, float]:
    """Every RankEval measure of one predictor on one data set of judgments (Avramidis 2013, Sec. 3; ``ranking.set``).

    ``paper``: tau uses WMT's penalised ties and is normalisation-free; the others use ``ties`` and are means over
    judgments.  ``tau_p`` is eqs. 3-4 with ``n`` = the human-ranked items of the judgments contributing pairs (see
    :func:`kendall_tau_p_value`); ``tau_ci_low/high`` the bootstrap percentile interval over judgments
    (:func:`tau_confidence_interval`); ``bph_<rank>`` BPH in percent of the judgments (:func:`bph_percentages`).
    ``rankeval_tool``: the same measures as the tool computes them (:func:`rankeval_tool_measures`); the arrays must
    then come from ``judgment_arrays(..., convention="rankeval_tool")``. ``options``: :class:`RankEvalOptions`, its
    convention one of :data:`CONVENTIONS`.
    """
    ties, convention = options.ties, options.convention
    n_samples, seed, level = options.n_samples, options.seed, options.level
    if convention == "rankeval_tool":
        if ties != "ceiling":
            raise ValueError(
                "the rankeval_tool convention fixes its own normalisations; ties must stay 'ceiling'"
            )
        return rankeval_tool_measures(predicted_ranks, human_ranks, n_samples, seed, level)
    if convention != "paper":
        raise ValueError(f"convention must be one of {', '.join(CONVENTIONS)}, got {convention!r}")
    counts, measures = _pair_measures(predicted_ranks, human_ranks, n_samples, seed, level)
    contributing = counts.sum(axis=1) > 0
    n_items = int((~np.isnan(human_ranks[contributing])).sum())
    best_human = best_predicted_human_rank(predicted_ranks, human_ranks, ties)
    measures |= {
        "tau_p": float(kendall_tau_p_value(measures["tau_micro"], n_items)),
        "tau_macro": macro_tau(counts),
        "mrr": float(reciprocal_ranks(predicted_ranks, human_ranks, ties).mean()),
        "ndcg": float(ndcg(predicted_ranks, human_ranks, ties).mean()),
        "err": float(expected_reciprocal_rank(predicted_ranks, human_ranks, ties).mean()),
        "avg_predicted": float(best_human.mean()),
    }
    for rank, percent in bph_percentages(best_human, human_ranks.shape[0]).items():
        measures[f"bph_{rank:g}"] = percent
    return measures


def rankeval_tool_measures(
    predicted_ranks: np.ndarray,
    human_ranks: np.ndarray,
    n_samples: int = SegmentLevel.bootstrap_samples,
    seed: int = 0,
    level: float = 0.95,
) -> dict[str, float]:
    """The measures of :func:`segment_level_measures` as the RankEval tool's ``ranking.set.allmetrics`` computes them.

    Expects arrays from ``judgment_arrays(..., convention="rankeval_tool")``: every judgment, blank human ranks as
    ``-1``, items in input order.  Departures from the paper convention, each as in the tool's code:

    * a blank (``-1``) is a rank value like any other, so the normalisations make it the best rank (several blanks
      in a list tie there) in *every* measure, tau included: the tool normalises before its pair loop, so the
      loop's ``-1`` check never fires;
    * judgments with one candidate count in every mean (they add no pair to tau);
    * tau micro as in the paper; ``tau_macro`` without zero taus (:func:`rankeval_tool_macro_tau`); ``tau_p`` with
      ``n`` = compared pairs (:func:`rankeval_tool_p_value`);
    * ``mrr`` and ``avg_predicted`` with ``ceiling`` on both rankings (the paper convention's default too);
    * ``ndcg`` and ``err`` from :func:`rankeval_tool_ndcg_err` with the cut-off ``k`` = the length of the *first*
      judgment's list for every list (``kwargs.setdefault('k', len(...))`` inside the loop);
    * ``bph_<rank>``: the human rank of the predicted best (worst of a tied top) with ``minimize`` on both
      rankings, ``round(100 * count / judgments, 2)`` per rank that occurs, Python 2's rounding
      (:func:`round_half_away_from_zero`).

    ``tau_ci_low/high`` (not in the tool) are the bootstrap interval of these counts, as in the paper convention.
    """
    human = np.atleast_2d(np.asarray(human_ranks, dtype=float))
    predicted = np.atleast_2d(np.asarray(predicted_ranks, dtype=float))
    counts, measures = _pair_measures(predicted, human, n_samples, seed, level)
    n_pairs = int(counts.sum())
    first_list_length = int((~np.isnan(human[0])).sum()) if human.shape[0] else 0
    ndcg_values, err_values = rankeval_tool_ndcg_err(predicted, human, first_list_length)
    n_judgments = human.shape[0]
    measures |= {
        "tau_p": float(rankeval_tool_p_value(measures["tau_micro"], n_pairs)),
        "tau_macro": rankeval_tool_macro_tau(counts),
        "mrr": float(reciprocal_ranks(predicted, human, "ceiling").mean()),
        "ndcg": float(ndcg_values.mean()),
        "err": float(err_values.mean()),
        "avg_predicted": float(best_predicted_human_rank(predicted, human, "ceiling").mean()),
    }
    best_minimized = best_predicted_human_rank(predicted, human, "minimize")
    for rank, percent in bph_percentages(best_minimized, n_judgments).items():
        measures[f"bph_{rank:g}"] = round_half_away_from_zero(percent, 2)
    return measures


def experiment_seed(seed: int, experiment: str) -> int:
    """The resampling seed of one data set: ``derive_seed(seed, "rankeval", experiment)`` (stable SHA-256)."""
    return derive_seed(seed, "rankeval", experiment)


def segment_level_table(
    predictions: Mapping[str, pd.DataFrame],
    human: pd.DataFrame,
    options: RankEvalOptions = RankEvalOptions(),
    experiment: str = "",
) -> pd.DataFrame:
    """Long table ``(convention, predictor, measure, value)`` of :func:`segment_level_measures` for every predictor.

    ``predictions`` maps a predictor name to its ``judgment, system, score`` table (higher = better); ``human``
    is a :func:`mtsig.io.rankings.load_wmt_rankings` / :func:`~mtsig.io.rankings.load_jcml` table.
    ``options.convention`` is ``paper``, ``rankeval_tool`` or ``both`` (:func:`convention_names`; rows of ``paper``
    first).  Bootstrap draws come from :func:`experiment_seed` of ``options.seed`` and are shared by all predictors
    and conventions (and by :func:`pairwise_tau_tests`).
    """
    rows = []
    seed = experiment_seed(options.seed, experiment)
    for name_of_convention in convention_names(options.convention):
        measured = dataclasses.replace(options, seed=seed, convention=name_of_convention)
        for name, predicted in predictions.items():
            _, human_ranks, predicted_ranks = judgment_arrays(human, predicted, name_of_convention)
            measures = segment_level_measures(predicted_ranks, human_ranks, measured)
            rows.extend((name_of_convention, name, measure, value) for measure, value in measures.items())
    return pd.DataFrame(rows, columns=["convention", "predictor", "measure", "value"])


def pairwise_tau_tests(
    predictions: Mapping[str, pd.DataFrame],
    human: pd.DataFrame,
    n_samples: int = SegmentLevel.bootstrap_samples,
    seed: int = 0,
    alpha: float = 0.05,
    experiment: str = "",
) -> pd.DataFrame:
    """Paired bootstrap tests of micro tau for every unordered pair of predictors (:func:`paired_tau_tests`).

    Columns ``predictor_x, predictor_y, tau_x, tau_y, p_x_better, p_y_better, conclusion`` (``sys_x`` /
    ``sys_y`` / ``tie`` at ``alpha`` by :func:`mtsig.stats.conclusions.conclude`), one row per unordered pair.
    """
    names = list(predictions)
    if len(names) < 2:
        raise ValueError("paired tests need at least two predictors")
    counts = []
    for name in names:
        _, human_ranks, predicted_ranks = judgment_arrays(human, predictions[name])
        counts.append(pair_counts(predicted_ranks, human_ranks))
    stacked = np.stack(counts)  # same judgments for all: judgment_arrays keeps them by the human ranks alone
    table = paired_tau_tests(stacked, names, n_samples, experiment_seed(seed, experiment))
    p = table.set_index(["sys_x", "sys_y"])["p_value"]
    tau = {name: micro_tau(c) for name, c in zip(names, counts, strict=True)}
    rows = [
        (x, y, tau[x], tau[y], float(p[(x, y)]), float(p[(y, x)]))
        for i, x in enumerate(names)
        for y in names[i + 1 :]
    ]
    result = pd.DataFrame(
        rows, columns=["predictor_x", "predictor_y", "tau_x", "tau_y", "p_x_better", "p_y_better"]
    )
    result["conclusion"] = conclude(result["p_x_better"].to_numpy(), result["p_y_better"].to_numpy(), alpha)
    return result


# --------------------------------------------------------------------------------------------------------------
# Predictors and pipeline steps
# --------------------------------------------------------------------------------------------------------------

_CONSENSUS_METRICS = {"bleu": sacrebleu.sentence_bleu, "chrf": sacrebleu.sentence_chrf}


def consensus_scores(candidates: pd.DataFrame, metric: str = "bleu") -> pd.DataFrame:
    """Reference-free consensus score of every candidate: its sentence-level metric against the other candidates.

    For JCML sets, whose references are empty: each candidate (``text``) of a judged sentence is scored with
    ``sacrebleu.sentence_bleu(hyp, others).score`` (smoothed sentence BLEU, multi-reference) or
    ``sentence_chrf`` (best-matching reference), ``others`` being the other candidates of the same judgment,
    including those the human left blank (they are still translations of the sentence).  A sentence with a single
    candidate scores 0.  Returns ``judgment, system, score``.
    """
    if metric not in _CONSENSUS_METRICS:
        raise ValueError(f"consensus metric must be one of {', '.join(_CONSENSUS_METRICS)}, got {metric!r}")
    sentence_score = _CONSENSUS_METRICS[metric]
    rows = []
    for judgment, group in candidates.groupby("judgment", sort=True):
        texts = [str(t).strip() for t in group["text"]]
        for index, system in enumerate(group["system"]):
            others = texts[:index] + texts[index + 1 :]
            score = sentence_score(texts[index], others).score if others else 0.0
            rows.append((judgment, system, float(score)))
    return pd.DataFrame(rows, columns=["judgment", "system", "score"])


def predicted_ranking_scores(rankings: Mapping[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Predictors from user-supplied rankings (RankEval's own use: evaluating a quality-estimation ranker), each as
    read by :func:`mtsig.io.rankings.load_predicted_ranking`; score = -predicted rank, so rank 1 is best."""
    predictions = {}
    for name, ranking in rankings.items():
        predictions[name] = pd.DataFrame(
            {
                "judgment": ranking["judgment"],
                "system": ranking["system"],
                "score": -ranking["predicted_rank"],
            }
        )
    return predictions


def jcml_segment_level(
    candidates: pd.DataFrame,
    name: str,
    metrics: Sequence[str] = ("bleu", "chrf"),
    options: RankEvalOptions = RankEvalOptions(),
    predicted_rankings: Mapping[str, pd.DataFrame] | None = None,
) -> pd.DataFrame:
    """RankEval table of consensus predictors (:func:`consensus_scores`) on one JCML set's ``candidates``
    (:func:`mtsig.io.rankings.load_jcml`).

    Predictor names are ``consensus_<metric>``; ``predicted_rankings`` adds a predictor per user-supplied ranking
    (:func:`predicted_ranking_scores`). ``name`` (the file's stem in the pipeline) keys the bootstrap.
    """
    predictions = {f"consensus_{m}": consensus_scores(candidates, m) for m in metrics}
    predictions.update(predicted_ranking_scores(predicted_rankings or {}))
    return segment_level_table(predictions, candidates, options, name)


def metric_segment_scores(
    metric_name: str, system_outputs: Mapping[str, Sequence[str]], references: Sequence[str]
) -> np.ndarray:
    """Segment-level scores ``[S, N]`` (higher = better) of one metric, for ranking systems within a judgment.

    BLEU is sacrebleu's smoothed sentence BLEU (:func:`sentence_bleu_scores`): corpus BLEU on one segment's
    statistics is zero whenever a 4-gram is missing.  Other metrics score each segment's own sufficient
    statistics, ``metric.score(stats[:, i])`` from :func:`mtsig.metrics.get_metric` (``stats_many``); a metric
    where lower is better (TER) is negated.
    """
    if metric_name.lower() == "bleu":
        return sentence_bleu_scores(system_outputs, references)
    metric = get_metric(metric_name)
    scores = np.asarray(metric.score(metric.stats_many(system_outputs, list(references))), dtype=float)
    return scores if metric.higher_is_better else -scores


def wmt_predictions(
    human: pd.DataFrame,
    systems: Sequence[str],
    segment_scores: np.ndarray,
    rankings_path: str | Path | None = None,
) -> pd.DataFrame:
    """Look up each judged (system, segment) in ``segment_scores[S, N]`` (rows in ``systems`` order).

    Returns ``judgment, system, score``.  Raises InputError (naming the rankings file) for a judged system
    without output or a segment index beyond the outputs.
    """
    scores = np.asarray(segment_scores, dtype=float)
    if scores.shape[0] != len(systems):
        raise ValueError(f"{len(systems)} systems but segment scores for {scores.shape[0]}")
    index = {name: i for i, name in enumerate(systems)}
    unknown = sorted(set(human["system"]) - set(index))
    if unknown:
        raise InputError(f"judged system(s) without output: {', '.join(unknown)}", rankings_path)
    beyond = human["segment"] >= scores.shape[1]
    if beyond.any():
        raise InputError(
            f"segment index {int(human.loc[beyond, 'segment'].max())} beyond the {scores.shape[1]} output lines",
            rankings_path,
        )
    rows = human["system"].map(index).to_numpy()
    return pd.DataFrame(
        {
            "judgment": human["judgment"].to_numpy(),
            "system": human["system"].to_numpy(),
            "score": scores[rows, human["segment"].to_numpy()],
        }
    )


def wmt_segment_level(
    human: pd.DataFrame,
    languages: tuple[str, str],
    systems: Sequence[str],
    segment_scores: Mapping[str, np.ndarray],
    options: RankEvalOptions = RankEvalOptions(),
    predicted_rankings: Mapping[str, pd.DataFrame] | None = None,
    source: str | Path | None = None,
) -> pd.DataFrame:
    """RankEval table of every metric's segment-level scores against WMT relative rankings.

    ``human``: the judgments of one language pair (:func:`mtsig.io.rankings.load_wmt_rankings`, read from
    ``source``, which errors name); ``languages`` = (source, target) as named in the RNK file (e.g.
    ``("Spanish", "English")``);
    ``segment_scores`` maps a predictor to ``[S, N]`` scores, higher = better, rows in ``systems`` order
    (:func:`metric_segment_scores`).  Each human judgment's shown systems are ranked by their scores on the judged
    segment (WMT's segment-level metric evaluation). ``predicted_rankings`` adds a predictor per user-supplied
    ranking file (:func:`predicted_ranking_scores`).
    """
    predictions = {
        name: wmt_predictions(human, systems, scores, source) for name, scores in segment_scores.items()
    }
    predictions.update(predicted_ranking_scores(predicted_rankings or {}))
    return segment_level_table(predictions, human, options, "-".join(languages))


def experiment_segment_scores(
    stats_by_metric: Mapping[str, tuple[np.ndarray, Metric]],
    system_outputs: Mapping[str, Sequence[str]],
    reference: Sequence[str],
    one_reference: bool,
) -> dict[str, np.ndarray]:
    """Segment-level scores ``[S, N]`` (higher = better) of an experiment's metrics from their statistics
    (``metric -> (stats[S, N, k], metric)``), BLEU first: sacrebleu's smoothed sentence BLEU, from the BLEU
    statistics when they were extracted as ``sentence_bleu`` extracts them
    (:func:`mtsig.metrics.bleu.sentence_bleu_if_extracted_alike`), else from the texts
    (:func:`sentence_bleu_scores`, also when the experiment has no BLEU); every other metric scored on each
    segment's own statistics, negated where lower is better (TER)."""
    scores: dict[str, np.ndarray | None] = {}
    for name, (statistics, metric) in stats_by_metric.items():
        if name == "bleu":
            scores[name] = sentence_bleu_if_extracted_alike(statistics, metric.options, one_reference)
        else:
            segment = np.asarray(metric.score(statistics), dtype=float)
            scores[name] = segment if metric.higher_is_better else -segment
    bleu = scores.pop("bleu", None)
    if bleu is None:
        bleu = sentence_bleu_scores(system_outputs, reference)
    return {"bleu": bleu, **scores}


def wmt_experiment_segment_level(
    human: pd.DataFrame,
    languages: tuple[str, str],
    stats_by_metric: Mapping[str, tuple[np.ndarray, Metric]],
    system_outputs: Mapping[str, Sequence[str]],
    reference: Sequence[str],
    *,
    one_reference: bool,
    options: RankEvalOptions,
    predicted_rankings: Mapping[str, pd.DataFrame],
    source: str | Path | None = None,
) -> pd.DataFrame:
    """:func:`wmt_segment_level` of an experiment's metrics, scored on each segment from their statistics
    (:func:`experiment_segment_scores`), systems in the order of ``system_outputs``."""
    return wmt_segment_level(
        human,
        languages,
        list(system_outputs),
        experiment_segment_scores(stats_by_metric, system_outputs, reference, one_reference),
        options,
        predicted_rankings,
        source,
    )
