"""Comparing two metrics (mtsig.stats.meta_evaluation.metric_comparison).

Oracles: exact permutation distributions enumerated by brute force with scipy.stats.pearsonr (all 2^S swaps of a
small PERM-BOTH / PERM-SYSTEMS case); the binomial distribution of a sign-flip test (scipy.stats.binom) for the
accuracy test; hand-worked pairwise accuracies with ties (Deutsch et al. 2023, acc_eq = (C + T_hm) / P); degenerate
bootstrap cases worked by hand; and a simulation with known truth (two exchangeable metrics: PERM-BOTH's Type I
error at 5%). mt-metrics-eval's own PermutationSigDiff is run side by side on WMT20 ja-en in
benchmarks/bench_metric_comparison.py (its code is fetched, never committed).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from mtsig.errors import InputError
from mtsig.stats.meta_evaluation import metric_comparison as mc
from mtsig.stats.seeding import rng_for


def _exact_perm_p(human, a, b):
    """All 2^S swaps of the cells of system-level scores (a, b z-scored first), p = share with d' >= d."""
    a = stats.zscore(a)
    b = stats.zscore(b)
    delta = stats.pearsonr(b, human)[0] - stats.pearsonr(a, human)[0]
    hits = 0
    for swap in itertools.product([False, True], repeat=len(a)):
        s = np.array(swap)
        a2, b2 = np.where(s, b, a), np.where(s, a, b)
        hits += stats.pearsonr(b2, human)[0] - stats.pearsonr(a2, human)[0] >= delta - 1e-12
    return delta, hits / 2 ** len(a)


def test_perm_systems_equals_exact_enumeration():
    rng = np.random.default_rng(3)
    human = rng.normal(size=6)
    a = human + rng.normal(scale=1.0, size=6)
    b = human + rng.normal(scale=0.5, size=6)
    delta, exact = _exact_perm_p(human, a, b)
    res = mc.perm_both(human, a, b, mc.PermBothOptions(n_resamples=20000), rng=rng_for(1, "t"))
    assert res.delta == pytest.approx(delta, abs=1e-12)
    assert abs(res.p_value - exact) < 4 * np.sqrt(exact * (1 - exact) / 20000) + 1e-9


def test_perm_both_system_level_equals_exact_enumeration():
    # 2 systems x 3 inputs = 6 cells: enumerate every swap; the system score is the mean of its inputs
    rng = np.random.default_rng(8)
    a = rng.normal(size=(3, 2))
    b = rng.normal(size=(3, 2))
    human = np.array([0.1, 0.5, 0.2])
    za, zb = stats.zscore(a.ravel()).reshape(3, 2), stats.zscore(b.ravel()).reshape(3, 2)
    delta = stats.pearsonr(zb.mean(1), human)[0] - stats.pearsonr(za.mean(1), human)[0]
    hits = 0
    for swap in itertools.product([False, True], repeat=6):
        s = np.array(swap).reshape(3, 2)
        a2, b2 = np.where(s, zb, za), np.where(s, za, zb)
        hits += stats.pearsonr(b2.mean(1), human)[0] - stats.pearsonr(a2.mean(1), human)[0] >= delta - 1e-12
    exact = hits / 64
    res = mc.perm_both(human, a, b, mc.PermBothOptions(n_resamples=20000), rng=rng_for(1, "t2"))
    assert res.delta == pytest.approx(delta, abs=1e-12)
    assert abs(res.p_value - exact) < 4 * np.sqrt(exact * (1 - exact) / 20000) + 1e-9


def test_perm_both_flat_segment_level_matches_scipy_correlation():
    rng = np.random.default_rng(4)
    human = rng.normal(size=(4, 5))
    a = human + rng.normal(size=(4, 5))
    res = mc.perm_both(human, a, a, mc.PermBothOptions(n_resamples=50), rng=rng_for(1, "same"))
    assert res.corr_a == pytest.approx(stats.pearsonr(a.ravel(), human.ravel())[0], abs=1e-12)
    # identical metrics: every swap changes nothing, d' = d = 0, so every draw counts (hand)
    assert res.delta == 0 and res.p_value == 1.0


def test_perm_both_type_one_error_of_exchangeable_metrics():
    """Known truth: a and b are exchangeable (same noise law), so P(p <= 0.05) should be about 5%."""
    rng = np.random.default_rng(11)
    rejections = 0
    n_sim = 300
    for k in range(n_sim):
        truth = rng.normal(size=(8, 1)) + 0.3 * rng.normal(size=(8, 20))
        human = truth.mean(1) + 0.1 * rng.normal(size=8)
        a = truth + rng.normal(size=(8, 20))
        b = truth + rng.normal(size=(8, 20))
        rejections += (
            mc.perm_both(human, a, b, mc.PermBothOptions(n_resamples=200), rng=rng_for(7, k)).p_value <= 0.05
        )
    rate = rejections / n_sim
    assert abs(rate - 0.05) < 4 * np.sqrt(0.05 * 0.95 / n_sim)


