"""Segment-level RankEval measures of every predictor against the human rankings of one data set."""

from mtsig.pipeline import segment_level_experiment
from mtsig.workflow import logged

with logged(snakemake.log[0]):
    segment_level_experiment(
        dict(snakemake.input.items()),
        spec=snakemake.params.spec,
        seed=snakemake.params.seed,
        bootstrap_samples=snakemake.params.bootstrap_samples,
        outputs=dict(snakemake.output.items()),
        predicted_rankings=snakemake.params.predicted_rankings,
        convention=snakemake.params.convention,
    )
