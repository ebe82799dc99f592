"""Bootstrap intervals of a metrics-task statistic: how precisely does the test set pin a metric's task value down?

Deutsch, Dror & Roth (2021, TACL, "A Statistical Analysis of Summarization Evaluation Metrics using Resampling
Methods", Sec. 3.1) give a correlation a percentile bootstrap interval by resampling the systems (BOOT-SYSTEMS) or
the inputs (BOOT-INPUTS). Here the same two schemes serve the statistics of the WMT23/24 task sets
(:mod:`mtsig.studies.metrics_protocol`; docs/statistics.md, "Bootstrap intervals of the task values"), each a
ratio of sums over the resampled units, so that a resample is a row of integer draw counts and every resample of
every metric comes from one matrix product:

* **Pearson over cells** (:func:`pearson_features`, :func:`resampled_pearson`): the units are items (a segment
  and its systems' cells, BOOT-INPUTS) or systems (one cell each, BOOT-SYSTEMS); a unit drawn ``c`` times puts
  its rated cells in ``c`` times, so every sum of the correlation is ``counts @ per-unit sums``.
* **PDP grouped by item** (:func:`pdp_features`, :func:`resampled_pdp`; DiIanni & Deutsch 2025): its three sums
  are sums over the items, ``Σ_g n_g Σ_{k∈g} (x_k - x̄_g)(h_k - h̄_g)`` and the like, so an item drawn c times
  counts c times.
* **Means over items** (:func:`resampled_item_mean`): tie-calibrated acc_23 at each metric's calibrated epsilon,
  ``Σ_r c_r a_r / Σ_r c_r`` with ``a_r`` an item's share of good pairs.
* **Means over system pairs** (:func:`pair_weights`, :func:`resampled_pair_mean`): pooled pairwise accuracy and
  soft pairwise accuracy. Drawing systems with replacement pairs a system with its own copy, which tells nothing
  (both sides tie, and would count as agreement); so a resample weighs each pair of distinct systems ``i < j`` by
  the number of pairs of drawn copies it stands for, ``c_i c_j``, and pairs of copies of one system are left out.

Draws come in chunks of :data:`CHUNK` resamples from one ``numpy.random.Generator`` (pass
``mtsig.stats.seeding.rng_for(seed, ...)``), consumed in the same order whatever the caller, so the draws depend on
the seed and the number of units only, and fewer resamples are a prefix of more. Sums of non-integer values go
through :class:`mtsig.runtime.portable.WeightedSums` (the same bits on every machine). Library only: arrays in, arrays out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mtsig.errors import InputError
from mtsig.runtime.portable import WeightedSums
from mtsig.stats.resampling.draws import bootstrap_indices, counts_from_indices

#: Resamples drawn per chunk (the stream is consumed in the same order whatever the number of resamples).
CHUNK = 100
#: The two resampling schemes (Deutsch et al. 2021, Sec. 3.1), by what they draw.
SCHEMES = ("systems", "items")


def draw_counts(rng: np.random.Generator, n_units: int, n_resamples: int) -> np.ndarray:
    """``int64[n_resamples, n_units]``: how often each unit is drawn in each resample of ``n_units`` draws with
    replacement (:func:`~mtsig.stats.resampling.draws.bootstrap_indices` per chunk of :data:`CHUNK` resamples)."""
    if n_units < 1 or n_resamples < 1:
        raise InputError(
            f"a bootstrap needs at least one unit and one resample, got {n_units} and {n_resamples}"
        )
    chunks = []
    for start in range(0, n_resamples, CHUNK):
        size = min(CHUNK, n_resamples - start)
        chunks.append(counts_from_indices(bootstrap_indices(rng, n_units, size), n_units, np.int64))
    return np.concatenate(chunks)


def draw_counts_of_size(rng: np.random.Generator, n_units: int, size: int, n_resamples: int) -> np.ndarray:
    """``int64[n_resamples, n_units]``: how often each unit is drawn in each of ``n_resamples`` test sets of ``size``
    units drawn with replacement from the ``n_units`` real ones (a multinomial draw per test set, so the cost does not
    grow with ``size``): test sets smaller or larger than the real one, drawn from the same items."""
    if n_units < 1 or n_resamples < 1 or size < 1:
        raise InputError(
            f"a resample needs at least one unit, one draw and one resample, got {n_units}, {size}, {n_resamples}"
        )
    return rng.multinomial(size, np.full(n_units, 1.0 / n_units), size=n_resamples).astype(np.int64)


# ------------------------------------------------------------------------------------------------ Pearson


def pearson_features(human: np.ndarray, metrics: np.ndarray) -> np.ndarray:
    """Per unit, the sums a Pearson correlation over the rated cells needs: ``[U, 3 + 3M]`` = the number of rated
    cells, ``Σ h``, ``Σ h²``, then per metric ``Σ x``, ``Σ x²``, ``Σ x h``, over the unit's cells with a human
    score. ``human[U, C]`` (NaN = not rated), ``metrics[M, U, C]`` (finite). The values are centred on their means
    over all rated cells first: a correlation does not change, and the sums lose no digits to cancellation."""
    h = np.asarray(human, dtype=np.float64)
    x = np.asarray(metrics, dtype=np.float64)
    if h.ndim != 2 or x.shape[1:] != h.shape:
        raise InputError(f"metric cells {x.shape} do not match the human cells {h.shape}")
    rated = np.isfinite(h)
    if not rated.any():
        raise InputError("no cell has a human score")
    if not np.isfinite(x[:, rated]).all():
        raise InputError("metric scores: every rated cell needs a finite score")
    hc = np.where(rated, h - h[rated].mean(), 0.0)
    xc = np.where(rated, x - x[:, rated].mean(axis=1)[:, None, None], 0.0)
    columns = [rated.sum(axis=1), hc.sum(axis=1), (hc * hc).sum(axis=1)]
    per_metric = np.stack([xc.sum(axis=2), (xc * xc).sum(axis=2), (xc * hc).sum(axis=2)], axis=2)  # [M, U, 3]
    return np.concatenate(
        [np.stack(columns, axis=1), per_metric.transpose(1, 0, 2).reshape(h.shape[0], -1)], axis=1
    )


def pearson_of_sums(sums: np.ndarray) -> np.ndarray:
    """Pearson's r of every metric from summed :func:`pearson_features` (``[..., 3 + 3M]`` -> ``[..., M]``); NaN
    where a side is constant (or fewer than two cells)."""
    n, sh, shh = sums[..., 0:1], sums[..., 1:2], sums[..., 2:3]
    sx, sxx, sxh = sums[..., 3::3], sums[..., 4::3], sums[..., 5::3]
    cov = n * sxh - sx * sh
    var = (n * sxx - sx * sx) * (n * shh - sh * sh)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(var > 0, cov / np.sqrt(np.where(var > 0, var, 1.0)), np.nan)


def resampled_pearson(counts: np.ndarray, features: np.ndarray) -> np.ndarray:
    """``[B, M]``: Pearson's r over the cells of each resample's drawn units (``counts[B, U]``, ``features`` of
    :func:`pearson_features`); NaN where undefined."""
    return pearson_of_sums(WeightedSums(features)(counts.astype(np.float64)))


def pdp_features(human: np.ndarray, metrics: np.ndarray) -> np.ndarray:
    """Per item, the sums of Pairwise Difference Pearson
    (:func:`mtsig.stats.meta_evaluation.grouped_correlation.group_statistics`, ``pdp``): ``[G, 1 + 2M]`` =
    ``n_g Σ (h - h̄_g)²``, then per metric ``n_g Σ (x - x̄_g)(h - h̄_g)`` and ``n_g Σ (x - x̄_g)²`` over the
    item's rated cells. ``human[G, L]`` (NaN = not rated), ``metrics[M, G, L]``."""
    from mtsig.stats.meta_evaluation.grouped_correlation import _centred  # noqa: PLC0415 - a private helper of the same layer

    h = np.asarray(human, dtype=np.float64)
    x = np.asarray(metrics, dtype=np.float64)
    rated = np.isfinite(h)
    n = rated.sum(axis=1).astype(np.float64)
    hc = _centred(np.where(rated, h, 0.0), rated)
    xc = _centred(x, np.broadcast_to(rated, x.shape))
    per_metric = np.stack([(xc * hc).sum(axis=2) * n, (xc * xc).sum(axis=2) * n], axis=2)  # [M, G, 2]
    return np.concatenate(
        [((hc * hc).sum(axis=1) * n)[:, None], per_metric.transpose(1, 0, 2).reshape(len(n), -1)], 1
    )


