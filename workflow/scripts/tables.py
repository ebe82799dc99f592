"""The paper-layout accuracy tables (Tables 1-2) of one experiment, in Markdown, LaTeX and CSV."""

from mtsig.pipeline import write_accuracy_tables
from mtsig.workflow import logged

with logged(snakemake.log[0]):
    write_accuracy_tables(
        snakemake.params.spec,
        snakemake.params.resampling,
        accuracy_path=snakemake.input.accuracy,
        chi_square_path=snakemake.input.chi_square,
        agreement_path=snakemake.input.agreement,
        outputs=dict(snakemake.output.items()),
    )
