# Inputs: the data root's files, prepared texts and document ids; the synthetic experiments' generated data;
# and, with the download root (no MTSIG_DATA, no data_root folder: data/README.md), one rule per dataset of
# data/sources.tsv that downloads and verifies the files of that dataset, so a run fetches the datasets it reads.


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


for dataset, files in DOWNLOADABLE.items():

    rule:
        name:
            mtsig_steps.item_rule("download_dataset", dataset)
        output:
            files=[str(DATA_ROOT / dataset / path) for path in files],
        log:
            f"logs/download_dataset/{dataset}.log",
        localrule: True
        conda:
            "../envs/mtsig.yaml"
        params:
            dataset=dataset,
            manifest=str(MANIFEST),
        script:
            "../scripts/step.py"
