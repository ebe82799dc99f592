"""Tie calibration: the metric tie threshold epsilon that maximises acc_23 or tau_23 (Deutsch, Foster & Freitag 2023).

"Ties Matter: Meta-Evaluating Modern Metrics with Pairwise Accuracy and Tie Calibration" (EMNLP 2023), Sec. 4-5:
humans often give two translations the same score (MQM 0 for both), but a metric's real-valued scores almost never
tie, so a Kendall-like statistic that rewards predicting a tie would be unfair to the metric. They let the metric
declare a tie when its two scores differ by at most epsilon, and choose epsilon to maximise the statistic on the
data (Sec. 5, "tie calibration"); the WMT23 and WMT24 metrics tasks rank metrics by this statistic, acc_23 grouped
by item ("acc-t"; Freitag et al. 2023, Sec. 5.2; mt-metrics-eval's ``KendallWithTiesOpt`` with
``tau_optimization.tau_optimization``).

For each group (an item: the systems' scores of one segment) every pair of cells with a human score counts: with
``dh`` the human difference and ``dm`` the metric difference, the pair is *good* at threshold epsilon when both tie
(``dh = 0`` and ``|dm| <= epsilon``) or neither ties and the signs agree. ``acc_23(eps) = (1/R) Σ_r good_r / P_r``
over the R groups with at least one pair (``P_r`` pairs each); ``tau_23 = (1/R) Σ_r (good_r - bad_r) / P_r``. As
epsilon grows past a pair's ``|dm|``, that pair becomes a metric tie: good iff ``dh = 0``. The candidates are 0 and
every pair's ``|dm|`` (no other value changes a pair), and the best is the first maximum in increasing order.

Exact and vectorised (:func:`calibrate_ties`): the pairs are sorted by ``|dm|`` once; each pair's change of
``good`` when it becomes a tie (-1, 0, +1) is accumulated with integer cumulative sums per group size ``P``, so
``acc_23`` at every candidate is ``Σ_P count_P / (P R)`` from exact integers (mt-metrics-eval updates a float sum
pair by pair, which drifts by about 1e-13). ``sample_rate < 1`` keeps each pair with that probability (one uniform
draw per pair in group order, pair ``(i, j)``, ``i < j``, as ``tau_optimization``'s ``sample_rate`` does with
numpy's global generator; here with the generator passed in): the search and the statistic are then over the kept
pairs only.

:func:`calibrate_ties_many` searches every metric (or every hybrid of a permutation test, which mt-metrics-eval
re-calibrates on each resample with ``perm_test='scores'``) at once, with the same arithmetic as
:func:`calibrate_ties`: the pairs sorted along the last axis, the candidates the last pair of every run of equal
``|dm|``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mtsig.errors import InputError
from mtsig.stats.meta_evaluation.grouped_correlation import as_groups

#: The statistics tie calibration maximises (mt-metrics-eval's variant names).
TIE_VARIANTS = ("acc23", "23")


@dataclass(frozen=True)
class GroupPairs:
    """Every pair of cells with a human score within each group: ``group[P]`` (index among all groups),
    ``first[P]``, ``second[P]`` (positions within the group, ``first < second``), in group order and then
    ``np.triu_indices`` order (the enumeration order of mt-metrics-eval's ``tau_optimization``)."""

    group: np.ndarray
    first: np.ndarray
    second: np.ndarray
    n_groups: int


def group_pairs(human: np.ndarray, grouping: str = "item") -> GroupPairs:
    """The :class:`GroupPairs` of ``human[S, N]`` (NaN = not rated) under ``grouping``."""
    groups = as_groups(np.asarray(human, dtype=np.float64), grouping)
    valid = np.isfinite(groups)
    i, j = np.triu_indices(groups.shape[-1], k=1)
    both = valid[:, i] & valid[:, j]
    g, p = np.nonzero(both)
    return GroupPairs(g, i[p], j[p], groups.shape[0])


def pair_differences(values: np.ndarray, pairs: GroupPairs, grouping: str = "item") -> np.ndarray:
    """``x_first - x_second`` of every pair, for ``values[..., S, N]`` -> ``[..., P]``."""
    groups = as_groups(np.asarray(values, dtype=np.float64), grouping)
    return groups[..., pairs.group, pairs.first] - groups[..., pairs.group, pairs.second]


def good_pairs(human_diff: np.ndarray, metric_diff: np.ndarray, epsilon: object) -> np.ndarray:
    """bool ``[..., P]``: the pair is concordant or tied on both sides, the metric tying at ``|dm| <= epsilon``
    (``epsilon`` broadcast against the leading axes)."""
    eps = np.asarray(epsilon, dtype=np.float64)[..., None]
    human_tie = human_diff == 0
    metric_tie = np.abs(metric_diff) <= eps
    agree = np.sign(human_diff) == np.sign(metric_diff)
    return (human_tie & metric_tie) | (~human_tie & ~metric_tie & agree)


@dataclass(frozen=True)
class TieCalibration:
    """The result of the epsilon search: ``value`` at the best ``epsilon``; ``thresholds`` (0, then every
    distinct ``|dm|`` in increasing order) with the statistic at each (``values``)."""

    value: float
    epsilon: float
    thresholds: np.ndarray
    values: np.ndarray


def calibrate_ties(
    human: object,
    metric: object,
    *,
    variant: str = "acc23",
    grouping: str = "item",
    sample_rate: float = 1.0,
    rng: np.random.Generator | None = None,
) -> TieCalibration:
    """The tie-calibrated statistic of ``metric[S, N]`` against ``human[S, N]`` (NaN = not rated): the epsilon
    among 0 and every pair's metric difference that maximises ``variant`` (``acc23`` or ``23``), averaged over the
    groups of ``grouping`` (module docstring).

    Raises:
        InputError: an unknown variant, a sample rate outside (0, 1], no pair of cells with a human score.
    """
    if variant not in TIE_VARIANTS:
        raise InputError(f"tie calibration optimises {' or '.join(TIE_VARIANTS)}, not {variant!r}")
    if not 0 < sample_rate <= 1:
        raise InputError(f"the sample rate of tie calibration must lie in (0, 1], got {sample_rate}")
    h = np.asarray(human, dtype=np.float64)
    m = np.asarray(metric, dtype=np.float64)
    if m.shape != h.shape or h.ndim != 2:
        raise InputError(
            f"expected one metric's systems x items matrix like the human {h.shape}, got {m.shape}"
        )
    if not np.isfinite(m).all():
        raise InputError("metric scores: every score must be a finite number")
    pairs = group_pairs(h, grouping)
    dh = pair_differences(h, pairs, grouping)
    dm = pair_differences(m, pairs, grouping)
    group = pairs.group
    if sample_rate < 1:
        if rng is None:
            raise InputError("tie calibration with a sample rate below 1 needs a random generator")
        keep = rng.random(group.size) <= sample_rate
        dh, dm, group = dh[keep], dm[keep], group[keep]
    if group.size == 0:
        raise InputError("tie calibration: no group has two cells with a human score")
    # each group's pair count P and the number R of groups with a pair
    groups, inverse, sizes = np.unique(group, return_inverse=True, return_counts=True)
    n_rows = groups.size
    pair_size = sizes[inverse]
    base = good_pairs(dh, dm, 0.0)  # at epsilon 0 only equal metric scores tie
    change = (dh == 0).astype(np.int64) - base  # good as a metric tie, minus good now
    distance = np.abs(dm)
    order = np.argsort(distance, kind="stable")
    distance = distance[order]
    thresholds = np.unique(np.concatenate([[0.0], distance]))
    ends = np.searchsorted(distance, thresholds, side="right")  # pairs that are ties at each threshold
    good_at = np.zeros(thresholds.size)
    for size in np.unique(pair_size):
        in_size = pair_size[order] == size
        cumulative = np.concatenate([[0], np.cumsum(np.where(in_size, change[order], 0))])
        total = int(base[pair_size == size].sum()) + cumulative[ends]
        # exact integers, one division per group size
        good_at = good_at + total / (float(size) * n_rows)
    values = good_at if variant == "acc23" else 2.0 * good_at - 1.0
    best = int(np.argmax(values))
    return TieCalibration(float(values[best]), float(thresholds[best]), thresholds, values)


@dataclass(frozen=True)
class TieCalibrations:
    """:func:`calibrate_ties_many`'s result: each metric's tie-calibrated ``values[...]`` at its ``epsilons[...]``,
    and the same values as exact integers ``numerators[...]`` over one ``denominator`` (``L·R``, L the least common
    multiple of the groups' pair counts, R the groups with a pair), which compare exactly."""

    values: np.ndarray
    epsilons: np.ndarray
    numerators: np.ndarray
    denominator: int


def calibrate_ties_many(
    human: object, metrics: object, *, variant: str = "acc23", grouping: str = "item"
) -> TieCalibrations:
    """:func:`calibrate_ties` of every ``metrics[..., S, N]`` against ``human[S, N]`` at once (every pair, no
    sample): the same candidates, the same sums in the same order, so the same values and thresholds bit for bit.

    Raises:
        InputError: an unknown variant, shapes that differ, a score that is not finite, no pair.
    """
    if variant not in TIE_VARIANTS:
        raise InputError(f"tie calibration optimises {' or '.join(TIE_VARIANTS)}, not {variant!r}")
    h = np.asarray(human, dtype=np.float64)
    m = np.asarray(metrics, dtype=np.float64)
    if h.ndim != 2 or m.shape[-2:] != h.shape:
        raise InputError(f"expected metrics [..., S, N] ending in the human {h.shape}, got {m.shape}")
    if not np.isfinite(m).all():
        raise InputError("metric scores: every score must be a finite number")
    pairs = group_pairs(h, grouping)
    if pairs.group.size == 0:
        raise InputError("tie calibration: no group has two cells with a human score")
    lead = m.shape[:-2]
    dh = pair_differences(h, pairs, grouping)
    dm = pair_differences(m, pairs, grouping).reshape(-1, pairs.group.size)  # [R, P]
    _, inverse, sizes = np.unique(pairs.group, return_inverse=True, return_counts=True)
    n_rows = sizes.size
    pair_size = sizes[inverse]
    base = good_pairs(dh, dm, 0.0)
    change = (dh == 0).astype(np.int64) - base
    distance = np.abs(dm)
    # the order within a run of equal distances changes no candidate (the sums at its end): any sort will do
    order = np.argsort(distance, axis=-1)
    rows, n_pairs = dm.shape
    flat = (order + (np.arange(rows) * n_pairs)[:, None]).reshape(-1)
    distance = distance.reshape(-1)[flat].reshape(rows, n_pairs)
    change = change.reshape(-1)[flat].reshape(rows, n_pairs)
    size_sorted = pair_size[order]
    # candidates: e pairs flipped, e = the zero-distance pairs (epsilon 0) or the end of a run of equal distances
    at_zero = np.count_nonzero(distance == 0, axis=-1)
    run_end = np.ones((rows, n_pairs), dtype=bool)
    run_end[:, :-1] = distance[:, 1:] != distance[:, :-1]
    flipped = np.arange(n_pairs + 1)
    candidate = flipped[None, :] == at_zero[:, None]
    candidate[:, 1:] |= run_end & (distance > 0)
    good_at = np.zeros((rows, n_pairs + 1))
    common = int(np.lcm.reduce(np.unique(pair_size).astype(np.int64)))
    if common * n_rows * n_pairs >= 2**53:  # pragma: no cover - thousands of distinct group sizes
        raise InputError("tie calibration: group sizes too varied for exact numerators")
    numerator = np.zeros((rows, n_pairs + 1), dtype=np.int64)
    for size in np.unique(pair_size):
        cumulative = np.zeros((rows, n_pairs + 1), dtype=np.int64)
        np.cumsum(np.where(size_sorted == size, change, 0), axis=-1, out=cumulative[:, 1:])
        total = base[:, pair_size == size].sum(axis=-1, dtype=np.int64)[:, None] + cumulative
        good_at = good_at + total / (float(size) * n_rows)
        numerator += total * (common // int(size))
    values = good_at if variant == "acc23" else 2.0 * good_at - 1.0
    best = np.argmax(np.where(candidate, values, -np.inf), axis=-1)
    epsilon = np.where(best == at_zero, 0.0, distance[np.arange(rows), np.maximum(best - 1, 0)])
    chosen = numerator[np.arange(rows), best]
    if variant == "23":
        chosen = 2 * chosen - common * n_rows
    return TieCalibrations(
        values[np.arange(rows), best].reshape(lead),
        epsilon.reshape(lead).astype(np.float64),
        chosen.reshape(lead).astype(np.float64),
        common * n_rows,
    )


@dataclass(frozen=True)
class PairOutcomes:
    """Every metric's outcome on every pair at its own epsilon, for the paired permutation test of tie-calibrated
    statistics (mt-metrics-eval's ``PairwisePermutationSigDiff``): ``good[M, P]``; ``pair_size[P]``: the number of
    pairs in the pair's group; ``n_groups``: groups with at least one pair. A metric's statistic is
    ``(1/n_groups) Σ_p good[m, p] / pair_size[p]`` (acc_23)."""

    good: np.ndarray
    pair_size: np.ndarray
    n_groups: int


def pair_outcomes(
    human: object, metrics: object, epsilons: object, *, grouping: str = "item"
) -> PairOutcomes:
    """:class:`PairOutcomes` of ``metrics[M, S, N]`` with their ``epsilons[M]`` against ``human[S, N]``, over
    every pair of cells with a human score (not a sample)."""
    h = np.asarray(human, dtype=np.float64)
    pairs = group_pairs(h, grouping)
    dh = pair_differences(h, pairs, grouping)
    dm = pair_differences(metrics, pairs, grouping)
    good = good_pairs(dh, dm, epsilons)
    _, inverse, sizes = np.unique(pairs.group, return_inverse=True, return_counts=True)
    return PairOutcomes(good, sizes[inverse], int(sizes.size))


def outcome_statistic(outcomes: PairOutcomes, variant: str = "acc23") -> np.ndarray:
    """Each metric's acc_23 (or tau_23 = 2 acc_23 - 1) from its pair outcomes, ``[M]``."""
    acc = np.zeros(outcomes.good.shape[0])
    for size in np.unique(outcomes.pair_size):
        acc = acc + outcomes.good[:, outcomes.pair_size == size].sum(axis=1) / (
            float(size) * outcomes.n_groups
        )
    return acc if variant == "acc23" else 2.0 * acc - 1.0
