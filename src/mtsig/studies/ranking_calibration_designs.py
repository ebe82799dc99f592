"""Designs of the ranked sets of the human-ranking calibration (:mod:`mtsig.studies.ranking_calibration`): which real
score each pseudo-system gets, by item or by whole document, and which of its (system, document) cells a human
evaluation rates, all of them, a fixed share, or Pearmut's dynamic allocation, which WMT26 used.

* :func:`ranked_units`: the ranked sets of :func:`~mtsig.studies.ranking_calibration.ranked_sets` with a unit
  (an item, or a whole document) as what is handed out: every item of a document goes to the pseudo-system its
  document went to, so the ratings' within-document dependence (one rater scores one system's document in ESA) stays
  with it. When sorting, a document is handed out by its mean.
* :func:`fixed_allocation`: every system rated on the same documents, the first ``d`` of a random campaign order.
* :func:`dynamic_allocation`: Pearmut's ``get_next_item_dynamic`` (zouharvi/pearmut, ``pearmut/assignment.py`` of
  release 1.1.6, the settings of WMT26's campaigns in wmt-conference/wmt26-general-mt@1fa5211
  ``humeval/01-prepare_campaigns.py``: ``dynamic_models`` 3, ``dynamic_coldstart`` 20, ``dynamic_coldstart_pool``
  20). Each request rates one document for ``models`` systems. While some system has fewer than ``coldstart`` rated
  documents (the cold start), the systems are drawn uniformly among those (others at random to fill), and the
  document is sought among the first ``coldstart_pool`` of the campaign order only. Afterwards each system that has
  not rated every document gets the weight ``1 / (rank + 1)`` of the rank of its running mean (best first, ties in a
  random order; the best gets ``1/2``, as the second: "make the two top performers have equal weight"), and
  ``models`` of them are drawn without replacement in proportion to it (``np.random.choice(..., replace=False,
  p=...)``). The document is the first in campaign order with the most of the drawn systems still unrated there;
  when none is unrated for them Pearmut answers nothing, and here the replicate stops. A request after the budget
  rates only as many (system, document) cells as the budget has left, so both designs rate the same number.

Every function is vectorised over replicates; :func:`dynamic_allocation` loops over requests, each one request of
every replicate at once. The weighted draw without replacement is the Gumbel top-k (the ``models`` largest of
``log w + G``, G standard Gumbel), which has the distribution of successive draws in proportion to the weights
among those not yet drawn, numpy's ``choice(replace=False, p=...)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mtsig.errors import InputError


@dataclass(frozen=True)
class DynamicRule:
    """Pearmut's dynamic allocation (module docstring): ``models`` systems per request, the cold start of
    ``coldstart`` documents per system, sought among the first ``coldstart_pool`` documents."""

    models: int = 3
    coldstart: int = 20
    coldstart_pool: int = 20


def tiered_permutation(
    rng: np.random.Generator, n_systems: int, n_items: int, replicates: int, k: int
) -> np.ndarray:
    """``[R, K, N]``: for every replicate and item, the first ``k`` systems of a uniform random permutation of the
    ``n_systems``."""
    if k > n_systems:
        raise InputError(f"the ranked sets need {k} systems (the tiers' sizes) but the data has {n_systems}")
    permutation = np.argsort(rng.random((replicates, n_items, n_systems)), axis=-1)[..., :k]
    return permutation.transpose(0, 2, 1)


def tiers_of(sizes: Sequence[int]) -> np.ndarray:
    """Each pseudo-system's tier (0 the best), the tiers in order: ``[0] * sizes[0] + [1] * sizes[1] + ...``."""
    return np.repeat(np.arange(len(sizes)), sizes)


def ranked_sets(
    rng: np.random.Generator, raw: np.ndarray, tiers: np.ndarray, sorting: float, replicates: int
) -> np.ndarray:
    """``chosen[R, K, N]``: which real system's score each pseudo-system gets on each item (module docstring):
    :func:`tiered_permutation`, then on a fraction ``sorting`` of items (a coin each) the K scores handed out from
    the highest down to the tiers in order (``tiers[K]``, 0 the best), in a random order within each tier; equal
    scores keep the drawn (random) order."""
    n_systems, n_items = raw.shape
    chosen = tiered_permutation(rng, n_systems, n_items, replicates, len(tiers))
    scores = raw[chosen, np.arange(n_items)[None, None, :]]
    best_first = np.take_along_axis(chosen, np.argsort(-scores, axis=1, kind="stable"), axis=1)
    # The slots in hand-out order: by tier, in a random order within each tier.
    slots = np.argsort(tiers[None, :, None] + 0.5 * rng.random(chosen.shape), axis=1)
    handed_out = np.empty_like(chosen)
    np.put_along_axis(handed_out, slots, best_first, axis=1)
    return np.where((rng.random((replicates, n_items)) < sorting)[:, None, :], handed_out, chosen)


