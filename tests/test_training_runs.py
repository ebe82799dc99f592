"""Several training runs per system (mtsig.stats.training_runs).

Oracles: MultEval 0.5.1 (Clark et al. 2011's tool; numbers recorded below from a local run), hand calculation,
exact enumeration of the stratified permutation distribution, closed forms of bootstrap variances for a mean-type
metric, and simulation with known truth (two systems whose runs differ only by optimizer noise).
"""

from __future__ import annotations

import json
from itertools import combinations, product

import numpy as np
import pandas as pd
import pytest

from mtsig.cli import main
from mtsig.errors import InputError
from mtsig.io.text import read_lines
from mtsig.metrics import get_metric
from mtsig.stats.intervals import clopper_pearson
from mtsig.stats.resampling import ResamplingOptions, pairwise_tests
from mtsig.stats.training_runs import (
    bootstrap_run_scores,
    compare_training_runs,
    is_run_group,
    parse_run_groups,
    stratified_randomization,
)

ALPHA = 0.05


def mean_score(totals: np.ndarray) -> np.ndarray:
    return totals[..., 0] / totals[..., 1]


def mean_metric_stats(scores: np.ndarray) -> np.ndarray:
    """Statistics ``[..., N, 2]`` of a mean-type metric: each segment's score and a count of 1."""
    scores = np.asarray(scores, dtype=float)
    return np.stack([scores, np.ones_like(scores)], axis=-1)


# ------------------------------------------------------------------------------------------------ command line


def test_run_groups_are_parsed_in_order(tmp_path):
    plain = tmp_path / "base.txt"
    plain.write_text("a\n")
    odd = tmp_path / "x=y.txt"  # an existing file whose name contains '=' is one system, not a group
    odd.write_text("a\n")
    groups = parse_run_groups(["sysA=r1.txt, r2.txt,r3.txt", str(plain), str(odd), "sysB=s1.txt"])
    assert list(groups) == ["sysA", "base.txt", "x=y.txt", "sysB"]
    assert [p.name for p in groups["sysA"]] == ["r1.txt", "r2.txt", "r3.txt"]
    assert groups["base.txt"] == [plain]
    assert is_run_group("a=b.txt") and not is_run_group(str(odd)) and not is_run_group("b.txt")


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        (["=r1.txt,r2.txt"], "no name"),
        (["a=r1.txt,,r2.txt"], "empty file name"),
        (["a="], "empty file name"),
        (["a=r1.txt", "a=r2.txt"], "given twice"),
        (["a=r1.txt,r2.txt", "b=r3.txt,r1.txt"], "file given twice"),
    ],
)
def test_bad_run_groups_are_input_errors(arguments, problem):
    with pytest.raises(InputError, match=problem):
        parse_run_groups(arguments)


# ------------------------------------------------------------------------------------------- hand calculation


def test_run_means_and_standard_deviations_by_hand():
    # System A: runs with mean scores 10 and 14 (s_dev = sqrt(8) = 2.8284...); B: 11, 12, 13 (s_dev = 1).
    base = np.array([1.0, -1.0, 2.0, -2.0])
    a = mean_metric_stats(np.stack([10 + base, 14 + base]))
    b = mean_metric_stats(np.stack([11 + base, 12 + base, 13 + base]))
    result = compare_training_runs({"A": a, "B": b}, mean_score, n_samples=200, seed=1)
    systems = result.systems.set_index("system")
    assert systems.loc["A", "score"] == pytest.approx(12.0)
    assert systems.loc["A", "s_dev"] == pytest.approx(np.sqrt(8.0))
    assert systems.loc["B", "s_dev"] == pytest.approx(1.0)
    assert systems.loc["B", "run_scores"] == "11.000000,12.000000,13.000000"
    pair = result.pairs.iloc[0]
    assert pair["statistic"] == pytest.approx(0.0)
    # Pooled: A sums 2 runs x 4 segments, mean 12; B 3 runs, mean 12.
    assert pair["pooled_statistic"] == pytest.approx(0.0)
    # Every run shares the same segment deviations, so a run's deviation from the run mean is the same on every
    # pseudo-test-set: no test-set noise in s_dev, and the optimizer variance is s_dev^2 itself.
    assert systems.loc["A", "s_opt"] == pytest.approx(np.sqrt(8.0))
    assert pair["se_optimizer"] == pytest.approx(np.sqrt(8.0 / 2 + 1.0 / 3))
    assert pair["p_value"] == pytest.approx(1.0)


