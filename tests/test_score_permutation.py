"""mt-metrics-eval's other statistics and their permutation tests
(mtsig.stats.meta_evaluation.score_permutation, pdp_compiled, correlation_pvalues, item_sampling,
tie_calibration.calibrate_ties_many) against independent computations: scipy, loops over the resamples written
here from the definitions (docs/statistics.md, "mt-metrics-eval's other statistics"), brute force over every
threshold, and hand counts. mt-metrics-eval itself is the oracle of tests/test_mtme_peer_stats.py and
benchmarks/bench_mtme_stats.py."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

from mtsig.errors import InputError
from mtsig.stats.meta_evaluation.correlation_pvalues import (
    average_correlation,
    kendall_pvalue,
    pearson_pvalue,
    spearman_pvalue,
)
from mtsig.stats.meta_evaluation.grouped_correlation import (
    CorrelationOptions,
    as_groups,
    grouped_correlation,
)
from mtsig.stats.meta_evaluation.item_sampling import item_sample, stratified_sizes
from mtsig.stats.meta_evaluation.metric_permutation import standardise, swap_masks
from mtsig.stats.meta_evaluation.score_permutation import (
    PairOutcomeSwaps,
    PdpSwaps,
    ScoreSwaps,
    rated_cells,
    recalibrated_acc_t,
)
from mtsig.stats.meta_evaluation.tie_calibration import (
    calibrate_ties,
    calibrate_ties_many,
    group_pairs,
    pair_differences,
)


def _data(seed: int, systems: int = 5, items: int = 7, metrics: int = 3, missing: float = 0.15):
    rng = np.random.default_rng(seed)
    human = rng.integers(0, 4, (systems, items)).astype(float)
    human[rng.random(human.shape) < missing] = np.nan
    human[:, 0] = [0, 1, 2, 3, 0][:systems]  # every group has two rated cells
    human[0, :] = np.arange(items) % 3
    human[1, :] = np.arange(items) % 2 + 1
    x = np.round(rng.normal(size=(metrics, systems, items)), 1)
    return human, x


def _hybrids(source, masks, a, b):
    """The hybrid matrices of every resample and pair, built cell by cell from the source's z-scores."""
    out_a, out_b = [], []
    for mask in masks:
        swapped = np.zeros(source.shape, dtype=bool)
        swapped[source.systems, source.items] = mask
        out_a.append(np.where(swapped, source.z[b], source.z[a]))
        out_b.append(np.where(swapped, source.z[a], source.z[b]))
    return out_a, out_b


@pytest.mark.parametrize("grouping", ["item", "sys", "none"])
def test_pdp_swaps_equal_pdp_of_the_hybrids(grouping):
    """PdpSwaps' sums (linear parts and the compiled loop) give each hybrid's PDP computed directly."""
    human, x = _data(1)
    source = PdpSwaps(human, x, grouping)
    direct = ScoreSwaps(
        human,
        x,
        lambda m: grouped_correlation(human, m, CorrelationOptions(grouping=grouping, pdp=True)),
        grouping=grouping,
    )
    masks = swap_masks(np.random.default_rng(2), 30, source.n_units)
    a, b = np.triu_indices(3, k=1)
    np.testing.assert_allclose(source.draws(masks, a, b), direct.draws(masks, a, b), rtol=0, atol=1e-12)
    np.testing.assert_allclose(source.observed(a, b), direct.observed(a, b), rtol=0, atol=1e-12)
    # and by hand: the loop over resamples, PDP of each hybrid
    hybrid_a, hybrid_b = _hybrids(direct, masks[:3], a[0], b[0])
    for k in range(3):
        expected = grouped_correlation(
            human, hybrid_a[k], CorrelationOptions(grouping=grouping, pdp=True)
        ) - grouped_correlation(human, hybrid_b[k], CorrelationOptions(grouping=grouping, pdp=True))
        assert source.draws(masks[k : k + 1], a[:1], b[:1])[0, 0] == pytest.approx(expected, abs=1e-12)


def test_recalibrated_acc_t_equals_a_loop_over_hybrids():
    """Every cell swapped, each metric z-scored over all cells, epsilon searched again on each hybrid (mt-metrics-eval's
    PermutationSigDiff with KendallWithTiesOpt), written as a loop with calibrate_ties."""
    human, x = _data(3)
    source = recalibrated_acc_t(human, x)
    assert source.n_units == human.size
    np.testing.assert_allclose(source.z, standardise(x.reshape(3, -1)).reshape(x.shape), rtol=0, atol=1e-15)
    masks = swap_masks(np.random.default_rng(4), 8, source.n_units)
    a, b = np.array([0, 1]), np.array([2, 2])
    draws = source.draws(masks, a, b) * source.scale
    for p in range(2):
        hybrid_a, hybrid_b = _hybrids(source, masks, a[p], b[p])
        for k in range(8):
            expected = calibrate_ties(human, hybrid_a[k]).value - calibrate_ties(human, hybrid_b[k]).value
            assert draws[k, p] == pytest.approx(expected, abs=1e-12)


