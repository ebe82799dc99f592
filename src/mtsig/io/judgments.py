"""An experiment's human judgments, whatever their format: the reader of each ``human.format``.

:func:`load_judgments` reads the files an experiment's ``human`` block names (:class:`mtsig.settings.HumanSource`),
relative to a data root, with the reader of its format (:data:`JUDGMENT_READERS`): each format is one module of
:mod:`mtsig.io.human` whose ``read_judgments`` returns :class:`~mtsig.io.human.Ratings` (DA, ESA, MQM, segment
means) or :class:`~mtsig.io.human.Rankings` (relative rankings). That is what
:func:`mtsig.stats.human_gold.build_gold` takes, so a Python user loads judgments and builds a gold without the
pipeline (``steps.human.human_gold`` is the rule's step). A new format is one module, one entry here and one name in the schema's ``human.format`` enum
(docs/extending.md; ``tests/test_registries.py`` keeps both equal).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from mtsig.errors import InputError
from mtsig.io import data_path
from mtsig.io.human import (
    HumanJudgments,
    JudgmentRequest,
    appraise_da,
    esa,
    mqm,
    mtme_seg_score,
    mturk_batch,
    tidy,
    wmt_da_seg_scores,
    wmt_mturk_da,
    wmt_rankings,
)
from mtsig.settings import HumanSource

#: The reader of each ``human.format``: its module's ``read_judgments``.
JUDGMENT_READERS: dict[str, Callable[[JudgmentRequest], HumanJudgments]] = {
    "wmt_rankings": wmt_rankings.read_judgments,
    "wmt_mturk_da": wmt_mturk_da.read_judgments,
    "appraise_da": appraise_da.read_judgments,
    "mturk_batch": mturk_batch.read_judgments,
    "tidy": tidy.read_judgments,
    "mtme_seg_score": mtme_seg_score.read_judgments,
    "wmt_da_seg_scores": wmt_da_seg_scores.read_judgments,
    "mqm": mqm.read_judgments,
    "esa": esa.read_judgments,
}


def load_judgments(
    human: HumanSource,
    data_root: str | Path,
    n_segments: int,
    systems: Sequence[str] | None = None,
    moments: pd.DataFrame | None = None,
) -> HumanJudgments:
    """The experiment's human judgments, read by the format's reader (``human.format``, :data:`JUDGMENT_READERS`).
    Paths are relative to ``data_root``. With ``systems`` (the experiment's), a rating of any other system is an
    error at its line (reference pseudo-systems excepted). ``moments``: the organisers' printed per-annotator means
    and sds (:func:`load_moments`), which ``human.complete_from`` of ``wmt_mturk_da`` needs."""
    reader = JUDGMENT_READERS.get(human.format)
    if reader is None:
        raise InputError(f"unknown human format {human.format!r}")
    return reader(JudgmentRequest(human, data_root, n_segments, systems, moments))


def load_moments(moments: str | None, data_root: str | Path) -> pd.DataFrame | None:
    """The organisers' printed per-annotator means and sds (the file ``standardise.moments`` names), or None."""
    return wmt_mturk_da.load_r_mean_sd(data_path(data_root, moments)) if moments else None
