"""The human-ranking calibration (mtsig.studies.ranking_calibration): constructions with known truth, checked by hand
or by their defining property, and error rates against nominal levels on data whose truth is known by construction.
Clopper-Pearson intervals against statsmodels. The exhaustive size checks are in the slow suite."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats
from statsmodels.stats.proportion import proportion_confint

from mtsig.errors import InputError
from mtsig.settings import HumanRankingCalibration, build
from mtsig.stats.system_ranking import RankingArrays, run_procedure
from mtsig.studies import ranking_calibration as rc
from mtsig.studies import ranking_calibration_ranges as ranges

CHEAP = ["wmt24", "wmt25", "stratified_permutation", "stratified_permutation_documents"]


def synthetic_ratings(
    n_systems: int = 4,
    n_items: int = 120,
    domains: tuple[str, ...] = ("a", "b", "c"),
    doc_size: int = 5,
    seed: int = 0,
    lp: str = "en-xx",
    rater_sd: float = 0.0,
) -> pd.DataFrame:
    """Continuous scores with an item effect (no ties: the rank tests are exact), one rater per system and
    document (as ESA assigns a document of one system to one rater), equal systems: every null is true.
    ``rater_sd`` > 0: each rater's severity (normal, that sd) is added to all the scores of their document, the
    within-document dependence of ESA (the two systems are then exchangeable by document, not by item)."""
    rng = np.random.default_rng(seed)
    item_effect = rng.normal(70, 10, n_items)
    severity = rng.normal(0, rater_sd, (n_systems, -(-n_items // doc_size))) if rater_sd else None
    rows = []
    for s in range(n_systems):
        for i in range(n_items):
            shared = severity[s, i // doc_size] if rater_sd else 0.0
            rows.append(
                {
                    "lp": lp,
                    "system": f"sys{s}",
                    "item": i,
                    "score": float(item_effect[i] + shared + rng.normal(0, 8)),
                    "rater": f"r{s}-{i // doc_size}",
                    "wave": "w",
                    "doc": f"d{i // doc_size}",
                    "domain": domains[(i // doc_size) % len(domains)],
                }
            )
    return pd.DataFrame(rows)


def design(**overrides) -> HumanRankingCalibration:
    block = {"language_pairs": ["en-xx"], "procedures": CHEAP, "null_pairs": 40, "alternative_pairs": 20}
    block.update(shifts=[4], heterogeneous_shifts=[4], cluster_sets=10, cluster_tiers=[1, 2])
    block.update(cluster_designs=["clusters"], rank_sets=[], dynamic_coldstart=3, dynamic_coldstart_pool=3)
    block.update(overrides)
    return build(HumanRankingCalibration, block)


# ------------------------------------------------------------------------------------------------ constructions


def test_exchanged_pairs_swap_exactly_the_masked_items() -> None:
    values = np.array([[1.0, 2.0, 3.0], [10.0, 20.0, 30.0], [100.0, 200.0, 300.0]])
    systems = np.array([[0, 2], [1, 0]])
    exchange = np.array([[True, False, False], [False, False, True]])
    out = rc.exchanged_pairs(values, systems, exchange)
    assert out.tolist() == [
        [[100.0, 2.0, 3.0], [1.0, 200.0, 300.0]],
        [[10.0, 20.0, 3.0], [1.0, 2.0, 30.0]],
    ]


def test_a_documents_items_follow_one_coin() -> None:
    documents = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2])
    mask = rc.exchange_mask(np.random.default_rng(3), 200, documents)
    for code in range(3):
        block = mask[:, documents == code]
        assert (block == block[:, :1]).all()
    # a fair coin per document: 600 coins, within 4 sd of half
    assert abs(mask[:, [0, 3, 5]].mean() - 0.5) < 4 * np.sqrt(0.25 / 600)


def test_random_system_pairs_are_distinct_and_cover_every_ordered_pair() -> None:
    pairs = rc.random_system_pairs(np.random.default_rng(1), 4, 2400)
    assert (pairs[:, 0] != pairs[:, 1]).all()
    counts = np.zeros((4, 4))
    np.add.at(counts, (pairs[:, 0], pairs[:, 1]), 1)
    expected = 2400 / 12
    off = ~np.eye(4, dtype=bool)
    assert stats.chisquare(counts[off], np.full(12, expected)).pvalue > 1e-3


def test_balanced_domain_effects_by_hand() -> None:
    """Sizes (1, 1, 2): v orthogonal to (1, 1, 1) and (1, 1, 2) is c (1, -1, 0); the pattern (1, -1, 1) projects
    onto (1, -1, 0)."""
    assert rc.balanced_domain_effects(np.array([0, 1, 2, 2])) == pytest.approx([1.0, -1.0, 0.0], abs=1e-12)
    assert rc.balanced_domain_effects(np.array([0, 0, 1, 1])) == pytest.approx([1.0, -1.0], abs=1e-12)
    v = rc.balanced_domain_effects(np.repeat([0, 1, 2, 3], [20, 81, 139, 57]))
    assert abs(v.sum()) < 1e-12 and abs(v @ [20, 81, 139, 57]) < 1e-9 and np.abs(v).max() == 1.0
    with pytest.raises(InputError, match="three domains, or two of equal size"):
        rc.balanced_domain_effects(np.array([0, 0, 0, 1]))


def test_mean_absolute_differences_by_hand() -> None:
    raw = np.array([[1.0, 5.0, 2.0, np.nan], [3.0, 1.0, 2.0, 7.0]])
    m = rc.mean_absolute_differences(raw, np.array([0, 0, 1, 1]))
    assert m[0, 1].tolist() == [3.0, 0.0]  # (|1-3| + |5-1|) / 2; item 3 not rated for both
    assert m[1, 0].tolist() == [3.0, 0.0] and m[0, 0].tolist() == [0.0, 0.0]


def test_tilted_pairs_plant_the_expected_difference_in_every_domain() -> None:
    """E[X' - Y'] in domain d is (2 p_d - 1) m_d = e_d by construction: the mean over many replicates is within
    Monte Carlo error of it, for a shift and for a heterogeneous pattern."""
    items = rc.calibration_items(synthetic_ratings())
    for effects in (np.array([3.0, 3.0, 3.0]), np.array([2.0, -3.0, 1.0])):
        systems, exchange = rc.tilted_pairs(np.random.default_rng(5), items.raw, items.domains, effects, 4000)
        pairs = rc.exchanged_pairs(items.raw, systems, exchange)
        difference = pairs[:, 0] - pairs[:, 1]
        for d in range(3):
            per_replicate = difference[:, items.domains == d].mean(axis=1)
            error = per_replicate.std() / np.sqrt(len(per_replicate))
            assert abs(per_replicate.mean() - effects[d]) < 4 * error


def test_tilted_pairs_without_an_effect_are_a_fair_exchange() -> None:
    items = rc.calibration_items(synthetic_ratings())
    systems, exchange = rc.tilted_pairs(np.random.default_rng(2), items.raw, items.domains, np.zeros(3), 300)
    assert abs(exchange.mean() - 0.5) < 4 * np.sqrt(0.25 / exchange.size)


def test_tilted_pairs_refuse_an_effect_no_pair_can_carry() -> None:
    items = rc.calibration_items(synthetic_ratings())
    with pytest.raises(InputError, match="the largest planted effect the data can carry"):
        rc.tilted_pairs(np.random.default_rng(0), items.raw, items.domains, np.full(3, 500.0), 10)


def test_ranked_sets_hand_out_real_scores_in_tier_order_when_sorting() -> None:
    raw = np.random.default_rng(4).normal(size=(6, 50))
    tiers = np.array([0, 1, 1, 2])
    chosen = rc.ranked_sets(np.random.default_rng(7), raw, tiers, 1.0, 30)
    scores = raw[chosen, np.arange(50)[None, None, :]]
    assert (scores[:, 0] >= scores[:, 1:3].max(axis=1)).all()
    assert (scores[:, 1:3].min(axis=1) >= scores[:, 3]).all()
    # K distinct real systems per item
    assert all(len(set(chosen[r, :, n])) == 4 for r in range(30) for n in range(50))


def test_ranked_sets_keep_tied_systems_exchangeable() -> None:
    """Within a tier the sorted hand-out is in random order: each of the two tier-1 systems gets the larger of
    the tier's two scores about half of the time."""
    raw = np.random.default_rng(4).normal(size=(6, 400))
    chosen = rc.ranked_sets(np.random.default_rng(8), raw, np.array([0, 1, 1]), 1.0, 20)
    scores = raw[chosen, np.arange(400)[None, None, :]]
    share = (scores[:, 1] > scores[:, 2]).mean()
    assert abs(share - 0.5) < 4 * np.sqrt(0.25 / (20 * 400))


