"""The engine: :func:`pairwise_tests`, every randomized test for every pair of systems at once.

:func:`pairwise_tests` reads as its steps: check the request (:func:`_checked_tests`), put the statistics in the form
they are multiplied in (:func:`_operand_and_totals`) and plan the work (:func:`_plan`), run each scheme's draws
(:func:`_run_schemes`: Graham, Mathur & Baldwin 2014, Figs. 1-4; Koehn 2004; Riezler & Maxwell 2005; the document and
stationary bootstraps of Politis & Romano 1994), then assemble the result (:func:`_assemble`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from mtsig.runtime.portable import is_integer_valued
from mtsig.runtime.progress import Progress, counter
from mtsig.settings import MEMORY_CAP_BYTES, Resampling
from mtsig.stats.conclusions import unordered_pairs
from mtsig.stats.intervals import check_interval_request, leave_one_out_scores
from mtsig.stats.resampling.draws import (
    DOCUMENT_BOOTSTRAP,
    DRAW_BLOCK_SIZE,
    IID_BOOTSTRAP,
    RANDOMIZATION,
    SCHEMES,
    STATIONARY_BOOTSTRAP,
    DrawSource,
    default_mean_block_length,
    document_codes,
    max_weight_row_sum,
)
from mtsig.stats.resampling.operands import Operand, SlicedOperand, by_document, statistics_operand
from mtsig.stats.resampling.registry import (
    ALL_TESTS,
    TESTS,
    PValueConvention,
    p_value,
    require_finite,
    samples_per_test,
)
from mtsig.stats.resampling.relabelled import RelabelledPairs, relabelled_operand, sliced_relabelled_operand
from mtsig.stats.resampling.schemes import (
    CACHE_FRIENDLY_BYTES,
    Bounds,
    IntervalRequest,
    Plan,
    Score,
    bootstrap_tests,
    bytes_available,
    n_blocks,
    randomization_tests,
    resampling_threads,
    scheme_draws,
    weight_dtype,
)
from mtsig.stats.resampling.tables import (
    KeepRequest,
    PairwiseResult,
    PValues,
    checked_result,
    interval_tables,
    kept_distributions,
)

#: A scheme to run: (scheme, its tests, whether the intervals come from its draws).
SchemeRun = tuple[str, list[str], bool]


@dataclass(frozen=True, kw_only=True)
class ResamplingOptions:
    """How :func:`pairwise_tests` resamples: every setting of a call but the statistics, the score and the systems.

    ``seed``: the draws' seed (:mod:`mtsig.stats.resampling`: draws depend only on it, the scheme and the test
    set's shape). ``tests``: names in :data:`~mtsig.stats.resampling.registry.TESTS`. ``n_samples``: B (or R) for
    all tests, or per test name; tests of one scheme share draws and a smaller B uses a prefix of them. ``pvalue``:
    the convention of the paper's tests; the R&M variants always use ``(c+1)/(B+1)`` as published.
    ``higher_is_better``: False for TER, whose scores are negated for the comparison, so ``statistic = TER_y -
    TER_x`` and "X better" still means a positive statistic.

    ``pairs``: the unordered pairs ``(i, j)`` to compute (default every pair); it selects rows and never changes a
    number. ``keep_distributions``: the ``(sys_x, sys_y)`` pairs whose pseudo-statistics to keep (the paper's
    Figs. 5-6). ``documents[N]``: each segment's document id, required by the document bootstrap.
    ``mean_block_length``: of the stationary bootstrap; default
    :func:`~mtsig.stats.resampling.draws.default_mean_block_length`.

    ``intervals``: interval methods of :mod:`mtsig.stats.intervals` (``"percentile"``, ``"bca"``) at confidence
    ``interval_level``, for every computed pair's difference and every system's score (:class:`PairwiseResult`).
    They use the i.i.d. bootstrap draws of the paired bootstrap, B = its sample count (``n_samples``, or
    ``n_samples["paired_bootstrap"]``), whether or not that test is run; BCa adds one jackknife of each system's
    corpus score (N leave-one-segment-out scores). Neither the p-values nor the draws change.

    ``memory_cap_bytes`` bounds the memory the call allocates beyond its inputs (an error if the problem cannot
    fit); ``progress`` is told ``(done, total)`` blocks of :data:`DRAW_BLOCK_SIZE` draws over every scheme run
    (:mod:`mtsig.runtime.progress`). Neither ever changes a number.
    """

    seed: int
    tests: Sequence[str] = ALL_TESTS
    n_samples: int | Mapping[str, int] = Resampling.samples
    pvalue: PValueConvention = Resampling.pvalue
    higher_is_better: bool = True
    pairs: Sequence[tuple[int, int]] | None = None
    keep_distributions: Collection[tuple[str, str]] = ()
    documents: Sequence[object] | np.ndarray | None = None
    mean_block_length: float | None = None
    intervals: Sequence[str] = ()
    interval_level: float = Resampling.confidence
    memory_cap_bytes: int = MEMORY_CAP_BYTES
    progress: Progress | None = None


def pairwise_tests(
    stats: np.ndarray | RelabelledPairs, score: Score, systems: Sequence[str], options: ResamplingOptions
) -> PairwiseResult:
    """Run the randomized ``options.tests`` for every pair of ``systems`` (or the unordered ``options.pairs``).

    ``stats[S, N, k]``: per-segment sufficient statistics of S systems on N segments, or :class:`RelabelledPairs`
    (the same numbers as its :meth:`~RelabelledPairs.materialise`, computed faster when the statistics are
    integer-valued: :func:`relabelled_operand`); ``score`` maps summed statistics ``[..., k]`` to corpus scores
    ``[...]``. Everything else is in ``options`` (:class:`ResamplingOptions`).
    """
    stats = _stacked_or_relabelled(stats, options.intervals)
    tests = _checked_tests(stats.shape, systems, options.tests)
    p_value(np.zeros(1), 1, options.pvalue)  # validates the convention before any work
    schemes = {TESTS[t].scheme for t in tests}
    draws = _draw_source(options.seed, stats.shape[1], schemes, options.documents, options.mean_block_length)
    interval_methods = check_interval_request(options.intervals, options.interval_level)
    interval_samples = _interval_samples(options.n_samples) if interval_methods else 0
    if not isinstance(stats, RelabelledPairs):
        stats = stats.astype(np.float64, copy=False)
    plan, corpus, unordered = _plan(stats, score, systems, tests, draws.document_of_segment, options)
    keep_requests = _keep_requests(options.keep_distributions, systems, unordered)
    interval_request = _interval_request(
        plan, stats, interval_methods, options.interval_level, interval_samples, corpus
    )

    runs = _scheme_runs(tests, interval_request is not None)
    advance = counter(
        options.progress,
        sum(n_blocks(scheme_draws(plan, t, interval_samples if i else 0)) for _, t, i in runs),
    )
    keep = sorted({request[2] for request in keep_requests})
    p_values, pseudo_of, pair_bounds, system_bounds = _run_schemes(
        plan, runs, draws, keep, options.pvalue, interval_request, advance
    )
    result = checked_result(systems, plan, tests, p_values, corpus, options.higher_is_better)
    result.distributions = kept_distributions(keep_requests, pseudo_of, tests, plan)
    result.settings = _settings(options.seed, plan, options.pvalue, schemes, draws)
    if interval_request is not None:
        _add_intervals(
            result, systems, plan, interval_request, pair_bounds, system_bounds, options.higher_is_better
        )
    return result


def _draw_source(
    seed: int,
    n_segments: int,
    schemes: Collection[str],
    documents: Sequence[object] | np.ndarray | None,
    mean_block_length: float | None,
) -> DrawSource:
    """The draws of this call: the documents (required by the document bootstrap) and the stationary bootstrap's
    mean block length b, by default ``N ** (1/3)`` (Politis & Romano 1994; Politis & White 2004)."""
    document_of_segment = (
        _document_of_segment(documents, n_segments) if DOCUMENT_BOOTSTRAP in schemes else None
    )
    block_length = (
        default_mean_block_length(n_segments) if mean_block_length is None else float(mean_block_length)
    )
    return DrawSource(seed, n_segments, document_of_segment, block_length)


def _stacked_or_relabelled(
    stats: np.ndarray | RelabelledPairs, intervals: Sequence[str]
) -> np.ndarray | RelabelledPairs:
    """The statistics as given: ``[S, N, k]`` (checked), or relabelled pairs kept unstacked unless BCa intervals
    are asked for, whose jackknife needs the stacked statistics (:meth:`RelabelledPairs.materialise`)."""
    if isinstance(stats, RelabelledPairs):
        if "bca" not in intervals:
            return stats
        stats = stats.materialise()
    stats = np.asarray(stats)
    if stats.ndim != 3:
        raise ValueError(f"stats must have shape [systems, segments, k], got {stats.shape}")
    return stats


def _checked_tests(shape: tuple[int, ...], systems: Sequence[str], tests: Sequence[str]) -> list[str]:
    """The requested tests in output order (:data:`~mtsig.stats.resampling.registry.ALL_TESTS`), after checking
    the system names against the statistics' shape ``(S, N, k)`` and that every test is known (Graham, Mathur &
    Baldwin 2014, Figs. 1-4; Riezler & Maxwell 2005; Koehn 2004)."""
    n_systems, n_segments, _ = shape
    if len(systems) != n_systems or len(set(systems)) != n_systems:
        raise ValueError(f"need {n_systems} distinct system names, got {list(systems)}")
    if n_systems < 2 or n_segments < 1:
        raise ValueError(f"need at least 2 systems and 1 segment, got stats of shape {shape}")
    unknown = [t for t in tests if t not in TESTS]
    if unknown:
        raise ValueError(f"unknown test(s) {', '.join(unknown)}; known: {', '.join(ALL_TESTS)}")
    return [t for t in ALL_TESTS if t in set(tests)]


def _document_of_segment(documents: Sequence[object] | np.ndarray | None, n_segments: int) -> np.ndarray:
    """Each segment's document as ``0 .. D-1``, which the document bootstrap resamples whole."""
    if documents is None or len(documents) != n_segments:
        raise ValueError(f"the document bootstrap needs one document id per segment ({n_segments})")
    return document_codes(documents)