def test_stratified_randomization_matches_exact_enumeration():
    """3 segments, 2 runs per system: each segment's 4 outputs split 2/2 in C(4,2) = 6 ways, so 6^3 = 216 equally
    likely shuffles; the exact p is the share with |d_r| >= |d|, which the Monte Carlo p must approach."""
    a_scores = np.array([[3.0, 5.0, 2.0], [4.0, 6.0, 1.0]])
    b_scores = np.array([[1.0, 4.0, 2.5], [2.0, 3.0, 0.0]])
    outputs = np.concatenate([a_scores, b_scores])  # [4 outputs, 3 segments]
    actual = a_scores.mean() - b_scores.mean()
    extreme = 0
    splits = list(combinations(range(4), 2))
    for choice in product(splits, repeat=3):
        shuffled_a = np.array([outputs[list(chosen), i] for i, chosen in enumerate(choice)])  # [3, 2]
        shuffled_b = outputs.sum() - shuffled_a.sum()
        extreme += abs(shuffled_a.sum() / 6 - shuffled_b / 6) >= abs(actual) - 1e-12
    exact = extreme / len(splits) ** 3
    shuffles = 40_000
    statistic, p = stratified_randomization(
        mean_metric_stats(a_scores), mean_metric_stats(b_scores), mean_score, n_shuffles=shuffles, seed=3
    )
    assert statistic == pytest.approx(actual)
    assert 0.01 < exact < 0.5
    assert abs(p - exact) <= 4 * np.sqrt(exact * (1 - exact) / shuffles) + 1 / shuffles


def test_identical_systems_are_never_significant():
    runs = mean_metric_stats(np.random.default_rng(0).normal(0, 1, (2, 50)))
    result = compare_training_runs({"A": runs, "B": runs.copy()}, mean_score, n_samples=300, seed=2)
    pair = result.pairs.iloc[0]
    # Every shuffle of identical outputs gives |d_r| = 0 >= |d| = 0: p = 1 (MultEval counts only '>' and reports
    # 1/(R+1) here, which its users reported as identical systems called significantly different).
    assert pair["p_multeval"] == 1.0
    assert pair["p_value"] == 1.0


def test_bootstrap_variances_match_closed_forms():
    """For a mean-type metric, the bootstrap variance of a mean over N segments is the population variance / N:
    v_test of the run-averaged difference and the within-run noise w (module docstring) have closed forms."""
    rng = np.random.default_rng(4)
    n, runs = 400, 3
    a = rng.normal(10, 3, (runs, n)) + rng.normal(0, 1, n)
    b = rng.normal(9.5, 3, (runs, n)) + rng.normal(0, 1, n)
    boot = bootstrap_run_scores(
        {"A": mean_metric_stats(a), "B": mean_metric_stats(b)}, mean_score, n_samples=6000, seed=5
    )
    v_test = np.var(boot["A"].mean(axis=0) - boot["B"].mean(axis=0), ddof=1)
    closed_v_test = np.var(a.mean(axis=0) - b.mean(axis=0)) / n
    within = runs / (runs - 1) * np.mean(np.var(boot["A"] - boot["A"].mean(axis=0), axis=1, ddof=1))
    closed_within = runs / (runs - 1) * np.mean(np.var(a - a.mean(axis=0), axis=1)) / n
    # A variance estimated from B draws has relative sd sqrt(2 / B) ~ 1.8%.
    assert v_test == pytest.approx(closed_v_test, rel=0.08)
    assert within == pytest.approx(closed_within, rel=0.08)
    s_sel = np.mean(np.std(boot["A"], axis=1, ddof=1))
    assert s_sel == pytest.approx(np.mean(np.std(a, axis=1) / np.sqrt(n)), rel=0.05)


def test_orientation_for_a_lower_is_better_metric():
    rng = np.random.default_rng(6)
    a, b = mean_metric_stats(rng.normal(1, 1, (3, 80))), mean_metric_stats(rng.normal(0, 1, (3, 80)))
    higher = compare_training_runs({"A": a, "B": b}, mean_score, n_samples=400, seed=7).pairs.iloc[0]
    lower = compare_training_runs({"A": a, "B": b}, mean_score, higher_is_better=False, n_samples=400, seed=7)
    row = lower.pairs.iloc[0]
    assert row["statistic"] == pytest.approx(-higher["statistic"])
    assert row["p_value"] == pytest.approx(higher["p_value"])
    assert row["p_value_one_sided"] == pytest.approx(1 - higher["p_value_one_sided"])
    assert row["score_a"] == pytest.approx(higher["score_a"])  # scores stay on the metric's scale


