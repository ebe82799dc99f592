"""The paper's figures (Graham, Mathur & Baldwin 2014): pseudo-statistic distributions (Figs. 5-6) and pairwise
significance heatmaps (Fig. 7 for the human gold, Fig. 8 for every metric x test).

Figures are built on :class:`matplotlib.figure.Figure` directly (no pyplot state, no GUI backend) and saved with
the metadata that carries dates or versions removed, so the same input gives byte-identical PDF and PNG files.
Each plotting function writes every path in ``out_paths`` (format from the suffix, ``.pdf`` or ``.png``) through a
temporary file, so nothing partial is left on error, and returns the data it drew so that tests can check it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from mtsig.errors import InputError
from mtsig.report.tables import metric_label, test_label
from mtsig.stats.evaluation import is_two_sided

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
    "savefig.dpi": 150,
    "pdf.fonttype": 42,  # TrueType: text stays selectable and searchable in the PDF
    "svg.hashsalt": "mtsig",
}

#: Savefig metadata per format: drop creation dates and the software version so bytes are reproducible.
_METADATA: dict[str, dict[str, None]] = {
    ".pdf": {"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None},
    ".png": {"Software": None},
}

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
    metadata carries no date or version, so reruns are byte-identical. ``savefig`` options (e.g. ``dpi``,
    ``bbox_inches``) pass through. Returns the paths. The one figure writer of the project."""
    if not out_paths:
        raise InputError("no output path given for the figure")
    paths = [Path(p) for p in out_paths]
    for out in paths:
        suffix = out.suffix.lower()
        if suffix not in _METADATA:
            raise InputError(f"figure format {suffix or '(none)'} not supported; use .pdf or .png", out)
        out.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(suffix=suffix, dir=out.parent, prefix=f".{out.stem}.")
        os.close(handle)
        try:
            figure.savefig(temporary, format=suffix[1:], metadata=_METADATA[suffix], **savefig)
            os.replace(temporary, out)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    import matplotlib.pyplot as plt  # only to release pyplot-managed figures; plots.py itself avoids pyplot

    plt.close(figure)
    return paths


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
            "tail": int((values < 0).sum()),
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


