"""Rank ranges scored against planted tiers, and the rank sets of :mod:`mtsig.stats.rank_sets` computed for many
replicates at once (the human-ranking calibration, :mod:`mtsig.studies.ranking_calibration`; docs/statistics.md,
"Coverage of rank ranges and rank sets").

**The true rank of a tied tier.** The ranked sets plant tiers of tied systems: a system of tier t has every position
``best_t .. worst_t`` of its tier as a possible rank in a ranking that breaks the ties. The rank of Mogstad, Romano,
Shaikh & Wilhelm (2023) and csranks (``irank``) is ``1 + #{k : θ_k > θ_j}``, so a tier's systems all have the tier's
best position ``best_t``. A range ``[lower, upper]`` *covers* a system when ``lower <= best_t <= upper``, the event a
rank set guarantees, and *contains* it when ``lower <= best_t`` and ``upper >= worst_t``: every rank a tie-breaking
could give. The rank sets guarantee both (a set built from simultaneously valid bounds on the differences never
declares a tied pair different, so it counts no tied system as surely better or surely worse).

**Rank sets for many replicates** (:func:`rank_set_bounds`): for each replicate the nonparametric bootstrap of
:func:`mtsig.stats.rank_sets.problem_from_item_scores` (units, items or whole documents, drawn with replacement, the
same for every system; each system's mean over the rated items of the drawn units), then the max-t stepdown of
:func:`mtsig.stats.rank_sets.pairwise_bounds` with its defaults (two-sided, the stepdown, R's type-7 quantile), for
the simultaneous set (one family, every ordered pair) and the marginal sets (one family per system, its pairs
both ways) of every system. The arithmetic is the library's, replicate by replicate, with the replicates stacked:
given the same resampled means the bounds are the library's (tests/test_ranking_calibration.py). A replicate draws
its own units (no draw is shared between replicates).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from mtsig.errors import InputError
from mtsig.stats.rank_sets import CONSTANT_DIFFERENCE
from mtsig.stats.rank_sets.pairwise import quantile_type7
from mtsig.studies.ranking_calibration_designs import unit_codes, unit_totals

COVERS = "covers"
COVERS_ALL = "covers_all"
CONTAINS = "contains"
CONTAINS_ALL = "contains_all"
WIDTH = "mean_width"
BEST_FIRST = "best_could_be_first"
FIRST_SIZE = "first_set_size"
WRONG_FIRST = "wrong_winner"
#: The measures of a range kind, in output order; the last three but one are means, not rates.
RANGE_MEASURES = (COVERS, COVERS_ALL, CONTAINS, CONTAINS_ALL, WIDTH, BEST_FIRST, FIRST_SIZE, WRONG_FIRST)
MEANS = (WIDTH, FIRST_SIZE)

#: The kinds of range: a procedure's rank range and the positions its cluster spans; a rank set's.
RANK_RANGE = "rank_range"
CLUSTER_RANGE = "cluster_range"
SIMULTANEOUS = "simultaneous"
MARGINAL = "marginal"
#: The bootstrap units of the rank sets calibrated.
RANK_SET_UNITS = ("items", "documents")

# Work values (float64) per chunk of replicates of the bootstrap and of the stepdown (32 MB).
_CHUNK_VALUES = 4_000_000


@dataclass(frozen=True)
class RankSetMethod:
    """The rank sets from item scores with the bootstrap of ``units`` (``"items"`` or ``"documents"``),
    ``resamples`` draws, coverage ``1 - alpha``; ``name`` is its procedure name in the table."""

    units: str
    alpha: float
    resamples: int

    @property
    def name(self) -> str:
        """``rank_sets_items`` or ``rank_sets_documents``."""
        return f"rank_sets_{self.units}"


def tier_positions(tiers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(best[K], worst[K]): the first and last position of each system's tier (``tiers[K]``, 0 the best)."""
    sizes = np.bincount(tiers)
    ends = np.cumsum(sizes)
    return (1 + ends - sizes)[tiers], ends[tiers]


