"""Ranking systems from human item scores (mtsig.stats.system_ranking): WMT24's and WMT25's procedures equal to the
organisers' code on the WMT24 ESA waves 2+3 (their printed output in tests/oracles/, written by
``python benchmarks/bench_human_ranking.py --python <pandas-2 python> --wmt25-source ... --wmt26-source ...
--write-oracles tests/oracles``), the signed-rank test and WMT26's BCa bootstrap equal to scipy's, and tiny cases
by hand for the rank and cluster rules."""

from __future__ import annotations

import warnings
from dataclasses import replace
from itertools import product
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from mtsig.errors import InputError
from mtsig.io.esa import read_esa
from mtsig.stats.system_ranking import (
    PROCEDURES,
    ItemScores,
    SystemRanking,
    document_notes,
    item_scores,
    pair_decisions,
    rank_systems,
    run_procedure,
)
from mtsig.stats.system_ranking import ranks as rules
from mtsig.stats.system_ranking.bootstrap import paired_bca, unpaired_bca
from mtsig.stats.system_ranking.items import pair_units
from mtsig.stats.system_ranking.signed_rank import signed_rank_pvalues

ORACLES = Path(__file__).parent / "oracles"
LPS = ("en-cs", "en-hi", "en-ja", "en-zh")


@pytest.fixture(scope="module")
def wmt24_items(data_root: Path):
    root = data_root / "wmt24-esa"
    export = read_esa([root / f"humeval/esa_generalMT2024_wave{w}.csv" for w in (2, 3)], root / "documents")
    return {lp: item_scores(export.ratings.loc[export.ratings["lp"] == lp]) for lp in LPS}


def _oracle(name: str) -> pd.DataFrame:
    return pd.read_csv(ORACLES / name, sep="\t", comment="#", keep_default_na=False)


def test_wmt24_equals_the_organisers(wmt24_items) -> None:
    pvalues, ranking = _oracle("wmt24_esa_pvalues.tsv"), _oracle("wmt24_esa_ranking.tsv")
    assert len(pvalues) == 240 + 110 + 156 + 156
    for lp, items in wmt24_items.items():
        arrays = run_procedure("wmt24", items.scores, items.segments, items.domains)
        index = {s: i for i, s in enumerate(items.systems)}
        theirs = pvalues.loc[pvalues["lp"] == lp]
        ours = arrays.pvalues[0, theirs["system1"].map(index), theirs["system2"].map(index)]
        np.testing.assert_allclose(ours, theirs["p"].astype(float), rtol=0, atol=1e-12)
        table = ranking.loc[ranking["lp"] == lp]
        assert [items.systems[i] for i in arrays.order[0]] == list(table["system"])
        rows = table["system"].map(index)
        np.testing.assert_array_equal(arrays.top_rank[0, rows], table["top_rank"])
        np.testing.assert_array_equal(arrays.worst_rank[0, rows], table["worst_rank"])
        np.testing.assert_array_equal(arrays.cluster[0, rows], table["cluster"])
        np.testing.assert_allclose(arrays.scores[0, rows], table["overall"], rtol=0, atol=1e-12)


def test_wmt25_equals_the_organisers(wmt24_items) -> None:
    ranking = _oracle("wmt25_esa_ranking.tsv")
    for lp, items in wmt24_items.items():
        arrays = run_procedure("wmt25", items.scores, items.segments, items.domains)
        table = ranking.loc[ranking["lp"] == lp]
        assert [items.systems[i] for i in arrays.order[0]] == list(table["system"])
        rows = table["system"].map({s: i for i, s in enumerate(items.systems)})
        np.testing.assert_array_equal(arrays.top_rank[0, rows], table["top_rank"])
        np.testing.assert_array_equal(arrays.worst_rank[0, rows], table["worst_rank"])
        cluster = arrays.cluster[0, rows.to_numpy()]
        np.testing.assert_array_equal(
            np.r_[cluster[1:] != cluster[:-1], False], table["cluster_end"].astype(bool)
        )


