# Automatic metrics: per-segment sufficient statistics (one job per experiment, for all its metrics), then corpus
# scores.


# Meteor's English paraphrase table indexed once per run: each English METEOR job gives the jar only the entries
# that can match in its experiment (the same statistics, for less CPU).
rule meteor_paraphrases:
    output:
        index=RESULTS / "meteor" / "paraphrase-en.npz",
        index_manifest=manifest(RESULTS / "meteor" / "paraphrase-en.npz"),
    log:
        "logs/meteor_paraphrases.log",
    priority: mtsig_steps.RULE_PRIORITIES["meteor_paraphrases"]
    conda:
        "../envs/mtsig.yaml"
    resources:
        mem_mb=4000,
    script:
        "../scripts/step.py"


rule metric_stats:
    input:
        texts=rules.prepare_texts.output.texts,
        documents=rules.prepare_texts.output.documents,
        scores=metric_inputs,
        paraphrases=meteor_paraphrase_index,
    output:
        **folder_outputs("metric_stats"),
    log:
        "logs/{experiment}/metric_stats.log",
    priority: mtsig_steps.RULE_PRIORITIES["metric_stats"]
    conda:
        "../envs/mtsig.yaml"
    resources:
        mem_mb=lambda wildcards: (
            3500 if "meteor" in metrics_of(wildcards.experiment) else 1000
        ),
    params:
        metrics=lambda wildcards: metrics_of(wildcards.experiment),
        options=metric_options,
        declarations=metric_declarations,
        data_root=DATA_ROOT,
    script:
        "../scripts/step.py"


rule corpus_scores:
    input:
        stats_folder=rules.metric_stats.output.stats,
    output:
        scores=RESULTS / "{experiment}" / "scores.tsv",
        html=report(
            RESULTS / "{experiment}" / "scores.html",
            caption="../report/scores.rst",
            category="Scores",
            subcategory="{experiment}",
        ),
    log:
        "logs/{experiment}/corpus_scores.log",
    conda:
        "../envs/mtsig.yaml"
    params:
        stats=stats_of,
    script:
        "../scripts/step.py"
