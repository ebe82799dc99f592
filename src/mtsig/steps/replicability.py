"""Step of ``workflow/rules/replicability.smk``: partial conjunction tests over the run's experiments and over the
WMT20 language pairs (:mod:`mtsig.studies.replicability`)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from mtsig.steps.common import read_gold_table
from mtsig.steps.files import read_tsv, write_markdown, write_tsv

if TYPE_CHECKING:
    import pandas as pd

    from mtsig.studies.delta_agreement import DeltaAgreement, ExperimentInput, ProtocolInput

log = logging.getLogger("mtsig")

#: The columns of a protocol experiment's ``replication.tsv`` that the replicability study reads.
PROTOCOL_COLUMNS = ("protocol", "kind", "lp", "metric_a", "metric_b", "p_value")


def read_protocol_replication(paths: Sequence[str | Path]) -> pd.DataFrame:
    """The per-language-pair p-values of every protocol experiment (``results/<experiment>/replication.tsv`` of
    rule ``metrics_protocol``), with an ``experiment`` column."""
    import pandas as pd

    from mtsig.steps.files import read_intermediate_tsv

    return pd.concat(
        [
            read_intermediate_tsv(path, "metrics_protocol", columns=PROTOCOL_COLUMNS).assign(
                experiment=Path(path).parent.name
            )
            for path in paths
        ],
        ignore_index=True,
    )


def replicability(
    test_conclusions: Sequence[str | Path],
    gold_conclusions: Sequence[str | Path],
    williams: Sequence[str | Path],
    protocol_replication: Sequence[str | Path],
    tests: str | Path,
    tests_partial_conjunction: str | Path,
    metrics: str | Path,
    md: str | Path,
    html: str | Path,
    *,
    experiments: Sequence[str],
    language_pairs: Sequence[str],
    alpha: float,
    protocol_metrics: str | Path | None = None,
) -> None:
    """Is one test more accurate than another in at least k of the experiments (``test_conclusions`` and
    ``gold_conclusions``, one of each per experiment, in the order of ``experiments``)? Does metric A beat metric
    B in at least k of the ``language_pairs`` of ``williams`` (the metrics task's Williams tests; none: no rows)?
    And in at least k of a metrics-task protocol's language pairs (``protocol_replication``: each protocol
    experiment's per-language-pair p-values, ``results/<experiment>/replication.tsv``; written to
    ``protocol_metrics`` when there is one)?"""
    import pandas as pd

    from mtsig.report.replicability import replicability_markdown
    from mtsig.stats.evaluation import GOLD_CONCLUSION_COLUMNS
    from mtsig.studies.replicability import run_replicability

    tables = {
        name: (read_tsv(t), read_gold_table(g, ("gold", *GOLD_CONCLUSION_COLUMNS)))
        for name, t, g in zip(experiments, test_conclusions, gold_conclusions, strict=True)
    }
    williams_rows = pd.concat([read_tsv(path) for path in williams]) if williams else None
    replication = read_protocol_replication(protocol_replication) if protocol_replication else None
    result = run_replicability(tables, williams_rows, language_pairs, replication, alpha)
    if result.protocols is not None:
        log.info("%d ordered metric pairs of the protocols' tasks", len(result.protocols))
    for row in result.tests.itertuples(index=False):
        log.info(
            "%s in %s: %d vs %d, p = %.4g",
            row.comparison,
            row.experiment,
            row.only_a,
            row.only_b,
            row.p_value,
        )
    write_tsv(result.tests, tests)
    write_tsv(result.tests_combined, tests_partial_conjunction)
    write_tsv(result.metrics, metrics)
    if protocol_metrics is not None:
        write_tsv(result.protocols if result.protocols is not None else pd.DataFrame(), protocol_metrics)
    page = replicability_markdown(
        result.tests, result.tests_combined, result.metrics, alpha, protocol=result.protocols
    )
    write_markdown(page, md, html)


def read_experiment_inputs(
    scores: Sequence[str | Path], human: Sequence[str | Path], gold_conclusions: Sequence[str | Path]
) -> list[ExperimentInput]:
    """Each text-metric experiment's metric scores, human system scores and gold conclusions (one of each per
    experiment, in the same order), named after the experiment's folder."""
    from mtsig.stats.evaluation import GOLD_CONCLUSION_COLUMNS
    from mtsig.studies.delta_agreement import ExperimentInput

    experiments = []
    for score_path, human_path, gold_path in zip(scores, human, gold_conclusions, strict=True):
        table = read_tsv(score_path)
        log.info("%s: metrics %s", score_path, sorted(set(table["metric"])))
        gold = read_gold_table(gold_path, ("gold", *GOLD_CONCLUSION_COLUMNS))
        experiments.append(ExperimentInput(Path(score_path).parent.name, table, read_tsv(human_path), gold))
    return experiments


