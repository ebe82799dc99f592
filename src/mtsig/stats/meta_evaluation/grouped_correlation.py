"""Correlations of a systems x items score matrix with grouping: WMT's segment-level meta-evaluation.

Since WMT22 the metrics tasks correlate a metric with the human scores (MQM) of every (system, segment) cell, and
a cell the humans did not rate is left out (Freitag et al. 2022, Sec. 5; Freitag et al. 2023, "Results of WMT23
Metrics Shared Task: Metrics Might Be Guilty but References Are Not Innocent", Sec. 5). The matrix is turned into
groups of cells in one of three ways (mt-metrics-eval's ``stats.AverageCorrelation``, ``average_by``):

* ``none``: one group of every cell (system-major order);
* ``item``: one group per item (segment): the systems' scores of that item, "grouped by item";
* ``sys``: one group per system: its scores of every item.

In each group the cells whose human score is missing (NaN) are dropped; a group left with fewer than two cells is
skipped. The statistic of each group is computed, and the result is the mean over the groups where it is defined
(``nan_groups="drop"``) or over every group with an undefined one counted as 0 (``"zero"``,
``replace_nans_with_zeros``); with no group counted the result is 0, as mt-metrics-eval returns. Statistics:
Pearson's r, Spearman's rho (Pearson's r of average ranks), both NaN for a group where either side is constant
(mt-metrics-eval's explicit check, which keeps scipy < 1.4's NaN), and Kendall's tau variants from the pair counts
of Deutsch, Foster & Freitag (2023, "Ties Matter", Sec. 3, Eq. 1-5; mt-metrics-eval's ``KendallVariants``) with
a metric tie threshold epsilon: ``b``, ``c`` (NaN when every pair is tied on one side), ``23`` and ``acc23``; the
WMT20 "Kendall-like" tau (``kendall_like``: only pairs whose human scores differ by at least a threshold count, a
metric tie is discordant; the segment-level daRR statistic of Mathur, Wei, Freitag, Ma & Bojar 2020, "Results of
the WMT20 Metrics Shared Task"; mt-metrics-eval's ``KendallLike``).

Beyond mt-metrics-eval's plain (macro) mean, ``average="micro"`` weights each group by its cells (by its
counted pairs for ``kendall_like``: ``AverageCorrelation(macro=False)``). ``pdp=True`` gives the Pairwise
Difference Pearson of DiIanni & Deutsch (2025, "Don't Sweat the Small Stuff: Segment-Level Meta-Evaluation
Based on Pairwise Difference Correlation", EMNLP 2025; mt-metrics-eval's ``Pearson(..., pdp=True)``): one
Pearson correlation of the human and metric differences of every two cells of the same group, over all groups
at once. :func:`mtsig.stats.meta_evaluation.correlation_pvalues.average_correlation` also returns
mt-metrics-eval's averaged p-value. docs/statistics.md ("The
WMT23/24 metrics-task protocol", "mt-metrics-eval's other statistics") states each one exactly.

Vectorised over metrics: ``metric[..., S, N]`` gives ``[...]``. Library only: arrays in, arrays out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mtsig.errors import InputError
from mtsig.stats.meta_evaluation.system_level import average_ranks

GROUPINGS = ("none", "item", "sys")
KINDS = ("pearson", "spearman", "kendall", "kendall_like")
#: Kendall's tau-b (Kendall 1945), tau-c (Stuart 1953), and Deutsch et al.'s (2023) tau_23 and acc_23.
KENDALL_VARIANTS = ("b", "c", "23", "acc23")
#: What an undefined group (a constant side) contributes to the mean: nothing (``drop``) or 0 (``zero``).
NAN_GROUPS = ("drop", "zero")
#: How the groups' statistics are averaged: plain mean (``macro``), or weighted by cells or counted pairs (``micro``).
AVERAGES = ("macro", "micro")
#: mt-metrics-eval's default threshold of the WMT20 Kendall-like tau (``KendallLike(thresh=25)``: DA points).
KENDALL_LIKE_THRESHOLD = 25.0
#: Pair comparisons held in memory at once by the Kendall counts (a group of every cell has S·N(S·N-1)/2 pairs).
PAIR_CHUNK = 2_000_000


@dataclass(frozen=True)
class CorrelationOptions:
    """How a grouped correlation is computed (module docstring): the statistic ``kind`` (:data:`KINDS`), the
    ``grouping`` (:data:`GROUPINGS`), Kendall's ``kendall_variant`` (:data:`KENDALL_VARIANTS`) with its metric tie
    threshold ``epsilon``, what an undefined group contributes (``nan_groups``, :data:`NAN_GROUPS`), the
    ``average`` over the groups (:data:`AVERAGES`), the human ``threshold`` of the Kendall-like tau, and ``pdp``
    (Pairwise Difference Pearson): the arguments of mt-metrics-eval's ``Correlation`` methods and
    ``AverageCorrelation`` that :func:`grouped_correlation`, :func:`group_statistics` and
    :func:`mtsig.stats.meta_evaluation.correlation_pvalues.average_correlation` take as one object."""

    kind: str = "pearson"
    grouping: str = "none"
    kendall_variant: str = "b"
    epsilon: float = 0.0
    nan_groups: str = "drop"
    average: str = "macro"
    threshold: float = KENDALL_LIKE_THRESHOLD
    pdp: bool = False


#: Pearson's r over every cell, averaged plainly: the default :class:`CorrelationOptions`.
DEFAULT_CORRELATION = CorrelationOptions()


def as_groups(matrix: np.ndarray, grouping: str) -> np.ndarray:
    """``matrix[..., S, N]`` as groups ``[..., G, L]``: ``none`` -> ``[..., 1, S·N]`` (system-major), ``item``
    -> ``[..., N, S]``, ``sys`` -> ``[..., S, N]``."""
    if grouping not in GROUPINGS:
        raise InputError(f"unknown grouping {grouping!r}; known: {', '.join(GROUPINGS)}")
    if grouping == "none":
        return matrix.reshape(*matrix.shape[:-2], 1, -1)
    if grouping == "item":
        return np.swapaxes(matrix, -1, -2)
    return matrix


def packed_matrix(values: Sequence[float | None], n_systems: int) -> np.ndarray:
    """mt-metrics-eval's packed score vector (``Correlation(num_sys, gold_scores, metric_scores)``: system-major, the
    N items of system 0, then those of system 1, ...; ``None`` where the humans gave no score) as the ``[S, N]``
    matrix the functions here take, NaN for ``None``."""
    if n_systems < 1 or len(values) % n_systems:
        raise InputError(f"a packed vector of {len(values)} scores does not split into {n_systems} systems")
    matrix = np.array([np.nan if v is None else v for v in values], dtype=np.float64)
    return matrix.reshape(n_systems, -1)


def checked_scores(human: object, metric: object) -> tuple[np.ndarray, np.ndarray]:
    """``(human[S, N], metric[..., S, N])`` as float arrays; InputError unless the human scores are a matrix (NaN:
    not rated, no infinity) and the metric's scores finite numbers of the same shape."""
    h = np.asarray(human, dtype=np.float64)
    m = np.asarray(metric, dtype=np.float64)
    if h.ndim != 2:
        raise InputError(f"human scores: expected a systems x items matrix, got shape {h.shape}")
    if m.shape[-2:] != h.shape:
        raise InputError(f"metric scores of shape {m.shape} do not end in the human matrix's {h.shape}")
    if np.isinf(h).any():
        raise InputError("human scores: infinite value (a missing score is NaN)")
    if not np.isfinite(m).all():
        raise InputError("metric scores: every score must be a finite number")
    return h, m


