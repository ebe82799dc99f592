"""The table of a WMT23/24 metrics-task protocol run (:mod:`mtsig.studies.metrics_protocol`): the layout of the
WMT23 findings' Table 8 (Freitag et al. 2023): one row per metric in order of the weighted average, its cluster
rank, then each task's value and rank, then the protocol's extra tasks (not in the average; the WMT23 protocol's
PDP, DiIanni & Deutsch 2025); as text, LaTeX or a JSON-ready dict. Functions return strings or dicts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mtsig import __version__
from mtsig.report.tables import frame_to_markdown, latex_escape
from mtsig.studies.metrics_protocol import ProtocolResult
from mtsig.studies.metrics_protocol_beyond import ExperimentOptions, ProtocolExperiment


def protocol_signature(result: ProtocolResult) -> str:
    """Every setting that changes a number of the table, on one line (docs/statistics.md, "Signatures")."""
    protocol = result.protocol
    fields = [
        f"mtsig:{__version__}",
        f"protocol:{protocol.name}",
        f"lps:{','.join(protocol.lps)}",
        "test:paired-permutation",
        "sided:one",
        f"samples:{result.n_resamples}",
        f"seed:{result.seed}",
        "pvalue:share",
        f"early_stopping:{result.early_stopping}",
        f"alpha:{result.alpha:g}",
    ]
    if any(task.task.statistic == "spa" for task in result.tasks):
        fields.append(f"spa:pce-masks-{result.spa_arithmetic}")
    return "|".join(fields)


def _task_cells(result: ProtocolResult, *, extras: bool = False) -> list[dict[str, tuple[float, int]]]:
    """Per task (``extras``: per extra task): ``{metric: (value, rank)}``, the rank being the task's cluster (or
    position without resamples)."""
    cells = []
    for task in result.extras if extras else result.tasks:
        cells.append(
            {
                name: (float(v), int(r))
                for name, v, r in zip(task.metrics, task.values, task.ranks, strict=True)
            }
        )
    return cells


def protocol_table_text(result: ProtocolResult) -> str:
    """A fixed-width table: metric, average, rank, then ``value (rank)`` per task; the tasks' labels below."""
    cells = _task_cells(result)
    extra_cells = _task_cells(result, extras=True)
    width = max(len(m) for m in result.metrics)
    header = f"{'metric':<{width}}  {'avg':>6} {'rank':>4}" + "".join(
        f"  {f'task{t + 1}':>12}" for t in range(len(cells))
    )
    header += "".join(f"  {f'x{t + 1}':>12}" for t in range(len(extra_cells)))
    lines = [header, "-" * len(header)]
    for name, average, rank in zip(result.metrics, result.average, result.ranks, strict=True):
        row = f"{name:<{width}}  {average:6.4f} {rank:>4}"
        for task in cells:
            value, task_rank = task[name]
            row += f"  {value:6.3f} ({task_rank:>2})"
        for task in extra_cells:
            row += f"  {task[name][0]:6.3f} ({task[name][1]:>2})" if name in task else f"  {'-':>12}"
        lines.append(row)
    lines.append("")
    for number, (task, weight) in enumerate(zip(result.tasks, result.protocol.weights, strict=True), start=1):
        lps = ",".join(task.task.lps) if task.task.statistic == "pooled_accuracy" else ""
        lines.append(
            f"task{number}: {task.task.label}{f' ({lps})' if lps else ''}, weight {weight:.4g}, "
            f"{len(task.metrics)} metrics, systems: "
            + "; ".join(f"{lp} {len(systems)}" for lp, systems in task.systems.items())
        )
    for number, task in enumerate(result.extras, start=1):
        lines.append(
            f"x{number}: {task.task.label}, not in the average, {len(task.metrics)} metrics, systems: "
            + "; ".join(f"{lp} {len(systems)}" for lp, systems in task.systems.items())
        )
    return "\n".join(lines) + "\n"


