# Automatic metrics: per-segment sufficient statistics (one job per experiment and metric), then corpus scores.


rule metric_stats:
    input:
        texts=RESULTS / "{experiment}" / "texts",
    output:
        stats=RESULTS / "{experiment}" / "stats" / "{metric}.npz",
        stats_manifest=manifest(RESULTS / "{experiment}" / "stats" / "{metric}.npz"),
    log:
        "logs/{experiment}/metric_stats.{metric}.log",
    benchmark:
        "logs/{experiment}/metric_stats.{metric}.benchmark.tsv"
    conda:
        "../../environment.yml"
    resources:
        mem_mb=lambda wildcards: 3500 if wildcards.metric == "meteor" else 1000,
    params:
        spec=lambda wildcards: experiment_spec(wildcards.experiment),
    script:
        "../scripts/metric_stats.py"


rule corpus_scores:
    input:
        stats=lambda wildcards: expand(
            RESULTS / "{{experiment}}" / "stats" / "{metric}.npz",
            metric=metrics_of(wildcards.experiment),
        ),
    output:
        scores=report(
            RESULTS / "{experiment}" / "scores.tsv",
            caption="../report/scores.rst",
            category="Scores",
            subcategory="{experiment}",
        ),
    log:
        "logs/{experiment}/corpus_scores.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/corpus_scores.py"
