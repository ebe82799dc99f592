"""Comparing two metrics with resampling: bootstrap intervals of correlations, PERM-BOTH, pairwise accuracy.

Deutsch, Dror & Roth (2021, TACL, "A Statistical Analysis of Summarization Evaluation Metrics using Resampling
Methods", Sec. 3-4) give a metric's system-level correlation a bootstrap confidence interval by resampling the
systems (BOOT-SYSTEMS), the inputs (segments; BOOT-INPUTS) or both (BOOT-BOTH), and test whether metric B
correlates better than metric A with a paired permutation test that swaps the two metrics' (standardised) scores
of each (system, input) cell (PERM-BOTH). Kocmi, Federmann, Grundkiewicz, Junczys-Dowmunt, Matsushita & Menezes
(2021, "To Ship or Not to Ship", Sec. 3) score a metric by its pairwise accuracy: the share of system pairs it
orders as the humans do; Deutsch, Foster & Freitag (2023, "Ties Matter", Sec. 3) count a pair the humans call a
tie as correct only when the metric ties it too (acc_eq). docs/statistics.md states each statistic exactly.

Vectorised over resamples: a resample is one row of a ``[B, ...]`` array (index draws, swap masks, sign flips);
no Python loop per resample. Draws come in chunks of :data:`CHUNK` resamples from one ``numpy.random.Generator``
(pass ``mtsig.stats.seeding.rng_for(seed, ...)``); the stream is consumed in the same order whatever the chunk, so
results depend on the seed only.

Library only: arrays in, arrays out; the CLI and the steps read the files.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from mtsig.errors import InputError
from mtsig.runtime.portable import WeightedSums, sum_of_products
from mtsig.runtime.progress import Progress, counter
from mtsig.settings import MetaEvaluation
from mtsig.stats.meta_evaluation.system_level import correlation
from mtsig.stats.resampling.draws import bootstrap_indices, counts_from_indices

#: Deutsch et al. (2021), Sec. 3.1: the three bootstrap resampling schemes of a system-level correlation.
BOOTSTRAP_SCHEMES = ("systems", "inputs", "both")
#: Resamples drawn and scored per vectorised block (memory: CHUNK x systems x segments floats).
CHUNK = 100


def _finite(values: object, what: str, ndim: tuple[int, ...]) -> np.ndarray:
    array = np.asarray(values, dtype=np.float64)
    if array.ndim not in ndim:
        raise InputError(
            f"{what}: expected an array of {' or '.join(map(str, ndim))} dimensions, got {array.shape}"
        )
    if not np.isfinite(array).all():
        raise InputError(f"{what}: every score must be a finite number")
    return array


def _chunks(n: int) -> list[int]:
    return [min(CHUNK, n - start) for start in range(0, n, CHUNK)]


def _standardise(scores: np.ndarray) -> np.ndarray:
    """z-scores over every cell (mean 0, population standard deviation 1), as ``scipy.stats.zscore`` on the
    flattened scores: Deutsch et al. (2021), Sec. 4.1, put two metrics on one scale before swapping their scores;
    mt-metrics-eval's ``PermutationSigDiff`` does the same. A constant metric is only centred."""
    sd = scores.std()
    return (scores - scores.mean()) / (sd if sd > 0 else 1.0)


# ------------------------------------------------------------------------------------------------ bootstrap


@dataclass(frozen=True)
class BootstrapInterval:
    """A correlation, its percentile bootstrap interval and the resampled correlations (NaN resamples, e.g. a
    resample of identical systems, are dropped from the percentiles and counted in ``n_undefined``)."""

    estimate: float
    low: float
    high: float
    n_resamples: int
    n_undefined: int


#: ``f(counts)``: the system scores ``[B, M, S]`` of M metrics on B resampled test sets, where ``counts[B, N]`` says
#: how often each of the N inputs was drawn; ``f(None)``: the scores ``[M, S]`` on the test set itself. A corpus
#: metric (BLEU) sums its statistics with the counts; a segment-mean metric averages with them.
SystemScoresOfCounts = Callable[[np.ndarray | None], np.ndarray]


