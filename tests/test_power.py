"""Power and sample size (mtsig.studies.power), by simulation with known truth.

The oracle is a synthetic mean-type metric (segment score and a count of 1; the corpus score is the mean) with
Gaussian segment scores, where the power of each test has a closed form under the normal approximation. For a
finite population of per-segment differences D_1..D_N (mean Dbar, mean square m2, variance v), a trial draws n
segments without replacement and flips each difference's sign with probability 1 - q, so the planted statistic
d' = mean(s_j D_j) has mean mu = (2q - 1) Dbar and variance (m2 - mu^2)/n - (n-1)/n (2q-1)^2 v/(N-1). The
one-sided paired bootstrap rejects when d' >= z_{1-alpha} sqrt((m2 - mu^2)/n) (its bootstrap standard error); the
two-sided approximate randomization when |d'| >= z_{1-alpha/2} sqrt(m2/n) (the sign-flip standard error).
"""

from __future__ import annotations

import contextlib
import io
import re
from contextlib import nullcontext

import numpy as np
import pandas as pd
import pytest
from scipy import optimize
from scipy import stats as scipy_stats

from mtsig.cli import main
from mtsig.errors import InputError
from mtsig.studies import power
from mtsig.studies.power import (
    DetectableDifference,
    PowerSimulation,
    minimum_detectable_difference,
    planted_pairs,
    power_curve,
    segments_needed,
    subsample_indices,
)

N_POPULATION = 4000
ALPHA = 0.05
TRIALS = 400
#: B of each simulated test (the cost is linear in B): with the same seeds the module's power tables at B = 400
#: differ from B = 1000's by at most 0.01, below the Monte Carlo sd of TRIALS trials (up to 0.025).
SAMPLES = 400
SIZES = (100, 400, 1600)
Q_GRID = (0.5, 0.75, 1.0)
ONE_SIDED = "paired_bootstrap"
TWO_SIDED = "approximate_randomization_two_sided"
# The module's fixture simulates both tests' power curves: its tests go to one worker, which simulates them once.
pytestmark = pytest.mark.xdist_group("power")


def mean_score(totals: np.ndarray) -> np.ndarray:
    return totals[..., 0] / totals[..., 1]


@pytest.fixture(scope="module")
def population() -> tuple[np.ndarray, np.ndarray]:
    """Two systems on 4000 segments: a shared segment difficulty, X better by 0.1 on average, noise sd 0.7 each
    (so the per-segment difference has sd about 1)."""
    rng = np.random.default_rng(7)
    difficulty = rng.normal(0.0, 1.0, N_POPULATION)
    x = difficulty + 0.1 + rng.normal(0.0, 0.7, N_POPULATION)
    y = difficulty + rng.normal(0.0, 0.7, N_POPULATION)
    ones = np.ones(N_POPULATION)
    return np.stack([x, ones], axis=1), np.stack([y, ones], axis=1)


def moments(population: tuple[np.ndarray, np.ndarray]) -> tuple[float, float, float]:
    differences = population[0][:, 0] - population[1][:, 0]
    return float(differences.mean()), float(np.mean(differences**2)), float(differences.var())


def closed_form_power(population, n: float, planted: float, test: str) -> float:
    """Normal-approximation power at a planted mean difference ``planted`` (module docstring)."""
    mean, second_moment, variance = moments(population)
    factor = planted / mean  # 2q - 1
    sd = np.sqrt((second_moment - planted**2) / n - (n - 1) / n * factor**2 * variance / (N_POPULATION - 1))
    if test == ONE_SIDED:
        threshold = scipy_stats.norm.ppf(1 - ALPHA) * np.sqrt((second_moment - planted**2) / n)
        return float(scipy_stats.norm.cdf((planted - threshold) / sd))
    threshold = scipy_stats.norm.ppf(1 - ALPHA / 2) * np.sqrt(second_moment / n)
    return float(
        scipy_stats.norm.cdf((planted - threshold) / sd) + scipy_stats.norm.cdf((-planted - threshold) / sd)
    )


