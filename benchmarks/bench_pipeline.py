"""The whole default run and the test command, timed as a user runs them; the table of their exact measurements.

    python benchmarks/bench_pipeline.py --default-run --test-command   # writes benchmarks/timings.md
    python benchmarks/bench_pipeline.py --cores 2,8                    # the default run at each --cores, per rule
    python benchmarks/bench_pipeline.py --cores 2 --until metric_stats --experiments wmt12-es-en,wmt12-en-es
    python benchmarks/bench_pipeline.py --cores 2 --until merge_tests --experiments wmt12-es-en \\
        --checkouts .,../main --repeats 2                              # the same jobs by two checkouts, alternating

`--default-run` runs README's `snakemake --cores 8` from an empty work directory (Snakemake's `--directory`, so the
checkout's own results/ are untouched), then `mtsig verify` on its results; `--test-command` runs README's test
command in the checkout. Both write their row of `benchmarks/timings.md` (the other row is kept): wall time, CPU
seconds of every process (user + system, `getrusage` of the waited-for children), the test count, the machine's
cores, the date and the commit. README and docs give rounded figures and link that table.

Without `--default-run` or `--test-command`, each run prints its wall time, the load, the CPU of all processes, of
the Snakemake process itself and of the jobs (the file each job writes beside its log,
`logs/{exp}/{rule}.benchmark.tsv`: `mtsig.runtime.job_usage`), the CPU spent after the jobs' own accounting (their
interpreters' teardown and shells), how long Snakemake ran after the last job ended, and per rule the jobs' wall
and CPU times and peak memory. `--checkouts` runs another checkout's Snakefile and code on the same targets
(each run in a fresh work directory), to measure a change with and without it. Nothing is asserted (README.md:
timings depend on the machine and its load).
"""

from __future__ import annotations

import argparse
import collections
import datetime
import os
import re
import resource
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from bench_growth import job_table, load

REPO = Path(__file__).resolve().parents[1]
TIMINGS = REPO / "benchmarks" / "timings.md"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
#: README's quick start, as printed there (tests/test_workflow.py checks both).
DEFAULT_RUN_COMMAND = "snakemake --cores 8"
TEST_COMMAND = "python -m pytest -q -n auto"
TIMINGS_COLUMNS = ("command", "wall", "wall_s", "cpu_s", "user_s", "system_s", "tests", "jobs", "outputs")
TIMINGS_CONTEXT = ("cores", "date", "commit", "load_before", "load_mean")


def process_cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of one process (not its children), from Linux's /proc; None once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime


class RunMonitor(threading.Thread):
    """Samples the load average and the Snakemake process's own CPU time every ``interval`` seconds."""

    def __init__(self, pid: int, interval: float = 1.0) -> None:
        super().__init__(daemon=True)
        self.pid, self.interval = pid, interval
        self.loads: list[float] = []
        self.main_cpu = 0.0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            self.loads.append(os.getloadavg()[0])
            cpu = process_cpu_seconds(self.pid)
            if cpu is not None:
                self.main_cpu = cpu
            self.done.wait(self.interval)


@dataclass
class Measured:
    """One command's wall time, the CPU of every process it started (user, system) and its output."""

    wall: float
    user: float
    system: float
    output: str
    returncode: int
    end: float  # time.time() when the command ended
    load_before: str
    monitor: RunMonitor | None = field(default=None, repr=False)

    @property
    def cpu(self) -> float:
        return self.user + self.system


def measure(command: list[str], cwd: Path, monitored: bool = False) -> Measured:
    """Run ``command`` in ``cwd``; its wall time and the CPU of its process tree (``getrusage`` of the children this
    process waited for: the command and everything it waited for in turn)."""
    before, children = load(), resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    monitor = RunMonitor(process.pid) if monitored else None
    if monitor:
        monitor.start()
    output, _ = process.communicate()
    wall, end = time.perf_counter() - start, time.time()
    if monitor:
        monitor.done.set()
        monitor.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    user, system = after.ru_utime - children.ru_utime, after.ru_stime - children.ru_stime
    return Measured(wall, user, system, output, process.returncode, end, before, monitor)


