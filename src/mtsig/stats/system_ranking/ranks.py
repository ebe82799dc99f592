"""Rank ranges and clusters from pairwise decisions, each procedure's rule, vectorised over replicates.

Arrays have a leading replicate axis R. ``order[R, S]``: system indices best first (the procedure's score, a stable
sort: equal scores keep the systems' order). ``beats[R, S, S]``: the procedure declares system i better than j.
Returned ranks and clusters are indexed by system (not by position): ``top_rank``, ``worst_rank`` (1 = best) and
``cluster`` (1 = best cluster), each ``[R, S]``.
"""

from __future__ import annotations

import numpy as np


def descending_order(scores: np.ndarray) -> np.ndarray:
    """``order[R, S]``: systems by score, best first; equal scores keep the systems' order (stable)."""
    return np.argsort(-scores, axis=-1, kind="stable")


def _by_position(matrix: np.ndarray, order: np.ndarray) -> np.ndarray:
    """``matrix[R, S, S]`` re-indexed so that rows and columns are positions in ``order``."""
    rows = np.take_along_axis(matrix, order[:, :, None], axis=1)
    return np.take_along_axis(rows, order[:, None, :], axis=2)


def _to_systems(values: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Values per position -> per system."""
    out = np.empty_like(values)
    np.put_along_axis(out, order, values, axis=1)
    return out


def clusters_from_boundaries(boundary: np.ndarray, order: np.ndarray) -> np.ndarray:
    """``boundary[R, S-1]`` (a line after position k) -> cluster number of each system (1 = best)."""
    by_position = 1 + np.concatenate(
        [np.zeros((boundary.shape[0], 1), dtype=np.int64), np.cumsum(boundary, axis=1)], axis=1
    )
    return _to_systems(by_position.astype(np.int64), order)


def win_loss_ranks(beats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The WMT rank range (``make_rankings.py``; WMT24 ``get_ranks``): best ``1 + losses``, worst ``S - wins``."""
    n = beats.shape[-1]
    return 1 + beats.sum(axis=1), n - beats.sum(axis=2)


def all_pairs_clusters(beats: np.ndarray, order: np.ndarray) -> np.ndarray:
    """mtsig's rule (:mod:`mtsig.stats.clusters`, ``all_pairs``): a line after position k iff every system above
    beats every system below."""
    ranked = _by_position(beats, order)
    n = ranked.shape[-1]
    boundary = np.stack([ranked[:, : k + 1, k + 1 :].all(axis=(1, 2)) for k in range(n - 1)], axis=1)
    return clusters_from_boundaries(boundary.reshape(len(order), n - 1), order)


def wmt24_clusters(pvalues: np.ndarray, order: np.ndarray, alpha: float) -> np.ndarray:
    """The WMT24 organisers' ``get_clusters`` (``humeval/tools.py`` @bfa937e), step by step over positions.

    Walking down the score order, a system stays in the current cluster while some system at or above it reaches
    below it: ``reach`` is the furthest later position whose p-value with the current system is ``> alpha`` (not
    significant). A new cluster starts after position k when no reach extends past k. A NaN p-value is not
    ``> alpha``, so it separates systems (while ``get_ranks`` counts it as not significant).
    """
    ranked = _by_position(pvalues, order)
    replicates, n = order.shape
    until = np.full(replicates, -1)
    last = np.ones(replicates, dtype=np.int64)
    by_position = np.zeros((replicates, n), dtype=np.int64)
    positions = np.arange(n)
    for k in range(n):
        until = np.where(until <= k, -1, until)
        joined = (ranked[:, k, :] > alpha) & (positions > k)
        reach = np.where(joined.any(axis=1), n - 1 - np.argmax(joined[:, ::-1], axis=1), -1)
        until = np.maximum(until, reach)
        by_position[:, k] = last
        last = last + (until == -1)
    return _to_systems(by_position, order)


def wmt24_ranks(pvalues: np.ndarray, scores: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """The WMT24 organisers' ``get_ranks``: a pair with p < alpha is a win for the system with the strictly higher
    score and a loss for the other (equal scores: a loss for both); ranks ``1 + losses`` to ``S - wins``."""
    significant = pvalues < alpha
    higher = scores[:, :, None] > scores[:, None, :]
    wins = (significant & higher).sum(axis=2)
    losses = (significant & ~higher).sum(axis=2)
    return 1 + losses, scores.shape[-1] - wins


def walk_ranks(beats: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rank ranges by walking the score order (WMT25 ``08-compute_clusters.py``; WMT26 ``02b-analyze_results.py``):
    up from a system until the first system above that beats it, down until the first below that it beats.

    Returns (top[R, S], worst[R, S]) by position, positions 0-based: a system at position k ranks from ``m + 2``
    (m the nearest position above whose system beats it; 1 if none) to ``m'`` (1-based: m' the nearest position
    below whose system it beats; S if none, so ``worst == S`` exactly where no system below is beaten).
    """
    ranked = _by_position(beats, order)
    replicates, n = order.shape
    positions = np.arange(n)
    above = ranked.transpose(0, 2, 1) & (
        positions[None, None, :] < positions[None, :, None]
    )  # [R, k, m]: m beats k
    below = ranked & (positions[None, None, :] > positions[None, :, None])  # [R, k, m]: k beats m
    nearest_above = np.where(above.any(axis=2), n - 1 - np.argmax(above[:, :, ::-1], axis=2), -1)
    nearest_below = np.where(below.any(axis=2), np.argmax(below, axis=2), n)
    top = np.where(nearest_above >= 0, nearest_above + 2, 1)
    # The nearest beaten position m' (0-based) is the worst rank m' (1-based) of the system just above it.
    return top, nearest_below


def wmt25_clusters(top: np.ndarray, worst: np.ndarray, order: np.ndarray) -> np.ndarray:
    """WMT25's ``does_cluster_end_here(i, ranks)``: a line after the first i systems (i = 1 .. S-1) iff every
    system above ranks at worst i and every system below at best below i (``top > i``). ``top``/``worst`` by
    position."""
    n = top.shape[1]
    boundary = np.stack(
        [(worst[:, :i] <= i).all(axis=1) & (top[:, i:] > i).all(axis=1) for i in range(1, n)], axis=1
    )
    return clusters_from_boundaries(boundary.reshape(len(order), n - 1), order)


def wmt26_ranks_and_clusters(
    beats: np.ndarray, order: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """WMT26 ``02b-analyze_results.py``: ranks by :func:`walk_ranks` with its loop's last value when no system below
    is beaten (``for rank_bottom in range(model_i, n - 1)`` ends at ``n - 2``: worst rank S - 1, except for the last
    system, S), and "global" clusters: a line after position k iff every system at or above k beats every system
    below (``significant_globally``; the last system's line is never drawn). Returns (top, worst, cluster) by
    system."""
    top, worst = walk_ranks(beats, order)
    n = order.shape[1]
    positions = np.arange(n)[None, :]
    # walk_ranks' worst is S exactly where no system below is beaten: there WMT26's loop stops at S - 1.
    worst = np.where((worst == n) & (positions < n - 1), n - 1, worst)
    # "significant_globally" is mtsig's all_pairs rule: every system at or above k beats every one below.
    cluster = all_pairs_clusters(beats, order)
    return _to_systems(top, order), _to_systems(worst, order), cluster
