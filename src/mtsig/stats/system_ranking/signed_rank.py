"""The Wilcoxon signed-rank test of many samples at once, with exactly the p-values of ``scipy.stats.wilcoxon(d)``
called on each sample alone with its defaults (``zero_method="wilcox"``, ``correction=False``, ``method="auto"``),
as the WMT24 and WMT25 organisers call it (scipy 1.17, ``scipy/stats/_wilcoxon.py``; and, with
``auto_rule="scipy1.14"``, as scipy 1.14 chose the method: below).

Samples are the rows of ``d[..., M]`` with ``valid[..., M]`` marking the entries that belong to each sample (a
sample's length ``n`` is its number of valid entries, zeros included, as in the list the organisers pass). scipy's
``method="auto"`` chooses per sample:

* ``n > 50``: the normal approximation;
* ``n <= 50`` without zeros or tied absolute differences: the exact null distribution of ``r_plus``;
* ``n <= 13`` with zeros or ties: a permutation test that enumerates all ``2**n`` sign flips (exact, since ``2**n``
  is within its 9,999 resamples), comparing with a relative tolerance of ``100 * eps``;
* otherwise the normal approximation.

Zeros are dropped (``count`` = the non-zero differences), ranks are averaged over ties of ``|d|``, and the normal
approximation is ``z = (r_plus - count (count+1)/4) / sqrt((count (count+1)(2 count+1) - sum(t^3 - t)/2) / 24)``
over tie groups of size ``t``, computed with the same floating-point expressions as scipy. An empty sample, or one
whose differences are all zero and longer than 13 (``se = 0``), has p = NaN, as scipy returns; so has a sample of one
zero difference, for which scipy raises ``ValueError`` (its permutation test needs two observations). A vectorised
call of scipy itself (``wilcoxon(d, axis=-1)``) would choose the method once for the whole batch (it tests for ties
and zeros over every sample together), which is why the choice is made here sample by sample.

scipy 1.15.0 introduced the permutation test and the check for ties. In scipy 1.14 (1.14.1 read;
``auto_rule="scipy1.14"``) ``method="auto"`` was exact for every sample of at most 50 differences without zeros,
ties or not (a statistic that ties make non-integral is rounded down for the upper tail and up for the lower, as
above), and otherwise the normal approximation; an all-zero sample made it raise ``ValueError`` (here: p NaN). The
same code on the same data thus gives other p-values under the two versions for a sample of at most 50 differences
with ties and no zero, and for one of at most 13 with zeros (docs/conventions.md).
"""

from __future__ import annotations

from functools import cache

import numpy as np
from scipy import special
from scipy.stats import rankdata

#: scipy's limits of ``method="auto"``: exact (or permutation) only up to this many differences; the permutation
#: test is exhaustive only up to this many.
EXACT_MAX_N = 50
PERMUTATION_MAX_N = 13
ALTERNATIVES = ("two-sided", "greater", "less")
#: How ``method="auto"`` chooses per sample: as scipy 1.15 and later (the default), or as scipy 1.14 (1.14.1 read).
AUTO_RULES = ("scipy>=1.15", "scipy1.14")