def protocol_table_latex(result: ProtocolResult) -> str:
    """The table as a booktabs ``tabular``: rank and average, then per task value and rank; rank 1 in bold."""
    cells = _task_cells(result) + _task_cells(result, extras=True)
    columns = "lrr" + "rr" * len(cells)
    out = [f"\\begin{{tabular}}{{{columns}}}", "\\toprule"]
    heads = ["Metric", "Rank", "Avg"] + [
        f"\\multicolumn{{2}}{{c}}{{{latex_escape(t.task.label)}}}" for t in result.tasks
    ]
    heads += [f"\\multicolumn{{2}}{{c}}{{{latex_escape(t.task.label)}$^\\dagger$}}" for t in result.extras]
    out.append(" & ".join(heads) + " \\\\")
    out.append("\\midrule")
    for name, average, rank in zip(result.metrics, result.average, result.ranks, strict=True):
        row = [latex_escape(name), str(int(rank)), f"{average:.3f}"]
        for task in cells:
            if name not in task:
                row.append("-- & --")
                continue
            value, task_rank = task[name]
            text = f"{value:.3f} & {task_rank}"
            row.append(f"\\textbf{{{value:.3f}}} & \\textbf{{{task_rank}}}" if task_rank == 1 else text)
        if rank == 1:
            row[:3] = [f"\\textbf{{{cell}}}" for cell in row[:3]]
        out.append(" & ".join(row) + " \\\\")
    out += ["\\bottomrule", "\\end{tabular}"]
    if result.extras:
        out.append("% $^\\dagger$ not in the average")
    return "\n".join(out) + "\n"


def _matrix(values: np.ndarray) -> list[list[float]]:
    return [[float(v) for v in row] for row in values]


def protocol_json(result: ProtocolResult) -> dict[str, Any]:
    """Everything of the run as plain types: per task its metrics, values, ranks, epsilons, systems and
    significance matrix (ranking order); the average and its matrix; the weights and the signature; the extra
    tasks (``extras``, weight 0: not in the average) as the tasks."""
    tasks, extras = [], []
    weighted = [
        (task, weight, tasks) for task, weight in zip(result.tasks, result.protocol.weights, strict=True)
    ]
    for task, weight, into in weighted + [(task, 0.0, extras) for task in result.extras]:
        ordered = [task.metrics[m] for m in task.order]
        into.append(
            {
                "label": task.task.label,
                "statistic": task.task.statistic,
                "lps": list(task.task.lps),
                "level": task.task.level,
                "weight": weight,
                "range": list(task.task.value_range),
                "systems": {lp: list(systems) for lp, systems in task.systems.items()},
                "metrics": ordered,
                "values": [float(task.values[m]) for m in task.order],
                "ranks": [int(task.ranks[m]) for m in task.order],
                "epsilons": None if task.epsilons is None else [float(task.epsilons[m]) for m in task.order],
                "significance": _matrix(task.significance),
            }
        )
    return {
        "protocol": result.protocol.name,
        "lps": list(result.protocol.lps),
        "samples": result.n_resamples,
        "seed": result.seed,
        "alpha": result.alpha,
        "average": {
            "metrics": list(result.metrics),
            "values": [float(v) for v in result.average],
            "ranks": [int(r) for r in result.ranks],
            "significance": _matrix(result.significance),
        },
        "tasks": tasks,
        "extras": extras,
        "signature": protocol_signature(result),
    }


#: Columns of :func:`protocol_tables`' tables (one TSV each for a pipeline step).
TASK_COLUMNS = ["task", "label", "statistic", "lps", "level", "weight", "metric", "value", "rank", "epsilon"]
AVERAGE_COLUMNS = ["metric", "average", "rank"]
SIGNIFICANCE_COLUMNS = ["task", "metric_a", "metric_b", "p_value"]


def protocol_tables(result: ProtocolResult) -> dict[str, pd.DataFrame]:
    """The run as tidy tables: ``tasks`` (one row per task and metric, in each task's ranking order; ``task`` is
    1-based; the extra tasks after the tasks, with weight 0), ``average`` (ranking order) and ``significance``
    (``p_value`` of ``metric_a`` beating ``metric_b``, a above b in the task's ranking, ``task`` 0 for the
    average; empty without resamples)."""
    rows, sig_rows = [], []
    weighted = list(zip(result.tasks, result.protocol.weights, strict=True))
    for number, (task, weight) in enumerate(weighted + [(t, 0.0) for t in result.extras], start=1):
        for m in task.order:
            rows.append(
                {
                    "task": number,
                    "label": task.task.label,
                    "statistic": task.task.statistic,
                    "lps": ",".join(task.task.lps),
                    "level": task.task.level,
                    "weight": weight,
                    "metric": task.metrics[m],
                    "value": float(task.values[m]),
                    "rank": int(task.ranks[m]),
                    "epsilon": np.nan if task.epsilons is None else float(task.epsilons[m]),
                }
            )
        if task.test is not None:
            names = [task.metrics[m] for m in task.order]
            i, j = np.triu_indices(len(names), k=1)
            sig_rows += [
                {
                    "task": number,
                    "metric_a": names[a],
                    "metric_b": names[b],
                    "p_value": float(task.significance[a, b]),
                }
                for a, b in zip(i, j, strict=True)
            ]
    if result.n_resamples and len(result.metrics) > 1:
        i, j = np.triu_indices(len(result.metrics), k=1)
        sig_rows += [
            {
                "task": 0,
                "metric_a": result.metrics[a],
                "metric_b": result.metrics[b],
                "p_value": float(result.significance[a, b]),
            }
            for a, b in zip(i, j, strict=True)
        ]
    average = pd.DataFrame(
        {
            "metric": list(result.metrics),
            "average": result.average.astype(float),
            "rank": result.ranks.astype(int),
        }
    )
    return {
        "tasks": pd.DataFrame(rows, columns=TASK_COLUMNS),
        "average": average[AVERAGE_COLUMNS],
        "significance": pd.DataFrame(sig_rows, columns=SIGNIFICANCE_COLUMNS),
    }