def _histogram_bins(arrays: Sequence[np.ndarray], marks: Sequence[float], n_bins: int = 60) -> np.ndarray:
    """Common bins covering the distributions and the marked lines, so panels are comparable."""
    low = min(min(float(a.min()) for a in arrays), *marks)
    high = max(max(float(a.max()) for a in arrays), *marks)
    if high == low:
        low, high = low - 0.5, high + 0.5
    return np.linspace(low, high, n_bins + 1)


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
    with matplotlib.rc_context(STYLE):
        figure = Figure(figsize=(3.2 * len(tests), 3.0), layout="constrained")
        axes = figure.subplots(1, len(tests), squeeze=False)[0]
        for ax, test in zip(axes, tests, strict=True):
            view = views[test]
            values = view["values"]
            raw = np.asarray(distributions[test], dtype=float)
            shifted = view["shift"] != 0.0 and test in _SHIFT_TO_ZERO
            arrays = [values, raw] if shifted else [values]
            bins = _histogram_bins(arrays, [*view["cutoffs"], float(actual), 0.0])
            if shifted:
                ax.hist(
                    raw, bins=bins, histtype="step", color="#7f7f7f", linewidth=0.8, label="d_b (unshifted)"
                )
                ax.hist(values, bins=bins, color="#6baed6", label="d_b − τ (shifted)")
            else:
                ax.hist(values, bins=bins, color="#6baed6", label="pseudo-statistics")
            for cutoff in view["cutoffs"]:
                ax.axvline(cutoff, color="#d62728", linewidth=1.2, linestyle="--")
            if test in _PAIRED_BOOTSTRAP:
                ax.axvline(float(actual), color="#2ca02c", linewidth=1.2, label="actual d")
            ax.plot([], [], color="#d62728", linestyle="--", label="cut-off")
            n = len(values)
            ax.set_title(f"{test_label(test)}\nc = {view['tail']} of {n} (p = {view['tail'] / n:.4g})")
            ax.set_xlabel(statistic_label)
            ax.ticklabel_format(axis="x", style="sci", scilimits=(-2, 3))
            ax.legend(loc="upper left", frameon=False)
            ax.margins(y=0.25)  # room for the legend above the bars
        axes[0].set_ylabel("count")
        figure.suptitle(title)
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
    matrix = pd.DataFrame(np.nan, index=list(systems), columns=list(systems))
    for r in rows.itertuples(index=False):
        if r.sys_x not in matrix.index or r.sys_y not in matrix.columns:
            continue
        if is_two_sided(test) and not r.statistic > 0:
            continue
        matrix.loc[r.sys_x, r.sys_y] = float(r.p_value)
    return matrix


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
    ax, matrix: pd.DataFrame, alpha: float, show_row_labels: bool, cell_font: float
) -> np.ndarray:
    """One heatmap panel; returns the boolean matrix of coloured (significant) cells."""
    p = matrix.to_numpy(dtype=float)
    n = p.shape[0]
    with np.errstate(invalid="ignore"):
        shade = np.where(np.isnan(p), 0, _shade_index(np.nan_to_num(p, nan=1.0), alpha))
    colours = ListedColormap(["#ffffff", *_SHADES])
    ax.imshow(shade, cmap=colours, vmin=-0.5, vmax=3.5, interpolation="nearest", aspect="equal")
    for i in range(n):
        ax.add_patch(Rectangle((i - 0.5, i - 0.5), 1, 1, color=_DIAGONAL, linewidth=0))
        for j in range(n):
            if i == j or np.isnan(p[i, j]):
                continue
            colour = "white" if shade[i, j] == 3 else ("black" if shade[i, j] else _NOT_SIGNIFICANT_TEXT)
            ax.text(j, i, _format_p(p[i, j]), ha="center", va="center", fontsize=cell_font, color=colour)
    # thin grid between cells
    ax.set_xticks(np.arange(-0.5, n, 1), minor=True)
    ax.set_yticks(np.arange(-0.5, n, 1), minor=True)
    ax.grid(which="minor", color="#d0d0d0", linewidth=0.5)
    ax.tick_params(which="minor", length=0)
    ax.set_xticks(range(n))
    ax.set_xticklabels(matrix.columns, rotation=55, ha="right", rotation_mode="anchor")
    ax.set_yticks(range(n))
    ax.set_yticklabels(matrix.index if show_row_labels else [])
    ax.tick_params(which="major", length=2)
    for side in ax.spines.values():
        side.set_visible(False)
    return shade > 0


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
) -> pd.DataFrame:
    """Fig. 7 / one panel of Fig. 8: pairwise significance, rows and columns ordered by ``systems``.

    ``p_matrix.loc[row, column]`` is the p-value for "row better than column" (:func:`p_matrix_from_tests`,
    :func:`p_matrix_from_gold`). A cell is coloured when that p-value is <= ``alpha`` (darker at 0.01 and 0.001),
    with the p-value printed in it; non-significant p-values are printed in grey. Order ``systems`` by human
    score, best first, to get the paper's upper-triangle picture. Returns the boolean matrix of coloured cells.
    """
    ordered = _check_matrix(p_matrix, systems)
    n = len(systems)
    longest = max(len(s) for s in systems)
    cell = 0.42  # inches: room for "<.001" at 6.5 pt
    label_room = 0.065 * longest + 0.3  # rotated labels need about their length in characters x 0.065 in
    with matplotlib.rc_context(STYLE):
        figure = Figure(
            figsize=(n * cell + label_room + 0.4, n * cell + label_room + 0.9), layout="constrained"
        )
        ax = figure.subplots()
        coloured = _draw_heatmap(ax, ordered, alpha, show_row_labels=True, cell_font=6.5)
        ax.set_xlabel("column system")
        ax.set_ylabel("row system (coloured: row significantly better)")
        ax.set_title(title)
        figure.legend(handles=_legend_handles(alpha), loc="outside lower center", ncols=3, frameon=False)
        save_figure(figure, out_paths)
    return pd.DataFrame(coloured, index=ordered.index, columns=ordered.columns)


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
    n = len(systems)
    longest = max(len(s) for s in systems)
    cell = 0.36
    label_room = 0.06 * longest + 0.3
    panel_columns = min(columns, len(ordered))
    panel_rows = -(-len(ordered) // panel_columns)
    coloured: dict[str, pd.DataFrame] = {}
    with matplotlib.rc_context(STYLE):
        figure = Figure(
            figsize=(
                panel_columns * (n * cell + 0.3) + label_room,
                panel_rows * (n * cell + label_room + 0.3) + 0.6,
            ),
            layout="constrained",
        )
        axes = figure.subplots(panel_rows, panel_columns, squeeze=False).ravel()
        for position, (test, matrix) in enumerate(ordered.items()):
            ax = axes[position]
            first_in_row = position % panel_columns == 0
            mask = _draw_heatmap(ax, matrix, alpha, show_row_labels=first_in_row, cell_font=5.5)
            if not first_in_row:
                ax.tick_params(axis="y", which="major", length=0)
            ax.set_title(test_label(test))
            coloured[test] = pd.DataFrame(mask, index=matrix.index, columns=matrix.columns)
        for ax in axes[len(ordered) :]:
            ax.set_visible(False)
        figure.suptitle(f"{title} — {metric_label(metric)}" if metric else title)
        figure.legend(handles=_legend_handles(alpha), loc="outside lower center", ncols=3, frameon=False)
        save_figure(figure, out_paths)
    return coloured
