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
    data_root: str | Path,
    *,
    texts: str | Path,
    alphas: Sequence[float],
    z: str | Path,
    qc: str | Path,
    system_scores: str | Path,
    gold: str | Path,
    conclusions: str | Path,
) -> None:
    """Standardised ratings, QC, gold p-values and conclusions, human system scores (paper Sec. 4)."""
    from mtsig.stats.human import build_gold

    reference, systems = read_prepared_texts(Path(texts))
    result = build_gold(
        spec["human"],
        Path(data_root),
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
    write_tsv(result["z"], z)
    write_tsv(result["qc"], qc)
    write_tsv(result["system_scores"], system_scores, made_by="human_gold", settings=settings)
    write_tsv(result["gold"], gold, made_by="human_gold", settings=settings)
    write_tsv(result["gold_conclusions"], conclusions, made_by="human_gold", settings=settings)
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
