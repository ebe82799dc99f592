"""Bootstrap intervals of the metrics-task statistics (mtsig.stats.meta_evaluation.task_bootstrap, and the
task-level wiring of mtsig.studies.metrics_protocol.beyond.task_resampler on the real WMT23 en-de data).

Oracles: a plain loop over the same draws that materialises each resampled test set (the drawn items' or systems'
cells repeated as often as they were drawn) and computes the statistic on it with an independent path (numpy's
corrcoef; the tie-calibration module's acc_23 at a fixed epsilon; pce.py's formulation of the pairwise p-values;
a double loop over the pairs of drawn copies); and simulations with a known truth for the coverage of the
percentile intervals.
"""

from __future__ import annotations

import numpy as np
import pytest

from mtsig.errors import InputError
from mtsig.io.mtme import read_requested_scores, read_test_set
from mtsig.stats.meta_evaluation import task_bootstrap as tb
from mtsig.stats.meta_evaluation.grouped_correlation import CorrelationOptions, grouped_correlation
from mtsig.stats.meta_evaluation.soft_pairwise_accuracy import pce_flips
from mtsig.stats.meta_evaluation.tie_calibration import outcome_statistic, pair_outcomes
from mtsig.stats.seeding import rng_for
from mtsig.studies import metrics_protocol as mp
from mtsig.studies.metrics_protocol import beyond


def test_draw_counts_are_rng_integers_counted_in_chunks_and_a_prefix():
    """Oracle: the same generator's integers, chunk by chunk, counted row by row with a loop."""
    counts = tb.draw_counts(rng_for(3, "t"), 7, 250)
    rng = rng_for(3, "t")
    expected = []
    for size in (100, 100, 50):
        for row in rng.integers(0, 7, size=(size, 7)):
            expected.append(np.bincount(row, minlength=7))
    np.testing.assert_array_equal(counts, np.array(expected))
    assert (counts.sum(axis=1) == 7).all()
    np.testing.assert_array_equal(tb.draw_counts(rng_for(3, "t"), 7, 120), counts[:120])
    with pytest.raises(InputError, match="at least one unit"):
        tb.draw_counts(rng_for(3, "t"), 0, 10)


def _cells_pearson(human: np.ndarray, metric: np.ndarray) -> float:
    rated = np.isfinite(human)
    if rated.sum() < 2 or np.ptp(human[rated]) == 0 or np.ptp(metric[rated]) == 0:
        return np.nan
    return float(np.corrcoef(human[rated], metric[rated])[0, 1])


def test_resampled_pearson_equals_the_correlation_of_the_repeated_cells():
    rng = np.random.default_rng(0)
    human = rng.normal(size=(12, 4))
    human[rng.random(human.shape) < 0.2] = np.nan  # unrated cells
    metrics = human[None] + rng.normal(scale=[[[0.5]], [[2.0]]], size=(2, 12, 4))
    metrics = np.where(np.isfinite(metrics), metrics, rng.normal(size=metrics.shape))
    counts = tb.draw_counts(rng_for(1, "p"), 12, 40)
    draws = tb.resampled_pearson(counts, tb.pearson_features(human, metrics))
    for b, row in enumerate(counts):
        units = np.repeat(np.arange(12), row)
        for m in range(2):
            assert draws[b, m] == pytest.approx(_cells_pearson(human[units], metrics[m][units]), abs=1e-12)
    ones = tb.resampled_pearson(np.ones((1, 12), dtype=np.int64), tb.pearson_features(human, metrics))
    np.testing.assert_allclose(ones[0], [_cells_pearson(human, metrics[m]) for m in range(2)], atol=1e-13)


