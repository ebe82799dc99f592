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
from mtsig.settings import MetricsProtocol, ProtocolBootstrap
from mtsig.studies.metrics_protocol import ProtocolResult, RunOptions, TaskResult
from mtsig.studies.metrics_protocol_chance import CHANCE_QUANTILE, ProtocolChance
from mtsig.studies.metrics_protocol_experiment import ProtocolExperiment
from mtsig.studies.metrics_protocol_human import PartialHumanRow
from mtsig.studies.metrics_protocol_power import ProtocolPower


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


def _systems_cell(task: TaskResult) -> str:
    """The number of systems of each language pair of a task: ``en-de 12; he-en 13``."""
    return "; ".join(f"{lp} {len(systems)}" for lp, systems in task.systems.items())


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
            f"{len(task.metrics)} metrics, systems: " + _systems_cell(task)
        )
    for number, task in enumerate(result.extras, start=1):
        lines.append(
            f"x{number}: {task.task.label}, not in the average, {len(task.metrics)} metrics, systems: "
            + _systems_cell(task)
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


#: The p-value above which a value is marked as not above chance in the table (°).
CHANCE_MARK_ALPHA = 0.05


def _human_cell(name: str, task: TaskResult, partial: Sequence[PartialHumanRow]) -> str:
    """The cell of the human score ``name`` in a task's column (:func:`_human_rows`)."""
    cell = "–"
    if name in task.human:
        m = task.metrics.index(name)
        cell = _value_cell(float(task.values[m]), int(task.ranks[m]))
    for part in partial:
        if part.task == task.task.label and part.metric == name:
            cell = f"{part.value:.3f}† ({part.position}/{part.n_metrics})"
    return cell


def _human_rows(
    result: ProtocolResult, labels: list[str], extra_labels: list[str], partial: Sequence[PartialHumanRow]
) -> list[dict[str, object]]:
    """One row per human score entered as a metric: its value and cluster where it scores every cell of a task
    (``labels``) or an extra task (``extra_labels``, the columns with †), ``value† (position/metrics)`` on the cells
    it rates where it scores part of them, ``–`` elsewhere."""
    names = sorted(
        {name for task in result.tasks + result.extras for name in task.human}
        | {row.metric for row in partial}
    )
    columns = list(zip(labels, result.tasks, strict=True)) + list(
        zip(extra_labels, result.extras, strict=True)
    )
    rows = []
    for name in names:
        row: dict[str, object] = {"rank": "–", "metric": name, "kind": "human", "avg": "–"}
        for label, task in columns:
            row[label] = _human_cell(name, task, partial)
        rows.append(row)
    return rows


def _chance_row(
    chance: ProtocolChance, labels: list[str], extras: Sequence[tuple[str, str]]
) -> dict[str, object]:
    """The row of the chance levels: the average's and each task's mean and upper quantile; in the extra columns
    (``extras``: column, task label) a task's chance level where one was computed for that task, else ``–``."""
    row: dict[str, object] = {"rank": "–", "metric": "chance", "kind": "chance"}
    row["avg"] = f"{chance.average.mean:.3f} [{chance.average.upper:.3f}]"
    for label, level in zip(labels, chance.tasks, strict=True):
        row[label] = f"{level.mean:.3f} [{level.upper:.3f}]"
    by_task = chance.by_label()
    for column, task_label in extras:
        level = by_task.get(task_label)
        row[column] = "–" if level is None else f"{level.mean:.3f} [{level.upper:.3f}]"
    return row


def _not_above_chance(chance: ProtocolChance) -> list[str]:
    """Per task (and the average, and each extra task with a chance level), the metrics whose value is not above
    chance (p > :data:`CHANCE_MARK_ALPHA`)."""
    parts = []
    for level in (chance.average, *chance.tasks, *chance.extras):
        weak = sorted((name, p) for name, p in level.pvalues.items() if p > CHANCE_MARK_ALPHA)
        if weak:
            parts.append(f"{level.label}: " + ", ".join(f"{name} (p {p:.3f})" for name, p in weak))
    return parts


def real_size_index(scales: Sequence[float]) -> int | None:
    """The position of the real size (scale 1) among a power study's ``scales``, None when it is not one."""
    return list(scales).index(1.0) if 1.0 in scales else None


def _scale_text(scale: float) -> str:
    """A test-set size as a multiple of the real one: ``1/8`` below 1, ``1024`` from 1."""
    return f"{scale:g}" if scale >= 1 else f"1/{1 / scale:g}"


def _ordinal(number: float) -> str:
    """``95th``, ``99th``, ``1st``, ``97.5th``."""
    if number != int(number):
        return f"{number:g}th"
    n = int(number)
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def power_markdown(power: ProtocolPower) -> list[str]:
    """The power and stability section of a protocol's page: every task's stability and the average's, and the
    pairs named in the configuration with each task's top pair (the full lists are power.tsv and stability.tsv)."""
    scales = list(power.scales)
    at_real = real_size_index(scales)
    stability = pd.DataFrame(
        [
            {
                "task": s.task,
                "winner": s.winner,
                "P(same winner)": f"{s.p_winner:.2f}",
                "cluster 1": ", ".join(s.cluster),
                "P(same cluster 1)": f"{s.p_cluster:.2f}",
                "units": s.n_units,
            }
            for s in power.stability
        ]
    )
    named = [pair for pair in power.pairs if pair.chosen == "named"]
    firsts = {}
    for pair in power.pairs:  # each task's first pair of the ranking, unless named
        if pair.task not in firsts:
            firsts[pair.task] = pair
    shown = named + [pair for pair in firsts.values() if pair.chosen == "next"]
    pairs = pd.DataFrame(
        [
            {
                "task": pair.task,
                "pair": f"{pair.higher} > {pair.lower}",
                "Δ": f"{pair.delta:.4f}",
                "p": f"{pair.p_value:.3f}",
                "power at real size": "" if at_real is None else f"{pair.power[at_real]:.2f}",
                f"units for {power.target:.0%} power": _size_cell(pair.n_target, max(scales) * pair.n_units),
                "× real": _size_cell(pair.scale_target, max(scales), digits=2),
            }
            for pair in shown
        ]
    )
    return [
        "### Power and stability",
        "",
        f"How often a re-drawn test set of the real size keeps each task's winner and its cluster 1 "
        f"({power.stability_sets} test sets drawn with replacement from the real units: items for a segment-level "
        "task, systems for a system-level one; the stable ranking probability of Riley et al. 2024 for these two "
        "conclusions), and the average's, the table's ranking (each language pair's items and systems drawn once "
        "for all its tasks):",
        "",
        frame_to_markdown(stability),
        "",
        f"The power of each task's own permutation test (α = {power.alpha:g}) on test sets of "
        f"{_scale_text(min(scales))} to {_scale_text(max(scales))} times "
        f"the real number of units ({power.n_sets} per size), and the number of units that reaches "
        f"{power.target:.0%} power (interpolated; `>` beyond {_scale_text(max(scales))} times): the pairs named in "
        "the configuration and "
        "each task's first two metrics (every metric against the next: power.tsv); docs/statistics.md, \"Power and "
        'stability".',
        "",
        frame_to_markdown(pairs),
        "",
    ]


def _size_cell(value: float, largest: float, digits: int = 0) -> str:
    if not np.isfinite(value):
        return f"> {largest:.{digits}f}"
    return f"{value:.{digits}f}"


def protocol_table_markdown(
    result: ProtocolResult,
    intervals: dict[str, pd.DataFrame] | None = None,
    *,
    heading: str,
    confidence: float = ProtocolBootstrap.confidence,
    reproduce: str | None = None,
    chance: ProtocolChance | None = None,
    partial_human: Sequence[PartialHumanRow] = (),
    power: ProtocolPower | None = None,
) -> str:
    """A protocol's table in Markdown, Table 8's layout (Freitag et al. 2023): one row per metric in order of the
    weighted average, its cluster, its kind (baseline or primary), the average, then each task's value and
    cluster; human scores entered as metrics and the ``chance`` levels as rows of their own, a value not above
    chance marked ``°``; the tasks (weight, metrics, systems); with ``intervals`` (task label -> ``metric, ci_low,
    ci_high`` rows) every value's bootstrap interval in a second table; the ``power`` and stability section; the
    signature and ``reproduce`` (a command) last."""
    cells = _task_cells(result)
    labels = [task.task.label for task in result.tasks]
    extra_cells = _task_cells(result, extras=True)
    extra_labels = [f"{task.task.label} †" for task in result.extras]
    by_task = {} if chance is None else chance.by_label()
    extra_levels = [by_task.get(task.task.label) for task in result.extras]
    rows = []
    for name, average, rank in zip(result.metrics, result.average, result.ranks, strict=True):
        mark = chance is not None and chance.average.pvalues[name] > CHANCE_MARK_ALPHA
        row = {
            "rank": int(rank),
            "metric": name,
            "kind": metric_kind(name, result),
            "avg": _value_cell(average) + ("°" if mark else ""),
        }
        for k, (label, task) in enumerate(zip(labels, cells, strict=True)):
            value, task_rank = task[name]
            mark = chance is not None and chance.tasks[k].pvalues[name] > CHANCE_MARK_ALPHA
            row[label] = _value_cell(value, task_rank) + ("°" if mark else "")
        for label, task, level in zip(extra_labels, extra_cells, extra_levels, strict=True):
            mark = level is not None and name in task and level.pvalues[name] > CHANCE_MARK_ALPHA
            row[label] = (_value_cell(*task[name]) + ("°" if mark else "")) if name in task else "–"
        rows.append(row)
    rows += _human_rows(result, labels, extra_labels, partial_human)
    if chance is not None:
        extra_tasks = [task.task.label for task in result.extras]
        rows.append(_chance_row(chance, labels, list(zip(extra_labels, extra_tasks, strict=True))))
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
    ]
    if any(task.human for task in result.tasks) or partial_human:
        lines += [
            "Rows `human:<name>`: another human score of the test set entered as a metric against the gold, with its "
            "cluster where it scores every cell of a task (tested against every metric; the metrics' clusters are "
            "computed without it), `value† (position/metrics)` where it scores only part of them (every metric "
            "recomputed on the cells it rates, no test), `–` where the test set has none; not in the average, which "
            "needs every task.",
            "",
        ]
    if chance is not None:
        lines += [
            f"Row `chance`: the mean and [{_ordinal(round(CHANCE_QUANTILE * 100, 6))} percentile] of each task's "
            "statistic for the table's metrics with their systems relabelled, documents exchanged within a domain "
            f"and segments reordered within a document ({chance.n_draws} draws per metric, the same in every task "
            f"of a language pair); `°`: not above chance, the value not above the metric's own draws (p > "
            f'{CHANCE_MARK_ALPHA:g}). docs/statistics.md, "Chance levels".',
            "",
        ]
        weak = _not_above_chance(chance)
        if weak:
            lines += ["Not above chance: " + "; ".join(weak) + ".", ""]
    lines += [
        "| task | weight | metrics | systems |",
        "| --- | ---: | ---: | --- |",
    ]
    for task, weight in zip(result.tasks, result.protocol.weights, strict=True):
        lines.append(f"| {task.task.label} | {weight:.4g} | {len(task.metrics)} | {_systems_cell(task)} |")
    for task in result.extras:
        lines.append(f"| {task.task.label} † | not averaged | {len(task.metrics)} | {_systems_cell(task)} |")
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
    if power is not None:
        lines += power_markdown(power)
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
    """One WMT-style heatmap per tested task and for the average
    (:func:`mtsig.report.plots.significance_heatmap_figure`: metrics in ranking order, a cell coloured where the
    row metric beats the column metric at the protocol's alpha, darker at 0.01 and 0.001, p printed), as
    ``<directory>/<heatmap_name>.png``; none without resamples. PNGs at ``dpi`` (100, as the Williams heatmaps: a
    32-metric matrix is about 1400 pixels wide)."""
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


