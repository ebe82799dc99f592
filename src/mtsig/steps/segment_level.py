"""Steps of ``workflow/rules/segment_level.smk``: RankEval measures (Avramidis 2013)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from mtsig.errors import InputError
from mtsig.metrics.base import Metric
from mtsig.stats.seeding import derive_seed
from mtsig.steps.common import check_same_systems, load_scored_stats, read_prepared_texts
from mtsig.steps.files import (
    metric_name_of,
    regenerate_hint,
    write_markdown,
    write_tsv,
)

log = logging.getLogger("mtsig")


def segment_level(
    *,
    jcml: str | Path | Sequence[str],
    rankings: Sequence[str | Path],
    texts: str | Path | Sequence[str],
    stats: Sequence[str | Path],
    experiment: str,
    languages: Sequence[str] | None,
    seed: int,
    bootstrap_samples: int,
    predicted_rankings: Mapping[str, str],
    convention: str,
    table: str | Path,
    md: str | Path,
    html: str | Path,
) -> None:
    """RankEval measures (Avramidis 2013) for one ranking data set: a WMT experiment's metrics (sentence BLEU
    from the texts, every other metric from its per-segment statistics), or a JCML set's consensus predictors;
    plus any user-supplied predicted rankings (name -> file).  ``convention`` (``segment_level.convention``):
    ``paper``, ``rankeval_tool`` (the RankEval tool's code) or ``both``, one block of rows each, marked in the
    table's ``convention`` column (:func:`mtsig.studies.rankeval.segment_level_table`). A JCML set names its file
    in ``jcml``; a WMT experiment its ``rankings``, prepared ``texts`` and metric ``stats`` (the others empty) and
    its ``languages`` (source, target) as its RNK file names them (the experiment's ``human`` block)."""
    from mtsig.io.rankings import load_jcml, load_predicted_ranking, load_wmt_rankings
    from mtsig.report.tables import segment_level_markdown
    from mtsig.studies import rankeval

    table_path, md_path = table, md  # the result takes the name ``table``
    predicted = {n: load_predicted_ranking(p) for n, p in predicted_rankings.items()}
    if jcml:
        name = Path(str(jcml)).name
        options = rankeval.RankEvalOptions(n_samples=bootstrap_samples, seed=seed, convention=convention)
        table = rankeval.jcml_segment_level(
            load_jcml(str(jcml)), Path(str(jcml)).stem, options=options, predicted_rankings=predicted
        )
    else:
        if languages is None or len(languages) != 2:
            raise InputError(
                f"{experiment}: the rankings' source and target language are needed, got {languages}"
            )
        name = experiment
        source_language, target_language = languages
        reference, outputs_by_system = read_prepared_texts(Path(texts))
        table = rankeval.wmt_experiment_segment_level(
            load_wmt_rankings(rankings[0], source_language, target_language),
            (source_language, target_language),
            segment_stats(stats, list(outputs_by_system), len(reference), Path(texts)),
            outputs_by_system,
            reference,
            one_reference=not (Path(texts) / "reference.2.txt").exists(),
            options=rankeval.RankEvalOptions(
                n_samples=bootstrap_samples,
                seed=derive_seed(seed, name, "segment_level"),
                convention=convention,
            ),
            predicted_rankings=predicted,
            source=rankings[0],
        )
    write_tsv(table, table_path)
    write_markdown(segment_level_markdown(name, table), md_path, html, made_by="segment_level")


def segment_stats(
    stats: Sequence[str | Path], systems: Sequence[str], n_segments: int, texts: Path
) -> dict[str, tuple[np.ndarray, Metric]]:
    """metric -> (statistics, metric) of every statistics file, each of ``systems`` and ``n_segments`` segments
    (the prepared texts')."""
    by_metric = {}
    for path in stats:
        statistics, names, _, scorer = load_scored_stats(path)
        check_same_systems(systems, names, path, texts / "systems.txt", "metric_stats")
        if statistics.shape[1] != n_segments:
            raise InputError(
                f"{statistics.shape[1]} segments where the prepared reference has {n_segments}; "
                + regenerate_hint(path, "metric_stats", None),
                path,
            )
        by_metric[metric_name_of(path)] = (statistics, scorer)
    return by_metric
