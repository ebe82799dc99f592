"""Chance levels of a metrics-task protocol: what each task's statistic, and the weighted average, give a metric that
knows nothing, and each metric's p-value of being above that (:mod:`mtsig.stats.meta_evaluation.chance`;
docs/statistics.md, "Chance levels").

Each language pair's relabellings are drawn once: ``n_draws`` draws of the null's group
(:func:`mtsig.stats.meta_evaluation.chance.draw_relabellings`: its systems relabelled, its documents exchanged among
those of the same domain rated alike, the segments of each document reordered, the same for every system) from
``rng_for(seed, *key, "chance", lp)``, so a task computes the same draws in every protocol that has it, and all the
tasks of a pair (its system-level ones included: the systems' permutations are drawn first) share them. Every metric
of a task gets the task's statistic under every draw (``draws[M, B]``), and its p-value comes from its own draws: a
metric's chance level depends on its own structure (the spread of its system means, its ties), so a pool of other
metrics' draws would be too narrow for some and too wide for others. The weighted average's draws of a metric are its
draws of every task averaged as the table averages (the same relabellings in every task of a pair: the tasks keep
the dependence their real values have). The row ``chance`` of the table describes the pool of the average's
metrics' draws (its mean and 95th percentile): the chance level of a random metric with the structure of the table's
metrics. An extra task (a column beside the average, e.g. WMT23's PDP) whose statistic has a chance level gets one
the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from mtsig.errors import InputError
from mtsig.io.mtme import MtmeTestSet
from mtsig.stats.meta_evaluation import chance as ch
from mtsig.stats.meta_evaluation.grouped_correlation import KINDS
from mtsig.stats.meta_evaluation.metric_ranking import weighted_average
from mtsig.stats.meta_evaluation.soft_pairwise_accuracy import permutation_counts
from mtsig.stats.seeding import rng_for
from mtsig.studies.metrics_protocol.run import ProtocolData, RunOptions, TaskResult
from mtsig.studies.metrics_protocol.selection import (
    ProtocolInputs,
    sampled_items,
    task_inputs_per_lp,
)
from mtsig.studies.metrics_protocol.statistics import (
    correlation_grouping,
    correlation_options,
    rated_segment_flips,
)
from mtsig.studies.metrics_protocol.tasks import Task

#: The quantile reported beside the chance mean.
CHANCE_QUANTILE = 0.95


@dataclass(frozen=True)
class ChanceLevel:
    """A task's (or the average's) chance distribution: ``draws[M, B]``, row m the draws of metric
    ``draw_metrics[m]``; the ``mean`` and ``upper`` quantile (:data:`CHANCE_QUANTILE`) of the rows of the
    average's metrics pooled; ``pvalues`` (metric -> ``(1 + #{its draws >= its value}) / (1 + B)``)."""

    label: str
    draws: np.ndarray
    draw_metrics: tuple[str, ...]
    mean: float
    upper: float
    pvalues: Mapping[str, float]


@dataclass(frozen=True)
class ProtocolChance:
    """Every task's :class:`ChanceLevel` (in the protocol's order), the weighted average's, and the extra tasks'
    (``extras``, in the protocol's order: those whose statistic has a chance level and whose label no task has);
    ``n_draws``: draws per metric."""

    tasks: tuple[ChanceLevel, ...]
    average: ChanceLevel
    n_draws: int
    extras: tuple[ChanceLevel, ...] = ()

    def by_label(self) -> dict[str, ChanceLevel]:
        """Every task's level, the extra tasks' included, by task label (an extra task with a task's label: the
        task's level, which is its column's)."""
        return {level.label: level for level in (*self.extras, *self.tasks)}


#: The statistics :func:`statistic_draws` draws: every task statistic (tie calibration over every pair only).
CHANCE_STATISTICS = ("pooled_accuracy", "pdp", *KINDS, "tie_calibrated", "spa")


