"""mtsig verify: checksums of every file of a run (tables, texts, manifests, arrays; figures by name), the first
difference, and the quick check end to end."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
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
from mtsig.steps.files import read_tsv, save_arrays

REPO = Path(__file__).resolve().parents[1]
QUICK_CHECKSUMS = REPO / "checksums" / "quick-run.tsv"


def _results(root: Path) -> Path:
    (root / "exp" / "tests").mkdir(parents=True)
    (root / "tables").mkdir()
    (root / "exp" / "tests" / "bleu.tsv").write_text(
        "sys_x\tsys_y\tp_value\n" + "".join(f"s{i}\ts{i + 1}\t0.{i:04d}\n" for i in range(100))
    )
    (root / "tables" / "exp.md").write_text("| test | accuracy |\n|---|---|\n| AR | 0.91 |\n| PB | 0.89 |\n")
    return root


def _stats(path: Path, value: float = 1.0) -> None:
    """A statistics file as the pipeline writes it (mtsig.steps.files.save_arrays): two arrays."""
    path.parent.mkdir(parents=True, exist_ok=True)
    save_arrays(path, stats=np.full((3, 40, 4), value), systems=np.asarray(["a", "b", "c"]))


def _png(path: Path) -> None:
    """A complete PNG (Pillow's), 4 x 3 pixels."""
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (4, 3), (200, 10, 10)).save(path, format="png")


def test_block_bounds_cover_every_row_once() -> None:
    for n_rows in (0, 1, 5, 32, 33, 101, 3003):
        bounds = block_bounds(n_rows)
        assert [i for start, end in bounds for i in range(start, end)] == list(range(n_rows))
        assert len(bounds) == min(32, n_rows) or n_rows == 0


def test_one_changed_number_is_caught_at_its_row(tmp_path: Path) -> None:
    results = _results(tmp_path / "results")
    expected = checksum_table(results)
    assert list(expected["path"]) == ["exp/tests/bleu.tsv", "tables/exp.md"]
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


def test_every_file_of_a_run_is_listed_by_kind(tmp_path: Path) -> None:
    """Statistics, manifests, texts, HTML pages and figures too; not Snakemake's stamps, the verification report
    or temporary files. Each kind's row: a text file's rows and size, an array file's size and its arrays, a
    figure's path alone."""
    results = _results(tmp_path / "results")
    _stats(results / "exp" / "stats" / "bleu.npz")
    (results / "exp" / "stats" / "bleu.npz.manifest.json").write_text('{"bytes": 1}\n')
    (results / "exp" / "texts").mkdir()
    (results / "exp" / "texts" / "reference.txt").write_text("a b c\nd e\n")
    (results / "exp" / "texts" / ".snakemake_timestamp").write_text("")
    (results / "tables" / "exp.html").write_text("<p>table</p>\n")
    _png(results / "figures" / "exp" / "png" / "fig.png")
    (results / "verification.txt").write_text("all equal\n")
    (results / "exp" / "scores.tsv.tmp").write_text("half a")
    table = checksum_table(results).set_index("path")
    assert list(table.index) == [
        "exp/stats/bleu.npz",
        "exp/stats/bleu.npz.manifest.json",
        "exp/tests/bleu.tsv",
        "exp/texts/reference.txt",
        "figures/exp/png/fig.png",
        "tables/exp.html",
        "tables/exp.md",
    ]
    assert dict(table["kind"]) == {
        "exp/stats/bleu.npz": "binary",
        "exp/stats/bleu.npz.manifest.json": "text",
        "exp/tests/bleu.tsv": "text",
        "exp/texts/reference.txt": "text",
        "figures/exp/png/fig.png": "figure",
        "tables/exp.html": "text",
        "tables/exp.md": "text",
    }
    npz = results / "exp" / "stats" / "bleu.npz"
    assert table.loc["exp/stats/bleu.npz", "bytes"] == npz.stat().st_size
    assert table.loc["exp/stats/bleu.npz", "sha256"] == hashlib.sha256(npz.read_bytes()).hexdigest()
    assert [b.split("=")[0] for b in table.loc["exp/stats/bleu.npz", "blocks"].split(",")] == [
        "stats",
        "systems",
    ]
    assert (table.loc["exp/texts/reference.txt", "rows"], table.loc["exp/texts/reference.txt", "bytes"]) == (
        2,
        10,
    )
    assert table.loc["figures/exp/png/fig.png", ["bytes", "rows", "sha256", "blocks"]].tolist() == [
        "",
        "",
        "",
        "",
    ]
    report = verify_results(table.reset_index(), results).set_index("path")
    assert report.loc["exp/scores.tsv.tmp", "status"] == UNLISTED  # reported, not listed
    assert (report.drop(index="exp/scores.tsv.tmp")["status"] == EQUAL).all()