def numba_cache_present(checkout: Path) -> bool:
    return any((checkout / "src" / "mtsig" / "metrics" / "__pycache__").glob("*.nbi"))


def pipeline_command(checkout: Path, workdir: Path, cores: int, until: str | None, experiments: list[str]):
    """``snakemake --cores N`` of ``checkout``'s Snakefile (and profiles/default: run from the checkout), its
    results and logs in ``workdir``."""
    command = [sys.executable, "-m", "snakemake", "-s", str(checkout / "Snakefile")]
    command += ["--directory", str(workdir), "--cores", str(cores)]
    if experiments:
        overlay = workdir / "experiments.yaml"
        overlay.write_text(yaml.safe_dump({"run": experiments}))
        command += ["--configfile", str(checkout / "config" / "config.yaml"), str(overlay)]
    if until:
        command += ["--until", until]
    return command


def run_pipeline(
    checkout: Path, workdir: Path, cores: int, until: str | None = None, experiments: tuple[str, ...] = ()
) -> tuple[Measured, list[tuple]]:
    """One run from an empty ``workdir``: its measurement and the jobs' usage rows (:func:`bench_growth.job_table`)."""
    workdir.mkdir(parents=True, exist_ok=True)
    command = pipeline_command(checkout, workdir, cores, until, list(experiments))
    measured = measure(command, checkout, monitored=True)
    if measured.returncode != 0:
        print(measured.output[-6000:], file=sys.stderr)
        raise SystemExit(f"snakemake failed (exit {measured.returncode}) in {workdir}")
    return measured, job_table(workdir / "logs")


def last_job_end(logs: Path) -> float:
    """When the last job ended: the newest of the usage files each job writes as its last act."""
    return max((path.stat().st_mtime for path in logs.rglob("*.benchmark.tsv")), default=float("nan"))


def print_run(title: str, measured: Measured, jobs: list[tuple], logs: Path) -> dict[str, float]:
    """Print one run's figures and per-rule table; return its headline figures."""
    jobs_cpu = sum(job[2] for job in jobs)
    own = measured.monitor.main_cpu if measured.monitor else float("nan")
    loads = measured.monitor.loads if measured.monitor else []
    minutes, seconds = divmod(round(measured.wall), 60)
    print(f"\n{title}")
    print(f"  wall {measured.wall:.1f} s ({minutes} min {seconds} s), {len(jobs)} jobs")
    print(f"  load before {measured.load_before}; mean 1-min load {sum(loads) / max(len(loads), 1):.2f}")
    print(
        f"  CPU: all processes {measured.cpu:.1f} s ({measured.user:.1f} user, {measured.system:.1f} system)"
    )
    print(f"       the Snakemake process {own:.1f} s, the jobs' own accounting {jobs_cpu:.1f} s,")
    print(
        f"       the rest (after the jobs' accounting: interpreter teardown, shells) {measured.cpu - own - jobs_cpu:.1f} s"
    )
    print(f"  Snakemake ended {measured.end - last_job_end(logs):.1f} s after the last job")
    print(f"  {'rule':<26} {'jobs':>5} {'wall s':>8} {'longest':>8} {'CPU s':>8} {'max_rss MB':>11}")
    by_rule: dict[str, list[tuple]] = collections.defaultdict(list)
    for job, wall, cpu, rss, _load in jobs:
        by_rule[Path(job).name.split(".")[0]].append((wall, cpu, rss))
    for rule, rows in sorted(by_rule.items(), key=lambda item: -sum(r[1] for r in item[1])):
        walls, cpus, rsss = zip(*rows, strict=True)
        print(
            f"  {rule:<26} {len(rows):>5} {sum(walls):>8.1f} {max(walls):>8.1f} {sum(cpus):>8.1f} {max(rsss):>11.0f}"
        )
    return {"wall": measured.wall, "cpu": measured.cpu, "snakemake": own, "jobs": jobs_cpu}


