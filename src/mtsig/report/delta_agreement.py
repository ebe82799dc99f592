"""The delta-agreement table and figure (``results/tables/delta_agreement.md``,
``results/figures/delta_agreement.png``; :mod:`mtsig.stats.meta_evaluation.delta_agreement`)."""

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

#: What a panel or a table cell says instead of a delta when the fit is not increasing
#: (:func:`mtsig.stats.meta_evaluation.delta_agreement.fit_status`).
FIT_WORDS = {
    "decreasing": "decreasing: no Δ",
    "undetermined": "undetermined: no Δ",
}


def _number(value: float) -> str:
    return f"{value:.3g}"


def _delta_cell(row: pd.Series, target: int) -> str:
    """A delta with its bootstrap interval (``5.4 [4.6, 6.5]``; an upper end beyond the observed deltas as ``>``
    the largest), ``not reached`` within the observed deltas, or the fit's status when it is not increasing."""
    if row["fit"] != "increasing":
        return str(row["fit"])
    value = row[f"delta_{target}"]
    if math.isnan(value):
        return "not reached"
    low, high = row[f"delta_{target}_low"], row[f"delta_{target}_high"]
    upper = f"> {_number(row['largest_delta'])}" if math.isinf(high) else _number(high)
    return f"{_number(value)} [{_number(low)}, {upper}]"


def _slope_cell(row: pd.Series) -> str:
    return f"{row['b1']:.3g} [{row['b1_low']:.3g}, {row['b1_high']:.3g}]"


def delta_agreement_markdown(
    summary: pd.DataFrame, outliers: pd.DataFrame, alpha: float, cutoff: float
) -> str:
    """One row per metric: pairs fitted and left out, the observed rates, the slope of each fit with its 95%
    bootstrap interval, and the deltas (with intervals) at which the fitted agreement reaches 90% and 95%, for the
    direction of the human scores and for a significant human difference; then the metric-score outliers whose
    pairs were left out."""
    by = summary.set_index(["metric", "outcome"])
    rows = []
    for metric in sorted(set(summary["metric"])):
        direction, significant = by.loc[(metric, "direction")], by.loc[(metric, "significant")]
        rows.append(
            {
                "metric": metric,
                "pairs": int(direction["n_pairs"]),
                "left out": int(direction["left_out_pairs"]),
                "humans agree (share)": f"{direction['observed_rate']:.2f}",
                "slope b1 [95%]": _slope_cell(direction),
                "Δ for 90% agreement [95%]": _delta_cell(direction, 90),
                "Δ for 95%": _delta_cell(direction, 95),
                f"humans significant (α {alpha:g})": f"{significant['observed_rate']:.2f}",
                "Δ for 90% significant": _delta_cell(significant, 90),
            }
        )
    text = [
        "# How large a metric difference do humans notice? (Kocmi et al. 2021, 2024)",
        "",
        "Every system pair with a human gold in the run, oriented so that the metric prefers the first system by Δ "
        "(in the metric's own units: BLEU points, COMET's scale, ...). *Humans agree*: the human system scores rank "
        f"that system higher; *humans significant*: the gold finds it significantly better at α = {alpha:g}. The "
        "deltas are where a logistic fit of the outcome on Δ reaches 90% / 95%, with 95% bootstrap intervals ('not "
        "reached' within the observed deltas: no extrapolation; an interval's upper end beyond them is shown as "
        "'> the largest Δ'). A fit whose slope's 95% bootstrap interval lies below zero is *decreasing* (humans "
        "agree less the larger the metric's Δ) and one whose interval includes zero *undetermined*: neither gives "
        "a Δ, nor an agreement in `mtsig compare --calibration`. `results/delta_agreement/curves.tsv` has the "
        "fitted curves with 95% bootstrap bands, `summary.tsv` the coefficients that `mtsig compare "
        "--calibration` reads. Lower-case metrics are the run's own (WMT12, WMT22, MQM experiments); a metric "
        "labelled `(<experiment> MQM)` is a metrics-task protocol's (WMT23: its MT systems of en-de, he-en and "
        "zh-en against the paired permutation test on the MQM segment scores); the others are the WMT20 metrics "
        "task's 18 language pairs.",
        "",
        frame_to_markdown(pd.DataFrame(rows)),
        "",
        "## Left out: metric-score outliers",
        "",
        "*Left out*: the pairs of a system whose score lies more than "
        f"{cutoff:g} robust standard deviations from the median of the metric's scores in its language pair or "
        "experiment (the MAD rule of Mathur, Baldwin & Cohn 2020, Sec. 4.2, applied to the metric's own system "
        "scores, b = 1.4826; the humans' scores play no part): a score that far out is a scoring failure or a "
        "broken system, and its pairs' deltas would carry the fit. `results/delta_agreement/outliers.tsv` lists "
        "them, `pairs.tsv` marks their pairs `left_out`.",
        "",
    ]
    if outliers.empty:
        text.append("None.")
    else:
        listed = pd.DataFrame(
            {
                "metric": outliers["metric"],
                "source": outliers["source"],
                "system": outliers["system"],
                "score": [f"{v:.4g}" for v in outliers["score"]],
                "robust z": [f"{v:.1f}" for v in outliers["robust_z"]],
                "pairs left out": outliers["pairs"].astype(int),
            }
        )
        text.append(frame_to_markdown(listed))
    return "\n".join(text) + "\n"