# ------------------------------------------------------------------------------------------------ the pipeline's


def metric_basename(display: str) -> str:
    """A metric's basename from its display name (``*`` before a non-primary metric, ``[noref]`` after a
    reference-free one: :func:`mtsig.studies.metrics_protocol.display_name`)."""
    return display.removeprefix("*").removesuffix("[noref]")


def metric_kind(display: str, result: ProtocolResult) -> str:
    """``baseline`` (the task's baselines, Freitag et al. 2023, Table 8's grey rows), ``primary`` or
    ``contrastive`` (a display name with ``*``)."""
    if metric_basename(display) in result.protocol.info.baselines:
        return "baseline"
    return "contrastive" if display.startswith("*") else "primary"


def _value_cell(value: float, rank: int | None = None, digits: int = 3) -> str:
    return f"{value:.{digits}f}" + ("" if rank is None else f" ({rank})")


def protocol_table_markdown(
    result: ProtocolResult,
    intervals: dict[str, pd.DataFrame] | None = None,
    *,
    heading: str,
    confidence: float = 0.95,
    reproduce: str | None = None,
) -> str:
    """A protocol's table in Markdown, Table 8's layout (Freitag et al. 2023): one row per metric in order of the
    weighted average, its cluster, its kind (baseline or primary), the average, then each task's value and
    cluster; the tasks (weight, metrics, systems); with ``intervals`` (task label -> ``metric, ci_low, ci_high``
    rows) every value's bootstrap interval in a second table; the signature and ``reproduce`` (a command) last."""
    cells = _task_cells(result)
    labels = [task.task.label for task in result.tasks]
    extra_cells = _task_cells(result, extras=True)
    extra_labels = [f"{task.task.label} †" for task in result.extras]
    rows = []
    for name, average, rank in zip(result.metrics, result.average, result.ranks, strict=True):
        row = {
            "rank": int(rank),
            "metric": name,
            "kind": metric_kind(name, result),
            "avg": _value_cell(average),
        }
        for label, task in zip(labels, cells, strict=True):
            value, task_rank = task[name]
            row[label] = _value_cell(value, task_rank)
        for label, task in zip(extra_labels, extra_cells, strict=True):
            row[label] = _value_cell(*task[name]) if name in task else "–"
        rows.append(row)
    lines = [f"## {heading}", ""]
    lines += [
        "Metrics in order of the weighted average of the tasks (each rescaled to [0, 1] by its range); `rank`: "
        "the significance cluster of the average, and in brackets each task's cluster (permutation tests between "
        f"every two metrics, α = {result.alpha:g}, {result.n_resamples} resamples"
        + (", mt-metrics-eval's early stopping" if result.early_stopping == "mtme" else "")
        + "; without resamples the rank). Baselines as the task named them."
        + (
            " † marks extra tasks, not in the average (PDP: the Pairwise Difference Pearson of DiIanni & Deutsch "
            "2025, over the pairs of translations of each segment)."
            if result.extras
            else ""
        ),
        "",
        frame_to_markdown(pd.DataFrame(rows)),
        "",
        "| task | weight | metrics | systems |",
        "| --- | ---: | ---: | --- |",
    ]
    for task, weight in zip(result.tasks, result.protocol.weights, strict=True):
        systems = "; ".join(f"{lp} {len(names)}" for lp, names in task.systems.items())
        lines.append(f"| {task.task.label} | {weight:.4g} | {len(task.metrics)} | {systems} |")
    for task in result.extras:
        systems = "; ".join(f"{lp} {len(names)}" for lp, names in task.systems.items())
        lines.append(f"| {task.task.label} † | not averaged | {len(task.metrics)} | {systems} |")
    lines.append("")
    if intervals:
        by_task = {label: frame.set_index("metric") for label, frame in intervals.items()}
        interval_rows = []
        columns = list(zip(labels, cells, strict=True))
        columns += [(t.task.label, c) for t, c in zip(result.extras, extra_cells, strict=True)]
        for name in result.metrics:
            row = {"metric": name}
            for label, task in columns:
                shown = f"{label} †" if label not in labels else label
                if name not in task:
                    row[shown] = "–"
                    continue
                value, _ = task[name]
                if label in by_task and name in by_task[label].index:
                    low, high = by_task[label].loc[name, ["ci_low", "ci_high"]]
                    row[shown] = f"{value:.3f} [{low:.3f}, {high:.3f}]"
                else:
                    row[shown] = _value_cell(value)
            interval_rows.append(row)
        lines += [
            f"### Each task value with its {confidence:.0%} bootstrap interval",
            "",
            "Percentile intervals (Deutsch, Dror & Roth 2021, Sec. 3.1): the systems of each language pair drawn "
            "with replacement for the system-level tasks (BOOT-SYSTEMS; a pair of copies of one system left out), "
            "the rated segments for the segment-level ones (BOOT-INPUTS; acc-t at each metric's calibrated "
            'epsilon); docs/statistics.md, "Bootstrap intervals of the task values".',
            "",
            frame_to_markdown(pd.DataFrame(interval_rows)),
            "",
        ]
    lines.append(f"Signature: `{protocol_signature(result)}`")
    if reproduce:
        lines += ["", f"The same table from the data folder: `{reproduce}`"]
    return "\n".join(lines) + "\n"


