"""Metric meta-evaluation of one experiment: which of its metrics agrees best with the humans, and is it significant?

The WMT metrics tasks' system-level questions (Mathur, Wei, Freitag, Ma & Bojar 2020, Sec. 3), asked of any
experiment of the run with the experiment's own metrics, human system scores and gold (docs/statistics.md,
"Metric meta-evaluation of an experiment"):

1. every metric's Pearson, Spearman and Kendall correlation with the human system scores (z and raw, or whichever
   of them the experiment has: :func:`available_human_scores`), with all systems and without the MAD rule's
   outliers (Mathur, Baldwin & Cohn 2020, Sec. 4.2), the Williams test between every two metrics and its winners
   (Graham & Baldwin 2014) — :func:`mtsig.studies.metrics_task.meta_evaluate`, the code that reproduces the WMT20
   task's published numbers;
2. bootstrap intervals of each metric's correlation with the primary human score, z when there is z (Deutsch,
   Dror & Roth 2021, Sec. 3.1): BOOT-SYSTEMS, BOOT-INPUTS and BOOT-BOTH, where resampling the inputs re-scores the
   drawn test set exactly as the metric scores a corpus (BLEU's n-gram counts summed over the drawn segments, not
   a mean of sentence scores); the human system scores stay fixed when inputs are drawn, because the humans did
   not rate every segment of every system (WMT12 ranked 5-system samples, DA rates a subset), so only the
   metric's test-set variation is resampled: the intervals are those of the metric side;
3. PERM-BOTH (Deutsch et al. 2021, Sec. 4.1) between every two metrics, on their segment-level forms (sentence
   BLEU, each segment's own TER, chrF, ...; system score = their mean), as mt-metrics-eval compares metrics;
4. pairwise accuracy (Kocmi et al. 2021, Sec. 3; ties per Deutsch, Foster & Freitag 2023, acc_eq) of every metric's
   corpus scores against each of the experiment's golds at each alpha, and the paired sign-flip test between every
   two metrics' accuracies.

Every metric is oriented so that higher is better (TER negated), as the WMT tasks report them. Library only:
arrays and tables in, tables out (:mod:`mtsig.steps.meta_evaluation` reads and writes the files).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.runtime.portable import WeightedSums
from mtsig.settings import MetaEvaluation
from mtsig.stats.intervals import confidence_level
from mtsig.stats.meta_evaluation import metric_comparison as mc
from mtsig.stats.meta_evaluation import system_level as me
from mtsig.stats.seeding import rng_for
from mtsig.studies.metrics_task import PairScores, excluded_systems, meta_evaluate

#: The human system scores an experiment's metrics are correlated with, in order of preference: kind -> the column
#: of ``human/system_scores.tsv`` (:func:`mtsig.stats.human.system_scores`). The first one available is the primary
#: score (the MAD outliers, the bootstrap intervals, PERM-BOTH, the table and the heatmap use it).
HUMAN_SCORE_COLUMNS = {"z": "mean_z", "raw": "mean_raw"}

INTERVAL_COLUMNS = ["human", "systems", "scheme", "metric", "kind", "r", "low", "high", "confidence", "n_resamples",
                    "n_undefined"]  # fmt: skip
PERM_BOTH_COLUMNS = ["human", "form", "metric_a", "metric_b", "r_a", "r_b", "p_value", "n_resamples"]
ACCURACY_COLUMNS = ["gold", "alpha", "metric", "pairs", "correct", "accuracy"]
ACCURACY_TEST_COLUMNS = ["gold", "alpha", "metric_a", "metric_b", "accuracy_a", "accuracy_b", "p_value",
                         "n_resamples"]  # fmt: skip


def available_human_scores(
    table: pd.DataFrame, systems: Sequence[str]
) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """The human system scores an experiment can be meta-evaluated against: ``table`` (indexed by system, with the
    columns of :data:`HUMAN_SCORE_COLUMNS`) read for ``systems``. Returns (kind -> scores ``[S]`` in ``systems``
    order, for every kind whose score is a finite number for every system; kind -> why another kind is left out).
    Segment means of z carry no raw scores (``mean_raw`` empty), and relative rankings or MQM scores may lack
    either: the meta-evaluation uses what there is and says so."""
    usable: dict[str, np.ndarray] = {}
    missing: dict[str, str] = {}
    for kind, column in HUMAN_SCORE_COLUMNS.items():
        if column not in table.columns:
            missing[kind] = f"no {column} column"
            continue
        values = table.loc[list(systems), column].to_numpy(dtype=np.float64)
        absent = [s for s, v in zip(systems, values, strict=True) if not np.isfinite(v)]
        if not absent:
            usable[kind] = values
        elif len(absent) == len(systems):
            missing[kind] = f"{column} is empty for every system (the human judgments carry no {kind} scores)"
        else:
            missing[kind] = f"{column} is not a finite number for {', '.join(absent)}"
    return usable, missing


def primary_human_kind(human: Mapping[str, np.ndarray]) -> str:
    """The primary human score of a meta-evaluation: the first of :data:`HUMAN_SCORE_COLUMNS` in ``human``."""
    kinds = [k for k in HUMAN_SCORE_COLUMNS if k in human] + [
        k for k in human if k not in HUMAN_SCORE_COLUMNS
    ]
    if not kinds:
        raise InputError("no human system scores to meta-evaluate against")
    return kinds[0]


@dataclass(frozen=True)
class ExperimentMetrics:
    """An experiment's metrics on its systems (``systems``, S of them, on N segments), every one oriented so that
    higher is better: ``corpus`` its system scores ``[S]``; ``of_counts`` its system scores on resampled test sets
    (:data:`mtsig.stats.meta_evaluation.metric_comparison.SystemScoresOfCounts` of this one metric: ``[B, S]``
    for ``counts[B, N]``); ``segments`` its segment-level form ``[S, N]`` (None where it has none, e.g. BLEU
    without sentence statistics)."""

    systems: list[str]
    n_segments: int
    corpus: dict[str, np.ndarray]
    of_counts: dict[str, mc.SystemScoresOfCounts]
    segments: dict[str, np.ndarray | None]


def corpus_metric(
    stats: np.ndarray, score: Callable[[np.ndarray], np.ndarray], higher_is_better: bool
) -> tuple[np.ndarray, mc.SystemScoresOfCounts]:
    """(system scores ``[S]``, scores of resampled test sets) of a metric given by its per-segment sufficient
    statistics ``stats[S, N, W]`` and its corpus score function ``score`` (summed statistics ``[..., W]`` to
    scores): a drawn test set's statistics are the counts-weighted sums of the segments' (one matrix product,
    :class:`mtsig.runtime.portable.WeightedSums`)."""
    stats = np.asarray(stats, dtype=np.float64)
    n_sys, n_seg, width = stats.shape
    sign = 1.0 if higher_is_better else -1.0
    sums_of = WeightedSums(stats.transpose(1, 0, 2).reshape(n_seg, n_sys * width))

    def of_counts(counts: np.ndarray | None) -> np.ndarray:
        if counts is None:
            return sign * np.asarray(score(stats.sum(axis=1)), dtype=np.float64)
        summed = sums_of(counts, n_seg).reshape(counts.shape[0], n_sys, width)
        return sign * np.asarray(score(summed), dtype=np.float64)

    return of_counts(None), of_counts


def _stacked(functions: Sequence[mc.SystemScoresOfCounts]) -> mc.SystemScoresOfCounts:
    """One function of the counts giving the M metrics' system scores ``[..., M, S]``."""

    def scores(counts: np.ndarray | None) -> np.ndarray:
        return np.stack([f(counts) for f in functions], axis=-2)

    return scores


