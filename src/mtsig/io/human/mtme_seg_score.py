"""``human.format: mtme_seg_score``: an mt-metrics-eval human segment-score file
(``human-scores/<lp>.<gold>.seg.score``: MQM, DA+SQM, ESA; read by :func:`mtsig.io.mtme.read_mtme_human_seg_scores`),
one merged score per (system, segment), as ratings already standardised: the gold ranks the scores themselves.
"""

from __future__ import annotations

from mtsig.errors import InputError
from mtsig.io.human import JudgmentRequest, Ratings
from mtsig.io.mtme import read_mtme_human_seg_scores


def read_judgments(request: JudgmentRequest) -> Ratings:
    """The scores of ``human.path`` under the criterion ``human.criterion`` (required: the file does not say what
    its scores are); the rated references ``human.reference_systems`` kept apart."""
    human = request.human
    if human.criterion is None:
        raise InputError(
            "human.criterion is required with format mtme_seg_score (the file does not say what its scores "
            "are: mqm, da-sqm, esa, ...; gold.criteria must list it)",
            request.path(),
        )
    table = read_mtme_human_seg_scores(
        request.path(),
        criterion=str(human.criterion),
        n_segments=request.n_segments,
        systems=request.systems,
        reference_systems=human.reference_systems or (),
    )
    return Ratings(table, request.path())
