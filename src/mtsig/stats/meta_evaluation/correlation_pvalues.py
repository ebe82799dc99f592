"""Two-sided p-values of each group's correlation, as ``scipy.stats`` computes them, for mt-metrics-eval's averaged
p-value (``AverageCorrelation`` returns the mean of its groups' p-values beside the mean correlation:
:func:`average_correlation`, the grouped correlation of :mod:`~mtsig.stats.meta_evaluation.grouped_correlation` with
it).

* Pearson's r over n cells (``scipy.stats.pearsonr``): r is distributed under independence as ``2B - 1``,
  ``B ~ Beta(n/2 - 1, n/2 - 1)``, so ``p = 2 P(B > (1 + |r|)/2) = 2 I_{(1 - |r|)/2}(n/2 - 1, n/2 - 1)`` (the
  regularised incomplete beta function); 1 for n = 2. Spearman's rho (``spearmanr``): Student's t ``rho
  sqrt((n - 2)/((1 + rho)(1 - rho)))`` with n - 2 degrees of freedom (NaN for n = 2). PDP's p is pearsonr's on
  mt-metrics-eval's vectors of every ordered pair's differences (n = Σ_g n_g², the diagonal included).
* Kendall's tau-b and tau-c (``kendalltau``, whose p depends on the counts only, not on the variant): with
  ``s = C - D`` over the P = n(n-1)/2 pairs, the exact null distribution of the concordant count (the number of
  inversions of a random permutation, Kendall 1970, "Rank Correlation Methods", Ch. 4) when neither side has a tie
  and n <= 33 or ``min(D, P - D) <= 1``: ``p = min(1, 2 P(X <= min(C, P - C)))``; otherwise the normal
  approximation with the tie-corrected variance ``(n(n-1)(2n+5) - Σ_x t(t-1)(2t+5) - Σ_h u(u-1)(2u+5))/18 +
  2 T_x T_h/(n(n-1)) + Σ_x t(t-1)(t-2) Σ_h u(u-1)(u-2)/(9 n(n-1)(n-2))`` (t, u the sizes of the tied runs, T_x, T_h
  the tied pairs).
* tau_23, acc_23, the WMT20 Kendall-like tau, and tau-b with a metric tie threshold epsilon > 0 have no p-value: 0,
  mt-metrics-eval's placeholder (its ``Correlation.Kendall`` is scipy's ``kendalltau``, without epsilon; a tie
  threshold takes ``KendallVariants``, which returns ``(tau, 0)`` for every variant).

Vectorised over groups and metrics, except the exact Kendall distribution, computed once per distinct n.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np
from scipy import special

from mtsig.stats.meta_evaluation.grouped_correlation import (
    DEFAULT_CORRELATION,
    CorrelationOptions,
    as_groups,
    average_groups,
    average_weights,
    averaged_weights,
    check_average,
    group_statistics,
    kendall_counts,
    weighted_mean,
)

#: scipy's limit of the exact Kendall p-value (``kendalltau(method="auto")``).
KENDALL_EXACT_MAX_N = 33


def pearson_pvalue(r: object, n: object) -> np.ndarray:
    """Two-sided p of Pearson's r over n cells, broadcast (``pearsonr``: ``2 (1 - I_{(1 + |r|)/2}(a, a))``,
    a = n/2 - 1, with scipy's ``betaincc``); 1 for n = 2; NaN where r is."""
    r = np.asarray(r, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    a = np.maximum(n / 2.0 - 1.0, 1e-300)
    with np.errstate(invalid="ignore"):
        p = 2.0 * special.betaincc(a, a, np.clip((np.abs(r) + 1.0) / 2.0, 0.0, 1.0))
    p = np.where(n <= 2, 1.0, p)
    return np.where(np.isnan(r), np.nan, p)


def spearman_pvalue(rho: object, n: object) -> np.ndarray:
    """Two-sided p of Spearman's rho over n cells (``spearmanr``: Student's t ``rho sqrt((n - 2)/((1 + rho)(1 -
    rho)))`` with n - 2 degrees of freedom); NaN for n = 2 or where rho is."""
    rho = np.asarray(rho, dtype=np.float64)
    dof = np.asarray(n, dtype=np.float64) - 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        t = rho * np.sqrt(np.clip(dof / ((rho + 1.0) * (1.0 - rho)), 0.0, None))
        p = 2.0 * special.stdtr(dof, -np.abs(t))
    return np.where(np.isnan(rho) | (dof <= 0), np.nan, p)


@cache
def _inversions_cdf(n: int) -> np.ndarray:
    """``P(X <= c)`` for c = 0 .. n(n-1)/2, X the number of inversions of a uniform random permutation of n."""
    probabilities = np.array([1.0])
    for j in range(2, n + 1):
        padded = np.concatenate([probabilities, np.zeros(j - 1)])
        cumulative = np.cumsum(padded)
        shifted = np.concatenate([np.zeros(j), cumulative[:-j]])
        probabilities = (cumulative - shifted) / j
    return np.cumsum(probabilities)


def _kendall_exact(n: int, concordant: int) -> float:
    """The exact two-sided p of Kendall's tau without ties (``_kendall_p_exact``'s definition)."""
    total = n * (n - 1) // 2
    if 4 * concordant == n * (n - 1) or n <= 2:
        return 1.0
    c = min(concordant, total - concordant)
    if c == 0:
        return min(1.0, math.exp(math.log(2.0) - math.lgamma(n + 1)))
    if c == 1:
        return min(1.0, math.exp(math.log(2.0) - math.lgamma(n)))
    return min(1.0, 2.0 * float(_inversions_cdf(n)[c]))


def _tie_sums(groups: np.ndarray, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per group, over the runs of t equal valid values: ``Σ t(t-1)/2``, ``Σ t(t-1)(t-2)``, ``Σ t(t-1)(2t+5)``."""
    ordered = np.sort(np.where(valid, groups, np.inf), axis=-1)
    n = valid.sum(axis=-1)
    length = groups.shape[-1]
    position = np.arange(length)
    inside = position < n[..., None]
    starts = inside & np.concatenate(
        [np.ones(ordered.shape[:-1] + (1,), dtype=bool), ordered[..., 1:] != ordered[..., :-1]], axis=-1
    )
    run = np.cumsum(starts, axis=-1)  # run number of each cell (from 1; 0 past the valid cells)
    rows = int(np.prod(ordered.shape[:-1]))
    ids = (np.arange(rows)[:, None] * (length + 1) + np.where(inside, run, 0).reshape(rows, length))[
        inside.reshape(rows, length)
    ]
    t = np.bincount(ids, minlength=rows * (length + 1)).reshape(*ordered.shape[:-1], length + 1).astype(float)
    sums = [(t * (t - 1) / 2).sum(axis=-1), (t * (t - 1) * (t - 2)).sum(axis=-1)]
    sums.append((t * (t - 1) * (2 * t + 5)).sum(axis=-1))
    return sums[0], sums[1], sums[2]


def kendall_pvalue(human_groups: np.ndarray, metric_groups: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Two-sided p of Kendall's tau (b or c) in every group, ``[..., G]`` (module docstring); NaN where every pair
    is tied on one side."""
    counts = kendall_counts(human_groups, metric_groups, valid, 0.0)
    n = valid.sum(axis=-1).astype(np.float64) + np.zeros(counts.concordant.shape)
    total = n * (n - 1) / 2
    x_tie, x0, x1 = _tie_sums(metric_groups, np.broadcast_to(valid, metric_groups.shape))
    h_tie, h0, h1 = _tie_sums(human_groups, valid)
    s = (counts.concordant - counts.discordant).astype(np.float64)
    m = n * (n - 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        variance = (m * (2 * n + 5) - x1 - h1) / 18 + 2 * x_tie * h_tie / m + x0 * h0 / (9 * m * (n - 2))
        p = 2.0 * special.ndtr(-np.abs(s / np.sqrt(variance)))
    no_ties = (x_tie == 0) & (h_tie == 0)
    discordant = counts.discordant
    exact = no_ties & ((n <= KENDALL_EXACT_MAX_N) | (np.minimum(discordant, total - discordant) <= 1))
    for index in zip(*np.nonzero(exact), strict=True):
        p[index] = _kendall_exact(int(n[index]), int(total[index] - discordant[index]))
    undefined = (x_tie == total) | (h_tie == total)
    return np.where(undefined, np.nan, np.clip(p, 0.0, 1.0))


def group_pvalues(
    human: object, metric: object, values: np.ndarray, options: CorrelationOptions = DEFAULT_CORRELATION
) -> np.ndarray:
    """The p-value of every group's statistic ``values[..., G]``
    (:func:`mtsig.stats.meta_evaluation.grouped_correlation.group_statistics` with the same ``options``),
    ``[..., G]`` (module docstring): Kendall's b and c as scipy's only at ``epsilon`` 0, mt-metrics-eval's
    placeholder 0 otherwise (``threshold`` changes only the Kendall-like tau, which has no p-value: 0)."""
    kind, grouping = options.kind, options.grouping
    h = np.asarray(human, dtype=np.float64)
    hg = as_groups(h, grouping)
    valid = np.isfinite(hg)
    if options.pdp:
        return pearson_pvalue(values, float((valid.sum(axis=-1) ** 2).sum()))
    if kind == "pearson":
        return pearson_pvalue(values, valid.sum(axis=-1))
    if kind == "spearman":
        return spearman_pvalue(values, valid.sum(axis=-1))
    if kind == "kendall" and options.kendall_variant in ("b", "c") and options.epsilon == 0:
        mg = as_groups(np.asarray(metric, dtype=np.float64), grouping)
        return kendall_pvalue(np.where(valid, hg, 0.0), mg, valid)
    return np.zeros_like(values)


@dataclass(frozen=True)
class AveragedCorrelation:
    """mt-metrics-eval's ``AverageCorrelation`` triple: the averaged ``value``, the groups' p-values averaged the
    same way (``pvalue``; scipy's two-sided p of Pearson, Spearman and Kendall's b and c; 0 for tau_23, acc_23,
    the Kendall-like tau and tau-b with epsilon > 0, its placeholder), and ``weight``, the average's denominator
    (groups counted, or their total weight). Arrays ``[...]``. A mean of p-values is not itself a p-value: it is
    returned because mt-metrics-eval returns it."""

    value: np.ndarray
    pvalue: np.ndarray
    weight: np.ndarray


def average_correlation(
    human: object, metric: object, options: CorrelationOptions = DEFAULT_CORRELATION
) -> AveragedCorrelation:
    """:func:`~mtsig.stats.meta_evaluation.grouped_correlation.grouped_correlation` with the averaged p-value and
    the denominator (:class:`AveragedCorrelation`)."""
    check_average(options.average)
    values, counted = group_statistics(human, metric, options)
    pvalues = group_pvalues(human, metric, values, options)
    weights = average_weights(human, options)
    defined, w, n = averaged_weights(values, counted, options.nan_groups, weights)
    value = average_groups(values, counted, options.nan_groups, weights)
    # a defined group's undefined p-value (Spearman over two cells) makes the mean undefined, as there
    return AveragedCorrelation(value, weighted_mean(pvalues, defined, w, n), n)