def has_chance_level(task: Task) -> bool:
    """Whether :func:`statistic_draws` draws the task's statistic (tie calibration only over every pair)."""
    if task.statistic == "tie_calibrated":
        return task.sample_rate == 1
    return task.statistic in CHANCE_STATISTICS


def segment_labels(task: Task, test_set: MtmeTestSet, n_items: int) -> tuple[np.ndarray, np.ndarray]:
    """``(documents[N], domains[N])`` of the task's items in one language pair: the test set's segments' (those of
    the task's sample, if it samples items); one item (system level): one document."""
    if task.level != "seg":
        return np.zeros(n_items, dtype=np.int64), np.zeros(n_items, dtype=np.int64)
    documents = np.asarray(test_set.segment_documents, dtype=object)
    domains = np.asarray(test_set.segment_domains, dtype=object)
    if task.sample_size:
        items = sampled_items(task, test_set)
        documents, domains = documents[items], domains[items]
    if documents.size != n_items or domains.size != n_items:
        raise InputError(
            f"{task.label}: the test set's documents file labels {documents.size} segments, the scores have "
            f"{n_items}: chance levels need every segment's document and domain"
        )
    return documents, domains


def lp_relabellings(
    task: Task,
    per_lp: Mapping[str, tuple[tuple[str, ...], np.ndarray, dict[str, np.ndarray]]],
    test_sets: Mapping[str, MtmeTestSet],
    n_draws: int,
    seed: int,
    key: Sequence[object],
) -> dict[str, ch.SystemSegmentRelabelling]:
    """Each language pair's relabellings of the task's table (module docstring)."""
    out = {}
    for lp, (_, human, _) in per_lp.items():
        documents, domains = segment_labels(task, test_sets[lp], human.shape[1])
        rng = rng_for(seed, *key, "chance", lp)
        out[lp] = ch.draw_relabellings(rng, np.isfinite(human), documents, n_draws, domains=domains)
    return out


def statistic_draws(
    task: Task,
    per_lp: Mapping[str, tuple[tuple[str, ...], np.ndarray, dict[str, np.ndarray]]],
    metrics: Sequence[str],
    relabellings: Mapping[str, ch.SystemSegmentRelabelling],
    spa_arithmetic: str,
) -> np.ndarray:
    """``[M, B]``: the task's statistic of each of ``metrics`` under each relabelling of its language pair(s)."""
    if not has_chance_level(task):  # the one rule, which the table's extra columns follow too
        what = (
            "tie calibration on a sample of pairs"
            if task.statistic == "tie_calibrated"
            else f"the statistic {task.statistic!r}"
        )
        raise InputError(f"{task.label}: no chance level for {what}")
    if task.statistic == "pooled_accuracy":
        humans = [human[:, 0] for _, human, _ in per_lp.values()]
        values = [np.stack([scores[m][:, 0] for m in metrics]) for _, _, scores in per_lp.values()]
        return ch.chance_pooled_accuracy(humans, values, [relabellings[lp].rows for lp in per_lp])
    ((lp, (_, human, scores)),) = per_lp.items()
    values = np.stack([scores[m] for m in metrics])
    relabelling = relabellings[lp]
    if task.statistic == "pdp":
        return ch.chance_pdp(human, values, correlation_grouping(task), relabelling)
    if task.statistic in KINDS:  # grouped_correlation's own statistics, the WMT20 Kendall-like tau among them
        return ch.chance_grouped_correlation(
            human, values, relabelling, correlation_options(task, task.statistic)
        )
    if task.statistic == "tie_calibrated":
        return ch.chance_tie_calibrated(
            human, values, relabelling, variant=task.variant, grouping=task.grouping
        )
    # spa, the last of CHANCE_STATISTICS: whole rows of segment scores relabelled (the systems' permutations)
    rated, flips = rated_segment_flips(human, task.label)
    upper = permutation_counts(values[:, :, rated], flips, arithmetic=spa_arithmetic)
    lower = permutation_counts(-values[:, :, rated], flips, arithmetic=spa_arithmetic)
    counts = ch.full_counts(upper, lower, values.shape[1])
    human_counts = permutation_counts(human[:, rated], flips, arithmetic=spa_arithmetic)
    return ch.chance_spa(human_counts, counts, flips.shape[0], relabelling.rows)


