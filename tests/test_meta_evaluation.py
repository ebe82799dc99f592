"""System-level meta-evaluation library (mtsig.stats.meta_evaluation.system_level).

Oracles: scipy's pearsonr, spearmanr and kendalltau (variants b and c) for the correlations; numpy's corrcoef for
the metric-metric matrix; hand calculations of the MAD rule and of Williams' t written out below; the WMT20
organisers' own notebook output for the robust z-scores of ja-en; and a simulation with known truth (trivariate
normal draws with r(h, a) = r(h, b)) for the Williams test's Type I error.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from mtsig.errors import InputError
from mtsig.stats.meta_evaluation import system_level as me


@pytest.fixture(scope="module")
def scores_with_ties() -> tuple[np.ndarray, np.ndarray]:
    """Eight metrics x 9 systems, with tied values in some metrics and in the human scores."""
    rng = np.random.default_rng(5)
    human = np.round(rng.normal(size=9), 1)
    human[3] = human[5]
    metrics = np.round(human + rng.normal(scale=0.8, size=(8, 9)), 1)
    metrics[2, :4] = 1.0
    return metrics, human


# ------------------------------------------------------------------------------------------------ correlations


def test_pearson_spearman_kendall_equal_scipy(scores_with_ties):
    metrics, human = scores_with_ties
    for row in metrics:
        assert me.correlation(row, human, "pearson") == pytest.approx(
            stats.pearsonr(row, human)[0], abs=1e-14
        )
        assert me.correlation(row, human, "spearman") == pytest.approx(
            stats.spearmanr(row, human)[0], abs=1e-14
        )
        for variant in me.KENDALL_VARIANTS:
            expected = stats.kendalltau(row, human, variant=variant)[0]
            got = me.correlation(row, human, "kendall", kendall_variant=variant)
            assert got == pytest.approx(expected, abs=1e-14), variant


def test_correlation_is_vectorised_over_metrics_and_resamples(scores_with_ties):
    """[B, M, S] metric scores with a resampled [B, 1, S] human side: every cell equals its own scipy call."""
    metrics, human = scores_with_ties
    rng = np.random.default_rng(11)
    draws = rng.integers(0, human.size, size=(5, human.size))  # bootstrap of systems (repeats give ties)
    resampled_metrics = metrics[:, draws].transpose(1, 0, 2)  # [B, M, S]
    resampled_human = human[draws][:, None, :]  # [B, 1, S]
    for kind in me.KINDS:
        got = me.correlation(resampled_metrics, resampled_human, kind)
        assert got.shape == (5, 8)
        for b in range(5):
            for m in range(8):
                x, y = resampled_metrics[b, m], resampled_human[b, 0]
                if kind == "pearson":
                    expected = stats.pearsonr(x, y)[0]
                elif kind == "spearman":
                    expected = stats.spearmanr(x, y)[0]
                else:
                    expected = stats.kendalltau(x, y)[0]
                np.testing.assert_allclose(got[b, m], expected, atol=1e-13, equal_nan=True)


def test_average_ranks_equal_scipy_rankdata(scores_with_ties):
    metrics, human = scores_with_ties
    stacked = np.stack([metrics, metrics[::-1]])
    np.testing.assert_array_equal(me.average_ranks(stacked), stats.rankdata(stacked, axis=-1))
    np.testing.assert_array_equal(me.average_ranks(human), stats.rankdata(human))
    np.testing.assert_array_equal(me.average_ranks([2.0, 2.0, 2.0]), [2.0, 2.0, 2.0])


def test_constant_scores_give_nan_and_bad_input_is_an_error():
    assert np.isnan(me.correlation([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]))
    assert np.isnan(me.correlation([1.0, 1.0, 1.0], [1.0, 2.0, 3.0], "kendall"))
    with pytest.raises(InputError, match="finite"):
        me.correlation([1.0, np.nan, 3.0], [1.0, 2.0, 3.0])
    with pytest.raises(InputError, match="one per system"):
        me.correlation([1.0, 2.0], [1.0, 2.0, 3.0])
    with pytest.raises(InputError, match="unknown correlation"):
        me.correlation([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], "cosine")


def test_pairwise_correlation_equals_numpy_corrcoef(scores_with_ties):
    metrics, _ = scores_with_ties
    np.testing.assert_allclose(me.pairwise_correlation(metrics), np.corrcoef(metrics), atol=1e-14)
    stacked = me.pairwise_correlation(np.stack([metrics, metrics[::-1]]))
    np.testing.assert_allclose(stacked[1], np.corrcoef(metrics[::-1]), atol=1e-14)


# ------------------------------------------------------------------------------------------------ outliers


def test_mad_rule_hand_calculation():
    """h = (1, 2, 3, 4, 100): median 3; |h - 3| = (2, 1, 0, 1, 97), median 1, so MAD = 1.4826 x 1 = 1.4826;
    robust z = (1.349, 0.674, 0, 0.674, 65.43): only 100 exceeds 2.5 (Mathur, Baldwin & Cohn 2020, Sec. 4.2)."""
    human = np.array([1.0, 2.0, 3.0, 4.0, 100.0])
    np.testing.assert_allclose(me.robust_z(human), [2 / 1.4826, 1 / 1.4826, 0.0, 1 / 1.4826, 97 / 1.4826])
    assert me.mad_outliers(human).tolist() == [False, False, False, False, True]
    # The cut-off is strict: |h - median| = 2.5 MAD exactly is kept (h = 3 + 2.5 x 1.4826 = 6.7065).
    at_cutoff = np.array([1.0, 2.0, 3.0, 4.0, 3.0 + 2.5 * 1.4826])
    assert me.robust_z(at_cutoff)[-1] == pytest.approx(2.5)
    assert me.mad_outliers(at_cutoff, cutoff=2.5 + 1e-9).tolist() == [False] * 5
    assert me.mad_outliers(np.stack([human, human[::-1]])).tolist() == [
        [False, False, False, False, True],
        [True, False, False, False, False],
    ]


def test_robust_z_equals_the_wmt20_organisers_notebook_on_ja_en():
    """The WMT20 metrics task's notebook (WMT-Metrics-task/wmt20-metrics, commit 3e434fc,
    results/p0-preprocess_scores_and_visualize.ipynb, the output of its "SYS SCORES" cell) prints each ja-en MT
    system's Z.SCR and its rescaled_z, and flags Online-G.1564 and Online-Z.1640 (rescaled z > 2.5)."""
    z = {  # Z.SCR of da/ad-sys-scores-ja-en.csv
        "Tohoku-AIP-NTT.1429": 0.184304603464239,
        "NiuTrans.1352": 0.146612174957898,
        "OPPO.1529": 0.0877917753486157,
        "NICT_Kyoto.1230": 0.084465439800806,
        "Online-B.1599": 0.0680470238281771,
        "Online-A.1581": 0.0258173177835829,
        "eTranslation.269": 0.0194687349299168,
        "zlabs-nlp.66": -0.208167055884772,
        "Online-G.1564": -0.220499749176766,
        "Online-Z.1640": -0.239511491746738,
    }
    printed = [
        1.318581,
        0.956787,
        0.392194,
        0.360266,
        0.202673,
        0.202673,
        0.263610,
        2.448592,
        2.566968,
        2.749454,
    ]
    human = np.array(list(z.values()))
    np.testing.assert_allclose(me.robust_z(human), printed, atol=5e-7)
    assert [name for name, out in zip(z, me.mad_outliers(human), strict=True) if out] == [
        "Online-G.1564",
        "Online-Z.1640",
    ]


