"""What ``mtsig compare`` adds to the p-values: intervals, corrected conclusions, clusters and a LaTeX table.

Everything here reads one metric's :class:`mtsig.stats.resampling.PairwiseResult` (with intervals requested, see
:mod:`mtsig.stats.intervals`) and draws no new sample: the intervals are the engine's, from the paired bootstrap's draws.

* :func:`pair_interval_columns`: per ordered pair, ``{method}_low, {method}_high`` of ``statistic = S(X) - S(Y)``
  (oriented like the tests table) and the pair's systems' own intervals ``x_{method}_low`` ... ``y_{method}_high``.
* :func:`pair_conclusions`: per unordered pair, the conclusion of one test at ``alpha`` after a correction over the
  experiment's pairs (:func:`mtsig.stats.evaluation.corrected_test_conclusions`; ``none`` is the paper's rule).
* :func:`metric_clusters`: WMT-style significance clusters (:mod:`mtsig.stats.clusters`) of one test.
* :func:`latex_table`: a paper-ready table: each system's score with a dagger where it differs significantly from
  the baseline (the first system), the difference from the baseline and its interval, and the signatures.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from mtsig.report.signature import format_level
from mtsig.report.tables import latex_escape
from mtsig.stats.clusters import clusters_from_tests
from mtsig.stats.evaluation import corrected_test_conclusions
from mtsig.stats.intervals import BCA
from mtsig.stats.resampling import PairwiseResult

#: ``--correction`` of the CLI -> :data:`mtsig.stats.evaluation.CORRECTIONS`.
CLI_CORRECTIONS = {"none": "none", "holm": "holm", "bh": "benjamini_hochberg"}


def pair_interval_columns(result: PairwiseResult) -> pd.DataFrame:
    """One row per ordered pair: ``sys_x, sys_y, ci_level``, the difference's bounds ``{method}_low/high`` and the
    systems' ``x_{method}_low/high``, ``y_{method}_low/high`` (each system's score interval, its own scale)."""
    if result.intervals is None or result.system_intervals is None:
        raise ValueError("the result has no intervals: run pairwise_tests with intervals=...")
    pairs = result.intervals.pivot(index=["sys_x", "sys_y"], columns="method", values=["ci_low", "ci_high"])
    methods = list(dict.fromkeys(result.intervals["method"]))
    out = pd.DataFrame(index=pairs.index)
    out["ci_level"] = float(result.intervals["level"].iloc[0])
    for method in methods:
        out[f"{method}_low"] = pairs[("ci_low", method)]
        out[f"{method}_high"] = pairs[("ci_high", method)]
    out = out.reset_index()
    systems = result.system_intervals.pivot(index="system", columns="method", values=["ci_low", "ci_high"])
    for side, column in (("x", "sys_x"), ("y", "sys_y")):
        for method in methods:
            for bound in ("low", "high"):
                out[f"{side}_{method}_{bound}"] = out[column].map(systems[(f"ci_{bound}", method)])
    return out


def pair_conclusions(result: PairwiseResult, test: str, alpha: float, correction: str) -> pd.DataFrame:
    """``sys_x, sys_y, conclusion, p_adjusted`` of every unordered pair (systems in the result's order) by
    ``test`` at ``alpha`` after ``correction`` (a name of :data:`mtsig.stats.evaluation.CORRECTIONS`)."""
    table = result.table[result.table["test"] == test]
    conclusions = corrected_test_conclusions(table, correction, [alpha], list(result.system_scores))
    return conclusions[["sys_x", "sys_y", "conclusion", "p_adjusted"]]


def metric_clusters(
    result: PairwiseResult, test: str, alpha: float, correction: str, higher_is_better: bool
) -> pd.DataFrame:
    """Significance clusters of the result's systems by ``test`` (:func:`mtsig.stats.clusters.clusters_from_tests`)."""
    table = result.table[result.table["test"] == test]
    return clusters_from_tests(
        table,
        result.system_scores,
        alpha=alpha,
        correction=correction,
        higher_is_better=higher_is_better,
    )


def _raw_difference(result: PairwiseResult, system: str, baseline: str, higher_is_better: bool, method: str):
    """``S(system) - S(baseline)`` on the metric's own scale and its interval by ``method``."""
    rows = result.intervals
    assert rows is not None
    row = rows[(rows["sys_x"] == system) & (rows["sys_y"] == baseline) & (rows["method"] == method)].iloc[0]
    if higher_is_better:
        return float(row["statistic"]), float(row["ci_low"]), float(row["ci_high"])
    # The engine orients TER as TER_y - TER_x; the table shows TER_x - TER_y, the interval negated.
    return -float(row["statistic"]), -float(row["ci_high"]), -float(row["ci_low"])


def latex_table(
    metrics: Sequence[tuple[str, bool, PairwiseResult]],
    *,
    test: str,
    alpha: float,
    correction: str,
    signatures: Sequence[str],
    method: str = BCA,
    digits: int = 2,
) -> str:
    """A booktabs table (rows: systems in the given order, the first the baseline; per metric two columns: the
    score, with ``$^\\dagger$`` where it differs significantly from the baseline's, and ``S - S(baseline)`` with its
    ``method`` interval in brackets). ``metrics``: ``(name, higher_is_better, result)`` with intervals. The
    signatures are LaTeX comments above the table; the caption states test, alpha, correction and interval."""
    first = metrics[0][2]
    systems = list(first.system_scores)
    baseline = systems[0]
    level = float(first.intervals["level"].iloc[0]) if first.intervals is not None else float("nan")
    fmt = f"{{:.{digits}f}}"
    significant: dict[str, set[str]] = {}
    for name, _, result in metrics:
        conclusions = pair_conclusions(result, test, alpha, correction)
        involved = conclusions[
            (conclusions["conclusion"] != "tie")
            & ((conclusions["sys_x"] == baseline) | (conclusions["sys_y"] == baseline))
        ]
        significant[name] = set(involved["sys_x"]) | set(involved["sys_y"])
    percent = format_level(level).replace("%", r"\%")
    header = ["System"]
    for name, _, _ in metrics:
        header += [latex_escape(name), rf"$\Delta$ [{percent} CI]"]
    lines = [f"% {line}" for line in signatures]
    lines += [
        "% requires \\usepackage{booktabs}",
        r"\begin{table}[t]",
        r"\centering",
        r"\small",
        r"\begin{tabular}{l" + "rr" * len(metrics) + "}",
        r"\toprule",
        " & ".join(header) + r" \\",
        r"\midrule",
    ]
    for system in systems:
        cells = [latex_escape(system)]
        for name, higher_is_better, result in metrics:
            score = fmt.format(result.system_scores[system])
            if system in significant[name] and system != baseline:
                score += r"$^\dagger$"
            cells.append(score)
            if system == baseline:
                cells.append("--")
            else:
                d, low, high = _raw_difference(result, system, baseline, higher_is_better, method)
                cells.append(f"{fmt.format(d)} [{fmt.format(low)}, {fmt.format(high)}]")
        lines.append(" & ".join(cells) + r" \\")
    caption = (
        rf"Scores; $^\dagger$: significantly different from {latex_escape(baseline)} by the "
        rf"{latex_escape(test)} test at $\alpha = {alpha:g}$ (correction: {latex_escape(correction)}); "
        rf"$\Delta$: difference from {latex_escape(baseline)} with its {percent} {method} interval from the "
        "paired bootstrap draws."
    )
    lines += [
        r"\bottomrule",
        r"\end{tabular}",
        rf"\caption{{{caption}}}",
        r"\label{tab:mtsig}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"


__all__ = [
    "CLI_CORRECTIONS",
    "latex_table",
    "metric_clusters",
    "pair_conclusions",
    "pair_interval_columns",
]