@pytest.fixture(scope="module")
def tables(population) -> dict[str, pd.DataFrame]:
    stats_x, stats_y = population
    return {
        test: power_curve(
            stats_x,
            stats_y,
            mean_score,
            True,
            simulation=PowerSimulation(
                test=test,
                alpha=ALPHA,
                n_segments_grid=SIZES,
                trials=TRIALS,
                n_samples=SAMPLES,
                seed=1,
                metric="mean",
            ),
            q_grid=Q_GRID,
        )
        for test in (ONE_SIDED, TWO_SIDED)
    }


@pytest.mark.parametrize("test", [ONE_SIDED, TWO_SIDED])
def test_simulated_power_matches_the_normal_approximation(population, tables, test):
    mean, _, _ = moments(population)
    table = tables[test]
    for row in table.itertuples():
        expected = closed_form_power(population, row.n_segments, (2 * row.q - 1) * mean, test)
        monte_carlo_sd = np.sqrt(expected * (1 - expected) / TRIALS)
        # 3.5 Monte Carlo standard deviations plus 0.02 for the normal approximation at n = 100.
        assert abs(row.power - expected) <= 3.5 * monte_carlo_sd + 0.02, (row.n_segments, row.q, expected)


@pytest.mark.parametrize("test", [ONE_SIDED, TWO_SIDED])
def test_power_without_a_difference_is_the_size_of_the_test(tables, test):
    null = tables[test][tables[test]["q"] == 0.5]
    assert len(null) == len(SIZES)
    for row in null.itertuples():
        assert row.ci_low <= ALPHA <= row.ci_high, row


@pytest.mark.parametrize("test", [ONE_SIDED, TWO_SIDED])
def test_power_increases_with_the_number_of_segments(tables, test):
    for q in (0.75, 1.0):
        power = tables[test][tables[test]["q"] == q].sort_values("n_segments")["power"].to_numpy()
        assert np.all(np.diff(power) > 0), (q, power)


def test_planted_difference_is_linear_in_q_for_a_mean_metric(population, tables):
    mean, second_moment, _ = moments(population)
    table = tables[ONE_SIDED]
    assert np.allclose(table["expected_difference"], (2 * table["q"] - 1) * mean, rtol=0, atol=1e-12)
    for row in table.itertuples():
        # The mean of TRIALS planted statistics, each with standard deviation at most sqrt(m2 / n).
        tolerance = 4 * np.sqrt(second_moment / row.n_segments / TRIALS)
        assert abs(row.planted_difference - row.expected_difference) <= tolerance, row


def test_minimum_detectable_difference_matches_the_closed_form(population):
    stats_x, stats_y = population
    n = 1600
    table = power_curve(
        stats_x,
        stats_y,
        mean_score,
        True,
        simulation=PowerSimulation(
            test=ONE_SIDED,
            alpha=ALPHA,
            n_segments_grid=(n,),
            trials=TRIALS,
            n_samples=SAMPLES,
            seed=2,
            metric="mean",
        ),
        q_grid=(0.5, 0.8, 0.85, 0.9, 0.95, 1.0),
    )
    found = minimum_detectable_difference(table, power=0.8)
    mean, _, _ = moments(population)
    truth = optimize.brentq(lambda d: closed_form_power(population, n, d, ONE_SIDED) - 0.8, 1e-4, mean)
    assert found.reached and found.n_segments == n
    assert abs(found.difference - truth) <= 0.1 * truth, (found, truth)
    assert 0.5 < found.q < 1.0


def test_segments_needed_matches_the_closed_form(population):
    stats_x, stats_y = population
    difference = 0.07
    table = power_curve(
        stats_x,
        stats_y,
        mean_score,
        True,
        simulation=PowerSimulation(
            test=ONE_SIDED,
            alpha=ALPHA,
            n_segments_grid=(800, 1200, 1600),
            trials=300,
            n_samples=SAMPLES,
            seed=3,
            metric="mean",
        ),
        q_grid=(0.85, 0.9, 0.95, 1.0),
    )
    found = segments_needed(table, difference, power=0.8)
    truth = optimize.brentq(lambda n: closed_form_power(population, n, difference, ONE_SIDED) - 0.8, 50, 3900)
    assert found.reached
    assert abs(found.n_segments - truth) <= 0.12 * truth, (found.n_segments, truth, found.powers)


