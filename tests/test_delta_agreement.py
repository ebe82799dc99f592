"""How large a metric delta humans notice (mtsig.stats.meta_evaluation.delta_agreement): the logistic fit
against statsmodels and simulations with known truth (an increasing curve, with and without a planted outlier
system; a decreasing one), the orientation of pairs and the metric-score outliers of WMT20's en-zh TER file by
hand, the table and figure of a flagged fit, and mtsig compare --calibration."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_runner import run_mtsig
from statsmodels.discrete.discrete_model import Logit
from statsmodels.tools.tools import add_constant

from mtsig.io.system_scores import read_wmt_sys_scores
from mtsig.report.delta_agreement import agreement_panels, delta_agreement_markdown
from mtsig.stats.meta_evaluation.delta_agreement import (
    agreement_curves,
    delta_for,
    deltas_for,
    estimated_agreement,
    left_out_pairs,
    logistic,
    logistic_fit,
    metric_score_outliers,
    oriented_pairs,
)
from mtsig.studies.delta_agreement import left_out_summary


def _simulated(n: int, b0: float, b1: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    delta = rng.uniform(0, 3, n)
    return delta, rng.uniform(size=n) < 1 / (1 + np.exp(-(b0 + b1 * delta)))


def test_logistic_fit_equals_statsmodels_and_recovers_a_planted_curve() -> None:
    delta, outcome = _simulated(4000, 0.2, 1.5, seed=11)
    ours = logistic_fit(delta, outcome)
    theirs = Logit(outcome.astype(float), add_constant(delta)).fit(disp=0).params
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
    assert pairs.loc[("bleu", "A", "B")].tolist() == [2.0, False, False, 30, 28]
    # TER (lower is better): A 50 < B 52, so A by 2; A over C by 10: humans agree, significant; scores as given
    assert pairs.loc[("ter", "A", "C")].tolist() == [10.0, True, True, 50, 60]
    assert pairs.loc[("ter", "B", "C")].tolist() == [8.0, True, True, 52, 60]


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


def _all_pairs(scores: pd.Series, metric: str, source: str) -> pd.DataFrame:
    """Every pair of the systems of ``scores`` (system -> score), oriented, with no human judgement attached."""
    table = pd.DataFrame({"system": scores.index, "metric": metric, "score": scores.to_numpy()})
    names = list(scores.index)
    gold = pd.DataFrame(
        [(a, b, "tie") for i, a in enumerate(names) for b in names[i + 1 :]],
        columns=["sys_x", "sys_y", "conclusion"],
    )
    human = pd.Series(0.0, index=names)
    return oriented_pairs(table, human, gold, {metric: True}).assign(source=source)


def test_the_en_zh_ter_outliers_of_wmt20_by_hand(data_root: Path) -> None:
    """WMT20's baselines/TER.sys.score.gz, en-zh, reference newstest2020 (the study's), MT systems only: by hand
    from the file's 12 values, the median is (-1.1628 - 1.1287) / 2 = -1.14575, the absolute deviations' median
    (0.04665 + 0.09255) / 2 = 0.0696, so robust z = |score + 1.14575| / (1.4826 * 0.0696): NiuTrans.1511 (-25.0248)
    231.41, dong-nmt.768 (-4.1803) 29.41, Online-Z.1638 (-1.9121) 7.43, every other system below 4.0."""
    rows = read_wmt_sys_scores(
        data_root / "wmt20-metrics" / "system-scores" / "baselines" / "TER.sys.score.gz"
    )
    rows = rows[
        (rows["lp"] == "en-zh") & (rows["refset"] == "newstest2020") & ~rows["system"].str.startswith("Human")
    ]
    assert len(rows) == 12
    pairs = _all_pairs(rows.set_index("system")["score"], "TER", "en-zh")
    scale = 1.4826 * 0.0696
    flagged = metric_score_outliers(pairs, cutoff=25).set_index("system")
    assert flagged.index.tolist() == ["NiuTrans.1511", "dong-nmt.768"]
    assert flagged.loc["NiuTrans.1511", "robust_z"] == pytest.approx((25.0248 - 1.14575) / scale, rel=1e-9)
    assert flagged.loc["dong-nmt.768", "robust_z"] == pytest.approx((4.1803 - 1.14575) / scale, rel=1e-9)
    assert flagged["pairs"].tolist() == [11, 11]
    # the next system out, Online-Z.1638 at 7.43, stays at any cutoff above that; only NiuTrans.1511 beyond 29.41
    assert metric_score_outliers(pairs, cutoff=7.5)["system"].tolist() == ["NiuTrans.1511", "dong-nmt.768"]
    assert metric_score_outliers(pairs, cutoff=7.4)["system"].tolist()[-1] == "Online-Z.1638"
    assert metric_score_outliers(pairs, cutoff=30)["system"].tolist() == ["NiuTrans.1511"]
    left_out = left_out_pairs(pairs, metric_score_outliers(pairs, cutoff=25))
    assert left_out.sum() == 11 + 11 - 1  # the pair of the two outliers counted once
    summary = left_out_summary(pairs.assign(left_out=left_out), metric_score_outliers(pairs, cutoff=25))
    assert summary.iloc[0].tolist() == [
        "TER", 2, 21,
        "NiuTrans.1511 in en-zh (score -25.02, robust z 231.4); dong-nmt.768 in en-zh (score -4.18, robust z 29.4)",
    ]  # fmt: skip


def _planted_study(seed: int, b0: float, b1: float, sources: int = 30, systems: int = 10) -> pd.DataFrame:
    """Pairs of ``sources`` language pairs of ``systems`` systems with N(0, 1) metric scores, each pair's direction
    drawn from the known curve ``logistic(b0 + b1 * delta)``."""
    rng = np.random.default_rng(seed)
    frames = []
    for source in range(sources):
        scores = pd.Series(rng.normal(size=systems), index=[f"s{source}.{k}" for k in range(systems)])
        frames.append(_all_pairs(scores, "m", f"lp{source}"))
    pairs = pd.concat(frames, ignore_index=True)
    agree = rng.uniform(size=len(pairs)) < 1 / (1 + np.exp(-(b0 + b1 * pairs["delta"].to_numpy())))
    return pairs.assign(direction=agree, significant=agree & (pairs["delta"].to_numpy() > 1))


def test_a_planted_outlier_system_is_left_out_and_the_planted_curve_recovered() -> None:
    """Known truth: P(agree | delta) = logistic(0.2 + 2 delta) over 30 sources of 10 systems; then one system of
    lp0 gets a broken score (+60, far outside every N(0, 1) score) and humans who never agree with it, as WMT20's
    en-zh TER of NiuTrans.1511. The outlier bends the fit; left out, the planted slope is recovered."""
    pairs = _planted_study(7, 0.2, 2.0)
    truth = logistic_fit(pairs["delta"].to_numpy(), pairs["direction"].to_numpy(float))
    assert truth[1] == pytest.approx(2.0, abs=0.3)
    # s0.3 of lp0 scored 60: it is the better system of each of its 9 pairs, which humans all reject
    broken = pairs["source"].eq("lp0") & (pairs["better"].eq("s0.3") | pairs["worse"].eq("s0.3"))
    own = pairs.loc[broken]
    is_better = own["better"].eq("s0.3").to_numpy()
    other_score = np.where(is_better, own["score_worse"], own["score_better"])
    planted = pairs.copy()
    planted.loc[broken, "worse"] = np.where(is_better, own["worse"], own["better"])
    planted.loc[broken, "better"] = "s0.3"
    planted.loc[broken, "score_better"] = 60.0
    planted.loc[broken, "score_worse"] = other_score
    planted.loc[broken, "delta"] = 60.0 - other_score
    planted.loc[broken, ["direction", "significant"]] = False
    bent = logistic_fit(planted["delta"].to_numpy(), planted["direction"].to_numpy(float))
    assert bent[1] < 0.5  # nine pairs 60 apart that humans reject carry the fit
    flagged = metric_score_outliers(planted)
    assert flagged[["source", "system", "pairs"]].values.tolist() == [["lp0", "s0.3", 9]]
    kept = planted[~left_out_pairs(planted, flagged)]
    _, summary = agreement_curves(kept, n_boot=100, rng=np.random.default_rng(1))
    row = summary.set_index("outcome").loc["direction"]
    assert row["b1"] == pytest.approx(2.0, abs=0.3) and row["fit"] == "increasing"
    # delta for 90% of the planted curve: (logit(0.9) - 0.2) / 2 = 0.9986, inside the fit's interval
    assert row["delta_90_low"] <= 0.9986 <= row["delta_90_high"]
    assert row["delta_90"] == pytest.approx(0.9986, abs=0.15)


def test_a_decreasing_curve_is_flagged_not_given_a_delta(tmp_path: Path) -> None:
    """Known truth: agreement falls with the delta, logistic(2.5 - 1.5 delta), and one metric with no dependence at
    all, logistic(1.0 + 0 delta), on few pairs: the first fit is decreasing, the second undetermined; neither
    gives a delta, in the summary, the table, the figure or estimated_agreement."""
    falling = _planted_study(3, 2.5, -1.5)
    flat = _planted_study(4, 1.0, 0.0, sources=4).assign(metric="flat")
    rising = _planted_study(5, 0.2, 2.0, sources=10).assign(metric="rising")
    pairs = pd.concat([falling, flat, rising], ignore_index=True).assign(left_out=False)
    curves, summary = agreement_curves(pairs, n_boot=200, rng=np.random.default_rng(2))
    fits = summary[summary["outcome"] == "direction"].set_index("metric")
    assert fits["fit"].to_dict() == {"flat": "undetermined", "m": "decreasing", "rising": "increasing"}
    assert fits.loc["m", "b1_high"] < 0 and fits.loc["flat", "b1_low"] <= 0 <= fits.loc["flat", "b1_high"]
    assert fits.loc[["m", "flat"], ["delta_90", "delta_95"]].isna().all().all()
    assert np.isfinite(fits.loc["rising", "delta_90"])
    assert estimated_agreement(summary, "m", 0.5) == "decreasing"
    assert estimated_agreement(summary, "flat", 0.5) == "undetermined"
    assert isinstance(estimated_agreement(summary, "rising", 0.5), float)
    summary = summary.merge(left_out_summary(pairs, metric_score_outliers(pairs)), on="metric")
    table = delta_agreement_markdown(summary, metric_score_outliers(pairs), 0.05, 25)
    cells = next(row for row in table.splitlines() if row.startswith("| m |")).split(" | ")
    assert cells[5:7] == ["decreasing", "decreasing"]  # the deltas for 90% and 95% agreement
    figure = agreement_panels(pairs, curves, summary)
    notes = [text.get_text() for ax in figure.axes for text in ax.texts]
    assert notes == ["undetermined: no Δ", "decreasing: no Δ"]


def test_the_bootstrap_deltas_are_the_point_formula_row_by_row() -> None:
    beta = np.array([[0.2, 2.0], [3.0, 1.0], [0.0, -1.0], [-5.0, 0.5], [0.0, 0.0]])
    expected = [delta_for(b, 0.9, 6.0) for b in beta]
    got = deltas_for(beta, 0.9, 6.0)
    np.testing.assert_array_equal(np.where(np.isinf(got), np.nan, got), expected)
    # by hand: (logit(0.9) - 0.2) / 2 = 0.99861; b0 = 3 is above 90% at 0; -5 needs 14.4 > 6; b1 <= 0 never
    assert got[0] == pytest.approx(0.99861, abs=1e-5) and got[1] == 0 and np.isinf(got[2:]).all()


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
    # a table that flags bleu's fit: the word, not a number read off the curve
    flagged = tmp_path / "flagged.tsv"
    flagged.write_text("metric\toutcome\tb0\tb1\tfit\nbleu\tdirection\t1.4\t-0.1\tdecreasing\n")
    done = run_mtsig(
        "compare", "--ref", tmp_path / "ref", "--samples", "200", "--unescape-html", "--calibration", flagged,
        tmp_path / "a", tmp_path / "b",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    header = next(line for line in lines if line.startswith("sys_x") and "humans agree" in line)
    assert lines[lines.index(header) + 1].split()[-1] == "decreasing"
    flagged.write_text("metric\toutcome\tb0\tb1\tfit\nbleu\tdirection\t1.4\t-0.1\tdown\n")
    bad = run_mtsig("compare", "--ref", tmp_path / "ref", "--calibration", flagged, tmp_path / "a", tmp_path / "b")  # fmt: skip
    assert bad.returncode == 2 and f"{flagged}:2:" in bad.stderr and "'down'" in bad.stderr
    bad = run_mtsig("compare", "--ref", tmp_path / "ref", "--calibration", tmp_path / "ref", tmp_path / "a", tmp_path / "b")  # fmt: skip
    assert bad.returncode == 2 and "not a delta-agreement summary" in bad.stderr


def test_protocol_pairs_are_labelled_apart_and_oriented_by_hand() -> None:
    """Three MT systems of one language pair: MQM system scores X -1, Y -2, Z -3; BLEU 30, 31, 25; the MQM gold
    says X better than Z, the rest ties. BLEU prefers Y to X by 1 (humans disagree), X to Z by 5 (humans agree,
    significantly) and Y to Z by 6 (agree, not significant). The curves are labelled "BLEU (wmt23 MQM)", apart from
    WMT20's BLEU."""
    from mtsig.errors import InputError
    from mtsig.studies.delta_agreement import protocol_pairs

    scores = pd.DataFrame(
        {
            "lp": "en-de",
            "system": ["X", "Y", "Z"] * 3,
            "source": ["human_mqm"] * 3 + ["BLEU"] * 3 + ["chrF"] * 3,
            "score": [-1.0, -2.0, -3.0, 30.0, 31.0, 25.0, 50.0, 50.0, 40.0],
        }
    )
    gold = pd.DataFrame(
        {
            "lp": "en-de",
            "sys_x": ["X", "X", "Y"],
            "sys_y": ["Y", "Z", "Z"],
            "alpha": 0.05,
            "conclusion": ["tie", "sys_x", "tie"],
        }
    )
    pairs = protocol_pairs("wmt23", scores, gold, 0.05, ["BLEU"]).set_index(["better", "worse"])
    assert set(pairs["metric"]) == {"BLEU (wmt23 MQM)"} and set(pairs["source"]) == {"wmt23 en-de"}
    assert pairs.loc[("Y", "X"), "delta"] == 1.0 and not pairs.loc[("Y", "X"), "direction"]
    assert pairs.loc[("X", "Z"), "delta"] == 5.0 and pairs.loc[("X", "Z"), "significant"]
    assert pairs.loc[("Y", "Z"), "direction"] and not pairs.loc[("Y", "Z"), "significant"]
    with pytest.raises(InputError, match="no system scores of COMET"):
        protocol_pairs("wmt23", scores, gold, 0.05, ["COMET"])