def test_a_missing_truncated_or_changed_npz_is_named(tmp_path: Path) -> None:
    results = _results(tmp_path / "results")
    for metric in ("bleu", "chrf", "ter"):
        _stats(results / "exp" / "stats" / f"{metric}.npz")
    listing = tmp_path / "list.tsv"
    checksum_table(results).to_csv(listing, sep="\t", index=False)
    expected = read_checksums(listing)
    stats = results / "exp" / "stats"
    size = (stats / "bleu.npz").stat().st_size
    (stats / "bleu.npz").unlink()
    with (stats / "chrf.npz").open("r+b") as handle:
        handle.truncate(size // 2)
    _stats(stats / "ter.npz", value=2.0)  # the same size, other statistics
    report = verify_results(expected, results).set_index("path")
    assert report.loc["exp/stats/bleu.npz", "status"] == MISSING
    assert report.loc["exp/stats/chrf.npz", "status"] == DIFFERENT
    assert report.loc["exp/stats/chrf.npz", "detail"] == (
        f"{size // 2} bytes, expected {size}; not a readable .npz (truncated?)"
    )
    assert (
        report.loc["exp/stats/ter.npz", "detail"]
        == f"{size} bytes, expected {size}; arrays that differ: stats"
    )


def test_a_missing_or_truncated_figure_is_named(tmp_path: Path) -> None:
    """Figures are listed by name: each must be there and complete, whatever its bytes."""
    results = _results(tmp_path / "results")
    figures = results / "figures" / "exp"
    for name in ("a.png", "b.png", "c.png"):
        _png(figures / name)
    expected = checksum_table(results)
    _png(figures / "a.png")  # drawn again: complete, and equal in the sense of figures
    whole = (figures / "b.png").read_bytes()
    (figures / "b.png").write_bytes(whole[: len(whole) - 5])
    (figures / "c.png").unlink()
    report = verify_results(expected, results).set_index("path")
    assert report.loc["figures/exp/a.png", "status"] == EQUAL
    assert tuple(report.loc["figures/exp/b.png"]) == (DIFFERENT, "not a complete PNG (truncated?)")
    assert report.loc["figures/exp/c.png", "status"] == MISSING


def test_a_list_of_an_earlier_mtsig_is_read_as_text_files(tmp_path: Path) -> None:
    results = _results(tmp_path / "results")
    listing = tmp_path / "earlier.tsv"
    table = checksum_table(results)[["path", "rows", "sha256", "blocks"]]
    table.to_csv(listing, sep="\t", index=False)
    expected = read_checksums(listing)
    assert list(expected["kind"]) == ["text", "text"] and list(expected["bytes"]) == ["", ""]
    assert (verify_results(expected, results)["status"] == EQUAL).all()
    (results / "tables" / "exp.md").write_text("changed\n")
    report = verify_results(expected, results).set_index("path")
    assert report.loc["tables/exp.md", "detail"] == "1 rows, expected 4; row 1: changed"


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
    (results / "exp" / "tests" / "bleu.tsv.tmp").write_text("half")
    assert main(["verify", str(results), "--expected", str(tmp_path / "other.tsv"), "--write"]) == 2
    assert (
        "1 temporary file(s) left by a run stopped hard (first: exp/tests/bleu.tsv.tmp)"
        in capsys.readouterr().err
    )
    assert not (tmp_path / "other.tsv").exists()
    listing.write_text("path\tkind\tbytes\trows\tsha256\tblocks\nx.tsv\ttext\t3\t1\tnot-a-hash\tab\n")
    with pytest.raises(InputError, match="list.tsv:2: not a sha256"):
        read_checksums(listing)
    listing.write_text("path\tkind\tbytes\trows\tsha256\tblocks\nx.svg\tpicture\t\t\t\t\n")
    with pytest.raises(InputError, match="list.tsv:2: kind 'picture'"):
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
    """From an empty data root: the seven files of wmt20-ja-en the experiment reads (the DA segment means, six
    segment-score files filtered from the organisers' all-pairs files), each equal to the data root's, and nothing
    else: not the DA system means, which the manifest lists and no rule of the quick check reads."""
    from mtsig.pipeline.data import read_manifest, verify

    downloads = quick_check.clone / "data" / "downloads"
    assert sorted(p.name for p in downloads.iterdir()) == ["wmt20-ja-en"]
    files = sorted(
        p.relative_to(downloads / "wmt20-ja-en").as_posix() for p in downloads.rglob("*") if p.is_file()
    )
    assert (
        len(files) == 7
        and "da/ad-seg-scores-ja-en.csv" in files
        and "da/ad-sys-scores-ja-en.csv" not in files
    )
    assert sum(f.startswith("metric-scores/") and f.endswith(".ja-en.seg.score") for f in files) == 6
    manifest = read_manifest(REPO / "data" / "sources.tsv")
    assert (
        verify(manifest[(manifest["dataset"] == "wmt20-ja-en") & manifest["path"].isin(files)], downloads)
        == []
    )
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
