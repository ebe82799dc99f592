"""An experiment's figures (Graham, Mathur & Baldwin 2014, Figs. 5-8), as the ``figures`` step writes them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from mtsig.report.plots.distributions import pseudo_statistic_distributions
from mtsig.report.plots.heatmaps import p_matrix_from_gold, p_matrix_from_tests, significance_heatmap_grid
from mtsig.stats.resampling.registry import PAPER_TESTS


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