# ------------------------------------------------------------------------------------------------ decisions


def test_pair_decisions_and_cluster_outcomes_by_hand() -> None:
    beats = np.zeros((4, 2, 2), dtype=bool)
    beats[0, 0, 1] = True  # first better
    beats[1, 1, 0] = True  # second better
    beats[3, 0, 1] = beats[3, 1, 0] = True  # both: counted as declared, and as a wrong winner
    decisions = rc.pair_decisions(RankingArrays(None, None, None, beats, None, None, None))
    assert decisions.tolist() == [1, -1, 0, 2]

    tiers = np.array([0, 1, 1])
    beats = np.zeros((2, 3, 3), dtype=bool)
    beats[:, 0, 1] = beats[:, 0, 2] = True
    beats[1, 2, 1] = True  # a tied pair split
    cluster = np.array([[1, 2, 2], [1, 3, 2]])
    top = np.array([[1, 2, 2], [1, 3, 2]])
    worst = np.array([[1, 3, 3], [1, 3, 2]])
    fake = RankingArrays(None, None, None, beats, top, worst, cluster)
    outcome = rc.cluster_outcomes(fake, tiers)
    assert outcome[rc.MATCH].tolist() == [True, False]
    assert outcome[rc.TIE_SPLIT].tolist() == [False, True]
    assert outcome[rc.WRONG_ORDER].tolist() == [False, False]
    kinds = rc.procedure_ranges(fake)
    assert kinds[ranges.RANK_RANGE][0] is top and kinds[ranges.RANK_RANGE][1] is worst
    # clusters (1, 3, 2): the positions 1, 3, 2 of three systems; (1, 2, 2): 1 and 2-3
    assert [v.tolist() for v in kinds[ranges.CLUSTER_RANGE]] == [
        [[1, 2, 2], [1, 3, 2]],
        [[1, 3, 3], [1, 3, 2]],
    ]


