"""Steps of ``workflow/rules/segment_level.smk``: RankEval measures (Avramidis 2013)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mtsig.errors import InputError
from mtsig.stats.seeding import derive_seed
from mtsig.steps.common import check_same_systems, load_scored_stats, read_prepared_texts, sentence_bleu
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
    spec: Mapping[str, Any] | None,
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
    in ``jcml``; a WMT experiment its ``rankings``, prepared ``texts`` and metric ``stats`` (the others empty)."""
    from mtsig.io.rankings import load_jcml, load_predicted_ranking, load_wmt_rankings
    from mtsig.metrics.bleu import sentence_bleu_scores
    from mtsig.report.tables import segment_level_markdown
    from mtsig.studies import rankeval

    table_path, md_path = table, md  # the result takes the name ``table``
    predicted = {n: load_predicted_ranking(p) for n, p in predicted_rankings.items()}
    if jcml:
        name = Path(str(jcml)).name
        table = rankeval.jcml_segment_level(
            load_jcml(str(jcml)),
            Path(str(jcml)).stem,
            n_samples=bootstrap_samples,
            seed=seed,
            predicted_rankings=predicted,
            convention=convention,
        )
    else:
        name = spec["name"]
        reference, outputs_by_system = read_prepared_texts(Path(texts))
        systems = list(outputs_by_system)
        scores = {}
        for path in stats:
            metric = metric_name_of(path)
            statistics, names, _, scorer = load_scored_stats(path)
            check_same_systems(systems, names, path, Path(texts) / "systems.txt", "metric_stats")
            if statistics.shape[1] != len(reference):
                raise InputError(
                    f"{statistics.shape[1]} segments where the prepared reference has {len(reference)}; "
                    + regenerate_hint(path, "metric_stats", None),
                    path,
                )
            if metric == "bleu":
                scores[metric] = sentence_bleu(statistics, scorer.options, Path(texts))
            else:  # the score of each segment's own statistics
                segment = np.asarray(scorer.score(statistics), dtype=float)
                scores[metric] = segment if scorer.higher_is_better else -segment
        # BLEU first, as the table lists it; from the texts when the experiment has no usable BLEU statistics.
        bleu = scores.pop("bleu", None)
        if bleu is None:
            bleu = sentence_bleu_scores(outputs_by_system, reference)
        scores = {"bleu": bleu, **scores}
        languages = (spec["human"]["source_language"], spec["human"]["target_language"])
        table = rankeval.wmt_segment_level(
            load_wmt_rankings(rankings[0], *languages),
            languages,
            systems,
            scores,
            n_samples=bootstrap_samples,
            seed=derive_seed(seed, name, "segment_level"),
            predicted_rankings=predicted,
            convention=convention,
            source=rankings[0],
        )
    write_tsv(table, table_path)
    write_markdown(segment_level_markdown(name, table), md_path, html, made_by="segment_level")
