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
        null_pairs=config["calibration"]["null_pairs"],
        samples=config["calibration"]["samples"],
        alphas=config["calibration"]["alphas"],
        q=config["calibration"]["q"],
        swap_units=config["calibration"]["swap_units"],
        alternatives_per_q=config["calibration"]["alternatives_per_q"],
        planted_alpha=config["calibration"]["planted_alpha"],
        figure_alpha=config["calibration"]["figure_alpha"],
        seed=config["resampling"]["seed"],
        pvalue=config["resampling"]["pvalue"],
        mean_block_length=config["resampling"]["mean_block_length"],
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
        test=config["power"]["test"],
        alpha=config["power"]["alpha"],
        trials=config["power"]["trials"],
        samples=config["power"]["samples"],
        q=config["power"]["q"],
        target_power=config["power"]["target_power"],
        seed=config["resampling"]["seed"],
        pvalue=config["resampling"]["pvalue"],
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
        section2_pairs=config["calibration"]["section2_pairs"],
        samples=config["resampling"]["samples"],
        seed=config["resampling"]["seed"],
    script:
        "../scripts/step.py"