def test_a_constant_resample_is_undefined_and_counted():
    human = np.array([[1.0], [2.0], [3.0]])
    metrics = np.array([[[1.0], [5.0], [2.0]]])
    counts = np.array([[3, 0, 0], [1, 1, 1]])
    draws = tb.resampled_pearson(counts, tb.pearson_features(human, metrics))
    assert np.isnan(draws[0, 0]) and draws[1, 0] == pytest.approx(np.corrcoef([1, 2, 3], [1, 5, 2])[0, 1])
    low, high, undefined = tb.percentile_intervals(draws, 0.9)
    assert undefined.tolist() == [1] and low[0] == high[0] == pytest.approx(draws[1, 0])


def test_pair_means_leave_out_pairs_of_copies_of_one_system():
    """Pooled accuracy over two strata, by a double loop over the pairs of drawn copies of distinct systems."""
    rng = np.random.default_rng(5)
    sizes = (5, 7)
    values, counts, firsts = [], [], []
    for s, size in enumerate(sizes):
        i, j = np.triu_indices(size, k=1)
        firsts.append((i, j))
        values.append(rng.integers(0, 2, size=(3, i.size)).astype(float))
        counts.append(tb.draw_counts(rng_for(2, "pairs", s), size, 30))
    weights = [tb.pair_weights(c, i, j) for c, (i, j) in zip(counts, firsts, strict=True)]
    draws = tb.resampled_pair_mean(weights, values)
    for b in range(30):
        total, agree = 0, np.zeros(3)
        for c, (i, j), v, size in zip(counts, firsts, values, sizes, strict=True):
            copies = np.repeat(np.arange(size), c[b])
            lookup = {(x, y): p for p, (x, y) in enumerate(zip(i, j, strict=True))}
            for a in range(copies.size):
                for z in range(a + 1, copies.size):
                    x, y = sorted((copies[a], copies[z]))
                    if x == y:
                        continue
                    total += 1
                    agree += v[:, lookup[(x, y)]]
        np.testing.assert_allclose(draws[b], agree / total, atol=1e-14)


def test_item_means_weigh_each_item_by_its_draws():
    values = np.array([[0.2, 0.5, 1.0, 0.0], [1.0, 1.0, 0.0, 0.5]])
    counts = np.array([[4, 0, 0, 0], [1, 1, 1, 1], [0, 2, 1, 1]])
    np.testing.assert_allclose(
        tb.resampled_item_mean(counts, values), [[0.2, 1.0], [0.425, 0.625], [0.5, 0.625]], atol=1e-15
    )


def test_percentile_intervals_cover_a_known_correlation():
    """Simulation with known truth: items of 3 cells, (h, x) standard bivariate normal with correlation 0.6 in
    every cell; 200 test sets of 150 items, 400 resamples each; the 95% intervals must cover 0.6 in 88% to 99%
    of the test sets (binomial: 95% +- 3.5 sd at n = 200)."""
    rng = np.random.default_rng(11)
    covered = 0
    for replicate in range(200):
        h = rng.normal(size=(150, 3))
        x = 0.6 * h + 0.8 * rng.normal(size=(150, 3))
        counts = tb.draw_counts(rng_for(7, replicate), 150, 400)
        draws = tb.resampled_pearson(counts, tb.pearson_features(h, x[None]))
        low, high, _ = tb.percentile_intervals(draws, 0.95)
        covered += bool(low[0] <= 0.6 <= high[0])
    assert 0.88 <= covered / 200 <= 0.99


def test_percentile_intervals_cover_a_known_accuracy_over_items():
    """Simulation with known truth: each item's share of good pairs is Binomial(P, 0.7)/P with P in {3, 6, 10},
    so acc_23's expectation is 0.7; 200 test sets of 120 items, coverage of the 95% intervals in 88% to 99%."""
    rng = np.random.default_rng(12)
    covered = 0
    for replicate in range(200):
        sizes = rng.choice([3, 6, 10], size=120)
        shares = rng.binomial(sizes, 0.7) / sizes
        draws = tb.resampled_item_mean(tb.draw_counts(rng_for(8, replicate), 120, 400), shares[None])
        low, high, _ = tb.percentile_intervals(draws, 0.95)
        covered += bool(low[0] <= 0.7 <= high[0])
    assert 0.88 <= covered / 200 <= 0.99


