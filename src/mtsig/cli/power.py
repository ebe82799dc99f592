"""``mtsig power``: the power of a test to find a difference of any size, the minimum detectable difference and the
segments a difference needs, by simulation on two real systems.

The simulation is :func:`mtsig.studies.power_shift.shift_power_curve` (its module docstring has the construction):
null pairs of the two systems' segments, X' made better by a planted difference d of the user's choice
(``--differences``; by default 1-4 times the spread of the difference with none planted, and ``--difference``). The
systems are output files scored by ``--metric`` against ``--ref``, or the rows of a ``--scores`` file (any metric's
segment scores, as ``mtsig compare --scores`` takes them). Prints the power table (or ``--tsv``), each size's minimum
detectable difference, the segments needed for ``--difference`` (extrapolated past the test set where the variance
allows it, else what to change) and, with ``--plot``, the figure.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from mtsig.cli._common import (
    DEFAULT_SEED,
    ProgressDisplay,
    add_quiet_argument,
    numbers,
    positive_float,
    positive_int,
    run_text_command,
    significance_level,
)
from mtsig.cli._systems import SCORES_FORMATS, label_list, labelled_scores, labelled_systems, scores_metric
from mtsig.errors import InputError

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from mtsig.metrics.base import Metric

HELP = "power, minimum detectable difference and segments needed for a difference, by simulation"
DESCRIPTION = (
    "Power of a randomized test by test-set size and planted difference d (any size: null pairs of the two systems' "
    "segments, one of them made better by d), simulated on two systems' segments drawn without replacement; the "
    "minimum detectable difference at each size and, with --difference, the segments needed."
)
DEFAULT_TEST = "paired_bootstrap"


def power_test(text: str) -> str:
    """An argparse type: a test on i.i.d. segments (:data:`mtsig.studies.power.POWER_TESTS`)."""
    from mtsig.studies.power import POWER_TESTS

    if text not in POWER_TESTS:
        raise argparse.ArgumentTypeError(f"unknown test {text!r}; known: {', '.join(POWER_TESTS)}")
    return text


def target_power(text: str) -> float:
    """An argparse type: a target power strictly between 0 and 1."""
    return significance_level(text)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``mtsig power`` (an ``argparse`` sub-parser); :func:`run` runs it."""
    add = parser.add_argument
    add("--ref", type=Path, action="append", help="reference, one segment per line (repeatable)")
    add("--metric", default="bleu", help="bleu, chrf, ter, nist or meteor (default bleu)")
    add(
        "--scores",
        metavar="FILE",
        help="segment scores of any metric instead of --ref and --metric (docs/cli.md)",
    )
    add("--scores-format", default="auto", choices=("auto", *SCORES_FORMATS), help="layout of --scores")
    add(
        "--lower-is-better",
        action="store_true",
        help="--scores: a lower score is better (e.g. an error rate)",
    )
    add("--test", default=DEFAULT_TEST, type=power_test, help=f"the test (default {DEFAULT_TEST})")
    add("--alpha", default=0.05, type=significance_level, help="significance level (default 0.05)")
    add(
        "--trials",
        default=200,
        type=positive_int,
        help="simulated pairs per size and difference (default 200)",
    )
    add("--samples", default=1000, type=positive_int, help="B or R of the test (default 1000)")
    add("--seed", default=DEFAULT_SEED, type=int, help=f"base seed (default {DEFAULT_SEED})")
    add(
        "--sizes",
        type=numbers(int),
        help="test-set sizes, e.g. 250,500,1000 (default 125, 250, 500, ... and N)",
    )
    add(
        "--differences",
        type=numbers(float),
        help="planted differences d, metric units (default: 1-4 times the spread with none, and --difference)",
    )
    add("--power", default=0.8, type=target_power, help="target power (default 0.8)")
    add("--difference", type=positive_float, help="report the segments needed to detect this difference")
    add("--pvalue", default="c/B", choices=("c/B", "(c+1)/(B+1)"), help="p-value convention (default c/B)")
    add("--plot", type=Path, help="write the figure power vs segments to this .png or .pdf")
    add("--tsv", action="store_true", help="print the power table as TSV instead of text")
    add("--unescape-html", action="store_true", help="undo HTML escaping in all files (e.g. WMT12 outputs)")
    add("--language", default="en", help="target language, used by METEOR (default en)")
    add("--labels", type=label_list, metavar="A,B", help="labels of the two systems")
    add("systems", nargs=2, help="the two system outputs (with --scores: the two systems' names in the file)")
    add_quiet_argument(parser)


def scored_pair(args: argparse.Namespace, display: ProgressDisplay) -> tuple[Metric, np.ndarray, list[str]]:
    """The metric, the two systems' statistics ``[2, N, k]`` and their labels, the better system (by the metric)
    first: scored from the output files, or read from ``--scores``."""
    import numpy as np

    if args.scores is not None:
        systems = labelled_systems(args.systems, args.labels, files=False)
        read = scores_metric(args.scores, args.scores_format, args.lower_is_better)
        metric = labelled_scores(read, systems, files=False)
        stats = metric.stats_for(list(systems))
    else:
        stats, metric, systems = _scored_texts(args, display)
    scores = np.asarray(metric.score(stats.sum(axis=1)), dtype=float)
    oriented = scores if metric.higher_is_better else -scores
    order = [0, 1] if oriented[0] >= oriented[1] else [1, 0]
    return metric, stats[order], [list(systems)[i] for i in order]


