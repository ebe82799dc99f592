"""Steps of ``workflow/rules/meta_evaluation.smk``: which of an experiment's metrics agrees best with its humans
(:mod:`mtsig.studies.meta_evaluation`)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mtsig.errors import InputError
from mtsig.stats.intervals import confidence_level
from mtsig.steps.common import check_same_systems, load_scored_stats, read_gold_table, sentence_bleu
from mtsig.steps.files import metric_name_of, write_markdown, write_tsv

log = logging.getLogger("mtsig")


def warn_reversed_orientation(
    experiment: str, metrics: Mapping[str, np.ndarray], human: np.ndarray, human_label: str
) -> dict[str, tuple[float, float]]:
    """Log a warning for every metric whose system scores (oriented as declared) correlate strongly negatively with
    the human ones (:func:`mtsig.stats.meta_evaluation.reversed_orientation`): its ``higher_is_better`` is most
    likely wrong. Returns the flagged metrics, ``{metric: (r, p)}``."""
    from mtsig.stats.meta_evaluation import reversed_orientation

    flagged = reversed_orientation(metrics, human)
    for metric, (r, p) in flagged.items():
        log.warning(
            "%s: metric %s: its system scores correlate with the human %s scores at Pearson r = %.3f (one-sided "
            "p = %.2g, %d systems): check higher_is_better",
            experiment,
            metric,
            human_label,
            r,
            p,
            len(human),
        )
    return flagged


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
    from mtsig.studies import meta_evaluation as study

    human = read_gold_table(system_scores, ("system", "criterion", "mean_z", "mean_raw"))
    criterion = human["criterion"].iloc[0]
    if human["criterion"].nunique() > 1:
        log.info("%s: the human system scores of criterion %s are correlated", experiment, criterion)
        human = human.loc[human["criterion"] == criterion]
    corpus, of_counts, segments = {}, {}, {}
    systems: list[str] | None = None
    n_segments = 0
    for path in stats:
        metric = metric_name_of(path)
        statistics, names, _, scorer = load_scored_stats(path)
        if systems is None:
            systems, n_segments = list(names), statistics.shape[1]
        check_same_systems(systems, names, path, stats[0], "metric_stats")
        corpus[metric], of_counts[metric] = study.corpus_metric(
            statistics, scorer.score, scorer.higher_is_better
        )
        if metric == "bleu":
            segments[metric] = sentence_bleu(statistics, scorer.options, Path(texts))
            if segments[metric] is None:
                log.info("%s: BLEU has no sentence-level statistics; it is left out of PERM-BOTH", experiment)
        else:  # the score of each segment's own statistics
            sign = 1.0 if scorer.higher_is_better else -1.0
            segments[metric] = sign * np.asarray(scorer.score(statistics), dtype=np.float64)
    if systems is None:
        raise InputError(f"{experiment}: no metric statistics to meta-evaluate")
    by_system = human.set_index("system")
    unrated = [s for s in systems if s not in by_system.index]
    if unrated:
        raise InputError(f"no human system score for {', '.join(unrated)}", system_scores)
    extra = sorted(set(by_system.index) - set(systems))
    if extra:
        log.info("%s: %s rated by the humans but scored by no metric: left out", experiment, ", ".join(extra))
    human_scores, missing = study.available_human_scores(by_system, systems)
    if not human_scores:
        raise InputError(
            "no human system score to meta-evaluate against: " + "; ".join(missing.values()), system_scores
        )
    for kind, reason in missing.items():
        log.info("%s: no correlations with the human %s scores: %s", experiment, kind, reason)
    primary = study.primary_human_kind(human_scores)
    reversed_metrics = warn_reversed_orientation(
        experiment, corpus, human_scores[primary], f"{human_label(criterion)} {primary}"
    )
    results = study.experiment_meta_evaluation(
        experiment,
        study.ExperimentMetrics(systems, n_segments, corpus, of_counts, segments),
        human_scores,
        read_gold_table(gold_conclusions, ("gold", "sys_x", "sys_y", "alpha", "conclusion")),
        bootstrap_samples=int(settings["bootstrap_samples"]),
        permutation_samples=int(settings["permutation_samples"]),
        confidence=confidence_level(settings["confidence"]),
        alpha=float(settings["alpha"]),
        seed=seed,
    )
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
        write_tsv(results[key], path, made_by="meta_evaluation", settings=recorded)
    write_markdown(
        experiment_meta_evaluation_markdown(
            experiment,
            results,
            criterion=criterion,
            alpha=float(settings["alpha"]),
            human=primary,
            missing_human=missing,
            reversed_metrics=reversed_metrics,
        ),
        md,
        html,
        made_by="meta_evaluation",
        settings=recorded,
    )
    chosen = results["williams"]
    chosen = chosen.loc[(chosen["human"] == primary) & (chosen["systems"] == "all")]
    williams_heatmap(
        chosen,
        f"{experiment}: Williams test of Pearson r with the human {criterion} {primary}, {len(systems)} systems",
        [heatmap],
        alpha=float(settings["alpha"]),
    )
    log.info(
        "%s: %d systems, %d metrics; outliers (MAD): %s",
        experiment,
        len(systems),
        len(corpus),
        results["correlations"].loc[lambda t: t["systems"] == "no_outliers", "outliers"].iloc[0] or "none",
    )