def test_every_procedure_runs_on_wmt24_with_replicates(wmt24_items) -> None:
    # A replicate axis gives each replicate's own result: two copies of en-hi, the second with systems relabelled.
    items = wmt24_items["en-hi"]
    permuted = items.scores[::-1]
    for name, spec in PROCEDURES.items():
        scale = items.scores if spec.scale == "raw" else items.z
        both = np.stack([scale, scale[::-1]])
        documents = items.documents
        arrays = run_procedure(name, both, items.segments, items.domains, seed=3, documents=documents)
        single = run_procedure(name, scale, items.segments, items.domains, seed=3, documents=documents)
        np.testing.assert_array_equal(arrays.cluster[0], single.cluster[0])
        if spec.resamples == 0:  # deterministic: the relabelled replicate is the same ranking relabelled
            np.testing.assert_array_equal(arrays.top_rank[1], single.top_rank[0][::-1])
        assert arrays.top_rank.shape == (2, len(items.systems)) and permuted.shape == items.scores.shape


def test_signed_rank_equals_scipy_sample_by_sample() -> None:
    # Every branch of scipy's method="auto": normal approximation (n > 50, or ties/zeros with n > 13), exact
    # (n <= 50 without ties or zeros), the exhaustive permutation test (n <= 13 with ties or zeros: scipy's cost
    # doubles with each difference, so only the last rows, at n <= 10), an empty sample and a single zero
    # difference (NaN).
    rng = np.random.default_rng(7)
    differences = np.concatenate(
        [
            rng.integers(-4, 5, (60, 60)).astype(float),
            rng.normal(size=(60, 60)),
            rng.integers(-2, 3, (4, 60)) * 1.0,
        ]
    )
    valid = rng.random(differences.shape) < rng.choice([0.3, 0.5, 1.0], size=(124, 1))
    valid[:60, :14] = True  # the tied rows keep n > 13: the permutation branch is the last rows' alone
    valid[-4:] = np.arange(60) < np.array([[0], [1], [5], [10]])
    differences[-3, 0] = 0.0
    for alternative in ("two-sided", "greater", "less"):
        ours = signed_rank_pvalues(np.where(valid, differences, np.nan), alternative=alternative)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = []
            for d, v in zip(differences, valid, strict=True):
                try:
                    theirs.append(stats.wilcoxon(d[v], alternative=alternative).pvalue if v.any() else np.nan)
                except ValueError:  # scipy: a permutation test of one zero difference
                    theirs.append(np.nan)
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-14)


def test_bca_bounds_equal_scipy_bootstrap_given_its_draws() -> None:
    for seed in range(40):
        rng = np.random.default_rng(seed)
        n1, n2 = int(rng.integers(2, 50)), int(rng.integers(2, 50))
        d = rng.integers(-10, 15, n1).astype(float)
        ref = stats.bootstrap(
            (d,),
            np.mean,
            vectorized=True,
            n_resamples=100,
            alternative="greater",
            rng=np.random.default_rng(seed),
        )
        indices = np.random.default_rng(seed).integers(0, n1, (100, n1))
        _, lower, p = paired_bca(d[None], np.ones((1, n1), bool), indices[None])
        np.testing.assert_allclose(lower[0], ref.confidence_interval.low, rtol=0, atol=1e-12)
        assert (p[0] < 0.05) == (ref.confidence_interval.low > 0)
        x, y = rng.integers(0, 101, n1).astype(float), rng.integers(0, 101, n2).astype(float)
        g = np.random.default_rng(100 + seed)
        ref = stats.bootstrap(
            (x, y),
            lambda a, b, axis=-1: a.mean(axis=axis) - b.mean(axis=axis),
            vectorized=True,
            n_resamples=100,
            alternative="greater",
            rng=g,
        )
        g = np.random.default_rng(100 + seed)
        i1, i2 = g.integers(0, n1, (100, n1)), g.integers(0, n2, (100, n2))
        _, lower, _ = unpaired_bca(
            x[None], np.ones((1, n1), bool), y[None], np.ones((1, n2), bool), i1[None], i2[None]
        )
        np.testing.assert_allclose(lower[0], ref.confidence_interval.low, rtol=0, atol=1e-12)