# ------------------------------------------------------------------------------------------------ Williams test


def test_williams_t_hand_calculation_steiger_case_a():
    """Steiger (1980)'s case A, the example of R psych's r.test documentation (r.test(103, .4, .5, .1)), worked
    by hand from Williams' formula (Graham & Baldwin 2014, Eq. 1):
        K = 1 - .4² - .5² - .1² + 2(.4)(.5)(.1) = 1 - .16 - .25 - .01 + .04 = .62
        2 K (n-1)/(n-3) = 2(.62)(102/100) = 1.2648;  ((r12 + r13)/2)² (1 - r23)³ = .45² x .9³ = .2025 x .729 = .1476225
        t = (.4 - .5) sqrt(102 x 1.1 / (1.2648 + .1476225)) = -.1 x sqrt(112.2 / 1.4124225) = -.1 x 8.91280 = -.891280
    with n - 3 = 100 degrees of freedom."""
    t = me.williams_t(0.4, 0.5, 0.1, 103)
    assert float(t) == pytest.approx(-0.1 * np.sqrt(112.2 / 1.4124225), rel=1e-14)
    assert float(t) == pytest.approx(-0.891280, abs=5e-7)
    t, p = me.williams_pvalues(0.4, 0.5, 0.1, 103)
    assert float(p) == pytest.approx(stats.t.sf(-0.891279904760541, 100), rel=1e-12)
    assert float(p) > 0.5  # one-sided for "metric a (r = .4) beats metric b (r = .5)"
    _, two = me.williams_pvalues(0.4, 0.5, 0.1, 103, two_sided=True)
    assert float(two) == pytest.approx(2 * stats.t.sf(0.891279904760541, 100), rel=1e-12)


