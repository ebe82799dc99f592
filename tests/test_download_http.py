"""The workflow fetches the data it needs over real HTTP: a loopback server (tests/data_mirror.py, 127.0.0.1) serves
the data root's files under the URL paths of data/sources.tsv, selected by ``MTSIG_DATA_MIRROR``, to a copy of the
repository with no data beside it (the download root data/downloads is used).

A 404, a connection dropped mid-file (every time, or once), a checksum mismatch, no server at all, and a run killed
mid-download then resumed each end with a clear message and leave nothing half-written. The quick check's own test
(tests/test_verification.py) runs a small experiment end to end from an empty data root through the same mirror.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from data_mirror import DataMirror
from pipeline_runs import copy_checkout
from snakemake_runner import run_snakemake

from mtsig.pipeline.data import (
    BACKOFF_SECONDS,
    DOWNLOAD_ATTEMPTS,
    DownloadError,
    download_file,
    fetch,
    mirrored,
    obtainable,
    probe,
    read_manifest,
    sha256_file,
    verify,
)
from mtsig.steps import item_rule

REPO = Path(__file__).resolve().parents[1]
MANIFEST = read_manifest(REPO / "data" / "sources.tsv")


def _rows(dataset: str):
    return MANIFEST[MANIFEST["dataset"] == dataset]


def _url(dataset: str, path: str, mirror: DataMirror) -> str:
    rows = _rows(dataset)
    return mirrored(rows.loc[rows["path"] == path, "source"].item(), mirror.url)


def _closed_port() -> int:
    """A port of 127.0.0.1 on which nothing listens (bound, then released)."""
    with socket.socket() as probe_socket:
        probe_socket.bind(("127.0.0.1", 0))
        return probe_socket.getsockname()[1]


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """A reader's clone with no data beside it: ``tmp/mtsig``, nothing at ``tmp/shared``."""
    return copy_checkout(tmp_path / "mtsig")


def _env(clone: Path, mirror_url: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "MTSIG_DATA"}
    return {**env, "PWD": str(clone), "PYTHONPATH": str(clone / "src"), "MTSIG_DATA_MIRROR": mirror_url}


def _snakemake(clone: Path, mirror_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "snakemake", *args],
        cwd=clone, env=_env(clone, mirror_url), capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip


