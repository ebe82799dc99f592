"""What the default run's figures cost, drawn by two or more versions of mtsig: CPU seconds and file sizes.

    python benchmarks/bench_figures.py --source before=../main/src                      # this checkout vs main
    python benchmarks/bench_figures.py --source before=../main/src --pdf                # PDFs too (figures.pdf)
    python benchmarks/bench_figures.py --results ../base/results --logs ../base/logs --source before=../main/src

Every version (``--source NAME=SRC``, a checkout's ``src``; this checkout's is always measured, as ``this``) draws,
each in a fresh Python process as a Snakemake job runs (interpreter start and imports included):

(a) the ``figures`` job of every experiment of a finished run (``--results``: each ``figures/<exp>/png`` there)
    on that run's inputs, PNG only as the default run writes them (``--pdf``: PNG and PDF);
(b) the run's other significance heatmaps, drawn again from its tables: the metrics protocols' (one per protocol
    and task of ``<exp>/significance.tsv``), the WMT20 metrics task's Williams heatmaps (``williams.tsv``: DA z,
    all systems, per language pair) and each experiment's (``meta_evaluation/williams.tsv``);
(c) the run's remaining PNGs (calibration, n-best, power, ...): only their palette quantisation differs between
    versions, so its CPU is the measured quantiser's CPU per megapixel in (a) and (b) times their megapixels.

Printed per version: CPU seconds (user + system of the child processes), CPU of the PNG quantiser alone, bytes of
the PNGs (and PDFs) written; then each version's extra CPU against the first ``--source`` and its share of the
run's CPU: the jobs' CPU in ``--logs`` (``<exp>/<rule>.benchmark.tsv``, every job's own ``getrusage``), the
extra CPU scaled by the ``figures`` jobs' CPU in those logs over the same jobs' CPU here (the machine's load
inflates both alike). Nothing is asserted (README.md).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# Run in the child with PYTHONPATH=<a version's src>: draws what the job spec says and prints the CPU of the
# PNG quantiser (Pillow's quantize, and a hand-written one where the version has it) and the pixels it handled.
_CHILD = r"""
import json, sys, time
from PIL import Image

spec = json.loads(sys.argv[1])
spent = {"cpu": 0.0, "pixels": 0}

def timed(quantise):
    def wrapper(image, *args, **kwargs):
        start = time.process_time()
        try:
            return quantise(image, *args, **kwargs)
        finally:
            spent["cpu"] += time.process_time() - start
            shape = getattr(image, "shape", None)
            spent["pixels"] += shape[0] * shape[1] if shape is not None else image.size[0] * image.size[1]
    return wrapper

import mtsig.report.plots as plots
if hasattr(plots, "palette_image"):
    plots.palette_image = timed(plots.palette_image)
else:
    Image.Image.quantize = timed(Image.Image.quantize)

if spec["kind"] == "figures":
    from mtsig.steps.figures import figures
    figures(**spec["arguments"])
else:
    import matplotlib
    import pandas as pd
    from mtsig.report.meta_evaluation import williams_heatmap
    from mtsig.report.plots import STYLE, save_figure, significance_heatmap_figure
    from pathlib import Path

    out = Path(spec["out"])
    for number, table in enumerate(spec["significance"]):
        frame = pd.read_csv(table, sep="\t")
        for (protocol, task), rows in frame.groupby(["protocol", "task"], sort=False):
            names = list(dict.fromkeys([*rows["metric_a"], *rows["metric_b"]]))
            matrix = rows.pivot(index="metric_a", columns="metric_b", values="p_value")
            matrix = matrix.reindex(index=names, columns=names)
            figure, _ = significance_heatmap_figure(matrix, names, 0.05, f"{protocol} task {task}", item="metric")
            with matplotlib.rc_context(STYLE):
                save_figure(figure, [out / f"protocol_{number}_{protocol}_{task}.png"], dpi=100)
    for number, table in enumerate(spec["williams"]):
        frame = pd.read_csv(table, sep="\t")
        chosen = frame[(frame["human"] == "z") & (frame["systems"] == "all")]
        for lp, rows in chosen.groupby("lp", sort=False):
            williams_heatmap(rows, f"Williams {lp}", [out / f"williams_{number}_{lp}.png"])