def test_interpolation_by_hand():
    table = pd.DataFrame(
        {
            "n_segments": [500] * 3 + [1000] * 3,
            "q": [0.5, 0.7, 0.9] * 2,
            "planted_difference": [0.0, 1.0, 2.0, 0.0, 1.0, 2.0],
            "power": [0.05, 0.6, 0.9, 0.05, 0.85, 0.99],
        }
    )
    at_500 = minimum_detectable_difference(table, n_segments=500)
    # Between q = 0.7 (power 0.6) and 0.9 (power 0.9): weight (0.8 - 0.6) / 0.3 = 2/3.
    assert at_500 == DetectableDifference(
        500, 0.8, pytest.approx(0.7 + 0.2 * 2 / 3), pytest.approx(1 + 2 / 3), True, at_500.note
    )
    # Largest size by default; power 0.85 at difference 1 reached between q = 0.5 and 0.7.
    at_1000 = minimum_detectable_difference(table)
    assert at_1000.n_segments == 1000
    assert at_1000.difference == pytest.approx(0.75 / 0.8)
    not_reached = minimum_detectable_difference(table, n_segments=500, power=0.95)
    assert not not_reached.reached and np.isnan(not_reached.difference)
    # Difference 1.5: power 0.75 at 500 and 0.92 at 1000 segments -> 500 + (0.8 - 0.75) / 0.17 * 500.
    needed = segments_needed(table, 1.5)
    assert needed.powers["power"].tolist() == pytest.approx([0.75, 0.92])
    assert needed.n_segments == pytest.approx(500 + 0.05 / 0.17 * 500)
    assert not segments_needed(table, 1.5, power=0.95).reached
    assert segments_needed(table, 0.5, power=0.3).n_segments == 500  # reached at the smallest size already
    assert np.isnan(segments_needed(table, 2.5).n_segments)  # larger than any planted difference


def test_subsets_are_distinct_sorted_and_uniform():
    subsets = subsample_indices(50, 10, 4000, np.random.default_rng(0))
    assert subsets.shape == (4000, 10)
    assert np.all(np.diff(subsets, axis=1) > 0)  # sorted and without repeats
    inclusion = np.bincount(subsets.ravel(), minlength=50) / 4000
    # Each segment is in a subset with probability 10 / 50; binomial sd sqrt(0.2 * 0.8 / 4000) ~ 0.0063.
    assert np.all(np.abs(inclusion - 0.2) < 0.03)


def test_planted_pairs_by_hand():
    stats_x = np.array([[1.0], [2.0], [3.0]])
    stats_y = np.array([[10.0], [20.0], [30.0]])
    subsets = np.array([[0, 2], [1, 2]])
    keep = np.array([[True, False], [False, True]])
    pseudo = planted_pairs(stats_x, stats_y, subsets, keep)
    assert pseudo[:, :, 0].tolist() == [[1, 30], [10, 3], [20, 3], [2, 30]]


def test_power_table_is_deterministic_and_independent_of_the_split_into_engine_calls(population, monkeypatch):
    stats_x, stats_y = population
    simulation = PowerSimulation(test=ONE_SIDED, n_segments_grid=(200,), trials=40, n_samples=300, seed=9)
    common = dict(q_grid=(0.5, 0.8), simulation=simulation)
    first = power_curve(stats_x, stats_y, mean_score, True, **common)
    again = power_curve(stats_x, stats_y, mean_score, True, **common)
    monkeypatch.setattr(power, "_trials_per_call", lambda memory_cap_bytes, values_per_system: 7)
    split = power_curve(stats_x, stats_y, mean_score, True, **common)  # six engine calls instead of one
    assert first.to_csv() == again.to_csv() == split.to_csv()


def test_bad_requests_are_input_errors(population):
    stats_x, stats_y = population
    with pytest.raises(InputError, match="X must be the better"):
        power_curve(
            stats_y,
            stats_x,
            mean_score,
            True,
            simulation=PowerSimulation(trials=2, n_samples=10, n_segments_grid=(10,)),
        )
    with pytest.raises(InputError, match="i.i.d. segments"):
        power_curve(
            stats_x, stats_y, mean_score, True, simulation=PowerSimulation(test="paired_bootstrap_documents")
        )
    with pytest.raises(InputError, match="q must be in"):
        power_curve(stats_x, stats_y, mean_score, True, q_grid=(0.3,))
    with pytest.raises(InputError, match="between 1 and"):
        power_curve(
            stats_x,
            stats_y,
            mean_score,
            True,
            simulation=PowerSimulation(n_segments_grid=(N_POPULATION + 1,)),
        )


