"""One ``mtsig compare`` of several metrics: each metric's results (:class:`MetricComparison`), how conclusions
are drawn from them (:class:`Conclusions`, :func:`pair_conclusions`) and the aligned text both of its readable
reports print (:func:`aligned_lines`). The reports themselves are :mod:`mtsig.report.compare_outputs` and
:mod:`mtsig.report.verdict`, which both read this module.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from mtsig.report.rank_sets import sets_signature
from mtsig.report.signature import result_signatures
from mtsig.stats.evaluation import corrected_test_conclusions
from mtsig.stats.rank_sets.summary import RankSets
from mtsig.stats.resampling.tables import PairwiseResult


@dataclass
class MetricComparison:
    """The results of one metric: its name, its settings signature and the engine's result; ``rank_sets``: the
    systems' confidence sets for ranks by this metric (``--rank-sets``: :func:`mtsig.stats.rank_sets.
    corpus.corpus_rank_sets`), or None."""

    name: str
    details: str
    higher_is_better: bool
    result: PairwiseResult
    rank_sets: RankSets | None = None

    def rank_sets_signature(self) -> str | None:
        """The rank sets' signature with the metric's details, or None without rank sets."""
        return None if self.rank_sets is None else sets_signature(self.rank_sets, metric_details=self.details)

    def signatures(self, alpha: float | None = None, correction: str | None = None) -> dict[str, str]:
        """``{test: signature}`` (:mod:`mtsig.report.signature`); alpha and correction where conclusions are drawn."""
        return result_signatures(self.details, self.result.settings, alpha=alpha, correction=correction)


@dataclass(frozen=True)
class Conclusions:
    """How ``mtsig compare`` draws conclusions: by ``test`` at ``alpha`` after ``correction`` (library name)."""

    test: str
    alpha: float
    correction: str


def pair_conclusions(result: PairwiseResult, test: str, alpha: float, correction: str) -> pd.DataFrame:
    """``sys_x, sys_y, conclusion, p_adjusted`` of every unordered pair (systems in the result's order) by
    ``test`` at ``alpha`` after ``correction`` (a name of :data:`mtsig.stats.evaluation.CORRECTIONS`)."""
    table = result.table[result.table["test"] == test]
    conclusions = corrected_test_conclusions(table, correction, [alpha], list(result.system_scores))
    return conclusions[["sys_x", "sys_y", "conclusion", "p_adjusted"]]


def aligned_lines(rows: Sequence[Sequence[str]], right: Sequence[bool]) -> list[str]:
    """``rows`` of text cells as lines of aligned columns (``right``: which columns are right-aligned)."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [cell.rjust(w) if r else cell.ljust(w) for cell, w, r in zip(row, widths, right, strict=True)]
        lines.append("  ".join(cells).rstrip())
    return lines
