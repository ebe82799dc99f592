"""Figures of the n-best experiment, after Bremerman, Khayrallah, Oard & Post (2020) Figs. 1-5.

Every figure is written as PDF and PNG with fixed metadata so that reruns give identical bytes. Simulated
systems are drawn as open grey circles and real systems as filled red stars with their names, so a reader never
mistakes the simulation for real STAPLE submissions.
"""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from mtsig.report.plots import FIGURE_DPI, pdf_and_png, save_figure  # noqa: E402

SIMULATED_STYLE = {"marker": "o", "facecolors": "none", "edgecolors": "0.35", "s": 36, "linewidths": 1.0}
REAL_STYLE = {"marker": "*", "color": "tab:red", "s": 140, "zorder": 3}


def plot_ablation(ablation: pd.DataFrame, stem: str | Path, title: str) -> list[Path]:
    """Fig. 1: Spearman's rho and Pearson Rank between the ablated-gold and the full-gold MAP system rankings,
    against the fraction of each prompt's gold translations kept (least frequent removed first)."""
    table = ablation.sort_values("kept_fraction")
    figure, axes = plt.subplots(figsize=(5.2, 3.6), layout="constrained")
    axes.plot(table["kept_fraction"], table["spearman"], marker="o", label="Spearman's $\\rho$")
    axes.plot(table["kept_fraction"], table["pearson_rank"], marker="s", linestyle="--", label="Pearson Rank")
    axes.axhline(1.0, color="0.8", linewidth=0.8, zorder=0)
    axes.set_xlabel("fraction of gold translations kept (most frequent first)")
    axes.set_ylabel("correlation with full-gold MAP ranking")
    axes.set_xticks(table["kept_fraction"])
    axes.set_xticklabels([f"{f:g}" for f in table["kept_fraction"]])
    low = min(table["spearman"].min(), table["pearson_rank"].min())
    axes.set_ylim(min(0.0, math.floor(low * 10) / 10), 1.05)
    axes.set_title(title, fontsize=10)
    axes.legend(loc="lower right")
    axes.grid(alpha=0.3)
    return save_figure(figure, pdf_and_png(stem), dpi=FIGURE_DPI)


def _grid_labels(values: pd.Series) -> list[str]:
    """Grid labels in numeric order with "all" last."""
    unique = list(dict.fromkeys(values))
    return sorted(unique, key=lambda v: (v == "all", int(v) if v != "all" else 0))


def plot_bleu_grid(grid: pd.DataFrame, stem: str | Path, title: str, column: str = "spearman") -> list[Path]:
    """Fig. 4 as a heatmap: the correlation (``column``) between the MAP system ranking and the ranking by
    x-best y-reference BLEU, one cell per (x hypotheses per prompt, y references). The paper draws bars with
    negative values striped; here every cell carries its signed value and a diverging colour scale."""
    depths, references = _grid_labels(grid["x"]), _grid_labels(grid["y"])
    matrix = grid.pivot(index="y", columns="x", values=column).reindex(index=references, columns=depths)
    figure, axes = plt.subplots(figsize=(5.2, 4.2), layout="constrained")
    image = axes.imshow(matrix.to_numpy(dtype=float), cmap="RdBu", vmin=-1, vmax=1, origin="lower")
    for i in range(len(references)):
        for j in range(len(depths)):
            value = matrix.iat[i, j]
            text = "n/a" if np.isnan(value) else f"{value:.2f}"
            axes.text(
                j,
                i,
                text,
                ha="center",
                va="center",
                fontsize=9,
                color="white" if abs(value) > 0.6 else "black",
            )
    axes.set_xticks(range(len(depths)), depths)
    axes.set_yticks(range(len(references)), references)
    axes.set_xlabel("x: hypotheses per prompt (x-best)")
    axes.set_ylabel("y: references per prompt (y-ref)")
    name = {"spearman": "Spearman's $\\rho$", "pearson_rank": "Pearson Rank"}.get(column, column)
    figure.colorbar(image, ax=axes, label=f"{name} with MAP ranking")
    axes.set_title(title, fontsize=10)
    return save_figure(figure, pdf_and_png(stem), dpi=FIGURE_DPI)