def segment_mean_scores(segments: np.ndarray) -> SystemScoresOfCounts:
    """The system scores of metrics whose system score is the mean of its segment scores ``segments[M, S, N]``,
    as a function of the inputs' draw counts (:data:`SystemScoresOfCounts`)."""
    n_inputs = segments.shape[-1]
    # the same bits on every machine (mtsig.runtime.portable)
    sums_of = WeightedSums(segments.reshape(-1, n_inputs).T)  # [N, M*S]

    def scores(counts: np.ndarray | None) -> np.ndarray:
        if counts is None:
            return segments.mean(axis=-1)
        # the mean over the drawn inputs: each input weighted by how often it was drawn
        summed = sums_of(counts, n_inputs)
        return summed.reshape(counts.shape[0], *segments.shape[:-1]) / n_inputs

    return scores


def bootstrap_correlations(
    system_scores: SystemScoresOfCounts,
    human: object,
    n_inputs: int,
    *,
    scheme: str = "both",
    kind: str = "pearson",
    n_resamples: int = MetaEvaluation.bootstrap_samples,
    confidence: float = MetaEvaluation.confidence,
    rng: np.random.Generator,
    progress: Progress | None = None,
) -> list[BootstrapInterval]:
    """Percentile bootstrap intervals of M metrics' system-level correlations with the human system scores
    (Deutsch et al. 2021, Sec. 3.1, Alg. 1-3), all metrics on the same draws.

    ``system_scores``: see :data:`SystemScoresOfCounts`. ``human``: ``[S]`` system scores, or a function of the
    counts like ``system_scores`` giving ``[B, S]`` (human scores resampled with the same inputs). ``scheme``:
    ``systems`` draws S systems with replacement (BOOT-SYSTEMS), ``inputs`` draws ``n_inputs`` inputs with
    replacement (BOOT-INPUTS), ``both`` draws both independently (BOOT-BOTH); in a chunk the systems are drawn
    before the inputs. The interval is ``[q_{(1-c)/2}, q_{(1+c)/2}]`` of the resampled correlations (numpy's
    linear quantiles); resamples with an undefined correlation (constant scores) are left out and counted.
    ``progress`` (:mod:`mtsig.runtime.progress`): told in resamples after each chunk.
    """
    if scheme not in BOOTSTRAP_SCHEMES:
        raise InputError(f"unknown bootstrap scheme {scheme!r} ({', '.join(BOOTSTRAP_SCHEMES)})")
    if not 0 < confidence < 1:
        raise InputError(f"confidence must lie in (0, 1), got {confidence}")
    full = _finite(system_scores(None), "metric system scores", (2,))
    human_of = human if callable(human) else None
    fixed = None if human_of else _finite(human, "human scores", (1,))
    h = fixed if fixed is not None else _finite(human_of(None), "human system scores", (1,))
    n_metrics, n_sys = full.shape
    if h.shape != (n_sys,):
        raise InputError(f"{h.shape[0]} human system scores for {n_sys} systems")
    estimates = correlation(full, h, kind)
    draws = []
    advance = counter(progress, n_resamples)
    for size in _chunks(n_resamples):
        rows = np.arange(size)[:, None]
        systems = (
            bootstrap_indices(rng, n_sys, size)
            if scheme != "inputs"
            else np.broadcast_to(np.arange(n_sys), (size, n_sys))
        )
        if scheme != "systems":
            counts = counts_from_indices(bootstrap_indices(rng, n_inputs, size), n_inputs)
            sys_x = system_scores(counts)  # [size, M, S]
            sys_h = human_of(counts) if human_of else np.broadcast_to(h, (size, n_sys))
        else:
            sys_x = np.broadcast_to(full, (size, n_metrics, n_sys))
            sys_h = np.broadcast_to(h, (size, n_sys))
        picked_x = np.take_along_axis(sys_x, np.broadcast_to(systems[:, None, :], sys_x.shape), axis=-1)
        picked_h = sys_h[rows, systems]
        draws.append(correlation(picked_x, picked_h[:, None, :], kind))
        advance(size)
    values = np.concatenate(draws)  # [B, M]
    intervals = []
    for m in range(n_metrics):
        defined = values[np.isfinite(values[:, m]), m]
        if defined.size == 0:
            raise InputError("no resample gave a defined correlation (constant scores?)")
        low, high = np.quantile(defined, [(1 - confidence) / 2, (1 + confidence) / 2])
        intervals.append(
            BootstrapInterval(
                float(estimates[m]), float(low), float(high), n_resamples, int(values.shape[0] - defined.size)
            )
        )
    return intervals


