"""Confidence intervals: bootstrap intervals of corpus scores and of their differences (beyond Graham et al. 2014),
and the exact Clopper-Pearson interval of a binomial proportion (the accuracies of the paper's Tables 1-2).

The paired bootstrap of the paper's Fig. 4 draws B pseudo-test-sets and computes, for a pair of systems, the
pseudo-statistics ``d_b = S(X_b) - S(Y_b)``. The same draws give an interval for the difference ``d = S(X) - S(Y)``
(and, system by system, for ``S(X)``), so an effect size can be reported next to each p-value:

* ``percentile``: the ``a/2`` and ``1 - a/2`` quantiles of the draws (``a = 1 - level``), Efron & Tibshirani
  (1993), Section 13.3.
* ``bca``: bias-corrected and accelerated, Efron (1987); Efron & Tibshirani (1993), Section 14.3.
  The quantiles are taken at ``a1 = Phi(z0 + (z0 + z_{a/2}) / (1 - acc (z0 + z_{a/2})))`` and
  ``a2 = Phi(z0 + (z0 + z_{1-a/2}) / (1 - acc (z0 + z_{1-a/2})))``, with the bias correction
  ``z0 = Phi^-1(share of draws below the estimate)`` and the acceleration ``acc = sum D^3 / (6 (sum D^2)^1.5)``,
  ``D_i = mean_j theta_(j) - theta_(i)`` over the jackknife values ``theta_(i)`` (eq. 14.15).

Conventions, chosen to match ``scipy.stats.bootstrap`` (method ``"percentile"`` and ``"BCa"``), the reference
implementation the tests compare against: quantiles are Hyndman & Fan's (1996) type 7 (linear interpolation between
order statistics, numpy's and scipy's default); a draw equal to the estimate counts one half in the share below it
(scipy's ``percentileofscore(kind="mean")``), so a distribution of ties gives ``z0 = 0``. BCa is undefined when every
draw lies on one side of the estimate (``z0`` infinite): the bounds are then NaN. Identical jackknife values give
``acc = 0`` (no skewness to correct) instead of 0/0.

*Jackknife of a corpus metric.* A corpus score is a function of summed sufficient statistics, not a mean of segment
scores (BLEU of a corpus is not the mean of segment BLEUs), so the jackknife leaves one segment's *statistics* out:
``theta_(i) = score(T - stats[i])`` with ``T`` the corpus totals (:func:`leave_one_out_scores`), vectorised over
segments. For a pair, ``d_(i) = theta_X,(i) - theta_Y,(i)``: both systems lose the same segment.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import numpy as np

from mtsig.errors import InputError
from mtsig.runtime import portable
from mtsig.settings import Resampling

Score = Callable[[np.ndarray], np.ndarray]

PERCENTILE = "percentile"
BCA = "bca"
#: The interval methods, in output order.
INTERVAL_METHODS: tuple[str, ...] = (PERCENTILE, BCA)

#: The confidence level used when none is given (0.95: the config's ``resampling.confidence`` by default).
DEFAULT_LEVEL = Resampling.confidence


def confidence_level(value: float | str) -> float:
    """A confidence level given as a fraction in (0, 1) or as a percentage in (1, 100), returned as a fraction.

    ``0.95`` and ``95`` both mean 95%. 0, 1 and 100 are refused, not guessed (is ``1`` certainty or 1%?), and so is
    anything outside (0, 100) or not a number. Raises ValueError naming the value.
    """
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if 0.0 < number < 1.0:
        return number
    if 1.0 < number < 100.0:
        return number / 100.0
    raise ValueError(
        f"a confidence level is a fraction in (0, 1) such as 0.95, or a percentage in (1, 100) such as 95; got {value!r}"
        " (0, 1 and 100 are ambiguous or empty)"
    )


#: Working memory a score function is assumed to need, in multiples of the size of its input (as the engine's).
_SCORE_WORKSPACE_FACTOR = 8


def check_interval_request(methods: Sequence[str], level: float) -> tuple[str, ...]:
    """The requested methods in :data:`INTERVAL_METHODS` order; ValueError for an unknown method or a level
    outside (0, 1)."""
    unknown = [m for m in methods if m not in INTERVAL_METHODS]
    if unknown:
        raise ValueError(
            f"unknown interval method(s) {', '.join(map(repr, unknown))}; known: {', '.join(INTERVAL_METHODS)}"
        )
    if not 0.0 < float(level) < 1.0:
        raise ValueError(f"the confidence level must lie strictly between 0 and 1, got {level!r}")
    return tuple(m for m in INTERVAL_METHODS if m in set(methods))


def quantiles_of_sorted(sorted_draws: np.ndarray, probabilities: np.ndarray) -> np.ndarray:
    """Row-wise quantiles ``[P, m]`` of ascending rows ``sorted_draws[P, B]`` at ``probabilities[P, m]`` (one set
    of probabilities per row; a ``[m]`` vector is used for every row).

    Hyndman & Fan (1996) type 7, numpy's ``quantile(method="linear")``: position ``h = (B - 1) q`` in the sorted
    row, linear interpolation between the order statistics at ``floor(h)`` and ``floor(h) + 1``, computed from the
    nearer of the two (as numpy does, so the results agree to the last bit). A NaN probability gives NaN.
    """
    sorted_draws = np.asarray(sorted_draws, dtype=np.float64)
    n_rows, n_draws = sorted_draws.shape
    q = np.broadcast_to(np.asarray(probabilities, dtype=np.float64), (n_rows, np.shape(probabilities)[-1]))
    position = (n_draws - 1) * q
    missing = np.isnan(position)
    position = np.where(missing, 0.0, np.clip(position, 0.0, n_draws - 1))
    below = np.floor(position)
    weight = position - below
    lower_index = below.astype(np.intp)
    upper_index = np.minimum(lower_index + 1, n_draws - 1)
    lower = np.take_along_axis(sorted_draws, lower_index, axis=1)
    upper = np.take_along_axis(sorted_draws, upper_index, axis=1)
    step = upper - lower
    # Interpolating from the nearer order statistic keeps the result exact at both ends (weight 0 or 1).
    value = np.where(weight >= 0.5, upper - step * (1.0 - weight), lower + step * weight)
    value[missing] = np.nan
    return value


def _tail_probabilities(level: float) -> tuple[float, float]:
    tail = (1.0 - float(level)) / 2.0
    return tail, 1.0 - tail


def percentile_interval(draws: np.ndarray, level: float = DEFAULT_LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval (Efron & Tibshirani 1993, Sec. 13.3) of each row of ``draws[P, B]``: the
    ``(1 - level)/2`` and ``(1 + level)/2`` type-7 quantiles. Returns ``(low[P], high[P])``."""
    bounds = quantiles_of_sorted(np.sort(np.atleast_2d(draws), axis=1), np.array(_tail_probabilities(level)))
    return bounds[:, 0], bounds[:, 1]


