"""Speed and memory of the pipeline steps profiled for speed: figures, the n-best study, chrF statistics.

Every figure is printed with the load averages at the time, and with a ratio against a reference measured in the
same run where one exists. Nothing is asserted (README.md).

    python benchmarks/bench_steps.py figures   # Figs. 5-8 drawing vs the straightforward drawing
    python benchmarks/bench_steps.py figures_step --reference-src ../main/src   # the whole figures job
    python benchmarks/bench_steps.py nbest     # the STAPLE n-best study; x-best y-ref BLEU vs sacrebleu corpus_bleu
    python benchmarks/bench_steps.py chrf      # synthetic 50 x 5 000 chrF statistics vs sacrebleu, peak memory
    python benchmarks/bench_steps.py all

(figures) A WMT22 ja-en-sized grid: 14 systems, the 11 tests as panels, and one Figs. 5-6 figure of three
10 000-draw panels; each written as PNG and as PDF by ``mtsig.report.plots``, against the reference drawing that
matplotlib's usual calls give (``ax.text`` per cell, minor-tick grid, diagonal patches, ``ax.hist`` bars,
constrained layout), which is what mtsig drew before. (nbest) ``run_nbest_experiment`` on the STAPLE en-pt gold
with the configured 20 simulated systems; ``bleu_grid`` alone; the reference is sacrebleu's ``corpus_bleu`` on
the pseudo-corpus of two cells, per cell. (figures_step) The ``figures`` step of one experiment on the
inputs of a finished run (``--results``), in a fresh Python process as the Snakemake job runs it (start and
imports included), ``--repeats`` times; its CPU time (user + system), whether the runs wrote identical bytes, and,
with ``--reference-src`` (another checkout's ``src``, e.g. main's), the same for that code and how many PNGs have
the same pixels and PDFs the same bytes as the reference's. (chrf) ``CHRF.stats_many`` on a synthetic experiment (mtsig.studies.synthetic)
in a child process, its peak RSS; the reference is sacrebleu's ``_extract_corpus_statistics`` system by system
on the first ``--reference-systems`` systems, per system.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

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
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def timed(function, repeats: int = 1) -> tuple[float, float]:
    """(wall, CPU) seconds of the run with the least CPU time among ``repeats``. On a shared machine the wall time
    includes waiting for a core; the CPU time of this process (single-threaded work) does not."""
    best = (float("inf"), float("inf"))
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        function()
        run = (time.perf_counter() - wall, time.process_time() - cpu)
        best = min(best, run, key=lambda pair: pair[1])
    return best


# ------------------------------------------------------------------------------------------------- figures


def _p_matrices(n_systems: int) -> tuple[list[str], dict]:
    import pandas as pd
    from scipy.stats import norm

    systems = [f"system-name-{i:02d}" for i in range(n_systems)]
    matrices = {}
    for index, test in enumerate(ALL_TESTS):
        quality = np.sort(np.random.default_rng(index).normal(0, 1, n_systems))[::-1]
        p = norm.sf((quality[:, None] - quality[None, :]) / 0.4)
        np.fill_diagonal(p, np.nan)
        matrices[test] = pd.DataFrame(p, index=systems, columns=systems)
    return systems, matrices


def _reference_grid(matrices: dict, systems: list[str], path: Path) -> None:
    """The straightforward drawing: constrained layout, one text object per cell, a minor-tick grid, a patch per
    diagonal cell (the earlier mtsig.report.plots, kept as a reference)."""
    import matplotlib
    from matplotlib.colors import ListedColormap
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    from mtsig.report import plots
    from mtsig.report.plots import heatmaps

    n, columns = len(systems), 3
    rows = -(-len(matrices) // columns)
    with matplotlib.rc_context(plots.STYLE):
        figure = Figure(
            figsize=(columns * (n * 0.36 + 0.3) + 1.5, rows * (n * 0.36 + 1.5)), layout="constrained"
        )
        axes = figure.subplots(rows, columns, squeeze=False).ravel()
        for ax, (test, matrix) in zip(axes, matrices.items(), strict=False):
            p = matrix.to_numpy()
            shade = np.where(np.isnan(p), 0, heatmaps._shade_index(np.nan_to_num(p, nan=1.0), 0.05))
            ax.imshow(shade, cmap=ListedColormap(["#ffffff", *heatmaps._SHADES]), vmin=-0.5, vmax=3.5)
            for i in range(n):
                ax.add_patch(Rectangle((i - 0.5, i - 0.5), 1, 1, color="#e6e6e6", linewidth=0))
                for j in range(n):
                    if i != j:
                        ax.text(j, i, heatmaps._format_p(p[i, j]), ha="center", va="center", fontsize=5.5)
            ax.set_xticks(np.arange(-0.5, n, 1), minor=True)
            ax.set_yticks(np.arange(-0.5, n, 1), minor=True)
            ax.grid(which="minor", color="#d0d0d0", linewidth=0.5)
            ax.set_xticks(range(n), systems, rotation=55, ha="right", rotation_mode="anchor")
            ax.set_yticks(range(n), systems)
            ax.set_title(test)
        for ax in axes[len(matrices) :]:
            ax.set_visible(False)
        plots.save_figure(figure, [path])


def _reference_distributions(distributions: dict, path: Path) -> None:
    """The straightforward Figs. 5-6 drawing: ``ax.hist`` bars and constrained layout."""
    import matplotlib
    from matplotlib.figure import Figure

    from mtsig.report import plots

    with matplotlib.rc_context(plots.STYLE):
        figure = Figure(figsize=(3.2 * len(distributions), 3.0), layout="constrained")
        for ax, (test, values) in zip(
            figure.subplots(1, len(distributions)), distributions.items(), strict=True
        ):
            ax.hist(values, bins=60, color="#6baed6", label="pseudo-statistics")
            ax.axvline(0.0, color="#d62728", linestyle="--")
            ax.set_title(test)
            ax.legend(loc="upper left", frameon=False)
        plots.save_figure(figure, [path])


def bench_figures(repeats: int) -> None:
    from mtsig.report import plots

    systems, matrices = _p_matrices(14)
    rng = np.random.default_rng(1)
    distributions = {t: rng.normal(0.004, 0.0025, 10_000) for t in ALL_TESTS[:3]}
    print(f"\n(figures) 14 systems x 11 panels, and 3 panels x 10 000 draws; best of {repeats}")
    with tempfile.TemporaryDirectory() as temporary:
        out = Path(temporary)
        plots.significance_heatmap_grid(
            matrices, systems, 0.05, "warm-up", [out / "warm.png"]
        )  # fonts, caches
        for suffix in (".png", ".pdf"):
            ours = timed(
                lambda s=suffix: plots.significance_heatmap_grid(
                    matrices, systems, 0.05, "t", [out / f"g{s}"]
                ),
                repeats,
            )
            reference = timed(lambda s=suffix: _reference_grid(matrices, systems, out / f"r{s}"), repeats)
            sizes = (out / f"g{suffix}").stat().st_size / 1e6, (out / f"r{suffix}").stat().st_size / 1e6
            print(
                f"  grid {suffix[1:]}: mtsig {ours[0]:.2f} s wall, {ours[1]:.2f} s CPU ({sizes[0]:.2f} MB); reference "
                f"{reference[0]:.2f} s wall, {reference[1]:.2f} s CPU ({sizes[1]:.2f} MB); CPU ratio "
                f"{reference[1] / ours[1]:.1f}x; load {load()}"
            )
            ours = timed(
                lambda s=suffix: plots.pseudo_statistic_distributions(
                    distributions, 0.004, list(distributions), "t", [out / f"d{s}"]
                ),
                repeats,
            )
            reference = timed(
                lambda s=suffix: _reference_distributions(distributions, out / f"q{s}"), repeats
            )
            print(
                f"  distributions {suffix[1:]}: mtsig {ours[0]:.2f} s wall, {ours[1]:.2f} s CPU; reference "
                f"{reference[0]:.2f} s wall, {reference[1]:.2f} s CPU; CPU ratio {reference[1] / ours[1]:.1f}x; "
                f"load {load()}"
            )


# -------------------------------------------------------------------------------------------- figures step

_FIGURES_CHILD = """
import json, sys
from mtsig.steps.figures import figures
figures(**json.loads(sys.argv[1]))
"""


def _figures_step_arguments(results: Path, experiment: str, out: Path) -> dict:
    """The figures job's keyword arguments for ``experiment`` from a finished run's ``results`` directory."""
    metrics = sorted(path.stem for path in (results / experiment / "tests").glob("*.tsv"))
    return {
        "distributions": [str(results / experiment / "distributions" / m) for m in metrics],
        "tests": [str(results / experiment / "tests" / f"{m}.tsv") for m in metrics],
        "gold": str(results / experiment / "gold.tsv"),
        "system_scores": str(results / experiment / "human" / "system_scores.tsv"),
        "test_names": ALL_TESTS,
        "alpha": 0.05,
        "png": str(out / "png"),
        "pdf": str(out / "pdf"),
    }


def _run_figures_step(source: Path, arguments: dict) -> float:
    """CPU seconds (user + system) of the figures step run by ``source``'s mtsig in a fresh Python process."""
    import json
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    environment = {**os.environ, "PYTHONPATH": str(source)}
    subprocess.run([sys.executable, "-c", _FIGURES_CHILD, json.dumps(arguments)], check=True, env=environment)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _same_pixels(first: Path, second: Path) -> bool:
    from PIL import Image

    a, b = np.asarray(Image.open(first)), np.asarray(Image.open(second))
    return a.shape == b.shape and bool((a == b).all())


