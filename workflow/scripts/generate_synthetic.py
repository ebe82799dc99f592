"""Generate a synthetic experiment with planted system quality and biased annotators (mtsig.synthetic)."""

from pathlib import Path

from mtsig.synthetic import SyntheticSpec, write_synthetic_experiment
from mtsig.workflow import logged

with logged(snakemake.log[0]) as log:
    spec = SyntheticSpec(**snakemake.params.spec)
    write_synthetic_experiment(spec, Path(snakemake.output.flag).parent)
    log.info("synthetic experiment: %s", spec)
