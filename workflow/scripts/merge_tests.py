"""Merge the shards of one metric's tests into one table and one distribution file per kept pair."""

from mtsig.steps.files import logged
from mtsig.steps.significance import merge_tests

with logged(snakemake.log[0]):
    merge_tests(
        list(snakemake.input.tests),
        list(snakemake.input.distributions),
        tests_path=snakemake.output.tests,
        distributions_dir=snakemake.output.distributions,
    )