def bootstrap_table(
    metrics: ExperimentMetrics,
    human: np.ndarray,
    *,
    kinds: Sequence[str],
    schemes: Sequence[str],
    n_resamples: int,
    confidence: float,
    seed: int,
    label: str,
    human_kind: str = "z",
) -> pd.DataFrame:
    """:data:`INTERVAL_COLUMNS` rows: every metric's correlation with ``human`` (system scores of the kind
    ``human_kind``, all systems) and its bootstrap interval under each scheme and kind, every metric on the same
    draws (one stream per scheme and kind, from ``seed`` and ``label``)."""
    names = list(metrics.corpus)
    scores_of = _stacked([metrics.of_counts[m] for m in names])
    rows = []
    for scheme in schemes:
        for kind in kinds:
            intervals = mc.bootstrap_correlations(
                scores_of,
                human,
                metrics.n_segments,
                scheme=scheme,
                kind=kind,
                n_resamples=n_resamples,
                confidence=confidence,
                rng=rng_for(seed, label, "meta_evaluation", "bootstrap", scheme, kind),
            )
            rows += [
                (
                    human_kind,
                    "all",
                    scheme,
                    m,
                    kind,
                    i.estimate,
                    i.low,
                    i.high,
                    confidence,
                    i.n_resamples,
                    i.n_undefined,
                )
                for m, i in zip(names, intervals, strict=True)
            ]
    return pd.DataFrame.from_records(rows, columns=INTERVAL_COLUMNS)


