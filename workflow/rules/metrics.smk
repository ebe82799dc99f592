# Automatic metrics: per-segment sufficient statistics (one job per experiment and metric), then corpus scores.


rule metric_stats:
    input:
        texts=rules.prepare_texts.output.texts,
        documents=rules.prepare_texts.output.documents,
        scores=metric_inputs,
    output:
        stats=RESULTS / "{experiment}" / "stats" / "{metric}.npz",
        stats_manifest=manifest(RESULTS / "{experiment}" / "stats" / "{metric}.npz"),
    log:
        "logs/{experiment}/metric_stats.{metric}.log",
    benchmark:
        "logs/{experiment}/metric_stats.{metric}.benchmark.tsv"
    priority: mtsig_steps.RULE_PRIORITIES["metric_stats"]
    conda:
        "../envs/mtsig.yaml"
    resources:
        mem_mb=lambda wildcards: 3500 if wildcards.metric == "meteor" else 1000,
    params:
        spec=lambda wildcards: experiment_spec(wildcards.experiment),
        data_root=DATA_ROOT,
    script:
        "../scripts/step.py"


rule corpus_scores:
    input:
        stats=stats_of,
    output:
        scores=report(
            RESULTS / "{experiment}" / "scores.tsv",
            caption="../report/scores.rst",
            category="Scores",
            subcategory="{experiment}",
        ),
    log:
        "logs/{experiment}/corpus_scores.log",
    benchmark:
        "logs/{experiment}/corpus_scores.benchmark.tsv"
    conda:
        "../envs/mtsig.yaml"
    script:
        "../scripts/step.py"
