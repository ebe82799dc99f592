"""What mtsig adds to the WMT23/24 metrics-task protocol (:mod:`mtsig.studies.metrics_protocol`), on the same data.

mt-metrics-eval reports each task's value, its ranking and clusters. Three further questions, each from the files the
protocol reads (docs/statistics.md, "The WMT23/24 metrics-task protocol on expert MQM" and the sections after it):

* **How precise is each task value?** (:func:`task_resampler`, :func:`task_intervals`) A percentile bootstrap interval of every metric's
  value in every task (Deutsch, Dror & Roth 2021, Sec. 3.1): BOOT-SYSTEMS for the system-level statistics (the
  systems of each language pair drawn with replacement: pooled pairwise accuracy, system-level Pearson, SPA),
  BOOT-INPUTS for the segment-level ones (the rated items drawn: Pearson over cells, acc-t at each metric's
  calibrated epsilon, PDP grouped by item) (:mod:`mtsig.stats.meta_evaluation.task_bootstrap`).
* **Does "metric A beats metric B" replicate across the language pairs?** (:func:`replication_pvalues`) Each
  per-language-pair task's permutation test gives, for every ordered pair of metrics, the one-sided p-value of "A
  beats B" (both directions from the same resamples: the protocol tests only the higher-ranked metric's), as
  ``(c + 1)/(n + 1)``, a valid p-value (Phipson & Smyth 2010), which the partial conjunction tests of Dror et al.
  (2017) need (:mod:`mtsig.studies.replicability`).
* **Which metric deltas do MQM raters notice?** (:func:`mqm_system_gold`, :func:`system_score_rows`) The system
  pairs of each language pair with MQM system scores and a gold of significance from the MQM segment scores: the
  paired permutation test of soft pairwise accuracy (pce.py's 1000 sign flips over the segments every system is
  rated on, Thompson et al. 2024, Sec. 3), the human significance of the WMT24 task itself: every system is rated on
  the same segments, so the test is paired, unlike the rank-sum test of the DA golds, whose ratings are not
  (:mod:`mtsig.studies.delta_agreement`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.stats.meta_evaluation import task_bootstrap as tb
from mtsig.stats.meta_evaluation.metric_ranking import weighted_average
from mtsig.stats.meta_evaluation.pooled_accuracy import pair_agreement
from mtsig.stats.meta_evaluation.soft_pairwise_accuracy import permutation_counts
from mtsig.stats.meta_evaluation.tie_calibration import good_pairs, group_pairs, pair_differences
from mtsig.studies.metrics_protocol.run import ProtocolResult, RunOptions, TaskResult
from mtsig.studies.metrics_protocol.selection import (
    PRIMARY_METRICS,
    MetricSelection,
    ProtocolInputs,
    task_inputs,
    task_inputs_per_lp,
)
from mtsig.studies.metrics_protocol.statistics import rated_segment_flips
from mtsig.studies.metrics_protocol.tasks import Task

#: Columns of :func:`task_intervals`.
INTERVAL_COLUMNS = ["metric", "value", "scheme", "ci_low", "ci_high", "n_undefined"]
#: Columns of :func:`replication_pvalues`.
REPLICATION_COLUMNS = ["protocol", "task", "kind", "lp", "metric_a", "metric_b", "count", "n_used", "p_value"]
#: The human score of :func:`system_score_rows`, as the ``source`` column names it.
HUMAN_SOURCE = "human_mqm"
#: The criterion of :func:`mqm_system_gold` (a gold table's ``criterion`` column).
MQM_CRITERION = "mqm"


def task_scheme(task: Task) -> str:
    """The bootstrap scheme of a task's interval: ``systems`` (BOOT-SYSTEMS) at the system level, ``items``
    (BOOT-INPUTS) at the segment level."""
    return "systems" if task.level == "sys" else "items"


def _item_acc23(human: np.ndarray, metrics: np.ndarray, epsilons: np.ndarray, grouping: str) -> np.ndarray:
    """``[M, R]``: each metric's share of good pairs (acc_23 at its epsilon) in each of the R items with a pair."""
    pairs = group_pairs(human, grouping)
    good = good_pairs(
        pair_differences(human, pairs, grouping), pair_differences(metrics, pairs, grouping), epsilons
    )
    items, position = np.unique(pairs.group, return_inverse=True)
    sizes = np.bincount(position, minlength=items.size)
    counted = np.stack(
        [np.bincount(position, weights=row, minlength=items.size) for row in good.astype(np.float64)]
    )
    return counted / sizes