def _operand_and_totals(
    stats: np.ndarray | RelabelledPairs, tests: Sequence[str], document_of_segment: np.ndarray | None
) -> tuple[Operand | SlicedOperand, np.ndarray]:
    """The statistics matrix in the form its weighted totals are computed in, and every system's totals ``[S, k]``
    (the sums behind the actual corpus scores, Graham, Mathur & Baldwin 2014, Section 2). Float64 statistics
    ``[S, N, k]``, or relabelled pairs in factored form: integer-valued as they are, others in integer slices
    bounded by the largest row sum of the schemes run."""
    if not isinstance(stats, RelabelledPairs):
        n_systems, n_segments, k = stats.shape
        operand = statistics_operand(stats)
        # the exact totals where the statistics are not integers, as the resampled ones (mtsig.runtime.portable)
        totals = (
            stats.sum(axis=1)
            if operand.exact_sums is None
            else operand.weighted_totals(np.ones((1, n_segments))).reshape(n_systems, k)
        )
        return operand, totals
    if is_integer_valued(stats.stats_x) and is_integer_valued(stats.stats_y):
        return relabelled_operand(stats)
    n_segments = stats.shape[1]
    bound = max(max_weight_row_sum(TESTS[t].scheme, n_segments, document_of_segment) for t in tests)
    return sliced_relabelled_operand(stats, bound)


