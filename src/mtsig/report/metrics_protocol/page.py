"""A protocol's page in Markdown (:func:`protocol_table_markdown`), built section by section: the table of metrics
(their rows, the human scores entered as metrics, the chance levels), its notes, the tasks, the bootstrap intervals,
power and stability, the signature."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from mtsig.report.metrics_protocol.formats import _systems_cell, _task_cells, protocol_signature
from mtsig.report.tables import frame_to_markdown
from mtsig.settings import ProtocolBootstrap
from mtsig.studies.metrics_protocol import ProtocolResult, TaskResult
from mtsig.studies.metrics_protocol.chance import CHANCE_QUANTILE, ProtocolChance
from mtsig.studies.metrics_protocol.human import PartialHumanRow
from mtsig.studies.metrics_protocol.power import ProtocolPower


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


def _metric_rows(result: ProtocolResult, chance: ProtocolChance | None) -> list[dict[str, object]]:
    """One row per metric of the average, in its order: its cluster, kind and average, then each task's value and
    cluster and each extra task's (``–`` where it has none); a value not above chance marked ``°``."""
    cells, extra_cells = _task_cells(result), _task_cells(result, extras=True)
    labels, extra_labels = _column_labels(result)
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
    return rows


def _column_labels(result: ProtocolResult) -> tuple[list[str], list[str]]:
    """The columns of the tasks (their labels) and of the extra tasks (their labels with †)."""
    return [task.task.label for task in result.tasks], [f"{task.task.label} †" for task in result.extras]


def _metrics_table(
    result: ProtocolResult, chance: ProtocolChance | None, partial_human: Sequence[PartialHumanRow]
) -> list[str]:
    """The table of metrics with the paragraph that reads it: the metrics' rows, then the human scores entered as
    metrics and the chance levels, rows of their own."""
    labels, extra_labels = _column_labels(result)
    rows = _metric_rows(result, chance)
    rows += _human_rows(result, labels, extra_labels, partial_human)
    if chance is not None:
        extra_tasks = [task.task.label for task in result.extras]
        rows.append(_chance_row(chance, labels, list(zip(extra_labels, extra_tasks, strict=True))))
    return [
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


def _human_note(result: ProtocolResult, partial_human: Sequence[PartialHumanRow]) -> list[str]:
    """What the rows ``human:<name>`` show, when there are any."""
    if not (any(task.human for task in result.tasks) or partial_human):
        return []
    return [
        "Rows `human:<name>`: another human score of the test set entered as a metric against the gold, with its "
        "cluster where it scores every cell of a task (tested against every metric; the metrics' clusters are "
        "computed without it), `value† (position/metrics)` where it scores only part of them (every metric "
        "recomputed on the cells it rates, no test), `–` where the test set has none; not in the average, which "
        "needs every task.",
        "",
    ]


def _chance_note(chance: ProtocolChance | None) -> list[str]:
    """What the row ``chance`` and the mark ``°`` show, and the values not above chance."""
    if chance is None:
        return []
    lines = [
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
    return lines


def _tasks_table(result: ProtocolResult) -> list[str]:
    """The tasks: each one's weight, number of metrics and systems per language pair."""
    lines = [
        "| task | weight | metrics | systems |",
        "| --- | ---: | ---: | --- |",
    ]
    for task, weight in zip(result.tasks, result.protocol.weights, strict=True):
        lines.append(f"| {task.task.label} | {weight:.4g} | {len(task.metrics)} | {_systems_cell(task)} |")
    for task in result.extras:
        lines.append(f"| {task.task.label} † | not averaged | {len(task.metrics)} | {_systems_cell(task)} |")
    lines.append("")
    return lines


def _interval_rows(result: ProtocolResult, intervals: dict[str, pd.DataFrame]) -> list[dict[str, str]]:
    """One row per metric: each task's value with its interval ``value [low, high]`` (the value alone where the task
    has no interval of it, ``–`` where the task has no such metric)."""
    labels = [task.task.label for task in result.tasks]
    by_task = {label: frame.set_index("metric") for label, frame in intervals.items()}
    columns = list(zip(labels, _task_cells(result), strict=True))
    columns += [
        (t.task.label, c) for t, c in zip(result.extras, _task_cells(result, extras=True), strict=True)
    ]
    rows = []
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
        rows.append(row)
    return rows


def _intervals_section(
    result: ProtocolResult, intervals: dict[str, pd.DataFrame] | None, confidence: float
) -> list[str]:
    """Every task value with its bootstrap interval (none without intervals)."""
    if not intervals:
        return []
    return [
        f"### Each task value with its {confidence:.0%} bootstrap interval",
        "",
        "Percentile intervals (Deutsch, Dror & Roth 2021, Sec. 3.1): the systems of each language pair drawn "
        "with replacement for the system-level tasks (BOOT-SYSTEMS; a pair of copies of one system left out), "
        "the rated segments for the segment-level ones (BOOT-INPUTS; acc-t at each metric's calibrated "
        'epsilon); docs/statistics.md, "Bootstrap intervals of the task values".',
        "",
        frame_to_markdown(pd.DataFrame(_interval_rows(result, intervals))),
        "",
    ]


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
    lines = [f"## {heading}", ""]
    lines += _metrics_table(result, chance, partial_human)
    lines += _human_note(result, partial_human)
    lines += _chance_note(chance)
    lines += _tasks_table(result)
    lines += _intervals_section(result, intervals, confidence)
    if power is not None:
        lines += power_markdown(power)
    lines.append(f"Signature: `{protocol_signature(result)}`")
    if reproduce:
        lines += ["", f"The same table from the data folder: `{reproduce}`"]
    return "\n".join(lines) + "\n"
