"""Are WMT's human rankings right? Every ranking procedure of the registry (:data:`mtsig.stats.system_ranking.
PROCEDURES`: the WMT24-26 organisers', WMT20-22's, the paper's tests and mtsig's) applied to the same human ratings,
language pair by language pair, and where their conclusions differ.

Input: the kept ratings of :func:`mtsig.io.esa.read_esa` (the WMT24 organisers' filtering; every rater kept, as they
keep them, the human reference ``refA`` ranked as a system, as they rank it). Each language pair's item scores are
:func:`mtsig.stats.system_ranking.item_scores`; each procedure runs once per pair with its own level and number of
resamples (the config may change the resamples), seeded by ``derive_seed(seed, experiment, lp, procedure)``.

Disagreement (docs/statistics.md, "Where the ranking procedures disagree"): a procedure's decision on an unordered
pair of systems {x, y} is "x better", "y better", none, or both (:func:`mtsig.stats.system_ranking.pair_decisions`:
possible for ``wmt26`` alone). Two procedures disagree on a pair when one declares a difference and the other does
not, or both declare different winners.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.stats.rank_sets import problem_from_item_scores
from mtsig.stats.rank_sets.summary import BOUND_COLUMNS, rank_sets_of, rank_sets_table
from mtsig.stats.seeding import derive_seed
from mtsig.stats.system_ranking import PROCEDURES, RankingArrays, item_scores, pair_decisions, rank_systems

RANKING_COLUMNS = ("procedure", "lp", "system", "score", "top_rank", "worst_rank", "cluster")
PVALUE_COLUMNS = ("procedure", "lp", "system1", "system2", "p", "beats")
DISAGREEMENT_COLUMNS = (
    "lp",
    "procedure_a",
    "procedure_b",
    "pairs",
    "both",
    "only_a",
    "only_b",
    "neither",
    "opposite",
    "disagree",
)
NOTE_COLUMNS = ("procedure", "lp", "note")
#: The table of :func:`rank_sets_of_pairs`.
RANK_SET_COLUMNS = ("lp", "system", "estimate", "rank", *BOUND_COLUMNS, "could_be_first", "units")
#: What :func:`rank_sets_of_pairs` resamples (settings.HumanRanking.rank_sets_units).
RANK_SET_UNITS = ("documents", "items")
#: A procedure's decision (:func:`mtsig.stats.system_ranking.pair_decisions`) on (system1, system2) in the table of
#: disagreeing pairs: system1 better, system2 better, no difference declared, each declared better than the other.
DECISION_SYMBOLS = {1: ">", -1: "<", 0: "=", 2: "<>"}


@dataclass(frozen=True)
class HumanRankingResult:
    """What :func:`rank_language_pairs` returns; every table in the order of ``lps`` and ``procedures``.

    ``ranking``: :data:`RANKING_COLUMNS`, one row per procedure, pair and system, best first by the procedure's
    score (``score``: what it orders by: the macro average over domains for ``wmt24``, ``stratified_permutation``
    and ``stratified_permutation_documents``, the mean per-rater z for ``wilcoxon_z``, else the mean raw item
    score).
    ``pvalues``: :data:`PVALUE_COLUMNS`, every ordered pair: ``p`` of the procedure's test of system1 against system2
    (one-sided "system1 better", or two-sided for ``wmt24`` and the stratified permutation tests: docs/statistics.md),
    ``beats`` whether the procedure declares system1 better. ``disagreement``: :data:`DISAGREEMENT_COLUMNS`, per pair
    and two procedures, of the ``pairs`` unordered system pairs how many both call different (``opposite`` of them
    with different winners), only one does, or neither; ``disagree`` = only_a + only_b + opposite.
    ``disagreeing_pairs``: lp, system1, system2 (alphabetical) and one column per procedure
    (:data:`DECISION_SYMBOLS`), the system pairs on which the procedures do not all agree. ``notes``:
    :data:`NOTE_COLUMNS`, what each procedure could not test. ``procedures``, ``lps``, ``resamples``
    (procedure -> resamples used) and ``alphas`` (procedure -> level) as run.
    """

    ranking: pd.DataFrame
    pvalues: pd.DataFrame
    disagreement: pd.DataFrame
    disagreeing_pairs: pd.DataFrame
    notes: pd.DataFrame
    procedures: tuple[str, ...]
    lps: tuple[str, ...]
    resamples: Mapping[str, int]
    alphas: Mapping[str, float]


def decisions(beats: np.ndarray) -> np.ndarray:
    """``beats[S, S]`` -> the decision on each unordered pair (i < j, ``np.triu_indices`` order):
    :func:`~mtsig.stats.system_ranking.pair_decisions` (+1 i better, -1 j better, 0 none, 2 both)."""
    first, second = np.triu_indices(beats.shape[-1], 1)
    return pair_decisions(beats[first, second], beats[second, first])


def disagreement_counts(lp: str, names: Sequence[str], decided: np.ndarray) -> pd.DataFrame:
    """Rows of :data:`DISAGREEMENT_COLUMNS` for every two procedures (``names`` order) of one pair;
    ``decided[K, P]``: each procedure's :func:`decisions`."""
    rows = []
    for a in range(len(names)):
        for b in range(a + 1, len(names)):
            x, y = decided[a], decided[b]
            both = (x != 0) & (y != 0)
            counts = (both.sum(), ((x != 0) & (y == 0)).sum(), ((x == 0) & (y != 0)).sum())
            opposite = int((both & (x != y)).sum())
            neither = int(((x == 0) & (y == 0)).sum())
            rows.append(
                (lp, names[a], names[b], len(x), *map(int, counts), neither, opposite,
                 int(counts[1] + counts[2]) + opposite)
            )  # fmt: skip
    return pd.DataFrame(rows, columns=list(DISAGREEMENT_COLUMNS))


