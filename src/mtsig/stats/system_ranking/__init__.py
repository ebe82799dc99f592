"""Ranking systems from human item scores, as a registry of twelve procedures: the WMT24-26 organisers' (``wmt24``,
``wmt24_scipy114`` (the same under scipy 1.14's choice of the signed-rank method), ``wmt25``, ``wmt26`` and its
paired and unpaired bootstraps alone, ``wmt26_ttest``: WMT26's first rule, a paired or an unpaired t-test), WMT20-22's
``wilcoxon_z``, the paper's two tests (Graham, Mathur & Baldwin 2014: ``paired_bootstrap``,
``approximate_randomization``) and mtsig's two permutation tests stratified by domain (``stratified_permutation``,
``stratified_permutation_documents``).

:data:`PROCEDURES` names every procedure (the config key and the ``mtsig rank --procedure`` choices derive from it).
The array core (:func:`run_procedure`) takes item scores ``[R, S, N]`` with a leading replicate axis, for
simulations; :func:`rank_systems` ranks one data set (:class:`~mtsig.stats.system_ranking.items.ItemScores`) and
returns a :class:`SystemRanking` with its tables and notes. docs/statistics.md ("Ranking systems from human
scores") defines each procedure; docs/conventions.md lists the organisers' quirks reproduced.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.stats.system_ranking.items import ItemScores, item_scores, pair_units
from mtsig.stats.system_ranking.procedures import (
    RankingArrays,
    paper_test,
    stratified_permutation,
    wilcoxon_z,
    wmt24,
    wmt25,
    wmt26,
)
from mtsig.stats.system_ranking.ttest import wmt26_ttest

__all__ = [
    "PROCEDURES",
    "ItemScores",
    "ProcedureSpec",
    "RankingArrays",
    "SystemRanking",
    "item_scores",
    "pair_decisions",
    "registry_run",
    "rank_systems",
    "run_procedure",
]


@dataclass(frozen=True)
class ProcedureSpec:
    """A ranking procedure: ``run(scores[R, S, N], segments, domains, *, alpha, seed, n_resamples, documents=None)``
    (``documents[N]``: each column's document code, ignored by every procedure but those with ``needs_documents``);
    ``scale`` the item scores it takes (``"raw"`` or ``"z"``: per-rater standardised); ``alpha`` its level;
    ``resamples`` its default number of resamples (0: not randomised); ``sided``: how its p-values read; ``source``
    what it reproduces; ``summary`` its test in one line (the report's table of procedures); ``needs_documents``: it
    exchanges whole documents, so it needs ``documents``; ``pairs_items``: it tests paired item differences (two
    systems that share no rated item may have no test); ``signed_rank``: its test is Wilcoxon's signed-rank (all-zero
    differences are undefined); ``per_domain``: it tests each domain alone and combines the domains' p-values (a
    domain of one item gives one difference). The last three only choose :func:`ranking_notes`."""

    run: Callable[..., RankingArrays]
    scale: str
    alpha: float
    resamples: int
    sided: str
    source: str
    summary: str
    needs_documents: bool = False
    pairs_items: bool = False
    signed_rank: bool = False
    per_domain: bool = False


def registry_run(
    function: Callable[..., RankingArrays], *, randomised: bool = False, by_document: bool = False
) -> Callable[..., RankingArrays]:
    """``function`` with the registry's signature (:class:`ProcedureSpec`): it is passed ``alpha``, and ``seed`` and
    ``n_resamples`` if ``randomised``, ``documents`` if ``by_document`` (:func:`run_procedure` makes sure those are
    given); the registry's other arguments are not its own."""

    def run(
        scores: np.ndarray,
        segments: np.ndarray,
        domains: np.ndarray,
        *,
        alpha: float,
        seed: int,
        n_resamples: int,
        documents: np.ndarray | None = None,
    ) -> RankingArrays:
        """The procedure on ``scores[R, S, N]`` (:class:`ProcedureSpec`)."""
        extra: dict[str, object] = {}
        if randomised:
            extra.update(seed=seed, n_resamples=n_resamples)
        if by_document:
            extra["documents"] = np.asarray(documents)
        return function(scores, segments, domains, alpha=alpha, **extra)

    return run