def unit_codes(units: np.ndarray) -> tuple[np.ndarray, int]:
    """(codes[N], G): each item's unit as 0 .. G-1, in the order of the sorted distinct units."""
    values, codes = np.unique(np.asarray(units), return_inverse=True)
    return codes.ravel(), len(values)


def unit_totals(scores: np.ndarray, codes: np.ndarray, n_units: int) -> tuple[np.ndarray, np.ndarray]:
    """(sums[..., G], counts[..., G]): the sum and number of the rated (non-NaN) scores ``[..., N]`` of each unit."""
    one_hot = (codes[:, None] == np.arange(n_units)[None, :]).astype(np.float64)
    rated = ~np.isnan(scores)
    return np.where(rated, scores, 0.0) @ one_hot, rated.astype(np.float64) @ one_hot


def ranked_units(
    rng: np.random.Generator,
    raw: np.ndarray,
    tiers: np.ndarray,
    sorting: float,
    replicates: int,
    units: np.ndarray,
) -> np.ndarray:
    """``chosen[R, K, N]``: which real system's score each pseudo-system gets on each item, whole units at a time
    (module docstring): per unit, K of the S systems in a uniform random order; on a fraction ``sorting`` of units
    (a coin each) the K units handed out by their mean score, the highest to the best tier (``tiers[K]``, 0 the
    best), in a random order within each tier (a unit without a rated score last)."""
    codes, n_units = unit_codes(units)
    sums, counts = unit_totals(raw, codes, n_units)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums / counts  # [S, G], NaN where the system rated nothing of the unit
    n_systems = raw.shape[0]
    chosen = tiered_permutation(rng, n_systems, n_units, replicates, len(tiers))  # [R, K, G]
    scores = means[chosen, np.arange(n_units)[None, None, :]]
    best_first = np.take_along_axis(chosen, np.argsort(-scores, axis=1, kind="stable"), axis=1)
    slots = np.argsort(tiers[None, :, None] + 0.5 * rng.random(chosen.shape), axis=1)
    handed_out = np.empty_like(chosen)
    np.put_along_axis(handed_out, slots, best_first, axis=1)
    by_unit = np.where((rng.random((replicates, n_units)) < sorting)[:, None, :], handed_out, chosen)
    return by_unit[:, :, codes]


def documents_rated(budget: float, n_documents: int) -> int:
    """The documents each system is rated on under :func:`fixed_allocation` (at least one): ``budget`` of them."""
    if not 0 < budget <= 1:
        raise InputError(f"the allocation budget must be in (0, 1], not {budget!r}")
    return max(1, round(budget * n_documents))


def fixed_allocation(
    rng: np.random.Generator, replicates: int, n_systems: int, n_documents: int, per_system: int
) -> np.ndarray:
    """``rated[R, K, G]``: every system rated on the first ``per_system`` documents of a random campaign order."""
    order = np.argsort(rng.random((replicates, n_documents)), axis=1)
    chosen = np.zeros((replicates, n_documents), dtype=bool)
    np.put_along_axis(chosen, order[:, :per_system], True, axis=1)
    return np.broadcast_to(chosen[:, None, :], (replicates, n_systems, n_documents)).copy()


def gumbel_keys(rng: np.random.Generator, weights: np.ndarray) -> np.ndarray:
    """``log w + G`` (G standard Gumbel) for positive ``weights[R, K]``: the indices of a row's ``m`` largest keys,
    largest first, are ``m`` draws without replacement in proportion to the weights (successive sampling), as
    numpy's ``choice(K, m, replace=False, p=w / sum(w))``."""
    return np.log(weights) - np.log(-np.log(rng.random(weights.shape)))


def _top(keys: np.ndarray, count: int) -> np.ndarray:
    """``[R, count]``: the indices of each row's ``count`` largest keys, the largest first."""
    return np.argsort(-keys, axis=1, kind="stable")[:, :count]