def resampled_pdp(counts: np.ndarray, features: np.ndarray) -> np.ndarray:
    """``[B, M]``: PDP over each resample's drawn items (``counts[B, G]``, :func:`pdp_features`); NaN where every
    difference of a side is 0."""
    sums = WeightedSums(features)(counts.astype(np.float64))
    syy, sxy, sxx = sums[:, 0:1], sums[:, 1::2], sums[:, 2::2]
    with np.errstate(invalid="ignore", divide="ignore"):
        den = sxx * syy
        return np.where(den > 0, sxy / np.sqrt(np.where(den > 0, den, 1.0)), np.nan)


# ------------------------------------------------------------------------------------------------ means


def resampled_item_mean(counts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``[B, M]``: each resample's mean of the items' values ``values[M, R]``, an item drawn c times counted c
    times (``Σ_r c_r v_r / Σ_r c_r``)."""
    v = np.asarray(values, dtype=np.float64)
    sums = WeightedSums(v.T)(counts.astype(np.float64))
    return sums / counts.sum(axis=1, keepdims=True)


def pair_weights(counts: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """``[B, P]``: the weight ``c_i c_j`` of each system pair ``(first[p], second[p])`` (distinct systems) in each
    resample: the number of pairs of drawn copies it stands for (module docstring)."""
    return counts[:, first] * counts[:, second]


def resampled_pair_mean(weights: Sequence[np.ndarray], values: Sequence[np.ndarray]) -> np.ndarray:
    """``[B, M]``: the weighted mean over the system pairs of one or more strata (pooled pairwise accuracy: the
    language pairs), ``Σ_l weights_l @ values_l.T / Σ_l Σ_p weights_l``; ``weights[l]`` ``[B, P_l]`` from
    :func:`pair_weights`, ``values[l]`` ``[M, P_l]``; NaN where every drawn system is one system."""
    numerator = sum(
        WeightedSums(np.asarray(v, dtype=np.float64).T)(w.astype(np.float64))
        for w, v in zip(weights, values, strict=True)
    )
    denominator = sum(w.sum(axis=1) for w in weights)[:, None].astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1.0), np.nan)


# ------------------------------------------------------------------------------------------------ intervals


def percentile_intervals(draws: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(low, high, n_undefined)`` per column of ``draws[B, M]``: the percentile interval ``[q_{(1-c)/2},
    q_{(1+c)/2}]`` of the defined (finite) resampled values (numpy's linear quantiles, as
    :func:`mtsig.stats.meta_evaluation.metric_comparison.bootstrap_correlations`), and how many resamples were
    undefined; NaN bounds for a column without a defined value."""
    if not 0 < confidence < 1:
        raise InputError(f"confidence must lie in (0, 1), got {confidence}")
    draws = np.asarray(draws, dtype=np.float64)
    defined = np.isfinite(draws)
    low = np.full(draws.shape[1], np.nan)
    high = np.full(draws.shape[1], np.nan)
    for m in np.flatnonzero(defined.any(axis=0)):  # one sort per metric, never per resample
        low[m], high[m] = np.quantile(draws[defined[:, m], m], [(1 - confidence) / 2, (1 + confidence) / 2])
    return low, high, (~defined).sum(axis=0)
