"""The paper-layout accuracy tables (Tables 1-2) of one experiment, in Markdown, LaTeX and CSV."""

from mtsig.steps.evaluation import tables
from mtsig.steps.files import logged

with logged(snakemake.log[0]):
    tables(
        snakemake.params.spec,
        snakemake.params.resampling,
        accuracy_path=snakemake.input.accuracy,
        chi_square_path=snakemake.input.chi_square,
        agreement_path=snakemake.input.agreement,
        outputs=dict(snakemake.output.items()),
    )
