"""``mtsig compare``: score systems and test every pair, for one-off use outside the pipeline.

``mtsig compare --ref REF --metrics bleu,chrf,ter SYS1 SYS2 ...`` scores every system and runs the randomized tests
(by default the paper's three: paired bootstrap, Fig. 4; bootstrap, Fig. 3; approximate randomization, Fig. 2) for
every pair of systems, with the engine of :mod:`mtsig.stats.resampling`. Systems given as ``NAME=RUN1,RUN2,...`` (several
training runs each) get the run-aware comparison of :mod:`mtsig.stats.training_runs` instead.

Output: a readable aligned table (default), ``--tsv`` (one row per metric, ordered pair and test) or ``--json``.
``--docs FILE`` gives each segment's document (one id per line, WMT SGML or WMT22 XML) for the block bootstrap over
documents (``--tests paired_bootstrap_documents,bootstrap_documents``).

Any metric: ``--scores [NAME=]FILE`` (repeatable) adds a metric whose segment scores were computed elsewhere (COMET,
BLEURT, YiSi, MQM, ...; :class:`mtsig.metrics.segment_scores.SegmentScores`: corpus score = mean segment score), in
one of the layouts of :mod:`mtsig.io.segment_scores` (``--scores-format``, default ``auto``: told by the first
line). Alone (no ``--ref``), the positional arguments are system *names* (default: every system of the first file);
with ``--ref`` and text metrics, the systems are the output files and every scores file must score them under their
file names. ``--lower-is-better NAME,...`` marks TER-like metrics. Documents come from the scores file when it has
them (WMT ``seg.score``, a tidy ``document`` column), so the document bootstraps run without ``--docs``.

Everything is computed before anything is printed; bad input is one line on stderr (:func:`mtsig.cli.main`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from mtsig.cli._common import (
    DEFAULT_SEED,
    NO_PROGRESS,
    ProgressDisplay,
    add_quiet_argument,
    comma_list,
    confidence_level,
    positive_float,
    positive_int,
    run_text_command,
    significance_level,
)
from mtsig.errors import InputError
from mtsig.report.compare_outputs import (
    CLI_CORRECTIONS,
    Conclusions,
    MetricComparison,
    clusters_table,
    json_default,
    json_report,
    latex_report,
    long_table,
    text_report,
)
from mtsig.report.training_runs import runs_signatures, runs_text_report
from mtsig.settings import Resampling
from mtsig.stats.intervals import DEFAULT_LEVEL, INTERVAL_METHODS
from mtsig.stats.resampling.engine import ResamplingOptions, pairwise_tests
from mtsig.stats.resampling.registry import ALL_TESTS, PAPER_TESTS
from mtsig.stats.training_runs import (
    compare_training_runs,
    is_run_group,
    parse_run_groups,
    score_run_files,
)

if TYPE_CHECKING:
    from mtsig.metrics.base import Metric
    from mtsig.metrics.segment_scores import SegmentScores
    from mtsig.runtime.progress import Progress

HELP = "score systems and run randomized significance tests for every pair"
DESCRIPTION = "Score every system against one reference and test every pair of systems."
DOCUMENT_FORMATS = ("auto", "lines", "sgm", "wmt_xml", "mtme_docs")


def metric_list(text: str) -> list[str]:
    """An argparse type: known metric names, comma-separated."""
    from mtsig.metrics import METRICS

    return comma_list(text, "metric", list(METRICS))


def significance_test_list(text: str) -> list[str]:
    """An argparse type: known test names, comma-separated."""
    return comma_list(text, "test", ALL_TESTS)


def add_arguments(compare: argparse.ArgumentParser) -> None:
    """The arguments of ``mtsig compare`` (module docstring)."""
    compare.add_argument(
        "--ref",
        type=Path,
        action="append",
        help="reference, one segment per line; repeat (--ref A --ref B) for several references per segment "
        "(needed by text metrics; not by --scores)",
    )
    compare.add_argument(
        "--metrics",
        type=metric_list,
        help="comma-separated: bleu,chrf,ter,nist,meteor (default bleu with --ref; none with --scores alone)",
    )
    add_scores_arguments(compare)
    compare.add_argument("--samples", default=10_000, type=positive_int, help="B and R (default 10000)")
    compare.add_argument("--seed", default=DEFAULT_SEED, type=int, help=f"base seed (default {DEFAULT_SEED})")
    compare.add_argument(
        "--tests",
        default=",".join(PAPER_TESTS),
        type=significance_test_list,
        help=f"comma-separated tests (default {','.join(PAPER_TESTS)}); known: {', '.join(ALL_TESTS)}",
    )
    compare.add_argument(
        "--pvalue",
        default=Resampling.pvalue,
        choices=("c/B", "(c+1)/(B+1)"),
        help="p-value convention of the paper's tests (default c/B, as the paper); R&M variants always (c+1)/(B+1)",
    )
    compare.add_argument(
        "--unescape-html",
        action="store_true",
        help="undo HTML escaping (repeatedly) in all files, e.g. for WMT12 outputs that keep &#39;",
    )
    compare.add_argument("--language", default="en", help="target language, used by METEOR (default en)")
    compare.add_argument(
        "--docs",
        type=Path,
        help="document of each segment, for the *_documents tests: one id per line, or the test set's WMT SGML "
        "(<doc docid=...>) or WMT22 XML (<doc id=...>)",
    )
    compare.add_argument(
        "--docs-format",
        default="auto",
        choices=DOCUMENT_FORMATS,
        help="format of --docs (default auto: .sgm/.sgml SGML, .xml WMT22 XML, otherwise one id per line; "
        "mtme_docs: mt-metrics-eval's documents/LP.docs, DOMAIN DOCUMENT-ID per line)",
    )
    compare.add_argument(
        "--mean-block-length",
        type=positive_float,
        help="mean block length of the *_stationary tests (default: the engine's, from the number of segments)",
    )
    output = compare.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print JSON")
    output.add_argument(
        "--latex",
        action="store_true",
        help="print a paper-ready LaTeX table (daggers, intervals, signatures)",
    )
    output.add_argument(
        "--tsv", action="store_true", help="print a TSV with one row per metric, ordered pair, test"
    )
    compare.add_argument(
        "systems",
        nargs="*",
        type=Path,
        help="system outputs, one segment per line (at least 2); NAME=RUN1,RUN2,... for several training runs of "
        "one system (run-aware comparison; --tests does not apply); with --scores and no --ref: system names "
        "(default: every system of the first scores file)",
    )
    add_conclusion_arguments(compare)
    compare.add_argument(
        "--calibration",
        type=Path,
        metavar="SUMMARY_TSV",
        help="a run's results/delta_agreement/summary.tsv: print, next to each difference, the estimated share of "
        "such pairs on which humans agree with the metric's direction, or 'decreasing'/'undetermined' for a metric "
        "whose fit the table flags (readable output)",
    )
    add_quiet_argument(compare)


def add_conclusion_arguments(compare: argparse.ArgumentParser) -> None:
    """Intervals, conclusions and clusters of ``mtsig compare`` (:mod:`mtsig.report.compare_outputs`)."""
    compare.add_argument(
        "--confidence",
        default=0.95,
        type=confidence_level,
        help="level of the percentile and BCa intervals, from the paired bootstrap draws (default 0.95; 95 works)",
    )
    compare.add_argument(
        "--alpha",
        default=0.05,
        type=significance_level,
        help="significance level of conclusions and clusters (default 0.05)",
    )
    compare.add_argument(
        "--correction",
        default="none",
        choices=tuple(CLI_CORRECTIONS),
        help="multiple-testing correction over all pairs: none (the paper's rule), holm, bh (Benjamini-Hochberg)",
    )
    compare.add_argument(
        "--clusters",
        action="store_true",
        help="add WMT-style significance clusters per metric (by the first of --tests, at --alpha, --correction)",
    )


def calibration(path: Path | None) -> Callable[[str, float], float | str] | None:
    """``--calibration FILE``: the delta-agreement summary of a run (``results/delta_agreement/summary.tsv``,
    :mod:`mtsig.stats.meta_evaluation.delta_agreement`) as (metric, |delta|) -> the estimated share of such
    pairs on which humans agree with the metric's direction, or the status of a fit the table flags
    (``decreasing``, ``undetermined``) instead of a number; a metric is looked up by its name, else
    case-insensitively."""
    if path is None:
        return None
    import csv

    from mtsig.stats.meta_evaluation.delta_agreement import FIT_STATUSES, estimated_agreement

    if not path.is_file():
        raise InputError("no such calibration table (results/delta_agreement/summary.tsv of a run)", path)
    try:
        summary = pd.read_csv(
            path, sep="\t", quoting=csv.QUOTE_NONE, dtype={"metric": str, "outcome": str, "fit": str}
        )
    except (ValueError, UnicodeDecodeError) as error:
        raise InputError(f"not a delta-agreement summary: {error}", path) from None
    missing = {"metric", "outcome", "b0", "b1"} - set(summary.columns)
    if missing:
        raise InputError(f"not a delta-agreement summary: no column(s) {', '.join(sorted(missing))}", path, 1)
    if "fit" in summary.columns:
        unknown = ~summary["fit"].isin(FIT_STATUSES)
        if unknown.any():
            line = int(np.flatnonzero(unknown)[0]) + 2  # the header is line 1
            value = summary["fit"].iloc[line - 2]
            raise InputError(
                f"not a delta-agreement summary: fit {value!r} is not one of {', '.join(FIT_STATUSES)}",
                path,
                line,
            )
    names = {name.lower(): name for name in reversed(summary["metric"].tolist())}

    def agreement(metric: str, delta: float) -> float | str:
        name = metric if metric in set(summary["metric"]) else names.get(metric.lower(), metric)
        return estimated_agreement(summary, name, delta)

    return agreement


def add_scores_arguments(compare: argparse.ArgumentParser) -> None:
    """``--scores [NAME=]FILE`` (repeatable), ``--scores-format`` and ``--lower-is-better`` (module docstring)."""
    from mtsig.io.segment_scores import FORMATS

    compare.add_argument(
        "--scores",
        action="append",
        default=[],
        metavar="[NAME=]FILE",
        help="segment scores computed elsewhere, one metric per file (repeatable); NAME defaults to the metric "
        "column of a WMT seg.score file, else the file name up to its first dot",
    )
    compare.add_argument(
        "--scores-format",
        default="auto",
        choices=("auto", *FORMATS),
        help="layout of every --scores file (default auto: a tidy header system/segment/score, 8 TAB-separated "
        "WMT seg.score fields, or mt-metrics-eval's 'SYSNAME SCORE' lines)",
    )
    compare.add_argument(
        "--lower-is-better",
        default="",
        metavar="NAME[,NAME...]",
        help="--scores metrics where a lower score is better (e.g. TER); the others are higher-is-better",
    )


def run(args: argparse.Namespace) -> int:
    """``mtsig compare``: everything is computed before anything is printed. Systems given as run groups
    (``NAME=RUN1,RUN2``) get the run-aware comparison of :func:`compare_run_groups`
    (:func:`mtsig.stats.training_runs.compare_training_runs`)."""
    display = ProgressDisplay.for_command("compare", args)
    if args.scores:
        comparisons, systems = compare_with_scores(args, display)
        return write_compare_report(args, comparisons, systems)
    if args.ref is None:
        raise InputError(
            "give the reference with --ref (and system outputs), or segment scores with --scores FILE"
        )
    args.metrics = args.metrics or ["bleu"]  # the default of text-only comparisons
    if any(is_run_group(path) for path in args.systems):
        return run_text_command(compare_run_groups, args)
    systems = dict(zip(system_names(args.systems), args.systems, strict=True))
    comparisons = compare_text_metrics(args, systems, args.metrics, display)
    return write_compare_report(args, comparisons, systems)


def system_names(paths: Sequence[Path]) -> list[str]:
    """File names as system names; the paths as given where two files share a name.

    Raises:
        InputError: one file is given twice (by the same or another path): comparing a system with itself is
            never meant, and keying by name would silently drop one of them.
    """
    seen: dict[Path, int] = {}
    for position, path in enumerate(paths, start=1):
        key = Path(os.path.abspath(path))
        if key.exists():
            key = key.resolve()
        if key in seen:
            raise InputError(
                f"system output given twice (as system {seen[key]} and system {position}); give each system once",
                path,
            )
        seen[key] = position
    names = [path.name for path in paths]
    if len(set(names)) == len(names):
        return names
    return [str(path) for path in paths]


def document_format(path: Path, requested: str) -> str:
    """The reader of :mod:`mtsig.io.documents` for ``--docs``: by ``--docs-format``, or by the file's extension."""
    if requested == "lines":
        return "tsv"
    if requested != "auto":
        return requested
    suffix = path.suffix.lower()
    return {".sgm": "sgm", ".sgml": "sgm", ".xml": "wmt_xml"}.get(suffix, "tsv")


