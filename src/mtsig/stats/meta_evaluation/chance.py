"""Chance levels of the metrics-task statistics: what a metric that knows nothing about the translations scores.

A metric's scores carry no information about the translations' quality when they are assigned to the translations
at random. Its scores permuted within the groups the statistic compares (the cells of an item for an item-grouped
statistic, every cell for an ungrouped one, the systems for a system-level one) keep everything the metric brings of
its own (its scale, its ties, its spread) and lose the association with the humans. The statistic's distribution
over such permutations is its chance level (the permutation test of "no association", Pitman 1937; the ranks of a
random metric, WMT's "Random-sysname" baseline, Freitag et al. 2023, Sec. 4). It is not a constant: a statistic with
tie calibration lets a random metric declare ties wherever that pays (Deutsch, Foster & Freitag 2023, Sec. 5), so
with many tied human scores (MQM's perfect translations) a random metric's acc-t is far above 1/3.

Each function draws ``n_draws`` permutations from ``rng`` and returns the statistic of each, ``[n_draws]``; the
arithmetic of each statistic is its own module's (exact where that is exact): docs/statistics.md ("Chance levels").
A permutation within a group keeps the group's mean, so PDP's centred scores are computed once and permuted.
Permuting a metric's scores within groups and permuting the human scores within the same groups give the same joint
assignments, so the tie-calibrated statistic permutes the human side (the metric's pairs, sorted once, stay fixed).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mtsig.errors import InputError
from mtsig.stats.meta_evaluation.grouped_correlation import (
    KENDALL_LIKE_THRESHOLD,
    as_groups,
    checked_scores,
    grouped_correlation,
    pdp_from_terms,
    pdp_terms,
)
from mtsig.stats.meta_evaluation.pooled_accuracy import pooled_pairwise_accuracy
from mtsig.stats.meta_evaluation.soft_pairwise_accuracy import spa_from_counts
from mtsig.stats.meta_evaluation.tie_calibration import TIE_VARIANTS, group_pairs, pair_differences

#: Draws whose permuted scores are held at once (memory: CHUNK x the task's cells).
CHUNK = 50


def within_group_permutations(rng: np.random.Generator, valid: np.ndarray, n_draws: int) -> np.ndarray:
    """int ``[n_draws, G, L]``: for each draw and group of ``valid[G, L]`` a uniform random permutation of the
    group's valid positions (an invalid position maps to itself); ``values[g, perm[b, g, l]]`` is position l's
    value after draw b."""
    positions = np.argsort(~valid, axis=-1, kind="stable")  # the valid positions first, in increasing order
    if valid.shape[0] == 1:  # one group (every cell): a Fisher-Yates shuffle of its valid positions per draw
        inside = positions[0, : int(valid.sum())]
        perm = np.broadcast_to(np.arange(valid.shape[1]), (n_draws, 1, valid.shape[1])).copy()
        perm[:, 0, inside] = rng.permuted(np.broadcast_to(inside, (n_draws, inside.size)), axis=1)
        return perm
    keys = rng.random((n_draws, *valid.shape))
    keys[:, ~valid] = np.inf  # invalid positions sort last, in their own order
    order = np.argsort(keys, axis=-1, kind="stable")
    perm = np.empty_like(order)
    np.put_along_axis(perm, np.broadcast_to(positions, order.shape), order, axis=-1)
    return perm


def _random_permutations(rng: np.random.Generator, n_draws: int, n: int) -> np.ndarray:
    """int ``[n_draws, n]``: a uniform random permutation of ``0 .. n-1`` per draw (the order of ``n`` uniforms)."""
    return np.argsort(rng.random((n_draws, n)), axis=1)


def from_groups(groups: np.ndarray, shape: tuple[int, int], grouping: str) -> np.ndarray:
    """The inverse of :func:`mtsig.stats.meta_evaluation.grouped_correlation.as_groups`: ``[..., G, L]`` back
    to ``[..., S, N]``."""
    if grouping == "none":
        return groups.reshape(*groups.shape[:-2], *shape)
    if grouping == "item":
        return np.swapaxes(groups, -1, -2)
    return groups


def permuted_within_groups(
    rng: np.random.Generator, metric: np.ndarray, rated: np.ndarray, grouping: str, n_draws: int
) -> np.ndarray:
    """``[n_draws, S, N]``: the metric's scores permuted among the rated cells (``rated[S, N]``) of each group of
    ``grouping`` (``none``: every rated cell; ``item``: an item's; ``sys``: a system's); unrated cells unchanged."""
    groups = as_groups(np.asarray(metric, dtype=np.float64), grouping)
    perm = within_group_permutations(rng, as_groups(rated, grouping), n_draws)
    permuted = np.take_along_axis(np.broadcast_to(groups, perm.shape), perm, axis=-1)
    return from_groups(permuted, metric.shape, grouping)


def chance_grouped_correlation(
    human: np.ndarray,
    metric: np.ndarray,
    statistic: str,
    grouping: str,
    n_draws: int,
    rng: np.random.Generator,
    *,
    kendall_variant: str = "b",
    nan_groups: str = "drop",
    epsilon: float = 0.0,
    average: str = "macro",
    threshold: float = KENDALL_LIKE_THRESHOLD,
) -> np.ndarray:
    """The grouped correlation (:func:`mtsig.stats.meta_evaluation.grouped_correlation.grouped_correlation`, with
    its ``kendall_variant``, ``nan_groups``, ``epsilon``, ``average`` and ``threshold``) of ``metric[S, N]`` against
    ``human[S, N]`` (NaN: not rated) with the metric's scores permuted among the rated cells of each group; at the
    system level (``N = 1``, grouping ``none``) the systems' scores permuted. ``statistic``: Pearson, Spearman,
    Kendall or the WMT20 Kendall-like tau (``kendall_like``, Mathur et al. 2020, "Results of the WMT20 Metrics
    Shared Task": concordant minus discordant over the pairs whose human scores differ by at least ``threshold``,
    over their number; mt-metrics-eval's ``KendallLike``). Each chunk of draws is one call of
    ``grouped_correlation`` on the permuted matrices ``[chunk, S, N]``. A Kendall-like group's counted pairs (its
    weight in a micro average) depend on the human scores alone, so they are the same in every draw."""
    h = np.asarray(human, dtype=np.float64)
    rated = np.isfinite(h)
    if statistic == "pearson" and grouping == "none":  # one group: a micro average is the plain one
        return _pearson_of_shuffles(h[rated], np.asarray(metric, dtype=np.float64)[rated], n_draws, rng)
    out = np.empty(n_draws)
    for start in range(0, n_draws, CHUNK):
        size = min(CHUNK, n_draws - start)
        permuted = permuted_within_groups(rng, np.asarray(metric, dtype=np.float64), rated, grouping, size)
        out[start : start + size] = grouped_correlation(
            h, permuted, statistic, grouping, kendall_variant=kendall_variant, epsilon=epsilon,
            nan_groups=nan_groups, average=average, threshold=threshold,
        )  # fmt: skip
    return out


def chance_pdp(
    human: np.ndarray, metric: np.ndarray, grouping: str, n_draws: int, rng: np.random.Generator
) -> np.ndarray:
    """The Pairwise Difference Pearson of DiIanni & Deutsch (2025, "Don't Sweat the Small Stuff: Segment-Level
    Meta-Evaluation Based on Pairwise Difference Correlation"; mt-metrics-eval's ``Pearson(..., pdp=True)``,
    :func:`mtsig.stats.meta_evaluation.grouped_correlation.grouped_correlation` with ``pdp``) of ``metric[S, N]``
    against ``human[S, N]`` (NaN: not rated) with the metric's scores permuted among the rated cells of each group
    whose pairs PDP takes: grouping ``item``, the systems' cells of an item (the translations of one segment);
    ``sys``, a system's cells; ``none``, every rated cell; at the system level (``N = 1``, grouping ``none``) the
    systems' scores. 0 where PDP is undefined, as ``grouped_correlation`` returns it.

    A permutation of a group's rated cells keeps their mean and the group's size, so the metric's centred scores
    (:func:`~mtsig.stats.meta_evaluation.grouped_correlation.pdp_terms`) are computed once and each draw permutes
    them (:func:`within_group_permutations`) before PDP's sums
    (:func:`~mtsig.stats.meta_evaluation.grouped_correlation.pdp_from_terms`)."""
    h, m = checked_scores(human, metric)
    if m.ndim != 2:
        raise InputError(f"PDP's chance level: one metric's scores [S, N], got shape {m.shape}")
    human_groups = as_groups(h, grouping)
    rated = np.isfinite(human_groups)
    human_centred, metric_centred, sizes, undefined = pdp_terms(
        np.where(rated, human_groups, 0.0), as_groups(m, grouping), rated
    )
    out = np.empty(n_draws)
    for start in range(0, n_draws, CHUNK):
        size = min(CHUNK, n_draws - start)
        perm = within_group_permutations(rng, rated, size)
        permuted = np.take_along_axis(np.broadcast_to(metric_centred, perm.shape), perm, axis=-1)
        out[start : start + size] = pdp_from_terms(human_centred, permuted, sizes, undefined)
    return np.nan_to_num(out, nan=0.0)  # an undefined PDP: grouped_correlation's 0 (no group counted)


def _pearson_of_shuffles(
    human: np.ndarray, metric: np.ndarray, n_draws: int, rng: np.random.Generator
) -> np.ndarray:
    """Pearson's r of ``metric[K]`` shuffled against ``human[K]``, ``n_draws`` times: a shuffle keeps the metric's mean
    and spread, so each draw is one product ``x_π · h`` of the centred values (0 where a side is constant, as the
    statistic averages an undefined group); the same shuffles as :func:`within_group_permutations` with one group."""
    hc = human - human.mean()
    xc = metric - metric.mean()
    scale = np.sqrt((hc @ hc) * (xc @ xc))
    perm = within_group_permutations(rng, np.ones((1, human.size), dtype=bool), n_draws)[:, 0, :]
    if scale == 0:
        return np.zeros(n_draws)
    return (xc[perm] @ hc) / scale


def chance_pooled_accuracy(
    humans: Sequence[np.ndarray], metrics: Sequence[np.ndarray], n_draws: int, rng: np.random.Generator
) -> np.ndarray:
    """Pooled pairwise accuracy (:func:`mtsig.stats.meta_evaluation.pooled_accuracy.pooled_pairwise_accuracy`)
    of a metric's system scores ``metrics[l][S_l]`` permuted among the systems of each language pair l."""
    permuted = []
    for metric in metrics:
        m = np.asarray(metric, dtype=np.float64)
        permuted.append(m[_random_permutations(rng, n_draws, m.size)])
    values, _ = pooled_pairwise_accuracy(list(humans), permuted)
    return np.asarray(values, dtype=np.float64)


