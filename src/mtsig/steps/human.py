"""Steps of ``workflow/rules/human.smk``: the gold standard from human judgments (paper Sec. 4)."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from mtsig.errors import InputError
from mtsig.pipeline import config as mtsig_config
from mtsig.settings import HumanGold, HumanSource, QualityControl, Standardise, as_block, build
from mtsig.steps.common import read_experiment_systems, read_prepared_texts
from mtsig.steps.files import write_tsv

log = logging.getLogger("mtsig")


def judgments_source(human: HumanSource, data_root: str | Path) -> Path:
    """The human judgment file named in errors (the folder that holds them when the format reads several)."""
    paths = judgment_paths(human, data_root)
    return paths[0] if len(paths) == 1 else Path(os.path.commonpath(paths))


def judgment_paths(human: HumanSource, data_root: str | Path) -> list[Path]:
    """The file(s) ``human.path`` names (one path or a list: ``esa``, ``mturk_batch``), from the data root."""
    paths = (human.path,) if isinstance(human.path, str) else human.path
    return [mtsig_config.data_path(data_root, p) for p in paths]


@dataclass(frozen=True)
class JudgmentRequest:
    """What every reader of :func:`load_judgments` is given: the experiment's ``human`` block, the data root its
    paths are relative to, the test set's size, the experiment's systems (None: any) and the organisers' printed
    per-annotator moments (None: none)."""

    human: HumanSource
    data_root: str | Path
    n_segments: int
    systems: Sequence[str] | None
    moments: pd.DataFrame | None

    def path(self, key: str = "path") -> Path:
        """The file the ``human`` block names under ``key``, resolved against the data root."""
        return mtsig_config.data_path(self.data_root, getattr(self.human, key))


def _wmt_rankings(request: JudgmentRequest) -> pd.DataFrame:
    from mtsig.io.rankings import load_wmt_rankings

    human = request.human
    return load_wmt_rankings(
        judgments_source(human, request.data_root),
        source_language=human.source_language,
        target_language=human.target_language,
    )


def _wmt_mturk_da(request: JudgmentRequest) -> pd.DataFrame:
    """WMT MTurk DA ratings; with ``z_path`` the organisers' own z of every rating, with ``complete_from`` the
    ratings of a zero-variance worker restored from their segment means."""
    from mtsig.io import human as human_io

    human, n_segments, systems = request.human, request.n_segments, request.systems
    sid2line = request.path("sid2line")
    ratings = human_io.load_wmt_mturk_da(request.path(), sid2line, n_segments, systems=systems)
    if human.z_path:
        ratings = ratings.assign(
            z=human_io.load_wmt_mturk_da_z(request.path("z_path"), ratings, sid2line, n_segments)
        )
    if not human.complete_from:
        return ratings
    from mtsig.stats.human import restore_unrated_cells

    restore = human.complete_from
    means_path = mtsig_config.data_path(request.data_root, restore["path"])
    if request.moments is None:
        raise InputError("human.complete_from needs standardise.moments (the workers' printed mean and sd)")
    means = human_io.load_wmt_mturk_da_segment_means(means_path, sid2line, n_segments, systems=systems)
    ratings = restore_unrated_cells(ratings, means, request.moments, restore["annotator"], means_path)
    restored = int((ratings["annotator"] == restore["annotator"]).sum())
    log.info("restored %d ratings of worker %s from %s", restored, restore["annotator"], means_path)
    return ratings


def _appraise_da(request: JudgmentRequest) -> pd.DataFrame:
    from mtsig.io.human import load_appraise_da

    human = request.human
    return load_appraise_da(
        request.path(),
        request.path("header"),
        request.n_segments,
        human.source_language,
        human.target_language,
        human.reference_systems,
        systems=request.systems,
    )


def _mturk_batch(request: JudgmentRequest) -> pd.DataFrame:
    from mtsig.io.human import load_mturk_batch

    return load_mturk_batch(
        judgment_paths(request.human, request.data_root),
        n_segments=request.n_segments,
        systems=request.systems,
    )


def _esa(request: JudgmentRequest) -> pd.DataFrame:
    """Appraise ESA exports (one file per wave) of one language pair, the WMT24 organisers' filtering
    (:func:`mtsig.io.human.load_esa`); the rated reference (``reference_systems``) kept apart."""
    from mtsig.io.human import check_reference_systems, load_esa

    human = request.human
    source = judgments_source(human, request.data_root)
    return load_esa(
        judgment_paths(human, request.data_root),
        request.n_segments,
        str(human.source_language),
        str(human.target_language),
        documents=request.path("documents") if human.documents else None,
        first_segment_id=human.first_segment_id,
        reference_systems=check_reference_systems(human.reference_systems or (), request.systems, source),
        systems=request.systems,
    )


def _tidy(request: JudgmentRequest) -> pd.DataFrame:
    from mtsig.io.human import load_tidy

    human = request.human
    return load_tidy(
        request.path(),
        standardised=human.standardised,
        segment_means=human.segment_means,
        n_segments=request.n_segments,
        systems=request.systems,
        reference_systems=human.reference_systems or (),
    )


def _mtme_seg_score(request: JudgmentRequest) -> pd.DataFrame:
    from mtsig.io.mtme import read_mtme_human_seg_scores

    human = request.human
    if human.criterion is None:
        raise InputError(
            "human.criterion is required with format mtme_seg_score (the file does not say what its scores "
            "are: mqm, da-sqm, esa, ...; gold.criteria must list it)",
            request.path(),
        )
    return read_mtme_human_seg_scores(
        request.path(),
        criterion=str(human.criterion),
        n_segments=request.n_segments,
        systems=request.systems,
        reference_systems=human.reference_systems or (),
    )


def _wmt_da_seg_scores(request: JudgmentRequest) -> pd.DataFrame:
    from mtsig.io.wmt_da import load_wmt_da_segment_means

    return load_wmt_da_segment_means(request.path(), request.n_segments, request.systems)


def _mqm(request: JudgmentRequest) -> pd.DataFrame:
    from mtsig.io.mqm import load_mqm_ratings

    human = request.human
    return load_mqm_ratings(
        request.path(),
        weights=human.weights,
        reference_system=human.reference_system,
        standardised=not human.standardise_raters,
        n_segments=request.n_segments,
        systems=request.systems,
    )


#: The reader of each ``human.format``.
JUDGMENT_READERS: dict[str, Callable[[JudgmentRequest], pd.DataFrame]] = {
    "wmt_rankings": _wmt_rankings,
    "wmt_mturk_da": _wmt_mturk_da,
    "appraise_da": _appraise_da,
    "mturk_batch": _mturk_batch,
    "tidy": _tidy,
    "mtme_seg_score": _mtme_seg_score,
    "wmt_da_seg_scores": _wmt_da_seg_scores,
    "mqm": _mqm,
    "esa": _esa,
}


def load_judgments(
    human: HumanSource,
    data_root: str | Path,
    n_segments: int,
    systems: Sequence[str] | None = None,
    moments: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The experiment's human judgments, read by the format's reader (``human.format``, :data:`JUDGMENT_READERS`):
    DA ratings (:mod:`mtsig.io.human`), mt-metrics-eval human segment scores
    (:func:`mtsig.io.mtme.read_mtme_human_seg_scores`), WMT DA segment means (:mod:`mtsig.io.wmt_da`), MQM ratings
    (:mod:`mtsig.io.mqm`) or WMT relative rankings (:func:`mtsig.io.rankings.load_wmt_rankings`). Paths are
    relative to ``data_root``. With ``systems`` (the experiment's), a rating of any other system is an error at its
    line (reference pseudo-systems excepted). ``human.z_path`` (WMT MTurk DA): the organisers' own z of every
    rating, used as given (:func:`mtsig.io.human.load_wmt_mturk_da_z`). ``human.complete_from`` (with ``moments``): the
    organisers' segment means that restore the ratings of a zero-variance worker the per-rating file leaves out
    (:func:`mtsig.stats.human.restore_unrated_cells`)."""
    reader = JUDGMENT_READERS.get(human.format)
    if reader is None:
        raise InputError(f"unknown human format {human.format!r}")
    return reader(JudgmentRequest(human, data_root, n_segments, systems, moments))