def _one_sided_randomised(
    function: Callable[..., RankingArrays],
    resamples: int,
    source: str,
    summary: str,
    *,
    pairs_items: bool = False,
) -> ProcedureSpec:
    """A randomised procedure on raw item scores at alpha 0.05 with one-sided p-values: WMT26's BCa bootstraps
    (:func:`~mtsig.stats.system_ranking.procedures.wmt26`) and the paper's tests on the item-score means
    (:func:`~mtsig.stats.system_ranking.procedures.paper_test`)."""
    run = registry_run(function, randomised=True)
    return ProcedureSpec(run, "raw", 0.05, resamples, "one-sided", source, summary, pairs_items=pairs_items)


#: Every ranking procedure, in output order.
PROCEDURES: dict[str, ProcedureSpec] = {
    "wmt24": ProcedureSpec(
        registry_run(wmt24),
        "raw",
        0.05,
        0,
        "two-sided",
        "wmt-conference/wmt24-news-systems@bfa937e humeval/tools.py, calculate_clusters.py",
        "per-domain two-sided Wilcoxon signed-rank, Stouffer on norm.ppf(1 - p), macro average over domains",
        pairs_items=True,
        signed_rank=True,
        per_domain=True,
    ),
    "wmt24_scipy114": ProcedureSpec(
        registry_run(partial(wmt24, auto_rule="scipy1.14")),
        "raw",
        0.05,
        0,
        "two-sided",
        "as wmt24, its code run under scipy 1.14 (scipy.stats.wilcoxon's method='auto' before scipy 1.15)",
        "as wmt24, each domain's signed-rank test exact for n <= 50 without zeros even with ties (scipy 1.14)",
        pairs_items=True,
        signed_rank=True,
        per_domain=True,
    ),
    "wmt25": ProcedureSpec(
        registry_run(wmt25),
        "raw",
        0.05 / 2,
        0,
        "one-sided",
        "wmt-conference/wmt25-general-mt@e0cb47f humeval/08-compute_clusters.py",
        "one-sided Wilcoxon signed-rank at 0.05/2 on both waves paired crosswise; ranks by walking the order",
        pairs_items=True,
        signed_rank=True,
    ),
    "wmt26": _one_sided_randomised(
        partial(wmt26, variant="either"),
        100,
        "wmt-conference/wmt26-general-mt@a6ae235 humeval/02b-analyze_results.py is_significantly_better",
        "BCa bootstrap (100 resamples, one-sided 95%): paired, else unpaired; global clusters",
        pairs_items=True,
    ),
    "wmt26_paired": _one_sided_randomised(
        partial(wmt26, variant="paired"),
        100,
        "as wmt26, the paired bootstrap alone",
        "paired BCa bootstrap of the mean difference (100 resamples, one-sided 95%); global clusters",
        pairs_items=True,
    ),
    "wmt26_unpaired": _one_sided_randomised(
        partial(wmt26, variant="unpaired"),
        100,
        "as wmt26, the unpaired bootstrap alone",
        "two-sample BCa bootstrap of the difference of means (100 resamples, one-sided 95%); global clusters",
    ),
    "wmt26_ttest": ProcedureSpec(
        registry_run(wmt26_ttest),
        "raw",
        0.05,
        0,
        "two-sided",
        "wmt-conference/wmt26-general-mt@1fa5211 humeval/02-analyze_results.py is_significantly_better",
        "paired or unpaired two-sided t-test, either p < 0.05, the winner the higher mean; global clusters",
    ),
    "wilcoxon_z": ProcedureSpec(
        registry_run(wilcoxon_z),
        "z",
        0.05,
        0,
        "one-sided",
        "WMT20-22 DA (mtsig.stats.human.wilcoxon_gold, unit segment_mean)",
        "one-sided Wilcoxon rank-sum on per-rater standardised item scores",
    ),
    "paired_bootstrap": _one_sided_randomised(
        partial(paper_test, test="paired_bootstrap"),
        1000,
        "Graham, Mathur & Baldwin (2014) Fig. 4; Koehn (2004)",
        "paired bootstrap of the item-score means (mtsig's resampling engine)",
    ),
    "approximate_randomization": _one_sided_randomised(
        partial(paper_test, test="approximate_randomization"),
        1000,
        "Graham, Mathur & Baldwin (2014) Fig. 2; Riezler & Maxwell (2005)",
        "approximate randomization of the item-score means (mtsig's resampling engine)",
    ),
    "stratified_permutation": ProcedureSpec(
        registry_run(stratified_permutation, randomised=True),
        "raw",
        0.05,
        10_000,
        "two-sided",
        "mtsig: the macro-average question answered by a permutation test stratified by domain",
        "signs of paired differences swapped within each domain, the macro-average difference, two-sided",
        pairs_items=True,
    ),
    "stratified_permutation_documents": ProcedureSpec(
        registry_run(stratified_permutation, randomised=True, by_document=True),
        "raw",
        0.05,
        10_000,
        "two-sided",
        "mtsig: stratified_permutation with whole documents exchanged (ESA: one rater scores one system's document)",
        "as stratified_permutation, one sign per document (its items' dependence kept), two-sided",
        pairs_items=True,
        needs_documents=True,
    ),
}


