"""Steps of ``workflow/rules/human.smk``: the gold standard from human judgments (paper Sec. 4)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mtsig.steps.common import read_prepared_texts
from mtsig.steps.files import (
    write_tsv,
)

log = logging.getLogger("mtsig")


def human_gold(
    spec: Mapping[str, Any],
    data_root: Path,
    *,
    texts_dir: Path,
    alphas: Sequence[float],
    outputs: Mapping[str, str],
) -> None:
    """Standardised ratings, QC, gold p-values and conclusions, human system scores (paper Sec. 4)."""
    from mtsig.stats.human import build_gold

    reference, systems = read_prepared_texts(texts_dir)
    result = build_gold(
        spec["human"],
        data_root,
        list(systems),
        len(reference),
        alphas,
        qc=spec.get("qc", {}),
        standardise_options=spec.get("standardise", {}),
        gold=spec["gold"],
    )
    for annotator, reason in result["dropped"].itertuples(index=False):
        log.info("dropped annotator %s: %s", annotator, reason)
    for annotator in result["zero_z"]:
        log.info("annotator %s: zero variance, kept with z = 0 (standardise.zero_variance: zero)", annotator)
    settings = {"systems": list(systems), "alphas": [float(a) for a in alphas], "gold": spec["gold"]}
    write_tsv(result["z"], outputs["z"])
    write_tsv(result["qc"], outputs["qc"])
    write_tsv(result["system_scores"], outputs["system_scores"], made_by="human_gold", settings=settings)
    write_tsv(result["gold"], outputs["gold"], made_by="human_gold", settings=settings)
    write_tsv(result["gold_conclusions"], outputs["conclusions"], made_by="human_gold", settings=settings)
    primary = result["gold_conclusions"]
    primary = primary[primary["gold"] == primary["gold"].iloc[0]]
    for alpha in alphas:
        at = primary[primary["alpha"] == alpha]
        log.info(
            "gold %s at %g: %d of %d pairs significant",
            primary["gold"].iloc[0],
            alpha,
            int((at["conclusion"] != "tie").sum()),
            len(at),
        )
