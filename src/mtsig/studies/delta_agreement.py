"""The metric deltas humans notice, from every system pair with a human gold in the run
(:mod:`mtsig.stats.meta_evaluation.delta_agreement`; Kocmi et al. 2021, 2024): the text-metric experiments
(WMT12, WMT22, MQM), the 18 language pairs of the WMT20 metrics task (its ~30 metrics' system scores against
its DA gold) and a metrics-task protocol's language pairs (WMT23: chosen metrics' system scores against a
paired MQM gold)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.stats.meta_evaluation.delta_agreement import oriented_pairs

#: Human translations rated as systems (WMT20 Human-A, ...): not MT systems, left out as the metrics task does.
HUMAN_TRANSLATION = re.compile(r"^Human-")


def experiment_pairs(
    scores: pd.DataFrame, human_scores: pd.DataFrame, gold_conclusions: pd.DataFrame, alpha: float,
    higher_is_better: Mapping[str, bool],
) -> pd.DataFrame:  # fmt: skip
    """One experiment's oriented pairs: metric scores ``system, metric, score``; human ``system, criterion,
    mean_z`` (averaged over criteria); the primary gold's conclusions at ``alpha``."""
    human = human_scores.groupby("system")["mean_z"].mean()
    gold = gold_conclusions[gold_conclusions["gold"] == gold_conclusions["gold"].iloc[0]]
    gold = gold[np.isclose(gold["alpha"], alpha)]
    return oriented_pairs(scores, human, gold, dict(higher_is_better))


def metrics_task_pairs(
    system_scores: pd.DataFrame, golds: Mapping[str, pd.DataFrame], alpha: float, human: str = "human_z"
) -> pd.DataFrame:
    """Every language pair's oriented pairs: ``system_scores`` (``lp, system, source, score``; every metric of the
    task stored higher-is-better) and each pair's gold conclusions; human translations left out."""
    frames = []
    for lp, gold in golds.items():
        rows = system_scores[
            (system_scores["lp"] == lp) & ~system_scores["system"].str.match(HUMAN_TRANSLATION)
        ]
        human_scores = rows[rows["source"] == human].set_index("system")["score"]
        metrics = rows[~rows["source"].str.startswith("human_")].rename(columns={"source": "metric"})
        chosen = gold[np.isclose(gold["alpha"], alpha)]
        frames.append(
            oriented_pairs(metrics[["system", "metric", "score"]], human_scores, chosen, {}).assign(source=lp)
        )
    return pd.concat(frames, ignore_index=True)


def protocol_pairs(
    experiment: str,
    system_scores: pd.DataFrame,
    gold_conclusions: pd.DataFrame,
    alpha: float,
    metrics: Sequence[str],
    human: str = "human_mqm",
) -> pd.DataFrame:
    """A metrics-task protocol experiment's oriented pairs (:mod:`mtsig.studies.metrics_protocol.beyond`): its MT
    systems' ``system_scores`` (``lp, system, source, score``; the MQM system score under ``human``) and the MQM
    gold's conclusions of every language pair (``lp, sys_x, sys_y, alpha, conclusion``), for the ``metrics``
    named. Each metric is labelled ``"<metric> (<experiment> MQM)"`` and each source ``"<experiment> <lp>"``, so
    that its curve is fitted on its own, apart from a metric of the same name on another gold (WMT20's BLEU on DA).

    Raises:
        InputError: a metric in ``metrics`` without system scores.
    """
    missing = sorted(set(metrics) - set(system_scores["source"]))
    if missing:
        raise InputError(
            f"{experiment}: no system scores of {', '.join(missing)} for the delta-agreement curves"
        )
    chosen = system_scores[system_scores["source"].isin([human, *metrics])]
    golds = {lp: frame for lp, frame in gold_conclusions.groupby("lp", sort=True)}
    pairs = metrics_task_pairs(chosen, golds, alpha, human=human)
    return pairs.assign(
        metric=[f"{m} ({experiment} MQM)" for m in pairs["metric"]],
        source=[f"{experiment} {lp}" for lp in pairs["source"]],
    )