def test_percentile_intervals_cover_a_known_pooled_accuracy_over_systems():
    """Simulation with known truth: in each of three language pairs (12, 13, 15 systems) a system's human score
    is N(0, 1) and a metric's is that plus N(0, 0.7²) noise, so two random systems are ordered alike with
    probability 1/2 + arcsin(rho)/pi, rho = 1/sqrt(1 + 0.7²) (the orthant probability of the two differences);
    200 draws of the systems, 400 resamples each: the 95% BOOT-SYSTEMS intervals must cover it in 88% to 99.5%."""
    sigma = 0.7
    truth = 0.5 + np.arcsin(1 / np.sqrt(1 + sigma**2)) / np.pi
    rng = np.random.default_rng(3)
    covered = 0
    for replicate in range(200):
        weights, values = [], []
        for k, size in enumerate((12, 13, 15)):
            human = rng.normal(size=size)
            metric = human + sigma * rng.normal(size=size)
            i, j = np.triu_indices(size, k=1)
            values.append(
                (np.sign(human[i] - human[j]) == np.sign(metric[i] - metric[j]))[None].astype(float)
            )
            weights.append(tb.pair_weights(tb.draw_counts(rng_for(5, replicate, k), size, 400), i, j))
        low, high, _ = tb.percentile_intervals(tb.resampled_pair_mean(weights, values), 0.95)
        covered += bool(low[0] <= truth <= high[0])
    assert 0.88 <= covered / 200 <= 0.995


# ------------------------------------------------------------------------------------------------ real tasks


@pytest.fixture(scope="module")
def en_de(data_root):
    protocol = mp.wmt24_on_wmt23(["en-de"])
    test_sets = {"en-de": read_test_set(data_root / "wmt23", "en-de")}
    wmt23 = mp.wmt23(["en-de"])
    keys = dict.fromkeys(mp.required_scores(protocol, test_sets) + mp.required_scores(wmt23, test_sets))
    scores = read_requested_scores(test_sets, list(keys))
    return protocol, wmt23, test_sets, scores


def _task(protocol, test_sets, scores, label):
    (task,) = [t for t in protocol.tasks if t.label == label]
    return mp.run_task(task, protocol, test_sets, scores)


def test_acc_t_resamples_equal_the_statistic_of_the_resampled_items(en_de):
    """Each resample's acc-t equals acc_23 at the metric's calibrated epsilon (tie_calibration.pair_outcomes and
    outcome_statistic) on a test set made of the drawn items, each as often as drawn."""
    protocol, _, test_sets, scores = en_de
    result = _task(protocol, test_sets, scores, "en-de seg acc-t (item)")
    draws = beyond.task_resampler(result, mp.ProtocolInputs(protocol, test_sets, scores)).draws(
        4, rng_for(9, "acc")
    )
    _, human, metric_map = mp.task_inputs(
        result.task, "en-de", mp.ProtocolInputs(protocol, test_sets, scores)
    )
    metrics = np.stack([metric_map[m] for m in result.metrics])
    with_pairs = np.flatnonzero(np.isfinite(human).sum(axis=0) >= 2)
    counts = tb.draw_counts(rng_for(9, "acc"), with_pairs.size, 4)
    for b, row in enumerate(counts):
        items = with_pairs[np.repeat(np.arange(with_pairs.size), row)]
        outcomes = pair_outcomes(human[:, items], metrics[:, :, items], result.epsilons)
        np.testing.assert_allclose(draws[b], outcome_statistic(outcomes), atol=1e-12)
    assert np.abs(draws.mean(axis=0) - result.values).max() < 0.02


