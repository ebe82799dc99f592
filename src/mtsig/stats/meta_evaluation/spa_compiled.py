"""The counting loop of soft pairwise accuracy's permutation test between metrics, compiled with numba.

For every resample, pair of metrics (a, b) and pair of systems (i, j), the two hybrids' permutation counts
``#{r : S_i[r] <= S_j[r]}`` (``S_s[r]`` the hybrid's permutation sum ``F_r @ x'_s`` of system s, exact integers on the
scores' common grid) and their distances ``Σ_(i,j) |c_h - c_x'|`` to the human counts
(:class:`mtsig.stats.meta_evaluation.metric_permutation.SpaSwaps`). Integer arithmetic only: the same numbers
on every machine.

A hybrid's sums are a metric's sums over the cells it keeps plus the other metric's over the cells swapped:
``S_a' = (U_a - Q_a) + Q_b`` and ``S_b' = (U_b - Q_b) + Q_a``, with ``U_m = F @ z_m`` and ``Q_m = (F ∘ w) @ z_m``. Each
system's row of sums is compared with four others at a time, so that it is read once per four comparisons.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mtsig.runtime.numba_compilation import compile_once, contiguous


@njit(cache=True, nogil=True)
def _pair_counts(sums, counts):  # pragma: no cover - compiled
    """``counts[i, j] = #{r : sums[i, r] <= sums[j, r]}`` for every ``i < j``."""
    n_systems, n_perm = sums.shape
    for i in range(n_systems):
        x = sums[i]
        j = i + 1
        while j + 3 < n_systems:
            y0 = sums[j]
            y1 = sums[j + 1]
            y2 = sums[j + 2]
            y3 = sums[j + 3]
            c0 = 0
            c1 = 0
            c2 = 0
            c3 = 0
            for r in range(n_perm):
                v = x[r]
                c0 += v <= y0[r]
                c1 += v <= y1[r]
                c2 += v <= y2[r]
                c3 += v <= y3[r]
            counts[i, j] = c0
            counts[i, j + 1] = c1
            counts[i, j + 2] = c2
            counts[i, j + 3] = c3
            j += 4
        while j < n_systems:
            y0 = sums[j]
            c0 = 0
            for r in range(n_perm):
                c0 += x[r] <= y0[r]
            counts[i, j] = c0
            j += 1


@njit(cache=True, nogil=True)
def _hybrid_distances(base, swapped, used, human_counts, a, b, si, sj):  # pragma: no cover - compiled
    n_draws = swapped.shape[0]
    n_used = swapped.shape[1]
    n_systems = base.shape[1]
    n_perm = base.shape[2]
    out = np.zeros((n_draws, a.size, 2), dtype=np.int64)
    kept = np.empty((n_used, n_systems, n_perm), dtype=np.int64)
    sums = np.empty((2, n_systems, n_perm), dtype=np.int64)
    counts = np.zeros((2, n_systems, n_systems), dtype=np.int64)
    metric_of = np.zeros(n_used, dtype=np.int64)
    for m in range(used.size):
        if used[m] >= 0:
            metric_of[used[m]] = m
    for d in range(n_draws):
        q = swapped[d]
        for u in range(n_used):  # each metric's sums over the cells a hybrid keeps: U - (F ∘ w) @ z
            own = base[metric_of[u]]
            for s in range(n_systems):
                for r in range(n_perm):
                    kept[u, s, r] = own[s, r] - q[u, s, r]
        for p in range(a.size):
            qa = used[a[p]]
            qb = used[b[p]]
            for s in range(n_systems):
                keep_a = kept[qa, s]
                keep_b = kept[qb, s]
                swap_a = q[qa, s]
                swap_b = q[qb, s]
                row_a = sums[0, s]
                row_b = sums[1, s]
                for r in range(n_perm):
                    row_a[r] = keep_a[r] + swap_b[r]
                    row_b[r] = keep_b[r] + swap_a[r]
            _pair_counts(sums[0], counts[0])
            _pair_counts(sums[1], counts[1])
            dist_a = 0
            dist_b = 0
            for k in range(si.size):
                dist_a += abs(human_counts[k] - counts[0, si[k], sj[k]])
                dist_b += abs(human_counts[k] - counts[1, si[k], sj[k]])
            out[d, p, 0] = dist_a
            out[d, p, 1] = dist_b
    return out


def _warm_up() -> None:
    base = np.zeros((2, 2, 1), dtype=np.int64)
    swapped = np.zeros((1, 2, 2, 1), dtype=np.int64)
    one = np.zeros(1, dtype=np.int64)
    _hybrid_distances(base, swapped, np.arange(2), one, one, one + 1, one, one + 1)


def hybrid_distances(
    base: np.ndarray,
    swapped: np.ndarray,
    used: np.ndarray,
    human_counts: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    si: np.ndarray,
    sj: np.ndarray,
) -> np.ndarray:
    """``int64[draws, pairs, 2]``: ``Σ_(i,j) |c_h - c_a'|`` and the same for ``b'``. ``base[M, S, R]``: every metric's
    permutation sums ``F @ z``; ``swapped[draws, U, S, R]``: ``(F ∘ w_s) @ z`` of the ``U`` metrics still tested, metric
    m at position ``used[m]`` (-1: not tested; zero sums: the metrics themselves); ``a``, ``b``: the metric pairs;
    ``si``, ``sj``: the system pairs (``i < j``) and ``human_counts`` their human permutation counts."""
    compile_once(__file__, _warm_up)
    return _hybrid_distances(*contiguous(np.int64, base, swapped, used, human_counts, a, b, si, sj))
