"""Pairwise significance heatmaps of Graham, Mathur & Baldwin (2014): Fig. 7 (the human gold's p-values) and
Fig. 8 (one panel per randomized test of a metric), and the p-value matrices they show.

Each plotting function writes every path in ``out_paths`` through :func:`mtsig.report.plots.saving.save_figure`
and returns the cells it coloured, so that tests can check them.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.collections import LineCollection
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.lines import TICKDOWN, TICKLEFT, Line2D
from matplotlib.patches import Patch, PathPatch
from matplotlib.path import Path as OutlinePath
from matplotlib.text import Text
from matplotlib.textpath import TextPath, text_to_path

from mtsig.errors import InputError
from mtsig.report.plots.saving import STYLE, check_figure_paths, save_figure
from mtsig.report.tables import label_of_test, metric_label
from mtsig.stats.evaluation import is_two_sided

#: Heatmap cell sizes in inches and their p-value font sizes in points: one panel (room for "<.001" at 6.5 pt),
#: a grid of panels.
_SINGLE_CELL, _SINGLE_FONT = 0.42, 6.5
_GRID_CELL, _GRID_FONT = 0.36, 5.5

#: Significance shades, light to dark: p <= alpha, p <= 0.01, p <= 0.001 (the paper's three levels).
_SHADES = ("#c7e9c0", "#74c476", "#238b45")
_NOT_SIGNIFICANT_TEXT = "#9a9a9a"
_DIAGONAL = "#e6e6e6"


def p_matrix_from_tests(tests: pd.DataFrame, test: str, systems: Sequence[str]) -> pd.DataFrame:
    """Matrix of p-values for "row system better than column system" under ``test`` (one metric's tests table).

    One-sided tests give p(row > column) directly. A two-sided test's p-value has no direction: it is placed in
    the cell whose row the statistic favours (statistic > 0) and the mirror cell is NaN, so that a coloured cell
    always means "row significantly better". The diagonal is NaN.
    """
    rows = tests[tests["test"] == test]
    if rows.empty:
        raise InputError(f"the tests table has no rows for test {test!r}")
    position = {system: i for i, system in enumerate(systems)}
    kept = rows["sys_x"].isin(position) & rows["sys_y"].isin(position)
    if is_two_sided(test):
        kept &= rows["statistic"] > 0
    rows = rows[kept]
    values = np.full((len(position), len(position)), np.nan)
    values[rows["sys_x"].map(position), rows["sys_y"].map(position)] = rows["p_value"].astype(float)
    return pd.DataFrame(values, index=list(systems), columns=list(systems))


def p_matrix_from_gold(
    gold_p_values: pd.DataFrame,
    systems: Sequence[str],
    alpha: float,
    criteria: Sequence[str],
    gold: str | None = None,
) -> pd.DataFrame:
    """Matrix of gold p-values for "row better than column" combined over ``criteria`` (paper, Fig. 7, Sec. 4).

    The paper's combination: the first criterion (adequacy) on which the pair differs significantly in either
    direction at ``alpha`` gives the p-values of the pair; a pair that ties on every criterion shows those of the
    last (fluency). With one criterion this is that criterion's matrix (Fig. 7's separate panels).
    """
    frame = gold_p_values if gold is None else gold_p_values[gold_p_values["gold"] == gold]
    by_criterion = {}
    for criterion in criteria:
        rows = frame[frame["criterion"] == criterion]
        if rows.empty:
            raise InputError(f"the gold p-values have no rows for criterion {criterion!r}")
        matrix = rows.pivot(index="sys_x", columns="sys_y", values="p_value").reindex(
            index=list(systems), columns=list(systems)
        )
        by_criterion[criterion] = matrix.astype(float)
    combined = by_criterion[criteria[-1]].copy()
    decided = np.zeros(combined.shape, dtype=bool)
    for criterion in criteria:
        matrix = by_criterion[criterion].to_numpy()
        significant = np.fmin(matrix, matrix.T) <= alpha  # the pair differs in either direction
        take = significant & ~decided
        combined = combined.mask(take, by_criterion[criterion])
        decided |= significant
    values = combined.to_numpy(dtype=float, copy=True)
    np.fill_diagonal(values, np.nan)
    return pd.DataFrame(values, index=combined.index, columns=combined.columns)


def _format_p(p: float) -> str:
    """Compact p-value for a heatmap cell: "<.001", ".012", "1"."""
    if p < 0.001:
        return "<.001"
    if p >= 0.9995:
        return "1"
    return f"{p:.3f}".lstrip("0")


def _shade_index(p: np.ndarray, alpha: float) -> np.ndarray:
    """0 = not significant, 1..3 = significant at alpha / 0.01 / 0.001 (never lighter than alpha allows)."""
    index = np.where(p <= alpha, 1, 0)
    index = np.where((p <= 0.01) & (p <= alpha), 2, index)
    return np.where((p <= 0.001) & (p <= alpha), 3, index)


def _draw_heatmap(
    ax, matrix: pd.DataFrame, alpha: float, show_row_labels: bool, cell_font: float, cell_inches: float,
    selectable_text: bool,
) -> np.ndarray:  # fmt: skip
    """One heatmap panel; returns the boolean matrix of coloured (significant) cells.

    One image holds the shades and the grey diagonal, one line collection the grid, the p-values are drawn by
    :func:`_draw_p_values` (``cell_font`` points in cells of ``cell_inches``), ticks by :func:`_label_cells`."""
    p = matrix.to_numpy(dtype=float)
    n = p.shape[0]
    with np.errstate(invalid="ignore"):
        shade = np.where(np.isnan(p), 0, _shade_index(np.nan_to_num(p, nan=1.0), alpha))
    image = shade.copy()
    np.fill_diagonal(image, len(_SHADES) + 1)  # the diagonal's own colour, last in the map
    colours = ListedColormap(["#ffffff", *_SHADES, _DIAGONAL])
    ax.imshow(image, cmap=colours, vmin=-0.5, vmax=len(_SHADES) + 1.5, interpolation="none", aspect="equal")
    edges = np.arange(n + 1) - 0.5
    grid = [[(e, -0.5), (e, n - 0.5)] for e in edges] + [[(-0.5, e), (n - 0.5, e)] for e in edges]
    ax.add_collection(LineCollection(grid, colors="#d0d0d0", linewidths=0.5, zorder=1.5))
    _draw_p_values(ax, p, shade, cell_font, cell_inches, selectable_text)
    ax.set_xlim(-0.5, n - 0.5)
    ax.set_ylim(n - 0.5, -0.5)
    _label_cells(ax, matrix.columns, matrix.index if show_row_labels else None)
    for side in ax.spines.values():
        side.set_visible(False)
    return shade > 0


def _draw_p_values(
    ax, p: np.ndarray, shade: np.ndarray, size: float, cell_inches: float, selectable_text: bool
) -> None:
    """Every off-diagonal p-value of a panel in its cell, grey where not significant, white on the darkest shade.

    ``selectable_text``: one matplotlib text per cell (for PDFs, whose readers then select and copy the numbers).
    Otherwise one glyph-outline path per colour (:func:`_cell_text_path`), the same shapes at the same places, for
    raster images, where rasterising a text object per cell is too slow for the default run's tens of thousands
    of p-values (benchmarks/README.md, *Figures*)."""
    colours = np.array([_NOT_SIGNIFICANT_TEXT, "black", "black", "white"])[shade]
    cells = [
        (int(i), int(j), _format_p(p[i, j])) for i, j in zip(*np.nonzero(~np.isnan(p)), strict=True) if i != j
    ]
    if selectable_text:
        for i, j, text in cells:
            # a figure text at a data position: an axes text is clipped to the axes, and preparing that clip
            # for every cell is costly
            ax.figure.add_artist(Text(j, i, text, color=colours[i, j], fontsize=size, ha="center",
                                      va="center_baseline", transform=ax.transData))  # fmt: skip
        return
    for colour in dict.fromkeys(colours[i, j] for i, j, _ in cells):
        shown = [cell for cell in cells if colours[cell[0], cell[1]] == colour]
        outline = PathPatch(_cell_text_path(shown, size, cell_inches), facecolor=colour, linewidth=0)
        ax.add_artist(outline)  # not add_patch: the limits are set, and their extent would cost seconds


@functools.cache
def _glyph_outline(text: str, size: float) -> OutlinePath:
    """``text`` at ``size`` points as matplotlib's glyph outline (:class:`matplotlib.textpath.TextPath`), in
    points, placed where matplotlib places the text with ``ha="center", va="center_baseline"`` about the origin:
    centred on its advance width, the baseline half the font's ascent ("lp") below; y pointing down as in a
    heatmap's rows."""
    with matplotlib.rc_context(STYLE):
        font = FontProperties(family=STYLE["font.family"], size=size)
    width, _, _ = text_to_path.get_text_width_height_descent(text, font, ismath=False)
    height, _, descent = text_to_path.get_text_width_height_descent("lp", font, ismath=False)
    outline = TextPath((-width / 2, -(height - descent) / 2), text, prop=font)
    return OutlinePath(outline.vertices * [1, -1], outline.codes)


