"""Confidence sets for ranks from simultaneous bounds on pairwise differences (Mogstad, Romano, Shaikh & Wilhelm
2023; reviewed by Chetverikov, Mogstad, Morgen, Romano, Shaikh & Wilhelm 2024): marginal confidence sets,
simultaneous confidence sets and the projection confidence set for the τ-best (csranks's ``cstaubest``).

The rank of population ``j`` is ``r_j = 1 + #{k : θ_k > θ_j}`` (the paper's rank; csranks's ``irank``: ties
share the better rank). With lower bounds ``L_ab`` and upper bounds ``U_ab`` of ``θ_a − θ_b`` holding jointly over
a family of pairs, ``#{k : L_kj > 0}`` populations are surely better than ``j`` and ``#{k : L_jk > 0}`` surely
worse, so ``r_j ∈ [1 + #{k : L_kj > 0}, S − #{k : L_jk > 0}]``. The family of a simultaneous set holds every pair
``(j, k)`` of its targets ``j``; a marginal set of ``j`` has its own family, the pairs ``(j, k)``. A two-sided set
bounds ``|θ_j − θ_k|`` (the pair's ``U_jk < 0`` reads as ``L_kj > 0``); with the stepdown, csranks bounds both
orderings ``(j, k)`` and ``(k, j)`` from below instead, each rejected on its own. A one-sided ``lower`` set keeps
only the lower bound of the rank (upper bounds of the differences), ``upper`` only the upper bound.

The τ-best set is ``{j : L_j <= τ}`` with ``L_j`` the lower bounds of the one-sided (``lower``) simultaneous set of
all populations; the τ-worst is ``{j : U_j >= S − τ + 1}`` from the ``upper`` one (csranks's ``cstaubest``,
``cstauworst``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.stats.rank_sets.draws import DrawSource
from mtsig.stats.rank_sets.inputs import check_options
from mtsig.stats.rank_sets.pairwise import QUANTILES, pairwise_bounds


@dataclass(frozen=True)
class RankProblem:
    """What is ranked and how its uncertainty is drawn: ``systems[S]``, ``estimates[S]``, ``difference_sds[S, S]``
    (``σ_ab``), ``draws`` (the centred draws), ``n_draws``, ``bootstrap`` (``"normal"``, ``"normal-redrawn"``,
    ``"items"``, ``"documents"`` or ``"given"``). Every kind of set of one problem reads the same draws."""

    systems: tuple[str, ...]
    estimates: np.ndarray
    difference_sds: np.ndarray
    draws: DrawSource
    n_draws: int
    bootstrap: str


@dataclass(frozen=True)
class SystemRankSet:
    """One system's row: its ``estimate``, estimated ``rank``, the set ``[lower, upper]`` and, for a τ-best or
    τ-worst set, whether it is a ``member`` (None for a rank set)."""

    system: str
    estimate: float
    rank: int
    lower: int
    upper: int
    member: bool | None = None


@dataclass(frozen=True)
class RankSetResult:
    """A confidence set: its ``kind`` (a key of :data:`mtsig.stats.rank_sets.RANK_SETS`), ``side``, ``coverage``,
    ``stepdown``, ``tau`` (τ-best/worst, else None), ``quantile`` (a key of
    :data:`~mtsig.stats.rank_sets.pairwise.QUANTILES`), ``n_draws``, ``bootstrap``, ``steps`` (stepdown steps taken;
    for marginal sets the most any one took) and one :class:`SystemRankSet` per target system, in input order."""

    kind: str
    side: str
    coverage: float
    stepdown: bool
    tau: int | None
    quantile: str
    n_draws: int
    bootstrap: str
    steps: int
    rows: tuple[SystemRankSet, ...]

    @property
    def lower(self) -> np.ndarray:
        """The lower bounds, one per row."""
        return np.array([row.lower for row in self.rows], dtype=np.int64)

    @property
    def upper(self) -> np.ndarray:
        """The upper bounds, one per row."""
        return np.array([row.upper for row in self.rows], dtype=np.int64)

    @property
    def members(self) -> tuple[str, ...]:
        """The systems in a τ-best or τ-worst set, in input order (empty for a rank set)."""
        return tuple(row.system for row in self.rows if row.member)

    def table(self) -> pd.DataFrame:
        """One row per system: system, estimate, rank, lower, upper, member."""
        return pd.DataFrame([vars(row) for row in self.rows])


def estimated_ranks(estimates: np.ndarray) -> np.ndarray:
    """``1 + #{k : θ̂_k > θ̂_j}``: rank 1 is the largest estimate, ties share the better rank (csranks's ``irank``
    with its defaults)."""
    return 1 + (estimates[None, :] > estimates[:, None]).sum(axis=1)


def _families(n: int, targets: Sequence[np.ndarray], side: str, stepdown: bool) -> tuple[np.ndarray, str]:
    """(families[F, S, S], bound): the pairs each family bounds jointly and the kind of bound (module docstring;
    csranks's ``initialize_I0`` and its ``cstype`` switch)."""
    families = np.zeros((len(targets), n, n), dtype=bool)
    for f, members in enumerate(targets):
        families[f, members, :] = True
        if side == "two-sided" and stepdown:
            families[f, :, members] = True
    families[:, np.arange(n), np.arange(n)] = False
    bound = {"two-sided": "lower" if stepdown else "two-sided", "lower": "upper", "upper": "lower"}[side]
    return families, bound


def _rank_bounds(
    lower: np.ndarray, upper: np.ndarray, members: np.ndarray, n: int, side: str, stepdown: bool
) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) rank bounds of ``members`` from one family's difference bounds ``[S, S]``."""
    n_worse = (lower[members] > 0).sum(axis=1)
    if side == "two-sided" and stepdown:
        n_better = (lower[:, members] > 0).sum(axis=0)
    else:
        n_better = (upper[members] < 0).sum(axis=1)
    return 1 + n_better, n - n_worse


