"""Chance levels of the metrics-task statistics (mtsig.stats.meta_evaluation.chance).

Oracles: each task statistic's own function (calibrate_ties, grouped_correlation, pooled_pairwise_accuracy,
soft_pairwise_accuracy) applied to explicitly permuted scores, draw by draw; a simulation with known truth:
metrics drawn at random (a metric chosen at random, its scores permuted within the statistic's groups) exceed the
chance distribution's 95th percentile 5% of the time, within Monte Carlo error; and for PDP (DiIanni & Deutsch
2025) and the WMT20 Kendall-like tau (Mathur et al. 2020) on three systems, the exact permutation distribution:
every within-group permutation enumerated with itertools and the statistic computed here from its definition
(PDP: Pearson's r of the pairwise differences; Kendall-like: concordant minus discordant over the pairs whose human
scores differ by at least the threshold, as mt-metrics-eval's ``stats.KendallLike`` counts them).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from mtsig.errors import InputError
from mtsig.stats.meta_evaluation import chance
from mtsig.stats.meta_evaluation.grouped_correlation import (
    KENDALL_LIKE_THRESHOLD,
    as_groups,
    grouped_correlation,
)
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


def _da_task(seed: int, systems: int = 6, items: int = 40, missing: float = 0.2):
    """WMT20-like raw DA scores (integers on 0-100, some cells unrated), which the Kendall-like tau's threshold of 25
    points splits into counted and uncounted pairs, and three metrics: a noisy copy of the human scores, a coarse
    one (rounded to 20 points: many metric ties, each a discordant pair) and noise."""
    rng = np.random.default_rng(seed)
    human = np.clip(np.round(rng.normal(65.0, 22.0, size=(systems, items))), 0.0, 100.0)
    human[rng.random((systems, items)) < missing] = np.nan
    filled = np.nan_to_num(human, nan=50.0)
    metrics = np.stack(
        [
            filled + rng.normal(0.0, 20.0, size=filled.shape),
            20.0 * np.round((filled + rng.normal(0.0, 20.0, size=filled.shape)) / 20.0),
            rng.normal(size=filled.shape),
        ]
    )
    return human, metrics


def _shuffled_by_numpy(
    metric: np.ndarray, rated: np.ndarray, grouping: str, rng: np.random.Generator
) -> np.ndarray:
    """A copy of ``metric[S, N]`` whose rated cells are shuffled with numpy's ``permutation`` within each group of
    ``grouping`` (every rated cell, an item's, a system's): the known-truth tests' random metric, drawn without
    :mod:`mtsig.stats.meta_evaluation.chance`."""
    metric = metric.copy()
    if grouping == "none":
        metric[rated] = rng.permutation(metric[rated])
        return metric
    by_group = metric if grouping == "sys" else metric.T  # a view: [group, cell]
    for g, valid in enumerate(rated if grouping == "sys" else rated.T):
        cells = np.flatnonzero(valid)
        by_group[g, cells] = by_group[g, rng.permutation(cells)]
    return metric


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
        metric = _shuffled_by_numpy(metrics[rng.integers(len(metrics))], rated, grouping, rng)
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
    exact = _permutation_distribution(
        PDP_METRIC, groups, lambda permuted: _pdp_by_definition(PDP_HUMAN, permuted, groups)
    )
    draws = chance.chance_pdp(PDP_HUMAN, PDP_METRIC, grouping, 20_000, np.random.default_rng(11))
    _assert_draws_follow(draws, exact)


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


@pytest.mark.parametrize("average", ["micro", "macro"])
def test_kendall_like_chance_is_grouped_correlation_on_the_permuted_scores(average):
    """Each draw of the Kendall-like tau's chance level is grouped_correlation's Kendall-like tau (with the task's
    threshold and average) of the metric's scores permuted within the items by the same generator; the threshold
    and the average are passed on (the default ones give other draws)."""
    human, metrics = _da_task(10)
    options = {"threshold": 15.0, "average": average}
    got = chance.chance_grouped_correlation(
        human, metrics[1], "kendall_like", "item", 60, np.random.default_rng(6), **options
    )
    permuted = chance.permuted_within_groups(
        np.random.default_rng(6), metrics[1], np.isfinite(human), "item", 60
    )
    np.testing.assert_array_equal(
        got, grouped_correlation(human, permuted, "kendall_like", "item", **options)
    )
    assert np.unique(got).size > 20  # the draws differ: the scores were permuted
    for other in (
        {"average": average},
        {"threshold": 15.0, "average": {"micro": "macro", "macro": "micro"}[average]},
    ):
        assert not np.array_equal(got, grouped_correlation(human, permuted, "kendall_like", "item", **other))


@pytest.mark.parametrize(("grouping", "average"), [("item", "micro"), ("none", "macro"), ("sys", "macro")])
def test_random_metrics_exceed_the_kendall_like_95th_percentile_five_percent_of_the_time(grouping, average):
    """Known truth for the WMT20 Kendall-like tau on DA-like scores (threshold 25): the chance distribution (1000
    draws, the metrics in turn) and 400 metrics drawn at random the other way (:func:`_shuffled_by_numpy`, the
    tau computed by grouped_correlation): about 5% of the latter lie above the former's 95th percentile and about
    5% have a p-value against chance <= 0.05 (two-sided binomial tests do not reject at 0.001)."""
    human, metrics = _da_task(12, systems=5, items=30)
    rated = np.isfinite(human)
    options = {"threshold": KENDALL_LIKE_THRESHOLD, "average": average}
    draws = np.concatenate(
        [
            chance.chance_grouped_correlation(
                human,
                metric,
                "kendall_like",
                grouping,
                len(range(k, 1000, len(metrics))),
                np.random.default_rng(200 + k),
                **options,
            )  # fmt: skip
            for k, metric in enumerate(metrics)
        ]
    )
    _, upper = chance.chance_summary(draws)
    rng = np.random.default_rng(13)
    values = np.array(
        [
            float(
                grouped_correlation(
                    human,
                    _shuffled_by_numpy(metrics[rng.integers(len(metrics))], rated, grouping, rng),
                    "kendall_like",
                    grouping,
                    **options,
                )  # fmt: skip
            )
            for _ in range(400)
        ]
    )
    above = int((values > upper).sum())
    assert stats.binomtest(above, 400, 0.05).pvalue > 0.001, above
    significant = int((chance.chance_pvalues(values, draws) <= 0.05).sum())
    assert stats.binomtest(significant, 400, 0.05).pvalue > 0.001, significant


def _kendall_like_by_definition(
    human: np.ndarray,
    metric: np.ndarray,
    groups: list[list[tuple[int, int]]],
    threshold: float,
    average: str,
) -> float:
    """The WMT20 Kendall-like tau from its definition (Mathur et al. 2020; mt-metrics-eval's ``stats.KendallLike``
    averaged by ``AverageCorrelation``): in each group of two or more rated cells, over its pairs whose human
    scores differ by at least ``threshold``, C the pairs the metric orders strictly as the humans and D the others
    (a metric tie is discordant); a group's tau (C - D) / (C + D), 0 without a counted pair; ``macro``: their
    plain mean, ``micro``: weighted by C + D, i.e. (ΣC - ΣD) / Σ(C + D), 0 without any counted pair."""
    counts = []
    for cells in groups:
        if len(cells) < 2:
            continue
        concordant = discordant = 0
        for a, b in itertools.combinations(cells, 2):
            diff = human[a] - human[b]
            if abs(diff) >= threshold:
                if (diff > 0 and metric[a] > metric[b]) or (diff < 0 and metric[a] < metric[b]):
                    concordant += 1
                else:
                    discordant += 1
        counts.append((concordant, discordant))
    if average == "micro":
        pairs = sum(c + d for c, d in counts)
        return sum(c - d for c, d in counts) / pairs if pairs else 0.0
    return float(np.mean([(c - d) / (c + d) if c + d else 0.0 for c, d in counts]))


def _permutation_distribution(
    metric: np.ndarray, groups: list[list[tuple[int, int]]], statistic
) -> np.ndarray:
    """``statistic(permuted)`` of every joint permutation of ``metric``'s cells within the ``groups`` (itertools)."""
    values = []
    for joint in itertools.product(*(itertools.permutations(cells) for cells in groups)):
        permuted = metric.copy()
        for cells, image in zip(groups, joint, strict=True):
            for cell, source in zip(cells, image, strict=True):
                permuted[cell] = metric[source]
        values.append(statistic(permuted))
    return np.array(values)


