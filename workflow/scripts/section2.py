"""Section 2 in numbers: R&M's bootstrap and AR p-values on the closest pairs."""

from mtsig.pipeline import section2_experiment
from mtsig.workflow import logged

with logged(snakemake.log[0]):
    section2_experiment(
        stats_paths=list(snakemake.input.stats),
        experiment=snakemake.wildcards.experiment,
        resampling=snakemake.params.resampling,
        outputs=dict(snakemake.output.items()),
    )