def bias_correction(draws: np.ndarray, estimate: np.ndarray) -> np.ndarray:
    """``z0 = Phi^-1(p)`` per row (Efron & Tibshirani 1993, eq. 14.14), ``p`` the share of ``draws[P, B]`` below
    ``estimate[P]``, a draw equal to the estimate counting one half. Infinite when every draw lies on one side."""
    # Imported here, not at the top: jobs that never compute an interval skip scipy.special's import.
    from scipy.special import ndtri

    draws = np.atleast_2d(draws)
    estimate = np.asarray(estimate, dtype=np.float64).reshape(-1, 1)
    below = np.count_nonzero(draws < estimate, axis=1) + np.count_nonzero(draws <= estimate, axis=1)
    return ndtri(below / (2.0 * draws.shape[1]))


def acceleration(jackknife: np.ndarray) -> np.ndarray:
    """``acc = sum D^3 / (6 (sum D^2)^1.5)`` per row of the jackknife values ``jackknife[P, N]``, with
    ``D_i = mean - theta_(i)`` (Efron & Tibshirani 1993, eq. 14.15); 0 when all values are equal."""
    jackknife = np.atleast_2d(np.asarray(jackknife, dtype=np.float64))
    deviation = jackknife.mean(axis=1, keepdims=True) - jackknife
    squares = (deviation**2).sum(axis=1)
    cubes = portable.power(deviation, 3.0).sum(axis=1)  # the C library's pow (mtsig.runtime.portable)
    with np.errstate(divide="ignore", invalid="ignore"):
        acc = cubes / (6.0 * portable.power(squares, 1.5))
    return np.where(squares > 0.0, acc, 0.0)


