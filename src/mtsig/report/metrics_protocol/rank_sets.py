"""Which metrics could be first? A protocol's confidence sets for the metrics' ranks
(:mod:`mtsig.studies.metrics_protocol.rank_sets`): in an experiment, its tidy table (:func:`metric_rank_sets_frame`),
the page's section (:func:`metric_rank_sets_markdown`) and its figure (:func:`metric_rank_sets_figure`, in the style
of csranks's plot: :mod:`mtsig.report.rank_set_plots`); in ``mtsig metrics --mtme --rank-sets``, its text, JSON and
LaTeX (:func:`metric_rank_sets_text`, :func:`metric_rank_sets_json`, :func:`metric_rank_sets_latex`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from mtsig.report.human_ranking import rank_set_columns
from mtsig.report.signature import format_level
from mtsig.report.tables import frame_to_markdown
from mtsig.stats.rank_sets.summary import rank_sets_table
from mtsig.studies.metrics_protocol.experiment import ProtocolRun
from mtsig.studies.metrics_protocol.rank_sets import AVERAGE, MetricRankSets, ScopeRankSets

#: Columns of ``rank_sets.tsv``: per protocol and scope (``average`` or a task's label), one row per metric, best
#: first; ``units`` resampled, ``draws`` used (those with an undefined value left out).
RANK_SET_COLUMNS = [
    "protocol", "scope", "metric", "estimate", "rank", "marginal_lower", "marginal_upper", "simultaneous_lower",
    "simultaneous_upper", "could_be_first", "units", "draws",
]  # fmt: skip
#: The figure's file name under the experiment's figures folder.
FIGURE_NAME = "rank_sets.png"


def metric_rank_sets_frame(runs: Sequence[ProtocolRun]) -> pd.DataFrame:
    """:data:`RANK_SET_COLUMNS`: every protocol's rank sets, the average's first, then each task's
    (:class:`~mtsig.studies.metrics_protocol.rank_sets.MetricRankSets`); empty without rank sets."""
    frames = []
    for run in runs:
        if run.rank_sets is None:
            continue
        for scope in run.rank_sets.scopes:
            table = rank_sets_table(scope.sets).rename(columns={"system": "metric", "top": "could_be_first"})
            frames.append(
                table.assign(
                    protocol=run.protocol.name,
                    scope=scope.scope,
                    units=scope.sets.n_units,
                    draws=scope.sets.n_draws,
                )
            )
    if not frames:
        return pd.DataFrame(columns=RANK_SET_COLUMNS)
    return pd.concat(frames, ignore_index=True)[RANK_SET_COLUMNS]


def _cluster_one(run: ProtocolRun, scope: str) -> int | None:
    """How many metrics the protocol's permutation tests put in cluster 1 of ``scope`` (human scores entered as
    metrics left out), or None without tests."""
    result = run.result
    if scope == AVERAGE:
        return int((result.ranks == 1).sum()) if result.n_resamples else None
    task = next(t for t in result.tasks if t.task.label == scope)
    if task.test is None:
        return None
    return sum(1 for m, name in enumerate(task.metrics) if name not in task.human and task.ranks[m] == 1)


def first_place_summary(runs: Sequence[ProtocolRun]) -> pd.DataFrame:
    """Per protocol and scope (the average, then each task): its metrics, how many could be first (the τ-best
    set, τ = 1) and how many the protocol's permutation tests put in cluster 1."""
    rows = []
    for run in runs:
        if run.rank_sets is None:
            continue
        for scope in run.rank_sets.scopes:
            cluster = _cluster_one(run, scope.scope)
            rows.append(
                [run.protocol.name, scope.scope, len(scope.sets.systems), len(scope.sets.members),
                 "" if cluster is None else str(cluster)]
            )  # fmt: skip
    return pd.DataFrame(rows, columns=["Protocol", "Scope", "Metrics", "Could be first", "Cluster 1"])


def average_table(run: ProtocolRun, sets: MetricRankSets) -> pd.DataFrame:
    """The average's metrics, best first: the average, its rank, marginal and simultaneous sets, whether it could
    be first and its cluster in the protocol's table."""
    table = rank_sets_table(sets.average.sets)
    cluster = dict(zip(run.result.metrics, run.result.ranks.tolist(), strict=True))
    return pd.DataFrame(
        {
            "Metric": table["system"].to_numpy(),
            "Average": [f"{v:.4f}" for v in table["estimate"]],
            **rank_set_columns(table, table["top"]),
            "Cluster": [str(cluster[m]) for m in table["system"]],
        }
    )


