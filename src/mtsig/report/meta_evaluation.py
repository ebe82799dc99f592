"""Tables and figures of a system-level metric meta-evaluation
(:mod:`mtsig.stats.meta_evaluation.system_level`), in the WMT metrics tasks' style: one row per (group,
metric) with Pearson's r for all systems and without outliers, Kendall's tau and Spearman's rho, winners in
bold (Mathur et al. 2020, Tables 5-6); and the Williams matrix as a heatmap with the metrics ordered by
correlation and the significant cells coloured (their Figs. 1-2).

The inputs are the long tables of :func:`mtsig.studies.metrics_task.meta_evaluate` (``correlations`` with columns
``lp, human, systems, metric, kind, n, r, outliers`` and ``winners`` with ``lp, human, systems, metric, r, rank,
n, winner``), so that any experiment's meta-evaluation can use them: ``lp`` is the group (a language pair, or an
experiment's name). Functions return strings or write figures; nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.report.tables import latex_escape
from mtsig.settings import MetaEvaluation

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Column labels of the system sets.
SYSTEM_SET_LABELS = {
    "all": "all",
    "no_outliers": "−out (MAD)",
    "no_outliers_published": "−out (published)",
}
KIND_LABELS = {"pearson": "Pearson r", "spearman": "Spearman ρ", "kendall": "Kendall τ"}


def correlation_table(
    correlations: pd.DataFrame,
    winners: pd.DataFrame,
    *,
    human: str = "z",
    extra_kinds: Sequence[str] = ("kendall", "spearman"),
) -> pd.DataFrame:
    """The wide table: one row per (``lp``, metric), groups in their order of appearance, metrics by decreasing
    Pearson r with all systems. Columns: ``lp, metric, n``, then per system set present ``pearson <set>`` (r),
    ``winner <set>`` (bool) and, where the set drops systems, ``n <set>``; then ``<kind> all`` for each of
    ``extra_kinds`` present. Only rows of the ``human`` score (``z``, the official WMT score, by default)."""
    corr = correlations.loc[correlations["human"] == human]
    if corr.empty:
        raise InputError(f"no correlations with the human score {human!r}")
    chosen = winners.loc[winners["human"] == human]
    wins = dict(
        zip(
            zip(chosen["lp"].tolist(), chosen["systems"].tolist(), chosen["metric"].tolist(), strict=True),
            chosen["winner"].astype(bool).tolist(),
            strict=True,
        )
    )
    sets = [s for s in dict.fromkeys(corr["systems"]) if s in SYSTEM_SET_LABELS] + [
        s for s in dict.fromkeys(corr["systems"]) if s not in SYSTEM_SET_LABELS
    ]
    wide = corr.pivot_table(
        index=["lp", "metric"], columns=["systems", "kind"], values=["r", "n"], aggfunc="first"
    )
    pearson_all = wide[("r", "all", "pearson")]
    table = pd.DataFrame(index=wide.index)
    table["n"] = wide[("n", "all", "pearson")].astype(int)
    for system_set in sets:
        table[f"pearson {system_set}"] = wide[("r", system_set, "pearson")]
        table[f"winner {system_set}"] = [
            wins.get((lp, system_set, m), False) for lp, m in wide.index.tolist()
        ]
        if system_set != "all":
            table[f"n {system_set}"] = wide[("n", system_set, "pearson")]
    for kind in extra_kinds:
        if ("r", "all", kind) in wide.columns:
            table[f"{kind} all"] = wide[("r", "all", kind)]
    groups = {lp: i for i, lp in enumerate(dict.fromkeys(corr["lp"]))}
    table = table.assign(_group=[groups[lp] for lp, _ in table.index.tolist()], _r=-pearson_all.to_numpy())
    table = table.sort_values(["_group", "_r"], kind="stable").drop(columns=["_group", "_r"])
    return table.reset_index()


def _extra_kinds(table: pd.DataFrame) -> list[str]:
    """The kinds of the table's ``<kind> all`` columns other than Pearson's, in column order."""
    return [k for c in table.columns for k in KIND_LABELS if k != "pearson" and c == f"{k} all"]


def _r(value: float) -> str:
    return "" if value is None or np.isnan(value) else f"{value:.3f}".replace("-", "−")


def _column_groups(table: pd.DataFrame) -> tuple[list[str], list[str]]:
    """The system sets of the table's Pearson columns and its other kinds (:func:`_extra_kinds`), in column
    order."""
    sets = [c.removeprefix("pearson ") for c in table.columns if c.startswith("pearson ")]
    return sets, _extra_kinds(table)


def _value_headers(
    sets: Sequence[str],
    kinds: Sequence[str],
    n: str,
    pearson: Callable[[str], str],
    kind_labels: Mapping[str, str],
) -> list[str]:
    """The headings after lp, metric and n: each system set's Pearson r (``pearson`` of the set's label) and,
    but for all systems, its ``n``; then each other kind's of all systems."""
    headers = []
    for system_set in sets:
        headers.append(pearson(SYSTEM_SET_LABELS.get(system_set, system_set)))
        if system_set != "all":
            headers.append(n)
    return headers + [f"{kind_labels[k]} all" for k in kinds]