def _cell_text_path(cells: Sequence[tuple[int, int, str]], size: float, cell_inches: float) -> OutlinePath:
    """One compound path (in data coordinates, one unit per cell) of every ``(row, column, text)``, each centred
    in its cell by :func:`_glyph_outline`."""
    points_per_cell = 72.0 * cell_inches
    outlines = [_glyph_outline(text, size) for _, _, text in cells]
    vertices = [
        o.vertices / points_per_cell + (column, row)
        for o, (row, column, _) in zip(outlines, cells, strict=True)
    ]
    return OutlinePath(np.concatenate(vertices), np.concatenate([o.codes for o in outlines]))


#: Length of the heatmaps' tick marks in points.
_TICK_LENGTH = 2.0


def _label_cells(ax, column_labels: Sequence[str], row_labels: Sequence[str] | None) -> None:
    """Tick marks and labels of a heatmap panel (column labels rotated by 55 degrees, anchored at their right end;
    ``row_labels`` None: rows unlabelled), placed exactly where matplotlib places major ticks of length
    :data:`_TICK_LENGTH` (the same pixels), but drawn as one marker line and one text per label instead of one
    :class:`matplotlib.axis.Tick` of five artists per label: ticks made most of the cost of an 11-panel figure."""
    ax.set_xticks([])
    ax.set_yticks([])
    positions = np.arange(len(column_labels), dtype=float)
    zeros = np.zeros_like(positions)
    for axis, labels in (("x", column_labels), ("y", row_labels)):
        if labels is None:
            continue
        colour = matplotlib.rcParams[f"{axis}tick.color"]
        pad = matplotlib.rcParams[f"{axis}tick.major.pad"] + _TICK_LENGTH
        if axis == "x":
            xs, ys, marker = positions, zeros, TICKDOWN
            mark_transform = ax.get_xaxis_transform(which="tick1")
            text_transform, va, ha = ax.get_xaxis_text1_transform(pad)
            alignment = {"rotation": 55, "ha": "right", "va": va, "rotation_mode": "anchor"}
        else:
            xs, ys, marker = zeros, positions, TICKLEFT
            mark_transform = ax.get_yaxis_transform(which="tick1")
            text_transform, va, ha = ax.get_yaxis_text1_transform(pad)
            alignment = {"ha": ha, "va": va}
        marks = Line2D(xs, ys, transform=mark_transform, linestyle="none", marker=marker, color=colour,
                       markersize=_TICK_LENGTH, markeredgewidth=matplotlib.rcParams[f"{axis}tick.major.width"],
                       clip_on=False)  # fmt: skip
        ax.add_artist(marks)
        size = matplotlib.rcParams[f"{axis}tick.labelsize"]
        for x, y, label in zip(xs, ys, labels, strict=True):
            ax.text(
                x,
                y,
                str(label),
                transform=text_transform,
                fontsize=size,
                color=colour,
                clip_on=False,
                **alignment,
            )


