"""Significance clusters as LaTeX tables, in the layout of the WMT findings' ranked tables (Bojar et al. 2013,
Sec. 3.3): :mod:`mtsig.stats.clusters` computes the clusters; this module prints them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from mtsig.errors import InputError
from mtsig.report.signature import gold_signature, with_conclusion
from mtsig.report.tables import frame_to_markdown, latex_escape, ranked_table_latex
from mtsig.settings import Clusters
from mtsig.stats.clusters import CLUSTER_COLUMNS, clusters_side_by_side, experiment_clusters


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
    rows = []
    previous = None
    for row in clusters.itertuples(index=False):
        if previous is not None and row.cluster != previous:
            rows.append(r"\midrule")
        previous = row.cluster
        low, high = int(row.rank_low), int(row.rank_high)
        rank = f"{low}" if low == high else f"{low}--{high}"
        rows.append(f"{rank} & {latex_escape(str(row.system))} & {score_format.format(row.score)} \\\\")
    return ranked_table_latex("Rank", score_header, rows, latex_escape(caption), label)


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


@dataclass(frozen=True)
class ClustersReport:
    """An experiment's significance clusters: the table (with each ranking's signature), the LaTeX tables, the
    Markdown page (the rankings side by side, then their signatures)."""

    table: pd.DataFrame
    latex: str
    markdown: str


def experiment_clusters_report(
    tests: Mapping[str, pd.DataFrame],
    scores: Mapping[str, Mapping[str, float]],
    higher_is_better: Mapping[str, bool],
    gold_pvalues: pd.DataFrame,
    human_scores: Mapping[str, float],
    settings: Clusters,
    experiment: str,
) -> ClustersReport:
    """WMT-style significance clusters (Bojar et al. 2013, Sec. 3.3) of every metric in ``scores`` (its tests
    table in ``tests``, carrying the tests' signatures in ``attrs["settings"]``) and of every human gold of
    ``gold_pvalues``, at ``settings``' test, alpha, correction and rule (:func:`mtsig.stats.clusters.
    experiment_clusters`), each ranking signed (:func:`mtsig.report.signature.with_conclusion`,
    :func:`gold_signature`)."""
    test, alpha, correction, rule = settings.test, settings.alpha, settings.correction, settings.rule
    table = experiment_clusters(
        {m: tests[m] for m in scores},
        scores,
        higher_is_better,
        gold_pvalues,
        human_scores,
        test=test,
        alpha=alpha,
        correction=correction,
        rule=rule,
    )
    signatures = {
        m: with_conclusion(tests[m].attrs["settings"]["signatures"][test], alpha, correction, rule)
        for m in scores
    }
    signatures |= {
        f"human:{g}": gold_signature(str(g), alpha, correction, rule) for g in gold_pvalues["gold"].unique()
    }
    table["signature"] = table["source"].map(signatures)
    described = f"{test}, alpha {alpha:g}, correction {correction}, rule {rule}"
    side = frame_to_markdown(clusters_side_by_side(table))
    lines = [f"# {experiment}: significance clusters ({described})", "", side.rstrip("\n"), ""]
    lines += [f"- {source}: `{text}`" for source, text in signatures.items()]
    return ClustersReport(
        table,
        experiment_clusters_latex(table, experiment=experiment, settings=described),
        "\n".join(lines) + "\n",
    )
