"""The figure of the human-ranking calibration (:mod:`mtsig.studies.ranking_calibration`): size and power by
procedure, and how often rank ranges cover the true ranks.

One row of four panels per language pair, every rate with its 95% Clopper-Pearson interval:

* **no difference is true**: the rate of declaring a difference under the item and document null pairs and the
  domain-heterogeneous alternative, one line of markers per procedure, with the procedure's nominal rate;
* **power**: the rate of declaring the true winner against the planted difference (points), one line per procedure;
* **ranked sets and seeds**: how often the clusters equal the true tiers, how often tied systems are split, and how
  often a randomised procedure's decision changes with the seed (pooled over the pair conditions);
* **ranges**: how often every system's rank range covers its true rank (a tie's best position), one marker per
  design of the ranked sets, for each procedure's rank range and the simultaneous rank sets, against their 95%.

Output is byte-identical for identical input (:func:`mtsig.report.plots.save_figure`).
"""

from __future__ import annotations

from collections.abc import Callable

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from mtsig.errors import InputError  # noqa: E402
from mtsig.stats.intervals import clopper_pearson  # noqa: E402
from mtsig.studies.ranking_calibration import (  # noqa: E402
    CLUSTER_DESIGNS,
    CLUSTERS,
    CORRECT,
    DECLARED,
    FLIP,
    HETEROGENEOUS,
    MATCH,
    NULL_DOCUMENT,
    NULL_ITEM,
    SHIFT,
    TIE_SPLIT,
)
from mtsig.studies.ranking_calibration_ranges import COVERS_ALL, RANK_RANGE, SIMULTANEOUS  # noqa: E402

PANEL_WIDTH = 4.6
PANEL_HEIGHT = 3.8
#: Markers of the conditions where no difference is true, and of the ranked-set measures.
_NO_DIFFERENCE_MARKERS = {NULL_ITEM: "o", NULL_DOCUMENT: "s", HETEROGENEOUS: "^"}
_SET_MARKERS = {MATCH: "o", TIE_SPLIT: "s", FLIP: "D"}
_LABELS = {
    NULL_ITEM: "null, items exchanged",
    NULL_DOCUMENT: "null, documents exchanged",
    HETEROGENEOUS: "heterogeneous (equal averages)",
    MATCH: "clusters = true tiers",
    TIE_SPLIT: "tied systems split",
    FLIP: "decision flips with the seed",
}
_COLOURS = {NULL_ITEM: "tab:blue", NULL_DOCUMENT: "tab:red", HETEROGENEOUS: "tab:purple"}
_SET_COLOURS = {MATCH: "tab:green", TIE_SPLIT: "tab:red", FLIP: "tab:gray"}


def _legend_below(ax: plt.Axes, columns: int = 2) -> None:
    """The panel's legend under its axes, in ``columns`` columns (the figure is saved with a tight bounding box)."""
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=columns, frameon=False)


def _procedure_colours(procedures: list[str]) -> dict[str, object]:
    """Each procedure's tab10 colour, in order (repeating after ten)."""
    cmap = plt.get_cmap("tab10")
    return {p: cmap(n % 10) for n, p in enumerate(procedures)}


def _interval(rows: pd.DataFrame) -> list[np.ndarray]:
    """Matplotlib's ``[below, above]`` error bars: each row's distances from its rate to its 95% interval's ends."""
    return [(rows["rate"] - rows["ci_low"]).to_numpy(), (rows["ci_high"] - rows["rate"]).to_numpy()]


def _dot_rows(ax: plt.Axes, procedures: list[str]) -> np.ndarray:
    """A horizontal dot plot's y positions, the first procedure on top."""
    y = np.arange(len(procedures))[::-1].astype(float)
    ax.set_yticks(y, procedures, fontsize=8)
    ax.set_xlim(-0.02, 1.02)
    ax.grid(axis="x", alpha=0.3)
    return y


