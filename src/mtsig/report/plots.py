"""The paper's figures (Graham, Mathur & Baldwin 2014): pseudo-statistic distributions (Figs. 5-6) and pairwise
significance heatmaps (Fig. 7 for the human gold, Fig. 8 for every metric x test).

Figures are built on :class:`matplotlib.figure.Figure` directly (no pyplot state, no GUI backend) and saved with
the metadata that carries dates or versions removed, so the same input gives byte-identical PDF and PNG files.
Each plotting function writes every path in ``out_paths`` (format from the suffix, ``.pdf`` or ``.png``) through a
temporary file, so nothing partial is left on error, and returns the data it drew so that tests can check it.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

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
from matplotlib.textpath import TextPath

from mtsig.errors import InputError
from mtsig.report.tables import label_of_test, metric_label
from mtsig.runtime import hard_stop
from mtsig.stats.evaluation import is_two_sided
from mtsig.stats.resampling.registry import PAPER_TESTS

#: Pixels per inch of every PNG figure: the heatmaps' smallest p-values (5.5 pt) stay legible, and the default run's
#: report (every figure embedded) stays small enough to send: 20.9 MB at 120 dpi with :data:`PNG_COLOURS`, against
#: 24.8 MB with 256 colours, 28.1 MB with 256 colours at 150 dpi and 60.4 MB in full colour at 150 dpi.
FIGURE_DPI = 120

#: Fixed style so figures do not depend on a user's matplotlibrc.
STYLE: dict[str, object] = {
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "legend.fontsize": 8,
    "figure.dpi": 100,
    "savefig.dpi": FIGURE_DPI,
    # Type 42 (TrueType) text: publishers' PDF checks (IEEE PDF eXpress, ACM's submission systems) reject Type 3
    # fonts, and these figures are made to go into papers. Type 3 would save fontTools' subsetting, ~0.1 s CPU per PDF.
    "pdf.fonttype": 42,
    # matplotlib 3.11's PDF backend sizes its font subsets by ps.fonttype (256 glyphs for its default, Type 3), so
    # every character beyond Latin-1 ("≤", the minus sign) went into a second embedded subset of the font: one
    # fontTools subsetting per PDF instead of two (see also _FONT_FEATURES).
    "ps.fonttype": 42,
    # zlib level 3 for the PDF streams: a 12-system grid PDF in 0.28 instead of 0.34 s CPU, 13% more bytes
    "pdf.compression": 3,
    "svg.hashsalt": "mtsig",
    # titles at the top of their axes, where matplotlib's automatic placement puts them in these figures (no tick
    # labels above the axes) without measuring every tick label at each save
    "axes.titley": 1.0,
}

#: Savefig options per format: metadata without creation dates or the software version, so bytes are reproducible.
#: PNGs are written by :func:`_save_png`, which writes no metadata but their resolution.
_SAVE_OPTIONS: dict[str, dict[str, Any]] = {
    ".pdf": {"metadata": {"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None}},
    ".png": {},
}
#: PNG colours: these figures are flat fills, lines and anti-aliased text in a few hundred colours, of which the 64
#: most frequent cover about 98% of the pixels; a palette of those (:func:`palette_image`; every other colour, at the
#: edges of text and lines, becomes its nearest) shows them without a visible difference in a third of the bytes
#: (the default run's 170 figures: 42.3 MB as full-colour PNGs at 150 dpi, 12.3 MB so at 120 dpi). zlib level 6 on the
#: palette image: level 9 took six times as long for 10% fewer bytes.
PNG_COLOURS = 64
PNG_COMPRESS_LEVEL = 6

#: Text shaping features of every text: no ligatures. matplotlib 3.11 shapes text (libraqm), and each ligature glyph
#: ("fi" in "significantly", "ff" in "difference") goes into a second embedded subset of the font, which costs a
#: second fontTools subsetting per PDF; the letters also stay separate glyphs in the PDF's text.
_FONT_FEATURES = ("-liga",)

#: Heatmap cell sizes in inches and their p-value font sizes in points: one panel (room for "<.001" at 6.5 pt),
#: a grid of panels.
_SINGLE_CELL, _SINGLE_FONT = 0.42, 6.5
_GRID_CELL, _GRID_FONT = 0.36, 5.5

#: Significance shades, light to dark: p <= alpha, p <= 0.01, p <= 0.001 (the paper's three levels).
_SHADES = ("#c7e9c0", "#74c476", "#238b45")
_NOT_SIGNIFICANT_TEXT = "#9a9a9a"
_DIAGONAL = "#e6e6e6"

# Tests that compare the actual statistic with a shifted bootstrap distribution (paper, Figs. 1 and 3).
_SHIFT_TO_ZERO = frozenset(
    {"bootstrap", "bootstrap_two_sided", "bootstrap_documents", "bootstrap_stationary"}
)
_PAIRED_BOOTSTRAP = frozenset(
    {"paired_bootstrap", "paired_bootstrap_documents", "paired_bootstrap_stationary"}
)


# --------------------------------------------------------------------------------------------------- saving


def save_figure(figure: Figure, out_paths: Sequence[str | Path], **savefig: Any) -> list[Path]:
    """Write ``figure`` to every path (PDF or PNG by suffix) reproducibly and atomically, then close it: the
    metadata carries no date or version, so reruns are byte-identical. Each file is written as ``<file>.tmp`` and
    renamed when complete, the one temporary name of mtsig.runtime.hard_stop (a job stopped hard mid-write and run again
    writes it again and renames it away: no stray file is left). ``savefig`` options (e.g. ``dpi``,
    ``bbox_inches``) pass through. Returns the paths. The one figure writer of the project."""
    if not out_paths:
        raise InputError("no output path given for the figure")
    paths = [Path(p) for p in out_paths]
    if hasattr(Text, "set_fontfeatures"):  # matplotlib >= 3.11 (earlier versions do not shape text)
        for text in figure.findobj(Text):
            text.set_fontfeatures(_FONT_FEATURES)
    for out in paths:
        suffix = out.suffix.lower()
        if suffix not in _SAVE_OPTIONS:
            raise InputError(f"figure format {suffix or '(none)'} not supported; use .pdf or .png", out)
        out.parent.mkdir(parents=True, exist_ok=True)
        temporary = hard_stop.temporary_path(out)
        try:
            if suffix == ".png":
                _save_png(figure, temporary, savefig)
            else:
                figure.savefig(temporary, format=suffix[1:], **_SAVE_OPTIONS[suffix], **savefig)
            hard_stop.renaming()
            os.replace(temporary, out)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
    import matplotlib.pyplot as plt  # only to release pyplot-managed figures; plots.py itself avoids pyplot

    plt.close(figure)
    return paths


def _save_png(figure: Figure, path: str | Path, savefig: dict[str, Any]) -> None:
    """``figure`` as a palette PNG (:func:`palette_image`), so that a report of every figure stays small enough to
    send (the default run's report: 60 MB with full-colour PNGs). Drawn to raw RGBA by Agg (no PNG encoded and
    decoded on the way); the file holds the pixels and the resolution, no text chunk."""
    import io

    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    canvas = FigureCanvasAgg(figure)  # drawn on this canvas, whose renderer then tells the image's size
    raw = io.BytesIO()
    figure.savefig(raw, format="raw", **savefig)
    width, height = int(canvas.renderer.width), int(canvas.renderer.height)
    if width * height * 4 != raw.getbuffer().nbytes:
        raise RuntimeError(f"matplotlib drew {raw.getbuffer().nbytes} bytes for a {width}x{height} image")
    rgba = np.frombuffer(raw.getbuffer(), dtype=np.uint8).reshape(height, width, 4)
    if rgba[..., 3].min() == 255:
        palette = palette_image(rgba)
    else:  # a transparent figure (none of the project's): Pillow's quantiser, which keeps the alpha channel
        palette = Image.fromarray(rgba, "RGBA").quantize(
            PNG_COLOURS, Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE
        )
    dpi = savefig.get("dpi", matplotlib.rcParams["savefig.dpi"])
    dpi = figure.dpi if dpi == "figure" else float(dpi)
    palette.save(path, format="png", compress_level=PNG_COMPRESS_LEVEL, dpi=(dpi, dpi))


def palette_image(rgba: np.ndarray, colours: int = PNG_COLOURS) -> Any:
    """An opaque ``[H, W, 4]`` uint8 image as a Pillow palette image: its ``colours`` most frequent colours exactly
    (ties by colour value), every other colour (anti-aliased edges) as its nearest palette colour in RGB. Lossless
    when the image has at most ``colours`` colours; deterministic, the palette depending only on the pixels."""
    import pandas as pd
    from PIL import Image

    codes = np.ascontiguousarray(rgba).view("<u4")[..., 0] & 0xFFFFFF  # 0xBBGGRR
    counts = pd.Series(codes.ravel()).value_counts(sort=False)  # hashing: faster than np.unique's sort
    present, frequency = counts.index.to_numpy(np.uint32), counts.to_numpy()
    kept = present[np.lexsort((present, -frequency))[:colours]]

    def channels(code: np.ndarray) -> np.ndarray:
        return np.stack([code & 255, (code >> 8) & 255, (code >> 16) & 255], axis=1).astype(np.int64)

    table, others = channels(kept), channels(present)
    nearest = ((others[:, None, :] - table[None, :, :]) ** 2).sum(axis=2).argmin(axis=1)  # first of equals
    lookup = np.zeros(1 << 24, dtype=np.uint8)
    lookup[present] = nearest
    image = Image.fromarray(lookup[codes], "P")
    image.putpalette(table.astype(np.uint8).ravel().tolist())
    return image


def pdf_and_png(stem: str | Path) -> list[Path]:
    """``<stem>.pdf`` and ``<stem>.png``: where :func:`save_figure` writes a figure known by its stem."""
    stem = Path(stem)
    return [stem.with_suffix(".pdf"), stem.with_suffix(".png")]


# --------------------------------------------------------------------------------------------------- Figs. 5-6


def null_view(test: str, pseudo: np.ndarray, actual: float) -> dict[str, object]:
    """What a panel of Figs. 5-6 shows for ``test``: the plotted values, the cut-off(s) and the tail count.

    * paired bootstrap (Fig. 4): the d_b themselves; the cut-off is 0 ("the line through the origin"), counted
      below it, and the actual statistic is marked for reference;
    * bootstrap with shift-to-zero (Figs. 1, 3): d_b - tau with tau = mean d_b; counted at or beyond d
      (two-sided: |d_b - tau| >= |d|);
    * approximate randomization (Fig. 2): the d_r; counted at or beyond d (two-sided: |d_r| >= |d|);
    * Riezler & Maxwell's originals (seed 001): |d_b| - mean |d_b| or |d_r|, counted at or beyond |d|.

    ``tail`` is that count, so ``tail / len(pseudo)`` is the test's ``c/B`` p-value for "X better than Y".
    """
    values = np.asarray(pseudo, dtype=float)
    if values.ndim != 1 or values.size == 0 or not np.isfinite(values).all():
        raise InputError(f"pseudo-statistics of {test} must be a non-empty 1-D array of finite numbers")
    if test in _PAIRED_BOOTSTRAP:
        return {
            "values": values,
            "cutoffs": [0.0],
            "tail": int((values <= 0).sum()),  # a tie counts against X, as the test counts it
            "shift": 0.0,
            "actual": actual,
        }
    if test == "rm_bootstrap":
        magnitude = np.abs(values)
        shifted = magnitude - magnitude.mean()
        tail = int((shifted >= abs(actual)).sum())
        return {
            "values": shifted,
            "cutoffs": [abs(actual)],
            "tail": tail,
            "shift": magnitude.mean(),
            "actual": actual,
        }
    if test == "rm_approximate_randomization":
        magnitude = np.abs(values)
        tail = int((magnitude >= abs(actual)).sum())
        return {"values": magnitude, "cutoffs": [abs(actual)], "tail": tail, "shift": 0.0, "actual": actual}
    shift = float(values.mean()) if test in _SHIFT_TO_ZERO else 0.0
    null = values - shift
    if is_two_sided(test):
        tail = int((np.abs(null) >= abs(actual)).sum())
        cutoffs = [-abs(actual), abs(actual)]
    else:
        tail = int((null >= actual).sum())
        cutoffs = [actual]
    return {"values": null, "cutoffs": cutoffs, "tail": tail, "shift": shift, "actual": actual}


#: Share of a distribution panel's data range left free on each side of its x-axis.
PANEL_MARGIN = 0.05


def _histogram_bins(arrays: Sequence[np.ndarray], marks: Sequence[float], n_bins: int = 60) -> np.ndarray:
    """Common bins covering the distributions and the marked lines, so panels are comparable."""
    low = min(min(float(a.min()) for a in arrays), *marks)
    high = max(max(float(a.max()) for a in arrays), *marks)
    if high == low:
        low, high = low - 0.5, high + 0.5
    return np.linspace(low, high, n_bins + 1)


def _draw_distribution_panel(ax, test: str, view: Mapping[str, Any], raw: np.ndarray, actual: float) -> None:
    """One panel of Figs. 5-6. Each histogram is counted once with numpy and drawn as one stepped shape
    (``stairs``), not one bar patch per bin: the same picture with a handful of vector objects."""
    values = view["values"]
    raw = np.asarray(raw, dtype=float)
    shifted = view["shift"] != 0.0 and test in _SHIFT_TO_ZERO
    arrays = [values, raw] if shifted else [values]
    bins = _histogram_bins(arrays, [*view["cutoffs"], actual, 0.0])
    counts = np.histogram(values, bins=bins)[0]
    tallest = int(counts.max())
    if shifted:
        raw_counts = np.histogram(raw, bins=bins)[0]
        tallest = max(tallest, int(raw_counts.max()))
        ax.stairs(raw_counts, bins, color="#7f7f7f", linewidth=0.8, label="d_b (unshifted)")
    label = "d_b − τ (shifted)" if shifted else "pseudo-statistics"
    ax.stairs(counts, bins, fill=True, color="#6baed6", label=label)
    for cutoff in view["cutoffs"]:
        ax.axvline(cutoff, color="#d62728", linewidth=1.2, linestyle="--")
    if test in _PAIRED_BOOTSTRAP:
        ax.axvline(actual, color="#2ca02c", linewidth=1.2, label="actual d")
    ax.plot([], [], color="#d62728", linestyle="--", label="cut-off")
    n = len(values)
    ax.set_title(f"{label_of_test(test)}\nc = {view['tail']} of {n} (p = {view['tail'] / n:.4g})")
    ax.ticklabel_format(axis="x", style="sci", scilimits=(-2, 3))
    # A margin on both sides: a cut-off or the actual statistic at the extreme of the data (AR's cut-off d lies
    # beyond every d_r when p = 0) would otherwise be drawn on the axis frame and be invisible.
    margin = PANEL_MARGIN * (bins[-1] - bins[0])
    ax.set_xlim(bins[0] - margin, bins[-1] + margin)
    ax.set_ylim(0, max(tallest, 1) * 1.3)  # room for the legend above the bars
    ax.legend(loc="upper left", frameon=False)


def pseudo_statistic_distributions(
    distributions: Mapping[str, np.ndarray],
    actual: float,
    tests: Sequence[str],
    title: str,
    out_paths: Sequence[str | Path],
    statistic_label: str = "score difference",
) -> dict[str, dict[str, object]]:
    """Figs. 5-6 of the paper: one panel per test, the histogram of its pseudo-statistics and the actual one.

    ``distributions[test]`` holds the raw pseudo-statistics d_b = S(X_b) - S(Y_b) (bootstrap tests) or
    d_r = S(X_r) - S(Y_r) (approximate randomization); ``actual`` is d = S(X) - S(Y). Panels follow
    :func:`null_view`: the shift-to-zero bootstrap shows the shifted distribution (filled) over the unshifted
    d_b (outline), the paired bootstrap its cut-off at zero. The returned dict maps test to :func:`null_view`'s
    description (values, cut-offs, tail count, shift).
    """
    missing = [t for t in tests if t not in distributions]
    if missing:
        raise InputError(f"no pseudo-statistics for test(s) {', '.join(missing)}")
    if not np.isfinite(actual):
        raise InputError(f"the actual statistic must be finite, got {actual}")
    views = {test: null_view(test, distributions[test], float(actual)) for test in tests}
    # Fixed geometry in inches (no layout engine: constrained layout measures every text two extra times).
    panel, left, gap, right, bottom, top = 2.55, 0.62, 0.45, 0.12, 0.5, 0.78
    width = left + len(tests) * panel + (len(tests) - 1) * gap + right
    height = 3.0
    with matplotlib.rc_context(STYLE):
        figure = Figure(figsize=(width, height))
        for position, test in enumerate(tests):
            ax = figure.add_axes(
                (
                    (left + position * (panel + gap)) / width,
                    bottom / height,
                    panel / width,
                    (height - bottom - top) / height,
                )
            )
            _draw_distribution_panel(ax, test, views[test], distributions[test], float(actual))
            ax.set_xlabel(statistic_label)
            if position == 0:
                ax.set_ylabel("count")
        figure.suptitle(title, y=1 - 0.06 / height, va="top")
        save_figure(figure, out_paths)
    return views


# --------------------------------------------------------------------------------------------------- Figs. 7-8


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
    ax, matrix: pd.DataFrame, alpha: float, show_row_labels: bool, cell_font: float, cell_inches: float
) -> np.ndarray:
    """One heatmap panel; returns the boolean matrix of coloured (significant) cells.

    Drawn with few objects: one image holds the shades and the grey diagonal, one line collection the grid, one
    path per text colour holds every printed p-value (:func:`_cell_text_path`), ticks by :func:`_label_cells`. The panel must
    be ``cell_inches`` per cell (the fixed layouts below), which sets the size of the printed p-values."""
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
    cells_by_colour: dict[str, list[tuple[int, int, str]]] = {}
    for i, j in zip(*np.nonzero(~np.isnan(p) & ~np.eye(n, dtype=bool)), strict=True):
        colour = "white" if shade[i, j] == 3 else ("black" if shade[i, j] else _NOT_SIGNIFICANT_TEXT)
        cells_by_colour.setdefault(colour, []).append((int(i), int(j), _format_p(p[i, j])))
    for colour, cells in cells_by_colour.items():
        # add_artist, not add_patch: the data limits are fixed, and computing the extent of 100 000 Bezier
        # vertices would cost seconds
        outline = PathPatch(_cell_text_path(cells, cell_font, cell_inches), facecolor=colour, linewidth=0)
        ax.add_artist(outline)
    ax.set_xlim(-0.5, n - 0.5)
    ax.set_ylim(n - 0.5, -0.5)
    _label_cells(ax, matrix.columns, matrix.index if show_row_labels else None)
    for side in ax.spines.values():
        side.set_visible(False)
    return shade > 0


@functools.cache
def _figure_font(size: float) -> FontProperties:
    """The figures' font (:data:`STYLE`) at ``size`` points."""
    with matplotlib.rc_context(STYLE):
        return FontProperties(family=STYLE["font.family"], size=size)