def test_one_run_has_no_optimizer_variance_and_no_run_aware_p_value():
    rng = np.random.default_rng(8)
    result = compare_training_runs(
        {
            "A": mean_metric_stats(rng.normal(0, 1, (1, 60))),
            "B": mean_metric_stats(rng.normal(0, 1, (2, 60))),
        },
        mean_score,
        n_samples=200,
        seed=1,
    )
    assert np.isnan(result.systems.set_index("system").loc["A", "s_dev"])
    pair = result.pairs.iloc[0]
    assert np.isnan(pair["p_value"]) and np.isfinite(pair["p_multeval"])


def test_results_are_deterministic():
    rng = np.random.default_rng(9)
    runs = {name: mean_metric_stats(rng.normal(0, 1, (3, 70))) for name in ("A", "B", "C")}
    first = compare_training_runs(runs, mean_score, n_samples=300, seed=11)
    again = compare_training_runs(runs, mean_score, n_samples=300, seed=11)
    assert first.systems.to_csv() == again.systems.to_csv()
    assert first.pairs.to_csv() == again.pairs.to_csv()
    assert list(zip(first.pairs["sys_a"], first.pairs["sys_b"], strict=True)) == [
        ("A", "B"),
        ("A", "C"),
        ("B", "C"),
    ]


# ------------------------------------------------------------------------------- simulation with known truth


#: Resamples (and MultEval's shuffles) per simulated trial: each p-value is (c + 1)/(B + 1), valid at any B, and at
#: B = 200 the rejection rates at alpha = 0.05 are what the assertions measure (the cost is linear in B).
SIMULATION_SAMPLES = 200


def simulate(rng, *, offset_sd: float, true_difference: float, trials: int, runs: int = 3, n: int = 300):
    """Two systems whose runs share the segments' difficulty; each run adds its own optimizer offset (normal,
    sd ``offset_sd``, the same distribution for both systems) and segment noise (sd 10, so one run's corpus score
    has test-set sd 10/sqrt(300) = 0.58). Returns per trial the run-aware p, MultEval's p and the p of a paired
    bootstrap (one-sided, the researcher's claim "A better") on A's best run against B's first run."""
    run_aware, multeval, single = [], [], []
    single_stats = []
    for trial in range(trials):
        difficulty = rng.normal(30, 15, n)
        a = difficulty + true_difference + rng.normal(0, offset_sd, (runs, 1)) + rng.normal(0, 10, (runs, n))
        b = difficulty + rng.normal(0, offset_sd, (runs, 1)) + rng.normal(0, 10, (runs, n))
        result = compare_training_runs(
            {"A": mean_metric_stats(a), "B": mean_metric_stats(b)},
            mean_score,
            n_samples=SIMULATION_SAMPLES,
            seed=trial,
        )
        run_aware.append(result.pairs["p_value"].iloc[0])
        multeval.append(result.pairs["p_multeval"].iloc[0])
        single_stats += [mean_metric_stats(a[np.argmax(a.mean(axis=1))]), mean_metric_stats(b[0])]
    # All single-run pairs in one engine call.
    names = [f"s{i}" for i in range(2 * trials)]
    table = pairwise_tests(
        np.stack(single_stats),
        mean_score,
        names,
        ResamplingOptions(
            tests=("paired_bootstrap",),
            n_samples=SIMULATION_SAMPLES,
            seed=1,
            pairs=[(2 * t, 2 * t + 1) for t in range(trials)],
        ),
    ).table.set_index(["sys_x", "sys_y"])
    single = [table.loc[(names[2 * t], names[2 * t + 1]), "p_value"] for t in range(trials)]
    return {"run_aware": np.array(run_aware), "multeval": np.array(multeval), "single_run": np.array(single)}


def rejection(p_values: np.ndarray) -> tuple[float, float, float]:
    rejections = int(np.count_nonzero(p_values <= ALPHA))
    low, high = clopper_pearson(rejections, len(p_values))
    return rejections / len(p_values), low, high


