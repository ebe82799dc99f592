"""results/tables/README.md: every table of the run, linked and inlined."""

from mtsig.steps.evaluation import tables_index
from mtsig.steps.files import logged

with logged(snakemake.log[0]):
    tables_index(list(snakemake.input), snakemake.output[0], made_by=snakemake.params.rules)