def _plan(
    stats: np.ndarray | RelabelledPairs,
    score: Score,
    systems: Sequence[str],
    tests: Sequence[str],
    document_of_segment: np.ndarray | None,
    options: ResamplingOptions,
) -> tuple[Plan, np.ndarray, list[tuple[int, int]]]:
    """What every scheme needs (the operand, the oriented score, the unordered pairs (X, Y) and their actual
    differences ``d = S(X) - S(Y)``, Graham, Mathur & Baldwin 2014, Section 2; the sample counts, the memory cap and
    the threads), every system's oriented corpus score, and the unordered pairs."""
    oriented: Score = score if options.higher_is_better else (lambda totals: -np.asarray(score(totals)))
    operand, totals = _operand_and_totals(stats, tests, document_of_segment)
    corpus = np.asarray(oriented(totals), dtype=np.float64)
    require_finite(corpus, "corpus score", lambda i: f"system {systems[i]!r}")
    unordered = _canonical_pairs(options.pairs, stats.shape[0])
    x = np.array([i for i, _ in unordered], dtype=np.int64)
    y = np.array([j for _, j in unordered], dtype=np.int64)
    plan = Plan(
        operand=operand,
        totals=totals,
        score=oriented,
        x=x,
        y=y,
        actual=corpus[x] - corpus[y],
        n_samples=samples_per_test(options.n_samples, tests),
        memory_cap_bytes=int(options.memory_cap_bytes),
        workers=resampling_threads(),
    )
    return plan, corpus, unordered


