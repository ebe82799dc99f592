"""The figure of confidence sets for ranks, in the style of csranks's ``plot`` of a ranking (Wilhelm & Morgen):
one horizontal bar per system for its rank set, the systems ordered by their estimate (best on top), a dot at the
estimated rank.

Each panel is one group (a language pair): a wide light bar for the simultaneous set, a narrow dark bar for the
marginal set, and a star left of rank 1 for the systems of the τ-best set with τ = 1 (which could be first). The
input is the table of :func:`mtsig.studies.human_ranking.rank_sets_of_pairs`. Byte-identical for identical input
(:func:`mtsig.report.plots.save_figure`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from mtsig.errors import InputError
from mtsig.report.plots import STYLE
from mtsig.stats.rank_sets.summary import BOUND_COLUMNS

#: The columns the figure reads.
COLUMNS = ("lp", "system", "rank", *BOUND_COLUMNS, "could_be_first")
PANEL_WIDTH = 4.4
ROW_HEIGHT = 0.24
SIMULTANEOUS_COLOUR = "#9ecae1"
MARGINAL_COLOUR = "#08519c"
FIRST_COLOUR = "#d94801"


def _draw_panel(ax, rows: pd.DataFrame, title: str) -> None:
    """One group's sets: systems best first from the top (module docstring)."""
    n = len(rows)
    y = np.arange(n)[::-1].astype(float)
    # bars span whole ranks: the set [L, U] covers L - 0.5 .. U + 0.5
    ax.barh(
        y,
        rows["simultaneous_upper"] - rows["simultaneous_lower"] + 1.0,
        left=rows["simultaneous_lower"] - 0.5,
        height=0.72,
        color=SIMULTANEOUS_COLOUR,
    )
    ax.barh(
        y,
        rows["marginal_upper"] - rows["marginal_lower"] + 1.0,
        left=rows["marginal_lower"] - 0.5,
        height=0.28,
        color=MARGINAL_COLOUR,
    )
    ax.plot(rows["rank"], y, "o", color="black", markersize=3)
    first = rows["could_be_first"].to_numpy(dtype=bool)
    ax.plot(np.full(int(first.sum()), -0.3), y[first], "*", color=FIRST_COLOUR, markersize=7, clip_on=False)
    ax.set_yticks(y, list(rows["system"]), fontsize=7)
    ax.set_xlim(-0.8, n + 0.6)
    ax.set_ylim(-0.7, n - 0.3)
    ticks = [1, *range(5, n + 1, 5)] if n >= 8 else list(range(1, n + 1))
    ax.set_xticks(ticks)
    ax.set_xlabel("rank")
    ax.set_title(title, fontsize=9)
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def plot_rank_sets(table: pd.DataFrame, coverage: float, titles: Sequence[str] | None = None) -> Figure:
    """The figure (module docstring): one panel per ``lp`` of ``table`` (in its order, two per row), each titled
    by ``titles`` (default: how many systems could be first); ``coverage`` for the legend."""
    missing = [c for c in COLUMNS if c not in table.columns]
    if missing:
        raise InputError(f"the rank-set table lacks column(s) {', '.join(missing)}")
    if table.empty:
        raise InputError("the rank-set table is empty: nothing to plot")
    groups = list(dict.fromkeys(table["lp"]))
    if titles is None:
        titles = [
            f"{lp}: {int(rows['could_be_first'].sum())} of {len(rows)} could be first"
            for lp, rows in ((lp, table.loc[table["lp"] == lp]) for lp in groups)
        ]
    columns = min(2, len(groups))
    panel_rows = math.ceil(len(groups) / columns)
    tallest = int(table.groupby("lp").size().max())
    level = f"{100 * coverage:g}%"
    with matplotlib.rc_context(STYLE):
        figure = Figure(figsize=(PANEL_WIDTH * columns, panel_rows * (ROW_HEIGHT * tallest + 1.3) + 0.5))
        axes = figure.subplots(panel_rows, columns, squeeze=False)
        for index, (lp, title) in enumerate(zip(groups, titles, strict=True)):
            rows = table.loc[table["lp"] == lp].sort_values("rank", kind="stable")
            _draw_panel(axes[index // columns, index % columns], rows, title)
        for index in range(len(groups), panel_rows * columns):
            axes[index // columns, index % columns].set_visible(False)
        handles = [
            Patch(color=SIMULTANEOUS_COLOUR, label=f"simultaneous {level} set"),
            Patch(color=MARGINAL_COLOUR, label=f"marginal {level} set"),
            Line2D([], [], marker="o", color="black", linestyle="", markersize=3, label="estimated rank"),
            Line2D(
                [],
                [],
                marker="*",
                color=FIRST_COLOUR,
                linestyle="",
                markersize=7,
                label=f"could be first ({level} tau-best set, tau = 1)",
            ),
        ]
        figure.legend(handles=handles, loc="lower center", ncol=4, frameon=False, fontsize=8)
        figure.tight_layout(rect=(0, 0.04, 1, 1))
    return figure