def test_perm_both_deterministic_whatever_the_chunk(monkeypatch):
    rng = np.random.default_rng(2)
    human = rng.normal(size=5)
    a, b = rng.normal(size=(5, 7)), rng.normal(size=(5, 7))
    first = mc.perm_both(human, a, b, mc.PermBothOptions(n_resamples=250), rng=rng_for(5, "x"))
    monkeypatch.setattr(mc, "CHUNK", 7)
    assert mc.perm_both(human, a, b, mc.PermBothOptions(n_resamples=250), rng=rng_for(5, "x")) == first


def test_perm_both_refuses_bad_shapes():
    with pytest.raises(InputError, match="different cells"):
        mc.perm_both(np.ones(3), np.ones((3, 2)), np.ones((3, 3)), rng=rng_for(1))
    with pytest.raises(InputError, match="finite"):
        mc.perm_both(np.ones(3), np.array([1.0, np.nan, 2.0]), np.ones(3), rng=rng_for(1))


# ------------------------------------------------------------------------------------------------ accuracy


def test_pairwise_accuracy_with_ties_by_hand():
    # 3 systems, pairs (0,1), (0,2), (1,2). Gold: 0 > 1, 0 ~ 2 (no difference), 2 > 1.
    better = np.array([[0, 1, 0], [0, 0, 0], [0, 1, 0]], dtype=bool)
    gold = mc.gold_pair_signs(better)
    assert gold.tolist() == [1, 0, -1]
    # metric: 0.9, 0.1, 0.5 -> signs +, +, -: pair (0,2) is a tie in the gold, the metric orders it: wrong.
    assert mc.pairwise_accuracy([0.9, 0.1, 0.5], gold) == pytest.approx(2 / 3)
    # a metric tying 0 and 2 exactly gets all three (acc_eq: C = 2, T_hm = 1, P = 3)
    assert mc.pairwise_accuracy([0.9, 0.1, 0.9], gold) == pytest.approx(1.0)
    # with a tie threshold epsilon = 0.45, 0.9 vs 0.5 becomes a tie, 0.1 vs 0.5 too (|d| = 0.4): C=1, T_hm=1
    assert mc.pairwise_accuracy([0.9, 0.1, 0.5], gold, epsilon=0.45) == pytest.approx(2 / 3)
    # vectorised over metrics
    assert mc.pairwise_accuracy([[0.9, 0.1, 0.5], [0.9, 0.1, 0.9]], gold).tolist() == pytest.approx(
        [2 / 3, 1]
    )


def test_gold_refuses_contradictions():
    with pytest.raises(InputError, match="both directions"):
        mc.gold_pair_signs(np.ones((2, 2), dtype=bool) & ~np.eye(2, dtype=bool))


def test_accuracy_permutation_equals_binomial_sign_test():
    # 30 pairs: b right where a wrong on 9, a right where b wrong on 3, equal outcomes on 18.
    ca = np.array([0] * 9 + [1] * 3 + [1] * 10 + [0] * 8, dtype=bool)
    cb = np.array([1] * 9 + [0] * 3 + [1] * 10 + [0] * 8, dtype=bool)
    res = mc.accuracy_permutation(ca, cb, n_resamples=40000, rng=rng_for(3, "acc"))
    assert res.delta == pytest.approx(6 / 30)
    # d' >= d  <=>  among the 12 discordant pairs at least 9 signs favour b: Binomial(12, 1/2)
    exact = stats.binom.sf(8, 12, 0.5)
    assert abs(res.p_value - exact) < 4 * np.sqrt(exact * (1 - exact) / 40000)


# ------------------------------------------------------------------------------------------------ bootstrap


def test_bootstrap_inputs_of_identical_inputs_is_degenerate():
    # every input scores the same for a system: resampling inputs changes nothing, so low = high = estimate
    metric = np.repeat(np.array([[0.1], [0.4], [0.3], [0.9]]), 6, axis=1)
    human = np.array([1.0, 2.0, 2.5, 3.0])
    res = mc.bootstrap_correlation(metric, human, scheme="inputs", n_resamples=200, rng=rng_for(1, "b"))
    r = stats.pearsonr(metric[:, 0], human)[0]
    assert res.estimate == pytest.approx(r) and res.low == pytest.approx(r) and res.high == pytest.approx(r)