def bench_figures_step(results: Path, experiment: str, reference_src: Path | None, repeats: int) -> None:
    print(f"\n(figures_step) {experiment}, inputs from {results}; best of {repeats} runs")
    sources = {"this checkout": REPO / "src"} | ({"reference": reference_src} if reference_src else {})
    written = {}
    with tempfile.TemporaryDirectory() as temporary:
        for name, source in sources.items():
            runs = [Path(temporary) / f"{name}-{run}" for run in range(max(repeats, 2))]
            cpu = min(
                _run_figures_step(source, _figures_step_arguments(results, experiment, r)) for r in runs
            )
            files = sorted(path.relative_to(runs[0]) for path in runs[0].rglob("*.*"))
            identical = all(
                (runs[0] / f).read_bytes() == (r / f).read_bytes() for r in runs[1:] for f in files
            )
            print(
                f"  {name} ({source}): {cpu:.2f} s CPU, {len(files)} files, reruns byte-identical: {identical}; "
                f"load {load()}"
            )
            written[name] = (runs[0], files)
        if reference_src:
            (ours, files), (theirs, _) = written["this checkout"], written["reference"]
            pngs = [f for f in files if f.suffix == ".png"]
            pdfs = [f for f in files if f.suffix == ".pdf"]
            same_pixels = sum(_same_pixels(ours / f, theirs / f) for f in pngs)
            same_pdfs = sum((ours / f).read_bytes() == (theirs / f).read_bytes() for f in pdfs)
            print(
                f"  vs reference: PNG pixels equal in {same_pixels} of {len(pngs)}; "
                f"PDF bytes equal in {same_pdfs} of {len(pdfs)}"
            )