def _tau_b_by_hand(human_groups, metric_groups, epsilon):
    """Kendall's tau-b of one group at a metric tie threshold, pair by pair."""
    valid = np.isfinite(human_groups)
    h, m = human_groups[valid], metric_groups[valid]
    s = tx = th = total = 0
    for i in range(h.size):
        for j in range(i + 1, h.size):
            total += 1
            tie_h, tie_m = h[i] == h[j], abs(m[i] - m[j]) <= epsilon
            tx += tie_m
            th += tie_h
            if not tie_h and not tie_m:
                s += 1 if np.sign(h[i] - h[j]) == np.sign(m[i] - m[j]) else -1
    if tx == total or th == total:
        return np.nan
    return s / np.sqrt(total - tx) / np.sqrt(total - th)


def test_pair_outcome_swaps_tau_b_equals_swapping_outcomes_by_hand():
    """Kendall's tau-b at fixed epsilons with each pair's outcome swapped: a hybrid takes, pair by pair, the other
    metric's (sign, tie) outcome; here each hybrid's tau-b is counted pair by pair."""
    human, x = _data(5)
    eps = [0.2, 0.5, 0.0]
    source = PairOutcomeSwaps(human, x, eps, variant="b", grouping="item")
    masks = swap_masks(np.random.default_rng(6), 5, source.n_units)
    a, b = np.array([0]), np.array([1])
    draws = source.draws(masks, a, b)
    pairs = group_pairs(human, "item")
    dh = pair_differences(human, pairs, "item")
    dm = pair_differences(x, pairs, "item")

    def outcome(m, q):  # (sign of concordance or 0, metric tie)
        tie_m, tie_h = abs(dm[m, q]) <= eps[m], dh[q] == 0
        return (0 if tie_m or tie_h else (1 if np.sign(dh[q]) == np.sign(dm[m, q]) else -1)), tie_m

    for k in range(5):
        values = []
        for first, second in ((0, 1), (1, 0)):
            per_group = []
            for g in np.unique(pairs.group):
                qs = np.flatnonzero(pairs.group == g)
                chosen = [outcome(second if masks[k, q] else first, q) for q in qs]
                s = sum(c[0] for c in chosen)
                tx = sum(c[1] for c in chosen)
                th = int((dh[qs] == 0).sum())
                total = qs.size
                per_group.append(
                    np.nan if tx == total or th == total else s / np.sqrt(total - tx) / np.sqrt(total - th)
                )
            values.append(np.nanmean(per_group))
        assert draws[k, 0] == pytest.approx(values[0] - values[1], abs=1e-12)
    # without swaps: the grouped tau-b at each metric's own epsilon
    observed = source.observed(np.array([0, 1]), np.array([2, 2]))
    for p, m in enumerate((0, 1)):
        expected = grouped_correlation(
            human, x[m], CorrelationOptions("kendall", "item", epsilon=eps[m])
        ) - grouped_correlation(human, x[2], CorrelationOptions("kendall", "item", epsilon=eps[2]))
        assert observed[p] == pytest.approx(expected, abs=1e-12)
    groups = as_groups(human, "item")
    assert _tau_b_by_hand(groups[1], as_groups(x[0], "item")[1], eps[0]) == pytest.approx(
        grouped_correlation(
            human[:, [1]], x[0][:, [1]], CorrelationOptions("kendall", "item", epsilon=eps[0])
        ),
        nan_ok=True,
    )


def test_score_swaps_units_are_the_rated_cells_in_group_order():
    human = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, np.nan]])
    (systems, items), sizes = rated_cells(human, "item")
    assert list(zip(systems.tolist(), items.tolist(), strict=True)) == [(0, 0), (1, 0), (1, 1), (0, 2)]
    assert sizes.tolist() == [2, 1, 1]
    source = ScoreSwaps(human, np.ones((2, 2, 3)), lambda m: m.sum(axis=(-1, -2)), grouping="item")
    assert source.n_units == 4


