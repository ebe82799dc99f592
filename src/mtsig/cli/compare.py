"""``mtsig compare``: score systems and test every pair, for one-off use outside the pipeline.

``mtsig compare --ref REF --metrics bleu,chrf,ter SYS1 SYS2 ...`` scores every system and runs the randomized tests
for every pair of systems, with the engine of :mod:`mtsig.stats.resampling` (:func:`metric_comparison`, its one
call). The readable output opens with a verdict (:mod:`mtsig.report.verdict`): for each pair, which system each
metric prefers, whether significantly, and where significant metrics disagree.

**Which tests.** When each segment's document is known (``--docs FILE``: one id per line, WMT SGML or WMT22 XML; or
the documents of a ``--scores`` file), the verdict is the document-level paired bootstrap's
(``paired_bootstrap_documents``) and the paper's three tests are beside it (paired bootstrap, Fig. 4; bootstrap,
Fig. 3; approximate randomization, Fig. 2): when whole documents are exchangeable the segment-level tests reject a
true null far more often than alpha (docs/results.md, "Beyond the paper"). Without documents the paper's three
run, the paired bootstrap concludes, and one line says what they assume. ``--tests`` chooses others.

**Systems and labels** (:mod:`mtsig.cli._systems`): output files, each labelled by its file name, by ``--labels
A,B`` or by ``LABEL=FILE``; several training runs per system take ``--runs NAME=RUN1,RUN2,...`` (the run-aware
comparison of :mod:`mtsig.stats.training_runs`).

Output: a readable aligned report (default), ``--tsv`` (one row per metric, ordered pair and test), ``--json`` or
``--latex``.

**Rank sets** (``--rank-sets``, :mod:`mtsig.cli._rank_sets`): per metric, confidence sets for the systems' ranks by
the corpus score, from the first ``--samples`` pseudo-test-sets of the paired bootstrap (whole documents when they
are known), the same draws as the tests' (:mod:`mtsig.stats.rank_sets.corpus`).

Any metric: ``--scores [NAME=]FILE`` (repeatable) adds a metric whose segment scores were computed elsewhere (COMET,
BLEURT, YiSi, MQM, ...; :class:`mtsig.metrics.segment_scores.SegmentScores`: corpus score = mean segment score), in
one of the layouts of :mod:`mtsig.io.segment_scores` (``--scores-format``, default ``auto``: told by the first
line). Alone (no ``--ref``), the positional arguments are system *names* (default: every system of the first file);
with ``--ref`` and text metrics, the systems are the output files and every scores file must name their rows by
their labels or file names. ``--lower-is-better NAME,...`` marks TER-like metrics.

Everything is computed before anything is printed; bad input is one line on stderr (:func:`mtsig.cli.main`).
Heavy modules are imported when the command runs, so that ``--help`` answers at once.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

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
    warn,
)
from mtsig.cli._rank_sets import (
    RankSetOptions,
    add_rank_set_arguments,
    compare_rank_set_options,
    metric_rank_sets,
)
from mtsig.cli._systems import (
    SCORES_FORMATS,
    label_list,
    labelled_scores,
    labelled_systems,
    scores_metric,
)
from mtsig.errors import InputError

if TYPE_CHECKING:
    import numpy as np

    from mtsig.metrics.base import Metric
    from mtsig.metrics.segment_scores import SegmentScores
    from mtsig.report.comparison import MetricComparison
    from mtsig.runtime.progress import Progress

HELP = "score systems and run randomized significance tests for every pair"
DESCRIPTION = (
    "Score every system against one reference and test every pair of systems; the report opens with a verdict: "
    "which system each metric prefers, and whether significantly."
)
DOCUMENT_FORMATS = ("auto", "lines", "sgm", "wmt_xml", "mtme_docs")
#: ``--correction`` choices (:data:`mtsig.report.compare_outputs.CLI_CORRECTIONS`).
CORRECTIONS = ("none", "holm", "bh")
#: The verdict's test when documents are known; the paper's tests run beside it.
DOCUMENT_TEST = "paired_bootstrap_documents"


def metric_list(text: str) -> list[str]:
    """An argparse type: known metric names, comma-separated."""
    from mtsig.metrics import METRICS

    return comma_list(text, "metric", list(METRICS))


def significance_test_list(text: str) -> list[str]:
    """An argparse type: known test names, comma-separated."""
    from mtsig.stats.resampling.registry import ALL_TESTS

    return comma_list(text, "test", ALL_TESTS)


def default_tests(documents_known: bool) -> list[str]:
    """The tests run when ``--tests`` is not given (module docstring): the first one concludes."""
    from mtsig.stats.resampling.registry import PAPER_TESTS

    return [DOCUMENT_TEST, *PAPER_TESTS] if documents_known else list(PAPER_TESTS)


def add_arguments(compare: argparse.ArgumentParser) -> None:
    """The arguments of ``mtsig compare`` (module docstring)."""
    add_input_arguments(compare)
    add_scores_arguments(compare)
    add_test_arguments(compare)
    add_conclusion_arguments(compare)
    add_output_arguments(compare)
    add_rank_set_arguments(
        compare,
        draws=False,
        asked_by="by each metric's corpus score, from the first --samples paired bootstrap draws",
    )


def add_input_arguments(compare: argparse.ArgumentParser) -> None:
    """The reference, the systems and their labels, the training runs, the documents."""
    add = compare.add_argument
    add(
        "--ref",
        type=Path,
        action="append",
        help="reference, one segment per line; repeat (--ref A --ref B) for several references per segment "
        "(needed by text metrics; not by --scores)",
    )
    add(
        "--metrics",
        type=metric_list,
        help="comma-separated: bleu,chrf,ter,nist,meteor (default bleu with --ref; none with --scores alone)",
    )
    add(
        "systems",
        nargs="*",
        help="system outputs, one segment per line (at least 2), each labelled by its file name or as LABEL=FILE; "
        "with --scores and no --ref: system names as the scores file gives them (default: all of the first file)",
    )
    add(
        "--labels",
        type=label_list,
        metavar="A,B,...",
        help="one label per system, in order, for every output",
    )
    add(
        "--runs",
        action="append",
        default=[],
        metavar="NAME=RUN1,RUN2,...",
        help="one system's training runs (repeat per system): the run-aware comparison instead (--tests ignored)",
    )
    add(
        "--unescape-html",
        action="store_true",
        help="undo HTML escaping (repeatedly) in all files, e.g. for WMT12 outputs that keep &#39;",
    )
    add("--language", default="en", help="target language, used by METEOR (default en)")
    add(
        "--docs",
        type=Path,
        help="document of each segment (then the verdict resamples whole documents): one id per line, or the test "
        "set's WMT SGML (<doc docid=...>) or WMT22 XML (<doc id=...>)",
    )
    add(
        "--docs-format",
        default="auto",
        choices=DOCUMENT_FORMATS,
        help="format of --docs (default auto: .sgm/.sgml SGML, .xml WMT22 XML, otherwise one id per line; "
        "mtme_docs: mt-metrics-eval's documents/LP.docs, DOMAIN DOCUMENT-ID per line)",
    )


def add_test_arguments(compare: argparse.ArgumentParser) -> None:
    """The tests, their resamples, seed and p-value convention."""
    add = compare.add_argument
    add("--samples", default=10_000, type=positive_int, help="B and R (default 10000)")
    add("--seed", default=DEFAULT_SEED, type=int, help=f"base seed (default {DEFAULT_SEED})")
    add(
        "--tests",
        type=significance_test_list,
        help=f"comma-separated tests, the first concluding (default: {DOCUMENT_TEST} and the paper's paired_bootstrap,"
        "bootstrap,approximate_randomization with documents, the paper's three without; docs/statistics.md lists all)",
    )
    add(
        "--pvalue",
        default="c/B",
        choices=("c/B", "(c+1)/(B+1)"),
        help="p-value convention of the paper's tests (default c/B, as the paper); R&M variants always (c+1)/(B+1)",
    )
    add(
        "--mean-block-length",
        type=positive_float,
        help="mean block length of the *_stationary tests (default: the engine's, from the number of segments)",
    )


def add_output_arguments(compare: argparse.ArgumentParser) -> None:
    """The output mode, the delta-agreement calibration column, progress."""
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
        choices=CORRECTIONS,
        help="multiple-testing correction over all pairs: none (the paper's rule), holm, bh (Benjamini-Hochberg)",
    )
    compare.add_argument(
        "--clusters",
        action="store_true",
        help="add WMT-style significance clusters per metric (by the first of --tests, at --alpha, --correction)",
    )


def add_scores_arguments(compare: argparse.ArgumentParser) -> None:
    """``--scores [NAME=]FILE`` (repeatable), ``--scores-format`` and ``--lower-is-better`` (module docstring)."""
    compare.add_argument(
        "--scores",
        action="append",
        default=[],
        metavar="[NAME=]FILE",
        help="segment scores computed elsewhere, one metric per file (repeatable); NAME defaults to the metric "
        "column of a WMT seg.score file, else the file name up to its first dot (layouts: docs/cli.md)",
    )
    compare.add_argument(
        "--scores-format",
        default="auto",
        choices=("auto", *SCORES_FORMATS),
        help="layout of every --scores file (default auto: a tidy header system/segment/score, 8 TAB-separated "
        "WMT seg.score fields, or mt-metrics-eval's 'SYSNAME SCORE' lines)",
    )
    compare.add_argument(
        "--lower-is-better",
        default="",
        metavar="NAME[,NAME...]",
        help="--scores metrics where a lower score is better (e.g. TER); the others are higher-is-better",
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

    import numpy as np
    import pandas as pd

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


def run(args: argparse.Namespace) -> int:
    """``mtsig compare``: everything is computed before anything is printed. Training runs (``--runs``) get the
    run-aware comparison of :func:`compare_run_groups`."""
    args.rank_set_options = compare_rank_set_options(args)
    if args.runs:
        if args.systems or args.scores or args.labels:
            raise InputError(
                "with --runs give every system as --runs NAME=RUN1[,RUN2...] (one run: --runs NAME=FILE); no other "
                "system, --labels or --scores"
            )
        return run_text_command(compare_run_groups, args)
    display = ProgressDisplay.for_command("compare", args)
    if args.scores:
        comparisons, systems, documents = compare_with_scores(args, display)
    else:
        if args.ref is None:
            raise InputError(
                "give the reference with --ref (and system outputs), or segment scores with --scores FILE"
            )
        args.metrics = args.metrics or ["bleu"]  # the default of text-only comparisons
        args.tests = args.tests or default_tests(args.docs is not None)
        systems = labelled_systems(args.systems, args.labels, files=True)
        comparisons = compare_text_metrics(
            args, {k: Path(v) for k, v in systems.items()}, args.metrics, display
        )
        documents = args.docs is not None
    n_documents = comparisons[0].result.settings.get("n_documents") if documents else None
    return write_compare_report(args, comparisons, systems, n_documents=n_documents)


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
    confidence: float = 0.95,
    display: ProgressDisplay = NO_PROGRESS,
    rank_sets: RankSetOptions | None = None,
) -> list[MetricComparison]:
    """Load the texts, compute each metric's statistics and run the tests for every pair of systems (label ->
    output file). Without ``unescape``, a text holding HTML entities is one warning line on stderr.

    All metrics use the same ``seed``: the engine's draws depend only on the seed and the test-set size, so every
    metric sees the same pseudo-samples and the metrics' conclusions differ because of the metrics alone.
    ``display`` shows each metric's scoring and resampling as stages; ``rank_sets``: add each metric's rank sets.
    """
    from mtsig.io.documents import document_format, read_documents
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
    if not unescape:
        warn_html_entities(outputs)
    n_segments = segment_count(refs)
    documents = None if docs is None else read_documents(docs, document_format(docs, docs_format), n_segments)
    comparisons = []
    for metric in metrics:
        with display.stage(f"scoring {metric.name}"):
            stats = metric.stats_many(outputs, refs)
        options = {"mean_block_length": mean_block_length, "confidence": confidence, "rank_sets": rank_sets}
        with display.stage(f"resampling {metric.name}") as progress:
            comparisons.append(
                metric_comparison(
                    metric, stats, list(outputs), tests, n_samples, seed, pvalue, documents, options, progress
                )
            )
    return comparisons


def warn_html_entities(texts: Mapping[str, Sequence[str]]) -> None:
    """One warning line when a system output holds HTML entities (:func:`mtsig.io.text.html_entities_note`)."""
    from mtsig.io.text import html_entities_note

    note = html_entities_note(texts)
    if note is not None:
        warn(note)


def metric_comparison(
    metric: Metric,
    stats: np.ndarray,
    systems: list[str],
    tests: Sequence[str],
    n_samples: int,
    seed: int,
    pvalue: str,
    documents: np.ndarray | None,
    options: Mapping[str, object],
    progress: Progress | None = None,
) -> MetricComparison:
    """One metric's statistics through :func:`mtsig.stats.resampling.pairwise_tests`, the command's one call of
    the engine: every pair, the tests asked for, the percentile and BCa intervals of the paired bootstrap's draws
    at ``options["confidence"]`` (``options["mean_block_length"]`` for the stationary tests; ``progress`` told in
    blocks of draws); ``options["rank_sets"]`` (:class:`RankSetOptions`, or absent) adds the rank sets by the
    metric's corpus score from the same paired bootstrap's draws."""
    from mtsig.report.comparison import MetricComparison
    from mtsig.stats.intervals import INTERVAL_METHODS
    from mtsig.stats.resampling.engine import ResamplingOptions, pairwise_tests

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
            mean_block_length=options["mean_block_length"],  # type: ignore[arg-type]
            intervals=INTERVAL_METHODS,
            interval_level=options["confidence"],  # type: ignore[arg-type]
            progress=progress,
        ),
    )
    comparison = MetricComparison(metric.name, metric.details(), metric.higher_is_better, result)
    wanted = options.get("rank_sets")
    if isinstance(wanted, RankSetOptions):
        comparison.rank_sets = metric_rank_sets(metric, stats, systems, documents, n_samples, seed, wanted)
    return comparison


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
        rank_sets=args.rank_set_options,
    )


def write_compare_report(
    args: argparse.Namespace,
    comparisons: Sequence[MetricComparison],
    systems: Mapping[str, str | None],
    *,
    n_documents: int | None = None,
) -> int:
    """Print the comparison in the requested mode (aligned text, ``--tsv``, ``--latex`` or ``--json``); the text
    and JSON say what the verdict's test assumes about documents (:func:`mtsig.report.verdict.dependence_line`)."""
    from mtsig.report import compare_outputs as out
    from mtsig.report.comparison import Conclusions
    from mtsig.report.verdict import dependence_line

    conclusions = Conclusions(args.tests[0], args.alpha, out.CLI_CORRECTIONS[args.correction])
    common = {"seed": args.seed, "pvalue": args.pvalue, "conclusions": conclusions, "clusters": args.clusters}
    dependence = dependence_line(n_documents, args.tests[0])
    if args.tsv and args.rank_set_options is not None:
        text = out.rank_sets_tsv(comparisons)
    elif args.tsv and args.clusters:
        text = out.clusters_table(comparisons, conclusions).to_csv(
            sep="\t", index=False, float_format="%.10g"
        )
    elif args.tsv:
        text = out.long_table(comparisons, args.seed).to_csv(sep="\t", index=False, float_format="%.10g")
    elif args.latex:
        text = out.latex_report(comparisons, conclusions, clusters=args.clusters)
    elif args.json:
        paths = {name: None if path is None else Path(path) for name, path in systems.items()}
        text = out.json_report(comparisons, reference=args.ref, systems=paths, notes=[dependence], **common)
    else:
        agreement = calibration(args.calibration)
        text = out.text_report(
            comparisons, n_samples=args.samples, human_agreement=agreement, notes=[dependence], **common
        )
    sys.stdout.write(text)
    return 0


