"""Steps of ``workflow/rules/meta_evaluation.smk``: which of an experiment's metrics agrees best with its humans
(:mod:`mtsig.studies.meta_evaluation`)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from mtsig.errors import InputError
from mtsig.steps.common import check_same_systems, load_scored_stats, read_gold_table, sentence_bleu
from mtsig.steps.files import metric_name_of, write_markdown, write_tsv

if TYPE_CHECKING:
    from mtsig.studies.meta_evaluation import ExperimentMetrics

log = logging.getLogger("mtsig")


def log_reversed_orientation(
    experiment: str, flagged: Mapping[str, tuple[float, float]], human_label: str, n_systems: int
) -> None:
    """A warning for every metric of ``flagged`` (metric -> Pearson r and one-sided p of its system scores with
    the human ones, :func:`mtsig.stats.meta_evaluation.system_level.reversed_orientation`): its
    ``higher_is_better`` is most likely wrong."""
    for metric, (r, p) in flagged.items():
        log.warning(
            "%s: metric %s: its system scores correlate with the human %s scores at Pearson r = %.3f (one-sided "
            "p = %.2g, %d systems): check higher_is_better",
            experiment,
            metric,
            human_label,
            r,
            p,
            n_systems,
        )


def warn_reversed_orientation(
    experiment: str, metrics: Mapping[str, np.ndarray], human: np.ndarray, human_label: str
) -> dict[str, tuple[float, float]]:
    """Log a warning for every metric whose system scores (oriented as declared) correlate strongly negatively with
    the human ones (:func:`mtsig.stats.meta_evaluation.system_level.reversed_orientation`,
    :func:`log_reversed_orientation`). Returns the flagged metrics, ``{metric: (r, p)}``."""
    from mtsig.stats.meta_evaluation.system_level import reversed_orientation

    flagged = reversed_orientation(metrics, human)
    log_reversed_orientation(experiment, flagged, human_label, len(human))
    return flagged


def read_metrics(experiment: str, stats: Sequence[str | Path], texts: str | Path) -> ExperimentMetrics:
    """The experiment's metrics (:class:`mtsig.studies.meta_evaluation.ExperimentMetrics`) from their statistics
    files (rule ``metric_stats``, all of the same systems): each one's system scores, those of resampled test sets
    and its segment-level form (sentence BLEU from the statistics and ``texts``, or each segment's own score)."""
    from mtsig.studies.meta_evaluation import ExperimentMetrics, corpus_metric

    corpus, of_counts, segments = {}, {}, {}
    systems: list[str] | None = None
    n_segments = 0
    for path in stats:
        metric = metric_name_of(path)
        statistics, names, _, scorer = load_scored_stats(path)
        if systems is None:
            systems, n_segments = list(names), statistics.shape[1]
        check_same_systems(systems, names, path, stats[0], "metric_stats")
        corpus[metric], of_counts[metric] = corpus_metric(statistics, scorer.score, scorer.higher_is_better)
        if metric == "bleu":
            segments[metric] = sentence_bleu(statistics, scorer.options, Path(texts))
            if segments[metric] is None:
                log.info("%s: BLEU has no sentence-level statistics; it is left out of PERM-BOTH", experiment)
        else:  # the score of each segment's own statistics
            sign = 1.0 if scorer.higher_is_better else -1.0
            segments[metric] = sign * np.asarray(scorer.score(statistics), dtype=np.float64)
    if systems is None:
        raise InputError(f"{experiment}: no metric statistics to meta-evaluate")
    return ExperimentMetrics(systems, n_segments, corpus, of_counts, segments)


def read_human_scores(
    experiment: str, system_scores: str | Path, systems: Sequence[str]
) -> tuple[str, dict[str, np.ndarray], dict[str, str]]:
    """(criterion, kind -> human system scores in the order of ``systems``, kind -> why it is missing) from
    ``system_scores`` (rule ``human_gold``; its first criterion when it has several): z and raw or either
    (:func:`mtsig.studies.meta_evaluation.available_human_scores`); a system without a human score, or no kind
    of score at all, is an error saying why."""
    from mtsig.studies.meta_evaluation import available_human_scores

    human = read_gold_table(system_scores, ("system", "criterion", "mean_z", "mean_raw"))
    criterion = human["criterion"].iloc[0]
    if human["criterion"].nunique() > 1:
        log.info("%s: the human system scores of criterion %s are correlated", experiment, criterion)
        human = human.loc[human["criterion"] == criterion]
    by_system = human.set_index("system")
    unrated = [s for s in systems if s not in by_system.index]
    if unrated:
        raise InputError(f"no human system score for {', '.join(unrated)}", system_scores)
    extra = sorted(set(by_system.index) - set(systems))
    if extra:
        log.info("%s: %s rated by the humans but scored by no metric: left out", experiment, ", ".join(extra))
    human_scores, missing = available_human_scores(by_system, systems)
    if not human_scores:
        raise InputError(
            "no human system score to meta-evaluate against: " + "; ".join(missing.values()), system_scores
        )
    for kind, reason in missing.items():
        log.info("%s: no correlations with the human %s scores: %s", experiment, kind, reason)
    return criterion, human_scores, missing


def meta_evaluation(
    experiment: str,
    settings: Mapping[str, Any],
    seed: int,
    *,
    stats: Sequence[str | Path],
    texts: str | Path,
    system_scores: str | Path,
    gold_conclusions: str | Path,
    correlations: str | Path,
    williams: str | Path,
    winners: str | Path,
    intervals: str | Path,
    perm_both: str | Path,
    accuracy: str | Path,
    accuracy_tests: str | Path,
    md: str | Path,
    html: str | Path,
    heatmap: str | Path,
) -> None:
    """Correlations with the human system scores (all systems and without outliers), Williams tests and winners,
    bootstrap intervals, PERM-BOTH and pairwise accuracy against the experiment's golds for every metric of
    ``experiment`` (its ``stats``), the Markdown table and the Williams heatmap (all systems). The human scores are
    those of ``system_scores`` that every system has, z and raw or either (segment means of z carry no raw
    scores): the TSVs' ``human`` column and the table say which; none at all is an error saying why. A metric
    whose system scores correlate strongly negatively with the humans' is logged as a warning and noted under the
    table (:func:`warn_reversed_orientation`). ``settings``: the config's ``meta_evaluation`` block; ``seed``: the
    run's base seed."""
    from mtsig.report.meta_evaluation import experiment_meta_evaluation_markdown, williams_heatmap
    from mtsig.report.tables import human_label
    from mtsig.settings import MetaEvaluation, build
    from mtsig.studies.meta_evaluation import meta_evaluate_experiment

    options = build(MetaEvaluation, settings, "meta_evaluation")
    metrics = read_metrics(experiment, stats, texts)
    criterion, human, missing = read_human_scores(experiment, system_scores, metrics.systems)
    gold = read_gold_table(gold_conclusions, ("gold", "sys_x", "sys_y", "alpha", "conclusion"))
    result = meta_evaluate_experiment(experiment, metrics, human, gold, options, seed=seed)
    label, n_systems = f"{human_label(criterion)} {result.human}", len(metrics.systems)
    log_reversed_orientation(experiment, result.reversed_metrics, label, n_systems)
    recorded = {"experiment": experiment, "settings": dict(settings), "seed": seed}
    outputs = {
        "correlations": correlations,
        "williams": williams,
        "winners": winners,
        "intervals": intervals,
        "perm_both": perm_both,
        "accuracy": accuracy,
        "accuracy_tests": accuracy_tests,
    }
    for key, path in outputs.items():
        write_tsv(result.tables[key], path, made_by="meta_evaluation", settings=recorded)
    page = experiment_meta_evaluation_markdown(
        experiment, result.tables, criterion=criterion, alpha=options.alpha, human=result.human,
        missing_human=missing, reversed_metrics=result.reversed_metrics,
    )  # fmt: skip
    write_markdown(page, md, html, made_by="meta_evaluation", settings=recorded)
    title = f"{experiment}: Williams test of Pearson r with the human {criterion} {result.human}, {n_systems} systems"
    williams_heatmap(result.williams_primary, title, [heatmap], alpha=options.alpha)
    correlations_table = result.tables["correlations"]
    log.info(
        "%s: %d systems, %d metrics; outliers (MAD): %s",
        experiment,
        n_systems,
        len(metrics.corpus),
        correlations_table.loc[lambda t: t["systems"] == "no_outliers", "outliers"].iloc[0] or "none",
    )