def _keep_requests(
    keep_distributions: Collection[tuple[str, str]],
    systems: Sequence[str],
    unordered: Sequence[tuple[int, int]],
) -> list[KeepRequest]:
    """Which computed pair (and in which orientation) each requested distribution of the paper's Figs. 5-6 is."""
    index_of_pair = {pair: n for n, pair in enumerate(unordered)}
    name_index = {name: n for n, name in enumerate(systems)}
    keep_requests: list[KeepRequest] = []
    for sys_x, sys_y in keep_distributions:
        i, j = name_index.get(sys_x), name_index.get(sys_y)
        if i is None or j is None or (min(i, j), max(i, j)) not in index_of_pair:
            raise ValueError(f"cannot keep distributions of ({sys_x}, {sys_y}): not a computed pair")
        keep_requests.append((sys_x, sys_y, index_of_pair[(min(i, j), max(i, j))], i > j))
    return keep_requests


def _interval_request(
    plan: Plan,
    stats: np.ndarray | RelabelledPairs,
    methods: tuple[str, ...],
    level: float,
    n_samples: int,
    corpus: np.ndarray,
) -> IntervalRequest | None:
    """The intervals to draw from the i.i.d. bootstrap (Efron & Tibshirani 1993; Koehn 2004's paired bootstrap's
    draws), with the jackknife that BCa needs; None when none are asked for."""
    if not methods:
        return None
    jackknife = _jackknife(plan, stats) if "bca" in methods else None
    return IntervalRequest(methods, float(level), n_samples, corpus, jackknife)


def _jackknife(plan: Plan, stats: np.ndarray) -> np.ndarray:
    """Leave-one-segment-out oriented corpus scores ``[S, N]`` for BCa intervals (Efron & Tibshirani 1993, Sec.
    14.3), in chunks that keep the score's workspace cache-sized."""
    bytes_available(plan, plan.operand.nbytes + stats[:, :, 0].nbytes, CACHE_FRIENDLY_BYTES)
    return leave_one_out_scores(stats, plan.score, CACHE_FRIENDLY_BYTES, plan.totals)


def _scheme_runs(tests: Sequence[str], with_intervals: bool) -> list[SchemeRun]:
    """The schemes to run, in the order of :data:`~mtsig.stats.resampling.draws.SCHEMES`, with their tests; the
    i.i.d. bootstrap also runs for the intervals alone."""
    runs = []
    for scheme in SCHEMES:
        scheme_tests = [t for t in tests if TESTS[t].scheme == scheme]
        wants_intervals = scheme == IID_BOOTSTRAP and with_intervals
        if scheme_tests or wants_intervals:
            runs.append((scheme, scheme_tests, wants_intervals))
    return runs


def _run_schemes(
    plan: Plan,
    runs: Sequence[SchemeRun],
    draws: DrawSource,
    keep: Sequence[int],
    convention: PValueConvention,
    interval_request: IntervalRequest | None,
    advance: Callable[[int], None],
) -> tuple[PValues, dict[str, dict[int, np.ndarray]], Bounds, Bounds]:
    """Every scheme's p-values, the kept pairs' pseudo-statistics of each test (the first B of its scheme's), and
    the interval bounds of the pairs and the systems (from the i.i.d. bootstrap's draws)."""
    p_values: PValues = {}
    pseudo_of: dict[str, dict[int, np.ndarray]] = {}
    pair_bounds: Bounds = {}
    system_bounds: Bounds = {}
    for scheme, scheme_tests, wants_intervals in runs:
        if scheme == RANDOMIZATION:
            result, kept = randomization_tests(plan, scheme_tests, draws.seed, keep, convention, advance)
        else:
            request = interval_request if wants_intervals else None
            result, kept, bounds, own_bounds = _bootstrap_scheme(
                plan, scheme, scheme_tests, draws, keep, convention, request, advance
            )
            if wants_intervals:
                pair_bounds, system_bounds = bounds, own_bounds
        p_values.update(result)
        for test in scheme_tests:
            pseudo_of[test] = {pair: kept[pair][: plan.n_samples[test]] for pair in keep}
    return p_values, pseudo_of, pair_bounds, system_bounds


