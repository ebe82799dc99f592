"""The figure of confidence sets for ranks (mtsig.report.rank_set_plots): every bar spans exactly its system's set,
systems best first from the top, a star for each system that could be first, one panel per language pair, the same
bytes when drawn twice, and a table it cannot draw is one InputError."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from mtsig.errors import InputError
from mtsig.report.plots import save_figure
from mtsig.report.rank_set_plots import COLUMNS, plot_rank_sets


def _table() -> pd.DataFrame:
    rows = [
        # lp, system, rank, marginal, simultaneous, could be first
        ("xx-yy", "B", 1, (1, 2), (1, 3), True),
        ("xx-yy", "A", 2, (1, 3), (1, 3), True),
        ("xx-yy", "C", 3, (3, 3), (2, 3), False),
        ("xx-zz", "D", 1, (1, 1), (1, 1), True),
        ("xx-zz", "E", 2, (2, 2), (2, 2), False),
    ]
    return pd.DataFrame(
        [(lp, s, r, m[0], m[1], t[0], t[1], first) for lp, s, r, m, t, first in rows],
        columns=list(COLUMNS),
    )


def _bars(ax) -> list[tuple[float, float, float]]:
    """(y, left, width) of every bar of a panel, in drawing order."""
    return [(p.get_y() + p.get_height() / 2, p.get_x(), p.get_width()) for p in ax.patches]


def test_every_bar_spans_its_set() -> None:
    table = _table()
    figure = plot_rank_sets(table, 0.95)
    panels = [ax for ax in figure.axes if ax.get_visible()]
    assert len(panels) == 2
    for ax, (lp, rows) in zip(panels, table.groupby("lp", sort=False), strict=True):
        assert ax.get_title() == f"{lp}: {int(rows['could_be_first'].sum())} of {len(rows)} could be first"
        labels = [t.get_text() for t in ax.get_yticklabels()]
        positions = ax.get_yticks()
        top_down = [label for _, label in sorted(zip(positions, labels, strict=True), reverse=True)]
        assert top_down == list(rows.sort_values("rank")["system"])  # best on top
        bars = _bars(ax)
        n = len(rows)
        simultaneous, marginal = bars[:n], bars[n:]
        for kind, drawn in (("simultaneous", simultaneous), ("marginal", marginal)):
            for (y, left, width), row in zip(
                drawn, rows.sort_values("rank").itertuples(index=False), strict=True
            ):
                low, high = getattr(row, f"{kind}_lower"), getattr(row, f"{kind}_upper")
                assert (left, left + width) == pytest.approx((low - 0.5, high + 0.5))
                assert y == pytest.approx(n - row.rank)
        stars = [line for line in ax.lines if line.get_marker() == "*"]
        assert len(stars) == 1 and len(stars[0].get_ydata()) == int(rows["could_be_first"].sum())


def test_drawn_twice_the_same_bytes(tmp_path: Path) -> None:
    first, second = tmp_path / "a.png", tmp_path / "b.png"
    save_figure(plot_rank_sets(_table(), 0.9), [first])
    save_figure(plot_rank_sets(_table(), 0.9), [second])
    assert first.read_bytes() == second.read_bytes() and first.stat().st_size > 1000


def test_a_table_it_cannot_draw_is_an_input_error() -> None:
    with pytest.raises(InputError, match="lacks column"):
        plot_rank_sets(_table().drop(columns="could_be_first"), 0.95)
    with pytest.raises(InputError, match="empty"):
        plot_rank_sets(_table().iloc[:0], 0.95)
