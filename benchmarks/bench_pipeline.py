"""The whole default run, timed as a user runs it: `snakemake --cores N` from an empty results/ and logs/.

Each run gets a fresh work directory (Snakemake's `--directory`, so the checkout's own results/ are untouched) and
the checkout's config/config.yaml. Printed: the wall time, the load averages before and after and the mean load
sampled every second during the run, the CPU time of the Snakemake process itself and of everything it started,
and per rule the jobs' wall and CPU times and peak memory from the files each job writes beside its log
(`logs/{exp}/{rule}.benchmark.tsv`, `mtsig.steps.write_job_usage`). Nothing is asserted
(README.md: timings depend on the machine and its load).

    python benchmarks/bench_pipeline.py                      # --cores 2, then --cores 8
    python benchmarks/bench_pipeline.py --cores 2 --until metric_stats --experiments wmt12-es-en,wmt12-en-es,wmt22-ja-en,wmt22-en-liv

`--until metric_stats` with `--experiments` times the metric statistics of those experiments alone (Snakemake's
`--until`). numba compiles the TER kernel on its first call and caches it in src/mtsig/metrics/__pycache__; whether
that cache existed before the run is printed, since a fresh clone pays the compilation once (about 8 s of CPU).
"""

from __future__ import annotations

import argparse
import collections
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import yaml
from bench_growth import job_table, load, snakemake_command

REPO = Path(__file__).resolve().parents[1]
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu_seconds(pid: int) -> tuple[float, float] | None:
    """(user, system) CPU seconds of one process (not its children), from /proc; None once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[11]) / CLOCK_TICKS, int(fields[12]) / CLOCK_TICKS  # utime, stime


class RunMonitor(threading.Thread):
    """Samples the load average and the Snakemake process's own CPU time every ``interval`` seconds."""

    def __init__(self, pid: int, interval: float = 1.0) -> None:
        super().__init__(daemon=True)
        self.pid, self.interval = pid, interval
        self.loads: list[float] = []
        self.main_cpu = (0.0, 0.0)
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            self.loads.append(os.getloadavg()[0])
            cpu = process_cpu_seconds(self.pid)
            if cpu is not None:
                self.main_cpu = cpu
            self.done.wait(self.interval)


def numba_cache_present() -> bool:
    return any((REPO / "src" / "mtsig" / "metrics" / "__pycache__").glob("*.nbi"))


def run_pipeline(workdir: Path, cores: int, until: str | None, experiments: list[str]) -> None:
    workdir.mkdir(parents=True, exist_ok=True)
    command = snakemake_command(workdir, cores)
    if experiments:
        overlay = workdir / "experiments.yaml"
        overlay.write_text(yaml.safe_dump({"run": experiments}))
        command += ["--configfile", str(REPO / "config" / "config.yaml"), str(overlay)]
    if until:
        command += ["--until", until]
    cache = numba_cache_present()
    before = load()
    children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    monitor = RunMonitor(process.pid)
    monitor.start()
    output, _ = process.communicate()
    wall = time.perf_counter() - start
    monitor.done.set()
    monitor.join()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode != 0:
        print(output[-6000:], file=sys.stderr)
        raise SystemExit(f"snakemake failed (exit {process.returncode}) in {workdir}")
    all_cpu = sum(getattr(children, f) - getattr(children_before, f) for f in ("ru_utime", "ru_stime"))
    jobs = job_table(workdir / "logs")
    mean_load = sum(monitor.loads) / max(len(monitor.loads), 1)
    scope = f"up to rule {until}" if until else "the whole run"
    chosen = f" of {', '.join(experiments)}" if experiments else " (config/config.yaml)"
    minutes, seconds = divmod(round(wall), 60)
    print(f"\n{scope}{chosen}, snakemake --cores {cores}")
    print(f"  wall {wall:.1f} s ({minutes} min {seconds} s), {len(jobs)} jobs")
    print(f"  load before {before}; mean 1-min load during the run {mean_load:.2f}; after {load()}")
    user, system = monitor.main_cpu
    print(
        f"  CPU: all processes {all_cpu:.1f} s, of which the Snakemake process {user + system:.1f} s"
        f" ({user:.1f} s user, {system:.1f} s system)"
    )
    print(f"  numba TER cache present before the run: {cache}")
    print(f"  {'rule':<20} {'jobs':>5} {'wall s':>8} {'longest':>8} {'CPU s':>8} {'max_rss MB':>11}")
    by_rule: dict[str, list[tuple]] = collections.defaultdict(list)
    for job, seconds, cpu, rss, _load in jobs:
        by_rule[Path(job).name.split(".")[0]].append((seconds, cpu, rss))
    ordered = sorted(by_rule.items(), key=lambda item: -sum(r[1] for r in item[1]))
    for rule, rows in ordered:
        walls, cpus, rsss = zip(*rows, strict=True)
        print(
            f"  {rule:<20} {len(rows):>5} {sum(walls):>8.1f} {max(walls):>8.1f} {sum(cpus):>8.1f} {max(rsss):>11.0f}"
        )
    print(
        f"  {'all jobs':<20} {len(jobs):>5} {sum(j[1] for j in jobs):>8.1f} {'':>8} {sum(j[2] for j in jobs):>8.1f}"
    )
    longest = sorted(jobs, key=lambda row: -row[1])[:6]
    print(f"  longest jobs: {', '.join(f'{job} {seconds:.1f} s' for job, seconds, *_ in longest)}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--cores", default="2,8", help="comma-separated --cores values, one run each (default 2,8)"
    )
    parser.add_argument("--until", default=None, help="stop at this rule's jobs (Snakemake's --until)")
    parser.add_argument(
        "--experiments", default="", help="comma-separated experiments (default: the config's)"
    )
    parser.add_argument(
        "--workdir", type=Path, default=None, help="kept after the runs (default: a temporary one)"
    )
    args = parser.parse_args()
    os.environ.setdefault("MTSIG_DATA", str((REPO.parent / "shared" / "data").resolve()))
    experiments = [e for e in args.experiments.split(",") if e]
    with tempfile.TemporaryDirectory(prefix="mtsig-pipeline-") as temporary:
        for cores in (int(c) for c in args.cores.split(",") if c):
            workdir = (args.workdir or Path(temporary)) / f"cores-{cores}"
            run_pipeline(workdir, cores, args.until, experiments)


if __name__ == "__main__":
    main()