print("QUANTISER", json.dumps(spent))
"""

ALL_TESTS = [
    "paired_bootstrap",
    "bootstrap",
    "approximate_randomization",
    "bootstrap_two_sided",
    "approximate_randomization_two_sided",
    "rm_bootstrap",
    "rm_approximate_randomization",
    "paired_bootstrap_documents",
    "bootstrap_documents",
    "paired_bootstrap_stationary",
    "bootstrap_stationary",
]


def load() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def figures_arguments(results: Path, experiment: str, out: Path, pdf: bool) -> dict:
    """The figures job's keyword arguments for ``experiment`` (workflow/rules/figures.smk) on a finished run."""
    metrics = sorted(path.stem for path in (results / experiment / "tests").glob("*.tsv"))
    return {
        "distributions": [str(results / experiment / "distributions" / m) for m in metrics],
        "tests": [str(results / experiment / "tests" / f"{m}.tsv") for m in metrics],
        "gold": str(results / experiment / "gold.tsv"),
        "system_scores": str(results / experiment / "human" / "system_scores.tsv"),
        "test_names": ALL_TESTS,
        "alpha": 0.05,
        "png": str(out / "png"),
        "pdf": str(out / "pdf") if pdf else None,
    }


def run_child(source: Path, spec: dict) -> dict:
    """CPU seconds of one child process drawing ``spec`` with ``source``'s mtsig, and its quantiser's share."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    environment = {**os.environ, "PYTHONPATH": str(source), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps(spec)],
        check=True,
        env=environment,
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    line = next(line for line in done.stdout.splitlines() if line.startswith("QUANTISER "))
    quantiser = json.loads(line.removeprefix("QUANTISER "))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"cpu": cpu, "quantiser_cpu": quantiser["cpu"], "pixels": quantiser["pixels"]}


def file_bytes(folder: Path, suffix: str) -> int:
    return sum(path.stat().st_size for path in folder.rglob(f"*{suffix}"))


def png_pixels(paths: list[Path]) -> int:
    from PIL import Image

    total = 0
    for path in paths:
        with Image.open(path) as image:
            total += image.size[0] * image.size[1]
    return total


def redrawn_in_b(png: Path) -> bool:
    """Whether a PNG of the run is one of the heatmaps that part (b) draws again: a Williams heatmap (an
    experiment's ``williams.png``, the metrics task's per language pair) or a metrics protocol's heatmap."""
    metrics_task = png.parent.name == "wmt20-metrics"
    protocol = (png.parent / "..").resolve().name == "figures" and png.stem.split("_")[0] in (
        "wmt23",
        "wmt24",
    )
    return png.name == "williams.png" or metrics_task or protocol


def logged_cpu(logs: Path, experiments: list[str]) -> tuple[float, float]:
    """CPU seconds of every job of the run in ``logs``, and of the ``figures`` jobs of ``experiments``."""
    total = figures = 0.0
    for path in logs.rglob("*.benchmark.tsv"):
        with path.open() as handle:
            cpu = sum(float(row["cpu_time"]) for row in csv.DictReader(handle, delimiter="\t"))
        total += cpu
        figures += cpu if path.name == "figures.benchmark.tsv" and path.parent.name in experiments else 0.0
    return total, figures


def measure(
    sources: dict[str, Path], results: Path, pdf: bool, only: list[str], heatmaps: bool
) -> dict[str, dict]:
    """Parts (a) and (b) (unless not ``heatmaps``) for every source, the sources' order rotated from one job to
    the next."""
    experiments = sorted(p.parent.name for p in (results / "figures").glob("*/png"))
    experiments = [e for e in experiments if e in only] if only else experiments
    measured = {name: {"a": [], "b": []} for name in sources}
    names = list(sources)
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary)
        jobs = [("a", e) for e in experiments] + ([("b", "heatmaps")] if heatmaps else [])
        for position, (part, job) in enumerate(jobs):
            for name in names[position % len(names) :] + names[: position % len(names)]:
                out = root / name / part / job
                out.mkdir(parents=True)
                if part == "a":
                    spec = {"kind": "figures", "arguments": figures_arguments(results, job, out, pdf)}
                else:
                    spec = {
                        "kind": "heatmaps",
                        "out": str(out),
                        "significance": [str(p) for p in sorted(results.glob("*/significance.tsv"))],
                        "williams": [str(p) for p in sorted(results.glob("*/williams.tsv"))]
                        + [str(p) for p in sorted(results.glob("*/meta_evaluation/williams.tsv"))],
                    }
                run = run_child(sources[name], spec)
                run |= {"png": file_bytes(out, ".png"), "pdf": file_bytes(out, ".pdf"), "job": job}
                run["files"] = len(list(out.rglob("*.png")))
                measured[name][part].append(run)
                print(
                    f"  {name:>8} {job:<14} {run['cpu']:6.2f} s CPU (quantiser {run['quantiser_cpu']:5.2f} s), "
                    f"{run['files']} PNGs {run['png'] / 1e6:5.2f} MB"
                    + (f", PDFs {run['pdf'] / 1e6:5.2f} MB" if pdf else "")
                    + f"; load {load()}",
                    flush=True,
                )
    return measured