def metric_rank_sets_markdown(runs: Sequence[ProtocolRun], experiment: str) -> list[str]:
    """The section "Which metrics could be first?" (none without rank sets): what the sets are and how they were
    drawn, the summary of every scope (:func:`first_place_summary`), and each protocol's average
    (:func:`average_table`)."""
    with_sets = [run for run in runs if run.rank_sets is not None]
    if not with_sets:
        return []
    first = with_sets[0].rank_sets.average.sets
    level = format_level(first.coverage)
    parts = [
        "\n## Which metrics could be first?\n\nConfidence sets for ranks with guaranteed coverage (Mogstad, Romano, "
        'Shaikh & Wilhelm 2023; the sets of the R package csranks; docs/statistics.md, "Rank sets in the commands '
        f"and the default run\") of every metric's weighted average, the table's ranking, and of each task value, from "
        f"{first.n_draws} bootstrap draws of test sets in which each language pair's systems and items are drawn "
        "once for all its tasks, every metric scored on the same draw. *Could be first*: the τ-best set for τ = 1, "
        f"which holds the truly best metric with probability at least {level}. The marginal set covers one metric's "
        f"rank with probability {level}, the simultaneous sets cover every rank at once. *Cluster 1*: the metrics "
        "the protocol's permutation tests do not separate from the top one (mt-metrics-eval's clusters, from "
        f"unadjusted pairwise tests) (results/{experiment}/rank_sets.tsv; figure "
        f"results/figures/{experiment}/{FIGURE_NAME}).\n",
        frame_to_markdown(first_place_summary(with_sets)),
    ]
    for run in with_sets:
        parts += [
            f"\n### {run.protocol.name}: the average\n",
            frame_to_markdown(average_table(run, run.rank_sets)),
        ]
    return parts


def metric_rank_sets_figure(runs: Sequence[ProtocolRun], directory: str | Path) -> list[Path]:
    """``<directory>/rank_sets.png``: each protocol's average, one panel per protocol
    (:func:`mtsig.report.rank_set_plots.plot_rank_sets`); none without rank sets."""
    from mtsig.report.plots import FIGURE_DPI, save_figure
    from mtsig.report.rank_set_plots import plot_rank_sets

    with_sets = [run for run in runs if run.rank_sets is not None]
    if not with_sets:
        return []
    table = metric_rank_sets_frame(with_sets)
    table = table.loc[table["scope"] == AVERAGE].rename(columns={"protocol": "lp", "metric": "system"})
    titles = [
        f"{run.protocol.name} average: {len(run.rank_sets.average.sets.members)} of "
        f"{len(run.rank_sets.average.sets.systems)} could be first"
        for run in with_sets
    ]
    coverage = with_sets[0].rank_sets.average.sets.coverage
    figure = plot_rank_sets(table, coverage, titles)
    return save_figure(figure, [Path(directory) / FIGURE_NAME], dpi=FIGURE_DPI)


def _signature(sets: MetricRankSets) -> str:
    """The signature of a protocol's rank sets (:func:`mtsig.report.rank_sets.sets_signature`; ``scores``: the
    protocol's average)."""
    from mtsig.report.rank_sets import sets_signature

    return sets_signature(sets.average.sets, scores=f"{sets.protocol}-average")


def metric_rank_sets_text(sets: MetricRankSets) -> str:
    """``mtsig metrics --mtme --rank-sets``'s readable lines: the average's rank sets (one row per metric, who
    could be first), then who could be first on each task, the draws left out, and the signature."""
    from mtsig.report.rank_sets import draws_description, rank_sets_lines, tie_notes, top_line

    average = sets.average.sets
    lines = [
        "",
        f"Which metrics could be first ({sets.protocol}): {average.kind} rank sets at {format_level(average.coverage)} "
        f"from {draws_description(average)}, every metric scored on the same draws",
        "the weighted average:",
        *rank_sets_lines(average, ranked="metric"),
        *(f"note: {note}" for note in tie_notes(average)),
        "each task:",
    ]
    lines += [f"  {scope.scope}: {top_line(scope.sets)}" for scope in sets.tasks]
    lines += [
        f"note: {scope.n_undefined} draws left out of {scope.scope} (a statistic undefined on them)"
        for scope in sets.scopes
        if scope.n_undefined
    ]
    lines.append(f"signature: {_signature(sets)}")
    return "\n".join(lines) + "\n"


def _metric_record(scope: ScopeRankSets) -> dict[str, object]:
    """:func:`mtsig.report.rank_sets.rank_sets_record` of one scope, its entries named as metrics (``metrics``,
    each with ``metric``), with the scope and the draws left out."""
    from mtsig.report.rank_sets import rank_sets_record

    record = rank_sets_record(scope.sets)
    entries = [{"metric": entry.pop("system"), **entry} for entry in record.pop("systems")]  # type: ignore[union-attr]
    return {"scope": scope.scope, **record, "metrics": entries, "undefined_draws": scope.n_undefined}


def metric_rank_sets_json(sets: MetricRankSets) -> dict[str, object]:
    """``--json``'s ``rank_sets``: the protocol, the ``average``'s record and each task's (``tasks``), each with
    ``metrics`` best first (``metric``, ``estimate``, ``rank``, ``marginal``, ``simultaneous``, ``top``), and the
    signature."""
    return {
        "protocol": sets.protocol,
        "average": _metric_record(sets.average),
        "tasks": [_metric_record(scope) for scope in sets.tasks],
        "signature": _signature(sets),
    }


def metric_rank_sets_latex(sets: MetricRankSets) -> str:
    """``--latex``: the average's booktabs table (:func:`mtsig.report.rank_sets.rank_sets_latex`), the signature
    as a comment above it."""
    from mtsig.report.rank_sets import rank_sets_latex

    table = rank_sets_latex(
        sets.average.sets,
        caption=f"Metrics by the {sets.protocol} protocol's weighted average.",
        label="tab:mtsig-metric-rank-sets",
        score_header="Average",
        score_format="{:.4f}",
    )
    return f"% {_signature(sets)}\n" + table
