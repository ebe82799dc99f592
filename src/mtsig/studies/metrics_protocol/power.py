"""Power and stability of a metrics-task protocol's conclusions (:mod:`mtsig.stats.meta_evaluation.power`;
docs/statistics.md, "Power and stability").

For chosen pairs of metrics in every task (each metric against the next in the task's ranking, and any pair named in
the configuration), the power of the task's own permutation test on test sets of ``scale`` times the real number of
units (items for a segment-level task, systems for a system-level one, drawn with replacement from the real ones),
and the size that reaches the target power (80%); for every task, how often a re-drawn test set of the real size
keeps the winner and cluster 1 (the stable ranking probability of Riley et al. 2024, for these two conclusions),
and the same for the weighted average, the table's ranking (:func:`average_stability`: each language pair's items
and systems re-drawn once for all its tasks). The protocol must have run its permutation tests: their null draws
give the decisions. Draws from ``rng_for(seed, *key, "power" | "stability", <task label> | "average")``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from mtsig.errors import InputError
from mtsig.settings import ProtocolPower as PowerSettings
from mtsig.stats.meta_evaluation import power as mpw
from mtsig.stats.meta_evaluation import task_bootstrap as tb
from mtsig.stats.meta_evaluation.metric_ranking import average_nulls
from mtsig.stats.seeding import rng_for
from mtsig.studies.metrics_protocol import ProtocolData, ProtocolResult, RunOptions, TaskResult
from mtsig.studies.metrics_protocol.beyond import TaskResampler, joint_task_draws, task_resampler

#: The :class:`TaskStability` label of the weighted average.
AVERAGE = "average"
#: Test-set sizes as multiples of the real one: 1/8 to 1024 (the cost does not grow with the size).
DEFAULT_SCALES = tuple(float(2.0**k) for k in range(-3, 11))


@dataclass(frozen=True)
class PairPower:
    """One pair of a task: ``higher`` ranked above ``lower`` by ``delta``, the protocol's p-value; the ``power`` at
    each of the study's scales, the scale reaching the target (``scale_target``; inf: beyond the largest) and that
    size in units (``n_target``, of ``n_units`` real ones); ``chosen``: ``next`` (adjacent in the ranking) or
    ``named`` (from the configuration)."""

    task: str
    higher: str
    lower: str
    delta: float
    p_value: float
    n_units: int
    power: np.ndarray
    scale_target: float
    n_target: float
    chosen: str


@dataclass(frozen=True)
class TaskStability:
    """How often a re-drawn test set of the real size keeps the task's winner (``p_winner``) and its cluster 1 (the
    same set of metrics, ``p_cluster``)."""

    task: str
    winner: str
    p_winner: float
    cluster: tuple[str, ...]
    p_cluster: float
    n_units: int
    n_sets: int


@dataclass(frozen=True)
class ProtocolPower:
    """Every chosen pair's :class:`PairPower` and every task's :class:`TaskStability` of one protocol."""

    pairs: tuple[PairPower, ...]
    stability: tuple[TaskStability, ...]
    scales: tuple[float, ...]
    target: float
    alpha: float
    n_sets: int
    stability_sets: int


def _nulls(result: TaskResult) -> dict[tuple[int, int], np.ndarray]:
    """Sorted null differences ``stat(i') - stat(j')`` of every ordered pair (i, j) of the task's test."""
    test = result.test
    if test is None:
        raise InputError(f"{result.task.label}: power needs the protocol's permutation tests (samples > 0)")
    nulls = {}
    for p, (a, b) in enumerate(zip(test.a, test.b, strict=True)):
        draws = test.draws[:, p]
        nulls[(int(a), int(b))] = mpw.sorted_null(draws)
        nulls[(int(b), int(a))] = mpw.sorted_null(-draws)
    return nulls


def _ranked_without_humans(result: TaskResult) -> list[int]:
    """The task's metric indices in ranking order, best first, without the human scores entered as metrics."""
    return [m for m in result.order if result.metrics[m] not in result.human]


def chosen_pairs(result: TaskResult, named: Sequence[tuple[str, str]]) -> list[tuple[int, int, str]]:
    """``(higher, lower, chosen)`` metric indices: each metric of the ranking (human scores left out) against the
    next, then each other ``named`` pair the task has, ordered by the task's ranking; ``chosen`` is ``named`` for a
    pair of ``named`` (adjacent or not), ``next`` for the others."""
    main = _ranked_without_humans(result)
    position = {m: k for k, m in enumerate(result.order)}
    wanted = set()
    for first, second in named:
        if first in result.metrics and second in result.metrics and first != second:
            a, b = result.metrics.index(first), result.metrics.index(second)
            wanted.add((a, b) if position[a] < position[b] else (b, a))
    pairs = [(main[k], main[k + 1]) for k in range(len(main) - 1)]
    pairs += sorted(wanted - set(pairs), key=lambda pair: position[pair[0]])
    return [(higher, lower, "named" if (higher, lower) in wanted else "next") for higher, lower in pairs]