def check_procedure(name: str) -> ProcedureSpec:
    """The :class:`ProcedureSpec` of ``name``; an :class:`InputError` listing the known ones otherwise."""
    if name not in PROCEDURES:
        raise InputError(f"unknown ranking procedure {name!r}; known: {', '.join(PROCEDURES)}")
    return PROCEDURES[name]


def run_procedure(
    name: str,
    scores: np.ndarray,
    segments: np.ndarray,
    domains: np.ndarray,
    *,
    alpha: float | None = None,
    seed: int = 0,
    n_resamples: int | None = None,
    documents: np.ndarray | None = None,
) -> RankingArrays:
    """Run procedure ``name`` on ``scores[R, S, N]`` (or ``[S, N]``) of the scale its spec names. ``alpha`` and
    ``n_resamples`` default to the procedure's own; ``documents[N]`` (each column's document code) is used only by,
    and required by, the procedures that exchange whole documents (``needs_documents``)."""
    spec = check_procedure(name)
    if spec.needs_documents and documents is None:
        raise InputError(f"procedure {name!r} exchanges whole documents: it needs each item's document")
    return spec.run(
        scores,
        np.asarray(segments),
        np.asarray(domains),
        alpha=spec.alpha if alpha is None else alpha,
        seed=seed,
        n_resamples=spec.resamples if n_resamples is None else n_resamples,
        documents=documents,
    )


#: :func:`pair_decisions`' codes: the first system declared better (only), the second (only), both ways, neither.
FIRST, SECOND, BOTH, NEITHER = 1, -1, 2, 0
#: The codes as :meth:`SystemRanking.pvalue_table` writes them.
DECISION_LABELS = {FIRST: "system1", SECOND: "system2", BOTH: "both", NEITHER: "none"}