@dataclass(frozen=True)
class KendallCounts:
    """Pair counts of each group (Deutsch et al. 2023, Sec. 3): ``concordant``, ``discordant``, tied in the
    metric only (``metric_ties``), in the human scores only (``human_ties``), in both (``both_ties``); the metric
    ties a pair when ``|m_i - m_j| <= epsilon``. Arrays ``int64[..., G]``."""

    concordant: np.ndarray
    discordant: np.ndarray
    metric_ties: np.ndarray
    human_ties: np.ndarray
    both_ties: np.ndarray

    @property
    def pairs(self) -> np.ndarray:
        """Every pair of each group, whatever its outcome: the five counts' sum."""
        return self.concordant + self.discordant + self.metric_ties + self.human_ties + self.both_ties


def kendall_counts(
    human_groups: np.ndarray, metric_groups: np.ndarray, valid: np.ndarray, epsilon: float = 0.0
) -> KendallCounts:
    """:class:`KendallCounts` of every group: ``human_groups[G, L]``, ``metric_groups[..., G, L]``,
    ``valid[G, L]`` (cells kept). Counted over the pairs i < j of each group, in chunks of pairs."""
    lead = metric_groups.shape[:-1]
    totals = [np.zeros(lead, dtype=np.int64) for _ in range(5)]
    for i, j in _pair_chunks(human_groups.shape[-1], lead):
        both = valid[..., i] & valid[..., j]
        dh = human_groups[..., i] - human_groups[..., j]
        dm = metric_groups[..., i] - metric_groups[..., j]
        tie_h = dh == 0
        tie_m = np.abs(dm) <= epsilon
        strict = ~tie_h & ~tie_m
        same = np.sign(dh) == np.sign(dm)
        for total, flags in zip(
            totals,
            (strict & same, strict & ~same, tie_m & ~tie_h, tie_h & ~tie_m, tie_h & tie_m),
            strict=True,
        ):
            total += np.count_nonzero(flags & both, axis=-1)
    return KendallCounts(*totals)


