# Beyond the paper: Type I error and power with known truth (null pairs from swapped real outputs, alternatives
# with a planted fraction q), and Section 2 in numbers (R&M's bootstrap against AR on the closest pairs).


rule calibration:
    input:
        stats=stats_of,
        gold_conclusions=rules.human_gold.output.conclusions,
        documents=rules.prepare_texts.output.documents,
    output:
        **pdf_output(RESULTS / "figures" / "{experiment}" / "calibration.pdf"),
        table=RESULTS / "calibration" / "{experiment}.tsv",
        png=report(
            RESULTS / "figures" / "{experiment}" / "calibration.png",
            caption="../report/calibration.rst",
            category="Calibration",
        ),
    log:
        "logs/{experiment}/calibration.log",
    priority: mtsig_steps.RULE_PRIORITIES["calibration"]
    conda:
        "../envs/mtsig.yaml"
    resources:
        mem_mb=ENGINE_MEM_MB,
        memory_cap_mb=MEMORY_CAP_MB,
    params:
        calibration=config["calibration"],
        resampling=RESAMPLING,
        tests=lambda wildcards: tests_of_experiment(wildcards.experiment),
    script:
        "../scripts/step.py"


rule power:
    input:
        stats=lambda wildcards: outputs_of(
            rules.metric_stats.output.stats,
            experiment=wildcards.experiment,
            metric=power_metric(wildcards.experiment),
        ),
    output:
        table=RESULTS / "{experiment}" / "power.tsv",
        png=report(
            RESULTS / "figures" / "{experiment}" / "power.png",
            caption="../report/power.rst",
            category="Power",
        ),
    log:
        "logs/{experiment}/power.log",
    conda:
        "../envs/mtsig.yaml"
    resources:
        mem_mb=ENGINE_MEM_MB,
        memory_cap_mb=MEMORY_CAP_MB,
    params:
        power=config["power"],
        resampling=RESAMPLING,
    script:
        "../scripts/step.py"


rule section2:
    input:
        stats=stats_of,
    output:
        table=RESULTS / "{experiment}" / "section2.tsv",
        md=RESULTS / "tables" / "{experiment}.section2.md",
        html=report(
            RESULTS / "tables" / "{experiment}.section2.html",
            caption="../report/section2.rst",
            category="Tables",
            subcategory="{experiment}",
        ),
        md_manifest=manifest(RESULTS / "tables" / "{experiment}.section2.md"),
    log:
        "logs/{experiment}/section2.log",
    conda:
        "../envs/mtsig.yaml"
    resources:
        mem_mb=ENGINE_MEM_MB,
        memory_cap_mb=MEMORY_CAP_MB,
    params:
        calibration=config["calibration"],
        resampling=RESAMPLING,
    script:
        "../scripts/step.py"
