"""Power and stability of a meta-evaluation's permutation tests, from re-drawn test sets.

How large must a test set be for a test to separate two metrics, and how often does a ranking survive a new test set
of the same size? Card et al. (2020, "With Little Power Comes Great Responsibility", EMNLP, Sec. 3) estimate power by
simulating new data sets from the data at hand and running the test on each; Riley et al. (2024, "Finding Replicable
Human Evaluations via Stable Ranking Probability", NAACL, Sec. 3) measure how often a ranking comes out the same on
re-drawn studies. Here a test set of ``n`` units is drawn with replacement from the real units (items for a
segment-level statistic, systems for a system-level one) and the task's statistic recomputed on it, vectorised over
test sets, pairs of metrics and sizes; the decision is the task's own permutation test's, ``p = #{null >= d} / L``,
with its L null differences of the real test set (the draws of
:func:`mtsig.stats.meta_evaluation.metric_permutation.permutation_test`) scaled by ``sqrt(N / n)``, as the
spread of a mean over n units shrinks. docs/statistics.md, "Power and stability".
"""

from __future__ import annotations

import math

import numpy as np

from mtsig.errors import InputError


def sorted_null(draws: np.ndarray) -> np.ndarray:
    """The finite values of one pair's null differences, sorted (a test stopped early leaves NaN after its end)."""
    d = np.asarray(draws, dtype=np.float64)
    return np.sort(d[np.isfinite(d)])


def null_pvalues(null: np.ndarray, differences: np.ndarray, scale: float = 1.0) -> np.ndarray:
    """``#{scale · null >= d} / L`` for each observed difference ``d`` (the permutation test's p-value, no +1, as
    the protocol's test counts; ``null`` sorted, :func:`sorted_null`); NaN without null draws."""
    if null.size == 0:
        return np.full(np.shape(differences), np.nan)
    at_least = null.size - np.searchsorted(
        null * scale, np.asarray(differences, dtype=np.float64), side="left"
    )
    return at_least / null.size


def rejection_rate(null: np.ndarray, differences: np.ndarray, scale: float, alpha: float) -> float:
    """The share of re-drawn test sets whose difference ``differences[B]`` the test rejects at ``alpha``
    (:func:`null_pvalues` ``<= alpha``), over the finite differences only (a non-finite one is left out); NaN
    without null draws or when no difference is finite."""
    p = null_pvalues(null, differences[np.isfinite(differences)], scale)
    return float(np.mean(p <= alpha)) if p.size and np.isfinite(p).all() else np.nan


def size_for_power(scales: np.ndarray, power: np.ndarray, target: float) -> float:
    """The test-set size (as a multiple of the real one) where ``power`` (at the increasing ``scales``) first
    reaches ``target``, interpolated linearly in ``log(scale)``; ``scales[0]`` or below when already there, inf
    when never within the scales."""
    s = np.asarray(scales, dtype=np.float64)
    p = np.asarray(power, dtype=np.float64)
    if np.any(np.diff(s) <= 0):
        raise InputError("power: the test-set sizes must increase")
    reached = np.flatnonzero(p >= target)
    if reached.size == 0:
        return float("inf")
    k = int(reached[0])
    if k == 0:
        return float(s[0])
    # The C library's log and exp (Python's math), not numpy's, whose AVX-512 versions differ in the last bit.
    lo, hi = math.log(s[k - 1]), math.log(s[k])
    share = (target - p[k - 1]) / (p[k] - p[k - 1])
    return math.exp(lo + share * (hi - lo))


def first_clusters(values: np.ndarray, pvalue_of: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """``(winner[B], cluster_one[B, M])`` of each re-drawn test set: ``values[B, M]`` (metrics in name order, so that
    ties go by name as the protocol's ranking), ``pvalue_of[B, M, M]`` the p-value of metric j beating metric i
    (``[b, j, i]``). The winner is the highest value; cluster 1 runs down the ranking until a metric that some metric
    of the cluster beats with ``p <= alpha`` (mt-metrics-eval's ``AssignRanks``)."""
    n_sets, n_metrics = values.shape
    order = np.argsort(-values, axis=1, kind="stable")  # [B, M]
    rows = np.arange(n_sets)[:, None, None]
    # beaten[b, j, i]: the j-th of the ranking beats the i-th
    beaten = pvalue_of[rows, order[:, :, None], order[:, None, :]] <= alpha
    above = np.triu(np.ones((n_metrics, n_metrics), dtype=bool), k=1)[None]  # j above i
    ends = (beaten & above).any(
        axis=1
    )  # [B, M]: some metric above beats the i-th (cluster 1 starts at the top)
    first_end = np.where(ends.any(axis=1), ends.argmax(axis=1), n_metrics)
    inside = np.arange(n_metrics)[None, :] < first_end[:, None]
    cluster = np.zeros((n_sets, n_metrics), dtype=bool)
    np.put_along_axis(cluster, order, inside, axis=1)
    return order[:, 0], cluster
