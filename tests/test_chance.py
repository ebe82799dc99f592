"""Chance levels of the metrics-task statistics (mtsig.stats.meta_evaluation.chance).

Oracles: each task statistic's own function (calibrate_ties, grouped_correlation, pooled_pairwise_accuracy,
soft_pairwise_accuracy) applied to explicitly permuted scores, draw by draw; a simulation with known truth:
metrics drawn at random (a metric chosen at random, its scores permuted within the statistic's groups) exceed the
chance distribution's 95th percentile 5% of the time, within Monte Carlo error; and for PDP (DiIanni & Deutsch
2025) on three systems, the exact permutation distribution: every within-group permutation enumerated with
itertools and PDP computed here from its definition (Pearson's r of the pairwise differences).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from mtsig.errors import InputError
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


@pytest.mark.parametrize("statistic", ["acc-t (item)", "pearson (none)", "pdp (item)", "pdp (sys)"])
def test_random_metrics_exceed_the_95th_percentile_five_percent_of_the_time(statistic):
    """Known truth: the chance distribution (1000 draws, the metrics in turn, as the protocol draws them) and 400
    metrics drawn at random the other way (a metric chosen at random, its scores permuted with numpy's
    permutation within the statistic's groups, the statistic computed by its own function): about 5% of the
    latter lie above the former's 95th percentile, and for the continuous statistics (Pearson, PDP) about 5% have a
    p-value against chance <= 0.05 (two-sided binomial tests do not reject at 0.001; acc-t's many tied draws make
    its p-values conservative)."""
    human, metrics = _task(6, systems=5, items=30)
    rated = np.isfinite(human)
    grouping = statistic.split("(")[1].rstrip(")")

    def statistic_of(metric):
        if statistic == "acc-t (item)":
            return calibrate_ties(human, metric).value
        return float(grouped_correlation(human, metric, "pearson", grouping, pdp=statistic.startswith("pdp")))

    draws = []
    for k, metric in enumerate(metrics):
        rng = np.random.default_rng(100 + k)
        n = len(range(k, 1000, len(metrics)))
        if statistic == "acc-t (item)":
            draws.append(chance.chance_tie_calibrated(human, metric, n, rng))
        elif statistic.startswith("pdp"):
            draws.append(chance.chance_pdp(human, metric, grouping, n, rng))
        else:
            draws.append(chance.chance_grouped_correlation(human, metric, "pearson", "none", n, rng))
    _, upper = chance.chance_summary(np.concatenate(draws))
    rng = np.random.default_rng(7)
    values = []
    for _ in range(400):
        metric = metrics[rng.integers(len(metrics))].copy()
        if grouping == "none":
            metric[rated] = rng.permutation(metric[rated])
        else:  # within each item (acc-t's and PDP's groups), or within each system
            by_group = metric if grouping == "sys" else metric.T  # a view: [group, cell]
            for g, valid in enumerate(rated if grouping == "sys" else rated.T):
                cells = np.flatnonzero(valid)
                by_group[g, cells] = by_group[g, rng.permutation(cells)]
        values.append(statistic_of(metric))
    above = int((np.array(values) > upper).sum())
    assert stats.binomtest(above, 400, 0.05).pvalue > 0.001, above
    if statistic != "acc-t (item)":
        significant = int((chance.chance_pvalues(np.array(values), np.concatenate(draws)) <= 0.05).sum())
        assert stats.binomtest(significant, 400, 0.05).pvalue > 0.001, significant


def test_chance_pvalues_count_the_draws_at_or_above():
    draws = np.array([0.1, 0.2, 0.2, 0.5])
    assert chance.chance_pvalues(np.array([0.2, 0.6, 0.0]), draws).tolist() == [4 / 5, 1 / 5, 5 / 5]
    mean, upper = chance.chance_summary(np.arange(101.0))
    assert (mean, upper) == (50.0, 95.0)


def _pdp_by_definition(human: np.ndarray, metric: np.ndarray, groups: list[list[tuple[int, int]]]) -> float:
    """PDP from its definition (DiIanni & Deutsch 2025): Pearson's r of the human and metric differences of every
    ordered pair of distinct rated cells of the same group (``groups``: each group's rated cells as (system, item))."""
    dh, dm = [], []
    for cells in groups:
        for a, b in itertools.permutations(cells, 2):
            dh.append(human[a] - human[b])
            dm.append(metric[a] - metric[b])
    return float(np.corrcoef(dh, dm)[0, 1])


def _rated_groups(human: np.ndarray, grouping: str) -> list[list[tuple[int, int]]]:
    """The rated cells of each group: of an item (``item``), of a system (``sys``), all of them (``none``)."""
    systems, items = human.shape
    cells = [(s, n) for s in range(systems) for n in range(items) if np.isfinite(human[s, n])]
    if grouping == "none":
        return [cells]
    axis = 1 if grouping == "item" else 0
    return [[c for c in cells if c[axis] == g] for g in range(human.shape[axis])]


#: Three systems, three items; system 2 has no human score of item 2, where its metric score is far off (a cell
#: without a gold score must stay where it is). Item-grouped: 3! 3! 2! = 72 equally likely joint permutations.
PDP_HUMAN = np.array([[1.0, 4.0, 2.0], [2.0, 1.0, 5.0], [0.0, 3.0, np.nan]])
PDP_METRIC = np.array([[0.5, 2.0, 1.0], [1.0, 0.0, 3.0], [2.0, 1.5, 100.0]])


@pytest.mark.parametrize("grouping", ["item", "sys", "none"])
def test_pdp_chance_draws_the_exact_permutation_distribution(grouping):
    """Every joint permutation of the metric's rated cells within the groups is enumerated with itertools and its
    PDP computed from the definition (72 permutations by item, 72 by system, 8! over every cell): 20,000 draws of
    chance_pdp take only those values, as often as the enumeration says (chi-square test at 0.001), and their mean
    is the exact mean within Monte Carlo error."""
    groups = _rated_groups(PDP_HUMAN, grouping)
    exact = []
    for joint in itertools.product(*(itertools.permutations(cells) for cells in groups)):
        permuted = PDP_METRIC.copy()
        for cells, image in zip(groups, joint, strict=True):
            for cell, source in zip(cells, image, strict=True):
                permuted[cell] = PDP_METRIC[source]
        exact.append(_pdp_by_definition(PDP_HUMAN, permuted, groups))
    support, counts = np.unique(np.round(exact, 12), return_counts=True)
    draws = chance.chance_pdp(PDP_HUMAN, PDP_METRIC, grouping, 20_000, np.random.default_rng(11))
    nearest = np.abs(draws[:, None] - support[None, :]).argmin(axis=1)
    np.testing.assert_allclose(draws, support[nearest], rtol=0, atol=1e-9)  # no value outside the enumeration
    observed = np.bincount(nearest, minlength=support.size)
    assert stats.chisquare(observed, counts / counts.sum() * draws.size).pvalue > 0.001
    spread = np.std(exact) / np.sqrt(draws.size)
    assert abs(draws.mean() - np.mean(exact)) < 4 * spread


@pytest.mark.parametrize("grouping", ["item", "sys", "none"])
def test_pdp_chance_is_grouped_pdp_on_the_permuted_scores(grouping):
    """Each draw is grouped_correlation's PDP of the metric's scores permuted within the groups by the same
    generator (the centred scores permuted instead: equal to rounding)."""
    human, metrics = _task(8)
    got = chance.chance_pdp(human, metrics[1], grouping, 60, np.random.default_rng(3))
    permuted = chance.permuted_within_groups(
        np.random.default_rng(3), metrics[1], np.isfinite(human), grouping, 60
    )
    expected = grouped_correlation(human, permuted, "pearson", grouping, pdp=True)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    assert np.unique(got).size > 50  # the draws differ: the scores were permuted
    # at the system level (one score per system) the systems' scores are permuted
    system_human, system_metric = np.nanmean(human, axis=1)[:, None], metrics[0].mean(axis=1)[:, None]
    got = chance.chance_pdp(system_human, system_metric, "none", 30, np.random.default_rng(4))
    permuted = chance.permuted_within_groups(
        np.random.default_rng(4), system_metric, np.ones((6, 1), dtype=bool), "none", 30
    )
    expected = grouped_correlation(system_human, permuted, "pearson", "none", pdp=True)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


def test_pdp_chance_of_a_constant_side_is_zero_and_bad_input_is_an_error():
    """A metric constant in every group has no difference: PDP undefined, 0 as grouped_correlation returns it."""
    human, _ = _task(9)
    constant = np.broadcast_to(np.arange(40.0), human.shape)  # one value per item
    assert chance.chance_pdp(human, constant, "item", 5, np.random.default_rng(0)).tolist() == [0.0] * 5
    with pytest.raises(InputError, match="do not end in"):
        chance.chance_pdp(human, human[:, :5], "item", 5, np.random.default_rng(0))
    with pytest.raises(InputError, match="unknown grouping"):
        chance.chance_pdp(human, np.zeros(human.shape), "segment", 5, np.random.default_rng(0))
    with pytest.raises(InputError, match="at least two cells"):
        chance.chance_pdp(human[:1], np.zeros((1, 40)), "item", 5, np.random.default_rng(0))