def _scored_texts(args: argparse.Namespace, display: ProgressDisplay) -> tuple[np.ndarray, Metric, dict]:
    from mtsig.cli.compare import warn_html_entities
    from mtsig.io.text import load_texts
    from mtsig.metrics import get_metric

    if args.ref is None:
        raise InputError(
            "give the reference with --ref (and two system outputs), or segment scores with --scores"
        )
    systems = labelled_systems(args.systems, args.labels, files=True)
    options = {"language": args.language} if args.metric.lower() == "meteor" else {}
    metric = get_metric(args.metric, **options)
    refs, outputs = load_texts(args.ref, systems, unescape=args.unescape_html)
    if not args.unescape_html:
        warn_html_entities(outputs)
    with display.stage(f"scoring {metric.name}"):
        return metric.stats_many(outputs, refs), metric, systems


def simulate(
    args: argparse.Namespace, metric: Metric, stats: np.ndarray, display: ProgressDisplay
) -> pd.DataFrame:
    """:func:`~mtsig.studies.power_shift.shift_power_curve` with the command's options; the planted differences
    default to :func:`~mtsig.studies.power_shift.default_differences` and ``--difference`` (which replaces a
    default within 10% of it)."""
    from mtsig.studies.power import PowerSimulation
    from mtsig.studies.power_shift import default_differences, shift_power_curve

    differences = args.differences
    if differences is None:
        differences = default_differences(
            stats[0], stats[1], metric.score, seed=args.seed, metric=metric.name
        )
        if args.difference is not None:  # it replaces a default within 10% of it
            differences = [d for d in differences if abs(d - args.difference) > 0.1 * args.difference]
            differences.append(args.difference)
    simulation = PowerSimulation(
        test=args.test, alpha=args.alpha, n_segments_grid=args.sizes, trials=args.trials, n_samples=args.samples,
        seed=args.seed, metric=metric.name, pvalue=args.pvalue,
    )  # fmt: skip
    with display.stage("simulating") as progress:
        return shift_power_curve(
            stats[0], stats[1], metric.score, metric.higher_is_better, differences=differences,
            simulation=simulation, progress=progress,
        )  # fmt: skip


def power_report(args: argparse.Namespace) -> str:
    """Run ``mtsig power`` on parsed arguments (:func:`add_arguments`) and return its output text. Raises
    :class:`~mtsig.errors.InputError` for bad input, before anything is written."""
    display = ProgressDisplay.for_command("power", args)
    metric, stats, names = scored_pair(args, display)
    table = simulate(args, metric, stats, display)
    if args.plot is not None:
        from mtsig.report.power import plot_power_curve

        plot_power_curve(table, args.plot, target_power=args.power)
    if args.tsv:
        return table.to_csv(sep="\t", index=False, float_format="%.10g")
    return "\n".join(report_lines(args, metric, stats, names, table)) + "\n"


def report_lines(
    args: argparse.Namespace, metric: Metric, stats: np.ndarray, names: list[str], table: pd.DataFrame
) -> list[str]:
    """The readable report: settings and signature, the two systems, the power table with each size's minimum
    detectable difference, the answer at the whole test set and for ``--difference``."""
    from mtsig.report.power import shift_table_text
    from mtsig.report.signature import signature
    from mtsig.studies.power_shift import detectable_shift, segments_for_shift

    a = args
    scores = [float(metric.score(stats[i].sum(axis=0))) for i in (0, 1)]
    sizes = sorted(int(n) for n in table["n_segments"].unique())
    answers = {n: detectable_shift(table, n_segments=n, power=a.power) for n in sizes}
    shown = {n: f"{answer.value:.4g}" + ("*" if answer.extrapolated else "") for n, answer in answers.items()}
    details = metric.details()
    settings = dict(test=a.test, n_samples=a.samples, seed=a.seed, pvalue=a.pvalue, alpha=a.alpha)
    lines = [
        f"mtsig power: {details}",
        "signature: " + signature(metric_details=details, **settings),
        f"test={a.test} alpha={a.alpha:g} trials={a.trials} samples={a.samples} seed={a.seed} pvalue={a.pvalue}",
        f"X = {names[0]} ({scores[0]:.4f}), Y = {names[1]} ({scores[1]:.4f}), {stats.shape[1]} segments",
        "planted: each segment's two outputs given to X' and Y' in random order (no difference), then X' made better "
        "by d (metric units); cells: power [95% CI] at each test-set size (rows) and d (columns); sd: of S(X') - "
        f"S(Y') with no difference; detectable: the d found with power {a.power:g} (*: normal approximation)",
        "",
        shift_table_text(table, shown).rstrip("\n"),
        "",
        f"minimum detectable difference at {sizes[-1]} segments (power {a.power:g}): "
        f"{answers[sizes[-1]].value:.4g} ({answers[sizes[-1]].note})",
    ]
    if a.difference is not None:
        needed = segments_for_shift(table, a.difference, power=a.power)
        count = f"{int(round(needed.value))} ({needed.note})" if needed.reached else needed.note
        lines.append(f"segments needed for a difference of {a.difference:g} (power {a.power:g}): {count}")
    if a.plot is not None:
        lines.append(f"figure written to {a.plot}")
    return lines


def run(args: argparse.Namespace) -> int:
    """``mtsig power``: print :func:`power_report`."""
    return run_text_command(power_report, args)
