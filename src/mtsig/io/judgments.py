"""An experiment's human judgments, whatever their format: the reader of each ``human.format``.

:func:`load_judgments` reads the files an experiment's ``human`` block names (:class:`mtsig.settings.HumanSource`),
relative to a data root, with the reader of its format (:data:`JUDGMENT_READERS`): DA ratings of WMT's MTurk,
Appraise and MTurk-batch exports, ESA exports and the tidy format (:mod:`mtsig.io.human`), WMT relative rankings
(:mod:`mtsig.io.rankings`), mt-metrics-eval human segment scores (:mod:`mtsig.io.mtme`), WMT DA segment means
(:mod:`mtsig.io.wmt_da`) and MQM ratings (:mod:`mtsig.io.mqm`). The result is the table
:func:`mtsig.stats.human.build_gold` takes, so a Python user loads judgments and builds a gold without the pipeline
(``steps.human.human_gold`` is the rule's step). A new format is one reader here and one name in the schema's
``human.format`` enum (docs/extending.md; ``tests/test_registries.py`` keeps both equal).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from mtsig.errors import InputError
from mtsig.io import data_path
from mtsig.settings import HumanSource

log = logging.getLogger("mtsig")


def judgments_source(human: HumanSource, data_root: str | Path) -> Path:
    """The human judgment file named in errors (the folder that holds them when the format reads several)."""
    paths = judgment_paths(human, data_root)
    return paths[0] if len(paths) == 1 else Path(os.path.commonpath(paths))


def judgment_paths(human: HumanSource, data_root: str | Path) -> list[Path]:
    """The file(s) ``human.path`` names (one path or a list: ``esa``, ``mturk_batch``), from the data root."""
    paths = (human.path,) if isinstance(human.path, str) else human.path
    return [data_path(data_root, p) for p in paths]


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
        return data_path(self.data_root, getattr(self.human, key))


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
    restore = human.complete_from
    means_path = data_path(request.data_root, restore["path"])
    if request.moments is None:
        raise InputError("human.complete_from needs standardise.moments (the workers' printed mean and sd)")
    means = human_io.load_wmt_mturk_da_segment_means(means_path, sid2line, n_segments, systems=systems)
    ratings = human_io.restore_unrated_cells(
        ratings, means, request.moments, restore["annotator"], means_path
    )
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
    (:func:`mtsig.io.human.restore_unrated_cells`)."""
    reader = JUDGMENT_READERS.get(human.format)
    if reader is None:
        raise InputError(f"unknown human format {human.format!r}")
    return reader(JudgmentRequest(human, data_root, n_segments, systems, moments))


def load_moments(moments: str | None, data_root: str | Path) -> pd.DataFrame | None:
    """The organisers' printed per-annotator means and sds (the file ``standardise.moments`` names), or None."""
    from mtsig.io.human import load_r_mean_sd

    return load_r_mean_sd(data_path(data_root, moments)) if moments else None