def perm_both_table(
    metrics: ExperimentMetrics,
    human: np.ndarray,
    *,
    n_resamples: int,
    seed: int,
    label: str,
    human_kind: str = "z",
) -> pd.DataFrame:
    """:data:`PERM_BOTH_COLUMNS` rows: PERM-BOTH
    (:func:`mtsig.stats.meta_evaluation.metric_comparison.perm_both_matrix`, system level, metrics
    standardised) for every ordered pair of the metrics with a segment-level form; ``p_value`` is the
    one-sided p of "metric_a correlates better than metric_b", ``r_a``/``r_b`` the correlations of the
    segment-level forms' means. Empty when fewer than two metrics have one."""
    names = [m for m, seg in metrics.segments.items() if seg is not None]
    if len(names) < 2:
        return pd.DataFrame(columns=PERM_BOTH_COLUMNS)
    p, r = mc.perm_both_matrix(
        human,
        np.stack([metrics.segments[m] for m in names]),
        mc.PermBothOptions(n_resamples=n_resamples),
        rng=rng_for(seed, label, "meta_evaluation", "perm_both"),
    )
    rows = [
        (human_kind, "segment_mean", a, b, float(r[i]), float(r[j]), float(p[i, j]), n_resamples)
        for i, a in enumerate(names)
        for j, b in enumerate(names)
        if i != j
    ]
    return pd.DataFrame.from_records(rows, columns=PERM_BOTH_COLUMNS)


def gold_signs(conclusions: pd.DataFrame, systems: Sequence[str]) -> np.ndarray:
    """The gold of every pair ``i < j`` of ``systems`` (``np.triu_indices`` order): +1 when the gold's conclusion
    is that system i is better, -1 when j is, 0 for "no difference" (``tie``). ``conclusions``: one gold at one
    alpha (``sys_x, sys_y, conclusion`` with conclusion ``sys_x``, ``sys_y`` or ``tie``); every pair must be in it."""
    index = {s: k for k, s in enumerate(systems)}
    better = np.zeros((len(systems), len(systems)), dtype=bool)
    seen = np.eye(len(systems), dtype=bool)
    for x, y, conclusion in conclusions[["sys_x", "sys_y", "conclusion"]].itertuples(index=False):
        if x not in index or y not in index:
            continue
        i, j = index[x], index[y]
        seen[i, j] = seen[j, i] = True
        if conclusion == "sys_x":
            better[i, j] = True
        elif conclusion == "sys_y":
            better[j, i] = True
        elif conclusion != "tie":
            raise InputError(f"gold conclusion {conclusion!r} for {x} vs {y} (expected sys_x, sys_y or tie)")
    if not seen.all():
        i, j = np.argwhere(~seen)[0]
        raise InputError(f"the gold has no conclusion for {systems[i]} vs {systems[j]}")
    return mc.gold_pair_signs(better)


