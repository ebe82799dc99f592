"""Permutation tests between every two metrics of a meta-evaluation task, vectorised over pairs and resamples.

Is metric A's statistic (a correlation, an accuracy) significantly better than metric B's? The WMT metrics tasks
since WMT21 answer with a paired permutation test (Deutsch, Dror & Roth 2021, TACL, Sec. 4.1, PERM-BOTH; Freitag
et al. 2023, Sec. 5.3): under H0 the two metrics are exchangeable, so each unit's two values are swapped with
probability 1/2, independently, and the statistic is recomputed for both hybrids. mt-metrics-eval implements it
per pair of metrics with a Python loop over resamples (``stats.PermutationSigDiff``, and
``PairwisePermutationSigDiff`` for tie-calibrated statistics). Here one swap mask per resample serves every pair of
metrics (each pair's test is the same valid test; their p-values are merely correlated), and each statistic has a
*source* that turns a block of masks into every active pair's hybrid difference at once:

* :class:`PearsonSwaps`: Pearson's r over cells (system level, or segment level without grouping), each metric
  z-scored over the cells first. A hybrid ``a' = z_a + w (z_b - z_a)`` (``w ∈ {0, 1}`` per cell) has sums linear
  in ``w`` because ``w² = w``: ``Σa' = Σz_a + w·(z_b - z_a)``, ``Σa'² = Σz_a² + w·(z_b² - z_a²)``,
  ``Σa'h = Σz_a h + w·((z_b - z_a) h)``; so ``W @ [z, z², z h]`` (one exact product, :mod:`mtsig.runtime.portable`) gives
  every hybrid correlation of every pair.
* :class:`PairSwaps`: tie-calibrated acc_23/tau_23 with the pairs' outcomes swapped (each metric keeps its own
  epsilon; mt-metrics-eval's ``perm_test='pairs'``): with ``c_m(p) ∈ {0, 1}`` and ``σ_p = ±1``,
  ``stat(a') - stat(b') = Σ_p σ_p (c_a(p) - c_b(p)) / (P_item(p) · n_items)``; ``σ @ C`` is an integer product,
  exact in float32 (sums below 2**24).
* :class:`PooledAccuracySwaps`: pooled pairwise accuracy; a system pair's agreement in a hybrid depends only on
  the two systems' mask bits, so each (metric pair, system pair) has a table of 4 outcomes and a resample is a
  lookup: exact integers.
* :class:`SpaSwaps`: soft pairwise accuracy; the hybrid's permutation sums are
  ``F @ a'_s = F @ z_a,s + F @ (w_s ∘ z_b,s) - F @ (w_s ∘ z_a,s)``, the second and third terms ``(F ∘ w_s) @ z_s``
  for all metrics at once, then the counts of every pair with a compiled loop.

Draws come in blocks of :data:`DRAW_BLOCK` resamples; block ``j``'s masks come from the generator
``rng_for(seed, *key, j)``, whatever pairs are still tested, so the draws depend on the seed and the task only.
Early stopping (mt-metrics-eval's ``PermutationSigDiffParams``: every ``block_size`` resamples, stop when the
running p is below ``early_min`` or above ``early_max``) is an option (:class:`EarlyStopping`), including the
placement of the check in ``PairwisePermutationSigDiff``, where it runs only after a resample that reached the
observed difference (``check_only_on_exceedance``). docs/statistics.md gives the definitions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from mtsig.errors import InputError
from mtsig.runtime.portable import WeightedSums
from mtsig.stats.meta_evaluation.tie_calibration import PairOutcomes
from mtsig.stats.seeding import rng_for

#: Resamples drawn per block (each block's masks from its own generator).
DRAW_BLOCK = 100


@dataclass(frozen=True)
class EarlyStopping:
    """mt-metrics-eval's early stopping: at every ``block_size``-th resample i, stop when ``count / i`` is below
    ``early_min`` or above ``early_max``; ``check_only_on_exceedance``: only when resample i itself reached the
    observed difference (the placement of the check in ``PairwisePermutationSigDiff``)."""

    block_size: int = 100
    early_min: float = 0.02
    early_max: float = 0.5
    check_only_on_exceedance: bool = False

    def __post_init__(self) -> None:
        if self.block_size < 1:
            raise InputError(f"early stopping block size must be >= 1, got {self.block_size}")


#: mt-metrics-eval's ``tasks.Task`` defaults (block_size 100, early_min 0.02, early_max 0.5) for ``PermutationSigDiff``.
MTME_EARLY_STOPPING = EarlyStopping()
#: The same for ``PairwisePermutationSigDiff``, whose check sits inside ``if c2 - c1 >= delta``.
MTME_PAIRS_EARLY_STOPPING = EarlyStopping(check_only_on_exceedance=True)


def swap_masks(rng: np.random.Generator, size: int, n_units: int) -> np.ndarray:
    """bool ``[size, n_units]``: independent fair coin flips (one random bit each)."""
    packed = rng.integers(0, 256, size=(size, (n_units + 7) // 8), dtype=np.uint8)
    return np.unpackbits(packed, axis=1, count=n_units).astype(bool)


def standardise(values: np.ndarray) -> np.ndarray:
    """z-scores along the last axis (population sd; ``scipy.stats.zscore``, as mt-metrics-eval's
    ``PermutationSigDiff``); a constant row is only centred."""
    mean = values.mean(axis=-1, keepdims=True)
    sd = values.std(axis=-1, keepdims=True)
    return (values - mean) / np.where(sd > 0, sd, 1.0)


# ------------------------------------------------------------------------------------------------ sources


class SwapSource(Protocol):
    """What :func:`permutation_test` needs of a statistic: ``n_units`` swapped by a mask, ``scale`` (the numerators'
    common denominator), ``observed(a, b)[P]`` and ``draws(masks[B, n_units], a, b)[B, P]``, the differences
    ``stat(a) - stat(b)`` of the metric pairs ``(a[p], b[p])`` and of their hybrids, times ``1/scale``. Sources here
    and in :mod:`mtsig.stats.meta_evaluation.score_permutation`."""

    n_units: int
    scale: float

    def observed(self, a: np.ndarray, b: np.ndarray) -> np.ndarray: ...

    def draws(self, masks: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray: ...


class PearsonSwaps:
    """Pearson's r over K cells: ``human[K]``, ``metrics[M, K]`` (z-scored here); a mask swaps cells."""

    def __init__(self, human: np.ndarray, metrics: np.ndarray) -> None:
        h = np.asarray(human, dtype=np.float64)
        z = standardise(np.asarray(metrics, dtype=np.float64))
        self.n_units = h.size
        self.hc = h - h.mean()  # centring changes no correlation and conditions the sums
        self.syy = float(np.sum(self.hc * self.hc))
        self.sy = float(np.sum(self.hc))
        features = np.concatenate([z, z * z, z * self.hc]).T  # [K, 3M]
        self.sums_of = WeightedSums(features)
        self.base = np.split(self.sums_of(np.ones((1, self.n_units)), float(self.n_units))[0], 3)
        self.scale = 1.0

    def _r(self, sx: np.ndarray, sxx: np.ndarray, sxy: np.ndarray) -> np.ndarray:
        n = float(self.n_units)
        cov = n * sxy - sx * self.sy
        var = (n * sxx - sx * sx) * (n * self.syy - self.sy * self.sy)
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.where(var > 0, cov / np.sqrt(np.where(var > 0, var, 1.0)), np.nan)
        return np.nan_to_num(r, nan=0.0)  # an undefined correlation averages to 0, as in mt-metrics-eval

    def observed(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        sx, sxx, sxy = self.base
        return self._r(sx[a], sxx[a], sxy[a]) - self._r(sx[b], sxx[b], sxy[b])

    def draws(self, masks: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        tx, txx, txy = np.split(self.sums_of(masks.astype(np.float64), float(self.n_units)), 3, axis=1)
        sx, sxx, sxy = self.base
        dx, dxx, dxy = (t[:, b] - t[:, a] for t in (tx, txx, txy))  # masked sums of z_b - z_a, ...
        r_a = self._r(sx[a] + dx, sxx[a] + dxx, sxy[a] + dxy)
        r_b = self._r(sx[b] - dx, sxx[b] - dxx, sxy[b] - dxy)
        return r_a - r_b


def packed_words(bits: np.ndarray) -> np.ndarray:
    """uint64 ``[..., ceil(n / 64)]``: the bool ``bits[..., n]`` packed along the last axis (zeros after the last),
    so that ``np.bitwise_count(x & y).sum(-1)`` counts the positions set in both."""
    packed = np.packbits(bits, axis=-1)
    pad = -packed.shape[-1] % 8
    if pad:
        packed = np.concatenate([packed, np.zeros((*packed.shape[:-1], pad), dtype=np.uint8)], axis=-1)
    return np.ascontiguousarray(packed).view(np.uint64)


class PairSwaps:
    """Tie-calibrated acc_23 with each pair's two outcomes swapped (:class:`PairOutcomes`); a draw's unit is a
    pair of cells. The numerators are exact integers over the common denominator ``L · n_items``.

    Per item size (weight ``L / P_item``) and metric, ``Σ_p σ_p c_m(p)`` with ``σ_p = 1 - 2 w_p`` is
    ``Σ_p c_m(p) - 2 #{p : w_p and c_m(p)}``: the last count a popcount of the mask's and the outcomes' packed bits."""

    #: Resamples whose popcounts are held at once (memory: CHUNK x metrics x pairs / 8 bytes).
    CHUNK = 25

    def __init__(self, outcomes: PairOutcomes, variant: str = "acc23") -> None:
        self.n_units = outcomes.good.shape[1]
        sizes = np.unique(outcomes.pair_size)
        common = int(np.lcm.reduce(sizes.astype(np.int64)))
        if common * self.n_units >= 2**53:  # pragma: no cover - thousands of distinct item sizes
            raise InputError("tie-calibrated permutation test: item sizes too varied for exact sums")
        # an outcome's weight in the numerator: L / P_item
        self.weight = (common // outcomes.pair_size.astype(np.int64)).astype(np.float64)
        self.columns = [np.flatnonzero(outcomes.pair_size == s) for s in sizes]
        # per item size: every metric's good outcomes, packed, and their number; the weight L / P_item
        self.packed = [packed_words(outcomes.good[:, c]) for c in self.columns]
        self.totals = [outcomes.good[:, c].sum(axis=1, dtype=np.int64) for c in self.columns]
        self.factors = [common // int(s) for s in sizes]
        self.good = outcomes.good
        # tau_23 = 2 acc_23 - 1, so its differences are twice acc_23's
        self.scale = (2.0 if variant == "23" else 1.0) / (common * outcomes.n_groups)
        self.base = (self.good * self.weight).sum(axis=1)  # exact integers

    def observed(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return self.base[a] - self.base[b]

    def draws(self, masks: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        used = np.union1d(a, b)
        position = np.searchsorted(used, [a, b])
        total = np.zeros((masks.shape[0], used.size), dtype=np.int64)
        for columns, packed, totals, factor in zip(
            self.columns, self.packed, self.totals, self.factors, strict=True
        ):
            good = packed[used]  # [U, W]
            for start in range(0, masks.shape[0], self.CHUNK):
                swapped = packed_words(masks[start : start + self.CHUNK, columns])  # [B, W]
                both = np.bitwise_count(swapped[:, None, :] & good[None, :, :]).sum(axis=-1, dtype=np.int64)
                total[start : start + self.CHUNK] += (totals[used] - 2 * both) * factor
        return (total[:, position[0]] - total[:, position[1]]).astype(np.float64)


class PooledAccuracySwaps:
    """Pooled pairwise accuracy; a draw's unit is a system of a language pair (``humans[l][S_l]``,
    ``metrics[l][M, S_l]``, each metric z-scored over all language pairs' systems, as mt-metrics-eval's
    ``PermutationSigDiff`` does on the pooled vector)."""

    def __init__(self, humans: Sequence[np.ndarray], metrics: Sequence[np.ndarray]) -> None:
        pooled = standardise(np.concatenate([np.asarray(m, dtype=np.float64) for m in metrics], axis=1))
        firsts, seconds, gold = [], [], []
        offset = 0
        for human in humans:
            h = np.asarray(human, dtype=np.float64)
            i, j = np.triu_indices(h.size, k=1)
            firsts.append(i + offset)
            seconds.append(j + offset)
            gold.append(np.sign(h[i] - h[j]))
            offset += h.size
        self.i = np.concatenate(firsts)
        self.j = np.concatenate(seconds)
        self.gold = np.concatenate(gold)
        self.z = pooled
        self.n_units = offset
        self.scale = 1.0 / self.i.size

    def _agree(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        return np.sign(first - second) == self.gold

    def observed(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        za, zb = self.z[a], self.z[b]
        agree_a = self._agree(za[:, self.i], za[:, self.j]).sum(axis=1)
        agree_b = self._agree(zb[:, self.i], zb[:, self.j]).sum(axis=1)
        return (agree_a - agree_b).astype(np.float64)

    def draws(self, masks: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        # table[p, q, c]: does hybrid a' agree on system pair q when its two systems take (a or b) by c = 2 w_i + w_j
        za, zb = self.z[a], self.z[b]
        first = np.stack([za[:, self.i], za[:, self.i], zb[:, self.i], zb[:, self.i]], axis=-1)
        second = np.stack([za[:, self.j], zb[:, self.j], za[:, self.j], zb[:, self.j]], axis=-1)
        table = np.sign(first - second) == self.gold[:, None]  # [P, Q, 4]
        combo = 2 * masks[:, self.i].astype(np.int64) + masks[:, self.j]  # [B, Q]
        q = np.arange(self.i.size)
        out = np.empty((masks.shape[0], a.size))
        for start in range(0, a.size, 64):  # pairs in chunks: [B, chunk, Q] lookups
            part = table[start : start + 64]
            hybrid_a = part[:, q[None, :], combo].sum(axis=-1)  # [chunk, B]
            hybrid_b = part[:, q[None, :], 3 - combo].sum(axis=-1)  # b' takes b where a' takes a
            out[:, start : start + 64] = (hybrid_a - hybrid_b).T
        return out


class SpaSwaps:
    """Soft pairwise accuracy over S systems x N rated segments: ``human_counts`` (the human's permutation
    counts), ``metrics[M, S, N]`` (each z-scored over its S·N cells, then rounded to float32 as pce.py does), the
    permutations' ``flips[R, N]``; a draw's unit is a cell. Numerators: differences of ``Σ_pairs |c_h - c_m|``
    (integers).

    Exact integer arithmetic: the z-scores are integers on a common binary grid
    (:func:`mtsig.runtime.portable.binary_grid`), so every permutation sum is an exact int64. Per system s and
    chunk of resamples, one product ``Y_s @ F^T`` with ``Y_s[(b, m), n] = w_b[s, n] z[m, s, n]`` gives ``(F ∘ w_s) @ z``
    of every resample and metric still tested (:func:`mtsig.runtime.portable.exact_integer_products`); a compiled
    loop then counts every pair's hybrids (:mod:`mtsig.stats.meta_evaluation.spa_compiled`).
    """

    #: Resamples whose swapped sums are held at once (memory: CHUNK x S x M x R int64).
    CHUNK = 10

    def __init__(self, human_counts: np.ndarray, metrics: np.ndarray, flips: np.ndarray) -> None:
        from mtsig.runtime.portable import binary_grid

        x = np.asarray(metrics, dtype=np.float64)
        n_metrics, self.n_systems, self.n_segments = x.shape
        z = standardise(x.reshape(n_metrics, -1)).reshape(x.shape).astype(np.float32).astype(np.float64)
        self.integers, self.exponent, self.exact = binary_grid(z, self.n_segments)
        self.narrow = bool(np.abs(self.integers).sum(axis=2).max() <= 2.0**53)
        self.flips_t = np.ascontiguousarray(flips.T, dtype=np.float64)  # [N, R]
        self.n_permutations = flips.shape[0]
        self.human_counts = np.asarray(human_counts, dtype=np.int64)
        self.si, self.sj = (np.asarray(t, dtype=np.int64) for t in np.triu_indices(self.n_systems, k=1))
        self.base = self._swapped(
            np.ones((1, self.n_systems, self.n_segments), dtype=bool), np.arange(n_metrics)
        )[0]
        self.n_units = self.n_systems * self.n_segments
        self.scale = 1.0 / (self.n_permutations * self.si.size)

    def _swapped(self, cells: np.ndarray, used: np.ndarray) -> np.ndarray:
        """int64 ``[B, U, S, R]``: ``(F ∘ w_b,s) @ z_m,s`` for the masks ``cells[B, S, N]`` and the metrics ``used``."""
        from mtsig.runtime.portable import exact_integer_products

        size = cells.shape[0]
        out = np.empty((size, used.size, self.n_systems, self.n_permutations), dtype=np.int64)
        values = np.empty((size, used.size, self.n_segments))
        for s in range(self.n_systems):
            np.multiply(cells[:, s, None, :], self.integers[None, used, s, :], out=values)  # [B, U, N]
            rows = values.reshape(-1, self.n_segments)
            if self.narrow:  # every row's magnitudes sum to at most 2**53: one exact product
                out[:, :, s, :] = (rows @ self.flips_t).reshape(size, used.size, self.n_permutations)
            else:
                sums = exact_integer_products(rows, self.flips_t)
                out[:, :, s, :] = sums.reshape(size, used.size, self.n_permutations)
        return out

    def _distances(self, swapped: np.ndarray, used: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        from mtsig.stats.meta_evaluation.spa_compiled import hybrid_distances

        position = np.full(self.base.shape[0], -1, dtype=np.int64)
        position[used] = np.arange(used.size)
        return hybrid_distances(self.base, swapped, position, self.human_counts, a, b, self.si, self.sj)

    def observed(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        used = np.union1d(a, b)
        zero = np.zeros((1, used.size, self.n_systems, self.n_permutations), dtype=np.int64)
        dist = self._distances(zero, used, a, b)[0]
        return (dist[:, 1] - dist[:, 0]).astype(np.float64)

    def draws(self, masks: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        used = np.union1d(a, b)
        out = np.empty((masks.shape[0], a.size))
        for start in range(0, masks.shape[0], self.CHUNK):  # resamples in chunks: memory, not results
            chunk = masks[start : start + self.CHUNK]
            cells = chunk.reshape(chunk.shape[0], self.n_systems, self.n_segments)
            dist = self._distances(self._swapped(cells, used), used, a, b)  # [size, P, 2]
            out[start : start + chunk.shape[0]] = dist[:, :, 1] - dist[:, :, 0]
        return out


# ------------------------------------------------------------------------------------------------ the test


@dataclass(frozen=True)
class PermutationResult:
    """The test of every pair ``(a[p], b[p])``, ``a < b``: ``delta[p]`` = stat(a) - stat(b) on the (z-scored)
    scores the resamples swap; ``draws[k, p]`` = stat(a') - stat(b') of each resample (NaN after ``n_used[p]``,
    where early stopping ended the pair's test); ``higher[p]``: a is ranked above b, and ``pvalue[p]`` is the
    p-value of the higher-ranked metric beating the other (``count / n_used``), as mt-metrics-eval tests it."""

    a: np.ndarray
    b: np.ndarray
    delta: np.ndarray
    draws: np.ndarray
    n_used: np.ndarray
    higher: np.ndarray
    pvalue: np.ndarray

    def matrix(self, order: Sequence[int]) -> np.ndarray:
        """mt-metrics-eval's significance matrix for metrics in ``order`` (best first): ``sig[i, j]`` (i < j) the
        p-value of ``order[i]`` beating ``order[j]``; 0 elsewhere, as ``ComputeSigMatrix`` leaves it."""
        n = len(order)
        position = np.empty(n, dtype=np.int64)
        position[np.asarray(order)] = np.arange(n)
        sig = np.zeros((n, n))
        pa, pb = position[self.a], position[self.b]
        first, second = np.minimum(pa, pb), np.maximum(pa, pb)
        sig[first, second] = self.pvalue
        return sig


def permutation_test(
    source: SwapSource,
    rank: Sequence[int],
    n_resamples: int,
    *,
    seed: int,
    key: Sequence[object],
    early_stopping: EarlyStopping | None = None,
    progress: Callable[[int, int], None] | None = None,
    draw_masks: Callable[[int, int], np.ndarray] | None = None,
) -> PermutationResult:
    """The paired permutation test between every two metrics (module docstring) with ``n_resamples`` resamples.

    ``rank[m]``: metric m's position in the task's ranking (0 = best); each pair is tested in the direction of
    the higher-ranked metric, as mt-metrics-eval tests it (``ComputeSigMatrix``): p = the share of resamples whose
    hybrid difference is at least the observed one (no +1). ``seed`` and ``key`` name the draws (block j from
    ``rng_for(seed, *key, j)``; ``draw_masks(j, size)`` replaces them, e.g. mt-metrics-eval's own draws,
    :func:`mtsig.stats.meta_evaluation.score_permutation.mtme_cell_masks`). ``progress(done, total)`` is
    called after each block.
    """
    rank = np.asarray(rank)
    n_metrics = rank.size
    a, b = np.triu_indices(n_metrics, k=1)
    higher = rank[a] < rank[b]
    delta = source.observed(a, b)
    n_pairs = a.size
    draws = np.full((n_resamples, n_pairs), np.nan)
    counts = np.zeros(n_pairs, dtype=np.int64)
    n_used = np.full(n_pairs, n_resamples, dtype=np.int64)
    active = np.ones(n_pairs, dtype=bool)
    n_blocks = -(-n_resamples // DRAW_BLOCK)
    for block in range(n_blocks):
        live = np.flatnonzero(active)
        if live.size == 0:
            break
        start = block * DRAW_BLOCK
        size = min(DRAW_BLOCK, n_resamples - start)
        if draw_masks is None:
            masks = swap_masks(rng_for(seed, *key, block), size, source.n_units)
        else:
            masks = draw_masks(block, size)
        numerators = source.draws(masks, a[live], b[live])  # [size, live]
        exceed = np.where(higher[live], numerators >= delta[live], numerators <= delta[live])
        running = counts[live] + np.cumsum(exceed, axis=0)
        ends = np.full(live.size, size)
        if early_stopping is not None:
            position = start + np.arange(1, size + 1)
            check = (position % early_stopping.block_size == 0)[:, None]
            if early_stopping.check_only_on_exceedance:
                check = check & exceed
            share = running / position[:, None]
            stop = check & ((share < early_stopping.early_min) | (share > early_stopping.early_max))
            stopped = stop.any(axis=0)
            ends = np.where(stopped, stop.argmax(axis=0) + 1, size)
            active[live[stopped]] = False
            n_used[live[stopped]] = start + ends[stopped]
        counts[live] = running[ends - 1, np.arange(live.size)]
        values = numerators * source.scale
        kept = np.arange(size)[:, None] < ends[None, :]
        draws[start : start + size, live] = np.where(kept, values, np.nan)
        if progress is not None:
            progress(block + 1, n_blocks)
    return PermutationResult(a, b, delta * source.scale, draws, n_used, higher, counts / n_used)