def pair_decisions(first_beats: np.ndarray, second_beats: np.ndarray) -> np.ndarray:
    """A procedure's decision on pairs of systems (x, y), one code each (int64): ``FIRST`` (+1) x declared better,
    ``SECOND`` (-1) y, ``NEITHER`` (0) no difference, ``BOTH`` (2) each declared better than the other.

    ``first_beats`` is ``beats[..., x, y]`` and ``second_beats`` ``beats[..., y, x]``. Both are set only by
    ``wmt26``, whose paired and unpaired bootstraps can point opposite ways (paired on the shared items, unpaired on
    all of each system's items), and in principle by ``wmt26_paired``/``wmt26_unpaired``, whose two directions draw
    their own resamples; every other procedure declares i better than j only when i's score is strictly higher
    (``wmt26_ttest``: when i is above j in its order, which for equal means is the input order),
    or (``wmt25``) when a one-sided p is below alpha < 1/2, which the two directions' p-values (summing to at least
    1) cannot both be. A procedure that declares both has declared a difference: it is counted as one."""
    first_beats, second_beats = np.asarray(first_beats), np.asarray(second_beats)
    return np.where(
        first_beats & second_beats, BOTH, first_beats.astype(np.int64) - second_beats.astype(np.int64)
    )


@dataclass(frozen=True)
class SystemRanking:
    """One procedure's ranking of one data set: ``arrays`` (R = 1) and the notes on what it could not test."""

    procedure: str
    systems: tuple[str, ...]
    arrays: RankingArrays
    alpha: float
    seed: int
    n_resamples: int
    notes: tuple[str, ...] = field(default_factory=tuple)

    def table(self) -> pd.DataFrame:
        """One row per system, best first: system, score, top_rank, worst_rank, cluster."""
        a = self.arrays
        order = a.order[0]
        return pd.DataFrame(
            {
                "system": [self.systems[i] for i in order],
                "score": a.scores[0][order],
                "top_rank": a.top_rank[0][order],
                "worst_rank": a.worst_rank[0][order],
                "cluster": a.cluster[0][order],
            }
        )

    def pvalue_table(self) -> pd.DataFrame:
        """One row per unordered pair (system1 above system2 in the order): p (the test of system1 against
        system2: for one-sided procedures "system1 better"), p_reverse (system2 against system1), and the
        procedure's decision (:data:`DECISION_LABELS` of :func:`pair_decisions`: ``system1``, ``system2``,
        ``both`` or ``none``)."""
        a = self.arrays
        order = a.order[0]
        first, second = np.triu_indices(len(order), 1)
        i, j = order[first], order[second]
        decided = pair_decisions(a.beats[0, i, j], a.beats[0, j, i])
        names = np.asarray(self.systems, dtype=object)
        return pd.DataFrame(
            {
                "system1": names[i],
                "system2": names[j],
                "p": a.pvalues[0, i, j],
                "p_reverse": a.pvalues[0, j, i],
                "decision": [DECISION_LABELS[int(d)] for d in decided],
            }
        )


