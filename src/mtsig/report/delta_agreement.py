"""The delta-agreement table and figure (``results/tables/delta_agreement.md``,
``results/figures/delta_agreement.png``; :mod:`mtsig.stats.delta_agreement`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from mtsig.report.plots import STYLE, save_figure
from mtsig.report.tables import frame_to_markdown


def _delta_text(value: float) -> str:
    return "not reached" if math.isnan(value) else f"{value:.3g}"


def delta_agreement_markdown(summary: pd.DataFrame, alpha: float) -> str:
    """One row per metric: pairs, the observed rates, and the deltas at which the fitted agreement reaches 90% and
    95%, for the direction of the human scores and for a significant human difference."""
    wide = summary.pivot(index="metric", columns="outcome")
    rows = [
        {
            "metric": metric,
            "pairs": int(wide.loc[metric, ("n_pairs", "direction")]),
            "humans agree (share)": f"{wide.loc[metric, ('observed_rate', 'direction')]:.2f}",
            "Δ for 90% agreement": _delta_text(wide.loc[metric, ("delta_90", "direction")]),
            "Δ for 95%": _delta_text(wide.loc[metric, ("delta_95", "direction")]),
            f"humans significant (α {alpha:g})": f"{wide.loc[metric, ('observed_rate', 'significant')]:.2f}",
            "Δ for 90% significant": _delta_text(wide.loc[metric, ("delta_90", "significant")]),
        }
        for metric in wide.index
    ]
    text = [
        "# How large a metric difference do humans notice? (Kocmi et al. 2021, 2024)",
        "",
        "Every system pair with a human gold in the run, oriented so that the metric prefers the first system by Δ "
        "(in the metric's own units: BLEU points, COMET's scale, ...). *Humans agree*: the human system scores rank "
        f"that system higher; *humans significant*: the gold finds it significantly better at α = {alpha:g}. The "
        "deltas are where a logistic fit of the outcome on Δ reaches 90% / 95% ('not reached' within the observed "
        "deltas: no extrapolation); `results/delta_agreement/curves.tsv` has the fitted curves with 95% bootstrap "
        "bands, `summary.tsv` the coefficients that `mtsig compare --calibration` reads. Lower-case metrics are the "
        "run's own (WMT12, WMT22, MQM experiments), the others the WMT20 metrics task's 18 language pairs.",
        "",
        frame_to_markdown(pd.DataFrame(rows)),
    ]
    return "\n".join(text) + "\n"


def delta_agreement_figure(
    pairs: pd.DataFrame, curves: pd.DataFrame, path: str | Path, metrics: Sequence[str] | None = None
) -> Path:
    """One panel per metric: the share of pairs on which humans agree with the metric's direction in bins of Δ
    (dots, size = pairs), the fitted curve and its bootstrap band."""
    metrics = list(metrics) if metrics is not None else sorted(set(curves["metric"]))
    columns = 6
    rows_n = math.ceil(len(metrics) / columns)
    with matplotlib.rc_context(STYLE):
        figure = Figure(figsize=(2.2 * columns, 1.8 * rows_n), layout=None)
        for index, metric in enumerate(metrics):
            ax = figure.add_subplot(rows_n, columns, index + 1)
            curve = curves[(curves["metric"] == metric) & (curves["outcome"] == "direction")]
            ax.fill_between(curve["delta"], curve["low"], curve["high"], color="#c6dbef", linewidth=0)
            ax.plot(curve["delta"], curve["p"], color="#08519c", linewidth=1.2)
            chosen = pairs[pairs["metric"] == metric]
            edges = np.quantile(chosen["delta"], np.linspace(0, 1, 6))
            which = np.clip(np.searchsorted(edges, chosen["delta"], side="right") - 1, 0, 4)
            binned = (
                chosen.assign(bin=which)
                .groupby("bin")
                .agg(delta=("delta", "mean"), rate=("direction", "mean"), n=("direction", "size"))
            )
            ax.scatter(
                binned["delta"],
                binned["rate"],
                s=binned["n"] / binned["n"].max() * 25,
                color="#d62728",
                zorder=3,
            )
            ax.set_ylim(0.3, 1.02)
            ax.axhline(0.9, color="#7f7f7f", linewidth=0.6, linestyle=":")
            ax.set_title(metric, fontsize=8)
            ax.tick_params(labelsize=6)
        figure.suptitle(
            "P(humans agree with the metric's direction | metric Δ), fitted with a 95% bootstrap band"
        )
        figure.tight_layout(rect=(0, 0, 1, 0.97))
        save_figure(figure, [path], dpi=110)
    return Path(path)