def chance_tie_calibrated(
    human: np.ndarray,
    metric: np.ndarray,
    n_draws: int,
    rng: np.random.Generator,
    *,
    variant: str = "acc23",
    grouping: str = "item",
) -> np.ndarray:
    """The tie-calibrated statistic (:func:`mtsig.stats.meta_evaluation.tie_calibration.calibrate_ties`, every
    pair, its own epsilon searched on each draw) of ``metric[S, N]`` with the scores permuted among the rated
    cells of each group.

    Computed with the human scores permuted instead (the same joint assignments): the metric's pairs and their
    ``|dm|`` stay fixed, sorted once, and each draw's statistic at every candidate epsilon is the same integer
    cumulative sum per group size as :func:`calibrate_ties` makes, divided the same way; the value is the first
    maximum."""
    if variant not in TIE_VARIANTS:
        raise InputError(f"tie calibration optimises {' or '.join(TIE_VARIANTS)}, not {variant!r}")
    h = np.asarray(human, dtype=np.float64)
    m = np.asarray(metric, dtype=np.float64)
    pairs = group_pairs(h, grouping)
    if pairs.group.size == 0:
        raise InputError("tie calibration: no group has two cells with a human score")
    dm = pair_differences(m, pairs, grouping)
    _, inverse, sizes = np.unique(pairs.group, return_inverse=True, return_counts=True)
    n_rows = sizes.size
    pair_size = sizes[inverse]
    order = np.argsort(np.abs(dm), kind="stable")  # the pairs in increasing |dm|, once for every draw
    distance = np.abs(dm)[order]
    size_classes, size_class = np.unique(pair_size[order], return_inverse=True)
    groups = as_groups(h, grouping)
    width = groups.shape[-1]
    flat = groups.reshape(-1)
    group_start = np.repeat(np.arange(groups.shape[0]) * width, width)  # each flattened cell's group offset
    first = (pairs.group * width + pairs.first)[order]  # the pairs' cells in the flattened groups
    second = (pairs.group * width + pairs.second)[order]
    run_end = np.ones(distance.size, dtype=bool)  # a candidate epsilon: the last pair of a run of equal |dm|
    run_end[:-1] = distance[1:] != distance[:-1]
    weights = size_classes.astype(np.float64) * n_rows
    from mtsig.stats.meta_evaluation.chance_compiled import calibrated_draws

    out = np.empty(n_draws)
    for start in range(0, n_draws, CHUNK):
        size = min(CHUNK, n_draws - start)
        perm = within_group_permutations(rng, np.isfinite(groups), size).reshape(size, -1)
        shuffled = flat[perm + group_start]  # [B, G·L]: the human scores permuted within each group
        out[start : start + size] = calibrated_draws(
            shuffled, first, second, dm[order] == 0, np.sign(dm[order]).astype(np.int64), size_class, weights,
            run_end, bool(distance[0] > 0),
        )  # fmt: skip
    return out if variant == "acc23" else 2.0 * out - 1.0


