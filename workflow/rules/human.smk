# Human judgments: tidy ratings, per-annotator standardisation, quality control, and the gold standard (paper Sec. 4).


rule human_gold:
    input:
        human=human_inputs,
        texts=rules.prepare_texts.output.texts,
        documents=rules.prepare_texts.output.documents,
    output:
        z=RESULTS / "{experiment}" / "human" / "z.tsv",
        qc=RESULTS / "{experiment}" / "human" / "qc.tsv",
        system_scores=RESULTS / "{experiment}" / "human" / "system_scores.tsv",
        gold=RESULTS / "{experiment}" / "gold.tsv",
        conclusions=RESULTS / "{experiment}" / "gold_conclusions.tsv",
        system_scores_manifest=manifest(
            RESULTS / "{experiment}" / "human" / "system_scores.tsv"
        ),
        gold_manifest=manifest(RESULTS / "{experiment}" / "gold.tsv"),
        conclusions_manifest=manifest(RESULTS / "{experiment}" / "gold_conclusions.tsv"),
    log:
        "logs/{experiment}/human_gold.log",
    priority: mtsig_steps.RULE_PRIORITIES["human_gold"]
    conda:
        "../envs/mtsig.yaml"
    resources:
        mem_mb=2000,
    params:
        human_source=experiment_block("human"),
        quality_control=experiment_block("qc"),
        standardise=experiment_block("standardise"),
        gold_settings=experiment_block("gold"),
        data_root=DATA_ROOT,
        alphas=ALPHAS,
    script:
        "../scripts/step.py"