# ----------------------------------------------------------------------------------------------- by hand


def test_wmt24_cluster_walk_by_hand() -> None:
    # Order A B C D. Not significant: A-B and B-C, so A, B, C chain into one cluster; D alone.
    p = np.full((1, 4, 4), 0.01)
    p[0][np.eye(4, dtype=bool)] = np.nan
    p[0, 0, 1] = p[0, 1, 0] = p[0, 1, 2] = p[0, 2, 1] = 0.5
    order = np.array([[0, 1, 2, 3]])
    np.testing.assert_array_equal(rules.wmt24_clusters(p, order, 0.05)[0], [1, 1, 1, 2])
    # A NaN p-value separates (get_clusters: NaN > alpha is False) but wins nothing (get_ranks: NaN < alpha False).
    p[0, 0, 1] = p[0, 1, 0] = np.nan
    np.testing.assert_array_equal(rules.wmt24_clusters(p, order, 0.05)[0], [1, 2, 2, 3])
    top, worst = rules.wmt24_ranks(p, np.array([[4.0, 3.0, 2.0, 1.0]]), 0.05)
    np.testing.assert_array_equal(top[0], [1, 1, 2, 1 + 3])
    np.testing.assert_array_equal(worst[0], [4 - 2, 4 - 1, 4 - 1, 4])


def test_walk_ranks_and_wmt26_quirk_by_hand() -> None:
    # A beats C and D; B beats D; C beats D.
    beats = np.zeros((1, 4, 4), dtype=bool)
    beats[0, 0, 2] = beats[0, 0, 3] = beats[0, 1, 3] = beats[0, 2, 3] = True
    order = np.array([[0, 1, 2, 3]])
    top, worst = rules.walk_ranks(beats, order)
    np.testing.assert_array_equal(top[0], [1, 1, 2, 4])  # C: A (position 0) beats it -> from 2
    np.testing.assert_array_equal(worst[0], [2, 3, 3, 4])  # A: beats C at position 2 -> down to 2
    np.testing.assert_array_equal(rules.wmt25_clusters(top, worst, order)[0], [1, 1, 1, 2])
    t26, w26, c26 = rules.wmt26_ranks_and_clusters(beats, order)
    np.testing.assert_array_equal(w26[0], [2, 3, 3, 4])
    nothing_below = np.zeros(
        (1, 3, 3), dtype=bool
    )  # no decision at all: their loop leaves rank_bottom at n - 2
    _, w, c = rules.wmt26_ranks_and_clusters(nothing_below, np.array([[0, 1, 2]]))
    np.testing.assert_array_equal(w[0], [2, 2, 3])
    np.testing.assert_array_equal(c[0], [1, 1, 1])
    np.testing.assert_array_equal(c26[0], [1, 1, 1, 2])  # global: only (A, B, C) all beat D


def test_stouffer_by_hand() -> None:
    # Two systems, two domains of 6 items; domain 1: x - y = 1..6 (exact two-sided p = 2/64), domain 2: -1..-6.
    x = np.array([[1, 2, 3, 4, 5, 6, -1, -2, -3, -4, -5, -6.0], [0.0] * 12])
    domains = np.array([0] * 6 + [1] * 6)
    arrays = run_procedure("wmt24", x, np.arange(12), domains)
    z = stats.norm.ppf(1 - 2 / 64)
    expected = 1 - stats.norm.cdf(2 * z / np.sqrt(2))  # both domains count as evidence: direction is lost
    assert arrays.pvalues[0, 0, 1] == pytest.approx(expected, abs=1e-15) and expected < 0.05
    # ... and the macro averages are equal (0 and 0), so the significant pair is a loss for both (get_ranks).
    np.testing.assert_array_equal(arrays.top_rank[0], [2, 2])
    # The stratified permutation test of the macro-average difference finds nothing (T = 0: p = 1).
    strat = run_procedure("stratified_permutation", x, np.arange(12), domains, n_resamples=999)
    assert strat.pvalues[0, 0, 1] == 1.0 and not strat.beats[0].any()