def _check_document_options(tests: Sequence[str], docs: Path | None) -> None:
    needing = [t for t in tests if t.endswith("_documents")]
    if needing and docs is None:
        raise InputError(
            f"test(s) {', '.join(needing)} resample whole documents: give each segment's document with --docs FILE "
            "(one id per line, or the test set's SGML/XML)"
        )


def compare_systems(
    reference: Path | Sequence[Path],
    systems: dict[str, Path],
    metric_names: Sequence[str],
    *,
    tests: Sequence[str],
    n_samples: int,
    seed: int,
    pvalue: str,
    unescape: bool,
    language: str = "en",
    docs: Path | None = None,
    docs_format: str = "auto",
    mean_block_length: float | None = None,
    confidence: float = DEFAULT_LEVEL,
    display: ProgressDisplay = NO_PROGRESS,
) -> list[MetricComparison]:
    """Load the texts, compute each metric's statistics and run the tests for every pair of systems.

    All metrics use the same ``seed``: the engine's draws depend only on the seed and the test-set size, so every
    metric sees the same pseudo-samples and the metrics' conclusions differ because of the metrics alone.
    ``display`` shows each metric's scoring and resampling as stages.
    """
    from mtsig.io.documents import read_documents
    from mtsig.io.text import load_texts, segment_count
    from mtsig.metrics import get_metric

    if len(systems) < 2:
        raise InputError(f"need at least two system outputs to compare, got {len(systems)}")
    if not metric_names or not tests:
        raise InputError("need at least one metric and one test")
    _check_document_options(tests, docs)
    metrics = [
        get_metric(name, language=language) if name.lower() == "meteor" else get_metric(name)
        for name in metric_names
    ]
    refs, outputs = load_texts(reference, systems, unescape=unescape)
    if not refs:
        raise InputError("the reference is empty", reference)
    n_segments = segment_count(refs)
    documents = None if docs is None else read_documents(docs, document_format(docs, docs_format), n_segments)
    comparisons = []
    for metric in metrics:
        with display.stage(f"scoring {metric.name}"):
            stats = metric.stats_many(outputs, refs)
        with display.stage(f"resampling {metric.name}") as progress:
            comparisons.append(
                metric_comparison(
                    metric,
                    stats,
                    list(outputs),
                    tests=tests,
                    n_samples=n_samples,
                    seed=seed,
                    pvalue=pvalue,
                    documents=documents,
                    mean_block_length=mean_block_length,
                    confidence=confidence,
                    progress=progress,
                )
            )
    return comparisons