def test_calibrate_ties_many_equals_one_at_a_time():
    """The same values, epsilons and exact numerators as calibrate_ties, with missing cells (several item sizes)."""
    rng = np.random.default_rng(7)
    for _ in range(20):
        human, x = _data(
            int(rng.integers(1000)), systems=int(rng.integers(2, 6)), items=int(rng.integers(2, 8))
        )
        for grouping in ("item", "sys", "none"):
            for variant in ("acc23", "23"):
                many = calibrate_ties_many(human, x, variant=variant, grouping=grouping)
                one = [calibrate_ties(human, m, variant=variant, grouping=grouping) for m in x]
                assert many.values.tolist() == [c.value for c in one]
                assert many.epsilons.tolist() == [c.epsilon for c in one]
                np.testing.assert_allclose(
                    many.numerators / many.denominator, many.values, rtol=0, atol=1e-15
                )
                assert (many.numerators == np.round(many.numerators)).all()


def test_calibrate_ties_many_errors():
    with pytest.raises(InputError, match="optimises"):
        calibrate_ties_many(np.zeros((2, 2)), np.zeros((1, 2, 2)), variant="b")
    with pytest.raises(InputError, match="no group"):
        calibrate_ties_many(np.full((2, 2), np.nan), np.zeros((1, 2, 2)))


def test_p_values_equal_scipys():
    """Pearson, Spearman and Kendall's b/c p-values (exact without ties up to 33 cells, asymptotic otherwise)."""
    rng = np.random.default_rng(8)
    for n in (3, 5, 12, 33, 34, 60):
        for ties in (False, True):
            h = rng.integers(0, 4, n).astype(float) if ties else rng.permutation(n).astype(float)
            m = np.round(rng.normal(size=n), 1 if ties else 6)
            r = scipy.stats.pearsonr(h, m)
            assert pearson_pvalue(r[0], n) == pytest.approx(r[1], rel=1e-12, abs=1e-15)
            rho = scipy.stats.spearmanr(h, m)
            assert spearman_pvalue(rho[0], n) == pytest.approx(rho[1], rel=1e-12, abs=1e-15)
            tau = scipy.stats.kendalltau(h, m)
            p = kendall_pvalue(h[None], m[None], np.ones((1, n), dtype=bool))[0]
            assert p == pytest.approx(tau[1], rel=1e-9, abs=1e-15)
            assert average_correlation(
                h[None], m[None], CorrelationOptions("kendall")
            ).pvalue == pytest.approx(tau[1], rel=1e-9)
    assert np.isnan(spearman_pvalue(1.0, 2)) and pearson_pvalue(1.0, 2) == 1.0


def test_kendall_pvalue_with_a_tie_threshold_is_mt_metrics_evals_placeholder():
    """mt-metrics-eval computes Kendall with a tie threshold epsilon > 0 with ``KendallVariants``, which returns
    (tau, 0): tau-b's averaged p is then 0, not scipy's p of tau at epsilon 0; at epsilon 0 it stays scipy's."""
    rng = np.random.default_rng(3)
    h = rng.permutation(12).astype(float)
    m = np.round(rng.normal(size=12), 1)
    at_zero = average_correlation(h[None], m[None], CorrelationOptions("kendall", kendall_variant="b"))
    assert at_zero.pvalue == pytest.approx(scipy.stats.kendalltau(h, m)[1], rel=1e-9)
    thresholded = average_correlation(
        h[None], m[None], CorrelationOptions("kendall", kendall_variant="b", epsilon=0.3)
    )
    assert thresholded.pvalue == 0.0
    assert thresholded.value != at_zero.value  # the threshold changes tau-b itself


def test_stratified_sizes_by_hand():
    """Largest remainders: 10 of bins (3, 3, 4) of 10 -> floors (3, 3, 4); 5 of (3, 3, 4): ideal (1.5, 1.5, 2) ->
    floors (1, 1, 2), one more to the first of the tied remainders in the tie order."""
    assert stratified_sizes([3, 3, 4], 10, [0, 1, 2]).tolist() == [3, 3, 4]
    assert stratified_sizes([3, 3, 4], 5, [0, 1, 2]).sum() == 5
    assert sorted(stratified_sizes([3, 3, 4], 5, [1, 0, 2]).tolist()) == [1, 2, 2]
    assert stratified_sizes([2, 6], 4, [0, 1]).tolist() == [1, 3]
    sample = item_sample(30, 7, "stratify", [3, 9, 10, 8], rng=np.random.default_rng(1))
    assert len(set(sample.tolist())) == 7 and all(0 <= s < 30 for s in sample)
    assert item_sample(5, 0, rng=np.random.default_rng(1)).tolist() != []  # 0: every item
    assert sorted(item_sample(5, 0, rng=np.random.default_rng(1)).tolist()) == [0, 1, 2, 3, 4]
    with pytest.raises(InputError, match="bin sizes"):
        item_sample(8, 3, "stratify", [2, 2], rng=np.random.default_rng(1))
    with pytest.raises(InputError, match="unknown sampling"):
        item_sample(8, 3, "cluster", rng=np.random.default_rng(1))