def _distinct_valid(values: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Number of distinct values among the valid cells of each group (last axis)."""
    filled = np.where(valid, values, np.inf)
    ordered = np.sort(filled, axis=-1)
    n = valid.sum(axis=-1)
    with np.errstate(invalid="ignore"):  # inf - inf past the valid cells, masked below
        changes = (np.diff(ordered, axis=-1) != 0) & (np.arange(1, values.shape[-1]) < n[..., None])
    return np.where(n > 0, 1 + changes.sum(axis=-1), 0)


def kendall_from_counts(
    counts: KendallCounts,
    variant: str,
    *,
    n_cells: np.ndarray | None = None,
    min_classes: np.ndarray | None = None,
) -> np.ndarray:
    """Kendall's tau ``variant`` of each group from its :class:`KendallCounts` (mt-metrics-eval's
    ``KendallVariants``): b and c are NaN when every pair is tied in the metric or every pair in the humans."""
    con, dis = counts.concordant, counts.discordant
    tot = counts.pairs
    m_tie = counts.metric_ties + counts.both_ties
    h_tie = counts.human_ties + counts.both_ties
    with np.errstate(invalid="ignore", divide="ignore"):
        if variant == "acc23":
            return (con + counts.both_ties) / tot
        if variant == "23":
            return (con + counts.both_ties - dis - counts.metric_ties - counts.human_ties) / tot
        undefined = (m_tie == tot) | (h_tie == tot)
        if variant == "b":
            value = (con - dis) / np.sqrt((tot - m_tie).astype(np.float64)) / np.sqrt(tot - h_tie)
        elif variant == "c":
            value = 2.0 * (con - dis) / (n_cells.astype(np.float64) ** 2 * (min_classes - 1) / min_classes)
        else:
            raise InputError(f"unknown Kendall variant {variant!r}; known: {', '.join(KENDALL_VARIANTS)}")
        return np.where(undefined, np.nan, value)


def _pearson_masked(x: np.ndarray, y: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Pearson's r over the valid cells of each group (two-pass); NaN where a side is constant there."""
    n = valid.sum(axis=-1)
    safe_n = np.maximum(n, 1)
    x_mean = np.where(valid, x, 0.0).sum(axis=-1) / safe_n
    y_mean = np.where(valid, y, 0.0).sum(axis=-1) / safe_n
    xc = np.where(valid, x - x_mean[..., None], 0.0)
    yc = np.where(valid, y - y_mean[..., None], 0.0)
    sxy = (xc * yc).sum(axis=-1)
    sxx = (xc * xc).sum(axis=-1)
    syy = (yc * yc).sum(axis=-1)
    undefined = _constant(x, valid) | _constant(y, valid)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = sxy / np.sqrt(sxx * syy)
    return np.where(undefined, np.nan, np.clip(r, -1.0, 1.0))