def bootstrap_correlation(metric: object, human: object, **options: Any) -> BootstrapInterval:
    """:func:`bootstrap_correlations` of one metric given by its segment scores ``metric[S, N]`` (system score =
    mean over the inputs), with ``human`` system scores ``[S]`` (kept fixed when inputs are resampled) or segment
    scores ``[S, N]`` (resampled with the same inputs, as in Deutsch et al.'s Alg. 2-3); ``options``: its keyword
    arguments (``scheme``, ``kind``, ``n_resamples``, ``confidence``, ``rng``)."""
    x = _finite(metric, "metric scores", (2,))
    h = _finite(human, "human scores", (1, 2))
    if h.shape not in (x.shape, x.shape[:1]):
        raise InputError(
            f"human scores {h.shape} must be [systems] or [systems, inputs] like the metric {x.shape}"
        )
    human_scores = h
    if h.ndim == 2:
        human_means = segment_mean_scores(h[None])

        def human_scores(counts: np.ndarray | None) -> np.ndarray:
            return human_means(counts)[..., 0, :]

    return bootstrap_correlations(segment_mean_scores(x[None]), human_scores, x.shape[1], **options)[0]


# ------------------------------------------------------------------------------------------------ PERM-BOTH


@dataclass(frozen=True)
class PermutationResult:
    """``delta`` = corr(B) - corr(A) on the real scores; ``p_value`` = share of the ``n_resamples`` swapped
    draws whose corr(B') - corr(A') >= delta (one-sided: "B correlates better than A"), as mt-metrics-eval."""

    corr_a: float
    corr_b: float
    delta: float
    p_value: float
    n_resamples: int


@dataclass(frozen=True)
class PermBothOptions:
    """The options of PERM-BOTH (Deutsch et al. 2021, Sec. 4.1; :func:`perm_both`, :func:`perm_both_matrix`): the
    correlation ``kind``, the ``n_resamples`` swapped draws, and whether each metric is z-scored over all its cells
    first (``standardise``, :func:`_standardise`, as both references do)."""

    kind: str = "pearson"
    n_resamples: int = MetaEvaluation.permutation_samples
    standardise: bool = True


