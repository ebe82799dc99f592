"""The loops of the chance levels' draws, compiled with numba: the tie-calibrated statistic of many relabelled draws
(one pass over the pairs for a block of draws), and the cross products of Pearson's r and PDP with relabelled human
scores (:func:`relabelled_products`).

For :func:`mtsig.stats.meta_evaluation.chance.chance_tie_calibrated`: the metric's pairs sorted by ``|dm|`` once;
the human scores of every draw side by side (``human[cells, draws]``), so that each pair reads two contiguous rows
and updates every draw of the block in one inner loop. Per draw, each pair's outcome at epsilon 0 and its change
when it becomes a metric tie are summed in that order per group size, and at the end of each run of equal ``|dm|``
(a candidate epsilon) the statistic ``Σ_sizes (good_size) / (size · R)`` is formed, adding the sizes in increasing
order as :func:`mtsig.stats.meta_evaluation.tie_calibration.calibrate_ties` adds them; the value is the first
maximum. Integer counts and the same floating-point operations in the same order: the same bits as calibrating
each draw on its own. Only comparisons of human scores matter, so they may be passed as ranks.

The cross products ``Σ_k w[m, k] h[source[b, k]]`` add their terms in the order of the cells, each metric in its own
accumulator, with no fast-math (no fused multiply-add): the same bits on every machine, where a matrix product
(BLAS) adds them in an order that depends on the CPU's kernel and on the operands' alignment in memory.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mtsig.runtime.numba_compilation import compile_once, contiguous


@njit(cache=True, nogil=True)
def _add_pair(a, b, metric_tie, metric_sign, total, change):  # pragma: no cover - compiled
    """Adds one pair's outcome at epsilon 0 (good: tied on both sides, or the metric's sign) to ``total[draws]`` and
    its change when it becomes a metric tie (+1 for a human tie, -1 for a good pair) to ``change[draws]``; the
    branches on the metric's side are taken once per pair, so the loops over the draws are vectorised."""
    if metric_tie:  # good iff the humans tie too, and it stays so: no change
        for d in range(a.size):
            total[d] += np.int32(a[d] == b[d])
    elif metric_sign > 0:
        for d in range(a.size):
            good = np.int32(a[d] > b[d])
            total[d] += good
            change[d] += np.int32(a[d] == b[d]) - good
    else:
        for d in range(a.size):
            good = np.int32(a[d] < b[d])
            total[d] += good
            change[d] += np.int32(a[d] == b[d]) - good


@njit(cache=True, nogil=True)
def _one_size(human, first, second, metric_tie, metric_sign, run_end, before_all, weight):  # pragma: no cover
    """Every group has the same number of pairs: the best epsilon has the largest running count, one pass."""
    n_draws = human.shape[1]
    total = np.zeros(n_draws, dtype=np.int32)
    count = np.zeros(n_draws, dtype=np.int32)
    best = np.full(n_draws, 0 if before_all else -first.size - 1, dtype=np.int32)
    for p in range(first.size):
        _add_pair(human[first[p]], human[second[p]], metric_tie[p], metric_sign[p], total, count)
        if run_end[p]:
            for d in range(n_draws):
                best[d] = max(best[d], count[d])
    out = np.empty(n_draws)
    for d in range(n_draws):
        out[d] = (np.int64(total[d]) + np.int64(best[d])) / weight
    return out


@njit(cache=True, nogil=True)
def _many_sizes(
    human, first, second, metric_tie, metric_sign, size_class, weights, run_end, before_all
):  # pragma: no cover - compiled
    """Groups of several sizes: the totals per size first, then the running sums per size and the statistic at
    each candidate."""
    n_draws = human.shape[1]
    n_classes = weights.size
    totals = np.zeros((n_classes, n_draws), dtype=np.int32)
    unused = np.zeros(n_draws, dtype=np.int32)
    for p in range(first.size):
        _add_pair(
            human[first[p]], human[second[p]], metric_tie[p], metric_sign[p], totals[size_class[p]], unused
        )
    running = np.zeros((n_classes, n_draws), dtype=np.int32)
    best = np.full(n_draws, -np.inf)
    if before_all:  # epsilon 0 ties no pair
        for d in range(n_draws):
            value = 0.0
            for c in range(n_classes):
                value = value + totals[c, d] / weights[c]
            best[d] = value
    for p in range(first.size):
        _add_pair(
            human[first[p]], human[second[p]], metric_tie[p], metric_sign[p], unused, running[size_class[p]]
        )
        if run_end[p]:
            for d in range(n_draws):
                value = 0.0
                for c in range(n_classes):
                    value = value + (totals[c, d] + running[c, d]) / weights[c]
                if value > best[d]:
                    best[d] = value
    return best