def disagreeing_pairs(
    lp: str, systems: Sequence[str], names: Sequence[str], decided: np.ndarray
) -> pd.DataFrame:
    """The system pairs of one language pair on which the procedures do not all decide alike (``systems``
    alphabetical, so system1 < system2), one column per procedure (:data:`DECISION_SYMBOLS`)."""
    first, second = np.triu_indices(len(systems), 1)
    differ = (decided != decided[:1]).any(axis=0)
    table = pd.DataFrame(
        {
            "lp": lp,
            "system1": np.asarray(systems)[first[differ]],
            "system2": np.asarray(systems)[second[differ]],
        }
    )
    for name, row in zip(names, decided, strict=True):
        table[name] = [DECISION_SYMBOLS[int(v)] for v in row[differ]]
    return table


def pair_ratings(ratings: pd.DataFrame, lp: str) -> pd.DataFrame:
    """The ratings of one language pair; none is an :class:`InputError` that lists the pairs rated."""
    rows = ratings.loc[ratings["lp"] == lp]
    if rows.empty:
        found = ", ".join(sorted(set(ratings["lp"]))) or "none"
        raise InputError(f"no ratings of {lp} (language pairs rated: {found})")
    return rows


def rank_sets_of_pairs(
    ratings: pd.DataFrame,
    lps: Sequence[str],
    *,
    experiment: str,
    seed: int,
    coverage: float,
    resamples: int,
    units: str = "documents",
) -> pd.DataFrame:
    """Which systems could be first? For each pair in ``lps``: each system's mean item score
    (:func:`~mtsig.stats.system_ranking.item_scores`), its estimated rank, its marginal and simultaneous two-sided
    confidence sets for ranks at ``coverage`` and whether it is in the τ-best set for τ = 1 (Mogstad, Romano,
    Shaikh & Wilhelm 2023, Sections 3-4; :mod:`mtsig.stats.rank_sets.summary`), from ``resamples`` draws of the
    paired bootstrap of whole documents, or of items (``units``), seeded by ``derive_seed(seed, experiment, lp,
    "rank_sets")``. Rows :data:`RANK_SET_COLUMNS`, each pair's best first; ``units``: the documents or items
    resampled."""
    if units not in RANK_SET_UNITS:
        raise InputError(f"rank-set units must be one of {', '.join(RANK_SET_UNITS)}, not {units!r}")
    frames = []
    for lp in lps:
        items = item_scores(pair_ratings(ratings, lp), source=f"the {lp} ratings")
        documents = items.documents if units == "documents" else None
        problem = problem_from_item_scores(
            items.systems, items.scores, documents=documents, n_draws=resamples,
            rng=derive_seed(seed, experiment, lp, "rank_sets"), source=f"the {lp} ratings",
        )  # fmt: skip
        sets = rank_sets_of(problem, coverage=coverage, tau=1, seed=seed)
        table = rank_sets_table(sets).rename(columns={"top": "could_be_first"})
        n_units = len(np.unique(items.documents)) if documents is not None else items.scores.shape[1]
        frames.append(table.assign(lp=lp, units=n_units))
    return pd.concat(frames, ignore_index=True).loc[:, list(RANK_SET_COLUMNS)]