def _bounds(
    problem: RankProblem, chosen: np.ndarray, simultaneous: bool, options: dict
) -> tuple[np.ndarray, np.ndarray, int]:
    """(lower[T], upper[T], steps): the rank sets of the systems ``chosen`` (indices), jointly (``simultaneous``) or
    one by one (module docstring), under ``options`` (side, coverage, stepdown, and ``quantile``: how each step's
    critical value is read, :data:`~mtsig.stats.rank_sets.pairwise.QUANTILES`)."""
    side, coverage, stepdown, quantile = (options[k] for k in ("side", "coverage", "stepdown", "quantile"))
    check_options(side=side, coverage=coverage)
    if quantile not in QUANTILES:
        raise InputError(f"quantile must be one of {', '.join(QUANTILES)}, not {quantile!r}")
    n = len(problem.systems)
    groups = [chosen] if simultaneous else [np.array([t]) for t in chosen]
    families, bound = _families(n, groups, side, stepdown)
    keys = [None] if simultaneous else [int(t) for t in chosen]
    differences = problem.estimates[:, None] - problem.estimates[None, :]
    bounds = pairwise_bounds(
        differences,
        problem.difference_sds,
        families,
        bound,
        problem.draws,
        coverage=coverage,
        stepdown=stepdown,
        keys=keys,
        quantile=quantile,
    )
    parts = [
        _rank_bounds(bounds.lower[f], bounds.upper[f], group, n, side, stepdown)
        for f, group in enumerate(groups)
    ]
    lower = np.concatenate([p[0] for p in parts]).astype(np.int64)
    upper = np.concatenate([p[1] for p in parts]).astype(np.int64)
    return lower, upper, bounds.steps


def _result(
    problem: RankProblem,
    kind: str,
    bounds: tuple[np.ndarray, np.ndarray, int],
    chosen: np.ndarray,
    options: dict,
    members: np.ndarray | None = None,
) -> RankSetResult:
    """The :class:`RankSetResult` of ``bounds`` for the systems ``chosen``."""
    lower, upper, steps = bounds
    ranks = estimated_ranks(problem.estimates)
    rows = tuple(
        SystemRankSet(
            problem.systems[j],
            float(problem.estimates[j]),
            int(ranks[j]),
            int(lower[i]),
            int(upper[i]),
            None if members is None else bool(members[i]),
        )
        for i, j in enumerate(chosen)
    )
    return RankSetResult(
        kind, options["side"], options["coverage"], options["stepdown"], options.get("tau"), options["quantile"],
        problem.n_draws, problem.bootstrap, steps, rows,
    )  # fmt: skip


def _chosen(problem: RankProblem, targets: Sequence[int | str] | None) -> np.ndarray:
    """The target indices: every system for None, else each target by index or by name, none twice."""
    n = len(problem.systems)
    if targets is None:
        return np.arange(n)
    index = {name: i for i, name in enumerate(problem.systems)}
    chosen = []
    for target in targets:
        if isinstance(target, str):
            if target not in index:
                raise InputError(f"no system {target!r} to compute a rank set for")
            chosen.append(index[target])
        elif isinstance(target, int | np.integer) and 0 <= target < n:
            chosen.append(int(target))
        else:
            raise InputError(f"target {target!r} is not a system's name or an index below {n}")
    if len(set(chosen)) != len(chosen) or not chosen:
        raise InputError("the targets must name at least one system, none twice")
    return np.array(chosen, dtype=np.int64)


