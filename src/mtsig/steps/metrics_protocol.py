"""Step of ``workflow/rules/metrics_protocol.smk``: a metrics task's protocol on expert MQM (the WMT23 and WMT24
task sets on the WMT23 test set, :mod:`mtsig.studies.metrics_protocol`) and what mtsig adds on the same data
(:mod:`mtsig.studies.metrics_protocol.experiment`)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mtsig.errors import InputError
from mtsig.steps.files import write_markdown, write_text, write_tsv

if TYPE_CHECKING:
    from mtsig.io.mtme import LevelScores, MtmeTestSet
    from mtsig.settings import MetricsProtocol
    from mtsig.studies.metrics_protocol import Protocol, ScoreKey
    from mtsig.studies.metrics_protocol.experiment import ProtocolExperiment, ProtocolRun

log = logging.getLogger("mtsig")


def read_protocol_scores(
    experiment: str,
    root: Path,
    protocols: Sequence[Protocol],
    scores: Sequence[str | Path],
    settings: MetricsProtocol,
) -> tuple[dict[str, MtmeTestSet], dict[ScoreKey, LevelScores]]:
    """The test sets of the protocols' language pairs under ``root`` and every score file the experiment reads
    (:func:`mtsig.studies.metrics_protocol.experiment.experiment_score_keys`), each of which must be among the rule's
    inputs ``scores``."""
    from mtsig.io.mtme import read_requested_scores, read_test_set
    from mtsig.studies.metrics_protocol import MetricSelection
    from mtsig.studies.metrics_protocol import experiment as experiments

    lps = sorted({lp for protocol in protocols for lp in protocol.lps})
    test_sets = {lp: read_test_set(root, lp) for lp in lps}
    given = {Path(p).resolve() for p in scores}
    keys = experiments.experiment_score_keys(protocols, test_sets, MetricSelection.of(settings))
    for path in experiments.experiment_files(test_sets, keys):
        if path.resolve() not in given:
            raise InputError("read by the protocol but not among the rule's inputs", path)
    log.info("%s: %d score files of %s", experiment, len(keys), ", ".join(lps))
    return test_sets, read_requested_scores(test_sets, keys)


def log_protocol_run(experiment: str, run: ProtocolRun) -> None:
    """One line per protocol: its tasks, metrics, resamples and CPU seconds, the first and last metric."""
    result = run.result
    log.info(
        "%s %s: %d tasks, %d metrics, %d resamples (%.1f CPU s), intervals (%.1f CPU s), chance levels, human "
        "scores and power (%.1f CPU s); first %s %.4f, last %s %.4f",
        experiment, run.protocol.name, len(result.tasks), len(result.metrics), result.n_resamples,
        run.test_seconds, run.interval_seconds, run.study_seconds, result.metrics[0], result.average[0],
        result.metrics[-1], result.average[-1],
    )  # fmt: skip
    if run.rank_sets is not None:
        average = run.rank_sets.average.sets
        log.info(
            "%s %s: %d of %d metrics could be first on the average at %g (%d joint draws, %.1f CPU s)",
            experiment, run.protocol.name, len(average.members), len(average.systems), average.coverage,
            average.n_draws, run.rank_set_seconds,
        )  # fmt: skip


def write_figures(experiment: str, result: ProtocolExperiment, figures: str | Path) -> None:
    """Under ``figures``: each protocol's heatmaps and power figure, and the rank sets of the averages
    (:mod:`mtsig.report.metrics_protocol`); one log line per protocol (:func:`log_protocol_run`)."""
    from mtsig.report.metrics_protocol import power_figure, protocol_heatmaps
    from mtsig.report.metrics_protocol.rank_sets import metric_rank_sets_figure

    Path(figures).mkdir(parents=True, exist_ok=True)
    for run in result.runs:
        protocol_heatmaps(run.result, figures)
        if run.power is not None:
            power_figure(run.power, run.protocol.name, figures)
        log_protocol_run(experiment, run)
    metric_rank_sets_figure(result.runs, figures)


def metrics_protocol(
    experiment: str,
    settings: Mapping[str, Any] | MetricsProtocol,
    data_root: str | Path,
    seed: int,
    alphas: Sequence[float],
    *,
    scores: Sequence[str | Path],
    tasks: str | Path,
    average: str | Path,
    significance: str | Path,
    replication: str | Path,
    system_scores: str | Path,
    mqm_gold: str | Path,
    mqm_gold_conclusions: str | Path,
    chance: str | Path,
    human: str | Path,
    power: str | Path,
    power_curves: str | Path,
    stability: str | Path,
    rank_sets: str | Path,
    md: str | Path,
    html: str | Path,
    tex: str | Path,
    figures: str | Path,
) -> None:
    """Every protocol of the experiment's ``settings`` (its ``metrics_protocol.<name>`` block as the rule passes it,
    or the settings themselves: :class:`mtsig.settings.MetricsProtocol`, the one shape the study reads) on its test
    set ``root`` (mt-metrics-eval's layout): ``tasks`` (each task's value, cluster and bootstrap interval per
    metric), ``average`` (the weighted average and its cluster), ``significance`` (the permutation tests'
    p-values; task 0 is the average), the Markdown, HTML and LaTeX tables and the figures (:func:`write_figures`);
    the chance levels (``chance``), the human scores entered as metrics on part of a task's cells (``human``), the
    power of the chosen pairs (``power``, ``power_curves``) and the stability of each task's winner and cluster 1
    (``stability``); which metrics could be first (``rank_sets``, on the average and every task); for the
    replicability study the per-language-pair p-values of its ``replicability_tasks`` (``replication``); for the
    delta-agreement study the MT systems' MQM and metric system scores (``system_scores``) and the MQM gold of
    every pair (``mqm_gold``, ``mqm_gold_conclusions`` at ``alphas``). Seeds: the permutation tests of protocol P
    from ``derive_seed(seed, experiment, P)``; the intervals of a task from ``rng_for(seed, experiment,
    "bootstrap", <task label>)``; the rank sets of P from ``rng_for(seed, experiment, "rank_sets", P)``.
    ``scores``: the rule's inputs, which must hold every file read."""
    from mtsig.report.metrics_protocol import experiment_tables
    from mtsig.settings import MetricsProtocol, as_block, build
    from mtsig.studies.metrics_protocol import experiment as experiments

    settings = build(MetricsProtocol, settings, f"metrics_protocol.{experiment}")
    protocols = experiments.settings_protocols(settings)
    test_sets, read = read_protocol_scores(
        experiment, Path(data_root) / settings.root, protocols, scores, settings
    )
    result = experiments.run_experiment(
        experiment, protocols, test_sets, read, settings, seed=seed, alphas=alphas
    )
    write_figures(experiment, result, figures)
    tables = experiment_tables(
        result, settings, title=settings.description or experiment, experiment_name=experiment
    )
    made = {
        "made_by": "metrics_protocol",
        "settings": {"experiment": experiment, "spec": as_block(settings), "seed": seed},
    }
    outputs = {
        tasks: tables.tasks,
        average: tables.average,
        significance: tables.significance,
        replication: tables.replication,
        system_scores: tables.system_scores,
        mqm_gold: tables.mqm_gold,
        mqm_gold_conclusions: tables.mqm_gold_conclusions,
        chance: tables.chance,
        human: tables.human,
        power: tables.power,
        power_curves: tables.power_curves,
        stability: tables.stability,
        rank_sets: tables.rank_sets,
    }
    for path, frame in outputs.items():
        write_tsv(frame, path, **made)
    write_markdown(tables.markdown, md, html, **made)
    write_text(tables.latex, tex)
