"""CPU time of each metric's statistics in the pipeline's ``metric_stats`` step (which scores every metric of an
experiment in one job), per (experiment, metric), optionally against an older checkout.

Each metric runs ``mtsig.steps.metrics.write_metric_stats`` in a fresh Python process, as a Snakemake job does
(start-up and imports included), on the prepared texts of a finished run (``<results>/<experiment>/texts``), and prints its CPU
time (user + system, from ``wait4``), wall time and peak RSS, and whether its statistics file is byte-identical to
the one of that run. With ``--baseline-src`` (the ``src`` folder of another checkout, e.g. ``git archive <commit>
src | tar -x -C /tmp/base``) every job runs first with that code and then with this checkout's, one after the
other, so that both see about the same load on a shared machine; the totals per metric are printed last. Nothing
is asserted (README.md).

    python benchmarks/bench_metric_stats.py --results results
    python benchmarks/bench_metric_stats.py --results results --baseline-src /tmp/base/src --metrics meteor chrf
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from mtsig.pipeline import config as mtsig_config  # noqa: E402
from mtsig.settings import Experiment, as_block  # noqa: E402

# One metric's statistics in a process of its own: by write_metric_stats in this checkout (the step, metric_stats,
# runs it for each metric of an experiment); an older checkout's step took one metric with its options, and an
# older one still the experiment whole.
CHILD = """
import inspect, json, sys
from mtsig.steps import metrics
spec, options, metric, texts, out = json.loads(sys.argv[1])
if hasattr(metrics, "write_metric_stats"):
    metrics.write_metric_stats(metric, texts, out, options=options)
elif next(iter(inspect.signature(metrics.metric_stats).parameters)) == "spec":
    metrics.metric_stats(spec, metric, texts, out)
else:
    metrics.metric_stats(metric, texts, out, options=options)
"""


def experiment_specs(names: list[str]) -> dict[str, Experiment]:
    """The default configuration's experiments as the workflow builds them (``mtsig.pipeline.config.experiment``)."""
    with (REPO / "config" / "config.yaml").open(encoding="utf-8") as handle:
        config = yaml.safe_load(handle)
    mtsig_config.merge_experiment_files(config, REPO)
    return {name: mtsig_config.experiment(config, name) for name in names}


def run_job(src: Path, spec: Experiment, metric: str, texts: Path, out: Path) -> tuple[float, float, float]:
    """(CPU s, wall s, peak RSS MB) of one metric_stats job run with the code under ``src`` (the experiment's block
    as an older step took it, and the metric's options as this checkout's takes them)."""
    env = {**os.environ, "PYTHONPATH": str(src), "OPENBLAS_NUM_THREADS": "1"}
    block = {**as_block(spec), "metrics": list(spec.metric_names), "metric_declarations": {}}
    arguments = json.dumps([block, spec.metric_options(metric), metric, str(texts), str(out)])
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-c", CHILD, arguments], env=env)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"metric_stats failed for {texts.parent.name} {metric} with {src}")
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--results", type=Path, default=REPO / "results", help="results folder of a finished run"
    )
    parser.add_argument(
        "--baseline-src", type=Path, help="src folder of another checkout, run before each job"
    )
    parser.add_argument(
        "--experiments",
        nargs="+",
        default=[
            "wmt12-es-en",
            "wmt12-en-es",
            "wmt22-ja-en",
            "mqm-ted-zh-en",
            "mqm-ted-en-de",
            "wmt22-en-liv",
        ],
    )
    parser.add_argument("--metrics", nargs="+", default=["bleu", "nist", "meteor", "ter", "chrf"])
    args = parser.parse_args()

    specs = experiment_specs(args.experiments)
    codes = ([("baseline", args.baseline_src)] if args.baseline_src else []) + [("this", REPO / "src")]
    totals: dict[tuple[str, str], float] = defaultdict(float)
    with tempfile.TemporaryDirectory(prefix="mtsig-bench-stats-") as workdir:
        for name in args.experiments:
            for metric in args.metrics:
                texts = args.results / name / "texts"
                stored = args.results / name / "stats" / f"{metric}.npz"
                fields = [f"{name:14s} {metric:7s}"]
                for label, src in codes:
                    out = Path(workdir) / f"{label}-{name}-{metric}.npz"
                    cpu, wall, rss = run_job(src, specs[name], metric, texts, out)
                    totals[label, metric] += cpu
                    identical = filecmp.cmp(out, stored, shallow=False) if stored.is_file() else None
                    fields.append(
                        f"{label}: CPU {cpu:6.2f} s wall {wall:6.2f} s RSS {rss:5.0f} MB identical {identical}"
                    )
                load = " ".join(f"{value:.2f}" for value in os.getloadavg())
                print(" | ".join(fields) + f" | load {load}", flush=True)
    for label, _ in codes:
        per_metric = {metric: totals[label, metric] for metric in args.metrics}
        print(f"total CPU s ({label}): {sum(per_metric.values()):.1f}", json.dumps(per_metric))


if __name__ == "__main__":
    main()