def _assert_draws_follow(draws: np.ndarray, exact: np.ndarray) -> None:
    """The draws take only the enumeration's values (to 1e-9), each as often as the enumeration says (chi-square
    test at 0.001, the values expected fewer than 5 times pooled into one class), with the exact mean within
    Monte Carlo error."""
    support, counts = np.unique(np.round(exact, 12), return_counts=True)
    nearest = np.abs(draws[:, None] - support[None, :]).argmin(axis=1)
    np.testing.assert_allclose(draws, support[nearest], rtol=0, atol=1e-9)  # no value outside the enumeration
    observed = np.bincount(nearest, minlength=support.size)
    expected = counts / counts.sum() * draws.size
    rare = expected < 5
    if rare.any():
        observed = np.append(observed[~rare], observed[rare].sum())
        expected = np.append(expected[~rare], expected[rare].sum())
    assert stats.chisquare(observed, expected).pvalue > 0.001
    spread = np.std(exact) / np.sqrt(draws.size)
    assert abs(draws.mean() - np.mean(exact)) < 4 * spread


#: Raw DA points of three systems on three items; system 2 has no human score of item 2, where its metric score is
#: far off (a cell without a gold score must stay where it is). Item 0's 60 vs 85 differ by exactly the threshold
#: (counted: >= 25), item 1's 50 vs 74 by 24 (not counted); system 0's scores all lie within 25 of each other (a
#: group without a counted pair: 0 in a macro average, no weight in a micro one); the metric ties 0.5 and 0.5 (a
#: discordant pair wherever a permutation puts them on a counted pair).
KENDALL_LIKE_HUMAN = np.array([[60.0, 50.0, 70.0], [85.0, 74.0, 20.0], [30.0, 90.0, np.nan]])
KENDALL_LIKE_METRIC = np.array([[0.5, 0.2, 0.9], [0.5, 0.7, 0.1], [0.1, 0.4, 100.0]])


@pytest.mark.parametrize(
    ("grouping", "average"),
    [("item", "micro"), ("item", "macro"), ("sys", "micro"), ("sys", "macro"), ("none", "macro")],
)
def test_kendall_like_chance_draws_the_exact_permutation_distribution(grouping, average):
    """Every joint permutation of the metric's rated cells within the groups is enumerated with itertools and its
    Kendall-like tau (threshold 25) computed from the definition (3! 3! 2! = 72 permutations by item, 72 by
    system, 8! over every cell): 20,000 draws of the chance level take only those values, in the enumeration's
    proportions."""
    groups = _rated_groups(KENDALL_LIKE_HUMAN, grouping)
    exact = _permutation_distribution(
        KENDALL_LIKE_METRIC,
        groups,
        lambda permuted: _kendall_like_by_definition(KENDALL_LIKE_HUMAN, permuted, groups, 25.0, average),
    )
    assert np.unique(exact).size >= 4  # a distribution, not one value
    draws = chance.chance_grouped_correlation(
        KENDALL_LIKE_HUMAN, KENDALL_LIKE_METRIC, "kendall_like", grouping, 20_000, np.random.default_rng(17),
        threshold=25.0, average=average,
    )  # fmt: skip
    _assert_draws_follow(draws, exact)
