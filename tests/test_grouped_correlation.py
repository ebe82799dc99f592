"""Grouped correlations of a systems x items matrix (mtsig.stats.meta_evaluation.grouped_correlation).

Oracles: scipy.stats (pearsonr, spearmanr, kendalltau b and c) on each group's cells with a human score, averaged
over the defined groups by a plain loop written here as mt-metrics-eval's AverageCorrelation reads (a group of fewer
than two cells skipped, a constant side NaN, NaN groups dropped or counted as 0, 0 when nothing is left); Deutsch,
Foster & Freitag (2023) tau_23 and acc_23 by hand.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from scipy import stats

from mtsig.errors import InputError
from mtsig.stats.meta_evaluation.grouped_correlation import (
    CorrelationOptions,
    group_statistics,
    grouped_correlation,
)

SCIPY = {
    "pearson": lambda x, y: stats.pearsonr(x, y)[0],
    "spearman": lambda x, y: stats.spearmanr(x, y)[0],
}


def loop_average(human, metric, kind, grouping, variant="b", nan_groups="drop"):
    """AverageCorrelation as a loop over groups, scipy per group."""
    h = np.asarray(human)
    m = np.asarray(metric)
    if grouping == "none":
        groups = [(h.reshape(-1), m.reshape(-1))]
    elif grouping == "item":
        groups = list(zip(h.T, m.T, strict=True))
    else:
        groups = list(zip(h, m, strict=True))
    total, n = 0.0, 0
    for hg, mg in groups:
        keep = np.isfinite(hg)
        hg, mg = hg[keep], mg[keep]
        if len(hg) < 2:
            continue
        if kind == "kendall":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                value = stats.kendalltau(mg, hg, variant=variant)[0]
        elif np.all(hg == hg[0]) or np.all(mg == mg[0]):
            value = np.nan
        else:
            value = SCIPY[kind](mg, hg)
        if not np.isnan(value):
            total += value
            n += 1
        elif nan_groups == "zero":
            n += 1
    return total / n if n else 0.0


@pytest.fixture(scope="module")
def matrices():
    rng = np.random.default_rng(7)
    human = np.round(rng.normal(size=(6, 9)) * 2)  # integer scores: ties within groups
    human[rng.random(human.shape) < 0.25] = np.nan  # unrated cells
    human[:, 3] = np.nan  # an item nobody rated
    human[1:, 4] = np.nan  # an item rated for one system only: skipped
    human[:, 5] = 2.0  # an item where every system got the same score: undefined
    metric = np.round(rng.normal(size=(3, 6, 9)), 1)
    metric[2, :, 6] = 0.5  # a metric constant on an item
    return human, metric


@pytest.mark.parametrize("grouping", ["none", "item", "sys"])
@pytest.mark.parametrize("kind", ["pearson", "spearman", "kendall-b", "kendall-c"])
@pytest.mark.parametrize("nan_groups", ["drop", "zero"])
def test_equals_scipy_group_by_group(matrices, grouping, kind, nan_groups):
    human, metric = matrices
    name, _, variant = kind.partition("-")
    ours = grouped_correlation(
        human,
        metric,
        CorrelationOptions(name, grouping, kendall_variant=variant or "b", nan_groups=nan_groups),
    )
    for m in range(metric.shape[0]):
        expected = loop_average(human, metric[m], name, grouping, variant or "b", nan_groups)
        assert ours[m] == pytest.approx(expected, abs=1e-12)


def test_tau_23_and_acc_23_by_hand():
    """Deutsch et al. (2023), Sec. 3: human [1, 1, 2], metric [0, 0.05, 1]. With epsilon 0.1 the first pair is a
    tie on both sides and the other two are concordant: acc_23 = tau_23 = 1. With epsilon 0 the metric does not
    tie it: a human-only tie, acc_23 = 2/3, tau_23 = (2 - 1)/3."""
    human = np.array([[1.0], [1.0], [2.0]])
    metric = np.array([[0.0], [0.05], [1.0]])
    assert (
        grouped_correlation(
            human, metric, CorrelationOptions("kendall", "item", kendall_variant="acc23", epsilon=0.1)
        )
        == 1.0
    )
    assert (
        grouped_correlation(
            human, metric, CorrelationOptions("kendall", "item", kendall_variant="23", epsilon=0.1)
        )
        == 1.0
    )
    assert grouped_correlation(
        human, metric, CorrelationOptions("kendall", "item", kendall_variant="acc23")
    ) == pytest.approx(2 / 3)
    assert grouped_correlation(
        human, metric, CorrelationOptions("kendall", "item", kendall_variant="23")
    ) == pytest.approx(1 / 3)


def test_tau_23_counts_every_pair_by_brute_force(matrices):
    human, metric = matrices
    for eps in (0.0, 0.15):
        values, counted = group_statistics(
            human, metric[0], CorrelationOptions("kendall", "item", kendall_variant="23", epsilon=eps)
        )
        for item in range(human.shape[1]):
            cells = [s for s in range(human.shape[0]) if np.isfinite(human[s, item])]
            if len(cells) < 2:
                assert not counted[item]
                continue
            score = 0
            for a, b in itertools.combinations(cells, 2):
                dh = human[a, item] - human[b, item]
                dm = metric[0, a, item] - metric[0, b, item]
                tie_m = abs(dm) <= eps
                good = (dh == 0 and tie_m) or (dh != 0 and not tie_m and np.sign(dh) == np.sign(dm))
                score += 1 if good else -1
            assert values[item] == pytest.approx(score / (len(cells) * (len(cells) - 1) / 2))


def test_constant_and_empty_cases_give_mt_metrics_evals_zero():
    human = np.array([[1.0, 2.0], [3.0, 5.0]])
    constant = np.array([[4.0, 4.0], [4.0, 4.0]])
    assert (
        grouped_correlation(human, constant, CorrelationOptions("pearson", "none")) == 0.0
    )  # NaN, nothing left: 0
    assert (
        grouped_correlation(human, constant, CorrelationOptions("pearson", "none", nan_groups="zero")) == 0.0
    )
    values, counted = group_statistics(human, constant, CorrelationOptions("kendall", "sys"))
    assert np.isnan(values).all() and counted.all()  # tau-b of a constant side is undefined
    single = np.array([[1.0, np.nan], [np.nan, 2.0]])  # no group with two rated cells
    assert grouped_correlation(single, constant, CorrelationOptions("pearson", "item")) == 0.0
    one_item = np.array([[1.0], [2.0], [4.0]])
    assert grouped_correlation(
        one_item, np.array([[3.0], [2.0], [1.0]]), CorrelationOptions("pearson", "item")
    ) == pytest.approx(stats.pearsonr([3, 2, 1], [1, 2, 4])[0])


def test_bad_arguments_are_input_errors():
    h = np.zeros((2, 2))
    with pytest.raises(InputError, match="tau-c is not defined"):
        grouped_correlation(h, h, CorrelationOptions("kendall", "item", kendall_variant="c", epsilon=0.1))
    with pytest.raises(InputError, match="unknown grouping"):
        grouped_correlation(h, h, CorrelationOptions("pearson", "doc"))
    with pytest.raises(InputError, match="finite"):
        grouped_correlation(h, np.full((2, 2), np.nan), CorrelationOptions("pearson", "none"))
