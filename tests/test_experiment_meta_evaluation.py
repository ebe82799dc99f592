"""An experiment's metric meta-evaluation (mtsig.studies.meta_evaluation): the pieces against independent oracles
(sacrebleu on the resampled corpus, scipy's correlations on the drawn systems, the exact binomial sign test) and the
whole on planted data. The rule's outputs on real data are checked in tests/test_verification.py (quick check)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import sacrebleu
from scipy import stats

from mtsig.errors import InputError
from mtsig.metrics import BLEU
from mtsig.stats.meta_evaluation import metric_comparison as mc
from mtsig.stats.seeding import rng_for
from mtsig.studies import meta_evaluation as study

REFS = [
    "the cat sat on the mat",
    "a quick brown fox jumps over the lazy dog",
    "it is raining again today",
    "we will meet at the station at noon",
    "the results were not significant",
    "please close the door behind you",
]
SYSTEMS = {
    "good": REFS[:3]
    + ["we meet at the station at noon", "the results were not significant", "close the door"],
    "fair": [
        "the cat sat on a mat",
        "a brown fox jumps over a dog",
        "it rains today",
        "we will meet at noon",
        "results were significant",
        "please close the door behind",
    ],  # fmt: skip
    "poor": ["cat mat", "the fox", "raining", "station noon meet", "not the results", "door you"],
}


def _bleu_stats() -> tuple[BLEU, np.ndarray]:
    metric = BLEU()
    return metric, np.stack([metric.stats(hyps, REFS) for hyps in SYSTEMS.values()])


def test_resampled_corpus_bleu_equals_sacrebleu_on_the_drawn_test_set():
    """BOOT-INPUTS re-scores a drawn test set as a corpus: sacrebleu on the drawn segments (repeated as drawn)."""
    metric, statistics = _bleu_stats()
    full, of_counts = study.corpus_metric(statistics, metric.score, metric.higher_is_better)
    for k, hyps in enumerate(SYSTEMS.values()):
        assert full[k] == pytest.approx(sacrebleu.corpus_bleu(hyps, [REFS]).score, abs=1e-9)
    draws = rng_for(5, "draws").integers(0, len(REFS), size=(4, len(REFS)))
    counts = np.stack([np.bincount(d, minlength=len(REFS)) for d in draws]).astype(float)
    resampled = of_counts(counts)
    for b, drawn in enumerate(draws):
        for k, hyps in enumerate(SYSTEMS.values()):
            expected = sacrebleu.corpus_bleu([hyps[i] for i in drawn], [[REFS[i] for i in drawn]]).score
            assert resampled[b, k] == pytest.approx(expected, abs=1e-9)


def test_lower_is_better_metrics_are_negated():
    statistics = np.array([[[2.0, 10.0], [1.0, 10.0]], [[6.0, 10.0], [4.0, 10.0]]])  # edits, reference length
    full, _ = study.corpus_metric(statistics, lambda s: s[..., 0] / s[..., 1], higher_is_better=False)
    assert full.tolist() == pytest.approx([-0.15, -0.5])


def test_boot_systems_equals_scipy_pearson_on_the_same_drawn_systems():
    rng = np.random.default_rng(3)
    scores = rng.normal(size=(2, 9))
    human = scores[0] + rng.normal(scale=0.5, size=9)
    intervals = mc.bootstrap_correlations(
        lambda counts: scores, human, 1, scheme="systems", n_resamples=250, rng=rng_for(1, "systems")
    )
    replay = rng_for(1, "systems")  # the same stream: systems drawn per chunk of mc.CHUNK
    drawn = np.concatenate([replay.integers(0, 9, size=(n, 9)) for n in (100, 100, 50)])
    for m, interval in enumerate(intervals):
        r = [stats.pearsonr(scores[m, d], human[d])[0] if np.ptp(human[d]) > 0 else np.nan for d in drawn]
        r = np.array(r)
        low, high = np.quantile(r[np.isfinite(r)], [0.025, 0.975])
        assert interval.estimate == pytest.approx(stats.pearsonr(scores[m], human)[0], abs=1e-12)
        assert (interval.low, interval.high) == pytest.approx((low, high), abs=1e-12)
        assert interval.n_undefined == int((~np.isfinite(r)).sum())


def test_accuracy_matrix_equals_binomial_sign_test_both_ways():
    # metric 0 right where 1 is wrong on 9 pairs, the reverse on 3, equal on 18 (as the single-pair test's oracle)
    c0 = np.array([1] * 9 + [0] * 3 + [1] * 10 + [0] * 8, dtype=bool)
    c1 = np.array([0] * 9 + [1] * 3 + [1] * 10 + [0] * 8, dtype=bool)
    p = mc.accuracy_permutation_matrix(np.stack([c0, c1, c0]), n_resamples=40000, rng=rng_for(2, "matrix"))
    better = stats.binom.sf(8, 12, 0.5)  # at least 9 of the 12 discordant signs favour metric 0
    worse = stats.binom.sf(2, 12, 0.5)  # at least 3 favour metric 1
    se = 4 * np.sqrt(0.25 / 40000)
    assert abs(p[0, 1] - better) < se and abs(p[1, 0] - worse) < se
    assert p[0, 2] == p[2, 0] == 1.0  # identical outcomes: never evidence
    assert np.isnan(np.diag(p)).all()


def test_gold_signs_from_conclusions():
    conclusions = pd.DataFrame(
        {"sys_x": ["a", "a", "b"], "sys_y": ["b", "c", "c"], "conclusion": ["sys_x", "tie", "sys_y"]}
    )
    assert study.gold_signs(conclusions, ["a", "b", "c"]).tolist() == [1, 0, -1]
    assert study.gold_signs(conclusions, ["c", "b", "a"]).tolist() == [1, 0, -1]  # c > b, c ~ a, a > b
    with pytest.raises(InputError, match="no conclusion for a vs c"):
        study.gold_signs(conclusions.iloc[[0, 2]], ["a", "b", "c"])


def _planted(
    n_systems: int = 12, n_segments: int = 200
) -> tuple[study.ExperimentMetrics, dict, pd.DataFrame]:
    """A metric that tracks the humans (``close``) and one that does not (``noise``), as segment means."""
    rng = np.random.default_rng(11)
    quality = np.linspace(0.0, 3.0, n_systems)
    close = quality[:, None] + rng.normal(scale=0.3, size=(n_systems, n_segments))
    noise = rng.normal(size=(n_systems, n_segments))
    systems = [f"s{k:02d}" for k in range(n_systems)]
    segments = {"close": close, "noise": noise}
    of_counts = {m: (lambda seg: lambda c: mc.segment_mean_scores(seg[None])(c)[..., 0, :])(s)
                 for m, s in segments.items()}  # fmt: skip
    metrics = study.ExperimentMetrics(
        systems, n_segments, {m: s.mean(axis=1) for m, s in segments.items()}, of_counts, segments
    )
    human = {"z": quality, "raw": 50 + 10 * quality}
    pairs = [(x, y) for i, x in enumerate(systems) for y in systems[i + 1 :]]
    gold = pd.DataFrame(
        {
            "gold": "planted",
            "alpha": 0.05,
            "sys_x": [x for x, _ in pairs],
            "sys_y": [y for _, y in pairs],
            "conclusion": "sys_y",
        }  # fmt: skip
    )
    return metrics, human, gold


def test_planted_metric_that_tracks_the_humans_wins_everything():
    metrics, human, gold = _planted()
    out = study.experiment_meta_evaluation("planted", metrics, human, gold, bootstrap_samples=200, seed=1)
    winners = out["winners"]
    assert winners.loc[winners["winner"], "metric"].unique().tolist() == ["close"]
    williams = out["williams"].query("human == 'z' and systems == 'all' and metric_a == 'close'")
    assert williams["p_value"].iloc[0] < 1e-3
    perm = out["perm_both"].set_index(["metric_a", "metric_b"])
    assert perm.loc[("close", "noise"), "p_value"] == 0.0 and perm.loc[("noise", "close"), "p_value"] == 1.0
    accuracy = out["accuracy"].set_index("metric")["accuracy"]
    assert accuracy["close"] == pytest.approx(1.0) and accuracy["noise"] < 0.75
    tests = out["accuracy_tests"].set_index(["metric_a", "metric_b"])["p_value"]
    assert tests[("close", "noise")] < 0.01
    intervals = out["intervals"].query("kind == 'pearson'").set_index(["scheme", "metric"])
    for scheme in mc.BOOTSTRAP_SCHEMES:
        row = intervals.loc[(scheme, "close")]
        assert row["low"] <= row["r"] <= row["high"] and row["low"] > 0.95
    assert set(out["correlations"]["systems"]) == {"all", "no_outliers"}


def test_same_seed_same_tables_and_one_metric_refused():
    metrics, human, gold = _planted(n_systems=6, n_segments=40)
    first = study.experiment_meta_evaluation("p", metrics, human, gold, bootstrap_samples=50, seed=4)
    again = study.experiment_meta_evaluation("p", metrics, human, gold, bootstrap_samples=50, seed=4)
    for key, frame in first.items():
        pd.testing.assert_frame_equal(frame, again[key])
    alone = study.ExperimentMetrics(
        metrics.systems, 40, {"close": metrics.corpus["close"]}, {}, {"close": metrics.segments["close"]}
    )
    with pytest.raises(InputError, match="at least two metrics"):
        study.experiment_meta_evaluation("p", alone, human, gold, seed=4)
