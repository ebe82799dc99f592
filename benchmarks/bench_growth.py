"""Growth through the pipeline: synthetic experiments of S systems x N segments, statistics and tests.

For each size, a configuration with one synthetic experiment (mtsig.studies.synthetic) is written to a work directory and
Snakemake runs it up to the merged tests tables of every metric (statistics, then the tests, which merge_tests computes
itself when the pairs are not sharded). The time and peak memory (max_rss) of every job come from the rules' benchmark
files; nothing is asserted (README.md).

    python benchmarks/bench_growth.py                          # 100 systems x 10 000 segments
    python benchmarks/bench_growth.py --systems 25,50,100      # linear in systems?
    python benchmarks/bench_growth.py --metrics bleu,chrf --samples 1000 --cores 2 --workdir /tmp/growth

Statistics jobs should grow linearly with the systems (each (system, segment) is scored once) and stay under
2 GB peak each; the tests' cost grows with the pairs (S(S-1)/2).
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from mtsig.stats.resampling import TESTS

REPO = Path(__file__).resolve().parents[1]
PAPER_TESTS = ["paired_bootstrap", "bootstrap", "approximate_randomization"]
ALL_TESTS = list(TESTS)  # the document tests are dropped by the workflow when the experiment has no documents


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def configuration(
    name: str, systems: int, segments: int, metrics: list[str], samples: int, tests: list[str]
) -> dict:
    """One synthetic experiment, only the statistics and the given tests of the given metrics."""
    return {
        "run": [name],
        "synthetic": {name: {"seed": 1, "systems": systems, "segments": segments, "annotators": 12}},
        "metrics": metrics,
        "resampling": {"samples": samples, "tests": tests},
        "segment_level": {"experiments": []},
        "calibration": {"experiments": []},
    }


def snakemake_command(directory: Path, cores: int) -> list[str]:
    """This checkout's Snakefile run quietly in ``directory`` (its results/ and logs/ go there) on ``cores``, up to
    the default target ``all`` unless targets follow."""
    snakefile = str(REPO / "Snakefile")
    return [
        sys.executable,
        "-m",
        "snakemake",
        "-s",
        snakefile,
        "--directory",
        str(directory),
        "--cores",
        str(cores),
        "--quiet",
        "all",
    ]


def _number(record: dict[str, str], column: str) -> float:
    value = record.get(column, "")
    return float(value) if value not in ("", "NA", "-") else float("nan")


def job_table(logs: Path) -> list[tuple[str, float, float, float, float]]:
    """(job, wall s, CPU s, max_rss MB, mean load) of every benchmark file under ``logs``; a job is named by its
    benchmark file's path relative to ``logs`` (``<experiment>/<rule>.<wildcards>`` in the pipeline's logs/)."""
    rows = []
    for path in sorted(logs.rglob("*.benchmark.tsv")):
        with path.open() as handle:
            record = next(csv.DictReader(handle, delimiter="\t"))
        columns = ("s", "cpu_time", "max_rss", "mean_load")
        job = str(path.relative_to(logs)).removesuffix(".benchmark.tsv")
        rows.append((job, *(_number(record, c) for c in columns)))
    return rows


def run_size(
    workdir: Path, systems: int, segments: int, metrics: list[str], samples: int, cores: int, tests: list[str]
) -> None:
    name = f"growth-{systems}x{segments}"
    directory = workdir / name
    directory.mkdir(parents=True, exist_ok=True)
    config = directory / "config.yaml"
    config.write_text(yaml.safe_dump(configuration(name, systems, segments, metrics, samples, tests)))
    targets = [f"results/{name}/tests/{metric}.tsv" for metric in metrics]
    command = snakemake_command(directory, cores) + ["--configfile", str(config), "--", *targets]
    before = load()
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        print(result.stdout[-3000:], result.stderr[-6000:], file=sys.stderr)
        raise SystemExit(f"snakemake failed for {name}")
    print(
        f"\n{name}: {systems} systems x {segments} segments, metrics {','.join(metrics)},"
        f" {len(tests)} tests x {samples}"
    )
    print(f"  wall {wall:.1f} s with --cores {cores}; load before {before}, after {load()}")
    print(f"  {'job':<26} {'wall s':>8} {'CPU s':>8} {'max_rss MB':>11} {'mean load':>10}")
    for job, seconds, cpu, rss, mean_load in job_table(directory / "logs" / name):
        print(f"  {job:<26} {seconds:>8.1f} {cpu:>8.1f} {rss:>11.0f} {mean_load:>10.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--systems", default="100", help="comma-separated system counts (default 100)")
    parser.add_argument("--segments", type=int, default=10_000)
    parser.add_argument("--metrics", default="bleu,chrf")
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument(
        "--tests", choices=("all", "paper"), default="all", help="every test (default) or the paper's three"
    )
    parser.add_argument(
        "--workdir", type=Path, default=None, help="kept after the run (default: a temporary one)"
    )
    args = parser.parse_args()
    os.environ.setdefault("MTSIG_DATA", str((REPO.parent / "shared" / "data").resolve()))
    metrics = [m for m in args.metrics.split(",") if m]
    sizes = [int(s) for s in args.systems.split(",") if s]
    with tempfile.TemporaryDirectory(prefix="mtsig-growth-") as temporary:
        workdir = args.workdir or Path(temporary)
        for systems in sizes:
            tests = ALL_TESTS if args.tests == "all" else PAPER_TESTS
            run_size(workdir, systems, args.segments, metrics, args.samples, args.cores, tests)


if __name__ == "__main__":
    main()