def rank_language_pairs(
    ratings: pd.DataFrame,
    lps: Sequence[str],
    procedures: Sequence[str],
    *,
    experiment: str,
    seed: int,
    resamples: Mapping[str, int] | None = None,
) -> HumanRankingResult:
    """Rank the systems of every language pair in ``lps`` by every procedure (module docstring).

    ``ratings``: :attr:`mtsig.io.esa.EsaExport.ratings` (columns lp, rater, system, item, wave, doc, domain, score).
    ``resamples``: procedure -> resamples, for the randomised procedures only (default: each procedure's own).

    Raises:
        InputError: an unknown procedure, resamples given for a procedure that does not resample, or a language
            pair without ratings.
    """
    resamples = dict(resamples or {})
    unknown = [p for p in [*procedures, *resamples] if p not in PROCEDURES]
    if unknown:
        raise InputError(f"unknown ranking procedure(s) {', '.join(unknown)}; known: {', '.join(PROCEDURES)}")
    fixed = [p for p in resamples if PROCEDURES[p].resamples == 0]
    if fixed:
        raise InputError(f"resamples given for procedure(s) that do not resample: {', '.join(fixed)}")
    used = {p: resamples.get(p, PROCEDURES[p].resamples) for p in procedures}
    rankings, pvalues, disagreement, differing, notes = [], [], [], [], []
    for lp in lps:
        items = item_scores(pair_ratings(ratings, lp), source=f"the {lp} ratings")
        decided = []
        for procedure in procedures:
            ranking = rank_systems(
                items,
                procedure,
                seed=derive_seed(seed, experiment, lp, procedure),
                n_resamples=used[procedure],
            )
            rankings.append(ranking.table().assign(procedure=procedure, lp=lp))
            pvalues.append(
                ordered_pvalues(ranking.systems, ranking.arrays, ranking.arrays.order[0], procedure, lp)
            )
            decided.append(decisions(ranking.arrays.beats[0]))
            notes += [(procedure, lp, note) for note in ranking.notes]
        decided = np.stack(decided)
        disagreement.append(disagreement_counts(lp, procedures, decided))
        differing.append(disagreeing_pairs(lp, items.systems, procedures, decided))
    return HumanRankingResult(
        ranking=pd.concat(rankings, ignore_index=True).loc[:, list(RANKING_COLUMNS)],
        pvalues=pd.concat(pvalues, ignore_index=True),
        disagreement=pd.concat(disagreement, ignore_index=True),
        disagreeing_pairs=pd.concat(differing, ignore_index=True),
        notes=pd.DataFrame(notes, columns=list(NOTE_COLUMNS)),
        procedures=tuple(procedures),
        lps=tuple(lps),
        resamples=used,
        alphas={p: PROCEDURES[p].alpha for p in procedures},
    )


def ordered_pvalues(
    systems: Sequence[str], arrays: RankingArrays, order: np.ndarray, procedure: str, lp: str
) -> pd.DataFrame:
    """:data:`PVALUE_COLUMNS` rows of every ordered pair of one procedure's :class:`~mtsig.stats.system_ranking.
    RankingArrays` (replicate 0), system1 and system2 each in the procedure's order (best first)."""
    first, second = np.meshgrid(order, order, indexing="ij")
    off = first != second
    first, second = first[off], second[off]
    names = np.asarray(systems)
    return pd.DataFrame(
        {
            "procedure": procedure,
            "lp": lp,
            "system1": names[first],
            "system2": names[second],
            "p": arrays.pvalues[0, first, second],
            "beats": arrays.beats[0, first, second],
        }
    )