def _dynamic_choice(
    rng: np.random.Generator, rated: np.ndarray, sums: np.ndarray, counts: np.ndarray, rule: DynamicRule
) -> tuple[np.ndarray, np.ndarray]:
    """(selected[R, m], cold[R]): the systems of one request of every replicate (module docstring) and whether the
    replicate is in its cold start; ``rated[R, K, G]`` the cells rated so far, ``sums``/``counts`` each cell's."""
    replicates, n_systems, n_documents = rated.shape
    m = min(rule.models, n_systems)
    per_system = rated.sum(axis=2)
    cold = (per_system < rule.coldstart).any(axis=1)
    # cold start: uniform among the systems below the cold start, the others (in a random order) to fill
    u = rng.random((replicates, n_systems))
    cold_keys = np.where(per_system < rule.coldstart, 2.0 - u, 1.0 - u)
    # afterwards: 1/(rank+1) of the running mean among the unfinished systems (the best 1/2), Gumbel top-m
    with np.errstate(invalid="ignore", divide="ignore"):
        means = (np.where(rated, sums, 0.0).sum(axis=2)) / (np.where(rated, counts, 0.0).sum(axis=2))
    means = np.nan_to_num(means, nan=0.0)
    available = per_system < n_documents
    tie = rng.random((replicates, n_systems))
    order = np.lexsort((-tie, np.where(available, -means, np.inf)), axis=-1)
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(n_systems)[None, :], axis=1)
    weight = np.where(rank == 0, 0.5, 1.0 / (rank + 1.0))
    drawn = gumbel_keys(rng, weight)
    fill = rng.random((replicates, n_systems))
    dynamic_keys = np.where(available, drawn, -1e6 + fill)
    return _top(np.where(cold[:, None], cold_keys, dynamic_keys), m), cold


def dynamic_allocation(
    rng: np.random.Generator, scores: np.ndarray, units: np.ndarray, cells: int, rule: DynamicRule
) -> np.ndarray:
    """``rated[R, K, G]``: Pearmut's dynamic allocation (module docstring) of ``cells`` (system, document) cells
    of ``scores[R, K, N]`` (its running means), the documents ``units[N]``; one request of every replicate per
    round, in a random campaign order of the documents per replicate."""
    codes, n_documents = unit_codes(units)
    replicates, n_systems, _ = scores.shape
    if rule.coldstart > min(rule.coldstart_pool, n_documents):
        raise InputError(
            f"a cold start of {rule.coldstart} documents per system needs a pool of as many "
            f"(coldstart_pool {rule.coldstart_pool}, {n_documents} documents)"
        )
    sums, counts = unit_totals(scores, codes, n_documents)  # [R, K, G]
    # the campaign order: position p of replicate r holds document campaign[r, p]; all state by position
    campaign = np.argsort(rng.random((replicates, n_documents)), axis=1)
    sums = np.take_along_axis(sums, campaign[:, None, :], axis=2)
    counts = np.take_along_axis(counts, campaign[:, None, :], axis=2)
    rated = np.zeros((replicates, n_systems, n_documents), dtype=bool)
    total = np.zeros(replicates, dtype=np.int64)
    active = total < cells
    rows = np.arange(replicates)[:, None]
    in_pool = np.arange(n_documents) < rule.coldstart_pool
    while active.any():
        selected, cold = _dynamic_choice(rng, rated, sums, counts, rule)
        unrated = ~rated[rows, selected]  # [R, m, G]
        missing = np.where(cold[:, None] & ~in_pool[None, :], -1, unrated.sum(axis=1))
        document = np.argmax(missing, axis=1)  # the first of the most
        found = missing[np.arange(replicates), document] > 0
        new = unrated[rows, np.arange(selected.shape[1])[None, :], document[:, None]]
        allowed = new & (np.cumsum(new, axis=1) <= (cells - total)[:, None]) & (active & found)[:, None]
        which = np.broadcast_to(rows, selected.shape)[allowed]
        rated[which, selected[allowed], np.broadcast_to(document[:, None], selected.shape)[allowed]] = True
        total += allowed.sum(axis=1)
        active &= found & (total < cells)
    by_document = np.empty_like(rated)
    np.put_along_axis(by_document, campaign[:, None, :], rated, axis=2)
    return by_document


def rated_scores(scores: np.ndarray, rated: np.ndarray, units: np.ndarray) -> np.ndarray:
    """``scores[R, K, N]`` with NaN on every item of a (system, document) cell not rated (``rated[R, K, G]``)."""
    codes, _ = unit_codes(units)
    return np.where(rated[:, :, codes], scores, np.nan)
