"""One scheme's draws turned into p-values for every pair: the plan, the memory budget, the threads.

A bootstrap scheme's counts ``C[B, N]`` give every system's resampled corpus score in one product per block of
draws (:func:`bootstrap_tests`; Graham, Mathur & Baldwin 2014, Figs. 1, 3, 4; Koehn 2004; the document and
stationary bootstraps, Politis & Romano 1994); approximate randomization's swap masks give ``M @ stats`` for every
system at once and are counted block by block (:func:`randomization_tests`; Fig. 2; Riezler & Maxwell 2005). Work is
chunked over samples and pairs to stay under the memory cap, and ``MTSIG_THREADS`` threads compute blocks of draws,
combined in order: neither ever changes a number.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import TypeVar

import numpy as np

from mtsig.stats.intervals import intervals_from_draws
from mtsig.stats.resampling.draws import DRAW_BLOCK_SIZE, RANDOMIZATION, max_weight_row_sum, swap_masks
from mtsig.stats.resampling.operands import Operand, SlicedOperand, float32_is_exact
from mtsig.stats.resampling.registry import TESTS, PValueConvention, exceedance_counts, p_value

Score = Callable[[np.ndarray], np.ndarray]
T = TypeVar("T")

#: Working memory a score function is assumed to need, in multiples of the size of its input.
SCORE_WORKSPACE_FACTOR = 8

#: Pairs are processed in chunks whose per-pair arrays (AR totals ``[256, P, k]``, bootstrap ``d_b[P, B]``) take
#: about this many bytes: the many elementwise passes of a score function then stay in the CPU cache (about 3x
#: faster than chunks of hundreds of MB). Chunking never changes a number.
CACHE_FRIENDLY_BYTES = 1 << 20


@dataclass(frozen=True)
class IntervalRequest:
    """Confidence intervals to compute from the i.i.d. bootstrap draws (see :mod:`mtsig.stats.intervals`)."""

    methods: tuple[str, ...]
    level: float
    n_samples: int  # B: the paired bootstrap's, so the intervals use the draws of its p-values
    corpus: np.ndarray  # [S] oriented corpus scores: the estimates of the system intervals
    jackknife: np.ndarray | None  # [S, N] oriented leave-one-segment-out scores (BCa only)


Bounds = dict[str, tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class Plan:
    """What every scheme of one call needs: the statistics, the oriented score, the pairs and their actual
    differences ``d = S(X) - S(Y)`` (Graham, Mathur & Baldwin 2014, Section 2), each test's B, the memory cap and
    the threads."""

    # the statistics matrix stats[N, S*k], in the form its weighted totals are computed in
    operand: Operand | SlicedOperand
    totals: np.ndarray  # [S, k]
    score: Score  # oriented: higher is better
    x: np.ndarray  # [P] first system of each unordered pair
    y: np.ndarray  # [P]
    actual: np.ndarray  # [P] d = S(X) - S(Y), oriented
    n_samples: dict[str, int]
    memory_cap_bytes: int
    workers: int  # threads computing blocks of draws (:func:`resampling_threads`)


def weight_dtype(plan: Plan, max_row_sum: int) -> type:
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


def in_order(function: Callable[[int], T], n_items: int, workers: int) -> Iterator[T]:
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


def bytes_available(plan: Plan, fixed_bytes: int, floor_bytes: int) -> int:
    """Bytes left for chunk workspace after ``fixed_bytes``; an error if not even ``floor_bytes`` fit."""
    available = plan.memory_cap_bytes - fixed_bytes
    if available < floor_bytes:
        raise ValueError(
            f"memory_cap_bytes={plan.memory_cap_bytes} is too small for this problem: it needs at least "
            f"{fixed_bytes + floor_bytes} bytes"
        )
    return available


def scheme_draws(plan: Plan, tests: Sequence[str], interval_samples: int = 0) -> int:
    """Draws one scheme makes: the largest B of its ``tests`` and of the intervals drawn from it."""
    return max([plan.n_samples[t] for t in tests] + [interval_samples])


def n_blocks(n_draws: int) -> int:
    """Blocks of :data:`~mtsig.stats.resampling.draws.DRAW_BLOCK_SIZE` draws that hold ``n_draws`` draws."""
    return -(-n_draws // DRAW_BLOCK_SIZE)


def bootstrap_system_scores(
    plan: Plan,
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
    for block_index, block in enumerate(in_order(block_scores, n_blocks(n_total), workers)):
        first = block_index * DRAW_BLOCK_SIZE
        scores[:, first : first + block.shape[1]] = block
        advance(1)
    return scores


def bootstrap_tests(
    plan: Plan,
    tests: Sequence[str],
    block_counts: Callable[[int], np.ndarray],
    keep: Sequence[int],
    convention: PValueConvention,
    intervals: IntervalRequest | None = None,
    advance: Callable[[int], None] = lambda blocks: None,
) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], dict[int, np.ndarray], Bounds, Bounds]:
    """p-values of the bootstrap ``tests`` (one scheme) for every pair, ``d_b`` of the pairs in ``keep``, and, when
    ``intervals`` is given, the interval bounds of every pair's ``d`` and of every system's score (oriented) from
    the first ``intervals.n_samples`` draws: the very ``d_b`` the p-values count, chunk by chunk. ``advance(1)``
    after each block of draws. Graham, Mathur & Baldwin (2014), Figs. 1, 3, 4; Koehn (2004)."""
    n_total = scheme_draws(plan, tests, 0 if intervals is None else intervals.n_samples)
    workers, pairs_per_chunk = _bootstrap_budget(plan, n_total, intervals)
    system_scores = bootstrap_system_scores(plan, n_total, block_counts, workers, advance)

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
    for start in range(0, n_pairs, pairs_per_chunk):
        chunk = slice(start, min(start + pairs_per_chunk, n_pairs))
        pseudo = system_scores[plan.x[chunk]] - system_scores[plan.y[chunk]]  # d_b, [P_chunk, B]
        for test in tests:
            c_xy, c_yx = exceedance_counts(
                TESTS[test].rule, pseudo[:, : plan.n_samples[test]], plan.actual[chunk]
            )
            counts[test][0][chunk], counts[test][1][chunk] = c_xy, c_yx
        if intervals is not None:
            _pair_intervals(plan, intervals, pseudo, chunk, pair_bounds)
        _keep_pseudo(keep, pseudo, chunk, kept)
    return p_values_of_counts(plan, tests, counts, convention), kept, pair_bounds, system_bounds


def _bootstrap_budget(plan: Plan, n_total: int, intervals: IntervalRequest | None) -> tuple[int, int]:
    """``(workers, pairs per chunk)`` of a bootstrap scheme with ``n_total`` draws under the memory cap: the
    systems' resampled scores ``[S, B]`` are held whole (the shift-to-zero tests need each pair's mean ``d_b``),
    the pairs' ``d_b`` a chunk at a time."""
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
    available = bytes_available(plan, fixed, max(per_block, per_pair))
    # A thread holds one block's workspace and at most one finished block per thread waits to be stored.
    workers = max(1, min(plan.workers, available // (per_block + n_systems * DRAW_BLOCK_SIZE * 8)))
    pairs_per_chunk = max(1, min(available // per_pair, CACHE_FRIENDLY_BYTES // (n_total * 8)))
    return workers, pairs_per_chunk


def _pair_intervals(
    plan: Plan, intervals: IntervalRequest, pseudo: np.ndarray, chunk: slice, pair_bounds: Bounds
) -> None:
    """Store the interval bounds of the pairs of ``chunk`` from their ``d_b`` (percentile, BCa; Efron &
    Tibshirani 1993) in ``pair_bounds``."""
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


def _keep_pseudo(keep: Sequence[int], pseudo: np.ndarray, chunk: slice, kept: dict[int, np.ndarray]) -> None:
    """Copy the pseudo-statistics of the kept pairs that fall in ``chunk`` (the paper's Figs. 5-6) into ``kept``."""
    for pair in keep:
        if chunk.start <= pair < chunk.stop:
            kept[pair] = pseudo[pair - chunk.start].copy()


def randomization_tests(
    plan: Plan,
    tests: Sequence[str],
    seed: int,
    keep: Sequence[int],
    convention: PValueConvention,
    advance: Callable[[int], None] = lambda blocks: None,
) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], dict[int, np.ndarray]]:
    """p-values of the approximate randomization ``tests`` for every pair, and ``d_r`` of the pairs in ``keep``
    (Graham, Mathur & Baldwin 2014, Fig. 2; Riezler & Maxwell 2005).

    One swap mask per shuffle serves every pair; counts accumulate over blocks of shuffles, so no ``[P, R]`` array
    is ever held (AR needs no mean over shuffles, unlike the shift-to-zero bootstrap). Blocks are independent and
    their integer counts add exactly, so ``plan.workers`` threads may compute them. ``advance(1)`` after each block.
    """
    n_total = scheme_draws(plan, tests)
    n_pairs = len(plan.x)
    workers, pairs_per_chunk = _randomization_budget(plan, len(tests), len(keep), n_total)
    mask_dtype = weight_dtype(plan, max_weight_row_sum(RANDOMIZATION, plan.operand.base.shape[0]))
    block_exceedances = partial(
        _randomization_block, plan, tests, seed, keep, n_total, pairs_per_chunk, mask_dtype
    )
    counts = {t: (np.zeros(n_pairs, np.int64), np.zeros(n_pairs, np.int64)) for t in tests}
    kept: dict[int, list[np.ndarray]] = {pair: [] for pair in keep}
    for block_result, block_kept in in_order(block_exceedances, n_blocks(n_total), workers):
        for test in tests:
            total_xy, total_yx = counts[test]
            total_xy += block_result[test][0]
            total_yx += block_result[test][1]
        for pair in keep:
            kept[pair].append(block_kept[pair])
        advance(1)
    distributions = {pair: np.concatenate(parts) for pair, parts in kept.items()}
    return p_values_of_counts(plan, tests, counts, convention), distributions


def _randomization_budget(plan: Plan, n_tests: int, n_keep: int, n_total: int) -> tuple[int, int]:
    """``(workers, pairs per chunk)`` of approximate randomization with ``n_total`` shuffles under the memory cap:
    each thread holds one block of masks, a chunk of pairs' resampled totals and its block's counts."""
    n_systems, k = plan.totals.shape
    n_segments, width = plan.operand.base.shape[0], n_systems * k
    n_pairs = len(plan.x)
    fixed = plan.operand.nbytes + 2 * n_pairs * 8 * n_tests + n_keep * n_total * 8
    per_block = DRAW_BLOCK_SIZE * (n_segments * 9 + width * 8)  # mask (bool + float64) and M @ stats
    per_pair = (
        DRAW_BLOCK_SIZE * 8 * (2 * k * (1 + SCORE_WORKSPACE_FACTOR) + 8)
    )  # X_r, Y_r, scores, d_r, masks
    # A thread holds a block, a chunk of pairs, its block's counts and one finished block's counts waiting.
    per_result = 2 * n_pairs * 8 * n_tests + n_keep * DRAW_BLOCK_SIZE * 8
    per_thread_floor = per_block + 2 * per_result + per_pair
    available = bytes_available(plan, fixed, per_thread_floor)
    workers = max(1, min(plan.workers, available // per_thread_floor))
    pairs_per_chunk = max(
        1,
        min(
            (available // workers - per_block - 2 * per_result) // per_pair,
            CACHE_FRIENDLY_BYTES // (DRAW_BLOCK_SIZE * k * 8),
        ),
    )
    return workers, pairs_per_chunk


def _randomization_block(
    plan: Plan,
    tests: Sequence[str],
    seed: int,
    keep: Sequence[int],
    n_total: int,
    pairs_per_chunk: int,
    mask_dtype: type,
    block_index: int,
) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], dict[int, np.ndarray]]:
    """The counts ``c`` of every pair contributed by one block of shuffles, and its ``d_r`` of kept pairs:
    ``X_r = T_x - M s_x + M s_y``, ``Y_r = T_y - M s_y + M s_x`` (Graham, Mathur & Baldwin 2014, Fig. 2)."""
    n_systems, k = plan.totals.shape
    n_pairs = len(plan.x)
    first = block_index * DRAW_BLOCK_SIZE
    rows = min(DRAW_BLOCK_SIZE, n_total - first)
    mask = swap_masks(seed, plan.operand.base.shape[0], block_index)[:rows].astype(mask_dtype)
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
        _keep_pseudo(keep, pseudo, chunk, kept)
    return counts, kept


def p_values_of_counts(
    plan: Plan,
    tests: Sequence[str],
    counts: Mapping[str, tuple[np.ndarray, np.ndarray]],
    convention: PValueConvention,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each test's p-values of (X, Y) and (Y, X) from its counts: the configured convention, or ``(c+1)/(B+1)``
    for the Riezler & Maxwell (2005) tests as published."""
    out = {}
    for test in tests:
        rule_convention: PValueConvention = "(c+1)/(B+1)" if TESTS[test].plus_one else convention
        n = plan.n_samples[test]
        out[test] = (
            p_value(counts[test][0], n, rule_convention),
            p_value(counts[test][1], n, rule_convention),
        )
    return out