def rank_confidence_sets(
    problem: RankProblem,
    *,
    simultaneous: bool,
    side: str = "two-sided",
    coverage: float = 0.95,
    stepdown: bool = True,
    targets: Sequence[int | str] | None = None,
    quantile: str = "type7",
) -> RankSetResult:
    """Confidence sets for the ranks of ``targets`` (:func:`_chosen`; every system for None), Mogstad, Romano,
    Shaikh & Wilhelm (2023): marginal (``simultaneous`` False: each covers its own system's rank with probability
    ``coverage``) or simultaneous (all cover the ranks of all ``targets`` at once with probability ``coverage``),
    csranks's ``csranks(simul = )``, as a :class:`RankSetResult`."""
    options = dict(side=side, coverage=coverage, stepdown=stepdown, quantile=quantile)
    chosen = _chosen(problem, targets)
    bounds = _bounds(problem, chosen, simultaneous, options)
    return _result(problem, "simultaneous" if simultaneous else "marginal", bounds, chosen, options)


def marginal_sets(
    problem: RankProblem, *, targets: Sequence[int | str] | None = None, **options: Any
) -> RankSetResult:
    """Marginal confidence sets (Mogstad, Romano, Shaikh & Wilhelm 2023: marginal confidence sets): each covers its
    own system's rank with probability ``coverage``; csranks's ``csranks(simul = FALSE)``. ``options``: those of
    :func:`rank_confidence_sets` but ``simultaneous`` and ``targets``."""
    return rank_confidence_sets(problem, simultaneous=False, targets=targets, **options)


def simultaneous_sets(
    problem: RankProblem, *, targets: Sequence[int | str] | None = None, **options: Any
) -> RankSetResult:
    """Simultaneous confidence sets (Mogstad, Romano, Shaikh & Wilhelm 2023: simultaneous confidence sets): all
    cover the ranks of all ``targets`` at once with probability ``coverage``; csranks's ``csranks(simul = TRUE)``.
    ``options``: those of :func:`rank_confidence_sets` but ``simultaneous`` and ``targets``."""
    return rank_confidence_sets(problem, simultaneous=True, targets=targets, **options)


def tau_best_set(
    problem: RankProblem, *, tau: int, coverage: float = 0.95, stepdown: bool = True, quantile: str = "type7"
) -> RankSetResult:
    """The confidence set for the τ-best (Mogstad, Romano, Shaikh & Wilhelm 2023: the projection confidence set for
    the τ-best): the systems whose lower rank bound in the one-sided simultaneous set is at most ``tau``; it holds
    every system truly among the τ best with probability ``coverage``. csranks's ``cstaubest``. Its lower bounds
    are those of the two-sided simultaneous set with the stepdown: both run the stepdown over every ordered pair
    with the same statistic (module docstring)."""
    check_options(side="lower", coverage=coverage, tau=tau, n_systems=len(problem.systems))
    options = dict(side="lower", coverage=coverage, stepdown=stepdown, quantile=quantile)
    bounds = _bounds(problem, _chosen(problem, None), True, options)
    members = bounds[0] <= tau
    return _result(problem, "tau_best", bounds, _chosen(problem, None), {**options, "tau": int(tau)}, members)


def tau_worst_set(
    problem: RankProblem, *, tau: int, coverage: float = 0.95, stepdown: bool = True, quantile: str = "type7"
) -> RankSetResult:
    """The confidence set for the τ-worst (Mogstad, Romano, Shaikh & Wilhelm 2023: the projection confidence set for
    the τ-best, of −x, i.e. of ``−θ``): the systems whose upper rank bound in the one-sided (``upper``) simultaneous
    set is at least ``S − tau + 1``; csranks's ``cstauworst``."""
    n = len(problem.systems)
    check_options(side="upper", coverage=coverage, tau=tau, n_systems=n)
    options = dict(side="upper", coverage=coverage, stepdown=stepdown, quantile=quantile)
    bounds = _bounds(problem, _chosen(problem, None), True, options)
    members = bounds[1] >= n - tau + 1
    return _result(
        problem, "tau_worst", bounds, _chosen(problem, None), {**options, "tau": int(tau)}, members
    )