def write_lines(path, lines):
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture
def texts(tmp_path):
    rng = np.random.default_rng(5)
    words = [f"w{i}" for i in range(30)]
    ref = [" ".join(rng.choice(words, 8)) for _ in range(120)]
    good = [" ".join(w if rng.random() < 0.8 else "x" for w in line.split()) for line in ref]
    bad = [" ".join(w if rng.random() < 0.6 else "x" for w in line.split()) for line in ref]
    return (
        write_lines(tmp_path / "ref.txt", ref),
        write_lines(tmp_path / "good.txt", good),
        write_lines(tmp_path / "bad.txt", bad),
    )


def test_power_command(texts, tmp_path, capsys):
    ref, good, bad = texts
    figure = tmp_path / "power.png"
    arguments = ["power", "--ref", str(ref), "--trials", "20", "--samples", "100", "--sizes", "30,60,120"]
    arguments += ["--difference", "5", "--plot", str(figure), str(bad), str(good)]
    assert main(arguments) == 0
    out = capsys.readouterr().out
    assert "X = good.txt" in out  # the better system is X whatever the order given
    assert "minimum detectable difference at 120 segments" in out
    assert "segments needed for a difference of 5" in out
    assert figure.read_bytes().startswith(b"\x89PNG")
    assert main([*arguments[:-2], "--tsv", "--differences", "0,2,5,20", str(bad), str(good)]) == 0
    table = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out), sep="\t")
    assert sorted(table["n_segments"].unique()) == [30, 60, 120]
    assert sorted(table["difference"].unique()) == [0, 2, 5, 20] and len(table) == 3 * 4


def test_power_command_reports_bad_input(texts, tmp_path, capsys):
    ref, good, _ = texts
    assert main(["power", "--ref", str(ref), str(good), str(tmp_path / "missing.txt")]) == 2
    assert "mtsig: error:" in capsys.readouterr().err
    assert main(["power", "--ref", str(ref), "--sizes", "500", str(good), str(texts[2])]) == 2
    assert "between 1 and the 120 segments" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--alpha", "1.5"], "argument --alpha: must lie strictly between 0 and 1, got 1.5"),
        (["--power", "1.2"], "argument --power: must lie strictly between 0 and 1, got 1.2"),
        (["--trials", "0"], "argument --trials: must be a positive integer, got 0"),
        (["--samples", "-5"], "argument --samples: must be a positive integer, got -5"),
        (["--difference", "-1"], "argument --difference: must be a positive number, got -1"),
        (["--differences", "0,-1"], "planted differences must be finite and >= 0"),
        (
            ["--test", "paired_bootstrap_documents"],
            "argument --test: unknown test 'paired_bootstrap_documents'",
        ),
    ],
)
def test_every_bad_power_option_is_one_line(texts, capsys, option, message):
    ref, good, bad = texts
    with pytest.raises(SystemExit) if option[0] not in ("--differences",) else nullcontext():
        status = main(
            ["power", "--ref", str(ref), "--trials", "2", "--sizes", "30", *option, str(good), str(bad)]
        )
        assert status == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and message in err, err


def test_experiment_power_takes_the_two_best_systems_and_finds_the_closed_form_difference(population):
    """The pipeline's table: of three systems (Y, X and one far worse), X and Y are the two best; the minimum
    detectable difference of each size is the normal approximation's at the full size (as above)."""
    from mtsig.studies.power import experiment_power

    stats_x, stats_y = population
    worse = stats_y.copy()
    worse[:, 0] -= 1.0
    n = 1600
    table = experiment_power(
        np.stack([stats_y, stats_x, worse]),
        ["Y", "X", "worse"],
        mean_score,
        True,
        target_power=0.8,
        simulation=PowerSimulation(
            test=ONE_SIDED,
            alpha=ALPHA,
            n_segments_grid=(400, n),
            trials=TRIALS,
            n_samples=SAMPLES,
            seed=2,
            metric="mean",
        ),
        q_grid=(0.5, 0.8, 0.85, 0.9, 0.95, 1.0),
    )
    assert set(table["sys_x"]) == {"X"} and set(table["sys_y"]) == {"Y"}
    mean, _, _ = moments(population)
    truth = optimize.brentq(lambda d: closed_form_power(population, n, d, ONE_SIDED) - 0.8, 1e-4, mean)
    at_full = table[table["n_segments"] == n]["minimum_detectable_difference"]
    assert at_full.nunique() == 1 and abs(at_full.iloc[0] - truth) <= 0.1 * truth
    # With a quarter of the segments the detectable difference is larger (about twice) or not reached.
    at_quarter = table[table["n_segments"] == 400]["minimum_detectable_difference"].iloc[0]
    assert np.isnan(at_quarter) or at_quarter > 1.5 * at_full.iloc[0]


