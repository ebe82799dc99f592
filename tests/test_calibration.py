"""Tests of mtsig.studies.calibration (Type I error and power with known truth; Section 2 in numbers) and its figures.

Oracles: the defining property of the null construction (each segment's pair of outputs is preserved), binomial
intervals around a known rejection probability (approximate randomization is exact under the null-pair
construction), normal theory for the R&M bootstrap's one-tailedness, statsmodels' Clopper-Pearson interval, and
hand counts.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats
from statsmodels.stats.proportion import proportion_confint

from mtsig.errors import InputError
from mtsig.report.calibration_plots import plot_calibration
from mtsig.report.plots import pdf_and_png, save_figure
from mtsig.studies import calibration
from mtsig.studies.calibration import (
    ALTERNATIVE,
    BLOCK_TESTS,
    NULL,
    RESULT_COLUMNS,
    SECTION2_COLUMNS,
    calibration_study,
    choose_planted_pair,
    closest_pairs,
    gold_better_pairs,
    keep_mask,
    pseudo_system_names,
    rejection_rates,
    relabelled_pairs,
    section2_table,
    trial_p_values,
)


def sum_score(totals: np.ndarray) -> np.ndarray:
    """Toy metric: one statistic per segment, corpus score = its sum (a mean up to the constant N)."""
    return totals[..., 0]


def toy_stats(n_segments: int, means: list[float], seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.stack([rng.normal(m, 1.0, n_segments) for m in means])[:, :, None]


# ---------------------------------------------------------------------------------------------- constructions


def test_relabelled_pairs_keep_each_segments_two_outputs() -> None:
    rng = np.random.default_rng(1)
    stats_x, stats_y = rng.integers(0, 9, (25, 3)).astype(float), rng.integers(0, 9, (25, 3)).astype(float)
    keep = rng.random((6, 25)) < 0.5
    stacked = relabelled_pairs(stats_x, stats_y, keep).materialise()
    assert stacked.shape == (12, 25, 3)
    for p in range(6):
        for i in range(25):
            pseudo_x, pseudo_y = stacked[2 * p, i], stacked[2 * p + 1, i]
            # The multiset {X'[i], Y'[i]} is {X[i], Y[i]}, and the kept segments are X's.
            assert sorted(map(tuple, (pseudo_x, pseudo_y))) == sorted(map(tuple, (stats_x[i], stats_y[i])))
            expected_x = stats_x[i] if keep[p, i] else stats_y[i]
            np.testing.assert_array_equal(pseudo_x, expected_x)


def test_null_mask_is_a_fair_coin_and_q_one_keeps_everything() -> None:
    mask = keep_mask(200, 50, 0.5, np.random.default_rng(2))
    n = mask.size
    low, high = scipy_stats.binom.interval(0.999, n, 0.5)
    assert low <= mask.sum() <= high
    assert keep_mask(3, 40, 1.0, np.random.default_rng(3)).all()
    assert not keep_mask(3, 40, 0.0, np.random.default_rng(3)).any()


@pytest.mark.parametrize("q", [-0.1, 1.5])
def test_keep_mask_rejects_q_outside_unit_interval(q: float) -> None:
    with pytest.raises(InputError, match="q"):
        keep_mask(2, 10, q, np.random.default_rng(0))


# ---------------------------------------------------------------------------------------------- counting


def test_trial_p_values_take_the_planted_direction() -> None:
    names = pseudo_system_names(2, "pair")
    # Both orders of both pairs; the reversed orders carry different p-values that must not be picked.
    table = pd.DataFrame(
        {
            "sys_x": ["pair0.x", "pair0.y", "pair1.x", "pair1.y"],
            "sys_y": ["pair0.y", "pair0.x", "pair1.y", "pair1.x"],
            "test": ["bootstrap"] * 4,
            "statistic": [0.5, -0.5, -1.0, 1.0],
            "p_value": [0.01, 0.99, 0.7, 0.3],
        }
    )
    picked = trial_p_values(table, names)
    assert picked["trial"].tolist() == [0, 1]
    assert picked["p_value"].tolist() == [0.01, 0.7]
    assert picked["statistic"].tolist() == [0.5, -1.0]


def test_rejection_rates_count_p_at_most_alpha_with_clopper_pearson_of_statsmodels() -> None:
    p = [0.0, 0.01, 0.02, 0.05, 0.05, 0.2, 0.5, 1.0]
    frame = pd.DataFrame(
        {"trial": range(8), "test": "approximate_randomization", "statistic": 0.0, "p_value": p}
    )
    out = rejection_rates(frame, [0.01, 0.05, 0.5], metric="m", kind=NULL, q=0.5, n_trials=8)
    # By hand: p <= 0.01 -> {0.0, 0.01}; p <= 0.05 -> also 0.02 and both 0.05s; p <= 0.5 -> also 0.2 and 0.5.
    assert out["rejections"].tolist() == [2, 5, 7]
    assert out["rate"].tolist() == [2 / 8, 5 / 8, 7 / 8]
    for _, row in out.iterrows():
        low, high = proportion_confint(row["rejections"], row["trials"], alpha=0.05, method="beta")
        assert row["ci_low"] == pytest.approx(low, abs=1e-12)
        assert row["ci_high"] == pytest.approx(high, abs=1e-12)
    edge = rejection_rates(frame.assign(p_value=1.0), [0.05], metric="m", kind=NULL, q=0.5, n_trials=8)
    assert (edge["ci_low"].iloc[0], edge["ci_high"].iloc[0]) == pytest.approx(
        proportion_confint(0, 8, alpha=0.05, method="beta"), abs=1e-12
    )


# ---------------------------------------------------------------------------------------------- known truth


def test_approximate_randomization_is_exact_under_the_null_pairs() -> None:
    # X and Y differ (means 0.4 and 0), but the per-segment coin makes X' and Y' exchangeable: under the null-pair
    # construction the AR reference distribution is the distribution of d itself, so P(reject) = alpha up to
    # Monte Carlo error in R (and (c+1)/(R+1) makes it at most alpha).
    stats = toy_stats(40, [0.4, 0.0], seed=4)
    n_pairs, alpha = 600, 0.05
    table = calibration_study(
        {"toy": (stats, sum_score, True)},
        ["x", "y"],
        "x",
        "y",
        null_pairs=n_pairs,
        q_values=(),
        alphas=(alpha,),
        tests=("approximate_randomization", "approximate_randomization_two_sided"),
        n_samples=2000,
        seed=11,
        pvalue="(c+1)/(B+1)",
    )
    assert list(table.columns) == [*RESULT_COLUMNS, "swap_unit"]
    assert set(table["kind"]) == {NULL} and (table["trials"] == n_pairs).all()
    # 99.9% binomial acceptance region; the shared swap masks add a little dependence, covered by the width.
    low, high = scipy_stats.binom.interval(0.999, n_pairs, alpha)
    for rejections in table["rejections"]:
        assert low <= rejections <= high


def test_power_grows_with_q_and_is_one_for_a_strongly_separated_pair() -> None:
    stats = toy_stats(40, [1.0, 0.0], seed=5)  # d ~ 40, null sd ~ sqrt(40 * 3): z ~ 3.6 at q = 1
    table = calibration_study(
        {"toy": (stats, sum_score, True)},
        ["x", "y"],
        "x",
        "y",
        null_pairs=100,
        q_values=(0.6, 0.75, 0.9, 1.0),
        alternatives_per_q=60,
        alphas=(0.05,),
        tests=("paired_bootstrap", "approximate_randomization", "bootstrap_two_sided"),
        n_samples=500,
        seed=12,
    )
    assert set(table["kind"]) == {NULL, ALTERNATIVE}
    for test, rows in table.groupby("test"):
        rates = rows.sort_values("q")["rate"].to_numpy()
        assert rates[-1] == 1.0, test
        assert np.all(np.diff(rates) >= -0.1), (test, rates)  # monotone up to binomial noise
        assert rates[-1] - rates[0] > 0.8, test
    # The planted difference is (2q - 1) (S(X) - S(Y)) on average: at q = 1 it is the real difference.
    real = float(sum_score(stats[0].sum(0)) - sum_score(stats[1].sum(0)))
    at_one = table.loc[table["q"] == 1.0, "mean_statistic"]
    assert np.allclose(at_one, real)


def test_study_is_deterministic_and_seed_dependent() -> None:
    stats = toy_stats(30, [0.2, 0.0, 0.1], seed=6)
    kwargs = dict(null_pairs=50, q_values=(0.8,), alternatives_per_q=20, n_samples=200, tests=("bootstrap",))
    first = calibration_study({"toy": (stats, sum_score, True)}, ["a", "b", "c"], "a", "b", seed=3, **kwargs)
    again = calibration_study({"toy": (stats, sum_score, True)}, ["a", "b", "c"], "a", "b", seed=3, **kwargs)
    other = calibration_study({"toy": (stats, sum_score, True)}, ["a", "b", "c"], "a", "b", seed=4, **kwargs)
    pd.testing.assert_frame_equal(first, again)
    assert not first["mean_statistic"].equals(other["mean_statistic"])


def test_study_runs_block_tests_with_documents() -> None:
    stats = toy_stats(30, [0.2, 0.0], seed=7)
    documents = np.repeat(np.arange(6), 5)
    table = calibration_study(
        {"toy": (stats, sum_score, True)},
        ["a", "b"],
        "a",
        "b",
        null_pairs=20,
        q_values=(),
        n_samples=100,
        seed=1,
        documents=documents,
        mean_block_length=3.0,
    )
    assert set(BLOCK_TESTS) <= set(table["test"])


def test_study_rejects_bad_input() -> None:
    stats = toy_stats(10, [0.0, 0.0], seed=8)
    entry = {"toy": (stats, sum_score, True)}
    with pytest.raises(InputError, match="unknown system"):
        calibration_study(entry, ["a", "b"], "a", "zz")
    with pytest.raises(InputError, match="two different systems"):
        calibration_study(entry, ["a", "b"], "a", "a")
    with pytest.raises(InputError, match="document"):
        calibration_study(entry, ["a", "b"], "a", "b", tests=("bootstrap_documents",))
    with pytest.raises(InputError, match="stats must be"):
        calibration_study({"toy": (stats[:, :, 0], sum_score, True)}, ["a", "b"], "a", "b")


# ---------------------------------------------------------------------------------------------- choosing X, Y


def test_choose_planted_pair_by_metric_and_by_gold() -> None:
    # Corpus sums 3, 9, 6, computed by hand from per-segment values.
    stats = np.array([[1.0, 2.0], [4.0, 5.0], [3.0, 3.0]])[:, :, None]
    systems = ["a", "b", "c"]
    assert choose_planted_pair(stats, sum_score, systems) == ("b", "a")
    assert choose_planted_pair(stats, sum_score, systems, higher_is_better=False) == ("a", "b")  # like TER
    # Gold says c > a (metric: 6 - 3 = 3) and a > b (metric disagrees): the agreeing pair wins.
    assert choose_planted_pair(stats, sum_score, systems, gold_better=[("c", "a"), ("a", "b")]) == ("c", "a")
    with pytest.raises(InputError, match="no pair"):
        choose_planted_pair(stats, sum_score, systems, gold_better=[("a", "b")])


def test_gold_better_pairs_orient_conclusions() -> None:
    gold = pd.DataFrame(
        {
            "sys_x": ["a", "a", "b", "a"],
            "sys_y": ["b", "c", "c", "b"],
            "alpha": [0.05, 0.05, 0.05, 0.01],
            "conclusion": ["sys_x", "sys_y", "tie", "tie"],
        }
    )
    assert sorted(gold_better_pairs(gold, 0.05)) == [("a", "b"), ("c", "a")]
    assert gold_better_pairs(gold, 0.01) == []


# ---------------------------------------------------------------------------------------------- Section 2


def test_closest_pairs_match_a_brute_force_loop() -> None:
    scores = np.array([3.0, 7.5, 3.4, 7.0, 1.0])
    brute = sorted(
        ((abs(scores[i] - scores[j]), i, j) for i in range(5) for j in range(i + 1, 5)), key=lambda t: t[0]
    )
    expected = [(i, j) if scores[i] >= scores[j] else (j, i) for _, i, j in brute[:3]]
    # By hand: |3.0 - 3.4| = 0.4, |7.5 - 7.0| = 0.5, |3.0 - 1.0| = 2.0; each pair ordered (better, worse).
    assert closest_pairs(scores, 3) == expected == [(2, 0), (1, 3), (0, 4)]


def test_section2_table_columns_doubling_and_ratio() -> None:
    stats = toy_stats(80, [0.3, 0.0, 0.25, 0.5], seed=9)
    systems = ["a", "b", "c", "d"]
    table = section2_table(stats, sum_score, systems, n_closest=4, n_samples=500, seed=2)
    assert list(table.columns) == SECTION2_COLUMNS
    assert len(table) == 4
    sums = stats[:, :, 0].sum(axis=1)
    assert closest_pairs(sums, 4) == [
        (systems.index(x), systems.index(y)) for x, y in zip(table.sys_x, table.sys_y, strict=True)
    ]
    assert np.allclose(table["statistic"], table["score_x"] - table["score_y"])
    assert (table["statistic"] >= 0).all()
    assert np.array_equal(table["p_rm_bootstrap_doubled"], np.minimum(1.0, 2 * table["p_rm_bootstrap"]))
    assert np.allclose(
        table["ratio_rm_bootstrap_to_rm_ar"],
        table["p_rm_bootstrap"] / table["p_rm_approximate_randomization"],
    )
    with pytest.raises(InputError, match="n_closest"):
        section2_table(stats, sum_score, systems, n_closest=7)


def test_rm_bootstrap_is_effectively_one_tailed() -> None:
    # Paper Sec. 2 with known truth: per-segment differences with d exactly 2 standard errors from 0. Normal
    # theory: AR (two-sided) gives p ~ 2 Phi(-2) = 0.046; R&M's bootstrap counts |d_b| >= tau + |d| with
    # tau = E|d_b| ~ d, i.e. about one tail, Phi(-2) ~ 0.023: a ratio near 1/2.
    rng = np.random.default_rng(10)
    n = 400
    differences = rng.normal(0.0, 1.0, n)
    differences -= differences.mean()
    differences += 2.0 * differences.std() / np.sqrt(n)  # sum = 2 * sd * sqrt(n) = 2 standard errors
    y = rng.normal(0.0, 1.0, n)
    stats = np.stack([y + differences, y])[:, :, None]
    table = section2_table(stats, sum_score, ["x", "y"], n_closest=1, n_samples=8000, seed=5)
    row = table.iloc[0]
    assert row["p_rm_approximate_randomization"] == pytest.approx(2 * scipy_stats.norm.sf(2.0), abs=0.012)
    assert row["p_bootstrap_two_sided"] == pytest.approx(2 * scipy_stats.norm.sf(2.0), abs=0.012)
    assert 0.3 < row["ratio_rm_bootstrap_to_rm_ar"] < 0.7


# ---------------------------------------------------------------------------------------------- figures


def test_calibration_figure_is_byte_identical_across_runs(tmp_path) -> None:
    stats = toy_stats(30, [0.5, 0.0], seed=11)
    table = calibration_study(
        {"m1": (stats, sum_score, True), "m2": (stats, sum_score, True)},
        ["a", "b"],
        "a",
        "b",
        null_pairs=30,
        q_values=(0.75, 1.0),
        alternatives_per_q=10,
        n_samples=100,
        seed=1,
        tests=("paired_bootstrap", "approximate_randomization"),
    )
    pdf1, png1 = save_figure(plot_calibration(table), pdf_and_png(tmp_path / "one" / "calibration"), dpi=150)
    pdf2, png2 = save_figure(plot_calibration(table), pdf_and_png(tmp_path / "two" / "calibration"), dpi=150)
    assert pdf1.read_bytes() == pdf2.read_bytes()
    assert png1.read_bytes() == png2.read_bytes()
    assert png1.stat().st_size > 10_000
    with pytest.raises(InputError, match="null"):
        plot_calibration(table[table["kind"] != NULL])


def test_splitting_pairs_over_engine_calls_changes_no_number(monkeypatch) -> None:
    stats = toy_stats(30, [0.3, 0.0], seed=12)
    kwargs = dict(null_pairs=23, q_values=(0.7,), alternatives_per_q=9, n_samples=150, seed=5)
    whole = calibration_study({"toy": (stats, sum_score, True)}, ["a", "b"], "a", "b", **kwargs)
    monkeypatch.setattr(calibration, "_pairs_per_call", lambda *_: 4)  # 23 pairs -> 6 calls
    split = calibration_study({"toy": (stats, sum_score, True)}, ["a", "b"], "a", "b", **kwargs)
    pd.testing.assert_frame_equal(whole, split)


def test_document_swaps_relabel_whole_documents() -> None:
    # Differences constant within a document: with document swaps every trial's per-segment difference keeps a
    # single sign per document (segment swaps would mix them).
    documents = np.repeat(np.arange(5), 4)
    stats_x = np.repeat(np.arange(1.0, 6.0), 4)[:, None]
    stats_y = np.zeros_like(stats_x)
    table = calibration_study(
        {"toy": (np.stack([stats_x, stats_y]), sum_score, True)},
        ["a", "b"],
        "a",
        "b",
        null_pairs=200,
        q_values=(),
        tests=("approximate_randomization",),
        n_samples=50,
        seed=3,
        documents=documents,
        swap_unit="document",
    )
    assert set(table["swap_unit"]) == {"document"}
    # Mean of d over 200 fair-coin document swaps is 0 up to sampling error: sd of d is sqrt(sum (4 j)^2 for j=1..5).
    sd_of_mean = np.sqrt(sum((4.0 * j) ** 2 for j in range(1, 6))) / np.sqrt(200)
    assert abs(table["mean_statistic"].iloc[0]) < 4 * sd_of_mean
    mask = calibration.document_keep_mask(50, documents, 0.5, np.random.default_rng(0))
    assert all(len(set(row[documents == d])) == 1 for row in mask for d in range(5))
    assert 0 < mask.mean() < 1
    with pytest.raises(InputError, match="document"):
        calibration_study(
            {"toy": (np.stack([stats_x, stats_y]), sum_score, True)},
            ["a", "b"],
            "a",
            "b",
            swap_unit="document",
            tests=("bootstrap",),
        )
