"""``mtsig metrics`` run (in process, through ``mtsig.cli.main``) on the real WMT20 ja-en files (DA system and segment scores, the six
metrics' seg.score files).

Oracles: scipy.stats.pearsonr / kendalltau on the system means computed here with pandas from the raw files; the
MAD rule worked out here with numpy from the DA z column (Mathur et al. 2020, Sec. 4.2: |z - med| / (1.4826 MAD) >
2.5); PERM-BOTH's two directions of a pair summing to 1 (+ ties) by definition; bad input one line, exit 2.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_runner import run_mtsig
from scipy import stats

METRICS = ("chrF", "TER", "parbleu", "parchrf++", "SWSS+METEOR", "YiSi-2")
# The module's fixture runs the command once (with PERM-BOTH): its tests go to one worker.
pytestmark = pytest.mark.xdist_group("cli_metrics")


def run(*args: object) -> subprocess.CompletedProcess[str]:
    return run_mtsig("metrics", *args)


@pytest.fixture(scope="module")
def ja_en(data_root: Path) -> Path:
    return data_root / "wmt20-ja-en"


@pytest.fixture(scope="module")
def json_output(ja_en: Path) -> dict:
    files = [ja_en / "metric-scores" / f"{m}.ja-en.seg.score" for m in METRICS]
    done = run(ja_en / "da" / "ad-sys-scores-ja-en.csv", *files, "--json", "--samples", "200")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _system_means(ja_en: Path, metric: str) -> pd.Series:
    frame = pd.read_csv(ja_en / "metric-scores" / f"{metric}.ja-en.seg.score", sep="\t", header=None)
    return frame.groupby(4)[7].mean()


def test_correlations_equal_scipy_on_the_raw_files(json_output, ja_en):
    human = pd.read_csv(ja_en / "da" / "ad-sys-scores-ja-en.csv", sep=r"\s+").set_index("SYS")["Z.SCR"]
    rows = pd.DataFrame(json_output["correlations"])
    for metric in METRICS:
        means = _system_means(ja_en, metric).loc[human.index]
        got = rows.set_index(["human", "systems", "metric", "kind"])["r"]
        assert got[("z", "all", metric, "pearson")] == pytest.approx(
            stats.pearsonr(means, human)[0], abs=1e-12
        )
        assert got[("z", "all", metric, "kendall")] == pytest.approx(
            stats.kendalltau(means, human)[0], abs=1e-12
        )


def test_outliers_follow_the_mad_rule_by_hand(json_output, ja_en):
    human = pd.read_csv(ja_en / "da" / "ad-sys-scores-ja-en.csv", sep=r"\s+").set_index("SYS")["Z.SCR"]
    z = human.to_numpy()
    robust = np.abs(z - np.median(z)) / (1.4826 * np.median(np.abs(z - np.median(z))))
    assert sorted(json_output["outliers"]) == sorted(human.index[robust > 2.5])
    assert len(json_output["outliers"]) >= 1


def test_perm_both_matrix_both_directions(json_output):
    perm = json_output["perm_both"]
    assert set(perm) == set(METRICS)
    for a in METRICS:
        for b in METRICS:
            if a != b:
                assert 1.0 <= perm[a][b] + perm[b][a] <= 1.0 + 1e-9 + 0.05
    # TER correlates worst by far (0.916 vs >= 0.968): no metric pair where TER significantly beats another
    assert all(perm["TER"][m] > 0.9 for m in METRICS if m != "TER")
    assert "test:perm-both" in json_output["signatures"]["perm_both"]


def test_text_and_latex_and_segment_human_file(ja_en):
    files = [ja_en / "metric-scores" / f"{m}.ja-en.seg.score" for m in METRICS[:3]]
    text = run(ja_en / "da" / "ad-seg-scores-ja-en.csv", *files, "--samples", "100")
    assert text.returncode == 0, text.stderr
    assert "Williams winners (all" in text.stdout and "PERM-BOTH p" in text.stdout
    assert "signature: mtsig:" in text.stdout
    latex = run(ja_en / "da" / "ad-sys-scores-ja-en.csv", *files, "--latex")
    assert latex.returncode == 0 and "\\begin{longtable}" in latex.stdout


def test_bad_input_is_one_line(ja_en, tmp_path):
    bad = tmp_path / "bad.sys.score"
    bad.write_text("what is this\n")
    done = run(ja_en / "da" / "ad-sys-scores-ja-en.csv", ja_en / "metric-scores" / "TER.ja-en.seg.score", bad)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "bad.sys.score" in done.stderr


def test_gzipped_wmt_sys_score_files_of_one_pair(data_root: Path):
    """The task's multi-pair ``.sys.score.gz`` files, ja-en rows kept with --lp: Pearson r equals scipy's on the
    rows read here with pandas; without segment scores there is no PERM-BOTH."""
    folder = data_root / "wmt20-metrics"
    files = [folder / "system-scores" / "baselines" / f"{m}.sys.score.gz" for m in ("BLEU", "TER", "chrF")]
    human_file = folder / "da" / "ad-sys-scores-ja-en.csv"
    done = run(human_file, *files, "--lp", "ja-en", "--json")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["perm_both"] is None
    human = pd.read_csv(human_file, sep=r"\s+").set_index("SYS")["Z.SCR"]
    rows = pd.DataFrame(payload["correlations"]).set_index(["human", "systems", "metric", "kind"])["r"]
    for path, metric in zip(files, ("BLEU", "TER", "chrF"), strict=True):
        frame = pd.read_csv(path, sep="\t", header=None)
        scores = frame.loc[frame[1] == "ja-en"].set_index(4)[5].loc[human.index]
        assert rows[("z", "all", metric, "pearson")] == pytest.approx(
            stats.pearsonr(scores, human)[0], abs=1e-12
        )


def test_pairwise_accuracy_against_the_wilcoxon_gold_by_hand(ja_en: Path):
    """Gold: scipy's one-sided rank-sum test on the DA segment means z of every ordered pair (WMT's DA practice),
    significant at 0.05; a metric is right on a pair when its sign of the system-mean difference equals the gold's
    (+1, -1, 0 = no difference: acc_eq, Deutsch et al. 2023), counted here with plain loops."""
    seg = pd.read_csv(ja_en / "da" / "ad-seg-scores-ja-en.csv", sep=r"\s+")
    z = {s: g["Z.SCR"].to_numpy() for s, g in seg.groupby("SYS")}
    systems = list(z)
    files = [ja_en / "metric-scores" / f"{m}.ja-en.seg.score" for m in ("TER", "chrF")]
    done = run(ja_en / "da" / "ad-seg-scores-ja-en.csv", *files, "--json", "--samples", "100")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    for metric in ("TER", "chrF"):
        means = _system_means(ja_en, metric)
        right = total = 0
        for i, x in enumerate(systems):
            for y in systems[i + 1 :]:
                if stats.mannwhitneyu(z[x], z[y], alternative="greater").pvalue < 0.05:
                    gold = 1
                elif stats.mannwhitneyu(z[y], z[x], alternative="greater").pvalue < 0.05:
                    gold = -1
                else:
                    gold = 0
                right += int(np.sign(means[x] - means[y]) == gold)
                total += 1
        assert payload["pairwise_accuracy"][metric] == pytest.approx(right / total, abs=1e-12)
    p = payload["accuracy_permutation"]
    assert 0 <= p["TER"]["chrF"] <= 1 and 0 <= p["chrF"]["TER"] <= 1


def test_boot_systems_intervals_equal_scipy_on_the_drawn_systems(json_output, ja_en):
    """BOOT-SYSTEMS, replayed: the same stream's system draws, scipy's Pearson r on each, numpy's quantiles."""
    from mtsig.cli._common import DEFAULT_SEED
    from mtsig.stats.seeding import rng_for

    human = pd.read_csv(ja_en / "da" / "ad-sys-scores-ja-en.csv", sep=r"\s+").set_index("SYS")["Z.SCR"]
    intervals = pd.DataFrame(json_output["intervals"]["rows"])
    assert sorted(intervals["scheme"].unique()) == ["both", "inputs", "systems"]  # segment scores: all three
    replay = rng_for(DEFAULT_SEED, "metrics", "bootstrap", "systems")
    drawn = np.concatenate([replay.integers(0, len(human), size=(100, len(human))) for _ in range(2)])
    for metric in METRICS:
        means = _system_means(ja_en, metric).loc[human.index].to_numpy()
        r = np.array([stats.pearsonr(means[d], human.to_numpy()[d])[0] for d in drawn])
        low, high = np.quantile(r[np.isfinite(r)], [0.025, 0.975])
        row = intervals.set_index(["scheme", "metric"]).loc[("systems", metric)]
        assert (row["low"], row["high"]) == pytest.approx((low, high), abs=1e-12), metric


