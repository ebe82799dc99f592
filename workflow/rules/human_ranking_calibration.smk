# Beyond the paper: how often is each human-ranking procedure (WMT24-26's, WMT20-22's, the paper's tests, mtsig's
# stratified permutation) wrong? Error rates with known truth planted into the real ESA ratings of a human-ranking
# experiment (human_ranking_calibration.experiment: its ratings, documents and segment numbering).


rule human_ranking_calibration:
    input:
        ratings=lambda wildcards: data_files(
            DATA_ROOT / path for path in ranking_calibration_source().ratings
        ),
        documents=lambda wildcards: data_files(
            data_glob(DATA_ROOT / ranking_calibration_source().documents, "*.docs")
        ),
    output:
        **pdf_output(
            RESULTS
            / "figures"
            / SETTINGS.human_ranking_calibration.results_folder
            / "calibration.pdf"
        ),
        table=HUMAN_RANKING_CALIBRATION / "calibration.tsv",
        png=report(
            RESULTS
            / "figures"
            / SETTINGS.human_ranking_calibration.results_folder
            / "calibration.png",
            caption="../report/human_ranking_calibration.rst",
            category="Calibration",
        ),
    log:
        "logs/human_ranking_calibration.log",
    conda:
        "../envs/mtsig.yaml"
    resources:
        mem_mb=2500,  # 0.27 GB for the default run's en-cs study, 1.8 GB at publication size
    params:
        settings=as_block(SETTINGS.human_ranking_calibration),
        first_segment_id=lambda wildcards: ranking_calibration_source().first_segment_id,
        seed=SETTINGS.resampling.seed,
    script:
        "../scripts/step.py"