def test_a_lucky_run_is_not_called_significant():
    """Null: both systems' runs come from the same distribution of optimizer offsets (sd 1.0, about 1.7 times the
    test-set sd of a run's score). The run-aware test keeps its Type I error at or below alpha; a single-run test
    of the best run, and MultEval's randomization (which shuffles segments and so averages the runs' offsets out of
    its reference distribution), reject far more often."""
    p = simulate(np.random.default_rng(20110619), offset_sd=1.0, true_difference=0.0, trials=300)
    rate, low, high = rejection(p["run_aware"])
    assert low <= ALPHA and rate <= 0.08, (rate, low, high)
    for test in ("single_run", "multeval"):
        rate, low, high = rejection(p[test])
        assert low > ALPHA, (test, rate, low, high)
        assert rate > 0.2, (test, rate)


def test_without_optimizer_noise_every_test_holds_its_level():
    """Offsets sd 0: the outputs of both systems are exchangeable segment by segment, so MultEval's randomization
    is exact and its rejection rate is alpha; the run-aware test stays at or below alpha."""
    p = simulate(np.random.default_rng(2011), offset_sd=0.0, true_difference=0.0, trials=300)
    rate, low, high = rejection(p["multeval"])
    assert low <= ALPHA <= high, (rate, low, high)
    rate, low, high = rejection(p["run_aware"])
    assert low <= ALPHA, (rate, low, high)


def test_a_real_difference_is_found():
    """A is better by 5 points in every run (offsets sd 1.0): the run-aware test rejects in most trials."""
    p = simulate(np.random.default_rng(7), offset_sd=1.0, true_difference=5.0, trials=100)
    rate, low, _ = rejection(p["run_aware"])
    assert low > 0.7, rate


# ------------------------------------------------------------------------------------------------- MultEval


#: MultEval 0.5.1 (github.com/jhclark/multeval, built from source), run as
#:   multeval.sh eval --refs REF --hyps-baseline onlineC onlineF --hyps-sys1 onlineD onlineE
#:     --hyps-sys2 uk-dan-moses onlineE --metrics bleu --boot-samples 10000 --ar-shuffles 10000
#: on the WMT12 newstest2012 es-en outputs, REF the English reference with its three Unicode spaces (U+00A0,
#: U+2009, U+200A) replaced by an ASCII space (MultEval splits on some of them and not others; Python's split() on
#: all). AVG / STDDEV / MIN / MAX are exact (printed to 6 decimals); RESAMPLED_STDDEV_AVG (s_sel) and P_VALUE
#: (three runs of MultEval: 0.330767, 0.329367, 0.324868 and 0.0016, 0.0019, 0.0016) are Monte Carlo estimates.
MULTEVAL = {
    "baseline": {"avg": 18.739117, "stddev": 0.479091, "min": 18.400348, "max": 19.077886, "s_sel": 0.303003},
    "sys1": {"avg": 18.617554, "stddev": 0.491429, "min": 18.270061, "max": 18.965046, "s_sel": 0.303330},
    "sys2": {"avg": 18.248506, "stddev": 0.030483, "min": 18.226951, "max": 18.270061, "s_sel": 0.303401},
}
MULTEVAL_P = {"sys1": 0.328334, "sys2": 0.0017}  # means of the three runs
RUNS = {
    "baseline": ["onlineC", "onlineF"],
    "sys1": ["onlineD", "onlineE"],
    "sys2": ["uk-dan-moses", "onlineE"],
}


