"""The power study's report: a planted-shift table as aligned text and the figure of either table
(:mod:`mtsig.studies.power` and :mod:`mtsig.studies.power_shift` compute them).

Graham, Mathur & Baldwin (2014) judge the tests by their agreement with a human gold; the power study asks how often
they find a difference of known size, planted in real MT statistics (docs/statistics.md, "Power").
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mtsig.studies.power import DEFAULT_TARGET_POWER


def shift_table_text(table: pd.DataFrame, detectable: dict[int, str], *, digits: int = 3) -> str:
    """A planted-shift power table (:func:`mtsig.studies.power_shift.shift_power_curve`) as aligned text: one row
    per test-set size, one column per planted difference d (power with its 95% CI), then the spread of ``S(X') -
    S(Y')`` with no difference and ``detectable``, each size's minimum detectable difference as text."""
    sizes = sorted(int(s) for s in table["n_segments"].unique())
    planted = sorted(float(d) for d in table["difference"].unique())
    rows = [["segments", *(f"d={d:g}" for d in planted), "sd", "detectable"]]
    indexed = table.set_index(["n_segments", "difference"])
    for size in sizes:
        cells = [str(size)]
        for d in planted:
            row = indexed.loc[(size, d)]
            cells.append(f"{row['power']:.{digits}f} [{row['ci_low']:.2f},{row['ci_high']:.2f}]")
        cells += [f"{indexed.loc[(size, 0.0), 'sd_difference']:.4g}", detectable[size]]
        rows.append(cells)
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return (
        "\n".join("  ".join(cell.rjust(w) for cell, w in zip(row, widths, strict=True)) for row in rows)
        + "\n"
    )


def plot_power_curve(
    table: pd.DataFrame, path: str | Path, *, target_power: float = DEFAULT_TARGET_POWER, units: str = ""
) -> Path:
    """Figure: power against the number of segments, one line per planted difference (q > 0.5, or a planted
    shift d > 0 for a table of :func:`mtsig.studies.power_shift.shift_power_curve`) and the null (q = 0.5, d = 0:
    the test's size), each point with its 95% Clopper-Pearson interval; dashed lines at the target
    power and at alpha. Written reproducibly (no date in the file) by :func:`mtsig.report.plots.save_figure`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mtsig.report.plots import FIGURE_DPI, save_figure

    path = Path(path)
    sizes = sorted(int(s) for s in table["n_segments"].unique())
    key = "difference" if "difference" in table.columns else "q"  # a planted-shift curve, or the q curve
    q_levels = sorted(float(q) for q in table[key].unique())
    largest = table[table["n_segments"] == sizes[-1]].set_index(key)
    colours = plt.get_cmap("viridis")(np.linspace(0.0, 0.9, len(q_levels)))
    figure, axis = plt.subplots(figsize=(5.6, 4.0))
    for colour, q in zip(colours, q_levels, strict=True):
        rows = table[table[key] == q].sort_values("n_segments")
        power = rows["power"].to_numpy()
        error = np.vstack([power - rows["ci_low"].to_numpy(), rows["ci_high"].to_numpy() - power])
        if key == "difference":
            label = "d = 0 (no difference)" if q == 0 else f"d = {q:g}{units}"
        elif q == 0.5:
            label = "q = 0.5 (no difference)"
        else:
            label = f"q = {q:g}, difference {largest.loc[q, 'planted_difference']:.2f}{units}"
        axis.errorbar(
            rows["n_segments"],
            power,
            yerr=error,
            color=colour,
            marker="o",
            markersize=3.5,
            linewidth=1.2,
            capsize=2,
            elinewidth=0.8,
            label=label,
        )
    alpha = float(table["alpha"].iloc[0])
    axis.axhline(target_power, color="0.3", linestyle="--", linewidth=0.8)
    axis.axhline(alpha, color="0.3", linestyle=":", linewidth=0.8)
    axis.set_xscale("log")
    axis.set_xticks(sizes)
    axis.set_xticklabels([str(s) for s in sizes], rotation=45)
    axis.minorticks_off()
    axis.set_ylim(0.0, 1.02)
    axis.set_xlabel("segments in the test set")
    axis.set_ylabel(f"power at alpha = {alpha:g}")
    axis.set_title(f"{table['metric'].iloc[0]}, {table['test'].iloc[0]}", fontsize=10)
    axis.legend(fontsize=7, loc="upper left")
    figure.tight_layout()
    save_figure(figure, [path], dpi=FIGURE_DPI)
    return path
