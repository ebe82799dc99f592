"""A protocol run's table as text, LaTeX, a JSON-ready dict and tidy tables (:mod:`mtsig.studies.metrics_protocol`):
the layout of the WMT23 findings' Table 8 (Freitag et al. 2023): one row per metric in order of the weighted
average, its cluster rank, then each task's value and rank, then the protocol's extra tasks (not in the average; the
WMT23 protocol's PDP, DiIanni & Deutsch 2025). Functions return strings, dicts or frames."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from mtsig import __version__
from mtsig.report.tables import latex_escape
from mtsig.studies.metrics_protocol import ProtocolResult, TaskResult


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