def power_figure_name(protocol: str) -> str:
    """The file stem of a protocol's power figure: ``power_wmt23``."""
    return f"power_{protocol}".lower()


def power_figure(
    power: ProtocolPower, protocol: str, directory: str | Path, *, dpi: float = 100
) -> list[Path]:
    """Figure: for every task (a row) the test-set size that gives each chosen pair of metrics the target power,
    as a multiple of the real size (log scale; a pair beyond the largest size studied drawn at it as ``>``): every
    metric against the next in grey, the pairs named in the configuration in colour; a line at the real size."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mtsig.report.plots import STYLE, save_figure

    tasks = list(dict.fromkeys(pair.task for pair in power.pairs))
    named = list(dict.fromkeys((pair.higher, pair.lower) for pair in power.pairs if pair.chosen == "named"))
    largest = max(power.scales)
    with matplotlib.rc_context(STYLE):
        figure, axis = plt.subplots(figsize=(7.0, 0.8 + 0.38 * len(tasks)))
        colours = plt.get_cmap("tab10")(np.arange(max(len(named), 1)))
        for row, task in enumerate(tasks):
            for pair in power.pairs:
                if pair.task != task:
                    continue
                beyond = not np.isfinite(pair.scale_target)
                x = largest if beyond else pair.scale_target
                if pair.chosen == "next":
                    axis.plot(x, row, ">" if beyond else "o", color="0.6", markersize=3.5, alpha=0.8)
                else:
                    k = named.index((pair.higher, pair.lower))
                    axis.plot(x, row, ">" if beyond else "D", color=colours[k], markersize=6, zorder=3)
        for k, (higher, lower) in enumerate(named):
            axis.plot([], [], "D", color=colours[k], label=f"{higher} > {lower}")
        axis.plot([], [], "o", color="0.6", label="each metric > the next")
        axis.axvline(1.0, color="black", linewidth=0.8, linestyle="--", label="the real size")
        axis.set_xscale("log")
        axis.set_xlim(min(power.scales) / 1.5, largest * 1.5)
        axis.set_yticks(range(len(tasks)), tasks)
        axis.invert_yaxis()
        axis.set_xlabel(f"test-set size for {power.target:.0%} power (multiple of the real number of units)")
        axis.set_title(
            f"{protocol.upper()}: how large a test set separates two metrics (α = {power.alpha:g})"
        )
        axis.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12 - 0.6 / (1 + len(tasks))), ncols=2,
                    frameon=False, fontsize="small")  # fmt: skip
        path = Path(directory) / f"{power_figure_name(protocol)}.png"
        return save_figure(figure, [path], dpi=dpi, bbox_inches="tight")


# ------------------------------------------------------------------------------------------------ an experiment's

#: The heading of each known protocol's table.
PROTOCOL_HEADINGS = {
    "wmt23": "The WMT23 protocol (Freitag et al. 2023, Table 8; mt-metrics-eval's tasks.WMT23)",
    "wmt24": "The WMT24 protocol on WMT23 (SPA and acc-t; mt-metrics-eval's tasks.WMT24OnWMT23)",
}


def reproduce_command(
    root: str,
    protocol: str,
    lps: Sequence[str],
    settings: MetricsProtocol,
    seed: int,
    gold: str | None = None,
) -> str:
    """The ``mtsig metrics --mtme`` command that prints the same table from the data folder (``root`` under
    ``$MTSIG_DATA``; the protocol's seed, and the resamples and options of the experiment's ``settings`` that are
    not the command's defaults, :class:`mtsig.studies.metrics_protocol.RunOptions`)."""
    parts = [
        f"mtsig metrics --mtme $MTSIG_DATA/{root} --protocol {protocol} --lps {','.join(lps)}",
        f"--samples {settings.protocols[protocol].samples} --seed {seed}",
    ]
    if settings.early_stopping != RunOptions.early_stopping:
        parts.append(f"--early-stopping {settings.early_stopping}")
    if settings.spa_arithmetic != RunOptions.spa_arithmetic:
        parts.append(f"--spa-arithmetic {settings.spa_arithmetic}")
    if settings.all_metrics:
        parts.append("--all-metrics")
    if gold is not None:
        parts.append(f"--gold {gold}")
    if settings.human_metrics:
        parts.append(f"--human-metrics {','.join(settings.human_metrics)}")
    if settings.alpha != RunOptions.alpha:
        parts.append(f"--alpha {settings.alpha:g}")
    return " ".join(parts)


@dataclass(frozen=True)
class ExperimentTables:
    """What a protocol experiment writes (one TSV per frame, each protocol's rows in turn with a ``protocol``
    column first; the MQM golds with ``lp`` first), its Markdown page and its LaTeX tables; the chance levels, the
    human scores on part of a task's cells, the power of the chosen pairs (summary and curves) and the stability
    (:func:`study_tables`)."""

    tasks: pd.DataFrame
    average: pd.DataFrame
    significance: pd.DataFrame
    replication: pd.DataFrame
    system_scores: pd.DataFrame
    mqm_gold: pd.DataFrame
    mqm_gold_conclusions: pd.DataFrame
    markdown: str
    latex: str
    chance: pd.DataFrame
    human: pd.DataFrame
    power: pd.DataFrame
    power_curves: pd.DataFrame
    stability: pd.DataFrame


def _first(frame: pd.DataFrame, first: list[str]) -> pd.DataFrame:
    return frame[first + [c for c in frame.columns if c not in first]]


#: Columns of the tables of :func:`study_tables`.
CHANCE_COLUMNS = ["protocol", "task", "samples", "mean", "upper_95"]
HUMAN_COLUMNS = ["protocol", "task", "metric", "value", "position", "metrics", "share_of_cells"]
POWER_COLUMNS = [
    "protocol", "task", "metric_a", "metric_b", "chosen", "delta", "p_value", "units", "power_at_real_size",
    "units_for_target", "scale_for_target", "target",
]  # fmt: skip
CURVE_COLUMNS = ["protocol", "task", "metric_a", "metric_b", "scale", "units", "power"]
STABILITY_COLUMNS = [
    "protocol",
    "task",
    "winner",
    "p_winner",
    "cluster_1",
    "p_cluster_1",
    "units",
    "test_sets",
]


def study_tables(experiment: ProtocolExperiment) -> dict[str, pd.DataFrame]:
    """The chance levels (``chance``: per protocol and task, and ``average``), the human scores on part of a task's
    cells (``human``), the power of every chosen pair (``power``, with ``metric_a`` ranked above ``metric_b``; inf:
    beyond the largest size) and at every size (``power_curves``), and the stability (``stability``)."""
    chance, human, power, curves, stability = [], [], [], [], []
    for run in experiment.runs:
        name = run.protocol.name
        if run.chance is not None:
            for level in (*run.chance.tasks, *run.chance.extras, run.chance.average):
                chance.append([name, level.label, run.chance.n_draws, level.mean, level.upper])
        for row in run.partial_human:
            human.append([name, row.task, row.metric, row.value, row.position, row.n_metrics, row.share])
        if run.power is not None:
            scales = list(run.power.scales)
            real = real_size_index(scales)
            for pair in run.power.pairs:
                power.append([
                    name, pair.task, pair.higher, pair.lower, pair.chosen, pair.delta, pair.p_value, pair.n_units,
                    np.nan if real is None else float(pair.power[real]), pair.n_target, pair.scale_target,
                    run.power.target,
                ])  # fmt: skip
                curves += [
                    [name, pair.task, pair.higher, pair.lower, scale, scale * pair.n_units, float(value)]
                    for scale, value in zip(scales, pair.power, strict=True)
                ]
            for s in run.power.stability:
                stability.append(
                    [
                        name,
                        s.task,
                        s.winner,
                        s.p_winner,
                        ",".join(s.cluster),
                        s.p_cluster,
                        s.n_units,
                        s.n_sets,
                    ]
                )
    return {
        "chance": pd.DataFrame(chance, columns=CHANCE_COLUMNS),
        "human": pd.DataFrame(human, columns=HUMAN_COLUMNS),
        "power": pd.DataFrame(power, columns=POWER_COLUMNS),
        "power_curves": pd.DataFrame(curves, columns=CURVE_COLUMNS),
        "stability": pd.DataFrame(stability, columns=STABILITY_COLUMNS),
    }


def experiment_tables(
    experiment: ProtocolExperiment,
    settings: MetricsProtocol,
    *,
    title: str,
    root: str,
    gold: str | None = None,
) -> ExperimentTables:
    """The tables of :func:`mtsig.studies.metrics_protocol_experiment.run_experiment`: each protocol's
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
        average_table = tables["average"]
        if run.chance is not None:
            # an extra task without a chance level (tie calibration on a sample of pairs): NaN
            by_task = {label: level.pvalues for label, level in run.chance.by_label().items()}
            task_table = task_table.assign(
                chance_p=[by_task.get(label, {}).get(metric, np.nan) for label, metric in zip(
                    task_table["label"], task_table["metric"], strict=True)]
            )  # fmt: skip
            average_table = average_table.assign(
                chance_p=[run.chance.average.pvalues[m] for m in average_table["metric"]]
            )
        tasks.append(task_table.assign(protocol=name))
        average.append(average_table.assign(protocol=name))
        significance.append(tables["significance"].assign(protocol=name))
        heading = PROTOCOL_HEADINGS.get(name, f"Protocol {name}")
        if gold is not None:
            heading += f", with {gold} as the gold"
        markdown.append(
            protocol_table_markdown(
                run.result,
                run.intervals,
                heading=heading,
                confidence=settings.bootstrap.confidence,
                reproduce=reproduce_command(root, name, run.protocol.lps, settings, run.seed, gold=gold),
                chance=run.chance,
                partial_human=run.partial_human,
                power=run.power,
            )
        )
        latex.append(f"% {heading}\n" + protocol_table_latex(run.result))

    def by_lp(index: int) -> pd.DataFrame:
        frame = pd.concat(
            [parts[index].assign(lp=lp) for lp, parts in zip(experiment.lps, experiment.pairs, strict=True)]
        )
        return _first(frame.reset_index(drop=True), ["lp"])

    studies = study_tables(experiment)
    return ExperimentTables(
        **studies,
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
