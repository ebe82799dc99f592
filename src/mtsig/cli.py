"""The ``mtsig`` command, for one-off use outside the pipeline.

``mtsig compare --ref REF --metrics bleu,chrf,ter SYS1 SYS2 ...`` scores every system and runs the randomized tests
(by default the paper's three: paired bootstrap, Fig. 4; bootstrap, Fig. 3; approximate randomization, Fig. 2) for
every pair of systems, with the engine of :mod:`mtsig.resampling`. Systems given as ``NAME=RUN1,RUN2,...`` (several
training runs each) get the run-aware comparison of :mod:`mtsig.training_runs` instead. ``mtsig power`` simulates a
test's power and the minimum detectable difference on two systems (:mod:`mtsig.power`).

Output: a readable aligned table (default), ``--tsv`` (one row per metric, ordered pair and test) or ``--json``.
Bad input (missing file, mismatched line counts, unknown metric) prints ``mtsig: error: ...`` to stderr and exits 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from mtsig import __version__
from mtsig.errors import InputError
from mtsig.power import add_power_arguments, power_command
from mtsig.resampling import ALL_TESTS, PAPER_TESTS, TESTS, PairwiseResult, pairwise_tests
from mtsig.training_runs import compare_runs_command, is_run_group

DEFAULT_SEED = 12345
EXIT_INPUT_ERROR = 2


@dataclass
class MetricComparison:
    """The results of one metric: its name, its settings signature and the engine's result."""

    name: str
    details: str
    higher_is_better: bool
    result: PairwiseResult