def test_stratified_permutation_by_hand() -> None:
    # Differences +1 on 8 items of one domain: T = 1, |T_b| >= 1 only when all 8 signs agree: p ~ 2/256.
    x = np.array([[1.0] * 8, [0.0] * 8])
    arrays = run_procedure("stratified_permutation", x, np.arange(8), np.zeros(8, int), n_resamples=20_000)
    assert arrays.pvalues[0, 0, 1] == pytest.approx(2 / 256, abs=3 * np.sqrt(2 / 256 / 20_000))
    assert arrays.pvalues[0, 1, 0] == 1.0 and arrays.beats[0, 0, 1]


def _exact_document_p(x: np.ndarray, y: np.ndarray, domains: np.ndarray, documents: np.ndarray) -> float:
    """The exact two-sided p of the macro-average difference when whole documents are exchanged, by enumerating
    the 2^D exchanges (the null's own definition, with plain means: no code under test)."""

    def macro_difference(a: np.ndarray, b: np.ndarray) -> float:
        return float(np.mean([np.mean(a[domains == d] - b[domains == d]) for d in np.unique(domains)]))

    observed = macro_difference(x, y)
    codes = np.unique(documents)
    hits = 0
    for exchanged in product([False, True], repeat=len(codes)):
        swap = np.isin(documents, codes[list(exchanged)])
        t = macro_difference(np.where(swap, y, x), np.where(swap, x, y))
        hits += abs(t) >= abs(observed) - 1e-12
    return hits / 2 ** len(codes)


def test_stratified_permutation_documents_by_hand() -> None:
    """Two documents of four items each, every difference +1, one domain. Items flipped one by one: |T_b| >= 1 only
    when all 8 signs agree, p = 2/256. Documents flipped whole: T_b = (4 s_0 + 4 s_1) / 8 is 1, 0, 0 or -1, p = 2/4.
    The Monte Carlo p of B draws is (1 + Binomial(B, p)) / (B + 1): within 4 standard errors of the exact p."""
    x = np.array([[1.0] * 8, [0.0] * 8])
    segments, domains, documents = np.arange(8), np.zeros(8, int), np.repeat([0, 1], 4)
    assert _exact_document_p(x[0], x[1], domains, documents) == 0.5
    b = 20_000
    arrays = run_procedure(
        "stratified_permutation_documents", x, segments, domains, n_resamples=b, documents=documents
    )
    assert arrays.pvalues[0, 0, 1] == pytest.approx(0.5, abs=4 * np.sqrt(0.25 / b))
    assert arrays.pvalues[0, 1, 0] == 1.0 and not arrays.beats[0].any()
    items = run_procedure("stratified_permutation", x, segments, domains, n_resamples=b)
    assert (
        items.pvalues[0, 0, 1] == pytest.approx(2 / 256, abs=4 * np.sqrt(2 / 256 / b))
        and items.beats[0, 0, 1]
    )
    # The same two documents in two domains of unequal size, differences of opposite sign: A wins the macro average
    # (+1 in domain 0, -1/2 in domain 1) though it loses the item mean (1 - 4.5 < 0); the document exchanges give
    # |T_b| of 1/4 and 3/4, never below |T| = 1/4, so p = 1; A's macro average is the higher.
    x = np.array([[1.0] + [-0.5] * 9, [0.0] * 10])
    domains, documents = np.repeat([0, 1], [1, 9]), np.repeat([0, 1], [1, 9])
    assert _exact_document_p(x[0], x[1], domains, documents) == 1.0
    arrays = run_procedure(
        "stratified_permutation_documents", x, np.arange(10), domains, n_resamples=999, documents=documents
    )
    assert arrays.pvalues[0, 0, 1] == 1.0 and arrays.pvalues[0, 1, 0] == 1.0
    assert arrays.scores[0, 0] > arrays.scores[0, 1] and arrays.order[0].tolist() == [0, 1]


