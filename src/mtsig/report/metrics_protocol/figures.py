"""A protocol run's figures: a WMT-style significance heatmap per tested task and for the average
(:func:`protocol_heatmaps`) and the power study's figure (:func:`power_figure`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mtsig.studies.metrics_protocol import ProtocolResult
from mtsig.studies.metrics_protocol.power import ProtocolPower


def significance_frame(metrics: list[str] | tuple[str, ...], significance: np.ndarray) -> pd.DataFrame:
    """A task's (or the average's) significance matrix in ranking order as a frame: ``[a, b]`` the p-value of
    ``a`` beating ``b`` for a above b, NaN elsewhere (the protocol tests only the higher-ranked metric's side)."""
    matrix = np.where(np.triu(np.ones_like(significance, dtype=bool), k=1), significance, np.nan)
    return pd.DataFrame(matrix, index=list(metrics), columns=list(metrics))


def heatmap_name(protocol: str, label: str) -> str:
    """The file stem of a task's heatmap: ``wmt23_en-de_seg_acc-t_item`` (lower case: a report's link targets
    are compared case-insensitively)."""
    return "_".join([protocol, *label.replace("(", "").replace(")", "").split()]).lower()


def protocol_heatmaps(result: ProtocolResult, directory: str | Path, *, dpi: float = 100) -> list[Path]:
    """One WMT-style heatmap per tested task and for the average
    (:func:`mtsig.report.plots.significance_heatmap_figure`: metrics in ranking order, a cell coloured where the
    row metric beats the column metric at the protocol's alpha, darker at 0.01 and 0.001, p printed), as
    ``<directory>/<heatmap_name>.png``; none without resamples. PNGs at ``dpi`` (100, as the Williams heatmaps: a
    32-metric matrix is about 1400 pixels wide)."""
    import matplotlib

    from mtsig.report.plots import STYLE, save_figure, significance_heatmap_figure

    panels = []
    for task in result.tasks:
        if task.test is None:
            continue
        names = [task.metrics[m] for m in task.order]
        panels.append((task.task.label, names, task.significance))
    if result.n_resamples and len(result.metrics) > 1 and panels:
        panels.append(("average", list(result.metrics), result.significance))
    written = []
    for label, names, significance in panels:
        title = (
            f"{result.protocol.name.upper()} {label}: p of the row metric beating the column metric "
            f"(paired permutation, {result.n_resamples} resamples)"
        )
        figure, _ = significance_heatmap_figure(
            significance_frame(names, significance), names, result.alpha, title, item="metric"
        )
        path = Path(directory) / f"{heatmap_name(result.protocol.name, label)}.png"
        with matplotlib.rc_context(STYLE):
            written += save_figure(figure, [path], dpi=dpi)
    return written


def power_figure_name(protocol: str) -> str:
    """The file stem of a protocol's power figure: ``power_wmt23``."""
    return f"power_{protocol}".lower()


def power_figure(
    power: ProtocolPower, protocol: str, directory: str | Path, *, dpi: float = 100
) -> list[Path]:
    """Figure: for every task (a row) the test-set size that gives each chosen pair of metrics the target power,
    as a multiple of the real size (log scale; a pair beyond the largest size studied drawn at it as ``>``): every
    metric against the next in grey, the pairs named in the configuration in colour; a line at the real size."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mtsig.report.plots import STYLE, save_figure

    tasks = list(dict.fromkeys(pair.task for pair in power.pairs))
    named = list(dict.fromkeys((pair.higher, pair.lower) for pair in power.pairs if pair.chosen == "named"))
    largest = max(power.scales)
    with matplotlib.rc_context(STYLE):
        figure, axis = plt.subplots(figsize=(7.0, 0.8 + 0.38 * len(tasks)))
        colours = plt.get_cmap("tab10")(np.arange(max(len(named), 1)))
        for row, task in enumerate(tasks):
            for pair in power.pairs:
                if pair.task != task:
                    continue
                beyond = not np.isfinite(pair.scale_target)
                x = largest if beyond else pair.scale_target
                if pair.chosen == "next":
                    axis.plot(x, row, ">" if beyond else "o", color="0.6", markersize=3.5, alpha=0.8)
                else:
                    k = named.index((pair.higher, pair.lower))
                    axis.plot(x, row, ">" if beyond else "D", color=colours[k], markersize=6, zorder=3)
        for k, (higher, lower) in enumerate(named):
            axis.plot([], [], "D", color=colours[k], label=f"{higher} > {lower}")
        axis.plot([], [], "o", color="0.6", label="each metric > the next")
        axis.axvline(1.0, color="black", linewidth=0.8, linestyle="--", label="the real size")
        axis.set_xscale("log")
        axis.set_xlim(min(power.scales) / 1.5, largest * 1.5)
        axis.set_yticks(range(len(tasks)), tasks)
        axis.invert_yaxis()
        axis.set_xlabel(f"test-set size for {power.target:.0%} power (multiple of the real number of units)")
        axis.set_title(
            f"{protocol.upper()}: how large a test set separates two metrics (α = {power.alpha:g})"
        )
        axis.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12 - 0.6 / (1 + len(tasks))), ncols=2,
                    frameon=False, fontsize="small")  # fmt: skip
        path = Path(directory) / f"{power_figure_name(protocol)}.png"
        return save_figure(figure, [path], dpi=dpi, bbox_inches="tight")
