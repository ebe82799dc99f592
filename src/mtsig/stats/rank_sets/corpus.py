"""Rank sets of systems by a corpus metric (BLEU, chrF, TER, ...; or a mean of segment scores), from the
resampling engine's own paired draws.

A corpus metric is not a mean of segment scores: ``S(X) = score(Σ_i stats_i)``, a function of the test set's
summed sufficient statistics (Graham, Mathur & Baldwin 2014, Section 2). The quantity ranked is each system's
corpus score; its estimate is ``S(X)`` on the test set, and its bootstrap draws are ``S(X*)``, the score of the
summed statistics of a pseudo-test-set ``X*``: segments drawn with replacement (the paired bootstrap's
pseudo-test-sets, Koehn 2004; Graham, Mathur & Baldwin 2014, Fig. 4), or whole documents when each segment's
document is known. Every system is scored on the same ``X*`` (paired), and the draws are exactly the engine's
(:func:`mtsig.stats.resampling.draws.scheme_counts`, block ``j`` from ``rng_for(seed, "mtsig.resampling", scheme,
<size>, j)``): the first R draws of ``mtsig compare``'s paired bootstrap (segments) or document-level paired
bootstrap (documents) with the same seed. Since ``S`` is a smooth function of means (away from BLEU's brevity
penalty kink), the bootstrap of ``S(X*) − S(X)`` approximates the distribution of ``S(X) − θ`` (Hall 1992, *The
Bootstrap and Edgeworth Expansion*, Theorem 5.1: statistics that are smooth functions of means), and the rank sets
read it as they read item means
(:func:`mtsig.stats.rank_sets.problem_from_resampled`). Averaging segment-level scores instead would rank another
quantity (sentence-level BLEU's mean), not the corpus score the verdict compares.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from mtsig.errors import InputError
from mtsig.stats.rank_sets import RankProblem, problem_from_resampled
from mtsig.stats.rank_sets.summary import DEFAULT_KIND, RankSets, rank_sets_of
from mtsig.stats.resampling.draws import (
    DOCUMENT_BOOTSTRAP,
    DRAW_BLOCK_SIZE,
    IID_BOOTSTRAP,
    document_codes,
    scheme_counts,
)
from mtsig.stats.resampling.operands import statistics_operand

#: What :attr:`RankProblem.bootstrap` says of the draws: segments or whole documents resampled.
SEGMENTS = "segments"
DOCUMENTS = "documents"


@dataclass(frozen=True)
class CorpusResamples:
    """What :func:`resampled_corpus_scores` returns: ``scores[S]`` (the corpus scores ``S(X)``), ``resampled[R, S]``
    (``S(X*)`` per draw), ``units`` (:data:`SEGMENTS` or :data:`DOCUMENTS`) and ``n_units`` (how many)."""

    scores: np.ndarray
    resampled: np.ndarray
    units: str
    n_units: int


def resampled_corpus_scores(
    stats: np.ndarray,
    score: Callable[[np.ndarray], np.ndarray],
    n_draws: int,
    seed: int,
    documents: Sequence[object] | np.ndarray | None = None,
) -> CorpusResamples:
    """Every system's corpus score ``score(totals)`` of its statistics ``stats[S, N, k]`` on the test set and on
    each of the first ``n_draws`` pseudo-test-sets of the engine's i.i.d. bootstrap, or, with ``documents[N]``
    (each segment's document), of its document bootstrap, with ``seed`` (module docstring). The totals are exact
    (:func:`mtsig.stats.resampling.operands.statistics_operand`: integer statistics in exact products, others in
    exact integer slices), so the scores do not depend on the CPU; blocks of draws, no loop per draw."""
    stats = np.asarray(stats, dtype=np.float64)
    if stats.ndim != 3 or stats.shape[1] < 1:
        raise ValueError(f"stats must have shape [systems, segments, k], got {stats.shape}")
    n_systems, n_segments, k = stats.shape
    operand = statistics_operand(stats)
    scores = np.asarray(score(operand.weighted_totals(np.ones((1, n_segments))).reshape(n_systems, k)))
    codes = None if documents is None else document_codes(documents)
    if codes is not None and len(codes) != n_segments:
        raise ValueError(f"{len(codes)} document ids for {n_segments} segments")
    scheme = IID_BOOTSTRAP if codes is None else DOCUMENT_BOOTSTRAP
    resampled = np.empty((n_draws, n_systems))
    for block, start in enumerate(range(0, n_draws, DRAW_BLOCK_SIZE)):
        counts = scheme_counts(scheme, seed, n_segments, block, document_of_segment=codes)
        rows = min(DRAW_BLOCK_SIZE, n_draws - start)
        totals = operand.weighted_totals(counts[:rows]).reshape(rows, n_systems, k)
        resampled[start : start + rows] = score(totals)
    units, n_units = (SEGMENTS, n_segments) if codes is None else (DOCUMENTS, int(codes.max()) + 1)
    return CorpusResamples(scores.astype(np.float64), resampled, units, n_units)


def problem_from_corpus_statistics(
    systems: Sequence[str],
    stats: np.ndarray,
    score: Callable[[np.ndarray], np.ndarray],
    *,
    higher_is_better: bool = True,
    n_draws: int,
    seed: int,
    documents: Sequence[object] | np.ndarray | None = None,
    source: str = "corpus scores",
) -> tuple[RankProblem, CorpusResamples]:
    """The rank problem of ``systems`` by a corpus metric (module docstring) and its resamples. A lower-is-better
    metric (TER) is ranked by ``−S``: the problem's estimates are the oriented scores, rank 1 the best system.
    A score that is not finite on the test set or on a draw (a metric undefined on a pseudo-test-set) is an
    :class:`InputError`."""
    if n_draws < 2:
        raise InputError(
            f"{n_draws} resample(s): at least 2 are needed for the standard deviations of the differences",
            source,
        )
    drawn = resampled_corpus_scores(stats, score, n_draws, seed, documents)
    sign = 1.0 if higher_is_better else -1.0
    for values, where in ((drawn.scores, "on the test set"), (drawn.resampled, "on a resample")):
        if not np.isfinite(values).all():
            column = int(np.flatnonzero(~np.isfinite(values).reshape(-1, len(systems)).all(axis=0))[0])
            raise InputError(f"the score of {systems[column]!r} is not a finite number {where}", source)
    problem = problem_from_resampled(
        systems, sign * drawn.scores, sign * drawn.resampled, bootstrap=drawn.units, source=source
    )
    return problem, drawn


def corpus_rank_sets(
    systems: Sequence[str],
    stats: np.ndarray,
    score: Callable[[np.ndarray], np.ndarray],
    *,
    higher_is_better: bool,
    n_draws: int,
    seed: int,
    documents: Sequence[object] | np.ndarray | None,
    coverage: float,
    tau: int,
    kind: str = DEFAULT_KIND,
    source: str = "corpus scores",
) -> RankSets:
    """The rank sets of ``systems`` by a corpus metric (:mod:`mtsig.stats.rank_sets.corpus`): the corpus scores
    ``S(X)`` and their values on the first ``n_draws`` pseudo-test-sets of the resampling engine's paired bootstrap
    with ``seed`` (segments, or whole documents with ``documents``); a lower-is-better metric ranked by ``−S``
    and shown on its own scale."""
    problem, drawn = problem_from_corpus_statistics(
        systems, stats, score, higher_is_better=higher_is_better, n_draws=n_draws, seed=seed,
        documents=documents, source=source,
    )  # fmt: skip
    return rank_sets_of(
        problem, coverage=coverage, tau=tau, seed=seed, kind=kind, scores=drawn.scores, n_units=drawn.n_units
    )
