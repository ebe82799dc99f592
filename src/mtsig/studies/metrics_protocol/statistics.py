"""The statistics a task of a metrics-task protocol can compute: one registry entry each (:data:`STATISTICS`).

An entry (:class:`StatisticSpec`) holds everything about its statistic: how it computes every metric's value
(``values``), the source its permutation test swaps (``swaps``; mt-metrics-eval's ``PermutationSigDiff`` and
``PairwisePermutationSigDiff``, :mod:`mtsig.stats.meta_evaluation.metric_permutation` and
:mod:`mtsig.stats.meta_evaluation.score_permutation`), the range it is rescaled from in the weighted average
(mt-metrics-eval's ``TaskResults.range``), its name in a task's label and its own checks of a task's options.
:class:`mtsig.studies.metrics_protocol.tasks.Task` and :func:`mtsig.studies.metrics_protocol.run.run_task` only look
an entry up, so a new statistic is one entry here (and its mathematics under :mod:`mtsig.stats.meta_evaluation`).
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from mtsig.errors import InputError
from mtsig.stats.meta_evaluation.grouped_correlation import (
    KENDALL_VARIANTS,
    CorrelationOptions,
    grouped_correlation,
)
from mtsig.stats.meta_evaluation.metric_permutation import (
    PairSwaps,
    PearsonSwaps,
    PooledAccuracySwaps,
    SpaSwaps,
    SwapSource,
)
from mtsig.stats.meta_evaluation.pooled_accuracy import pooled_pairwise_accuracy
from mtsig.stats.meta_evaluation.score_permutation import (
    PAIR_VARIANTS,
    PairOutcomeSwaps,
    PdpSwaps,
    ScoreSwaps,
    recalibrated_acc_t,
)
from mtsig.stats.meta_evaluation.soft_pairwise_accuracy import (
    ARITHMETICS,
    pce_flips,
    permutation_counts,
    soft_pairwise_accuracy,
)
from mtsig.stats.meta_evaluation.tie_calibration import TIE_VARIANTS, calibrate_ties, pair_outcomes
from mtsig.stats.seeding import rng_for


class TaskFields(Protocol):
    """What a statistic reads of its task (:class:`mtsig.studies.metrics_protocol.tasks.Task`, which looks its
    statistic up here): stated here, so that the registry depends on nothing above it."""

    @property
    def level(self) -> str: ...
    @property
    def grouping(self) -> str: ...
    @property
    def variant(self) -> str: ...
    @property
    def sample_rate(self) -> float: ...
    @property
    def perm_test(self) -> str: ...
    @property
    def nan_groups(self) -> str: ...
    @property
    def average(self) -> str: ...
    @property
    def epsilon(self) -> float: ...
    @property
    def threshold(self) -> float: ...
    @property
    def label(self) -> str: ...


class RunFields(Protocol):
    """What a statistic reads of the options of a run (:class:`mtsig.studies.metrics_protocol.run.RunOptions`)."""

    @property
    def seed(self) -> int: ...
    @property
    def spa_arithmetic(self) -> str: ...


#: What a task reads at one language pair: its systems, the gold ``human[S, U]`` and ``{display name: [S, U]}``
#: (U = 1 at the system level; :func:`mtsig.studies.metrics_protocol.selection.task_inputs`).
LpInputs = tuple[tuple[str, ...], np.ndarray, dict[str, np.ndarray]]
#: The range of a statistic bounded by 0 and 1, and of a correlation.
UNIT_RANGE = (0.0, 1.0)
SIGNED_RANGE = (-1.0, 1.0)


@dataclass(frozen=True)
class TaskData:
    """A task's inputs: the ``names`` of the metrics it compares (sorted; those every language pair has) and
    ``per_lp`` (:data:`LpInputs` of each language pair, in the task's order)."""

    names: tuple[str, ...]
    per_lp: Mapping[str, LpInputs]

    @functools.cached_property
    def one_lp(self) -> tuple[np.ndarray, np.ndarray]:
        """``(human[S, U], metrics[M, S, U])`` of a task of one language pair, the metrics in ``names`` order."""
        ((_, human, metric_map),) = self.per_lp.values()
        return human, np.stack([metric_map[m] for m in self.names])


@dataclass(frozen=True)
class TaskValues:
    """What a statistic gives every metric of a task (in :attr:`TaskData.names` order): ``values[M]``, and for tie
    calibration each metric's calibrated ``epsilons[M]``."""

    values: np.ndarray
    epsilons: np.ndarray | None = None


def _no_check(task: TaskFields) -> None:
    """A statistic without checks of its own."""


def _never(task: TaskFields) -> bool:
    return False


@dataclass(frozen=True)
class StatisticSpec:
    """One statistic of the registry (module docstring).

    ``values(task, data, options)`` computes every metric's :class:`TaskValues`; ``swaps(task, data, values)`` is
    the source of the task's permutation test (built only when the task is tested); ``value_range(task)`` the range
    the average rescales it from; ``name(task)`` its name in the task's label; ``check(task)`` raises
    :class:`~mtsig.errors.InputError` for options the statistic does not take. ``pairs_test(task)``: whether its test
    may swap pair outcomes (``perm_test='pairs'``), ``default_perm_test`` the test a task gets unless told otherwise;
    ``spec_defaults``: the options of a task ``mtsig metrics --extra-task`` adds (its level ``seg`` unless given);
    ``file_level``: the level of the files it reads when not the task's; ``pooled``: it pools several language
    pairs (its label is its name alone, it is not a ``--extra-task``); ``whole_segments``: it needs every system
    rated on the same segments. ``source``: what it reproduces."""

    values: Callable[[TaskFields, TaskData, RunFields], TaskValues]
    swaps: Callable[[TaskFields, TaskData, TaskValues], SwapSource]
    value_range: Callable[[TaskFields], tuple[float, float]]
    name: Callable[[TaskFields], str]
    source: str
    check: Callable[[TaskFields], None] = _no_check
    pairs_test: Callable[[TaskFields], bool] = _never
    default_perm_test: str = "scores"
    spec_defaults: Mapping[str, object] = field(default_factory=lambda: types.MappingProxyType({}))
    file_level: str | None = None
    pooled: bool = False
    whole_segments: bool = False


def draw_key(task: TaskFields) -> tuple[str, str]:
    """The key of a task's random draws (:func:`mtsig.stats.seeding.rng_for`): its permutation test's, and its tie
    calibration's sample of pairs."""
    return ("metrics_protocol", task.label)


# ------------------------------------------------------------------------------------------------ pooled accuracy


def _pooled_rows(data: TaskData) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Each language pair's human system scores ``[S]`` and the metrics' ``[M, S]``."""
    humans = [human[:, 0] for _, human, _ in data.per_lp.values()]
    rows = [np.stack([metrics[m][:, 0] for m in data.names]) for _, _, metrics in data.per_lp.values()]
    return humans, rows


def _pooled_accuracy(task: TaskFields, data: TaskData, options: RunFields) -> TaskValues:
    return TaskValues(pooled_pairwise_accuracy(*_pooled_rows(data))[0])


def _pooled_accuracy_swaps(task: TaskFields, data: TaskData, values: TaskValues) -> SwapSource:
    return PooledAccuracySwaps(*_pooled_rows(data))


def _system_level_only(task: TaskFields) -> None:
    if task.level != "sys":
        raise InputError("pooled pairwise accuracy is a system-level task")


# ------------------------------------------------------------------------------------------------ correlations


def correlation_grouping(task: TaskFields) -> str:
    """The grouping of a correlation: the task's at the segment level, none at the system level."""
    return task.grouping if task.level == "seg" else "none"


def correlation_options(task: TaskFields, kind: str, *, pdp: bool = False) -> CorrelationOptions:
    """The :class:`~mtsig.stats.meta_evaluation.grouped_correlation.CorrelationOptions` of correlation ``kind``
    (``pdp``: Pairwise Difference Pearson) that a task sets, under the task's grouping (:func:`correlation_grouping`)."""
    return CorrelationOptions(
        kind, correlation_grouping(task), kendall_variant=task.variant or "b", epsilon=task.epsilon,
        nan_groups=task.nan_groups, average=task.average, threshold=task.threshold, pdp=pdp,
    )  # fmt: skip


def _correlation(kind: str, *, pdp: bool = False) -> Callable[[TaskFields, TaskData, RunFields], TaskValues]:
    """The values of correlation ``kind`` (``pdp``: Pairwise Difference Pearson) under the task's grouping."""

    def values(task: TaskFields, data: TaskData, options: RunFields) -> TaskValues:
        human, metrics = data.one_lp
        return TaskValues(grouped_correlation(human, metrics, correlation_options(task, kind, pdp=pdp)))

    return values


def _score_swaps(kind: str) -> Callable[[TaskFields, TaskData, TaskValues], SwapSource]:
    """Correlation ``kind`` computed on every hybrid of swapped scores (mt-metrics-eval's ``PermutationSigDiff``)."""

    def swaps(task: TaskFields, data: TaskData, values: TaskValues) -> SwapSource:
        human, metrics = data.one_lp
        correlation = correlation_options(task, kind)
        return ScoreSwaps(
            human,
            metrics,
            lambda x: grouped_correlation(human, x, correlation),
            grouping=correlation.grouping,
        )

    return swaps


def _pearson_swaps(task: TaskFields, data: TaskData, values: TaskValues) -> SwapSource:
    """Pearson over cells from its sums (:class:`PearsonSwaps`, the WMT23 tasks'); grouped or micro-averaged Pearson
    on every hybrid."""
    if correlation_grouping(task) == "none" and task.average == "macro":
        human, metrics = data.one_lp
        cells = np.isfinite(human).reshape(-1)
        return PearsonSwaps(human.reshape(-1)[cells], metrics.reshape(len(metrics), -1)[:, cells])
    return _score_swaps("pearson")(task, data, values)


def _pdp_swaps(task: TaskFields, data: TaskData, values: TaskValues) -> SwapSource:
    """PDP from its sums (:class:`PdpSwaps`)."""
    return PdpSwaps(*data.one_lp, correlation_grouping(task))


def _kendall_swaps(task: TaskFields, data: TaskData, values: TaskValues) -> SwapSource:
    """Kendall's variants with the pairs' outcomes swapped at the task's epsilon (``perm_test='pairs'``), or computed
    on every hybrid of swapped scores."""
    if task.perm_test != "pairs":
        return _score_swaps("kendall")(task, data, values)
    human, metrics = data.one_lp
    epsilons = np.full(len(metrics), task.epsilon)
    return PairOutcomeSwaps(
        human,
        metrics,
        epsilons,
        variant=task.variant,
        grouping=correlation_grouping(task),
        nan_groups=task.nan_groups,
    )


def _kendall_name(task: TaskFields) -> str:
    return f"kendall-{task.variant}" + (f" eps {task.epsilon:g}" if task.epsilon else "")


def _check_kendall(task: TaskFields) -> None:
    if task.variant not in KENDALL_VARIANTS:
        raise InputError(f"unknown Kendall variant {task.variant!r}; known: {', '.join(KENDALL_VARIANTS)}")


# ------------------------------------------------------------------------------------------------ tie calibration


def _tie_calibrated(task: TaskFields, data: TaskData, options: RunFields) -> TaskValues:
    """Each metric's tie-calibrated statistic (Deutsch et al. 2023), on a sample of the pairs drawn from
    ``rng_for(seed, *draw_key(task), "sample", <metric>)`` when ``sample_rate < 1``."""
    human, metrics = data.one_lp
    calibrations = [
        calibrate_ties(
            human, metrics[m], variant=task.variant, grouping=task.grouping, sample_rate=task.sample_rate,
            rng=rng_for(options.seed, *draw_key(task), "sample", name) if task.sample_rate < 1 else None,
        )
        for m, name in enumerate(data.names)
    ]  # fmt: skip
    return TaskValues(np.array([c.value for c in calibrations]), np.array([c.epsilon for c in calibrations]))


def _tie_calibrated_swaps(task: TaskFields, data: TaskData, values: TaskValues) -> SwapSource:
    """The pairs' outcomes at the calibrated epsilons swapped (``PairwisePermutationSigDiff``), or epsilon
    re-calibrated on every hybrid (mt-metrics-eval's ``perm_test='scores'``)."""
    human, metrics = data.one_lp
    if task.perm_test == "pairs":
        outcomes = pair_outcomes(human, metrics, values.epsilons, grouping=task.grouping)
        return PairSwaps(outcomes, task.variant)
    if task.sample_rate < 1:
        raise InputError(f"{task.label}: re-calibrating on every resample takes every pair")
    return recalibrated_acc_t(human, metrics, variant=task.variant, grouping=task.grouping)


def _check_tie_variant(task: TaskFields) -> None:
    if task.variant not in TIE_VARIANTS:
        raise InputError(f"tie calibration optimises {' or '.join(TIE_VARIANTS)}, not {task.variant!r}")


# ------------------------------------------------------------------------------------------------ SPA


def rated_segments(human: np.ndarray, label: str) -> np.ndarray:
    """The segments every system has a human score of (SPA's permutation test pairs systems segment by segment;
    mt-metrics-eval reshapes the rated cells per system and needs the same segments for all)."""
    rated = np.isfinite(human)
    full = rated.all(axis=0)
    if (rated.any(axis=0) & ~full).any():
        raise InputError(
            f"{label}: SPA needs every system rated on the same segments; some are rated for some only"
        )
    return full


def rated_segment_flips(human: np.ndarray, label: str) -> tuple[np.ndarray, np.ndarray]:
    """``(rated, flips)``: the segments every system is rated on (:func:`rated_segments`) and pce.py's sign flips
    over them (:func:`mtsig.stats.meta_evaluation.soft_pairwise_accuracy.pce_flips`), what SPA and its tests use."""
    rated = rated_segments(human, label)
    return rated, pce_flips(int(rated.sum()))


def _spa(task: TaskFields, data: TaskData, options: RunFields) -> TaskValues:
    """Soft pairwise accuracy (Thompson et al. 2024) over the segments every system is rated on."""
    arithmetic = options.spa_arithmetic
    if arithmetic not in ARITHMETICS:
        raise InputError(f"unknown SPA arithmetic {arithmetic!r}; known: {', '.join(ARITHMETICS)}")
    human, metrics = data.one_lp
    rated, flips = rated_segment_flips(human, task.label)
    return TaskValues(
        soft_pairwise_accuracy(human[:, rated], metrics[:, :, rated], flips=flips, arithmetic=arithmetic)
    )


def _spa_swaps(task: TaskFields, data: TaskData, values: TaskValues) -> SwapSource:
    """The metrics' permutation counts swapped pair by pair against the gold's (:class:`SpaSwaps`)."""
    human, metrics = data.one_lp
    rated, flips = rated_segment_flips(human, task.label)
    return SpaSwaps(permutation_counts(human[:, rated], flips), metrics[:, :, rated], flips)


# ------------------------------------------------------------------------------------------------ the registry


def _named(name: str) -> Callable[[TaskFields], str]:
    return lambda task: name


def _range(value_range: tuple[float, float]) -> Callable[[TaskFields], tuple[float, float]]:
    return lambda task: value_range


#: Every statistic a task can compute, by name, in the order the error messages list them.
STATISTICS: dict[str, StatisticSpec] = {
    "pooled_accuracy": StatisticSpec(
        values=_pooled_accuracy,
        swaps=_pooled_accuracy_swaps,
        value_range=_range(UNIT_RANGE),
        name=_named("accuracy"),
        source="pairwise accuracy of system rankings pooled over language pairs (Kocmi et al. 2021; WMT23 task 1)",
        check=_system_level_only,
        pooled=True,
    ),
    "pearson": StatisticSpec(
        values=_correlation("pearson"),
        swaps=_pearson_swaps,
        value_range=_range(SIGNED_RANGE),
        name=_named("pearson"),
        source="Pearson's r",
    ),
    "pdp": StatisticSpec(
        values=_correlation("pearson", pdp=True),
        swaps=_pdp_swaps,
        value_range=_range(SIGNED_RANGE),
        name=_named("PDP"),
        source="Pairwise Difference Pearson (DiIanni & Deutsch 2025)",
    ),
    "spearman": StatisticSpec(
        values=_correlation("spearman"),
        swaps=_score_swaps("spearman"),
        value_range=_range(SIGNED_RANGE),
        name=_named("spearman"),
        source="Spearman's rho",
    ),
    "kendall": StatisticSpec(
        values=_correlation("kendall"),
        swaps=_kendall_swaps,
        value_range=_range(SIGNED_RANGE),
        name=_kendall_name,
        source="Kendall's tau (b, c, 23, acc23; Deutsch et al. 2023) with a metric tie threshold",
        check=_check_kendall,
        pairs_test=lambda task: task.variant in PAIR_VARIANTS,
    ),
    "kendall_like": StatisticSpec(
        values=_correlation("kendall_like"),
        swaps=_score_swaps("kendall_like"),
        value_range=_range(SIGNED_RANGE),
        name=lambda task: f"kendall-like {task.threshold:g}",
        source="the WMT20 Kendall-like tau (Mathur et al. 2020)",
    ),
    "tie_calibrated": StatisticSpec(
        values=_tie_calibrated,
        swaps=_tie_calibrated_swaps,
        value_range=lambda task: UNIT_RANGE if task.variant == "acc23" else SIGNED_RANGE,
        name=lambda task: "acc-t" if task.variant == "acc23" else "tau-t",
        source="tie-calibrated acc_23 or tau_23 (Deutsch et al. 2023; WMT23's acc-t)",
        check=_check_tie_variant,
        pairs_test=lambda task: True,
        default_perm_test="pairs",
        spec_defaults=types.MappingProxyType({"variant": "acc23", "grouping": "item", "perm_test": "pairs"}),
    ),
    "spa": StatisticSpec(
        values=_spa,
        swaps=_spa_swaps,
        value_range=_range(UNIT_RANGE),
        name=_named("SPA"),
        source="soft pairwise accuracy (Thompson et al. 2024)",
        spec_defaults=types.MappingProxyType({"level": "sys"}),
        file_level="seg",
        whole_segments=True,
    ),
}
