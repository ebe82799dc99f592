# The randomized tests for every ordered pair, every metric and every configured test, and from the paired
# bootstrap's same draws the percentile and BCa intervals of every difference and every system's score. An
# experiment's pairs may be split into `resampling.pair_shards` jobs (for a cluster); the merge gives byte-identical
# tables. Unsharded (the default), merge_tests computes the one shard itself: one job per (experiment, metric).


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
        shard_intervals=temp(
            RESULTS
            / "{experiment}"
            / "tests"
            / "shards"
            / "{metric}.{shard}.intervals.tsv"
        ),
        shard_system_intervals=temp(
            RESULTS
            / "{experiment}"
            / "tests"
            / "shards"
            / "{metric}.{shard}.systems.tsv"
        ),
        shard_intervals_manifest=temp(
            manifest(
                RESULTS
                / "{experiment}"
                / "tests"
                / "shards"
                / "{metric}.{shard}.intervals.tsv"
            )
        ),
        shard_system_intervals_manifest=temp(
            manifest(
                RESULTS
                / "{experiment}"
                / "tests"
                / "shards"
                / "{metric}.{shard}.systems.tsv"
            )
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
    conda:
        "../envs/mtsig.yaml"
    resources:
        mem_mb=ENGINE_MEM_MB,
        memory_cap_mb=MEMORY_CAP_MB,
        pair_shards=SHARDS,
    params:
        resampling=RESAMPLING,
        test_names=lambda wildcards: tests_of_experiment(wildcards.experiment),
    script:
        "../scripts/step.py"


rule merge_tests:
    input:
        unpack(merge_tests_inputs),
    output:
        tests=RESULTS / "{experiment}" / "tests" / "{metric}.tsv",
        tests_manifest=manifest(RESULTS / "{experiment}" / "tests" / "{metric}.tsv"),
        distributions=directory(RESULTS / "{experiment}" / "distributions" / "{metric}"),
        intervals=RESULTS / "{experiment}" / "intervals" / "{metric}.tsv",
        system_intervals=RESULTS / "{experiment}" / "intervals" / "{metric}.systems.tsv",
    log:
        "logs/{experiment}/merge_tests.{metric}.log",
    conda:
        "../envs/mtsig.yaml"
    resources:
        mem_mb=ENGINE_MEM_MB,
        memory_cap_mb=MEMORY_CAP_MB,
        pair_shards=SHARDS,
    params:
        resampling=RESAMPLING,
        test_names=lambda wildcards: tests_of_experiment(wildcards.experiment),
    script:
        "../scripts/step.py"


# Several training runs per system (an experiment's `training_runs`): the run-aware test next to MultEval's.
rule training_runs:
    input:
        runs=training_run_inputs,
    output:
        pairs=RESULTS / "{experiment}" / "training_runs.tsv",
        systems=RESULTS / "{experiment}" / "training_runs.systems.tsv",
    log:
        "logs/{experiment}/training_runs.log",
    conda:
        "../envs/mtsig.yaml"
    params:
        reference=lambda wildcards: as_block(
            experiment_spec(wildcards.experiment).reference
        ),
        run_files=lambda wildcards: as_block(
            experiment_spec(wildcards.experiment).training_runs
        ),
        unescape_html=lambda wildcards: experiment_spec(
            wildcards.experiment
        ).unescape_html,
        meteor_language=lambda wildcards: experiment_spec(
            wildcards.experiment
        ).meteor.language,
        data_root=DATA_ROOT,
        metrics=lambda wildcards: metrics_of(wildcards.experiment),
        samples=as_block(SETTINGS.resampling.samples),
        seed=SETTINGS.resampling.seed,
    script:
        "../scripts/step.py"
