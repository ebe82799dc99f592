"""Tests of mtsig.stats.resampling against independent oracles.

1. Literal loop-per-sample transcriptions of the paper's Figures 1-4, of Riezler & Maxwell's (2005) pseudo-code
   and of the block bootstraps, fed the same draws: p-values must be identical.
2. sacrebleu 2.6.0's PairedTest on real WMT12 es-en outputs: its AR and its (R&M-form) bootstrap against ours.
3. Calibration with known truth: exchangeable pairs give rejection rates inside a 99% binomial interval.
Plus invariances (memory cap, shards), TER orientation and the two p-value conventions.
"""

from __future__ import annotations

import html
import math
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sacrebleu.metrics import BLEU
from sacrebleu.significance import PairedTest
from scipy import stats as scipy_stats

from mtsig.runtime.portable import is_integer_valued
from mtsig.stats import resampling as rs
from mtsig.stats.resampling import draws, operands, relabelled
from mtsig.stats.resampling.operands import GroupedDelta, SlicedOperand
from mtsig.stats.seeding import rng_for

SEED = 20140601


# ----------------------------------------------------------------------------------------------- fixtures


def bleu_score(totals: np.ndarray) -> np.ndarray:
    """BLEU (0-100) from summed sacrebleu statistics ``[sys_len, ref_len, correct_1..4, total_1..4]``.

    sacrebleu's ``BLEU.compute_bleu`` without smoothing, vectorised; checked against ``corpus_score`` below.
    """
    totals = np.asarray(totals, dtype=np.float64)
    sys_len, ref_len = totals[..., 0], totals[..., 1]
    with np.errstate(divide="ignore"):
        log_precision = np.log(totals[..., 2:6] / totals[..., 6:10]).mean(axis=-1)
    log_brevity = np.minimum(0.0, 1.0 - ref_len / sys_len)
    return 100.0 * np.exp(log_precision + log_brevity)


def error_rate(totals: np.ndarray) -> np.ndarray:
    """TER-like score: errors / reference words (lower is better)."""
    totals = np.asarray(totals, dtype=np.float64)
    return totals[..., 0] / totals[..., 1]


def small_bleu_stats(n_systems: int = 4, n_segments: int = 40, seed: int = 7) -> np.ndarray:
    """Integer BLEU-like statistics; all sums of them are exact in float64, so the engine's matrix products and the
    oracle's loops give bit-identical totals."""
    rng = np.random.default_rng(seed)
    quality = np.linspace(0.5, 0.53, n_systems)[:, None]
    hyp_len = rng.integers(8, 30, size=(n_systems, n_segments))
    ref_len = rng.integers(8, 30, size=n_segments)
    total = np.stack([np.maximum(hyp_len - n, 1) for n in range(4)], axis=-1)
    correct = np.stack(
        [rng.binomial(total[..., n], np.clip(quality - 0.12 * n, 0.05, 1)) for n in range(4)], axis=-1
    )
    ref = np.broadcast_to(ref_len[None, :, None], (n_systems, n_segments, 1))
    return np.concatenate([hyp_len[..., None], ref, correct, total], axis=-1).astype(np.float64)


def unescape(text: str) -> str:
    while (unescaped := html.unescape(text)) != text:
        text = unescaped
    return text


def read_segments(path: Path) -> list[str]:
    with path.open(encoding="utf-8") as handle:
        return [unescape(line.rstrip("\n")) for line in handle]


ES_EN = ("jhu-hiero", "GTH-UPM", "onlineA", "QCRI--primary", "UPC")


@pytest.fixture(scope="module")
def es_en_texts(data_root: Path) -> dict[str, object]:
    """Texts of a few WMT12 es-en systems (HTML entities undone to a fixed point)."""
    refs = read_segments(data_root / "wmt12" / "plain" / "newstest2012-ref.en")
    outputs = data_root / "wmt12" / "system-outputs" / "es-en"
    return {
        "refs": refs,
        "hyps": {name: read_segments(outputs / f"newstest2012.es-en.{name}") for name in ES_EN},
    }


@pytest.fixture(scope="module")
def es_en(es_en_texts: dict[str, object]) -> dict[str, object]:
    """:func:`es_en_texts` and sacrebleu's BLEU statistics of every system (pure Python: about 0.5 CPU s each)."""
    bleu = BLEU()
    refs, hyps = es_en_texts["refs"], es_en_texts["hyps"]
    stats = np.array(
        [bleu._extract_corpus_statistics(hyps[name], [refs]) for name in ES_EN], dtype=np.float64
    )
    return {**es_en_texts, "stats": stats}


# ------------------------------------------------------------------------------------- oracle 1: loops


