"""Clusters and the weighted task average (mtsig.stats.meta_evaluation.metric_ranking).

Oracles: mt-metrics-eval's AssignRanks rule worked by hand; a loop transcription, written here, of its
TaskSetResults.AverageCorrMatrix (commit 68a481a): per metric pair, each task's rescaled draw differences, tiled to
the longest, summed over tasks, compared with the difference of the averages.
"""

from __future__ import annotations

import numpy as np
import pytest

from mtsig.stats.meta_evaluation.metric_permutation import PermutationResult
from mtsig.stats.meta_evaluation.metric_ranking import (
    assign_ranks,
    average_significance,
    ranking_order,
    weighted_average,
)


def test_assign_ranks_by_hand():
    """Four metrics, best first. 0 does not beat 1 (p 0.5) but beats 2 (p 0.01): a new cluster starts at 2;
    only 2's p-value against 3 counts then (0.3): 3 joins 2's cluster although 0 beats 3 (p 0.001)."""
    sig = np.zeros((4, 4))
    sig[0, 1], sig[0, 2], sig[0, 3] = 0.5, 0.01, 0.001
    sig[1, 2], sig[1, 3], sig[2, 3] = 0.2, 0.2, 0.3
    assert assign_ranks(sig).tolist() == [1, 1, 2, 2]
    # p <= alpha is significant: 1 starts a cluster; 0's wins over 2 and 3 no longer count (0 is in the cluster
    # above), and 1 beats neither: 2 and 3 join 1
    sig[0, 1] = 0.05
    assert assign_ranks(sig).tolist() == [1, 2, 2, 2]
    assert assign_ranks(np.zeros((3, 3))).tolist() == [1, 2, 3]  # no resamples: every metric its own rank


def test_ranking_order_breaks_ties_by_name():
    assert ranking_order(["b", "a", "c"], [0.5, 0.5, 0.7]) == [2, 1, 0]


def test_weighted_average_rescales_each_task():
    average = weighted_average([np.array([0.5, -1.0]), np.array([0.8, 0.2])], [(-1, 1), (0, 1)], [0.25, 0.75])
    np.testing.assert_allclose(average, [0.25 * 0.75 + 0.75 * 0.8, 0.0 + 0.75 * 0.2])


def make_test(n_metrics, n_used, rng, k=30):
    a, b = np.triu_indices(n_metrics, k=1)
    draws = np.full((k, a.size), np.nan)
    for p, used in enumerate(n_used):
        draws[:used, p] = rng.normal(scale=0.05, size=used)
    return PermutationResult(
        a, b, np.zeros(a.size), draws, np.asarray(n_used), np.ones(a.size, bool), np.zeros(a.size)
    )


def test_average_significance_equals_the_average_corr_matrix_loop():
    rng = np.random.default_rng(0)
    names = ["m0", "m1", "m2", "m3"]
    # two tasks with the metrics in different index orders; early stopping left some pairs 10 or 20 draws
    index = [np.array([0, 1, 2, 3]), np.array([2, 0, 3, 1])]
    tests = [make_test(4, [30, 10, 20, 30, 10, 30], rng), make_test(4, [20, 30, 30, 10, 30, 30], rng)]
    ranges, weights = [(0, 1), (-1, 1)], [0.4, 0.6]
    average = np.array([0.81, 0.80, 0.70, 0.79])
    order = sorted(range(4), key=lambda m: -average[m])
    ours = average_significance(order, average, tests, ranges, weights, index)

    def draws_of(test, t1, t2):  # TaskResults.Draws(m1, m2): the pair's draws, columns swapped when m1 > m2
        p = [q for q in range(test.a.size) if {test.a[q], test.b[q]} == {t1, t2}][0]
        used = test.draws[: test.n_used[p], p]
        return used if t1 < t2 else -used

    for i in range(4):
        for j in range(i + 1, 4):
            m1, m2 = order[i], order[j]
            per_task = [
                w * draws_of(t, idx[m1], idx[m2]) / (hi - lo)
                for t, idx, (lo, hi), w in zip(tests, index, ranges, weights, strict=True)
            ]
            longest = max(len(d) for d in per_task)
            null = np.zeros(longest)
            for d in per_task:
                null += np.tile(d, int(np.ceil(longest / len(d))))[:longest]
            assert ours[i, j] == pytest.approx(np.mean(null >= average[m1] - average[m2]), abs=1e-15), names[
                m1
            ]
    assert (np.tril(ours) == 0).all()