def test_tier_positions_and_range_outcomes_by_hand() -> None:
    """Tiers (0, 1, 1, 2): positions 1 | 2-3 | 4; csranks's true rank (a tie's best position) 1, 2, 2, 4.
    Replicate 0: [1,1] [2,3] [2,2] [3,4]: every true rank covered; the tie's second system does not contain 3.
    Replicate 1: [1,2] [1,3] [2,3] [4,4]: covered and contained, two systems could be first, none alone.
    Replicate 2: [2,4] [1,1] [2,3] [4,4]: the best misses 1; the tier-1 system is declared first alone."""
    tiers = np.array([0, 1, 1, 2])
    best, worst = ranges.tier_positions(tiers)
    assert best.tolist() == [1, 2, 2, 4] and worst.tolist() == [1, 3, 3, 4]
    lower = np.array([[1, 2, 2, 3], [1, 1, 2, 4], [2, 1, 2, 4]])
    upper = np.array([[1, 3, 2, 4], [2, 3, 3, 4], [4, 1, 3, 4]])
    out = ranges.range_outcomes(lower, upper, tiers)
    covers = [[1, 1, 1, 1], [1, 1, 1, 1], [0, 0, 1, 1]]
    contains = [[1, 1, 0, 1], [1, 1, 1, 1], [0, 0, 1, 1]]
    assert (out[ranges.COVERS].count, out[ranges.COVERS].trials) == (np.sum(covers), 12)
    assert (out[ranges.COVERS_ALL].count, out[ranges.COVERS_ALL].trials) == (2, 3)
    assert out[ranges.CONTAINS].count == np.sum(contains) and out[ranges.CONTAINS_ALL].count == 1
    assert out[ranges.WIDTH].count == (1 + 2 + 1 + 2) + (2 + 3 + 2 + 1) + (3 + 1 + 2 + 1)
    assert out[ranges.WIDTH].values.tolist() == [1.5, 2.0, 1.75]
    assert out[ranges.BEST_FIRST].count == 2  # replicates 0 and 1
    assert out[ranges.FIRST_SIZE].values.tolist() == [1.0, 2.0, 1.0]
    assert out[ranges.WRONG_FIRST].count == 1  # replicate 2


