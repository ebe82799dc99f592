"""Confidence sets for ranks with guaranteed coverage (Mogstad, Romano, Shaikh & Wilhelm 2023, "Inference for
Ranks with Applications to Mobility across Neighborhoods and Academic Achievement across Countries", Review of
Economic Studies), equal to the R package csranks (Wilhelm & Morgen) on the same draws. Chetverikov, Mogstad, Morgen,
Romano, Shaikh & Wilhelm (2024, "csranks: An R Package for Estimation and Inference Involving Ranks", arXiv
2401.15205) review the same three kinds of set: marginal and simultaneous confidence sets for ranks and confidence
sets for the identities of the τ-best (its abstract). Neither paper's section numbers are cited here: they could not
be read; the definitions are checked against csranks's documentation (``man/csranks.Rd``, ``man/cstaubest.Rd``) and
its code (docs/conventions.md).

Which systems could be first, and where could each one really rank? A :class:`RankProblem` holds the estimates, the
standard deviations of their differences and the centred draws of the estimates, made from

* estimates with a covariance or standard errors, by the parametric (normal) bootstrap csranks uses
  (:func:`problem_from_estimates`), or
* item scores ``[S, N]`` (NaN: not rated), by a nonparametric bootstrap of items or whole documents, paired across
  systems or not (:func:`problem_from_item_scores`).

:data:`RANK_SETS` names every kind of set; each takes the problem and returns a :class:`RankSetResult`.
docs/statistics.md ("Confidence sets for ranks") defines each set exactly; docs/conventions.md lists where
csranks's choices are followed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from mtsig.errors import InputError
from mtsig.stats.rank_sets.draws import (
    DrawSource,
    FreshNormalDraws,
    RecordedDraws,
    SharedDraws,
    UnitBootstrap,
    normal_draws,
    unit_bootstrap,
)
from mtsig.stats.rank_sets.inputs import (
    SIDES,
    check_covariance,
    check_estimates,
    check_item_scores,
    check_options,
    check_systems,
    covariance_from_standard_errors,
    difference_sds,
)
from mtsig.stats.rank_sets.pairwise import (
    BOUNDS,
    QUANTILES,
    PairwiseBounds,
    pairwise_bounds,
    quantile_inverse,
    quantile_type7,
)
from mtsig.stats.rank_sets.sets import (
    RankProblem,
    RankSetResult,
    SystemRankSet,
    estimated_ranks,
    marginal_sets,
    rank_confidence_sets,
    simultaneous_sets,
    tau_best_set,
    tau_worst_set,
)
from mtsig.stats.seeding import rng_for

__all__ = [
    "BOUNDS",
    "RANK_SETS",
    "SIDES",
    "DrawSource",
    "FreshNormalDraws",
    "PairwiseBounds",
    "QUANTILES",
    "RankProblem",
    "RankSetResult",
    "RankSetSpec",
    "RecordedDraws",
    "SharedDraws",
    "SystemRankSet",
    "UnitBootstrap",
    "estimated_ranks",
    "marginal_sets",
    "normal_draws",
    "pairwise_bounds",
    "problem_from_estimates",
    "problem_from_item_scores",
    "problem_from_resampled",
    "quantile_inverse",
    "quantile_type7",
    "rank_confidence_sets",
    "rank_set",
    "simultaneous_sets",
    "tau_best_set",
    "tau_worst_set",
    "unit_bootstrap",
]

#: The default number of bootstrap draws (csranks's ``R``).
N_DRAWS = 1000

#: A resampled difference whose standard deviation is below this fraction of the largest one never varies.
CONSTANT_DIFFERENCE = 1e-9


@dataclass(frozen=True)
class RankSetSpec:
    """A kind of confidence set: ``compute(problem, **options) -> RankSetResult`` (options: ``side``, ``coverage``,
    ``stepdown``, ``targets`` for rank sets; ``tau``, ``coverage``, ``stepdown`` for τ-sets); ``simultaneous``: it
    covers all its systems at once; ``needs_tau``: it takes τ; ``reference``: the paper's section; ``csranks``: the
    csranks call it equals; ``summary``: the set in one line."""

    compute: Callable[..., RankSetResult]
    simultaneous: bool
    needs_tau: bool
    reference: str
    csranks: str
    summary: str


#: Every kind of set, in output order.
RANK_SETS: dict[str, RankSetSpec] = {
    "marginal": RankSetSpec(
        marginal_sets,
        False,
        False,
        "Mogstad, Romano, Shaikh & Wilhelm (2023): marginal confidence sets",
        "csranks(x, Sigma, simul = FALSE)",
        "for each system on its own, the ranks it could hold (covers that system's true rank)",
    ),
    "simultaneous": RankSetSpec(
        simultaneous_sets,
        True,
        False,
        "Mogstad, Romano, Shaikh & Wilhelm (2023): simultaneous confidence sets",
        "csranks(x, Sigma, simul = TRUE)",
        "the ranks every system could hold, all at once (covers the whole true ranking)",
    ),
    "tau_best": RankSetSpec(
        tau_best_set,
        True,
        True,
        "Mogstad, Romano, Shaikh & Wilhelm (2023): the projection confidence set for the τ-best",
        "cstaubest(x, Sigma, tau)",
        "the systems that could be among the tau best (holds every truly tau-best system)",
    ),
    "tau_worst": RankSetSpec(
        tau_worst_set,
        True,
        True,
        "Mogstad, Romano, Shaikh & Wilhelm (2023): the projection confidence set for the τ-best, of −x",
        "cstauworst(x, Sigma, tau)",
        "the systems that could be among the tau worst",
    ),
}


def rank_set(problem: RankProblem, kind: str, **options: object) -> RankSetResult:
    """The set ``kind`` (a key of :data:`RANK_SETS`) of ``problem`` with ``options`` (:class:`RankSetSpec`)."""
    if kind not in RANK_SETS:
        raise ValueError(f"no kind of rank set {kind!r}: one of {', '.join(RANK_SETS)}")
    return RANK_SETS[kind].compute(problem, **options)


def _generator(rng: np.random.Generator | int) -> np.random.Generator:
    """``rng`` itself, or a seed's generator (:func:`mtsig.stats.seeding.rng_for` with the key ``rank_sets``)."""
    return rng if isinstance(rng, np.random.Generator) else rng_for(int(rng), "rank_sets")