def significance_frame(metrics: list[str] | tuple[str, ...], significance: np.ndarray) -> pd.DataFrame:
    """A task's (or the average's) significance matrix in ranking order as a frame: ``[a, b]`` the p-value of
    ``a`` beating ``b`` for a above b, NaN elsewhere (the protocol tests only the higher-ranked metric's side)."""
    matrix = np.where(np.triu(np.ones_like(significance, dtype=bool), k=1), significance, np.nan)
    return pd.DataFrame(matrix, index=list(metrics), columns=list(metrics))


def heatmap_name(protocol: str, label: str) -> str:
    """The file stem of a task's heatmap: ``wmt23_en-de_seg_acc-t_item`` (lower case: a report's link targets
    are compared case-insensitively)."""
    return "_".join([protocol, *label.replace("(", "").replace(")", "").split()]).lower()


def protocol_heatmaps(result: ProtocolResult, directory: str | Path, *, dpi: float = 100) -> list[Path]:
    """One WMT-style heatmap per tested task and for the average (:func:`mtsig.report.plots.
    significance_heatmap_figure`: metrics in ranking order, a cell coloured where the row metric beats the column
    metric at the protocol's alpha, darker at 0.01 and 0.001, p printed), as ``<directory>/<heatmap_name>.png``;
    none without resamples. PNGs at ``dpi`` (100, as the Williams heatmaps: a 32-metric matrix is about 1400
    pixels wide)."""
    import matplotlib

    from mtsig.report.plots import STYLE, save_figure, significance_heatmap_figure

    panels = []
    for task in result.tasks:
        if task.test is None:
            continue
        names = [task.metrics[m] for m in task.order]
        panels.append((task.task.label, names, task.significance))
    if result.n_resamples and len(result.metrics) > 1 and panels:
        panels.append(("average", list(result.metrics), result.significance))
    written = []
    for label, names, significance in panels:
        title = (
            f"{result.protocol.name.upper()} {label}: p of the row metric beating the column metric "
            f"(paired permutation, {result.n_resamples} resamples)"
        )
        figure, _ = significance_heatmap_figure(
            significance_frame(names, significance), names, result.alpha, title, item="metric"
        )
        path = Path(directory) / f"{heatmap_name(result.protocol.name, label)}.png"
        with matplotlib.rc_context(STYLE):
            written += save_figure(figure, [path], dpi=dpi)
    return written


# ------------------------------------------------------------------------------------------------ an experiment's

