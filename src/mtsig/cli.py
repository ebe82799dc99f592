"""The ``mtsig`` command, for one-off use outside the pipeline.

``mtsig compare --ref REF --metrics bleu,chrf,ter SYS1 SYS2 ...`` scores every system and runs the randomized tests
(by default the paper's three: paired bootstrap, Fig. 4; bootstrap, Fig. 3; approximate randomization, Fig. 2) for
every pair of systems, with the engine of :mod:`mtsig.stats.resampling`. Systems given as ``NAME=RUN1,RUN2,...`` (several
training runs each) get the run-aware comparison of :mod:`mtsig.stats.training_runs` instead. ``mtsig power`` simulates a
test's power and the minimum detectable difference on two systems (:mod:`mtsig.stats.power`).

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

No Python traceback reaches the user: bad input (a missing or unreadable file, mismatched line counts, a file given
twice, an empty or unknown metric or test list) prints one line ``mtsig: error: ...`` to stderr and exits 2; any
other failure prints one line ``mtsig: internal error: ...`` with how to get the traceback (``MTSIG_DEBUG=1``) and
exits 1. Nothing is printed to stdout unless the whole comparison succeeded.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import numpy as np
import pandas as pd

from mtsig import __version__
from mtsig.errors import InputError
from mtsig.report.compare_outputs import (
    CLI_CORRECTIONS,
    latex_table,
    metric_clusters,
    pair_conclusions,
    pair_interval_columns,
)
from mtsig.report.signature import format_level, result_signatures
from mtsig.stats.clusters import clusters_latex, format_rank_range, significant_pairs
from mtsig.stats.intervals import BCA, DEFAULT_LEVEL, INTERVAL_METHODS
from mtsig.stats.power import add_power_arguments, power_command
from mtsig.stats.resampling import ALL_TESTS, PAPER_TESTS, PairwiseResult, pairwise_tests
from mtsig.stats.training_runs import compare_runs_command, is_run_group

if TYPE_CHECKING:
    from mtsig.metrics.base import Metric
    from mtsig.metrics.segment_scores import SegmentScores

DEFAULT_SEED = 12345
EXIT_INPUT_ERROR = 2
EXIT_INTERNAL_ERROR = 1
DEBUG_ENV = "MTSIG_DEBUG"
DOCUMENT_FORMATS = ("auto", "lines", "sgm", "wmt_xml")


@dataclass
class MetricComparison:
    """The results of one metric: its name, its settings signature and the engine's result."""

    name: str
    details: str
    higher_is_better: bool
    result: PairwiseResult

    def signatures(self, alpha: float | None = None, correction: str | None = None) -> dict[str, str]:
        """``{test: signature}`` (:mod:`mtsig.report.signature`); alpha and correction where conclusions are drawn."""
        return result_signatures(self.details, self.result.settings, alpha=alpha, correction=correction)


@dataclass(frozen=True)
class Conclusions:
    """How ``mtsig compare`` draws conclusions: by ``test`` at ``alpha`` after ``correction`` (library name)."""

    test: str
    alpha: float
    correction: str

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Conclusions:
        return cls(args.tests[0], args.alpha, CLI_CORRECTIONS[args.correction])


def _comma_list(text: str, what: str, known: Sequence[str]) -> list[str]:
    """A non-empty comma-separated list of known, distinct names (case-insensitive)."""
    items = [item.strip().lower() for item in text.split(",")]
    if not text.strip() or not all(items):
        raise argparse.ArgumentTypeError(
            f"expected a comma-separated list of {what}s with no empty item, got {text!r}; known: {', '.join(known)}"
        )
    unknown = [item for item in items if item not in known]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown {what}(s) {', '.join(unknown)}; known: {', '.join(known)}")
    repeated = sorted({item for item in items if items.count(item) > 1})
    if repeated:
        raise argparse.ArgumentTypeError(f"{what} {', '.join(repeated)} given more than once in {text!r}")
    return items


def _metrics(text: str) -> list[str]:
    from mtsig.metrics import METRICS

    return _comma_list(text, "metric", list(METRICS))