def load_moments(moments: str | None, data_root: str | Path) -> pd.DataFrame | None:
    """The organisers' printed per-annotator means and sds (the file ``standardise.moments`` names), or None."""
    from mtsig.io.human import load_r_mean_sd

    return load_r_mean_sd(mtsig_config.data_path(data_root, moments)) if moments else None


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
    experiment's ``human`` (``human_source``; the rule's input ``human`` is its files), ``qc`` (``quality_control``), ``standardise`` and ``gold`` (``gold_settings``) blocks
    (:class:`mtsig.settings.HumanSource`, ``QualityControl``, ``Standardise``, ``HumanGold``; absent: their
    defaults). The systems and the test set's
    size come from ``texts/systems.txt`` and ``documents`` (``documents.tsv``: an experiment may have no texts),
    or without ``documents`` from the prepared texts."""
    from mtsig.stats.human import build_gold

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
        source.format,
        load_judgments(source, data_root, n_segments, systems, moments),
        systems,
        alphas,
        source=judgments_source(source, data_root),
        moments=moments,
        qc=build(QualityControl, quality_control, "qc"),
        standardise=standardisation,
        gold=chosen,
    )
    settings = {"systems": systems, "alphas": [float(a) for a in alphas], "gold": as_block(chosen)}
    write_tsv(result["z"], z)
    write_tsv(result["qc"], qc)
    write_tsv(result["system_scores"], system_scores, made_by="human_gold", settings=settings)
    write_tsv(result["gold"], gold, made_by="human_gold", settings=settings)
    write_tsv(result["gold_conclusions"], conclusions, made_by="human_gold", settings=settings)
    log_gold(result, alphas)


def log_gold(result: Mapping[str, Any], alphas: Sequence[float]) -> None:
    """Log what :func:`mtsig.stats.human.build_gold` dropped and kept, and how many pairs the primary gold calls
    significant at each alpha."""
    for annotator, reason in result["dropped"].itertuples(index=False):
        log.info("dropped annotator %s: %s", annotator, reason)
    for annotator in result["zero_z"]:
        log.info("annotator %s: zero variance, kept with z = 0 (standardise.zero_variance: zero)", annotator)
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
