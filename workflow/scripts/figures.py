"""The paper's figures for one experiment (Figs. 5-8), as PNG and PDF."""

from mtsig.steps.figures import figures
from mtsig.steps.files import logged

with logged(snakemake.log[0]):
    figures(
        distributions_dirs=list(snakemake.input.distributions),
        tests_paths=list(snakemake.input.tests),
        gold_path=snakemake.input.gold,
        system_scores_path=snakemake.input.system_scores,
        tests=snakemake.params.tests,
        alpha=snakemake.params.alpha,
        png_dir=snakemake.output.figures,
        pdf_dir=snakemake.output.pdf,
    )