def metric_comparison(
    metric: Metric,
    stats: np.ndarray,
    systems: list[str],
    *,
    tests: Sequence[str],
    n_samples: int,
    seed: int,
    pvalue: str,
    documents: np.ndarray | None,
    mean_block_length: float | None,
    confidence: float,
    progress: Progress | None = None,
) -> MetricComparison:
    """One metric's statistics through :func:`pairwise_tests` (every pair, the tests asked for, the percentile and
    BCa intervals of the paired bootstrap's draws at ``confidence``; ``progress`` told in blocks of draws)."""
    result = pairwise_tests(
        stats,
        metric.score,
        systems,
        ResamplingOptions(
            higher_is_better=metric.higher_is_better,
            tests=tests,
            n_samples=n_samples,
            seed=seed,
            pvalue=pvalue,  # type: ignore[arg-type]
            documents=documents,
            mean_block_length=mean_block_length,
            intervals=INTERVAL_METHODS,
            interval_level=confidence,
            progress=progress,
        ),
    )
    return MetricComparison(metric.name, metric.details(), metric.higher_is_better, result)


def compare_text_metrics(
    args: argparse.Namespace,
    systems: dict[str, Path],
    metric_names: Sequence[str],
    display: ProgressDisplay = NO_PROGRESS,
) -> list[MetricComparison]:
    """:func:`compare_systems` with the command's options."""
    return compare_systems(
        args.ref,
        systems,
        metric_names,
        tests=args.tests,
        n_samples=args.samples,
        seed=args.seed,
        pvalue=args.pvalue,
        unescape=args.unescape_html,
        language=args.language,
        docs=args.docs,
        docs_format=args.docs_format,
        mean_block_length=args.mean_block_length,
        confidence=args.confidence,
        display=display,
    )