def _draws(resampler: TaskResampler, rng: np.random.Generator, scale: float, n_sets: int) -> np.ndarray:
    counts = [tb.draw_counts_of_size(rng, n, max(1, round(scale * n)), n_sets) for n in resampler.n_units]
    return resampler.statistic(counts)


def task_power(
    result: TaskResult,
    resampler: TaskResampler,
    named: Sequence[tuple[str, str]],
    *,
    scales: Sequence[float],
    n_sets: int,
    target: float,
    alpha: float,
    rng: np.random.Generator,
) -> list[PairPower]:
    """The :class:`PairPower` of every :func:`chosen_pairs` pair of one task."""
    nulls = _nulls(result)
    pairs = chosen_pairs(result, named)
    power = np.zeros((len(scales), len(pairs)))
    for k, scale in enumerate(scales):
        values = _draws(resampler, rng, scale, n_sets)
        for p, (higher, lower, _) in enumerate(pairs):
            differences = values[:, higher] - values[:, lower]
            power[k, p] = mpw.rejection_rate(nulls[(higher, lower)], differences, 1.0 / np.sqrt(scale), alpha)
    n_units = int(sum(resampler.n_units))
    significance_of = _pair_pvalues(result)
    out = []
    for p, (higher, lower, chosen) in enumerate(pairs):
        reach = mpw.size_for_power(np.asarray(scales), power[:, p], target)
        out.append(
            PairPower(
                result.task.label, result.metrics[higher], result.metrics[lower],
                float(result.values[higher] - result.values[lower]), significance_of.get((higher, lower), np.nan),
                n_units, power[:, p], reach, reach * n_units, chosen,
            )
        )  # fmt: skip
    return out


def _pair_pvalues(result: TaskResult) -> dict[tuple[int, int], float]:
    """The protocol's p-value of each pair, keyed (higher, lower) in the task's ranking."""
    test = result.test
    out = {}
    for p, (a, b) in enumerate(zip(test.a, test.b, strict=True)):
        higher, lower = (int(a), int(b)) if test.higher[p] else (int(b), int(a))
        out[(higher, lower)] = float(test.pvalue[p])
    return out


def task_stability(
    result: TaskResult, resampler: TaskResampler, *, n_sets: int, alpha: float, rng: np.random.Generator
) -> TaskStability:
    """The :class:`TaskStability` of one task (human scores left out of the ranking; ties by the task's metric
    order, its names')."""
    task_nulls = _nulls(result)
    main = [m for m in range(len(result.metrics)) if result.metrics[m] not in result.human]
    nulls = {(i, j): task_nulls[(mi, mj)] for i, mi in enumerate(main) for j, mj in enumerate(main) if i != j}
    position = {m: k for k, m in enumerate(main)}
    top = [position[m] for m in _ranked_without_humans(result)]
    return _stability(
        result.task.label,
        [result.metrics[m] for m in main],
        _draws(resampler, rng, 1.0, n_sets)[:, main],
        nulls,
        top[0],
        [k for k in top if result.ranks[main[k]] == 1],
        alpha,
        int(sum(resampler.n_units)),
    )


def _stability(
    label: str,
    names: Sequence[str],
    values: np.ndarray,
    nulls: Mapping[tuple[int, int], np.ndarray],
    winner: int,
    cluster: Sequence[int],
    alpha: float,
    n_units: int,
) -> TaskStability:
    """The :class:`TaskStability` of metrics ``names`` (in the order that breaks ties) from their values on re-drawn
    test sets ``values[B, M]`` and the sorted null differences ``nulls[(i, j)]`` of "i beats j", with the real test
    set's ``winner`` and ``cluster`` 1 (positions, in ranking order)."""
    n_sets, n_metrics = values.shape
    pvalue_of = np.ones((n_sets, n_metrics, n_metrics))
    for i in range(n_metrics):
        for j in range(n_metrics):
            if i != j:
                pvalue_of[:, j, i] = mpw.null_pvalues(nulls[(j, i)], values[:, j] - values[:, i])
    drawn_winner, drawn_cluster = mpw.first_clusters(values, pvalue_of, alpha)
    real = np.isin(np.arange(n_metrics), list(cluster))
    return TaskStability(
        label,
        names[winner],
        float(np.mean(drawn_winner == winner)),
        tuple(names[k] for k in cluster),
        float(np.mean((drawn_cluster == real[None, :]).all(axis=1))),
        n_units,
        n_sets,
    )