def _tests(text: str) -> list[str]:
    return _comma_list(text, "test", ALL_TESTS)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (exit status 2), like every other bad input of the command."""

    def error(self, message: str) -> NoReturn:
        self.exit(
            EXIT_INPUT_ERROR, f"{self.prog}: error: {' '.join(message.split())} (see {self.prog} --help)\n"
        )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``mtsig``: one sub-parser per entry of :data:`COMMANDS`."""
    parser = _Parser(prog="mtsig", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"mtsig {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    compare = commands.add_parser(
        "compare",
        help="score systems and run randomized significance tests for every pair",
        description="Score every system against one reference and test every pair of systems.",
    )
    compare.add_argument(
        "--ref",
        type=Path,
        action="append",
        help="reference, one segment per line; repeat (--ref A --ref B) for several references per segment "
        "(needed by text metrics; not by --scores)",
    )
    compare.add_argument(
        "--metrics",
        type=_metrics,
        help="comma-separated: bleu,chrf,ter,nist,meteor (default bleu with --ref; none with --scores alone)",
    )
    add_scores_arguments(compare)
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
        help="format of --docs (default auto: .sgm/.sgml SGML, .xml WMT22 XML, otherwise one id per line)",
    )
    compare.add_argument(
        "--mean-block-length",
        type=_positive_float,
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
    add_power_arguments(
        commands.add_parser("power", help="power and minimum detectable difference of a test, by simulation"),
        default_seed=DEFAULT_SEED,
    )
    return parser


def _confidence(text: str) -> float:
    value = _positive_float(text)
    value = value / 100.0 if value >= 1.0 else value
    if not value < 1.0:
        raise argparse.ArgumentTypeError(f"must be a level in (0, 1) or a percentage in (0, 100), got {text}")
    return value


def _alpha(text: str) -> float:
    value = _positive_float(text)
    if not value < 1.0:
        raise argparse.ArgumentTypeError(f"must lie strictly between 0 and 1, got {text}")
    return value


def add_conclusion_arguments(compare: argparse.ArgumentParser) -> None:
    """Intervals, conclusions and clusters of ``mtsig compare`` (:mod:`mtsig.report.compare_outputs`)."""
    compare.add_argument(
        "--confidence",
        default=0.95,
        type=_confidence,
        help="level of the percentile and BCa intervals, from the paired bootstrap draws (default 0.95; 95 works)",
    )
    compare.add_argument(
        "--alpha",
        default=0.05,
        type=_alpha,
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
) -> list[MetricComparison]:
    """Load the texts, compute each metric's statistics and run the tests for every pair of systems.

    All metrics use the same ``seed``: the engine's draws depend only on the seed and the test-set size, so every
    metric sees the same pseudo-samples and the metrics' conclusions differ because of the metrics alone.
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
        comparisons.append(
            metric_comparison(
                metric,
                metric.stats_many(outputs, refs),
                list(outputs),
                tests=tests,
                n_samples=n_samples,
                seed=seed,
                pvalue=pvalue,
                documents=documents,
                mean_block_length=mean_block_length,
                confidence=confidence,
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
) -> MetricComparison:
    """One metric's statistics through :func:`pairwise_tests` (every pair, the tests asked for, the percentile and
    BCa intervals of the paired bootstrap's draws at ``confidence``)."""
    result = pairwise_tests(
        stats,
        metric.score,
        systems,
        higher_is_better=metric.higher_is_better,
        tests=tests,
        n_samples=n_samples,
        seed=seed,
        pvalue=pvalue,  # type: ignore[arg-type]
        documents=documents,
        mean_block_length=mean_block_length,
        intervals=INTERVAL_METHODS,
        interval_level=confidence,
    )
    return MetricComparison(metric.name, metric.details(), metric.higher_is_better, result)


def long_table(comparisons: Sequence[MetricComparison], seed: int) -> pd.DataFrame:
    """All metrics' rows: ``metric, sys_x, sys_y, test, statistic, p_value, samples, seed``, the intervals of
    :func:`mtsig.report.compare_outputs.pair_interval_columns` (when computed) and the row's ``signature``."""
    frames = []
    for comparison in comparisons:
        frame = comparison.result.table.copy()
        frame.insert(0, "metric", comparison.name)
        frame["samples"] = frame["test"].map(comparison.result.settings["n_samples"])
        frame["seed"] = seed
        if comparison.result.intervals is not None:
            frame = frame.merge(pair_interval_columns(comparison.result), on=["sys_x", "sys_y"], how="left")
        frame["signature"] = frame["test"].map(comparison.signatures())
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def _aligned(rows: Sequence[Sequence[str]], right: Sequence[bool]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [cell.rjust(w) if r else cell.ljust(w) for cell, w, r in zip(row, widths, right, strict=True)]
        lines.append("  ".join(cells).rstrip())
    return lines


def _interval_text(low: float, high: float) -> str:
    return f"[{low:.4f}, {high:.4f}]"


def text_report(
    comparisons: Sequence[MetricComparison],
    *,
    seed: int,
    n_samples: int,
    pvalue: str,
    conclusions: Conclusions,
    clusters: bool = False,
) -> str:
    """The readable report: settings, a table of system scores with their BCa intervals, then per metric its
    signatures and one line per unordered pair with the p-values, the percentile and BCa intervals of the statistic
    and whether the pair differs significantly (by ``conclusions``); with ``clusters``, each metric's clusters.

    Each pair is shown with the better system (by the metric) as X, so the statistic is >= 0 and the one-sided
    p-values are those of "X better than Y"; two-sided p-values do not depend on the order.
    """
    first = comparisons[0].result
    systems = list(first.system_scores)
    tests = list(dict.fromkeys(first.table["test"]))
    level = format_level(first.settings["intervals"]["level"])  # type: ignore[index]
    c = conclusions
    lines = [
        f"mtsig {__version__} compare: seed={seed} samples={n_samples} pvalue={pvalue}",
        "one-sided p-values are for 'sys_x better than sys_y'; sys_x is the better system of each pair",
        f"intervals: {level} percentile and BCa, from the paired bootstrap draws; significant: {c.test} p <= "
        f"{c.alpha:g} after correction {c.correction}",
        "",
        f"System scores [{level} BCa interval]",
    ]
    score_rows = [["system", *(cell for m in comparisons for cell in (m.name, "interval"))]]
    for name in systems:
        cells = [name]
        for m in comparisons:
            cells += [
                f"{m.result.system_scores[name]:.4f}",
                _interval_text(*_system_interval(m.result, name)),
            ]
        score_rows.append(cells)
    lines += _aligned(score_rows, [False] + [True] * (len(score_rows[0]) - 1))
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
        wide = wide.merge(pair_interval_columns(comparison.result), on=["sys_x", "sys_y"], how="left")
        decided = pair_conclusions(comparison.result, c.test, c.alpha, c.correction)
        winners = set(significant_pairs(decided))
        definition = "S(X) - S(Y)" if comparison.higher_is_better else "S(Y) - S(X), lower is better"
        lines += ["", f"{comparison.name}: statistic = {definition}"]
        signatures = comparison.signatures(c.alpha, c.correction)
        lines += [f"  {signatures[t]}" for t in tests]
        header = ["sys_x", "sys_y", "statistic", *tests, f"{level} percentile", f"{level} BCa", "significant"]
        rows = [header]
        for _, row in wide.iterrows():
            pair = (row["sys_x"], row["sys_y"])
            verdict = "yes" if pair in winners else ("reversed" if pair[::-1] in winners else "no")
            rows.append(
                [
                    row["sys_x"],
                    row["sys_y"],
                    f"{row['statistic']:.4f}",
                    *(f"{row[t]:.4f}" for t in tests),
                    _interval_text(row["percentile_low"], row["percentile_high"]),
                    _interval_text(row["bca_low"], row["bca_high"]),
                    verdict,
                ]
            )
        lines += _aligned(rows, [False, False] + [True] * (len(header) - 3) + [False])
        if clusters:
            tiers = metric_clusters(
                comparison.result, c.test, c.alpha, c.correction, comparison.higher_is_better
            )
            lines += [
                "",
                f"{comparison.name} clusters ({c.test}, alpha {c.alpha:g}, correction {c.correction})",
            ]
            rows = [["cluster", "rank", "system", "score"]]
            for tier in tiers.itertuples(index=False):
                rank = format_rank_range(int(tier.rank_low), int(tier.rank_high))
                rows.append([str(tier.cluster), rank, str(tier.system), f"{tier.score:.4f}"])
            lines += _aligned(rows, [True, True, False, True])
    return "\n".join(lines) + "\n"


def _system_interval(result: PairwiseResult, name: str, method: str = BCA) -> tuple[float, float]:
    """A system's own interval (its corpus score, the metric's scale) by ``method``."""
    rows = result.system_intervals
    assert rows is not None
    row = rows[(rows["system"] == name) & (rows["method"] == method)].iloc[0]
    return float(row["ci_low"]), float(row["ci_high"])


def json_report(
    comparisons: Sequence[MetricComparison],
    *,
    seed: int,
    pvalue: str,
    reference: Sequence[Path] | None,
    systems: Mapping[str, Path | None],
    conclusions: Conclusions,
    clusters: bool = False,
) -> str:
    """Settings, each metric's signatures, scores, system intervals, conclusions (and clusters), and every row of
    the long table (p-values, intervals, signature)."""
    c = conclusions
    metrics = {}
    for m in comparisons:
        entry = {
            "details": m.details,
            "higher_is_better": m.higher_is_better,
            "scores": m.result.system_scores,
            "settings": m.result.settings,
            "signatures": m.signatures(c.alpha, c.correction),
            "system_intervals": m.result.system_intervals.to_dict(orient="records"),  # type: ignore[union-attr]
            "conclusions": pair_conclusions(m.result, c.test, c.alpha, c.correction).to_dict(
                orient="records"
            ),
        }
        if clusters:
            tiers = metric_clusters(m.result, c.test, c.alpha, c.correction, m.higher_is_better)
            entry["clusters"] = tiers.to_dict(orient="records")
        metrics[m.name] = entry
    document = {
        "mtsig_version": __version__,
        "seed": seed,
        "pvalue": pvalue,
        "reference": [str(path) for path in reference or ()],
        "systems": {name: None if path is None else str(path) for name, path in systems.items()},
        "conclusions": {"test": c.test, "alpha": c.alpha, "correction": c.correction},
        "metrics": metrics,
        "results": long_table(comparisons, seed).to_dict(orient="records"),
    }
    return json.dumps(document, indent=2, default=_json_default) + "\n"


def clusters_table(comparisons: Sequence[MetricComparison], conclusions: Conclusions) -> pd.DataFrame:
    """Every metric's clusters (:data:`mtsig.stats.clusters.CLUSTER_COLUMNS`) with ``metric`` first and ``signature``."""
    c = conclusions
    frames = []
    for m in comparisons:
        tiers = metric_clusters(m.result, c.test, c.alpha, c.correction, m.higher_is_better)
        tiers.insert(0, "metric", m.name)
        tiers["signature"] = m.signatures(c.alpha, c.correction)[c.test]
        frames.append(tiers)
    return pd.concat(frames, ignore_index=True)


def latex_report(comparisons: Sequence[MetricComparison], conclusions: Conclusions, clusters: bool) -> str:
    """:func:`mtsig.report.compare_outputs.latex_table` of every metric, then (``clusters``) one ranked cluster table per
    metric (:func:`mtsig.stats.clusters.clusters_latex`)."""
    c = conclusions
    signatures = [m.signatures(c.alpha, c.correction)[c.test] for m in comparisons]
    text = latex_table(
        [(m.name, m.higher_is_better, m.result) for m in comparisons],
        test=c.test,
        alpha=c.alpha,
        correction=c.correction,
        signatures=signatures,
    )
    if clusters:
        for m, signature in zip(comparisons, signatures, strict=True):
            tiers = metric_clusters(m.result, c.test, c.alpha, c.correction, m.higher_is_better)
            caption = (
                f"{m.name}: significance clusters ({c.test}, alpha {c.alpha:g}, correction {c.correction})"
            )
            table = clusters_latex(
                tiers, caption=caption, label=f"tab:clusters-{m.name}", score_header=m.name
            )
            text += f"\n% {signature}\n" + table
    return text


def _json_default(value: object) -> object:
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def run_text_command(command: Callable[[argparse.Namespace], str], args: argparse.Namespace) -> int:
    """A sub-command whose whole logic lives in its library module (``power``, run groups): print its text."""
    sys.stdout.write(command(args))
    return 0


def run_power(args: argparse.Namespace) -> int:
    """``mtsig power`` (:func:`mtsig.stats.power.power_command`)."""
    return run_text_command(power_command, args)


def run_compare(args: argparse.Namespace) -> int:
    """``mtsig compare``: everything is computed before anything is printed. Systems given as run groups
    (``NAME=RUN1,RUN2``) get the run-aware comparison of :func:`mtsig.stats.training_runs.compare_runs_command`."""
    if args.scores:
        comparisons, systems = compare_with_scores(args)
        return write_compare_report(args, comparisons, systems)
    if args.ref is None:
        raise InputError(
            "give the reference with --ref (and system outputs), or segment scores with --scores FILE"
        )
    args.metrics = args.metrics or ["bleu"]  # the default of text-only comparisons
    if any(is_run_group(path) for path in args.systems):
        return run_text_command(compare_runs_command, args)
    systems = dict(zip(system_names(args.systems), args.systems, strict=True))
    comparisons = compare_text_metrics(args, systems, args.metrics)
    return write_compare_report(args, comparisons, systems)


def compare_text_metrics(
    args: argparse.Namespace, systems: dict[str, Path], metric_names: Sequence[str]
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
    )


def write_compare_report(
    args: argparse.Namespace, comparisons: Sequence[MetricComparison], systems: Mapping[str, Path | None]
) -> int:
    """Print the comparison in the requested mode (aligned text, ``--tsv``, ``--latex`` or ``--json``)."""
    conclusions = Conclusions.from_args(args)
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
            text = text_report(comparisons, n_samples=args.samples, **common)
    sys.stdout.write(text)
    return 0


# --- any metric: --scores ----------------------------------------------------------------------------------------


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
    args: argparse.Namespace,
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
        comparisons = compare_text_metrics(args, systems, args.metrics) if args.metrics else []  # type: ignore[arg-type]
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
            )
        )
    return comparisons, systems


