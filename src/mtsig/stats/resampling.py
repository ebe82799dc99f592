"""Randomized significance tests for every pair of systems at once, on sufficient statistics only.

Implements the tests of Graham, Mathur & Baldwin (2014), Figures 1-4, the Riezler & Maxwell (2005)
originals as published, and two dependence-aware bootstraps: whole-document resampling and the
stationary block bootstrap of Politis & Romano (1994). docs/statistics.md, "The randomized tests", defines each one.

The engine is metric-agnostic. A metric contributes per-segment sufficient statistics ``stats[S, N, k]`` and a
vectorised ``score(totals[..., k]) -> [...]``; a corpus score is the score of the summed statistics.

*Vectorisation.* A bootstrap sample is a row of a count matrix ``C[B, N]`` (how often each segment was drawn), shared by
every system, so one matrix product ``C @ stats`` gives every system's resampled totals. Approximate randomization uses
one 0/1 swap mask ``M[R, N]`` for every pair: ``X_r = T_x - M s_x + M s_y`` and ``Y_r = T_y - M s_y + M s_x``, with
``M @ stats`` for all systems in one product. Work is chunked over samples and pairs so that memory stays under a cap.

*Determinism and sharing of draws.* Draws are generated in fixed blocks of :data:`DRAW_BLOCK_SIZE` samples, block ``j``
from ``rng_for(seed, "mtsig.resampling", scheme, <size>, j)``. They therefore depend only on the seed, the scheme and
the test-set shape: not on the chunk size, the memory cap or which pairs are computed, so a shard of pairs gives rows
byte-identical to the full run. A run with fewer samples uses a prefix of the same draws. Tests of one scheme share
draws (the four i.i.d. bootstraps; both AR tests; each block bootstrap with its own paired and shift-to-zero forms),
so differences between the tests' conclusions come from the tests and not from Monte-Carlo noise.

*Effect sizes.* With ``intervals=`` the i.i.d. bootstrap's draws also give percentile and BCa intervals of every
pair's difference and every system's score (:mod:`mtsig.stats.intervals`), computed chunk by chunk from the very ``d_b``
whose counts give the paired bootstrap's p-values, so they share its determinism and memory cap.

*Exact, fast products.* The weights (bootstrap counts, AR swap masks) are non-negative integers. When the
statistics are integer-valued too (BLEU, chrF, TER and METEOR counts; not NIST's information-weighted matches) and
no partial sum can exceed 2**24, the product is computed in float32: every intermediate is then an integer that
float32 represents exactly, so the result is bit-identical to the float64 (and to the exact integer) sum at half the
memory traffic (:func:`float32_is_exact`). Identical columns of the statistics (a reference length shared by every
system) are multiplied once. Either way, for integer statistics the numbers do not depend on the BLAS kernel,
blocking or thread count. Statistics that are not integer-valued (NIST's, published segment scores) are cut into
integer slices whose products are exact too (:class:`mtsig.portable.WeightedSums`): BLAS would round their sums in
an order that depends on the CPU. Simulated pairs that relabel two real systems' outputs per segment
(:class:`RelabelledPairs`, the calibration study's null pairs and planted alternatives) are multiplied in factored
form: only the kept differences ``keep_p * (X - Y)``, once per pair instead of once per pseudo-system, on the
segments where they are not zero, and where whole documents are relabelled, document by document
(:class:`_GroupedDelta`); for statistics that are not integers, slice by slice (:func:`sliced_relabelled_operand`).

*Threads.* ``MTSIG_THREADS`` (default 1) threads compute blocks of draws concurrently (:func:`resampling_threads`);
blocks are combined in order, so the thread count never changes a number. The products run in the BLAS library's
threads (``OPENBLAS_NUM_THREADS``; Snakemake sets it from a rule's ``threads:``). The products are small (a block of
256 samples at a time), so one BLAS thread is usually fastest, and necessary with ``MTSIG_THREADS > 1``
(benchmarks/README.md).
"""

from __future__ import annotations

import math
import os
from collections import deque
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Literal, TypeVar

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.portable import WeightedSums, combine_slice_sums, integer_slices, is_integer_valued, slice_bits
from mtsig.progress import Progress, counter
from mtsig.stats.conclusions import unordered_pairs
from mtsig.stats.intervals import check_interval_request, intervals_from_draws, leave_one_out_scores
from mtsig.stats.seeding import rng_for

Score = Callable[[np.ndarray], np.ndarray]
PValueConvention = Literal["c/B", "(c+1)/(B+1)"]
T = TypeVar("T")

#: Samples per block of draws. Block ``j`` holds samples ``j*DRAW_BLOCK_SIZE ...`` of a scheme's stream.
DRAW_BLOCK_SIZE = 256

#: Working memory a score function is assumed to need, in multiples of the size of its input.
SCORE_WORKSPACE_FACTOR = 8

#: Pairs are processed in chunks whose per-pair arrays (AR totals ``[256, P, k]``, bootstrap ``d_b[P, B]``) take
#: about this many bytes: the many elementwise passes of a score function then stay in the CPU cache (about 3x
#: faster than chunks of hundreds of MB). Chunking never changes a number.
CACHE_FRIENDLY_BYTES = 1 << 20

IID_BOOTSTRAP = "iid_bootstrap"
RANDOMIZATION = "randomization"
DOCUMENT_BOOTSTRAP = "document_bootstrap"
STATIONARY_BOOTSTRAP = "stationary_bootstrap"
SCHEMES = (IID_BOOTSTRAP, RANDOMIZATION, DOCUMENT_BOOTSTRAP, STATIONARY_BOOTSTRAP)


@dataclass(frozen=True)
class TestSpec:
    """How a test draws its pseudo-samples and turns them into a p-value.

    ``scheme``: which draws (shared by all tests of one scheme). ``rule``: the counting rule of
    :func:`exceedance_counts`. ``sided``: "one-sided" (p for "X better than Y") or "two-sided".
    ``plus_one``: always ``p = (c + 1) / (B + 1)`` (R&M as published) instead of the configured convention.
    """

    scheme: str
    rule: str
    sided: Literal["one-sided", "two-sided"]
    plus_one: bool
    source: str


#: Every test, in output order. Family (scheme) and sidedness of each.
TESTS: dict[str, TestSpec] = {
    "paired_bootstrap": TestSpec(IID_BOOTSTRAP, "paired", "one-sided", False, "Koehn (2004); paper Fig. 4"),
    "bootstrap": TestSpec(IID_BOOTSTRAP, "shift", "one-sided", False, "paper Fig. 3"),
    "bootstrap_two_sided": TestSpec(IID_BOOTSTRAP, "shift_two_sided", "two-sided", False, "paper Fig. 1"),
    "approximate_randomization": TestSpec(RANDOMIZATION, "at_least", "one-sided", False, "paper Fig. 2"),
    "approximate_randomization_two_sided": TestSpec(
        RANDOMIZATION, "absolute", "two-sided", False, "paper Fig. 2 with |d_r| >= |d|"
    ),
    "rm_bootstrap": TestSpec(IID_BOOTSTRAP, "rm_shift", "two-sided", True, "Riezler & Maxwell (2005)"),
    "rm_approximate_randomization": TestSpec(
        RANDOMIZATION, "absolute", "two-sided", True, "Riezler & Maxwell (2005)"
    ),
    "paired_bootstrap_documents": TestSpec(
        DOCUMENT_BOOTSTRAP, "paired", "one-sided", False, "Fig. 4, documents"
    ),
    "bootstrap_documents": TestSpec(DOCUMENT_BOOTSTRAP, "shift", "one-sided", False, "Fig. 3, documents"),
    "paired_bootstrap_stationary": TestSpec(
        STATIONARY_BOOTSTRAP, "paired", "one-sided", False, "Fig. 4, Politis & Romano (1994)"
    ),
    "bootstrap_stationary": TestSpec(
        STATIONARY_BOOTSTRAP, "shift", "one-sided", False, "Fig. 3, Politis & Romano (1994)"
    ),
}
ALL_TESTS: tuple[str, ...] = tuple(TESTS)
#: The three tests compared by the paper (Tables 1-2), all one-sided.
PAPER_TESTS: tuple[str, ...] = ("paired_bootstrap", "bootstrap", "approximate_randomization")


# --------------------------------------------------------------------------------------------------- the draws


def _block_rng(seed: int, scheme: str, size_key: object, block_index: int) -> np.random.Generator:
    return rng_for(seed, "mtsig.resampling", scheme, size_key, block_index)


def bootstrap_indices(seed: int, n_segments: int, block_index: int) -> np.ndarray:
    """Block ``block_index`` of the i.i.d. bootstrap draws: ``int64[DRAW_BLOCK_SIZE, n_segments]``, each row the
    segment indices of one pseudo-test-set drawn uniformly with replacement (paper Figs. 1, 3, 4)."""
    rng = _block_rng(seed, IID_BOOTSTRAP, n_segments, block_index)
    return rng.integers(0, n_segments, size=(DRAW_BLOCK_SIZE, n_segments), dtype=np.int64)


