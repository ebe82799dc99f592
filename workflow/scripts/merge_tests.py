"""Merge the shards of one metric's tests into one table and one distribution file per kept pair."""

from mtsig.pipeline import merge_resampling_shards
from mtsig.workflow import logged

with logged(snakemake.log[0]):
    merge_resampling_shards(
        list(snakemake.input.tests),
        list(snakemake.input.distributions),
        tests_path=snakemake.output.tests,
        distributions_dir=snakemake.output.distributions,
    )