def test_segment_pearson_resamples_equal_the_correlation_of_the_resampled_items(en_de):
    _, wmt23, test_sets, scores = en_de
    result = _task(wmt23, test_sets, scores, "en-de seg pearson")
    draws = beyond.task_resampler(result, mp.ProtocolInputs(wmt23, test_sets, scores)).draws(
        3, rng_for(9, "seg")
    )
    _, human, metric_map = mp.task_inputs(result.task, "en-de", mp.ProtocolInputs(wmt23, test_sets, scores))
    metrics = np.stack([metric_map[m] for m in result.metrics])
    rated = np.flatnonzero(np.isfinite(human).any(axis=0))
    counts = tb.draw_counts(rng_for(9, "seg"), rated.size, 3)
    for b, row in enumerate(counts):
        items = rated[np.repeat(np.arange(rated.size), row)]
        expected = grouped_correlation(
            human[:, items], metrics[:, :, items], CorrelationOptions("pearson", "none")
        )
        np.testing.assert_allclose(draws[b], expected, atol=1e-12)


def test_spa_resamples_follow_pce_over_the_pairs_of_drawn_systems(en_de):
    """Oracle: pce.py's p-values (``t @ d`` with ``t = +-1``, compared with the observed sum) of every pair of
    distinct original systems, then SPA over the pairs of drawn copies by a double loop."""
    protocol, _, test_sets, scores = en_de
    result = _task(protocol, test_sets, scores, "en-de sys SPA")
    draws = beyond.task_resampler(result, mp.ProtocolInputs(protocol, test_sets, scores)).draws(
        3, rng_for(9, "spa")
    )
    systems, human, metric_map = mp.task_inputs(
        result.task, "en-de", mp.ProtocolInputs(protocol, test_sets, scores)
    )
    rated = np.isfinite(human).all(axis=0)
    signs = np.where(pce_flips(int(rated.sum())), -1.0, 1.0)

    def p_values(scores_: np.ndarray) -> np.ndarray:
        x = scores_[:, rated].astype(np.float32).astype(np.float64)
        p = np.zeros((len(systems), len(systems)))
        for i in range(len(systems)):
            for j in range(len(systems)):
                d = x[i] - x[j]
                p[i, j] = np.mean(signs @ d >= d.sum())
        return p

    p_h = p_values(human)
    chosen = [0, len(result.metrics) // 2, len(result.metrics) - 1]
    p_m = {m: p_values(metric_map[result.metrics[m]]) for m in chosen}
    counts = tb.draw_counts(rng_for(9, "spa"), len(systems), 3)
    for b, row in enumerate(counts):
        copies = np.repeat(np.arange(len(systems)), row)
        pairs = [(min(x, y), max(x, y)) for a, x in enumerate(copies) for y in copies[a + 1 :] if x != y]
        for m in chosen:
            error = np.mean([abs(p_h[i, j] - p_m[m][i, j]) for i, j in pairs])
            assert draws[b, m] == pytest.approx(1.0 - error, abs=1e-12)


def test_intervals_table_and_an_unsupported_statistic(en_de):
    _, wmt23, test_sets, scores = en_de
    result = _task(wmt23, test_sets, scores, "en-de sys pearson")
    draws = beyond.task_resampler(result, mp.ProtocolInputs(wmt23, test_sets, scores)).draws(
        200, rng_for(1, "i")
    )
    table = beyond.task_intervals(result, draws, confidence=0.9)
    assert list(table.columns) == beyond.INTERVAL_COLUMNS
    assert list(table["metric"]) == [result.metrics[m] for m in result.order]
    assert (table["scheme"] == "systems").all() and (table["ci_low"] <= table["ci_high"]).all()
    assert ((table["ci_low"] <= table["value"]) & (table["value"] <= table["ci_high"])).mean() > 0.9
    kendall = mp.Task("kendall", ("en-de",), "sys", False, variant="b")
    other = mp.run_task(kendall, wmt23, test_sets, scores)
    with pytest.raises(InputError, match="no bootstrap interval"):
        beyond.task_resampler(other, mp.ProtocolInputs(wmt23, test_sets, scores))
