"""The Slurm path: workflows run through snakemake-executor-plugin-slurm on a single-node cluster started
on this machine, and produce the same bytes as a local run.

Nothing here skips: a machine where the cluster cannot be installed or started fails these tests with the
daemons' logs. Needs root and the Debian mirror (tests/slurm_cluster.py installs Slurm with apt-get if missing).
"""

from __future__ import annotations

import hashlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from slurm_cluster import (
    MIN_JOB_AGE_SECONDS,
    SLURM_CONF,
    SLURM_PORTS,
    SlurmCluster,
    ensure_slurm_installed,
    node_definition,
    render_slurm_conf,
    start_cluster,
    stop_cluster,
)

pytestmark = pytest.mark.slurm

REPO = Path(__file__).resolve().parents[1]
SLURM_PROFILE = REPO / "profiles" / "slurm"
TINY_CONFIG = REPO / "tests" / "configs" / "tiny.yaml"

# Settings of the test cluster, not of the profile: it has no accounting database, so `sacct` fails and the
# executor must poll `squeue` (finished jobs stay visible for MinJobAge = 300 s >= 3 x 15 s, the plugin's rule)
# and must not guess an account. A toy job is little more than two snakemake start-ups: a first check at 15 s
# finds it done, while an earlier one misses it and the plugin's back-off (+10 s a check) costs more than it saves.
# Real clusters keep the plugin's defaults (sacct when available, first check at 40 s).
FIRST_STATUS_CHECK_SECONDS = 15
TEST_CLUSTER_OPTIONS = (
    "--slurm-status-command=squeue",
    f"--slurm-init-seconds-before-status-checks={FIRST_STATUS_CHECK_SECONDS}",
    "--slurm-no-account",
)
TOY_TIMEOUT_SECONDS = 300
PIPELINE_TIMEOUT_SECONDS = 1800

TOY_SNAKEFILE = r"""
NUMBERS = [10, 100]


rule all:
    input:
        "results/summary.txt",


rule numbers:
    output:
        "results/numbers/{n}.txt",
    log:
        "logs/numbers/{n}.log",
    shell:
        "seq 1 {wildcards.n} > {output} && echo slurm_job_id=${{SLURM_JOB_ID:-none}} > {log}"


rule total:
    input:
        "results/numbers/{n}.txt",
    output:
        "results/totals/{n}.txt",
    log:
        "logs/totals/{n}.log",
    shell:
        "awk '{{s += $1}} END {{print s}}' {input} > {output} && echo slurm_job_id=${{SLURM_JOB_ID:-none}} > {log}"


rule summary:
    input:
        expand("results/totals/{n}.txt", n=NUMBERS),
    output:
        "results/summary.txt",
    log:
        "logs/summary.log",
    shell:
        "cat {input} > {output} && echo slurm_job_id=${{SLURM_JOB_ID:-none}} > {log}"
"""


@pytest.fixture(scope="session")
def slurm_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SlurmCluster]:
    """A single-node Slurm cluster for the whole session; an install or start failure is an error, not a skip."""
    install_seconds = ensure_slurm_installed()
    conf_before = SLURM_CONF.read_bytes() if SLURM_CONF.exists() else None
    cluster = start_cluster(tmp_path_factory.mktemp("slurm-state"))
    print(f"slurm: install {install_seconds:.1f} s, cluster start {cluster.start_seconds:.1f} s")
    yield cluster
    stop_cluster(cluster)
    assert all(process.poll() is not None for process in cluster.processes.values())
    assert (SLURM_CONF.read_bytes() if SLURM_CONF.exists() else None) == conf_before, (
        f"{SLURM_CONF} not restored"
    )


def run_snakemake(arguments: list[str], log_path: Path, timeout: float) -> float:
    """Run snakemake with this Python; return its wall time, or fail with the log's tail.

    A snakemake waiting on a cluster ignores SIGTERM and SIGINT, so a run past ``timeout`` gets SIGKILL for its
    whole process group (its own session), and the test fails instead of hanging.
    """
    command = [sys.executable, "-m", "snakemake", *arguments]
    started = time.monotonic()
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            returncode = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            pytest.fail(
                f"snakemake ran past {timeout} s and was killed: {' '.join(command)}\n{_tail(log_path)}"
            )
    elapsed = time.monotonic() - started
    if returncode != 0:
        pytest.fail(f"snakemake exited with code {returncode}: {' '.join(command)}\n{_tail(log_path)}")
    return elapsed