def perm_both(
    human: object,
    metric_a: object,
    metric_b: object,
    options: PermBothOptions = PermBothOptions(),
    *,
    rng: np.random.Generator,
) -> PermutationResult:
    """Paired permutation test of "metric B correlates better with the humans than metric A".

    Deutsch et al. (2021), Sec. 4.1, PERM-BOTH: under H0 the two metrics are exchangeable, so every
    (system, input) cell's two scores are swapped with probability 1/2, independently; the statistic is recomputed
    on each swapped pair of score matrices. Shapes:

    * ``metric_a``, ``metric_b`` ``[S, N]`` and ``human`` ``[S]``: system-level correlation of the input means
      (PERM-BOTH proper);
    * ``metric_a``, ``metric_b`` ``[S, N]`` and ``human`` ``[S, N]``: one correlation over all S·N cells
      (segment level without grouping; mt-metrics-eval's ``PermutationSigDiff(average_by="none")``);
    * ``metric_a``, ``metric_b``, ``human`` ``[S]``: system scores only, each system's two scores swapped
      (PERM-SYSTEMS; ``PermutationSigDiff`` on system-level scores).

    ``options``: :class:`PermBothOptions` (``standardise`` z-scores each metric over all its cells first).
    """
    kind, n_resamples = options.kind, options.n_resamples
    a = _finite(metric_a, "metric A scores", (1, 2))
    b = _finite(metric_b, "metric B scores", (1, 2))
    h = _finite(human, "human scores", (1, 2))
    if a.shape != b.shape:
        raise InputError(f"the two metrics score different cells: {a.shape} vs {b.shape}")
    if h.shape not in (a.shape, a.shape[:1]):
        raise InputError(f"human scores {h.shape} must be [systems] or the metrics' shape {a.shape}")
    if options.standardise:
        a, b = _standardise(a), _standardise(b)
    flat = h.shape == a.shape

    def score(x: np.ndarray) -> np.ndarray:  # [..., S(, N)] -> correlation [...]
        if flat:
            return correlation(x.reshape(*x.shape[: x.ndim - a.ndim], -1), h.reshape(-1), kind)
        return correlation(x.mean(axis=-1) if a.ndim == 2 else x, h, kind)

    corr_a, corr_b = float(score(a)), float(score(b))
    delta = corr_b - corr_a
    exceed = 0
    diff = b - a
    for size in _chunks(n_resamples):
        swap = rng.random((size, *a.shape)) < 0.5
        # a' = a + swap·(b - a), b' = b - swap·(b - a): the cells' scores exchanged where swap is set
        moved = swap * diff
        draws = score(b - moved) - score(a + moved)
        exceed += int(np.count_nonzero(draws >= delta))
    return PermutationResult(corr_a, corr_b, delta, exceed / n_resamples, n_resamples)


def _pearson_from_sums(n: float, sx, sy, sxx, syy, sxy) -> np.ndarray:
    """Pearson's r from the sums of x, y, x², y², xy over n cells (NaN where a side is constant)."""
    cov = n * sxy - sx * sy
    var = (n * sxx - sx * sx) * (n * syy - sy * sy)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(var > 0, cov / np.sqrt(np.where(var > 0, var, 1.0)), np.nan)