def write_compare_report(
    args: argparse.Namespace, comparisons: Sequence[MetricComparison], systems: Mapping[str, Path | None]
) -> int:
    """Print the comparison in the requested mode (aligned text, ``--tsv``, ``--latex`` or ``--json``)."""
    conclusions = Conclusions(args.tests[0], args.alpha, CLI_CORRECTIONS[args.correction])
    if args.tsv and args.clusters:
        text = clusters_table(comparisons, conclusions).to_csv(sep="\t", index=False, float_format="%.10g")
    elif args.tsv:
        text = long_table(comparisons, args.seed).to_csv(sep="\t", index=False, float_format="%.10g")
    elif args.latex:
        text = latex_report(comparisons, conclusions, clusters=args.clusters)
    else:
        common = {
            "seed": args.seed,
            "pvalue": args.pvalue,
            "conclusions": conclusions,
            "clusters": args.clusters,
        }
        if args.json:
            text = json_report(comparisons, reference=args.ref, systems=systems, **common)
        else:
            text = text_report(
                comparisons, n_samples=args.samples, human_agreement=calibration(args.calibration), **common
            )
    sys.stdout.write(text)
    return 0


def scores_metric(argument: str, requested_format: str, lower_is_better: set[str]) -> SegmentScores:
    """The :class:`SegmentScores` metric of one ``--scores [NAME=]FILE`` argument."""
    from mtsig.io.segment_scores import detect_format, read_data_lines, read_segment_scores
    from mtsig.metrics.segment_scores import SegmentScores

    name, separator, file = argument.partition("=")
    if not separator or Path(argument).is_file() or "/" in name:
        name, file = "", argument
    path = Path(file)
    fmt = detect_format(path) if requested_format == "auto" else requested_format
    frame = read_segment_scores(path, fmt)
    if not name and fmt == "wmt_seg_score":
        name = read_data_lines(path)[0][0].split("\t")[0]  # the metric column (one metric per file: checked)
    name = name or path.name.split(".")[0] or path.name
    return SegmentScores.from_frame(
        frame, name=name, higher_is_better=name not in lower_is_better, format=fmt
    )


