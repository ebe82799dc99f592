"""The three confidence sets for ranks every output of mtsig shows for one problem (Mogstad, Romano, Shaikh &
Wilhelm 2023): the marginal and the simultaneous two-sided sets (with the stepdown, csranks's defaults) and the
τ-best set, computed together by :func:`rank_sets_of` into a :class:`RankSets`, and its table
(:func:`rank_sets_table`, one row per system, best first). ``mtsig rank``, ``mtsig compare`` and the human-ranking
study read them (:mod:`mtsig.report.rank_sets` writes them out)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mtsig.stats.rank_sets import RankProblem, RankSetResult, rank_set

#: The kinds of rank set a user chooses between (``--simultaneous``, ``--marginal``); simultaneous is the default:
#: a table of every system's rank is read all at once, and only the simultaneous sets cover all ranks together.
KINDS = ("simultaneous", "marginal")
DEFAULT_KIND = "simultaneous"
#: The marginal and the simultaneous set's rank bounds as columns, in every table of rank sets.
BOUND_COLUMNS = ("marginal_lower", "marginal_upper", "simultaneous_lower", "simultaneous_upper")
#: The columns of :func:`rank_sets_table`.
TABLE_COLUMNS = ("system", "estimate", "rank", *BOUND_COLUMNS, "top")


@dataclass(frozen=True)
class RankSets:
    """The sets of one problem: ``marginal``, ``simultaneous`` (two-sided, stepdown) and ``top`` (the τ-best,
    ``tau``) at ``coverage``; ``scores[S]``: each system's estimate as shown (a lower-is-better metric's own
    score, not the negated one the problem ranks); ``bootstrap``, ``n_draws``, ``n_units`` (the resampled units,
    None for the parametric bootstrap) and ``seed`` say how the draws were made; ``kind``: the set the text and
    LaTeX show (:data:`KINDS`)."""

    systems: tuple[str, ...]
    scores: np.ndarray
    marginal: RankSetResult
    simultaneous: RankSetResult
    top: RankSetResult
    coverage: float
    tau: int
    bootstrap: str
    n_draws: int
    n_units: int | None
    seed: int
    kind: str = DEFAULT_KIND

    @property
    def ranks(self) -> np.ndarray:
        """The estimated ranks (1 = best; tied estimates share the better rank)."""
        return np.array([row.rank for row in self.simultaneous.rows], dtype=np.int64)

    @property
    def members(self) -> tuple[str, ...]:
        """The systems of the τ-best set, best first."""
        table = rank_sets_table(self)
        return tuple(table.loc[table["top"], "system"])


def rank_sets_of(
    problem: RankProblem,
    *,
    coverage: float,
    tau: int,
    seed: int,
    kind: str = DEFAULT_KIND,
    scores: Sequence[float] | np.ndarray | None = None,
    n_units: int | None = None,
) -> RankSets:
    """The marginal, simultaneous and τ-best sets of ``problem`` at ``coverage`` (csranks's defaults otherwise:
    two-sided rank sets, the stepdown, R's type-7 quantile); ``seed``: the draws' seed, for the signature;
    ``kind``: the set shown; ``scores``: the estimates to show (default the problem's). Bad options (τ outside
    1..S, a coverage outside (0, 1)) are :class:`~mtsig.errors.InputError`."""
    top = rank_set(problem, "tau_best", tau=tau, coverage=coverage)
    marginal = rank_set(problem, "marginal", coverage=coverage)
    simultaneous = rank_set(problem, "simultaneous", coverage=coverage)
    shown = problem.estimates if scores is None else np.asarray(scores, dtype=np.float64)
    return RankSets(
        problem.systems, shown, marginal, simultaneous, top, float(coverage), int(tau), problem.bootstrap,
        problem.n_draws, n_units, int(seed), kind,
    )  # fmt: skip


def rank_sets_table(sets: RankSets) -> pd.DataFrame:
    """:data:`TABLE_COLUMNS`, one row per system, best first (by estimated rank; tied systems in input order):
    the estimate, the estimated rank, both sets' bounds and whether the system is in the τ-best set."""
    table = pd.DataFrame(
        {
            "system": list(sets.systems),
            "estimate": sets.scores,
            "rank": sets.ranks,
            "marginal_lower": sets.marginal.lower,
            "marginal_upper": sets.marginal.upper,
            "simultaneous_lower": sets.simultaneous.lower,
            "simultaneous_upper": sets.simultaneous.upper,
            "top": [bool(row.member) for row in sets.top.rows],
        }
    )
    return table.sort_values("rank", kind="stable").reset_index(drop=True)
