"""Ranking metrics across tasks: significance clusters and the weighted average of rescaled task statistics.

The WMT22-24 metrics tasks rank metrics by a weighted average of their statistics over several tasks (Freitag et al.
2022, Sec. 5.4; Freitag et al. 2023, "Results of WMT23 Metrics Shared Task", Sec. 5.3 and Table 8; mt-metrics-eval's
``tasks.TaskSetResults``):

* **Rescaling** (``AverageCorrs``): each task's statistic is mapped to [0, 1] by its range, ``(v - lo) / (hi - lo)``,
  with ``(lo, hi) = (0, 1)`` for accuracies (pairwise accuracy, acc_23, SPA) and ``(-1, 1)`` for correlations; the
  average is ``Σ_t w_t (v_t - lo_t) / (hi_t - lo_t)`` with weights summing to 1, over the metrics that every task has.
* **Significance of the average** (``AverageCorrMatrix``): for metrics i above j, the null distribution of the
  average difference takes each task's resampled hybrid differences ``δ'_t`` of that pair, rescaled the same way,
  and sums them draw by draw: ``null_r = Σ_t w_t δ'_t,r / (hi_t - lo_t)``; a task whose test stopped early (fewer
  draws) has its draws repeated (``numpy.tile``) up to the longest; p = ``mean_r [null_r >= avg_i - avg_j]``.
* **Clusters** (``data.AssignRanks``): metrics sorted by decreasing statistic; going down the list, a new cluster
  (rank + 1) starts at metric i when some metric of the current cluster beats i with ``p <= alpha``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mtsig.errors import InputError
from mtsig.stats.meta_evaluation.metric_permutation import PermutationResult


def assign_ranks(significance: np.ndarray, alpha: float = 0.05) -> np.ndarray:
    """Cluster ranks (1, 2, ...) of metrics sorted best first, from ``significance[i, j]`` (i < j), the p-value
    of metric i beating metric j (mt-metrics-eval's ``AssignRanks``: the p-values of the current cluster's
    metrics against the next metric decide; ``p <= alpha`` is significant)."""
    sig = np.asarray(significance, dtype=np.float64)
    if sig.ndim != 2 or sig.shape[0] != sig.shape[1]:
        raise InputError(f"expected a square significance matrix, got shape {sig.shape}")
    ranks = np.zeros(sig.shape[0], dtype=np.int64)
    current, start = 1, 0
    for i in range(sig.shape[0]):
        if (sig[start:i, i] <= alpha).any():
            current += 1
            start = i
        ranks[i] = current
    return ranks


def ranking_order(names: Sequence[str], values: Sequence[float]) -> list[int]:
    """Metric indices by decreasing value, ties by name (mt-metrics-eval's sort key ``(-corr, name)``)."""
    return sorted(range(len(names)), key=lambda m: (-float(values[m]), names[m]))


def rescale(values: np.ndarray, value_range: tuple[float, float]) -> np.ndarray:
    """``(v - lo) / (hi - lo)``: a task's statistic on [0, 1]."""
    lo, hi = value_range
    return (np.asarray(values, dtype=np.float64) - lo) / (hi - lo)


def weighted_average(
    task_values: Sequence[np.ndarray], ranges: Sequence[tuple[float, float]], weights: Sequence[float]
) -> np.ndarray:
    """``Σ_t w_t rescale(v_t)`` of metrics given in the same order in every task (``task_values[t][M]``); the
    terms are added in task order, as ``AverageCorrs`` does."""
    total = np.zeros_like(np.asarray(task_values[0], dtype=np.float64))
    for values, value_range, weight in zip(task_values, ranges, weights, strict=True):
        total = total + rescale(values, value_range) * weight
    return total


def tiled(draws: np.ndarray, length: int) -> np.ndarray:
    """``draws`` repeated up to ``length`` (``np.tile(draws, ceil(length / len))[:length]``)."""
    copies = -(-length // draws.size)
    return np.tile(draws, copies)[:length]


def average_nulls(
    order: Sequence[int],
    tests: Sequence[PermutationResult],
    ranges: Sequence[tuple[float, float]],
    weights: Sequence[float],
    metric_index: Sequence[np.ndarray],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(first, second, null[P, k], used[P])``: the weighted average's null differences (module docstring;
    ``AverageCorrMatrix``) of every pair ``p`` of metrics ``order[first[p]]`` above ``order[second[p]]``
    (``np.triu_indices`` order): ``null[p, r]``, ``r < used[p]``, is the average of the tasks' draws r of the pair,
    oriented as "the first beats the second" (later columns are not the pair's).

    ``tests[t]``: task t's permutation test; ``metric_index[t][m]``: metric m's index in task t. Every pair at
    once: a task's draw r of a pair whose test used ``L`` draws is its draw ``r mod L`` (the tiling).
    """
    n = len(order)
    first, second = np.triu_indices(n, k=1)
    m1 = np.asarray(order)[first]
    m2 = np.asarray(order)[second]
    gathered = []
    for test, index in zip(tests, metric_index, strict=True):
        index = np.asarray(index)
        n_task = int(max(test.a.max(), test.b.max())) + 1
        pair_of = np.full((n_task, n_task), -1, dtype=np.int64)
        pair_of[test.a, test.b] = np.arange(test.a.size)
        t1, t2 = index[m1], index[m2]
        pairs = pair_of[np.minimum(t1, t2), np.maximum(t1, t2)]
        # the task's draws are stat(a') - stat(b') with a the lower task index
        gathered.append((pairs, np.where(t1 < t2, 1.0, -1.0), test.n_used[pairs]))
    longest = np.max([used for _, _, used in gathered], axis=0)  # [pairs]
    r = np.arange(int(longest.max()))
    null = np.zeros((first.size, r.size))
    for (pairs, sign, used), test, value_range, weight in zip(gathered, tests, ranges, weights, strict=True):
        draws = test.draws[r[None, :] % used[:, None], pairs[:, None]]  # [pairs, k], tiled
        null = null + weight * (sign[:, None] * draws) / (value_range[1] - value_range[0])
    return first, second, null, longest


def average_significance(
    order: Sequence[int],
    average: np.ndarray,
    tests: Sequence[PermutationResult],
    ranges: Sequence[tuple[float, float]],
    weights: Sequence[float],
    metric_index: Sequence[np.ndarray],
) -> np.ndarray:
    """The significance matrix of the weighted average (module docstring; ``AverageCorrMatrix``) for metrics in
    ``order`` (best first by ``average``): ``sig[i, j]`` (i < j) the p-value of ``order[i]`` beating ``order[j]``,
    the share of :func:`average_nulls` at or above the observed difference."""
    first, second, null, longest = average_nulls(order, tests, ranges, weights, metric_index)
    observed = (average[np.asarray(order)[first]] - average[np.asarray(order)[second]])[:, None]
    within = np.arange(null.shape[1])[None, :] < longest[:, None]
    n = len(order)
    sig = np.zeros((n, n))
    sig[first, second] = ((null >= observed) & within).sum(axis=1) / longest
    return sig