def test_system_names_map_the_human_file_onto_the_metric_files(ja_en, tmp_path):
    """A human file whose names differ from the metric files' is refused, and accepted with --system-names."""
    original = (ja_en / "da" / "ad-sys-scores-ja-en.csv").read_text()
    human = tmp_path / "ad-sys-scores-ja-en.csv"
    human.write_text(original.replace("Online-A.1581", "Online-A"))
    files = [ja_en / "metric-scores" / f"{m}.ja-en.seg.score" for m in METRICS[:2]]
    refused = run(human, *files, "--samples", "20")
    assert refused.returncode == 2 and "Online-A" in refused.stderr
    names = tmp_path / "names.tsv"
    names.write_text("Online-A\tOnline-A.1581\n")
    renamed = run(human, *files, "--samples", "20", "--json", "--system-names", names)
    plain = run(ja_en / "da" / "ad-sys-scores-ja-en.csv", *files, "--samples", "20", "--json")
    assert renamed.returncode == 0, renamed.stderr
    assert json.loads(renamed.stdout)["correlations"] == json.loads(plain.stdout)["correlations"]
    names.write_text("Online-A\n")
    bad = run(human, *files, "--system-names", names)
    assert bad.returncode == 2 and "names.tsv" in bad.stderr and "line 1" in bad.stderr
