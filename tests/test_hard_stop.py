"""Nothing is lost after a hard stop (docs/artifact-review.md, *After a hard stop*).

A small real run (tests/configs/hard-stop.yaml: WMT22 en-liv, WMT23's protocol on en-de) is made once. Then, in a
copy of it, a forced rerun of one kind of job (``--forcerun <rule>``, as a reviewer reruns one step) is stopped
hard at a named point of that job: the whole run killed with SIGKILL (mtsig.runtime.hard_stop,
``MTSIG_HARD_STOP=<rule>:<point>``) before the job writes anything, between two of its writes, or after its last
one. The recovery the document gives follows, ``snakemake --unlock`` and the same command again, after which every
file under results/ must equal the uninterrupted run's, byte for byte: none missing, none more, none different. The same for a run killed mid-download, from an empty data root through a loopback mirror.

The unit tests below (not slow) check the hook itself: where a job stops, and that it stops the whole group.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from data_mirror import DataMirror
from pipeline_runs import copy_checkout

from mtsig.runtime import hard_stop

REPO = Path(__file__).resolve().parents[1]
CONFIG = REPO / "tests" / "configs" / "hard-stop.yaml"

#: The kinds of job stopped (their rules) and the points: before any write, after the first of its files is
#: renamed into place (an intermediate file's manifest not yet: the two renames of one file), after the last write.
RULES = ("metric_stats", "merge_tests", "human_gold", "figures", "metrics_protocol")
POINTS = ("start", "rename:2", "end")


def _snakemake(workdir: Path, *args: str) -> list[str]:
    """Snakemake on the hard-stop config in ``workdir`` (the checkout's Snakefile and its profile)."""
    return [
        sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--directory", str(workdir),
        "--configfile", str(CONFIG), *args,
    ]  # fmt: skip


def _run(command: list[str], env: dict[str, str], cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False)


def _stopped_hard(command: list[str], env: dict[str, str], point: str, cwd: Path = REPO) -> None:
    """Run ``command`` in a process group of its own with ``MTSIG_HARD_STOP=point``: it must end killed."""
    running = subprocess.Popen(
        command, cwd=cwd, env={**env, hard_stop.HARD_STOP_ENV: point}, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        _, stderr = running.communicate(timeout=600)
    finally:
        if running.poll() is None:
            os.killpg(running.pid, signal.SIGKILL)
    assert running.returncode == -signal.SIGKILL, f"not stopped at {point}:\n{stderr[-3000:]}"


def _recovered(command: list[str], unlock: list[str], env: dict[str, str], cwd: Path = REPO) -> None:
    """docs/artifact-review.md's recovery: ``snakemake --unlock``, then the same command again. (That the run is
    refused before, "Directory cannot be locked", the quick check's test shows: tests/test_verification.py.)"""
    assert _run(unlock, env, cwd).returncode == 0
    done = _run(command, env, cwd)
    assert done.returncode == 0, done.stderr[-5000:]


def _plans_nothing(command: list[str], env: dict[str, str], cwd: Path = REPO) -> None:
    planned = _run([*command, "--dry-run"], env, cwd)
    assert "Nothing to be done" in planned.stdout + planned.stderr, planned.stdout[-3000:]


def _files(results: Path) -> dict[str, str]:
    """Every file under ``results`` (relative path -> sha256 of its bytes)."""
    return {
        p.relative_to(results).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(results.rglob("*"))
        if p.is_file()
    }


def _differences(found: dict[str, str], expected: dict[str, str]) -> list[str]:
    missing = [f"missing: {p}" for p in expected if p not in found]
    extra = [f"not in the uninterrupted run: {p}" for p in found if p not in expected]
    changed = [f"different: {p}" for p in expected if p in found and found[p] != expected[p]]
    return missing + extra + changed


@pytest.fixture(scope="module")
def environment(data_root: Path) -> dict[str, str]:
    return {**os.environ, "MTSIG_DATA": str(data_root)}


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory, environment: dict[str, str]) -> Path:
    """The work folder of the run made without a stop."""
    workdir = tmp_path_factory.mktemp("uninterrupted")
    done = _run(_snakemake(workdir, "--cores", "2"), environment)
    assert done.returncode == 0, done.stderr[-5000:]
    _plans_nothing(_snakemake(workdir), environment)  # every file a target: a finished run is still done
    return workdir


@pytest.mark.slow
@pytest.mark.xdist_group("hard_stop")
@pytest.mark.parametrize("point", POINTS)
@pytest.mark.parametrize("rule", RULES)
def test_a_forced_rerun_stopped_hard_then_run_again_loses_nothing(
    rule: str, point: str, uninterrupted: Path, environment: dict[str, str], tmp_path: Path
) -> None:
    """Three commands (with ``--cores 1``, a job at a time), for each kind of job and point."""
    workdir = tmp_path / "run"
    shutil.copytree(uninterrupted, workdir)  # results, logs and Snakemake's records, times kept
    expected = _files(uninterrupted / "results")
    _stopped_hard(_snakemake(workdir, "--cores", "1", "--forcerun", rule), environment, f"{rule}:{point}")
    _recovered(_snakemake(workdir, "--cores", "2"), _snakemake(workdir, "--unlock"), environment)
    assert _differences(_files(workdir / "results"), expected) == []


@pytest.mark.slow
@pytest.mark.xdist_group("hard_stop")
def test_a_run_stopped_hard_mid_download_then_run_again_loses_nothing(
    uninterrupted: Path, data_root: Path, tmp_path: Path
) -> None:
    """From an empty data root (a clone with nothing beside it: the download root), through a loopback mirror: the
    run killed when a dataset's second file is in place and the others are on their way, then recovered. The
    downloads are the pinned files, no temporary one is left, and the results are the data root's run's."""
    from mtsig.pipeline.data import PARTIAL_SUFFIX, read_manifest, verify

    clone = copy_checkout(tmp_path / "mtsig")
    datasets = ["wmt22-en-liv", "wmt23"]
    command = [sys.executable, "-m", "snakemake", "--configfile", str(CONFIG)]
    with DataMirror(data_root, datasets) as mirror:
        env = {key: value for key, value in os.environ.items() if key != "MTSIG_DATA"}
        env |= {"PWD": str(clone), "PYTHONPATH": str(clone / "src"), "MTSIG_DATA_MIRROR": mirror.url}
        _stopped_hard([*command, "--cores", "1"], env, "download_dataset:rename:2", cwd=clone)
        downloads = clone / "data" / "downloads"
        assert list(downloads.rglob("*")), "nothing was downloaded before the stop"
        _recovered([*command, "--cores", "2"], [*command, "--unlock"], env, cwd=clone)
        _plans_nothing(command, env, cwd=clone)
    # the run fetches only the files its rules read (data/README.md): every one fetched is the pinned file, and the
    # results below show that nothing it needed is missing
    manifest = read_manifest(REPO / "data" / "sources.tsv")
    rows = manifest[manifest["dataset"].isin(datasets)]
    fetched = rows[[(downloads / row.dataset / row.path).is_file() for row in rows.itertuples()]]
    assert len(fetched) > 0 and verify(fetched, downloads) == []
    assert not [p for p in downloads.rglob(f"*{PARTIAL_SUFFIX}")]
    assert _differences(_files(clone / "results"), _files(uninterrupted / "results")) == []


# --- the hook itself ------------------------------------------------------------------------------------------------


def test_the_hard_stop_names_a_rule_and_a_point() -> None:
    assert hard_stop.parse_hard_stop("metric_stats:start") == ("metric_stats", "start")
    assert hard_stop.parse_hard_stop("figures:rename:12") == ("figures", "rename:12")
    assert hard_stop.parse_hard_stop("download_dataset:end") == ("download_dataset", "end")
    for wrong in ("metric_stats", "metric_stats:middle", "x:rename", "x:rename:0", "x:start:1", ":end"):
        with pytest.raises(ValueError, match="MTSIG_HARD_STOP"):
            hard_stop.parse_hard_stop(wrong)


def test_only_the_named_rule_or_its_step_is_armed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(hard_stop.HARD_STOP_ENV, "download_dataset:rename:3")
    assert hard_stop.arm("download_dataset__wmt23", "download_dataset") == "rename:3"
    assert hard_stop.arm("metric_stats", "metric_stats") is None
    monkeypatch.delenv(hard_stop.HARD_STOP_ENV)
    assert hard_stop.arm("download_dataset__wmt23", "download_dataset") is None
    hard_stop.reached("start")  # disarmed: nothing happens
    hard_stop.renaming()


#: A job in a process group of its own (as Snakemake and its jobs are, started with start_new_session): a child
#: sleeps in the group, the job writes three files through mtsig.steps.files, each renamed into place.
_JOB = """
import subprocess, sys
from pathlib import Path
from mtsig.runtime import hard_stop
from mtsig.steps.files import write_text, write_tsv
import pandas as pd

child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
Path(sys.argv[2]).write_text(str(child.pid))
out = Path(sys.argv[1])
hard_stop.arm("rule_x", "rule_x")
hard_stop.reached("start")
write_text("a\\n", out / "a.txt")
write_tsv(pd.DataFrame({"x": [1]}), out / "b.tsv", made_by="rule_x")
hard_stop.reached("end")
print("ran through")
"""


@pytest.mark.parametrize(
    ("point", "left"),
    [
        ("start", []),
        ("rename:1", ["a.txt.tmp"]),  # the first file complete, not yet in place
        ("rename:2", ["a.txt", "b.tsv.manifest.json.tmp", "b.tsv.tmp"]),
        ("rename:3", ["a.txt", "b.tsv", "b.tsv.manifest.json.tmp"]),  # a file in place, its manifest not
        ("end", ["a.txt", "b.tsv", "b.tsv.manifest.json"]),
    ],
)
def test_a_job_stops_its_whole_process_group_at_the_point(
    point: str, left: list[str], tmp_path: Path
) -> None:
    out, pid_file = tmp_path / "out", tmp_path / "child.pid"
    env = {**os.environ, hard_stop.HARD_STOP_ENV: f"rule_x:{point}", "PYTHONPATH": str(REPO / "src")}
    done = subprocess.run(
        [sys.executable, "-c", _JOB, str(out), str(pid_file)],
        env=env, capture_output=True, text=True, timeout=120, start_new_session=True,
    )  # fmt: skip
    assert done.returncode == -signal.SIGKILL and "ran through" not in done.stdout, done.stderr
    assert _gone(int(pid_file.read_text())), "the job's child outlived the stop"
    written = sorted(p.name for p in out.iterdir()) if out.exists() else []
    assert written == left


def _gone(pid: int, wait_seconds: float = 10.0) -> bool:
    """Whether process ``pid`` is gone (or a zombie: killed, not yet reaped) within ``wait_seconds``."""
    import time

    deadline = time.monotonic() + wait_seconds
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False