def delta_agreement_figure(
    pairs: pd.DataFrame,
    curves: pd.DataFrame,
    summary: pd.DataFrame,
    path: str | Path,
    metrics: Sequence[str] | None = None,
) -> Path:
    """:func:`agreement_panels` written to ``path`` (PNG at 110 dpi)."""
    figure = agreement_panels(pairs, curves, summary, metrics)
    with matplotlib.rc_context(STYLE):
        save_figure(figure, [path], dpi=110)
    return Path(path)


def agreement_panels(
    pairs: pd.DataFrame, curves: pd.DataFrame, summary: pd.DataFrame, metrics: Sequence[str] | None = None
) -> Figure:
    """One panel per metric: the share of fitted pairs on which humans agree with the metric's direction in bins
    of Δ (dots, size = pairs), the fitted curve and its bootstrap band, the Δ for 90% (dotted line) when the fit
    gives one; a fit that is not increasing drawn in grey with its status written on the panel instead; and the
    number of pairs left out as metric-score outliers (``pairs``' ``left_out`` column)."""
    metrics = list(metrics) if metrics is not None else sorted(set(curves["metric"]))
    status = summary[summary["outcome"] == "direction"].set_index("metric")
    columns = 6
    rows_n = math.ceil(len(metrics) / columns)
    with matplotlib.rc_context(STYLE):
        figure = Figure(figsize=(2.2 * columns, 1.8 * rows_n), layout=None)
        for index, metric in enumerate(metrics):
            ax = figure.add_subplot(rows_n, columns, index + 1)
            fit = status.loc[metric, "fit"]
            flagged = fit != "increasing"
            curve = curves[(curves["metric"] == metric) & (curves["outcome"] == "direction")]
            ax.fill_between(
                curve["delta"],
                curve["low"],
                curve["high"],
                color="#d9d9d9" if flagged else "#c6dbef",
                linewidth=0,
            )
            ax.plot(curve["delta"], curve["p"], color="#737373" if flagged else "#08519c", linewidth=1.2)
            chosen = pairs[(pairs["metric"] == metric) & ~pairs["left_out"].astype(bool)]
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
            delta_90 = status.loc[metric, "delta_90"]
            if not flagged and not math.isnan(delta_90):
                ax.axvline(delta_90, color="#08519c", linewidth=0.6, linestyle=":")
            notes = [FIT_WORDS[fit]] if flagged else []
            left_out = int(status.loc[metric, "left_out_pairs"])
            if left_out:
                systems = int(status.loc[metric, "left_out_systems"])
                notes.append(f"{left_out} pairs left out ({systems} outlier{'s' * (systems > 1)})")
            if notes:
                ax.text(
                    0.97, 0.04, "\n".join(notes), transform=ax.transAxes, ha="right", va="bottom", fontsize=6,
                    color="#a50f15" if flagged else "#525252",
                )  # fmt: skip
            ax.set_title(metric, fontsize=8)
            ax.tick_params(labelsize=6)
        figure.suptitle(
            "P(humans agree with the metric's direction | metric Δ), fitted with a 95% bootstrap band"
        )
        figure.tight_layout(rect=(0, 0, 1, 0.97))
    return figure
