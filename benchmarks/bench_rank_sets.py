"""Confidence sets for ranks (mtsig.stats.rank_sets): their speed, against csranks run in the same benchmark. Prints a
table; asserts nothing.

    python benchmarks/bench_rank_sets.py [--draws 100000] [--systems 30] [--resamples 1000] [--no-csranks]

(a) The parametric bootstrap: ``--systems`` estimates with standard errors (drawn once from a fixed seed), ``--draws``
draws, the two-sided simultaneous set with the stepdown (csranks's defaults but the number of draws), then the
marginal sets and the τ-best (τ = 1). csranks (``Rscript``, the package installed from its source:
tests/oracles/csranks/README.md) computes the simultaneous set on the same inputs with as many draws of its own; its
time is ``system.time`` of the call alone (package loading excluded), and the bounds that differ from mtsig's are
counted (each draws its own: only Monte Carlo boundaries can differ). Without ``Rscript`` or csranks the row says so.

(b) The nonparametric bootstrap on WMT24 ESA en-cs (waves 2 and 3, the organisers' filtering: ``mtsig.io.esa``): each
system's mean item score, ``--resamples`` resamples of whole documents, paired across systems; the simultaneous and
marginal sets and the τ-best (τ = 1: which systems could be first). Reading the ratings is timed apart.

CPU seconds are ``time.process_time`` of this process (csranks: user + system of its call); wall seconds are
printed beside them with the load averages, since the machine may be shared.
"""

from __future__ import annotations

import os

os.environ.setdefault(
    "OPENBLAS_NUM_THREADS", "1"
)  # one BLAS thread, as every pipeline job; must precede numpy

import argparse  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from mtsig.io.esa import read_esa  # noqa: E402
from mtsig.stats.rank_sets import (  # noqa: E402
    problem_from_estimates,
    problem_from_item_scores,
    rank_set,
)
from mtsig.stats.system_ranking import item_scores  # noqa: E402

WAVES = ("esa_generalMT2024_wave2.csv", "esa_generalMT2024_wave3.csv")

CSRANKS = r"""
suppressPackageStartupMessages(library(csranks))
args <- commandArgs(trailingOnly = TRUE)
d <- read.table(args[1], header = TRUE, sep = "\t")
R <- as.integer(args[2])
usage <- system.time(r <- csranks(d$estimate, diag(d$se^2), R = R, seed = 1))
cat(sprintf('{"cpu": %.3f, "wall": %.3f, "version": "%s", "lower": [%s], "upper": [%s]}\n',
            usage[["user.self"]] + usage[["sys.self"]], usage[["elapsed"]], packageVersion("csranks"),
            paste(r$L, collapse = ","), paste(r$U, collapse = ",")))
"""


