"""Confidence intervals of corpus scores and differences (mtsig.stats.intervals and their hook in mtsig.stats.resampling).

Oracles: ``scipy.stats.bootstrap`` (BCa and percentile, fed mtsig's own bootstrap draws through ``bootstrap_result``
so that both sides use the same bootstrap distribution; scipy then computes its own bias correction, its own
jackknife by recomputing the statistic on every leave-one-out sample, its own acceleration and quantiles),
``numpy.quantile`` of the same draws, loops over leave-one-out samples, hand calculation, and coverage simulations
with a known true difference. Clopper-Pearson: the paper's Tables 1-2 cells, statsmodels' ``proportion_confint``,
``scipy.stats.beta.ppf`` and closed forms at the edges.
"""

from __future__ import annotations

import html
import math
import tracemalloc
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from sacrebleu.metrics import BLEU as SacreBLEU
from scipy import stats as scipy_stats
from scipy.special import ndtri
from statsmodels.stats.proportion import proportion_confint

from mtsig.errors import InputError
from mtsig.metrics import BLEU
from mtsig.stats import intervals as iv
from mtsig.stats import resampling as rs

SEED = 20140601
bleu = BLEU()


def mean_score(totals: np.ndarray) -> np.ndarray:
    """A mean-type corpus metric: statistics ``[score, 1]`` per segment, so the corpus score is the mean."""
    return totals[..., 0] / totals[..., 1]


def mean_stats(segment_scores: np.ndarray) -> np.ndarray:
    return np.stack([segment_scores, np.ones_like(segment_scores)], axis=-1)


def skewed_scores(n_systems: int, n_segments: int, seed: int) -> np.ndarray:
    """Segment scores with a shared, skewed difficulty and skewed system noise (paired, non-normal data)."""
    rng = np.random.default_rng(seed)
    difficulty = rng.gamma(2.0, 10.0, size=n_segments)
    return difficulty + rng.exponential(
        np.linspace(3.0, 6.0, n_systems)[:, None], size=(n_systems, n_segments)
    )


def small_bleu_stats(n_systems: int = 4, n_segments: int = 60, seed: int = 7) -> np.ndarray:
    """Integer BLEU statistics ``[hyp_len, ref_len, correct_1..4, total_1..4]`` with a shared reference length."""
    rng = np.random.default_rng(seed)
    hyp_len = rng.integers(8, 30, size=(n_systems, n_segments))
    ref_len = np.broadcast_to(rng.integers(8, 30, size=n_segments), (n_systems, n_segments))
    total = np.stack([hyp_len - n for n in range(4)], axis=-1)
    quality = np.linspace(0.5, 0.56, n_systems)[:, None, None] * np.array([1.0, 0.6, 0.4, 0.3])
    correct = rng.binomial(total, quality)
    return np.concatenate([hyp_len[..., None], ref_len[..., None], correct, total], axis=-1).astype(float)