def _scatter_against_map(axes, systems: pd.DataFrame, column: str, ylabel: str) -> None:
    """One panel: ``column`` against MAP, simulated and real systems distinguished, with the least-squares
    line, r^2 and slope over the n-best systems (the paper's captions report r^2 and slope)."""
    simulated = systems[systems["simulated"]]
    real = systems[~systems["simulated"]]
    axes.scatter(simulated["map"], simulated[column], label="simulated n-best system", **SIMULATED_STYLE)
    plotted_real = real[np.isfinite(real[column].to_numpy(dtype=float))]
    if len(plotted_real):
        axes.scatter(plotted_real["map"], plotted_real[column], label="real system", **REAL_STYLE)
        for _, row in plotted_real.iterrows():
            axes.annotate(
                row["system"],
                (row["map"], row[column]),
                xytext=(5, 4),
                textcoords="offset points",
                fontsize=8,
            )
    fitted = systems[systems["in_rankings"] & np.isfinite(systems[column].to_numpy(dtype=float))]
    if len(fitted) >= 3 and fitted["map"].nunique() > 1:
        slope, intercept = np.polyfit(fitted["map"], fitted[column], 1)
        r = np.corrcoef(fitted["map"], fitted[column])[0, 1]
        xs = np.linspace(fitted["map"].min(), fitted["map"].max(), 2)
        axes.plot(
            xs, slope * xs + intercept, color="tab:blue", linewidth=1, label="least-squares fit (n-best)"
        )
        axes.set_title(f"n-best fit: $r^2$ = {r * r:.3f}, slope = {slope:.3f}", fontsize=9)
    axes.set_xlabel("MAP")
    axes.set_ylabel(ylabel)
    axes.grid(alpha=0.3)


def plot_map_scatter(
    systems: pd.DataFrame, columns: dict[str, str], stem: str | Path, title: str, note: str | None = None
) -> list[Path]:
    """Figs. 2, 3 and 5: one panel per ``columns`` entry (column -> axis label), each plotted against MAP.

    Real systems without a value (e.g. preference correlation of the unscored 1-best baseline) cannot be placed;
    ``note`` is printed under the panels to say so.
    """
    figure, axes_list = plt.subplots(
        1, len(columns), figsize=(4.4 * len(columns), 3.8), layout="constrained", squeeze=False
    )
    for axes, (column, label) in zip(axes_list[0], columns.items(), strict=True):
        _scatter_against_map(axes, systems, column, label)
    axes_list[0][0].legend(loc="lower right", fontsize=7)
    figure.suptitle(f"{title}\n{note}" if note else title, fontsize=10)
    return save_figure(figure, pdf_and_png(stem), dpi=FIGURE_DPI)


def plot_all(
    results: dict[str, pd.DataFrame], directory: str | Path, language_pair: str = "en-pt"
) -> list[Path]:
    """Every n-best figure from :func:`mtsig.studies.nbest.run_nbest_experiment`'s results, into ``directory``."""
    directory = Path(directory)
    systems = results["systems"]
    n_simulated = int(systems["simulated"].sum())
    tag = f"STAPLE {language_pair}, {n_simulated} simulated systems"
    written = plot_ablation(
        results["ablation"], directory / "nbest_ablation", f"MAP under gold ablation ({tag})"
    )
    written += plot_bleu_grid(
        results["bleu_grid"],
        directory / "nbest_bleu_grid",
        f"x-best y-ref BLEU vs MAP: Spearman's $\\rho$\n({tag})",
    )
    written += plot_bleu_grid(
        results["bleu_grid"],
        directory / "nbest_bleu_grid_pearson_rank",
        f"x-best y-ref BLEU vs MAP: Pearson Rank\n({tag})",
        column="pearson_rank",
    )
    written += plot_map_scatter(
        systems,
        {"weighted_f1": "STAPLE weighted macro F1"},
        directory / "nbest_map_vs_f1",
        f"F1 vs MAP ({tag})",
    )
    unscored = systems.loc[~systems["simulated"] & systems["preference_spearman"].isna(), "system"].tolist()
    written += plot_map_scatter(
        systems,
        {"preference_spearman": "preference correlation (Spearman's $\\rho$)",
         "preference_pearson": "preference correlation (Pearson's r, log)"},
        directory / "nbest_map_vs_preference",
        f"Preference correlation vs MAP ({tag})",
        note=f"not shown, no model scores: {', '.join(unscored)}" if unscored else None,
    )  # fmt: skip
    written += plot_map_scatter(
        systems,
        {"bleu_1best_1ref": "1-best 1-ref BLEU", "bleu_100best_100ref": "100-best 100-ref BLEU"},
        directory / "nbest_map_vs_bleu",
        f"BLEU vs MAP ({tag})",
    )
    return written