def _comma_list(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def _tests(text: str) -> list[str]:
    tests = _comma_list(text)
    unknown = [t for t in tests if t not in TESTS]
    if unknown or not tests:
        raise argparse.ArgumentTypeError(
            f"unknown test(s) {', '.join(unknown)}; known: {', '.join(ALL_TESTS)}"
        )
    return tests


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``mtsig`` (sub-command ``compare``)."""
    parser = argparse.ArgumentParser(prog="mtsig", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"mtsig {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    compare = commands.add_parser(
        "compare",
        help="score systems and run randomized significance tests for every pair",
        description="Score every system against one reference and test every pair of systems.",
    )
    compare.add_argument("--ref", required=True, type=Path, help="reference, one segment per line")
    compare.add_argument(
        "--metrics",
        default="bleu",
        type=_comma_list,
        help="comma-separated: bleu,chrf,ter,nist,meteor (default bleu)",
    )
    compare.add_argument("--samples", default=10_000, type=_positive_int, help="B and R (default 10000)")
    compare.add_argument("--seed", default=DEFAULT_SEED, type=int, help=f"base seed (default {DEFAULT_SEED})")
    compare.add_argument(
        "--tests",
        default=",".join(PAPER_TESTS),
        type=_tests,
        help=f"comma-separated tests (default {','.join(PAPER_TESTS)}); known: {', '.join(ALL_TESTS)}",
    )
    compare.add_argument(
        "--pvalue",
        default="c/B",
        choices=("c/B", "(c+1)/(B+1)"),
        help="p-value convention of the paper's tests (default c/B, as the paper); R&M variants always (c+1)/(B+1)",
    )
    compare.add_argument(
        "--unescape-html",
        action="store_true",
        help="undo HTML escaping (repeatedly) in all files, e.g. for WMT12 outputs that keep &#39;",
    )
    compare.add_argument("--language", default="en", help="target language, used by METEOR (default en)")
    output = compare.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print JSON")
    output.add_argument(
        "--tsv", action="store_true", help="print a TSV with one row per metric, ordered pair, test"
    )
    compare.add_argument(
        "systems",
        nargs="+",
        type=Path,
        help="system outputs, one segment per line (at least 2); NAME=RUN1,RUN2,... for several training runs of "
        "one system (run-aware comparison; --tests does not apply)",
    )
    add_power_arguments(
        commands.add_parser("power", help="power and minimum detectable difference of a test, by simulation"),
        default_seed=DEFAULT_SEED,
    )
    return parser


def system_names(paths: Sequence[Path]) -> list[str]:
    """File names as system names; the full paths where two files share a name."""
    names = [path.name for path in paths]
    if len(set(names)) == len(names):
        return names
    return [str(path) for path in paths]


def compare_systems(
    reference: Path,
    systems: dict[str, Path],
    metric_names: Sequence[str],
    *,
    tests: Sequence[str],
    n_samples: int,
    seed: int,
    pvalue: str,
    unescape: bool,
    language: str = "en",
) -> list[MetricComparison]:
    """Load the texts, compute each metric's statistics and run the tests for every pair of systems.

    All metrics use the same ``seed``: the engine's draws depend only on the seed and the test-set size, so every
    metric sees the same pseudo-samples and the metrics' conclusions differ because of the metrics alone.
    """
    from mtsig.io.text import load_texts
    from mtsig.metrics import get_metric

    if len(systems) < 2:
        raise InputError("need at least two system outputs to compare", reference)
    metrics = [
        get_metric(name, language=language) if name.lower() == "meteor" else get_metric(name)
        for name in metric_names
    ]
    refs, outputs = load_texts(reference, systems, unescape=unescape)
    if not refs:
        raise InputError("the reference is empty", reference)
    comparisons = []
    for metric in metrics:
        stats = metric.stats_many(outputs, refs)
        result = pairwise_tests(
            stats,
            metric.score,
            list(outputs),
            higher_is_better=metric.higher_is_better,
            tests=tests,
            n_samples=n_samples,
            seed=seed,
            pvalue=pvalue,  # type: ignore[arg-type]
        )
        comparisons.append(MetricComparison(metric.name, metric.details(), metric.higher_is_better, result))
    return comparisons


def long_table(comparisons: Sequence[MetricComparison], seed: int) -> pd.DataFrame:
    """All metrics' rows: ``metric, sys_x, sys_y, test, statistic, p_value, samples, seed``."""
    frames = []
    for comparison in comparisons:
        frame = comparison.result.table.copy()
        frame.insert(0, "metric", comparison.name)
        frame["samples"] = frame["test"].map(comparison.result.settings["n_samples"])
        frame["seed"] = seed
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def _aligned(rows: Sequence[Sequence[str]], right: Sequence[bool]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [cell.rjust(w) if r else cell.ljust(w) for cell, w, r in zip(row, widths, right, strict=True)]
        lines.append("  ".join(cells).rstrip())
    return lines


def text_report(comparisons: Sequence[MetricComparison], *, seed: int, n_samples: int, pvalue: str) -> str:
    """The readable report: settings, a table of system scores, then per metric one line per unordered pair.

    Each pair is shown with the better system (by the metric) as X, so the statistic is >= 0 and the one-sided
    p-values are those of "X better than Y"; two-sided p-values do not depend on the order.
    """
    first = comparisons[0].result
    systems = list(first.system_scores)
    tests = list(dict.fromkeys(first.table["test"]))
    lines = [
        f"mtsig {__version__} compare: seed={seed} samples={n_samples} pvalue={pvalue}",
        "one-sided p-values are for 'sys_x better than sys_y'; sys_x is the better system of each pair",
        "",
        "System scores",
    ]
    score_rows = [["system", *(c.name for c in comparisons)]]
    for name in systems:
        score_rows.append([name, *(f"{c.result.system_scores[name]:.4f}" for c in comparisons)])
    lines += _aligned(score_rows, [False] + [True] * len(comparisons))
    for comparison in comparisons:
        table = comparison.result.table
        oriented = table[table["statistic"] > 0]
        ties = table[
            (table["statistic"] == 0)
            & (table["sys_x"].map(systems.index) < table["sys_y"].map(systems.index))
        ]
        shown = pd.concat([oriented, ties])
        wide = shown.pivot_table(
            index=["sys_x", "sys_y", "statistic"], columns="test", values="p_value", sort=False
        )
        wide = wide.reset_index().sort_values("statistic", ascending=False)
        definition = "S(X) - S(Y)" if comparison.higher_is_better else "S(Y) - S(X), lower is better"
        lines += ["", f"{comparison.name}: statistic = {definition}", f"  {comparison.details}"]
        header = ["sys_x", "sys_y", "statistic", *tests]
        rows = [header]
        for _, row in wide.iterrows():
            rows.append(
                [row["sys_x"], row["sys_y"], f"{row['statistic']:.4f}", *(f"{row[t]:.4f}" for t in tests)]
            )
        lines += _aligned(rows, [False, False] + [True] * (len(header) - 2))
    return "\n".join(lines) + "\n"


def json_report(
    comparisons: Sequence[MetricComparison],
    *,
    seed: int,
    pvalue: str,
    reference: Path,
    systems: dict[str, Path],
) -> str:
    """Settings, each metric's signature and scores, and every row of the long table."""
    document = {
        "mtsig_version": __version__,
        "seed": seed,
        "pvalue": pvalue,
        "reference": str(reference),
        "systems": {name: str(path) for name, path in systems.items()},
        "metrics": {
            c.name: {
                "details": c.details,
                "higher_is_better": c.higher_is_better,
                "scores": c.result.system_scores,
                "settings": c.result.settings,
            }
            for c in comparisons
        },
        "results": long_table(comparisons, seed).to_dict(orient="records"),
    }
    return json.dumps(document, indent=2, default=_json_default) + "\n"


def _json_default(value: object) -> object:
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``mtsig`` console script; returns the exit status."""
    args = build_parser().parse_args(argv)
    extra_command = power_command if args.command == "power" else None
    if args.command == "compare" and any(is_run_group(path) for path in args.systems):
        extra_command = compare_runs_command
    if extra_command is not None:  # sub-commands whose whole logic lives in their library module
        try:
            text = extra_command(args)
        except (InputError, OSError, RuntimeError) as error:  # OSError: e.g. --plot where it cannot write
            print(f"mtsig: error: {error}", file=sys.stderr)
            return EXIT_INPUT_ERROR
        sys.stdout.write(text)
        return 0
    systems = dict(zip(system_names(args.systems), args.systems, strict=True))
    try:
        comparisons = compare_systems(
            args.ref,
            systems,
            args.metrics,
            tests=args.tests,
            n_samples=args.samples,
            seed=args.seed,
            pvalue=args.pvalue,
            unescape=args.unescape_html,
            language=args.language,
        )
    except (InputError, RuntimeError) as error:  # RuntimeError: e.g. Java missing for METEOR
        print(f"mtsig: error: {error}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    if args.tsv:
        sys.stdout.write(
            long_table(comparisons, args.seed).to_csv(sep="\t", index=False, float_format="%.10g")
        )
    elif args.json:
        sys.stdout.write(
            json_report(comparisons, seed=args.seed, pvalue=args.pvalue, reference=args.ref, systems=systems)
        )
    else:
        sys.stdout.write(text_report(comparisons, seed=args.seed, n_samples=args.samples, pvalue=args.pvalue))
    return 0


if __name__ == "__main__":
    sys.exit(main())