def _label_width_inches(labels: Sequence[str], size: float) -> float:
    """Width of the longest of ``labels`` at ``size`` points in the figure font, in inches (for fixed layouts)."""
    from matplotlib.textpath import TextToPath

    measure = TextToPath()
    with matplotlib.rc_context(STYLE):
        font = FontProperties(family=STYLE["font.family"], size=size)
        widths = [measure.get_text_width_height_descent(str(t), font, ismath=False)[0] for t in labels]
    return max(widths, default=0.0) / 72.0


def _heatmap_geometry(
    systems: Sequence[str],
    cell: float,
    panel_columns: int,
    panel_rows: int,
    titles: Sequence[str],
    suptitle: str,
) -> dict[str, float]:
    """Fixed layout of a grid of heatmap panels, in inches, from the measured widths of the labels and titles: the
    rotated (55 degrees) column labels hang below each panel and to its left, the row labels sit left of the first
    column, each panel's slot is as wide as its title. No layout engine is needed."""
    label = _label_width_inches(systems, float(STYLE["xtick.labelsize"])) + 0.08  # + tick and padding
    below = label * np.sin(np.radians(55)) + 0.12
    overhang = max(0.0, label * np.cos(np.radians(55)) - 0.5 * cell)  # left of the first column's cell
    side = len(systems) * cell
    slot = max(side, _label_width_inches(titles, float(STYLE["axes.titlesize"])) + 0.1)
    left = max(label, overhang) + 0.3  # row labels (and the y label of a single panel)
    gap = max(0.3, overhang + 0.1)
    title_room, suptitle_room, legend_room = 0.3, 0.45, 0.45
    width = left + panel_columns * slot + (panel_columns - 1) * gap + 0.2
    width = max(width, _label_width_inches([suptitle], float(STYLE["font.size"]) * 1.2) + 0.4)
    height = suptitle_room + panel_rows * (title_room + side + below) + legend_room
    return {
        "label": label, "left": left, "gap": gap, "side": side, "slot": slot, "title": title_room,
        "suptitle": suptitle_room,
        "below": below, "width": width, "height": height,
    }  # fmt: skip