def test_stratified_permutation_documents_equals_the_enumerated_exact_p() -> None:
    """Five documents in two domains of unequal size (a document spanning both), three systems: every pair's
    Monte Carlo p within 4 standard errors of the exact p enumerated over the 32 document exchanges."""
    rng = np.random.default_rng(11)
    documents = np.repeat([0, 1, 2, 3, 4], [2, 3, 1, 4, 2])
    domains = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1])
    x = rng.integers(0, 101, (3, 12)).astype(float)
    b = 20_000
    arrays = run_procedure(
        "stratified_permutation_documents", x, np.arange(12), domains, n_resamples=b, documents=documents
    )
    for i, j in ((0, 1), (0, 2), (1, 2)):
        exact = _exact_document_p(x[i], x[j], domains, documents)
        two_sided = min(arrays.pvalues[0, i, j], arrays.pvalues[0, j, i])
        assert two_sided == pytest.approx(exact, abs=4 * np.sqrt(exact * (1 - exact) / b) + 1 / b), (i, j)


def test_document_level_test_holds_its_level_where_the_item_level_test_does_not() -> None:
    """Known truth: two exchangeable systems whose items share a per-(system, document) effect (ESA's rater who
    scores one system's whole document), score = item effect + document effect (sd 8) + noise (sd 6), 24 documents
    of 5 items in 3 domains, 2,000 replicates. The item-level stratified test, which treats the items as
    independent, rejects far above alpha (the intra-document correlation of the differences is 0.64, so its
    variance is too small by about 1 + 4 x 0.64); the document-level one rejects at alpha: 0.05 inside its 99%
    Clopper-Pearson interval (statsmodels)."""
    rng = np.random.default_rng(2024)
    replicates, n_documents, size = 2000, 24, 5
    documents = np.repeat(np.arange(n_documents), size)
    domains = documents % 3
    item_effect = rng.normal(70, 10, n_documents * size)
    scores = (
        item_effect
        + rng.normal(0, 8, (replicates, 2, n_documents))[:, :, documents]
        + rng.normal(0, 6, (replicates, 2, n_documents * size))
    )
    segments = np.arange(n_documents * size)
    common = {"n_resamples": 4999, "seed": 5}
    by_document = run_procedure(
        "stratified_permutation_documents", scores, segments, domains, documents=documents, **common
    )
    by_item = run_procedure("stratified_permutation", scores, segments, domains, **common)
    declared = {
        name: int((a.beats[:, 0, 1] | a.beats[:, 1, 0]).sum())
        for name, a in (("documents", by_document), ("items", by_item))
    }
    low, high = proportion_confint(declared["documents"], replicates, alpha=0.01, method="beta")
    assert low <= 0.05 <= high
    low, _ = proportion_confint(declared["items"], replicates, alpha=0.01, method="beta")
    assert low > 0.15


def test_pair_units_cross_waves() -> None:
    left, right = pair_units(np.array([0, 0, 1]))
    assert sorted(zip(left.tolist(), right.tolist(), strict=True)) == [(0, 0), (0, 1), (1, 0), (1, 1), (2, 2)]


def test_bad_input_is_named() -> None:
    ratings = pd.DataFrame({"system": ["a", "b"], "item": [1, 2], "score": [50.0, 60.0]})
    items = item_scores(ratings)
    ranking = rank_systems(items, "wmt24")
    assert any("share no rated item" in note for note in ranking.notes)
    with pytest.raises(InputError, match="unknown ranking procedure 'wmt23'"):
        rank_systems(items, "wmt23")
    with pytest.raises(InputError, match="needs per-rater scores"):
        rank_systems(items, "wilcoxon_z")
    with pytest.raises(InputError, match="ranking needs at least two"):
        rank_systems(item_scores(ratings.iloc[:1]), "wmt24")
    equal = pd.DataFrame({"system": ["a"] * 20 + ["b"] * 20, "item": list(range(20)) * 2, "score": 70.0})
    ranking = rank_systems(item_scores(equal), "wmt24")
    assert any("score equal on every shared item" in note for note in ranking.notes)
    assert any("no p-value" in note for note in ranking.notes)