def test_rate_rows_carry_the_clopper_pearson_interval_of_statsmodels() -> None:
    spec = rc.CALIBRATED["wmt24"]
    for count, trials in ((0, 40), (3, 40), (17, 40), (40, 40)):
        row = rc.rate_row(
            lp="x",
            procedure="wmt24",
            spec=spec,
            kind=rc.NULL_ITEM,
            effect=0,
            mean_difference=0.0,
            measure=rc.DECLARED,
            count=count,
            trials=trials,
        )
        low, high = proportion_confint(count, trials, alpha=0.05, method="beta")
        assert row["ci_low"] == pytest.approx(low, abs=1e-12) and row["ci_high"] == pytest.approx(
            high, abs=1e-12
        )
        assert row["rate"] == count / trials


def test_nominal_rates_follow_the_sidedness() -> None:
    assert rc.nominal_rate(rc.CALIBRATED["wmt24"]) == 0.05  # two-sided
    assert rc.nominal_rate(rc.CALIBRATED["wmt25"]) == 0.05  # one-sided at 0.025, both directions
    assert rc.nominal_rate(rc.CALIBRATED["wmt26"]) == pytest.approx(0.10)
    assert rc.nominal_rate(rc.CALIBRATED["bootstrap"]) == pytest.approx(0.10)


# ------------------------------------------------------------------------------------------------ known truth


def test_the_wmt24_stouffer_quirk_on_a_two_domain_toy_by_hand() -> None:
    """Domain 1: A better by 1, 2, ..., 10 points; domain 2: B better by the same. The macro averages are equal,
    yet each domain's two-sided signed-rank p is 2 / 2**10 (exact: all ten differences one way), both become
    z = ndtri(1 - p) > 0 and Stouffer's p = 1 - ndtr(2 z / sqrt 2) is tiny: WMT24 puts A and B in different
    clusters. The stratified permutation test of the macro average sees T = 0 and keeps them together."""
    differences = np.concatenate([np.arange(1.0, 11.0), -np.arange(1.0, 11.0)])
    a = 50.0 + differences
    b = np.full(20, 50.0)
    scores = np.stack([a, b])
    domains = np.repeat([0, 1], 10)
    result = run_procedure("wmt24", scores, np.arange(20), domains)
    z = special.ndtri(1 - 2 / 2**10)
    expected = 1 - special.ndtr(2 * z / np.sqrt(2))
    assert expected < 1e-4
    assert result.pvalues[0, 0, 1] == pytest.approx(expected, rel=1e-12)
    assert result.scores[0, 0] == result.scores[0, 1]  # equal macro averages
    assert result.cluster[0, 0] != result.cluster[0, 1]
    permutation = run_procedure("stratified_permutation", scores, np.arange(20), domains)
    assert not permutation.beats[0].any() and permutation.cluster[0, 0] == permutation.cluster[0, 1]


