"""One experiment of the WMT23/24 metrics-task protocol: the files it reads and every protocol run on them with what
mtsig adds (the rule ``metrics_protocol``; docs/statistics.md, "The WMT23/24 metrics-task protocol on expert MQM" and
the sections after it).

:func:`experiment_files` lists the files from their names alone (the workflow's input functions call it, so this
module imports the studies it runs only inside :func:`run_experiment`); :func:`run_experiment` runs each protocol
(:func:`mtsig.studies.metrics_protocol.run_protocol`) and the studies beside it: bootstrap intervals, replication
p-values and the MT systems' MQM gold (:mod:`mtsig.studies.metrics_protocol.beyond`), chance levels
(:mod:`mtsig.studies.metrics_protocol.chance`), human scores on part of a task's cells
(:mod:`mtsig.studies.metrics_protocol.human`), power and stability (:mod:`mtsig.studies.metrics_protocol.power`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from mtsig.errors import InputError
from mtsig.io.mtme import LevelScores, MtmeTestSet
from mtsig.settings import MetricsProtocol
from mtsig.studies.metrics_protocol import (
    PRIMARY_METRICS,
    PROTOCOLS,
    MetricSelection,
    Protocol,
    ProtocolData,
    ProtocolInputs,
    ProtocolResult,
    RunOptions,
    ScoreKey,
    required_scores,
    with_gold,
)
from mtsig.studies.metrics_protocol.beyond import (
    TaskResampler,
    mqm_pairs,
    replication_pvalues,
    system_tasks,
    task_intervals,
    task_resampler,
)

if TYPE_CHECKING:
    from mtsig.studies.metrics_protocol.chance import ProtocolChance
    from mtsig.studies.metrics_protocol.human import PartialHumanRow
    from mtsig.studies.metrics_protocol.power import ProtocolPower
    from mtsig.studies.metrics_protocol.rank_sets import MetricRankSets


def experiment_protocols(
    protocols: Sequence[str], lps: Sequence[str] | None, gold: str | None = None
) -> list[Protocol]:
    """The task sets named in ``protocols`` (:data:`mtsig.studies.metrics_protocol.PROTOCOLS`) on ``lps`` (all of
    the protocol's when None), in the order given; with ``gold``, every task's gold that human score
    (:func:`mtsig.studies.metrics_protocol.with_gold`)."""
    unknown = [name for name in protocols if name not in PROTOCOLS]
    if unknown:
        raise InputError(f"unknown protocol(s) {', '.join(unknown)}; known: {', '.join(PROTOCOLS)}")
    return [with_gold(PROTOCOLS[name](lps), gold) for name in protocols]


def settings_protocols(settings: MetricsProtocol) -> list[Protocol]:
    """The protocols an experiment's settings name, on its language pairs, with its gold
    (:func:`experiment_protocols`)."""
    return experiment_protocols(list(settings.protocols), settings.lps, settings.gold)


def experiment_score_keys(
    protocols: Sequence[Protocol],
    test_sets: Mapping[str, MtmeTestSet],
    selection: MetricSelection = PRIMARY_METRICS,
) -> list[ScoreKey]:
    """Every score file an experiment reads: those of each protocol
    (:func:`mtsig.studies.metrics_protocol.required_scores` of ``selection``, with its human scores entered as
    metrics) and those of the MT systems' MQM gold and system scores (:func:`system_tasks`, without the human
    scores), in a fixed order, each once."""
    keys: dict[ScoreKey, None] = {}
    for protocol in protocols:
        keys.update(dict.fromkeys(required_scores(protocol, test_sets, selection)))
    if protocols:
        lps = sorted({lp for protocol in protocols for lp in protocol.lps})
        pairs = Protocol("mqm-pairs", protocols[0].info, tuple(t for lp in lps for t in system_tasks(lp)))
        keys.update(dict.fromkeys(required_scores(pairs, test_sets, selection.without_human())))
    return list(keys)


def experiment_files(test_sets: Mapping[str, MtmeTestSet], keys: Iterable[ScoreKey]) -> list[Path]:
    """Every file an experiment reads (``test_sets`` from :func:`mtsig.io.mtme.layout_from_names` will do: the
    names are enough): what :func:`mtsig.io.mtme.read_test_set` reads of each language pair (source, references,
    system outputs, documents) and the score files ``keys`` (:func:`experiment_score_keys`), sorted."""
    files = set()
    for lp, test_set in test_sets.items():
        root = test_set.directory
        files.add(root / "sources" / f"{lp}.txt")
        files.add(root / "documents" / f"{lp}.docs")
        files.update(root / "references" / f"{lp}.{name}.txt" for name in test_set.references)
        files.update(root / "system-outputs" / lp / f"{name}.txt" for name in test_set.systems)
    for key in keys:
        test_set = test_sets[key.lp]
        found = (test_set.human_files if key.kind == "human" else test_set.metric_files).get(
            (key.name, key.level)
        )
        if found is None:
            raise InputError(
                f"no {key.level}-level {key.kind} scores {key.name!r} for {key.lp}",
                test_set.directory / ("human-scores" if key.kind == "human" else f"metric-scores/{key.lp}"),
            )
        files.add(found)
    return sorted(files)


@dataclass(frozen=True)
class ProtocolRun:
    """One protocol of an experiment: its result, its seed, the bootstrap interval of every task (task label ->
    :func:`task_intervals`; empty without bootstrap resamples), its per-language-pair p-values
    (:func:`replication_pvalues`), its chance levels, the human scores on the part of a task's cells they rate
    (:func:`mtsig.studies.metrics_protocol.human.partial_human_rows`), its power and stability (None when not
    asked for), which metrics could be first (:mod:`mtsig.studies.metrics_protocol.rank_sets`; None with 0 draws)
    and the CPU seconds of the tests, the intervals, the rest and the rank sets."""

    protocol: Protocol
    seed: int
    result: ProtocolResult
    intervals: dict[str, pd.DataFrame]
    replication: pd.DataFrame
    test_seconds: float
    interval_seconds: float
    chance: ProtocolChance | None = None
    partial_human: tuple[PartialHumanRow, ...] = ()
    power: ProtocolPower | None = None
    study_seconds: float = 0.0
    rank_sets: MetricRankSets | None = None
    rank_set_seconds: float = 0.0


@dataclass(frozen=True)
class ProtocolExperiment:
    """Every protocol of an experiment (:class:`ProtocolRun`, in the order given) and, for every language pair
    ``lps`` of them, the MT systems' ``(system scores, gold, conclusions)`` (:func:`mqm_pairs`)."""

    runs: tuple[ProtocolRun, ...]
    lps: tuple[str, ...]
    pairs: tuple[tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame], ...]