# --------------------------------------------------------------------------------------------------- n-best


def bench_nbest(data_root: Path) -> None:
    import yaml
    from sacrebleu.metrics.bleu import BLEU

    from mtsig.io.staple import read_staple_gold, read_system_file
    from mtsig.settings import NBestParameters, build
    from mtsig.stats.ranking_measures.nbest import normalized_gold_translations
    from mtsig.studies.nbest import ALL, _check_parameters, bleu_grid, pseudo_corpus, run_nbest_experiment
    from mtsig.studies.nbest_simulation import gold_vocabulary, simulate_system, simulation_parameters

    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    spec, seed = config["nbest"]["staple-en-pt"], int(config["resampling"]["seed"])
    gold_path, baseline_path = data_root / spec["gold"], data_root / spec["baseline"]
    print(f"\n(nbest) STAPLE en-pt, {spec['parameters']}; load {load()}")
    start = time.perf_counter()
    sources = {"aws_baseline": baseline_path}
    real = {name: read_system_file(path) for name, path in sources.items()}
    parameters = build(NBestParameters, spec["parameters"])
    run_nbest_experiment(read_staple_gold(gold_path), real, parameters, seed, sources)
    print(
        f"  run_nbest_experiment: {time.perf_counter() - start:.1f} s (figures and tables not included); load {load()}"
    )

    _check_parameters(parameters)
    gold = read_staple_gold(gold_path)
    vocabulary, normalized = gold_vocabulary(gold), normalized_gold_translations(gold)
    systems = {
        s.name: simulate_system(gold, s, parameters.list_length, parameters.head_length,
                                parameters.max_edits, vocabulary, seed, normalized)
        for s in simulation_parameters(parameters, seed)
    }  # fmt: skip
    systems["aws_baseline"] = read_system_file(baseline_path)
    depths, references = list(parameters.bleu_depths), list(parameters.bleu_references)
    start = time.perf_counter()
    bleu_grid(systems, gold, depths, references)
    grid = time.perf_counter() - start
    cells = len(systems) * len(depths) * len(references)
    # sacrebleu's corpus_bleu on the pseudo-corpus of two cells of the first system, built from scratch
    metric, name = BLEU(lowercase=True), next(iter(systems))
    start = time.perf_counter()
    for y in (1, 10):
        hypotheses, line_refs = pseudo_corpus(systems[name], gold, ALL, y)
        width = max(len(refs) for refs in line_refs)
        streams = [[refs[i] if i < len(refs) else None for refs in line_refs] for i in range(width)]
        metric.corpus_score(hypotheses, streams)
    per_cell = (time.perf_counter() - start) / 2
    print(
        f"  bleu_grid: {grid:.1f} s for {cells} cells ({grid / cells * 1e3:.1f} ms per cell); sacrebleu corpus_bleu "
        f"of the cells x=all, y=1 and y=10 of {name}: {per_cell:.1f} s per cell; ratio "
        f"{per_cell / (grid / cells):.0f}x per cell; load {load()}"
    )


