"""How large a metric delta humans notice (mtsig.stats.delta_agreement): the logistic fit against statsmodels and a
simulation with known truth, the orientation of pairs by hand, and mtsig compare --calibration."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from cli_runner import run_mtsig

from mtsig.stats.delta_agreement import (
    agreement_curves,
    delta_for,
    estimated_agreement,
    logistic,
    logistic_fit,
    oriented_pairs,
)


def _simulated(n: int, b0: float, b1: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    delta = rng.uniform(0, 3, n)
    return delta, rng.uniform(size=n) < 1 / (1 + np.exp(-(b0 + b1 * delta)))


def test_logistic_fit_equals_statsmodels_and_recovers_a_planted_curve() -> None:
    delta, outcome = _simulated(4000, 0.2, 1.5, seed=11)
    ours = logistic_fit(delta, outcome)
    theirs = sm.Logit(outcome.astype(float), sm.add_constant(delta)).fit(disp=0).params
    np.testing.assert_allclose(ours, theirs, rtol=2e-3)  # the ridge of 1e-3 is all that differs
    assert abs(ours[1] - 1.5) < 0.2 and abs(ours[0] - 0.2) < 0.2  # the truth, within sampling error
    # delta at 90% agreement: (logit(0.9) - b0) / b1 = (2.1972 - 0.2) / 1.5 = 1.3315 for the planted curve
    assert delta_for(ours, 0.9, 3.0) == pytest.approx(1.3315, abs=0.15)
    assert np.isnan(delta_for(ours, 0.99999, 3.0))  # beyond the observed deltas: not extrapolated


def test_vectorised_fits_equal_one_at_a_time_and_separated_data_stays_finite() -> None:
    delta, outcome = _simulated(300, -0.5, 2.0, seed=5)
    draws = np.random.default_rng(1).integers(0, 300, size=(7, 300))
    together = logistic_fit(delta[draws], outcome[draws])
    alone = np.array([logistic_fit(delta[d], outcome[d]) for d in draws])
    np.testing.assert_allclose(together, alone, rtol=1e-10)
    separated = logistic_fit(np.array([0.1, 0.2, 1.0, 2.0]), np.array([0, 0, 1, 1]))
    assert np.isfinite(separated).all() and separated[1] > 0


def test_pairs_are_oriented_by_the_metric_by_hand() -> None:
    scores = pd.DataFrame(
        {
            "system": ["A", "B", "C"] * 2,
            "metric": ["bleu"] * 3 + ["ter"] * 3,
            "score": [30, 28, 20, 50, 52, 60],
        }
    )
    human = pd.Series({"A": 0.1, "B": 0.3, "C": -0.2})
    gold = pd.DataFrame(
        {"sys_x": ["A", "A", "B"], "sys_y": ["B", "C", "C"], "conclusion": ["tie", "sys_x", "sys_x"]}
    )
    pairs = oriented_pairs(scores, human, gold, {"bleu": True, "ter": False}).set_index(
        ["metric", "better", "worse"]
    )
    # BLEU prefers A over B by 2, humans prefer B (0.3 > 0.1) and call it a tie
    assert pairs.loc[("bleu", "A", "B")].tolist() == [2.0, False, False]
    # TER (lower is better): A 50 < B 52, so A by 2; A over C by 10: humans agree, significant
    assert pairs.loc[("ter", "A", "C")].tolist() == [10.0, True, True]
    assert pairs.loc[("ter", "B", "C")].tolist() == [8.0, True, True]


def test_curves_summary_and_estimated_agreement() -> None:
    delta, outcome = _simulated(500, 0.0, 2.0, seed=3)
    pairs = pd.DataFrame(
        {"metric": "m", "delta": delta, "direction": outcome, "significant": outcome & (delta > 1)}
    )
    curves, summary = agreement_curves(pairs, n_boot=50, rng=np.random.default_rng(0))
    direction = curves[curves["outcome"] == "direction"]
    assert (
        (direction["low"] <= direction["p"] + 1e-12) & (direction["p"] <= direction["high"] + 1e-12)
    ).all()
    row = summary[summary["outcome"] == "direction"].iloc[0]
    assert estimated_agreement(summary, "m", 1.0) == pytest.approx(
        logistic(row[["b0", "b1"]].to_numpy(float), [1.0])[0]
    )
    assert np.isnan(estimated_agreement(summary, "other", 1.0))


def test_compare_prints_the_estimated_human_agreement_of_each_difference(
    tmp_path: Path, data_root: Path
) -> None:
    folder = data_root / "wmt12"
    for name, source in [("ref", "plain/newstest2012-ref.en"), ("a", "system-outputs/es-en/newstest2012.es-en.onlineA"), ("b", "system-outputs/es-en/newstest2012.es-en.onlineB")]:  # fmt: skip
        (tmp_path / name).write_text("\n".join((folder / source).read_text().splitlines()[:300]) + "\n")
    summary = tmp_path / "summary.tsv"
    summary.write_text("metric\toutcome\tb0\tb1\nBLEU\tdirection\t0.0\t0.5\nbleu\tdirection\t0.0\t1.0\n")
    done = run_mtsig(
        "compare", "--ref", tmp_path / "ref", "--samples", "200", "--unescape-html", "--calibration", summary,
        tmp_path / "a", tmp_path / "b",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    header = next(line for line in lines if line.startswith("sys_x") and "humans agree" in line)
    row = lines[lines.index(header) + 1].split()
    statistic = abs(float(row[2]))
    assert row[-1] == f"{1 / (1 + np.exp(-statistic)):.2f}"  # the run's own bleu row (b1 = 1), not BLEU's
    bad = run_mtsig("compare", "--ref", tmp_path / "ref", "--calibration", tmp_path / "ref", tmp_path / "a", tmp_path / "b")  # fmt: skip
    assert bad.returncode == 2 and "not a delta-agreement summary" in bad.stderr
