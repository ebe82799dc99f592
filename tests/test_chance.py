"""Chance levels of the metrics-task statistics (mtsig.stats.meta_evaluation.chance).

Oracles: each task statistic's own function (calibrate_ties, grouped_correlation, pooled_pairwise_accuracy,
soft_pairwise_accuracy) applied to explicitly permuted scores, draw by draw; and a simulation with known truth:
metrics drawn at random (a metric chosen at random, its scores permuted within the statistic's groups) exceed the
chance distribution's 95th percentile 5% of the time, within Monte Carlo error.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from mtsig.stats.meta_evaluation import chance
from mtsig.stats.meta_evaluation.grouped_correlation import as_groups, grouped_correlation
from mtsig.stats.meta_evaluation.pooled_accuracy import pooled_pairwise_accuracy
from mtsig.stats.meta_evaluation.soft_pairwise_accuracy import (
    pce_flips,
    permutation_counts,
    soft_pairwise_accuracy,
)
from mtsig.stats.meta_evaluation.tie_calibration import calibrate_ties


def _task(seed: int, systems: int = 6, items: int = 40, missing: float = 0.2):
    """MQM-like human scores (integers, many ties, some cells unrated) and three metrics: two noisy copies of the
    human scores (one rounded: ties) and noise."""
    rng = np.random.default_rng(seed)
    human = -np.round(rng.exponential(1.5, size=(systems, items)))
    human[rng.random((systems, items)) < missing] = np.nan
    filled = np.nan_to_num(human, nan=-1.0)
    metrics = np.stack(
        [
            filled + rng.normal(size=filled.shape),
            np.round(filled + rng.normal(size=filled.shape)),
            rng.normal(size=filled.shape),
        ]
    )
    return human, metrics


@pytest.mark.parametrize("grouping", ["item", "none", "sys"])
def test_tie_calibrated_chance_is_calibrate_ties_on_each_permutation(grouping):
    """The vectorised search (the metric's pairs sorted once) gives calibrate_ties' value, bit for bit, on the
    human scores permuted within each group (the same joint assignments as the metric's scores permuted)."""
    human, metrics = _task(1)
    for metric in metrics:
        got = chance.chance_tie_calibrated(human, metric, 12, np.random.default_rng(5), grouping=grouping)
        groups = as_groups(human, grouping)
        perm = chance.within_group_permutations(np.random.default_rng(5), np.isfinite(groups), 12)
        shuffled = np.take_along_axis(np.broadcast_to(groups, perm.shape), perm, axis=-1)
        expected = [
            calibrate_ties(chance.from_groups(s, human.shape, grouping), metric, grouping=grouping).value
            for s in shuffled
        ]
        assert got.tolist() == expected


def test_permutations_stay_within_the_rated_cells_of_each_group():
    human, metrics = _task(2)
    rated = np.isfinite(human)
    permuted = chance.permuted_within_groups(np.random.default_rng(1), metrics[0], rated, "item", 5)
    for draw in permuted:
        for n in range(human.shape[1]):
            assert sorted(draw[rated[:, n], n]) == sorted(metrics[0][rated[:, n], n])
            assert np.array_equal(draw[~rated[:, n], n], metrics[0][~rated[:, n], n])
    everywhere = chance.permuted_within_groups(np.random.default_rng(1), metrics[0], rated, "none", 5)
    assert sorted(everywhere[0][rated]) == sorted(metrics[0][rated])
    assert not np.array_equal(everywhere[0], metrics[0])


def test_spa_chance_is_spa_of_the_metric_with_its_systems_relabelled():
    rng = np.random.default_rng(3)
    human = rng.normal(size=(5, 30)) + np.arange(5)[:, None] * 0.2
    metric = human + rng.normal(size=human.shape)
    flips = pce_flips(30)
    counts = chance.full_counts(permutation_counts(metric, flips), permutation_counts(-metric, flips), 5)
    got = chance.chance_spa(permutation_counts(human, flips), counts, 1000, 8, np.random.default_rng(9))
    order = np.argsort(np.random.default_rng(9).random((8, 5)), axis=1)
    expected = [soft_pairwise_accuracy(human, metric[perm], flips=flips) for perm in order]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-15)


def test_pearson_and_pooled_accuracy_chance_are_their_statistics_on_permuted_scores():
    human, metrics = _task(4)
    got = chance.chance_grouped_correlation(human, metrics[0], "pearson", "item", 6, np.random.default_rng(2))
    permuted = chance.permuted_within_groups(
        np.random.default_rng(2), metrics[0], np.isfinite(human), "item", 6
    )
    np.testing.assert_array_equal(got, grouped_correlation(human, permuted, "pearson", "item"))
    humans = [np.array([3.0, 1.0, 2.0, 2.0]), np.array([0.5, 0.1, 0.3])]
    systems = [np.array([0.3, 0.1, 0.2, 0.0]), np.array([1.0, 3.0, 2.0])]
    got = chance.chance_pooled_accuracy(humans, systems, 7, np.random.default_rng(8))
    rng = np.random.default_rng(8)
    permuted = [m[np.argsort(rng.random((7, m.size)), axis=1)] for m in systems]
    expected = [pooled_pairwise_accuracy(humans, [p[d] for p in permuted])[0] for d in range(7)]
    np.testing.assert_array_equal(got, expected)


def test_grouped_chance_passes_the_tasks_epsilon_average_and_nan_rule():
    """A Kendall task with a tie threshold, a micro average and undefined groups as 0 gets its own statistic on
    the permuted scores, not the default one."""
    human, metrics = _task(5)
    options = {"kendall_variant": "b", "epsilon": 0.5, "average": "micro", "nan_groups": "zero"}
    got = chance.chance_grouped_correlation(
        human, metrics[1], "kendall", "item", 6, np.random.default_rng(4), **options
    )
    permuted = chance.permuted_within_groups(
        np.random.default_rng(4), metrics[1], np.isfinite(human), "item", 6
    )
    np.testing.assert_array_equal(got, grouped_correlation(human, permuted, "kendall", "item", **options))
    assert not np.array_equal(got, grouped_correlation(human, permuted, "kendall", "item"))


@pytest.mark.parametrize("statistic", ["acc-t", "pearson (none)"])
def test_random_metrics_exceed_the_95th_percentile_five_percent_of_the_time(statistic):
    """Known truth: the chance distribution (1000 draws, the metrics in turn, as the protocol draws them) and 400
    metrics drawn at random the other way (a metric chosen at random, its scores permuted with numpy's
    permutation, the statistic computed by its own function): about 5% of the latter lie above the former's 95th
    percentile (a two-sided binomial test does not reject at 0.001)."""
    human, metrics = _task(6, systems=5, items=30)
    rated = np.isfinite(human)

    def statistic_of(metric):
        if statistic == "acc-t":
            return calibrate_ties(human, metric).value
        return float(grouped_correlation(human, metric, "pearson", "none"))

    draws = []
    for k, metric in enumerate(metrics):
        rng = np.random.default_rng(100 + k)
        n = len(range(k, 1000, len(metrics)))
        if statistic == "acc-t":
            draws.append(chance.chance_tie_calibrated(human, metric, n, rng))
        else:
            draws.append(chance.chance_grouped_correlation(human, metric, "pearson", "none", n, rng))
    _, upper = chance.chance_summary(np.concatenate(draws))
    rng = np.random.default_rng(7)
    above = 0
    for _ in range(400):
        metric = metrics[rng.integers(len(metrics))].copy()
        if statistic == "acc-t":
            for n in range(human.shape[1]):
                cells = np.flatnonzero(rated[:, n])
                metric[cells, n] = metric[rng.permutation(cells), n]
        else:
            metric[rated] = rng.permutation(metric[rated])
        above += statistic_of(metric) > upper
    assert stats.binomtest(int(above), 400, 0.05).pvalue > 0.001, above


def test_chance_pvalues_count_the_draws_at_or_above():
    draws = np.array([0.1, 0.2, 0.2, 0.5])
    assert chance.chance_pvalues(np.array([0.2, 0.6, 0.0]), draws).tolist() == [4 / 5, 1 / 5, 5 / 5]
    mean, upper = chance.chance_summary(np.arange(101.0))
    assert (mean, upper) == (50.0, 95.0)