def _edge_case_items() -> ItemScores:
    """Four systems: c and d share no rated item, a and b score equal on every item, domain "solo" has one item."""
    rows = [("a", i, 50.0) for i in range(20)] + [("b", i, 50.0) for i in range(20)]
    rows += [("c", i, 40.0 + i) for i in range(10)] + [("d", i, 45.0 + i) for i in range(10, 20)]
    ratings = pd.DataFrame(rows, columns=["system", "item", "score"])
    ratings["domain"] = ["solo" if i == 0 else "news" for i in ratings["item"]]
    ratings["doc"] = [f"d{i // 4}" for i in ratings["item"]]
    ratings["rater"] = [f"r{i % 3}" for i in ratings["item"]]
    return item_scores(ratings)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # WMT26's BCa of the all-equal pair a/b divides 0 by 0
def test_notes_name_only_what_the_procedure_cannot_test() -> None:
    """The paired-test note only for procedures that pair items and only where the p-value is NaN (wmt26 falls back
    to its unpaired bootstrap); the signed-rank note only for the signed-rank procedures; the one-item-domain note
    only for wmt24, the one that tests each domain alone."""
    items = _edge_case_items()
    notes = {name: rank_systems(items, name, seed=1).notes for name in PROCEDURES}

    def has(name: str, text: str) -> bool:
        return any(text in note for note in notes[name])

    for name, spec in PROCEDURES.items():
        assert has(name, "share no rated item (c/d)") == (spec.pairs_items and name != "wmt26"), name
        signed_rank = name in ("wmt24", "wmt24_scipy114", "wmt25")
        assert has(name, "score equal on every shared item (a/b)") == signed_rank, name
        assert has(name, "domain(s) with a single item: solo") == (name in ("wmt24", "wmt24_scipy114")), name
    assert has("wmt24", "WMT24's clusters separate them") and not has("wmt25", "WMT24's clusters")
    assert has("wmt24_scipy114", "WMT24's clusters separate them")
    table = rank_systems(items, "wmt26", seed=1).pvalue_table()
    c_and_d = table.loc[table[["system1", "system2"]].isin(["c", "d"]).all(axis=1)]
    assert len(c_and_d) == 1 and c_and_d[["p", "p_reverse"]].notna().all(
        axis=None
    )  # the unpaired bootstrap's


def test_pair_decisions_agree_with_pvalue_table() -> None:
    both = np.array([True, False, True, False])
    reverse = np.array([True, True, False, False])
    assert pair_decisions(both, reverse).tolist() == [2, -1, 1, 0]
    items = _edge_case_items()
    ranking = rank_systems(items, "wmt24")
    arrays = ranking.arrays
    beats = arrays.beats.copy()
    i, j = arrays.order[0][:2]
    beats[0, i, j] = beats[0, j, i] = True
    forced = SystemRanking(
        "wmt24",
        ranking.systems,
        replace(arrays, beats=beats),
        ranking.alpha,
        ranking.seed,
        ranking.n_resamples,
    )
    assert forced.pvalue_table()["decision"].iloc[0] == "both"


def test_an_empty_label_is_an_input_error_naming_the_column() -> None:
    ratings = pd.DataFrame(
        {"system": ["a", "b"], "item": ["1", "1"], "score": [50.0, 60.0], "domain": ["news", np.nan]}
    )
    with pytest.raises(InputError, match="1 rating\\(s\\) have no domain"):
        item_scores(ratings)


def test_document_note_has_no_overflow() -> None:
    """2^(1 - D) is 2 / 2^D (exact powers of two) and has no OverflowError past 1023 documents."""
    for n in (1, 4, 5, 6, 50):
        assert 2.0 ** (1 - n) == 2.0 / 2.0**n
    assert document_notes(np.arange(2000), 0.05) == ()
    assert "only 4 document(s)" in document_notes(np.arange(4), 0.05)[0]
