"""The draws of the randomized tests and their count matrices, block by block.

Block ``j`` of a scheme's draws holds samples ``j*DRAW_BLOCK_SIZE ...`` and comes from its own generator,
``rng_for(seed, "mtsig.resampling", scheme, <size>, j)``: the i.i.d. bootstrap's segment indices (Graham, Mathur &
Baldwin 2014, Figs. 1, 3, 4; Koehn 2004), approximate randomization's swap masks (Fig. 2; Riezler & Maxwell 2005),
the document bootstrap's document indices, the stationary bootstrap's blocks (Politis & Romano 1994). A bootstrap
sample enters the products as a row of counts (how often each segment was drawn), shared by every system.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from mtsig.stats.seeding import rng_for

#: Samples per block of draws. Block ``j`` holds samples ``j*DRAW_BLOCK_SIZE ...`` of a scheme's stream.
DRAW_BLOCK_SIZE = 256

IID_BOOTSTRAP = "iid_bootstrap"
RANDOMIZATION = "randomization"
DOCUMENT_BOOTSTRAP = "document_bootstrap"
STATIONARY_BOOTSTRAP = "stationary_bootstrap"
SCHEMES = (IID_BOOTSTRAP, RANDOMIZATION, DOCUMENT_BOOTSTRAP, STATIONARY_BOOTSTRAP)


def _block_rng(seed: int, scheme: str, size_key: object, block_index: int) -> np.random.Generator:
    return rng_for(seed, "mtsig.resampling", scheme, size_key, block_index)


#: How :func:`bootstrap_indices` turns the generator's output into indices: ``rng.integers`` (one bounded integer
#: per index), or ``floor(u n)`` of uniform floats ``rng.random`` (WMT26's system ranking, whose rows have
#: different sizes). The two give different streams from the same generator, so each caller keeps its own.
INTEGER_DRAWS = "integers"
UNIFORM_DRAWS = "uniform"


def bootstrap_indices(
    rng: np.random.Generator,
    n_units: int | np.ndarray,
    n_resamples: int,
    *,
    width: int | None = None,
    draw: str = INTEGER_DRAWS,
) -> np.ndarray:
    """Indices of ``n_resamples`` bootstrap resamples, units drawn uniformly with replacement (Efron & Tibshirani
    1993, Sec. 6.2; Graham, Mathur & Baldwin 2014, Figs. 1, 3, 4): the one bootstrap draw of the package.

    ``n_units`` an int: ``int64[n_resamples, width]`` (``width`` default ``n_units``), each row
    ``rng.integers(0, n_units, ...)`` or ``floor(u n_units)``. ``n_units`` an array ``[K]`` of row sizes:
    ``int64[K, n_resamples, width]``, row k's indices below ``n_units[k]`` (the positions past ``n_units[k]`` are
    drawn too, for the caller to ignore). ``draw``: :data:`INTEGER_DRAWS` or :data:`UNIFORM_DRAWS`.
    """
    sizes: int | np.ndarray
    if np.ndim(n_units):
        assert width is not None, "rows of different sizes need a width"
        sizes = np.asarray(n_units)[:, None, None]
        shape: tuple[int, ...] = (len(sizes), n_resamples, width)
    else:
        sizes = int(n_units)
        shape = (n_resamples, sizes if width is None else width)
    if draw == INTEGER_DRAWS:
        return rng.integers(0, sizes, size=shape, dtype=np.int64)
    if draw != UNIFORM_DRAWS:
        raise ValueError(f"draw must be {INTEGER_DRAWS!r} or {UNIFORM_DRAWS!r}, got {draw!r}")
    uniform = rng.random(shape)
    uniform *= sizes
    positions = uniform.astype(np.int64)
    return np.minimum(positions, np.maximum(sizes - 1, 0), out=positions)


def iid_draws(seed: int, n_segments: int, block_index: int) -> np.ndarray:
    """Block ``block_index`` of the i.i.d. bootstrap draws: ``int64[DRAW_BLOCK_SIZE, n_segments]``, each row the
    segment indices of one pseudo-test-set drawn uniformly with replacement (paper Figs. 1, 3, 4)."""
    rng = _block_rng(seed, IID_BOOTSTRAP, n_segments, block_index)
    return bootstrap_indices(rng, n_segments, DRAW_BLOCK_SIZE)


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
    return bootstrap_indices(rng, n_documents, DRAW_BLOCK_SIZE)


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
        return counts_from_indices(iid_draws(seed, n_segments, block_index), n_segments, dtype)
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
class DrawSource:
    """The bootstrap schemes' count matrices for one call: the seed and the test set's shape."""

    seed: int
    n_segments: int
    document_of_segment: np.ndarray | None
    mean_block_length: float

    def block_counts(self, scheme: str, dtype: type, of_documents: bool) -> Callable[[int], np.ndarray]:
        """Block ``j``'s counts ``dtype[DRAW_BLOCK_SIZE, N]`` of a bootstrap scheme (Graham, Mathur & Baldwin 2014,
        Figs. 1, 3, 4; Politis & Romano 1994), or, ``of_documents``, the documents' counts ``[DRAW_BLOCK_SIZE, D]``
        that multiply the documents' summed statistics."""
        document_of_segment = self.document_of_segment

        def block_counts(block_index: int) -> np.ndarray:
            if of_documents:
                assert document_of_segment is not None
                return document_counts(self.seed, int(document_of_segment.max()) + 1, block_index, dtype)
            return scheme_counts(
                scheme,
                self.seed,
                self.n_segments,
                block_index,
                document_of_segment=document_of_segment,
                mean_block_length=self.mean_block_length,
                dtype=dtype,
            )

        return block_counts