def swap_masks(seed: int, n_segments: int, block_index: int) -> np.ndarray:
    """Block ``block_index`` of the approximate-randomization draws: ``bool[DRAW_BLOCK_SIZE, n_segments]``, True
    where segment i's statistics are swapped between the two systems, each with probability 0.5 (paper Fig. 2)."""
    rng = _block_rng(seed, RANDOMIZATION, n_segments, block_index)
    # The 8 bits of a uniform random byte are 8 independent fair coins: 8x fewer draws than one integer per coin.
    random_bytes = rng.integers(0, 256, size=(DRAW_BLOCK_SIZE, -(-n_segments // 8)), dtype=np.uint8)
    return np.unpackbits(random_bytes, axis=1, count=n_segments).view(bool)


def document_draws(seed: int, n_documents: int, block_index: int) -> np.ndarray:
    """Block ``block_index`` of the document bootstrap draws: ``int64[DRAW_BLOCK_SIZE, n_documents]``, each row
    ``n_documents`` document indices drawn uniformly with replacement (whole documents are resampled)."""
    rng = _block_rng(seed, DOCUMENT_BOOTSTRAP, n_documents, block_index)
    return rng.integers(0, n_documents, size=(DRAW_BLOCK_SIZE, n_documents), dtype=np.int64)


def stationary_blocks_first_round(n_segments: int, mean_block_length: float) -> int:
    """How many (start, length) pairs per pseudo-sample :func:`stationary_draws` draws first: ``min(N, ceil(2N/b)
    + 32)``. Their lengths sum to about ``2N + 32b``, so they almost always cover the N points; drawing only these
    instead of N pairs makes the draws about ``b/2`` times cheaper."""
    return min(n_segments, math.ceil(2 * n_segments / mean_block_length) + 32)


def stationary_draws(
    seed: int, n_segments: int, mean_block_length: float, block_index: int
) -> tuple[np.ndarray, np.ndarray]:
    """Block ``block_index`` of the stationary bootstrap draws (Politis & Romano 1994, steps 2-3 of the algorithm).

    Returns ``(starts, lengths)``, both ``int64[DRAW_BLOCK_SIZE, M]``: per pseudo-sample, M block start points
    uniform on ``{0, ..., N-1}`` and M block lengths geometric on ``{1, 2, ...}`` with mean ``mean_block_length``
    (``p = 1 / b``). ``M`` is :func:`stationary_blocks_first_round`, or N if some pseudo-sample's M lengths sum to
    less than N (then the remaining pairs are drawn from the same generator); N blocks always suffice for N points
    because every length is >= 1. Only the blocks needed for the first N points are used.
    """
    if not mean_block_length >= 1.0:
        raise ValueError(f"mean_block_length must be >= 1, got {mean_block_length}")
    rng = _block_rng(seed, STATIONARY_BOOTSTRAP, f"{n_segments}:{float(mean_block_length)!r}", block_index)
    p = 1.0 / mean_block_length
    first_round = stationary_blocks_first_round(n_segments, mean_block_length)
    starts = rng.integers(0, n_segments, size=(DRAW_BLOCK_SIZE, first_round), dtype=np.int64)
    lengths = rng.geometric(p, size=(DRAW_BLOCK_SIZE, first_round)).astype(np.int64)
    if first_round < n_segments and lengths.sum(axis=1).min() < n_segments:
        more = (DRAW_BLOCK_SIZE, n_segments - first_round)
        starts = np.concatenate([starts, rng.integers(0, n_segments, size=more, dtype=np.int64)], axis=1)
        lengths = np.concatenate([lengths, rng.geometric(p, size=more).astype(np.int64)], axis=1)
    return starts, lengths


def stationary_indices(starts: np.ndarray, lengths: np.ndarray, n: int | None = None) -> np.ndarray:
    """Segment indices of stationary-bootstrap pseudo-series (Politis & Romano 1994, steps 1, 4, 5 of the algorithm).

    The series of ``n`` points (default: as many as there are blocks) is wrapped around a circle; block m copies
    ``lengths[m]`` consecutive points from ``starts[m]``; the first ``n`` points are kept. Vectorised as a cumulative
    sum of steps: +1 within a block, and at the first point of block m a jump from the last point of block m-1
    (``starts[m-1] + lengths[m-1] - 1``) to ``starts[m]``; the sums are taken modulo ``n``. The engine itself
    only needs how often each point is drawn, which :func:`stationary_counts` computes without the series.
    """
    n_rows, _ = starts.shape
    n = starts.shape[1] if n is None else n
    begins = np.cumsum(lengths, axis=1) - lengths  # series position of each block's first point
    steps = np.ones((n_rows, n), dtype=np.int64)
    steps[:, 0] = starts[:, 0]
    rows, blocks = np.nonzero(begins[:, 1:] < n)
    blocks += 1
    steps[rows, begins[rows, blocks]] = (
        starts[rows, blocks] - starts[rows, blocks - 1] - lengths[rows, blocks - 1] + 1
    )
    series = np.cumsum(steps, axis=1, out=steps)  # unwrapped: starts[m] + offset, in [0, n + max length - 1)
    if lengths.max() <= n:  # one wrap at most: a subtraction is much cheaper than an integer modulo
        np.subtract(series, n, out=series, where=series >= n)
    else:
        series %= n
    return series


def stationary_counts(
    starts: np.ndarray, lengths: np.ndarray, n: int, dtype: type = np.float64
) -> np.ndarray:
    """Count matrix ``dtype[rows, n]`` of stationary-bootstrap pseudo-series: equal to
    ``counts_from_indices(stationary_indices(starts, lengths, n), n)``, computed from the blocks without building the
    series (a few hundred blocks per row instead of N points).

    Block m covers the circular interval of ``min(lengths[m], n - begin_m)`` points from ``starts[m]`` (the last
    block is cut at n points). An interval of length L adds ``L // n`` to every point and 1 to the ``L % n`` points
    from its start, wrapping past ``n - 1`` to 0; these are accumulated as +1/-1 at interval ends and summed.
    """
    n_rows = starts.shape[0]
    begins = np.cumsum(lengths, axis=1) - lengths
    rows, blocks = np.nonzero(begins < n)
    first = starts[rows, blocks]
    covered = np.minimum(lengths[rows, blocks], n - begins[rows, blocks])
    full_turns, rest = np.divmod(covered, n)
    end = first + rest  # exclusive; past n means the interval wraps to 0
    wraps = end > n
    row_offset = rows * (n + 1)
    size = n_rows * (n + 1)
    opening = np.bincount(np.concatenate([row_offset + first, row_offset[wraps]]), minlength=size)
    closing = np.bincount(
        np.concatenate([row_offset + np.minimum(end, n), (row_offset + end - n)[wraps]]), minlength=size
    )
    # Every interval closes in its own row (at column n at the latest), so each row's steps sum to zero and one
    # running sum over all rows at once (contiguous, much faster than along each row) counts every row's points.
    # Small integers: exact in any dtype.
    counts = np.cumsum(opening - closing).reshape(n_rows, n + 1)[:, :n].astype(dtype)
    counts += np.bincount(rows, weights=full_turns, minlength=n_rows).astype(dtype)[:, None]
    return counts


#: From this many items on, :func:`counts_from_indices` counts row by row (below, one bincount of every row at once
#: costs less than a Python loop over the rows).
ROW_BY_ROW_COUNTS = 512


def counts_from_indices(indices: np.ndarray, n: int, dtype: type = np.float64) -> np.ndarray:
    """Count matrix ``dtype[rows, n]`` (float64 by default): how often each of ``n`` items occurs in each row of
    ``indices``."""
    n_rows = indices.shape[0]
    if n >= ROW_BY_ROW_COUNTS:  # each row's counts fit in the CPU cache: about 40% faster for WMT12's 3003
        counts = np.empty((n_rows, n), dtype=dtype)
        for row in range(n_rows):
            counts[row] = np.bincount(indices[row], minlength=n)
        return counts
    flat = indices + n * np.arange(n_rows, dtype=np.int64)[:, None]
    return np.bincount(flat.ravel(), minlength=n_rows * n).reshape(n_rows, n).astype(dtype, copy=False)


def document_codes(documents: Sequence[object] | np.ndarray) -> np.ndarray:
    """Each segment's document as an integer ``0 .. D-1``, documents numbered in order of first appearance."""
    _, first, inverse = np.unique(np.asarray(documents), return_index=True, return_inverse=True)
    rank_of_sorted = np.empty(len(first), dtype=np.int64)
    rank_of_sorted[np.argsort(first, kind="stable")] = np.arange(len(first))
    return rank_of_sorted[inverse.ravel()]


def document_counts(seed: int, n_documents: int, block_index: int, dtype: type = np.float64) -> np.ndarray:
    """Count matrix ``dtype[DRAW_BLOCK_SIZE, n_documents]`` of one block of the document bootstrap's draws: how
    often each document is drawn (each of its segments is drawn as often)."""
    return counts_from_indices(document_draws(seed, n_documents, block_index), n_documents, dtype)


def scheme_counts(
    scheme: str,
    seed: int,
    n_segments: int,
    block_index: int,
    *,
    document_of_segment: np.ndarray | None = None,
    mean_block_length: float | None = None,
    dtype: type = np.float64,
) -> np.ndarray:
    """Count matrix ``dtype[DRAW_BLOCK_SIZE, n_segments]`` (float64 by default) of one block of a bootstrap
    scheme's draws.

    Document bootstrap: a segment is drawn as often as its document is (the pseudo-test-set has whole documents and
    a random number of segments).
    """
    if scheme == IID_BOOTSTRAP:
        return counts_from_indices(bootstrap_indices(seed, n_segments, block_index), n_segments, dtype)
    if scheme == DOCUMENT_BOOTSTRAP:
        assert document_of_segment is not None
        n_documents = int(document_of_segment.max()) + 1
        return document_counts(seed, n_documents, block_index, dtype)[:, document_of_segment]
    if scheme == STATIONARY_BOOTSTRAP:
        assert mean_block_length is not None
        starts, lengths = stationary_draws(seed, n_segments, mean_block_length, block_index)
        return stationary_counts(starts, lengths, n_segments, dtype)
    raise ValueError(f"not a bootstrap scheme: {scheme!r}")


def default_mean_block_length(n_segments: int) -> float:
    """``N ** (1/3)``, the rate-optimal order of the mean block length for variance estimation (Politis & White
    2004); used when no mean block length is configured. Never below 1."""
    return max(1.0, float(n_segments) ** (1.0 / 3.0))


# ------------------------------------------------------------------------------------- exact weighted totals

#: float32 has a 24-bit significand: every integer of magnitude <= 2**24 is exactly representable.
FLOAT32_EXACT_INTEGER_LIMIT = 2**24


def float32_is_exact(max_abs_statistic: float, max_weight_row_sum: int) -> bool:
    """Whether ``W @ stats`` is exact in float32 for integer-valued ``stats`` with ``max|stats| <=
    max_abs_statistic`` and every non-negative integer weight matrix ``W`` whose rows sum to at most
    ``max_weight_row_sum``.

    Each term ``W[b, i] * stats[i, j]`` and each partial sum of a row, in any order and with or without fused
    multiply-add, is an integer of magnitude at most ``sum_i W[b, i] * |stats[i, j]| <= max_weight_row_sum *
    max_abs_statistic``. If that bound is at most 2**24, float32 represents every intermediate exactly, so the
    product equals the exact integer sum, which is also what float64 gives.
    """
    return max_weight_row_sum * max_abs_statistic <= FLOAT32_EXACT_INTEGER_LIMIT


def distinct_columns(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(distinct, column_of)`` with ``distinct[:, column_of] == matrix``: each distinct column once, in order of
    first appearance. A column shared by every system (BLEU's or TER's reference length, chrF's reference n-gram
    counts) then enters the resampling products once instead of once per system. ``distinct`` is column-major
    (Fortran-ordered), which BLAS multiplies without a copy."""
    # Columns are compared by their bytes (exact; a dict is much faster than np.unique(axis=1) on tall columns).
    index_of: dict[bytes, int] = {}
    firsts: list[int] = []
    column_of = np.empty(matrix.shape[1], dtype=np.int64)
    columns = np.ascontiguousarray(matrix.T)  # no copy when ``matrix`` is the transpose of a C-ordered array
    for j, column in enumerate(columns):
        key = column.tobytes()
        if key not in index_of:
            index_of[key] = len(firsts)
            firsts.append(j)
        column_of[j] = index_of[key]
    return columns[firsts].T, column_of


def max_weight_row_sum(scheme: str, n_segments: int, document_of_segment: np.ndarray | None = None) -> int:
    """An upper bound on the row sums of a scheme's weight matrices (for :func:`float32_is_exact`).

    i.i.d. and stationary bootstrap: exactly N (N draws per pseudo-test-set); AR: at most N (a 0/1 mask);
    document bootstrap: D documents drawn, each at most the size of the largest document.
    """
    if scheme == DOCUMENT_BOOTSTRAP:
        assert document_of_segment is not None
        sizes = np.bincount(document_of_segment)
        return int(len(sizes) * sizes.max())
    return int(n_segments)


@dataclass(frozen=True)
class RelabelledPairs:
    """The statistics of P simulated pairs that relabel two real systems' outputs, held unstacked.

    On segment i, pair p's pseudo-system X'_p has X's statistics and Y'_p has Y's where ``keep[p, i]``, and the other
    way round elsewhere: the null pairs and planted alternatives of :mod:`mtsig.studies.calibration` (a relabelling
    per segment or per document). :meth:`materialise` gives the stacked statistics ``[X'_0, Y'_0, X'_1, ...]``
    (``[2P, N, k]``); :func:`pairwise_tests` accepts either form and gives byte-identical results, but from this one
    it multiplies far fewer columns (:func:`relabelled_operand`).
    """

    stats_x: np.ndarray  # [N, k]
    stats_y: np.ndarray  # [N, k]
    keep: np.ndarray  # bool [P, N]

    def __post_init__(self) -> None:
        if self.stats_x.shape != self.stats_y.shape or self.stats_x.ndim != 2:
            raise InputError(
                f"stats of X and Y must both be [N, k]; got {self.stats_x.shape} and {self.stats_y.shape}"
            )
        if self.keep.ndim != 2 or self.keep.shape[1] != self.stats_x.shape[0] or self.keep.dtype != bool:
            raise InputError(
                f"keep mask must be boolean [pairs, {self.stats_x.shape[0]}]; got {self.keep.shape}"
            )

    @property
    def shape(self) -> tuple[int, int, int]:
        """Shape of the stacked statistics, ``(2P, N, k)``."""
        return (2 * self.keep.shape[0], *self.stats_x.shape)

    def materialise(self) -> np.ndarray:
        """The stacked statistics ``[2P, N, k]``: pair p is rows ``(2p, 2p + 1)``."""
        mask = self.keep[:, :, None]
        pseudo_x = np.where(mask, self.stats_x[None], self.stats_y[None])
        pseudo_y = np.where(mask, self.stats_y[None], self.stats_x[None])
        return np.stack([pseudo_x, pseudo_y], axis=1).reshape(self.shape)


@dataclass(frozen=True)
class _Delta:
    """Products added to (X'_p) and subtracted from (Y'_p) the base totals of relabelled pairs.

    ``values[n, J]``: columns ``keep_p * d`` of distinct differences ``d`` of ``X - Y``, on the segments ``rows``
    (None: all). Column ``source[j]`` of ``W[:, rows] @ values`` is added to column ``plus[j]`` and subtracted from
    column ``minus[j]`` of the statistics matrix's weighted totals.
    """

    rows: np.ndarray | None
    values: np.ndarray
    values32: np.ndarray
    plus: np.ndarray
    minus: np.ndarray
    source: np.ndarray

    @property
    def nbytes(self) -> int:
        return self.values.nbytes + self.values32.nbytes

    def by_segment(self, n_segments: int) -> np.ndarray:
        """``values`` on every segment (zero off ``rows``), float64 ``[N, J]``."""
        if self.rows is None:
            return self.values
        full = np.zeros((n_segments, self.values.shape[1]))
        full[self.rows] = self.values
        return full

    def product(self, weights: np.ndarray) -> np.ndarray:
        """``W[:, rows] @ values`` as float64 (float32 weights with the float32 copy)."""
        selected = weights if self.rows is None else weights[:, self.rows]
        single = weights.dtype == np.float32
        return (selected @ (self.values32 if single else self.values)).astype(np.float64)


@dataclass(frozen=True)
class _GroupedDelta:
    """The products of :class:`_Delta` when every keep mask is constant on groups of segments (whole documents
    relabelled), computed group by group: with ``K[G, m]`` mask m on group G and ``d`` a difference column,
    ``sum_i W[b, i] K[G(i), m] d[i] = sum_G K[G, m] (sum_{i in G} W[b, i] d[i])``. One small product per group
    (``W[:, G] @ differences[G]``, for every difference at once) and one over the groups replace a product over
    every segment per mask: with WMT12's 99 documents about 30 times fewer multiplications. Every partial sum is an
    integer bounded as in the direct product (integer weights and statistics), so the sums are exact either way and
    the result is the same bit for bit.

    ``order``: the segments sorted by group (None: they already are); ``bounds[j]:bounds[j + 1]`` the positions of
    group j in that order; ``differences[N, J]`` the distinct difference columns in that order; ``masks[groups, M]``
    each distinct mask's keep (0 or 1) on each group. Column ``n * M + m`` of the product is difference n kept by
    mask m, as :class:`_Delta`'s columns.
    """

    order: np.ndarray | None
    bounds: np.ndarray
    values: np.ndarray  # the differences [N, J], float64
    values32: np.ndarray
    masks: np.ndarray  # [groups, M], float64
    plus: np.ndarray
    minus: np.ndarray
    source: np.ndarray

    @property
    def nbytes(self) -> int:
        return self.values.nbytes + self.values32.nbytes + self.masks.nbytes

    def by_segment(self, n_segments: int) -> np.ndarray:
        """The multiplied values ``K[G(i), m] d[i]`` of every segment i, float64 ``[N, J * M]`` (column ``n * M +
        m``), as :class:`_Delta` would hold them."""
        group = np.repeat(np.arange(len(self.bounds) - 1), np.diff(self.bounds))  # of each position in order
        ordered = (self.values[:, :, None] * self.masks[group][:, None, :]).reshape(n_segments, -1)
        if self.order is None:
            return ordered
        full = np.empty_like(ordered)
        full[self.order] = ordered
        return full

    def product(self, weights: np.ndarray) -> np.ndarray:
        """``W @ (K[G(i), m] d[i])`` for every difference and mask, exactly, as float64 ``[rows, J * M]``."""
        ordered = weights if self.order is None else weights[:, self.order]
        values = self.values32 if weights.dtype == np.float32 else self.values
        n_rows, n_groups, n_values = len(weights), len(self.bounds) - 1, values.shape[1]
        group_sums = np.empty((n_rows, n_values, n_groups))
        for group, (first, last) in enumerate(zip(self.bounds[:-1], self.bounds[1:], strict=True)):
            group_sums[:, :, group] = ordered[:, first:last] @ values[first:last]
        product = group_sums.reshape(n_rows * n_values, n_groups) @ self.masks
        return product.reshape(n_rows, n_values * self.masks.shape[1])


@dataclass(frozen=True)
class _Operand:
    """The statistics matrix ``A[N, S*k]`` (column ``s*k + c``: statistic c of system s) in the form its weighted
    totals ``W @ A`` are computed in: ``W @ base`` spread by ``column_of``, plus any ``deltas``.

    ``base32``: float32 copy of ``base`` (and the deltas hold one) when the statistics are integer-valued, else None;
    :func:`_weight_dtype` then chooses float32 weights where the products are exact (:func:`float32_is_exact`).
    """

    base: np.ndarray  # [N, U] float64, column-major
    base32: np.ndarray | None
    column_of: np.ndarray  # [S*k]
    max_abs_statistic: float  # of every value multiplied
    deltas: tuple[_Delta | _GroupedDelta, ...] = ()
    exact_sums: WeightedSums | None = None  # of ``base``, when it is not integer-valued

    @property
    def nbytes(self) -> int:
        own = sum(0 if a is None else a.nbytes for a in (self.base, self.base32))
        return own + sum(delta.nbytes for delta in self.deltas)

    def weighted_totals(self, weights: np.ndarray) -> np.ndarray:
        """``weights[rows, N] @ A`` as float64; float32 weights (chosen by :func:`_weight_dtype` only where exact)
        are multiplied with the float32 copies. Statistics that are not integer-valued are summed exactly in integer
        slices (:class:`mtsig.portable.WeightedSums`): BLAS would round their sums in an order that depends on the
        CPU."""
        if self.exact_sums is not None:
            return self.exact_sums(weights)[:, self.column_of]
        single = weights.dtype == np.float32
        totals = (weights @ (self.base32 if single else self.base)).astype(np.float64)[:, self.column_of]
        for delta in self.deltas:
            product = delta.product(weights)
            totals[:, delta.plus] += product[:, delta.source]
            totals[:, delta.minus] -= product[:, delta.source]
        return totals


def statistics_operand(stats: np.ndarray) -> _Operand:
    """The operand of statistics ``stats[S, N, k]`` (float64): their distinct columns (:func:`distinct_columns`),
    with a float32 copy when integer-valued."""
    n_systems, n_segments, k = stats.shape
    # Column s*k + c of the statistics matrix [N, S*k] is statistic c of system s; built column-major in one pass.
    distinct, column_of = distinct_columns(stats.transpose(0, 2, 1).reshape(n_systems * k, n_segments).T)
    integer_valued = is_integer_valued(distinct)
    return _Operand(
        base=distinct,
        base32=distinct.astype(np.float32) if integer_valued else None,
        column_of=column_of,
        max_abs_statistic=float(np.abs(distinct).max()),
        exact_sums=None if integer_valued else WeightedSums(distinct),
    )


#: Relabelled pairs whose keep masks are constant on groups of segments are multiplied group by group
#: (:class:`_GroupedDelta`) when there are at most this fraction as many groups as segments: whole documents
#: relabelled (WMT12: 99 documents, 3003 segments), not segments relabelled one by one.
GROUPED_FRACTION = 1 / 8


def distinct_rows(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(first, row_of)`` for a boolean ``matrix[R, C]``: the index of each distinct row's first occurrence, in
    order, and each row's number among them (``matrix[first][row_of] == matrix``). Rows are compared as packed bits
    (np.unique(axis=0) sorts structured rows, about 10 times slower)."""
    packed = np.packbits(np.asarray(matrix, dtype=bool), axis=1)
    keys = np.ascontiguousarray(packed).view(np.dtype((np.void, packed.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return np.sort(first), rank[inverse.ravel()]


#: A difference column of relabelled pairs that is zero on more than this fraction of segments is multiplied on its
#: non-zero segments only (a gather of the weights' columns, cheaper than the product it saves); denser ones are
#: multiplied together on all segments.
SPARSE_DIFFERENCE_FRACTION = 0.3


def relabelled_operand(pairs: RelabelledPairs) -> tuple[_Operand, np.ndarray]:
    """The operand and the totals ``[2P, k]`` of relabelled pairs with integer-valued statistics, without stacking.

    With ``D = X - Y`` and ``Z_p = keep_p * D`` (zero on swapped segments): ``X'_p = Y + Z_p`` and ``Y'_p = X - Z_p``,
    so ``W @ X'_p = W @ Y + W @ Z_p`` and ``W @ Y'_p = W @ X - W @ Z_p``. One product per pair and varying statistic
    (``W @ Z_p``) replaces two (``W @ X'_p``, ``W @ Y'_p``), and pairs with the same mask share it; statistics with
    ``X == Y`` (a shared reference length) need none, and each product skips the segments where its column of D is
    zero. For integer-valued statistics every product is an exact integer (float32 where :func:`float32_is_exact`;
    ``|Z| <= max |D|`` enters its bound) and so is each sum in float64, so the totals equal the stacked statistics'
    products bit for bit; that is why :func:`pairwise_tests` uses this form only for integer-valued statistics, or for
    the integer slices of others (:func:`sliced_relabelled_operand`).
    """
    x, y, keep = (
        pairs.stats_x.astype(np.float64, copy=False),
        pairs.stats_y.astype(np.float64, copy=False),
        pairs.keep,
    )
    n_pairs = keep.shape[0]
    n_segments, k = x.shape
    base, base_column_of = distinct_columns(np.concatenate([y, x], axis=1))
    column_of = np.empty((n_pairs, 2, k), dtype=np.int64)
    column_of[:, 0] = base_column_of[:k]  # X'_p starts from Y ...
    column_of[:, 1] = base_column_of[k:]  # ... and Y'_p from X
    difference = x - y
    distinct_difference, difference_of = distinct_columns(difference)
    # Pairs with the same keep mask (every pair at q = 1) have the same products: each distinct mask is multiplied once.
    first_pair, mask_of_pair = distinct_rows(keep)
    masks = keep[first_pair]
    kept = masks.T  # [N, distinct masks]
    x_columns = 2 * k * np.arange(n_pairs)  # column of statistic 0 of X'_p; Y'_p's is k further

    def delta_targets(groups: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """The columns of X'_p the products of difference ``groups[n]`` and mask m (column n * M + m) go to."""
        targets = [(n, c) for n, g in enumerate(groups) for c in np.flatnonzero(difference_of == g)]
        plus = np.concatenate([x_columns + c for _, c in targets])
        source = np.concatenate([n * len(masks) + mask_of_pair for n, _ in targets])
        return plus, source

    def delta(groups: list[int], rows: np.ndarray | None) -> _Delta:
        on = slice(None) if rows is None else rows
        values = np.concatenate(
            [np.where(kept[on], distinct_difference[on, g][:, None], 0.0) for g in groups], axis=1
        )
        plus, source = delta_targets(groups)
        return _Delta(rows, values, values.astype(np.float32), plus, plus + k, source)

    varying = [g for g in range(distinct_difference.shape[1]) if distinct_difference[:, g].any()]
    first_segments, group_of_segment = distinct_rows(kept)  # segments relabelled together: a group
    n_groups = len(first_segments)
    deltas: list[_Delta | _GroupedDelta] = []
    if varying and len(masks) > 1 and n_groups <= GROUPED_FRACTION * n_segments:
        # whole documents relabelled: products group by group (_GroupedDelta)
        order = np.argsort(group_of_segment, kind="stable")
        bounds = np.searchsorted(group_of_segment[order], np.arange(n_groups + 1))
        differences = distinct_difference[order][:, varying]
        plus, source = delta_targets(varying)
        deltas.append(
            _GroupedDelta(
                None if np.array_equal(order, np.arange(n_segments)) else order,
                bounds,
                differences,
                differences.astype(np.float32),
                kept[first_segments].astype(np.float64),
                plus,
                plus + k,
                source,
            )
        )
    else:
        dense: list[int] = []
        for g in varying:  # X == Y elsewhere: the base totals are every pseudo-system's
            rows = np.flatnonzero(distinct_difference[:, g])
            if len(rows) < (1 - SPARSE_DIFFERENCE_FRACTION) * n_segments:
                deltas.append(delta([g], rows))
            else:
                dense.append(g)
        if dense:
            deltas.insert(0, delta(dense, None))
    kept_difference = keep.astype(np.float64) @ difference  # [P, k], exact for integers
    totals = np.stack([y.sum(axis=0) + kept_difference, x.sum(axis=0) - kept_difference], axis=1)
    operand = _Operand(
        base=base,
        base32=base.astype(np.float32),
        column_of=column_of.ravel(),
        max_abs_statistic=float(max(np.abs(base).max(), np.abs(difference).max())),
        deltas=tuple(deltas),
    )
    return operand, totals.reshape(2 * n_pairs, k)


@dataclass(frozen=True)
class _SlicedOperand:
    """Relabelled pairs whose statistics are not integer-valued, as integer slices: ``levels[l]`` is the factored
    operand (:func:`relabelled_operand`) of slice ``l`` of X and Y, most significant first, each scaled by
    ``2**(l * bits + exponent[column])``. Every product in a level is exact (:func:`sliced_relabelled_operand`), and
    the levels' totals are combined least significant first, as :class:`mtsig.portable.WeightedSums` combines a
    stacked operand's slices: with two slices both give the exact sums rounded once, the same bits."""

    levels: tuple[_Operand, ...]
    bits: int
    exponent: np.ndarray  # [2P * k]: column j of the totals is statistic j % k
    base32: None = None  # for _weight_dtype: float64 weights

    @property
    def base(self) -> np.ndarray:
        return self.levels[0].base

    @property
    def nbytes(self) -> int:
        return sum(level.nbytes for level in self.levels)

    def combine(self, level_totals: Sequence[np.ndarray]) -> np.ndarray:
        """The totals of the pseudo-systems from each level's (exact, integer-valued) totals."""
        return combine_slice_sums(level_totals, self.bits, self.exponent)

    def weighted_totals(self, weights: np.ndarray) -> np.ndarray:
        """``weights[rows, N] @ A`` of the stacked statistics, exactly (float64 weights)."""
        return self.combine([level.weighted_totals(weights) for level in self.levels])


def sliced_relabelled_operand(pairs: RelabelledPairs, max_row_sum: int) -> tuple[_SlicedOperand, np.ndarray]:
    """The operand and the totals ``[2P, k]`` of relabelled pairs whose statistics are not integer-valued, for
    weights with rows summing to at most ``max_row_sum``.

    X and Y are cut into integer slices of ``bits = 52 - ceil(log2 max_row_sum)`` bits, statistic by statistic on a
    common scale (:func:`mtsig.portable.integer_slices`), so that each slice of X, of Y and of their difference
    gives products that are integers of at most 2**53: exact in the factored form of :func:`relabelled_operand`,
    one product per pair and varying statistic instead of the stacked statistics' two per pair and statistic.
    """
    n_pairs = pairs.keep.shape[0]
    k = pairs.stats_x.shape[1]
    bits = slice_bits(max_row_sum, spare_bits=1)  # |X - Y| may reach twice a slice's magnitude
    # X above Y, [2N, k]: one scale per statistic for both
    both = np.concatenate([pairs.stats_x, pairs.stats_y]).astype(np.float64)
    slices, exponent = integer_slices(both, bits)
    n = pairs.stats_x.shape[0]
    levels, level_totals = [], []
    for piece in slices:
        operand, totals = relabelled_operand(RelabelledPairs(piece[:n], piece[n:], pairs.keep))
        levels.append(operand)
        level_totals.append(totals.reshape(1, 2 * n_pairs * k))
    sliced = _SlicedOperand(tuple(levels), bits, np.tile(exponent, 2 * n_pairs))
    return sliced, sliced.combine(level_totals).reshape(2 * n_pairs, k)


def by_document(
    operand: _Operand | _SlicedOperand, document_of_segment: np.ndarray
) -> _Operand | _SlicedOperand | None:
    """The operand of the documents' summed statistics, for the document bootstrap, whose weights are constant
    within documents: ``W @ A = W_d @ (P^T A)``, ``W_d`` the documents' counts and ``P`` the segment-to-document
    indicator, in about as many multiplications as there are documents instead of segments. Every product of
    integer statistics is an exact sum of integers, as large at most as the segments' own, so the totals are the
    same bits (float32 where the segments' products were exact in it). None for statistics that are not integers
    (:class:`mtsig.portable.WeightedSums` slices them by their magnitude, which summing would change) and for
    whole documents relabelled (:class:`_GroupedDelta`, multiplied group by group already)."""
    if isinstance(operand, _SlicedOperand):
        levels = [by_document(level, document_of_segment) for level in operand.levels]
        if any(level is None for level in levels):
            return None
        return _SlicedOperand(tuple(levels), operand.bits, operand.exponent)  # type: ignore[arg-type]
    if operand.exact_sums is not None or operand.base32 is None:
        return None
    if any(isinstance(delta, _GroupedDelta) for delta in operand.deltas):
        return None  # already multiplied group by group: summing its segments' values would cost more
    n_segments = operand.base.shape[0]
    indicator = np.zeros((int(document_of_segment.max()) + 1, n_segments))
    indicator[document_of_segment, np.arange(n_segments)] = 1.0

    def summed(values: np.ndarray) -> np.ndarray:
        return indicator @ values  # exact: sums of integers

    deltas = []
    for delta in operand.deltas:
        values = summed(delta.by_segment(n_segments))
        deltas.append(_Delta(None, values, values.astype(np.float32), delta.plus, delta.minus, delta.source))
    base = np.asfortranarray(summed(operand.base))
    return _Operand(
        base, base.astype(np.float32), operand.column_of, operand.max_abs_statistic, tuple(deltas)
    )


# ------------------------------------------------------------------------------------------ counts and p-values


def exceedance_counts(rule: str, pseudo: np.ndarray, actual: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The counts ``c`` of a test for both orders of each pair.

    ``pseudo[P, B]``: pseudo-statistics oriented for "X better than Y" (``d_b = S(X_b) - S(Y_b)`` or
    ``d_r = S(X_r) - S(Y_r)``); ``actual[P]``: ``d = S(X) - S(Y)``. Returns ``(c_xy, c_yx)``, the counts for
    (X, Y) and for (Y, X). The reversed pair has pseudo-statistics ``-pseudo`` and actual ``-d`` (negation is exact
    in floating point), so its count is derived without recomputation. Rules:

    - ``paired`` (Fig. 4, Koehn 2004): ``#{d_b <= 0}``, the samples in which X is *not* better; a tie is no
      evidence for "X better than Y" (the figure's literal ``S_Xb < S_Yb`` would give identical systems p = 0 for
      both orders, i.e. "significant" both ways).
    - ``shift`` (Fig. 3): ``tau = mean d_b``; ``#{d_b - tau >= d}``.
    - ``shift_two_sided`` (Fig. 1): ``#{|d_b - tau| >= |d|}``.
    - ``at_least`` (Fig. 2): ``#{d_r >= d}``.
    - ``absolute`` (AR two-sided; R&M's AR): ``#{|d_r| >= |d|}``.
    - ``rm_shift`` (R&M's bootstrap as published): ``tau = mean |d_b|``; ``#{|d_b| - tau >= |d|}``.

    ``tau`` is a row-wise mean, so it does not depend on which other pairs are in ``pseudo``.
    """
    _require_finite(pseudo, "resampled difference", lambda i: f"sample {i % pseudo.shape[1]}")
    d = actual[:, None]
    if rule == "paired":
        return (pseudo <= 0).sum(axis=1), (pseudo >= 0).sum(axis=1)
    if rule == "shift":
        centred = pseudo - pseudo.mean(axis=1, keepdims=True)
        return (centred >= d).sum(axis=1), (centred <= d).sum(axis=1)
    if rule == "shift_two_sided":
        count = (np.abs(pseudo - pseudo.mean(axis=1, keepdims=True)) >= np.abs(d)).sum(axis=1)
        return count, count
    if rule == "at_least":
        return (pseudo >= d).sum(axis=1), (pseudo <= d).sum(axis=1)
    if rule == "absolute":
        count = (np.abs(pseudo) >= np.abs(d)).sum(axis=1)
        return count, count
    if rule == "rm_shift":
        magnitude = np.abs(pseudo)
        count = (magnitude - magnitude.mean(axis=1, keepdims=True) >= np.abs(d)).sum(axis=1)
        return count, count
    raise ValueError(f"unknown counting rule {rule!r}")


def p_value(count: np.ndarray, n_samples: int, convention: PValueConvention) -> np.ndarray:
    """``c / B`` (the paper's Figs. 1-4) or ``(c + 1) / (B + 1)`` (R&M; never 0, valid at any B)."""
    count = np.asarray(count, dtype=np.float64)
    if convention == "c/B":
        return count / n_samples
    if convention == "(c+1)/(B+1)":
        return (count + 1.0) / (n_samples + 1.0)
    raise ValueError(f"unknown p-value convention {convention!r}; use 'c/B' or '(c+1)/(B+1)'")


# ----------------------------------------------------------------------------------------------- the engine


@dataclass
class PairwiseResult:
    """Results of :func:`pairwise_tests`.

    ``table``: columns ``sys_x, sys_y, test, statistic, p_value``, one row per ordered pair (both orders) and test.
    ``statistic = S(X) - S(Y)`` oriented so that positive means X is better; one-sided p-values are for "X better than
    Y"; two-sided p-values are equal for both orders. ``system_scores``: corpus score of each system, as the metric
    reports it (not negated). ``distributions[(sys_x, sys_y)][test]``: the pseudo-statistics of the paper's Figs. 5-6
    (``d_b`` for bootstraps, ``d_r`` for AR), oriented for (sys_x, sys_y), plus ``"actual"``: ``d``.
    ``settings``: every setting that changes a number (for the result's signature).

    ``intervals`` (only when intervals were requested): columns ``sys_x, sys_y, method, level, statistic, ci_low,
    ci_high``, one row per ordered pair (both orders, in the table's pair order) and method: the interval of
    ``statistic = S(X) - S(Y)``, oriented like the table (for TER, ``TER_y - TER_x``). The row of (Y, X) is the row
    of (X, Y) negated and swapped, ``[-ci_high, -ci_low]``: both percentile and BCa intervals are equivariant under
    negation, so this is what computing them on ``-d_b`` gives, and the two rows can never disagree.
    ``system_intervals``: columns ``system, method, level, score, ci_low, ci_high``: each system's corpus score and
    its interval, on the metric's own scale (TER not negated). Both come from the i.i.d. bootstrap draws of the
    paired bootstrap (the first ``settings["intervals"]["n_samples"]`` of them), with ``method`` in
    :data:`mtsig.stats.intervals.INTERVAL_METHODS`.
    """

    table: pd.DataFrame
    system_scores: dict[str, float]
    distributions: dict[tuple[str, str], dict[str, np.ndarray | float]] = field(default_factory=dict)
    settings: dict[str, object] = field(default_factory=dict)
    intervals: pd.DataFrame | None = None
    system_intervals: pd.DataFrame | None = None


@dataclass(frozen=True)
class _IntervalRequest:
    """Confidence intervals to compute from the i.i.d. bootstrap draws (see :mod:`mtsig.stats.intervals`)."""

    methods: tuple[str, ...]
    level: float
    n_samples: int  # B: the paired bootstrap's, so the intervals use the draws of its p-values
    corpus: np.ndarray  # [S] oriented corpus scores: the estimates of the system intervals
    jackknife: np.ndarray | None  # [S, N] oriented leave-one-segment-out scores (BCa only)


Bounds = dict[str, tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class _Plan:
    # the statistics matrix stats[N, S*k], in the form its weighted totals are computed in
    operand: _Operand | _SlicedOperand
    totals: np.ndarray  # [S, k]
    score: Score  # oriented: higher is better
    x: np.ndarray  # [P] first system of each unordered pair
    y: np.ndarray  # [P]
    actual: np.ndarray  # [P] d = S(X) - S(Y), oriented
    n_samples: dict[str, int]
    memory_cap_bytes: int
    workers: int  # threads computing blocks of draws (:func:`resampling_threads`)


def _weight_dtype(plan: _Plan, max_row_sum: int) -> type:
    """float32 when products with weights of rows summing to at most ``max_row_sum`` are exact in it."""
    operand = plan.operand
    exact = operand.base32 is not None and float32_is_exact(operand.max_abs_statistic, max_row_sum)
    return np.float32 if exact else np.float64


def resampling_threads() -> int:
    """Threads that compute blocks of draws concurrently: ``$MTSIG_THREADS``, default 1.

    Each block is a pure function of the seed and its index and results are combined in block order, so the thread
    count never changes a number. numpy's generators, ``bincount``, BLAS and ufunc loops release the GIL, so the
    blocks run in parallel. With several threads set ``OPENBLAS_NUM_THREADS=1``: the per-block products are small
    and threads of both kinds on the same cores slow each other down.
    """
    value = os.environ.get("MTSIG_THREADS", "1").strip() or "1"
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"MTSIG_THREADS must be a positive integer, got {value!r}")
    return int(value)


def _in_order(function: Callable[[int], T], n_items: int, workers: int) -> Iterator[T]:
    """``function(0), ..., function(n_items - 1)``, yielded in order, evaluated by ``workers`` threads with at most
    ``workers`` items in flight (so memory stays bounded however slowly the caller consumes them)."""
    if workers <= 1 or n_items <= 1:
        yield from map(function, range(n_items))
        return
    with ThreadPoolExecutor(max_workers=workers) as pool:
        pending = deque(pool.submit(function, index) for index in range(min(workers, n_items)))
        for index in range(n_items):
            result = pending.popleft().result()
            if index + workers < n_items:
                pending.append(pool.submit(function, index + workers))
            yield result


def _canonical_pairs(pairs: Sequence[tuple[int, int]] | None, n_systems: int) -> list[tuple[int, int]]:
    if pairs is None:
        return unordered_pairs(range(n_systems))
    seen: dict[tuple[int, int], None] = {}
    for i, j in pairs:
        if not (0 <= i < n_systems and 0 <= j < n_systems) or i == j:
            raise ValueError(f"invalid system pair ({i}, {j}) for {n_systems} systems")
        seen.setdefault((min(i, j), max(i, j)), None)
    return list(seen)


def samples_per_test(n_samples: int | Mapping[str, int], tests: Sequence[str]) -> dict[str, int]:
    """B (or R) of every test: one number for all, or a mapping test -> number naming every test."""
    per_test = {t: n_samples for t in tests} if isinstance(n_samples, int) else dict(n_samples)
    missing = [t for t in tests if t not in per_test]
    if missing:
        raise InputError(
            f"n_samples (resampling.samples) gives no sample count for test(s) {', '.join(missing)}"
        )
    bad = {t: per_test[t] for t in tests if int(per_test[t]) < 1}
    if bad:
        raise InputError(f"n_samples (resampling.samples) must be >= 1: {bad}")
    return {t: int(per_test[t]) for t in tests}


def _available(plan: _Plan, fixed_bytes: int, floor_bytes: int) -> int:
    """Bytes left for chunk workspace after ``fixed_bytes``; an error if not even ``floor_bytes`` fit."""
    available = plan.memory_cap_bytes - fixed_bytes
    if available < floor_bytes:
        raise ValueError(
            f"memory_cap_bytes={plan.memory_cap_bytes} is too small for this problem: it needs at least "
            f"{fixed_bytes + floor_bytes} bytes"
        )
    return available


def _scheme_draws(plan: _Plan, tests: Sequence[str], interval_samples: int = 0) -> int:
    """Draws one scheme makes: the largest B of its ``tests`` and of the intervals drawn from it."""
    return max([plan.n_samples[t] for t in tests] + [interval_samples])


def _blocks(n_draws: int) -> int:
    return -(-n_draws // DRAW_BLOCK_SIZE)


def _bootstrap_system_scores(
    plan: _Plan,
    n_total: int,
    block_counts: Callable[[int], np.ndarray],
    workers: int,
    advance: Callable[[int], None],
) -> np.ndarray:
    """Oriented corpus score of every system on each of the first ``n_total`` pseudo-samples: ``[S, n_total]``.

    One product per block of draws: ``C[b, N] @ stats[N, S*k]`` gives every system's resampled totals. Blocks are
    independent (each has its own generator), so ``workers`` threads may compute them in any order.
    """
    n_systems, k = plan.totals.shape

    def block_scores(block_index: int) -> np.ndarray:
        rows = min(DRAW_BLOCK_SIZE, n_total - block_index * DRAW_BLOCK_SIZE)
        counts = block_counts(block_index)[:rows]
        return plan.score(plan.operand.weighted_totals(counts).reshape(rows, n_systems, k)).T

    scores = np.empty((n_systems, n_total), dtype=np.float64)
    for block_index, block in enumerate(_in_order(block_scores, _blocks(n_total), workers)):
        first = block_index * DRAW_BLOCK_SIZE
        scores[:, first : first + block.shape[1]] = block
        advance(1)
    return scores


def _bootstrap_tests(
    plan: _Plan,
    tests: Sequence[str],
    block_counts: Callable[[int], np.ndarray],
    keep: Sequence[int],
    convention: PValueConvention,
    intervals: _IntervalRequest | None = None,
    advance: Callable[[int], None] = lambda blocks: None,
) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], dict[int, np.ndarray], Bounds, Bounds]:
    """p-values of the bootstrap ``tests`` (one scheme) for every pair, ``d_b`` of the pairs in ``keep``, and, when
    ``intervals`` is given, the interval bounds of every pair's ``d`` and of every system's score (oriented) from
    the first ``intervals.n_samples`` draws: the very ``d_b`` the p-values count, chunk by chunk. ``advance(1)``
    after each block of draws."""
    n_total = _scheme_draws(plan, tests, 0 if intervals is None else intervals.n_samples)
    n_systems, k = plan.totals.shape
    n_segments, width = plan.operand.base.shape[0], n_systems * k
    fixed = plan.operand.nbytes + n_systems * n_total * 8
    per_block = DRAW_BLOCK_SIZE * n_segments * 8 * 6 + DRAW_BLOCK_SIZE * width * 8 * SCORE_WORKSPACE_FACTOR
    per_pair = n_total * 8 * 4  # d_b, a centred copy, its magnitude and boolean masks
    if intervals is not None:
        # The jackknife, the system intervals' sorted draws; per pair a sorted copy of d_b and d's jackknife.
        fixed += 0 if intervals.jackknife is None else intervals.jackknife.nbytes
        fixed += n_systems * intervals.n_samples * 8
        per_pair += intervals.n_samples * 8 + (0 if intervals.jackknife is None else n_segments * 8 * 3)
    available = _available(plan, fixed, max(per_block, per_pair))
    # A thread holds one block's workspace and at most one finished block per thread waits to be stored.
    workers = max(1, min(plan.workers, available // (per_block + n_systems * DRAW_BLOCK_SIZE * 8)))
    system_scores = _bootstrap_system_scores(plan, n_total, block_counts, workers, advance)

    n_pairs = len(plan.x)
    counts = {t: (np.empty(n_pairs, np.int64), np.empty(n_pairs, np.int64)) for t in tests}
    kept: dict[int, np.ndarray] = {}
    pair_bounds: Bounds = {}
    system_bounds: Bounds = {}
    if intervals is not None:
        pair_bounds = {m: (np.empty(n_pairs), np.empty(n_pairs)) for m in intervals.methods}
        system_bounds = intervals_from_draws(
            system_scores[:, : intervals.n_samples],
            intervals.corpus,
            intervals.methods,
            intervals.level,
            intervals.jackknife,
        )
    pairs_per_chunk = max(1, min(available // per_pair, CACHE_FRIENDLY_BYTES // (n_total * 8)))
    for start in range(0, n_pairs, pairs_per_chunk):
        chunk = slice(start, min(start + pairs_per_chunk, n_pairs))
        pseudo = system_scores[plan.x[chunk]] - system_scores[plan.y[chunk]]  # d_b, [P_chunk, B]
        for test in tests:
            c_xy, c_yx = exceedance_counts(
                TESTS[test].rule, pseudo[:, : plan.n_samples[test]], plan.actual[chunk]
            )
            counts[test][0][chunk], counts[test][1][chunk] = c_xy, c_yx
        if intervals is not None:
            jackknife = intervals.jackknife
            bounds = intervals_from_draws(
                pseudo[:, : intervals.n_samples],
                plan.actual[chunk],
                intervals.methods,
                intervals.level,
                None if jackknife is None else jackknife[plan.x[chunk]] - jackknife[plan.y[chunk]],
            )
            for method, (low, high) in bounds.items():
                pair_bounds[method][0][chunk], pair_bounds[method][1][chunk] = low, high
        for pair in keep:
            if chunk.start <= pair < chunk.stop:
                kept[pair] = pseudo[pair - chunk.start].copy()
    return _p_values(plan, tests, counts, convention), kept, pair_bounds, system_bounds


def _randomization_tests(
    plan: _Plan,
    tests: Sequence[str],
    seed: int,
    keep: Sequence[int],
    convention: PValueConvention,
    advance: Callable[[int], None] = lambda blocks: None,
) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], dict[int, np.ndarray]]:
    """p-values of the approximate randomization ``tests`` for every pair, and ``d_r`` of the pairs in ``keep``.

    One swap mask per shuffle serves every pair; counts accumulate over blocks of shuffles, so no ``[P, R]`` array
    is ever held (AR needs no mean over shuffles, unlike the shift-to-zero bootstrap). Blocks are independent and
    their integer counts add exactly, so ``plan.workers`` threads may compute them. ``advance(1)`` after each block.
    """
    n_total = _scheme_draws(plan, tests)
    n_systems, k = plan.totals.shape
    n_segments, width = plan.operand.base.shape[0], n_systems * k
    n_pairs = len(plan.x)
    fixed = plan.operand.nbytes + 2 * n_pairs * 8 * len(tests) + len(keep) * n_total * 8
    per_block = DRAW_BLOCK_SIZE * (n_segments * 9 + width * 8)  # mask (bool + float64) and M @ stats
    per_pair = (
        DRAW_BLOCK_SIZE * 8 * (2 * k * (1 + SCORE_WORKSPACE_FACTOR) + 8)
    )  # X_r, Y_r, scores, d_r, masks
    # A thread holds a block, a chunk of pairs, its block's counts and one finished block's counts waiting.
    per_result = 2 * n_pairs * 8 * len(tests) + len(keep) * DRAW_BLOCK_SIZE * 8
    per_thread_floor = per_block + 2 * per_result + per_pair
    available = _available(plan, fixed, per_thread_floor)
    workers = max(1, min(plan.workers, available // per_thread_floor))
    pairs_per_chunk = max(
        1,
        min(
            (available // workers - per_block - 2 * per_result) // per_pair,
            CACHE_FRIENDLY_BYTES // (DRAW_BLOCK_SIZE * k * 8),
        ),
    )

    mask_dtype = _weight_dtype(plan, max_weight_row_sum(RANDOMIZATION, n_segments))

    def block_exceedances(
        block_index: int,
    ) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], dict[int, np.ndarray]]:
        """The counts ``c`` of every pair contributed by one block of shuffles, and its ``d_r`` of kept pairs."""
        first = block_index * DRAW_BLOCK_SIZE
        rows = min(DRAW_BLOCK_SIZE, n_total - first)
        mask = swap_masks(seed, n_segments, block_index)[:rows].astype(mask_dtype)
        # M @ s for every system at once
        swapped = plan.operand.weighted_totals(mask).reshape(rows, n_systems, k)
        counts = {t: (np.zeros(n_pairs, np.int64), np.zeros(n_pairs, np.int64)) for t in tests}
        kept: dict[int, np.ndarray] = {}
        for start in range(0, n_pairs, pairs_per_chunk):
            chunk = slice(start, min(start + pairs_per_chunk, n_pairs))
            x, y = plan.x[chunk], plan.y[chunk]
            delta = swapped[:, y] - swapped[:, x]  # M s_y - M s_x, [rows, P_chunk, k]
            pseudo = (plan.score(plan.totals[x] + delta) - plan.score(plan.totals[y] - delta)).T  # d_r
            for test in tests:
                usable = max(0, min(rows, plan.n_samples[test] - first))
                if usable:
                    c_xy, c_yx = exceedance_counts(TESTS[test].rule, pseudo[:, :usable], plan.actual[chunk])
                    counts[test][0][chunk] = c_xy
                    counts[test][1][chunk] = c_yx
            for pair in keep:
                if chunk.start <= pair < chunk.stop:
                    kept[pair] = pseudo[pair - chunk.start].copy()
        return counts, kept

    counts = {t: (np.zeros(n_pairs, np.int64), np.zeros(n_pairs, np.int64)) for t in tests}
    kept: dict[int, list[np.ndarray]] = {pair: [] for pair in keep}
    for block_result, block_kept in _in_order(block_exceedances, _blocks(n_total), workers):
        for test in tests:
            total_xy, total_yx = counts[test]
            total_xy += block_result[test][0]
            total_yx += block_result[test][1]
        for pair in keep:
            kept[pair].append(block_kept[pair])
        advance(1)
    distributions = {pair: np.concatenate(parts) for pair, parts in kept.items()}
    return _p_values(plan, tests, counts, convention), distributions


def _p_values(
    plan: _Plan,
    tests: Sequence[str],
    counts: Mapping[str, tuple[np.ndarray, np.ndarray]],
    convention: PValueConvention,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    out = {}
    for test in tests:
        rule_convention: PValueConvention = "(c+1)/(B+1)" if TESTS[test].plus_one else convention
        n = plan.n_samples[test]
        out[test] = (
            p_value(counts[test][0], n, rule_convention),
            p_value(counts[test][1], n, rule_convention),
        )
    return out


def pairwise_tests(
    stats: np.ndarray | RelabelledPairs,
    score: Score,
    systems: Sequence[str],
    *,
    higher_is_better: bool = True,
    tests: Sequence[str] = ALL_TESTS,
    n_samples: int | Mapping[str, int] = 10_000,
    seed: int,
    pvalue: PValueConvention = "c/B",
    memory_cap_bytes: int = 1 << 30,
    pairs: Sequence[tuple[int, int]] | None = None,
    keep_distributions: Collection[tuple[str, str]] = (),
    documents: Sequence[object] | np.ndarray | None = None,
    mean_block_length: float | None = None,
    intervals: Sequence[str] = (),
    interval_level: float = 0.95,
    progress: Progress | None = None,
) -> PairwiseResult:
    """Run the randomized ``tests`` for every pair of ``systems`` (or the unordered ``pairs`` given).

    ``stats[S, N, k]``: per-segment sufficient statistics of S systems on N segments, or :class:`RelabelledPairs`
    (the same numbers as its :meth:`~RelabelledPairs.materialise`, computed faster when the statistics are
    integer-valued: :func:`relabelled_operand`); ``score`` maps summed statistics ``[..., k]`` to corpus scores
    ``[...]``. With ``higher_is_better=False`` (TER) scores are negated for
    the comparison, so ``statistic = TER_y - TER_x`` and "X better" still means a positive statistic.

    ``n_samples``: B (or R) for all tests, or per test name; tests of one scheme share draws and a smaller B uses a
    prefix of them (see the module docstring). ``pvalue``: the convention of the paper's tests; the R&M variants
    always use ``(c+1)/(B+1)`` as published. ``documents[N]``: each segment's document id, required by the document
    bootstrap. ``mean_block_length``: of the stationary bootstrap; default :func:`default_mean_block_length`.
    ``memory_cap_bytes`` bounds the memory this function allocates beyond its inputs (an error if the problem cannot
    fit); it never changes a number. ``pairs`` only selects which rows are computed; it never changes a number either.

    ``intervals``: interval methods of :mod:`mtsig.stats.intervals` (``"percentile"``, ``"bca"``) at confidence
    ``interval_level``, for every computed pair's difference and every system's score (:class:`PairwiseResult`).
    They use the i.i.d. bootstrap draws of the paired bootstrap, B = its sample count (``n_samples``, or
    ``n_samples["paired_bootstrap"]``), whether or not that test is run; BCa adds one jackknife of each system's
    corpus score (N leave-one-segment-out scores). Neither the p-values nor the draws change.

    ``progress``: told ``(done, total)`` blocks of :data:`DRAW_BLOCK_SIZE` draws over every scheme run
    (:mod:`mtsig.progress`); it never changes a number.
    """
    relabelled = stats if isinstance(stats, RelabelledPairs) else None
    if relabelled is not None and "bca" in intervals:
        stats, relabelled = relabelled.materialise(), None  # BCa's jackknife needs the stacked statistics
    if relabelled is None:
        stats = np.asarray(stats)
        if stats.ndim != 3:
            raise ValueError(f"stats must have shape [systems, segments, k], got {stats.shape}")
    n_systems, n_segments, k = stats.shape
    if len(systems) != n_systems or len(set(systems)) != n_systems:
        raise ValueError(f"need {n_systems} distinct system names, got {list(systems)}")
    if n_systems < 2 or n_segments < 1:
        raise ValueError(f"need at least 2 systems and 1 segment, got stats of shape {stats.shape}")
    unknown = [t for t in tests if t not in TESTS]
    if unknown:
        raise ValueError(f"unknown test(s) {', '.join(unknown)}; known: {', '.join(ALL_TESTS)}")
    tests = [t for t in ALL_TESTS if t in set(tests)]
    p_convention: PValueConvention = pvalue
    p_value(np.zeros(1), 1, p_convention)  # validates the convention before any work

    schemes = {TESTS[t].scheme for t in tests}
    document_of_segment = None
    if DOCUMENT_BOOTSTRAP in schemes:
        if documents is None or len(documents) != n_segments:
            raise ValueError(f"the document bootstrap needs one document id per segment ({n_segments})")
        document_of_segment = document_codes(documents)
    block_length = (
        default_mean_block_length(n_segments) if mean_block_length is None else float(mean_block_length)
    )

    interval_methods = check_interval_request(intervals, interval_level)
    interval_samples = _interval_samples(n_samples) if interval_methods else 0

    oriented: Score = score if higher_is_better else (lambda totals: -np.asarray(score(totals)))
    if relabelled is None:
        stats = stats.astype(np.float64, copy=False)
        operand = statistics_operand(stats)
        # the exact totals where the statistics are not integers, as the resampled ones (mtsig.portable)
        totals = (
            stats.sum(axis=1)
            if operand.exact_sums is None
            else operand.weighted_totals(np.ones((1, n_segments))).reshape(n_systems, k)
        )
    elif is_integer_valued(relabelled.stats_x) and is_integer_valued(relabelled.stats_y):
        operand, totals = relabelled_operand(relabelled)
    else:
        bound = max(max_weight_row_sum(TESTS[t].scheme, n_segments, document_of_segment) for t in tests)
        operand, totals = sliced_relabelled_operand(relabelled, bound)
    corpus = np.asarray(oriented(totals), dtype=np.float64)
    _require_finite(corpus, "corpus score", lambda i: f"system {systems[i]!r}")
    unordered = _canonical_pairs(pairs, n_systems)
    x = np.array([i for i, _ in unordered], dtype=np.int64)
    y = np.array([j for _, j in unordered], dtype=np.int64)
    plan = _Plan(
        operand=operand,
        totals=totals,
        score=oriented,
        x=x,
        y=y,
        actual=corpus[x] - corpus[y],
        n_samples=samples_per_test(n_samples, tests),
        memory_cap_bytes=int(memory_cap_bytes),
        workers=resampling_threads(),
    )

    index_of_pair = {pair: n for n, pair in enumerate(unordered)}
    name_index = {name: n for n, name in enumerate(systems)}
    keep_requests: list[tuple[str, str, int, bool]] = []  # (sys_x, sys_y, pair number, reversed)
    for sys_x, sys_y in keep_distributions:
        i, j = name_index.get(sys_x), name_index.get(sys_y)
        if i is None or j is None or (min(i, j), max(i, j)) not in index_of_pair:
            raise ValueError(f"cannot keep distributions of ({sys_x}, {sys_y}): not a computed pair")
        keep_requests.append((sys_x, sys_y, index_of_pair[(min(i, j), max(i, j))], i > j))
    keep = sorted({request[2] for request in keep_requests})

    interval_request = None
    if interval_methods:
        jackknife = None
        if "bca" in interval_methods:
            # Leave-one-segment-out corpus scores, in chunks that keep the score's workspace cache-sized.
            _available(plan, plan.operand.nbytes + stats[:, :, 0].nbytes, CACHE_FRIENDLY_BYTES)
            jackknife = leave_one_out_scores(stats, oriented, CACHE_FRIENDLY_BYTES, totals)
        interval_request = _IntervalRequest(
            interval_methods, float(interval_level), interval_samples, corpus, jackknife
        )
    pair_bounds: Bounds = {}
    system_bounds: Bounds = {}

    p_values: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    pseudo_of: dict[str, dict[int, np.ndarray]] = {}
    runs = []  # (scheme, its tests, whether the intervals come from its draws), in the order of SCHEMES
    for scheme in SCHEMES:
        scheme_tests = [t for t in tests if TESTS[t].scheme == scheme]
        wants_intervals = scheme == IID_BOOTSTRAP and interval_request is not None
        if scheme_tests or wants_intervals:
            runs.append((scheme, scheme_tests, wants_intervals))
    advance = counter(
        progress,
        sum(_blocks(_scheme_draws(plan, t, interval_samples if i else 0)) for _, t, i in runs),
    )
    for scheme, scheme_tests, wants_intervals in runs:
        if scheme == RANDOMIZATION:
            result, kept = _randomization_tests(plan, scheme_tests, seed, keep, p_convention, advance)
        else:
            weight_dtype = _weight_dtype(plan, max_weight_row_sum(scheme, n_segments, document_of_segment))
            scheme_plan = plan
            documents_operand = None
            if scheme == DOCUMENT_BOOTSTRAP:
                documents_operand = by_document(plan.operand, document_of_segment)
                scheme_plan = plan if documents_operand is None else replace(plan, operand=documents_operand)

            def block_counts(
                block_index: int,
                scheme: str = scheme,
                dtype: type = weight_dtype,
                of_documents: bool = documents_operand is not None,
            ) -> np.ndarray:
                if of_documents:
                    return document_counts(seed, int(document_of_segment.max()) + 1, block_index, dtype)
                return scheme_counts(
                    scheme,
                    seed,
                    n_segments,
                    block_index,
                    document_of_segment=document_of_segment,
                    mean_block_length=block_length,
                    dtype=dtype,
                )

            result, kept, bounds, own_bounds = _bootstrap_tests(
                scheme_plan,
                scheme_tests,
                block_counts,
                keep,
                p_convention,
                interval_request if wants_intervals else None,
                advance,
            )
            if wants_intervals:
                pair_bounds, system_bounds = bounds, own_bounds
        p_values.update(result)
        for test in scheme_tests:
            pseudo_of[test] = {pair: kept[pair][: plan.n_samples[test]] for pair in keep}

    table = _result_table(systems, plan, tests, p_values)

    def row(i: int) -> str:
        return "{!r} vs {!r}, {}".format(*table[["sys_x", "sys_y", "test"]].iloc[i])

    _require_finite(table["statistic"].to_numpy(), "difference", row)
    _require_finite(table["p_value"].to_numpy(), "p-value", row)
    distributions: dict[tuple[str, str], dict[str, np.ndarray | float]] = {}
    for sys_x, sys_y, pair, flipped in keep_requests:
        sign = -1.0 if flipped else 1.0
        entry: dict[str, np.ndarray | float] = {t: sign * pseudo_of[t][pair] for t in tests}
        entry["actual"] = float(sign * plan.actual[pair])
        distributions[(sys_x, sys_y)] = entry
    raw_scores = corpus if higher_is_better else -corpus
    settings: dict[str, object] = {
        "seed": int(seed),
        "n_samples": dict(plan.n_samples),
        "pvalue": p_convention,
        "draw_block_size": DRAW_BLOCK_SIZE,
    }
    if STATIONARY_BOOTSTRAP in schemes:
        settings["mean_block_length"] = block_length
    if DOCUMENT_BOOTSTRAP in schemes:
        settings["n_documents"] = int(document_of_segment.max()) + 1
    interval_table = system_interval_table = None
    if interval_request is not None:
        settings["intervals"] = {
            "methods": list(interval_methods),
            "level": float(interval_level),
            "n_samples": interval_samples,
            "scheme": IID_BOOTSTRAP,
        }
        interval_table = _interval_table(systems, plan, pair_bounds, float(interval_level))
        system_interval_table = _system_interval_table(
            systems, raw_scores, system_bounds, float(interval_level), higher_is_better
        )
        for frame in (interval_table, system_interval_table):
            labels = frame.select_dtypes(exclude="number").astype(str).agg(" ".join, axis=1)
            bounds = frame[["ci_low", "ci_high"]].to_numpy()
            _require_finite(bounds, "interval bound", lambda i, labels=labels: labels.iloc[i // 2])
    return PairwiseResult(
        table=table,
        system_scores={name: float(s) for name, s in zip(systems, raw_scores, strict=True)},
        distributions=distributions,
        settings=settings,
        intervals=interval_table,
        system_intervals=system_interval_table,
    )


def _require_finite(values: np.ndarray, what: str, where: Callable[[int], str]) -> None:
    """ValueError at the first NaN or infinity: a conclusion is never drawn from numbers that overflowed (e.g.
    segment scores near 1e308, whose sums exceed double precision) or are undefined."""
    bad = np.flatnonzero(~np.isfinite(np.ravel(values)))
    if bad.size:
        raise ValueError(
            f"the {what} of {where(int(bad[0]))} is {np.ravel(values)[bad[0]]} ({bad.size} non-finite value(s)): "
            "the scores overflow double precision or are undefined; rescale them (e.g. to 0-100) and rerun"
        )


def _interval_samples(n_samples: int | Mapping[str, int]) -> int:
    """B of the intervals: the paired bootstrap's sample count, so they come from the draws of its p-values."""
    if isinstance(n_samples, int):
        count = n_samples
    elif "paired_bootstrap" in n_samples:
        count = n_samples["paired_bootstrap"]
    else:
        raise ValueError(
            "the intervals use the paired bootstrap's draws: give n_samples['paired_bootstrap'] (their B)"
        )
    if int(count) < 1:
        raise ValueError(f"n_samples must be >= 1 for the intervals, got {count}")
    return int(count)


def _oriented_rows(
    systems: Sequence[str], plan: _Plan, labels: Sequence[str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The ``sys_x``, ``sys_y``, statistic and label columns of a table with one row per pair (as given), then
    (X, Y) before (Y, X), then label: axis order [pair, orientation, label], flattened row-major; (Y, X) has
    the statistic negated."""
    names = np.asarray(systems, dtype=object)
    shape = (len(plan.x), 2, len(labels))
    sys_x = np.broadcast_to(np.stack([names[plan.x], names[plan.y]], axis=1)[:, :, None], shape)
    sys_y = np.broadcast_to(np.stack([names[plan.y], names[plan.x]], axis=1)[:, :, None], shape)
    statistic = np.broadcast_to(np.stack([plan.actual, -plan.actual], axis=1)[:, :, None], shape)
    label_column = np.broadcast_to(np.asarray(labels, dtype=object)[None, None, :], shape)
    return sys_x.ravel(), sys_y.ravel(), statistic.ravel(), label_column.ravel()


def _interval_table(systems: Sequence[str], plan: _Plan, bounds: Bounds, level: float) -> pd.DataFrame:
    """Rows in the order: pair (as given), then (X, Y) before (Y, X), then method; (Y, X) is (X, Y) negated."""
    methods = list(bounds)
    sys_x, sys_y, statistic, method_names = _oriented_rows(systems, plan, methods)
    low = np.stack([np.stack([bounds[m][0], -bounds[m][1]], axis=1) for m in methods], axis=2)
    high = np.stack([np.stack([bounds[m][1], -bounds[m][0]], axis=1) for m in methods], axis=2)
    return pd.DataFrame(
        {
            "sys_x": sys_x,
            "sys_y": sys_y,
            "method": method_names,
            "level": level,
            "statistic": statistic,
            "ci_low": low.ravel(),
            "ci_high": high.ravel(),
        }
    )


def _system_interval_table(
    systems: Sequence[str], raw_scores: np.ndarray, bounds: Bounds, level: float, higher_is_better: bool
) -> pd.DataFrame:
    """Rows in the order: system (as given), then method; on the metric's scale (the oriented bounds of a
    lower-is-better metric are negated back and swapped)."""
    frames = []
    for method, (low, high) in bounds.items():
        if not higher_is_better:
            low, high = -high, -low
        frames.append(
            pd.DataFrame(
                {
                    "system": list(systems),
                    "method": method,
                    "level": level,
                    "score": raw_scores,
                    "ci_low": low,
                    "ci_high": high,
                    "_order": np.arange(len(systems)),
                }
            )
        )
    table = pd.concat(frames, ignore_index=True).sort_values("_order", kind="stable")
    return table.drop(columns="_order").reset_index(drop=True)


def _result_table(
    systems: Sequence[str],
    plan: _Plan,
    tests: Sequence[str],
    p_values: Mapping[str, tuple[np.ndarray, np.ndarray]],
) -> pd.DataFrame:
    """Rows in the order: pair (as given), then (X, Y) before (Y, X), then test in :data:`ALL_TESTS` order."""
    sys_x, sys_y, statistic, test_names = _oriented_rows(systems, plan, tests)
    shape = (len(plan.x), 2, len(tests))
    p = np.stack([np.stack(p_values[t], axis=1) for t in tests], axis=2) if tests else np.empty(shape)
    return pd.DataFrame(
        {
            "sys_x": sys_x,
            "sys_y": sys_y,
            "test": test_names,
            "statistic": statistic,
            "p_value": p.ravel(),
        }
    )