def test_against_multeval(data_root):
    wmt12 = data_root / "wmt12"
    reference = [
        line.replace("\u00a0", " ").replace("\u2009", " ").replace("\u200a", " ")
        for line in read_lines(wmt12 / "plain" / "newstest2012-ref.en")
    ]
    outputs = {
        name: read_lines(wmt12 / "system-outputs" / "es-en" / f"newstest2012.es-en.{name}")
        for name in ("onlineC", "onlineD", "onlineE", "onlineF", "uk-dan-moses")
    }
    bleu = get_metric("bleu", tokenize="none")  # MultEval scores tokenised text as given, split on whitespace
    stats = bleu.stats_many(outputs, reference)
    index = {name: i for i, name in enumerate(outputs)}
    runs = {system: stats[[index[name] for name in names]] for system, names in RUNS.items()}
    result = compare_training_runs(
        runs, bleu.score, n_samples=10_000, seed=1, pairs=[("baseline", "sys1"), ("baseline", "sys2")]
    )
    systems = result.systems.set_index("system")
    for system, expected in MULTEVAL.items():
        row = systems.loc[system]
        assert row["score"] == pytest.approx(expected["avg"], abs=1e-6)
        assert row["s_dev"] == pytest.approx(expected["stddev"], abs=1e-6)
        assert row["run_min"] == pytest.approx(expected["min"], abs=1e-6)
        assert row["run_max"] == pytest.approx(expected["max"], abs=1e-6)
        # B = 10,000 on each side: the standard deviation of an estimated sd is about 0.7% of it per run.
        assert row["s_sel"] == pytest.approx(expected["s_sel"], rel=0.03)
    pairs = result.pairs.set_index("sys_b")
    # Monte Carlo sd of p at R = 10,000 is 0.0047 (p = 0.33) and 0.0004 (p = 0.0017); MultEval's shuffles also
    # give its two pseudo-systems overlapping outputs (module docstring), which moves its p by about 0.01 here.
    assert pairs.loc["sys1", "p_multeval"] == pytest.approx(MULTEVAL_P["sys1"], abs=0.03)
    assert pairs.loc["sys2", "p_multeval"] == pytest.approx(MULTEVAL_P["sys2"], abs=0.002)
    # The run-aware test sees what MultEval's p hides: baseline's two runs differ by 0.68 BLEU, more than its
    # lead of 0.49 over sys2, so that lead is not significant once the optimizer variance is counted.
    assert pairs.loc["sys2", "p_multeval"] < 0.01 < 0.05 < pairs.loc["sys2", "p_value"]


# ------------------------------------------------------------------------------------------------- the CLI


def write_lines(path, lines):
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture
def run_files(tmp_path):
    rng = np.random.default_rng(12)
    words = [f"w{i}" for i in range(25)]
    ref = [" ".join(rng.choice(words, 7)) for _ in range(60)]
    files = {"ref": write_lines(tmp_path / "ref.txt", ref)}
    for system, keep in (("a", 0.8), ("b", 0.7)):
        for run in range(3):
            lines = [" ".join(w if rng.random() < keep else "x" for w in line.split()) for line in ref]
            files[f"{system}{run}"] = write_lines(tmp_path / f"{system}{run}.txt", lines)
    return files


def test_compare_with_training_runs(run_files, capsys):
    groups = ["--runs", f"sysA={run_files['a0']},{run_files['a1']},{run_files['a2']}"]
    groups += ["--runs", f"sysB={run_files['b0']},{run_files['b1']},{run_files['b2']}"]
    base = ["compare", "--ref", str(run_files["ref"]), "--metrics", "bleu,chrf", "--samples", "300"]
    assert main([*base, *groups]) == 0
    out = capsys.readouterr().out
    assert "s_dev" in out and "p_multeval" in out and "sysA" in out
    assert main([*base, "--json", *groups]) == 0
    document = json.loads(capsys.readouterr().out)
    assert [row["system"] for row in document["systems"]] == ["sysA", "sysB", "sysA", "sysB"]
    assert {row["metric"] for row in document["pairs"]} == {"bleu", "chrf"}
    assert main([*base, "--tsv", *groups]) == 0
    pairs = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out), sep="\t")
    assert list(pairs["runs_a"]) == [3, 3]


def test_compare_with_training_runs_reports_bad_input(run_files, tmp_path, capsys):
    base = ["compare", "--ref", str(run_files["ref"])]
    missing = f"sysA={run_files['a0']},{tmp_path / 'missing.txt'}"
    assert main([*base, "--runs", missing, "--runs", f"sysB={run_files['b0']}"]) == 2
    assert "mtsig: error:" in capsys.readouterr().err
    assert main([*base, "--runs", f"sysA={run_files['a0']},{run_files['a1']}"]) == 2
    assert "at least two systems" in capsys.readouterr().err
    short = write_lines(tmp_path / "short.txt", ["x"] * 59)
    assert (
        main([*base, "--runs", f"sysA={run_files['a0']},{short}", "--runs", f"sysB={run_files['b0']}"]) == 2
    )
    assert "short.txt: system 'sysA (run 2)' has 59 lines but the reference" in capsys.readouterr().err
