"""``human.format: wmt_rankings``: WMT's 5-way relative-ranking judgments (``wmt12.RNK_results.csv``; read by
:func:`mtsig.io.rankings.load_wmt_rankings`) of one language pair, as :class:`mtsig.io.human.Rankings`.
"""

from __future__ import annotations

from mtsig.io.human import JudgmentRequest, Rankings
from mtsig.io.rankings import load_wmt_rankings


def read_judgments(request: JudgmentRequest) -> Rankings:
    """The judgments of ``human.path`` between ``human.source_language`` and ``human.target_language`` (English
    names, as the file writes them)."""
    human = request.human
    source = request.source()
    table = load_wmt_rankings(
        source, source_language=human.source_language, target_language=human.target_language
    )
    return Rankings(table, source)