def bca_level(z0: np.ndarray, acc: np.ndarray, tail: float) -> np.ndarray:
    """The BCa quantile level for the nominal tail probability ``tail``: ``Phi(z0 + (z0 + z_t) / (1 - acc (z0 +
    z_t)))``, ``z_t = Phi^-1(tail)`` (Efron & Tibshirani 1993, eq. 14.10); NaN where ``z0`` is infinite. The one
    formula of every BCa bound here: both ends of :func:`bca_probabilities`, and the one-sided bound of WMT26's
    system ranking (:mod:`mtsig.stats.system_ranking.bootstrap`, ``tail = 1 - confidence``, as scipy's
    ``_bca_interval``)."""
    from scipy.special import ndtr, ndtri

    z0 = np.asarray(z0, dtype=np.float64)
    acc = np.asarray(acc, dtype=np.float64)
    shifted = z0 + ndtri(tail)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(np.isfinite(z0), ndtr(z0 + shifted / (1.0 - acc * shifted)), np.nan)


def bca_probabilities(
    z0: np.ndarray, acc: np.ndarray, level: float = DEFAULT_LEVEL
) -> tuple[np.ndarray, np.ndarray]:
    """The two-sided BCa quantile levels ``(a1, a2)`` (Efron & Tibshirani 1993, Sec. 14.3); NaN where ``z0`` is
    infinite."""
    low_tail, high_tail = _tail_probabilities(level)
    return bca_level(z0, acc, low_tail), bca_level(z0, acc, high_tail)