def report(sources: dict[str, Path], measured: dict[str, dict], results: Path, logs: Path | None) -> None:
    drawn_here = set((results / "figures").glob("*/png/*.png"))
    others = [p for p in results.rglob("*.png") if p not in drawn_here]
    other_pixels = png_pixels(others)
    heatmap_pixels = png_pixels([p for p in others if redrawn_in_b(p)])
    rest_pixels = other_pixels - heatmap_pixels
    rows = {}
    for name in sources:
        a, b = measured[name]["a"], measured[name]["b"]
        quantiser = sum(r["quantiser_cpu"] for r in a + b)
        pixels = sum(r["pixels"] for r in a + b)
        per_megapixel = quantiser / (pixels / 1e6)
        rows[name] = {
            "a": sum(r["cpu"] for r in a),
            "b": sum(r["cpu"] for r in b),
            "c": per_megapixel * rest_pixels / 1e6,
            "quantiser": quantiser,
            "per_megapixel": per_megapixel,
            "png": sum(r["png"] for r in a + b),
            "pdf": sum(r["pdf"] for r in a),
        }
    first = next(iter(sources))
    experiments = [r["job"] for r in measured[first]["a"]]
    total, figures = logged_cpu(logs, experiments) if logs else (None, None)
    scale = figures / rows[first]["a"] if figures else 1.0
    print(
        f"\n(c) other PNGs of the run: {len(others)} files, {other_pixels / 1e6:.0f} Mpx, of which "
        f"{heatmap_pixels / 1e6:.0f} Mpx redrawn in (b) (written at their own size there); the rest "
        f"{rest_pixels / 1e6:.0f} Mpx"
    )
    if logs:
        print(
            f"run in {logs}: jobs' CPU {total:.1f} s, these figures jobs {figures:.1f} s; load factor here "
            f"{1 / scale:.2f} (this measurement's figures jobs of {first} over the logs')"
        )
    print(
        "\n| version | (a) figures jobs, CPU s | (b) other heatmaps, CPU s | (c) quantiser of the other PNGs, CPU s "
        "(estimate) | quantiser CPU s in (a)+(b) | quantiser CPU s per Mpx | PNG MB (a)+(b) | PDF MB (a) | "
        f"extra CPU s vs {first} | share of the run |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, row in rows.items():
        extra = sum(row[k] - rows[first][k] for k in "abc")
        share = f"{extra * scale / total:.1%}" if total else "-"
        print(
            f"| {name} | {row['a']:.1f} | {row['b']:.1f} | {row['c']:.1f} | {row['quantiser']:.1f} | "
            f"{row['per_megapixel']:.3f} | "
            f"{row['png'] / 1e6:.1f} | {row['pdf'] / 1e6:.1f} | {extra:+.1f} | {share} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--results", type=Path, default=REPO / "results", help="a finished default run")
    parser.add_argument("--logs", type=Path, default=REPO / "logs", help="that run's logs (jobs' CPU)")
    parser.add_argument("--source", action="append", default=[], help="NAME=SRC: another version's src")
    parser.add_argument("--pdf", action="store_true", help="the figures jobs write PDFs too")
    parser.add_argument("--experiments", default="", help="comma-separated: only these figures jobs in (a)")
    parser.add_argument("--no-heatmaps", action="store_true", help="leave part (b) out")
    options = parser.parse_args()
    sources = dict(entry.split("=", 1) for entry in options.source)
    sources = {name: Path(path).resolve() for name, path in sources.items()} | {"this": REPO / "src"}
    print(f"versions: {sources}; results {options.results}; load {load()}")
    only = [e for e in options.experiments.split(",") if e]
    measured = measure(sources, options.results, options.pdf, only, not options.no_heatmaps)
    report(sources, measured, options.results, options.logs if options.logs.is_dir() else None)


if __name__ == "__main__":
    main()
