"""Human scores as metrics where they score only part of a task's cells (:func:`partial_human_rows`).

A human score entered as a metric (``human_metrics``; :func:`mtsig.studies.metrics_protocol.run_task`) joins a task
when it scores every cell the task uses, and is then tested against every metric. WMT23's DA+SQM rates only part of
what MQM rates in zh-en (three quarters of the segment-level cells): there it is compared on the cells it rates, with
every metric's statistic recomputed on the same cells (the gold left out elsewhere; for SPA whole segments, since
SPA needs every system rated on the same segments), without permutation tests: its value and its position among the
metrics on those cells.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mtsig.io.mtme import LevelScores
from mtsig.studies.metrics_protocol import (
    ProtocolData,
    RunOptions,
    ScoreKey,
    TaskResult,
    file_level,
    gold_of,
    run_task,
    task_human_metrics,
    task_systems,
)


@dataclass(frozen=True)
class PartialHumanRow:
    """A human score on the cells it rates of a task: its ``value``, its ``position`` (1 = best) among the task's
    ``n_metrics`` metrics and itself recomputed on those cells, and the ``share`` of the task's cells it rates."""

    task: str
    metric: str
    value: float
    position: int
    n_metrics: int
    share: float


def restricted_gold(
    gold: LevelScores, other: LevelScores, systems: Sequence[str], whole_segments: bool
) -> tuple[LevelScores, float]:
    """``(gold', share)``: the gold with the cells of ``systems`` that ``other`` does not score left out (NaN; with
    ``whole_segments``, every cell of a segment where one of them is missing), and the share of the gold's rated
    cells of ``systems`` kept."""
    values = gold.values.copy()
    index = {name: row for row, name in enumerate(gold.systems)}
    rows = [index[name] for name in systems]
    theirs = np.full((len(systems), values.shape[1]), np.nan)
    other_index = {name: row for row, name in enumerate(other.systems)}
    for k, name in enumerate(systems):
        if name in other_index:
            theirs[k] = other.values[other_index[name]]
    before = np.isfinite(values[rows])
    keep = before & np.isfinite(theirs)
    if whole_segments:  # a segment stays only where every system keeps its cell (keep implies before)
        keep &= keep.all(axis=0, keepdims=True)
    values[rows] = np.where(keep, values[rows], np.nan)
    share = float(keep.sum() / max(before.sum(), 1))
    return LevelScores(gold.systems, values, gold.path), share


def partial_human_rows(
    data: ProtocolData,
    options: RunOptions,
    *,
    cache: dict[tuple, PartialHumanRow] | None = None,
) -> list[PartialHumanRow]:
    """For every task of one language pair and human score of ``options.human_metrics`` that the test set has there
    but that did not join the task (it misses cells), its :class:`PartialHumanRow` (module docstring; the task's
    metrics and SPA's arithmetic as ``options`` says). ``cache``: rows of an earlier protocol's same tasks."""
    result, test_sets, scores = data.result, data.test_sets, data.scores
    rows = []
    for task_result in result.tasks:
        task = task_result.task
        if len(task.lps) != 1:
            continue
        (lp,) = task.lps
        level = file_level(task)
        gold = ScoreKey(lp, "human", gold_of(task, result.protocol.info, lp), level)
        present = task_human_metrics(test_sets[lp], level, options.human_metrics, gold.name)
        for shown, name in present.items():
            if shown in task_result.metrics:
                continue
            key = (task, name)
            if cache is not None and key in cache:
                rows.append(cache[key])
                continue
            systems = task_systems(test_sets[lp], result.protocol.info, task, scores[gold])
            other = scores[ScoreKey(lp, "human", name, level)]
            restricted, share = restricted_gold(
                scores[gold], other, systems, task.statistic_spec.whole_segments
            )
            narrowed = {**scores, gold: restricted}
            again = run_task(task, result.protocol, test_sets, narrowed, _values_alone(options, name))
            row = _position_row(again, shown, share)
            if cache is not None:
                cache[key] = row
            rows.append(row)
    return rows


def _values_alone(options: RunOptions, name: str) -> RunOptions:
    """The options of a task's values alone, as the task's, with the human score ``name`` among its metrics (no
    test: seed, alpha and early stopping play no part)."""
    return RunOptions(
        spa_arithmetic=options.spa_arithmetic,
        all_metrics=options.all_metrics,
        always=options.always,
        human_metrics=(name,),
    )


def _position_row(again: TaskResult, shown: str, share: float) -> PartialHumanRow:
    """The :class:`PartialHumanRow` of the metric ``shown`` in the task's result ``again`` on the cells it rates."""
    index = again.metrics.index(shown)
    position = list(again.order).index(index) + 1
    return PartialHumanRow(
        again.task.label, shown, float(again.values[index]), position, len(again.metrics), share
    )