def _panel_axes(figure: Figure, geometry: Mapping[str, float], row: int, column: int):
    """The axes of panel (row, column) placed by :func:`_heatmap_geometry`, centred in its slot."""
    g = geometry
    x = g["left"] + column * (g["slot"] + g["gap"]) + (g["slot"] - g["side"]) / 2
    top = g["suptitle"] + row * (g["title"] + g["side"] + g["below"]) + g["title"]
    y = g["height"] - top - g["side"]
    return figure.add_axes((x / g["width"], y / g["height"], g["side"] / g["width"], g["side"] / g["height"]))


def _legend_handles(alpha: float) -> list[Patch]:
    levels = [(alpha, _SHADES[0])]
    levels += [(level, shade) for level, shade in ((0.01, _SHADES[1]), (0.001, _SHADES[2])) if level < alpha]
    return [Patch(facecolor=shade, edgecolor="#999999", label=f"p ≤ {level:g}") for level, shade in levels]


def _check_matrix(matrix: pd.DataFrame, systems: Sequence[str]) -> pd.DataFrame:
    missing = [s for s in systems if s not in matrix.index or s not in matrix.columns]
    if missing:
        raise InputError(f"the p-value matrix lacks system(s) {', '.join(missing)}")
    ordered = matrix.reindex(index=list(systems), columns=list(systems)).astype(float)
    values = ordered.to_numpy()
    if ((values < 0) | (values > 1)).any():
        raise InputError("the p-value matrix holds values outside [0, 1]")
    return ordered


def significance_heatmap(
    p_matrix: pd.DataFrame,
    systems: Sequence[str],
    alpha: float,
    title: str,
    out_paths: Sequence[str | Path],
    *,
    item: str = "system",
    dpi: float | None = None,
) -> pd.DataFrame:
    """Fig. 7 / one panel of Fig. 8: pairwise significance, rows and columns ordered by ``systems``.

    ``p_matrix.loc[row, column]`` is the p-value for "row better than column" (:func:`p_matrix_from_tests`,
    :func:`p_matrix_from_gold`). A cell is coloured when that p-value is <= ``alpha`` (darker at 0.01 and 0.001),
    with the p-value printed in it; non-significant p-values are printed in grey. Order ``systems`` by human
    score, best first, to get the paper's upper-triangle picture. ``item`` names what the rows and columns are in
    the axis labels (``metric`` for a Williams matrix); ``dpi`` the PNG resolution (default :data:`STYLE`'s
    ``savefig.dpi``). Laid out by :func:`significance_heatmap_figure`; a PDF's p-values are text, a PNG's glyph
    outlines (:func:`_draw_p_values`). Returns the boolean matrix of coloured cells.
    """
    for selectable_text, paths in _paths_by_text_kind(out_paths).items():
        figure, coloured = significance_heatmap_figure(
            p_matrix, systems, alpha, title, item=item, selectable_text=selectable_text
        )
        with matplotlib.rc_context(STYLE):
            save_figure(figure, paths, **({"dpi": dpi} if dpi else {}))
    return coloured


