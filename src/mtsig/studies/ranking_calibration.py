"""How often is each human-ranking procedure wrong? Error rates with known truth, built from real item scores.

The registry's ten procedures (:mod:`mtsig.stats.system_ranking`: the WMT24-26 organisers', WMT20-22's
``wilcoxon_z``, the paper's tests and mtsig's two stratified permutation tests) rank systems from human item scores
(ESA, 0-100), and the paper's shift-to-zero bootstrap is calibrated beside them. Here
the truth is planted into real ratings, so every decision can be scored (docs/statistics.md, "Error rates of the
ranking procedures with known truth"). Every simulated score is a real item score of a real system, reassigned
within its item; only which pseudo-system gets it is random. From one language pair's item scores ``raw[S, N]``
(and their per-rater standardised ``z[S, N]``, which always move with their raw cell), for each replicate:

* **null pairs** (``null_item``, ``null_document``): two real systems X, Y drawn at random, and a fair coin per item
  (or per document: every item of a document follows one coin, which keeps the within-document dependence of the
  ratings) that exchanges their scores. The two pseudo-systems are exchangeable: no difference is true, on any
  average, in any domain. (A random test that swaps signs per item is exact under the item exchange by
  construction, as approximate randomization is in :mod:`mtsig.studies.calibration`; one that swaps signs per
  document, ``stratified_permutation_documents``, under both.)
* **tilted alternatives** (``shift``, effect ``delta``): as an item-exchanged null pair, but the first pseudo-system
  gets the higher of the item's two scores with probability ``p_d = (1 + e_d / m_d) / 2`` in domain d, where
  ``m_d`` is the mean over d's items of ``|X_i - Y_i|`` and ``e_d = delta``: the expected difference of the two
  pseudo-systems is ``(2 p_d - 1) m_d = delta`` points in every domain, so on the item mean and on the macro average
  too, and every item's difference is ``+|X_i - Y_i|`` more often than ``-|X_i - Y_i|`` (``P(X' > Y') > 1/2``: the
  alternative of every procedure, rank-based or mean-based). Only pairs with ``m_d >= |e_d|`` in every domain can
  carry the effect; the pair is drawn uniformly among them (:func:`tilted_pairs`). No score leaves 0-100 and no
  tie is broken (an additive shift would turn every tie at 100 into a difference, which rank tests detect at once).
* **domain-heterogeneous alternatives** (``heterogeneous``, effect ``h``): the same with ``e_d = h * v_d``, where
  ``v`` is the alternating pattern ``(+1, -1, +1, ...)`` over the domains (in name order) with its projection on
  ``1`` and on the domain sizes ``n_d`` removed, scaled to ``max |v_d| = 1`` (:func:`balanced_domain_effects`): the
  first system is better in some domains and worse in others, and the two are equal in expectation on the macro
  average (``sum_d v_d = 0``) and on the item mean (``sum_d n_d v_d = 0``). A procedure that declares a winner is
  wrong.
* **ranked sets** (``clusters``, effect ``r``): ``K = sum(tiers)`` pseudo-systems whose scores on each item are those
  of K of the S real systems in a uniform random order (all K exchangeable); then, with probability ``r`` per item,
  the K scores are handed out in order instead: the highest to the best tier's pseudo-systems, in a random order
  within each tier (:func:`ranked_sets`). Systems of one tier stay exchangeable (tied), each tier is better than the
  next: the true clusters are the tiers. With documents exchanged (``clusters_document``) whole documents are handed
  out, sorted by their mean (:func:`~mtsig.studies.ranking_calibration_designs.ranked_units`). Each of the two is
  rated in full (``all``), or on a budget of (system, document) cells: the same documents for every system
  (``fixed``, kind ``clusters_fixed``, ``clusters_document_fixed``) or Pearmut's dynamic allocation, which gives
  the leaders more documents (``dynamic``: ``clusters_dynamic``, ``clusters_document_dynamic``), both from the same
  scores (:mod:`mtsig.studies.ranking_calibration_designs`).

Measures (each a count of replicates out of ``trials``, with its 95% Clopper-Pearson interval): ``declared`` (the
procedure calls the two different, either way: the false-positive rate under the nulls and the heterogeneous
alternative), ``correct_winner`` (power: the first pseudo-system declared better), ``wrong_winner`` (the second
declared better under a shift), ``flip`` (a randomised procedure's three-way decision changes when it is run again
on the same data with another seed), and for the ranked sets ``clusters_match`` (the clusters are exactly the
tiers), ``tie_split`` (some pair of one tier declared different), ``wrong_order`` (a system declared better than
one of a better tier) and, for each kind of range (``range``: a procedure's ``rank_range`` and ``cluster_range``,
the positions its cluster spans; the rank sets' ``simultaneous`` and ``marginal`` sets, procedures
``rank_sets_items`` and ``rank_sets_documents``), the coverage and size measures of
:func:`~mtsig.studies.ranking_calibration_ranges.range_outcomes`.
``nominal``: what a calibrated procedure's ``declared`` rate is where no difference is true: ``alpha`` for a
two-sided procedure, ``2 alpha`` for one that tests "i better than j" one-sidedly at ``alpha`` in both directions
(the WMT25/26 and WMT20-22 readings, the paper's one-sided tests). ``mean_difference``: the realised difference in
points, averaged over the replicates: of the two pseudo-systems' macro averages over domains (WMT24's score), or,
for the ranked sets, of the macro averages of adjacent tiers (mean over the tiers' systems).

Every construction is vectorised over replicates; every procedure runs once per condition on ``[R, S, N]``, the rank
sets too (:func:`~mtsig.studies.ranking_calibration_ranges.rank_set_bounds`).
The paper's shift-to-zero bootstrap (Graham, Mathur & Baldwin 2014, Fig. 3), not a registry procedure, is run beside
its paired bootstrap and approximate randomization (:data:`EXTRA_PROCEDURES`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.settings import HumanRankingCalibration
from mtsig.stats.intervals import clopper_pearson
from mtsig.stats.seeding import derive_seed, rng_for
from mtsig.stats.system_ranking import PROCEDURES, ProcedureSpec, RankingArrays, item_scores, registry_run
from mtsig.stats.system_ranking import pair_decisions as decisions_of_pairs
from mtsig.stats.system_ranking.procedures import domain_macro_average, paper_test
from mtsig.studies import ranking_calibration_designs as designs
from mtsig.studies import ranking_calibration_ranges as ranges
from mtsig.studies.ranking_calibration_designs import ranked_sets, tiers_of

NULL_ITEM = "null_item"
NULL_DOCUMENT = "null_document"
SHIFT = "shift"
HETEROGENEOUS = "heterogeneous"
CLUSTERS = "clusters"
NULL_KIND = {"item": NULL_ITEM, "document": NULL_DOCUMENT}
#: Kinds where no difference is true: a declared difference is a false positive.
NO_DIFFERENCE = (NULL_ITEM, NULL_DOCUMENT, HETEROGENEOUS)

DECLARED = "declared"
CORRECT = "correct_winner"
WRONG = "wrong_winner"
FLIP = "flip"
MATCH = "clusters_match"
TIE_SPLIT = "tie_split"
WRONG_ORDER = "wrong_order"

RESULT_COLUMNS = [
    "lp",
    "procedure",
    "kind",
    "effect",
    "range",
    "measure",
    "count",
    "trials",
    "rate",
    "ci_low",
    "ci_high",
    "nominal",
    "mean_difference",
    "alpha",
    "resamples",
]


#: Procedures calibrated beside the registry's: the paper's third test, the bootstrap that shifts the resampled
#: differences to a zero mean (Graham, Mathur & Baldwin 2014, Fig. 3), with the registry's paper tests' settings.
EXTRA_PROCEDURES: dict[str, ProcedureSpec] = {
    "bootstrap": ProcedureSpec(
        registry_run(partial(paper_test, test="bootstrap"), randomised=True),
        "raw",
        0.05,
        1000,
        "one-sided",
        "Graham, Mathur & Baldwin (2014) Fig. 3",
        "bootstrap of the item-score means shifted to zero (mtsig's resampling engine)",
    ),
}


def _calibrated() -> dict[str, ProcedureSpec]:
    """The registry's procedures, :data:`EXTRA_PROCEDURES` after ``paired_bootstrap`` (the paper's tests together)."""
    procedures = {}
    for name, spec in PROCEDURES.items():
        procedures[name] = spec
        if name == "paired_bootstrap":
            procedures.update(EXTRA_PROCEDURES)
    return procedures


#: Every procedure the study can calibrate, in output order: the registry's, the paper's three tests together.
CALIBRATED: dict[str, ProcedureSpec] = _calibrated()


def nominal_rate(spec: ProcedureSpec) -> float:
    """The ``declared`` rate of a calibrated procedure where no difference is true: alpha when two-sided, twice
    alpha when it tests each direction one-sidedly at alpha."""
    return spec.alpha if spec.sided == "two-sided" else 2 * spec.alpha


# --------------------------------------------------------------------------------------------------------------
# The data


@dataclass(frozen=True)
class CalibrationItems:
    """One language pair's item scores: ``raw[S, N]`` and ``z[S, N]`` (per-rater standardised), each column's
    ``segments``, ``domains`` and ``documents`` codes (:func:`mtsig.stats.system_ranking.item_scores`)."""

    raw: np.ndarray
    z: np.ndarray
    segments: np.ndarray
    domains: np.ndarray
    documents: np.ndarray


def calibration_items(ratings: pd.DataFrame, source: str = "ratings") -> CalibrationItems:
    """The :class:`CalibrationItems` of one language pair's ratings (columns ``system, item, score, rater`` and
    optionally ``wave, doc, domain``, e.g. :attr:`mtsig.io.esa.EsaExport.ratings` of one pair)."""
    if "rater" not in ratings.columns:
        raise InputError("the calibration needs a rater column (wilcoxon_z ranks per-rater z scores)", source)
    items = item_scores(ratings, source)
    if len(items.systems) < 2:
        raise InputError(f"{len(items.systems)} system(s): the calibration needs at least two", source)
    return CalibrationItems(items.scores, items.z, items.segments, items.domains, items.documents)


# --------------------------------------------------------------------------------------------------------------
# The constructions


def random_system_pairs(rng: np.random.Generator, n_systems: int, replicates: int) -> np.ndarray:
    """``[R, 2]``: an ordered pair of distinct systems per replicate, uniform over all ``S (S - 1)`` of them."""
    first = rng.integers(0, n_systems, replicates)
    second = (first + rng.integers(1, n_systems, replicates)) % n_systems
    return np.stack([first, second], axis=1)


def exchange_mask(rng: np.random.Generator, replicates: int, units: np.ndarray) -> np.ndarray:
    """``[R, N]``: a fair coin per replicate and unit (``units[N]``: each item's unit code, 0 .. U-1), expanded to
    the unit's items: True where the pair's two scores are exchanged."""
    units = np.asarray(units)
    return (rng.random((replicates, int(units.max()) + 1)) < 0.5)[:, units]


def exchanged_pairs(values: np.ndarray, systems: np.ndarray, exchange: np.ndarray) -> np.ndarray:
    """``[R, 2, N]``: the scores ``values[S, N]`` of ``systems[R, 2]``, exchanged between the two where
    ``exchange[R, N]``."""
    first, second = values[systems[:, 0]], values[systems[:, 1]]
    return np.stack([np.where(exchange, second, first), np.where(exchange, first, second)], axis=1)


def balanced_domain_effects(domains: np.ndarray) -> np.ndarray:
    """``v[D]`` over the domain codes 0 .. D-1: the alternating pattern ``(+1, -1, +1, ...)`` minus its least-squares
    projection on the constant and on the domain sizes ``n_d`` (so ``sum v = 0`` and ``sum n_d v_d = 0``), scaled to
    ``max |v_d| = 1``. Two domains of unequal size (or one domain) leave nothing: an error."""
    sizes = np.bincount(np.asarray(domains)).astype(np.float64)
    pattern = np.where(np.arange(len(sizes)) % 2 == 0, 1.0, -1.0)
    basis = np.stack([np.ones_like(sizes), sizes], axis=1)
    residual = pattern - basis @ np.linalg.lstsq(basis, pattern, rcond=None)[0]
    if np.abs(residual).max() < 1e-9:
        raise InputError(
            f"domain sizes {sizes.astype(int).tolist()}: no per-domain effects are equal on both the macro average "
            "and the item mean (that needs three domains, or two of equal size)"
        )
    return residual / np.abs(residual).max()


def mean_absolute_differences(raw: np.ndarray, domains: np.ndarray) -> np.ndarray:
    """``m[S, S, D]``: the mean over domain d's items rated for both of ``|raw[a] - raw[b]|`` (NaN: none)."""
    codes = np.asarray(domains)
    absolute = np.abs(raw[:, None, :] - raw[None, :, :])
    rated = ~np.isnan(absolute)
    filled = np.where(rated, absolute, 0.0)
    one_hot = (codes[:, None] == np.arange(codes.max() + 1)[None, :]).astype(np.float64)  # [N, D]
    with np.errstate(invalid="ignore", divide="ignore"):
        return (filled @ one_hot) / (rated.astype(np.float64) @ one_hot)


def tilted_pairs(
    rng: np.random.Generator, raw: np.ndarray, domains: np.ndarray, effects: np.ndarray, replicates: int
) -> tuple[np.ndarray, np.ndarray]:
    """(systems[R, 2], exchange[R, N]) of ``replicates`` tilted pairs (module docstring) with the expected
    difference ``effects[D]`` per domain: each pair drawn uniformly among the ordered pairs of distinct systems
    whose mean absolute difference ``m_d`` (:func:`mean_absolute_differences`) is at least ``|effects[d]|`` in
    every domain; the first pseudo-system gets the item's higher score with probability
    ``(1 + effects[d] / m_d) / 2``. Equal scores, and items not rated for both, are exchanged by a fair coin."""
    n_systems = raw.shape[0]
    m = mean_absolute_differences(raw, domains)
    feasible = (m >= np.abs(effects)[None, None, :]).all(axis=2) & ~np.eye(n_systems, dtype=bool)
    candidates = np.argwhere(feasible)
    if len(candidates) == 0:
        size = np.abs(effects)
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = np.where(size > 0, m / size, np.inf).min(axis=2)  # the largest multiple each pair carries
        scale[np.eye(n_systems, dtype=bool)] = np.nan
        raise InputError(
            f"no pair of systems differs by at least {size.round(3).tolist()} points per domain on average "
            f"(|difference| per item): the largest planted effect the data can carry is "
            f"{np.nanmax(scale) * size.max():.3f} (largest |e_d|)"
        )
    systems = candidates[rng.integers(0, len(candidates), replicates)]
    first, second = raw[systems[:, 0]], raw[systems[:, 1]]
    m_pair = m[systems[:, 0], systems[:, 1]]  # [R, D]
    higher_gets = rng.random(first.shape) < (1 + effects[None, :] / m_pair)[:, domains] / 2
    fair = rng.random(first.shape) < 0.5
    first_is_higher = np.where(first == second, fair, first > second)
    comparable = ~np.isnan(first) & ~np.isnan(second) & (first != second)
    exchange = np.where(comparable, higher_gets != first_is_higher, fair)
    return systems, exchange


# --------------------------------------------------------------------------------------------------------------
# Scoring decisions


def pair_decisions(arrays: RankingArrays) -> np.ndarray:
    """``[R]``: the decision on the two pseudo-systems (:func:`mtsig.stats.system_ranking.pair_decisions`): +1 when
    the first system is declared better (only), -1 the second (only), 2 both, 0 neither."""
    return decisions_of_pairs(arrays.beats[:, 0, 1], arrays.beats[:, 1, 0])


def cluster_outcomes(arrays: RankingArrays, tiers: np.ndarray) -> dict[str, np.ndarray]:
    """Per replicate ``[R]`` bool: the clusters equal the tiers (``cluster == tier + 1``: same partition, same order);
    some pair of one tier declared different; some system declared better than one of a better tier."""
    same = (tiers[:, None] == tiers[None, :]) & ~np.eye(len(tiers), dtype=bool)
    worse = tiers[:, None] > tiers[None, :]  # i in a worse tier than j
    return {
        MATCH: (arrays.cluster == tiers[None, :] + 1).all(axis=1),
        TIE_SPLIT: (arrays.beats & same[None]).any(axis=(1, 2)),
        WRONG_ORDER: (arrays.beats & worse[None]).any(axis=(1, 2)),
    }


def procedure_ranges(arrays: RankingArrays) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """A procedure's two kinds of range, each (lower[R, S], upper[R, S]): its rank range, and the positions its
    cluster spans (:func:`~mtsig.studies.ranking_calibration_ranges.cluster_ranges`)."""
    return {
        ranges.RANK_RANGE: (arrays.top_rank, arrays.worst_rank),
        ranges.CLUSTER_RANGE: ranges.cluster_ranges(arrays.cluster),
    }


def rate_row(
    *,
    lp: str,
    procedure: str,
    spec: ProcedureSpec | ranges.RankSetMethod,
    kind: str,
    effect: float,
    mean_difference: float,
    measure: str,
    count: int,
    trials: int,
    nominal: float = float("nan"),
    range_kind: str = "",
    values: np.ndarray | None = None,
) -> dict[str, object]:
    """One row of the table: the count, its rate and 95% Clopper-Pearson interval
    (:func:`mtsig.stats.intervals.clopper_pearson`); for a mean (``values[R]``, each replicate's value), its
    normal interval (:func:`~mtsig.studies.ranking_calibration_ranges.mean_interval`). ``range_kind``: the kind of
    range the measure scores (empty for the others)."""
    low, high = clopper_pearson(count, trials) if values is None else ranges.mean_interval(values)
    return {
        "lp": lp,
        "procedure": procedure,
        "kind": kind,
        "effect": float(effect),
        "range": range_kind,
        "measure": measure,
        "count": int(count),
        "trials": int(trials),
        "rate": count / trials,
        "ci_low": low,
        "ci_high": high,
        "nominal": nominal,
        "mean_difference": mean_difference,
        "alpha": spec.alpha,
        "resamples": spec.resamples,
    }


# --------------------------------------------------------------------------------------------------------------
# The study


@dataclass(frozen=True)
class Condition:
    """One simulated condition: its kind and effect, the arrays ``{"raw", "z"}`` ``[R, S, N]``, the realised mean
    difference (module docstring) and, for ranked sets, each pseudo-system's tier."""

    kind: str
    effect: float
    scores: Mapping[str, np.ndarray]
    mean_difference: float
    tiers: np.ndarray | None = None


def _pair_condition(
    items: CalibrationItems, kind: str, effect: float, systems: np.ndarray, exchange: np.ndarray
) -> Condition:
    """The :class:`Condition` of two pseudo-systems per replicate: ``systems[R, 2]``'s raw and z scores exchanged
    where ``exchange[R, N]`` (:func:`exchanged_pairs`), and their mean difference of macro averages."""
    scores = {
        "raw": exchanged_pairs(items.raw, systems, exchange),
        "z": exchanged_pairs(items.z, systems, exchange),
    }
    macro = domain_macro_average(scores["raw"], items.domains)
    return Condition(kind, effect, scores, float(np.nanmean(macro[:, 0] - macro[:, 1])))


def pair_conditions(
    items: CalibrationItems, design: HumanRankingCalibration, seed: int, lp: str
) -> list[Condition]:
    """The null pairs (per exchange unit), tilted and heterogeneous alternatives of one language pair, each from
    its own draws ``rng_for(seed, "human_ranking_calibration", lp, kind, effect)``."""
    n_systems, n_items = items.raw.shape
    units = {"item": np.arange(n_items), "document": items.documents}
    n_domains = int(items.domains.max()) + 1
    conditions = []
    for unit in design.exchange_units:
        rng = rng_for(seed, "human_ranking_calibration", lp, NULL_KIND[unit], 0.0)
        systems = random_system_pairs(rng, n_systems, design.null_pairs)
        exchange = exchange_mask(rng, design.null_pairs, units[unit])
        conditions.append(_pair_condition(items, NULL_KIND[unit], 0.0, systems, exchange))
    alternatives = [(SHIFT, delta, np.full(n_domains, delta)) for delta in design.shifts]
    if design.heterogeneous_shifts:
        pattern = balanced_domain_effects(items.domains)
        alternatives += [(HETEROGENEOUS, h, h * pattern) for h in design.heterogeneous_shifts]
    for kind, effect, per_domain in alternatives:
        rng = rng_for(seed, "human_ranking_calibration", lp, kind, effect)
        systems, exchange = tilted_pairs(rng, items.raw, items.domains, per_domain, design.alternative_pairs)
        conditions.append(_pair_condition(items, kind, effect, systems, exchange))
    return conditions


#: The designs of the ranked sets, by kind: (exchange unit, allocation) (module docstring).
CLUSTER_DESIGNS = {
    CLUSTERS: ("item", "all"),
    "clusters_document": ("document", "all"),
    "clusters_fixed": ("item", "fixed"),
    "clusters_dynamic": ("item", "dynamic"),
    "clusters_document_fixed": ("document", "fixed"),
    "clusters_document_dynamic": ("document", "dynamic"),
}


def _tier_gap(raw: np.ndarray, domains: np.ndarray, tiers: np.ndarray) -> float:
    """The realised difference of adjacent tiers' mean macro averages, averaged over the replicates."""
    macro = domain_macro_average(raw, domains)  # [R, K]
    per_tier = np.stack([macro[:, tiers == t].mean(axis=1) for t in range(tiers.max() + 1)], axis=1)
    return float(np.nanmean(per_tier[:, :-1] - per_tier[:, 1:]))


def _allocated(
    full: Mapping[str, np.ndarray],
    items: CalibrationItems,
    design: HumanRankingCalibration,
    rng: np.random.Generator,
    allocation: str,
) -> dict[str, np.ndarray]:
    """The scores of the cells an allocation rates (NaN elsewhere): ``fixed`` or ``dynamic``, both rating
    ``allocation_budget`` of the documents' worth of (system, document) cells
    (:mod:`mtsig.studies.ranking_calibration_designs`)."""
    if allocation == "all":
        return dict(full)
    replicates, n_systems, _ = full["raw"].shape
    n_documents = designs.unit_codes(items.documents)[1]
    per_system = designs.documents_rated(design.allocation_budget, n_documents)
    if allocation == "fixed":
        rated = designs.fixed_allocation(rng, replicates, n_systems, n_documents, per_system)
    else:
        rule = designs.DynamicRule(
            design.dynamic_models, design.dynamic_coldstart, design.dynamic_coldstart_pool
        )
        rated = designs.dynamic_allocation(rng, full["raw"], items.documents, n_systems * per_system, rule)
    return {scale: designs.rated_scores(values, rated, items.documents) for scale, values in full.items()}


def cluster_conditions(
    items: CalibrationItems, design: HumanRankingCalibration, seed: int, lp: str
) -> list[Condition]:
    """The ranked sets of one language pair, one per kind of ``cluster_designs`` (:data:`CLUSTER_DESIGNS`): items
    handed out from ``rng_for(seed, "human_ranking_calibration", lp, "clusters", sorting)`` (:func:`ranked_sets`),
    whole documents from the key ``"clusters_document"``
    (:func:`~mtsig.studies.ranking_calibration_designs.ranked_units`); the allocations of a budget from the key
    ``(lp, kind, "allocation")``, applied to the same scores as the unit's full design."""
    tiers = tiers_of(design.cluster_tiers)
    columns = np.arange(items.raw.shape[1])[None, None, :]
    conditions = []
    for unit in ("item", "document"):
        kinds = [k for k in design.cluster_designs if CLUSTER_DESIGNS[k][0] == unit]
        if not kinds:
            continue
        base = CLUSTERS if unit == "item" else "clusters_document"
        rng = rng_for(seed, "human_ranking_calibration", lp, base, design.cluster_sorting)
        if unit == "item":
            chosen = ranked_sets(rng, items.raw, tiers, design.cluster_sorting, design.cluster_sets)
        else:
            chosen = designs.ranked_units(
                rng, items.raw, tiers, design.cluster_sorting, design.cluster_sets, items.documents
            )
        full = {"raw": items.raw[chosen, columns], "z": items.z[chosen, columns]}
        gap = _tier_gap(full["raw"], items.domains, tiers)
        for kind in kinds:
            rng = rng_for(seed, "human_ranking_calibration", lp, kind, "allocation")
            scores = _allocated(full, items, design, rng, CLUSTER_DESIGNS[kind][1])
            conditions.append(Condition(kind, design.cluster_sorting, scores, gap, tiers))
    return conditions


def _run(spec: ProcedureSpec, condition: Condition, items: CalibrationItems, seed: int) -> RankingArrays:
    """One procedure on one condition; every pseudo-system keeps the real columns, so each column's segment,
    domain and document are the real data's (a procedure that exchanges whole documents uses the real documents)."""
    scale = condition.scores[spec.scale]
    return spec.run(
        scale,
        items.segments,
        items.domains,
        alpha=spec.alpha,
        seed=seed,
        n_resamples=spec.resamples,
        documents=items.documents,
    )


def condition_rows(
    procedure: str,
    spec: ProcedureSpec,
    condition: Condition,
    items: CalibrationItems,
    *,
    seed: int,
    lp: str,
    flips: bool,
) -> list[dict[str, object]]:
    """The rows of one procedure on one condition (the measures that apply to its kind); the procedure's seeds
    ``derive_seed(seed, "human_ranking_calibration", lp, kind, effect, procedure, "first" | "second")``."""
    key = ("human_ranking_calibration", lp, condition.kind, condition.effect, procedure)
    arrays = _run(spec, condition, items, derive_seed(seed, *key, "first"))
    row = partial(
        rate_row,
        lp=lp,
        procedure=procedure,
        spec=spec,
        kind=condition.kind,
        effect=condition.effect,
        mean_difference=condition.mean_difference,
        trials=arrays.beats.shape[0],
    )
    if condition.tiers is not None:
        outcomes = cluster_outcomes(arrays, condition.tiers)
        rows = [row(measure=measure, count=int(hit.sum())) for measure, hit in outcomes.items()]
        return rows + range_rows(row, procedure_ranges(arrays), condition.tiers)
    decisions = pair_decisions(arrays)
    nominal = nominal_rate(spec) if condition.kind in NO_DIFFERENCE else float("nan")
    rows = [row(measure=DECLARED, count=int((decisions != 0).sum()), nominal=nominal)]
    if condition.kind == SHIFT:
        rows.append(row(measure=CORRECT, count=int((decisions == 1).sum())))
        rows.append(row(measure=WRONG, count=int(np.isin(decisions, (-1, 2)).sum())))
    if flips and spec.resamples > 0:
        again = pair_decisions(_run(spec, condition, items, derive_seed(seed, *key, "second")))
        rows.append(row(measure=FLIP, count=int((again != decisions).sum())))
    return rows


#: The measures a rank set guarantees at its coverage (docs/statistics.md): the nominal rate of each kind of set.
GUARANTEED = {
    ranges.SIMULTANEOUS: (
        ranges.COVERS,
        ranges.COVERS_ALL,
        ranges.CONTAINS,
        ranges.CONTAINS_ALL,
        ranges.BEST_FIRST,
    ),
    ranges.MARGINAL: (ranges.COVERS, ranges.CONTAINS, ranges.BEST_FIRST),
}


def range_rows(
    row: partial,
    kinds: Mapping[str, tuple[np.ndarray, np.ndarray]],
    tiers: np.ndarray,
    coverage: float | None = None,
) -> list[dict[str, object]]:
    """The rows of every measure of each kind of range (``kinds``: range kind -> (lower[R, K], upper[R, K])), by
    :func:`~mtsig.studies.ranking_calibration_ranges.range_outcomes`; ``coverage``: a rank set's, the nominal rate
    of the measures it guarantees (:data:`GUARANTEED`)."""
    rows = []
    for range_kind, (lower, upper) in kinds.items():
        for measure, outcome in ranges.range_outcomes(lower, upper, tiers).items():
            nominal = (
                coverage
                if coverage is not None and measure in GUARANTEED.get(range_kind, ())
                else float("nan")
            )
            rows.append(
                row(
                    measure=measure,
                    count=outcome.count,
                    trials=outcome.trials,
                    values=outcome.values,
                    range_kind=range_kind,
                    nominal=nominal,
                )
            )
    return rows


def rank_set_methods(design: HumanRankingCalibration) -> list[ranges.RankSetMethod]:
    """The rank sets the design calibrates: one per bootstrap unit of ``rank_sets``."""
    return [
        ranges.RankSetMethod(units, 1 - design.rank_set_coverage, design.rank_set_draws)
        for units in design.rank_sets
    ]


def rank_set_rows(
    method: ranges.RankSetMethod, condition: Condition, items: CalibrationItems, *, seed: int, lp: str
) -> list[dict[str, object]]:
    """The rows of the simultaneous and marginal rank sets of one ranked-set condition, from item scores with the
    bootstrap of ``method.units`` (items, or the real documents), draws ``rng_for(seed,
    "human_ranking_calibration", lp, kind, effect, method.name)``."""
    units = np.arange(items.raw.shape[1]) if method.units == "items" else items.documents
    rng = rng_for(seed, "human_ranking_calibration", lp, condition.kind, condition.effect, method.name)
    bounds = ranges.rank_set_bounds(rng, condition.scores["raw"], units, method.resamples, 1 - method.alpha)
    row = partial(
        rate_row,
        lp=lp,
        procedure=method.name,
        spec=method,
        kind=condition.kind,
        effect=condition.effect,
        mean_difference=condition.mean_difference,
    )
    kinds = {ranges.SIMULTANEOUS: bounds.simultaneous, ranges.MARGINAL: bounds.marginal}
    return range_rows(row, kinds, condition.tiers, 1 - method.alpha)


@dataclass(frozen=True)
class RankingCalibration:
    """The study's table (:data:`RESULT_COLUMNS`, one row per language pair, procedure, condition and measure) and
    the CPU seconds each procedure took over all conditions (for the log; not part of the table)."""

    table: pd.DataFrame
    cpu_seconds: Mapping[str, float]


def ranking_calibration(
    ratings: pd.DataFrame, design: HumanRankingCalibration, *, seed: int, source: str = "ratings"
) -> RankingCalibration:
    """Error rates of every procedure of ``design.procedures`` (:data:`CALIBRATED`) with known truth, for every
    language pair of ``design.language_pairs`` in ``ratings`` (columns ``lp, system, item, score, rater`` and
    ``wave, doc, domain``: :attr:`mtsig.io.esa.EsaExport.ratings`). Module docstring: the constructions and
    measures."""
    unknown = [p for p in design.procedures if p not in CALIBRATED]
    if unknown:
        raise InputError(f"unknown procedure(s) {', '.join(unknown)}; known: {', '.join(CALIBRATED)}")
    present = set(ratings["lp"])
    missing = [lp for lp in design.language_pairs if lp not in present]
    if missing:
        raise InputError(
            f"no ratings of language pair(s) {', '.join(missing)}; the ratings have {', '.join(sorted(present))}",
            source,
        )
    rows: list[dict[str, object]] = []
    methods = rank_set_methods(design) if design.cluster_sets > 0 else []
    cpu: dict[str, float] = dict.fromkeys([*design.procedures, *(m.name for m in methods)], 0.0)
    for lp in design.language_pairs:
        items = calibration_items(ratings[ratings["lp"] == lp], source)
        started = time.process_time()
        conditions = pair_conditions(items, design, seed, lp)
        if design.cluster_sets > 0:
            conditions += cluster_conditions(items, design, seed, lp)
        cpu["constructions"] = cpu.get("constructions", 0.0) + time.process_time() - started
        for procedure in design.procedures:
            spec = CALIBRATED[procedure]
            started = time.process_time()
            for condition in conditions:
                rows += condition_rows(
                    procedure, spec, condition, items, seed=seed, lp=lp, flips=design.flips
                )
            cpu[procedure] += time.process_time() - started
        for method in methods:
            started = time.process_time()
            for condition in (c for c in conditions if c.tiers is not None):
                rows += rank_set_rows(method, condition, items, seed=seed, lp=lp)
            cpu[method.name] += time.process_time() - started
    return RankingCalibration(pd.DataFrame(rows, columns=RESULT_COLUMNS), cpu)
