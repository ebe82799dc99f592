"""Three-way conclusions for a system pair from one-sided p-values (docs/statistics.md, "Conclusions").

Shared by the randomized tests and the human gold standard so both are judged by one rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import combinations
from typing import TypeVar

import numpy as np

SYS_X = "sys_x"
SYS_Y = "sys_y"
TIE = "tie"
NO_DECISION = "none"  # decided_by of a gold tie

T = TypeVar("T")


def unordered_pairs(items: Iterable[T]) -> list[tuple[T, T]]:
    """All n(n-1)/2 pairs ``(items[i], items[j])`` with i < j, in that order: the canonical pair order of every
    table, and the orientation of every conclusion (sys_x is the one listed first). Use ``range(n)`` for indices."""
    return list(combinations(items, 2))


def by_priority(conclusions: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Combine per-criterion conclusions by the paper's priority rule (Sec. 4: "if a system's adequacy score is
    significantly greater than that of another, the combined conclusion is that it is significantly better ...
    Only when a tie in adequacy scores occurs are fluency judgments used"): the first criterion, in the mapping's
    order, whose conclusion is not a tie decides; otherwise the pair is a tie.

    Returns (conclusion, decided_by): the deciding criterion's name, or :data:`NO_DECISION` for a tie.
    """
    shape = np.shape(next(iter(conclusions.values())))
    conclusion = np.full(shape, TIE, dtype=object)
    decided_by = np.full(shape, NO_DECISION, dtype=object)
    for criterion, this in conclusions.items():
        takes_over = (conclusion == TIE) & (np.asarray(this) != TIE)
        conclusion[takes_over] = np.asarray(this)[takes_over]
        decided_by[takes_over] = criterion
    return conclusion, decided_by


def conclude(p_x_better: np.ndarray | float, p_y_better: np.ndarray | float, alpha: float) -> np.ndarray:
    """Conclusion for unordered pairs at level ``alpha``.

    "sys_x" if p(X>Y) <= alpha, "sys_y" if p(Y>X) <= alpha, else "tie". If both are <= alpha (possible only with
    a degenerate test), the smaller p-value wins and an exact tie of p-values is a tie.
    """
    px = np.asarray(p_x_better, dtype=float)
    py = np.asarray(p_y_better, dtype=float)
    x_sig = px <= alpha
    y_sig = py <= alpha
    out = np.full(np.broadcast(px, py).shape, TIE, dtype=object)
    out[x_sig & ~y_sig] = SYS_X
    out[y_sig & ~x_sig] = SYS_Y
    both = x_sig & y_sig
    out[both & (px < py)] = SYS_X
    out[both & (py < px)] = SYS_Y
    return out


def conclude_two_sided(
    p_two_sided: np.ndarray | float, statistic: np.ndarray | float, alpha: float
) -> np.ndarray:
    """Conclusion from a two-sided p-value: significant at ``alpha`` in the direction of the sign of ``statistic``
    (``statistic`` = S(X) - S(Y), oriented so that higher is better)."""
    p = np.asarray(p_two_sided, dtype=float)
    d = np.asarray(statistic, dtype=float)
    out = np.full(np.broadcast(p, d).shape, TIE, dtype=object)
    sig = p <= alpha
    out[sig & (d > 0)] = SYS_X
    out[sig & (d < 0)] = SYS_Y
    return out