def perm_both_matrix(
    human: object,
    metrics: object,
    options: PermBothOptions = PermBothOptions(),
    *,
    rng: np.random.Generator,
    progress: Progress | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """PERM-BOTH (:func:`perm_both`) between every two of M metrics at once: ``(p[M, M], r[M])``, where
    ``p[a, b]`` is the one-sided p of "metric a correlates better than metric b" (the WMT Williams matrices'
    orientation: row beats column) and ``r`` the metrics' correlations; the diagonal is NaN.

    ``metrics``: ``[M, S, N]`` with ``human`` ``[S]`` (system level) or ``[S, N]`` (one correlation over all
    cells), or ``[M, K]`` with ``human`` ``[K]`` (each of K cells or systems swapped as a unit).

    One swap mask per resample serves every pair (each pair's test is the same valid permutation test; the pairs'
    p-values are merely correlated), and the swapped statistics come from sums, never from swapped copies:
    with ``m`` the mask and ``d = x_b - x_a``, ``x_a' = x_a + m d`` and ``x_b' = x_b - m d``, so
    ``Σ x_a' = Σ x_a + m·d``, ``Σ x_a'² = Σ x_a² + m·(x_b² - x_a²)`` and ``Σ x_a' h = Σ x_a h + m·(d h)``:
    one matrix product ``mask[B, K] @ [x, x², x h][K, 3M]`` gives every pair's resampled Pearson r over the cells;
    at the system level ``mask[B, S, N]`` times each metric's scores, summed over N, gives every pair's
    resampled system means. ``options`` (:class:`PermBothOptions`): a ``kind`` other than ``pearson`` is supported
    at the system level only. ``progress`` (:mod:`mtsig.runtime.progress`): told in resamples after each chunk.
    """
    kind, n_resamples = options.kind, options.n_resamples
    x = _finite(metrics, "metric scores", (2, 3))
    h = _finite(human, "human scores", (1, 2))
    n_metrics = x.shape[0]
    if n_metrics < 2:
        raise InputError("PERM-BOTH needs at least two metrics")
    cell_shape = x.shape[1:]
    system_level = x.ndim == 3 and h.shape == cell_shape[:1]
    if not system_level and h.shape != cell_shape:
        raise InputError(f"human scores {h.shape} must be [systems] or the cells' shape {cell_shape}")
    if not system_level and kind != "pearson":
        raise InputError(f"{kind}: PERM-BOTH over all cells is implemented for Pearson only")
    if options.standardise:
        x = np.stack([_standardise(row) for row in x])
    a_idx, b_idx = np.triu_indices(n_metrics, k=1)
    swapped = _system_level_swaps if system_level else _cell_level_swaps
    r, swapped_differences = swapped(x, h, kind, a_idx, b_idx)
    delta = r[b_idx] - r[a_idx]
    at_least = np.zeros(a_idx.size, dtype=np.int64)  # draws with d' >= d: "b beats a"
    at_most = np.zeros(a_idx.size, dtype=np.int64)  # draws with d' <= d: "a beats b" (-d' >= -d)
    advance = counter(progress, n_resamples)
    for size in _chunks(n_resamples):
        draws = swapped_differences(rng, size)
        at_least += np.count_nonzero(draws >= delta, axis=0)
        at_most += np.count_nonzero(draws <= delta, axis=0)
        advance(size)
    p = np.full((n_metrics, n_metrics), np.nan)
    p[b_idx, a_idx] = at_least / n_resamples
    p[a_idx, b_idx] = at_most / n_resamples
    return p, r


#: ``(r[M], draws(rng, B) -> d'[B, P])``: the metrics' correlations and a function that draws B swap masks and
#: returns every pair's swapped difference ``r_b' - r_a'`` (pairs ``np.triu_indices`` order).
SwappedDifferences = tuple[np.ndarray, Callable[[np.random.Generator, int], np.ndarray]]


def _system_level_swaps(
    x: np.ndarray, h: np.ndarray, kind: str, a_idx: np.ndarray, b_idx: np.ndarray
) -> SwappedDifferences:
    """PERM-BOTH at the system level (:func:`perm_both_matrix`): ``mask[B, S, N]`` times each metric's scores
    ``x[M, S, N]``, summed over N, gives every pair's resampled system means (Deutsch et al. 2021, Sec. 4.1)."""
    cell_shape = x.shape[1:]
    n_inputs = cell_shape[1]
    means = x.mean(axis=-1)  # [M, S]

    def draws(rng: np.random.Generator, size: int) -> np.ndarray:
        mask = (rng.random((size, *cell_shape)) < 0.5).astype(np.float64)
        moved = np.einsum("bsn,msn->bms", mask, x) / n_inputs  # [B, M, S]: mean of the masked cells
        shift = moved[:, b_idx] - moved[:, a_idx]  # [B, P, S]: m·d per system / N
        return correlation(means[b_idx] - shift, h, kind) - correlation(means[a_idx] + shift, h, kind)

    return correlation(means, h, kind), draws


def _cell_level_swaps(
    x: np.ndarray, h: np.ndarray, kind: str, a_idx: np.ndarray, b_idx: np.ndarray
) -> SwappedDifferences:
    """PERM-BOTH over all K cells, Pearson only (:func:`perm_both_matrix`): one product ``mask[B, K] @ [x, x², x
    h][K, 3M]`` gives every pair's swapped sums, hence its resampled r (mt-metrics-eval's
    ``PermutationSigDiff(average_by="none")``)."""
    n_metrics = x.shape[0]
    flat = x.reshape(n_metrics, -1)  # [M, K]
    hf = h.reshape(-1)
    k = float(hf.size)
    sy, syy = hf.sum(), sum_of_products(hf, hf)
    features = np.concatenate([flat, flat * flat, flat * hf]).T  # [K, 3M]
    sums_of = WeightedSums(features)  # the same bits on every machine (mtsig.runtime.portable)
    sx, sxx, sxy = np.split(features.sum(axis=0), 3)

    def draws(rng: np.random.Generator, size: int) -> np.ndarray:
        mask = (rng.random((size, flat.shape[1])) < 0.5).astype(np.float64)
        tx, txx, txy = np.split(sums_of(mask, flat.shape[1]), 3, axis=1)  # [B, M] each
        dx, dxx, dxy = (t[:, b_idx] - t[:, a_idx] for t in (tx, txx, txy))
        r_a = _pearson_from_sums(k, sx[a_idx] + dx, sy, sxx[a_idx] + dxx, syy, sxy[a_idx] + dxy)
        r_b = _pearson_from_sums(k, sx[b_idx] - dx, sy, sxx[b_idx] - dxx, syy, sxy[b_idx] - dxy)
        return r_b - r_a

    return _pearson_from_sums(k, sx, sy, sxx, syy, sxy), draws


# ------------------------------------------------------------------------------------------------ pairwise accuracy


def pair_signs(system_scores: object, *, epsilon: float = 0.0) -> np.ndarray:
    """sign(s_i - s_j) for every system pair i < j (``np.triu_indices`` order) along the last axis; a difference
    of at most ``epsilon`` in absolute value is a tie (0) (Deutsch et al. 2023, Sec. 4, tie threshold)."""
    s = _finite(system_scores, "system scores", (1, 2, 3))
    i, j = np.triu_indices(s.shape[-1], k=1)
    d = s[..., i] - s[..., j]
    return np.where(np.abs(d) <= epsilon, 0, np.sign(d)).astype(np.int8)


def gold_pair_signs(better: object) -> np.ndarray:
    """The gold of every system pair i < j from a square boolean matrix ``better[i, j]`` = "humans judge system i
    significantly better than j" (e.g. the Wilcoxon DA gold): +1, -1, or 0 where neither is ("no difference")."""
    m = np.asarray(better, dtype=bool)
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise InputError(f"gold: expected a square matrix of systems, got shape {m.shape}")
    if (m & m.T).any():
        raise InputError("gold: a pair of systems is judged significantly better in both directions")
    i, j = np.triu_indices(m.shape[0], k=1)
    return (m[i, j].astype(np.int8) - m[j, i].astype(np.int8)).astype(np.int8)


def pair_correct(system_scores: object, gold: object, *, epsilon: float = 0.0) -> np.ndarray:
    """bool ``[..., P]``: the metric's sign of each pair equals the gold's (ties included: acc_eq)."""
    g = np.asarray(gold, dtype=np.int8)
    signs = pair_signs(system_scores, epsilon=epsilon)
    if signs.shape[-1] != g.shape[-1]:
        raise InputError(f"{signs.shape[-1]} system pairs in the scores but {g.shape[-1]} in the gold")
    return signs == g


def pairwise_accuracy(system_scores: object, gold: object, *, epsilon: float = 0.0) -> np.ndarray:
    """Pairwise accuracy (Kocmi et al. 2021, Sec. 3; with ties, Deutsch et al. 2023, Sec. 3, acc_eq):
    ``(C + T_hm) / P``: the pairs the metric orders as the gold, plus the pairs both call a tie, over all P pairs.
    ``gold``: ``[P]`` signs from :func:`gold_pair_signs`. Vectorised over leading axes (metrics)."""
    return pair_correct(system_scores, gold, epsilon=epsilon).mean(axis=-1)


def accuracy_permutation(
    correct_a: object,
    correct_b: object,
    *,
    n_resamples: int = MetaEvaluation.permutation_samples,
    rng: np.random.Generator,
) -> PermutationResult:
    """Paired permutation test of "metric B's pairwise accuracy exceeds metric A's".

    Under H0 the two metrics are exchangeable on every system pair, so each pair's two outcomes (correct or not)
    are swapped with probability 1/2: the difference of accuracies becomes ``Σ_p σ_p (c_b,p - c_a,p) / P`` with
    independent random signs σ_p (a sign-flip test on the pairs where exactly one metric is right; the
    swapping scheme of mt-metrics-eval's ``PairwisePermutationSigDiff``, applied to accuracy). One-sided p:
    share of draws >= the observed difference (docs/statistics.md).
    """
    ca = np.asarray(correct_a, dtype=bool)
    cb = np.asarray(correct_b, dtype=bool)
    if ca.shape != cb.shape or ca.ndim != 1:
        raise InputError(f"expected two vectors of the same system pairs, got {ca.shape} and {cb.shape}")
    d = cb.astype(np.float64) - ca.astype(np.float64)
    n_pairs = d.size
    delta = d.sum() / n_pairs
    exceed = 0
    for size in _chunks(n_resamples):
        flips = np.where(rng.random((size, n_pairs)) < 0.5, -1.0, 1.0)
        exceed += int(np.count_nonzero(flips @ d / n_pairs >= delta - 1e-12))
    return PermutationResult(
        float(ca.mean()), float(cb.mean()), float(delta), exceed / n_resamples, n_resamples
    )


def accuracy_permutation_matrix(
    correct: object,
    *,
    n_resamples: int = MetaEvaluation.permutation_samples,
    rng: np.random.Generator,
    progress: Progress | None = None,
) -> np.ndarray:
    """:func:`accuracy_permutation` between every two of M metrics at once: ``p[a, b]`` is the one-sided p of
    "metric a is more accurate than metric b" (row beats column, as the Williams matrices), NaN on the diagonal.
    ``correct``: bool ``[M, P]`` (:func:`pair_correct` of each metric). One sign vector per resample serves
    every pair of metrics (each pair's test is the same valid sign-flip test; their p-values are correlated).
    ``progress`` (:mod:`mtsig.runtime.progress`): told in resamples after each chunk."""
    c = np.asarray(correct, dtype=bool)
    if c.ndim != 2 or c.shape[0] < 2:
        raise InputError(f"expected the pair outcomes of at least two metrics [M, P], got shape {c.shape}")
    n_metrics, n_pairs = c.shape
    a_idx, b_idx = np.triu_indices(n_metrics, k=1)
    d = (c[a_idx].astype(np.float64) - c[b_idx].astype(np.float64)).T  # [P, pairs]: "a beats b" differences
    delta = d.sum(axis=0) / n_pairs
    at_least = np.zeros(a_idx.size, dtype=np.int64)
    at_most = np.zeros(a_idx.size, dtype=np.int64)
    advance = counter(progress, n_resamples)
    for size in _chunks(n_resamples):
        flips = np.where(rng.random((size, n_pairs)) < 0.5, -1.0, 1.0)
        draws = flips @ d / n_pairs  # [B, pairs]
        at_least += np.count_nonzero(draws >= delta - 1e-12, axis=0)
        # the sign-flip distribution is symmetric, so "b beats a" counts draws <= delta from the same flips
        at_most += np.count_nonzero(draws <= delta + 1e-12, axis=0)
        advance(size)
    p = np.full((n_metrics, n_metrics), np.nan)
    p[a_idx, b_idx] = at_least / n_resamples
    p[b_idx, a_idx] = at_most / n_resamples
    return p
