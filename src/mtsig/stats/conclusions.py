"""Three-way conclusions for a system pair from one-sided p-values (DESIGN.md, "Conclusion").

Shared by the randomized tests and the human gold standard so both are judged by one rule.
"""

from __future__ import annotations

import numpy as np

SYS_X = "sys_x"
SYS_Y = "sys_y"
TIE = "tie"


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