def task_chance(
    result: TaskResult,
    inputs: ProtocolInputs,
    *,
    pooled: Sequence[str],
    n_draws: int,
    seed: int,
    key: Sequence[object] = (),
    options: RunOptions | None = None,
) -> ChanceLevel:
    """The chance distribution of one task (module docstring): ``n_draws`` draws of every metric of ``result`` (the
    task's metrics, human scores entered as metrics among them, and SPA's arithmetic as ``options`` says), the
    row's mean and quantile over the draws of the metrics in ``pooled``; ``inputs``: the protocol, test sets and
    scores the task read."""
    options = RunOptions() if options is None else options
    task = result.task
    per_lp = task_inputs_per_lp(task, inputs, options.selection)
    relabellings = lp_relabellings(task, per_lp, inputs.test_sets, n_draws, seed, key)
    draws = statistic_draws(task, per_lp, result.metrics, relabellings, options.spa_arithmetic)
    return summarise(task.label, draws, result.metrics, pooled, result.values)


def summarise(
    label: str, draws: np.ndarray, metrics: Sequence[str], pooled: Sequence[str], values: np.ndarray
) -> ChanceLevel:
    """A :class:`ChanceLevel` of ``draws[M, B]`` (row m: ``metrics[m]``'s) with each metric's p-value against its
    own draws, the mean and quantile over the rows of ``pooled`` (every row if none of them is there)."""
    chosen = set(pooled)
    rows = [k for k, name in enumerate(metrics) if name in chosen] or list(range(len(metrics)))
    mean, upper = ch.chance_summary(draws[rows], CHANCE_QUANTILE)
    pvalues = ch.chance_pvalues(values, draws)
    return ChanceLevel(
        label, draws, tuple(metrics), mean, upper, dict(zip(metrics, pvalues.tolist(), strict=True))
    )


def protocol_chance(
    data: ProtocolData,
    *,
    n_draws: int,
    seed: int,
    key: Sequence[object] = (),
    options: RunOptions | None = None,
    cache: dict[tuple, ChanceLevel] | None = None,
) -> ProtocolChance:
    """Every task's chance level (module docstring), then the average's (each of its metrics' draws averaged over
    the tasks), then each extra task's that :func:`has_chance_level` (none for an extra task that shares a task's
    label, whose column shows the task's). ``cache``: an earlier protocol's levels, reused for a task it shares
    (same task, metrics and draws: the same numbers)."""
    if n_draws < 1:
        raise InputError(f"chance levels need at least one draw, got {n_draws}")
    result = data.result

    def level_of(task: TaskResult) -> ChanceLevel:
        shared = (task.task, task.metrics, tuple(sorted(result.metrics)), n_draws)
        if cache is not None and shared in cache:
            return cache[shared]
        level = task_chance(
            task, data.inputs, pooled=result.metrics, n_draws=n_draws, seed=seed, key=key, options=options,
        )  # fmt: skip
        if cache is not None:
            cache[shared] = level
        return level

    levels = [level_of(task) for task in result.tasks]
    rows = [[level.draw_metrics.index(name) for name in result.metrics] for level in levels]
    average_draws = weighted_average(
        [level.draws[index] for level, index in zip(levels, rows, strict=True)],
        [t.task.value_range for t in result.tasks],
        result.protocol.weights,
    )
    average = summarise("average", average_draws, result.metrics, result.metrics, result.average)
    labels = {task.task.label for task in result.tasks}
    extras = [
        level_of(task)
        for task in result.extras
        if has_chance_level(task.task) and task.task.label not in labels and task.metrics
    ]
    return ProtocolChance(tuple(levels), average, n_draws, tuple(extras))
