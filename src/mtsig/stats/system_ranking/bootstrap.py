"""The WMT26 organisers' bootstrap decisions (wmt-conference/wmt26-general-mt@a6ae235,
``humeval/02b-analyze_results.py``, ``is_significantly_better``): ``scipy.stats.bootstrap`` with 100 resamples,
``method="BCa"`` (its default), a one-sided 95% interval (``alternative="greater"``), and "A beats B" iff the
interval's lower bound is above 0.

* paired: the mean of the differences of the items both systems have (only when there are at least 2 and at least
  one is positive, as their code checks);
* unpaired: the difference of the two systems' means over each system's own rated items, each sample resampled
  on its own (both need at least 2 items).

The BCa bound is scipy's (``scipy/stats/_resampling.py``, ``_bca_interval``): ``z0 = ndtri((#(b < t) + #(b <= t))
/ 2B)`` of the bootstrap values ``b`` against the estimate ``t``; the acceleration ``a = sum_j sum_i U_ji^3 / n_j^3 /
(6 (sum_j sum_i U_ji^2 / n_j^2)^1.5)`` from the jackknife of each sample j (``U = (n_j - 1)(mean of the
leave-one-out values - each leave-one-out value)``); the level ``ndtr(z0 + (z0 + z_a) / (1 - a (z0 + z_a)))``,
``z_a = ndtri(0.05)``; the bound the linear-interpolated quantile of ``b`` at that level. Here every sample of a
batch is resampled at once (:func:`paired_bca`, :func:`unpaired_bca` take the resample indices, so a test can give
them scipy's own draws).

``p`` (what the organisers never compute): the level at which the lower bound touches 0, the BCa bound inverted:
with ``q0`` the level at which the quantile of ``b`` crosses 0, ``w = ndtri(q0) - z0``, ``p = ndtr(w / (1 + a w) -
z0)``; the bound at level alpha is above 0 iff alpha > p, up to the interpolation at the crossing.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from mtsig.stats.intervals import bca_level, bias_correction, quantiles_of_sorted

N_RESAMPLES = 100
CONFIDENCE = 0.95


def _crossing_level(sorted_values: np.ndarray) -> np.ndarray:
    """The level q at which the linear-interpolated quantile of each row crosses 0 (0 if all > 0, 1 if all <= 0)."""
    b = sorted_values.shape[-1]
    at_most_zero = (sorted_values <= 0).sum(axis=1)
    k = np.clip(at_most_zero - 1, 0, b - 2)
    low = np.take_along_axis(sorted_values, k[:, None], axis=1)[:, 0]
    high = np.take_along_axis(sorted_values, (k + 1)[:, None], axis=1)[:, 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        step = np.where(high > low, (0 - low) / (high - low), 0.0)
    level = (k + np.clip(step, 0, 1)) / (b - 1)
    return np.where(at_most_zero == 0, 0.0, np.where(at_most_zero == b, 1.0, level))


def bca_lower_and_p(
    estimate: np.ndarray, resampled: np.ndarray, acceleration: np.ndarray, confidence: float = CONFIDENCE
) -> tuple[np.ndarray, np.ndarray]:
    """(lower bound of the one-sided BCa interval at ``confidence``, p) per row (module docstring).

    ``estimate[K]``, ``resampled[K, B]``, ``acceleration[K]``. A degenerate row (every resample equal, a = 0/0)
    has a NaN bound (scipy warns and returns NaN) and p NaN.
    """
    z0 = bias_correction(resampled, estimate)
    level = bca_level(z0, acceleration, 1 - confidence)
    ordered = np.sort(resampled, axis=1)
    lower = quantiles_of_sorted(ordered, level[:, None])[:, 0]
    crossing = _crossing_level(ordered)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        w = special.ndtri(crossing) - z0
        denominator = 1 + acceleration * w
        p = special.ndtr(w / denominator - z0)
    # Beyond the range the BCa level can reach, the bound stays on one side of 0 at every level.
    p = np.where((denominator <= 0) | (crossing == 0) | (crossing == 1), np.where(w < 0, 0.0, 1.0), p)
    p = np.where(np.isnan(lower), np.nan, p)
    return lower, p


def _jackknife_terms(values: np.ndarray, valid: np.ndarray, sign: float) -> tuple[np.ndarray, np.ndarray]:
    """(sum U^3 / n^3, sum U^2 / n^2) of one sample per row: the leave-one-out means' jackknife terms."""
    n = valid.sum(axis=1).astype(np.float64)
    total = np.where(valid, values, 0.0).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        leave_one_out = (total[:, None] - values) / (n[:, None] - 1)
        mean_loo = np.where(valid, leave_one_out, 0.0).sum(axis=1) / n
        u = np.where(valid, sign * (n[:, None] - 1) * (mean_loo[:, None] - leave_one_out), 0.0)
    return (u**3).sum(axis=1) / n**3, (u**2).sum(axis=1) / n**2


