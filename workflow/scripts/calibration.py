"""Type I error and power of every test and metric by simulation with known truth."""

from mtsig.steps.calibration import calibration
from mtsig.steps.files import logged

with logged(snakemake.log[0]):
    calibration(
        stats_paths=list(snakemake.input.stats),
        gold_conclusions_path=snakemake.input.gold_conclusions,
        documents_path=snakemake.input.documents,
        experiment=snakemake.wildcards.experiment,
        calibration=snakemake.params.calibration,
        resampling=snakemake.params.resampling,
        tests=snakemake.params.tests,
        outputs=dict(snakemake.output.items()),
    )