def pairwise_differences(groups: object) -> np.ndarray:
    """``[..., G, L]`` -> ``[..., G, L·L]``: every ordered pair's difference ``x[j] - x[i]`` at position ``i·L + j``
    (the diagonal's zeros included; NaN where a side is NaN), mt-metrics-eval's ``_enumerate_pairwise_diffs``, the
    vectors PDP correlates (:func:`group_statistics` computes PDP from the groups' sums instead)."""
    g = np.asarray(groups, dtype=np.float64)
    if g.shape[-1] < 2:
        raise InputError(f"pairwise differences need groups of at least two cells, got {g.shape[-1]}")
    return (g[..., None, :] - g[..., :, None]).reshape(*g.shape[:-1], -1)


def _pair_chunks(length: int, lead: tuple[int, ...]):
    """The pairs i < j of a group of ``length`` cells, in chunks that keep ``lead x chunk`` comparisons small."""
    i_all, j_all = np.triu_indices(length, k=1)
    chunk = max(1, PAIR_CHUNK // max(1, int(np.prod(lead))))
    for start in range(0, i_all.size, chunk):
        yield i_all[start : start + chunk], j_all[start : start + chunk]


def kendall_like_counts(
    human_groups: np.ndarray, metric_groups: np.ndarray, valid: np.ndarray, threshold: float
) -> tuple[np.ndarray, np.ndarray]:
    """``(concordant, discordant)`` of the WMT20 Kendall-like tau in every group, ``int64[..., G]``: over the pairs
    i < j of valid cells whose human scores differ by at least ``threshold``, concordant when the metric orders them
    as the humans do (strictly), discordant otherwise, a metric tie included (mt-metrics-eval's ``KendallLike``:
    "deliberate inconsistency between diff >= thresh and diff > 0 to emulate WMT behaviour")."""
    lead = metric_groups.shape[:-1]
    concordant = np.zeros(lead, dtype=np.int64)
    counted = np.zeros(human_groups.shape[:-1], dtype=np.int64)
    for i, j in _pair_chunks(human_groups.shape[-1], lead):
        dh = human_groups[..., i] - human_groups[..., j]
        dm = metric_groups[..., i] - metric_groups[..., j]
        kept = valid[..., i] & valid[..., j] & (np.abs(dh) >= threshold)
        counted += np.count_nonzero(kept, axis=-1)
        agree = ((dh > 0) & (dm > 0)) | ((dh < 0) & (dm < 0))
        concordant += np.count_nonzero(agree & kept, axis=-1)
    return concordant, counted - concordant


def _constant(values: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Whether the valid cells of each group (last axis) all hold one value (exactly)."""
    return np.where(valid, values, -np.inf).max(axis=-1) == np.where(valid, values, np.inf).min(axis=-1)


def _centred(values: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Each group's valid cells minus their mean, 0 elsewhere and in constant groups (exact zeros: a constant
    group has no difference at all)."""
    n = np.maximum(valid.sum(axis=-1), 1)
    mean = np.where(valid, values, 0.0).sum(axis=-1) / n
    centred = np.where(valid, values - mean[..., None], 0.0)
    return np.where(_constant(values, valid)[..., None], 0.0, centred)


def pdp_terms(
    human_groups: np.ndarray, metric_groups: np.ndarray, valid: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What the Pairwise Difference Pearson (DiIanni & Deutsch 2025) is computed from: ``(human_centred[G, L],
    metric_centred[..., G, L], sizes[G], undefined[...])``, each group's valid cells minus their mean (0 elsewhere
    and in a constant group), its number of valid cells n_g, and whether PDP is undefined (every human, or every
    metric, difference 0). ``human_groups[G, L]`` (0 where not valid), ``metric_groups[..., G, L]``, ``valid[G, L]``.
    A permutation of a group's valid cells permutes its centred cells and keeps the rest."""
    if human_groups.shape[-1] < 2:
        raise InputError(
            f"PDP needs groups of at least two cells (two systems grouped by item), got {human_groups.shape[-1]}"
        )
    sizes = valid.sum(axis=-1).astype(np.float64)
    undefined = _constant(metric_groups, valid).all(axis=-1) | bool(_constant(human_groups, valid).all())
    return _centred(human_groups, valid), _centred(metric_groups, valid), sizes, undefined


def pdp_from_terms(
    human_centred: np.ndarray, metric_centred: np.ndarray, sizes: np.ndarray, undefined: np.ndarray
) -> np.ndarray:
    """Pairwise Difference Pearson ``[...]`` of :func:`pdp_terms` (DiIanni & Deutsch 2025): Pearson's r of the
    differences of every ordered pair of valid cells of a group, over all groups. Both orders of a pair (and the
    diagonal's zeros) make the differences' mean exactly 0, so r = Σ dh dm / sqrt(Σ dh² Σ dm²) over the pairs
    i < j, and within a group of n cells ``Σ_{i<j} (a_i - a_j)(b_i - b_j) = n Σ_i (a_i - ā)(b_i - b̄)``: each sum
    is the groups' centred cross products weighted by their sizes. NaN where ``undefined``."""
    mc, hc, n = metric_centred, human_centred, sizes
    sxy = ((mc * hc).sum(axis=-1) * n).sum(axis=-1)
    sxx = ((mc * mc).sum(axis=-1) * n).sum(axis=-1)
    syy = float(((hc * hc).sum(axis=-1) * n).sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        r = sxy / np.sqrt(sxx * syy)
    return np.where(undefined, np.nan, np.clip(r, -1.0, 1.0))


def group_statistics(
    human: object, metric: object, options: CorrelationOptions = DEFAULT_CORRELATION
) -> tuple[np.ndarray, np.ndarray]:
    """``(values[..., G], counted[G])``: the statistic of every group (NaN where undefined) and which groups count
    (at least two cells with a human score). ``human[S, N]`` (NaN = not rated), ``metric[..., S, N]``. With
    ``pdp`` (Pearson only) one value over all groups: ``[..., 1]``. ``options``: :class:`CorrelationOptions` (its
    ``nan_groups`` and ``average`` act only in the mean over the groups)."""
    kind, grouping, kendall_variant, epsilon = (
        options.kind,
        options.grouping,
        options.kendall_variant,
        options.epsilon,
    )
    h, m = checked_scores(human, metric)
    hg = as_groups(h, grouping)
    mg = as_groups(m, grouping)
    valid = np.isfinite(hg)
    hg = np.where(valid, hg, 0.0)
    if options.pdp:
        if kind != "pearson":
            raise InputError(f"PDP (pairwise difference Pearson) is a Pearson correlation, not {kind!r}")
        return pdp_from_terms(*pdp_terms(hg, mg, valid))[..., None], np.array([valid.sum() >= 2])
    counted = valid.sum(axis=-1) >= 2
    if kind == "pearson":
        values = _pearson_masked(mg, hg, valid)
    elif kind == "spearman":
        big = np.inf
        values = _pearson_masked(
            average_ranks(np.where(valid, mg, big)), average_ranks(np.where(valid, hg, big)), valid
        )
    elif kind == "kendall":
        if kendall_variant not in KENDALL_VARIANTS:
            raise InputError(
                f"unknown Kendall variant {kendall_variant!r}; known: {', '.join(KENDALL_VARIANTS)}"
            )
        if epsilon < 0:
            raise InputError(f"the tie threshold epsilon must be >= 0, got {epsilon}")
        if epsilon > 0 and kendall_variant == "c":
            raise InputError("tau-c is not defined with a tie threshold epsilon > 0 (as in mt-metrics-eval)")
        counts = kendall_counts(hg, mg, valid, epsilon)
        extra = {}
        if kendall_variant == "c":
            extra = {
                "n_cells": valid.sum(axis=-1),
                "min_classes": np.minimum(_distinct_valid(mg, valid), _distinct_valid(hg, valid)),
            }
        values = kendall_from_counts(counts, kendall_variant, **extra)
    elif kind == "kendall_like":
        concordant, discordant = kendall_like_counts(hg, mg, valid, options.threshold)
        pairs = concordant + discordant
        with np.errstate(invalid="ignore", divide="ignore"):
            values = np.where(pairs > 0, (concordant - discordant) / np.maximum(pairs, 1), 0.0)
    else:
        raise InputError(f"unknown correlation {kind!r}; known: {', '.join(KINDS)}")
    return np.where(counted, values, np.nan), counted


def group_weights(
    human: object, kind: str = "pearson", grouping: str = "none", *, threshold: float = KENDALL_LIKE_THRESHOLD
) -> np.ndarray:
    """Each group's weight in a micro average, ``[G]``: its cells with a human score, or for ``kendall_like`` its
    pairs whose human scores differ by at least ``threshold`` (the third value ``KendallLike`` returns, which
    ``AverageCorrelation(macro=False)`` uses before the cell count)."""
    h = np.asarray(human, dtype=np.float64)
    hg = as_groups(h, grouping)
    valid = np.isfinite(hg)
    if kind != "kendall_like":
        return valid.sum(axis=-1).astype(np.float64)
    concordant, discordant = kendall_like_counts(
        np.where(valid, hg, 0.0), np.zeros_like(hg), valid, threshold
    )
    return (concordant + discordant).astype(np.float64)


def average_weights(human: object, options: CorrelationOptions) -> np.ndarray | None:
    """The groups' weights of ``options.average`` (:data:`AVERAGES`): :func:`group_weights` for ``micro``
    (``AverageCorrelation(macro=False)``), None (each group once) for ``macro`` and for PDP's one value."""
    if options.average == "micro" and not options.pdp:
        return group_weights(human, options.kind, options.grouping, threshold=options.threshold)
    return None


def averaged_weights(
    values: np.ndarray, counted: np.ndarray, nan_groups: str, weights: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(defined, w, n)`` of :func:`average_groups`: the counted groups with a defined value, each group's weight
    (``weights``, or 1 each), and the average's denominator (the weights of the defined groups with ``drop``, of
    every counted group with ``zero``)."""
    defined = np.isfinite(values) & counted
    w = np.ones(counted.shape) if weights is None else np.asarray(weights, dtype=np.float64)
    weight = np.where(defined if nan_groups == "drop" else np.broadcast_to(counted, values.shape), w, 0.0)
    return defined, w, weight.sum(axis=-1)


def average_groups(
    values: np.ndarray, counted: np.ndarray, nan_groups: str = "drop", weights: np.ndarray | None = None
) -> np.ndarray:
    """The mean over the counted groups of ``values[..., G]``: undefined (NaN) groups dropped or taken as 0;
    0 when no group is left (mt-metrics-eval's ``AverageCorrelation``); ``weights[G]`` weight the groups
    (``macro=False``), else each counts once."""
    if nan_groups not in NAN_GROUPS:
        raise InputError(f"unknown NaN-group rule {nan_groups!r}; known: {', '.join(NAN_GROUPS)}")
    return weighted_mean(values, *averaged_weights(values, counted, nan_groups, weights))


def weighted_mean(values: np.ndarray, defined: np.ndarray, w: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``values[..., G]`` summed over the ``defined`` groups with weights ``w`` and divided by ``n``, 0 where ``n``
    is 0: the mean of :func:`average_groups` (its ``(defined, w, n)`` from :func:`averaged_weights`), as
    mt-metrics-eval's ``AverageCorrelation`` averages the values and the p-values alike."""
    total = np.where(defined, values * w, 0.0).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, total / np.where(n > 0, n, 1.0), 0.0)


def check_average(average: str) -> None:
    if average not in AVERAGES:
        raise InputError(f"unknown average {average!r}; known: {', '.join(AVERAGES)}")


def grouped_correlation(
    human: object, metric: object, options: CorrelationOptions = DEFAULT_CORRELATION
) -> np.ndarray:
    """The correlation of ``metric[..., S, N]`` with ``human[S, N]`` (NaN = not rated) as ``options`` say
    (:class:`CorrelationOptions`), averaged over the groups (module docstring; mt-metrics-eval's
    ``Correlation.Pearson`` (with ``pdp``), ``Spearman``, ``Kendall``, ``KendallVariants`` and ``KendallLike``, with
    ``average_by``, ``replace_nans_with_zeros`` and ``macro``). Returns ``[...]``."""
    check_average(options.average)
    values, counted = group_statistics(human, metric, options)
    return average_groups(values, counted, options.nan_groups, average_weights(human, options))
