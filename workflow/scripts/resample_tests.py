"""The randomized tests for one shard of an experiment's pairs and one metric."""

from mtsig.steps.files import logged
from mtsig.steps.significance import resample_tests

with logged(snakemake.log[0]):
    resample_tests(
        stats_path=snakemake.input.stats,
        selection_stats_path=snakemake.input.selection,
        documents_path=snakemake.input.documents,
        experiment=snakemake.wildcards.experiment,
        metric=snakemake.wildcards.metric,
        shard=int(snakemake.wildcards.shard),
        n_shards=snakemake.params.shards,
        tests=snakemake.params.tests,
        resampling=snakemake.params.resampling,
        tests_path=snakemake.output.tests,
        distributions_path=snakemake.output.distributions,
    )
