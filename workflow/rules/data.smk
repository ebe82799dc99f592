# Inputs: the data root's files, prepared texts and document ids; the synthetic experiments' generated data. The
# download of the data root's files, when there is none, is download.smk's.


rule generate_synthetic:
    output:
        synthetic=directory(RESULTS / "{experiment}" / "synthetic"),
    log:
        "logs/{experiment}/generate_synthetic.log",
    conda:
        "../envs/mtsig.yaml"
    params:
        spec=lambda wildcards: mtsig_config.synthetic_generator(
            config["synthetic"][wildcards.experiment]
        ),
    script:
        "../scripts/step.py"


rule prepare_texts:
    input:
        data=raw_inputs,
    output:
        texts=directory(RESULTS / "{experiment}" / "texts"),
        documents=RESULTS / "{experiment}" / "documents.tsv",
        documents_manifest=manifest(RESULTS / "{experiment}" / "documents.tsv"),
    log:
        "logs/{experiment}/prepare_texts.log",
    priority: mtsig_steps.RULE_PRIORITIES["prepare_texts"]
    conda:
        "../envs/mtsig.yaml"
    params:
        sources=text_sources,
        data_root=DATA_ROOT,
    script:
        "../scripts/step.py"
