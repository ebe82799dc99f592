# The randomized tests for every ordered pair, every metric and every configured test, and from the paired
# bootstrap's same draws the percentile and BCa intervals of every difference and every system's score. An
# experiment's pairs may be split into `resampling.pair_shards` jobs per metric (for a cluster); the merge gives
# byte-identical tables. Unsharded (the default), merge_tests computes each metric's one shard itself: one job per
# experiment.

#: Where resample_tests' shards wait for merge_tests (temporary files, deleted once merged).
SHARDS_FOLDER = RESULTS / "{experiment}" / "shards"


rule resample_tests:
    input:
        stats_folder=rules.metric_stats.output.stats,
        documents=rules.prepare_texts.output.documents,
    output:
        shard_tests=temp(SHARDS_FOLDER / "{metric}.{shard}.tsv"),
        shard_distributions=temp(SHARDS_FOLDER / "{metric}.{shard}.npz"),
        shard_intervals=temp(SHARDS_FOLDER / "{metric}.{shard}.intervals.tsv"),
        shard_system_intervals=temp(SHARDS_FOLDER / "{metric}.{shard}.systems.tsv"),
        shard_intervals_manifest=temp(
            manifest(SHARDS_FOLDER / "{metric}.{shard}.intervals.tsv")
        ),
        shard_system_intervals_manifest=temp(
            manifest(SHARDS_FOLDER / "{metric}.{shard}.systems.tsv")
        ),
        shard_tests_manifest=temp(manifest(SHARDS_FOLDER / "{metric}.{shard}.tsv")),
        shard_distributions_manifest=temp(
            manifest(SHARDS_FOLDER / "{metric}.{shard}.npz")
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
        stats=lambda wildcards: stats_of(wildcards, [wildcards.metric])[0],
        selection=selection_metric,
        resampling=RESAMPLING,
        test_names=lambda wildcards: tests_of_experiment(wildcards.experiment),
    script:
        "../scripts/step.py"


rule merge_tests:
    input:
        unpack(merge_tests_inputs),
    output:
        **folder_outputs("merge_tests"),
    log:
        "logs/{experiment}/merge_tests.log",
    conda:
        "../envs/mtsig.yaml"
    resources:
        mem_mb=ENGINE_MEM_MB,
        memory_cap_mb=MEMORY_CAP_MB,
        pair_shards=SHARDS,
    params:
        metrics=lambda wildcards: metrics_of(wildcards.experiment),
        stats=stats_of,
        selection=selection_metric,
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
