# The randomized tests for every ordered pair, every metric and every configured test. An experiment's pairs may be
# split into `resampling.pair_shards` jobs (for a cluster); the merge gives byte-identical tables.


rule resample_tests:
    input:
        stats=RESULTS / "{experiment}" / "stats" / "{metric}.npz",
        selection=selection_metric,
        documents=RESULTS / "{experiment}" / "documents.tsv",
    output:
        tests=temp(
            RESULTS / "{experiment}" / "tests" / "shards" / "{metric}.{shard}.tsv"
        ),
        distributions=temp(
            RESULTS / "{experiment}" / "tests" / "shards" / "{metric}.{shard}.npz"
        ),
        tests_manifest=temp(
            manifest(
                RESULTS / "{experiment}" / "tests" / "shards" / "{metric}.{shard}.tsv"
            )
        ),
        distributions_manifest=temp(
            manifest(
                RESULTS / "{experiment}" / "tests" / "shards" / "{metric}.{shard}.npz"
            )
        ),
    log:
        "logs/{experiment}/resample_tests.{metric}.{shard}.log",
    benchmark:
        "logs/{experiment}/resample_tests.{metric}.{shard}.benchmark.tsv"
    conda:
        "../../environment.yml"
    resources:
        mem_mb=config["resampling"]["memory_cap_mb"] + 1024,
    params:
        resampling=config["resampling"],
        tests=lambda wildcards: tests_of_experiment(wildcards.experiment),
        shards=SHARDS,
    script:
        "../scripts/resample_tests.py"


rule merge_tests:
    input:
        tests=expand(
            RESULTS / "{{experiment}}" / "tests" / "shards" / "{{metric}}.{shard}.tsv",
            shard=range(SHARDS),
        ),
        distributions=expand(
            RESULTS / "{{experiment}}" / "tests" / "shards" / "{{metric}}.{shard}.npz",
            shard=range(SHARDS),
        ),
        manifests=shard_manifests,
    output:
        tests=RESULTS / "{experiment}" / "tests" / "{metric}.tsv",
        tests_manifest=manifest(RESULTS / "{experiment}" / "tests" / "{metric}.tsv"),
        distributions=directory(RESULTS / "{experiment}" / "distributions" / "{metric}"),
    log:
        "logs/{experiment}/merge_tests.{metric}.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/merge_tests.py"