def _read_docs(args: argparse.Namespace, n_segments: int) -> np.ndarray:
    from mtsig.io.documents import read_documents

    return read_documents(args.docs, document_format(args.docs, args.docs_format), n_segments)


#: Sub-command name -> the function running it on the parsed arguments (returns the exit status).
COMMANDS = {"compare": run_compare, "power": run_power}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``mtsig`` console script; returns the exit status.

    Bad input (:class:`~mtsig.errors.InputError`, and the ``ValueError``/``OSError``/``RuntimeError`` a library
    call raises for a bad argument, a missing file or a missing Java) is one line on stderr and exit status 2; an
    unexpected exception is one line with a hint and exit status 1 (``MTSIG_DEBUG=1`` re-raises it for the
    traceback). argparse's own usage errors also exit 2.
    """
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except KeyboardInterrupt:
        print("mtsig: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `mtsig compare ... | head`: the reader left, nothing to report
        sys.stderr.close()
        return 0
    except (InputError, ValueError, OSError, RuntimeError) as error:
        if os.environ.get(DEBUG_ENV):
            raise
        print(f"mtsig: error: {_one_line(error)}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except Exception as error:  # noqa: BLE001 - the last line of defence: never a traceback for a user
        if os.environ.get(DEBUG_ENV):
            raise
        print(
            f"mtsig: internal error: {type(error).__name__}: {_one_line(error)} (this is a bug in mtsig; rerun "
            f"with {DEBUG_ENV}=1 for the traceback and report it with the command line)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL_ERROR


def _one_line(error: BaseException) -> str:
    """An exception's message on one line (an OSError without a file name gets its class name)."""
    text = " ".join(str(error).split())
    if isinstance(error, OSError) and error.filename is not None and str(error.filename) not in text:
        text = f"{error.filename}: {text}"
    return text or type(error).__name__


if __name__ == "__main__":
    sys.exit(main())
