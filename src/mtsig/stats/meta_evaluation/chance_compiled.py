"""The tie-calibrated statistic of many permuted draws, one pass over the pairs per draw, compiled with numba.

For :func:`mtsig.stats.meta_evaluation.chance.chance_tie_calibrated`: the metric's pairs sorted by ``|dm|``
once; for each draw (the human scores permuted within groups) each pair's outcome at epsilon 0 and its change
when it becomes a metric tie, summed in that order per group size, and at the end of each run of equal
``|dm|`` (a candidate epsilon) the statistic ``Σ_sizes (good_size) / (size · R)``, added in the order of the
sizes as :func:`mtsig.stats.meta_evaluation.tie_calibration.calibrate_ties` adds them; the value is the
largest. Integer counts and the same floating-point operations in the same order: the same bits as calibrating
each draw on its own.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mtsig.runtime.numba_compilation import compile_once


@njit(cache=True, nogil=True)
def _calibrated_draws(
    shuffled, first, second, metric_tie, metric_sign, size_class, weights, run_end, before_all
):  # pragma: no cover - compiled
    n_draws = shuffled.shape[0]
    n_pairs = first.size
    n_classes = weights.size
    out = np.empty(n_draws)
    base = np.empty(n_pairs, dtype=np.int64)
    human_tie = np.empty(n_pairs, dtype=np.int64)
    totals = np.empty(n_classes, dtype=np.int64)
    running = np.empty(n_classes, dtype=np.int64)
    for d in range(n_draws):
        h = shuffled[d]
        if n_classes == 1:  # one group size: the best epsilon has the largest running count, one pass
            total = 0
            count = 0
            best_count = 0 if before_all else -n_pairs - 1
            for p in range(n_pairs):
                dh = h[first[p]] - h[second[p]]
                if dh == 0:
                    good = metric_tie[p]
                    count += 1 - (1 if good else 0)
                else:
                    sign = 1 if dh > 0 else -1
                    good = (not metric_tie[p]) and sign == metric_sign[p]
                    count -= 1 if good else 0
                total += 1 if good else 0
                if run_end[p] and count > best_count:
                    best_count = count
            out[d] = (total + best_count) / weights[0]
            continue
        totals[:] = 0
        for p in range(n_pairs):
            dh = h[first[p]] - h[second[p]]
            tie = dh == 0
            if tie:
                good = metric_tie[p]
            else:
                sign = 1 if dh > 0 else -1
                good = (not metric_tie[p]) and sign == metric_sign[p]
            human_tie[p] = 1 if tie else 0
            base[p] = 1 if good else 0
            totals[size_class[p]] += base[p]
        running[:] = 0
        best = -np.inf
        if before_all:  # epsilon 0 ties no pair
            value = 0.0
            for c in range(n_classes):
                value = value + totals[c] / weights[c]
            best = value
        for p in range(n_pairs):
            running[size_class[p]] += human_tie[p] - base[p]
            if run_end[p]:
                value = 0.0
                for c in range(n_classes):
                    value = value + (totals[c] + running[c]) / weights[c]
                if value > best:
                    best = value
        out[d] = best
    return out


def _warm_up() -> None:
    one = np.zeros(1, dtype=np.int64)
    _calibrated_draws(
        np.zeros((1, 2)), one, one + 1, np.zeros(1, dtype=np.bool_), one, one, np.ones(1), np.ones(1, dtype=np.bool_),
        True,
    )  # fmt: skip


def calibrated_draws(
    shuffled: np.ndarray,
    first: np.ndarray,
    second: np.ndarray,
    metric_tie: np.ndarray,
    metric_sign: np.ndarray,
    size_class: np.ndarray,
    weights: np.ndarray,
    run_end: np.ndarray,
    before_all: bool,
) -> np.ndarray:
    """``[draws]``: the acc_23 of each draw at its best epsilon. ``shuffled[draws, cells]``: the human scores of each
    draw; ``first``, ``second``: every pair's cells, in increasing ``|dm|``; ``metric_tie``, ``metric_sign``: the
    metric's tie (``dm = 0``) and sign of ``dm`` per pair; ``size_class``: the pair's group size's index in
    ``weights`` (``size · R`` per size, in increasing size); ``run_end``: the pair ends a run of equal ``|dm|``;
    ``before_all``: no pair has ``dm = 0`` (epsilon 0 is a candidate of its own)."""
    compile_once(__file__, _warm_up)
    return _calibrated_draws(
        np.ascontiguousarray(shuffled, dtype=np.float64),
        np.ascontiguousarray(first, dtype=np.int64),
        np.ascontiguousarray(second, dtype=np.int64),
        np.ascontiguousarray(metric_tie, dtype=np.bool_),
        np.ascontiguousarray(metric_sign, dtype=np.int64),
        np.ascontiguousarray(size_class, dtype=np.int64),
        np.ascontiguousarray(weights, dtype=np.float64),
        np.ascontiguousarray(run_end, dtype=np.bool_),
        bool(before_all),
    )