def compare_with_scores(
    args: argparse.Namespace, display: ProgressDisplay = NO_PROGRESS
) -> tuple[list[MetricComparison], dict[str, str | None], bool]:
    """``mtsig compare --scores ...``: precomputed segment scores, alone or next to text metrics; returns the
    comparisons, the systems (label -> output file, or None without ``--ref``) and whether documents are known.

    Alone, the systems are the positional names (default: the first file's systems, in its order) and the test set
    is the first file's segments; with ``--ref``, the systems are the output files (labelled as without
    ``--scores``) and every scores file must score each of them on every line of the reference, its rows named by
    the system's label or file name (:func:`mtsig.cli._systems.labelled_scores`). Documents: ``--docs``, else those
    of the scores files (which must agree), else none.
    """
    from mtsig.metrics.segment_scores import shared_test_set

    metrics = _scores_metrics(args)
    files = args.ref is not None
    if not files and args.metrics:
        raise InputError(
            f"text metrics ({', '.join(args.metrics)}) need the reference: give --ref and outputs"
        )
    names = args.systems or ([] if files else metrics[0].systems)
    systems = labelled_systems(names, args.labels, files=files)
    if len(systems) < 2:
        raise InputError(f"need at least two systems to compare, got {len(systems)}")
    metrics = [labelled_scores(metric, systems, files=files) for metric in metrics]
    n_segments = _reference_segments(args, systems) if files else None
    n_segments, scores_documents = shared_test_set(metrics, list(systems), n_segments)
    documents = scores_documents if args.docs is None else _read_docs(args, n_segments)
    args.tests = args.tests or default_tests(documents is not None)
    needing = [t for t in args.tests if t.endswith("_documents")]
    if needing and documents is None:
        raise InputError(
            f"test(s) {', '.join(needing)} resample whole documents: the scores files have no documents; give "
            "each segment's document with --docs FILE"
        )
    comparisons = []
    if files and args.metrics:
        comparisons = compare_text_metrics(
            args, {k: Path(v) for k, v in systems.items()}, args.metrics, display
        )
    options = {
        "mean_block_length": args.mean_block_length,
        "confidence": args.confidence,
        "rank_sets": args.rank_set_options,
    }
    for metric in metrics:
        stats = metric.stats_for(list(systems), n_segments)
        with display.stage(f"resampling {metric.name}") as progress:
            comparisons.append(
                metric_comparison(
                    metric, stats, list(systems), args.tests, args.samples, args.seed, args.pvalue, documents,
                    options, progress,
                )
            )  # fmt: skip
    shown: dict[str, str | None] = {k: (v if files else None) for k, v in systems.items()}
    return comparisons, shown, documents is not None