def left_out_summary(pairs: pd.DataFrame, outliers: pd.DataFrame) -> pd.DataFrame:
    """Per metric of ``pairs`` (with its ``left_out`` column), what was left out of its fit: ``metric,
    left_out_systems, left_out_pairs, left_out``, the last naming each outlier of
    :func:`mtsig.stats.meta_evaluation.delta_agreement.metric_score_outliers` (``"NiuTrans.1511 in en-zh
    (score -25.02, robust z 231.4)"``, several joined by ``"; "``, empty when none)."""
    counts = pairs.groupby("metric", sort=True)["left_out"].sum().astype(int).rename("left_out_pairs")
    texts = [
        f"{row.system} in {row.source} (score {row.score:.4g}, robust z {row.robust_z:.1f})"
        for row in outliers.itertuples(index=False)
    ]
    named = pd.Series(texts, index=outliers["metric"].to_numpy(), dtype=object).groupby(level=0)
    systems = outliers.groupby("metric").size()
    return pd.DataFrame(
        {
            "metric": counts.index,
            "left_out_systems": systems.reindex(counts.index, fill_value=0).to_numpy(dtype=int),
            "left_out_pairs": counts.to_numpy(),
            "left_out": named.agg("; ".join).reindex(counts.index, fill_value="").to_numpy(),
        }
    )


@dataclass(frozen=True)
class ExperimentInput:
    """A text-metric experiment's tables: its metric ``scores`` (``system, metric, score``), ``human`` system
    scores and ``gold_conclusions`` (rule ``human_gold``), named ``source`` in the pairs."""

    source: str
    scores: pd.DataFrame
    human: pd.DataFrame
    gold_conclusions: pd.DataFrame


@dataclass(frozen=True)
class ProtocolInput:
    """A metrics-task protocol experiment's MT system scores and MQM gold conclusions (rule ``metrics_protocol``)
    and the metrics of it that take part (none: the experiment is left out)."""

    experiment: str
    system_scores: pd.DataFrame
    gold_conclusions: pd.DataFrame
    metrics: tuple[str, ...]


@dataclass(frozen=True)
class DeltaAgreement:
    """Every oriented (metric, system pair) row with its ``left_out`` mark (``pairs``), the metric-score outliers
    (``outliers``), the fitted curves with their bands (``curves``) and each metric's summary with what was left
    out of it (``summary``)."""

    pairs: pd.DataFrame
    outliers: pd.DataFrame
    curves: pd.DataFrame
    summary: pd.DataFrame


def delta_agreement(
    experiments: Sequence[ExperimentInput],
    metrics_task: tuple[pd.DataFrame, Mapping[str, pd.DataFrame]] | None,
    protocols: Sequence[ProtocolInput],
    *,
    alpha: float,
    metric_outlier_cutoff: float,
    bootstrap_samples: int,
    seed: int,
) -> DeltaAgreement:
    """P(humans agree | metric delta) for every metric (Kocmi et al. 2021, Sec. 4; 2024): the oriented pairs of
    the text-metric experiments (:func:`experiment_pairs`, the run's own metrics, oriented by the registry's
    ``higher_is_better``), of the metrics task (``metrics_task``: its system scores and its per-pair golds,
    :func:`metrics_task_pairs`) and of the protocols (:func:`protocol_pairs`); the pairs of a metric-score outlier
    (robust z above ``metric_outlier_cutoff``,
    :func:`mtsig.stats.meta_evaluation.delta_agreement.metric_score_outliers`) are marked and not fitted; the
    curves' bootstrap draws from ``rng_for(seed, "delta_agreement")``."""
    from mtsig.metrics import METRICS, get_metric
    from mtsig.stats.meta_evaluation.delta_agreement import (
        agreement_curves,
        left_out_pairs,
        metric_score_outliers,
    )
    from mtsig.stats.seeding import rng_for

    frames = []
    for experiment in experiments:
        scores = experiment.scores[
            experiment.scores["metric"].isin(list(METRICS))
        ]  # declared ones: no registry
        directions = {name: get_metric(name).higher_is_better for name in set(scores["metric"])}
        pairs = experiment_pairs(scores, experiment.human, experiment.gold_conclusions, alpha, directions)
        frames.append(pairs.assign(source=experiment.source))
    if metrics_task is not None:
        frames.append(metrics_task_pairs(metrics_task[0], metrics_task[1], alpha))
    for protocol in protocols:
        if protocol.metrics:
            frames.append(
                protocol_pairs(
                    protocol.experiment,
                    protocol.system_scores,
                    protocol.gold_conclusions,
                    alpha,
                    protocol.metrics,
                )
            )
    table = pd.concat(frames, ignore_index=True)
    flagged = metric_score_outliers(table, cutoff=metric_outlier_cutoff)
    table = table.assign(left_out=left_out_pairs(table, flagged))
    fitted, coefficients = agreement_curves(
        table[~table["left_out"]], n_boot=bootstrap_samples, rng=rng_for(seed, "delta_agreement")
    )
    coefficients = coefficients.merge(left_out_summary(table, flagged), on="metric", how="left")
    return DeltaAgreement(table, flagged, fitted, coefficients)