def _dry_run(clone: Path, mirror_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``snakemake -n ARGS`` as :func:`_snakemake` runs it, through Snakemake's entry point in this process
    (tests/snakemake_runner.py): a dry run downloads nothing."""
    return run_snakemake(["-n", *args], clone, _env(clone, mirror_url))


def _downloaded(clone: Path) -> list[Path]:
    root = clone / "data" / "downloads"
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []


# --- the download itself, in this process ------------------------------------------------------------------------


def test_a_dropped_connection_is_tried_again_with_growing_waits(tmp_path: Path, data_root: Path) -> None:
    path = "wmt08.de-en.jcml"
    expected = data_root / "jcml" / path
    with DataMirror(data_root, ["jcml"]) as mirror:
        mirror.faults["wmt08.jcml"] = "drop_once"
        waits: list[float] = []
        download_file(_url("jcml", path, mirror), tmp_path / path, sha256_file(expected), sleep=waits.append)
        assert (tmp_path / path).read_bytes() == expected.read_bytes()
        assert waits == [BACKOFF_SECONDS]
        assert mirror.served.count(mirror.served[0]) == 2

        mirror.faults["wmt08.jcml"] = "drop"
        waits.clear()
        with pytest.raises(
            DownloadError, match=r"5 tries\): connection dropped after \d+ of \d+ bytes"
        ) as caught:
            download_file(
                _url("jcml", path, mirror), tmp_path / "again", sha256_file(expected), sleep=waits.append
            )
    assert caught.value.transient
    assert waits == [BACKOFF_SECONDS * 2**k for k in range(DOWNLOAD_ATTEMPTS - 1)]  # 1, 2, 4, 8 s
    assert sorted(p.name for p in tmp_path.iterdir()) == [path]  # no `again`, no `.part`


@pytest.mark.parametrize(
    ("fault", "message"),
    [("404", "answered HTTP 404 Not Found"), ("corrupt", "checksum mismatch for http://")],
)
def test_a_missing_or_changed_file_is_not_tried_again(
    tmp_path: Path, data_root: Path, fault: str, message: str
) -> None:
    path = "wmt08.de-en.jcml"
    with DataMirror(data_root, ["jcml"]) as mirror:
        mirror.faults["wmt08.jcml"] = fault
        waits: list[float] = []
        with pytest.raises(DownloadError, match=message) as caught:
            download_file(
                _url("jcml", path, mirror),
                tmp_path / path,
                sha256_file(data_root / "jcml" / path),
                sleep=waits.append,
            )
        assert len(mirror.served) == 1 and not waits and not caught.value.transient
    assert str(caught.value).startswith(f"{tmp_path / path}: ")
    assert list(tmp_path.iterdir()) == []


def test_fetch_over_http_downloads_and_derives(tmp_path: Path, data_root: Path) -> None:
    """WMT22 ja-en: 24 downloads, then the two files derived from them; all equal to the data root's."""
    rows = _rows("wmt22-ja-en")
    with DataMirror(data_root, ["wmt22-ja-en"]) as mirror:
        written = fetch(rows, tmp_path, mirror=mirror.url, workers=8)
        assert (
            probe(mirror.url + "no/such/file") is None
        )  # the host answers (a 404 is the download's to report)
    assert len(written) == len(rows) and verify(rows, tmp_path) == []
    assert len(mirror.served) == sum(rows["source"].str.startswith("https://"))
    assert probe(f"http://127.0.0.1:{_closed_port()}/x") is not None


# --- the workflow --------------------------------------------------------------------------------------------------


@pytest.mark.pipeline
def test_no_connection_stops_before_any_job_with_one_line(clone: Path) -> None:
    done = _snakemake(
        clone, f"http://127.0.0.1:{_closed_port()}/", "--cores", "1", "--configfile", "config/quick.yaml"
    )
    assert done.returncode == 2, done.stderr[-3000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(
        f"mtsig: error: dataset wmt20-ja-en is not in {clone / 'data' / 'downloads'} and cannot be downloaded"
    ), last
    assert (
        "connect to the internet and rerun" in last
        and "set MTSIG_DATA to a data root that has wmt20-ja-en/" in last
    )
    assert "Traceback" not in done.stderr and not (clone / "data" / "downloads").exists()
    assert "Execute" not in done.stderr  # no job started


def _planned_files(dry_run: str) -> tuple[set[str], set[str], set[str]]:
    """From a dry run's printout: the data files the download jobs make, those the other jobs read (both as paths
    inside the download root) and the download rules that run."""
    made, read, rules = set(), set(), set()
    for job in re.split(r"\n(?=(?:local)?rule )", dry_run):
        rule = re.match(r"(?:local)?rule (\w+):", job)
        if rule is None:
            continue
        downloading = rule.group(1).startswith(item_rule("download_dataset", ""))
        rules |= {rule.group(1)} if downloading else set()
        for kind, files in re.findall(r"^\s+(input|output): (.+)$", job, flags=re.M):
            inside = {f.split("/data/downloads/", 1)[1] for f in files.split(", ") if "/data/downloads/" in f}
            if downloading and kind == "output":
                made |= inside
            elif not downloading and kind == "input":
                read |= inside
    return made, read, rules


@pytest.mark.pipeline
def test_the_default_run_downloads_exactly_the_files_its_rules_read(clone: Path) -> None:
    """A dry run of the default run from a clone without data: its download jobs make the data files its other jobs
    read and, besides, only the two that derivations read (WMT22 ja-en's raw scores are rebuilt from the
    standardised file, ru-en's with the workers' printed moments: data/README.md), not the rest of the datasets
    (WMT12's source texts, for one, which no experiment reads). ``download_data`` plans the rest too: every file
    data/sources.tsv can make."""
    offline = f"http://127.0.0.1:{_closed_port()}/"  # a dry run asks no origin
    default = _dry_run(clone, offline)
    assert default.returncode == 0, default.stderr[-3000:]
    made, read, rules = _planned_files(default.stdout + default.stderr)
    derivation_inputs = {"wmt22-ja-en/da/ad-jaen-good-stnd.csv", "wmt22-ru-en/da/ad-ruen-trk-mean-sd.txt"}
    assert read and made == read | derivation_inputs and not read & derivation_inputs
    assert "wmt12/plain/newstest2012-src.es" not in made and not any(r.endswith("__rest") for r in rules)
    everything = _dry_run(clone, offline, "download_data")
    assert everything.returncode == 0, everything.stderr[-3000:]
    made_all, _, rules_all = _planned_files(everything.stdout + everything.stderr)
    every_file = {f"{row.dataset}/{row.path}" for row in MANIFEST.itertuples() if obtainable(row.source)}
    assert made_all == every_file and made < every_file
    assert item_rule("download_dataset", "wmt12__rest") in rules_all


@pytest.mark.pipeline
def test_a_file_the_origin_does_not_serve_stops_its_job_and_leaves_nothing(
    clone: Path, data_root: Path
) -> None:
    with DataMirror(data_root, ["jcml"]) as mirror:
        mirror.faults["wmt08.jcml"] = "404"
        done = _snakemake(clone, mirror.url, "--cores", "1", item_rule("download_dataset", "jcml"))
    assert done.returncode != 0
    lines = [line for line in done.stderr.splitlines() if "mtsig: error: dataset jcml: " in line]
    assert lines and "wmt08.jcml answered HTTP 404 Not Found" in lines[0], done.stderr[-3000:]
    assert "origin does not serve the pinned file" in lines[0]
    assert "set MTSIG_DATA to a data root that has jcml/" in lines[0]
    assert "Traceback" not in done.stderr
    assert _downloaded(clone) == []  # neither the failed file nor the one verified beside it


@pytest.mark.parametrize(
    ("fault", "message", "advice"),
    [
        ("corrupt", "checksum mismatch for http://", "origin does not serve the pinned file"),
        ("drop", "(5 tries): connection dropped after", "rerun to try again"),
    ],
)
def test_the_download_step_says_why_in_one_line(
    tmp_path: Path,
    data_root: Path,
    fault: str,
    message: str,
    advice: str,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The job of rule download_dataset__jcml, in this process (the waits between tries made zero): it ends with
    status 2 and one line, and leaves no file but the one it verified before (Snakemake removes that one)."""
    from mtsig.pipeline import data as mtsig_data
    from mtsig.steps.download import download_dataset

    monkeypatch.setattr(mtsig_data, "BACKOFF_SECONDS", 0.0)
    files = [str(tmp_path / "jcml" / path) for path in _rows("jcml")["path"]]
    with DataMirror(data_root, ["jcml"]) as mirror:
        mirror.faults["wmt08.jcml"] = fault
        monkeypatch.setenv("MTSIG_DATA_MIRROR", mirror.url)
        with pytest.raises(SystemExit) as stopped:
            download_dataset("jcml", REPO / "data" / "sources.tsv", files=files)
    assert stopped.value.code == 2
    [line] = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert line.startswith("mtsig: error: dataset jcml: ") and message in line and advice in line, line
    assert "set MTSIG_DATA to a data root that has jcml/" in line
    assert [p.name for p in (tmp_path / "jcml").iterdir()] in ([], ["wmt10-test.de-en.jcml"])


@pytest.mark.pipeline
def test_a_run_killed_mid_download_resumes(clone: Path, data_root: Path) -> None:
    """SIGKILL to the whole run while a file is half transferred, then the recovery of docs/artifact-review.md (After a hard stop):
    ``snakemake --unlock`` and the same command again."""
    target = item_rule("download_dataset", "jcml")
    with DataMirror(data_root, ["jcml"]) as mirror:
        mirror.faults["wmt08.jcml"] = "stall"
        running = subprocess.Popen(
            [sys.executable, "-m", "snakemake", "--cores", "1", target],
            cwd=clone, env=_env(clone, mirror.url), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
        partial = clone / "data" / "downloads" / "jcml" / "wmt08.de-en.jcml.part"
        try:
            assert mirror.stalled.wait(120), "the download never started"
            deadline = time.monotonic() + 60
            while not partial.exists() and time.monotonic() < deadline:  # half of the file is on its way
                time.sleep(0.05)
        finally:
            os.killpg(running.pid, signal.SIGKILL)
            running.wait(60)
        left = [p.name for p in _downloaded(clone)]
        assert "wmt08.de-en.jcml" not in left and "wmt08.de-en.jcml.part" in left  # only the temporary file
        mirror.faults.clear()
        assert _snakemake(clone, mirror.url, "--unlock").returncode == 0
        done = _snakemake(clone, mirror.url, "--cores", "1", target)
    assert done.returncode == 0, done.stderr[-3000:]
    assert [p.name for p in _downloaded(clone)] == ["wmt08.de-en.jcml", "wmt10-test.de-en.jcml"]
    assert verify(_rows("jcml"), clone / "data" / "downloads") == []
