"""The paper's figures (Graham, Mathur & Baldwin 2014): pseudo-statistic distributions (Figs. 5-6,
:mod:`.distributions`), pairwise significance heatmaps (Fig. 7 for the human gold, Fig. 8 for every metric x test,
:mod:`.heatmaps`), an experiment's set of them (:mod:`.experiment`), and the project's one figure writer and style
(:mod:`.saving`), which every other figure of the report uses too.
"""

from mtsig.report.plots.distributions import null_view, pseudo_statistic_distributions
from mtsig.report.plots.experiment import experiment_figures
from mtsig.report.plots.heatmaps import (
    p_matrix_from_gold,
    p_matrix_from_tests,
    significance_heatmap,
    significance_heatmap_figure,
    significance_heatmap_grid,
)
from mtsig.report.plots.saving import FIGURE_DPI, STYLE, pdf_and_png, save_figure

__all__ = [
    "FIGURE_DPI",
    "STYLE",
    "experiment_figures",
    "null_view",
    "p_matrix_from_gold",
    "p_matrix_from_tests",
    "pdf_and_png",
    "pseudo_statistic_distributions",
    "save_figure",
    "significance_heatmap",
    "significance_heatmap_figure",
    "significance_heatmap_grid",
]