def compare_with_scores(
    args: argparse.Namespace, display: ProgressDisplay = NO_PROGRESS
) -> tuple[list[MetricComparison], dict[str, Path | None]]:
    """``mtsig compare --scores ...``: precomputed segment scores, alone or next to text metrics.

    Alone, the systems are the positional names (default: the first file's systems, in its order) and the test set
    is the first file's segments; with ``--ref``, the systems are the output files (named as without ``--scores``)
    and every scores file must score each of them on every line of the reference. Every scores file must score
    every compared system on the same number of segments (an error naming the file and line otherwise).
    Documents: ``--docs``, else those of the scores files (which must agree), else none.
    """
    from mtsig.metrics.segment_scores import shared_test_set

    lower = {item.strip() for item in args.lower_is_better.split(",") if item.strip()}
    metrics = [scores_metric(argument, args.scores_format, lower) for argument in args.scores]
    names = [metric.name for metric in metrics]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise InputError(
            f"metric name(s) {', '.join(repeated)} given to more than one --scores; use NAME=FILE"
        )
    unknown = sorted(lower - set(names))
    if unknown:
        raise InputError(
            f"--lower-is-better names {', '.join(unknown)}, not a --scores metric ({', '.join(names)})"
        )
    if args.ref is None:
        if args.metrics:
            raise InputError(
                f"text metrics ({', '.join(args.metrics)}) need the reference: give --ref and outputs"
            )
        systems: dict[str, Path | None] = dict.fromkeys(
            [str(s) for s in args.systems] or metrics[0].systems, None
        )
        if len(systems) != len(args.systems or systems):
            raise InputError("a system is named twice on the command line")
        n_segments = None
        comparisons: list[MetricComparison] = []
    else:
        from mtsig.io.text import load_texts, segment_count

        systems = dict(zip(system_names(args.systems), args.systems, strict=True))
        refs, _ = load_texts(args.ref, systems, unescape=args.unescape_html)  # type: ignore[arg-type]
        n_segments = segment_count(refs)
        comparisons = compare_text_metrics(args, systems, args.metrics, display) if args.metrics else []  # type: ignore[arg-type]
    if len(systems) < 2:
        raise InputError(f"need at least two systems to compare, got {len(systems)}")
    n_segments, scores_documents = shared_test_set(metrics, list(systems), n_segments)
    documents = scores_documents if args.docs is None else _read_docs(args, n_segments)
    needing = [t for t in args.tests if t.endswith("_documents")]
    if needing and documents is None:
        raise InputError(
            f"test(s) {', '.join(needing)} resample whole documents: the scores files have no documents; give "
            "each segment's document with --docs FILE"
        )
    for metric in metrics:
        stats = metric.stats_for(list(systems), n_segments)
        with display.stage(f"resampling {metric.name}") as progress:
            comparisons.append(
                metric_comparison(
                    metric,
                    stats,
                    list(systems),
                    tests=args.tests,
                    n_samples=args.samples,
                    seed=args.seed,
                    pvalue=args.pvalue,
                    documents=documents,
                    mean_block_length=args.mean_block_length,
                    confidence=args.confidence,
                    progress=progress,
                )
            )
    return comparisons, systems


