"""The counting loop of soft pairwise accuracy's permutation test between metrics, compiled with numba.

For every resample, pair of metrics (a, b) and pair of systems (i, j), the two hybrids' permutation counts
``#{r : F_r @ (x'_i - x'_j) <= 0}`` and their distances ``Σ_(i,j) |c_h - c_x'|`` to the human counts
(:class:`mtsig.stats.metric_permutation.SpaSwaps`). Additions and comparisons in a fixed order, no fast-math: the
same bits on every machine.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mtsig.runtime.numba_compilation import compile_once


@njit(cache=True, nogil=True)
def _hybrid_distances(base, q, human_counts, a, b, si, sj):  # pragma: no cover - compiled
    n_draws = q.shape[0]
    n_systems = base.shape[1]
    n_perm = base.shape[2]
    n_pairs = a.size
    out = np.zeros((n_draws, n_pairs, 2), dtype=np.int64)
    sums_a = np.empty((n_systems, n_perm))
    sums_b = np.empty((n_systems, n_perm))
    for d in range(n_draws):
        for p in range(n_pairs):
            ma = a[p]
            mb = b[p]
            # each hybrid's permutation sums F_r @ x'_s, system by system
            for s in range(n_systems):
                for r in range(n_perm):
                    swapped = q[d, s, mb, r] - q[d, s, ma, r]
                    sums_a[s, r] = base[ma, s, r] + swapped
                    sums_b[s, r] = base[mb, s, r] - swapped
            dist_a = 0
            dist_b = 0
            for k in range(si.size):
                i = si[k]
                j = sj[k]
                count_a = 0
                count_b = 0
                for r in range(n_perm):
                    count_a += sums_a[i, r] <= sums_a[j, r]
                    count_b += sums_b[i, r] <= sums_b[j, r]
                dist_a += abs(human_counts[k] - count_a)
                dist_b += abs(human_counts[k] - count_b)
            out[d, p, 0] = dist_a
            out[d, p, 1] = dist_b
    return out


def _warm_up() -> None:
    base = np.zeros((2, 2, 1))
    q = np.zeros((1, 2, 2, 1))
    one = np.zeros(1, dtype=np.int64)
    _hybrid_distances(base, q, one, one, one + 1, one, one + 1)


def hybrid_distances(
    base: np.ndarray,
    q: np.ndarray,
    human_counts: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    si: np.ndarray,
    sj: np.ndarray,
) -> np.ndarray:
    """``int64[draws, pairs, 2]``: ``Σ_(i,j) |c_h - c_a'|`` and the same for ``b'``. ``base[M, S, R]`` = F @ z,
    ``q[draws, S, M, R]`` = (F ∘ w_s) @ z of each resample (zero: the metrics themselves), ``a``, ``b`` the metric
    pairs, ``si``, ``sj`` the system pairs, ``human_counts`` their human permutation counts."""
    compile_once(__file__, _warm_up)
    return _hybrid_distances(
        np.ascontiguousarray(base),
        np.ascontiguousarray(q),
        np.ascontiguousarray(human_counts, dtype=np.int64),
        np.ascontiguousarray(a, dtype=np.int64),
        np.ascontiguousarray(b, dtype=np.int64),
        np.ascontiguousarray(si, dtype=np.int64),
        np.ascontiguousarray(sj, dtype=np.int64),
    )
