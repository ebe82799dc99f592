"""Running a protocol (mt-metrics-eval's ``tasks.TaskSet.Run``): each task's values, ranking, permutation tests and
clusters (:func:`run_task`, a lookup of the task's statistic in
:data:`~mtsig.studies.metrics_protocol.statistics.STATISTICS`), then the weighted average, its significance and
clusters (:func:`run_protocol`), as a run's :class:`RunOptions` say."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from mtsig.errors import InputError
from mtsig.io.mtme import LevelScores, MtmeTestSet
from mtsig.settings import MetricsProtocol, ProtocolOptions
from mtsig.stats.meta_evaluation.metric_permutation import (
    MTME_EARLY_STOPPING,
    MTME_PAIRS_EARLY_STOPPING,
    EarlyStopping,
    PermutationResult,
    permutation_test,
)
from mtsig.stats.meta_evaluation.metric_ranking import (
    assign_ranks,
    average_significance,
    ranking_order,
    weighted_average,
)
from mtsig.studies.metrics_protocol.selection import (
    HUMAN_PREFIX,
    MetricSelection,
    ProtocolInputs,
    ScoreKey,
    task_inputs_per_lp,
)
from mtsig.studies.metrics_protocol.statistics import TaskData, draw_key
from mtsig.studies.metrics_protocol.tasks import Protocol, Task

#: ``early_stopping`` of :func:`run_protocol`: mt-metrics-eval's ``tasks.Task`` defaults, or every resample.
EARLY_STOPPING = ("mtme", "none")
#: The cluster significance level (``tasks.Task.pval``, 0.05): the config's ``metrics_protocol.<name>.alpha`` by
#: default.
ALPHA = ProtocolOptions.alpha


@dataclass(frozen=True, kw_only=True)
class RunOptions(ProtocolOptions):
    """How :func:`run_protocol` and :func:`run_task` run a protocol's tasks: the experiment's settings that every
    run reads (:class:`mtsig.settings.ProtocolOptions`, whose fields and defaults these are: the clusters' ``alpha``,
    ``early_stopping`` ``mtme`` (mt-metrics-eval's defaults) or ``none``, ``spa_arithmetic`` ``exact`` or
    ``float32`` (:mod:`mtsig.stats.meta_evaluation.soft_pairwise_accuracy`), ``all_metrics``: the non-primary
    metrics too, ``human_metrics``: human scores entered as metrics (:func:`run_task`), not in the average), and what
    one run adds: ``n_resamples`` of every permutation test (0: values and rankings only, as mt-metrics-eval's
    ``k=0``, and the clusters are then the ranks), ``seed`` of the draws (:mod:`mtsig.stats.seeding`), ``always``:
    metric names kept and shown as primary (a user's own), ``progress``: told ``(task label, done, total)``
    resamples of each task's permutation test (:mod:`mtsig.runtime.progress`; it changes no number). :meth:`of`
    takes a protocol's from an experiment's settings; :attr:`selection` is the metrics chosen, as one object."""

    n_resamples: int = 0
    seed: int = 0
    always: frozenset[str] = frozenset()
    progress: Callable[[str, int, int], None] | None = field(default=None, compare=False)

    @classmethod
    def of(cls, settings: MetricsProtocol, protocol: str, seed: int) -> RunOptions:
        """The options of protocol ``protocol`` of an experiment's settings, run with ``seed``: the settings'
        :class:`~mtsig.settings.ProtocolOptions` and the protocol's resamples."""
        shared = {
            option.name: getattr(settings, option.name) for option in dataclasses.fields(ProtocolOptions)
        }
        return cls(**shared, n_resamples=settings.protocols[protocol].samples, seed=seed)

    @property
    def selection(self) -> MetricSelection:
        """The metrics the run's tasks compare: ``all_metrics``, ``always`` and ``human_metrics``
        (:class:`~mtsig.studies.metrics_protocol.selection.MetricSelection`)."""
        return MetricSelection.of(self, self.always)


@dataclass(frozen=True)
class TaskResult:
    """A task's outcome: ``metrics`` (display names, alphabetical) and their ``values``; ``order``: the ranking
    (indices, best first; ties by name); ``ranks[m]``: metric m's cluster; ``significance``: mt-metrics-eval's
    matrix in ranking order (``[i, j]``, i < j: p of the i-th beating the j-th; zeros without resamples);
    ``epsilons``: tie-calibrated thresholds; ``systems``: per language pair; ``test``: the permutation test;
    ``human``: the metrics that are human scores (:func:`human_ranks` gives their clusters)."""

    task: Task
    metrics: tuple[str, ...]
    values: np.ndarray
    order: tuple[int, ...]
    ranks: np.ndarray
    significance: np.ndarray
    systems: Mapping[str, tuple[str, ...]]
    epsilons: np.ndarray | None = None
    test: PermutationResult | None = field(default=None, repr=False)
    human: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ProtocolResult:
    """A task set's outcome: every task's result; the weighted average of the metrics every task has, in
    ranking order (``metrics``, ``average``, cluster ``ranks``, ``significance`` in that order); the extra
    tasks' results (``extras``), not in the average."""

    protocol: Protocol
    tasks: tuple[TaskResult, ...]
    metrics: tuple[str, ...]
    average: np.ndarray
    ranks: np.ndarray
    significance: np.ndarray
    n_resamples: int
    seed: int
    alpha: float
    early_stopping: str
    spa_arithmetic: str
    extras: tuple[TaskResult, ...] = ()


@dataclass(frozen=True)
class ProtocolData:
    """A protocol run's result with the test sets and score files it ran on (:func:`run_protocol`'s inputs): what
    each study of a run reads (its intervals, chance levels, power, rank sets, human scores on part of the cells)."""

    result: ProtocolResult
    test_sets: Mapping[str, MtmeTestSet]
    scores: Mapping[ScoreKey, LevelScores]

    @property
    def inputs(self) -> ProtocolInputs:
        """The protocol run, its test sets and scores: what the tasks read (:class:`ProtocolInputs`)."""
        return ProtocolInputs(self.result.protocol, self.test_sets, self.scores)


def _told(progress: Callable[[str, int, int], None] | None, label: str) -> Callable[[int, int], None] | None:
    """``progress`` told of one task's resamples, under its label."""
    return None if progress is None else (lambda done, total: progress(label, done, total))


def _early(early_stopping: str, task: Task) -> EarlyStopping | None:
    """mt-metrics-eval's early stopping of the task's test (``mtme``; that of ``PairwisePermutationSigDiff`` when
    pairs are swapped), or None (``none``: every resample)."""
    if early_stopping == "none":
        return None
    return MTME_PAIRS_EARLY_STOPPING if task.perm_test == "pairs" else MTME_EARLY_STOPPING


def run_task(
    task: Task,
    protocol: Protocol,
    test_sets: Mapping[str, MtmeTestSet],
    scores: Mapping[ScoreKey, LevelScores],
    options: RunOptions = RunOptions(),
) -> TaskResult:
    """One task's values, ranking and (with ``options.n_resamples``) permutation tests and clusters
    (:class:`RunOptions`): the registry entry of the task's statistic computes the values and gives the source its
    test swaps (:class:`~mtsig.studies.metrics_protocol.statistics.StatisticSpec`); the human scores of
    ``options.human_metrics`` that score every cell join as metrics, tested against every metric, and the other
    metrics' clusters are computed without them (:func:`human_ranks`)."""
    n_resamples, seed, key = options.n_resamples, options.seed, draw_key(task)
    per_lp = task_inputs_per_lp(task, ProtocolInputs(protocol, test_sets, scores), options.selection)
    names = sorted(set.intersection(*(set(metrics) for _, _, metrics in per_lp.values())))
    if len(names) < 1:
        raise InputError(f"{task.label}: no metric to compare")
    systems = {lp: inputs[0] for lp, inputs in per_lp.items()}
    statistic, data = task.statistic_spec, TaskData(tuple(names), per_lp)
    computed = statistic.values(task, data, options)
    values, epsilons = computed.values, computed.epsilons
    source = statistic.swaps(task, data, computed) if n_resamples else None
    values = np.asarray(values, dtype=np.float64)
    order = ranking_order(names, values)
    rank_of = np.empty(len(names), dtype=np.int64)
    rank_of[order] = np.arange(len(names))
    test = None
    significance = np.zeros((len(names), len(names)))
    if source is not None and len(names) > 1:
        test = permutation_test(
            source,
            rank_of,
            n_resamples,
            seed=seed,
            key=key,
            early_stopping=_early(options.early_stopping, task),
            progress=_told(options.progress, task.label),
        )
        significance = test.matrix(order)
    human = frozenset(name for name in names if name.startswith(HUMAN_PREFIX))
    ranks = np.empty(len(names), dtype=np.int64)
    ranks[order] = human_ranks([names[m] in human for m in order], significance, options.alpha)
    return TaskResult(
        task, tuple(names), values, tuple(order), ranks, significance, systems, epsilons, test, human
    )


def human_ranks(is_human: Sequence[bool], significance: np.ndarray, alpha: float = ALPHA) -> np.ndarray:
    """Cluster ranks of metrics in ranking order when some are human scores (``is_human``): the others' clusters
    as without them (mt-metrics-eval's ``AssignRanks`` on their own significance matrix); a human score joins the
    cluster of the metric above it, or starts the next one when a metric of that cluster beats it with
    ``p <= alpha`` (where it would fall among the metrics), rank 1 at the top."""
    flags = np.asarray(is_human, dtype=bool)
    if not flags.any():
        return assign_ranks(significance, alpha)
    main = np.flatnonzero(~flags)
    ranks = np.zeros(flags.size, dtype=np.int64)
    ranks[main] = assign_ranks(significance[np.ix_(main, main)], alpha)
    for position in np.flatnonzero(flags):
        above = main[main < position]
        if above.size == 0:
            ranks[position] = 1
            continue
        cluster = above[ranks[above] == ranks[above[-1]]]
        beaten = bool((significance[cluster, position] <= alpha).any())
        ranks[position] = ranks[above[-1]] + int(beaten)
    return ranks


def run_protocol(
    protocol: Protocol,
    test_sets: Mapping[str, MtmeTestSet],
    scores: Mapping[ScoreKey, LevelScores],
    options: RunOptions = RunOptions(),
) -> ProtocolResult:
    """Every task of ``protocol`` on ``test_sets`` (``{lp: read_test_set(...)}``) with the ``scores`` that
    :func:`required_scores` lists, then the weighted average, its significance and clusters, run as ``options``
    says (:class:`RunOptions`: resamples, seed, alpha, early stopping, SPA's arithmetic, which metrics).
    """
    n_resamples, alpha = options.n_resamples, options.alpha
    if n_resamples < 0:
        raise InputError(f"the number of resamples must be >= 0, got {n_resamples}")
    if options.early_stopping not in EARLY_STOPPING:
        raise InputError(
            f"unknown early stopping {options.early_stopping!r}; known: {', '.join(EARLY_STOPPING)}"
        )
    results = tuple(run_task(task, protocol, test_sets, scores, options) for task in protocol.tasks)
    extras = tuple(run_task(task, protocol, test_sets, scores, options) for task in protocol.extras)
    # the average ranks the metrics every task has; human scores entered as metrics are rows of their own
    common = set.intersection(*(set(r.metrics) for r in results)) - {
        name for r in results for name in r.human
    }
    # AverageCorrs: metrics in the first task's ranking order, then a stable sort by decreasing average
    first = [results[0].metrics[m] for m in results[0].order if results[0].metrics[m] in common]
    index = [np.array([r.metrics.index(name) for name in first]) for r in results]
    average = weighted_average(
        [r.values[i] for r, i in zip(results, index, strict=True)],
        [r.task.value_range for r in results],
        protocol.weights,
    )
    order = sorted(range(len(first)), key=lambda m: -average[m])
    significance = np.zeros((len(first), len(first)))
    if n_resamples and all(r.test is not None for r in results) and len(first) > 1:
        significance = average_significance(
            order,
            average,
            [r.test for r in results],
            [r.task.value_range for r in results],
            protocol.weights,
            index,
        )
    return ProtocolResult(
        protocol,
        results,
        tuple(first[m] for m in order),
        average[order],
        assign_ranks(significance, alpha),
        significance,
        n_resamples,
        options.seed,
        alpha,
        options.early_stopping,
        options.spa_arithmetic,
        extras,
    )