def intervals_from_draws(
    draws: np.ndarray,
    estimate: np.ndarray,
    methods: Sequence[str],
    level: float = DEFAULT_LEVEL,
    jackknife: np.ndarray | None = None,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """``{method: (low[P], high[P])}`` for each row of bootstrap ``draws[P, B]`` of a statistic whose value on
    the data is ``estimate[P]``; ``jackknife[P, N]`` (leave-one-out values) is needed for ``"bca"``.

    Each row is sorted once and serves every method. Rows are independent: which rows are computed together never
    changes a number.
    """
    methods = check_interval_request(methods, level)
    draws = np.atleast_2d(np.asarray(draws, dtype=np.float64))
    sorted_draws = np.sort(draws, axis=1)
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for method in methods:
        if method == PERCENTILE:
            probabilities = np.array(_tail_probabilities(level))
        else:
            if jackknife is None:
                raise ValueError("the BCa interval needs the jackknife values of the statistic")
            a1, a2 = bca_probabilities(bias_correction(draws, estimate), acceleration(jackknife), level)
            probabilities = np.stack([a1, a2], axis=1)
        bounds = quantiles_of_sorted(sorted_draws, probabilities)
        out[method] = (bounds[:, 0], bounds[:, 1])
    return out


def percentile_and_bca(
    draws: np.ndarray, estimate: float, jackknife: np.ndarray, level: float = DEFAULT_LEVEL
) -> dict[str, tuple[float, float]]:
    """Both intervals of one statistic from its bootstrap ``draws[B]`` and ``jackknife[N]`` values."""
    bounds = intervals_from_draws(
        np.asarray(draws)[None, :],
        np.array([estimate]),
        INTERVAL_METHODS,
        level,
        np.asarray(jackknife)[None, :],
    )
    return {method: (float(low[0]), float(high[0])) for method, (low, high) in bounds.items()}


def leave_one_out_scores(
    stats: np.ndarray, score: Score, chunk_bytes: int = 1 << 20, totals: np.ndarray | None = None
) -> np.ndarray:
    """Jackknife values ``[S, N]`` of a corpus metric: ``score(T_s - stats[s, i])``, the corpus score of system s
    without segment i, from the sufficient statistics ``stats[S, N, k]`` and the corpus totals ``T_s`` (default
    ``stats.sum(axis=1)``).

    Vectorised over segments, in chunks of segments whose score workspace takes about ``chunk_bytes``; the score
    function works row by row, so the chunking never changes a number. For integer statistics the subtraction is
    exact in float64 (no cancellation error against recomputing each leave-one-out sum).
    """
    stats = np.asarray(stats, dtype=np.float64)
    if stats.ndim != 3:
        raise ValueError(f"stats must have shape [systems, segments, k], got {stats.shape}")
    n_systems, n_segments, k = stats.shape
    totals = stats.sum(axis=1) if totals is None else np.asarray(totals, dtype=np.float64)
    rows = max(1, int(chunk_bytes) // (k * 8 * (1 + _SCORE_WORKSPACE_FACTOR)))
    out = np.empty((n_systems, n_segments), dtype=np.float64)
    for system in range(n_systems):
        for start in range(0, n_segments, rows):
            stop = min(start + rows, n_segments)
            out[system, start:stop] = score(totals[system] - stats[system, start:stop])
    return out


# ------------------------------------------------------------------------------------------ binomial proportions


def clopper_pearson(k: int | np.integer, n: int | np.integer, level: float = 0.95) -> tuple[float, float]:
    """Two-sided exact (Clopper-Pearson) confidence interval for a binomial proportion k/n.

    The interval of the paper's Tables 1-2 ("Acc. (%) [low, high]"): ``low = Beta(a/2; k, n-k+1)``,
    ``high = Beta(1-a/2; k+1, n-k)`` quantiles with ``a = 1 - level``; ``low = 0`` when k = 0 and ``high = 1``
    when k = n, where those Beta distributions are undefined (Clopper & Pearson 1934).
    """
    if not all(float(v).is_integer() for v in (k, n)):
        raise InputError(f"clopper_pearson needs integer counts, got k={k!r}, n={n!r}")
    k, n = int(k), int(n)
    if n < 1 or not 0 <= k <= n:
        raise InputError(f"clopper_pearson needs 0 <= k <= n and n >= 1, got k={k}, n={n}")
    if not 0.0 < level < 1.0:
        raise InputError(f"confidence level must lie in (0, 1), got {level}")
    return _beta_quantile_bounds(k, n, float(level))


@functools.lru_cache(maxsize=4096)
def _beta_quantile_bounds(k: int, n: int, level: float) -> tuple[float, float]:
    """:func:`clopper_pearson`'s Beta quantiles, computed once per (k, n, level): an accuracy table repeats the
    same counts for many (metric, test, alpha) cells. ``scipy.special.betaincinv(a, b, q)`` is the quantile that
    ``scipy.stats.beta.ppf(q, a, b)`` computes (the same bits, tested), without importing scipy.stats, which a
    pipeline job would otherwise load for these two numbers alone."""
    from scipy.special import betaincinv

    tail = (1.0 - level) / 2.0
    low = 0.0 if k == 0 else float(betaincinv(float(k), float(n - k + 1), tail))
    high = 1.0 if k == n else float(betaincinv(float(k + 1), float(n - k), 1.0 - tail))
    return low, high


__all__ = [
    "BCA",
    "DEFAULT_LEVEL",
    "confidence_level",
    "INTERVAL_METHODS",
    "PERCENTILE",
    "acceleration",
    "bca_level",
    "bca_probabilities",
    "bias_correction",
    "check_interval_request",
    "clopper_pearson",
    "intervals_from_draws",
    "leave_one_out_scores",
    "percentile_and_bca",
    "percentile_interval",
    "quantiles_of_sorted",
]
