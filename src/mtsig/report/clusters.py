"""Significance clusters as LaTeX tables, in the layout of the WMT findings' ranked tables (Bojar et al. 2013,
Sec. 3.3): :mod:`mtsig.stats.clusters` computes the clusters; this module prints them.
"""

from __future__ import annotations

import pandas as pd

from mtsig.errors import InputError
from mtsig.report.tables import latex_escape
from mtsig.stats.clusters import CLUSTER_COLUMNS


def format_rank_range(low: int, high: int) -> str:
    """``"3"`` or ``"2-5"`` (plain text; :func:`clusters_latex` prints an en dash)."""
    return f"{low}" if low == high else f"{low}-{high}"


def clusters_latex(
    clusters: pd.DataFrame,
    *,
    caption: str,
    label: str,
    score_header: str = "Score",
    score_format: str = "{:.2f}",
) -> str:
    """A ranked LaTeX table of :func:`significance_clusters`' output (needs ``\\usepackage{booktabs}``): rank range,
    system, score, best first, with a ``\\midrule`` between clusters, in the layout of the WMT findings tables."""
    missing = [c for c in CLUSTER_COLUMNS if c not in clusters.columns]
    if missing:
        raise InputError(f"clusters table lacks column(s) {', '.join(missing)}")
    lines = [
        "% requires \\usepackage{booktabs}",
        r"\begin{table}[t]",
        r"\centering",
        r"\small",
        r"\begin{tabular}{rlr}",
        r"\toprule",
        rf"Rank & System & {latex_escape(score_header)} \\",
        r"\midrule",
    ]
    previous = None
    for row in clusters.itertuples(index=False):
        if previous is not None and row.cluster != previous:
            lines.append(r"\midrule")
        previous = row.cluster
        low, high = int(row.rank_low), int(row.rank_high)
        rank = f"{low}" if low == high else f"{low}--{high}"
        lines.append(f"{rank} & {latex_escape(str(row.system))} & {score_format.format(row.score)} \\\\")
    lines += [
        r"\bottomrule",
        r"\end{tabular}",
        rf"\caption{{{latex_escape(caption)}}}",
        rf"\label{{{label}}}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"


def experiment_clusters_latex(table: pd.DataFrame, *, experiment: str, settings: str) -> str:
    """One ranked table (:func:`clusters_latex`) per ranking of :func:`experiment_clusters`, metric rankings first,
    each captioned with the experiment, the source and ``settings`` (test, alpha, correction, rule)."""
    parts = []
    for source, rows in table.groupby("source", sort=False):
        label = f"tab:clusters-{experiment}-{source}".replace(":", "-").replace("_", "-")
        parts.append(
            clusters_latex(
                rows,
                caption=f"{experiment}: significance clusters by {source} ({settings})",
                label=label,
                score_header="Score",
            )
        )
    return "\n".join(parts)