def test_williams_second_hand_case_and_psych_equivalence():
    """n = 13, r12 = .8, r13 = .5, r23 = .5: K = 1 - .64 - .25 - .25 + 2(.8)(.5)(.5) = .26; 2 K (12/10) = .624;
    .65² x .5³ = .4225 x .125 = .0528125; t = .3 sqrt(12 x 1.5 / .6768125) = .3 sqrt(26.59525) = .3 x 5.157058 = 1.547118.
    R's psych::r.test(..., twotailed=FALSE) returns P(T_10 >= |t|), equal to the one-sided p when r12 >= r13."""
    t, p = me.williams_pvalues(0.8, 0.5, 0.5, 13)
    assert float(t) == pytest.approx(0.3 * np.sqrt(18 / 0.6768125), rel=1e-14)
    assert float(t) == pytest.approx(1.547118, abs=5e-7)
    assert float(p) == pytest.approx(stats.t.sf(abs(float(t)), 10), rel=1e-14)
    assert np.isnan(me.williams_t(0.8, 0.5, 0.5, 3))  # no degrees of freedom


def test_williams_type_one_error_by_simulation():
    """Known truth: (human, metric a, metric b) trivariate normal with r(h, a) = r(h, b), so neither metric truly
    correlates better. The one-sided test at alpha must reject about alpha of the time (20 000 draws: standard
    error 0.0015); with a real difference (r(h, a) = .9 vs r(h, b) = .5) it must reject most of the time."""
    rng = np.random.default_rng(20140626)

    def p_values(n: int, rho_a: float, rho_b: float, rho_ab: float) -> np.ndarray:
        cov = np.array([[1, rho_a, rho_b], [rho_a, 1, rho_ab], [rho_b, rho_ab, 1]])
        draws = rng.multivariate_normal(np.zeros(3), cov, size=(20000, n))  # [sims, n, 3]
        human, pair = draws[..., 0], np.moveaxis(draws[..., 1:], -1, 1)  # [sims, n], [sims, 2, n]
        r = me.correlation(pair, human[:, None, :])
        r_ab = me.correlation(pair[:, 0], pair[:, 1])
        return me.williams_pvalues(r[:, 0], r[:, 1], r_ab, n)[1]

    for n, rho, rho_ab in ((12, 0.6, 0.7), (30, 0.7, 0.8)):
        p = p_values(n, rho, rho, rho_ab)
        assert abs(np.mean(p <= 0.05) - 0.05) < 0.006, n
        assert abs(np.mean(p <= 0.01) - 0.01) < 0.003, n
    assert np.mean(p_values(15, 0.9, 0.5, 0.5) <= 0.05) > 0.6


