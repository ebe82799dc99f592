"""Download (and derive) every file of data/sources.tsv into data/downloads/, each verified by its sha256."""

from pathlib import Path

from mtsig.data import fetch, read_manifest
from mtsig.workflow import logged

with logged(snakemake.log[0]) as log:
    written = fetch(read_manifest(snakemake.params.manifest), Path(snakemake.params.root))
    log.info("%d files obtained and verified", len(written))