def _read_docs(args: argparse.Namespace, n_segments: int) -> np.ndarray:
    from mtsig.io.documents import read_documents

    return read_documents(args.docs, document_format(args.docs, args.docs_format), n_segments)


def compare_run_groups(args: argparse.Namespace) -> str:
    """``mtsig compare`` with systems given as ``NAME=RUN1,RUN2,...`` (parsed by the compare sub-command): score
    every run with every metric, run :func:`compare_training_runs` per metric (B = R = ``--samples``, ``--seed``),
    and return the text report, or with ``--tsv`` the pairs table, or with ``--json`` systems, pairs and settings.
    ``--tests`` does not apply (the tests are the run-aware test and MultEval's). Raises
    :class:`~mtsig.errors.InputError` for bad input, before anything is written.
    """
    groups = parse_run_groups(args.systems)
    display = ProgressDisplay.for_command("compare", args)
    with display.stage("scoring every run"):
        scored = score_run_files(
            args.ref, groups, args.metrics, unescape=args.unescape_html, language=args.language
        )
    comparisons = []
    for metric, by_system in scored:
        with display.stage(f"comparing runs by {metric.name}"):
            comparisons.append(
                compare_training_runs(
                    by_system,
                    metric.score,
                    higher_is_better=metric.higher_is_better,
                    n_samples=args.samples,
                    seed=args.seed,
                    metric=metric.name,
                )
            )
    details = [metric.details() for metric, _ in scored]
    if args.tsv:
        pairs = []
        for comparison, detail in zip(comparisons, details, strict=True):
            signatures = runs_signatures(comparison.settings, detail)
            pairs.append(
                comparison.pairs.assign(
                    signature=signatures["p_value"], signature_multeval=signatures["p_multeval"]
                )
            )
        return pd.concat(pairs).to_csv(sep="\t", index=False, float_format="%.10g")
    if args.json:
        document = {
            "reference": [str(path) for path in args.ref],
            "runs": {name: [str(path) for path in paths] for name, paths in groups.items()},
            "metrics": {metric.name: metric.details() for metric, _ in scored},
            "signatures": {
                metric.name: runs_signatures(c.settings, detail)
                for (metric, _), c, detail in zip(scored, comparisons, details, strict=True)
            },
            "settings": comparisons[0].settings,
            "systems": pd.concat([c.systems for c in comparisons]).to_dict(orient="records"),
            "pairs": pd.concat([c.pairs for c in comparisons]).to_dict(orient="records"),
        }
        return json.dumps(document, indent=2, default=json_default) + "\n"
    return runs_text_report(comparisons, [metric.details() for metric, _ in scored])