def _scores_metrics(args: argparse.Namespace) -> list[SegmentScores]:
    """The metrics of every ``--scores`` argument, each named once; ``--lower-is-better`` must name them."""
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
    return metrics


def _reference_segments(args: argparse.Namespace, systems: Mapping[str, str]) -> int:
    """The number of segments of ``--ref``, every output checked parallel to it (HTML entities warned of)."""
    from mtsig.io.text import load_texts, segment_count

    refs, outputs = load_texts(args.ref, systems, unescape=args.unescape_html)
    if not args.unescape_html and not args.metrics:  # compare_systems warns when it scores the texts
        warn_html_entities(outputs)
    return segment_count(refs)


def _read_docs(args: argparse.Namespace, n_segments: int) -> np.ndarray:
    from mtsig.io.documents import document_format, read_documents

    return read_documents(args.docs, document_format(args.docs, args.docs_format), n_segments)


def compare_run_groups(args: argparse.Namespace) -> str:
    """``mtsig compare --runs NAME=RUN1,RUN2,... --runs ...``: score every run with every metric, run
    :func:`~mtsig.stats.training_runs.compare_training_runs` per metric (B = R = ``--samples``, ``--seed``), and
    return the text report, or with ``--tsv`` the pairs table, or with ``--json`` systems, pairs and settings.
    ``--tests`` does not apply (the tests are the run-aware test and MultEval's). Raises
    :class:`~mtsig.errors.InputError` for bad input, before anything is written.
    """
    from mtsig.report.training_runs import runs_json, runs_table, runs_text_report
    from mtsig.stats.training_runs import compare_training_runs, parse_run_groups, score_run_files

    if args.ref is None:
        raise InputError("training runs are scored against the reference: give it with --ref")
    args.metrics = args.metrics or ["bleu"]
    groups = parse_run_groups(args.runs)
    if not args.unescape_html:
        _warn_html_entities_in_files(
            {f"{name}: {path.name}": path for name, paths in groups.items() for path in paths}
        )
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
        return runs_table(comparisons, details).to_csv(sep="\t", index=False, float_format="%.10g")
    if args.json:
        return runs_json(args.ref, groups, [metric for metric, _ in scored], comparisons)
    return runs_text_report(comparisons, details)


def _warn_html_entities_in_files(files: Mapping[str, Path]) -> None:
    """:func:`warn_html_entities` on files not otherwise read here (a missing file is left to the reader)."""
    from mtsig.io.text import read_lines

    texts = {name: read_lines(path) for name, path in files.items() if Path(path).is_file()}
    warn_html_entities(texts)
