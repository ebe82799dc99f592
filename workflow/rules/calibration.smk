# Beyond the paper: Type I error and power with known truth (null pairs from swapped real outputs, alternatives
# with a planted fraction q), and Section 2 in numbers (R&M's bootstrap against AR on the closest pairs).


rule calibration:
    input:
        stats_folder=rules.metric_stats.output.stats,
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
    wildcard_constraints:
        experiment=mtsig_config.one_of(calibration_names()),
    priority: mtsig_steps.RULE_PRIORITIES["calibration"]
    conda:
        "../envs/mtsig.yaml"
    resources:
        mem_mb=ENGINE_MEM_MB,
        memory_cap_mb=MEMORY_CAP_MB,
    params:
        null_pairs=SETTINGS.calibration.null_pairs,
        samples=SETTINGS.calibration.samples,
        alphas=as_block(SETTINGS.calibration.alphas),
        q=as_block(SETTINGS.calibration.q),
        swap_units=as_block(SETTINGS.calibration.swap_units),
        alternatives_per_q=SETTINGS.calibration.alternatives_per_q,
        planted_alpha=SETTINGS.calibration.planted_alpha,
        figure_alpha=SETTINGS.calibration.figure_alpha,
        seed=SETTINGS.resampling.seed,
        pvalue=SETTINGS.resampling.pvalue,
        mean_block_length=SETTINGS.resampling.mean_block_length,
        tests=lambda wildcards: tests_of_experiment(wildcards.experiment),
        stats=stats_of,
    script:
        "../scripts/step.py"


rule power:
    input:
        stats_folder=rules.metric_stats.output.stats,
    output:
        table=RESULTS / "{experiment}" / "power.tsv",
        png=report(
            RESULTS / "figures" / "{experiment}" / "power.png",
            caption="../report/power.rst",
            category="Power",
        ),
    log:
        "logs/{experiment}/power.log",
    wildcard_constraints:
        experiment=mtsig_config.one_of(power_names()),
    conda:
        "../envs/mtsig.yaml"
    resources:
        mem_mb=ENGINE_MEM_MB,
        memory_cap_mb=MEMORY_CAP_MB,
    params:
        test=SETTINGS.power.test,
        alpha=SETTINGS.power.alpha,
        trials=SETTINGS.power.trials,
        samples=SETTINGS.power.samples,
        q=as_block(SETTINGS.power.q),
        target_power=SETTINGS.power.target_power,
        seed=SETTINGS.resampling.seed,
        pvalue=SETTINGS.resampling.pvalue,
        stats=lambda wildcards: stats_of(
            wildcards, [power_metric(wildcards.experiment)]
        ),
    script:
        "../scripts/step.py"


rule section2:
    input:
        stats_folder=rules.metric_stats.output.stats,
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
    wildcard_constraints:
        experiment=mtsig_config.one_of(calibration_names()),
    conda:
        "../envs/mtsig.yaml"
    resources:
        mem_mb=ENGINE_MEM_MB,
        memory_cap_mb=MEMORY_CAP_MB,
    params:
        section2_pairs=SETTINGS.calibration.section2_pairs,
        samples=as_block(SETTINGS.resampling.samples),
        seed=SETTINGS.resampling.seed,
        stats=stats_of,
    script:
        "../scripts/step.py"
