"""google-research/mt-metrics-eval's own unit tests of its statistics, ported to mtsig's functions.

Every test of ``mt_metrics_eval/stats_test.py`` at commit 68a481a (50 tests) is here once, named in its docstring
("ports stats_test.py::Class::test"), with mt-metrics-eval's inputs and its expected values: the literals of its
assertions, or, where it asserts against a reference function, that function (scipy.stats, or the hand counts its
comments give). mt-metrics-eval's packed vectors (system-major, ``None`` = no human score) become mtsig's systems x
items matrices through :func:`packed_matrix`.

Where its expected values come from its own random draws, the test asserts what mt-metrics-eval asserts on mtsig's
draws, and then replays mt-metrics-eval's draws after ``numpy.random.seed(0)`` (:func:`mtme_cell_masks`,
:func:`mtme_pair_masks`) and asserts its p-value, delta and number of resamples: the constants ``MTME_PERMUTATIONS``,
printed by ``python benchmarks/bench_mtme_stats.py permutations`` (which also compares every draw of these and of 40
random cases, and every statistic on 300 random matrices, to 1e-9). Likewise ``MTME_VALUES`` (full-precision values
of mt-metrics-eval where its tests round to 3 decimals), printed by ``python benchmarks/bench_mtme_stats.py values``.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

from mtsig.errors import InputError
from mtsig.stats.meta_evaluation.correlation_pvalues import average_correlation
from mtsig.stats.meta_evaluation.grouped_correlation import (
    CorrelationOptions,
    as_groups,
    grouped_correlation,
    kendall_like_counts,
    packed_matrix,
    pairwise_differences,
)
from mtsig.stats.meta_evaluation.item_sampling import item_sample
from mtsig.stats.meta_evaluation.metric_permutation import (
    EarlyStopping,
    PairSwaps,
    PearsonSwaps,
    permutation_test,
)
from mtsig.stats.meta_evaluation.pooled_accuracy import pair_agreement
from mtsig.stats.meta_evaluation.score_permutation import (
    PairOutcomeSwaps,
    ScoreSwaps,
    mtme_cell_masks,
    mtme_pair_masks,
    rated_cells,
    recalibrated_acc_t,
)
from mtsig.stats.meta_evaluation.soft_pairwise_accuracy import soft_pairwise_accuracy
from mtsig.stats.meta_evaluation.system_level import williams_pvalues
from mtsig.stats.meta_evaluation.tie_calibration import calibrate_ties, pair_outcomes

pearson = scipy.stats.pearsonr
kendall = scipy.stats.kendalltau

#: ``python benchmarks/bench_mtme_stats.py permutations`` (its first lines): mt-metrics-eval's (p-value, delta,
#: resamples used) of each permutation test of stats_test.py, in that test's configuration, after
#: ``numpy.random.seed(0)``. Pairwise.testKendallVariantsAcc23: mtsig's replay gives 0.7, one draw more, which
#: equals the observed difference exactly and which mt-metrics-eval's float sums round just below it.
MTME_PERMUTATIONS = {
    "testPearsonNoAvgNoEarlyStop": (0.522, -0.0024838486599123577, 1000),
    "testPearsonNoAvgWithEarlyStop": (0.64, -0.0024838486599123577, 50),
    "testPearsonSysNoEarlyStop": (0.933, -1.3333333333333333, 1000),
    "testPearsonSysNoEarlyStopNan0": (0.772, -0.5, 1000),
    "testPearsonItemNoEarlyStop": (0.864, -0.1485331307316824, 1000),
    "testKendallItemWithEarlyStop": (1.0, -0.2420462404158057, 10),
    "testKendallC": (1.0, -0.23958333333333326, 10),
    "testKendallVariants23": (1.0, -0.3333333333333333, 10),
    "testKendallVariantsAcc23": (1.0, -0.16666666666666674, 10),
    "testTauOptimization": (1.0, -0.16666666666666674, 10),
    "Pairwise.testKendallVariantsAcc23": (0.6, -0.08333333333333337, 10),
    "Pairwise.testKendallVariantsB": (0.1, 0.4523502691896257, 10),
}

#: ``python benchmarks/bench_mtme_stats.py values`` (its "constants" lines): mt-metrics-eval's values at full
#: precision on stats_test.py's inputs.
MTME_VALUES = {
    "pdp none": 0.7763237542601484,
    "pdp sys": 0.7661308776828738,
    "pdp item": 0.9258200997725514,
    "pdp with None item": 0.9682773237093576,
    "pdp with None none": 0.9746849717802676,
    "AverageCorrelation(KendallWithTiesOpt, sys)": 0.8333333333333333,
    "AverageCorrelation(PairwiseConfidenceError)": 0.529,
    "Sample(10, 5, uniform, seed=11)": [6, 5, 0, 7, 4],
    "Sample(8, 4, stratify, [2, 6], seed=2)": [1, 3, 7, 2],
}


def pm(values: list, n_systems: int) -> np.ndarray:
    return packed_matrix(values, n_systems)


# ------------------------------------------------------------------------------------------------ CorrelationTest

G6, M6 = [1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 3, 7]


def test_construction():
    """ports stats_test.py::CorrelationTest::testConstruction"""
    matrix = pm(G6, 2)
    assert matrix.shape == (2, 3)  # num_sys 2, num_items 3
    assert np.isnan(matrix).sum() == 0  # none_count 0
    assert np.isnan(pm([1, None, 3, None], 2)).sum() == 2


def test_pearson():
    """ports stats_test.py::CorrelationTest::testPearson"""
    h, m = pm(G6, 2), pm(M6, 2)
    assert grouped_correlation(h, m, CorrelationOptions("pearson", "none")) == pytest.approx(0.776, abs=5e-4)
    assert grouped_correlation(h, m, CorrelationOptions("pearson", "sys")) == pytest.approx(0.760, abs=5e-4)
    assert grouped_correlation(h, m, CorrelationOptions("pearson", "item")) == pytest.approx(1.00, abs=5e-4)


def test_pearson_pdp():
    """ports stats_test.py::CorrelationTest::testPearsonPdp"""
    h, m = pm(G6, 2), pm(M6, 2)
    for grouping, literal in (("item", 0.926), ("none", 0.776), ("sys", 0.766)):
        value = grouped_correlation(h, m, CorrelationOptions("pearson", grouping, pdp=True))
        assert value == pytest.approx(literal, abs=5e-4)
        assert value == pytest.approx(MTME_VALUES[f"pdp {grouping}"], abs=1e-12)


def test_kendall():
    """ports stats_test.py::CorrelationTest::testKendall"""
    h, m = pm(G6, 2), pm(M6, 2)
    assert grouped_correlation(h, m, CorrelationOptions("kendall", "none")) == pytest.approx(0.552, abs=5e-4)
    assert grouped_correlation(h, m, CorrelationOptions("kendall", "sys")) == pytest.approx(0.575, abs=5e-4)
    assert grouped_correlation(h, m, CorrelationOptions("kendall", "item")) == pytest.approx(1.00, abs=5e-4)


def test_kendall_c():
    """ports stats_test.py::CorrelationTest::testKendallC"""
    h, m = pm(G6, 2), pm(M6, 2)
    c = {"kendall_variant": "c"}
    assert grouped_correlation(h, m, CorrelationOptions("kendall", "none", **c)) == pytest.approx(
        0.556, abs=5e-4
    )
    assert grouped_correlation(h, m, CorrelationOptions("kendall", "sys", **c)) == pytest.approx(
        0.611, abs=5e-4
    )
    assert grouped_correlation(h, m, CorrelationOptions("kendall", "item", **c)) == pytest.approx(
        1.00, abs=5e-4
    )


def test_kendall_like():
    """ports stats_test.py::CorrelationTest::testKendallLike (``Correlation.KendallLike``: micro-averaged)"""
    like = {"threshold": 1, "average": "micro"}
    assert (
        grouped_correlation(
            pm([10, None, 100, 150], 1),
            pm([2, 1, 4, 3], 1),
            CorrelationOptions("kendall_like", "none", **like),
        )
        == 1 / 3
    )
    assert (
        grouped_correlation(
            pm([10, 11, 100, 150], 2), pm([2, 1, 4, 3], 2), CorrelationOptions("kendall_like", "item", **like)
        )
        == 1
    )
    assert (
        grouped_correlation(
            pm([10, None, 100, 150], 2),
            pm([2, 1, 4, 3], 2),
            CorrelationOptions("kendall_like", "item", **like),
        )
        == 1
    )


def test_kendall_variants():
    """ports stats_test.py::CorrelationTest::testKendallVariants"""
    h, m = pm([1, 2, 2, 3, 4], 1), pm([2, 1, 1.5, 5, 3], 1)

    def tau(variant, epsilon=0.0):
        return grouped_correlation(
            h, m, CorrelationOptions("kendall", "none", kendall_variant=variant, epsilon=epsilon)
        )

    assert tau("b") == pytest.approx(0.316227766, abs=5e-8)
    assert tau("c") == 0.32
    assert tau("23") == 0.2
    assert tau("acc23") == 0.6
    assert tau("acc23", epsilon=2) == 0.4


def test_kendall_with_ties_opt():
    """ports stats_test.py::CorrelationTest::testKendallWithTiesOpt"""
    result = calibrate_ties(pm([1, 2, 2, 3, 4], 1), pm([2, 1, 1.5, 5, 3], 1), grouping="none")
    assert result.value == 0.7


def test_pairwise_confidence_error():
    """ports stats_test.py::CorrelationTest::testPairwiseConfidenceError (SPA, Thompson et al. 2024)"""
    value = soft_pairwise_accuracy(pm([1, 2, 3, 2, 3, 4], 2), pm([2, 2, 4, 1, 3, 5], 2))
    assert value == pytest.approx(0.872, abs=5e-4)


# --------------------------------------------------------------------------------------- AverageCorrelationTest


def _scipy(result):
    return float(result[0]), float(result[1])


def test_average_by_none():
    """ports stats_test.py::AverageCorrelationTest::testAverageByNone"""
    g, m = [1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 5, 6]
    result = average_correlation(pm(g, 1), pm(m, 1), CorrelationOptions("pearson", "none"))
    assert (float(result.value), float(result.pvalue)) == pytest.approx(_scipy(pearson(g, m)), abs=1e-12)


def test_average_by_none_no_filtering():
    """ports stats_test.py::AverageCorrelationTest::testAverageByNoneNoFiltering (``filter_nones=False`` only
    skips the search for missing scores; without any, the correlation and p-value are scipy's)"""
    g, m = [1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 5, 6]
    result = average_correlation(pm(g, 2), pm(m, 2), CorrelationOptions("pearson", "none"))
    assert (float(result.value), float(result.pvalue)) == pytest.approx(_scipy(pearson(g, m)), abs=1e-12)


def test_missing_entries():
    """ports stats_test.py::AverageCorrelationTest::testMissingEntries"""
    g, m = [1, None, 3, 4, 5, 6], [2, 1, 4, 3, 5, 6]
    ge, me = [1, 3, 4, 5, 6], [2, 4, 3, 5, 6]
    result = average_correlation(pm(g, 1), pm(m, 1), CorrelationOptions("pearson", "none"))
    assert (float(result.value), float(result.pvalue)) == pytest.approx(_scipy(pearson(ge, me)), abs=1e-12)


def test_average_by_system():
    """ports stats_test.py::AverageCorrelationTest::testAverageBySystem"""
    g, m = [1, 2, 3, 4, 5, 6], [2, 1, 8, 3, 5, 6]
    p1, p2 = pearson([1, 2, 3], [2, 1, 8]), pearson([4, 5, 6], [3, 5, 6])
    result = average_correlation(pm(g, 2), pm(m, 2), CorrelationOptions("pearson", "sys"))
    assert result.value == pytest.approx((p1[0] + p2[0]) / 2, abs=5e-4)
    assert result.pvalue == pytest.approx((p1[1] + p2[1]) / 2, abs=5e-4)


def test_average_by_item():
    """ports stats_test.py::AverageCorrelationTest::testAverageByItem"""
    g, m = [1, 2, 3, 4, 5, 6], [2, 1, 8, 3, 5, 6]
    p1, p2, p3 = pearson([1, 4], [2, 3]), pearson([2, 5], [1, 5]), pearson([3, 6], [8, 6])
    result = average_correlation(pm(g, 2), pm(m, 2), CorrelationOptions("pearson", "item"))
    assert result.value == pytest.approx((p1[0] + p2[0] + p3[0]) / 3, abs=5e-4)
    assert result.pvalue == pytest.approx((p1[1] + p2[1] + p3[1]) / 3, abs=5e-4)


def test_average_by_item_with_missing_entries():
    """ports stats_test.py::AverageCorrelationTest::testAverageByItemWithMissingEntries"""
    g, m = [1, None, 3, 4, 5, 6], [2, 1, 8, 3, 5, 6]
    p1, p3 = pearson([1, 4], [2, 3]), pearson([3, 6], [8, 6])
    result = average_correlation(pm(g, 2), pm(m, 2), CorrelationOptions("pearson", "item"))
    assert result.value == pytest.approx((p1[0] + p3[0]) / 2, abs=5e-4)
    assert result.pvalue == pytest.approx((p1[1] + p3[1]) / 2, abs=5e-4)


def test_nan_handling():
    """ports stats_test.py::AverageCorrelationTest::testNaNHandling"""
    h, m = pm([1, 2, 3, 4, 5, 6], 2), pm([2, 2, 2, 4, 5, 6], 2)
    assert grouped_correlation(
        h, m, CorrelationOptions("pearson", "sys", nan_groups="drop")
    ) == pytest.approx(1.0, abs=5e-8)


def test_nan_handling_with_zeros():
    """ports stats_test.py::AverageCorrelationTest::testNaNHandlingWithZeros"""
    h, m = pm([1, 2, 3, 4, 5, 6], 2), pm([2, 2, 2, 4, 5, 6], 2)
    assert grouped_correlation(
        h, m, CorrelationOptions("pearson", "sys", nan_groups="zero")
    ) == pytest.approx(0.5, abs=5e-8)


def test_micro_averaging():
    """ports stats_test.py::AverageCorrelationTest::testMicroAveraging"""
    g, m = [1, None, 3, 4, 5, 6], [2, 1, 8, 3, 5, 6]
    p1, p2 = pearson([1, 3], [2, 8]), pearson([4, 5, 6], [3, 5, 6])
    result = average_correlation(pm(g, 2), pm(m, 2), CorrelationOptions("pearson", "sys", average="micro"))
    assert result.value == pytest.approx((2 * p1[0] + 3 * p2[0]) / 5, abs=5e-4)
    assert result.pvalue == pytest.approx((2 * p1[1] + 3 * p2[1]) / 5, abs=5e-4)
    assert result.weight == 5  # the cells with a human score


def test_corr_fcn_args():
    """ports stats_test.py::AverageCorrelationTest::testCorrFcnArgs (Kendall's b and c: tau and p as scipy's)"""
    g, m = [1, 2, 3, 4, 5, 6], [2, 1, 8, 3, 5, 6]
    for variant in ("b", "c"):
        result = average_correlation(
            pm(g, 1), pm(m, 1), CorrelationOptions("kendall", "none", kendall_variant=variant)
        )
        expected = _scipy(kendall(g, m, variant=variant))
        assert (float(result.value), float(result.pvalue)) == pytest.approx(expected, abs=1e-12)


def test_average_kendall_with_ties_opt():
    """ports stats_test.py::AverageCorrelationTest::testKendallWithTiesOpt: the wrapper and the function agree,
    (value, 0) vs (value, epsilon), so the calibrated epsilon is 0; the value is mt-metrics-eval's."""
    g, m = [1, 2, 3, 4, None, 6], [2, 1, 8, 3, 5, 6]
    result = calibrate_ties(pm(g, 2), pm(m, 2), variant="acc23", grouping="sys")
    assert (result.value, result.epsilon) == (MTME_VALUES["AverageCorrelation(KendallWithTiesOpt, sys)"], 0.0)
    # by hand: system 1 (1, 2, 3 vs 2, 1, 8) has 2 of 3 pairs concordant; system 2 (4, 6 vs 3, 6) 1 of 1
    assert result.value == pytest.approx((2 / 3 + 1) / 2, abs=1e-15)


def test_average_pairwise_confidence_error():
    """ports stats_test.py::AverageCorrelationTest::testPairwiseConfidenceError: the cells without a human score
    (here segment 2 of both systems) are left out, then SPA as PairwiseConfidenceError(filter_nones=True)"""
    h, m = pm([1, None, 3, 4, None, 6], 2), pm([2, 1, 8, 3, 5, 6], 2)
    rated = np.isfinite(h).all(axis=0)
    value = soft_pairwise_accuracy(h[:, rated], m[:, rated])
    assert value == MTME_VALUES["AverageCorrelation(PairwiseConfidenceError)"]


def test_pdp_invalid_corr_fcn():
    """ports stats_test.py::AverageCorrelationTest::testPdpInvalidCorrFcn"""
    with pytest.raises(InputError, match="Pearson"):
        grouped_correlation(
            pm([1, 2, 3, 4], 2), pm([1, 2, 3, 4], 2), CorrelationOptions("kendall", "none", pdp=True)
        )


def test_pdp_with_averaging_and_nones():
    """ports stats_test.py::AverageCorrelationTest::testPdpWithAveragingAndNones"""
    h, m = pm([1, 5, None, 10, 2, 12], 2), pm([3, 15, 1, 20, 4, 24], 2)
    item = grouped_correlation(h, m, CorrelationOptions("pearson", "item", pdp=True))
    none = grouped_correlation(h, m, CorrelationOptions("pearson", "none", pdp=True))
    assert item == pytest.approx(0.968, abs=5e-4)
    assert none == pytest.approx(0.975, abs=5e-4)
    assert (item, none) == pytest.approx(
        (MTME_VALUES["pdp with None item"], MTME_VALUES["pdp with None none"]), abs=1e-12
    )


def test_pdp_less_than_two_systems():
    """ports stats_test.py::AverageCorrelationTest::testPDPLessThanTwoSystems"""
    with pytest.raises(InputError, match="two cells"):
        grouped_correlation(
            pm([1, 5, None, 10, 2, 12], 1),
            pm([3, 15, 1, 20, 4, 24], 1),
            CorrelationOptions("pearson", "item", pdp=True),
        )


def test_enumerate_pairwise_diffs():
    """ports stats_test.py::AverageCorrelationTest::testEnumeratePairwiseDiffs"""
    human = pairwise_differences([[1, 2, 3, 4]])
    metric = pairwise_differences([[2, 1, 8, 3]])
    assert human.tolist() == [[0, 1, 2, 3, -1, 0, 1, 2, -2, -1, 0, 1, -3, -2, -1, 0]]
    assert metric.tolist() == [[0, -1, 6, 1, 1, 0, 7, 2, -6, -7, 0, -5, -1, -2, 5, 0]]
    with pytest.raises(InputError):  # a single system
        pairwise_differences([[1], [2], [3], [4]])
    human = pairwise_differences(np.array([[1, 2, None], [4, None, 6]], dtype=float))
    metric = pairwise_differences([[2, 1, 8], [3, 5, 6]])
    nan = np.nan
    np.testing.assert_array_equal(
        human, [[0, 1, nan, -1, 0, nan, nan, nan, nan], [0, nan, 2, nan, nan, nan, -2, nan, 0]]
    )
    assert metric.tolist() == [[0, -1, 6, 1, 0, 7, -6, -7, 0], [0, 2, 3, -2, 0, 1, -3, -1, 0]]
    # PDP is Pearson's r of these vectors, pooled over the groups, the missing ones left out
    h, m = np.array([[1, 2, None], [4, None, 6]], dtype=float), np.array([[2, 1, 8], [3, 5, 6]], dtype=float)
    kept = np.isfinite(pairwise_differences(h))
    expected = pearson(pairwise_differences(h)[kept], pairwise_differences(m)[kept])[0]
    assert grouped_correlation(h.T, m.T, CorrelationOptions("pearson", "item", pdp=True)) == pytest.approx(
        expected, abs=1e-12
    )


# ------------------------------------------------------------------------------------- CorrelationFunctionsTest


def test_function_kendall_like():
    """ports stats_test.py::CorrelationFunctionsTest::testKendallLike: (tau, 0, pairs, concordant, discordant)"""
    h, m = np.array([[10, 11, 100, 150]], dtype=float), np.array([[2, 1, 4, 3]], dtype=float)
    valid = np.ones_like(h, dtype=bool)
    for threshold, (tau, pairs, concordant, discordant) in ((25, (3 / 5, 5, 4, 1)), (1, (2 / 6, 6, 4, 2))):
        con, dis = kendall_like_counts(h, m, valid, threshold)
        assert (int(con[0]), int(dis[0]), int(con[0] + dis[0])) == (concordant, discordant, pairs)
        result = average_correlation(h, m, CorrelationOptions("kendall_like", "none", threshold=threshold))
        assert (float(result.value), float(result.pvalue)) == (tau, 0.0)


def test_agreement():
    """ports stats_test.py::CorrelationFunctionsTest::testAgreement"""
    agreement = pair_agreement([1, 2, 3, 3, 4], [1, 1, 2, 1, 2])
    assert (int(agreement.sum()), agreement.size) == (5, 10)


def test_kendall_variants_b_and_c():
    """ports stats_test.py::CorrelationFunctionsTest::testKendallVariants_b_and_c: tau-b and tau-c equal scipy's,
    one metric at a time and many at once (mt-metrics-eval's "factored" versions share the gold's work; mtsig's
    computation is vectorised over metrics)"""
    gold = [7, 1, 2, 7, 4, 3, 2]
    metric = [4, 1, 3, 6, 1, 5, 6]
    h = pm(gold, 1)
    many = np.stack([pm(metric, 1), pm(gold, 1), pm(metric[::-1], 1)])
    for variant in ("b", "c"):
        ref = kendall(gold, metric, variant=variant)[0]
        assert grouped_correlation(
            h, pm(metric, 1), CorrelationOptions("kendall", kendall_variant=variant)
        ) == pytest.approx(ref, abs=1e-15)
        batch = grouped_correlation(h, many, CorrelationOptions("kendall", kendall_variant=variant))
        assert batch[0] == pytest.approx(ref, abs=1e-15)
        assert batch[2] == pytest.approx(kendall(gold, metric[::-1], variant=variant)[0], abs=1e-15)


def test_kendall_variants_23():
    """ports stats_test.py::CorrelationFunctionsTest::testKendallVariants_23 (the test's own hand counts)"""
    x = [1, 1, 1, 2, 2, 3, 4]
    y = [1, 1, 2, 2, 4, 3, 3]
    num_pairs, ties_in_x, ties_in_y, ties_in_both, discordant = 21, 4, 3, 1, 2
    concordant = (
        num_pairs - discordant - (ties_in_x - ties_in_both) - (ties_in_y - ties_in_both) - ties_in_both
    )
    expected_tau = (
        concordant + ties_in_both - discordant - (ties_in_x - ties_in_both) - (ties_in_y - ties_in_both)
    )
    # KendallVariants(x, y): x is the gold, y the metric
    assert (
        grouped_correlation(pm(x, 1), pm(y, 1), CorrelationOptions("kendall", kendall_variant="23"))
        == expected_tau / num_pairs
    )
    expected_acc = (concordant + ties_in_both) / num_pairs
    assert (
        grouped_correlation(pm(x, 1), pm(y, 1), CorrelationOptions("kendall", kendall_variant="acc23"))
        == expected_acc
    )


def test_kendall_variants_with_positive_epsilon():
    """ports stats_test.py::CorrelationFunctionsTest::testKendallVariantsWithPositiveEpsilon (hand counts; the
    "factored versions": the same tau for several metrics at once)"""
    x = [1, 1, 1, 2, 2, 3, 4]
    y = [1, 1, 2, 2, 4, 3, 3]

    def tau(epsilon, metric=y):
        return grouped_correlation(
            pm(x, 1), pm(metric, 1), CorrelationOptions("kendall", kendall_variant="23", epsilon=epsilon)
        )

    assert tau(0.0) == (14 - 7) / 21
    assert tau(0.1) == (14 - 7) / 21
    num_pairs, ties_in_x, ties_in_y, ties_in_both, discordant = 21, 13, 3, 3, 1
    concordant = (
        num_pairs - discordant - (ties_in_x - ties_in_both) - (ties_in_y - ties_in_both) - ties_in_both
    )
    expected = (
        concordant + ties_in_both - discordant - (ties_in_x - ties_in_both) - (ties_in_y - ties_in_both)
    )
    expected /= num_pairs
    assert tau(1.0) == expected  # KendallVariants(x, y, epsilon=1): x the gold, y the metric, as called there
    # the comments count the ties epsilon makes in x: x as the metric gives the same tau
    swapped = grouped_correlation(
        pm(y, 1), pm(x, 1), CorrelationOptions("kendall", kendall_variant="23", epsilon=1.0)
    )
    assert swapped == expected
    batch = grouped_correlation(
        pm(x, 1),
        np.stack([pm(y, 1), pm(y, 1)]),
        CorrelationOptions("kendall", kendall_variant="23", epsilon=1.0),
    )
    assert batch.tolist() == [expected, expected]


def test_function_kendall_with_ties_opt():
    """ports stats_test.py::CorrelationFunctionsTest::testKendallWithTiesOpt: the calibrated value is the grouped
    acc_23 at the calibrated epsilon (none; sys: the mean of the two systems'; item: of the three items')"""
    gold, metric = [1, 2, 2, 3, 3, 4], [2, 1, 1.5, 5, 3, 2]
    result = calibrate_ties(pm(gold, 1), pm(metric, 1), grouping="none")
    at = {"kendall_variant": "acc23", "epsilon": result.epsilon}
    assert result.value == grouped_correlation(
        pm(gold, 1), pm(metric, 1), CorrelationOptions("kendall", **at)
    )
    h, m = pm(gold, 2), pm(metric, 2)
    result = calibrate_ties(h, m, grouping="sys")
    at = {"kendall_variant": "acc23", "epsilon": result.epsilon}
    r1 = grouped_correlation(pm(gold[:3], 1), pm(metric[:3], 1), CorrelationOptions("kendall", **at))
    r2 = grouped_correlation(pm(gold[3:], 1), pm(metric[3:], 1), CorrelationOptions("kendall", **at))
    assert result.value == (r1 + r2) / 2
    result = calibrate_ties(h, m, grouping="item")
    at = {"kendall_variant": "acc23", "epsilon": result.epsilon}
    columns = [
        grouped_correlation(h[:, [n]].T, m[:, [n]].T, CorrelationOptions("kendall", **at)) for n in range(3)
    ]
    assert result.value == sum(columns) / 3


def test_reshape():
    """ports stats_test.py::CorrelationFunctionsTest::testReshape"""
    matrix = pm([1, 2, 3, 4, 5, 6], 2)
    assert as_groups(matrix, "none").shape == (1, 6)
    assert as_groups(matrix, "sys").shape == (2, 3)
    assert as_groups(matrix, "item").shape == (3, 2)


def test_reshape_and_filter():
    """ports stats_test.py::CorrelationFunctionsTest::testReshapeAndFilter: the permutation tests' units (the cells
    with a human score, group by group) and each non-empty group's size"""
    h = pm([1, 2, None, None, 5, None], 3)
    for grouping, lens, order in (
        ("sys", [2, 1], [1, 2, 5]),
        ("item", [2, 1], [1, 5, 2]),
        ("none", [3], [1, 2, 5]),
    ):
        (systems, items), sizes = rated_cells(h, grouping)
        assert [int(n) for n in sizes if n] == lens
        assert h[systems, items].tolist() == order


# --------------------------------------------------------------------------------------- PermutationSigDiffTest

GOLD8, METRIC1, METRIC2 = [1, 2, 3, 4, 5, 5, 7, 8], [1, 2, 3, 3, 7, 3, 5, 5], [2, 1, 2, 6, 8, 8, 7, 6]
H8 = pm(GOLD8, 4)
BOTH8 = np.stack([pm(METRIC1, 4), pm(METRIC2, 4)])
#: mt-metrics-eval's ``PermutationSigDiffParams()``: blocks of 1000 (no early stop before the 1000th resample).
NO_EARLY = EarlyStopping(block_size=1000, early_min=0.02, early_max=0.5)


def metric2_beats_metric1(source, k, early, *, mtme_draws=None):
    """mtsig's test of "metric 2 correlates better than metric 1" (ranked first): with mtsig's draws, or replaying
    mt-metrics-eval's after numpy.random.seed(0)."""
    return permutation_test(
        source, [1, 0], k, seed=20140626, key=("mtme-peer",), early_stopping=early, draw_masks=mtme_draws
    )


def check_permutation(name, source, k, early, expected_delta, replay):
    """What mt-metrics-eval asserts (p > 0, the delta, k used, p = share of the draws reaching delta), on mtsig's
    draws; then its own draws replayed (``replay``: the mask stream) against its p-value, delta and k."""
    result = metric2_beats_metric1(source, k, early)
    p, delta = float(result.pvalue[0]), -float(result.delta[0])
    assert p > 0
    assert delta == pytest.approx(expected_delta, abs=1e-12)
    used = int(result.n_used[0])
    draws = -result.draws[:used, 0]  # c2 - c1
    assert p == pytest.approx(np.mean(draws >= delta), abs=1e-12)
    replayed = metric2_beats_metric1(source, k, early, mtme_draws=replay(source))
    expected_p, expected_delta, expected_used = MTME_PERMUTATIONS[name]
    assert -float(replayed.delta[0]) == pytest.approx(expected_delta, abs=1e-12)
    assert int(replayed.n_used[0]) == expected_used
    # a draw equal to the observed difference counts in mtsig (exact integer numerators for acc-t and the pairs
    # test); mt-metrics-eval's float averages may round it below: the p-values may differ by those draws only
    ties = np.sum(np.abs(replayed.draws[:expected_used, 0] - replayed.delta[0]) <= 1e-12)
    assert abs(float(replayed.pvalue[0]) - expected_p) <= ties / expected_used + 1e-12
    return result


def grouped_swaps(kind, grouping, **options):
    return ScoreSwaps(
        H8,
        BOTH8,
        lambda x: grouped_correlation(H8, x, CorrelationOptions(kind, grouping, **options)),
        grouping=grouping,
    )


def cells(source):
    return mtme_cell_masks(0, source.n_units)


def test_pearson_no_avg_no_early_stop():
    """ports stats_test.py::PermutationSigDiffTest::testPearsonNoAvgNoEarlyStop"""
    delta = pearson(METRIC2, GOLD8)[0] - pearson(METRIC1, GOLD8)[0]
    flat = PearsonSwaps(np.array(GOLD8, dtype=float), BOTH8.reshape(2, -1))
    result = check_permutation("testPearsonNoAvgNoEarlyStop", flat, 1000, NO_EARLY, delta, cells)
    assert int(result.n_used[0]) == 1000 and np.isfinite(result.draws[:, 0]).sum() == 1000


def test_pearson_no_avg_with_early_stop():
    """ports stats_test.py::PermutationSigDiffTest::testPearsonNoAvgWithEarlyStop"""
    delta = pearson(METRIC2, GOLD8)[0] - pearson(METRIC1, GOLD8)[0]
    flat = PearsonSwaps(np.array(GOLD8, dtype=float), BOTH8.reshape(2, -1))
    early = EarlyStopping(block_size=50, early_max=0.2)
    result = check_permutation("testPearsonNoAvgWithEarlyStop", flat, 1000, early, delta, cells)
    used = int(result.n_used[0])
    assert used < 1000
    assert np.isfinite(result.draws[:, 0]).sum() == used


def test_pearson_sys_no_early_stop():
    """ports stats_test.py::PermutationSigDiffTest::testPearsonSysNoEarlyStop"""
    delta = grouped_correlation(H8, BOTH8[1], CorrelationOptions(grouping="sys")) - grouped_correlation(
        H8, BOTH8[0], CorrelationOptions(grouping="sys")
    )
    result = check_permutation(
        "testPearsonSysNoEarlyStop", grouped_swaps("pearson", "sys"), 1000, NO_EARLY, delta, cells
    )
    assert int(result.n_used[0]) == 1000


def test_pearson_sys_no_early_stop_nan0():
    """ports stats_test.py::PermutationSigDiffTest::testPearsonSysNoEarlyStopNan0"""
    zero = {"nan_groups": "zero"}
    delta = grouped_correlation(
        H8, BOTH8[1], CorrelationOptions(grouping="sys", **zero)
    ) - grouped_correlation(H8, BOTH8[0], CorrelationOptions(grouping="sys", **zero))
    source = grouped_swaps("pearson", "sys", **zero)
    result = check_permutation("testPearsonSysNoEarlyStopNan0", source, 1000, NO_EARLY, delta, cells)
    assert int(result.n_used[0]) == 1000


def test_pearson_item_no_early_stop():
    """ports stats_test.py::PermutationSigDiffTest::testPearsonItemNoEarlyStop"""
    delta = grouped_correlation(H8, BOTH8[1], CorrelationOptions(grouping="item")) - grouped_correlation(
        H8, BOTH8[0], CorrelationOptions(grouping="item")
    )
    source = grouped_swaps("pearson", "item")
    result = check_permutation("testPearsonItemNoEarlyStop", source, 1000, NO_EARLY, delta, cells)
    assert int(result.n_used[0]) == 1000


BLOCK10 = EarlyStopping(block_size=10)


def test_kendall_item_with_early_stop():
    """ports stats_test.py::PermutationSigDiffTest::testKendallItemWithEarlyStop (scipy's tau-b, and the
    "factored" KendallVariants: the same function in mtsig)"""
    delta = grouped_correlation(H8, BOTH8[1], CorrelationOptions("kendall", "item")) - grouped_correlation(
        H8, BOTH8[0], CorrelationOptions("kendall", "item")
    )
    scipy_delta = np.mean([kendall(GOLD8[n::2], METRIC2[n::2])[0] for n in range(2)]) - np.mean(
        [kendall(GOLD8[n::2], METRIC1[n::2])[0] for n in range(2)]
    )
    assert delta == pytest.approx(scipy_delta, abs=1e-12)
    result = check_permutation(
        "testKendallItemWithEarlyStop", grouped_swaps("kendall", "item"), 10, BLOCK10, delta, cells
    )
    assert int(result.n_used[0]) == 10


def test_kendall_c_permutation():
    """ports stats_test.py::PermutationSigDiffTest::testKendallC"""
    c = {"kendall_variant": "c"}
    delta = grouped_correlation(
        H8, BOTH8[1], CorrelationOptions("kendall", "item", **c)
    ) - grouped_correlation(H8, BOTH8[0], CorrelationOptions("kendall", "item", **c))
    result = check_permutation(
        "testKendallC", grouped_swaps("kendall", "item", **c), 10, BLOCK10, delta, cells
    )
    assert int(result.n_used[0]) == 10


@pytest.mark.parametrize(
    "variant, name", [("23", "testKendallVariants23"), ("acc23", "testKendallVariantsAcc23")]
)
def test_kendall_variants_permutation(variant, name):
    """ports stats_test.py::PermutationSigDiffTest::testKendallVariants23 and ::testKendallVariantsAcc23"""
    v = {"kendall_variant": variant}
    delta = grouped_correlation(
        H8, BOTH8[1], CorrelationOptions("kendall", "item", **v)
    ) - grouped_correlation(H8, BOTH8[0], CorrelationOptions("kendall", "item", **v))
    result = check_permutation(name, grouped_swaps("kendall", "item", **v), 10, BLOCK10, delta, cells)
    assert int(result.n_used[0]) == 10


def test_tau_optimization():
    """ports stats_test.py::PermutationSigDiffTest::testTauOptimization (epsilon re-calibrated on every resample,
    perm_test='scores')"""
    delta = calibrate_ties(H8, BOTH8[1]).value - calibrate_ties(H8, BOTH8[0]).value
    result = check_permutation(
        "testTauOptimization", recalibrated_acc_t(H8, BOTH8), 10, BLOCK10, delta, cells
    )
    assert int(result.n_used[0]) == 10


# ------------------------------------------------------------------------------- PairwisePermutationSigDiffTest

GOLD_P, METRIC1_P, METRIC2_P = [1, 3, 3, 3, 1, 2, 1, 2], [2, 4, 6, 6, 2, 6, 3, 7], [1, 5, 4, 4, 4, 3, 2, 1]
H_P = pm(GOLD_P, 4)
BOTH_P = np.stack([pm(METRIC1_P, 4), pm(METRIC2_P, 4)])
#: PairwisePermutationSigDiff's early stopping: blocks of 1000, checked only after a resample reaching delta.
PAIRS_NO_EARLY = EarlyStopping(block_size=1000, check_only_on_exceedance=True)


def pairs_draws(source):
    _, lens = rated_cells(H_P, "item")
    return mtme_pair_masks(0, lens)


def test_pairwise_kendall_variants_acc23():
    """ports stats_test.py::PairwisePermutationSigDiffTest::testKendallVariantsAcc23 (the acc-t tasks' test:
    PairSwaps at each metric's calibrated epsilon)"""
    calibrated = [calibrate_ties(H_P, m) for m in BOTH_P]
    delta = calibrated[1].value - calibrated[0].value
    source = PairSwaps(pair_outcomes(H_P, BOTH_P, [c.epsilon for c in calibrated]), "acc23")
    result = check_permutation(
        "Pairwise.testKendallVariantsAcc23", source, 10, PAIRS_NO_EARLY, delta, pairs_draws
    )
    assert int(result.n_used[0]) == 10 and np.isfinite(result.draws[:, 0]).sum() == 10
    null_count = np.sum(-result.draws[:, 0] >= delta - 1e-12)
    assert abs(null_count - result.pvalue[0] * 10) <= 3


def test_pairwise_kendall_variants_b():
    """ports stats_test.py::PairwisePermutationSigDiffTest::testKendallVariantsB (tau-b at epsilon 1 for both)"""
    b = {"kendall_variant": "b", "epsilon": 1.0}
    delta = grouped_correlation(
        H_P, BOTH_P[1], CorrelationOptions("kendall", "item", **b)
    ) - grouped_correlation(H_P, BOTH_P[0], CorrelationOptions("kendall", "item", **b))
    source = PairOutcomeSwaps(H_P, BOTH_P, [1.0, 1.0], variant="b")
    result = metric2_beats_metric1(source, 10, PAIRS_NO_EARLY)
    assert -result.delta[0] == pytest.approx(delta, abs=1e-12)
    assert int(result.n_used[0]) == 10
    replayed = metric2_beats_metric1(source, 10, PAIRS_NO_EARLY, mtme_draws=pairs_draws(source))
    expected = MTME_PERMUTATIONS["Pairwise.testKendallVariantsB"]
    assert (float(replayed.pvalue[0]), -float(replayed.delta[0]), int(replayed.n_used[0])) == pytest.approx(
        expected, abs=1e-12
    )


# ------------------------------------------------------------------------------------------------ WilliamsSigDiffTest


def test_williams_sig_diff():
    """ports stats_test.py::WilliamsSigDiffTest::testSigDiff"""
    gold, metric1, metric2 = [1, 2, 3, 4, 5], [1.1, 2, 3.1, 4, 5.1], [1.5, 2, 3.1, 4, 5.5]
    r1, r2, r12 = (
        grouped_correlation(pm(a, 1), pm(b, 1))
        for a, b in ((gold, metric1), (gold, metric2), (metric1, metric2))
    )
    _, p = williams_pvalues(r1, r2, r12, 5)
    assert (float(p), float(r1), float(r2)) == pytest.approx((0.019, 0.999, 0.987), abs=5e-4)


def test_williams_sig_diff_with_avg_and_nones():
    """ports stats_test.py::WilliamsSigDiffTest::testSigDiffWithAvgAndNones: item-averaged correlations, and n the
    length of the packed vectors (6, the missing score included), as WilliamsSigDiff takes it"""
    gold, metric1, metric2 = [1, None, 3, 4, 5, 6], [1, 2, 3, 3, 7, 3], [2, 1, 2, 6, 8, 8]
    r1 = grouped_correlation(pm(gold, 3), pm(metric1, 3), CorrelationOptions(grouping="item"))
    r2 = grouped_correlation(pm(gold, 3), pm(metric2, 3), CorrelationOptions(grouping="item"))
    r12 = grouped_correlation(pm(metric1, 3), pm(metric2, 3), CorrelationOptions(grouping="item"))
    _, p = williams_pvalues(r1, r2, r12, 6)
    assert (float(p), float(r1), float(r2)) == pytest.approx((0.121, 0.982, 0.933), abs=5e-4)


# ------------------------------------------------------------------------------------------------ SampleTest


def test_uniform_sample():
    """ports stats_test.py::SampleTest::testUniformSample (with seed 11 also mt-metrics-eval's very sample)"""
    s1 = item_sample(10, 5, "uniform", rng=np.random.default_rng(11))
    assert len(s1) == 5
    s2 = item_sample(10, 5, "uniform", rng=np.random.default_rng(11))
    assert list(s1) == list(s2)
    assert list(s1) == list(np.arange(10)[s1])  # Select(range(10))
    assert list(s1) == MTME_VALUES["Sample(10, 5, uniform, seed=11)"]


def test_stratified_sample():
    """ports stats_test.py::SampleTest::testStratifiedSample"""
    rng = np.random.default_rng(20140626)
    s = item_sample(8, 4, "stratify", [2, 2, 2, 2], rng=rng)
    assert len(s) == 4
    assert s[0] in [0, 1] and s[1] in [2, 3] and s[2] in [4, 5] and s[3] in [6, 7]
    s = item_sample(8, 4, "stratify", [2, 6], rng=rng)
    assert len(s) == 4
    assert s[0] in [0, 1] and all(x in range(2, 8) for x in s[1:])
    s = item_sample(8, 3, "stratify", [1, 7], rng=rng)
    assert len(s) == 3 and 0 not in s
    # no remainder to break: mt-metrics-eval's sample with the same seed
    same = item_sample(8, 4, "stratify", [2, 6], rng=np.random.default_rng(2))
    assert list(same) == MTME_VALUES["Sample(8, 4, stratify, [2, 6], seed=2)"]


# ------------------------------------------------------------------------------------------------ PairwiseDiffsTest


def test_pairwise_diffs():
    """ports stats_test.py::PairwiseDiffsTest::testPairWiseDiffs: a metric's pair outcomes at a tie threshold
    (ties, and > and < comparisons over the pairs i < j, x[j] - x[i] as PairwiseDiffs orders them), and their
    conservation when two metrics swap outcomes pair by pair (PairOutcomeSwaps' hybrids, tau-b's counts)"""
    x1, x2 = [1.0, 2.0, 2.1, 3.0], [4.0, 2.0, 3.0, 5.0]
    upper = np.triu_indices(4, k=1)
    for x, epsilon, ties, up, down in ((x1, 0.2, 1, 5, 0), (x2, 1.0, 3, 2, 1)):
        d = pairwise_differences([x])[0].reshape(4, 4)[upper]
        tie = np.abs(d) <= epsilon
        assert (int(tie.sum()), int(((d > 0) & ~tie).sum()), int(((d < 0) & ~tie).sum())) == (ties, up, down)
    # against a human order 0 < 1 < 2 < 3 a pair "increases" (x[j] > x[i]) exactly when it is concordant
    source = PairOutcomeSwaps(
        np.arange(4.0)[None], np.stack([[x1], [x2]]), [0.2, 1.0], variant="b", grouping="none"
    )
    base = (
        source.base
    )  # [groups, (sign, tie) x metrics]: Σ sign = concordant - discordant, Σ tie = metric ties
    assert base[0].tolist() == [5 - 0, 2 - 1, 1, 3]
    masks = np.random.default_rng(5).random((20, source.n_units)) < 0.5
    w = masks.astype(float)
    swapped = np.stack(
        [w[:, m] @ block for m, block in zip(source.members, source.blocks, strict=True)], axis=1
    )
    d = swapped[..., [1, 3]] - swapped[..., [0, 2]]  # metric 2's minus metric 1's, (sign, tie)
    hybrid1 = base[None, :, [0, 2]] + d
    hybrid2 = base[None, :, [1, 3]] - d
    assert np.array_equal(
        hybrid1 + hybrid2, np.broadcast_to(base[:, [0, 2]] + base[:, [1, 3]], hybrid1.shape)
    )
    ties = hybrid1[..., 1] + hybrid2[..., 1]
    concordant = (6 - hybrid1[..., 1] + hybrid1[..., 0]) / 2 + (6 - hybrid2[..., 1] + hybrid2[..., 0]) / 2
    discordant = (6 - hybrid1[..., 1] - hybrid1[..., 0]) / 2 + (6 - hybrid2[..., 1] - hybrid2[..., 0]) / 2
    assert (ties == 4).all() and (concordant == 7).all() and (discordant == 1).all()