def _dot_rates(
    ax: plt.Axes,
    y: np.ndarray,
    procedures: list[str],
    parts: dict[str, pd.DataFrame],
    markers: dict[str, str],
    colours: dict[str, object],
    label: Callable[[str, pd.DataFrame], str],
) -> None:
    """Each part's rates (indexed by procedure) with their intervals, one marker per part, on the dot plot's rows
    ``y``, the parts side by side within a row."""
    for n, (key, marker) in enumerate(markers.items()):
        part = parts[key].reindex(procedures).dropna(subset=["rate"])
        if part.empty:
            continue
        ax.errorbar(
            part["rate"],
            y[[procedures.index(p) for p in part.index]] + 0.22 * (1 - n),
            xerr=_interval(part),
            fmt=marker,
            color=colours[key],
            markersize=4,
            elinewidth=0.8,
            capsize=2,
            label=label(key, part),
        )


def _draw_no_difference(ax: plt.Axes, rows: pd.DataFrame, procedures: list[str]) -> None:
    """The size panel: each procedure's rate of declaring a difference where none is true (the null pairs and the
    heterogeneous alternative), against its nominal rate."""
    y = _dot_rows(ax, procedures)
    declared = rows[(rows["measure"] == DECLARED) & rows["kind"].isin(list(_NO_DIFFERENCE_MARKERS))]
    parts = {
        kind: declared[declared["kind"] == kind].set_index("procedure") for kind in _NO_DIFFERENCE_MARKERS
    }
    _dot_rates(
        ax, y, procedures, parts, _NO_DIFFERENCE_MARKERS, _COLOURS,
        lambda kind, part: f"{_LABELS[kind]} (n={int(part['trials'].iloc[0])})",
    )  # fmt: skip
    nominal = declared.groupby("procedure", sort=False)["nominal"].first().reindex(procedures)
    ax.scatter(nominal, y, marker="|", s=250, color="black", linewidths=1.5, label="nominal rate", zorder=3)
    ax.set_xlabel("rate of declaring a difference (95% CI)", fontsize=8)
    ax.set_title("no difference is true", fontsize=10)
    _legend_below(ax)


