"""Steps of ``workflow/rules/human.smk``: the gold standard from human judgments (paper Sec. 4)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mtsig.io.judgments import load_judgments, load_moments
from mtsig.settings import HumanGold, HumanSource, QualityControl, Standardise, as_block, build
from mtsig.steps.common import read_experiment_systems, read_prepared_texts
from mtsig.steps.files import write_tsv

if TYPE_CHECKING:
    from mtsig.stats.human_gold import GoldStandard

log = logging.getLogger("mtsig")


def human_gold(
    human_source: HumanSource | Mapping[str, Any],
    gold_settings: HumanGold | Mapping[str, Any],
    data_root: str | Path,
    *,
    texts: str | Path,
    alphas: Sequence[float],
    z: str | Path,
    qc: str | Path,
    system_scores: str | Path,
    gold: str | Path,
    conclusions: str | Path,
    quality_control: QualityControl | Mapping[str, Any] | None = None,
    standardise: Standardise | Mapping[str, Any] | None = None,
    documents: str | Path | None = None,
) -> None:
    """Standardised ratings, QC, gold p-values and conclusions, human system scores (paper Sec. 4), from the
    experiment's ``human`` (``human_source``; the rule's input ``human`` is its files), ``qc``
    (``quality_control``), ``standardise`` and ``gold`` (``gold_settings``) blocks
    (:class:`mtsig.settings.HumanSource`, ``QualityControl``, ``Standardise``, ``HumanGold``; absent: their
    defaults): the judgments read by the format's reader (:func:`mtsig.io.judgments.load_judgments`), the gold
    built by :func:`mtsig.stats.human_gold.build_gold`. The systems and the test set's size come from
    ``texts/systems.txt`` and ``documents`` (``documents.tsv``: an experiment may have no texts), or without
    ``documents`` from the prepared texts."""
    from mtsig.stats.human_gold import build_gold

    if documents is None:
        reference, outputs = read_prepared_texts(Path(texts))
        systems, n_segments = list(outputs), len(reference)
    else:
        systems, n_segments = read_experiment_systems(Path(texts), Path(documents))
    source = build(HumanSource, human_source, "human")
    chosen = build(HumanGold, gold_settings, "gold")
    standardisation = build(Standardise, standardise, "standardise")
    moments = load_moments(standardisation.moments, data_root)
    result = build_gold(
        load_judgments(source, data_root, n_segments, systems, moments),
        systems,
        alphas,
        moments=moments,
        qc=build(QualityControl, quality_control, "qc"),
        standardisation=standardisation,
        gold=chosen,
    )
    settings = {"systems": systems, "alphas": [float(a) for a in alphas], "gold": as_block(chosen)}
    write_tsv(result.z, z)
    write_tsv(result.qc, qc)
    write_tsv(result.system_scores, system_scores, made_by="human_gold", settings=settings)
    write_tsv(result.gold, gold, made_by="human_gold", settings=settings)
    write_tsv(result.gold_conclusions, conclusions, made_by="human_gold", settings=settings)
    log_gold(result, alphas)


def log_gold(result: GoldStandard, alphas: Sequence[float]) -> None:
    """Log what :func:`mtsig.stats.human_gold.build_gold` dropped and kept, and how many pairs the primary gold
    calls significant at each alpha."""
    for annotator, reason in result.dropped.itertuples(index=False):
        log.info("dropped annotator %s: %s", annotator, reason)
    for annotator in result.zero_z:
        log.info("annotator %s: zero variance, kept with z = 0 (standardise.zero_variance: zero)", annotator)
    primary = result.gold_conclusions
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
