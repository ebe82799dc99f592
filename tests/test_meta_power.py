"""Power and stability of a meta-evaluation (mtsig.stats.meta_evaluation.power, mtsig.studies.metrics_protocol_power).

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
from mtsig.stats.meta_evaluation.metric_ranking import assign_ranks, ranking_order
from mtsig.stats.meta_evaluation.tie_calibration import calibrate_ties, outcome_statistic, pair_outcomes
from mtsig.studies.metrics_protocol import Task, TaskResult
from mtsig.studies.metrics_protocol_beyond import TaskResampler, _item_acc23
from mtsig.studies.metrics_protocol_power import task_power, task_stability

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