def read_protocol_inputs(
    protocol_scores: Sequence[str | Path],
    protocol_golds: Sequence[str | Path],
    protocol_metrics: Mapping[str, Sequence[str]],
) -> list[ProtocolInput]:
    """The MT system scores and MQM gold conclusions of each protocol experiment (``results/<experiment>/``) that
    ``protocol_metrics`` gives metrics."""
    from mtsig.stats.evaluation import GOLD_CONCLUSION_COLUMNS
    from mtsig.steps.files import read_intermediate_tsv
    from mtsig.studies.delta_agreement import ProtocolInput

    protocols = []
    for score_path, gold_path in zip(protocol_scores, protocol_golds, strict=True):
        experiment = Path(score_path).parent.name
        if protocol_metrics.get(experiment):
            protocols.append(
                ProtocolInput(
                    experiment,
                    read_intermediate_tsv(
                        score_path, "metrics_protocol", columns=("lp", "system", "source", "score")
                    ),
                    read_intermediate_tsv(
                        gold_path, "metrics_protocol", columns=("lp", *GOLD_CONCLUSION_COLUMNS)
                    ),
                    tuple(protocol_metrics[experiment]),
                )
            )
    return protocols


def delta_agreement(
    scores: Sequence[str | Path],
    human: Sequence[str | Path],
    gold_conclusions: Sequence[str | Path],
    metrics_task_scores: Sequence[str | Path],
    metrics_task_golds: Sequence[str | Path],
    protocol_scores: Sequence[str | Path],
    protocol_golds: Sequence[str | Path],
    pairs: str | Path,
    outliers: str | Path,
    curves: str | Path,
    summary: str | Path,
    md: str | Path,
    html: str | Path,
    figure: str | Path,
    *,
    alpha: float,
    seed: int,
    bootstrap_samples: int,
    metric_outlier_cutoff: float,
    protocol_metrics: Mapping[str, Sequence[str]],
) -> None:
    """P(humans agree | metric delta) for every metric, from the text-metric experiments (``scores``, ``human``,
    ``gold_conclusions``: one of each per experiment), the metrics task's system scores and per-pair golds
    (``metrics_task_golds``: ``.../<lp>/gold_conclusions.tsv``) and the metrics-task protocols' MT systems
    (``protocol_scores``, ``protocol_golds``: ``results/<experiment>/system_scores.tsv`` and
    ``mqm_gold_conclusions.tsv``, for the metrics ``protocol_metrics[<experiment>]``); the pairs of metric-score
    outliers (robust z above ``metric_outlier_cutoff``) are listed in ``outliers`` and marked ``left_out`` in
    ``pairs``, and not fitted."""
    import pandas as pd

    from mtsig.report.delta_agreement import delta_agreement_figure, delta_agreement_markdown
    from mtsig.stats.evaluation import GOLD_CONCLUSION_COLUMNS
    from mtsig.studies import delta_agreement as study

    metrics_task = None
    if metrics_task_scores:
        golds = {
            Path(p).parent.name: read_gold_table(p, ("gold", *GOLD_CONCLUSION_COLUMNS))
            for p in metrics_task_golds
        }
        metrics_task = (pd.concat([read_tsv(p) for p in metrics_task_scores]), golds)
    experiments = read_experiment_inputs(scores, human, gold_conclusions)
    protocols = read_protocol_inputs(protocol_scores, protocol_golds, protocol_metrics)
    result = study.delta_agreement(
        experiments, metrics_task, protocols, alpha=alpha, metric_outlier_cutoff=metric_outlier_cutoff,
        bootstrap_samples=bootstrap_samples, seed=seed,
    )  # fmt: skip
    log_delta_agreement(result)
    write_tsv(result.pairs, pairs)
    write_tsv(result.outliers, outliers)
    write_tsv(result.curves, curves)
    write_tsv(result.summary, summary)
    page = delta_agreement_markdown(result.summary, result.outliers, alpha, metric_outlier_cutoff)
    write_markdown(page, md, html)
    delta_agreement_figure(result.pairs, result.curves, result.summary, figure)


def log_delta_agreement(result: DeltaAgreement) -> None:
    """Log each metric-score outlier left out and the size of the pairs table
    (a :class:`mtsig.studies.delta_agreement.DeltaAgreement`)."""
    for row in result.outliers.itertuples(index=False):
        log.info(
            "left out: %s %s in %s, score %g, robust z %.1f (%d pairs)",
            row.metric, row.system, row.source, row.score, row.robust_z, row.pairs,
        )  # fmt: skip
    table = result.pairs
    log.info(
        "%d oriented (metric, system pair) rows, %d metrics, %d left out (%d metric-score outliers)",
        len(table),
        table["metric"].nunique(),
        int(table["left_out"].sum()),
        len(result.outliers),
    )
