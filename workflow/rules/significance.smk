# The randomized tests for every ordered pair, every metric and every configured test. An experiment's pairs may be
# split into `resampling.pair_shards` jobs (for a cluster); the merge gives byte-identical tables.


rule resample_tests:
    input:
        stats=rules.metric_stats.output.stats,
        selection=selection_metric,
        documents=rules.prepare_texts.output.documents,
    output:
        shard_tests=temp(
            RESULTS / "{experiment}" / "tests" / "shards" / "{metric}.{shard}.tsv"
        ),
        shard_distributions=temp(
            RESULTS / "{experiment}" / "tests" / "shards" / "{metric}.{shard}.npz"
        ),
        shard_tests_manifest=temp(
            manifest(
                RESULTS / "{experiment}" / "tests" / "shards" / "{metric}.{shard}.tsv"
            )
        ),
        shard_distributions_manifest=temp(
            manifest(
                RESULTS / "{experiment}" / "tests" / "shards" / "{metric}.{shard}.npz"
            )
        ),
    log:
        "logs/{experiment}/resample_tests.{metric}.{shard}.log",
    benchmark:
        "logs/{experiment}/resample_tests.{metric}.{shard}.benchmark.tsv"
    conda:
        "../envs/mtsig.yaml"
    resources:
        mem_mb=ENGINE_MEM_MB,
    params:
        resampling=config["resampling"],
        tests=lambda wildcards: tests_of_experiment(wildcards.experiment),
        shards=SHARDS,
    script:
        "../scripts/step.py"


rule merge_tests:
    input:
        shard_tests=outputs_of(
            rules.resample_tests.output.shard_tests, shard=range(SHARDS)
        ),
        shard_distributions=outputs_of(
            rules.resample_tests.output.shard_distributions, shard=range(SHARDS)
        ),
        manifests=shard_manifests,
    output:
        tests=RESULTS / "{experiment}" / "tests" / "{metric}.tsv",
        tests_manifest=manifest(RESULTS / "{experiment}" / "tests" / "{metric}.tsv"),
        distributions=directory(RESULTS / "{experiment}" / "distributions" / "{metric}"),
    log:
        "logs/{experiment}/merge_tests.{metric}.log",
    conda:
        "../envs/mtsig.yaml"
    script:
        "../scripts/step.py"