def test_console_script_prints_the_power_table(data_root, tmp_path):
    """A `mtsig power` command through the console script, on a small grid (docs/cli.md's, 6 sizes x 5 differences x
    200 trials x 1000 resamples, runs in full in the slow suite: tests/test_readme_commands.py, COSTLY_FIRST):
    the two WMT12 es-en systems' BLEU as sacrebleu scores the unescaped files, and a power cell with its interval
    at each size and planted difference."""
    import html
    import re
    import subprocess

    import sacrebleu

    outputs = data_root / "wmt12" / "system-outputs" / "es-en"
    ref = data_root / "wmt12" / "plain" / "newstest2012-ref.en"
    systems = [outputs / f"newstest2012.es-en.{name}" for name in ("QCRI--primary", "UPC")]
    figure = tmp_path / "power.png"
    done = subprocess.run(
        ["mtsig", "power", "--ref", str(ref), "--unescape-html", "--metric", "bleu", "--sizes", "250,500",
         "--differences", "0,1", "--trials", "20", "--samples", "100", "--difference", "0.5", "--plot", str(figure),
         "--quiet", *map(str, systems)],
        capture_output=True, text=True, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    unescaped = [
        [html.unescape(line) for line in p.read_text(encoding="utf-8").splitlines()] for p in (ref, *systems)
    ]
    scores = [sacrebleu.corpus_bleu(hyp, [unescaped[0]]).score for hyp in unescaped[1:]]
    shown = re.search(
        r"X = \S+QCRI--primary \(([\d.]+)\), Y = \S+UPC \(([\d.]+)\), 3003 segments", done.stdout
    )
    assert shown, done.stdout
    assert [float(shown.group(1)), float(shown.group(2))] == pytest.approx(scores, abs=5e-5)
    for size in (250, 500):
        cells = re.search(rf"^\s+{size}\s+([\d.]+) \[[\d.]+,[\d.]+\]\s+([\d.]+) \[", done.stdout, flags=re.M)
        assert cells and all(0 <= float(v) <= 1 for v in cells.groups()), done.stdout
    assert figure.read_bytes().startswith(b"\x89PNG")


# --------------------------------------------------------------------------------------------------------------
# Planted shifts of any size (mtsig.studies.power_shift): null pairs by random swaps, X' made better by d. A trial's
# statistic is mean(s_j D_j) + d with independent fair signs s_j, whose variance is m2 / n whatever the subset (no
# finite-population correction); the one-sided paired bootstrap's standard error is sd(s D + d) / sqrt(n), about
# sqrt(m2 / n), and the two-sided randomization's sign-flip one sqrt((m2 + d^2) / n).


def shift_closed_form(population, n: float, planted: float, test: str) -> float:
    """Normal-approximation power of a planted shift (the block comment above)."""
    _, second_moment, _ = moments(population)
    sd = np.sqrt(second_moment / n)
    if test == ONE_SIDED:
        return float(scipy_stats.norm.cdf(planted / sd - scipy_stats.norm.ppf(1 - ALPHA)))
    threshold = scipy_stats.norm.ppf(1 - ALPHA / 2) * np.sqrt((second_moment + planted**2) / n)
    return float(
        scipy_stats.norm.cdf((planted - threshold) / sd) + scipy_stats.norm.cdf((-planted - threshold) / sd)
    )


def shift_detectable(population, n: float) -> float:
    _, second_moment, _ = moments(population)
    return float((scipy_stats.norm.ppf(1 - ALPHA) + scipy_stats.norm.ppf(0.8)) * np.sqrt(second_moment / n))


@pytest.fixture(scope="module")
def shift_tables(population) -> dict[str, pd.DataFrame]:
    from mtsig.studies.power_shift import shift_power_curve

    stats_x, stats_y = population
    return {
        test: shift_power_curve(
            stats_x,
            stats_y,
            mean_score,
            True,
            differences=(0.1, 0.2),
            simulation=PowerSimulation(
                test=test,
                alpha=ALPHA,
                n_segments_grid=(100, 400),
                trials=TRIALS,
                n_samples=SAMPLES,
                seed=4,
                metric="mean",
            ),
        )  # fmt: skip
        for test in (ONE_SIDED, TWO_SIDED)
    }


@pytest.mark.parametrize("test", [ONE_SIDED, TWO_SIDED])
def test_a_planted_shift_has_the_power_of_the_normal_approximation(population, shift_tables, test):
    """Any difference can be planted: 0.2 is twice the real pair's 0.1. Each cell's power is the closed form's
    within Monte Carlo error, d = 0 is the test's size, and the measured difference is d."""
    mean, second_moment, _ = moments(population)
    assert abs(mean - 0.1) < 0.05  # the real pair's difference is about half the largest planted
    for row in shift_tables[test].itertuples():
        expected = shift_closed_form(population, row.n_segments, row.difference, test)
        monte_carlo_sd = np.sqrt(max(expected * (1 - expected), 0.01) / TRIALS)
        assert abs(row.power - expected) <= 3.5 * monte_carlo_sd + 0.02, (
            row.n_segments,
            row.difference,
            expected,
        )
        # The mean of TRIALS statistics with sd sqrt(m2 / n) each; their sd is sqrt(m2 / n) itself.
        assert abs(row.planted_difference - row.difference) <= 4 * np.sqrt(
            second_moment / row.n_segments / TRIALS
        )
        assert abs(row.sd_difference / np.sqrt(second_moment / row.n_segments) - 1) < 0.15


def test_the_minimum_detectable_shift_matches_the_closed_form_inside_and_past_the_grid(
    population, shift_tables
):
    """At 400 segments the closed form's 0.124 lies between the planted 0.1 and 0.2 (interpolated); at 100
    segments it is 0.25, past the largest planted: the normal approximation from the simulated spread."""
    from mtsig.studies.power_shift import detectable_shift

    table = shift_tables[ONE_SIDED]
    inside = detectable_shift(table, n_segments=400, power=0.8)
    assert not inside.extrapolated and "interpolated between d = 0.1" in inside.note
    assert abs(inside.value - shift_detectable(population, 400)) <= 0.1 * shift_detectable(population, 400)
    past = detectable_shift(table, n_segments=100, power=0.8)
    assert past.extrapolated and "normal approximation" in past.note
    assert abs(past.value - shift_detectable(population, 100)) <= 0.1 * shift_detectable(population, 100)


def test_segments_for_a_shift_are_extrapolated_where_the_variance_shrinks_as_one_over_n(
    population, shift_tables
):
    """d = 0.07 needs about 1,270 segments by the closed form, beyond the 400 simulated: extrapolated by the
    spread simulated at each size (which shrinks as 1/n: checked), within 15%."""
    from mtsig.studies.power_shift import noise_scale, segments_for_shift

    _, second_moment, _ = moments(population)
    _, follows, _ = noise_scale(shift_tables[ONE_SIDED])
    assert follows
    found = segments_for_shift(shift_tables[ONE_SIDED], 0.07, power=0.8)
    z = scipy_stats.norm.ppf(1 - ALPHA) + scipy_stats.norm.ppf(0.8)
    truth = (z / 0.07) ** 2 * second_moment
    assert (
        found.reached and found.extrapolated and found.note.startswith("more than 400: normal approximation")
    )
    assert abs(found.value - truth) <= 0.15 * truth, (found, truth)
    inside = segments_for_shift(shift_tables[ONE_SIDED], 0.2, power=0.8)  # about 155: between 100 and 400
    assert not inside.extrapolated and 100 < inside.value < 400


def test_without_a_steady_variance_there_is_no_extrapolation_and_the_note_says_what_to_change():
    """By hand: sqrt(n) x sd is 1.0 at 100 segments and 2.0 at 400 (not 1/n): the answer is not extrapolated."""
    from mtsig.studies.power_shift import segments_for_shift

    table = pd.DataFrame(
        {
            "test": ONE_SIDED,
            "alpha": ALPHA,
            "n_segments": [100, 100, 400, 400],
            "difference": [0.0, 0.5, 0.0, 0.5],
            "sd_difference": [0.1, 0.1, 0.1, 0.1],
            "power": [0.05, 0.2, 0.05, 0.4],
            "trials": 100,
        }
    )
    found = segments_for_shift(table, 0.5, power=0.8)
    assert not found.reached and not found.extrapolated
    assert found.note.startswith(
        "more than 400: no extrapolation, as sqrt(n) x sd of the difference varies by 100%"
    )
    assert "--trials" in found.note and "--sizes" in found.note


def test_how_many_segments_one_bleu_point_needs_is_answered(data_root):
    """``mtsig power --ref newstest2012-ref.en --metric bleu --difference 1 UPC onlineA`` (a small grid): UPC and
    onlineA differ by 0.65 BLEU (sacrebleu), and a 1-point difference is planted anyway; the command answers with
    a number of segments and the minimum detectable difference at the whole test set."""
    import html

    import sacrebleu

    outputs = data_root / "wmt12" / "system-outputs" / "es-en"
    ref = data_root / "wmt12" / "plain" / "newstest2012-ref.en"
    systems = [outputs / f"newstest2012.es-en.{name}" for name in ("UPC", "onlineA")]
    texts = [[html.unescape(html.unescape(x)) for x in p.read_text().splitlines()] for p in (ref, *systems)]
    real = (
        sacrebleu.corpus_bleu(texts[1], [texts[0]]).score - sacrebleu.corpus_bleu(texts[2], [texts[0]]).score
    )
    assert 0 < real < 1
    args = [
        "power",
        "--ref",
        str(ref),
        "--unescape-html",
        "--metric",
        "bleu",
        "--difference",
        "1",
        "--trials",
        "30",
    ]
    args += ["--samples", "100", "--sizes", "500,1500,3003", "--labels", "UPC,onlineA", *map(str, systems)]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(args) == 0
    text = out.getvalue()
    assert re.search(r"X = UPC \([\d.]+\), Y = onlineA", text)
    assert re.search(r"^segments\s.*\sd=1\s", text, flags=re.M)
    needed = re.search(r"^segments needed for a difference of 1 \(power 0\.8\): (\d+) \(", text, flags=re.M)
    assert needed and 100 < int(needed.group(1)) < 3003, text
    assert re.search(
        r"^minimum detectable difference at 3003 segments \(power 0\.8\): [\d.]+ \(", text, flags=re.M
    )


def test_power_takes_any_metrics_segment_scores(population, tmp_path):
    """``--scores``: the Gaussian population as a tidy file (its first 1,600 segments); the minimum detectable
    difference at 1,600 segments is the closed form's within 15%."""
    stats_x, stats_y = population
    path = tmp_path / "scores.tsv"
    rows = ["system\tsegment\tscore"]
    rows += [
        f"{name}\t{i}\t{v!r}"
        for name, s in (("x", stats_x), ("y", stats_y))
        for i, v in enumerate(s[:1600, 0].tolist())
    ]
    path.write_text("\n".join(rows) + "\n")
    args = ["power", "--scores", str(path), "--differences", "0,0.04,0.08", "--sizes", "400,1600"]
    args += ["--trials", "200", "--samples", "200", "--tsv", "y", "x"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(args) == 0
    table = pd.read_csv(io.StringIO(out.getvalue()), sep="\t")
    from mtsig.studies.power_shift import detectable_shift

    differences = stats_x[:1600, 0] - stats_y[:1600, 0]
    z = scipy_stats.norm.ppf(1 - ALPHA) + scipy_stats.norm.ppf(0.8)
    truth = z * np.sqrt(np.mean(differences**2) / 1600)
    found = detectable_shift(table, n_segments=1600, power=0.8).value
    assert abs(found - truth) <= 0.15 * truth, (found, truth)
