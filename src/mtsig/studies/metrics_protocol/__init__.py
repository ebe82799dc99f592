"""The WMT23/WMT24 metrics-task protocol: which metric agrees with expert MQM, at system and segment level.

Since WMT22 the metrics shared tasks rank metrics on MQM (Freitag et al. 2023, "Results of WMT23 Metrics Shared
Task: Metrics Might Be Guilty but References Are Not Innocent", Sec. 5 and Table 8; Freitag et al. 2024, WMT24
findings, Sec. 5) with a *task set*: several meta-evaluation tasks, each a statistic on one or more language
pairs, averaged with weights after rescaling each to [0, 1], with significance clusters from permutation tests.
The reference implementation is google-research/mt-metrics-eval (``tasks.WMT23()``, ``tasks.WMT24OnWMT23()``,
``data.GetCorrelations``); this package holds the same task sets as data (:func:`wmt23`, :func:`wmt24_on_wmt23`,
:data:`PROTOCOLS`) and runs one on a test set (:func:`run_protocol`), data in, data out.

**WMT23** (``tasks.WMT23``): task 1 is pairwise accuracy of system rankings pooled over the language pairs
(weight: the number of language pairs); then, per language pair, system-level Pearson, segment-level Pearson
(no grouping) and segment-level tie-calibrated acc_23 grouped by item (acc-t; significance by swapping pair
outcomes), weight 1 each; weights normalised. **WMT24 on WMT23** (``tasks.WMT24OnWMT23``): per language pair,
soft pairwise accuracy (SPA) and acc-t, weight 1 each. **WMT25** (``tasks.WMT25``, the WMT25 metrics task's set as
its organisers put it into mt-metrics-eval): per language pair SPA and acc-t, weight 1 each, no human translation
competing, each language pair's own gold (MQM for en-ko and ja-zh, ESA for the other 14; ``meta_info.WMT25``,
``WMT25_ESA``).

Beyond mt-metrics-eval's task sets, a task may compute any of its other statistics (PDP, micro averages, the WMT20
Kendall-like tau, Kendall's variants with a tie threshold, on a sample of the items) and test it by swapping scores
or pair outcomes (:mod:`mtsig.stats.meta_evaluation.score_permutation`); a protocol's ``extras`` are tasks
reported beside its own and left out of the average (the WMT23 protocol's: PDP grouped by item, DiIanni &
Deutsch 2025).

The modules: :mod:`~mtsig.studies.metrics_protocol.statistics` (the registry of the statistics a task computes,
:data:`STATISTICS`), :mod:`~mtsig.studies.metrics_protocol.tasks` (:class:`Task`, :class:`Protocol`),
:mod:`~mtsig.studies.metrics_protocol.protocols` (the task sets), :mod:`~mtsig.studies.metrics_protocol.selection`
(a task's systems, metrics and score files), :mod:`~mtsig.studies.metrics_protocol.run` (:func:`run_task`,
:func:`run_protocol`); what mtsig adds on the same data: :mod:`~mtsig.studies.metrics_protocol.beyond` (bootstrap
intervals, replication p-values, the MQM gold), :mod:`~mtsig.studies.metrics_protocol.human` (human scores on part of
a task's cells), :mod:`~mtsig.studies.metrics_protocol.power` (power and stability) and
:mod:`~mtsig.studies.metrics_protocol.chance` (chance levels); an experiment of the pipeline's:
:mod:`~mtsig.studies.metrics_protocol.experiment`. Every name of the first five is importable from the package.
"""

from __future__ import annotations

from mtsig.studies.metrics_protocol.protocols import (
    LPS_WITH_MULTIPLE_REFS,
    PROTOCOLS,
    SPEC_OPTIONS,
    WMT23_BASELINES,
    WMT23_INFO,
    WMT25_BASELINES,
    WMT25_INFO,
    WMT25_LPS,
    WMT25_MQM_LPS,
    WMT25_PRIMARIES,
    pdp_extras,
    tasks_from_spec,
    with_gold,
    wmt23,
    wmt24_on_wmt23,
    wmt25,
)
from mtsig.studies.metrics_protocol.run import (
    ALPHA,
    EARLY_STOPPING,
    ProtocolData,
    ProtocolResult,
    RunOptions,
    TaskResult,
    human_ranks,
    run_protocol,
    run_task,
)
from mtsig.studies.metrics_protocol.selection import (
    HUMAN_PREFIX,
    PRIMARY_METRICS,
    MetricSelection,
    ProtocolInputs,
    ScoreKey,
    covers,
    display_name,
    document_sizes,
    human_display,
    required_scores,
    sampled_items,
    task_human_metrics,
    task_inputs,
    task_inputs_per_lp,
    task_metrics,
    task_systems,
)
from mtsig.studies.metrics_protocol.statistics import (
    STATISTICS,
    LpInputs,
    StatisticSpec,
    TaskData,
    TaskValues,
    rated_segment_flips,
    rated_segments,
)
from mtsig.studies.metrics_protocol.tasks import PERM_TESTS, Protocol, Task, TestSetInfo, file_level, gold_of

__all__ = [
    "ALPHA", "EARLY_STOPPING", "HUMAN_PREFIX", "LPS_WITH_MULTIPLE_REFS", "PERM_TESTS", "PRIMARY_METRICS",
    "PROTOCOLS", "SPEC_OPTIONS", "STATISTICS", "WMT23_BASELINES", "WMT23_INFO", "WMT25_BASELINES", "WMT25_INFO",
    "WMT25_LPS", "WMT25_MQM_LPS", "WMT25_PRIMARIES", "LpInputs", "MetricSelection", "Protocol", "ProtocolData",
    "ProtocolInputs", "ProtocolResult", "RunOptions", "ScoreKey", "StatisticSpec", "Task", "TaskData", "TaskResult",
    "TaskValues", "TestSetInfo", "covers", "display_name", "document_sizes", "file_level", "gold_of",
    "human_display", "human_ranks", "pdp_extras", "rated_segment_flips", "rated_segments", "required_scores",
    "run_protocol", "run_task", "sampled_items", "task_human_metrics", "task_inputs", "task_inputs_per_lp",
    "task_metrics", "task_systems", "tasks_from_spec", "with_gold", "wmt23", "wmt24_on_wmt23", "wmt25",
]  # fmt: skip