def _bootstrap_scheme(
    plan: Plan,
    scheme: str,
    scheme_tests: Sequence[str],
    draws: DrawSource,
    keep: Sequence[int],
    convention: PValueConvention,
    interval_request: IntervalRequest | None,
    advance: Callable[[int], None],
) -> tuple[PValues, dict[int, np.ndarray], Bounds, Bounds]:
    """One bootstrap scheme (Graham, Mathur & Baldwin 2014, Figs. 1, 3, 4; Koehn 2004; Politis & Romano 1994) with
    weights of the narrowest exact dtype; the document bootstrap multiplies the documents' summed statistics where
    that is exact (:func:`~mtsig.stats.resampling.operands.by_document`)."""
    document_of_segment = draws.document_of_segment
    dtype = weight_dtype(plan, max_weight_row_sum(scheme, draws.n_segments, document_of_segment))
    scheme_plan = plan
    documents_operand = None
    if scheme == DOCUMENT_BOOTSTRAP:
        assert document_of_segment is not None
        documents_operand = by_document(plan.operand, document_of_segment)
        scheme_plan = plan if documents_operand is None else replace(plan, operand=documents_operand)
    block_counts = draws.block_counts(scheme, dtype, documents_operand is not None)
    return bootstrap_tests(
        scheme_plan, scheme_tests, block_counts, keep, convention, interval_request, advance
    )


def _settings(
    seed: int, plan: Plan, convention: PValueConvention, schemes: Collection[str], draws: DrawSource
) -> dict[str, object]:
    """Every setting that changes a number, for the result's signature (Post 2018, Sec. 4)."""
    settings: dict[str, object] = {
        "seed": int(seed),
        "n_samples": dict(plan.n_samples),
        "pvalue": convention,
        "draw_block_size": DRAW_BLOCK_SIZE,
    }
    if STATIONARY_BOOTSTRAP in schemes:
        settings["mean_block_length"] = draws.mean_block_length
    if DOCUMENT_BOOTSTRAP in schemes:
        assert draws.document_of_segment is not None
        settings["n_documents"] = int(draws.document_of_segment.max()) + 1
    return settings


def _add_intervals(
    result: PairwiseResult,
    systems: Sequence[str],
    plan: Plan,
    request: IntervalRequest,
    pair_bounds: Bounds,
    system_bounds: Bounds,
    higher_is_better: bool,
) -> None:
    """The intervals' settings and tables (:attr:`PairwiseResult.intervals`, ``system_intervals``)."""
    result.settings["intervals"] = {
        "methods": list(request.methods),
        "level": request.level,
        "n_samples": request.n_samples,
        "scheme": IID_BOOTSTRAP,
    }
    result.intervals, result.system_intervals = interval_tables(
        systems, plan, pair_bounds, system_bounds, request.corpus, request.level, higher_is_better
    )


def _canonical_pairs(pairs: Sequence[tuple[int, int]] | None, n_systems: int) -> list[tuple[int, int]]:
    """The unordered pairs ``(i, j)``, ``i < j``, to compute: every pair, or those given (each once, in order)."""
    if pairs is None:
        return unordered_pairs(range(n_systems))
    seen: dict[tuple[int, int], None] = {}
    for i, j in pairs:
        if not (0 <= i < n_systems and 0 <= j < n_systems) or i == j:
            raise ValueError(f"invalid system pair ({i}, {j}) for {n_systems} systems")
        seen.setdefault((min(i, j), max(i, j)), None)
    return list(seen)


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