def _compact(values: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Each row's valid entries first (in order), the rest after."""
    order = np.argsort(~valid, axis=1, kind="stable")
    return np.take_along_axis(values, order, axis=1)


def resample_means(values: np.ndarray, valid: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Means of the resamples ``indices[K, B, n_max]`` (positions among each row's valid entries; a row with n valid
    entries uses the first n columns) of ``values[K, M]``."""
    n = valid.sum(axis=1)
    compact = _compact(values, valid)
    rows, width = compact.shape[0], indices.shape[-1]
    # One flat gather (take_along_axis builds an index array per axis: twice the time); positions are below n.
    drawn = compact.ravel()[indices + (np.arange(rows) * compact.shape[1])[:, None, None]]
    if not (n == width).all():
        drawn = np.where(np.arange(width)[None, None, :] < n[:, None, None], drawn, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return drawn.sum(axis=2) / n[:, None]


def paired_bca(
    differences: np.ndarray, valid: np.ndarray, indices: np.ndarray, confidence: float = CONFIDENCE
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(applies, lower bound, p) of the paired BCa bootstrap of the mean difference, per row of
    ``differences[K, M]`` (``valid`` the paired items). ``applies``: at least 2 items and one positive, the only
    rows the organisers bootstrap."""
    n = valid.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        estimate = np.where(valid, differences, 0.0).sum(axis=1) / n
    resampled = resample_means(differences, valid, indices)
    cubes, squares = _jackknife_terms(differences, valid, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        acceleration = cubes / 6 / squares**1.5
    lower, p = bca_lower_and_p(estimate, resampled, acceleration, confidence)
    applies = (n >= 2) & np.any(valid & (differences > 0), axis=1)
    return applies, lower, p


def unpaired_bca(
    first: np.ndarray,
    first_valid: np.ndarray,
    second: np.ndarray,
    second_valid: np.ndarray,
    first_indices: np.ndarray,
    second_indices: np.ndarray,
    confidence: float = CONFIDENCE,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(applies, lower bound, p) of the two-sample BCa bootstrap of ``mean(first) - mean(second)`` per row, each
    sample resampled on its own (scipy's ``bootstrap((a, b), ...)`` with ``paired=False``). ``applies``: both
    samples have at least 2 items."""
    n1, n2 = first_valid.sum(axis=1), second_valid.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        estimate = np.where(first_valid, first, 0.0).sum(axis=1) / n1 - (
            np.where(second_valid, second, 0.0).sum(axis=1) / n2
        )
    resampled = resample_means(first, first_valid, first_indices) - resample_means(
        second, second_valid, second_indices
    )
    cubes1, squares1 = _jackknife_terms(first, first_valid, 1.0)
    cubes2, squares2 = _jackknife_terms(second, second_valid, -1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        acceleration = (cubes1 + cubes2) / 6 / (squares1 + squares2) ** 1.5
    lower, p = bca_lower_and_p(estimate, resampled, acceleration, confidence)
    return (n1 >= 2) & (n2 >= 2), lower, p
