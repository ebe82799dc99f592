"""Power and stability of a meta-evaluation (mtsig.stats.meta_evaluation.power, mtsig.studies.metrics_protocol.power).

Oracles: hand cases for the p-values, the interpolated size and cluster 1 (mt-metrics-eval's AssignRanks rule); a
simulation with a known difference: two metrics of known noise around MQM-like item scores, the power the study
predicts from one large test set against the share of fresh test sets of each size on which the task's own
permutation test (the pairs test of acc-t, as the protocol runs it) finds the better metric better.
"""

from __future__ import annotations

import numpy as np

from mtsig.stats.meta_evaluation import power as mpw
from mtsig.stats.meta_evaluation import task_bootstrap as tb
from mtsig.stats.meta_evaluation.metric_permutation import PairSwaps, permutation_test
from mtsig.stats.meta_evaluation.metric_ranking import (
    assign_ranks,
    average_significance,
    ranking_order,
    weighted_average,
)
from mtsig.stats.meta_evaluation.tie_calibration import calibrate_ties, outcome_statistic, pair_outcomes
from mtsig.studies.metrics_protocol import WMT23_INFO, Protocol, ProtocolResult, Task, TaskResult
from mtsig.studies.metrics_protocol.beyond import TaskResampler, UnitSet, _item_acc23, joint_counts
from mtsig.studies.metrics_protocol.power import average_stability, task_power, task_stability

NOISE = (1.0, 1.15)  # metric a is better (less noise around the human scores)


def _items(rng: np.random.Generator, n_items: int, systems: int = 5) -> tuple[np.ndarray, np.ndarray]:
    human = -np.round(rng.exponential(1.5, size=(systems, n_items)))
    metrics = np.stack([human + rng.normal(scale=s, size=human.shape) for s in NOISE])
    return human, metrics


def _result(human: np.ndarray, metrics: np.ndarray, epsilons: np.ndarray, k: int, seed: int) -> TaskResult:
    task = Task(
        "tie_calibrated", ("xx-yy",), "seg", False, grouping="item", variant="acc23", perm_test="pairs"
    )
    outcomes = pair_outcomes(human, metrics, epsilons)
    values = outcome_statistic(outcomes)
    names = ("a", "b")
    order = ranking_order(names, values)
    rank = np.empty(2, dtype=np.int64)
    rank[order] = np.arange(2)
    test = permutation_test(PairSwaps(outcomes), rank, k, seed=seed, key=("power",))
    significance = test.matrix(order)
    ranks = np.empty(2, dtype=np.int64)
    ranks[order] = assign_ranks(significance)
    return TaskResult(task, names, values, tuple(order), ranks, significance, {"xx-yy": ()}, epsilons, test)


def test_predicted_power_matches_the_test_on_fresh_test_sets():
    """Known truth: a large test set (4000 items) predicts the power at 100 to 800 items; fresh test sets of those
    sizes from the same model, tested with the protocol's own test (epsilons as calibrated on the large set), reject
    as often, within 0.12 (Monte Carlo error of 150 test sets is about 0.04; measured: 0.41, 0.60, 0.83, 0.98
    predicted against 0.46, 0.57, 0.75, 0.98)."""
    rng = np.random.default_rng(11)
    human, metrics = _items(rng, 4000)
    epsilons = np.array([calibrate_ties(human, m).epsilon for m in metrics])
    result = _result(human, metrics, epsilons, 1000, seed=1)
    assert result.order == (0, 1)  # a is better
    per_item = _item_acc23(human, metrics, epsilons, "item")
    resampler = TaskResampler((4000,), lambda counts: tb.resampled_item_mean(counts[0], per_item))
    scales = [100 / 4000, 200 / 4000, 400 / 4000, 800 / 4000]
    (pair,) = task_power(
        result, resampler, [], scales=scales, n_sets=400, target=0.8, alpha=0.05, rng=np.random.default_rng(3)
    )
    truth = []
    for n in (100, 200, 400, 800):
        rejected = 0
        for trial in range(150):
            h, m = _items(rng, n)
            fresh = pair_outcomes(h, m, epsilons)
            test = permutation_test(PairSwaps(fresh), [0, 1], 200, seed=trial, key=("fresh", n))
            rejected += test.pvalue[0] <= 0.05 and test.delta[0] > 0  # a found better
        truth.append(rejected / 150)
    assert truth[0] < 0.8 < truth[-1]  # a regime where power depends on the size
    np.testing.assert_allclose(pair.power, truth, atol=0.12)
    # the size for 80% power: within a factor 1.6 of where the fresh test sets cross 80%
    crossing = mpw.size_for_power(np.array([100.0, 200.0, 400.0, 800.0]), np.asarray(truth), 0.8)
    assert 1 / 1.6 < pair.n_target / crossing < 1.6, (pair.n_target, crossing)


