"""The loops of PDP's permutation test between metrics, compiled with numba
(:class:`mtsig.stats.meta_evaluation.score_permutation.PdpSwaps`): each metric's swapped group sums, then every pair's
hybrids' sums of squared group totals.

Additions and multiplications in a fixed order, no fast-math (no fused multiply-add): the same bits on every machine.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mtsig.runtime.numba_compilation import compile_once, contiguous


@njit(cache=True, nogil=True)
def _masked_group_sums(masks, zg):  # pragma: no cover - compiled
    n_draws, n_groups, length = masks.shape
    n_metrics = zg.shape[2]
    out = np.zeros((n_draws, n_groups, n_metrics))
    for d in range(n_draws):
        for g in range(n_groups):
            for position in range(length):
                if masks[d, g, position]:
                    # every metric's sum in its own accumulator, positions in order
                    for m in range(n_metrics):
                        out[d, g, m] += zg[g, position, m]
    return out


@njit(cache=True, nogil=True)
def _hybrid_squares(masked, group_sums, position_of, a, b):  # pragma: no cover - compiled
    n_draws = masked.shape[0]
    n_groups = masked.shape[1]
    out = np.zeros((n_draws, a.size, 2))
    for d in range(n_draws):
        for p in range(a.size):
            i = a[p]
            j = b[p]
            pi = position_of[i]
            pj = position_of[j]
            square_a = 0.0
            square_b = 0.0
            for g in range(n_groups):
                swapped = masked[d, g, pj] - masked[d, g, pi]
                sum_a = group_sums[i, g] + swapped
                sum_b = group_sums[j, g] - swapped
                square_a += sum_a * sum_a
                square_b += sum_b * sum_b
            out[d, p, 0] = square_a
            out[d, p, 1] = square_b
    return out


def _warm_up() -> None:
    masks = np.zeros((1, 1, 2), dtype=np.bool_)
    used = np.arange(2, dtype=np.int64)
    masked = _masked_group_sums(masks, np.zeros((1, 2, 2)))
    _hybrid_squares(masked, np.zeros((2, 1)), used, used[:1], used[1:])


def masked_group_sums(masks: np.ndarray, zg: np.ndarray, used: np.ndarray) -> np.ndarray:
    """``[B, G, len(used)]``: ``T_g(m) = Σ_l masks[b, g, l] zg[m, g, l]`` for the metrics ``used``, the positions
    in order."""
    compile_once(__file__, _warm_up)
    by_position = np.moveaxis(zg[used], 0, -1)  # [G, L, used]
    return _masked_group_sums(*contiguous(np.bool_, masks), *contiguous(np.float64, by_position))


def hybrid_squares(
    masked: np.ndarray, group_sums: np.ndarray, position_of: np.ndarray, a: np.ndarray, b: np.ndarray
) -> np.ndarray:
    """``[B, P, 2]``: ``Σ_g (S_a,g + T_g(b) - T_g(a))²`` and ``Σ_g (S_b,g - T_g(b) + T_g(a))²`` of every pair
    ``(a[p], b[p])``; ``masked`` from :func:`masked_group_sums`, metric m at ``position_of[m]`` on its last axis,
    ``group_sums[M, G]`` the metrics' own group sums ``S``."""
    compile_once(__file__, _warm_up)
    return _hybrid_squares(
        *contiguous(np.float64, masked, group_sums), *contiguous(np.int64, position_of, a, b)
    )
