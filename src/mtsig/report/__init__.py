"""Tables and figures: the paper's Tables 1-2 and Figs. 5-8, the figures of the studies beyond the paper, and the
WMT-style tables and Williams heatmaps of a metric meta-evaluation (:mod:`mtsig.report.meta_evaluation`).
Figures are written reproducibly (byte-identical reruns) by :func:`mtsig.report.plots.save_figure`."""