def _paths_by_text_kind(out_paths: Sequence[str | Path]) -> dict[bool, list[Path]]:
    """``out_paths`` (checked: :func:`mtsig.report.plots.saving.check_figure_paths`) by how a heatmap draws its
    p-values in them: ``True`` selectable text (PDFs), ``False`` glyph outlines (PNGs)."""
    by_kind: dict[bool, list[Path]] = {}
    for path in check_figure_paths(out_paths):
        by_kind.setdefault(path.suffix.lower() == ".pdf", []).append(path)
    return by_kind


#: A single heatmap's matrix is at least this many inches wide (its cells grow for few rows, up to
#: :data:`_SINGLE_CELL_MAX`), so that a 6 x 6 matrix does not float in the margins its labels and title need.
_SINGLE_MIN_SIDE, _SINGLE_CELL_MAX, _SINGLE_FONT_MAX = 3.2, 0.6, 8.0
#: Margins of a single heatmap in inches: around the figure, between the row labels and the y label, and the
#: minimum width, which the legend's three entries need.
_MARGIN, _LABEL_GAP, _SINGLE_MIN_WIDTH = 0.15, 0.08, 3.6


def _wrap_to_width(text: str, size: float, width: float) -> list[str]:
    """``text`` broken at spaces into lines no wider than ``width`` inches at ``size`` points (a word longer than
    the width gets a line of its own)."""
    lines: list[str] = []
    for word in text.split():
        candidate = f"{lines[-1]} {word}" if lines else word
        if lines and _label_width_inches([candidate], size) <= width:
            lines[-1] = candidate
        else:
            lines.append(word)
    return lines or [""]


def _line_height_inches(size: float, lines: int) -> float:
    """Height of ``lines`` lines of text at ``size`` points (matplotlib's default line spacing, 1.2)."""
    return lines * 1.2 * size / 72.0


def significance_heatmap_figure(
    p_matrix: pd.DataFrame,
    systems: Sequence[str],
    alpha: float,
    title: str,
    *,
    item: str = "system",
    selectable_text: bool = False,
) -> tuple[Figure, pd.DataFrame]:
    """The figure of :func:`significance_heatmap`, unsaved, and its coloured cells; its p-values are text with
    ``selectable_text`` (for a PDF), glyph outlines otherwise (for a PNG: :func:`_draw_p_values`).

    Fixed layout, in inches, from the measured labels, so that nothing overlaps at any number of rows: the
    matrix is ``max(n * 0.42, 3.2)`` inches wide (cells of at most 0.6 inches); the y label is wrapped to the
    matrix's height and sits left of the row labels; the rotated column labels and the x label hang below the
    matrix, the legend below them; the title is wrapped to the figure's width and sits above the matrix. The
    figure is as wide as the labels, the matrix and the legend need (no wider)."""
    ordered = _check_matrix(p_matrix, systems)
    n = len(ordered)
    with matplotlib.rc_context(STYLE):
        cell = min(max(_SINGLE_CELL, _SINGLE_MIN_SIDE / n), _SINGLE_CELL_MAX)
        side = n * cell
        cell_font = min(_SINGLE_FONT * cell / _SINGLE_CELL, _SINGLE_FONT_MAX)
        label_size = float(STYLE["axes.labelsize"])
        title_size = float(STYLE["axes.titlesize"])
        row_label = _label_width_inches(systems, float(STYLE["ytick.labelsize"])) + 0.08  # + tick and padding
        y_lines = _wrap_to_width(f"row {item} (coloured: row significantly better)", label_size, side)
        y_room = _line_height_inches(label_size, len(y_lines))
        column_drop = row_label * np.sin(np.radians(55)) + 0.12
        overhang = max(0.0, row_label * np.cos(np.radians(55)) - 0.5 * cell)  # left of the first column
        x_room, legend_room = _line_height_inches(label_size, 1) + 0.1, 0.45
        left = _MARGIN + max(y_room + _LABEL_GAP + row_label, overhang)
        width = max(left + side + _MARGIN, _SINGLE_MIN_WIDTH)
        left += (width - (left + side + _MARGIN)) / 2  # centre the matrix when the legend sets the width
        title_lines = _wrap_to_width(title, title_size, width - 2 * _MARGIN)
        title_room = _line_height_inches(title_size, len(title_lines)) + 0.15
        below = column_drop + x_room
        height = _MARGIN + title_room + side + below + legend_room
        figure = Figure(figsize=(width, height))
        bottom = height - _MARGIN - title_room - side
        ax = figure.add_axes((left / width, bottom / height, side / width, side / height))
        coloured = _draw_heatmap(ax, ordered, alpha, True, cell_font, cell, selectable_text)
        # the tick labels are plain texts (:func:`_label_cells`), so the axis labels are placed beyond them here
        ax.set_xlabel(f"column {item}", va="top")
        ax.xaxis.set_label_coords(0.5, -column_drop / side)
        ax.set_ylabel("\n".join(y_lines))
        ax.yaxis.set_label_coords(-(row_label + _LABEL_GAP) / side, 0.5)
        figure.suptitle("\n".join(title_lines), y=1 - _MARGIN / height, va="top", fontsize=title_size)
        figure.legend(handles=_legend_handles(alpha), loc="lower center", ncols=3, frameon=False)
    return figure, pd.DataFrame(coloured, index=ordered.index, columns=ordered.columns)


