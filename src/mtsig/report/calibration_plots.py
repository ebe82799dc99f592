"""Figures of the calibration study (:mod:`mtsig.studies.calibration`): Type I error against nominal alpha, and power.

Both take the study's table (columns ``metric, test, alpha, kind, q, rejections, trials, rate, ci_low, ci_high``)
and draw one panel per metric, one line per test, with the 95% Clopper-Pearson interval of every rate as an error
bar. Output is byte-identical for identical input: the PDF carries no creation date and the PNG no software tag.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from mtsig.errors import InputError  # noqa: E402
from mtsig.settings import Calibration
from mtsig.stats.evaluation import is_two_sided  # noqa: E402
from mtsig.studies.calibration import ALTERNATIVE, NULL  # noqa: E402

PANEL_WIDTH = 4.2
PANEL_HEIGHT = 3.6
# Line styles tell one-sided (solid) from two-sided (dashed) tests; colours tell the test families apart.
_TEST_COLOURS = {
    "paired_bootstrap": "tab:blue",
    "bootstrap": "tab:orange",
    "bootstrap_two_sided": "tab:orange",
    "approximate_randomization": "tab:green",
    "approximate_randomization_two_sided": "tab:green",
    "rm_bootstrap": "tab:red",
    "rm_approximate_randomization": "tab:purple",
    "paired_bootstrap_documents": "tab:cyan",
    "bootstrap_documents": "tab:brown",
    "paired_bootstrap_stationary": "tab:olive",
    "bootstrap_stationary": "tab:pink",
}


def _style(test: str) -> dict[str, object]:
    return {
        "color": _TEST_COLOURS.get(test, "tab:gray"),
        "linestyle": "--" if is_two_sided(test) else "-",
        "marker": "o",
        "markersize": 3.5,
        "linewidth": 1.2,
        "capsize": 2,
        "elinewidth": 0.8,
    }


def _grid(rows: int, columns: int) -> tuple[Figure, np.ndarray]:
    fig, axes = plt.subplots(
        rows, columns, figsize=(PANEL_WIDTH * columns, PANEL_HEIGHT * rows), squeeze=False
    )
    return fig, axes


def _legend_right(fig: Figure, ax: plt.Axes) -> None:
    """One legend for the whole figure, right of the panels (saved with ``bbox_inches="tight"``)."""
    handles, labels = ax.get_legend_handles_labels()
    fig.tight_layout()
    fig.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8, frameon=False)


def _offsets(n_tests: int, spacing: float) -> np.ndarray:
    """Small horizontal offsets so that error bars of different tests at the same x do not hide each other;
    together they span ``spacing`` (a fraction of the gap between neighbouring x values)."""
    return (np.arange(n_tests) - (n_tests - 1) / 2) * spacing / max(n_tests, 1)


def _null_rows(table: pd.DataFrame) -> pd.DataFrame:
    null = table[table["kind"] == NULL]
    if null.empty:
        raise InputError("the calibration table has no null rows to plot")
    return null


def _power_rows(table: pd.DataFrame, alpha: float) -> pd.DataFrame:
    rows = table[np.isclose(table["alpha"], alpha) & table["kind"].isin([NULL, ALTERNATIVE])]
    if rows.empty:
        raise InputError(f"the calibration table has no rows at alpha = {alpha}")
    return rows


def _draw_rates(ax: plt.Axes, rows: pd.DataFrame, x_column: str, categorical: bool) -> np.ndarray:
    """One error-bar line per test: rate against ``x_column`` with its Clopper-Pearson interval.

    ``categorical`` puts the distinct x values at equal spacing (positions 0, 1, ...), for grids such as q that
    are dense near 0.5 and sparse further out. Returns the sorted distinct x values.
    """
    xs = np.sort(rows[x_column].unique())
    position = {x: (n if categorical else x) for n, x in enumerate(xs)}
    gap = 1.0 if categorical else (float(np.min(np.diff(xs))) if len(xs) > 1 else 0.02)
    spacing = 0.5 * gap if categorical else 0.25 * gap
    tests = list(dict.fromkeys(rows["test"]))
    for offset, test in zip(_offsets(len(tests), spacing), tests, strict=True):
        r = rows[rows["test"] == test].sort_values(x_column)
        error = [r["rate"] - r["ci_low"], r["ci_high"] - r["rate"]]
        ax.errorbar(r[x_column].map(position) + offset, r["rate"], yerr=error, label=test, **_style(test))
    ax.grid(alpha=0.3)
    return xs


def _draw_type1(ax: plt.Axes, rows: pd.DataFrame, y_limit: float) -> None:
    """Rejection rate under the null against nominal alpha, with the diagonal rate = alpha."""
    x_limit = float(rows["alpha"].max()) * 1.15
    ax.plot([0, x_limit], [0, x_limit], color="black", linewidth=0.8, label="rate = alpha")
    alphas = _draw_rates(ax, rows, "alpha", categorical=False)
    metric, trials = rows["metric"].iloc[0], int(rows["trials"].iloc[0])
    ax.set_title(f"{metric}: Type I error ({trials} null pairs)", fontsize=10)
    ax.set_xlim(0, x_limit)
    ax.set_ylim(0, y_limit)
    ax.set_xticks(alphas)
    ax.set_xlabel("nominal alpha")
    ax.set_ylabel("rejection rate (95% CI)")


def _draw_power(ax: plt.Axes, rows: pd.DataFrame, alpha: float) -> None:
    """Rejection rate at ``alpha`` against q; the null rows sit at q = 0.5, so each curve starts at its size.

    Each q is labelled with the planted difference it produced (mean ``S(X'') - S(Y'')``, the metric's units).
    """
    qs = _draw_rates(ax, rows, "q", categorical=True)
    ax.axhline(alpha, color="black", linewidth=0.8, linestyle=":", label=f"alpha = {alpha:g}")
    alternative_trials = rows.loc[rows["kind"] == ALTERNATIVE, "trials"]
    per_q = f" ({int(alternative_trials.max())} pairs per q)" if len(alternative_trials) else ""
    ax.set_title(f"{rows['metric'].iloc[0]}: power at alpha = {alpha:g}{per_q}", fontsize=10)
    ax.set_ylim(-0.02, 1.02)
    differences = rows.groupby("q")["mean_statistic"].first().reindex(qs)
    labels = [f"{q:g}\n{d:+.2f}" for q, d in zip(qs, differences, strict=True)]
    ax.set_xticks(np.arange(len(qs)), labels, fontsize=7)
    ax.set_xlabel("q = P(segment keeps its labels)  /  mean S(X'') - S(Y'')", fontsize=8)
    ax.set_ylabel("rejection rate (95% CI)")


def _type1_limit(null: pd.DataFrame) -> float:
    """One y range for every Type I panel, so that metrics compare at a glance."""
    return float(max(null["alpha"].max(), null["ci_high"].max())) * 1.05


def plot_calibration(table: pd.DataFrame, alpha: float = Calibration.figure_alpha) -> Figure:
    """The study in one figure: Type I error against alpha (top row) and power against q (bottom row), one
    column per metric. This is the pipeline's ``calibration.{pdf,png}``."""
    null = _null_rows(table)
    power = _power_rows(table, alpha)
    metrics = list(dict.fromkeys(table["metric"]))
    fig, axes = _grid(2, len(metrics))
    for column, metric in enumerate(metrics):
        _draw_type1(axes[0, column], null[null["metric"] == metric], _type1_limit(null))
        _draw_power(axes[1, column], power[power["metric"] == metric], alpha)
    _legend_right(fig, axes[0, 0])
    return fig