def test_bootstrap_systems_equals_numpy_quantiles_of_the_same_draws():
    rng = np.random.default_rng(6)
    metric = rng.normal(size=(7, 4))
    human = metric.mean(1) + rng.normal(scale=0.3, size=7)
    res = mc.bootstrap_correlation(metric, human, scheme="systems", n_resamples=150, rng=rng_for(9, "s"))
    # the same stream, drawn and scored one resample at a time with scipy
    draws = rng_for(9, "s")
    values = []
    for size in mc._chunks(150):
        idx = draws.integers(0, 7, size=(size, 7))
        for row in idx:
            m, h = metric.mean(1)[row], human[row]
            values.append(np.nan if np.ptp(m) == 0 or np.ptp(h) == 0 else stats.pearsonr(m, h)[0])
    values = np.array(values)
    low, high = np.quantile(values[np.isfinite(values)], [0.025, 0.975])
    assert (res.low, res.high) == pytest.approx((low, high), abs=1e-12)


def test_bootstrap_both_covers_the_truth():
    """Known truth: every system's metric and human scores are noisy means of the same true quality, so the
    population correlation is near 1; BOOT-BOTH's interval is wider than BOOT-SYSTEMS' (it adds input noise)."""
    rng = np.random.default_rng(12)
    quality = rng.normal(size=(10, 1))
    metric = quality + rng.normal(scale=2.0, size=(10, 40))
    human = quality + rng.normal(scale=2.0, size=(10, 40))
    both = mc.bootstrap_correlation(metric, human, scheme="both", n_resamples=400, rng=rng_for(1, "bb"))
    systems = mc.bootstrap_correlation(metric, human, scheme="systems", n_resamples=400, rng=rng_for(1, "bs"))
    assert both.low <= both.estimate <= both.high
    assert both.high - both.low > systems.high - systems.low


def test_perm_both_matrix_equals_exact_enumeration_in_both_directions():
    rng = np.random.default_rng(21)
    human = rng.normal(size=6)
    metrics = human + rng.normal(scale=[[1.0], [0.5], [2.0]], size=(3, 6))
    p, r = mc.perm_both_matrix(human, metrics, mc.PermBothOptions(n_resamples=20000), rng=rng_for(2, "m"))
    assert r == pytest.approx([stats.pearsonr(m, human)[0] for m in metrics], abs=1e-12)
    for a, b in itertools.permutations(range(3), 2):
        # p[a, b]: "a correlates better than b" = the single-pair test with B := a, A := b
        _, exact = _exact_perm_p(human, metrics[b], metrics[a])
        assert abs(p[a, b] - exact) < 4 * np.sqrt(exact * (1 - exact) / 20000) + 1e-9, (a, b)
    assert np.isnan(np.diag(p)).all()


def test_perm_both_matrix_system_level_equals_single_pair_exact_enumeration():
    rng = np.random.default_rng(8)
    a = rng.normal(size=(3, 2))
    b = rng.normal(size=(3, 2))
    human = np.array([0.1, 0.5, 0.2])
    single = mc.perm_both(human, a, b, mc.PermBothOptions(n_resamples=20000), rng=rng_for(1, "t2"))
    p, r = mc.perm_both_matrix(
        human, np.stack([a, b]), mc.PermBothOptions(n_resamples=20000), rng=rng_for(1, "t3")
    )
    assert r[1] - r[0] == pytest.approx(single.delta, abs=1e-12)
    err = 4 * np.sqrt(2 * single.p_value * (1 - single.p_value) / 20000) + 1e-9
    assert abs(p[1, 0] - single.p_value) < err
    # spearman at the system level: the same draws scored by ranks; a valid p in [0, 1] both ways summing >= 1
    ps, _ = mc.perm_both_matrix(
        human, np.stack([a, b]), mc.PermBothOptions(kind="spearman", n_resamples=500), rng=rng_for(1, "s")
    )
    assert ps[0, 1] + ps[1, 0] >= 1.0


def test_perm_both_matrix_flat_agrees_with_single_pair_on_the_same_draws():
    # one pair: both functions consume the same stream the same way for a flat [K] case -> identical counts
    rng = np.random.default_rng(30)
    human = rng.normal(size=400)
    a = human + rng.normal(size=400)
    b = human + rng.normal(scale=0.9, size=400)
    single = mc.perm_both(human, a, b, mc.PermBothOptions(n_resamples=300), rng=rng_for(4, "f"))
    p, _ = mc.perm_both_matrix(
        human, np.stack([a, b]), mc.PermBothOptions(n_resamples=300), rng=rng_for(4, "f")
    )
    assert p[1, 0] == single.p_value