def test_false_positives_of_exact_procedures_stay_within_monte_carlo_error_of_alpha() -> None:
    """Equal systems, item exchange: WMT24 (per-domain signed-rank, exact here), WMT25 (signed-rank) and the
    stratified permutation test are exact, so their rate of declaring a difference is binomial at the nominal
    rate (binomial test at 0.001)."""
    table = rc.ranking_calibration(
        synthetic_ratings(seed=1),
        design(null_pairs=400, exchange_units=["item"], shifts=[], heterogeneous_shifts=[], cluster_sets=0),
        seed=11,
    ).table
    null = table[(table["kind"] == rc.NULL_ITEM) & (table["measure"] == rc.DECLARED)]
    assert sorted(null["procedure"]) == sorted(CHEAP)
    for row in null.itertuples():
        assert stats.binomtest(row.count, row.trials, row.nominal).pvalue > 1e-3, row.procedure


def test_wmt24_calls_heterogeneous_pairs_different_far_more_often_than_alpha() -> None:
    """Better in some domains, worse in others, equal on average: WMT24's Stouffer on two-sided p-values declares
    a difference most of the time, while the stratified permutation test of the macro average stays near its
    level."""
    table = rc.ranking_calibration(
        synthetic_ratings(seed=2),
        design(
            exchange_units=["item"],
            null_pairs=1,
            shifts=[],
            heterogeneous_shifts=[8],
            alternative_pairs=60,
            cluster_sets=0,
        ),
        seed=5,
    ).table
    rate = table[(table["kind"] == rc.HETEROGENEOUS) & (table["measure"] == rc.DECLARED)].set_index(
        "procedure"
    )
    assert rate.loc["wmt24", "ci_low"] > 0.5
    assert (
        rate.loc["stratified_permutation", "ci_low"] <= 0.05 <= rate.loc["stratified_permutation", "ci_high"]
    )
    assert abs(rate.loc["wmt24", "mean_difference"]) < 1.0  # equal averages, up to noise


def test_only_the_document_level_test_holds_its_level_when_documents_are_exchanged() -> None:
    """Known truth through the study: raters who score one system's whole document with their own severity (sd 8,
    as the item noise), six systems, documents exchanged (``null_document``: the pseudo-systems keep the real
    item -> document map). The item-level stratified test over-rejects (its lower 95% Clopper-Pearson bound above
    twice alpha); the document-level one, which the study runs with the real documents, is binomial at alpha
    (binomial test at 0.001); under the item exchange both are exact."""
    table = rc.ranking_calibration(
        synthetic_ratings(n_systems=6, seed=8, rater_sd=8.0),
        design(
            procedures=["stratified_permutation", "stratified_permutation_documents"],
            null_pairs=400,
            shifts=[],
            heterogeneous_shifts=[],
            cluster_sets=0,
            flips=False,
        ),
        seed=4,
    ).table
    declared = table[table["measure"] == rc.DECLARED].set_index(["kind", "procedure"])
    assert declared.loc[(rc.NULL_DOCUMENT, "stratified_permutation"), "ci_low"] > 0.10
    for kind, procedure in (
        (rc.NULL_DOCUMENT, "stratified_permutation_documents"),
        (rc.NULL_ITEM, "stratified_permutation_documents"),
        (rc.NULL_ITEM, "stratified_permutation"),
    ):
        row = declared.loc[(kind, procedure)]
        assert stats.binomtest(int(row["count"]), int(row["trials"]), 0.05).pvalue > 1e-3, (kind, procedure)