def test_williams_table_matrix_and_winners():
    """Three metrics on 6 systems: the table holds every ordered pair, in decreasing order of r with the human
    scores, each row equal to its own Williams test; the matrix pivots it; winners are the unbeaten columns."""
    human = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    metrics = {
        "weak": np.array([2.0, 1.0, 4.0, 3.0, 6.0, 2.0]),
        "good": np.array([1.1, 2.0, 2.9, 4.2, 5.0, 6.1]),
        "fair": np.array([1.0, 3.0, 2.0, 4.0, 6.0, 5.0]),
    }
    table = me.williams_table(human, metrics)
    assert list(table.columns) == me.WILLIAMS_COLUMNS
    assert list(dict.fromkeys(table["metric_a"])) == ["good", "fair", "weak"]
    assert len(table) == 6
    for row in table.itertuples():
        r_a = stats.pearsonr(metrics[row.metric_a], human)[0]
        r_b = stats.pearsonr(metrics[row.metric_b], human)[0]
        r_ab = stats.pearsonr(metrics[row.metric_a], metrics[row.metric_b])[0]
        t, p = me.williams_pvalues(r_a, r_b, r_ab, 6)
        assert (row.r_a, row.r_b, row.r_ab) == pytest.approx((r_a, r_b, r_ab), abs=1e-14)
        assert (row.t, row.p_value) == pytest.approx((float(t), float(p)), rel=1e-12)
    matrix = me.williams_matrix(human, metrics)
    assert list(matrix.index) == list(matrix.columns) == ["good", "fair", "weak"]
    assert np.isnan(np.diag(matrix.to_numpy())).all()
    assert (
        matrix.loc["good", "weak"]
        == table.set_index(["metric_a", "metric_b"]).loc[("good", "weak"), "p_value"]
    )
    # Hand-made matrix: "b" is beaten by "a" (p = .01 <= .05); "c" and "d" have an untested (NaN) cell.
    hand = pd.DataFrame(
        [
            [np.nan, 0.01, 0.2, 0.3],
            [0.9, np.nan, 0.06, 0.3],
            [0.8, 0.9, np.nan, np.nan],
            [0.7, 0.8, np.nan, np.nan],
        ],
        index=list("abcd"),
        columns=list("abcd"),
    )
    assert me.winners(hand) == ["a"]
    assert me.winners(hand, alpha=0.005) == ["a", "b"]


def test_identical_metrics_tie_or_stay_untested():
    """Two metrics with identical system scores: r_a = r_b and r_ab = 1, where Williams' formula is 0 x sqrt(x/0).
    Default: t = 0, p = 0.5, neither beats the other and both can win; ``untested`` (the WMT20 organisers'
    published outcome in 7 of 8 such cases): NaN, and neither is a winner."""
    human = np.array([0.1, 0.5, 0.2, 0.9, 0.7])
    twin = np.array([1.0, 2.5, 1.5, 4.0, 3.0])
    metrics = {"twin_a": twin, "twin_b": twin.copy(), "worse": np.array([1.0, 1.0, 2.0, 2.0, 3.0])}
    tied = me.williams_matrix(human, metrics)
    assert tied.loc["twin_a", "twin_b"] == pytest.approx(0.5)
    assert set(me.winners(tied)) >= {"twin_a", "twin_b"}
    untested = me.williams_matrix(human, metrics, identical="untested")
    assert np.isnan(untested.loc["twin_a", "twin_b"]) and np.isnan(untested.loc["twin_b", "twin_a"])
    assert not {"twin_a", "twin_b"} & set(me.winners(untested))
    with pytest.raises(InputError, match="identical"):
        me.williams_table(human, metrics, identical="drop")
