"""``human.format: mqm``: Google's MQM annotations (Freitag et al. 2021; read by :func:`mtsig.io.mqm.read_mqm`) as
ratings: one score per (system, segment, rater), minus the sum of its error weights.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.io.human import JudgmentRequest, Ratings
from mtsig.io.mqm import DEFAULT_MQM_WEIGHTS, read_mqm
from mtsig.io.segment_scores import fail_first
from mtsig.settings import HumanSource


def load_mqm_ratings(
    path: str | Path,
    *,
    weights: Mapping[str, float] | None = None,
    reference_system: str | None = HumanSource.reference_system,
    standardised: bool = True,
    n_segments: int | None = None,
    systems: Iterable[str] | None = None,
) -> Ratings:
    """MQM annotations as the human step's ratings: one row per (system, segment, rater) with ``annotator`` (the
    rater), ``criterion`` ``mqm``, ``raw_score`` (minus the weight sum) and ``item_type`` ``system``, or ``ref``
    for ``reference_system`` (a rated human reference: kept out of the gold and the system scores).

    ``standardised=True``: ``z`` is the MQM score itself (the gold ranks minus the weight sums); ``False``: no
    ``z`` column, so the human step standardises per rater. Bad-reference quality control does not apply (MQM has
    no degraded candidates). Errors (file and line): those of :func:`read_mqm`; a
    rated system neither in ``systems`` nor the reference; more annotated segments than ``n_segments``.
    """
    annotations = read_mqm(
        path, weights=DEFAULT_MQM_WEIGHTS if weights is None else weights, reference_system=reference_system
    )
    scores = annotations.scores
    path = Path(path)
    if n_segments is not None and len(annotations.segments) != n_segments:
        raise InputError(
            f"{len(annotations.segments)} annotated segments but the experiment's test set has {n_segments}",
            path,
        )
    if systems is not None:
        known = set(systems) | ({reference_system} if reference_system else set())
        fail_first(
            ~scores["system"].isin(known).to_numpy(),
            scores["line"].to_numpy(),
            path,
            [f"rated system {s!r} is not in the experiment's systems" for s in scores["system"]],
        )
    out = pd.DataFrame(
        {
            "annotator": scores["rater"].to_numpy(),
            "system": scores["system"].to_numpy(),
            "segment": scores["segment"].to_numpy(),
            "item_type": np.where(scores["system"] == reference_system, "ref", "system"),
            "criterion": "mqm",
            "raw_score": scores["score"].to_numpy(),
            "line": scores["line"].to_numpy(),
        }
    )
    if standardised:
        out["z"] = out["raw_score"]
    return Ratings(out, path, quality_control_applies=False)


def read_judgments(request: JudgmentRequest) -> Ratings:
    """The ratings of ``human.path`` with ``human.weights`` (None: Freitag et al.'s); ``human.reference_system``
    rated as ``ref``; the scores themselves are the gold's unless ``human.standardise_raters``."""
    human = request.human
    return load_mqm_ratings(
        request.path(),
        weights=human.weights,
        reference_system=human.reference_system,
        standardised=not human.standardise_raters,
        n_segments=request.n_segments,
        systems=request.systems,
    )
