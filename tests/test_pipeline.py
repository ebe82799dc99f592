"""End to end: the whole DAG on a synthetic experiment with planted truth (tests/configs/tiny.yaml).

The synthetic experiment (mtsig.studies.synthetic) has 6 systems whose corruption rates are planted: sys1 = sys2 < sys3 <
sys4 = sys5 < sys6, rated by biased annotators two of whom answer at random. The run must find the planted
differences in the human gold and in the tests, and produce every table and figure.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from mtsig.studies.synthetic import SyntheticSpec, planted_conclusion, system_names

REPO = Path(__file__).resolve().parents[1]
CONFIG = REPO / "tests" / "configs" / "tiny.yaml"
# the planted truth the assertions check is the one the config generates
SPEC = SyntheticSpec(**yaml.safe_load(CONFIG.read_text(encoding="utf-8"))["synthetic"]["synthetic-small"])


def run_pipeline(workdir: Path, data_root: Path, *extra: str, timeout: float = 900) -> float:
    """Run the pipeline on the tiny config in ``workdir``; return the wall time in seconds."""
    env = {**os.environ, "MTSIG_DATA": str(data_root)}
    args = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--directory", str(workdir)]
    args += ["--configfile", str(CONFIG), "--cores", "2", *extra]
    start = time.perf_counter()
    result = subprocess.run(args, env=env, capture_output=True, text=True, timeout=timeout)
    elapsed = time.perf_counter() - start
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-10000:]
    return elapsed


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory, data_root: Path) -> Path:
    workdir = tmp_path_factory.mktemp("tiny")
    elapsed = run_pipeline(workdir, data_root)
    print(f"tiny pipeline wall time: {elapsed:.1f} s")
    return workdir / "results"


def _tsv(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, sep="\t", keep_default_na=False, dtype={"sys_x": str, "sys_y": str})


@pytest.mark.pipeline
def test_every_output_exists(tiny_run: Path) -> None:
    exp = tiny_run / "synthetic-small"
    for name in ["scores.tsv", "gold.tsv", "gold_conclusions.tsv", "accuracy.tsv", "test_agreement.tsv"]:
        assert (exp / name).stat().st_size > 0, name
    for metric in ["bleu", "chrf", "ter", "nist", "meteor"]:
        assert (exp / "tests" / f"{metric}.tsv").is_file()
    for name in ["synthetic-small.md", "synthetic-small.tex", "synthetic-small.csv", "README.md"]:
        assert (tiny_run / "tables" / name).is_file(), name
    segment_level = _tsv(tiny_run / "jcml-wmt10-de-en" / "segment_level.tsv")
    assert segment_level["convention"].unique().tolist() == ["paper", "rankeval_tool"]  # the default: both
    assert (tiny_run / "calibration" / "synthetic-small.tsv").is_file()
    assert list((tiny_run / "figures" / "synthetic-small" / "png").glob("*.png"))


@pytest.mark.pipeline
def test_gold_finds_every_planted_difference(tiny_run: Path) -> None:
    gold = _tsv(tiny_run / "synthetic-small" / "gold_conclusions.tsv")
    gold = gold[gold["alpha"] == 0.05]
    names = system_names(SPEC)
    for x, y in itertools.combinations(names, 2):
        truth = planted_conclusion(SPEC, x, y)
        row = gold[(gold.sys_x == x) & (gold.sys_y == y)]
        assert len(row) == 1, (x, y)
        if truth != "tie":
            assert row.conclusion.iloc[0] == truth, (x, y, row.to_dict("records"))


@pytest.mark.pipeline
def test_tests_find_the_planted_differences(tiny_run: Path) -> None:
    accuracy = _tsv(tiny_run / "synthetic-small" / "accuracy.tsv")
    paper = accuracy[
        (accuracy["alpha"] == 0.05)
        & accuracy["test"].isin(["paired_bootstrap", "bootstrap", "approximate_randomization"])
        & accuracy["metric"].isin(["bleu", "chrf", "ter"])
    ]
    if "correction" in paper:
        paper = paper[paper["correction"] == "none"]
    assert len(paper) == 9
    # 13 of 15 pairs differ by construction and are far apart; the 2 planted ties may go either way by chance.
    assert (paper["correct"] >= 13).all(), paper


@pytest.mark.pipeline
def test_shards_merge_in_canonical_order(tiny_run: Path) -> None:
    tests = _tsv(tiny_run / "synthetic-small" / "tests" / "bleu.tsv")
    names = system_names(SPEC)
    n_pairs = len(names) * (len(names) - 1)
    assert len(tests) == n_pairs * tests["test"].nunique()
    assert not tests.duplicated(["sys_x", "sys_y", "test"]).any()
