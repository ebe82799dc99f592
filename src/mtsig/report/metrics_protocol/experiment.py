"""What a protocol experiment of the pipeline writes (:func:`experiment_tables`): each protocol's tidy tables with
their bootstrap intervals and chance p-values, the studies' tables, the Markdown page with the command that
reproduces each table, and the LaTeX tables."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mtsig.report.metrics_protocol.formats import protocol_table_latex, protocol_tables
from mtsig.report.metrics_protocol.page import protocol_table_markdown, real_size_index
from mtsig.report.metrics_protocol.rank_sets import metric_rank_sets_frame, metric_rank_sets_markdown
from mtsig.settings import MetricsProtocol, ProtocolOptions
from mtsig.studies.metrics_protocol.experiment import ProtocolExperiment

#: The heading of each known protocol's table.
PROTOCOL_HEADINGS = {
    "wmt23": "The WMT23 protocol (Freitag et al. 2023, Table 8; mt-metrics-eval's tasks.WMT23)",
    "wmt24": "The WMT24 protocol on WMT23 (SPA and acc-t; mt-metrics-eval's tasks.WMT24OnWMT23)",
}


def reproduce_command(settings: MetricsProtocol, protocol: str, lps: Sequence[str], seed: int) -> str:
    """The ``mtsig metrics --mtme`` command that prints the same table of ``protocol`` on ``lps`` from the data
    folder (the experiment's ``root`` under ``$MTSIG_DATA``; the protocol's seed, and the resamples and options of
    the experiment's ``settings`` that are not the command's defaults, :class:`mtsig.settings.ProtocolOptions`)."""
    parts = [
        f"mtsig metrics --mtme $MTSIG_DATA/{settings.root} --protocol {protocol} --lps {','.join(lps)}",
        f"--samples {settings.protocols[protocol].samples} --seed {seed}",
    ]
    if settings.early_stopping != ProtocolOptions.early_stopping:
        parts.append(f"--early-stopping {settings.early_stopping}")
    if settings.spa_arithmetic != ProtocolOptions.spa_arithmetic:
        parts.append(f"--spa-arithmetic {settings.spa_arithmetic}")
    if settings.all_metrics:
        parts.append("--all-metrics")
    if settings.gold is not None:
        parts.append(f"--gold {settings.gold}")
    if settings.human_metrics:
        parts.append(f"--human-metrics {','.join(settings.human_metrics)}")
    if settings.alpha != ProtocolOptions.alpha:
        parts.append(f"--alpha {settings.alpha:g}")
    return " ".join(parts)


@dataclass(frozen=True)
class ExperimentTables:
    """What a protocol experiment writes (one TSV per frame, each protocol's rows in turn with a ``protocol``
    column first; the MQM golds with ``lp`` first), its Markdown page and its LaTeX tables; the chance levels, the
    human scores on part of a task's cells, the power of the chosen pairs (summary and curves), the stability and
    the metrics' rank sets (:func:`study_tables`)."""

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
    rank_sets: pd.DataFrame


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
    beyond the largest size) and at every size (``power_curves``), the stability (``stability``) and the metrics'
    rank sets (``rank_sets``: :func:`mtsig.report.metrics_protocol.rank_sets.metric_rank_sets_frame`)."""
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
        "rank_sets": metric_rank_sets_frame(experiment.runs),
    }


def experiment_tables(
    experiment: ProtocolExperiment,
    settings: MetricsProtocol,
    *,
    title: str,
    experiment_name: str = "<experiment>",
) -> ExperimentTables:
    """The tables of :func:`mtsig.studies.metrics_protocol.experiment.run_experiment` with the experiment's
    ``settings``: each protocol's :func:`protocol_tables` (its task rows with their bootstrap intervals),
    per-language-pair p-values and MQM golds; the Markdown page (``title``, then each protocol's
    :func:`protocol_table_markdown` with the command that reproduces it from the data folder, then "Which metrics
    could be first?" naming the files of ``experiment_name``) and each protocol's :func:`protocol_table_latex`."""
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
        if settings.gold is not None:
            heading += f", with {settings.gold} as the gold"
        markdown.append(
            protocol_table_markdown(
                run.result,
                run.intervals,
                heading=heading,
                confidence=settings.bootstrap.confidence,
                reproduce=reproduce_command(settings, name, run.protocol.lps, run.seed),
                chance=run.chance,
                partial_human=run.partial_human,
                power=run.power,
            )
        )
        latex.append(f"% {heading}\n" + protocol_table_latex(run.result))

    markdown += metric_rank_sets_markdown(experiment.runs, experiment_name)

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
