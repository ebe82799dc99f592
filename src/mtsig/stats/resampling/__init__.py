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

*Determinism and sharing of draws.* Draws are generated in fixed blocks of :data:`~mtsig.stats.resampling.draws.DRAW_BLOCK_SIZE` samples, block ``j``
from ``rng_for(seed, "mtsig.resampling", scheme, <size>, j)``. They therefore depend only on the seed, the scheme and
the test-set shape: not on the chunk size, the memory cap or which pairs are computed, so a shard of pairs gives rows
byte-identical to the full run. A run with fewer samples uses a prefix of the same draws. Tests of one scheme share
draws (the four i.i.d. bootstraps; both AR tests; each block bootstrap with its own paired and shift-to-zero forms),
so differences between the tests' conclusions come from the tests and not from Monte-Carlo noise.

*Effect sizes.* With ``ResamplingOptions(intervals=...)`` the i.i.d. bootstrap's draws also give percentile and BCa intervals of every
pair's difference and every system's score (:mod:`mtsig.stats.intervals`), computed chunk by chunk from the very ``d_b``
whose counts give the paired bootstrap's p-values, so they share its determinism and memory cap.

*Exact, fast products.* The weights (bootstrap counts, AR swap masks) are non-negative integers. When the
statistics are integer-valued too (BLEU, chrF, TER and METEOR counts; not NIST's information-weighted matches) and
no partial sum can exceed 2**24, the product is computed in float32: every intermediate is then an integer that
float32 represents exactly, so the result is bit-identical to the float64 (and to the exact integer) sum at half the
memory traffic (:func:`~mtsig.stats.resampling.operands.float32_is_exact`). Identical columns of the statistics (a reference length shared by every
system) are multiplied once. Either way, for integer statistics the numbers do not depend on the BLAS kernel,
blocking or thread count. Statistics that are not integer-valued (NIST's, published segment scores) are cut into
integer slices whose products are exact too (:class:`mtsig.runtime.portable.WeightedSums`): BLAS would round their sums in
an order that depends on the CPU. Simulated pairs that relabel two real systems' outputs per segment
(:class:`RelabelledPairs`, the calibration study's null pairs and planted alternatives) are multiplied in factored
form: only the kept differences ``keep_p * (X - Y)``, once per pair instead of once per pseudo-system, on the
segments where they are not zero, and where whole documents are relabelled, document by document
(:class:`.operands.GroupedDelta`); for statistics that are not integers, slice by slice
(:func:`~mtsig.stats.resampling.relabelled.sliced_relabelled_operand`).

*Threads.* ``MTSIG_THREADS`` (default 1) threads compute blocks of draws concurrently (:func:`~mtsig.stats.resampling.schemes.resampling_threads`);
blocks are combined in order, so the thread count never changes a number. The products run in the BLAS library's
threads (``OPENBLAS_NUM_THREADS``; Snakemake sets it from a rule's ``threads:``). The products are small (a block of
256 samples at a time), so one BLAS thread is usually fastest, and necessary with ``MTSIG_THREADS > 1``
(benchmarks/README.md).

*The modules*, one job each, in the order a sample flows through them (each imports only from those before it):

- :mod:`~mtsig.stats.resampling.draws`: the random draws of each scheme, block by block, and their count matrices
  (what is drawn; depends only on the seed and the test-set shape).
- :mod:`~mtsig.stats.resampling.registry`: the tests (:data:`TESTS`), their counting rules and p-value conventions
  (what a test counts; no arrays of statistics).
- :mod:`~mtsig.stats.resampling.operands`: the statistics matrix in the form its weighted totals are computed in,
  exactly (how ``W @ stats`` is multiplied; knows neither tests nor draws).
- :mod:`~mtsig.stats.resampling.relabelled`: the factored operand of simulated relabelled pairs (the one input form
  with its own algebra; the calibration study's).
- :mod:`~mtsig.stats.resampling.schemes`: one scheme's draws turned into every pair's p-values under the memory cap
  and with the threads (the loops over blocks and chunks of pairs).
- :mod:`~mtsig.stats.resampling.tables`: the result and its tables (the only pandas).
- :mod:`~mtsig.stats.resampling.engine`: :func:`pairwise_tests` and its :class:`ResamplingOptions`, which checks
  the request, builds the plan, runs the schemes and assembles the result.

The cut follows the data: draws and operands are independent of each other and meet only in :mod:`schemes`, so a
reader can check the draws against the papers' algorithms, or the exact products against their bounds, without
reading the loops; and the loops without reading either.

*The public surface* is what a user of the library names: the entry point :func:`pairwise_tests` with its
:class:`ResamplingOptions`, the test registry (:data:`TESTS`, :class:`TestSpec`, :data:`ALL_TESTS`,
:data:`PAPER_TESTS`, the p-value conventions :data:`PValueConvention`), the result :class:`PairwiseResult`, the
schemes :data:`SCHEMES`, and :class:`RelabelledPairs`, the factored input of simulated pairs. Everything else
(the draws, the operands, the tuning constants) is imported from its module.
"""

from __future__ import annotations

from mtsig.stats.resampling.draws import SCHEMES
from mtsig.stats.resampling.engine import ResamplingOptions, pairwise_tests
from mtsig.stats.resampling.registry import ALL_TESTS, PAPER_TESTS, TESTS, PValueConvention, TestSpec
from mtsig.stats.resampling.relabelled import RelabelledPairs
from mtsig.stats.resampling.tables import PairwiseResult

__all__ = [
    "ALL_TESTS",
    "PAPER_TESTS",
    "PValueConvention",
    "PairwiseResult",
    "RelabelledPairs",
    "ResamplingOptions",
    "SCHEMES",
    "TESTS",
    "TestSpec",
    "pairwise_tests",
]
