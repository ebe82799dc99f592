"""Section 2 in numbers: R&M's bootstrap and AR p-values on the closest pairs."""

from mtsig.steps.calibration import section2
from mtsig.steps.files import logged

with logged(snakemake.log[0]):
    section2(
        stats_paths=list(snakemake.input.stats),
        experiment=snakemake.wildcards.experiment,
        resampling=snakemake.params.resampling,
        outputs=dict(snakemake.output.items()),
    )
