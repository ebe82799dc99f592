"""Steps of ``workflow/rules/segment_level.smk``: RankEval measures (Avramidis 2013)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from mtsig.errors import InputError
from mtsig.stats.seeding import derive_seed
from mtsig.steps.common import check_same_systems, load_scored_stats, read_prepared_texts
from mtsig.steps.files import (
    metric_name_of,
    regenerate_hint,
    write_text,
    write_tsv,
)

log = logging.getLogger("mtsig")


def segment_level(
    inputs: Mapping[str, Any],
    *,
    spec: Mapping[str, Any] | None,
    seed: int,
    bootstrap_samples: int,
    outputs: Mapping[str, str],
    predicted_rankings: Mapping[str, str] | None = None,
    convention: str = "both",
) -> None:
    """RankEval measures (Avramidis 2013) for one ranking data set: a WMT experiment's metrics (sentence BLEU
    from the texts, every other metric from its per-segment statistics), or a JCML set's consensus predictors;
    plus any user-supplied predicted rankings (name -> file).  ``convention`` (``segment_level.convention``):
    ``paper``, ``rankeval_tool`` (the RankEval tool's code) or ``both``, one block of rows each, marked in the
    table's ``convention`` column (:func:`mtsig.studies.rankeval.segment_level_table`)."""
    from mtsig.report.tables import frame_to_markdown
    from mtsig.studies import rankeval

    if "jcml" in inputs:
        name = Path(inputs["jcml"]).name
        table = rankeval.jcml_segment_level(
            inputs["jcml"],
            n_samples=bootstrap_samples,
            seed=seed,
            predicted_rankings=predicted_rankings,
            convention=convention,
        )
    else:
        name = spec["name"]
        reference, outputs_by_system = read_prepared_texts(Path(inputs["texts"]))
        systems = list(outputs_by_system)
        scores = {"bleu": rankeval.sentence_bleu_scores(outputs_by_system, reference)}
        for path in inputs["stats"]:
            metric = metric_name_of(path)
            if metric == "bleu":
                continue
            stats, names, _, scorer = load_scored_stats(path)
            check_same_systems(systems, names, path, Path(inputs["texts"]) / "systems.txt", "metric_stats")
            if stats.shape[1] != len(reference):
                raise InputError(
                    f"{stats.shape[1]} segments where the prepared reference has {len(reference)}; "
                    + regenerate_hint(path, "metric_stats", None),
                    path,
                )
            segment = np.asarray(scorer.score(stats), dtype=float)  # score of each segment's own statistics
            scores[metric] = segment if scorer.higher_is_better else -segment
        human = spec["human"]
        table = rankeval.wmt_segment_level(
            inputs["rankings"][0],
            (human["source_language"], human["target_language"]),
            systems,
            scores,
            n_samples=bootstrap_samples,
            seed=derive_seed(seed, name, "segment_level"),
            predicted_rankings=predicted_rankings,
            convention=convention,
        )
    write_tsv(table, outputs["table"])
    wide = table.pivot_table(index=["convention", "predictor"], columns="measure", values="value", sort=False)
    text = (
        f"# Segment-level meta-evaluation: {name}\n\n"
        "RankEval measures (Avramidis 2013) of each predictor against the human rankings: Kendall's tau with WMT's "
        "penalised ties (micro and macro averaged, with its p-value), MRR, NDCG, ERR, average human rank of the "
        "predicted best, and best-predicted-vs-human (bph_<human rank>) in percent of the judgments. Higher score = "
        "better = rank 1; equal scores tie. Convention `paper` follows the paper's equations; `rankeval_tool` "
        "reproduces the RankEval tool's code (blank ranks as the best rank, tied predictions overwriting each "
        "other in NDCG/ERR, ...; see config/README.md).\n\n"
    )
    write_text(text + frame_to_markdown(wide.reset_index()), outputs["md"], made_by="segment_level")
