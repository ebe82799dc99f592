"""Segment-level RankEval measures of every predictor against the human rankings of one data set."""

from mtsig.steps.files import logged
from mtsig.steps.segment_level import segment_level

with logged(snakemake.log[0]):
    segment_level(
        dict(snakemake.input.items()),
        spec=snakemake.params.spec,
        seed=snakemake.params.seed,
        bootstrap_samples=snakemake.params.bootstrap_samples,
        outputs=dict(snakemake.output.items()),
        predicted_rankings=snakemake.params.predicted_rankings,
        convention=snakemake.params.convention,
    )