@dataclass(frozen=True)
class UnitSet:
    """What a stratum's units are, so that tasks on the same test set can re-draw it together: the language pair,
    their ``kind`` (``systems`` or ``items``) and ``labels[n]``, each unit's system name or item (segment)
    index."""

    lp: str
    kind: str
    labels: np.ndarray


@dataclass(frozen=True)
class TaskResampler:
    """A task's statistic of every metric on re-drawn units (module docstring): ``n_units`` per stratum (language
    pair; one stratum but for the pooled accuracy) and ``statistic(counts)``, ``counts[l]`` ``[B, n_units[l]]`` the
    times each unit is drawn, giving ``[B, M]``; ``units``: each stratum's :class:`UnitSet` (none: the task's units
    are its own, drawn on their own)."""

    n_units: tuple[int, ...]
    statistic: Callable[[Sequence[np.ndarray]], np.ndarray]
    units: tuple[UnitSet, ...] = ()

    def draws(self, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
        """``[B, M]``: the statistic of each metric on ``n_resamples`` bootstrap resamples (module docstring;
        docs/statistics.md gives each definition). Draws from ``rng``: one
        :func:`mtsig.stats.meta_evaluation.task_bootstrap.draw_counts` per stratum, in order."""
        return self.statistic([tb.draw_counts(rng, n, n_resamples) for n in self.n_units])


def task_resampler(
    result: TaskResult, inputs: ProtocolInputs, options: RunOptions | None = None
) -> TaskResampler:
    """The :class:`TaskResampler` of a task's result on ``inputs`` (the protocol, test sets and scores): the per-unit
    sums of its statistic, computed once (the task's metrics and SPA's arithmetic as ``options`` says,
    :class:`mtsig.studies.metrics_protocol.RunOptions`).

    Raises:
        InputError: a statistic without resampling here (Spearman, Kendall, grouped Pearson).
    """
    options = RunOptions() if options is None else options
    task = result.task
    names = list(result.metrics)
    per_lp = task_inputs_per_lp(task, inputs, options.selection)
    spa_arithmetic = options.spa_arithmetic
    if task.statistic == "pooled_accuracy":
        pairs, values = [], []
        for systems, human, metric_map in per_lp.values():
            metrics = np.stack([metric_map[m][:, 0] for m in names])
            pairs.append(np.triu_indices(len(systems), k=1))
            values.append(pair_agreement(human[:, 0], metrics).astype(np.float64))

        def pooled(counts: Sequence[np.ndarray]) -> np.ndarray:
            weights = [tb.pair_weights(c, i, j) for c, (i, j) in zip(counts, pairs, strict=True)]
            return tb.resampled_pair_mean(weights, values)

        units = tuple(UnitSet(lp, "systems", np.asarray(systems)) for lp, (systems, _, _) in per_lp.items())
        return TaskResampler(tuple(len(systems) for systems, _, _ in per_lp.values()), pooled, units)
    ((lp, (systems, human, metric_map)),) = per_lp.items()
    system_units = (UnitSet(lp, "systems", np.asarray(systems)),)
    metrics = np.stack([metric_map[m] for m in names])  # [M, S, U]
    if task.statistic == "pearson" and (task.level == "sys" or task.grouping == "none"):
        if task.level == "sys":  # the systems are the units, one cell each
            unit_human, unit_metrics, units = human, metrics, system_units
        else:  # the items are the units, their systems' cells
            rated = np.isfinite(human).any(axis=0)
            unit_human, unit_metrics = human[:, rated].T, metrics[:, :, rated].transpose(0, 2, 1)
            units = (UnitSet(lp, "items", np.flatnonzero(rated)),)
        features = tb.pearson_features(unit_human, unit_metrics)
        return TaskResampler(
            (features.shape[0],), lambda counts: tb.resampled_pearson(counts[0], features), units
        )
    if task.statistic == "pdp" and task.grouping == "item":
        rated = np.isfinite(human).any(axis=0)
        pdp = tb.pdp_features(human[:, rated].T, metrics[:, :, rated].transpose(0, 2, 1))
        units = (UnitSet(lp, "items", np.flatnonzero(rated)),)
        return TaskResampler((pdp.shape[0],), lambda counts: tb.resampled_pdp(counts[0], pdp), units)
    if task.statistic == "tie_calibrated" and task.variant == "acc23":
        items = _item_acc23(human, metrics, result.epsilons, task.grouping)
        # the units are the groups with a pair: items when grouped by item (else the task's own)
        with_pair = np.unique(group_pairs(human, task.grouping).group)
        units = (UnitSet(lp, "items", with_pair),) if task.grouping == "item" else ()
        return TaskResampler(
            (items.shape[1],), lambda counts: tb.resampled_item_mean(counts[0], items), units
        )
    if task.statistic == "spa":
        rated, flips = rated_segment_flips(human, task.label)
        human_counts = permutation_counts(human[:, rated], flips, arithmetic=spa_arithmetic)
        metric_counts = permutation_counts(metrics[:, :, rated], flips, arithmetic=spa_arithmetic)
        first, second = np.triu_indices(len(systems), k=1)
        distance = np.abs(metric_counts - human_counts).astype(np.float64)

        def spa(counts: Sequence[np.ndarray]) -> np.ndarray:
            weights = tb.pair_weights(counts[0], first, second)
            return 1.0 - tb.resampled_pair_mean([weights], [distance]) / flips.shape[0]

        return TaskResampler((len(systems),), spa, system_units)
    raise InputError(f"{task.label}: no bootstrap interval for this statistic")


def joint_counts(
    resamplers: Sequence[TaskResampler], rng: np.random.Generator, n_sets: int
) -> tuple[list[list[np.ndarray]], int]:
    """Each resampler's counts (one ``[B, n_units]`` per stratum) on ``n_sets`` test sets of the real size in which
    each language pair's systems and items are drawn once for every task (:class:`UnitSet`: a unit is drawn as often
    in every task that has it); a stratum without a :class:`UnitSet` is drawn on its own. Also the test set's
    number of units: every language pair's items and systems, and the strata drawn on their own."""
    universes: dict[tuple[str, str], set] = {}
    for resampler in resamplers:
        for units in resampler.units:
            universes.setdefault((units.lp, units.kind), set()).update(units.labels.tolist())
    drawn = {}
    for key in sorted(universes):
        labels = np.array(sorted(universes[key]))
        drawn[key] = (labels, tb.draw_counts_of_size(rng, labels.size, labels.size, n_sets))
    out = []
    n_units = sum(labels.size for labels, _ in drawn.values())
    for resampler in resamplers:
        if not resampler.units:
            out.append([tb.draw_counts_of_size(rng, n, n, n_sets) for n in resampler.n_units])
            n_units += sum(resampler.n_units)
            continue
        counts = []
        for units in resampler.units:
            labels, table = drawn[(units.lp, units.kind)]
            counts.append(table[:, np.searchsorted(labels, units.labels)])
        out.append(counts)
    return out, n_units


def joint_task_draws(
    result: ProtocolResult, resamplers: Sequence[TaskResampler], n_draws: int, rng: np.random.Generator
) -> tuple[list[np.ndarray], np.ndarray, int]:
    """``(task_draws, average_draws, n_units)``: each task's statistic of each of its metrics ``[B, M_t]`` (the
    task's metric order) on ``n_draws`` test sets drawn by :func:`joint_counts` (``resamplers[t]`` of
    ``result.tasks[t]``), their weighted average ``[B, M]`` in the order of ``result.metrics`` (each task rescaled
    by its range and weighted, as :func:`mtsig.stats.meta_evaluation.metric_ranking.weighted_average`), and the
    number of units drawn."""
    joint, n_units = joint_counts(resamplers, rng, n_draws)
    task_draws = [resampler.statistic(counts) for resampler, counts in zip(resamplers, joint, strict=True)]
    index = [np.array([task.metrics.index(name) for name in result.metrics]) for task in result.tasks]
    average = weighted_average(
        [draws[:, where] for draws, where in zip(task_draws, index, strict=True)],
        [task.task.value_range for task in result.tasks],
        result.protocol.weights,
    )
    return task_draws, average, n_units


def task_intervals(result: TaskResult, draws: np.ndarray, confidence: float) -> pd.DataFrame:
    """One row per metric of the task, in its ranking order: ``metric, value, scheme, ci_low, ci_high,
    n_undefined`` (:data:`INTERVAL_COLUMNS`), the percentile interval at ``confidence`` of the task's bootstrap
    ``draws[B, M]`` (:meth:`TaskResampler.draws`)."""
    low, high, undefined = tb.percentile_intervals(draws, confidence)
    order = list(result.order)
    return pd.DataFrame(
        {
            "metric": [result.metrics[m] for m in order],
            "value": result.values[order].astype(float),
            "scheme": task_scheme(result.task),
            "ci_low": low[order],
            "ci_high": high[order],
            "n_undefined": undefined[order].astype(int),
        }
    )[INTERVAL_COLUMNS]


def task_kind(task: Task) -> str:
    """A per-language-pair task's label without its language pair (``sys pearson``, ``seg acc-t (item)``,
    ``sys SPA``): the comparisons that replicate across language pairs."""
    if len(task.lps) != 1:
        raise InputError(f"{task.label} is not a task of one language pair")
    return task.label.removeprefix(f"{task.lps[0]} ")


def replication_pvalues(result: ProtocolResult, kinds: Sequence[str]) -> pd.DataFrame:
    """For every task of one language pair whose :func:`task_kind` is in ``kinds`` and which was tested, every
    ordered pair of metrics: ``count`` of the resamples whose hybrid difference "A minus B" reached the observed
    one, ``n_used`` resamples (early stopping ends both directions of a pair together) and ``p_value`` ``(count +
    1) / (n_used + 1)`` of "A beats B" (:data:`REPLICATION_COLUMNS`)."""
    rows = []
    for task in result.tasks:
        if task.test is None or len(task.task.lps) != 1 or task_kind(task.task) not in kinds:
            continue
        test = task.test
        with np.errstate(invalid="ignore"):
            a_beats_b = (test.draws >= test.delta).sum(axis=0)  # NaN (stopped) compares False
            b_beats_a = (test.draws <= test.delta).sum(axis=0)
        for first, second, forward in ((test.a, test.b, a_beats_b), (test.b, test.a, b_beats_a)):
            rows.append(
                pd.DataFrame(
                    {
                        "protocol": result.protocol.name,
                        "task": task.task.label,
                        "kind": task_kind(task.task),
                        "lp": task.task.lps[0],
                        "metric_a": [task.metrics[m] for m in first],
                        "metric_b": [task.metrics[m] for m in second],
                        "count": forward.astype(int),
                        "n_used": test.n_used.astype(int),
                        "p_value": (forward + 1.0) / (test.n_used + 1.0),
                    }
                )
            )
    if not rows:
        return pd.DataFrame(columns=REPLICATION_COLUMNS)
    return pd.concat(rows, ignore_index=True).sort_values(
        ["task", "metric_a", "metric_b"], kind="stable", ignore_index=True
    )[REPLICATION_COLUMNS]


# ------------------------------------------------------------------------------------------------ MQM gold


def system_tasks(lp: str) -> tuple[Task, Task]:
    """The MT systems of ``lp`` at the system level (their MQM and metric system scores) and at the segment level
    (the MQM segment scores of the gold), human translations left out: tasks that only select inputs."""
    return Task("pearson", (lp,), "sys", False), Task("spa", (lp,), "sys", False)


def mqm_system_gold(
    human: np.ndarray, systems: Sequence[str], alphas: Sequence[float]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(gold, conclusions)`` of the MT systems of one language pair from their MQM segment scores
    ``human[S, N]`` (NaN = not rated; every system rated on the same segments): for every ordered pair (X, Y) the
    one-sided p-value of "X better than Y" of pce.py's paired permutation test
    (:func:`mtsig.stats.meta_evaluation.soft_pairwise_accuracy.permutation_counts`: the share of its 1000 sign
    flips whose null difference reaches the observed one), as an experiment's ``gold.tsv`` (``sys_x, sys_y,
    criterion, p_value``, criterion ``mqm``), and the three-way conclusions at each of ``alphas``
    (:func:`mtsig.stats.human.gold_conclusions`)."""
    rated, flips = rated_segment_flips(human, "MQM gold")
    first, second = np.triu_indices(len(systems), k=1)
    better = permutation_counts(human[:, rated], flips) / flips.shape[0]  # first better than second
    worse = permutation_counts(-human[:, rated], flips) / flips.shape[0]  # second better than first
    names = np.asarray(systems, dtype=object)
    gold = pd.DataFrame(
        {
            "sys_x": np.concatenate([names[first], names[second]]),
            "sys_y": np.concatenate([names[second], names[first]]),
            "criterion": MQM_CRITERION,
            "p_value": np.concatenate([better, worse]),
        }
    )
    from mtsig.stats.human import gold_conclusions  # scipy.stats: kept out of the workflow's input functions

    return gold, gold_conclusions(gold, alphas, criteria_priority=(MQM_CRITERION,), systems=list(systems))


def system_score_rows(
    lp: str, systems: Sequence[str], human: np.ndarray, metrics: Mapping[str, np.ndarray]
) -> pd.DataFrame:
    """``lp, system, source, score``: each MT system's MQM system score (source :data:`HUMAN_SOURCE`) and every
    metric's system score (source = the metric's display name; higher is better, as mt-metrics-eval's files hold
    every metric), the columns of the WMT20 study's ``system_scores.tsv``."""
    frames = [pd.DataFrame({"lp": lp, "system": list(systems), "source": HUMAN_SOURCE, "score": human[:, 0]})]
    frames += [
        pd.DataFrame({"lp": lp, "system": list(systems), "source": name, "score": values[:, 0]})
        for name, values in metrics.items()
    ]
    return pd.concat(frames, ignore_index=True)


def mqm_pairs(
    lp: str, inputs: ProtocolInputs, alphas: Sequence[float], selection: MetricSelection = PRIMARY_METRICS
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """``(system scores, gold, conclusions)`` of the MT systems of ``lp`` (:func:`system_tasks`; the scores of
    ``inputs`` must hold the files :func:`mtsig.studies.metrics_protocol.required_scores` lists for them; the
    metrics of ``selection``, no human score among them): :func:`system_score_rows` and :func:`mqm_system_gold`.

    Raises:
        InputError: the systems with MQM scores differ between the system and segment levels.
    """
    system_level, segment_level = system_tasks(lp)
    metric_scores = selection.without_human()
    systems, human, metrics = task_inputs(system_level, lp, inputs, metric_scores)
    rated_systems, segments, _ = task_inputs(segment_level, lp, inputs, metric_scores)
    if rated_systems != systems:
        raise InputError(
            f"{lp}: the MQM system scores rate {', '.join(systems)}, the segment scores {', '.join(rated_systems)}"
        )
    gold, conclusions = mqm_system_gold(segments, systems, alphas)
    return system_score_rows(lp, systems, human, metrics), gold, conclusions