def slurm_time_limit(minutes: int) -> str:
    """A time limit as squeue prints it (%l): [days-][hours:]minutes:seconds, hours shown from one hour on."""
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    if days:
        return f"{days}-{hours:02d}:{minutes:02d}:00"
    return f"{hours}:{minutes:02d}:00" if hours else f"{minutes}:00"


def source_fingerprint(repo: Path = REPO) -> str:
    """SHA-256 over the pipeline's code (Snakefile, workflow/, src/), to tell a code edit from nondeterminism."""
    digest = hashlib.sha256()
    files = [
        repo / "Snakefile",
        *sorted((repo / "workflow").rglob("*")),
        *sorted((repo / "src").rglob("*.py")),
    ]
    for path in files:
        if path.is_file():
            digest.update(str(path.relative_to(repo)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def tree_differences(left: Path, right: Path) -> list[str]:
    """Every file present in only one tree or with different bytes, as readable lines (empty: identical)."""
    left_files = {p.relative_to(left) for p in left.rglob("*") if p.is_file()}
    right_files = {p.relative_to(right) for p in right.rglob("*") if p.is_file()}
    differences = [f"only in {left}: {p}" for p in sorted(left_files - right_files)]
    differences += [f"only in {right}: {p}" for p in sorted(right_files - left_files)]
    differences += [
        f"bytes differ: {p}"
        for p in sorted(left_files & right_files)
        if (left / p).read_bytes() != (right / p).read_bytes()
    ]
    return differences


def test_node_definition_pins_address_and_drops_uptime() -> None:
    probed = (
        "NodeName=vm CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=24105\n"
        "UpTime=0-00:17:16\n"
    )
    assert node_definition(probed) == (
        "NodeName=vm CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=24105 "
        "NodeAddr=127.0.0.1 State=UNKNOWN"
    )
    with pytest.raises(RuntimeError, match="no single NodeName"):
        node_definition("UpTime=0-00:17:16\n")


def test_rendered_conf_keeps_finished_jobs_visible_to_squeue(tmp_path: Path) -> None:
    """squeue as the status command needs MinJobAge >= 3 x the first status check (the plugin's own threshold)."""
    conf = render_slurm_conf("vm", "NodeName=vm CPUs=2 NodeAddr=127.0.0.1", tmp_path)
    settings = dict(line.split("=", 1) for line in conf.splitlines() if line and not line.startswith("#"))
    assert int(settings["MinJobAge"]) == MIN_JOB_AGE_SECONDS >= 3 * FIRST_STATUS_CHECK_SECONDS
    assert settings["AccountingStorageType"] == "accounting_storage/none"
    assert settings["SlurmctldHost"] == "vm(127.0.0.1)"
    assert settings["StateSaveLocation"] == f"{tmp_path}/ctld"
    assert "$" not in conf


def test_start_cluster_refuses_a_taken_port(tmp_path: Path) -> None:
    """A port held by another process (e.g. a daemon left by a killed run) is a clear error, not a hang."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            holder.bind(("127.0.0.1", SLURM_PORTS["slurmctld"]))
            holder.listen()
        except OSError:
            pass  # the session's cluster already holds it, which must be refused just the same
        with pytest.raises(RuntimeError, match=f"port {SLURM_PORTS['slurmctld']} .*already in use"):
            start_cluster(tmp_path)
    assert not (tmp_path / "slurm.conf").exists()


def test_slurm_time_limit_matches_squeue_layout() -> None:
    # Printed by Slurm 22.05's squeue --format=%l for sbatch --time=30, 60, 605 and 1500 (minutes).
    assert [slurm_time_limit(m) for m in (30, 60, 605, 1500)] == [
        "30:00",
        "1:00:00",
        "10:05:00",
        "1-01:00:00",
    ]


def test_tree_differences_finds_missing_and_changed_files(tmp_path: Path) -> None:
    left, right = tmp_path / "left", tmp_path / "right"
    for root in (left, right):
        (root / "sub").mkdir(parents=True)
        (root / "sub" / "same.txt").write_bytes(b"1\n")
    (left / "changed.txt").write_bytes(b"a")
    (right / "changed.txt").write_bytes(b"b")
    (left / "sub" / "extra.txt").write_bytes(b"")
    assert tree_differences(left, right) == [f"only in {left}: sub/extra.txt", "bytes differ: changed.txt"]
    (left / "sub" / "extra.txt").unlink()
    (right / "changed.txt").write_bytes(b"a")
    assert tree_differences(left, right) == []


@pytest.mark.slow
def test_toy_workflow_runs_through_slurm_executor(slurm_cluster: SlurmCluster, tmp_path: Path) -> None:
    """Three rules (five jobs) through sbatch/srun with the repository's slurm profile; same bytes as locally."""
    snakefile = tmp_path / "Snakefile"
    snakefile.write_text(TOY_SNAKEFILE)
    local_dir, slurm_dir = tmp_path / "local", tmp_path / "slurm"
    common = ["--snakefile", str(snakefile), "--nolock"]

    run_snakemake([*common, "--directory", str(local_dir), "--cores", "1"], tmp_path / "local.log", 120)
    slurm_seconds = run_snakemake(
        [*common, "--directory", str(slurm_dir), "--profile", str(SLURM_PROFILE), *TEST_CLUSTER_OPTIONS],
        tmp_path / "slurm.log",
        TOY_TIMEOUT_SECONDS,
    )
    print(f"slurm: toy workflow (5 jobs) through the executor in {slurm_seconds:.1f} s")

    # Hand oracle: 1 + ... + 10 = 10 * 11 / 2 = 55 and 1 + ... + 100 = 100 * 101 / 2 = 5050.
    assert (slurm_dir / "results" / "summary.txt").read_text() == "55\n5050\n"
    assert tree_differences(local_dir / "results", slurm_dir / "results") == []

    # Every job ran inside a Slurm allocation, each its own job (no job ran on the submitting host).
    job_logs = sorted((slurm_dir / "logs").rglob("*.log"))
    assert len(job_logs) == 5
    job_ids = {re.fullmatch(r"slurm_job_id=(\d+)\n", path.read_text()) for path in job_logs}
    assert None not in job_ids, [path.read_text() for path in job_logs]
    slurm_job_ids = {match.group(1) for match in job_ids}
    assert len(slurm_job_ids) == 5
    local_logs = {path.read_text() for path in (local_dir / "logs").rglob("*.log")}
    assert local_logs == {"slurm_job_id=none\n"}

    # The profile's default-resources reached sbatch: Slurm recorded --mem and --time for every job.
    defaults = yaml.safe_load((SLURM_PROFILE / "config.yaml").read_text())["default-resources"]
    listing = subprocess.run(
        [
            "squeue",
            "--noheader",
            "--states=all",
            f"--jobs={','.join(sorted(slurm_job_ids))}",
            "--format=%m %l",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert (
        listing.stdout.splitlines() == [f"{defaults['mem_mb']}M {slurm_time_limit(defaults['runtime'])}"] * 5
    )


@pytest.mark.slow
@pytest.mark.pipeline
def test_pipeline_through_slurm_matches_local_run(
    slurm_cluster: SlurmCluster, data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real pipeline on tests/configs/tiny.yaml: every file under results/ is byte-identical to a local run."""
    if not TINY_CONFIG.is_file():
        pytest.fail(
            f"{TINY_CONFIG} does not exist: the Slurm comparison runs the pipeline on that small config"
        )
    monkeypatch.setenv("MTSIG_DATA", str(data_root))
    local_dir, slurm_dir = tmp_path / "local", tmp_path / "slurm"
    common = ["--snakefile", str(REPO / "Snakefile"), "--configfile", str(TINY_CONFIG), "--nolock"]

    code_before = source_fingerprint()
    local_seconds = run_snakemake(
        [*common, "--directory", str(local_dir), "--cores", "2"],
        tmp_path / "local.log",
        PIPELINE_TIMEOUT_SECONDS,
    )
    slurm_seconds = run_snakemake(
        [*common, "--directory", str(slurm_dir), "--profile", str(SLURM_PROFILE), *TEST_CLUSTER_OPTIONS],
        tmp_path / "slurm.log",
        PIPELINE_TIMEOUT_SECONDS,
    )
    print(
        f"slurm: tiny pipeline locally in {local_seconds:.1f} s, through the executor in {slurm_seconds:.1f} s"
    )

    local_files = [p for p in (local_dir / "results").rglob("*") if p.is_file()]
    assert local_files, f"the local run wrote nothing under {local_dir / 'results'}"
    differences = tree_differences(local_dir / "results", slurm_dir / "results")
    if differences and source_fingerprint() != code_before:
        pytest.fail(
            "the pipeline's code changed between the two runs, so they cannot be compared: rerun the test"
        )
    assert differences == [], "\n".join(differences)


def _tail(path: Path, lines: int = 60) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