def timed(function: Callable, *args, **kwargs) -> tuple[object, float, float]:
    """(result, CPU seconds, wall seconds) of one call."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.process_time() - cpu, time.perf_counter() - wall


def csranks_run(estimates: np.ndarray, se: np.ndarray, draws: int) -> dict | str:
    """csranks's simultaneous set (two-sided, stepdown) with ``draws`` draws: its CPU and wall seconds and bounds,
    or why it could not run."""
    if shutil.which("Rscript") is None:
        return "no Rscript on this machine"
    with tempfile.TemporaryDirectory() as folder:
        inputs, script = Path(folder) / "inputs.tsv", Path(folder) / "run.R"
        rows = "".join(f"{float(e)!r}\t{float(s)!r}\n" for e, s in zip(estimates, se, strict=True))
        inputs.write_text("estimate\tse\n" + rows)
        script.write_text(CSRANKS)
        run = subprocess.run(
            ["Rscript", str(script), str(inputs), str(draws)], capture_output=True, text=True
        )
    if run.returncode:
        return f"csranks failed: {(run.stderr.strip().splitlines() or ['?'])[-1]}"
    return json.loads(run.stdout)


def parametric(args: argparse.Namespace, table: list[list]) -> None:
    rng = np.random.default_rng(2025)
    estimates = np.sort(rng.normal(0.0, 1.0, args.systems))[::-1]
    se = rng.uniform(0.1, 0.3, args.systems)
    names = [f"system{i}" for i in range(args.systems)]
    what = f"{args.systems} systems, {args.draws:,} normal draws"
    problem, cpu, wall = timed(
        problem_from_estimates, names, estimates, standard_errors=se, n_draws=args.draws, rng=1
    )
    table.append(["(a) mtsig: the draws", what, cpu, wall, ""])
    result, cpu, wall = timed(rank_set, problem, "simultaneous")
    table.append(["(a) mtsig: simultaneous, two-sided, stepdown", what, cpu, wall, f"{result.steps} steps"])
    marginal, cpu, wall = timed(rank_set, problem, "marginal")
    table.append(
        ["(a) mtsig: marginal, two-sided, stepdown", what, cpu, wall, f"{marginal.steps} steps at most"]
    )
    best, cpu, wall = timed(rank_set, problem, "tau_best", tau=1)
    table.append(["(a) mtsig: tau-best, tau = 1", what, cpu, wall, f"{len(best.members)} could be first"])
    if args.no_csranks:
        table.append(
            ["(a) csranks: simultaneous, two-sided, stepdown", what, None, None, "not run (--no-csranks)"]
        )
        return
    theirs = csranks_run(estimates, se, args.draws)
    if isinstance(theirs, str):
        table.append(["(a) csranks: simultaneous, two-sided, stepdown", what, None, None, theirs])
        return
    differing = int(
        (np.array(theirs["lower"]) != result.lower).sum() + (np.array(theirs["upper"]) != result.upper).sum()
    )
    note = f"csranks {theirs['version']}; {differing} of {2 * args.systems} bounds differ from mtsig's"
    table.append(
        ["(a) csranks: simultaneous, two-sided, stepdown", what, theirs["cpu"], theirs["wall"], note]
    )


def documents(args: argparse.Namespace, table: list[list]) -> None:
    data = (
        Path(os.environ.get("MTSIG_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
        / "wmt24-esa"
    )
    export, cpu, wall = timed(read_esa, [data / "humeval" / w for w in WAVES], data / "documents")
    items = item_scores(export.ratings.loc[export.ratings["lp"] == "en-cs"])
    n_docs = len(np.unique(items.documents))
    what = f"en-cs: {len(items.systems)} systems, {items.scores.shape[1]:,} items, {n_docs} documents"
    table.append(["(b) reading WMT24 ESA waves 2+3 (all pairs)", "", cpu, wall, ""])
    problem, cpu, wall = timed(
        problem_from_item_scores,
        items.systems,
        items.scores,
        documents=items.documents,
        n_draws=args.resamples,
        rng=1,
    )
    table.append([f"(b) document bootstrap, {args.resamples:,} resamples", what, cpu, wall, ""])
    for kind, options, label in (
        ("simultaneous", {}, "simultaneous, two-sided, stepdown"),
        ("marginal", {}, "marginal, two-sided, stepdown"),
        ("tau_best", {"tau": 1}, "tau-best, tau = 1"),
    ):
        result, cpu, wall = timed(rank_set, problem, kind, **options)
        note = f"{len(result.members)} of {len(items.systems)} could be first" if kind == "tau_best" else ""
        table.append([f"(b) {label}", what, cpu, wall, note])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=100_000)
    parser.add_argument("--systems", type=int, default=30)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--no-csranks", action="store_true")
    args = parser.parse_args()
    table: list[list] = []
    parametric(args, table)
    documents(args, table)
    print(f"load averages: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print("| what | input | CPU s | wall s | note |\n|---|---|---|---|---|")
    for what, inputs, cpu, wall, note in table:
        cpu_text = "" if cpu is None else f"{cpu:.2f}"
        wall_text = "" if wall is None else f"{wall:.2f}"
        print(f"| {what} | {inputs} | {cpu_text} | {wall_text} | {note} |")


if __name__ == "__main__":
    main()
