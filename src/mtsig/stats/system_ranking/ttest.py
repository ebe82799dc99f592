"""WMT26's first ranking rule: two t-tests, either significant (wmt-conference/wmt26-general-mt@1fa5211,
``humeval/02-analyze_results.py``, ``is_significantly_better``).

The organisers call ``scipy.stats.ttest_rel(a, b, nan_policy="omit")`` (paired, on the items both systems have) and
``scipy.stats.ttest_ind(a, b, nan_policy="omit")`` (Student's two-sample test with pooled variance, on each system's
rated items), both two-sided, and declare the system listed first better when either p is below 0.05; the system
listed first is the one above in the order of the means over rated items, so the direction comes from that order,
not from the tests. Here both tests are computed for every pair of every replicate at once, with scipy's formulas:

* paired: ``d`` the differences on the paired units (:func:`~mtsig.stats.system_ranking.items.pair_units`), n of
  them; ``t = mean(d) / sqrt(var(d, ddof=1) / n)``, ``n - 1`` degrees of freedom;
* unpaired: ``t = (m_a - m_b) / sqrt(s2 (1/n_a + 1/n_b))`` with ``s2 = (SS_a + SS_b) / (n_a + n_b - 2)`` (``SS``: the
  sum of squared deviations from the sample's mean), ``n_a + n_b - 2`` degrees of freedom;
* ``p = 2 P(T > |t|)`` (Student's t). As in scipy, ``t = ±inf`` (no variance, different means) gives p = 0, and
  ``0 / 0`` (no variance, equal means) or too few items (no degree of freedom) gives p NaN, which is not below
  alpha.

The ranks and the clusters are WMT26's (:func:`~mtsig.stats.system_ranking.procedures.wmt26_from_decisions`: the rank
walk of ``02b-analyze_results.py`` and the "global" clusters, which ``02-analyze_results.py`` draws the same way; that
version prints no rank ranges).
"""

from __future__ import annotations

import numpy as np
from scipy import special

from mtsig.stats.system_ranking import ranks as rank_rules
from mtsig.stats.system_ranking.items import pair_units
from mtsig.stats.system_ranking.procedures import (
    RankingArrays,
    _chunks,
    _pair_differences,
    _square,
    as_replicates,
    item_mean,
    wmt26_from_decisions,
)


def _two_sided_t(t: np.ndarray, df: np.ndarray) -> np.ndarray:
    """``2 P(T_df > |t|)``; NaN where t or df is NaN or ``df <= 0``."""
    with np.errstate(invalid="ignore"):
        p = 2 * special.stdtr(np.where(df > 0, df, np.nan), -np.abs(t))
    return np.where(np.isnan(t) | ~(df > 0), np.nan, p)


def _moments(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(n, mean, SS) over the last axis of the non-NaN values: their number, mean and sum of squared deviations
    (NaN mean and SS where there are none)."""
    valid = ~np.isnan(values)
    n = valid.sum(axis=-1).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(valid, values, 0.0).sum(axis=-1) / np.where(n > 0, n, np.nan)
        squares = np.where(valid, (values - mean[..., None]) ** 2, 0.0).sum(axis=-1)
    return n, mean, np.where(n > 0, squares, np.nan)


def paired_t_pvalues(differences: np.ndarray) -> np.ndarray:
    """Two-sided p of ``scipy.stats.ttest_rel`` on each row's non-NaN paired differences ``d[..., M]``."""
    n, mean, squares = _moments(differences)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = mean / np.sqrt(squares / (n - 1) / n)
    return _two_sided_t(t, n - 1)


def unpaired_t_pvalues(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Two-sided p of ``scipy.stats.ttest_ind(a, b, nan_policy="omit")`` (pooled variance) on each row's non-NaN
    values of ``a[..., N]`` and ``b[..., N]``."""
    n_a, mean_a, squares_a = _moments(a)
    n_b, mean_b, squares_b = _moments(b)
    df = n_a + n_b - 2
    with np.errstate(invalid="ignore", divide="ignore"):
        pooled = (squares_a + squares_b) / df
        t = (mean_a - mean_b) / np.sqrt(pooled * (1 / n_a + 1 / n_b))
    return _two_sided_t(t, df)


def ttest_pvalues(scores: np.ndarray, segments: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(paired[R, S, S], unpaired[R, S, S]): both two-sided p-values of every pair (symmetric; NaN diagonal)."""
    left, right = pair_units(segments)
    replicates, n, n_items = scores.shape
    first, second = np.triu_indices(n, 1)
    paired = np.empty((replicates, len(first)))
    unpaired = np.empty_like(paired)
    for part in _chunks(replicates, len(first) * max(len(left), n_items) * 4):
        paired[part] = paired_t_pvalues(_pair_differences(scores[part], left, right))
        unpaired[part] = unpaired_t_pvalues(scores[part][:, first], scores[part][:, second])
    return _square(paired, n), _square(unpaired, n)


def wmt26_ttest(
    scores: np.ndarray, segments: np.ndarray, domains: np.ndarray, *, alpha: float = 0.05
) -> RankingArrays:
    """WMT26's first rule (module docstring): i beats j iff i is above j in the order of the means and the paired
    or the unpaired two-sided t-test gives p < alpha. ``pvalues``: the smaller of the two defined p-values (the
    same both ways; NaN when neither is defined); domains are not used."""
    scores = as_replicates(scores)
    paired, unpaired = ttest_pvalues(scores, segments)
    significant = (paired < alpha) | (unpaired < alpha)
    with np.errstate(invalid="ignore"):
        pvalues = np.fmin(paired, unpaired)
    order = rank_rules.descending_order(item_mean(scores))
    position = np.empty_like(order)
    np.put_along_axis(position, order, np.arange(order.shape[1])[None, :], axis=1)
    above = position[:, :, None] < position[:, None, :]
    return wmt26_from_decisions(scores, significant & above, pvalues)