def _ink_extents(outline: OutlinePath) -> tuple[float, float, float, float]:
    """``(x0, y0, x1, y1)`` of the ink of a glyph outline made of lines and quadratic Beziers (TrueType), as
    :meth:`matplotlib.path.Path.get_extents` computes them, without its Python loop over every curve: the on-curve
    points, plus each curve's interior extremum ``t = (p0 - p1) / (p0 - 2 p1 + p2)`` per axis."""
    codes = outline.codes
    if codes is None or (codes == OutlinePath.CURVE4).any():
        box = outline.get_extents()  # not a TrueType outline: the general (slow) computation
        return box.x0, box.y0, box.x1, box.y1
    vertices = outline.vertices
    # a CURVE3 segment is a (control, end) pair of vertices after its start point; the pairs start at the odd
    # positions of each run of CURVE3 codes
    curve = codes == OutlinePath.CURVE3
    run_start = curve & ~np.concatenate(([False], curve[:-1]))
    position = np.arange(len(codes)) - np.maximum.accumulate(np.where(run_start, np.arange(len(codes)), 0))
    control = np.flatnonzero(curve & (position % 2 == 0))
    p0, p1, p2 = vertices[control - 1], vertices[control], vertices[control + 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (p0 - p1) / (p0 - 2 * p1 + p2)
    t = np.where((t > 0) & (t < 1), t, 0.0)  # t = 0 gives p0, already among the candidates
    extrema = (1 - t) ** 2 * p0 + 2 * t * (1 - t) * p1 + t**2 * p2
    on_curve = np.isin(codes, (OutlinePath.MOVETO, OutlinePath.LINETO)) | (curve & (position % 2 == 1))
    points = np.concatenate([vertices[on_curve], extrema])
    x0, y0 = points.min(axis=0)
    x1, y1 = points.max(axis=0)
    return float(x0), float(y0), float(x1), float(y1)


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


@functools.cache
def _digit_height(size: float) -> float:
    """Ink height of "0" at ``size`` points: the p-values' common vertical centre."""
    _, y0, _, y1 = _ink_extents(TextPath((0, 0), "0", prop=_figure_font(size)))
    return y1 - y0


@functools.cache
def _glyph_outline(text: str, size: float) -> OutlinePath:
    """``text`` at ``size`` points as a glyph outline in points, centred horizontally on its ink and vertically
    on the digits' height (so "<.001" and ".05" share a baseline), y pointing down as in a heatmap's rows."""
    outline = TextPath((0, 0), text, prop=_figure_font(size))
    x0, _, x1, _ = _ink_extents(outline)
    vertices = (outline.vertices - [(x0 + x1) / 2, _digit_height(size) / 2]) * [1, -1]
    return OutlinePath(vertices, outline.codes)


def _cell_text_path(cells: Sequence[tuple[int, int, str]], size: float, cell_inches: float) -> OutlinePath:
    """One compound path (in data coordinates, one unit per cell) of every ``(row, column, text)``, each centred
    in its cell. Drawing the p-values of a panel as one path per colour instead of one text object per cell keeps
    a 14-system figure of 11 panels (2 002 p-values) fast to render and small as PDF; the price is that the
    p-values in the PDF are outlines, not selectable text (titles and labels stay text)."""
    points_per_cell = 72.0 * cell_inches
    outlines = [_glyph_outline(text, size) for _, _, text in cells]
    vertices = np.concatenate(
        [
            o.vertices / points_per_cell + (column, row)
            for o, (row, column, _) in zip(outlines, cells, strict=True)
        ]
    )
    return OutlinePath(vertices, np.concatenate([o.codes for o in outlines]))


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
    ``savefig.dpi``). Laid out by :func:`significance_heatmap_figure`. Returns the boolean matrix of coloured cells.
    """
    figure, coloured = significance_heatmap_figure(p_matrix, systems, alpha, title, item=item)
    with matplotlib.rc_context(STYLE):
        save_figure(figure, out_paths, **({"dpi": dpi} if dpi else {}))
    return coloured


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
    p_matrix: pd.DataFrame, systems: Sequence[str], alpha: float, title: str, *, item: str = "system"
) -> tuple[Figure, pd.DataFrame]:
    """The figure of :func:`significance_heatmap`, unsaved, and its coloured cells.

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
        coloured = _draw_heatmap(
            ax, ordered, alpha, show_row_labels=True, cell_font=cell_font, cell_inches=cell
        )
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

    Row labels are printed on the first panel of each row only; every panel has its column labels. Returns, per
    test, the boolean matrix of coloured cells.
    """
    if not p_matrices:
        raise InputError("no p-value matrices to draw")
    if columns < 1:
        raise InputError(f"columns must be at least 1, got {columns}")
    ordered = {test: _check_matrix(matrix, systems) for test, matrix in p_matrices.items()}
    panel_columns = min(columns, len(ordered))
    panel_rows = -(-len(ordered) // panel_columns)
    coloured: dict[str, pd.DataFrame] = {}
    with matplotlib.rc_context(STYLE):
        suptitle = f"{title} — {metric_label(metric)}" if metric else title
        titles = [label_of_test(test) for test in ordered]
        geometry = _heatmap_geometry(systems, _GRID_CELL, panel_columns, panel_rows, titles, suptitle)
        figure = Figure(figsize=(geometry["width"], geometry["height"]))
        for position, (test, matrix) in enumerate(ordered.items()):
            row, column = divmod(position, panel_columns)
            ax = _panel_axes(figure, geometry, row, column)
            mask = _draw_heatmap(
                ax, matrix, alpha, show_row_labels=column == 0, cell_font=_GRID_FONT, cell_inches=_GRID_CELL
            )
            ax.set_title(label_of_test(test))
            coloured[test] = pd.DataFrame(mask, index=matrix.index, columns=matrix.columns)
        figure.suptitle(suptitle, y=1 - 0.1 / geometry["height"], va="top")
        figure.legend(handles=_legend_handles(alpha), loc="lower center", ncols=3, frameon=False)
        save_figure(figure, out_paths)
    return coloured


def experiment_figures(
    distributions: Mapping[str, Mapping[str, Mapping[str, np.ndarray]]],
    gold_pvalues: pd.DataFrame,
    tests: Mapping[str, pd.DataFrame],
    systems: Sequence[str],
    test_names: Sequence[str],
    alpha: float,
    folders: Mapping[str, Path],
) -> tuple[str, ...]:
    """An experiment's figures, each saved once per ``folders`` entry (suffix -> folder, e.g. ``{".png": ...}``):
    Figs. 5-6 of the paper for every kept pair (``distributions``: metric -> ``"x__y"`` -> the paper's tests'
    pseudo-statistics and ``actual``), Fig. 7 for every gold of ``gold_pvalues`` (one panel per criterion, and
    combined when there are several), Fig. 8 for every metric's ``tests`` table (the tests of ``test_names`` it
    has). Heatmaps at ``alpha``, systems in the order of ``systems`` (best first). Returns the figures' names."""
    names: list[str] = []

    def outs(name: str) -> list[Path]:
        names.append(name)
        return [folder / f"{name}{suffix}" for suffix, folder in folders.items()]

    for metric, by_pair in distributions.items():
        for pair, arrays in by_pair.items():
            x, y = pair.split("__")
            shown = [t for t in PAPER_TESTS if t in arrays]  # Figs. 5-6 show the paper's three tests
            pseudo_statistic_distributions(
                {t: arrays[t] for t in shown},
                float(arrays["actual"]),
                shown,
                f"{metric.upper()}: {x} vs {y}",
                outs(f"distributions_{metric.lower()}_{x}__{y}"),
                statistic_label=f"{metric.upper()} difference",
            )
    for gold in dict.fromkeys(gold_pvalues["gold"]):
        rows = gold_pvalues[gold_pvalues["gold"] == gold]
        criteria = list(dict.fromkeys(rows["criterion"]))
        matrices = {c: p_matrix_from_gold(rows, systems, alpha, [c]) for c in criteria}
        if len(criteria) > 1:
            matrices["combined"] = p_matrix_from_gold(rows, systems, alpha, criteria)
        significance_heatmap_grid(matrices, systems, alpha, f"Human gold ({gold})", outs(f"human_{gold}"))
    for metric, table in tests.items():
        in_table = set(table["test"])
        matrices = {t: p_matrix_from_tests(table, t, systems) for t in test_names if t in in_table}
        title = "Randomized tests: row system significantly better than column system"
        # lower case: the report links every figure by its file name, case-insensitively (docutils), so TER's
        # grid in one experiment and ter's in another must have the same name, not two that collide
        significance_heatmap_grid(matrices, systems, alpha, title, outs(f"tests_{metric.lower()}"), metric)
    return tuple(names)