def compare_runs(args: argparse.Namespace, temporary: Path) -> None:
    """Every --cores value with every checkout, ``--repeats`` rounds, alternating; then each setting's ranges."""
    experiments = tuple(e for e in args.experiments.split(",") if e)
    checkouts = [
        (Path(c) if Path(c).is_absolute() else Path.cwd() / c).resolve() for c in args.checkouts.split(",")
    ]
    results: dict[str, list[dict[str, float]]] = collections.defaultdict(list)
    for repeat in range(args.repeats):
        for cores in (int(c) for c in args.cores.split(",") if c):
            for index, checkout in enumerate(checkouts):
                workdir = (args.workdir or temporary) / f"run-{repeat}-{cores}-{index}"
                cache = numba_cache_present(checkout)
                measured, jobs = run_pipeline(checkout, workdir, cores, args.until, experiments)
                scope = f"up to rule {args.until}" if args.until else "the whole run"
                chosen = f" of {', '.join(experiments)}" if experiments else " (config/config.yaml)"
                title = f"{checkout}: {scope}{chosen}, --cores {cores} (numba cache before: {cache})"
                results[f"{checkout} --cores {cores}"].append(
                    print_run(title, measured, jobs, workdir / "logs")
                )
    print("\nranges over the repeats (wall s; CPU s of all processes / Snakemake / the jobs):")
    for setting, runs in results.items():
        ranges = [
            f"{min(r[k] for r in runs):.1f}-{max(r[k] for r in runs):.1f}"
            for k in ("wall", "cpu", "snakemake", "jobs")
        ]
        print(f"  {setting}: wall {ranges[0]}; CPU {ranges[1]} / {ranges[2]} / {ranges[3]}")


def commit() -> str:
    """This checkout's commit, with ``+changes`` when files tracked by git differ from it (the timings table
    itself aside: the first of the two rows rewrites it before the second is measured)."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True)
    table = f":(exclude){TIMINGS.relative_to(REPO)}"
    dirty = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", ".", table], cwd=REPO).returncode != 0
    return head.stdout.strip() + ("+changes" if dirty else "")


def context(measured: Measured) -> dict[str, str]:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    date = datetime.datetime.fromtimestamp(measured.end, datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    loads = measured.monitor.loads if measured.monitor else []
    return {
        "cores": str(cores),
        "date": date,
        "commit": commit(),
        "load_before": measured.load_before,
        "load_mean": f"{sum(loads) / len(loads):.2f}" if loads else "",
    }


def timing_row(command: str, measured: Measured) -> dict[str, str]:
    minutes, seconds = divmod(round(measured.wall), 60)
    return {
        "command": f"`{command}`",
        "wall": f"{minutes} min {seconds} s",
        "wall_s": f"{measured.wall:.1f}",
        "cpu_s": f"{measured.cpu:.1f}",
        "user_s": f"{measured.user:.1f}",
        "system_s": f"{measured.system:.1f}",
        **context(measured),
    }


def default_run_row(temporary: Path) -> dict[str, str]:
    """README's default run from an empty work directory, then ``mtsig verify`` of its results."""
    workdir = temporary / "default-run"
    measured, jobs = run_pipeline(REPO, workdir, cores=int(DEFAULT_RUN_COMMAND.split()[-1]))
    print_run(
        f"{DEFAULT_RUN_COMMAND} (numba cache before: {numba_cache_present(REPO)})",
        measured,
        jobs,
        workdir / "logs",
    )
    verify_code = "import sys; from mtsig.cli import main; sys.exit(main())"
    verify = subprocess.run(
        [sys.executable, "-c", verify_code, "verify", "--quiet", str(workdir / "results")],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")]),
        },
    )
    print(verify.stdout.strip() or verify.stderr.strip())
    outputs = "all equal" if verify.returncode == 0 else f"mtsig verify exit {verify.returncode}"
    return {
        **timing_row(DEFAULT_RUN_COMMAND, measured),
        "tests": "",
        "jobs": str(len(jobs)),
        "outputs": outputs,
    }