# ---------------------------------------------------------------------------------------------------- chrF


_CHILD = """
import resource, sys, time
from mtsig.metrics import get_metric
from mtsig.studies.synthetic import SyntheticSpec, generate_texts
systems, segments, processes = map(int, sys.argv[1:4])
refs, outputs, _ = generate_texts(SyntheticSpec(seed=1, systems=systems, segments=segments))
start = time.perf_counter()
stats = get_metric("chrf").stats_many(outputs, refs, processes=processes)
wall = time.perf_counter() - start
peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
print(wall, peak / 1024, stats.nbytes / 2**20)
"""


def bench_chrf(systems: int, segments: int, reference_systems: int) -> None:
    from sacrebleu.metrics.chrf import CHRF

    from mtsig.studies.synthetic import SyntheticSpec, generate_texts

    print(f"\n(chrf) synthetic {systems} systems x {segments} segments; load {load()}")
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    for processes in (1, 2):
        completed = subprocess.run(
            [sys.executable, "-c", _CHILD, str(systems), str(segments), str(processes)],
            capture_output=True, text=True, check=True, env=env,
        )  # fmt: skip
        wall, peak_mb, output_mb = map(float, completed.stdout.split())
        print(
            f"  CHRF.stats_many, {processes} process(es): {wall:.1f} s, peak RSS {peak_mb:.0f} MB "
            f"(statistics {output_mb:.0f} MB); load {load()}"
        )
        if processes == 1:
            ours_per_system = wall / systems
    refs, outputs, _ = generate_texts(SyntheticSpec(seed=1, systems=systems, segments=segments))
    metric = CHRF()
    start = time.perf_counter()
    for hyps in list(outputs.values())[:reference_systems]:
        metric._extract_corpus_statistics(hyps, [refs])
    per_system = (time.perf_counter() - start) / reference_systems
    print(
        f"  sacrebleu _extract_corpus_statistics: {per_system:.2f} s per system (first {reference_systems}); "
        f"mtsig {ours_per_system:.2f} s per system in one process; ratio {per_system / ours_per_system:.1f}x; "
        f"load {load()}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("part", choices=["figures", "figures_step", "nbest", "chrf", "all"])
    parser.add_argument(
        "--repeats", type=int, default=2, help="figures, figures_step: best of this many runs"
    )
    parser.add_argument("--results", type=Path, default=REPO / "results", help="figures_step: a finished run")
    parser.add_argument("--experiment", default="wmt12-es-en", help="figures_step: whose figures")
    parser.add_argument("--reference-src", type=Path, help="figures_step: another checkout's src to compare")
    parser.add_argument("--systems", type=int, default=50, help="chrf: synthetic systems")
    parser.add_argument("--segments", type=int, default=5000, help="chrf: synthetic segments")
    parser.add_argument("--reference-systems", type=int, default=3, help="chrf: systems scored by sacrebleu")
    args = parser.parse_args()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    data_root = Path(os.environ.get("MTSIG_DATA", REPO.parent / "shared" / "data"))
    if args.part in ("figures", "all"):
        bench_figures(args.repeats)
    if args.part in ("figures_step", "all"):
        bench_figures_step(args.results, args.experiment, args.reference_src, args.repeats)
    if args.part in ("nbest", "all"):
        bench_nbest(data_root)
    if args.part in ("chrf", "all"):
        bench_chrf(args.systems, args.segments, args.reference_systems)


if __name__ == "__main__":
    main()