def _intervals(
    data: ProtocolData,
    settings: MetricsProtocol,
    options: RunOptions,
    key: tuple[int, str],
) -> tuple[dict[str, pd.DataFrame], dict[str, TaskResampler]]:
    """The bootstrap interval of every task's values (:func:`task_intervals`, drawn from ``rng_for(seed,
    experiment, "bootstrap", <task label>)``, ``key`` = (seed, experiment)) and every task's resampler, by task
    label; both empty with 0 resamples."""
    from mtsig.stats.seeding import rng_for

    intervals, resamplers = {}, {}
    if settings.bootstrap.samples:
        for task in data.result.tasks + data.result.extras:
            resampler = task_resampler(task, data.inputs, options)
            resamplers[task.task.label] = resampler
            draws = resampler.draws(settings.bootstrap.samples, rng_for(*key, "bootstrap", task.task.label))
            intervals[task.task.label] = task_intervals(task, draws, settings.bootstrap.confidence)
    return intervals, resamplers


def _rank_sets(
    data: ProtocolData,
    settings: MetricsProtocol,
    options: RunOptions,
    key: tuple[int, str],
    resamplers: Mapping[str, TaskResampler],
) -> MetricRankSets | None:
    """Which metrics could be first (:func:`mtsig.studies.metrics_protocol.rank_sets.protocol_rank_sets`, ``key`` =
    (seed, experiment)), with the tasks' ``resamplers`` when the intervals built them; None with 0 draws."""
    from mtsig.studies.metrics_protocol.rank_sets import protocol_rank_sets

    if not settings.rank_sets.samples:
        return None
    seed, experiment = key
    return protocol_rank_sets(
        data, options, n_draws=settings.rank_sets.samples, coverage=settings.rank_sets.coverage, seed=seed,
        key=(experiment,), resamplers=[resamplers[t.task.label] for t in data.result.tasks] if resamplers else None,
    )  # fmt: skip