def _given_draws(draws: np.ndarray | DrawSource, n_systems: int, source: str) -> tuple[DrawSource, int]:
    """(source, R) of draws given by the caller: an array ``[R, S]`` or a :class:`DrawSource`."""
    if isinstance(draws, np.ndarray):
        if draws.ndim != 2 or draws.shape[1] != n_systems or draws.shape[0] < 1:
            raise ValueError(f"{source}: draws of shape {draws.shape} for {n_systems} systems")
        return SharedDraws.of(draws), draws.shape[0]
    return draws, draws.n_draws


def problem_from_estimates(
    systems: Sequence[str],
    estimates: Sequence[float],
    *,
    covariance: np.ndarray | None = None,
    standard_errors: Sequence[float] | None = None,
    covariance_systems: Sequence[str] | None = None,
    n_draws: int = N_DRAWS,
    rng: np.random.Generator | int = 0,
    draws: np.ndarray | DrawSource | None = None,
    redraw: bool = False,
    source: str = "estimates",
) -> RankProblem:
    """The parametric problem: ``estimates[S]`` of ``systems`` with their ``covariance[S, S]`` (rows and columns in
    the order of ``covariance_systems`` when given) or ``standard_errors[S]`` (independent estimates); ``n_draws``
    draws of ``N(0, Σ)`` from ``rng`` (a generator, or a seed). ``draws``: centred draws to use instead (``[R, S]``,
    or a :class:`DrawSource` such as csranks's recorded draws). ``redraw``: csranks's scheme, fresh draws at each
    stepdown step and for each marginal population (:class:`FreshNormalDraws`; ``rng`` must then be a seed);
    otherwise one set of draws for every step. Bad input: :class:`~mtsig.errors.InputError`."""
    names = check_systems(systems, source)
    values = check_estimates(names, estimates, source)
    if (covariance is None) == (standard_errors is None):
        raise ValueError("give either a covariance or standard errors")
    if covariance is None:
        matrix = covariance_from_standard_errors(names, standard_errors, source)
    else:
        matrix = check_covariance(names, covariance, source, covariance_systems)
    sds = difference_sds(names, matrix, source)
    if draws is not None:
        given, count = _given_draws(draws, len(names), source)
        return RankProblem(names, values, sds, given, count, "given")
    check_options(n_draws=n_draws, source=source)
    if redraw:
        if isinstance(rng, np.random.Generator):
            raise ValueError("redraw restarts each family from a seed: give rng as an integer seed")
        return RankProblem(
            names, values, sds, FreshNormalDraws(matrix, n_draws, int(rng)), n_draws, "normal-redrawn"
        )
    centred = normal_draws(matrix, n_draws, _generator(rng))
    return RankProblem(names, values, sds, SharedDraws.of(centred), n_draws, "normal")


