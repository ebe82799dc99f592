"""Figs. 5-6 of Graham, Mathur & Baldwin (2014): the pseudo-statistic distributions of a pair of systems under
the paper's tests, with the cut-off(s) each test counts against and the actual statistic.

The plotting function writes every path in ``out_paths`` (format from the suffix, ``.pdf`` or ``.png``) through
:func:`mtsig.report.plots.saving.save_figure` and returns the data it drew, so that tests can check it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
from matplotlib.figure import Figure

from mtsig.errors import InputError
from mtsig.report.plots.saving import STYLE, save_figure
from mtsig.report.tables import label_of_test
from mtsig.stats.evaluation import is_two_sided

# Tests that compare the actual statistic with a shifted bootstrap distribution (paper, Figs. 1 and 3).
_SHIFT_TO_ZERO = frozenset(
    {"bootstrap", "bootstrap_two_sided", "bootstrap_documents", "bootstrap_stationary"}
)
_PAIRED_BOOTSTRAP = frozenset(
    {"paired_bootstrap", "paired_bootstrap_documents", "paired_bootstrap_stationary"}
)


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
