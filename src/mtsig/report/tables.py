"""Accuracy tables in the layout of Graham, Mathur & Baldwin (2014), Tables 1-2, as Markdown, LaTeX and CSV.

Rows are alpha x metric (alpha printed once per block, as in the paper); columns are the three tests, each with
"Conc." (the number of correct conclusions) and "Acc. (%) [low, high]" (accuracy with its 95% Clopper-Pearson
interval); the best count per alpha is in bold (Conc. and Acc., not the interval, like the paper). Tests beyond the
paper (two-sided, Riezler & Maxwell's originals, block bootstraps, corrected conclusions) go in a second, clearly
labelled table with one column per metric. Every function returns a string; writing files is the caller's job.

The Markdown writer is our own (:func:`frame_to_markdown`): ``DataFrame.to_markdown`` needs ``tabulate``, which is
not a dependency.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from mtsig.errors import InputError
from mtsig.stats.evaluation import PAPER_TESTS

#: Column headings of the paper's Tables 1-2, and labels for the tests beyond it.
TEST_LABELS: dict[str, str] = {
    "paired_bootstrap": "Paired Bootst. Resamp.",
    "bootstrap": "Bootst. Resamp.",
    "approximate_randomization": "Approx. Rand.",
    "bootstrap_two_sided": "Bootst. Resamp., two-sided (Fig. 1)",
    "approximate_randomization_two_sided": "Approx. Rand., two-sided",
    "rm_bootstrap": "R&M bootstrap (as published)",
    "rm_approximate_randomization": "R&M approx. rand. (as published)",
    "paired_bootstrap_documents": "Paired Bootst., document blocks",
    "bootstrap_documents": "Bootst. Resamp., document blocks",
    "paired_bootstrap_stationary": "Paired Bootst., stationary blocks",
    "bootstrap_stationary": "Bootst. Resamp., stationary blocks",
}

CORRECTION_LABELS: dict[str, str] = {
    "none": "uncorrected",
    "holm": "Holm",
    "benjamini_hochberg": "Benjamini-Hochberg",
}

METRIC_LABELS: dict[str, str] = {
    "bleu": "BLEU",
    "nist": "NIST",
    "meteor": "METEOR",
    "ter": "TER",
    "chrf": "chrF",
}

ACCURACY_COLUMNS = ("gold", "alpha", "metric", "test", "correct", "total", "accuracy", "ci_low", "ci_high")


# --------------------------------------------------------------------------------------------------- labels


def label_of_test(test: str) -> str:
    """Human label of a test; ``"<test>+<correction>"`` (from corrected conclusions) gets the correction added."""
    base, _, correction = test.partition("+")
    label = TEST_LABELS.get(base, base)
    return f"{label} + {CORRECTION_LABELS.get(correction, correction)}" if correction else label


def metric_label(metric: str) -> str:
    """Printed name of a metric (BLEU, NIST, ...); unknown names are printed as given."""
    return METRIC_LABELS.get(metric, metric)


def format_alpha(alpha: float) -> str:
    """0.05, 0.01, 0.001 as the paper prints them."""
    return f"{alpha:g}"


def format_percent(proportion: float) -> str:
    """A proportion as a percentage with one decimal, as in the paper's tables (80.3)."""
    return f"{100 * proportion:.1f}"


def format_interval(low: float, high: float) -> str:
    """A Clopper-Pearson interval as the paper prints it: ``[68.7, 89.1]``."""
    return f"[{format_percent(low)}, {format_percent(high)}]"


def accuracy_caption(
    description: str, gold: str, n_systems: int, samples: int, seed: int, pvalue: str
) -> str:
    """The table caption: data, gold method, number of pairs, samples per test, p-value rule and seed."""
    pairs = n_systems * (n_systems - 1) // 2
    return (
        f"Accuracy of randomized significance tests against the human gold standard ({gold}): {description}; "
        f"{n_systems} systems, {pairs} pairs. Conc.: correct conclusions out of {pairs}; Acc.: accuracy with its "
        f"95% Clopper-Pearson interval. {samples} bootstrap samples / shuffles per test, p = {pvalue}, "
        f"seed {seed}. Bold: most accurate at each alpha."
    )