def problem_from_item_scores(
    systems: Sequence[str],
    scores: np.ndarray,
    *,
    documents: np.ndarray | None = None,
    paired: bool = True,
    n_draws: int = N_DRAWS,
    rng: np.random.Generator | int = 0,
    resampled: np.ndarray | None = None,
    source: str = "item scores",
) -> RankProblem:
    """The nonparametric problem: ``scores[S, N]`` (NaN: not rated), each system estimated by its mean over its
    rated items; ``n_draws`` resamples of items, or of whole documents when ``documents[N]`` labels each item's
    document, the same units for every system (``paired``) or each system's own; ``σ_ab`` the standard deviation
    of the resampled differences. ``resampled[R, S]``: resampled estimates to use instead of drawing."""
    names = check_systems(systems, source)
    values, labels = check_item_scores(names, scores, documents, source)
    if resampled is None:
        check_options(n_draws=n_draws, source=source)
        boot = unit_bootstrap(
            names, values, n_draws, _generator(rng), documents=labels, paired=paired, source=source
        )
        estimates, draws, kind = boot.estimates, boot.resampled, boot.units
    else:
        rated = ~np.isnan(values)
        estimates = np.where(rated, values, 0.0).sum(axis=1) / rated.sum(axis=1)
        draws, kind = np.asarray(resampled, dtype=np.float64), "given"
    return problem_from_resampled(names, estimates, draws, bootstrap=kind, source=source)


def problem_from_resampled(
    systems: Sequence[str],
    estimates: np.ndarray,
    resampled: np.ndarray,
    *,
    bootstrap: str = "given",
    source: str = "resampled estimates",
) -> RankProblem:
    """The nonparametric problem of any bootstrap: ``estimates[S]`` and their values on each of R resamples,
    ``resampled[R, S]`` (the same resamples for every system when the design is paired), e.g. a corpus metric's
    ``S(X*)`` on the resampling engine's pseudo-test-sets (:mod:`mtsig.stats.rank_sets.corpus`). The centred draws
    are ``θ̂* − θ̂`` and ``σ_ab`` the standard deviation of the resampled differences; ``bootstrap`` names how they
    were drawn (:attr:`RankProblem.bootstrap`)."""
    names = check_systems(systems, source)
    values = check_estimates(names, estimates, source)
    draws = np.asarray(resampled, dtype=np.float64)
    if draws.ndim != 2 or draws.shape[1] != len(names) or draws.shape[0] < 2:
        raise InputError(
            f"resampled estimates of shape {draws.shape} for {len(names)} systems: at least 2 resamples are "
            "needed for the standard deviations of the differences",
            source,
        )
    if not np.isfinite(draws).all():
        raise InputError("a resampled estimate is missing or not a finite number", source)
    centred = draws - values[None, :]
    covariance = np.cov(centred, rowvar=False, ddof=1)
    covariance = (covariance + covariance.T) / 2  # exactly symmetric: |T_ab| = max(T_ab, T_ba) bit for bit
    variances = np.diag(covariance)
    sds = np.sqrt(np.maximum(np.add.outer(variances, variances) - 2 * covariance, 0.0))
    return RankProblem(names, values, _resampled_sds(sds), SharedDraws.of(centred), draws.shape[0], bootstrap)


def _resampled_sds(sds: np.ndarray) -> np.ndarray:
    """``σ_ab`` of resampled differences, exactly 0 for a pair whose difference never varies (below
    :data:`CONSTANT_DIFFERENCE` of the largest ``σ``, rounding): two systems scored alike on every item, or apart by
    the same amount. Such a pair's bounds are its difference itself (:mod:`mtsig.stats.rank_sets.pairwise`)."""
    return np.where(sds < CONSTANT_DIFFERENCE * sds.max(), 0.0, sds)
