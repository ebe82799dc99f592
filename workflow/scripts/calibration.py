"""Type I error and power of every test and metric by simulation with known truth."""

from mtsig.pipeline import calibration_experiment
from mtsig.workflow import logged

with logged(snakemake.log[0]):
    calibration_experiment(
        stats_paths=list(snakemake.input.stats),
        gold_conclusions_path=snakemake.input.gold_conclusions,
        documents_path=snakemake.input.documents,
        experiment=snakemake.wildcards.experiment,
        calibration=snakemake.params.calibration,
        resampling=snakemake.params.resampling,
        tests=snakemake.params.tests,
        outputs=dict(snakemake.output.items()),
    )