#: The heading of each known protocol's table.
PROTOCOL_HEADINGS = {
    "wmt23": "The WMT23 protocol (Freitag et al. 2023, Table 8; mt-metrics-eval's tasks.WMT23)",
    "wmt24": "The WMT24 protocol on WMT23 (SPA and acc-t; mt-metrics-eval's tasks.WMT24OnWMT23)",
}


def reproduce_command(
    root: str, protocol: str, lps: Sequence[str], options: ExperimentOptions, seed: int
) -> str:
    """The ``mtsig metrics --mtme`` command that prints the same table from the data folder (``root`` under
    ``$MTSIG_DATA``; the protocol's seed, resamples and options of the experiment)."""
    parts = [
        f"mtsig metrics --mtme $MTSIG_DATA/{root} --protocol {protocol} --lps {','.join(lps)}",
        f"--samples {options.samples[protocol]} --seed {seed}",
    ]
    if options.early_stopping != "mtme":
        parts.append(f"--early-stopping {options.early_stopping}")
    if options.spa_arithmetic != "exact":
        parts.append(f"--spa-arithmetic {options.spa_arithmetic}")
    if options.all_metrics:
        parts.append("--all-metrics")
    if options.alpha != 0.05:
        parts.append(f"--alpha {options.alpha:g}")
    return " ".join(parts)


@dataclass(frozen=True)
class ExperimentTables:
    """What a protocol experiment writes (one TSV per frame, each protocol's rows in turn with a ``protocol``
    column first; the MQM golds with ``lp`` first), its Markdown page and its LaTeX tables."""

    tasks: pd.DataFrame
    average: pd.DataFrame
    significance: pd.DataFrame
    replication: pd.DataFrame
    system_scores: pd.DataFrame
    mqm_gold: pd.DataFrame
    mqm_gold_conclusions: pd.DataFrame
    markdown: str
    latex: str


def _first(frame: pd.DataFrame, first: list[str]) -> pd.DataFrame:
    return frame[first + [c for c in frame.columns if c not in first]]


def experiment_tables(
    experiment: ProtocolExperiment, options: ExperimentOptions, *, title: str, root: str
) -> ExperimentTables:
    """The tables of :func:`mtsig.studies.metrics_protocol_beyond.run_experiment`: each protocol's
    :func:`protocol_tables` (its task rows with their bootstrap intervals), per-language-pair p-values and MQM
    golds; the Markdown page (``title``, then each protocol's :func:`protocol_table_markdown` with the command
    that reproduces it from ``root``) and each protocol's :func:`protocol_table_latex`."""
    tasks, average, significance = [], [], []
    markdown, latex = [f"# {title}", ""], []
    for run in experiment.runs:
        name = run.protocol.name
        tables = protocol_tables(run.result)
        task_table = tables["tasks"]
        if run.intervals:
            interval_rows = pd.concat(
                [frame.assign(label=label) for label, frame in run.intervals.items()], ignore_index=True
            )
            task_table = task_table.merge(
                interval_rows.drop(columns="value"), on=["label", "metric"], how="left", validate="one_to_one"
            )
        tasks.append(task_table.assign(protocol=name))
        average.append(tables["average"].assign(protocol=name))
        significance.append(tables["significance"].assign(protocol=name))
        heading = PROTOCOL_HEADINGS.get(name, f"Protocol {name}")
        markdown.append(
            protocol_table_markdown(
                run.result,
                run.intervals,
                heading=heading,
                confidence=options.confidence,
                reproduce=reproduce_command(root, name, run.protocol.lps, options, run.seed),
            )
        )
        latex.append(f"% {heading}\n" + protocol_table_latex(run.result))

    def by_lp(index: int) -> pd.DataFrame:
        frame = pd.concat(
            [parts[index].assign(lp=lp) for lp, parts in zip(experiment.lps, experiment.pairs, strict=True)]
        )
        return _first(frame.reset_index(drop=True), ["lp"])

    return ExperimentTables(
        tasks=_first(pd.concat(tasks, ignore_index=True), ["protocol"]),
        average=_first(pd.concat(average, ignore_index=True), ["protocol"]),
        significance=_first(pd.concat(significance, ignore_index=True), ["protocol"]),
        replication=pd.concat([run.replication for run in experiment.runs], ignore_index=True),
        system_scores=pd.concat([scores for scores, _, _ in experiment.pairs], ignore_index=True),
        mqm_gold=by_lp(1),
        mqm_gold_conclusions=by_lp(2),
        markdown="\n".join(markdown),
        latex="\n".join(latex),
    )