def average_stability(
    result: ProtocolResult,
    resamplers: Sequence[TaskResampler],
    *,
    n_sets: int,
    alpha: float,
    rng: np.random.Generator,
) -> TaskStability:
    """How often a re-drawn test set of the real size keeps the weighted average's winner and its cluster 1 (the
    table's ranking; Riley et al. 2024, Sec. 3): every task's statistic on test sets in which each language pair's
    items and systems are drawn once for all its tasks (``resamplers[t]``,
    :func:`~mtsig.studies.metrics_protocol.beyond.joint_task_draws`), averaged as the
    table averages (each task rescaled by its range, weighted); cluster 1 from the average's own permutation test
    (its null differences of the real test set, :func:`mtsig.stats.meta_evaluation.metric_ranking.average_nulls`)."""
    names = list(result.metrics)  # the average's ranking, best first; no human scores
    if any(task.test is None for task in result.tasks):
        raise InputError("the average's stability needs the protocol's permutation tests (samples > 0)")
    index = [np.array([task.metrics.index(name) for name in names]) for task in result.tasks]
    ranges = [task.task.value_range for task in result.tasks]
    _, values, n_units = joint_task_draws(result, resamplers, n_sets, rng)
    first, second, null, used = average_nulls(
        range(len(names)), [task.test for task in result.tasks], ranges, result.protocol.weights, index
    )
    by_name = np.argsort(np.asarray(names), kind="stable")  # ties by name, as the tasks' re-drawn rankings
    position = np.empty(len(names), dtype=np.int64)
    position[by_name] = np.arange(len(names))
    nulls = {}
    for p, (i, j) in enumerate(zip(position[first], position[second], strict=True)):
        nulls[(int(i), int(j))] = mpw.sorted_null(null[p, : used[p]])
        nulls[(int(j), int(i))] = mpw.sorted_null(-null[p, : used[p]])
    cluster = [int(position[k]) for k in range(len(names)) if result.ranks[k] == 1]
    return _stability(
        AVERAGE,
        [names[k] for k in by_name],
        values[:, by_name],
        nulls,
        int(position[0]),
        cluster,
        alpha,
        n_units,
    )


def protocol_power(
    data: ProtocolData,
    settings: PowerSettings | None = None,
    options: RunOptions | None = None,
    *,
    scales: Sequence[float] = DEFAULT_SCALES,
    seed: int = 0,
    key: Sequence[object] = (),
) -> ProtocolPower:
    """Power of the chosen pairs and stability of every task of a protocol run with permutation tests, and of the
    weighted average (module docstring): ``settings`` (the config's ``metrics_protocol.<name>.power``,
    :class:`mtsig.settings.ProtocolPower`) gives the extra pairs, the re-drawn test sets per size and of the real
    size, and the target power; ``options`` the tests' alpha, the task's metrics and SPA's arithmetic."""
    settings = PowerSettings() if settings is None else settings
    options = RunOptions() if options is None else options
    named, n_sets, stability_sets = settings.pairs, settings.samples, settings.stability_samples
    target, alpha = settings.target, options.alpha
    if n_sets < 1 or stability_sets < 1:
        raise InputError(f"power needs at least one re-drawn test set, got {n_sets} and {stability_sets}")
    pairs, stability, resamplers = [], [], []
    stable = {"n_sets": stability_sets, "alpha": alpha}  # every task's stability and the average's
    for task in data.result.tasks:
        resampler = task_resampler(task, data.inputs, options)
        resamplers.append(resampler)
        label = task.task.label
        pairs += task_power(
            task, resampler, named, scales=scales, n_sets=n_sets, target=target, alpha=alpha,
            rng=rng_for(seed, *key, "power", label),
        )  # fmt: skip
        stability.append(
            task_stability(task, resampler, **stable, rng=rng_for(seed, *key, "stability", label))
        )
    stability.append(
        average_stability(data.result, resamplers, **stable, rng=rng_for(seed, *key, "stability", AVERAGE))
    )
    return ProtocolPower(tuple(pairs), tuple(stability), tuple(scales), target, alpha, n_sets, stability_sets)