def _draw_power(ax: plt.Axes, rows: pd.DataFrame, procedures: list[str]) -> None:
    """The power panel: each procedure's rate of declaring the true winner by planted shift, one line each."""
    colours = _procedure_colours(procedures)
    power = rows[(rows["kind"] == SHIFT) & (rows["measure"] == CORRECT)]
    effects = np.sort(power["effect"].unique())
    spacing = 0.02 * (effects.max() - effects.min() if len(effects) > 1 else 1.0)
    for n, procedure in enumerate(procedures):
        part = power[power["procedure"] == procedure].sort_values("effect")
        if part.empty:
            continue
        ax.errorbar(
            part["effect"] + (n - (len(procedures) - 1) / 2) * spacing,
            part["rate"],
            yerr=_interval(part),
            color=colours[procedure],
            # tab10 repeats after ten procedures: the next ten are told apart by marker and line
            marker="os^"[n // 10 % 3],
            linestyle=("-", "--", ":")[n // 10 % 3],
            markersize=3,
            linewidth=1.1,
            elinewidth=0.7,
            capsize=2,
            label=procedure,
        )
    trials = f" ({int(power['trials'].max())} pairs each)" if len(power) else ""
    ax.set_title(f"power: the true winner declared{trials}", fontsize=10)
    ax.set_xticks(effects)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("planted difference in every domain (ESA points)", fontsize=8)
    ax.set_ylabel("rate (95% CI)", fontsize=8)
    ax.grid(alpha=0.3)
    _legend_below(ax, 3)


def _pooled_flips(rows: pd.DataFrame, procedures: list[str]) -> pd.DataFrame:
    """Flip counts summed over the pair conditions, with the interval of the pooled rate."""
    flips = rows[rows["measure"] == FLIP].groupby("procedure", sort=False)[["count", "trials"]].sum()
    out = []
    for procedure in procedures:
        if procedure in flips.index:
            count, trials = (int(v) for v in flips.loc[procedure])
            low, high = clopper_pearson(count, trials)
            out.append({"procedure": procedure, "rate": count / trials, "ci_low": low, "ci_high": high})
    return pd.DataFrame(out, columns=["procedure", "rate", "ci_low", "ci_high"]).set_index("procedure")


def _draw_sets(ax: plt.Axes, rows: pd.DataFrame, procedures: list[str]) -> None:
    """The ranked-sets panel: how often the clusters are the true tiers, a tie is split, and (pooled over the pair
    conditions) a decision flips with the seed."""
    y = _dot_rows(ax, procedures)
    sets = rows[rows["kind"] == CLUSTERS]
    parts = {m: sets[sets["measure"] == m].set_index("procedure") for m in (MATCH, TIE_SPLIT)}
    parts[FLIP] = _pooled_flips(rows, procedures)
    _dot_rates(ax, y, procedures, parts, _SET_MARKERS, _SET_COLOURS, lambda measure, _: _LABELS[measure])
    title = "ranked sets and seeds"
    if not sets.empty:
        title += f" ({int(sets['trials'].iloc[0])} sets)"
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("rate (95% CI)", fontsize=8)
    _legend_below(ax)


_DESIGN_MARKERS = "os^vDP"


def _draw_ranges(ax: plt.Axes, rows: pd.DataFrame) -> None:
    """The ranges panel: the rate at which every system's range covers its true rank (``covers_all``), for each
    procedure's rank range and each simultaneous rank set, one marker per design of the ranked sets, with the
    rank sets' nominal 95%."""
    chosen = rows[(rows["measure"] == COVERS_ALL) & rows["range"].isin([RANK_RANGE, SIMULTANEOUS])]
    labels = list(dict.fromkeys(chosen["procedure"]))
    y = _dot_rows(ax, labels)
    kinds = [k for k in CLUSTER_DESIGNS if k in set(chosen["kind"])]
    cmap = plt.get_cmap("tab10")
    for n, kind in enumerate(kinds):
        part = chosen[chosen["kind"] == kind].set_index("procedure").reindex(labels).dropna(subset=["rate"])
        offset = 0.7 * ((n + 0.5) / len(kinds) - 0.5)
        ax.errorbar(
            part["rate"],
            y[[labels.index(p) for p in part.index]] - offset,
            xerr=_interval(part),
            fmt=_DESIGN_MARKERS[n % len(_DESIGN_MARKERS)],
            color=cmap(n % 10),
            markersize=3.5,
            elinewidth=0.7,
            capsize=1.5,
            label=f"{kind} (n={int(part['trials'].iloc[0])})" if len(part) else kind,
        )
    nominal = chosen["nominal"].dropna()
    if len(nominal):
        ax.axvline(
            float(nominal.iloc[0]), color="black", linewidth=0.8, linestyle="--", label="rank sets' coverage"
        )
    ax.set_title("every true rank covered (rank range; simultaneous set)", fontsize=10)
    ax.set_xlabel("rate (95% CI)", fontsize=8)
    _legend_below(ax)


def plot_ranking_calibration(table: pd.DataFrame) -> Figure:
    """Size, power and coverage by procedure (module docstring): one row per language pair. This is the pipeline's
    ``results/figures/<experiment>/calibration.png``."""
    if table.empty:
        raise InputError("the ranking calibration table is empty: nothing to plot")
    table = table.assign(range=table["range"].fillna(""))
    pairs = list(dict.fromkeys(table["lp"]))
    # the rank sets have only ranges: the first three panels are the procedures'
    procedures = list(dict.fromkeys(table.loc[table["range"] == "", "procedure"]))
    fig, axes = plt.subplots(
        len(pairs), 4, figsize=(4 * PANEL_WIDTH, PANEL_HEIGHT * len(pairs)), squeeze=False
    )
    for row, lp in enumerate(pairs):
        rows = table[table["lp"] == lp]
        _draw_no_difference(axes[row, 0], rows, procedures)
        _draw_power(axes[row, 1], rows, procedures)
        _draw_sets(axes[row, 2], rows, procedures)
        _draw_ranges(axes[row, 3], rows)
        axes[row, 0].set_ylabel(lp, fontsize=10)
    fig.tight_layout()
    return fig