def cluster_ranges(cluster: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(top[R, S], worst[R, S]): the positions each system's cluster spans (``cluster[R, S]``, 1 the best):
    ``1 + #{systems in better clusters}`` to ``#{systems in its cluster or better}``."""
    better = (cluster[:, None, :] < cluster[:, :, None]).sum(axis=2)
    at_most = (cluster[:, None, :] <= cluster[:, :, None]).sum(axis=2)
    return 1 + better, at_most


@dataclass(frozen=True)
class Outcome:
    """One measure over the replicates: ``count`` out of ``trials`` (a rate), or for a mean (:data:`MEANS`) the
    sum of ``values[R]`` (each replicate's value) over ``trials`` = R x the values each sums."""

    count: int
    trials: int
    values: np.ndarray | None = None


def range_outcomes(lower: np.ndarray, upper: np.ndarray, tiers: np.ndarray) -> dict[str, Outcome]:
    """The measures of ranges ``[lower, upper]`` (``[R, K]``) against the tiers (module docstring): ``covers``
    and ``contains`` per (replicate, system), their ``_all`` forms per replicate, the mean width (``upper - lower +
    1``), whether every system of the best tier could be first (``lower == 1``), how many systems could be, and
    whether a system of another tier is declared first alone (``lower == upper == 1``)."""
    best, worst = tier_positions(tiers)
    replicates, n = lower.shape
    covers = (lower <= best) & (upper >= best)
    contains = (lower <= best) & (upper >= worst)
    width = (upper - lower + 1).astype(np.float64)
    first = lower == 1
    return {
        COVERS: Outcome(int(covers.sum()), covers.size),
        COVERS_ALL: Outcome(int(covers.all(axis=1).sum()), replicates),
        CONTAINS: Outcome(int(contains.sum()), contains.size),
        CONTAINS_ALL: Outcome(int(contains.all(axis=1).sum()), replicates),
        WIDTH: Outcome(int(width.sum()), width.size, width.mean(axis=1)),
        BEST_FIRST: Outcome(int(first[:, tiers == 0].all(axis=1).sum()), replicates),
        FIRST_SIZE: Outcome(int(first.sum()), replicates, first.sum(axis=1).astype(np.float64)),
        WRONG_FIRST: Outcome(
            int((first & (upper == 1) & (tiers != 0)[None, :]).any(axis=1).sum()), replicates
        ),
    }


def mean_interval(values: np.ndarray) -> tuple[float, float]:
    """The normal 95% interval of the mean of ``values`` (``mean ± 1.96 sd / sqrt(R)``, sd with ddof 1)."""
    if len(values) < 2:
        return float("nan"), float("nan")
    half = 1.959963984540054 * values.std(ddof=1) / np.sqrt(len(values))
    return float(values.mean() - half), float(values.mean() + half)


# ------------------------------------------------------------------------------------------ batched rank sets


def _chunks(replicates: int, per_replicate: int) -> Iterator[slice]:
    """Slices of the replicate axis of about :data:`_CHUNK_VALUES` work values each."""
    size = max(1, _CHUNK_VALUES // max(per_replicate, 1))
    for start in range(0, replicates, size):
        yield slice(start, min(start + size, replicates))


def _multinomial_weights(rng: np.random.Generator, replicates: int, n_draws: int, n_units: int) -> np.ndarray:
    """``[R, B, G]``: how often each unit is drawn in each of ``n_draws`` draws of ``n_units`` units with
    replacement, for each replicate."""
    picks = rng.integers(0, n_units, size=(replicates, n_draws, n_units))
    flat = (picks + (np.arange(replicates * n_draws) * n_units).reshape(replicates, n_draws, 1)).ravel()
    counts = np.bincount(flat, minlength=replicates * n_draws * n_units)
    return counts.reshape(replicates, n_draws, n_units).astype(np.float64)


def bootstrap_means(
    rng: np.random.Generator, scores: np.ndarray, units: np.ndarray, n_draws: int
) -> tuple[np.ndarray, np.ndarray]:
    """(estimates[R, K], resampled[R, B, K]): each system's mean over its rated items, and the same in ``n_draws``
    paired bootstrap draws of the units (``units[N]``: each item's unit) per replicate. A draw that leaves a system
    without a rated item is an :class:`~mtsig.errors.InputError` (as in the library)."""
    codes, n_units = unit_codes(units)
    sums, counts = unit_totals(scores, codes, n_units)  # [R, K, G]
    estimates = sums.sum(axis=2) / counts.sum(axis=2)
    replicates, n_systems, _ = sums.shape
    resampled = np.empty((replicates, n_draws, n_systems))
    for part in _chunks(replicates, n_draws * (n_units + n_systems) * 2):
        weights = _multinomial_weights(rng, part.stop - part.start, n_draws, n_units)
        with np.errstate(invalid="ignore", divide="ignore"):
            resampled[part] = (weights @ sums[part].transpose(0, 2, 1)) / (
                weights @ counts[part].transpose(0, 2, 1)
            )
    if np.isnan(resampled).any():
        raise InputError(
            "a bootstrap draw left a system without a rated item: too few rated units for the rank sets"
        )
    return estimates, resampled


def _pair_scales(centred: np.ndarray) -> np.ndarray:
    """``σ_ab [R, K, K]``: the standard deviation of the resampled differences of every pair (the library's:
    ``var_a + var_b - 2 cov_ab`` of the symmetrised sample covariance, below :data:`CONSTANT_DIFFERENCE` of the
    largest set to 0)."""
    deviations = centred - centred.mean(axis=1, keepdims=True)
    covariance = deviations.transpose(0, 2, 1) @ deviations / (centred.shape[1] - 1)
    covariance = (covariance + covariance.transpose(0, 2, 1)) / 2
    variances = np.diagonal(covariance, axis1=1, axis2=2)
    sds = np.sqrt(np.maximum(variances[:, :, None] + variances[:, None, :] - 2 * covariance, 0.0))
    return np.where(sds < CONSTANT_DIFFERENCE * sds.max(axis=(1, 2), keepdims=True), 0.0, sds)


def _stepdown(
    standardised: np.ndarray,
    differences: np.ndarray,
    scales: np.ndarray,
    families: np.ndarray,
    coverage: float,
) -> np.ndarray:
    """``rejected[R, F, P]``: the ordered pairs whose lower bound ``Δ - σ c`` ends above 0 in each family
    (``families[F, P]``), by the max-t stepdown of :func:`mtsig.stats.rank_sets.pairwise_bounds` (two-sided sets
    with the stepdown bound both orderings from below). ``standardised[R, B, P]``: ``T*``; ``differences``,
    ``scales``: ``[R, P]``."""
    replicates, n_draws, _ = standardised.shape
    active = np.broadcast_to(families[None], (replicates, *families.shape)).copy()
    rejected = np.zeros_like(active)
    running = active.any(axis=2)
    while running.any():
        maxima = np.where(active[:, :, None, :], standardised[:, None, :, :], -np.inf).max(axis=3)
        with np.errstate(invalid="ignore"):
            critical = quantile_type7(maxima.reshape(-1, n_draws), coverage).reshape(running.shape)
        lower = differences[:, None, :] - scales[:, None, :] * critical[:, :, None]
        now = active & running[:, :, None] & (lower > 0)
        rejected |= now
        left = active & ~now
        running &= (now.any(axis=2)) & left.any(axis=2)
        active = left
    return rejected


@dataclass(frozen=True)
class RankSetBounds:
    """Rank sets of every system of every replicate: ``simultaneous`` and ``marginal``, each (lower[R, K],
    upper[R, K])."""

    simultaneous: tuple[np.ndarray, np.ndarray]
    marginal: tuple[np.ndarray, np.ndarray]


def stepdown_rank_sets(estimates: np.ndarray, resampled: np.ndarray, coverage: float) -> RankSetBounds:
    """The two-sided simultaneous and marginal rank sets with the stepdown (module docstring) of ``estimates[R,
    K]`` given their bootstrap draws ``resampled[R, B, K]``."""
    replicates, n_draws, n = resampled.shape
    first, second = np.nonzero(~np.eye(n, dtype=bool))  # the ordered pairs (a, b)
    systems = np.arange(n)[:, None]
    own = (first[None, :] == systems) | (second[None, :] == systems)  # [K, P]: each system's pairs, both ways
    families = np.concatenate([np.ones((1, len(first)), dtype=bool), own])  # the simultaneous family first
    # [P, K]: the pair (a, b) rejected puts k = b below someone (a surely better), k = a above someone
    as_second = (second[:, None] == np.arange(n)[None, :]).astype(np.int64)
    as_first = (first[:, None] == np.arange(n)[None, :]).astype(np.int64)
    lower = np.empty((replicates, 1 + n, n), dtype=np.int64)
    upper = np.empty_like(lower)
    for part in _chunks(replicates, n_draws * len(first) * (3 + n)):
        centred = resampled[part] - estimates[part][:, None, :]
        sds = _pair_scales(centred)
        scales = sds[:, first, second]  # [r, P]
        safe = np.where(scales > 0, scales, np.inf)
        standardised = (centred[:, :, first] - centred[:, :, second]) / safe[:, None, :]
        differences = estimates[part][:, first] - estimates[part][:, second]
        rejected = _stepdown(standardised, differences, scales, families, coverage).astype(np.int64)
        lower[part] = 1 + rejected @ as_second
        upper[part] = n - rejected @ as_first
    marginal_lower = np.diagonal(lower[:, 1:], axis1=1, axis2=2)
    marginal_upper = np.diagonal(upper[:, 1:], axis1=1, axis2=2)
    return RankSetBounds((lower[:, 0], upper[:, 0]), (marginal_lower.copy(), marginal_upper.copy()))


def rank_set_bounds(
    rng: np.random.Generator, scores: np.ndarray, units: np.ndarray, n_draws: int, coverage: float
) -> RankSetBounds:
    """The rank sets of ``scores[R, K, N]`` (NaN: not rated) with ``n_draws`` bootstrap draws of the ``units[N]``
    (each item's unit: its own index for the item bootstrap, its document for the document bootstrap)."""
    estimates, resampled = bootstrap_means(rng, scores, units, n_draws)
    return stepdown_rank_sets(estimates, resampled, coverage)