def test_size_for_power_interpolates_in_log_size():
    scales = np.array([1.0, 2.0, 4.0, 8.0])
    assert mpw.size_for_power(scales, np.array([0.2, 0.6, 1.0, 1.0]), 0.8) == 2.0 * np.sqrt(2.0)
    assert mpw.size_for_power(scales, np.array([0.9, 1.0, 1.0, 1.0]), 0.8) == 1.0
    assert mpw.size_for_power(scales, np.array([0.1, 0.2, 0.3, 0.5]), 0.8) == np.inf


def test_null_pvalues_share_of_scaled_null_at_or_above():
    null = mpw.sorted_null(np.array([0.3, np.nan, -0.1, 0.1, 0.0]))
    assert null.tolist() == [-0.1, 0.0, 0.1, 0.3]
    assert mpw.null_pvalues(null, np.array([0.1, 0.31, -1.0])).tolist() == [0.5, 0.0, 1.0]
    assert mpw.null_pvalues(null, np.array([0.1]), scale=0.5).tolist() == [
        0.25
    ]  # half the spread: 0.15 >= 0.1


def test_first_clusters_follow_assign_ranks():
    """Metrics c > a > b by value; c beats a (p 0.01), nobody beats b within the cluster of a? The rule: a cluster
    ends at the first metric that some metric of the cluster beats."""
    values = np.array([[0.5, 0.4, 0.9]])  # a, b, c in name order
    p = np.ones((1, 3, 3))
    p[0, 2, 0] = 0.3  # c does not beat a
    p[0, 2, 1] = 0.01  # c beats b: cluster 1 is {c, a}
    winner, cluster = mpw.first_clusters(values, p, 0.05)
    assert winner.tolist() == [2] and cluster.tolist() == [[True, False, True]]
    p[0, 2, 0] = 0.04  # now c beats a: cluster 1 is {c}
    assert mpw.first_clusters(values, p, 0.05)[1].tolist() == [[False, False, True]]


def test_stability_of_a_clear_winner_and_of_a_coin_toss():
    """Known truth: a metric far better than the other keeps the win on every re-drawn test set; two metrics that
    are the same scores (no difference) win about half the time each."""
    rng = np.random.default_rng(4)
    human, metrics = _items(rng, 300)
    clear = np.stack([human + 0.01 * rng.normal(size=human.shape), metrics[1]])
    epsilons = np.array([calibrate_ties(human, m).epsilon for m in clear])
    result = _result(human, clear, epsilons, 300, seed=2)
    per_item = _item_acc23(human, clear, epsilons, "item")
    resampler = TaskResampler((300,), lambda counts: tb.resampled_item_mean(counts[0], per_item))
    stability = task_stability(result, resampler, n_sets=200, alpha=0.05, rng=np.random.default_rng(1))
    assert stability.winner == "a" and stability.p_winner == 1.0 and stability.p_cluster == 1.0
    # no difference: b's item values are a's moved one item on, the same mean; each wins half the re-drawn sets
    same = np.stack([metrics[0], metrics[0]])
    epsilons = np.array([calibrate_ties(human, metrics[0]).epsilon] * 2)
    result = _result(human, same, epsilons, 300, seed=3)
    per_item = _item_acc23(human, same, epsilons, "item")
    per_item[1] = np.roll(per_item[0], 1)
    resampler = TaskResampler((300,), lambda counts: tb.resampled_item_mean(counts[0], per_item))
    stability = task_stability(result, resampler, n_sets=400, alpha=0.05, rng=np.random.default_rng(2))
    assert 0.4 < stability.p_winner < 0.6, stability.p_winner


