# Inputs: the data root's files, prepared texts and document ids; the synthetic experiments' generated data;
# and, for users with a network, a target that downloads and verifies the public data (data/README.md).


rule generate_synthetic:
    output:
        synthetic=directory(RESULTS / "{experiment}" / "synthetic"),
    log:
        "logs/{experiment}/generate_synthetic.log",
    conda:
        "../envs/mtsig.yaml"
    params:
        spec=lambda wildcards: config["synthetic"][wildcards.experiment],
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
        spec=lambda wildcards: experiment_spec(wildcards.experiment),
        data_root=DATA_ROOT,
    script:
        "../scripts/step.py"


rule download_data:
    output:
        touch("data/downloads/complete.flag"),
    log:
        "logs/download_data.log",
    conda:
        "../envs/mtsig.yaml"
    params:
        manifest="data/sources.tsv",
        root=lambda wildcards, output: Path(output[0]).parent,
    script:
        "../scripts/step.py"
