"""The tables, page and figures of a WMT23/24 metrics-task protocol run (:mod:`mtsig.studies.metrics_protocol`).

The layout of the WMT23 findings' Table 8 (Freitag et al. 2023): one row per metric in order of the weighted average,
its cluster rank, then each task's value and rank, then the protocol's extra tasks (not in the average; the WMT23
protocol's PDP, DiIanni & Deutsch 2025): as text, LaTeX, a JSON-ready dict and tidy tables
(:mod:`~mtsig.report.metrics_protocol.formats`), as a Markdown page built section by section
(:mod:`~mtsig.report.metrics_protocol.page`), as heatmaps and the power figure
(:mod:`~mtsig.report.metrics_protocol.figures`), its chance levels as the command prints them
(:mod:`~mtsig.report.metrics_protocol.chance`); and what a pipeline experiment writes
(:mod:`~mtsig.report.metrics_protocol.experiment`). Every public name is importable from the package.
"""

from __future__ import annotations

from mtsig.report.metrics_protocol.chance import chance_text, with_chance
from mtsig.report.metrics_protocol.experiment import (
    PROTOCOL_HEADINGS,
    ExperimentTables,
    experiment_tables,
    reproduce_command,
    study_tables,
)
from mtsig.report.metrics_protocol.figures import (
    heatmap_name,
    power_figure,
    power_figure_name,
    protocol_heatmaps,
    significance_frame,
)
from mtsig.report.metrics_protocol.formats import (
    AVERAGE_COLUMNS,
    SIGNIFICANCE_COLUMNS,
    TASK_COLUMNS,
    protocol_json,
    protocol_signature,
    protocol_table_latex,
    protocol_table_text,
    protocol_tables,
)
from mtsig.report.metrics_protocol.page import (
    CHANCE_MARK_ALPHA,
    metric_basename,
    metric_kind,
    power_markdown,
    protocol_table_markdown,
    real_size_index,
)

__all__ = [
    "AVERAGE_COLUMNS", "CHANCE_MARK_ALPHA", "PROTOCOL_HEADINGS", "SIGNIFICANCE_COLUMNS", "TASK_COLUMNS",
    "ExperimentTables", "chance_text", "experiment_tables", "heatmap_name", "metric_basename", "metric_kind", "power_figure",
    "power_figure_name", "power_markdown", "protocol_heatmaps", "protocol_json", "protocol_signature",
    "protocol_table_latex", "protocol_table_markdown", "protocol_table_text", "protocol_tables",
    "real_size_index", "reproduce_command", "significance_frame", "study_tables", "with_chance",
]  # fmt: skip
