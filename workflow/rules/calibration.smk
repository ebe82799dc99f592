# Beyond the paper: Type I error and power with known truth (null pairs from swapped real outputs, alternatives
# with a planted fraction q), and Section 2 in numbers (R&M's bootstrap against AR on the closest pairs).


rule calibration:
    input:
        stats=lambda wildcards: expand(
            RESULTS / "{experiment}" / "stats" / "{metric}.npz",
            experiment=wildcards.experiment,
            metric=metrics_of(wildcards.experiment),
        ),
        gold_conclusions=RESULTS / "{experiment}" / "gold_conclusions.tsv",
        documents=RESULTS / "{experiment}" / "documents.tsv",
    output:
        table=RESULTS / "calibration" / "{experiment}.tsv",
        png=report(
            RESULTS / "figures" / "{experiment}" / "calibration.png",
            caption="../report/calibration.rst",
            category="Calibration",
        ),
        pdf=RESULTS / "figures" / "{experiment}" / "calibration.pdf",
    log:
        "logs/{experiment}/calibration.log",
    benchmark:
        "logs/{experiment}/calibration.benchmark.tsv"
    conda:
        "../../environment.yml"
    threads: 2
    params:
        calibration=config["calibration"],
        resampling=config["resampling"],
        tests=lambda wildcards: tests_of_experiment(wildcards.experiment),
    script:
        "../scripts/calibration.py"


rule section2:
    input:
        stats=lambda wildcards: expand(
            RESULTS / "{experiment}" / "stats" / "{metric}.npz",
            experiment=wildcards.experiment,
            metric=metrics_of(wildcards.experiment),
        ),
    output:
        table=RESULTS / "{experiment}" / "section2.tsv",
        md=report(
            RESULTS / "tables" / "{experiment}.section2.md",
            caption="../report/section2.rst",
            category="Tables",
        ),
        md_manifest=manifest(RESULTS / "tables" / "{experiment}.section2.md"),
    log:
        "logs/{experiment}/section2.log",
    benchmark:
        "logs/{experiment}/section2.benchmark.tsv"
    conda:
        "../../environment.yml"
    params:
        resampling=config["resampling"],
    script:
        "../scripts/section2.py"
