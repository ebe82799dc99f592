# Beyond the paper: how often is each human-ranking procedure (WMT24-26's, WMT20-22's, the paper's tests, mtsig's
# stratified permutation) wrong? Error rates with known truth planted into the real ESA ratings.


rule human_ranking_calibration:
    input:
        ratings=lambda wildcards: data_files(
            DATA_ROOT / path for path in config["human_ranking_calibration"]["ratings"]
        ),
        documents=lambda wildcards: data_files(
            data_glob(
                DATA_ROOT / config["human_ranking_calibration"]["documents"], "*.docs"
            )
        ),
    output:
        **pdf_output(RESULTS / "figures" / HUMAN_RANKING / "calibration.pdf"),
        table=RESULTS / HUMAN_RANKING / "calibration.tsv",
        png=report(
            RESULTS / "figures" / HUMAN_RANKING / "calibration.png",
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
        settings=config["human_ranking_calibration"],
        seed=config["resampling"]["seed"],
    script:
        "../scripts/step.py"