def _value_cells(
    row: Mapping[str, Any],
    sets: Sequence[str],
    kinds: Sequence[str],
    number: Callable[[float], str],
    bold: Callable[[str], str],
) -> list[str]:
    """A row's cells under :func:`_value_headers`: each correlation as ``number`` writes it, a winner's ``bold``,
    each system set's number of systems."""
    cells = []
    for system_set in sets:
        value = number(row[f"pearson {system_set}"])
        cells.append(bold(value) if value and row[f"winner {system_set}"] else value)
        if system_set != "all":
            n = row[f"n {system_set}"]
            cells.append("" if pd.isna(n) else str(int(n)))
    return cells + [number(row.get(f"{k} all", np.nan)) for k in kinds]


def correlation_table_markdown(
    correlations: pd.DataFrame,
    winners: pd.DataFrame,
    *,
    human: str = "z",
    title: str | None = None,
    human_label: str = "DA",
) -> str:
    """:func:`correlation_table` as Markdown: r to three decimals, winners (no other metric significantly better
    by the Williams test) in bold, the systems each column uses in its heading; a note lists the outliers.
    ``human_label`` names the human judgments in that note (DA, MQM, ranking)."""
    table = correlation_table(correlations, winners, human=human)
    sets, kinds = _column_groups(table)
    headers = ["lp", "metric", "n", *_value_headers(sets, kinds, "n", "Pearson r {}".format, KIND_LABELS)]
    lines = [
        "| " + " | ".join(headers) + " |",
        "| " + " | ".join(["---", "---"] + ["---:"] * (len(headers) - 2)) + " |",
    ]
    for row in table.to_dict("records"):
        cells = [str(row["lp"]), str(row["metric"]).replace("|", r"\|"), str(row["n"])]
        cells += _value_cells(row, sets, kinds, _r, "**{}**".format)
        lines.append("| " + " | ".join(cells) + " |")
    head = [f"## {title}", ""] if title else []
    corr = correlations.loc[(correlations["human"] == human) & (correlations["kind"] == "pearson")]
    dropped = corr.loc[corr["systems"] != "all"].drop_duplicates(["lp", "systems"])
    notes = [
        "",
        f"Human score: {human_label} {human}. Bold: a winner, no other metric's Pearson r is significantly higher (Williams "
        "test, one-sided, p ≤ 0.05), for the systems of that column.",
    ]
    for record in dropped.itertuples(index=False):
        if isinstance(record.outliers, str) and record.outliers:
            label = SYSTEM_SET_LABELS.get(record.systems, record.systems)
            notes.append(f"- {record.lp}, {label}: without {record.outliers.replace(',', ', ')}")
    return "\n".join(head + lines + notes) + "\n"


def correlation_table_latex(
    correlations: pd.DataFrame, winners: pd.DataFrame, *, human: str = "z", caption: str = "", label: str = ""
) -> str:
    """:func:`correlation_table` as a LaTeX ``longtable`` (booktabs, longtable): winners in bold."""
    table = correlation_table(correlations, winners, human=human)
    sets, kinds = _column_groups(table)
    latex_kind = {"pearson": "$r$", "spearman": r"$\rho$", "kendall": r"$\tau$"}

    def pearson_header(label: str) -> str:
        return f"$r$ {latex_escape(label.replace('−', '-'))}"

    headers = ["lp", "metric", "$n$", *_value_headers(sets, kinds, "$n$", pearson_header, latex_kind)]
    lines = [
        "% requires \\usepackage{booktabs,longtable}",
        rf"\begin{{longtable}}{{ll{'r' * (len(headers) - 2)}}}",
        *(
            [rf"\caption{{{latex_escape(caption)}}}" + (rf"\label{{{label}}}" if label else "") + r"\\"]
            if caption
            else []
        ),
        r"\toprule",
        " & ".join(headers) + r" \\",
        r"\midrule",
        r"\endhead",
    ]
    previous = None
    for row in table.to_dict("records"):
        if previous is not None and row["lp"] != previous:
            lines.append(r"\midrule")
        cells = [latex_escape(str(row["lp"])) if row["lp"] != previous else "", latex_escape(str(row["metric"])),
                 str(row["n"])]  # fmt: skip
        previous = row["lp"]
        cells += _value_cells(
            row, sets, kinds, lambda value: _r(value).replace("−", "-"), r"\textbf{{{}}}".format
        )
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{longtable}"]
    return "\n".join(lines) + "\n"