# --------------------------------------------------------------------------------------------------- generic


def _markdown_cell(value: object) -> str:
    text = "" if value is None or (isinstance(value, float) and math.isnan(value)) else str(value)
    return text.replace("|", r"\|").replace("\n", " ")


def frame_to_markdown(frame: pd.DataFrame, float_format: str = "{:.4g}") -> str:
    """A small DataFrame as a GitHub-flavoured Markdown table (numbers right-aligned, NaN blank).

    Floats are written with ``float_format``; ``|`` in cells is escaped. The index is not written.
    """
    headers = [_markdown_cell(c) for c in frame.columns]
    numeric = [
        pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c]) for c in frame
    ]
    body = []
    for row in frame.itertuples(index=False):
        cells = []
        for value in row:
            if isinstance(value, float) and not math.isnan(value):
                cells.append(float_format.format(value))
            else:
                cells.append(_markdown_cell(value))
        body.append(cells)
    rule = ["---:" if is_numeric else "---" for is_numeric in numeric]
    lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(cells) + " |" for cells in body]
    return "\n".join(lines) + "\n"


def ranked_table_latex(
    first_header: str, score_header: str, rows: Sequence[str], caption: str, label: str
) -> str:
    """A booktabs ``table`` float of three columns (needs ``\\usepackage{booktabs}``), in the layout of the WMT
    findings' ranked tables (Bojar et al. 2013, Sec. 3.3): the header ``first_header & System & score_header``
    (``score_header`` escaped), then ``rows`` (LaTeX lines, rules included), ``caption`` (LaTeX) and ``label``."""
    lines = [
        "% requires \\usepackage{booktabs}",
        r"\begin{table}[t]",
        r"\centering",
        r"\small",
        r"\begin{tabular}{rlr}",
        r"\toprule",
        rf"{first_header} & System & {latex_escape(score_header)} \\",
        r"\midrule",
        *rows,
        r"\bottomrule",
        r"\end{tabular}",
        rf"\caption{{{caption}}}",
        rf"\label{{{label}}}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"


def latex_escape(text: str) -> str:
    """Escape LaTeX's special characters in plain text (system names such as QCRI--primary stay literal)."""
    replacements = {
        "\\": r"\textbackslash{}",
        "&": r"\&",
        "%": r"\%",
        "$": r"\$",
        "#": r"\#",
        "_": r"\_",
        "{": r"\{",
        "}": r"\}",
        "~": r"\textasciitilde{}",
        "^": r"\textasciicircum{}",
        "α": r"$\alpha$",  # the non-ASCII characters of our Markdown text, for pdflatex
        "²": r"\textsuperscript{2}",
        "–": "--",
        "·": r"$\cdot$",
    }
    escaped = "".join(replacements.get(ch, ch) for ch in text)
    return escaped.replace("--", "-{}-")  # keeps "--" from becoming an en dash


# --------------------------------------------------------------------------------------------------- layout


def _accuracy_rows(accuracy: pd.DataFrame, gold: str, tests: Sequence[str]) -> pd.DataFrame:
    missing = [c for c in ACCURACY_COLUMNS if c not in accuracy.columns]
    if missing:
        raise InputError(f"accuracy table lacks column(s) {', '.join(missing)}")
    rows = accuracy[(accuracy["gold"] == gold) & accuracy["test"].isin(tests)]
    if rows.empty:
        raise InputError(f"accuracy table has no rows for gold {gold!r} and tests {', '.join(tests)}")
    return rows


def _ordered(values: Sequence[object], preferred: Sequence[object] | None) -> list:
    present = list(dict.fromkeys(values))
    if preferred is None:
        return present
    return [v for v in preferred if v in present]


@dataclass(frozen=True)
class PaperTable:
    """Tables 1-2 of the paper for one gold, whatever the format that writes them: the ``tests`` of its columns,
    its ``rows`` (one dict per (alpha, metric) with, per test, the count, accuracy, interval and whether it is the
    best count at that alpha, over all metrics and the given tests) and the chi-square line under it (None:
    none)."""

    gold: str
    tests: tuple[str, ...]
    rows: list[dict]
    chi_square: str | None = None


def paper_table(
    accuracy: pd.DataFrame,
    gold: str,
    tests: Sequence[str] = PAPER_TESTS,
    metrics: Sequence[str] | None = None,
    chi_square: pd.DataFrame | None = None,
) -> PaperTable:
    """The :class:`PaperTable` of ``accuracy``'s rows of ``gold``, with :func:`chi_square_line` of ``chi_square``
    when given. Alphas run from largest to smallest as in the paper; metrics in the given order (default: as they
    appear)."""
    rows = _accuracy_rows(accuracy, gold, tests)
    alphas = sorted(set(rows["alpha"]), reverse=True)
    metric_order = _ordered(rows["metric"], metrics)
    indexed = rows.set_index(["alpha", "metric", "test"])
    layout = []
    for alpha in alphas:
        best = rows.loc[rows["alpha"] == alpha, "correct"].max()
        for metric in metric_order:
            cells = {}
            for test in tests:
                key = (alpha, metric, test)
                if key not in indexed.index:
                    cells[test] = None
                    continue
                r = indexed.loc[key]
                cells[test] = {
                    "correct": int(r["correct"]),
                    "total": int(r["total"]),
                    "accuracy": float(r["accuracy"]),
                    "ci_low": float(r["ci_low"]),
                    "ci_high": float(r["ci_high"]),
                    "best": int(r["correct"]) == best,
                }
            layout.append({"alpha": alpha, "metric": metric, "cells": cells})
    line = None if chi_square is None else chi_square_line(chi_square, gold, tests)
    return PaperTable(gold, tuple(tests), layout, line)


def _test_cells(cells: Mapping[str, dict | None], tests: Sequence[str], missing: str, bold: str) -> list[str]:
    """The two cells of each test in one row of Tables 1-2: the count of correct conclusions and the accuracy
    with its interval; ``missing`` twice for a test without a result, and the best count(s) of the row set in
    ``bold`` (a ``str.format`` template with one ``{}``)."""
    row: list[str] = []
    for test in tests:
        cell = cells[test]
        if cell is None:
            row += [missing, missing]
            continue
        count, percent = str(cell["correct"]), format_percent(cell["accuracy"])
        if cell["best"]:
            count, percent = bold.format(count), bold.format(percent)
        row += [count, f"{percent} {format_interval(cell['ci_low'], cell['ci_high'])}"]
    return row


def accuracy_table_markdown(table: PaperTable, caption: str) -> str:
    """Tables 1-2 of the paper as Markdown: caption, table, and the chi-square line under it.

    Markdown has one header row, so each test contributes two columns, "<test> Conc." and "<test> Acc. (%)".
    The alpha is printed on the first row of its block only, as in the paper.
    """
    tests = table.tests
    header = ["α", "Metric"]
    for test in tests:
        header += [f"{label_of_test(test)} Conc.", f"{label_of_test(test)} Acc. (%)"]
    lines = [
        f"**Table.** {caption}",
        "",
        "| " + " | ".join(header) + " |",
        "|---|---|" + "---:|---:|" * len(tests),
    ]
    previous_alpha = None
    for row in table.rows:
        cells = [
            format_alpha(row["alpha"]) if row["alpha"] != previous_alpha else "",
            metric_label(row["metric"]),
        ]
        previous_alpha = row["alpha"]
        cells += _test_cells(row["cells"], tests, missing="–", bold="**{}**")
        lines.append("| " + " | ".join(cells) + " |")
    text = "\n".join(lines) + "\n"
    if table.chi_square is not None:
        text += "\n" + table.chi_square + "\n"
    return text


def accuracy_table_latex(table: PaperTable, caption: str, label: str) -> str:
    """Tables 1-2 of the paper as a LaTeX ``table`` float (needs ``\\usepackage{booktabs}``).

    Two header rows: the test names spanning "Conc." and "Acc. (%)" with ``\\cmidrule``, as in the paper; the alpha
    is printed on the first row of its block (blank below it) and blocks are separated by ``\\midrule``. The
    chi-square line, when given, is a table note under the tabular.
    """
    tests = table.tests
    column_spec = "ll" + "rl" * len(tests)
    spans = " & ".join(rf"\multicolumn{{2}}{{c}}{{{latex_escape(label_of_test(t))}}}" for t in tests)
    rules = " ".join(rf"\cmidrule(lr){{{3 + 2 * i}-{4 + 2 * i}}}" for i in range(len(tests)))
    sub = " & ".join(["Conc. & Acc. (\\%)"] * len(tests))
    lines = [
        "% requires \\usepackage{booktabs}",
        r"\begin{table}[t]",
        r"\centering",
        r"\small",
        rf"\begin{{tabular}}{{{column_spec}}}",
        r"\toprule",
        rf" & & {spans} \\",
        rules,
        rf"$\alpha$ & & {sub} \\",
    ]
    previous_alpha = None
    for row in table.rows:
        if row["alpha"] != previous_alpha:
            lines.append(r"\midrule")
        cells = [
            format_alpha(row["alpha"]) if row["alpha"] != previous_alpha else "",
            latex_escape(metric_label(row["metric"])),
        ]
        previous_alpha = row["alpha"]
        cells += _test_cells(row["cells"], tests, missing="--", bold=r"\textbf{{{}}}")
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    if table.chi_square is not None:
        lines += [r"\par\smallskip", r"\footnotesize " + latex_escape(table.chi_square)]
    lines += [rf"\caption{{{latex_escape(caption)}}}", rf"\label{{{label}}}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def accuracy_table_csv(table: PaperTable) -> str:
    """Tables 1-2 as CSV, one row per (alpha, metric), per test: correct, total, accuracy and interval in percent.

    Percentages carry one decimal, so each value equals the printed cell; ``correct`` and ``total`` give the exact
    proportion.
    """
    records = []
    for row in table.rows:
        record: dict[str, object] = {
            "gold": table.gold,
            "alpha": format_alpha(row["alpha"]),
            "metric": row["metric"],
        }
        for test in table.tests:
            cell = row["cells"][test] or {}
            record[f"{test}_correct"] = cell.get("correct", "")
            record[f"{test}_total"] = cell.get("total", "")
            for key in ("accuracy", "ci_low", "ci_high"):
                record[f"{test}_{key}_pct"] = format_percent(cell[key]) if cell else ""
            record[f"{test}_best"] = int(cell["best"]) if cell else ""
        records.append(record)
    return pd.DataFrame(records).to_csv(index=False, lineterminator="\n")


def accuracy_by_test_markdown(
    accuracy: pd.DataFrame,
    gold: str,
    caption: str,
    tests: Sequence[str],
    metrics: Sequence[str] | None = None,
) -> str:
    """Tests beyond the paper's three (two-sided, R&M originals, block bootstraps, corrected conclusions).

    Rows are alpha x test, labelled by :func:`label_of_test`; columns one per metric, each cell "correct/total ·
    Acc. (%) [low, high]". Tests absent from ``accuracy`` are skipped.
    """
    present = [t for t in tests if t in set(accuracy["test"])]
    rows = _accuracy_rows(accuracy, gold, present)
    metric_order = _ordered(rows["metric"], metrics)
    indexed = rows.set_index(["alpha", "metric", "test"])
    header = ["α", "Test", *(metric_label(m) for m in metric_order)]
    lines = [
        f"**Table.** {caption}",
        "",
        "| " + " | ".join(header) + " |",
        "|---|---|" + "---:|" * len(metric_order),
    ]
    for alpha in sorted(set(rows["alpha"]), reverse=True):
        for position, test in enumerate(present):
            cells = [format_alpha(alpha) if position == 0 else "", _markdown_cell(label_of_test(test))]
            for metric in metric_order:
                key = (alpha, metric, test)
                if key not in indexed.index:
                    cells.append("–")
                    continue
                r = indexed.loc[key]
                cells.append(
                    f"{int(r['correct'])}/{int(r['total'])} · {format_percent(r['accuracy'])} "
                    f"{format_interval(r['ci_low'], r['ci_high'])}"
                )
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def chi_square_line(chi_square: pd.DataFrame, gold: str, tests: Sequence[str] = PAPER_TESTS) -> str:
    """The sentence under the table: the paper's chi-square test of metric differences, per alpha and test.

    E.g. "Differences between metrics (Pearson chi-square, metric x correct/incorrect, no continuity correction,
    dof 4): α = 0.05: Paired Bootst. Resamp. X² = 0.52, p = 0.97; ...".
    """
    rows = chi_square[(chi_square["gold"] == gold) & chi_square["test"].isin(tests)]
    if rows.empty:
        return "Differences between metrics: no chi-square test available."
    dofs = sorted(set(int(d) for d in rows["dof"]))
    parts = []
    for alpha in sorted(set(rows["alpha"]), reverse=True):
        at_alpha = rows[rows["alpha"] == alpha].set_index("test")
        results = []
        for test in tests:
            if test not in at_alpha.index:
                continue
            r = at_alpha.loc[test]
            if math.isnan(r["p_value"]):
                results.append(f"{label_of_test(test)} undefined (no errors or no correct conclusions)")
            else:
                results.append(f"{label_of_test(test)} X² = {r['statistic']:.2f}, p = {r['p_value']:.3g}")
        parts.append(f"α = {format_alpha(alpha)}: " + "; ".join(results))
    return (
        "Differences in accuracy between metrics (Pearson chi-square test of metric x correct/incorrect, "
        f"no continuity correction, dof {', '.join(map(str, dofs))}): " + ". ".join(parts) + "."
    )


def agreement_markdown(differing: pd.DataFrame, tests: Sequence[str] = PAPER_TESTS) -> str:
    """The pairs on which the paper's three tests disagree (Section 4.1), or a sentence saying there are none."""
    if differing.empty:
        return "The three tests reach the same conclusion on every pair, for every metric and alpha.\n"
    shown = differing.assign(
        metric=differing["metric"].map(metric_label), alpha=differing["alpha"].map(format_alpha)
    ).rename(columns={t: label_of_test(t) for t in tests})
    return frame_to_markdown(shown)


#: How the tables name an experiment's human judgments, by their criterion (others by the criterion itself).
HUMAN_LABELS = {"ranking": "WMT relative ranking", "mqm": "MQM", "adequacy": "DA"}


@dataclass(frozen=True)
class AccuracyTables:
    """An experiment's accuracy tables as written: the Markdown page, the LaTeX tables (one per gold) and the CSV
    of the primary gold's paper-layout table."""

    markdown: str
    latex: str
    csv: str


def experiment_accuracy_tables(
    accuracy: pd.DataFrame,
    chi_square: pd.DataFrame,
    agreement: pd.DataFrame,
    *,
    name: str,
    description: str,
    metrics: Sequence[str],
    n_systems: int,
    samples: int | Mapping[str, int],
    seed: int,
    pvalue: str,
    orientation_note: str = "",
) -> AccuracyTables:
    """Graham, Mathur & Baldwin (2014), Tables 1-2, for every gold of an experiment (``accuracy``, ``chi_square``,
    ``agreement``: the evaluate step's tables).

    The primary gold (the first in ``accuracy``) fills the main table, with ``orientation_note`` under it; every
    other gold, the tests beyond the paper's three and the corrected conclusions follow in labelled sections of
    the Markdown page, then the agreement between the three tests. ``samples``, ``seed`` and ``pvalue`` are named
    in the captions.
    """
    uncorrected = accuracy[accuracy["correction"] == "none"]
    golds = list(dict.fromkeys(uncorrected["gold"]))
    metrics = list(metrics)
    md, tex, csv = [], [], []
    for index, gold in enumerate(golds):
        caption = accuracy_caption(description, gold, n_systems, samples, seed, pvalue)
        heading = "Primary gold" if index == 0 else "Second gold"
        md.append(f"## {heading}: {gold}\n")
        table = paper_table(uncorrected, gold, PAPER_TESTS, metrics, chi_square)
        md.append(accuracy_table_markdown(table, caption))
        tex.append(accuracy_table_latex(table, caption, f"tab:{name}:{gold}"))
        csv.append(accuracy_table_csv(table) if index == 0 else "")
        if index == 0 and orientation_note:
            md.append("\n" + orientation_note)
        extra = [t for t in dict.fromkeys(uncorrected["test"]) if t not in PAPER_TESTS]
        if extra:
            md.append(
                f"\n### Beyond the paper: two-sided tests, R&M as published, block bootstraps ({gold})\n"
            )
            md.append(accuracy_by_test_markdown(uncorrected, gold, caption, extra, metrics))
    for correction in [c for c in dict.fromkeys(accuracy["correction"]) if c != "none"]:
        corrected = accuracy[accuracy["correction"] == correction]
        for gold in dict.fromkeys(corrected["gold"]):
            tests = [t for t in dict.fromkeys(corrected["test"]) if t.split("+")[0] in PAPER_TESTS]
            caption = f"Accuracy after {correction} correction over all pairs, against gold {gold}."
            md.append(f"\n### Multiple comparisons: {correction}, gold {gold}\n")
            md.append(accuracy_by_test_markdown(corrected, gold, caption, tests, metrics))
    md.append("\n## Agreement between the three tests\n")
    md.append(agreement_markdown(agreement))
    return AccuracyTables(f"# {description}\n\n" + "\n".join(md), "\n\n".join(tex), csv[0])


def human_label(criterion: str) -> str:
    """The name of the human judgments of ``criterion`` in the tables (:data:`HUMAN_LABELS`)."""
    return HUMAN_LABELS.get(criterion, criterion)


def reversed_orientation_note(
    flagged: Mapping[str, tuple[float, float]], human_label: str, n_systems: int
) -> str:
    """A note for the tables of an experiment with metrics whose system scores correlate strongly negatively with
    the human ones (``{metric: (Pearson r, one-sided p)}``,
    :func:`mtsig.stats.meta_evaluation.system_level.reversed_orientation`): most likely declared with the
    wrong ``higher_is_better``. Empty when nothing is flagged."""
    from mtsig.stats.meta_evaluation.system_level import ORIENTATION_ALPHA, ORIENTATION_R

    if not flagged:
        return ""
    bound = f"{ORIENTATION_R:g}".replace("-", "−")
    lines = [
        f"**Check higher_is_better.** The system scores of these metrics correlate strongly negatively with the human "
        f"{human_label} scores ({n_systems} systems; flagged at Pearson r ≤ {bound} with a one-sided p ≤ "
        f"{ORIENTATION_ALPHA:g}): a metric declared with the wrong orientation looks like this, and its "
        "conclusions are then reversed.",
        "",
    ]
    lines += [
        f"- {metric}: r = " + f"{r:.3f}".replace("-", "−") + f", p = {p:.2g}"
        for metric, (r, p) in flagged.items()
    ]
    return "\n".join(lines) + "\n"


def tables_index_markdown(
    entries: Sequence[tuple[str, str]] | Mapping[str, str], title: str = "Tables"
) -> str:
    """``results/tables/README.md``: a heading and one link per table, ``entries`` as (title, relative path)."""
    items = list(entries.items()) if isinstance(entries, Mapping) else list(entries)
    if not items:
        raise InputError("the tables index needs at least one table")
    lines = [f"# {title}", ""]
    for name, path in items:
        text = _markdown_cell(name).replace("[", r"\[").replace("]", r"\]")
        lines.append(f"- [{text}]({path.replace(' ', '%20')})")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------- studies' tables


def section2_markdown(experiment: str, table: pd.DataFrame, n_pairs: int) -> str:
    """The paper's Section 2 in numbers (R&M bootstrap against R&M AR on the closest pairs), with its prose."""
    text = (
        f"# Section 2 in numbers: {experiment}\n\n"
        f"For the {n_pairs} pairs with the closest scores per metric: p-values of Riezler & Maxwell's bootstrap and "
        "approximate randomization as published (absolute values, p = (c+1)/(B+1)), the paper's two-sided "
        "bootstrap (Fig. 1), and the R&M bootstrap doubled. The paper argues the R&M bootstrap is effectively "
        "one-tailed, i.e. about half the AR p-value: the median ratio here is "
        f"{table['ratio_rm_bootstrap_to_rm_ar'].median():.2f}.\n\n"
    )
    return text + frame_to_markdown(table)


def nbest_markdown(results: Mapping[str, pd.DataFrame]) -> str:
    """The n-best experiment's tables (Bremerman et al. 2020): MAP and the other measures, the gold ablation,
    x-best y-reference BLEU and the simulation parameters."""
    ranked = results["systems"].sort_values("map", ascending=False, kind="stable")
    columns = ["system", "simulated", "map", "weighted_f1", "bleu_1best_1ref", "bleu_100best_100ref"]
    text = [
        "# n-best lists: STAPLE en-pt (Bremerman et al. 2020)\n",
        "Every system with `simulated = True` is SIMULATED from the gold (parameters below); `aws_baseline` is the "
        "organisers' real 1-best baseline.\n",
        "## MAP and the other measures\n",
        frame_to_markdown(ranked[columns]),
        "\n## Ablation of the gold: correlation of each step's MAP ranking with the full-gold ranking\n",
        frame_to_markdown(results["ablation"]),
        "\n## x-best y-reference BLEU against MAP\n",
        frame_to_markdown(results["bleu_grid"]),
        "\n## Simulation parameters\n",
        frame_to_markdown(results["parameters"]),
    ]
    return "\n".join(text)


def segment_level_markdown(name: str, table: pd.DataFrame) -> str:
    """The RankEval measures (Avramidis 2013) of one ranking data set, one row per convention and predictor."""
    wide = table.pivot_table(index=["convention", "predictor"], columns="measure", values="value", sort=False)
    text = (
        f"# Segment-level meta-evaluation: {name}\n\n"
        "RankEval measures (Avramidis 2013) of each predictor against the human rankings: Kendall's tau with WMT's "
        "penalised ties (micro and macro averaged, with its p-value), MRR, NDCG, ERR, average human rank of the "
        "predicted best, and best-predicted-vs-human (bph_<human rank>) in percent of the judgments. Higher score = "
        "better = rank 1; equal scores tie. Convention `paper` follows the paper's equations; `rankeval_tool` "
        "reproduces the RankEval tool's code (blank ranks as the best rank, tied predictions overwriting each "
        "other in NDCG/ERR, ...; see config/README.md).\n\n"
    )
    return text + frame_to_markdown(wide.reset_index())