def test_the_study_table_is_complete_and_deterministic() -> None:
    ratings = synthetic_ratings(seed=3)
    chosen = design(procedures=["wmt24", "wmt26_paired"], null_pairs=30, alternative_pairs=10, cluster_sets=5)
    first = rc.ranking_calibration(ratings, chosen, seed=9).table
    second = rc.ranking_calibration(ratings, chosen, seed=9).table
    pd.testing.assert_frame_equal(first, second)
    assert list(first.columns) == rc.RESULT_COLUMNS
    measures = first.groupby(["procedure", "kind"])["measure"].apply(set)
    assert measures[("wmt24", rc.SHIFT)] == {rc.DECLARED, rc.CORRECT, rc.WRONG}
    assert measures[("wmt26_paired", rc.SHIFT)] == {rc.DECLARED, rc.CORRECT, rc.WRONG, rc.FLIP}
    assert measures[("wmt24", rc.CLUSTERS)] == {
        rc.MATCH,
        rc.TIE_SPLIT,
        rc.WRONG_ORDER,
        *ranges.RANGE_MEASURES,
    }
    assert set(first["kind"]) == {rc.NULL_ITEM, rc.NULL_DOCUMENT, rc.SHIFT, rc.HETEROGENEOUS, rc.CLUSTERS}
    clusters = first[first["kind"] == rc.CLUSTERS]
    assert set(clusters["range"]) == {"", ranges.RANK_RANGE, ranges.CLUSTER_RANGE}
    assert set(first.loc[first["kind"] != rc.CLUSTERS, "range"]) == {""}
    rates = first[~first["measure"].isin(ranges.MEANS)]
    assert (rates["count"] <= rates["trials"]).all()
    width = first[first["measure"] == ranges.WIDTH]
    assert ((width["rate"] >= 1) & (width["rate"] <= 3) & (width["ci_low"] <= width["rate"])).all()
    assert first.loc[first["kind"] == rc.SHIFT, "mean_difference"].iloc[0] == pytest.approx(4, abs=1.5)


def test_the_study_names_what_it_cannot_do() -> None:
    ratings = synthetic_ratings()
    with pytest.raises(InputError, match="no ratings of language pair"):
        rc.ranking_calibration(ratings, design(language_pairs=["en-de"]), seed=1)
    with pytest.raises(InputError, match="need 9 systems"):
        rc.ranking_calibration(ratings, design(cluster_tiers=[4, 5]), seed=1)
    with pytest.raises(InputError, match="rater column"):
        rc.calibration_items(ratings.drop(columns="rater"))


def test_the_calibrated_procedures_are_the_schema_enum(repo_root) -> None:
    from mtsig.pipeline.config import load_schema

    block = load_schema()["properties"]["human_ranking_calibration"]["properties"]
    assert block["procedures"]["items"]["enum"] == list(rc.CALIBRATED)
    assert block["procedures"]["default"] == list(rc.CALIBRATED)


def test_the_construction_on_the_wmt24_ratings(data_root) -> None:
    """On the real en-cs ratings: four domains whose heterogeneous pattern is equal on both averages, tilted pairs
    whose realised macro-average difference is the planted one within Monte Carlo error."""
    from mtsig.io.esa import read_esa

    humeval = data_root / "wmt24-esa" / "humeval"
    export = read_esa(sorted(humeval.glob("*.csv")), data_root / "wmt24-esa" / "documents")
    items = rc.calibration_items(export.ratings[export.ratings["lp"] == "en-cs"])
    sizes = np.bincount(items.domains)
    assert sizes.tolist() == [20, 81, 139, 57] and items.raw.shape == (16, 297)
    v = rc.balanced_domain_effects(items.domains)
    assert abs(v.sum()) < 1e-12 and abs(v @ sizes) < 1e-9
    systems, exchange = rc.tilted_pairs(
        np.random.default_rng(0), items.raw, items.domains, np.full(4, 2.0), 2000
    )
    pairs = rc.exchanged_pairs(items.raw, systems, exchange)
    from mtsig.stats.system_ranking.procedures import domain_macro_average

    macro = domain_macro_average(pairs, items.domains)
    difference = macro[:, 0] - macro[:, 1]
    assert abs(difference.mean() - 2.0) < 4 * difference.std() / np.sqrt(len(difference))


