"""The verdict of ``mtsig compare``: for each pair of systems, which system each metric prefers and whether the
difference is significant, and the pairs where significant metrics disagree, named in words.

Each pair keeps one orientation across every metric (X the system listed first, Y the other), so that a metric
that prefers Y is visible as such instead of being turned around. The p-value shown is the concluding test's for
the direction the metric prefers (one-sided tests: "the preferred system better"; two-sided tests: the same value
either way), so that it is small when the preference is significant; the conclusion (and its ``--correction``)
is :func:`mtsig.stats.evaluation.corrected_test_conclusions`'.

A p-value from B resamples cannot be resolved below ``1 / (B + 1)``: :func:`format_p` prints such a p as
``<0.0001`` (for B = 10 000) instead of a misleading ``0.0000``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mtsig.report.comparison import aligned_lines, pair_conclusions
from mtsig.report.tables import metric_label

if TYPE_CHECKING:
    import pandas as pd

    from mtsig.report.comparison import Conclusions, MetricComparison
    from mtsig.stats.resampling.tables import PairwiseResult


def resolution(n_samples: int, family: int = 1) -> float:
    """``family / (B + 1)`` rounded up to one significant digit (``B = 10 000 -> 0.0001``, ``1 000 -> 0.001``): the
    smallest p-value a randomized test with B resamples resolves, as printed; with ``family`` hypotheses, the bound
    of a p-value adjusted by Holm or Benjamini-Hochberg (at most ``family`` times the raw p) there."""
    value = float(family) / (int(n_samples) + 1)
    scale = 10.0 ** math.floor(math.log10(value))
    return math.ceil(round(value / scale, 9)) * scale


def format_p(p: float, n_samples: int | None = None, family: int = 1) -> str:
    """A p-value for reading: ``n/a`` for NaN; ``<R`` where a randomized test with ``n_samples`` resamples cannot
    resolve it (p at most ``1 / (B + 1)``, the smallest ``(c + 1) / (B + 1)``; ``c / B`` gives 0 there; for a p
    adjusted over ``family`` hypotheses, ``family / (B + 1)``; R is :func:`resolution`); else 4 decimals, or 2
    significant digits below 0.0001 (an exact test's small p)."""
    if p != p:
        return "n/a"
    if n_samples and p <= family * (1.0 + 1e-9) / (int(n_samples) + 1):
        limit = resolution(n_samples, family)
        return f"<{limit:.{max(0, -math.floor(math.log10(limit)))}f}"
    return f"{p:.4f}" if p >= 1e-4 else f"{p:.1e}"


@dataclass(frozen=True)
class PairVerdict:
    """One metric's verdict on one pair (X listed first): its raw difference ``S(X) - S(Y)`` (the metric's own
    scale), the system it prefers (None: a tie), the concluding test's p for that direction and after correction,
    the significant winner (None: no significant difference), the test's resamples and the number of hypotheses
    the correction is over."""

    sys_x: str
    sys_y: str
    metric: str
    difference: float
    prefers: str | None
    p_value: float
    p_adjusted: float
    winner: str | None
    n_samples: int
    family: int


def unordered_pairs(systems: Sequence[str]) -> list[tuple[str, str]]:
    """Every pair once, oriented by the order the systems were given (X before Y)."""
    return [(x, y) for i, x in enumerate(systems) for y in systems[i + 1 :]]


def preferred_p(result: PairwiseResult, test: str, x: str, y: str) -> tuple[float, str | None]:
    """``(p, preferred system)`` of ``test`` for the pair: the p of the ordered row whose X the metric prefers
    (its oriented statistic > 0); for a tie, the row (x, y) and no preference."""
    table = result.table[result.table["test"] == test].set_index(["sys_x", "sys_y"])
    statistic = float(table.loc[(x, y), "statistic"])
    preferred = x if statistic > 0 else (y if statistic < 0 else None)
    row = (x, y) if preferred in (x, None) else (y, x)
    return float(table.loc[row, "p_value"]), preferred


def pair_verdicts(comparisons: Sequence[MetricComparison], conclusions: Conclusions) -> list[PairVerdict]:
    """Every metric's verdict on every pair: pairs in the order the systems were given, each pair's metrics in
    the order given."""
    from mtsig.stats.resampling.registry import TESTS

    c = conclusions
    systems = list(comparisons[0].result.system_scores)
    pairs = len(systems) * (
        len(systems) - 1
    )  # the ordered hypotheses of one-sided tests, halved for two-sided
    family = pairs // 2 if TESTS[c.test].sided == "two-sided" else pairs
    decided = {
        m.name: pair_conclusions(m.result, c.test, c.alpha, c.correction).set_index(["sys_x", "sys_y"])
        for m in comparisons
    }
    verdicts = []
    for x, y in unordered_pairs(systems):
        for comparison in comparisons:
            result, table = comparison.result, decided[comparison.name]
            p, preferred = preferred_p(result, c.test, x, y)
            key = (x, y) if (x, y) in table.index else (y, x)
            winner = {"sys_x": key[0], "sys_y": key[1]}.get(str(table.loc[key, "conclusion"]))
            verdicts.append(
                PairVerdict(
                    x,
                    y,
                    comparison.name,
                    result.system_scores[x] - result.system_scores[y],
                    preferred,
                    p,
                    float(table.loc[key, "p_adjusted"]),
                    winner,
                    int(result.settings["n_samples"][c.test]),  # type: ignore[index]
                    family,
                )
            )
    return verdicts


def disagreements(verdicts: Sequence[PairVerdict]) -> list[str]:
    """One sentence per pair on which two metrics find significant differences in opposite directions, e.g.
    ``UPC vs onlineA: BLEU prefers UPC (p = 0.0018), TER prefers onlineA (p = 0.0076)``."""
    sentences = []
    for x, y in dict.fromkeys((v.sys_x, v.sys_y) for v in verdicts):
        significant = [v for v in verdicts if (v.sys_x, v.sys_y) == (x, y) and v.winner is not None]
        if len({v.winner for v in significant}) > 1:
            claims = ", ".join(
                f"{metric_label(v.metric)} prefers {v.winner} (p = {format_p(v.p_value, v.n_samples)})"
                for v in significant
            )
            sentences.append(f"{x} vs {y}: the metrics disagree: {claims}")
    return sentences


def verdict_lines(verdicts: Sequence[PairVerdict], conclusions: Conclusions) -> list[str]:
    """The verdict block: a heading that says how the conclusions are drawn, one row per pair and metric (the pair
    named on its first row), then the disagreements in words."""
    c = conclusions
    corrected = c.correction != "none"
    heading = f"Verdict: {c.test} at alpha {c.alpha:g}" + (f", {c.correction}-adjusted" if corrected else "")
    header = ["pair", "metric", "prefers", "S(X) - S(Y)", "p"] + (["p adjusted"] if corrected else [])
    rows = [header + ["significant"]]
    previous = None
    for v in verdicts:
        pair = f"{v.sys_x} vs {v.sys_y}"
        cells = [pair if pair != previous else "", metric_label(v.metric), v.prefers or "neither"]
        cells += [f"{v.difference:+.4f}", format_p(v.p_value, v.n_samples)]
        cells += [format_p(v.p_adjusted, v.n_samples, v.family)] if corrected else []
        if v.winner is None:
            cells.append("no")
        else:
            cells.append("yes" if v.winner == v.prefers else f"yes ({v.winner} better)")
        rows.append(cells)
        previous = pair
    right = [False, False, False, True, True] + [True] * corrected + [False]
    found = disagreements(verdicts)
    agree = ["significant metrics agree on the direction of every pair"] if not found else []
    return [heading, *aligned_lines(rows, right), *found, *agree]


def dependence_line(n_documents: int | None, verdict_test: str) -> str:
    """What the verdict's test assumes about the segments, in one line: with documents, that whole documents are
    resampled; without, that the segment-level tests take segments as independent (docs/results.md, "Beyond the
    paper": when whole documents are exchangeable, they reject a true null far more often than alpha)."""
    if n_documents is not None and verdict_test.endswith("_documents"):
        return (
            f"documents: {n_documents}; the verdict's test resamples whole documents, the paper's segment-level "
            "tests beside it take segments as independent"
        )
    if n_documents is not None:
        return (
            f"documents: {n_documents}, but the verdict's test {verdict_test} resamples segments as if independent "
            "(the *_documents tests resample whole documents)"
        )
    return (
        "no documents: the tests resample segments as if independent; segments of one document are not, and then "
        "these tests find differences that are not there far more often than alpha (give --docs FILE)"
    )


def frame_of(verdicts: Sequence[PairVerdict]) -> pd.DataFrame:
    """The verdicts as a table (``--json``): one row per pair and metric."""
    import pandas as pd

    return pd.DataFrame([v.__dict__ for v in verdicts])
