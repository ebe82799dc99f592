"""The rank ranges of the human-ranking calibration against planted tiers (mtsig.studies.ranking_calibration_ranges,
_designs): the designs by their defining properties (whole documents handed out together, equal budgets, Pearmut's
cold start and its weights against successive sampling enumerated by hand), the batched rank sets against
mtsig.stats.rank_sets run replicate by replicate on the same draws (itself equal to csranks, tests/test_rank_sets.py),
the bootstrap against its exact distribution on two items, and the known truth: when documents carry the dependence,
the rank sets of a document bootstrap cover every true rank at their nominal rate, those of an item bootstrap do not.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import permutations

import numpy as np
import pytest
from test_ranking_calibration import design, synthetic_ratings

from mtsig.errors import InputError
from mtsig.stats.rank_sets import marginal_sets, problem_from_item_scores, simultaneous_sets
from mtsig.studies import ranking_calibration as rc
from mtsig.studies import ranking_calibration_designs as designs
from mtsig.studies import ranking_calibration_ranges as ranges

# ----------------------------------------------------------------------------------------------------- designs


def test_ranked_units_hand_out_whole_documents_in_tier_order_when_sorting() -> None:
    """Documents of 1-4 items: every item of a document goes to the same real system, K distinct systems per
    document, and with sorting 1 the tiers get the documents in the order of their means."""
    rng = np.random.default_rng(4)
    documents = np.repeat(np.arange(14), [1, 2, 3, 4] * 3 + [2, 2])  # 34 items
    raw = rng.normal(50, 10, (6, 34))
    tiers = np.array([0, 1, 1, 2])
    chosen = designs.ranked_units(np.random.default_rng(9), raw, tiers, 1.0, 25, documents)
    assert chosen.shape == (25, 4, 34)
    for g in range(14):
        block = chosen[:, :, documents == g]
        assert (block == block[:, :, :1]).all()
    assert all(len(set(chosen[r, :, 0])) == 4 for r in range(25))
    means = np.stack([raw[:, documents == g].mean(axis=1) for g in range(14)], axis=1)  # [S, G]
    first = np.array([np.flatnonzero(documents == g)[0] for g in range(14)])
    handed = means[chosen[:, :, first], np.arange(14)[None, None, :]]  # [R, K, G]
    assert (handed[:, 0] >= handed[:, 1:3].max(axis=1)).all()
    assert (handed[:, 1:3].min(axis=1) >= handed[:, 3]).all()


def test_fixed_allocation_rates_the_same_documents_for_every_system() -> None:
    rated = designs.fixed_allocation(np.random.default_rng(1), 50, 4, 30, 12)
    assert (rated.sum(axis=2) == 12).all()
    assert (rated == rated[:, :1]).all()
    assert designs.documents_rated(0.5, 85) == 42 and designs.documents_rated(0.001, 85) == 1
    with pytest.raises(InputError, match="budget"):
        designs.documents_rated(1.5, 85)


def test_gumbel_top_k_draws_successively_in_proportion_to_the_weights() -> None:
    """Pearmut's weights for five systems (1/2, 1/2, 1/3, 1/4, 1/5), three drawn: the probability that each is
    drawn, enumerated by hand over every ordered draw (each next one in proportion to the weights left), against
    the frequencies of the Gumbel top-3 over 40,000 draws (within 4 binomial sd)."""
    weights = np.array([1 / 2, 1 / 2, 1 / 3, 1 / 4, 1 / 5])
    exact = np.zeros(5)
    for draw in permutations(range(5), 3):
        p, left = 1.0, weights.sum()
        for k in draw:
            p *= weights[k] / left
            left -= weights[k]
        exact[list(draw)] += p
    assert exact.sum() == pytest.approx(3)
    keys = designs.gumbel_keys(np.random.default_rng(3), np.tile(weights, (40_000, 1)))
    top = np.argsort(-keys, axis=1)[:, :3]
    frequency = np.array([(top == k).any(axis=1).mean() for k in range(5)])
    assert np.abs(frequency - exact).max() < 4 * np.sqrt(0.25 / 40_000)
    first = np.bincount(top[:, 0], minlength=5) / 40_000
    assert np.abs(first - weights / weights.sum()).max() < 4 * np.sqrt(0.25 / 40_000)


def test_dynamic_allocation_keeps_the_budget_and_the_cold_start_and_favours_the_leaders() -> None:
    """Four systems a clear 20 points apart on 40 documents of 3 items, a budget of 60 cells, Pearmut's rule with
    2 systems per request and a cold start of 5 documents from a pool of 5: every replicate rates exactly 60 cells,
    every system at least its 5, and the leader, by the running means, far more documents than the last."""
    rng = np.random.default_rng(2)
    documents = np.repeat(np.arange(40), 3)
    scores = rng.normal(0, 5, (200, 4, 120)) + np.array([60.0, 40.0, 20.0, 0.0])[None, :, None]
    rule = designs.DynamicRule(models=2, coldstart=5, coldstart_pool=5)
    rated = designs.dynamic_allocation(np.random.default_rng(5), scores, documents, 60, rule)
    assert rated.shape == (200, 4, 40)
    assert (rated.sum(axis=(1, 2)) == 60).all()
    per_system = rated.sum(axis=2)
    assert (per_system >= 5).all()
    # after the cold start (20 cells) the weights are 1/2, 1/2, 1/3, 1/4: the two leaders share most requests
    assert per_system[:, 0].mean() > per_system[:, 3].mean() + 3
    masked = designs.rated_scores(scores, rated, documents)
    assert (np.isnan(masked).reshape(200, 4, 40, 3).all(axis=3) == ~rated).all()
    with pytest.raises(InputError, match="cold start"):
        designs.dynamic_allocation(rng, scores, documents, 60, designs.DynamicRule(2, 6, 5))


# ----------------------------------------------------------------------------------------------- rank sets


def test_batched_rank_sets_equal_the_librarys_on_the_same_draws() -> None:
    """Twelve replicates of five systems with unrated items: the simultaneous and marginal sets of every replicate
    equal simultaneous_sets and marginal_sets of mtsig.stats.rank_sets given the same resampled means."""
    rng = np.random.default_rng(3)
    scores = rng.normal(0, 1, (12, 5, 60)) + np.array([0.6, 0.3, 0.3, 0.0, 0.0])[None, :, None]
    scores[rng.random(scores.shape) < 0.1] = np.nan
    documents = np.repeat(np.arange(12), 5)
    estimates, resampled = ranges.bootstrap_means(np.random.default_rng(1), scores, documents, 400)
    bounds = ranges.stepdown_rank_sets(estimates, resampled, 0.95)
    names = [f"s{i}" for i in range(5)]
    for r in range(12):
        problem = problem_from_item_scores(names, scores[r], resampled=resampled[r])
        np.testing.assert_allclose(problem.estimates, estimates[r], rtol=1e-14)
        joint, alone = simultaneous_sets(problem), marginal_sets(problem)
        assert bounds.simultaneous[0][r].tolist() == joint.lower.tolist(), r
        assert bounds.simultaneous[1][r].tolist() == joint.upper.tolist(), r
        assert bounds.marginal[0][r].tolist() == alone.lower.tolist(), r
        assert bounds.marginal[1][r].tolist() == alone.upper.tolist(), r


def test_the_bootstrap_of_two_items_has_its_exact_distribution() -> None:
    """Two items scored 10 and 20: a draw of two items with replacement gives the mean 10, 15, 20 with
    probabilities 1/4, 1/2, 1/4. A system rated on the first item only has no rated item in a quarter of the draws:
    an input error, as in the library."""
    scores = np.array([[[10.0, 20.0], [10.0, 20.0]]])
    estimates, resampled = ranges.bootstrap_means(np.random.default_rng(0), scores, np.arange(2), 8000)
    assert estimates.tolist() == [[15.0, 15.0]]
    for value, p in ((10.0, 0.25), (15.0, 0.5), (20.0, 0.25)):
        assert abs((resampled[0, :, 0] == value).mean() - p) < 4 * np.sqrt(p * (1 - p) / 8000)
    with pytest.raises(InputError, match="without a rated item"):
        ranges.bootstrap_means(
            np.random.default_rng(0), np.array([[[10.0, np.nan], [1.0, 2.0]]]), np.arange(2), 50
        )


# ------------------------------------------------------------------------------------------------ known truth


def _coverage(table, procedure: str, range_kind: str, measure: str = ranges.COVERS_ALL):
    row = table[
        (table["procedure"] == procedure) & (table["range"] == range_kind) & (table["measure"] == measure)
    ]
    assert len(row) == 1
    return row.iloc[0]


def test_document_bootstrap_covers_where_documents_carry_the_dependence_and_the_item_bootstrap_does_not() -> (
    None
):
    """Raters who score one system's whole document with their own severity (sd 8, as the item noise), ranked sets
    of tiers 1, 2 handed out by whole documents (the dependence kept): the simultaneous rank sets of the document
    bootstrap cover every true rank at least at 95% (the upper end of the Clopper-Pearson interval reaches it), those
    of the item bootstrap do not (the whole interval below 0.95); with items handed out one by one both cover."""
    ratings = synthetic_ratings(n_systems=6, n_items=300, seed=12, rater_sd=8.0)
    chosen = replace(
        design(procedures=["wmt24"], null_pairs=1, shifts=[], heterogeneous_shifts=[], flips=False),
        cluster_sets=120,
        cluster_sorting=0.5,
        cluster_designs=("clusters", "clusters_document"),
        rank_sets=("items", "documents"),
        rank_set_draws=400,
    )
    table = rc.ranking_calibration(ratings, chosen, seed=6).table
    table = table[table["range"] != ""]
    document_level = table[table["kind"] == "clusters_document"]
    documents = _coverage(document_level, "rank_sets_documents", ranges.SIMULTANEOUS)
    items = _coverage(document_level, "rank_sets_items", ranges.SIMULTANEOUS)
    assert documents["ci_high"] >= 0.95 and documents["nominal"] == pytest.approx(0.95)
    assert items["ci_high"] < 0.95
    item_level = table[table["kind"] == rc.CLUSTERS]
    for procedure in ("rank_sets_documents", "rank_sets_items"):
        assert _coverage(item_level, procedure, ranges.SIMULTANEOUS)["ci_high"] >= 0.95, procedure
    # the marginal sets of the document bootstrap cover each system's rank at their nominal rate too
    assert _coverage(document_level, "rank_sets_documents", ranges.MARGINAL, ranges.COVERS)["ci_high"] >= 0.95


@pytest.mark.slow
def test_the_document_bootstrap_keeps_its_coverage_under_fixed_and_dynamic_allocation() -> None:
    """The slow, larger form, on half the documents' worth of rated cells: 400 ranked sets of tiers 1, 2, 2 handed out
    by whole documents (raters' severity sd 8), rated by the fixed allocation and by Pearmut's dynamic one (two systems
    per request, a cold start of 8 documents): the document bootstrap's simultaneous sets cover every true rank at
    their nominal 95% within the Clopper-Pearson interval under both, the item bootstrap's do not."""
    ratings = synthetic_ratings(n_systems=8, n_items=400, seed=31, rater_sd=8.0)
    chosen = replace(
        design(procedures=["wmt24"], null_pairs=1, shifts=[], heterogeneous_shifts=[], flips=False),
        cluster_tiers=(1, 2, 2),
        cluster_sets=400,
        cluster_sorting=0.5,
        cluster_designs=("clusters_document_fixed", "clusters_document_dynamic"),
        rank_sets=("items", "documents"),
        rank_set_draws=500,
        dynamic_models=2,
        dynamic_coldstart=8,
        dynamic_coldstart_pool=8,
    )
    table = rc.ranking_calibration(ratings, chosen, seed=8).table
    for kind in ("clusters_document_fixed", "clusters_document_dynamic"):
        rows = table[(table["kind"] == kind) & (table["range"] != "")]
        assert _coverage(rows, "rank_sets_documents", ranges.SIMULTANEOUS)["ci_high"] >= 0.95, kind
        assert _coverage(rows, "rank_sets_items", ranges.SIMULTANEOUS)["ci_high"] < 0.95, kind