def correlation_table_csv(correlations: pd.DataFrame, winners: pd.DataFrame, *, human: str = "z") -> str:
    """:func:`correlation_table` as CSV, correlations at full precision (shortest round-trip)."""
    return correlation_table(correlations, winners, human=human).to_csv(index=False, lineterminator="\n")


def williams_heatmap_title(group: str, n_systems: int, human: str = "z") -> str:
    """The title of a group's Williams heatmap (the pipeline's figures and docs/wmt20-metrics.md's)."""
    return f"{group}: Williams test of Pearson r with DA {human}, {n_systems} MT systems"


def williams_heatmap(
    williams: pd.DataFrame,
    title: str,
    out_paths: Sequence[str | Path],
    *,
    alpha: float = MetaEvaluation.alpha,
    dpi: float = 100,
) -> pd.DataFrame:
    """The Williams matrix of one group (rows of
    :func:`mtsig.stats.meta_evaluation.system_level.williams_table`: ``metric_a, metric_b, p_value``) as a
    WMT-style heatmap (:func:`williams_heatmap_figure`), written to ``out_paths``. PNGs at ``dpi`` (100: a
    30-metric matrix is 1400 pixels wide, legible, and cheaper to draw than at 150). Returns the coloured
    cells."""
    import matplotlib

    from mtsig.report.plots import STYLE, save_figure

    figure, coloured = williams_heatmap_figure(williams, title, alpha=alpha)
    with matplotlib.rc_context(STYLE):
        save_figure(figure, out_paths, dpi=dpi)
    return coloured


def williams_heatmap_figure(
    williams: pd.DataFrame, title: str, *, alpha: float = MetaEvaluation.alpha
) -> tuple[Figure, pd.DataFrame]:
    """The figure of :func:`williams_heatmap`, unsaved: metrics in the table's order (decreasing correlation,
    best at the top left), cell (a, b) coloured when a's correlation is significantly higher than b's (p <=
    ``alpha``, darker at 0.01 and 0.001), p-values printed, an untested cell (NaN) blank; laid out for any number
    of metrics by :func:`mtsig.report.plots.significance_heatmap_figure`. Returns it and the coloured cells."""
    from mtsig.report.plots import significance_heatmap_figure
    from mtsig.stats.meta_evaluation.system_level import williams_pivot

    matrix = williams_pivot(williams)
    return significance_heatmap_figure(matrix, list(matrix.index), alpha, title, item="metric")


def _matrix_markdown(
    frame: pd.DataFrame, row: str, column: str, value: str, order: Sequence[str]
) -> list[str]:
    """A square p-value matrix as Markdown rows (``row`` beats ``column``), ``order`` on both axes."""
    matrix = frame.pivot(index=row, columns=column, values=value).reindex(index=order, columns=order)
    lines = ["| | " + " | ".join(order) + " |", "| --- |" + " ---: |" * len(order)]
    for name in order:
        cells = ["" if pd.isna(v) else f"{v:.3f}" for v in matrix.loc[name]]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def _pearson_intervals_markdown(intervals: pd.DataFrame) -> list[str]:
    """The bootstrap intervals of Pearson's r, one row per metric in decreasing r, a column per scheme (none
    without intervals of Pearson's r)."""
    pearson = intervals.loc[intervals["kind"] == "pearson"]
    if pearson.empty:
        return []
    level = float(pearson["confidence"].iloc[0])
    schemes = list(dict.fromkeys(pearson["scheme"]))
    order = list(dict.fromkeys(pearson.sort_values("r", ascending=False, kind="stable")["metric"]))
    lines = [
        "",
        f"### Pearson r with {level:.0%} bootstrap intervals (Deutsch et al. 2021; "
        f"{int(pearson['n_resamples'].iloc[0])} resamples; inputs: the metric re-scored on the drawn segments)",
        "",
        "| metric | r | " + " | ".join(f"BOOT-{s.upper()}" for s in schemes) + " |",
        "| --- | ---: |" + " ---: |" * len(schemes),
    ]
    for metric in order:
        rows = pearson.loc[pearson["metric"] == metric].set_index("scheme")
        cells = [f"[{_r(rows.loc[s, 'low'])}, {_r(rows.loc[s, 'high'])}]" for s in schemes]
        lines.append(f"| {metric} | {_r(rows['r'].iloc[0])} | " + " | ".join(cells) + " |")
    return lines