def scipy_interval(data: tuple[np.ndarray, ...], statistic, draws: np.ndarray, method: str, level: float):
    """scipy's interval of ``statistic`` on paired ``data`` with ``draws`` as its bootstrap distribution."""
    result = scipy_stats.bootstrap(
        data,
        statistic,
        paired=True,
        vectorized=True,
        n_resamples=0,
        bootstrap_result=SimpleNamespace(bootstrap_distribution=draws),
        method=method,
        confidence_level=level,
        batch=64,
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def row(table: pd.DataFrame, **where: object) -> pd.Series:
    mask = np.ones(len(table), dtype=bool)
    for column, value in where.items():
        mask &= (table[column] == value).to_numpy()
    assert mask.sum() == 1, where
    return table[mask].iloc[0]


# ----------------------------------------------------------------------------- oracle 1: scipy on a mean metric


@pytest.mark.parametrize("level", [0.95, 0.9])
def test_bca_and_percentile_equal_scipy_on_a_mean_metric(level: float) -> None:
    """Pair intervals of ``mean(x) - mean(y)`` and system intervals of ``mean(x)`` against scipy.

    A system whose statistics are ``[0, 1]`` everywhere ("zero") scores 0 on every pseudo-test-set, so the
    engine's ``d_b`` of (s, zero) are system s's own bootstrap scores: that is how the system intervals' draws are
    handed to scipy."""
    scores = np.concatenate([skewed_scores(3, 150, seed=11), np.zeros((1, 150))])
    names = ["s0", "s1", "s2", "zero"]
    keep = [("s0", "s1"), ("s2", "s0"), ("s0", "zero"), ("s1", "zero")]
    result = rs.pairwise_tests(
        mean_stats(scores),
        mean_score,
        names,
        rs.ResamplingOptions(
            tests=("paired_bootstrap",),
            n_samples=3000,
            seed=SEED,
            keep_distributions=keep,
            intervals=iv.INTERVAL_METHODS,
            interval_level=level,
        ),
    )

    def difference(x, y, axis):
        return x.mean(axis=axis) - y.mean(axis=axis)

    for sys_x, sys_y in keep[:2]:
        draws = result.distributions[(sys_x, sys_y)]["paired_bootstrap"]
        data = (scores[names.index(sys_x)], scores[names.index(sys_y)])
        for method, scipy_method in (("bca", "BCa"), ("percentile", "percentile")):
            expected = scipy_interval(data, difference, draws, scipy_method, level)
            got = row(result.intervals, sys_x=sys_x, sys_y=sys_y, method=method)
            np.testing.assert_allclose([got.ci_low, got.ci_high], expected, rtol=1e-12, atol=1e-12)
            assert got.level == level
    for system in ("s0", "s1"):
        draws = result.distributions[(system, "zero")]["paired_bootstrap"]

        def mean(x, axis):
            return x.mean(axis=axis)

        for method, scipy_method in (("bca", "BCa"), ("percentile", "percentile")):
            expected = scipy_interval((scores[names.index(system)],), mean, draws, scipy_method, level)
            got = row(result.system_intervals, system=system, method=method)
            np.testing.assert_allclose([got.ci_low, got.ci_high], expected, rtol=1e-12, atol=1e-12)
            assert got.score == pytest.approx(scores[names.index(system)].mean(), rel=1e-14)


# ------------------------------------------------------------------------ oracle 2: scipy on real BLEU statistics


def _read(path: Path) -> list[str]:
    def unescape(text: str) -> str:
        while (unescaped := html.unescape(text)) != text:
            text = unescaped
        return text

    with path.open(encoding="utf-8") as handle:
        return [unescape(line.rstrip("\n")) for line in handle]


def test_bca_equals_scipy_on_wmt12_bleu_statistics(data_root: Path) -> None:
    """BLEU is a ratio of summed statistics, not a mean of segment scores: scipy's jackknife recomputes corpus BLEU
    on each leave-one-segment-out sample of the paired statistics, mtsig's subtracts the segment from the totals."""
    refs = _read(data_root / "wmt12" / "plain" / "newstest2012-ref.en")
    outputs = data_root / "wmt12" / "system-outputs" / "es-en"
    names = ["onlineA", "UPC", "GTH-UPM"]
    sacrebleu = SacreBLEU()
    stats = np.array(
        [
            sacrebleu._extract_corpus_statistics(_read(outputs / f"newstest2012.es-en.{name}"), [refs])
            for name in names
        ],
        dtype=float,
    )
    keep = [("onlineA", "UPC"), ("GTH-UPM", "UPC")]
    result = rs.pairwise_tests(
        stats,
        bleu.score,
        names,
        rs.ResamplingOptions(
            tests=("paired_bootstrap",),
            n_samples=2000,
            seed=SEED,
            keep_distributions=keep,
            intervals=("bca",),
        ),
    )
    k = stats.shape[2]

    def bleu_difference(*columns, axis):
        totals_x = np.stack([c.sum(axis=axis) for c in columns[:k]], axis=-1)
        totals_y = np.stack([c.sum(axis=axis) for c in columns[k:]], axis=-1)
        return bleu.score(totals_x) - bleu.score(totals_y)

    for sys_x, sys_y in keep:
        x, y = stats[names.index(sys_x)], stats[names.index(sys_y)]
        data = tuple(x[:, c] for c in range(k)) + tuple(y[:, c] for c in range(k))
        draws = result.distributions[(sys_x, sys_y)]["paired_bootstrap"]
        expected = scipy_interval(data, bleu_difference, draws, "BCa", 0.95)
        got = row(result.intervals, sys_x=sys_x, sys_y=sys_y, method="bca")
        np.testing.assert_allclose([got.ci_low, got.ci_high], expected, rtol=1e-10, atol=1e-10)
        assert got.statistic == pytest.approx(float(bleu_difference(*data, axis=-1)), abs=1e-12)


# --------------------------------------------------------------------------------- oracle 3: numpy.quantile


@pytest.mark.parametrize("level", [0.95, 0.8])
def test_percentile_interval_is_numpy_quantile_of_the_paired_bootstrap_draws(level: float) -> None:
    """Pairs (X, Y) with X before Y in the system order are computed from ``d_b`` itself: numpy's quantiles to the
    last bit. Their reverse (Y, X) is the negated interval, numpy's quantiles of ``-d_b`` up to rounding."""
    stats = small_bleu_stats(n_systems=4, n_segments=80, seed=3)
    names = ["a", "b", "c", "d"]
    keep = [("a", "b"), ("b", "d"), ("a", "c")]
    result = rs.pairwise_tests(
        stats,
        bleu.score,
        names,
        rs.ResamplingOptions(
            tests=rs.PAPER_TESTS,
            n_samples=1500,
            seed=SEED,
            keep_distributions=keep,
            intervals=("percentile",),
            interval_level=level,
        ),
    )
    tails = [(1 - level) / 2, (1 + level) / 2]
    for sys_x, sys_y in keep:
        draws = result.distributions[(sys_x, sys_y)]["paired_bootstrap"]
        got = row(result.intervals, sys_x=sys_x, sys_y=sys_y, method="percentile")
        np.testing.assert_array_equal([got.ci_low, got.ci_high], np.quantile(draws, tails))
        reverse = row(result.intervals, sys_x=sys_y, sys_y=sys_x, method="percentile")
        assert (reverse.ci_low, reverse.ci_high) == (-got.ci_high, -got.ci_low)
        np.testing.assert_allclose([reverse.ci_low, reverse.ci_high], np.quantile(-draws, tails), atol=1e-12)


def test_row_wise_quantiles_equal_numpy_at_any_probability() -> None:
    rng = np.random.default_rng(5)
    draws = np.sort(rng.normal(size=(6, 101)) ** 3, axis=1)
    probabilities = np.array(
        [[0.0, 0.001], [0.025, 0.975], [0.5, 0.3333], [0.99, 1.0], [0.12345, 0.87], [0.7, 0.2]]
    )
    got = iv.quantiles_of_sorted(draws, probabilities)
    expected = np.array([np.quantile(d, q) for d, q in zip(draws, probabilities, strict=True)])
    np.testing.assert_array_equal(got, expected)
    assert np.isnan(iv.quantiles_of_sorted(draws[:1], np.array([[np.nan, 0.5]]))[0, 0])


# -------------------------------------------------------------------------- jackknife and formulas by hand


def test_leave_one_out_scores_equal_a_loop_over_deleted_segments() -> None:
    stats = small_bleu_stats(n_systems=2, n_segments=25, seed=9)
    got = iv.leave_one_out_scores(
        stats, bleu.score, chunk_bytes=1
    )  # one segment per chunk: chunking is inert
    for s in range(2):
        for i in range(25):
            assert got[s, i] == bleu.score(np.delete(stats[s], i, axis=0).sum(axis=0))
    np.testing.assert_array_equal(iv.leave_one_out_scores(stats, bleu.score), got)
    # The jackknife of corpus BLEU is not that of the mean segment BLEU (a corpus metric is not a mean).
    segment_bleu = bleu.score(stats[0])
    mean_of_segments = (segment_bleu.sum() - segment_bleu) / 24
    assert not np.allclose(got[0], mean_of_segments)


def test_bias_correction_and_acceleration_by_hand() -> None:
    draws = np.array([[1.0, 2.0, 3.0, 4.0]])
    assert iv.bias_correction(draws, np.array([2.5]))[0] == 0.0  # 2 of 4 below
    assert iv.bias_correction(draws, np.array([2.0]))[0] == ndtri(3 / 8)  # 1 below, 1 tie counting 1/2
    assert iv.bias_correction(draws, np.array([0.5]))[0] == -math.inf
    # Jackknife values 1, 2, 3, 10: mean 4, D = 3, 2, 1, -6, sum D^2 = 50, sum D^3 = -180.
    assert iv.acceleration(np.array([[1.0, 2.0, 3.0, 10.0]]))[0] == pytest.approx(
        -180 / (6 * 50**1.5), rel=1e-15
    )
    assert iv.acceleration(np.array([[2.0, 2.0, 2.0]]))[0] == 0.0
    # No bias, no skewness: BCa's levels are the percentile interval's.
    a1, a2 = iv.bca_probabilities(np.array([0.0]), np.array([0.0]), 0.9)
    assert (a1[0], a2[0]) == pytest.approx((0.05, 0.95), abs=1e-15)


def test_bca_is_nan_when_undefined_and_point_for_identical_systems() -> None:
    bounds = iv.intervals_from_draws(
        np.array([[1.0, 2.0, 3.0]]), np.array([0.0]), ("bca",), 0.95, np.array([[1.0, 2.0, 4.0]])
    )
    assert np.isnan(bounds["bca"][0][0]) and np.isnan(bounds["bca"][1][0])
    # Two identical systems: every d_b is 0 = d, z0 = 0 (ties count 1/2), acceleration 0: both intervals are [0, 0].
    stats = small_bleu_stats(n_systems=2, n_segments=30)
    stats[1] = stats[0]
    result = rs.pairwise_tests(
        stats,
        bleu.score,
        ["a", "b"],
        rs.ResamplingOptions(tests=rs.PAPER_TESTS, n_samples=300, seed=1, intervals=iv.INTERVAL_METHODS),
    )
    assert (result.intervals[["ci_low", "ci_high"]].to_numpy() == 0.0).all()


# ----------------------------------------------------------------------------- engine integration


def _run(stats: np.ndarray, **kwargs) -> rs.PairwiseResult:
    options = {
        "tests": rs.ALL_TESTS,
        "n_samples": 700,
        "seed": SEED,
        "documents": np.repeat(np.arange(10), stats.shape[1] // 10),
        "intervals": iv.INTERVAL_METHODS,
    }
    options.update(kwargs)
    return rs.pairwise_tests(
        stats, bleu.score, [f"s{i}" for i in range(len(stats))], rs.ResamplingOptions(**options)
    )


def test_intervals_change_no_p_value_and_come_from_the_paired_bootstrap_draws() -> None:
    stats = small_bleu_stats(n_systems=5, n_segments=60, seed=2)
    with_intervals = _run(stats)
    without = _run(stats, intervals=())
    pd.testing.assert_frame_equal(with_intervals.table, without.table, check_exact=True)
    assert without.intervals is None and without.system_intervals is None
    # The same intervals whatever tests run: AR alone still uses the i.i.d. bootstrap's first B draws.
    alone = _run(stats, tests=("approximate_randomization",))
    pd.testing.assert_frame_equal(alone.intervals, with_intervals.intervals, check_exact=True)
    pd.testing.assert_frame_equal(alone.system_intervals, with_intervals.system_intervals, check_exact=True)
    # B is the paired bootstrap's: 300 samples give the intervals of the first 300 draws.
    mixed = _run(stats, n_samples={t: 700 for t in rs.ALL_TESTS} | {"paired_bootstrap": 300})
    short = _run(stats, n_samples=300)
    pd.testing.assert_frame_equal(mixed.intervals, short.intervals, check_exact=True)
    assert mixed.settings["intervals"] == {
        "methods": ["percentile", "bca"],
        "level": 0.95,
        "n_samples": 300,
        "scheme": "iid_bootstrap",
    }


def test_intervals_do_not_depend_on_chunks_shards_threads_or_memory_cap(monkeypatch) -> None:
    stats = small_bleu_stats(n_systems=6, n_segments=120, seed=3)
    full = _run(stats)
    cap = 3 << 20
    tracemalloc.start()
    try:
        capped = _run(stats, memory_cap_bytes=cap)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak <= cap, peak
    pd.testing.assert_frame_equal(capped.intervals, full.intervals, check_exact=True)
    pd.testing.assert_frame_equal(capped.system_intervals, full.system_intervals, check_exact=True)
    shard = _run(stats, pairs=[(4, 1), (0, 5)])
    keys = ["sys_x", "sys_y", "method"]
    expected = full.intervals.set_index(keys).loc[shard.intervals.set_index(keys).index].reset_index()
    pd.testing.assert_frame_equal(shard.intervals, expected, check_exact=True)
    pd.testing.assert_frame_equal(shard.system_intervals, full.system_intervals, check_exact=True)
    monkeypatch.setenv("MTSIG_THREADS", "2")
    threaded = _run(stats)
    pd.testing.assert_frame_equal(threaded.intervals, full.intervals, check_exact=True)
    again = _run(stats)
    assert again.intervals.to_csv().encode() == full.intervals.to_csv().encode()


def test_interval_orientation_of_reversed_pairs_and_lower_is_better_metrics() -> None:
    # TER-like: errors / reference words, lower is better; X makes fewer errors.
    rng = np.random.default_rng(4)
    ref = rng.integers(5, 20, size=80).astype(float)
    errors = np.stack([rng.binomial(ref.astype(int), p) for p in (0.2, 0.3)]).astype(float)
    stats = np.stack([errors, np.broadcast_to(ref, errors.shape)], axis=-1)

    def ter(totals):
        return 100 * totals[..., 0] / totals[..., 1]

    result = rs.pairwise_tests(
        stats,
        ter,
        ["X", "Y"],
        rs.ResamplingOptions(
            higher_is_better=False,
            tests=rs.PAPER_TESTS,
            n_samples=2000,
            seed=1,
            intervals=iv.INTERVAL_METHODS,
        ),
    )
    for method in iv.INTERVAL_METHODS:
        forward = row(result.intervals, sys_x="X", sys_y="Y", method=method)
        backward = row(result.intervals, sys_x="Y", sys_y="X", method=method)
        statistic = row(result.table, sys_x="X", sys_y="Y", test="paired_bootstrap").statistic
        assert forward.statistic == statistic > 0  # TER_y - TER_x: positive means X better
        assert forward.ci_low < statistic < forward.ci_high and forward.ci_low > 0
        assert (backward.ci_low, backward.ci_high, backward.statistic) == (
            -forward.ci_high,
            -forward.ci_low,
            -forward.statistic,
        )
        for system in ("X", "Y"):
            own = row(result.system_intervals, system=system, method=method)
            assert own.score == result.system_scores[system]  # TER on its own scale, not negated
            assert own.ci_low < own.score < own.ci_high


def test_bad_interval_requests_are_rejected() -> None:
    stats = small_bleu_stats(n_systems=3, n_segments=20)
    with pytest.raises(ValueError, match="unknown interval method"):
        _run(stats, intervals=("bootstrap-t",))
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        _run(stats, interval_level=1.0)
    with pytest.raises(ValueError, match="paired_bootstrap"):
        _run(stats, tests=("bootstrap",), n_samples={"bootstrap": 100})


# ------------------------------------------------------------------------- coverage with a known truth

TRIALS, SEGMENTS, DRAWS, CALLS = 1000, 500, 1000, 10
PER_CALL = TRIALS // CALLS


def coverage(
    label: str, generate, score, truth_difference: float, truth_x: float | None
) -> dict[str, object]:
    """Share of TRIALS synthetic experiments whose 95% interval covers the true value, per method.

    Each call holds PER_CALL independent trials as PER_CALL pairs of systems (system 2t is trial t's X, 2t+1 its
    Y) on the same segment positions; the engine draws one set of bootstrap counts per call (seed differs by call),
    so trials of one call share resampling indices but not data: given the draws, their coverage events are
    independent, and with B = 1000 the draws add little variance, so the count is close to binomial.
    """
    covered = {("pair", m): 0 for m in iv.INTERVAL_METHODS} | {("system", m): 0 for m in iv.INTERVAL_METHODS}
    for call in range(CALLS):
        stats = generate(np.random.default_rng([2014, call]))
        result = rs.pairwise_tests(
            stats,
            score,
            [f"t{t}{side}" for t in range(PER_CALL) for side in "xy"],
            rs.ResamplingOptions(
                tests=(),
                n_samples=DRAWS,
                seed=SEED + call,
                pairs=[(2 * t, 2 * t + 1) for t in range(PER_CALL)],
                intervals=iv.INTERVAL_METHODS,
            ),
        )
        pairs = result.intervals[result.intervals["sys_x"].str.endswith("x")]
        systems = result.system_intervals[result.system_intervals["system"].str.endswith("x")]
        for method in iv.INTERVAL_METHODS:
            chosen = pairs[pairs["method"] == method]
            covered[("pair", method)] += int(
                chosen["ci_low"].le(truth_difference).mul(chosen["ci_high"].ge(truth_difference)).sum()
            )
            if truth_x is not None:
                own = systems[systems["method"] == method]
                covered[("system", method)] += int(
                    own["ci_low"].le(truth_x).mul(own["ci_high"].ge(truth_x)).sum()
                )
    report = {}
    for key, count in covered.items():
        if key[0] == "system" and truth_x is None:
            continue
        low, high = iv.clopper_pearson(count, TRIALS)
        report[key] = (count / TRIALS, low, high)
        print(
            f"coverage {label} {key[0]} {key[1]}: {count}/{TRIALS} = {count / TRIALS:.3f} [{low:.3f}, {high:.3f}]"
        )
    return report


def test_coverage_of_a_mean_difference_with_known_truth() -> None:
    """Segment scores ``x_i = u_i + e_i``, ``y_i = u_i + f_i``: a shared skewed difficulty ``u ~ Gamma(2, 10)``
    and skewed noise ``e ~ Exp(mean 5)``, ``f ~ Exp(mean 3)``; the true corpus difference E[x] - E[y] is 2."""

    def generate(rng):
        difficulty = rng.gamma(2.0, 10.0, size=(PER_CALL, SEGMENTS))
        x = difficulty + rng.exponential(5.0, size=(PER_CALL, SEGMENTS))
        y = difficulty + rng.exponential(3.0, size=(PER_CALL, SEGMENTS))
        return mean_stats(np.stack([x, y], axis=1).reshape(2 * PER_CALL, SEGMENTS))

    report = coverage("mean", generate, mean_score, 2.0, None)
    for (_, method), (share, _, _) in report.items():
        assert 0.93 <= share <= 0.97, (method, share)


#: BLEU-like synthetic systems: hypothesis length 4 + Poisson(lam), reference length 5 + Poisson(20), n-gram
#: matches Binomial(hyp_len - n + 1, q_n w_i) with a shared segment difficulty w_i = 0.5 + Beta(2, 2) (mean 1).
BLEU_SYSTEMS = {
    "x": (17.0, np.array([0.55, 0.33, 0.22, 0.15])),
    "y": (26.0, np.array([0.50, 0.30, 0.20, 0.13])),
}


def true_bleu(lam: float, q: np.ndarray) -> float:
    """Corpus BLEU is a function of the statistics' totals, invariant to their scale, so as N grows it tends to
    BLEU of the expected statistics: precisions ``E[m_n] / E[t_n] = q_n`` (w independent of the lengths, mean 1)
    and brevity penalty ``exp(1 - E[r] / E[c])`` with ``E[c] = 4 + lam`` and ``E[r] = 25``."""
    return 100 * math.exp(min(0.0, 1 - 25 / (4 + lam))) * math.exp(np.log(q).mean())


def test_coverage_of_a_bleu_difference_with_known_truth() -> None:
    def generate(rng):
        ref = 5 + rng.poisson(20, size=(PER_CALL, SEGMENTS))
        difficulty = 0.5 + rng.beta(2, 2, size=(PER_CALL, SEGMENTS))
        out = []
        for lam, q in BLEU_SYSTEMS.values():
            hyp = 4 + rng.poisson(lam, size=(PER_CALL, SEGMENTS))
            total = np.stack([hyp - n for n in range(4)], axis=-1)
            correct = rng.binomial(total, q * difficulty[..., None])
            out.append(np.concatenate([hyp[..., None], ref[..., None], correct, total], axis=-1))
        return np.stack(out, axis=1).reshape(2 * PER_CALL, SEGMENTS, 10).astype(float)

    truth_x, truth_y = (true_bleu(*BLEU_SYSTEMS[s]) for s in "xy")
    # The brevity penalty of x is active (E[c] = 21 < 25) and the expected lengths are far from its kink.
    assert truth_x == pytest.approx(
        100 * math.exp(1 - 25 / 21) * math.exp(np.log([0.55, 0.33, 0.22, 0.15]).mean())
    )
    report = coverage("BLEU", generate, bleu.score, truth_x - truth_y, truth_x)
    for key, (share, _, _) in report.items():
        assert 0.93 <= share <= 0.97, (key, share)


# ----------------------------------------------------------------------------------------- Clopper-Pearson

# Every distinct cell of the paper's Tables 1 (66 pairs) and 2 (55 pairs): correct, total, "acc [low, high]" in %.
PAPER_CELLS = [
    (53, 66, 80.3, 68.7, 89.1),
    (54, 66, 81.8, 70.4, 90.2),
    (52, 66, 78.8, 67.0, 87.9),
    (51, 66, 77.3, 65.3, 86.7),
    (50, 66, 75.8, 63.6, 85.5),
    (48, 66, 72.7, 60.4, 83.0),
    (34, 55, 61.8, 47.7, 74.6),
    (33, 55, 60.0, 45.9, 73.0),
    (32, 55, 58.2, 44.1, 71.3),
    (31, 55, 56.4, 42.3, 69.7),
    (30, 55, 54.5, 40.6, 68.0),
]


@pytest.mark.parametrize(("k", "n", "acc", "low", "high"), PAPER_CELLS)
def test_clopper_pearson_reproduces_the_paper_cells(k, n, acc, low, high):
    ci_low, ci_high = iv.clopper_pearson(k, n)
    assert round(100 * k / n, 1) == acc
    assert round(100 * ci_low, 1) == low
    assert round(100 * ci_high, 1) == high


@pytest.mark.parametrize(("k", "n"), [(0, 10), (1, 10), (5, 10), (9, 10), (10, 10), (0, 1), (1, 1), (17, 55)])
@pytest.mark.parametrize("level", [0.95, 0.99])
def test_clopper_pearson_matches_statsmodels(k, n, level):
    expected = proportion_confint(k, n, alpha=1 - level, method="beta")
    assert iv.clopper_pearson(k, n, level) == pytest.approx(expected, abs=1e-12)


def test_clopper_pearson_is_scipy_stats_beta_ppf_bit_for_bit():
    """The bounds come from scipy.special.betaincinv (no scipy.stats import in a pipeline job): the very
    quantiles of scipy.stats.beta.ppf, every k of n up to 100 and of larger n, at two levels."""
    from scipy import stats

    iv._beta_quantile_bounds.cache_clear()
    for n in [*range(1, 101), 997, 3003]:
        for level in (0.95, 0.99):
            tail = (1 - level) / 2
            k = np.arange(n + 1)
            low = np.where(k > 0, stats.beta.ppf(tail, np.maximum(k, 1), n - k + 1), 0.0)
            high = np.where(k < n, stats.beta.ppf(1 - tail, k + 1, np.maximum(n - k, 1)), 1.0)
            ours = np.array([iv.clopper_pearson(int(i), n, level) for i in k])
            assert ours[:, 0].tobytes() == low.tobytes() and ours[:, 1].tobytes() == high.tobytes(), (
                n,
                level,
            )


def test_clopper_pearson_edge_cases_have_closed_forms():
    # k = 0: low is 0 and high solves (1 - p)^n = a/2; k = n: mirror image.
    n = 20
    assert iv.clopper_pearson(0, n) == pytest.approx((0.0, 1 - 0.025 ** (1 / n)))
    assert iv.clopper_pearson(n, n) == pytest.approx((0.025 ** (1 / n), 1.0))


@pytest.mark.parametrize(("k", "n"), [(-1, 5), (6, 5), (0, 0), (1.5, 3), (2, 4.5)])
def test_clopper_pearson_rejects_impossible_counts(k, n):
    with pytest.raises(InputError):
        iv.clopper_pearson(k, n)