def test_command_row() -> dict[str, str]:
    """README's test command in the checkout; the counts from pytest's last line."""
    command = shlex.split(TEST_COMMAND.replace("python", shlex.quote(sys.executable), 1))
    measured = measure(command, REPO, monitored=True)
    summary = measured.output.strip().splitlines()[-1] if measured.output.strip() else ""
    print(f"\n{TEST_COMMAND}: {summary}; wall {measured.wall:.1f} s, CPU {measured.cpu:.1f} s")
    counts = dict((kind, int(n)) for n, kind in re.findall(r"(\d+) (passed|failed|skipped|errors?)", summary))
    tests = f"{counts.get('passed', 0)} passed" + "".join(
        f", {n} {kind}" for kind, n in counts.items() if kind != "passed" and n
    )
    outputs = "" if measured.returncode == 0 else f"pytest exit {measured.returncode}"
    return {**timing_row(TEST_COMMAND, measured), "tests": tests, "jobs": "", "outputs": outputs}


def read_timings(path: Path) -> dict[str, dict[str, str]]:
    """The rows of the table (command -> column -> cell), empty when there is none."""
    if not path.exists():
        return {}
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("|")]
    if len(lines) < 3:
        return {}
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    rows = [
        dict(zip(header, (cell.strip() for cell in line.strip("|").split("|")), strict=True))
        for line in lines[2:]
    ]
    return {row["command"]: row for row in rows}


def write_timings(path: Path, rows: dict[str, dict[str, str]]) -> None:
    columns = TIMINGS_COLUMNS + TIMINGS_CONTEXT
    lines = [
        "# Timings of the default run and the test command",
        "",
        "Written by `python benchmarks/bench_pipeline.py --default-run --test-command` (benchmarks/README.md,",
        '"The whole run"); do not edit by hand. Wall and CPU seconds (user + system of every process the command',
        "started) were measured once each, on the machine given in the row: `cores` is the number of CPUs the",
        "benchmark could use, `load_before` the load averages (1, 5, 15 minutes) before the command and `load_mean`",
        "the 1-minute load sampled every second while it ran (its own processes included). `outputs`: `mtsig verify`",
        "of the run's results against `checksums/default-run.tsv`.",
        "",
        "| " + " | ".join(columns) + " |",
        "|" + "---|" * len(columns),
    ]
    for command in sorted(rows, key=lambda c: c != f"`{DEFAULT_RUN_COMMAND}`"):
        lines.append("| " + " | ".join(rows[command].get(c, "") for c in columns) + " |")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--default-run", action="store_true", help=f"time `{DEFAULT_RUN_COMMAND}`, write its row"
    )
    parser.add_argument("--test-command", action="store_true", help=f"time `{TEST_COMMAND}`, write its row")
    parser.add_argument(
        "--timings", type=Path, default=TIMINGS, help="the table (default benchmarks/timings.md)"
    )
    parser.add_argument(
        "--cores", default="2,8", help="comma-separated --cores values, one run each (default 2,8)"
    )
    parser.add_argument("--until", default=None, help="stop at this rule's jobs (Snakemake's --until)")
    parser.add_argument(
        "--experiments", default="", help="comma-separated experiments (default: the config's)"
    )
    parser.add_argument(
        "--checkouts", default=str(REPO), help="comma-separated checkouts to run (default: this one)"
    )
    parser.add_argument(
        "--repeats", type=int, default=1, help="rounds over the checkouts and --cores (default 1)"
    )
    parser.add_argument(
        "--workdir", type=Path, default=None, help="kept after the runs (default: a temporary one)"
    )
    args = parser.parse_args()
    os.environ.setdefault("MTSIG_DATA", str((REPO.parent / "shared" / "data").resolve()))
    with tempfile.TemporaryDirectory(prefix="mtsig-pipeline-") as temporary:
        if not (args.default_run or args.test_command):
            compare_runs(args, Path(temporary))
            return
        rows = read_timings(args.timings)
        if args.default_run:
            rows[f"`{DEFAULT_RUN_COMMAND}`"] = default_run_row(args.workdir or Path(temporary))
        if args.test_command:
            rows[f"`{TEST_COMMAND}`"] = test_command_row()
        write_timings(args.timings, rows)
        print(f"\nwritten: {args.timings}")


if __name__ == "__main__":
    main()