@cache
def _exact_pmf(n: int) -> np.ndarray:
    """P(r_plus = k), k = 0 .. n(n+1)/2, built as scipy's ``_get_wilcoxon_distr`` builds it."""
    c = np.ones(1, dtype=np.float64)
    for k in range(1, n + 1):
        previous = c
        c = np.zeros(k * (k + 1) // 2 + 1, dtype=np.float64)
        m = len(previous)
        c[:m] = previous * 0.5
        c[-m:] += previous * 0.5
    return c


def _exact_sf(k: int, n: int) -> float:
    """P(r_plus >= k) as scipy's ``WilcoxonDistribution.sf``: a tail sum on the near side of the mean."""
    pmf = _exact_pmf(n)
    if k <= n * (n + 1) / 4:
        return float(pmf[k:].sum())
    return float(1 - pmf[:k].sum())


def _exact_cdf(k: int, n: int) -> float:
    """P(r_plus <= k) as scipy's ``WilcoxonDistribution.cdf``."""
    pmf = _exact_pmf(n)
    if k <= n * (n + 1) / 4:
        return float(pmf[: k + 1].sum())
    return float(1 - pmf[k + 1 :].sum())


def _exact_pvalue(r_plus: float, n: int, alternative: str) -> float:
    """scipy's exact p of ``r_plus`` among ``n`` non-zero differences without ties (its null's cdf and sf)."""
    if alternative == "less":
        return _exact_cdf(int(np.ceil(r_plus)), n)
    if alternative == "greater":
        return _exact_sf(int(np.floor(r_plus)), n)
    p = 2 * min(_exact_sf(int(np.floor(r_plus)), n), _exact_cdf(int(np.ceil(r_plus)), n))
    return float(np.clip(p, 0, 1))


@cache
def _sign_patterns(n: int) -> np.ndarray:
    """All 2**n 0/1 patterns of n signs (1 = positive), one per row."""
    return ((np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1).astype(np.float64)


def _permutation_pvalue(ranks: np.ndarray, r_plus: float, alternative: str) -> float:
    """scipy's exhaustive sign-flip test of ``r_plus`` (``permutation_test(..., permutation_type="samples")``):
    every sign of the non-zero differences (a zero flips to itself, so its flips only repeat each value)."""
    null = _sign_patterns(len(ranks)) @ ranks
    gamma = abs(np.finfo(np.float64).eps * 100 * r_plus)
    total = float(len(null))
    p_less = np.count_nonzero(null <= r_plus + gamma) / total
    p_greater = np.count_nonzero(null >= r_plus - gamma) / total
    p = {"less": p_less, "greater": p_greater, "two-sided": min(p_less, p_greater) * 2}[alternative]
    return float(np.clip(p, 0.0, 1.0))


def signed_rank_pvalues(
    d: np.ndarray,
    valid: np.ndarray | None = None,
    alternative: str = "two-sided",
    auto_rule: str = AUTO_RULES[0],
) -> np.ndarray:
    """p-values of the Wilcoxon signed-rank test of every sample (row of the last axis) of ``d``, equal to
    ``scipy.stats.wilcoxon(d[i][valid[i]], alternative=alternative).pvalue`` for each (module docstring), with
    ``method="auto"`` choosing as the scipy versions ``auto_rule`` names (:data:`AUTO_RULES`).

    ``d[..., M]``: differences (NaN allowed where not valid); ``valid[..., M]``: the entries of each sample
    (default: the non-NaN entries). Returns p with the shape ``d.shape[:-1]``.
    """
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {ALTERNATIVES}, not {alternative!r}")
    if auto_rule not in AUTO_RULES:
        raise ValueError(f"auto_rule must be one of {AUTO_RULES}, not {auto_rule!r}")
    d = np.asarray(d, dtype=np.float64)
    valid = ~np.isnan(d) if valid is None else np.broadcast_to(valid, d.shape) & ~np.isnan(d)
    shape = d.shape[:-1]
    rows = int(np.prod(shape))
    d, valid = d.reshape(rows, d.shape[-1]), valid.reshape(rows, d.shape[-1])
    n_total = valid.sum(axis=-1)
    nonzero = valid & (d != 0)
    count = nonzero.sum(axis=-1).astype(np.float64)
    magnitude = np.where(nonzero, np.abs(np.where(valid, d, 0.0)), np.inf)
    ranks = rankdata(magnitude, method="average", axis=-1)
    lowest = rankdata(magnitude, method="min", axis=-1)
    tie_size = 2 * (ranks - lowest) + 1  # size of each entry's tie group
    ranks = np.where(nonzero, ranks, 0.0)
    r_plus = np.sum(np.where(nonzero & (d > 0), ranks, 0.0), axis=-1)
    tie_correct = np.sum(np.where(nonzero, tie_size**2 - 1, 0.0), axis=-1)  # = sum over groups of t^3 - t
    has_ties = np.any(nonzero & (tie_size > 1), axis=-1)
    has_zeros = count < n_total

    # scipy's normal approximation, expression by expression.
    mn = count * (count + 1.0) * 0.25
    se = count * (count + 1.0) * (2.0 * count + 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.sqrt((se - tie_correct / 2) / 24)
        z = (r_plus - mn) / se
    if alternative == "two-sided":
        p = 2 * special.ndtr(-np.abs(z))
    elif alternative == "greater":
        p = special.ndtr(-z)
    else:
        p = special.ndtr(z)
    p = np.asarray(p, dtype=np.float64)

    small = n_total <= EXACT_MAX_N
    if auto_rule == "scipy1.14":
        # scipy 1.14: exact whatever the ties; with zeros the normal approximation (an all-zero sample raises there).
        exact = small & ~has_zeros & (n_total > 0)
        permutation = np.zeros_like(exact)
        p[count == 0] = np.nan
    else:
        exact = small & ~has_ties & ~has_zeros & (n_total > 0)
        permutation = small & ~exact & (n_total <= PERMUTATION_MAX_N) & (n_total > 0)
    for i in np.flatnonzero(exact):
        p[i] = _exact_pvalue(float(r_plus[i]), int(count[i]), alternative)
    for i in np.flatnonzero(permutation):
        p[i] = _permutation_pvalue(ranks[i][nonzero[i]], float(r_plus[i]), alternative)
    # scipy returns NaN for an empty sample and raises for a permutation test of one observation ([0]).
    p[(n_total == 0) | (permutation & (n_total < 2))] = np.nan
    return p.reshape(shape)
