"""``mtsig power``: the power and minimum detectable difference of a test on two real systems, by simulation.

The simulation is :func:`mtsig.studies.power.power_curve` (its module docstring has the construction); this module
parses the arguments, scores the two systems with the metric and prints the power table (or ``--tsv``), the
minimum detectable difference, the segments needed for ``--difference`` and, with ``--plot``, the figure.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from mtsig.cli._common import DEFAULT_SEED, ProgressDisplay, add_quiet_argument, numbers, run_text_command
from mtsig.errors import InputError
from mtsig.report.power import plot_power_curve, power_table_text
from mtsig.settings import Resampling
from mtsig.studies.power import (
    DEFAULT_Q_GRID,
    DEFAULT_TARGET_POWER,
    POWER_TESTS,
    minimum_detectable_difference,
    power_curve,
    segments_needed,
)

HELP = "power and minimum detectable difference of a test, by simulation"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``mtsig power`` (an ``argparse`` sub-parser); :func:`run` runs it."""
    parser.description = (
        "Power of a randomized test by test-set size and planted difference, simulated on the segment statistics "
        "of two systems (segments subsampled without replacement; a difference planted by keeping each segment's "
        "labels with probability q, q = 0.5 none, q = 1 the real pair), the minimum detectable difference at the "
        "full size and, with --difference, the segments needed."
    )
    add = parser.add_argument
    add(
        "--ref",
        required=True,
        type=Path,
        action="append",
        help="reference, one segment per line (repeatable)",
    )
    add("--metric", default="bleu", help="bleu, chrf, ter, nist or meteor (default bleu)")
    add("--test", default="paired_bootstrap", choices=POWER_TESTS, help="the test (default paired_bootstrap)")
    add("--alpha", default=0.05, type=float, help="significance level (default 0.05)")
    add("--trials", default=200, type=int, help="simulated pairs per (size, q) (default 200)")
    add("--samples", default=1000, type=int, help="B or R of the test (default 1000)")
    add("--seed", default=DEFAULT_SEED, type=int, help=f"base seed (default {DEFAULT_SEED})")
    add(
        "--sizes",
        type=numbers(int),
        help="test-set sizes, e.g. 250,500,1000 (default 125, 250, 500, ... and N)",
    )
    add(
        "--q",
        type=numbers(float),
        default=list(DEFAULT_Q_GRID),
        help=f"keep probabilities (default {','.join(f'{q:g}' for q in DEFAULT_Q_GRID)})",
    )
    add(
        "--power",
        default=DEFAULT_TARGET_POWER,
        type=float,
        help=f"target power (default {DEFAULT_TARGET_POWER})",
    )
    add(
        "--difference",
        type=float,
        help="also report the segments needed to detect this difference (metric units)",
    )
    add(
        "--pvalue",
        default=Resampling.pvalue,
        choices=("c/B", "(c+1)/(B+1)"),
        help="p-value convention (default c/B)",
    )
    add("--plot", type=Path, help="write the figure power vs segments to this .png or .pdf")
    add("--tsv", action="store_true", help="print the power table as TSV instead of text")
    add("--unescape-html", action="store_true", help="undo HTML escaping in all files (e.g. WMT12 outputs)")
    add("--language", default="en", help="target language, used by METEOR (default en)")
    add("systems", nargs=2, type=Path, help="the two system outputs, one segment per line")
    add_quiet_argument(parser)


def power_report(args: argparse.Namespace) -> str:
    """Run ``mtsig power`` on parsed arguments (:func:`add_arguments`) and return its output text.

    The two systems are scored with the metric; the better one (by the metric) is X. Raises
    :class:`~mtsig.errors.InputError` for bad input, before anything is written.
    """
    from mtsig.io.text import load_texts, segment_count
    from mtsig.metrics import get_metric
    from mtsig.report.signature import signature

    a = args
    paths = list(a.systems)
    names = [p.name for p in paths] if paths[0].name != paths[1].name else [str(p) for p in paths]
    if names[0] == names[1]:
        raise InputError("mtsig power needs two different system outputs", paths[0])
    options = {"language": a.language} if a.metric.lower() == "meteor" else {}
    metric = get_metric(a.metric, **options)
    refs, outputs = load_texts(a.ref, dict(zip(names, paths, strict=True)), unescape=a.unescape_html)
    if not refs:
        raise InputError("the reference is empty", a.ref[0])
    display = ProgressDisplay.for_command("power", a)
    with display.stage(f"scoring {metric.name}"):
        stats = metric.stats_many(outputs, refs)
    scores = np.asarray(metric.score(stats.sum(axis=1)), dtype=float)
    oriented = scores if metric.higher_is_better else -scores
    x = 0 if oriented[0] >= oriented[1] else 1
    y = 1 - x
    with display.stage("simulating") as progress:
        table = power_curve(
            stats[x],
            stats[y],
            metric.score,
            metric.higher_is_better,
            test=a.test,
            alpha=a.alpha,
            q_grid=a.q,
            n_segments_grid=a.sizes,
            trials=a.trials,
            n_samples=a.samples,
            seed=a.seed,
            metric=metric.name,
            pvalue=a.pvalue,
            progress=progress,
        )
    detectable = minimum_detectable_difference(table, power=a.power)
    needed = None if a.difference is None else segments_needed(table, a.difference, power=a.power)
    if a.plot is not None:
        plot_power_curve(table, a.plot, target_power=a.power)
    if a.tsv:
        return table.to_csv(sep="\t", index=False, float_format="%.10g")
    lines = [
        f"mtsig power: {metric.details()}",
        "signature: "
        + signature(
            metric_details=metric.details(),
            test=a.test,
            n_samples=a.samples,
            seed=a.seed,
            pvalue=a.pvalue,
            alpha=a.alpha,
        ),
        f"test={a.test} alpha={a.alpha:g} trials={a.trials} samples={a.samples} seed={a.seed} pvalue={a.pvalue}",
        f"X = {names[x]} ({scores[x]:.4f}), Y = {names[y]} ({scores[y]:.4f}), {segment_count(refs)} segments",
        "cells: power [95% CI] at each test-set size (rows) and keep probability q (columns); 'difference' = mean "
        "planted S(X') - S(Y') at the largest size",
        "",
        power_table_text(table).rstrip("\n"),
        "",
        f"minimum detectable difference at {detectable.n_segments} segments (power {a.power:g}): "
        + (f"{detectable.difference:.4f} (q = {detectable.q:.3f}); " if detectable.reached else "")
        + detectable.note,
    ]
    if needed is not None:
        lines.append(
            f"segments needed for a difference of {a.difference:g} (power {a.power:g}): "
            + (f"{int(np.ceil(needed.n_segments))}; " if needed.reached else "")
            + needed.note
        )
    if a.plot is not None:
        lines.append(f"figure written to {a.plot}")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    """``mtsig power``: print :func:`power_report`."""
    return run_text_command(power_report, args)