def ranking_notes(
    items: ItemScores, arrays: RankingArrays, scale: np.ndarray, procedure: str
) -> tuple[str, ...]:
    """What the data leaves untestable by ``procedure``, in words: pairs with no paired item whose p-value is NaN
    (procedures that pair items, ``pairs_items``), pairs whose paired scores are all equal (the signed-rank
    procedures), domains with a single item (procedures that test each domain alone: ``wmt24``), undefined
    p-values (every procedure)."""
    spec = check_procedure(procedure)
    notes = []
    left, right = pair_units(items.segments)
    n = len(items.systems)
    pvalues = arrays.pvalues[0]
    no_pairs, all_equal = [], []
    for i in range(n):
        for j in range(i + 1, n):
            d = scale[i, left] - scale[j, right]
            d = d[~np.isnan(d)]
            # A procedure that falls back to an unpaired test (wmt26) has a p-value without paired items.
            if len(d) == 0 and (np.isnan(pvalues[i, j]) or np.isnan(pvalues[j, i])):
                no_pairs.append(f"{items.systems[i]}/{items.systems[j]}")
            elif len(d) > 0 and np.all(d == 0):
                all_equal.append(f"{items.systems[i]}/{items.systems[j]}")
    if no_pairs and spec.pairs_items:
        # WMT24's get_clusters reads NaN as "not > alpha", a separation (ranks.wmt24_clusters).
        clusters = "; WMT24's clusters separate them" if procedure in ("wmt24", "wmt24_scipy114") else ""
        notes.append(
            f"{len(no_pairs)} pair(s) share no rated item ({', '.join(no_pairs[:5])}): the paired test is "
            f"undefined for them (p NaN: no decision{clusters})"
        )
    if all_equal and spec.signed_rank:
        notes.append(
            f"{len(all_equal)} pair(s) score equal on every shared item ({', '.join(all_equal[:5])}): the Wilcoxon "
            "signed-rank test drops every zero difference and is undefined (scipy's NaN, or p = 1 for at most 13)"
        )
    counts = np.bincount(items.domains, minlength=len(items.domain_names))
    single = [items.domain_names[d] or "(none)" for d in np.flatnonzero(counts == 1)]
    if single and spec.per_domain:
        notes.append(
            f"domain(s) with a single item: {', '.join(single)}: its per-domain test has one difference "
            "(a two-sided signed-rank p of 1, or undefined when the scores are equal)"
        )
    off_diagonal = ~np.eye(n, dtype=bool)
    undefined = int(np.isnan(arrays.pvalues[0][off_diagonal]).sum())
    if undefined:
        notes.append(f"{undefined} ordered pair(s) have no p-value (NaN): no decision is made for them")
    return tuple(notes)


def rank_systems(
    items: ItemScores,
    procedure: str,
    *,
    alpha: float | None = None,
    seed: int = 0,
    n_resamples: int | None = None,
) -> SystemRanking:
    """Rank the systems of ``items`` by ``procedure`` (:data:`PROCEDURES`). ``seed`` and ``n_resamples`` matter only
    to randomised procedures."""
    spec = check_procedure(procedure)
    if len(items.systems) < 2:
        raise InputError(f"{len(items.systems)} system(s): ranking needs at least two")
    scale = items.scores if spec.scale == "raw" else items.z
    if scale is None:
        raise InputError(
            f"procedure {procedure!r} needs per-rater scores (a rater column); the ratings have none"
        )
    if spec.needs_documents and (items.columns["doc"] == "").all():
        raise InputError(
            f"procedure {procedure!r} exchanges whole documents: it needs each item's document (a doc column); "
            "the ratings have none"
        )
    rated = ~np.isnan(scale)
    unrated = [items.systems[s] for s in np.flatnonzero(~rated.any(axis=1))]
    if unrated:
        raise InputError(f"system(s) without a usable score: {', '.join(unrated)}")
    alpha = spec.alpha if alpha is None else alpha
    n_resamples = spec.resamples if n_resamples is None else n_resamples
    arrays = run_procedure(
        procedure,
        scale,
        items.segments,
        items.domains,
        alpha=alpha,
        seed=seed,
        n_resamples=n_resamples,
        documents=items.documents,
    )
    notes = ranking_notes(items, arrays, scale, procedure)
    if spec.needs_documents:
        notes += document_notes(items.documents, alpha)
    return SystemRanking(procedure, items.systems, arrays, alpha, seed, n_resamples, notes)


def document_notes(documents: np.ndarray, alpha: float) -> tuple[str, ...]:
    """A note when there are too few documents for a test that flips one sign per document to reach ``alpha``:
    with D documents its smallest two-sided p is ``2 / 2^D`` (all signs as observed, or all reversed)."""
    n_documents = len(np.unique(documents))
    # 2^(1 - D), not 2 / 2^D: the same power of two, without overflow past 1023 documents.
    smallest = 2.0 ** (1 - n_documents)
    if smallest <= alpha:
        return ()
    return (
        f"only {n_documents} document(s): a test that exchanges whole documents has 2^{n_documents} sign patterns, "
        f"its exact p is at least {smallest:g} > alpha {alpha:g}: it declares no difference (up to Monte Carlo "
        "error)",
    )