def run_experiment(
    experiment: str,
    protocols: Sequence[Protocol],
    test_sets: Mapping[str, MtmeTestSet],
    scores: Mapping[ScoreKey, LevelScores],
    settings: MetricsProtocol,
    *,
    seed: int,
    alphas: Sequence[float],
) -> ProtocolExperiment:
    """Every protocol of an experiment on the same score files (``scores``: those of
    :func:`experiment_score_keys`), as its settings say (``settings``, :class:`mtsig.settings.MetricsProtocol`):
    the protocol's permutation tests (Freitag et al. 2023, Sec. 3 and Table 8;
    :func:`mtsig.studies.metrics_protocol.run_protocol`, :meth:`~mtsig.studies.metrics_protocol.RunOptions.of`)
    seeded by ``derive_seed(seed, experiment, <protocol>)``, the bootstrap interval of every task value (Deutsch,
    Dror & Roth 2021, Sec. 3.1; :func:`task_intervals`; none with 0 resamples) drawn from ``rng_for(seed,
    experiment, "bootstrap", <task label>)``, the per-language-pair p-values of ``settings.replicability_tasks``,
    the chance levels (:mod:`mtsig.studies.metrics_protocol.chance`; none with 0 draws), the human scores on part
    of a task's cells, the power and stability of the permutation tests
    (:mod:`mtsig.studies.metrics_protocol.power`; none with 0 test sets or without tests), which metrics could be
    first (:func:`mtsig.studies.metrics_protocol.rank_sets.protocol_rank_sets`, on the average and every task, drawn
    from ``rng_for(seed, experiment, "rank_sets", <protocol>)``; none with 0 draws), and the MQM gold of every
    language pair's MT systems at ``alphas`` (:func:`mqm_pairs`, of the first protocol)."""
    import time

    from mtsig.stats.seeding import derive_seed
    from mtsig.studies.metrics_protocol import run_protocol
    from mtsig.studies.metrics_protocol.chance import protocol_chance
    from mtsig.studies.metrics_protocol.human import partial_human_rows
    from mtsig.studies.metrics_protocol.power import protocol_power

    runs = []
    shared_chance: dict = {}
    shared_human: dict = {}
    for protocol in protocols:
        start = time.process_time()
        protocol_seed = derive_seed(seed, experiment, protocol.name)
        options = RunOptions.of(settings, protocol.name, protocol_seed)
        result = run_protocol(protocol, test_sets, scores, options)
        data = ProtocolData(result, test_sets, scores)
        tested = time.process_time()
        intervals, resamplers = _intervals(data, settings, options, (seed, experiment))
        intervaled = time.process_time()
        replication = replication_pvalues(result, settings.replicability_tasks)
        chance = None
        if settings.chance.samples:
            chance = protocol_chance(
                data, n_draws=settings.chance.samples, seed=seed, key=(experiment,),
                cache=shared_chance, options=options,
            )  # fmt: skip
        partial = tuple(partial_human_rows(data, options, cache=shared_human))
        power = None
        if settings.power.samples and options.n_resamples:
            power = protocol_power(data, settings.power, options, seed=seed, key=(experiment, protocol.name))
        studied = time.process_time()
        rank_sets = _rank_sets(data, settings, options, (seed, experiment), resamplers)
        runs.append(ProtocolRun(
            protocol, protocol_seed, result, intervals, replication, tested - start, intervaled - tested, chance,
            partial, power, studied - intervaled, rank_sets, time.process_time() - studied,
        ))  # fmt: skip
    lps = tuple(sorted({lp for protocol in protocols for lp in protocol.lps}))
    first = ProtocolInputs(protocols[0], test_sets, scores)
    pairs = tuple(mqm_pairs(lp, first, alphas, MetricSelection.of(settings)) for lp in lps)
    return ProtocolExperiment(tuple(runs), lps, pairs)