def accuracy_tables(
    metrics: ExperimentMetrics, gold_conclusions: pd.DataFrame, *, n_resamples: int, seed: int, label: str
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(:data:`ACCURACY_COLUMNS`, :data:`ACCURACY_TEST_COLUMNS`): every metric's pairwise accuracy (acc_eq) against
    each gold at each alpha, and the sign-flip test of "metric_a is more accurate than metric_b" for every ordered
    pair (:func:`mtsig.stats.meta_evaluation.metric_comparison.accuracy_permutation_matrix`)."""
    names = list(metrics.corpus)
    scores = np.stack([metrics.corpus[m] for m in names])
    accuracy, tests = [], []
    for (gold, alpha), group in gold_conclusions.groupby(["gold", "alpha"], sort=False):
        signs = gold_signs(group, metrics.systems)
        correct = mc.pair_correct(scores, signs)  # [M, P]
        acc = correct.mean(axis=1)
        accuracy += [
            (gold, float(alpha), m, int(signs.size), int(correct[k].sum()), float(acc[k]))
            for k, m in enumerate(names)
        ]
        if len(names) > 1:
            p = mc.accuracy_permutation_matrix(
                correct,
                n_resamples=n_resamples,
                rng=rng_for(seed, label, "meta_evaluation", "accuracy", str(gold), f"{float(alpha):g}"),
            )
            tests += [
                (gold, float(alpha), a, b, float(acc[i]), float(acc[j]), float(p[i, j]), n_resamples)
                for i, a in enumerate(names)
                for j, b in enumerate(names)
                if i != j
            ]
    return (
        pd.DataFrame.from_records(accuracy, columns=ACCURACY_COLUMNS),
        pd.DataFrame.from_records(tests, columns=ACCURACY_TEST_COLUMNS),
    )


def experiment_meta_evaluation(
    name: str,
    metrics: ExperimentMetrics,
    human: Mapping[str, np.ndarray],
    gold_conclusions: pd.DataFrame,
    *,
    kinds: Sequence[str] = me.KINDS,
    schemes: Sequence[str] = mc.BOOTSTRAP_SCHEMES,
    bootstrap_samples: int = MetaEvaluation.bootstrap_samples,
    permutation_samples: int = MetaEvaluation.permutation_samples,
    confidence: float = MetaEvaluation.confidence,
    alpha: float = me.WILLIAMS_ALPHA,
    seed: int,
) -> dict[str, pd.DataFrame]:
    """Items 1-4 of the module docstring for one experiment: ``correlations``, ``williams``, ``winners`` (the
    columns of :func:`mtsig.studies.metrics_task.meta_evaluate`, ``lp`` = the experiment), ``intervals``,
    ``perm_both``, ``accuracy`` and ``accuracy_tests``. ``human``: system scores in the order of
    ``metrics.systems``, ``z`` and ``raw`` or whichever of them the experiment has (:func:`available_human_scores`);
    the correlations and Williams tests are computed for each, the outliers (MAD rule), intervals and PERM-BOTH
    with the primary one (:func:`primary_human_kind`: z when there is z), whose kind their ``human`` column names.
    Seeded streams depend on ``seed`` and ``name`` only."""
    if len(metrics.corpus) < 2:
        raise InputError(f"{name}: a meta-evaluation needs at least two metrics, got {len(metrics.corpus)}")
    primary = primary_human_kind(human)
    pair = PairScores(list(metrics.systems), dict(human), dict(metrics.corpus), {})
    excluded = excluded_systems(pair.systems, pair.human[primary], None)
    results = meta_evaluate(name, pair, excluded, kinds=kinds, human_as_metric=False, alpha=alpha)
    # the intervals and PERM-BOTH: the primary human score, streams seeded by the experiment's name
    primary_human, seeded = pair.human[primary], {"seed": seed, "label": name, "human_kind": primary}
    results["intervals"] = bootstrap_table(
        metrics,
        primary_human,
        kinds=kinds,
        schemes=schemes,
        n_resamples=bootstrap_samples,
        confidence=confidence,
        **seeded,
    )
    results["perm_both"] = perm_both_table(metrics, primary_human, n_resamples=permutation_samples, **seeded)
    results["accuracy"], results["accuracy_tests"] = accuracy_tables(
        metrics, gold_conclusions, n_resamples=permutation_samples, seed=seed, label=name
    )
    return results


@dataclass(frozen=True)
class ExperimentMetaEvaluation:
    """An experiment's meta-evaluation: the tables of :func:`experiment_meta_evaluation` (``correlations``,
    ``williams``, ``winners``, ``intervals``, ``perm_both``, ``accuracy``, ``accuracy_tests``), the primary human
    score's kind (``human``), the metrics whose orientation looks reversed (metric -> Pearson r and one-sided p,
    :func:`mtsig.stats.meta_evaluation.system_level.reversed_orientation`) and the Williams tests against the
    primary human score with all systems (``williams_primary``, the heatmap's)."""

    tables: dict[str, pd.DataFrame]
    human: str
    reversed_metrics: dict[str, tuple[float, float]]
    williams_primary: pd.DataFrame


def meta_evaluate_experiment(
    name: str,
    metrics: ExperimentMetrics,
    human: Mapping[str, np.ndarray],
    gold_conclusions: pd.DataFrame,
    settings: MetaEvaluation,
    *,
    seed: int,
) -> ExperimentMetaEvaluation:
    """Which metric of experiment ``name`` agrees best with its humans (items 1-4 of the module docstring:
    correlations and Williams tests, Graham & Baldwin 2014; the MAD outliers, Mathur, Baldwin & Cohn 2020, Sec.
    4.2; bootstrap intervals and PERM-BOTH, Deutsch, Dror & Roth 2021, Secs. 3.1 and 4.1; pairwise accuracy,
    Kocmi et al. 2021, Sec. 3), with the metrics whose system scores correlate strongly negatively with the
    primary human score (:func:`primary_human_kind`): their ``higher_is_better`` is most likely wrong.
    ``settings``: the resamples of the bootstrap intervals and of PERM-BOTH and the accuracy tests, the intervals'
    confidence (a fraction or a percentage) and the tests' alpha (the config's ``meta_evaluation`` block)."""
    primary = primary_human_kind(human)
    reversed_metrics = me.reversed_orientation(metrics.corpus, human[primary])
    tables = experiment_meta_evaluation(
        name,
        metrics,
        human,
        gold_conclusions,
        bootstrap_samples=settings.bootstrap_samples,
        permutation_samples=settings.permutation_samples,
        confidence=confidence_level(settings.confidence),
        alpha=settings.alpha,
        seed=seed,
    )
    williams = tables["williams"]
    chosen = williams.loc[(williams["human"] == primary) & (williams["systems"] == "all")]
    return ExperimentMetaEvaluation(tables, primary, reversed_metrics, chosen)
