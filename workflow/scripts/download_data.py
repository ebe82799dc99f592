"""Download (and derive) every file of data/sources.tsv into data/downloads/, each verified by its sha256."""

from mtsig.steps.data import download_data
from mtsig.steps.files import logged

with logged(snakemake.log[0]):
    download_data(snakemake.params.manifest, snakemake.params.root)
