"""What a task reads (``data.GetCorrelations`` of mt-metrics-eval): its systems, metrics and score files, and its
inputs at each language pair (:func:`task_inputs`).

**Systems and metrics of a task**: the systems are every system output except the standard reference (refA; refB
for he-en), the human translations unless the task includes them (WMT23: for he-en, whose second reference refA
competes as a system; ``lps_with_multiple_refs``), the outliers (synthetic_ref for en-de and zh-en), and those
without any human score at the task's level. The metrics are those that used only the standard reference or none
(``-src``), and by default only the task's primary submissions and baselines; a metric is named by its basename,
``[noref]`` appended when reference-free and ``*`` prefixed when not primary (``DisplayName(fmt='spreadsheet')``).
The pooled pairwise accuracy takes the metrics present in every language pair.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from mtsig.errors import InputError
from mtsig.io.mtme import LevelScores, MtmeTestSet
from mtsig.settings import ProtocolOptions
from mtsig.stats.meta_evaluation.item_sampling import item_sample
from mtsig.studies.metrics_protocol.statistics import LpInputs
from mtsig.studies.metrics_protocol.tasks import Protocol, Task, TestSetInfo, file_level, gold_of


def display_name(basename: str, references: frozenset[str], primary: bool) -> str:
    """mt-metrics-eval's ``DisplayName(fmt='spreadsheet')``: ``*`` before a non-primary metric, ``[noref]`` after a
    reference-free one."""
    return f"{'' if primary else '*'}{basename}{'' if references else '[noref]'}"


#: The display name of a human score entered as a metric: ``human:<name>`` (e.g. ``human:da-sqm``).
HUMAN_PREFIX = "human:"


def human_display(name: str) -> str:
    """The display name of the human score ``name`` entered as a metric."""
    return f"{HUMAN_PREFIX}{name}"


@dataclass(frozen=True)
class MetricSelection:
    """Which metrics a protocol's tasks compare: ``all_metrics``: the non-primary ones too; ``always``: metric names
    kept and shown as primary (a user's own); ``human_metrics``: human scores entered as metrics, where the test set
    has them (:func:`task_metrics`, :func:`task_human_metrics`)."""

    all_metrics: bool = False
    always: frozenset[str] = frozenset()
    human_metrics: tuple[str, ...] = ()

    @classmethod
    def of(cls, options: ProtocolOptions, always: frozenset[str] = frozenset()) -> MetricSelection:
        """The selection of a protocol's settings (:class:`mtsig.settings.ProtocolOptions`) with ``always``."""
        return cls(options.all_metrics, always, options.human_metrics)

    def without_human(self) -> MetricSelection:
        """The same metrics without the human scores entered as metrics."""
        return MetricSelection(self.all_metrics, self.always)


#: The default selection: the protocol's primary metrics and no human score entered as a metric.
PRIMARY_METRICS = MetricSelection()


def task_human_metrics(
    test_set: MtmeTestSet, level: str, human_metrics: Sequence[str], gold: str
) -> dict[str, str]:
    """``{display name: human score name}`` of the human scores in ``human_metrics`` that the test set has at
    ``level``, other than the task's ``gold``."""
    return {
        human_display(name): name
        for name in human_metrics
        if name != gold and (name, level) in test_set.human_files
    }


def task_metrics(
    test_set: MtmeTestSet,
    info: TestSetInfo,
    level: str,
    selection: MetricSelection = PRIMARY_METRICS,
) -> dict[str, str]:
    """``{display name: metric name}`` of the metrics a task at ``level`` compares: a file at that level, only
    the standard reference or none used, and (unless ``selection.all_metrics``) a primary basename; the metrics
    named in ``selection.always`` (a user's own) are kept and shown as primary (its human scores:
    :func:`task_human_metrics`)."""
    main = {info.std_ref[test_set.lp]}
    chosen: dict[str, str] = {}
    for name in test_set.metrics:
        if (name, level) not in test_set.metric_files:
            continue
        basename, references = test_set.metric_basename(name), test_set.metric_references(name)
        if not references <= main:
            continue
        primary = basename in info.primary or name in selection.always
        if not primary and not selection.all_metrics:
            continue
        shown = display_name(basename, references, primary)
        if shown in chosen:
            raise InputError(
                f"metrics {chosen[shown]!r} and {name!r} of {test_set.lp} would both be shown as {shown!r}"
            )
        chosen[shown] = name
    return chosen


def task_systems(test_set: MtmeTestSet, info: TestSetInfo, task: Task, human: LevelScores) -> tuple[str, ...]:
    """The systems of a task at one language pair (module docstring), sorted; ``human``: its gold scores."""
    systems = set(test_set.systems) - {info.std_ref[test_set.lp]}
    if not task.include_human:
        systems -= set(test_set.human_systems)
    systems -= info.outliers.get(test_set.lp, frozenset())
    rated = {name for name, row in zip(human.systems, human.values, strict=True) if np.isfinite(row).any()}
    return tuple(sorted(systems & rated))


@dataclass(frozen=True)
class ScoreKey:
    """One score file a protocol reads: ``kind`` ``human`` (``name`` a gold) or ``metric``."""

    lp: str
    kind: str
    name: str
    level: str


@dataclass(frozen=True)
class ProtocolInputs:
    """What a protocol's tasks read: the ``protocol``, its ``test_sets`` (``{lp: read_test_set(...)}``) and the
    ``scores`` files :func:`required_scores` lists, read (``{ScoreKey: LevelScores}``)."""

    protocol: Protocol
    test_sets: Mapping[str, MtmeTestSet]
    scores: Mapping[ScoreKey, LevelScores]


def required_scores(
    protocol: Protocol,
    test_sets: Mapping[str, MtmeTestSet],
    selection: MetricSelection = PRIMARY_METRICS,
) -> list[ScoreKey]:
    """Every human and metric score file :func:`run_protocol` needs for the metrics ``selection`` chooses (with
    its human scores entered as metrics, where the test set has them), in a fixed order."""
    keys: dict[ScoreKey, None] = {}
    for task in protocol.tasks + protocol.extras:
        level = file_level(task)
        for lp in task.lps:
            test_set = _test_set(test_sets, lp)
            gold = gold_of(task, protocol.info, lp)
            keys[ScoreKey(lp, "human", gold, level)] = None
            for name in task_metrics(test_set, protocol.info, level, selection).values():
                keys[ScoreKey(lp, "metric", name, level)] = None
            for name in task_human_metrics(test_set, level, selection.human_metrics, gold).values():
                keys[ScoreKey(lp, "human", name, level)] = None
    return list(keys)


def _test_set(test_sets: Mapping[str, MtmeTestSet], lp: str) -> MtmeTestSet:
    if lp not in test_sets:
        raise InputError(f"no test set read for language pair {lp}")
    return test_sets[lp]


def _scores(scores: Mapping[ScoreKey, LevelScores], key: ScoreKey) -> LevelScores:
    if key not in scores:
        raise InputError(f"scores of {key.kind} {key.name!r} ({key.lp}, {key.level}) were not read")
    return scores[key]


def task_inputs(
    task: Task,
    lp: str,
    inputs: ProtocolInputs,
    selection: MetricSelection = PRIMARY_METRICS,
) -> LpInputs:
    """(systems, human ``[S, U]``, ``{display name: metric [S, U]}``) of a task at one language pair: the
    selected systems (sorted) and the metrics of ``selection``, their scores at the task's level (U = 1 at the
    system level). A human score of ``selection.human_metrics`` joins the metrics where it scores every cell the
    task uses (:func:`covers`).
    ``inputs``: the protocol, test sets and scores (:class:`ProtocolInputs`)."""
    protocol, scores = inputs.protocol, inputs.scores
    test_set = _test_set(inputs.test_sets, lp)
    level = file_level(task)
    gold = gold_of(task, protocol.info, lp)
    human_scores = _scores(scores, ScoreKey(lp, "human", gold, level))
    systems = task_systems(test_set, protocol.info, task, human_scores)
    if len(systems) < 2:
        raise InputError(f"{task.label}: fewer than two systems with human scores in {lp}")
    human = human_scores.rows(systems, what="human scores")
    metrics = {}
    for shown, name in task_metrics(test_set, protocol.info, level, selection).items():
        metrics[shown] = _scores(scores, ScoreKey(lp, "metric", name, level)).rows(
            systems, what=f"{name} scores"
        )
    for shown, name in task_human_metrics(test_set, level, selection.human_metrics, gold).items():
        other = _scores(scores, ScoreKey(lp, "human", name, level))
        if set(systems) <= set(other.systems):
            values = other.rows(systems, what=f"{name} scores")
            if covers(task, human, values):
                # cells the task does not use count for no statistic: any finite value will do
                metrics[shown] = np.nan_to_num(values, nan=0.0)
    if task.sample_size and level == "seg":
        items = sampled_items(task, test_set)
        human = human[:, items]
        metrics = {shown: values[:, items] for shown, values in metrics.items()}
    return systems, human, metrics


def task_inputs_per_lp(task: Task, inputs: ProtocolInputs, selection: MetricSelection) -> dict[str, LpInputs]:
    """``{lp: task_inputs(...)}`` of every language pair of the task, in the task's order, with the metrics
    ``selection`` chooses (a run's: :attr:`mtsig.studies.metrics_protocol.RunOptions.selection`)."""
    return {lp: task_inputs(task, lp, inputs, selection) for lp in task.lps}


def covers(task: Task, human: np.ndarray, values: np.ndarray) -> bool:
    """Whether ``values[S, U]`` (a human score entered as a metric) scores every cell the task uses: every cell with
    a gold score, for a statistic of whole segments (SPA) every cell of the segments every system is rated on."""
    used = np.isfinite(human)
    if task.statistic_spec.whole_segments:
        used = np.broadcast_to(used.all(axis=0), used.shape)
    return bool(np.isfinite(values[used]).all())


def document_sizes(test_set: MtmeTestSet) -> list[int]:
    """The segments of each document, in test-set order (the runs of ``segment_documents``)."""
    documents = np.asarray(test_set.segment_documents, dtype=object)
    if documents.size == 0:
        return []
    starts = np.flatnonzero(np.concatenate([[True], documents[1:] != documents[:-1]]))
    return np.diff(np.append(starts, documents.size)).tolist()


def sampled_items(task: Task, test_set: MtmeTestSet) -> np.ndarray:
    """The items of a task's sample (:func:`mtsig.stats.meta_evaluation.item_sampling.item_sample`;
    ``stratify``: over the documents), from ``numpy.random.default_rng(task.sample_seed)``, as
    ``GetCorrelations`` draws them."""
    bins = document_sizes(test_set) if task.sample_method == "stratify" else None
    return item_sample(
        test_set.n_segments,
        task.sample_size,
        task.sample_method,
        bins,
        rng=np.random.default_rng(task.sample_seed),
    )