@njit(cache=True, nogil=True)
def _relabelled_products(weights, values, sources):  # pragma: no cover - compiled
    n_draws, n_cells = sources.shape
    n_metrics = weights.shape[1]
    out = np.zeros((n_draws, n_metrics))
    for d in range(n_draws):
        for k in range(n_cells):
            value = values[sources[d, k]]
            # every metric's sum in its own accumulator, the cells in order
            for m in range(n_metrics):
                out[d, m] += weights[k, m] * value
    return out


def _warm_up() -> None:
    _relabelled_products(np.zeros((1, 1)), np.zeros(1), np.zeros((1, 1), dtype=np.int64))
    one = np.zeros(1, dtype=np.int64)
    flag = np.ones(1, dtype=np.bool_)
    sign = np.ones(1, dtype=np.int8)
    for dtype in (np.int16, np.int32):
        human = np.zeros((2, 1), dtype=dtype)
        _one_size(human, one, one + 1, flag, sign, flag, True, 1.0)
        _many_sizes(human, one, one + 1, flag, sign, one, np.ones(1), flag, True)


def rank_dtype(n_ranks: int) -> type:
    """The integer type of human ranks passed to :func:`calibrated_draws`: int16 up to 32,767 distinct scores (half
    the memory traffic of int32), else int32."""
    return np.int16 if n_ranks <= np.iinfo(np.int16).max else np.int32


def calibrated_draws(
    human: np.ndarray,
    first: np.ndarray,
    second: np.ndarray,
    metric_tie: np.ndarray,
    metric_sign: np.ndarray,
    size_class: np.ndarray,
    weights: np.ndarray,
    run_end: np.ndarray,
    before_all: bool,
) -> np.ndarray:
    """``[draws]``: the acc_23 of each draw at its best epsilon. ``human[cells, draws]``: each cell's human rank in
    every draw (int16 or int32, :func:`rank_dtype`); ``first``, ``second``: every pair's cells, in increasing
    ``|dm|``; ``metric_tie``, ``metric_sign``: the metric's tie (``dm = 0``) and sign of ``dm`` per pair;
    ``size_class``: the pair's group size's index in ``weights`` (``size · R`` per size, in increasing size);
    ``run_end``: the pair ends a run of equal ``|dm|``; ``before_all``: no pair has ``dm = 0`` (epsilon 0 is a
    candidate of its own)."""
    compile_once(__file__, _warm_up)
    if human.dtype not in (np.int16, np.int32):
        raise TypeError(f"human ranks must be int16 or int32, not {human.dtype}")
    arrays = (
        np.ascontiguousarray(human),
        np.ascontiguousarray(first, dtype=np.int64),
        np.ascontiguousarray(second, dtype=np.int64),
        np.ascontiguousarray(metric_tie, dtype=np.bool_),
        np.ascontiguousarray(metric_sign, dtype=np.int8),
    )
    ends = np.ascontiguousarray(run_end, dtype=np.bool_)
    w = np.ascontiguousarray(weights, dtype=np.float64)
    if w.size == 1:
        return _one_size(*arrays, ends, bool(before_all), float(w[0]))
    return _many_sizes(*arrays, np.ascontiguousarray(size_class, dtype=np.int64), w, ends, bool(before_all))


def relabelled_products(weights: np.ndarray, values: np.ndarray, sources: np.ndarray) -> np.ndarray:
    """``[M, B]``: ``Σ_k weights[m, k] · values[sources[b, k]]`` for ``weights[M, K]``, ``values[C]`` and the
    cells' sources ``sources[B, K]`` (indices into ``values``): each sum over k in increasing order, one rounding
    per product and per addition (module docstring), whatever the arrays' layout in memory."""
    compile_once(__file__, _warm_up)
    (by_cell,) = contiguous(np.float64, np.asarray(weights).T)
    (flat,) = contiguous(np.float64, values)
    (where,) = contiguous(np.int64, sources)
    return _relabelled_products(by_cell, flat, where).T
