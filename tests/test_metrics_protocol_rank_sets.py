"""Which metrics could be first (mtsig.studies.metrics_protocol.rank_sets): the wiring of a protocol's joint draws
into the confidence sets for ranks.

The sets themselves are checked against csranks (tests/test_rank_sets*.py); here the draws are made by hand. Oracles:
hand-made draws whose answer is plain (a metric far above the others on every draw is alone in the τ-best set and
its rank is certain; two metrics whose draws overlap both could be first), and hand calculation of the joint draw (a
statistic on the same units in two tasks, their weighted average rescaled by each task's range).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from mtsig.errors import InputError
from mtsig.studies.metrics_protocol.beyond import TaskResampler, UnitSet, joint_task_draws
from mtsig.studies.metrics_protocol.rank_sets import scope_rank_sets

SETS = {"bootstrap": "items", "n_units": 50, "coverage": 0.95, "seed": 0}


def _noise(n_draws: int, n_metrics: int, scale: float, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).normal(0.0, scale, size=(n_draws, n_metrics))


def test_a_metric_far_above_the_others_is_alone_in_the_top_set_with_a_certain_rank():
    """Estimates 0.9, 0.5, 0.4 with draws spread by 0.01: every difference is dozens of standard deviations, so the
    τ-best set (τ = 1) is the first metric alone and every simultaneous and marginal set is a single rank."""
    estimates = np.array([0.5, 0.9, 0.4])
    draws = estimates + _noise(1000, 3, 0.01)
    scope = scope_rank_sets("average", ["B", "A", "C"], estimates, draws, tau=1, **SETS)
    assert scope.sets.members == ("A",)
    assert scope.sets.simultaneous.lower.tolist() == [2, 1, 3]
    assert scope.sets.simultaneous.upper.tolist() == [2, 1, 3]
    assert scope.sets.marginal.lower.tolist() == [2, 1, 3] and scope.n_undefined == 0


def test_two_metrics_whose_draws_overlap_both_could_be_first():
    """A and B 0.01 apart with draws spread by 0.05 (their difference's sd about 0.07): either could be first, and
    both could be first or second; C, far below, is third for certain. Among the two best (τ = 2): A and B only."""
    estimates = np.array([0.80, 0.79, 0.10])
    draws = estimates + _noise(1000, 3, 0.05)
    first = scope_rank_sets("task", ["A", "B", "C"], estimates, draws, tau=1, **SETS)
    assert set(first.sets.members) == {"A", "B"}
    assert first.sets.simultaneous.lower.tolist() == [1, 1, 3]
    assert first.sets.simultaneous.upper.tolist() == [2, 2, 3]
    two = scope_rank_sets("task", ["A", "B", "C"], estimates, draws, tau=2, **SETS)
    assert set(two.sets.members) == {"A", "B"}


def test_undefined_draws_are_left_out_and_counted():
    """Three draws with a NaN (a resampled Pearson with a constant side) are left out: the sets use the other 997
    (the count says so) and still put A alone first."""
    estimates = np.array([0.9, 0.5, 0.4])
    draws = estimates + _noise(1000, 3, 0.01)
    draws[[3, 10, 500], [0, 2, 1]] = np.nan
    scope = scope_rank_sets("average", ["A", "B", "C"], estimates, draws, tau=1, **SETS)
    assert scope.n_undefined == 3 and scope.sets.n_draws == 997
    assert scope.sets.members == ("A",)


def test_top_larger_than_the_metrics_and_too_few_draws_are_input_errors():
    estimates = np.array([0.9, 0.5])
    draws = estimates + _noise(10, 2, 0.01)
    with pytest.raises(InputError, match="--top 3: average ranks only 2 metrics"):
        scope_rank_sets("average", ["A", "B"], estimates, draws, tau=3, **SETS)
    draws[1:, 0] = np.nan  # one defined draw left
    with pytest.raises(InputError, match="at least 2 resamples"):
        scope_rank_sets("average", ["A", "B"], estimates, draws, tau=1, **SETS)


def _mean_resampler(values: np.ndarray, units: UnitSet) -> TaskResampler:
    """A task whose statistic of metric m is the count-weighted mean of ``values[m, u]`` over the drawn units."""

    def statistic(counts):
        weights = counts[0].astype(np.float64)
        return (weights @ values.T) / weights.sum(axis=1, keepdims=True)

    return TaskResampler((values.shape[1],), statistic, (units,))


def test_the_average_draws_score_every_metric_and_task_on_the_same_units():
    """Two tasks on the same items of one language pair, the second's per-unit values 2x + 1 of the first's: on the
    joint draws the second task's statistic is exactly 2 × the first's + 1 (the same units drawn for both tasks and
    every metric), and the average is w1 (v1 − lo1)/(hi1 − lo1) + w2 (v2 − lo2)/(hi2 − lo2) by hand, in the order
    of the average's metrics."""
    rng = np.random.default_rng(7)
    n_units = 40
    first_values = rng.uniform(0, 1, size=(2, n_units))  # metrics X, Y
    units = UnitSet("xx-yy", "items", np.arange(n_units))
    resamplers = [_mean_resampler(first_values, units), _mean_resampler(2 * first_values + 1, units)]
    tasks = [
        SimpleNamespace(metrics=("X", "Y"), task=SimpleNamespace(value_range=(0.0, 1.0))),
        SimpleNamespace(metrics=("X", "Y"), task=SimpleNamespace(value_range=(1.0, 3.0))),
    ]
    result = SimpleNamespace(tasks=tasks, metrics=("Y", "X"), protocol=SimpleNamespace(weights=(0.25, 0.75)))
    task_draws, average, drawn = joint_task_draws(result, resamplers, 500, np.random.default_rng(3))
    assert drawn == n_units
    assert task_draws[0].shape == (500, 2)
    np.testing.assert_allclose(task_draws[1], 2 * task_draws[0] + 1, rtol=0, atol=1e-12)
    by_hand = 0.25 * task_draws[0] + 0.75 * (task_draws[1] - 1.0) / 2.0
    np.testing.assert_allclose(average, by_hand[:, [1, 0]], rtol=0, atol=1e-12)
    assert not np.allclose(task_draws[0][0], task_draws[0][1])  # the draws differ from one another


def test_a_metric_better_on_every_unit_is_alone_first_on_the_average():
    """End to end through the joint draws: metric A scores 0.3 above B and C on every unit of both tasks, so it is
    alone in the τ-best set of the average and of each task."""
    rng = np.random.default_rng(11)
    n_units = 200
    base = rng.uniform(0, 0.5, size=(1, n_units))
    values = np.vstack([base + 0.3, base + rng.normal(0, 0.02, n_units), base - 0.05])  # A, B, C
    units = UnitSet("xx-yy", "items", np.arange(n_units))
    resamplers = [_mean_resampler(values, units), _mean_resampler(values[[0, 1, 2]] * 0.5, units)]
    tasks = [SimpleNamespace(metrics=("A", "B", "C"), task=SimpleNamespace(value_range=(0.0, 1.0)))] * 2
    result = SimpleNamespace(
        tasks=tasks, metrics=("A", "B", "C"), protocol=SimpleNamespace(weights=(0.5, 0.5))
    )
    task_draws, average, _ = joint_task_draws(result, resamplers, 1000, np.random.default_rng(5))
    estimates = 0.5 * values.mean(axis=1) + 0.5 * 0.5 * values.mean(axis=1)
    scope = scope_rank_sets("average", ["A", "B", "C"], estimates, average, tau=1, **SETS)
    assert scope.sets.members == ("A",)
    for draws in task_draws:
        task = scope_rank_sets("task", ["A", "B", "C"], draws.mean(axis=0), draws, tau=1, **SETS)
        assert task.sets.members == ("A",)
