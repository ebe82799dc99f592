"""Steps of ``workflow/rules/metrics.smk``: per-segment sufficient statistics and corpus scores."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from mtsig.steps.common import load_scored_stats, read_prepared_references, read_prepared_texts
from mtsig.steps.files import (
    metric_name_of,
    save_stats,
    write_tsv,
)

log = logging.getLogger("mtsig")


def metric_options(spec: Mapping[str, Any], metric: str) -> dict[str, Any]:
    """Options of a metric from the experiment's config (METEOR: language and modules)."""
    if metric == "meteor":
        meteor = dict(spec.get("meteor", {}))
        return {k: v for k, v in meteor.items() if k == "language"}  # modules follow the language
    return {}


def metric_stats(
    spec: Mapping[str, Any], metric: str, texts: str | Path, stats: str | Path, *, threads: int = 1
) -> None:
    """Per-segment sufficient statistics of ``metric`` for every system (systems x segments x k)."""
    from mtsig.metrics import get_metric

    reference, outputs = read_prepared_texts(Path(texts))
    reference = read_prepared_references(Path(texts), reference)  # several references: reference streams
    scorer = get_metric(metric, **metric_options(spec, metric))
    statistics = scorer.stats_many(outputs, reference, processes=threads)
    save_stats(stats, statistics, list(outputs), scorer.details(), scorer.options)
    log.info("%s: stats %s; %s", metric, statistics.shape, scorer.details())


def corpus_scores_table(stats_paths: Sequence[str | Path]) -> pd.DataFrame:
    """system, metric, score, details: each system's corpus score from its summed statistics."""
    rows = []
    for path in stats_paths:
        metric = metric_name_of(path)
        stats, systems, details, scorer = load_scored_stats(path)
        scores = scorer.score(stats.sum(axis=1))
        rows += [
            (system, metric, float(score), details) for system, score in zip(systems, scores, strict=True)
        ]
    return pd.DataFrame(rows, columns=["system", "metric", "score", "details"])


def corpus_scores(stats: Sequence[str | Path], scores: str | Path) -> None:
    """``scores.tsv``: every system's corpus score per metric (:func:`corpus_scores_table`)."""
    write_tsv(corpus_scores_table(stats), scores)