def _perm_both_markdown(perm: pd.DataFrame) -> list[str]:
    """The PERM-BOTH matrix, metrics in decreasing correlation (none without PERM-BOTH results)."""
    if perm.empty:
        return []
    order = list(dict.fromkeys(perm.sort_values("r_a", ascending=False, kind="stable")["metric_a"]))
    return [
        "",
        f"### PERM-BOTH (Deutsch et al. 2021; segment-level forms; {int(perm['n_resamples'].iloc[0])} "
        'resamples): p of "row correlates better than column"',
        "",
        *_matrix_markdown(perm, "metric_a", "metric_b", "p_value", order),
    ]


def _accuracy_markdown(accuracy: pd.DataFrame, tests: pd.DataFrame, alpha: float) -> list[str]:
    """Each gold's pairwise accuracies at ``alpha``, a column per gold, and the accuracy tests' significant
    differences (none without accuracies at ``alpha``)."""
    chosen = accuracy.loc[np.isclose(accuracy["alpha"], alpha)]
    if chosen.empty:
        return []
    golds = list(dict.fromkeys(chosen["gold"]))
    order = list(dict.fromkeys(chosen.sort_values("accuracy", ascending=False, kind="stable")["metric"]))
    lines = [
        "",
        f"### Pairwise accuracy against the gold at alpha {alpha:g} (Kocmi et al. 2021; a pair the gold calls "
        "a tie counts only if the metric ties it, Deutsch et al. 2023)",
        "",
        "| metric | " + " | ".join(golds) + " |",
        "| --- |" + " ---: |" * len(golds),
    ]
    for metric in order:
        cells = []
        for gold in golds:
            row = chosen.loc[(chosen["gold"] == gold) & (chosen["metric"] == metric)].iloc[0]
            cells.append(f"{row['accuracy']:.3f} ({row['correct']}/{row['pairs']})")
        lines.append(f"| {metric} | " + " | ".join(cells) + " |")
    significant = tests.loc[np.isclose(tests["alpha"], alpha) & (tests["p_value"] <= alpha)]
    lines += [""]
    if significant.empty:
        lines.append(
            f"No metric is significantly more accurate than another (sign-flip test, p ≤ {alpha:g})."
        )
        return lines
    lines.append(f"Significantly more accurate (sign-flip test over the system pairs, p ≤ {alpha:g}):")
    lines += [
        f"- {r.gold}: {r.metric_a} ({r.accuracy_a:.3f}) over {r.metric_b} ({r.accuracy_b:.3f}), "
        f"p = {r.p_value:.3f}"
        for r in significant.itertuples(index=False)
    ]
    return lines


def experiment_meta_evaluation_markdown(
    experiment: str,
    results: Mapping[str, pd.DataFrame],
    *,
    criterion: str,
    alpha: float,
    human: str = "z",
    missing_human: Mapping[str, str] | None = None,
    reversed_metrics: Mapping[str, tuple[float, float]] | None = None,
) -> str:
    """The meta-evaluation of one experiment (:func:`mtsig.studies.meta_evaluation.experiment_meta_evaluation`) as
    Markdown: the correlation table with its Williams winners (against the primary human score ``human``), the
    bootstrap intervals of Pearson's r, the PERM-BOTH matrix and each gold's pairwise accuracies with the accuracy
    tests' significant differences. ``missing_human`` (kind -> why): human scores the experiment lacks, said under
    the table; ``reversed_metrics`` (metric -> (r, p)): metrics that look declared with the wrong
    ``higher_is_better`` (:func:`mtsig.report.tables.reversed_orientation_note`)."""
    from mtsig.report.tables import human_label, reversed_orientation_note

    label = human_label(criterion)
    lines = [f"## {experiment}: which metric agrees with the humans?", ""]
    lines.append(
        correlation_table_markdown(
            results["correlations"], results["winners"], human=human, human_label=label
        ).rstrip()
    )
    if missing_human:
        used = ", ".join(dict.fromkeys(results["correlations"]["human"]))
        lines += ["", f"Human scores correlated with: {used} only."]
        lines += [f"- no {kind}: {reason}" for kind, reason in missing_human.items()]
    if reversed_metrics:
        n_systems = int(results["winners"].loc[results["winners"]["systems"] == "all", "n"].iloc[0])
        lines += ["", reversed_orientation_note(reversed_metrics, f"{label} {human}", n_systems).rstrip()]
    lines += _pearson_intervals_markdown(results["intervals"])
    lines += _perm_both_markdown(results["perm_both"])
    lines += _accuracy_markdown(results["accuracy"], results["accuracy_tests"], alpha)
    return "\n".join(lines) + "\n"