@pytest.mark.slow
def test_exact_procedures_hold_their_level_under_item_and_document_exchange_of_independent_items() -> None:
    """The slow, larger form: 2,000 null pairs per exchange unit of independent items (no within-document
    dependence in these scores), every exact procedure within Monte Carlo error of its nominal rate, and the
    paper's approximate randomization (exact up to its 1,000 draws) too."""
    ratings = synthetic_ratings(n_items=200, seed=21)
    procedures = [*CHEAP, "approximate_randomization"]
    table = rc.ranking_calibration(
        ratings,
        design(
            procedures=procedures,
            null_pairs=2000,
            shifts=[],
            heterogeneous_shifts=[],
            cluster_sets=0,
            flips=False,
        ),
        seed=3,
    ).table
    null = table[table["measure"] == rc.DECLARED]
    assert len(null) == 2 * len(procedures)
    for row in null.itertuples():
        assert stats.binomtest(row.count, row.trials, row.nominal).pvalue > 1e-3, (row.procedure, row.kind)


def test_the_step_writes_the_table_and_the_figure(data_root, tmp_path) -> None:
    from mtsig.settings import as_block
    from mtsig.steps.human_ranking_calibration import human_ranking_calibration

    ratings = sorted((data_root / "wmt24-esa" / "humeval").glob("*.csv"))
    documents = sorted((data_root / "wmt24-esa" / "documents").glob("*.docs"))
    chosen = design(language_pairs=["en-hi"], null_pairs=20, alternative_pairs=10, cluster_sets=4, shifts=[2])
    chosen = replace(
        chosen,
        cluster_designs=("clusters", "clusters_document_dynamic"),
        rank_sets=("documents",),
        rank_set_draws=50,
    )
    table, png = tmp_path / "calibration.tsv", tmp_path / "figures" / "calibration.png"
    human_ranking_calibration(
        ratings=ratings, documents=documents, settings=as_block(chosen), seed=1, table=table, png=png
    )
    written = pd.read_csv(table, sep="\t")
    assert list(written.columns) == rc.RESULT_COLUMNS and set(written["lp"]) == {"en-hi"}
    assert set(written["procedure"]) == {*CHEAP, "rank_sets_documents"} and (written["trials"] > 0).all()
    assert {"clusters", "clusters_document_dynamic"} <= set(written["kind"])
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_step_needs_the_documents_in_one_folder(tmp_path) -> None:
    from mtsig.steps.human_ranking_calibration import documents_folder

    assert documents_folder([tmp_path / "en-cs.docs", tmp_path / "en-hi.docs"]) == tmp_path
    with pytest.raises(InputError, match="share one folder"):
        documents_folder([tmp_path / "a" / "en-cs.docs", tmp_path / "b" / "en-hi.docs"])
    with pytest.raises(InputError, match="no documents file"):
        documents_folder([])


def test_the_figure_has_four_panels_per_language_pair() -> None:
    from mtsig.report.ranking_calibration_plots import plot_ranking_calibration

    table = rc.ranking_calibration(
        pd.concat([synthetic_ratings(lp="en-xx"), synthetic_ratings(lp="en-yy", seed=4)]),
        design(language_pairs=["en-xx", "en-yy"], null_pairs=10, alternative_pairs=5, cluster_sets=3),
        seed=2,
    ).table
    figure = plot_ranking_calibration(table)
    assert len(figure.axes) == 8
    assert [figure.axes[i].get_ylabel() for i in (0, 4)] == ["en-xx", "en-yy"]
    with pytest.raises(InputError, match="empty"):
        plot_ranking_calibration(table.iloc[:0])
