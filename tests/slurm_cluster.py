"""A throwaway single-node Slurm cluster on this machine, for tests/test_slurm.py.

The cluster is Debian's Slurm (slurmctld + slurmd) authenticated by munge, with no accounting database and no
cgroups, so it starts as root inside a container or a CI runner without systemd. ``start_cluster`` writes
``/etc/slurm/slurm.conf`` (backing up any existing file), starts the daemons in the foreground as children of
this process and waits until the node is idle; ``stop_cluster`` cancels every job, stops exactly the daemons it
started and restores every file it replaced. Nothing here skips: a cluster that cannot start raises with the
daemons' logs, because the test exists to prove the Slurm path works.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import string
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

SLURM_CONF = Path("/etc/slurm/slurm.conf")
SLURM_CONF_TEMPLATE = Path(__file__).resolve().parent / "slurm" / "slurm.conf.template"
MUNGE_KEY = Path("/etc/munge/munge.key")
MUNGE_SOCKET_DIR = Path("/run/munge")
POLICY_RC_D = Path("/usr/sbin/policy-rc.d")

DEBIAN_PACKAGES = ("slurmctld", "slurmd", "slurm-client", "munge")
REQUIRED_PROGRAMS = ("munged", "munge", "unmunge", "slurmctld", "slurmd", "sbatch", "srun", "squeue", "sinfo")

# Finished jobs must stay visible to squeue (the executor's status command without accounting) for at least
# three first status-check intervals; 300 s is Slurm's own default and leaves a wide margin over 3 x 15 s.
MIN_JOB_AGE_SECONDS = 300
START_TIMEOUT_SECONDS = 60.0
STOP_TIMEOUT_SECONDS = 15.0
LOG_TAIL_LINES = 40
SLURM_PORTS = {"slurmctld": 6817, "slurmd": 6818}  # Slurm's defaults; the template keeps them


@dataclass
class SlurmCluster:
    """What ``start_cluster`` changed on the machine, so that ``stop_cluster`` can undo exactly that."""

    state_dir: Path
    processes: dict[str, subprocess.Popen] = field(default_factory=dict)  # in start order
    log_files: dict[str, Path] = field(default_factory=dict)
    conf_backup: Path | None = None
    wrote_conf: bool = False
    created_munge_key: bool = False
    start_seconds: float = float("nan")


def missing_programs() -> list[str]:
    """The Slurm and munge programs the cluster needs that are not on PATH (or in /usr/sbin)."""
    search_path = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])
    return [name for name in REQUIRED_PROGRAMS if shutil.which(name, path=search_path) is None]


def ensure_slurm_installed() -> float:
    """Install Debian's Slurm 22.05 and munge with apt-get if any program is missing; return the seconds spent.

    Needs root and the Debian mirror (the only network CI has). While installing, a temporary
    ``policy-rc.d`` stops the packages' init scripts from starting daemons we would not own; it is removed
    afterwards (an existing one, as in Docker images, is left untouched).
    """
    if not missing_programs():
        return 0.0
    if os.geteuid() != 0:
        raise RuntimeError(
            f"Slurm is not installed (missing: {', '.join(missing_programs())}) and installing it needs root: "
            f"apt-get install -y {' '.join(DEBIAN_PACKAGES)}"
        )
    started = time.monotonic()
    added_policy = not POLICY_RC_D.exists()
    if added_policy:
        POLICY_RC_D.write_text("#!/bin/sh\n# temporary, written by mtsig tests/slurm_cluster.py\nexit 101\n")
        POLICY_RC_D.chmod(0o755)
    try:
        environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        for command in (
            ["apt-get", "update", "-q"],
            ["apt-get", "install", "-y", "-q", "--no-install-recommends", *DEBIAN_PACKAGES],
        ):
            completed = subprocess.run(command, env=environment, capture_output=True, text=True)
            if completed.returncode != 0:
                raise RuntimeError(
                    f"`{' '.join(command)}` failed with exit code {completed.returncode}:\n"
                    + _tail(completed.stdout + completed.stderr)
                )
    finally:
        if added_policy:
            POLICY_RC_D.unlink(missing_ok=True)
    if missing_programs():
        raise RuntimeError(
            f"apt-get installed {DEBIAN_PACKAGES} but these are still missing: {missing_programs()}"
        )
    return time.monotonic() - started


def node_definition(slurmd_c_output: str, address: str = "127.0.0.1") -> str:
    """The ``NodeName=...`` line for slurm.conf from ``slurmd -C`` output, with the node's address pinned.

    ``slurmd -C`` prints the hardware slurmd will detect (CPUs, sockets, cores, RealMemory); declaring exactly
    that keeps the node from being drained for a configuration mismatch. Its ``UpTime`` line is dropped.
    """
    node_lines = [line.strip() for line in slurmd_c_output.splitlines() if line.startswith("NodeName=")]
    if len(node_lines) != 1:
        raise RuntimeError(f"`slurmd -C` printed no single NodeName line:\n{slurmd_c_output}")
    return f"{node_lines[0]} NodeAddr={address} State=UNKNOWN"


def render_slurm_conf(
    hostname: str, node_line: str, state_dir: Path, min_job_age: int = MIN_JOB_AGE_SECONDS
) -> str:
    """slurm.conf for a one-node cluster on this machine, from tests/slurm/slurm.conf.template."""
    template = string.Template(SLURM_CONF_TEMPLATE.read_text())
    return template.substitute(
        hostname=hostname, node_definition=node_line, state_dir=str(state_dir), min_job_age=min_job_age
    )


def start_cluster(state_dir: Path) -> SlurmCluster:
    """Start munged (unless one already answers), slurmctld and slurmd; return once the node is idle.

    ``state_dir`` receives the daemons' state, spool, pid and log files. On any failure everything started so
    far is stopped and restored before the error (with the daemons' log tails) is raised.
    """
    started = time.monotonic()
    state_dir = Path(state_dir).resolve()
    state_dir.mkdir(parents=True, exist_ok=True)
    for daemon, port in SLURM_PORTS.items():
        if _port_in_use(port):
            raise RuntimeError(
                f"port {port} (for {daemon}) is already in use on 127.0.0.1: is a Slurm daemon left over from an "
                "earlier run? Stop it by its process id and retry."
            )
    cluster = SlurmCluster(state_dir=state_dir)
    try:
        _start_munge(cluster)
        _write_slurm_conf(cluster)
        # slurmctld first: slurmd registers with it on start-up.
        _start_daemon(cluster, "slurmctld", ["slurmctld", "-D", "-c"])
        _start_daemon(cluster, "slurmd", ["slurmd", "-D"])
        _wait_for_idle_node(cluster, START_TIMEOUT_SECONDS)
    except BaseException:
        print(cluster_logs(cluster))  # pytest shows a failing fixture's captured output
        stop_cluster(cluster)
        raise
    cluster.start_seconds = time.monotonic() - started
    return cluster


def stop_cluster(cluster: SlurmCluster) -> None:
    """Cancel every job, stop the daemons this cluster started (newest first) and restore replaced files."""
    if "slurmctld" in cluster.processes and cluster.processes["slurmctld"].poll() is None:
        _cancel_all_jobs()
    for name in reversed(list(cluster.processes)):
        _stop_process(cluster.processes[name])
    if cluster.wrote_conf:
        SLURM_CONF.unlink(missing_ok=True)
        cluster.wrote_conf = False
    if cluster.conf_backup is not None:
        cluster.conf_backup.replace(SLURM_CONF)
        cluster.conf_backup = None
    if cluster.created_munge_key:
        MUNGE_KEY.unlink(missing_ok=True)
        cluster.created_munge_key = False


def _cancel_all_jobs(timeout: float = 30.0) -> None:
    """Cancel every job of this (private) cluster and wait until none runs, so no slurmstepd outlives slurmd."""
    subprocess.run(["scancel", "--user", str(os.geteuid())], capture_output=True, timeout=timeout)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        listing = subprocess.run(
            ["squeue", "--noheader", "--states=PENDING,RUNNING,COMPLETING,CONFIGURING", "--format=%i"],
            capture_output=True,
            text=True,
        )
        if listing.returncode != 0 or not listing.stdout.strip():
            return
        time.sleep(0.5)


def cluster_logs(cluster: SlurmCluster) -> str:
    """The last lines of every daemon's log, for error messages."""
    sections = []
    for name, path in cluster.log_files.items():
        text = path.read_text(errors="replace") if path.exists() else "(no log file)"
        sections.append(f"----- {name}: {path} -----\n{_tail(text)}")
    return "\n".join(sections)


def _start_munge(cluster: SlurmCluster) -> None:
    """Reuse a munged that already answers on the default socket; otherwise start one as the munge user."""
    if _munge_works():
        return
    if not MUNGE_KEY.exists():
        # The Debian package creates the key; a machine that lost it gets a fresh one we remove afterwards.
        subprocess.run(["mungekey", "--create", f"--keyfile={MUNGE_KEY}"], check=True, capture_output=True)
        shutil.chown(MUNGE_KEY, "munge", "munge")
        MUNGE_KEY.chmod(0o400)
        cluster.created_munge_key = True
    # /run is a tmpfs without systemd's tmpfiles.d: create the socket directory munged insists on owning.
    MUNGE_SOCKET_DIR.mkdir(mode=0o755, exist_ok=True)
    shutil.chown(MUNGE_SOCKET_DIR, "munge", "munge")
    _start_daemon(cluster, "munged", ["munged", "--foreground"], user="munge", group="munge")
    _wait_until(_munge_works, 15.0, "munged does not answer on its socket", cluster)


def _port_in_use(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _munge_works() -> bool:
    """Whether a credential encoded by munge decodes with unmunge (i.e. a munged serves the default socket)."""
    try:
        encoded = subprocess.run(["munge", "-n"], capture_output=True, timeout=10)
        if encoded.returncode != 0:
            return False
        decoded = subprocess.run(["unmunge"], input=encoded.stdout, capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return decoded.returncode == 0


def _write_slurm_conf(cluster: SlurmCluster) -> None:
    """Write /etc/slurm/slurm.conf for this machine, moving any existing one aside (restored by stop)."""
    hostname = socket.gethostname().split(".")[0]
    probed = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, check=True)
    conf = render_slurm_conf(hostname, node_definition(probed.stdout), cluster.state_dir)
    SLURM_CONF.parent.mkdir(parents=True, exist_ok=True)
    if SLURM_CONF.exists():
        cluster.conf_backup = SLURM_CONF.with_name(f"slurm.conf.mtsig-backup-{os.getpid()}")
        SLURM_CONF.replace(cluster.conf_backup)
    SLURM_CONF.write_text(conf)
    cluster.wrote_conf = True
    (cluster.state_dir / "slurm.conf").write_text(conf)  # a copy next to the logs, for debugging


def _start_daemon(cluster: SlurmCluster, name: str, command: list[str], **popen_user) -> None:
    """Start a daemon in the foreground in its own session; its stdout/stderr go to <state_dir>/<name>.out."""
    output_path = cluster.state_dir / f"{name}.out"
    with output_path.open("wb") as output:
        process = subprocess.Popen(
            command,
            stdout=output,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            **popen_user,
        )
    cluster.processes[name] = process
    cluster.log_files[f"{name} output"] = output_path
    log_path = cluster.state_dir / f"{name}.log"
    if name.startswith("slurm"):
        cluster.log_files[name] = log_path


def _wait_for_idle_node(cluster: SlurmCluster, timeout: float) -> None:
    def node_idle() -> bool:
        for name, process in cluster.processes.items():
            if process.poll() is not None:
                raise RuntimeError(
                    f"{name} exited with code {process.returncode} while the cluster was starting"
                )
        listing = subprocess.run(
            ["sinfo", "--noheader", "--Node", "--format=%T"], capture_output=True, text=True
        )
        return listing.returncode == 0 and listing.stdout.split() == ["idle"]

    _wait_until(node_idle, timeout, "the Slurm node did not become idle", cluster)


def _wait_until(condition, timeout: float, problem: str, cluster: SlurmCluster) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"{problem} within {timeout:.0f} s.\n{cluster_logs(cluster)}")
        time.sleep(0.5)


def _stop_process(process: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL after a grace period; only this process (and its session), never by name."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=STOP_TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=STOP_TIMEOUT_SECONDS)


def _tail(text: str, lines: int = LOG_TAIL_LINES) -> str:
    return "\n".join(text.splitlines()[-lines:])
