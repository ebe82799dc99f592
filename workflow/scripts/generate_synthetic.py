"""Generate a synthetic experiment with planted system quality and biased annotators (mtsig.studies.synthetic)."""

from pathlib import Path

from mtsig.steps.data import generate_synthetic
from mtsig.steps.files import logged

with logged(snakemake.log[0]):
    generate_synthetic(snakemake.params.spec, Path(snakemake.output.flag).parent)
