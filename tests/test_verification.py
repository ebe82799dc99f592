"""mtsig verify: checksums of every table and TSV, the first differing row, and the quick check end to end."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from cli_runner import run_mtsig
from data_mirror import DataMirror
from pipeline_runs import copy_checkout, other_machine_numerics
from scipy import stats

from mtsig.cli import main
from mtsig.errors import InputError
from mtsig.pipeline.verification import (
    DIFFERENT,
    EQUAL,
    MISSING,
    UNLISTED,
    block_bounds,
    checksum_table,
    read_checksums,
    verify_results,
)
from mtsig.steps.files import read_tsv

REPO = Path(__file__).resolve().parents[1]
QUICK_CHECKSUMS = REPO / "checksums" / "quick-run.tsv"


def _results(root: Path) -> Path:
    (root / "exp" / "tests").mkdir(parents=True)
    (root / "tables").mkdir()
    (root / "exp" / "tests" / "bleu.tsv").write_text(
        "sys_x\tsys_y\tp_value\n" + "".join(f"s{i}\ts{i + 1}\t0.{i:04d}\n" for i in range(100))
    )
    (root / "tables" / "exp.md").write_text("| test | accuracy |\n|---|---|\n| AR | 0.91 |\n| PB | 0.89 |\n")
    (root / "exp" / "figure.png").write_bytes(b"\x89PNG not checked")
    return root


def test_block_bounds_cover_every_row_once() -> None:
    for n_rows in (0, 1, 5, 32, 33, 101, 3003):
        bounds = block_bounds(n_rows)
        assert [i for start, end in bounds for i in range(start, end)] == list(range(n_rows))
        assert len(bounds) == min(32, n_rows) or n_rows == 0


def test_one_changed_number_is_caught_at_its_row(tmp_path: Path) -> None:
    results = _results(tmp_path / "results")
    expected = checksum_table(results)
    assert list(expected["path"]) == ["exp/tests/bleu.tsv", "tables/exp.md"]  # figures are not checked
    assert (verify_results(expected, results)["status"] == EQUAL).all()
    table = results / "tables" / "exp.md"
    table.write_text(table.read_text().replace("0.89", "0.88"))
    long = results / "exp" / "tests" / "bleu.tsv"
    long.write_text(long.read_text().replace("s56\ts57\t0.0056", "s56\ts57\t0.0057"))
    (results / "exp" / "new.tsv").write_text("a\n1\n")
    report = verify_results(expected, results).set_index("path")
    assert report.loc["tables/exp.md", "status"] == DIFFERENT
    # a short table: exactly the row (line 4 of 4) and what it holds now
    assert report.loc["tables/exp.md", "detail"] == "first difference in row 4: | PB | 0.88 |"
    # 101 lines in 32 blocks: line 58 (s56) lies in the block of lines 57-59
    assert report.loc["exp/tests/bleu.tsv", "detail"].startswith("first difference in rows 57-59")
    assert report.loc["exp/new.tsv", "status"] == UNLISTED
    (results / "tables" / "exp.md").unlink()
    assert verify_results(expected, results).set_index("path").loc["tables/exp.md", "status"] == MISSING


def test_cli_exit_status_and_write(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = _results(tmp_path / "results")
    listing = tmp_path / "list.tsv"
    assert main(["verify", str(results), "--expected", str(listing), "--write"]) == 0
    assert read_checksums(listing)["path"].tolist() == ["exp/tests/bleu.tsv", "tables/exp.md"]
    assert main(["verify", str(results), "--expected", str(listing)]) == 0
    assert capsys.readouterr().out.endswith(
        ": 2 equal, 0 different, 0 missing, 0 not in the list: all equal\n"
    )
    (results / "tables" / "exp.md").write_text("changed\n")
    assert main(["verify", str(results), "--expected", str(listing)]) == 3
    out = capsys.readouterr().out
    assert "different: tables/exp.md: 1 rows, expected 4; row 1: changed" in out and out.endswith(
        "DIFFERENT\n"
    )
    listing.write_text("path\trows\tsha256\tblocks\nx.tsv\t1\tnot-a-hash\tab\n")
    with pytest.raises(InputError, match="list.tsv:2: not a sha256"):
        read_checksums(listing)


@pytest.fixture(scope="module")
def quick_check(tmp_path_factory: pytest.TempPathFactory, data_root: Path) -> SimpleNamespace:
    """The quick check of docs/artifact-review.md as a reader without the data folder runs it: in a clone with nothing beside it, so the
    workflow downloads the one dataset it reads (from a loopback mirror of the data root, tests/data_mirror.py),
    through the Snakemake target verify, in its own folder, once (its tests share the xdist group ``quick_check``).

    It is stopped hard mid-way and finished as docs/artifact-review.md says (*After a hard stop*): the whole run killed (SIGKILL) once
    some statistics are written, the rerun refused, ``snakemake --unlock`` with the run's ``--directory``, and the
    same command again. It computes as another machine would (:func:`pipeline_runs.other_machine_numerics`), so it
    also fails when an output depends on the CPU: the committed list comes from runs without that environment, on
    whatever machine regenerated it."""
    clone = copy_checkout(tmp_path_factory.mktemp("reader") / "mtsig")
    snakemake = [sys.executable, "-m", "snakemake"]
    command = [
        *snakemake,
        "--cores",
        "2",
        "--configfile",
        "config/quick.yaml",
        "--directory",
        "quick-check",
        "verify",
    ]
    stats = clone / "quick-check" / "results" / "wmt20-ja-en" / "stats"
    with DataMirror(data_root, ["wmt20-ja-en"]) as mirror:
        env = {key: value for key, value in os.environ.items() if key != "MTSIG_DATA"}
        env |= {"PWD": str(clone), "PYTHONPATH": str(clone / "src"), "MTSIG_DATA_MIRROR": mirror.url}
        env |= other_machine_numerics()

        def run(args: list[str]) -> subprocess.CompletedProcess[str]:
            return subprocess.run(args, cwd=clone, env=env, capture_output=True, text=True, check=False)

        running = subprocess.Popen(
            command,
            cwd=clone,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 300
        while running.poll() is None and not list(stats.glob("*.npz")) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert running.poll() is None, "the quick check ended before it could be stopped"
        os.killpg(running.pid, signal.SIGKILL)
        running.wait(60)
        refused = run(command)
        assert refused.returncode != 0 and "Directory cannot be locked" in refused.stderr, refused.stderr[
            -3000:
        ]
        unlocked = run([*snakemake, "--unlock", "--directory", "quick-check"])
        assert unlocked.returncode == 0, unlocked.stderr[-3000:]
        done = run(command)
    log = clone / "quick-check" / "logs" / "verify.log"
    detail = log.read_text() if log.is_file() else done.stderr[-3000:]
    assert done.returncode == 0, (
        "the quick check's results differ from checksums/quick-run.tsv: if the change is meant to change "
        f"results, regenerate the lists (docs/artifact-review.md, The quick check)\n{detail}"
    )
    return SimpleNamespace(results=clone / "quick-check" / "results", clone=clone, served=mirror.served)


@pytest.fixture(scope="module")
def quick_run(quick_check: SimpleNamespace) -> Path:
    return quick_check.results


@pytest.mark.xdist_group("quick_check")
def test_quick_check_downloads_only_the_dataset_it_reads(quick_check: SimpleNamespace) -> None:
    """From an empty data root: the eight files of wmt20-ja-en (two DA files, six segment-score files filtered from
    the organisers' all-pairs files), each equal to the data root's, and nothing else."""
    from mtsig.pipeline.data import read_manifest, verify

    downloads = quick_check.clone / "data" / "downloads"
    assert sorted(p.name for p in downloads.iterdir()) == ["wmt20-ja-en"]
    assert len([p for p in downloads.rglob("*") if p.is_file()]) == 8
    manifest = read_manifest(REPO / "data" / "sources.tsv")
    assert verify(manifest[manifest["dataset"] == "wmt20-ja-en"], downloads) == []
    assert quick_check.served and all(
        p.startswith("/WMT-Metrics-task/wmt20-metrics/") for p in quick_check.served
    )


@pytest.mark.xdist_group("quick_check")
def test_quick_check_equals_its_committed_checksums(quick_run: Path) -> None:
    """Fails whenever a code change changes an output of the quick check and the list was not regenerated."""
    report = (quick_run / "verification.txt").read_text()
    assert report.endswith("0 different, 0 missing, 0 not in the list: all equal\n")
    assert len(read_checksums(QUICK_CHECKSUMS)) > 30


@pytest.mark.xdist_group("quick_check")
def test_quick_check_copy_with_one_changed_number_fails_verify(quick_run: Path, tmp_path: Path) -> None:
    copy = tmp_path / "results"
    shutil.copytree(quick_run, copy)
    table = copy / "tables" / "wmt20-ja-en.md"
    lines = table.read_text().splitlines(keepends=True)
    row = next(i for i, line in enumerate(lines) if "| chrF |" in line)
    changed = lines[row].replace("0.", "9.", 1)
    assert changed != lines[row]
    table.write_text("".join(lines[:row] + [changed] + lines[row + 1 :]))
    done = run_mtsig("verify", copy, "--expected", QUICK_CHECKSUMS)
    assert done.returncode == 3, done.stdout + done.stderr
    found = re.search(r"different: tables/wmt20-ja-en.md: first difference in rows (\d+)-(\d+)", done.stdout)
    assert found and int(found[1]) <= row + 1 <= int(found[2]), done.stdout  # the block of the changed line
    listed = len(read_checksums(QUICK_CHECKSUMS))
    assert done.stdout.endswith(f"{listed - 1} equal, 1 different, 0 missing, 0 not in the list: DIFFERENT\n")


@pytest.mark.xdist_group("quick_check")
def test_quick_check_meta_evaluation_equals_scipy_and_a_hand_count(quick_run: Path) -> None:
    """The rule meta_evaluation on real data (WMT20 ja-en's six metrics): every correlation equals scipy's on the
    run's corpus scores and human system scores, and every pairwise accuracy a count over the gold's conclusions."""
    experiment = quick_run / "wmt20-ja-en"
    scores = read_tsv(experiment / "scores.tsv").pivot(index="system", columns="metric", values="score")
    human = read_tsv(experiment / "human" / "system_scores.tsv").set_index("system")
    correlations = read_tsv(experiment / "meta_evaluation" / "correlations.tsv")
    oracle = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}
    every = correlations.loc[correlations["systems"] == "all"]
    assert len(every) == 6 * 3 * 2  # metrics x kinds x human scores (z, raw)
    for row in every.itertuples(index=False):
        y = human.loc[scores.index, {"z": "mean_z", "raw": "mean_raw"}[row.human]]
        assert row.r == pytest.approx(oracle[row.kind](scores[row.metric], y)[0], abs=1e-12), row
    gold = read_tsv(experiment / "gold_conclusions.tsv")
    accuracy = read_tsv(experiment / "meta_evaluation" / "accuracy.tsv")
    assert len(accuracy) == 6 * gold.groupby(["gold", "alpha"]).ngroups
    for row in accuracy.itertuples(index=False):
        chosen = gold.loc[(gold["gold"] == row.gold) & (gold["alpha"] == row.alpha)]
        correct = 0
        for x, y, conclusion in chosen[["sys_x", "sys_y", "conclusion"]].itertuples(index=False):
            d = scores.loc[x, row.metric] - scores.loc[y, row.metric]
            correct += {"sys_x": d > 0, "sys_y": d < 0, "tie": d == 0}[conclusion]
        assert (row.correct, row.pairs) == (correct, len(chosen)), row
    assert (quick_run / "figures" / "wmt20-ja-en" / "williams.png").stat().st_size > 0