def _two_task_protocol(human: np.ndarray, metrics: np.ndarray, per_item_b: np.ndarray | None = None):
    """Two acc-t tasks on the same items (the second on their first half's systems: another task, the same items)
    and their resamplers, each stratum the items of ``xx-yy``; ``per_item_b`` replaces metric b's item values."""
    results, resamplers = [], []
    for k, rows in enumerate((slice(None), slice(0, 3))):
        h, m = human[rows], metrics[:, rows]
        epsilons = np.array([calibrate_ties(h, x).epsilon for x in m])
        result = _result(h, m, epsilons, 300, seed=10 + k)
        per_item = _item_acc23(h, m, epsilons, "item")
        if per_item_b is not None:
            per_item[1] = per_item_b[k]
        items = UnitSet("xx-yy", "items", np.arange(h.shape[1]))
        resamplers.append(
            TaskResampler(
                (h.shape[1],), lambda counts, v=per_item: tb.resampled_item_mean(counts[0], v), (items,)
            )
        )
        results.append(result)
    protocol = Protocol("toy", WMT23_INFO, tuple(r.task for r in results))
    index = [np.array([0, 1])] * 2
    average = weighted_average(
        [r.values for r in results], [results[0].task.value_range] * 2, protocol.weights
    )
    order = ranking_order(("a", "b"), average)
    significance = average_significance(
        order, average, [r.test for r in results], [results[0].task.value_range] * 2, protocol.weights, index
    )
    names = tuple(("a", "b")[m] for m in order)
    ranks = assign_ranks(significance)
    return ProtocolResult(protocol, tuple(results), names, average[list(order)], ranks, significance, 300, 0,
                          0.05, "none", "exact"), resamplers  # fmt: skip


def test_average_stability_of_a_clear_winner_and_of_a_coin_toss():
    """Known truth for the table's ranking: a metric far better than the other in both tasks keeps the average's
    win and cluster 1 on every re-drawn test set; two metrics of the same item values, shifted by one item, win
    about half the re-drawn test sets each."""
    rng = np.random.default_rng(5)
    human, metrics = _items(rng, 300, systems=6)
    clear = np.stack([human + 0.01 * rng.normal(size=human.shape), metrics[1]])
    result, resamplers = _two_task_protocol(human, clear)
    assert result.metrics[0] == "a" and result.ranks.tolist() == [1, 2]
    stability = average_stability(result, resamplers, n_sets=200, alpha=0.05, rng=np.random.default_rng(1))
    assert stability.task == "average" and stability.winner == "a" and stability.cluster == ("a",)
    assert stability.p_winner == 1.0 and stability.p_cluster == 1.0 and stability.n_units == 300
    same = np.stack([metrics[0], metrics[0]])
    rolled = []
    for rows in (slice(None), slice(0, 3)):
        eps = calibrate_ties(human[rows], metrics[0, rows]).epsilon
        rolled.append(np.roll(_item_acc23(human[rows], same[:, rows], np.array([eps, eps]), "item")[0], 1))
    result, resamplers = _two_task_protocol(human, same, rolled)
    stability = average_stability(result, resamplers, n_sets=400, alpha=0.05, rng=np.random.default_rng(2))
    assert 0.4 < stability.p_winner < 0.6, stability.p_winner


def test_tasks_on_the_same_units_are_redrawn_together():
    """A unit two tasks share is drawn as often in both (one test set), a unit of one task only in it; a stratum
    without units is drawn on its own, and every stratum's counts add up to its size (the real size)."""
    shared = TaskResampler((3,), lambda c: c[0], (UnitSet("xx-yy", "items", np.array([0, 2, 5])),))
    subset = TaskResampler((2,), lambda c: c[0], (UnitSet("xx-yy", "items", np.array([2, 5])),))
    systems = TaskResampler((2,), lambda c: c[0], (UnitSet("xx-yy", "systems", np.array(["s1", "s2"])),))
    own = TaskResampler((4,), lambda c: c[0])
    counts, n_units = joint_counts([shared, subset, systems, own], np.random.default_rng(0), 500)
    (a,), (b,), (c,), (d,) = counts
    np.testing.assert_array_equal(a[:, 1:], b)  # items 2 and 5: the same draws in both tasks
    # a test set of the real size: the pair's 3 items (the union of the tasks'), its 2 systems, the 4 units apart
    assert a.sum(axis=1).tolist() == [3] * 500 and b.sum(axis=1).max() <= 3
    assert c.sum(axis=1).tolist() == [2] * 500 and d.sum(axis=1).tolist() == [4] * 500
    assert n_units == 3 + 2 + 4
