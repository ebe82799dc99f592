# With the download root (no MTSIG_DATA, no data_root folder: data/README.md), the files of data/sources.tsv are
# downloaded and verified by two rules per dataset: download_dataset__<dataset> makes the files the run's jobs read
# (and the files their derivations read), download_dataset__<dataset>__rest the dataset's other files, which only a
# target that asks for them runs (download_data). So a run downloads what its rules read, nothing else. Included
# last: the files read are found by calling the input functions of every job of the run (files_read_by_run).

DOWNLOADS = mtsig_data.dataset_downloads(
    mtsig_data.read_manifest(MANIFEST),
    files_read_by_run() if DATA.downloads else (),
)

for dataset, download in DOWNLOADS.items() if DATA.downloads else ():
    if download.read:

        rule:
            name:
                mtsig_steps.item_rule("download_dataset", dataset)
            output:
                files=[str(DATA_ROOT / dataset / path) for path in download.read],
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

    if download.rest:

        rule:
            name:
                mtsig_steps.item_rule("download_dataset", f"{dataset}__rest")
            input:
                derived_from=[
                    str(DATA_ROOT / dataset / path) for path in download.rest_needs
                ],
            output:
                files=[str(DATA_ROOT / dataset / path) for path in download.rest],
            log:
                f"logs/download_dataset/{dataset}.rest.log",
            localrule: True
            conda:
                "../envs/mtsig.yaml"
            params:
                dataset=dataset,
                manifest=str(MANIFEST),
            script:
                "../scripts/step.py"