def significance_heatmap_grid(
    p_matrices: Mapping[str, pd.DataFrame],
    systems: Sequence[str],
    alpha: float,
    title: str,
    out_paths: Sequence[str | Path],
    metric: str | None = None,
    columns: int = 3,
) -> dict[str, pd.DataFrame]:
    """Fig. 8 for one metric: heatmap panels, one per test (keys of ``p_matrices``, in order), ``columns`` per row.

    Row labels are printed on the first panel of each row only; every panel has its column labels. A PDF's
    p-values are text, a PNG's glyph outlines (:func:`_draw_p_values`). Returns, per test, the boolean matrix of
    coloured cells.
    """
    if not p_matrices:
        raise InputError("no p-value matrices to draw")
    if columns < 1:
        raise InputError(f"columns must be at least 1, got {columns}")
    ordered = {test: _check_matrix(matrix, systems) for test, matrix in p_matrices.items()}
    suptitle = f"{title} — {metric_label(metric)}" if metric else title
    for selectable_text, paths in _paths_by_text_kind(out_paths).items():
        with matplotlib.rc_context(STYLE):
            figure, coloured = _heatmap_grid_figure(
                ordered, systems, alpha, suptitle, columns, selectable_text
            )
            save_figure(figure, paths)
    return coloured


def _heatmap_grid_figure(
    ordered: Mapping[str, pd.DataFrame],
    systems: Sequence[str],
    alpha: float,
    suptitle: str,
    columns: int,
    selectable_text: bool,
) -> tuple[Figure, dict[str, pd.DataFrame]]:
    """The figure of :func:`significance_heatmap_grid` (checked matrices; :data:`STYLE` in force), unsaved, and
    its coloured cells per test."""
    panel_columns = min(columns, len(ordered))
    panel_rows = -(-len(ordered) // panel_columns)
    titles = [label_of_test(test) for test in ordered]
    geometry = _heatmap_geometry(systems, _GRID_CELL, panel_columns, panel_rows, titles, suptitle)
    figure = Figure(figsize=(geometry["width"], geometry["height"]))
    coloured: dict[str, pd.DataFrame] = {}
    for position, (test, matrix) in enumerate(ordered.items()):
        row, column = divmod(position, panel_columns)
        ax = _panel_axes(figure, geometry, row, column)
        mask = _draw_heatmap(ax, matrix, alpha, column == 0, _GRID_FONT, _GRID_CELL, selectable_text)
        ax.set_title(label_of_test(test))
        coloured[test] = pd.DataFrame(mask, index=matrix.index, columns=matrix.columns)
    figure.suptitle(suptitle, y=1 - 0.1 / geometry["height"], va="top")
    figure.legend(handles=_legend_handles(alpha), loc="lower center", ncols=3, frameon=False)
    return figure, coloured
