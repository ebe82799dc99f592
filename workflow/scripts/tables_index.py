"""results/tables/README.md: every table of the run, linked and inlined."""

from mtsig.pipeline import write_tables_index
from mtsig.workflow import logged

with logged(snakemake.log[0]):
    write_tables_index(list(snakemake.input), snakemake.output[0], made_by=snakemake.params.rules)
