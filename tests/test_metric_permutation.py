"""Permutation tests between every two metrics (mtsig.stats.meta_evaluation.metric_permutation).

Oracles: loop transcriptions, written here, of google-research/mt-metrics-eval's algorithms (commit 68a481a):
``stats.PermutationSigDiff`` (z-scored scores swapped cell by cell; Pearson over the cells with scipy; the pooled
pairwise accuracy of ``data.CompareMetricsWithGlobalAccuracy``'s ``_Accuracy``; SPA through pce.py's p-values) and
``stats.PairwisePermutationSigDiff`` (the pairs' outcomes swapped, acc_23 per item averaged), one resample at a time,
with its early stopping (``PermutationSigDiffParams``, and the check inside ``if c2 - c1 >= delta`` of the pairs
test), fed the SAME draws as mtsig; and a simulation with known truth (two exchangeable metrics: the p-value of a
fixed direction is uniform).
"""

from __future__ import annotations

import itertools
import warnings
from fractions import Fraction

import numpy as np
import pytest
from pipeline_runs import digests_here_and_on_another_machine, other_machine_numerics
from scipy import stats

from mtsig.stats.meta_evaluation.metric_permutation import (
    DRAW_BLOCK,
    EarlyStopping,
    PairSwaps,
    PearsonSwaps,
    PooledAccuracySwaps,
    SpaSwaps,
    permutation_test,
    swap_masks,
)
from mtsig.stats.meta_evaluation.soft_pairwise_accuracy import pce_flips, permutation_counts
from mtsig.stats.meta_evaluation.tie_calibration import group_pairs, pair_outcomes
from mtsig.stats.seeding import rng_for

SEED, KEY = 99, ("test", "task")