def concatenated_draws(draw, n_samples: int) -> np.ndarray:
    """The first ``n_samples`` rows of a scheme's stream of blocks."""
    blocks = [draw(j) for j in range(-(-n_samples // draws.DRAW_BLOCK_SIZE))]
    return np.concatenate(blocks)[:n_samples]


def loop_total(stats: np.ndarray, segment_indices) -> np.ndarray:
    total = np.zeros(stats.shape[1])
    for i in segment_indices:
        total = total + stats[i]
    return total


def loop_stationary_series(starts: np.ndarray, lengths: np.ndarray, n: int) -> list[int]:
    """Politis & Romano (1994): wrap around a circle, concatenate blocks, keep the first N points."""
    series: list[int] = []
    m = 0
    while len(series) < n:
        for j in range(lengths[m]):
            series.append((starts[m] + j) % n)
        m += 1
    return series[:n]


def loop_pseudo_bootstrap(stats_x, stats_y, score, pseudo_test_sets) -> list[float]:
    """``S_{X_b} - S_{Y_b}`` for each pseudo-test-set (a list of segment indices), one sample at a time."""
    pseudo = []
    for segments in pseudo_test_sets:
        pseudo.append(float(score(loop_total(stats_x, segments)) - score(loop_total(stats_y, segments))))
    return pseudo


def loop_pseudo_randomization(stats_x, stats_y, score, masks) -> list[float]:
    """Fig. 2: for each shuffle, for each sentence, swap the tuples with the drawn coin; ``S_{X_r} - S_{Y_r}``."""
    pseudo = []
    for mask in masks:
        total_x = np.zeros(stats_x.shape[1])
        total_y = np.zeros(stats_x.shape[1])
        for i, swap in enumerate(mask):
            if swap:
                total_x, total_y = total_x + stats_y[i], total_y + stats_x[i]
            else:
                total_x, total_y = total_x + stats_x[i], total_y + stats_y[i]
        pseudo.append(float(score(total_x) - score(total_y)))
    return pseudo


def loop_p_value(test: str, pseudo: list[float], actual: float, convention: str) -> float:
    """The counting of Figs. 1-4 and of R&M's slides, one pseudo-statistic at a time."""
    n = len(pseudo)
    c = 0
    if test.startswith("paired_bootstrap"):  # Fig. 4, a tie counting against X (Koehn 2004: X must win)
        for value in pseudo:
            if not value > 0:
                c += 1
    elif test in ("bootstrap", "bootstrap_documents", "bootstrap_stationary"):  # Fig. 3
        tau = sum(pseudo) / n
        for value in pseudo:
            if value - tau >= actual:
                c += 1
    elif test == "bootstrap_two_sided":  # Fig. 1
        tau = sum(pseudo) / n
        for value in pseudo:
            if abs(value - tau) >= abs(actual):
                c += 1
    elif test == "approximate_randomization":  # Fig. 2
        for value in pseudo:
            if value >= actual:
                c += 1
    elif test in ("approximate_randomization_two_sided", "rm_approximate_randomization"):
        for value in pseudo:
            if abs(value) >= abs(actual):
                c += 1
    elif test == "rm_bootstrap":  # R&M: tau = mean |d_b|; |d_b| - tau >= |d|
        tau = sum(abs(value) for value in pseudo) / n
        for value in pseudo:
            if abs(value) - tau >= abs(actual):
                c += 1
    else:
        raise AssertionError(test)
    if test.startswith("rm_") or convention == "(c+1)/(B+1)":
        return (c + 1) / (n + 1)
    return c / n


def oracle_table(stats, score, systems, tests, n_samples, seed, convention, documents, mean_block_length):
    """Every ordered pair and test, by the loop oracles, fed the engine's published draws."""
    n_segments = stats.shape[1]
    iid = concatenated_draws(lambda j: draws.iid_draws(seed, n_segments, j), n_samples)
    masks = concatenated_draws(lambda j: draws.swap_masks(seed, n_segments, j), n_samples)
    codes = draws.document_codes(documents)
    doc_draws = concatenated_draws(lambda j: draws.document_draws(seed, codes.max() + 1, j), n_samples)
    stationary = [
        draws.stationary_draws(seed, n_segments, mean_block_length, j) for j in range(-(-n_samples // 256))
    ]
    starts = np.concatenate([s for s, _ in stationary])[:n_samples]
    lengths = np.concatenate([length for _, length in stationary])[:n_samples]
    test_sets = {
        "iid": [list(row) for row in iid],
        "documents": [[i for d in row for i in np.flatnonzero(codes == d)] for row in doc_draws],
        "stationary": [
            loop_stationary_series(s, b, n_segments) for s, b in zip(starts, lengths, strict=True)
        ],
    }
    rows = []
    for x in range(len(systems)):
        for y in range(len(systems)):
            if x == y:
                continue
            actual = float(
                score(loop_total(stats[x], range(n_segments)))
                - score(loop_total(stats[y], range(n_segments)))
            )
            # the tests of one kind of draws share their pseudo-statistics
            pseudos: dict[str, list[float]] = {}
            for test in tests:
                kind = (
                    "randomization"
                    if "randomization" in test
                    else "documents"
                    if "documents" in test
                    else "stationary"
                    if "stationary" in test
                    else "iid"
                )
                if kind not in pseudos:
                    pseudos[kind] = (
                        loop_pseudo_randomization(stats[x], stats[y], score, masks)
                        if kind == "randomization"
                        else loop_pseudo_bootstrap(stats[x], stats[y], score, test_sets[kind])
                    )
                pseudo = pseudos[kind]
                p = loop_p_value(test, pseudo, actual, convention)
                rows.append((systems[x], systems[y], test, actual, p, pseudo))
    return rows


@pytest.mark.parametrize("convention", ["c/B", "(c+1)/(B+1)"])
def test_engine_equals_loop_transcription_of_the_figures(convention: str) -> None:
    stats = small_bleu_stats()
    systems = ["A", "B", "C", "D"]
    documents = np.repeat(
        [f"doc{d}" for d in (3, 1, 4, 1, 5, 9, 2, 6)], 5
    )  # 8 blocks of 5; doc1 appears twice
    n_samples = 300  # crosses a block boundary (256)
    result = rs.pairwise_tests(
        stats,
        bleu_score,
        systems,
        rs.ResamplingOptions(
            tests=rs.ALL_TESTS,
            n_samples=n_samples,
            seed=SEED,
            pvalue=convention,
            documents=documents,
            mean_block_length=3.5,
            keep_distributions=[("A", "B"), ("D", "C")],
        ),
    )
    expected = oracle_table(
        stats, bleu_score, systems, rs.ALL_TESTS, n_samples, SEED, convention, documents, 3.5
    )
    table = result.table.set_index(["sys_x", "sys_y", "test"])
    assert len(table) == len(expected) == 12 * len(rs.ALL_TESTS)
    for sys_x, sys_y, test, actual, p, pseudo in expected:
        row = table.loc[(sys_x, sys_y, test)]
        assert row["statistic"] == actual
        assert row["p_value"] == p, (sys_x, sys_y, test)
        if (sys_x, sys_y) in result.distributions:
            np.testing.assert_array_equal(result.distributions[(sys_x, sys_y)][test], pseudo)
            assert result.distributions[(sys_x, sys_y)]["actual"] == actual
    # The case is not degenerate: p-values spread over (0, 1).
    assert 0.05 < table["p_value"].median() < 0.95 and table["p_value"].nunique() > 50


def test_stationary_indices_equal_loop_and_block_lengths_have_the_requested_mean() -> None:
    starts, lengths = draws.stationary_draws(SEED, 50, 4.0, 0)
    indices = draws.stationary_indices(starts, lengths)
    for row in range(starts.shape[0]):
        assert list(indices[row]) == loop_stationary_series(starts[row], lengths[row], 50)
    # Geometric on {1, 2, ...} with p = 1/b has mean b: 256*50 draws, SE = sqrt((1-p)/p^2 / n) ~ 0.031.
    assert abs(lengths.mean() - 4.0) < 5 * math.sqrt(0.75 * 16 / lengths.size)
    assert lengths.min() >= 1


def test_count_matrices_equal_bincount_by_hand() -> None:
    indices = np.array([[0, 0, 2], [1, 2, 2]])
    np.testing.assert_array_equal(draws.counts_from_indices(indices, 3), [[2, 0, 1], [0, 1, 2]])
    # Documents numbered by first appearance: "b" -> 0, "a" -> 1.
    np.testing.assert_array_equal(draws.document_codes(["b", "b", "a", "b"]), [0, 0, 1, 0])


# --------------------------------------------------------------------------- oracle 2: sacrebleu PairedTest


def test_bleu_helper_equals_sacrebleu_corpus_score(es_en_texts) -> None:
    """bleu_score of sacrebleu's own summed statistics is sacrebleu's corpus score (two systems)."""
    bleu = BLEU()
    refs = es_en_texts["refs"]
    for name in ES_EN[:2]:
        hyps = es_en_texts["hyps"][name]
        stats = np.array(bleu._extract_corpus_statistics(hyps, [refs]), dtype=np.float64)
        expected = bleu.corpus_score(hyps, [refs]).score
        assert bleu_score(stats.sum(axis=0)) == pytest.approx(expected, rel=1e-12)


# Slow (sacrebleu scores every resample in a Python loop): tests/test_cli_sacrebleu.py checks the same
# correspondence by default, through `mtsig compare`, on other WMT12 systems.
@pytest.mark.slow
def test_rm_tests_agree_with_sacrebleu_paired_test(es_en, monkeypatch) -> None:
    """sacrebleu's AR counts |d_r| > |d| and its bootstrap counts |d_b| - mean|d_b| > |d|, both with
    p = (c+1)/(B+1): R&M's forms, so they estimate the same p-values as our rm_* tests (strict vs non-strict
    inequality differs only on exact ties, which have probability ~0 for corpus BLEU on 3003 segments).

    The two estimates use independent draws, so each is Binomial(B, p)/B and their difference has standard error
    sqrt(p(1-p)(1/B1 + 1/B2)); we allow 4 standard errors (a false alarm has probability ~6e-5 per comparison)
    plus 2/(B+1) for the +1 terms.
    """
    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    n_samples = 2000
    names = list(ES_EN)  # baseline first, as PairedTest expects
    named = [(name, es_en["hyps"][name]) for name in names]
    ours = rs.pairwise_tests(
        es_en["stats"],
        bleu_score,
        names,
        rs.ResamplingOptions(
            tests=("rm_bootstrap", "rm_approximate_randomization"),
            n_samples=n_samples,
            seed=SEED,
            pairs=[(0, j) for j in range(1, len(names))],
        ),
    ).table.set_index(["sys_x", "sys_y", "test"])["p_value"]
    for test_type, ours_test in (("ar", "rm_approximate_randomization"), ("bs", "rm_bootstrap")):
        metric = BLEU(references=[es_en["refs"]])
        _, scores = PairedTest(named, {"BLEU": metric}, None, test_type=test_type, n_samples=n_samples)()
        for name, result in zip(names[1:], scores["BLEU"][1:], strict=True):
            p_theirs, p_ours = result.p_value, ours[(names[0], name, ours_test)]
            p = (p_theirs + p_ours) / 2
            tolerance = 4 * math.sqrt(p * (1 - p) * 2 / n_samples) + 2 / (n_samples + 1)
            assert abs(p_ours - p_theirs) <= tolerance, (test_type, name, p_ours, p_theirs)
    # The comparison has teeth: some p-values are far from both 0 and 1.
    assert ((ours > 0.02) & (ours < 0.9)).sum() >= 2


# --------------------------------------------------------------------------- oracle 3: calibration


@pytest.mark.slow
def test_one_sided_tests_are_calibrated_on_exchangeable_real_pairs(es_en) -> None:
    """Known truth: swapping each segment's statistics between two real systems with probability 0.5 makes the
    pair exchangeable (H0 holds exactly), so each one-sided test should reject "X better" at alpha = 0.05 at a rate
    within the 99% binomial interval around 0.05. Each pair gets its own seed so rejections are independent.
    For AR with c/R the exact rate is (floor(alpha R) + 1)/(R + 1) = 0.0519 here, inside the interval too."""
    alpha, n_pairs, n_samples = 0.05, 200, 500
    base = es_en["stats"][[0, 1]]  # jhu-hiero, GTH-UPM: BLEU 29.2 vs 28.9
    tests = ("paired_bootstrap", "bootstrap", "approximate_randomization")
    rejections = dict.fromkeys(tests, 0)
    for pair in range(n_pairs):
        swap = rng_for(SEED, "calibration", pair).integers(0, 2, size=base.shape[1]).astype(bool)
        stats = base.copy()
        stats[0, swap], stats[1, swap] = base[1, swap], base[0, swap]
        table = rs.pairwise_tests(
            stats,
            bleu_score,
            ["x", "y"],
            rs.ResamplingOptions(tests=tests, n_samples=n_samples, seed=pair, memory_cap_bytes=1 << 28),
        ).table
        one_way = table[table["sys_x"] == "x"].set_index("test")["p_value"]
        for test in tests:
            rejections[test] += bool(one_way[test] <= alpha)
    low, high = scipy_stats.binom.interval(0.99, n_pairs, alpha)
    for test in tests:
        assert low <= rejections[test] <= high, (test, rejections[test], (low, high))


# ------------------------------------------------------------------------------------------ invariances


def _run(stats, **kwargs) -> rs.PairwiseResult:
    n_systems, n_segments, _ = stats.shape
    options = {
        "tests": rs.ALL_TESTS,
        "n_samples": 300,
        "seed": SEED,
        "documents": np.arange(n_segments) // 7,
        "mean_block_length": 5.0,
    }
    options.update(kwargs)
    return rs.pairwise_tests(
        stats, bleu_score, [f"s{i}" for i in range(n_systems)], rs.ResamplingOptions(**options)
    )


def test_memory_cap_changes_no_number_and_bounds_peak_memory() -> None:
    stats = small_bleu_stats(n_systems=6, n_segments=120, seed=3)
    full = _run(stats).table
    cap = 3 << 20  # forces one-pair chunks for AR (each pair needs ~0.4 MB per block of 256 shuffles)
    tracemalloc.start()
    try:
        small = _run(stats, memory_cap_bytes=cap).table
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    pd.testing.assert_frame_equal(small, full, check_exact=True)
    assert peak <= cap, peak
    with pytest.raises(ValueError, match="memory_cap_bytes"):
        _run(stats, memory_cap_bytes=1 << 16)


def test_shards_of_pairs_give_the_rows_of_the_full_run() -> None:
    stats = small_bleu_stats(n_systems=5, n_segments=60, seed=5)
    full = _run(stats, keep_distributions=[("s3", "s1")])
    shard = _run(stats, pairs=[(3, 1), (0, 4)], keep_distributions=[("s3", "s1")])
    keys = ["sys_x", "sys_y", "test"]
    expected = full.table.set_index(keys).loc[shard.table.set_index(keys).index].reset_index()
    pd.testing.assert_frame_equal(shard.table, expected, check_exact=True)
    assert len(shard.table) == 4 * len(rs.ALL_TESTS)
    for test in rs.ALL_TESTS:
        np.testing.assert_array_equal(
            shard.distributions[("s3", "s1")][test], full.distributions[("s3", "s1")][test]
        )


def test_fewer_samples_use_a_prefix_of_the_same_draws() -> None:
    stats = small_bleu_stats()
    long = _run(stats, n_samples=600, keep_distributions=[("s0", "s1")]).distributions[("s0", "s1")]
    short = _run(stats, n_samples=100, keep_distributions=[("s0", "s1")]).distributions[("s0", "s1")]
    for test in rs.ALL_TESTS:
        np.testing.assert_array_equal(short[test], long[test][:100])


def test_per_test_sample_counts_share_draws() -> None:
    stats = small_bleu_stats()
    mixed = _run(
        stats, tests=("paired_bootstrap", "bootstrap"), n_samples={"paired_bootstrap": 100, "bootstrap": 300}
    )
    alone = _run(stats, tests=("paired_bootstrap",), n_samples=100)
    pd.testing.assert_frame_equal(
        mixed.table[mixed.table["test"] == "paired_bootstrap"].reset_index(drop=True),
        alone.table,
        check_exact=True,
    )


def test_same_seed_same_bytes_other_seed_other_draws() -> None:
    stats = small_bleu_stats()
    first, second, other = _run(stats).table, _run(stats).table, _run(stats, seed=SEED + 1).table
    assert first.to_csv().encode() == second.to_csv().encode()
    assert not np.array_equal(first["p_value"], other["p_value"])


def test_ter_is_oriented_so_that_positive_means_x_better() -> None:
    # Hand-made: X makes 10 errors on 100 reference words, Y makes 20. TER_x = 0.1, TER_y = 0.2.
    stats = np.zeros((2, 20, 2))
    stats[:, :, 1] = 5.0
    stats[0, :10, 0] = 1.0
    stats[1, :, 0] = 1.0
    result = rs.pairwise_tests(
        stats,
        error_rate,
        ["X", "Y"],
        rs.ResamplingOptions(higher_is_better=False, tests=rs.PAPER_TESTS, n_samples=200, seed=1),
    )
    table = result.table.set_index(["sys_x", "sys_y", "test"])
    assert table.loc[("X", "Y", "paired_bootstrap"), "statistic"] == pytest.approx(0.2 - 0.1)
    assert table.loc[("Y", "X", "paired_bootstrap"), "statistic"] == pytest.approx(0.1 - 0.2)
    assert result.system_scores == {"X": pytest.approx(0.1), "Y": pytest.approx(0.2)}  # reported as is
    # 10 of 20 segments differ, all in X's favour: significant for X, not for Y.
    assert (table.loc[("X", "Y")]["p_value"] <= 0.01).all()
    assert (table.loc[("Y", "X")]["p_value"] >= 0.99).all()
    # Same numbers as negating the score by hand.
    negated = rs.pairwise_tests(
        stats,
        lambda t: -error_rate(t),
        ["X", "Y"],
        rs.ResamplingOptions(tests=rs.PAPER_TESTS, n_samples=200, seed=1),
    )
    pd.testing.assert_frame_equal(negated.table, result.table, check_exact=True)


def test_p_value_conventions() -> None:
    stats = small_bleu_stats()
    n = 300
    plain = _run(stats, n_samples=n, pvalue="c/B").table
    plus_one = _run(stats, n_samples=n, pvalue="(c+1)/(B+1)").table
    is_rm = plain["test"].str.startswith("rm_")
    counts = np.rint(plain["p_value"] * n)
    np.testing.assert_allclose(
        plus_one["p_value"][~is_rm], ((counts + 1) / (n + 1))[~is_rm], rtol=0, atol=1e-15
    )
    np.testing.assert_array_equal(plus_one["p_value"][is_rm], plain["p_value"][is_rm])
    assert (plain["p_value"][is_rm] > 0).all()  # R&M's p is (c+1)/(B+1) under either convention


def test_two_sided_p_values_are_equal_for_both_orders() -> None:
    table = _run(small_bleu_stats()).table.set_index(["sys_x", "sys_y", "test"])["p_value"]
    for test, spec in rs.TESTS.items():
        if spec.sided == "two-sided":
            assert table[("s0", "s2", test)] == table[("s2", "s0", test)]


def test_bad_arguments_are_rejected() -> None:
    stats = small_bleu_stats()
    with pytest.raises(ValueError, match="unknown test"):
        _run(stats, tests=("t_test",))
    with pytest.raises(ValueError, match="document id per segment"):
        _run(stats, documents=np.arange(3))
    with pytest.raises(ValueError, match="shape"):
        rs.pairwise_tests(stats[0], bleu_score, ["a"], rs.ResamplingOptions(seed=1))
    with pytest.raises(ValueError, match="invalid system pair"):
        _run(stats, pairs=[(1, 1)])
    with pytest.raises(ValueError, match="convention"):
        _run(stats, pvalue="c/(B+1)")


# ------------------------------------------------------------------------- exact fast products, threads


def test_float32_exactness_bound_by_hand() -> None:
    # 2**24 = 16 777 216 is the last integer of an unbroken run that float32 represents: 2**24 + 1 rounds away.
    assert np.float32(2**24) + np.float32(1) == np.float32(2**24)
    assert operands.FLOAT32_EXACT_INTEGER_LIMIT == 16_777_216
    assert operands.float32_is_exact(255.0, 65_793)  # 255 * 65 793 = 16 777 215 <= 2**24
    assert operands.float32_is_exact(1.0, 2**24)
    assert not operands.float32_is_exact(1.0, 2**24 + 1)
    assert not operands.float32_is_exact(256.0, 65_537)  # 16 777 472 > 2**24
    assert is_integer_valued(np.array([0.0, 3.0, -7.0]))
    assert not is_integer_valued(np.array([1.0, 2.5]))
    assert not is_integer_valued(np.array([1.0, np.nan]))
    assert not is_integer_valued(np.array([np.inf]))


def test_distinct_columns_and_weight_row_sum_bounds_by_hand() -> None:
    matrix = np.array([[1.0, 2.0, 1.0, 3.0, 2.0], [4.0, 5.0, 4.0, 6.0, 5.0]])
    distinct, column_of = operands.distinct_columns(matrix)
    np.testing.assert_array_equal(distinct, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])  # order of first appearance
    np.testing.assert_array_equal(column_of, [0, 1, 0, 2, 1])
    # Documents of sizes 2, 1, 3: at most 3 documents drawn, each at most 3 segments -> 9.
    codes = np.array([0, 0, 1, 2, 2, 2])
    assert draws.max_weight_row_sum(draws.DOCUMENT_BOOTSTRAP, 6, codes) == 9
    counts = draws.scheme_counts(draws.DOCUMENT_BOOTSTRAP, SEED, 6, 0, document_of_segment=codes)
    assert counts.sum(axis=1).max() <= 9
    assert draws.max_weight_row_sum(draws.IID_BOOTSTRAP, 6) == 6
    assert draws.max_weight_row_sum(draws.RANDOMIZATION, 6) == 6
    np.testing.assert_array_equal(draws.scheme_counts(draws.IID_BOOTSTRAP, SEED, 6, 0).sum(axis=1), 6)


def test_float32_and_float64_products_give_identical_tables() -> None:
    """BLEU depends on its statistics only through ratios, which scaling by a power of two leaves exactly unchanged.
    Scaled by 1/2 (not integer-valued) or by 2**16 (integers, but sums could pass 2**24) the engine must use float64
    products; unscaled, float32 ones. All three tables must be byte-identical."""
    stats = small_bleu_stats(n_systems=4, n_segments=60, seed=11)
    n_segments = stats.shape[1]
    assert is_integer_valued(stats)
    assert operands.float32_is_exact(np.abs(stats).max(), n_segments)
    assert not is_integer_valued(stats * 0.5)
    assert not operands.float32_is_exact(np.abs(stats * 2.0**16).max(), n_segments)
    reference = _run(stats).table
    for scaled in (stats * 0.5, stats * 2.0**16):
        pd.testing.assert_frame_equal(_run(scaled).table, reference, check_exact=True)


def test_thread_count_changes_no_number(monkeypatch) -> None:
    stats = small_bleu_stats(n_systems=5, n_segments=90, seed=13)
    monkeypatch.setenv("MTSIG_THREADS", "1")
    serial = _run(stats, n_samples=1100, keep_distributions=[("s1", "s4")])
    monkeypatch.setenv("MTSIG_THREADS", "3")
    threaded = _run(stats, n_samples=1100, keep_distributions=[("s1", "s4")])
    capped = _run(stats, n_samples=1100, memory_cap_bytes=3 << 20)
    pd.testing.assert_frame_equal(threaded.table, serial.table, check_exact=True)
    pd.testing.assert_frame_equal(capped.table, serial.table, check_exact=True)
    for test in rs.ALL_TESTS:
        np.testing.assert_array_equal(
            threaded.distributions[("s1", "s4")][test], serial.distributions[("s1", "s4")][test]
        )
    monkeypatch.setenv("MTSIG_THREADS", "two")
    with pytest.raises(ValueError, match="MTSIG_THREADS"):
        _run(stats)


def test_swap_mask_bits_are_independent_fair_coins() -> None:
    """Known truth: each coin is 1 with probability 1/2, independently. 256 x 1000 coins; the mean and the rate of
    equal neighbours (within and across the bytes the bits come from) must be within 5 standard errors of 1/2."""
    masks = draws.swap_masks(SEED, 1000, 0)
    assert masks.dtype == bool and masks.shape == (draws.DRAW_BLOCK_SIZE, 1000)
    assert abs(masks.mean() - 0.5) < 5 * math.sqrt(0.25 / masks.size)
    for lag in (1, 7, 8):  # neighbours in a byte, across bytes, same bit of adjacent bytes
        equal = masks[:, lag:] == masks[:, :-lag]
        assert abs(equal.mean() - 0.5) < 5 * math.sqrt(0.25 / equal.size), lag
    assert not np.array_equal(masks, draws.swap_masks(SEED, 1000, 1))


def test_stationary_draws_cover_the_series_and_indices_equal_the_loop(monkeypatch) -> None:
    # First round by hand: min(N, ceil(2N/b) + 32): N = 3003, b = 14.42 -> ceil(416.5) + 32 = 449.
    assert draws.stationary_blocks_first_round(3003, 14.42) == 449
    assert draws.stationary_blocks_first_round(50, 4.0) == 50
    cases = [
        (300, 6.0),
        (30, 45.0),
    ]  # short blocks; blocks longer than the series (they wrap around the circle)
    for n, b in cases:
        starts, lengths = draws.stationary_draws(SEED, n, b, 0)
        assert (lengths.sum(axis=1) >= n).all()
        indices = draws.stationary_indices(starts, lengths, n)
        for row in range(0, draws.DRAW_BLOCK_SIZE, 17):
            assert list(indices[row]) == loop_stationary_series(starts[row], lengths[row], n), (n, b, row)
    # Force the second round (a first round of one block cannot cover 300 points): N pairs, still exact.
    monkeypatch.setattr(draws, "stationary_blocks_first_round", lambda n_segments, mean_block_length: 1)
    starts, lengths = draws.stationary_draws(SEED, 300, 6.0, 0)
    assert starts.shape == lengths.shape == (draws.DRAW_BLOCK_SIZE, 300)
    indices = draws.stationary_indices(starts, lengths, 300)
    for row in range(0, draws.DRAW_BLOCK_SIZE, 17):
        assert list(indices[row]) == loop_stationary_series(starts[row], lengths[row], 300)


def test_bootstrap_indices_are_numpy_s_bounded_integers_or_floors_of_uniforms() -> None:
    """The one bootstrap draw: ``rng.integers(0, n, (B, n))`` of the same generator (the engine's blocks, the
    meta-evaluation's bootstraps), or ``floor(u n)`` of ``rng.random`` per row of its own size (WMT26's ranking),
    each index below its row's size, and every unit drawn about equally often (chi-square against uniform)."""
    got = draws.bootstrap_indices(np.random.default_rng(4), 37, 500)
    np.testing.assert_array_equal(got, np.random.default_rng(4).integers(0, 37, size=(500, 37)))
    np.testing.assert_array_equal(
        draws.iid_draws(SEED, 37, 3),
        rng_for(SEED, "mtsig.resampling", "iid_bootstrap", 37, 3).integers(
            0, 37, size=(draws.DRAW_BLOCK_SIZE, 37)
        ),
    )
    sizes = np.array([5, 1, 9, 0])
    ragged = draws.bootstrap_indices(np.random.default_rng(8), sizes, 4000, width=9, draw=draws.UNIFORM_DRAWS)
    uniform = np.random.default_rng(8).random((4, 4000, 9))
    assert ragged.shape == (4, 4000, 9)
    for k, n in enumerate(sizes):
        assert (ragged[k] == np.minimum(np.floor(uniform[k] * n), max(n - 1, 0))).all()
        if n > 1:
            counts = np.bincount(ragged[k, :, :n].ravel(), minlength=n)
            assert scipy_stats.chisquare(counts).pvalue > 1e-4
    with pytest.raises(ValueError, match="draw must be"):
        draws.bootstrap_indices(np.random.default_rng(1), 3, 2, draw="choice")


@pytest.mark.parametrize("n", [40, draws.ROW_BY_ROW_COUNTS, 3003])
def test_bootstrap_counts_count_each_row_s_draws(n: int) -> None:
    """The count matrix of a block of i.i.d. draws, counted all rows at once (few items) or row by row (many): how
    often each item occurs in each row, in the requested dtype."""
    indices = draws.iid_draws(SEED, n, 2)
    for dtype in (np.float32, np.float64):
        counts = draws.counts_from_indices(indices, n, dtype)
        assert counts.dtype == dtype and counts.shape == (draws.DRAW_BLOCK_SIZE, n)
        for row in (0, 7, draws.DRAW_BLOCK_SIZE - 1):
            expected = np.zeros(n)
            for item in indices[row]:
                expected[item] += 1
            np.testing.assert_array_equal(counts[row], expected)


def test_stationary_counts_equal_counting_the_loop_series() -> None:
    """The engine counts stationary-bootstrap draws from the blocks directly; the counts must equal those of the
    literal loop series, including blocks longer than the series (wrapping the circle several times)."""
    for n, b in ((200, 6.0), (30, 45.0), (7, 3.0), (40, 1.0)):
        starts, lengths = draws.stationary_draws(SEED, n, b, 1)
        counts = draws.stationary_counts(starts, lengths, n, dtype=np.float32)
        assert counts.dtype == np.float32
        for row in range(0, draws.DRAW_BLOCK_SIZE, 5):
            series = loop_stationary_series(starts[row], lengths[row], n)
            assert list(counts[row]) == [series.count(i) for i in range(n)], (n, b, row)


# ------------------------------------------------------------------------------------- relabelled pairs


def _relabelled_case(integer: bool, documents: np.ndarray | None = None) -> rs.RelabelledPairs:
    """Two systems' BLEU-like statistics with every special case of the factored form: a statistic shared by X and
    Y (the reference length), a difference column that is zero on most segments, two statistics with the same
    difference, and pairs with the same keep mask. With ``documents`` (each segment's document), whole documents
    keep or swap their labels."""
    rng = np.random.default_rng(SEED)
    n = 120
    stats_x = rng.integers(0, 12, (n, 10)).astype(float)
    stats_y = rng.integers(0, 12, (n, 10)).astype(float)
    stats_y[:, 1] = stats_x[:, 1]  # shared reference length
    stats_y[20:, 5] = stats_x[20:, 5]  # difference zero on 100 of 120 segments
    stats_x[:, 9], stats_y[:, 9] = stats_x[:, 8] + 1, stats_y[:, 8] + 1  # same difference as statistic 8
    if not integer:
        stats_x[:, 2] += rng.random(n) / 3  # NIST-like information weights
    keep = rng.random((6, n)) < 0.6
    if documents is not None:
        by_document = rng.random((6, documents.max() + 1)) < 0.6
        # the first four masks spell each document's number in binary: no two documents are relabelled alike
        by_document[:4] = (np.arange(documents.max() + 1) >> np.arange(4)[:, None]) & 1
        keep = by_document[:, documents]
    keep[4] = keep[5] = True  # q = 1: two identical pairs
    return rs.RelabelledPairs(stats_x, stats_y, keep)


#: Segment -> document of the relabelled cases: 12 documents of 10 segments, contiguous or interleaved.
CONTIGUOUS_DOCUMENTS = np.repeat(np.arange(12), 10)
INTERLEAVED_DOCUMENTS = np.random.default_rng(3).permutation(CONTIGUOUS_DOCUMENTS)


def _assert_factored_totals_equal_direct_products(operand, stacked: np.ndarray) -> None:
    """The operand's weighted totals equal the direct product of the stacked statistics, one system and statistic
    at a time (a loop), for bootstrap counts, AR masks and float32 weights."""
    n_systems, n_segments, k = stacked.shape
    counts = draws.scheme_counts(draws.IID_BOOTSTRAP, SEED, n_segments, 0)[:40]
    masks = draws.swap_masks(SEED, n_segments, 0)[:40].astype(np.float64)
    for weights in (counts, masks, counts.astype(np.float32)):
        factored = operand.weighted_totals(weights).reshape(len(weights), n_systems, k)
        for s in range(n_systems):
            for c in range(k):
                direct = weights.astype(np.float64) @ stacked[s, :, c]
                np.testing.assert_array_equal(factored[:, s, c], direct)


def test_relabelled_operand_totals_equal_products_of_the_stacked_statistics() -> None:
    """The factored totals ``W @ Y + W @ Z_p`` / ``W @ X - W @ Z_p`` against the direct product of the stacked
    statistics, one system and statistic at a time (a loop), for bootstrap counts and for AR masks."""
    pairs = _relabelled_case(integer=True)
    stacked = pairs.materialise()
    operand, totals = relabelled.relabelled_operand(pairs)
    np.testing.assert_array_equal(totals, stacked.sum(axis=1))
    _assert_factored_totals_equal_direct_products(operand, stacked)
    assert len(operand.deltas) == 2  # the dense columns together, the sparse one alone
    assert operand.deltas[1].rows is not None and len(operand.deltas[1].rows) <= 20


@pytest.mark.parametrize(
    "documents", [CONTIGUOUS_DOCUMENTS, INTERLEAVED_DOCUMENTS], ids=["contiguous", "interleaved"]
)
def test_relabelled_documents_are_multiplied_document_by_document(documents: np.ndarray) -> None:
    """Whole documents relabelled: the products are summed per document and then over the documents' keep
    (GroupedDelta), exactly the direct products of the stacked statistics, one system and statistic at a time, for
    bootstrap counts, AR masks and float32 weights; documents need not be contiguous."""
    pairs = _relabelled_case(integer=True, documents=documents)
    stacked = pairs.materialise()
    operand, totals = relabelled.relabelled_operand(pairs)
    assert [type(delta).__name__ for delta in operand.deltas] == ["GroupedDelta"]
    assert (operand.deltas[0].order is None) == (documents is CONTIGUOUS_DOCUMENTS)
    np.testing.assert_array_equal(totals, stacked.sum(axis=1))
    _assert_factored_totals_equal_direct_products(operand, stacked)


def test_the_document_bootstrap_multiplies_documents_summed_statistics_to_the_same_bits() -> None:
    """The document bootstrap's weights are constant within documents, so the engine multiplies the documents'
    counts by the documents' summed statistics (by_document): the totals equal the segments' counts times the
    segments' statistics bit for bit, for stacked statistics, relabelled pairs (segments or whole documents
    relabelled) and the integer slices of statistics that are not integers, with the weights' dtypes the engine
    uses; statistics that are not integers, stacked, are left as they are."""
    documents = INTERLEAVED_DOCUMENTS
    n_documents = int(documents.max()) + 1
    cases = [
        operands.statistics_operand(small_bleu_stats(n_systems=4, n_segments=len(documents))),
        relabelled.relabelled_operand(_relabelled_case(integer=True))[0],
        relabelled.relabelled_operand(_relabelled_case(integer=True, documents=documents))[0],
        relabelled.sliced_relabelled_operand(_relabelled_case(integer=False, documents=documents), 4096)[0],
        relabelled.sliced_relabelled_operand(_relabelled_case(integer=False), 4096)[0],
    ]
    for operand in cases:
        summed = operands.by_document(operand, documents)
        if summed is None:  # whole documents relabelled: multiplied group by group already
            assert any(
                isinstance(delta, GroupedDelta)
                for level in getattr(operand, "levels", [operand])
                for delta in level.deltas
            )
            continue
        # float32 weights where the engine uses them: never with the slices (weight_dtype)
        for dtype in (np.float64,) if isinstance(operand, SlicedOperand) else (np.float32, np.float64):
            per_document = draws.document_counts(SEED, n_documents, 1, dtype)
            segments = draws.scheme_counts(
                draws.DOCUMENT_BOOTSTRAP, SEED, len(documents), 1, document_of_segment=documents, dtype=dtype
            )
            expected = operand.weighted_totals(segments)
            assert summed.weighted_totals(per_document).tobytes() == expected.tobytes()
    not_integers = operands.statistics_operand(
        np.random.default_rng(1).gamma(2.0, 1.5, size=(3, len(documents), 2))
    )
    assert operands.by_document(not_integers, documents) is None


def _assert_factored_equals_stacked(pairs: rs.RelabelledPairs, documents: np.ndarray) -> None:
    """pairwise_tests on ``pairs`` and on their stacked statistics give the same table and scores, byte for byte,
    for every test (six pairs of two systems, B = 300)."""
    names = [f"p{p}.{side}" for p in range(6) for side in "xy"]
    options = dict(
        tests=rs.ALL_TESTS,
        n_samples=300,
        seed=SEED,
        pairs=[(2 * p, 2 * p + 1) for p in range(6)],
        documents=documents,
        mean_block_length=3.0,
    )
    factored = rs.pairwise_tests(pairs, bleu_score, names, rs.ResamplingOptions(**options))
    stacked = rs.pairwise_tests(pairs.materialise(), bleu_score, names, rs.ResamplingOptions(**options))
    pd.testing.assert_frame_equal(factored.table, stacked.table, check_exact=True)
    assert factored.system_scores == stacked.system_scores


@pytest.mark.parametrize("integer", [True, False])
def test_relabelled_documents_give_the_stacked_statistics_results(integer: bool) -> None:
    """pairwise_tests on whole documents relabelled equals pairwise_tests on the stacked statistics byte for byte,
    for every test, integer statistics or not (then every integer slice is multiplied document by document)."""
    pairs = _relabelled_case(integer, documents=INTERLEAVED_DOCUMENTS)
    _assert_factored_equals_stacked(pairs, INTERLEAVED_DOCUMENTS)


@pytest.mark.parametrize("integer", [True, False])
def test_relabelled_pairs_give_the_stacked_statistics_results(integer: bool) -> None:
    """pairwise_tests on RelabelledPairs equals pairwise_tests on the stacked statistics byte for byte, for every
    test: for non-integer statistics the factored form of integer slices (sliced_relabelled_operand)."""
    _assert_factored_equals_stacked(_relabelled_case(integer), CONTIGUOUS_DOCUMENTS)


@pytest.mark.parametrize("convention", ["c/B", "(c+1)/(B+1)"])
@pytest.mark.parametrize("n_segments", [1, 40])
def test_identical_systems_get_p_one_from_every_test(convention: str, n_segments: int) -> None:
    """A system compared with a byte copy of itself (d = 0 and every d_b = d_r = 0) is never significant:
    p = 1 from every test, both orders, every sidedness and block bootstrap (c = B: a tie is no evidence). The
    literal Fig. 4 rule counted no sample and gave p = 0, "X better than Y" and "Y better than X" at once."""
    one = small_bleu_stats(n_systems=1, n_segments=n_segments)[0]
    other = small_bleu_stats(n_systems=2, n_segments=n_segments, seed=8)[1]
    stats = np.stack([one, one, other])
    result = _run(stats, pvalue=convention, documents=np.arange(n_segments) // 7)
    table = result.table.set_index(["sys_x", "sys_y"])
    for pair in [("s0", "s1"), ("s1", "s0")]:
        same = table.loc[pair]
        assert set(same["test"]) == set(rs.ALL_TESTS)
        assert (same["statistic"] == 0).all()
        assert (same["p_value"] == 1.0).all(), same[same["p_value"] != 1.0]
