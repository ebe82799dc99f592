"""``human.format: wmt_da_seg_scores``: the WMT DA organisers' segment means (``ad-seg-scores-<lp>.csv``, WMT20:
``SYS SID RAW.SCR Z.SCR N``; :func:`mtsig.io.wmt_da.load_wmt_da_segment_means`), one row per rated (system,
segment), already standardised per worker by the organisers.
"""

from __future__ import annotations

from mtsig.io.human import JudgmentRequest, Ratings
from mtsig.io.wmt_da import load_wmt_da_segment_means


def read_judgments(request: JudgmentRequest) -> Ratings:
    """The segment means of ``human.path`` (``SID`` the test set's 1-based line, ``SYS`` the system)."""
    return load_wmt_da_segment_means(request.path(), request.n_segments, request.systems)