def the_masks(k: int, n_units: int) -> np.ndarray:
    """The draws permutation_test uses: block j from rng_for(SEED, *KEY, j)."""
    blocks = [
        swap_masks(rng_for(SEED, *KEY, j), min(DRAW_BLOCK, k - j * DRAW_BLOCK), n_units)
        for j in range(-(-k // DRAW_BLOCK))
    ]
    return np.concatenate(blocks)


def mtme_loop(stat, lower, higher, masks, early: EarlyStopping | None, combine):
    """PermutationSigDiff / PairwisePermutationSigDiff's loop: corr1 = the lower-ranked metric, corr2 = the higher;
    w1 = 1 - mtsig's mask (mtsig's hybrid of a metric takes the other's value where its mask is set)."""
    delta = stat(higher) - stat(lower)
    count, i, draws = 0, 0, []
    for i in range(1, masks.shape[0] + 1):
        w1 = 1 - masks[i - 1].astype(int)
        m1, m2 = combine(lower, higher, w1)
        c1, c2 = stat(m1), stat(m2)
        draws.append(c2 - c1)
        exceeded = c2 - c1 >= delta
        count += exceeded
        at_block = early is not None and i % early.block_size == 0
        if at_block and (exceeded or not early.check_only_on_exceedance):
            if count / i < early.early_min or count / i > early.early_max:
                break
    return count / i, i, np.array(draws)


def swap_cells(lower, higher, w1):
    return w1 * lower + (1 - w1) * higher, (1 - w1) * lower + w1 * higher


def check_against_loop(result, values, stat, masks, early, combine, prepare=lambda x: x):
    rank = np.argsort(np.argsort(-np.asarray(values), kind="stable"))
    for p, (a, b) in enumerate(zip(result.a, result.b, strict=True)):
        higher, lower = (a, b) if rank[a] < rank[b] else (b, a)
        p_loop, used, draws = mtme_loop(stat, prepare(lower), prepare(higher), masks, early, combine)
        assert result.n_used[p] == used, (a, b)
        assert result.pvalue[p] == p_loop, (a, b)
        sign = 1.0 if higher == a else -1.0
        np.testing.assert_allclose(sign * result.draws[:used, p], draws.astype(np.float64), atol=1e-12)
        assert np.isnan(result.draws[used:, p]).all()
    return rank


def pearson0(x, y):
    if np.all(x == x[0]) or np.all(y == y[0]):
        return 0.0  # NaN dropped from the average: 0 (mt-metrics-eval)
    return stats.pearsonr(x, y)[0]


@pytest.mark.parametrize("early", [None, EarlyStopping()])
def test_pearson_swaps_equal_permutation_sig_diff_loop(early):
    rng = np.random.default_rng(0)
    human = rng.normal(size=60)
    metrics = np.stack([human + s * rng.normal(size=60) for s in (0.8, 1.0, 1.1, 3.0)])
    k = 300
    source = PearsonSwaps(human, metrics)
    values = [stats.pearsonr(human, m)[0] for m in metrics]
    rank = np.argsort(np.argsort(-np.asarray(values), kind="stable"))
    result = permutation_test(source, rank, k, seed=SEED, key=KEY, early_stopping=early)
    masks = the_masks(k, 60)
    check_against_loop(
        result,
        values,
        lambda x: pearson0(human, x),
        masks,
        early,
        swap_cells,
        prepare=lambda m: stats.zscore(metrics[m]),
    )
    if early is not None:
        assert result.n_used.min() < k  # the early stopping was exercised


def acc23_items(human, diffs, ties, items):
    """Per item: (concordant + tied both) / pairs, from the pair lists (mt-metrics-eval's KendallVariants on
    PairwiseDiffs), averaged over the items; in exact fractions, so that a resample whose difference equals the
    observed one counts (mt-metrics-eval's float average can round such an exact tie either way)."""
    values = []
    for item in np.unique(items):
        sel = items == item
        dh = human[sel]
        good = (ties[sel] & (dh == 0)) | (~ties[sel] & (dh != 0) & (np.sign(diffs[sel]) == np.sign(dh)))
        values.append(Fraction(int(good.sum()), int(good.size)))
    return sum(values, Fraction(0)) / len(values)


@pytest.mark.parametrize("early", [None, EarlyStopping(check_only_on_exceedance=True), EarlyStopping()])
def test_pair_swaps_equal_pairwise_permutation_sig_diff_loop(early):
    rng = np.random.default_rng(1)
    human = np.round(rng.normal(size=(5, 15)))
    human[rng.random(human.shape) < 0.2] = np.nan  # items with 2 to 5 rated systems: unequal pair counts
    metrics = np.stack([np.round(human + s * rng.normal(size=human.shape), 1) for s in (0.5, 0.7, 2.0)])
    metrics = np.nan_to_num(metrics)
    epsilons = np.array([0.1, 0.0, 0.3])
    outcomes = pair_outcomes(human, metrics, epsilons)
    pairs = group_pairs(human)
    g, i, j = pairs.group, pairs.first, pairs.second
    dh = human[i, g] - human[j, g]
    dm = metrics[:, i, g] - metrics[:, j, g]
    ties = np.abs(dm) <= epsilons[:, None]
    diffs = np.where(ties, 0.0, dm)  # PairwiseDiffs: differences zeroed where tied
    k = 300
    source = PairSwaps(outcomes)
    values = [float(acc23_items(dh, diffs[m], ties[m], g)) for m in range(3)]
    rank = np.argsort(np.argsort(-np.asarray(values), kind="stable"))
    result = permutation_test(source, rank, k, seed=SEED, key=KEY, early_stopping=early)
    masks = the_masks(k, g.size)

    def combine(lower, higher, w1):  # hybrids1 = m1.Combine(m2, w1, w2), hybrids2 = m2.Combine(m1, w1, w2)
        w1 = w1.astype(bool)
        return (
            (np.where(w1, lower[0], higher[0]), np.where(w1, lower[1], higher[1])),
            (np.where(w1, higher[0], lower[0]), np.where(w1, higher[1], lower[1])),
        )

    check_against_loop(
        result,
        values,
        lambda x: acc23_items(dh, x[0], x[1], g),
        masks,
        early,
        combine,
        prepare=lambda m: (diffs[m], ties[m]),
    )


def test_pooled_accuracy_swaps_equal_the_loop():
    rng = np.random.default_rng(2)
    humans = [np.round(rng.normal(size=s), 1) for s in (4, 6, 5)]
    humans[0][1] = humans[0][2]  # a human tie
    metrics = [np.stack([h + s * rng.normal(size=h.size) for s in (0.3, 0.5, 1.0, 0.5)]) for h in humans]
    metrics[1][3] = metrics[1][1]  # two metrics identical on a language pair
    source = PooledAccuracySwaps(humans, metrics)
    sizes = np.cumsum([0] + [h.size for h in humans])
    gold = np.concatenate(humans)

    def accuracy(
        pooled,
    ):  # _Accuracy over the pooled vector: stats.Agreement per language pair (exact fraction)
        agree = pairs = 0
        for start, end in zip(sizes[:-1], sizes[1:], strict=True):
            for a, b in itertools.combinations(range(start, end), 2):
                agree += int(np.sign(gold[a] - gold[b]) == np.sign(pooled[a] - pooled[b]))
                pairs += 1
        return Fraction(agree, pairs)

    pooled = np.concatenate(metrics, axis=1)
    values = [float(accuracy(pooled[m])) for m in range(4)]
    rank = np.argsort(np.argsort(-np.asarray(values), kind="stable"))
    k = 200
    result = permutation_test(source, rank, k, seed=SEED, key=KEY, early_stopping=EarlyStopping())
    check_against_loop(
        result, values, accuracy, the_masks(k, sizes[-1]), EarlyStopping(), swap_cells,
        prepare=lambda m: stats.zscore(pooled[m]),
    )  # fmt: skip


def test_spa_swaps_equal_the_loop():
    rng = np.random.default_rng(3)
    human = rng.normal(size=(4, 12)) + np.arange(4)[:, None] * 0.3
    metrics = np.stack([human + s * rng.normal(size=human.shape) for s in (0.5, 1.0, 2.0)])
    flips = pce_flips(12)
    human_counts = permutation_counts(human, flips)
    source = SpaSwaps(human_counts, metrics, flips)

    def spa(
        cells,
    ):  # PairwiseConfidenceError on a hybrid: pce.py's p-values (float32 scores), 1 - mean |p_h - p_m|
        counts = permutation_counts(cells.astype(np.float32).astype(np.float64).reshape(4, 12), flips)
        return 1.0 - np.abs(counts - human_counts).sum() / (1000 * counts.size)

    flat = metrics.reshape(3, -1)
    values = [spa(stats.zscore(flat[m])) for m in range(3)]
    rank = np.argsort(np.argsort(-np.asarray(values), kind="stable"))
    k = 120
    result = permutation_test(source, rank, k, seed=SEED, key=KEY, early_stopping=None)
    check_against_loop(
        result, values, spa, the_masks(k, 48), None, swap_cells, prepare=lambda m: stats.zscore(flat[m])
    )


def test_fewer_resamples_are_a_prefix_and_chunks_change_nothing():
    rng = np.random.default_rng(4)
    human = rng.normal(size=40)
    metrics = np.stack([human + rng.normal(size=40) for _ in range(3)])
    long = permutation_test(PearsonSwaps(human, metrics), [0, 1, 2], 250, seed=SEED, key=KEY)
    short = permutation_test(PearsonSwaps(human, metrics), [0, 1, 2], 130, seed=SEED, key=KEY)
    np.testing.assert_array_equal(long.draws[:130], short.draws)
    other = permutation_test(PearsonSwaps(human, metrics), [0, 1, 2], 130, seed=SEED + 1, key=KEY)
    assert not np.array_equal(other.draws, short.draws)


@pytest.mark.parametrize("kind", ["pearson", "pairs"])
def test_exchangeable_metrics_give_uniform_p_values(kind):
    """Known truth: metrics a and b are exchangeable (the same noise distribution around the human scores), so the
    p-value of "a beats b", a fixed direction, is valid: at most about alpha of 400 data sets at or below alpha.
    Pearson's continuous statistic makes it uniform (a Kolmogorov-Smirnov test does not reject); the pairs'
    outcomes are discrete, and a resample equal to the observed difference counts, so that test is conservative."""
    rng = np.random.default_rng(5)
    p_values = []
    for _ in range(400):
        if kind == "pearson":
            human = rng.normal(size=30)
            metrics = human + rng.normal(size=(2, 30))
            source = PearsonSwaps(human, metrics)
        else:
            human = np.round(rng.normal(size=(4, 8)))
            metrics = np.round(human + rng.normal(size=(2, 4, 8)), 1)
            source = PairSwaps(pair_outcomes(human, metrics, [0.1, 0.1]))
        result = permutation_test(source, [0, 1], 200, seed=int(rng.integers(1 << 30)), key=KEY)
        p_values.append(result.pvalue[0])
    p_values = np.array(p_values)
    for alpha in (0.05, 0.1, 0.2):
        rejections = np.count_nonzero(p_values <= alpha)
        assert stats.binomtest(rejections, 400, alpha, alternative="greater").pvalue > 0.001, (
            alpha,
            rejections,
        )
    if kind == "pearson":
        rejections = np.count_nonzero(p_values <= 0.05)
        assert stats.binomtest(rejections, 400, 0.05).pvalue > 0.001, rejections
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert stats.kstest(p_values, "uniform").pvalue > 0.001


_EVERY_SOURCE = """
import hashlib
import numpy as np
from mtsig.stats.meta_evaluation import metric_permutation as mp
from mtsig.stats.meta_evaluation.grouped_correlation import CorrelationOptions, grouped_correlation
from mtsig.stats.meta_evaluation.soft_pairwise_accuracy import pce_flips, permutation_counts, soft_pairwise_accuracy
from mtsig.stats.meta_evaluation.tie_calibration import calibrate_ties, pair_outcomes
rng = np.random.default_rng(8)
human = np.round(rng.normal(size=(5, 40)), 1)
metrics = human + rng.gamma(2.0, 0.7, size=(4, 5, 40))  # not integer-valued
flips = pce_flips(40)
digest = hashlib.sha256()
def add(*arrays):
    for array in arrays:
        digest.update(np.ascontiguousarray(array, dtype=np.float64).tobytes())
eps = [calibrate_ties(human, m).epsilon for m in metrics]
sources = [
    mp.PearsonSwaps(human.reshape(-1), metrics.reshape(4, -1)),
    mp.PairSwaps(pair_outcomes(human, metrics, eps)),
    mp.PooledAccuracySwaps([human[:, 0], human[:, 1]], [metrics[:, :, 0], metrics[:, :, 1]]),
    mp.SpaSwaps(permutation_counts(human, flips), metrics, flips),
]
for source in sources:
    result = mp.permutation_test(source, [2, 0, 3, 1], 150, seed=3, key=("t",), early_stopping=mp.EarlyStopping())
    add(result.pvalue, result.n_used, np.nan_to_num(result.draws, nan=-9.0))
chunk, mp.SpaSwaps.CHUNK = mp.SpaSwaps.CHUNK, 7  # another chunking of the resamples: the same draws
try:
    again = mp.permutation_test(sources[3], [2, 0, 3, 1], 150, seed=3, key=("t",))
finally:
    mp.SpaSwaps.CHUNK = chunk  # the script also runs in the test's own process
first = mp.permutation_test(mp.SpaSwaps(permutation_counts(human, flips), metrics, flips), [2, 0, 3, 1], 150, seed=3,
                            key=("t",))
assert np.array_equal(again.draws, first.draws)
add(grouped_correlation(human, metrics, CorrelationOptions("pearson", "item")), eps, soft_pairwise_accuracy(human, metrics))
print(digest.hexdigest())
"""


def test_every_source_gives_the_same_bits_on_another_machine_s_numerics():
    """Every statistic and permutation source of the protocol on non-integer scores, here and under another
    machine's numerics (OpenBLAS's generic kernels, numpy without AVX-512; tests/pipeline_runs.py): byte-identical
    digests; and SPA's resamples chunked differently give the same draws."""
    assert other_machine_numerics(), "this check knows another machine's numerics for x86-64 and aarch64 only"
    digests = digests_here_and_on_another_machine(_EVERY_SOURCE)
    assert digests[0] == digests[1] and len(digests[0].strip()) == 64