def full_counts(upper: np.ndarray, lower: np.ndarray, n_systems: int) -> np.ndarray:
    """``int64[S, S]``: ``C[u, v]`` the permutation count of "u better than v" for every ordered pair, from the counts
    of the pairs ``u < v`` (``upper``, ``np.triu_indices`` order) and of the same pairs reversed (``lower``: the
    counts of ``-scores``, :func:`mtsig.stats.meta_evaluation.soft_pairwise_accuracy.permutation_counts`)."""
    i, j = np.triu_indices(n_systems, k=1)
    counts = np.zeros((n_systems, n_systems), dtype=np.int64)
    counts[i, j] = upper
    counts[j, i] = lower
    return counts


def chance_spa(
    human_counts: np.ndarray,
    metric_counts: np.ndarray,
    n_permutations: int,
    n_draws: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """Soft pairwise accuracy (:func:`mtsig.stats.meta_evaluation.soft_pairwise_accuracy.spa_from_counts`) of
    a metric whose systems' scores are permuted among the systems (system i given system π(i)'s segment
    scores): the pair (i, j)'s count is the metric's ``metric_counts[π(i), π(j)]`` (:func:`full_counts`)."""
    n_systems = metric_counts.shape[0]
    i, j = np.triu_indices(n_systems, k=1)
    perm = _random_permutations(rng, n_draws, n_systems)
    permuted = metric_counts[perm[:, i], perm[:, j]]  # [B, P]
    return spa_from_counts(np.asarray(human_counts, dtype=np.int64), permuted, n_permutations)


def chance_summary(draws: np.ndarray, quantile: float = 0.95) -> tuple[float, float]:
    """``(mean, q)``: the chance distribution's mean and ``quantile`` (numpy's linear interpolation)."""
    d = np.asarray(draws, dtype=np.float64)
    return float(d.mean()), float(np.quantile(d, quantile))


def chance_pvalues(values: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """``(1 + #{draws >= v}) / (1 + B)`` for each value: the p-value of "above chance" (Phipson & Smyth 2010, a
    permutation p-value that is never 0)."""
    d = np.sort(np.asarray(draws, dtype=np.float64))
    at_least = d.size - np.searchsorted(d, np.asarray(values, dtype=np.float64), side="left")
    return (1.0 + at_least) / (1.0 + d.size)
