"""Tie calibration (mtsig.stats.meta_evaluation.tie_calibration; Deutsch, Foster & Freitag 2023, Sec. 5).

Oracles: brute force over every candidate threshold (0 and every pair's metric difference), each scored from
scratch by the Kendall pair counts of mtsig.stats.meta_evaluation.grouped_correlation averaged over the items,
the first maximum taken; the same on the pairs a sampling draw keeps; a hand case; the pair outcomes at a
given epsilon by a loop.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from mtsig.errors import InputError
from mtsig.stats.meta_evaluation.grouped_correlation import CorrelationOptions, group_statistics
from mtsig.stats.meta_evaluation.tie_calibration import (
    calibrate_ties,
    good_pairs,
    group_pairs,
    outcome_statistic,
    pair_outcomes,
)


def data(seed: int, systems: int = 5, items: int = 12):
    rng = np.random.default_rng(seed)
    human = np.round(rng.normal(size=(systems, items)))  # many human ties
    human[rng.random(human.shape) < 0.2] = np.nan
    metric = np.round(rng.normal(size=(systems, items)) + 0.5 * np.nan_to_num(human), 1)  # metric ties too
    return human, metric


def brute_force(human, metric, variant):
    pairs = group_pairs(human)
    candidates = np.concatenate(
        [[0.0], np.abs(metric[pairs.first, pairs.group] - metric[pairs.second, pairs.group])]
    )
    best, best_eps = -np.inf, None
    for eps in np.unique(candidates):
        values, counted = group_statistics(
            human, metric, CorrelationOptions("kendall", "item", kendall_variant=variant, epsilon=eps)
        )
        value = values[counted].mean()
        if value > best:
            best, best_eps = value, eps
    return best, best_eps


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("variant", ["acc23", "23"])
def test_search_equals_brute_force_over_every_threshold(seed, variant):
    human, metric = data(seed)
    result = calibrate_ties(human, metric, variant=variant)
    value, epsilon = brute_force(human, metric, variant)
    assert result.value == pytest.approx(value, abs=1e-14)
    assert result.epsilon == epsilon


def test_hand_case():
    """One item, human [0, 0, -5], metric [0.9, 0.8, 0.1]: at epsilon 0 the human tie is missed (2/3 good); at
    0.1 the first pair ties on both sides (3/3); from 0.7 the metric ties pairs the humans separate."""
    human = np.array([[0.0], [0.0], [-5.0]])
    metric = np.array([[0.9], [0.8], [0.1]])
    result = calibrate_ties(human, metric)
    assert result.value == 1.0 and result.epsilon == pytest.approx(0.1)
    np.testing.assert_allclose(result.thresholds, [0.0, 0.1, 0.7, 0.8])
    np.testing.assert_allclose(result.values, [2 / 3, 1.0, 2 / 3, 1 / 3])


def test_sampled_pairs_equal_brute_force_on_the_kept_pairs():
    human, metric = data(11, systems=6, items=20)
    result = calibrate_ties(human, metric, sample_rate=0.5, rng=np.random.default_rng(3))
    pairs = group_pairs(human)
    keep = np.random.default_rng(3).random(pairs.group.size) <= 0.5  # the same draws, in pair order
    g, i, j = pairs.group[keep], pairs.first[keep], pairs.second[keep]
    dh = human[i, g] - human[j, g]
    dm = metric[i, g] - metric[j, g]
    best = -np.inf
    for eps in np.unique(np.concatenate([[0.0], np.abs(dm)])):
        good = good_pairs(dh, dm, eps)
        value = np.mean([good[g == item].mean() for item in np.unique(g)])
        best = max(best, value)
    assert result.value == pytest.approx(best, abs=1e-14)


def test_pair_outcomes_by_loop():
    human, metric = data(5)
    metrics = np.stack([metric, -metric])
    epsilons = np.array([0.2, 0.0])
    outcomes = pair_outcomes(human, metrics, epsilons)
    p = 0
    for item in range(human.shape[1]):
        cells = [s for s in range(human.shape[0]) if np.isfinite(human[s, item])]
        for a, b in itertools.combinations(cells, 2):
            dh = human[a, item] - human[b, item]
            for m in range(2):
                dm = metrics[m, a, item] - metrics[m, b, item]
                tie = abs(dm) <= epsilons[m]
                expected = (dh == 0 and tie) or (dh != 0 and not tie and np.sign(dh) == np.sign(dm))
                assert outcomes.good[m, p] == expected
            assert outcomes.pair_size[p] == len(cells) * (len(cells) - 1) // 2
            p += 1
    assert p == outcomes.good.shape[1]
    calibrated = calibrate_ties(human, metric)
    again = outcome_statistic(pair_outcomes(human, metric[None], [calibrated.epsilon]))
    assert again[0] == pytest.approx(calibrated.value, abs=1e-14)


def test_errors():
    with pytest.raises(InputError, match="no group has two cells"):
        calibrate_ties(np.array([[1.0, np.nan], [np.nan, 2.0]]), np.zeros((2, 2)))
    with pytest.raises(InputError, match="needs a random generator"):
        calibrate_ties(np.zeros((2, 2)), np.zeros((2, 2)), sample_rate=0.5)
    with pytest.raises(InputError, match="acc23 or 23"):
        calibrate_ties(np.zeros((2, 2)), np.zeros((2, 2)), variant="b")
