"""Chance levels of a metrics-task protocol: what each task's statistic, and the weighted average, give a metric that
knows nothing, and each metric's p-value of being above that (:mod:`mtsig.stats.meta_evaluation.chance`;
docs/statistics.md, "Chance levels").

A task's chance distribution is its statistic for a metric of the table drawn in turn (draw b: the ``b mod M``-th
of the ``M`` metrics every task has) with that metric's scores permuted within the statistic's groups: the rated
cells of an item (item-grouped statistics), every rated cell (an ungrouped segment-level statistic), the systems of
a language pair (system-level statistics; for SPA whole rows of segment scores). The weighted average's: draw b of
every task (the same metric, permuted independently in each task) averaged as the table averages. The metrics are
taken in name order. An extra task (a column beside the average, e.g. WMT23's PDP) whose statistic has a chance
level gets one the same way, over the metrics of the average it has. Draws of task t
and metric m come from ``rng_for(seed, *key, "chance", t, m)``, so a task computes the same draws in every
protocol that has it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from mtsig.errors import InputError
from mtsig.io.mtme import LevelScores, MtmeTestSet
from mtsig.stats.meta_evaluation import chance as ch
from mtsig.stats.meta_evaluation.grouped_correlation import KINDS
from mtsig.stats.meta_evaluation.metric_ranking import weighted_average
from mtsig.stats.meta_evaluation.soft_pairwise_accuracy import permutation_counts
from mtsig.stats.seeding import rng_for
from mtsig.studies.metrics_protocol import (
    Protocol,
    ProtocolResult,
    RunOptions,
    ScoreKey,
    Task,
    TaskResult,
    rated_segment_flips,
    task_inputs_per_lp,
)

#: The quantile reported beside the chance mean.
CHANCE_QUANTILE = 0.95


@dataclass(frozen=True)
class ChanceLevel:
    """A task's (or the average's) chance distribution: ``draws[B]`` and the metric permuted in each
    (``draw_metrics``), their ``mean`` and ``upper`` quantile (:data:`CHANCE_QUANTILE`), and ``pvalues`` (metric ->
    ``(1 + #{draws >= value}) / (1 + B)``) of every metric of the task."""

    label: str
    draws: np.ndarray
    draw_metrics: tuple[str, ...]
    mean: float
    upper: float
    pvalues: Mapping[str, float]


@dataclass(frozen=True)
class ProtocolChance:
    """Every task's :class:`ChanceLevel` (in the protocol's order), the weighted average's, and the extra tasks'
    (``extras``, in the protocol's order: those whose statistic has a chance level and whose label no task has)."""

    tasks: tuple[ChanceLevel, ...]
    average: ChanceLevel
    n_draws: int
    extras: tuple[ChanceLevel, ...] = ()

    def by_label(self) -> dict[str, ChanceLevel]:
        """Every task's level, the extra tasks' included, by task label (an extra task with a task's label: the
        task's level, which is its column's)."""
        return {level.label: level for level in (*self.extras, *self.tasks)}


#: The statistics :func:`_statistic_draws` draws: every task statistic (tie calibration over every pair only).
CHANCE_STATISTICS = ("pooled_accuracy", "pdp", *KINDS, "tie_calibrated", "spa")


def has_chance_level(task: Task) -> bool:
    """Whether :func:`_statistic_draws` draws the task's statistic (tie calibration only over every pair)."""
    if task.statistic == "tie_calibrated":
        return task.sample_rate == 1
    return task.statistic in CHANCE_STATISTICS


def draw_schedule(metrics: Sequence[str], n_draws: int) -> list[np.ndarray]:
    """The draws of each metric: metric k takes draws ``k, k + M, k + 2M, ...``."""
    return [np.arange(k, n_draws, len(metrics)) for k in range(len(metrics))]


def _statistic_draws(
    task: Task,
    per_lp: Mapping[str, tuple[tuple[str, ...], np.ndarray, dict[str, np.ndarray]]],
    metric: str,
    n_draws: int,
    rng: np.random.Generator,
    spa_arithmetic: str,
) -> np.ndarray:
    """``[n_draws]``: the task's statistic of ``metric`` with its scores permuted (module docstring)."""
    if not has_chance_level(task):  # the one rule, which the table's extra columns follow too
        what = (
            "tie calibration on a sample of pairs"
            if task.statistic == "tie_calibrated"
            else f"the statistic {task.statistic!r}"
        )
        raise InputError(f"{task.label}: no chance level for {what}")
    if task.statistic == "pooled_accuracy":
        humans = [human[:, 0] for _, human, _ in per_lp.values()]
        metrics = [scores[metric][:, 0] for _, _, scores in per_lp.values()]
        return ch.chance_pooled_accuracy(humans, metrics, n_draws, rng)
    ((_, human, scores),) = per_lp.values()
    values = scores[metric]
    grouping = task.grouping if task.level == "seg" else "none"
    if task.statistic == "pdp":
        return ch.chance_pdp(human, values, grouping, n_draws, rng)
    if task.statistic in KINDS:  # grouped_correlation's own statistics, the WMT20 Kendall-like tau among them
        return ch.chance_grouped_correlation(
            human, values, task.statistic, grouping, n_draws, rng,
            kendall_variant=task.variant or "b", nan_groups=task.nan_groups, epsilon=task.epsilon,
            average=task.average, threshold=task.threshold,
        )  # fmt: skip
    if task.statistic == "tie_calibrated":
        return ch.chance_tie_calibrated(
            human, values, n_draws, rng, variant=task.variant, grouping=task.grouping
        )
    # spa: the last of CHANCE_STATISTICS
    rated, flips = rated_segment_flips(human, task.label)
    upper = permutation_counts(values[:, rated], flips, arithmetic=spa_arithmetic)
    lower = permutation_counts(-values[:, rated], flips, arithmetic=spa_arithmetic)
    counts = ch.full_counts(upper, lower, values.shape[0])
    human_counts = permutation_counts(human[:, rated], flips, arithmetic=spa_arithmetic)
    return ch.chance_spa(human_counts, counts, flips.shape[0], n_draws, rng)


def task_chance(
    result: TaskResult,
    protocol: Protocol,
    test_sets: Mapping[str, MtmeTestSet],
    scores: Mapping[ScoreKey, LevelScores],
    *,
    metrics: Sequence[str],
    n_draws: int,
    seed: int,
    key: Sequence[object] = (),
    options: RunOptions | None = None,
) -> ChanceLevel:
    """The chance distribution of one task (module docstring) with ``n_draws`` draws over ``metrics`` (each a metric
    of the task), and the p-value of every metric of ``result`` (the task's metrics and SPA's arithmetic as
    ``options`` says; its human scores entered as metrics play no part)."""
    options = RunOptions() if options is None else options
    task = result.task
    spa_arithmetic = options.spa_arithmetic
    per_lp = task_inputs_per_lp(task, protocol, test_sets, scores, options, with_human_metrics=False)
    draws = np.empty(n_draws)
    names = np.empty(n_draws, dtype=object)
    for metric, positions in zip(metrics, draw_schedule(metrics, n_draws), strict=True):
        if positions.size:
            rng = rng_for(seed, *key, "chance", task.label, metric)
            draws[positions] = _statistic_draws(task, per_lp, metric, positions.size, rng, spa_arithmetic)
            names[positions] = metric
    return summarise(task.label, draws, tuple(names), result.metrics, result.values)


def summarise(
    label: str, draws: np.ndarray, draw_metrics: tuple[str, ...], metrics: Sequence[str], values: np.ndarray
) -> ChanceLevel:
    """A :class:`ChanceLevel` of ``draws`` with the p-values of ``metrics``' ``values``."""
    mean, upper = ch.chance_summary(draws, CHANCE_QUANTILE)
    pvalues = ch.chance_pvalues(values, draws)
    return ChanceLevel(
        label, draws, draw_metrics, mean, upper, dict(zip(metrics, pvalues.tolist(), strict=True))
    )


def protocol_chance(
    result: ProtocolResult,
    test_sets: Mapping[str, MtmeTestSet],
    scores: Mapping[ScoreKey, LevelScores],
    *,
    n_draws: int,
    seed: int,
    key: Sequence[object] = (),
    options: RunOptions | None = None,
    cache: dict[tuple, ChanceLevel] | None = None,
) -> ProtocolChance:
    """Every task's chance level over the metrics of the weighted average in name order (module docstring), then
    the average's, then each extra task's that :func:`has_chance_level` (over the average's metrics it has; none
    for an extra task that shares a task's label, whose column shows the task's). ``cache``: an earlier
    protocol's levels, reused for a task it shares (same task, metrics and draws: the same numbers)."""
    if n_draws < 1:
        raise InputError(f"chance levels need at least one draw, got {n_draws}")
    metrics = sorted(result.metrics)

    def level_of(task: TaskResult, drawn: list[str]) -> ChanceLevel:
        shared = (task.task, tuple(drawn), n_draws)
        if cache is not None and shared in cache:
            return cache[shared]
        level = task_chance(
            task, result.protocol, test_sets, scores, metrics=drawn, n_draws=n_draws, seed=seed, key=key,
            options=options,
        )  # fmt: skip
        if cache is not None:
            cache[shared] = level
        return level

    levels = [level_of(task, metrics) for task in result.tasks]
    average_draws = weighted_average(
        [level.draws for level in levels], [t.task.value_range for t in result.tasks], result.protocol.weights
    )
    average = summarise("average", average_draws, levels[0].draw_metrics, result.metrics, result.average)
    labels = {task.task.label for task in result.tasks}
    extras = []
    for task in result.extras:
        drawn = [m for m in metrics if m in task.metrics]
        if has_chance_level(task.task) and task.task.label not in labels and drawn:
            extras.append(level_of(task, drawn))
    return ProtocolChance(tuple(levels), average, n_draws, tuple(extras))
