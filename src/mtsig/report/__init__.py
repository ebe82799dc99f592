"""Tables and figures: the paper's Tables 1-2 and Figs. 5-8, and the figures of the studies beyond the paper.
Figures are written reproducibly (byte-identical reruns) by :func:`mtsig.report.plots.save_figure`."""
