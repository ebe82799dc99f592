# A metrics shared task's system-level results, reproduced (the WMT20 metrics task, config/wmt20-metrics.yaml):
# correlations with and without outliers, Williams tests and winners, the table and heatmaps, and the DA gold of
# every pair. One job per study and one for every gold: a few seconds of CPU in all.


rule metrics_task:
    input:
        metric_scores=metrics_task_metric_files,
        human=lambda wildcards: metrics_task_files(
            wildcards.experiment, "human_system_scores"
        ),
    output:
        correlations=RESULTS / "{experiment}" / "correlations.tsv",
        williams=RESULTS / "{experiment}" / "williams.tsv",
        winners=RESULTS / "{experiment}" / "winners.tsv",
        system_scores=RESULTS / "{experiment}" / "system_scores.tsv",
        correlations_manifest=manifest(RESULTS / "{experiment}" / "correlations.tsv"),
        williams_manifest=manifest(RESULTS / "{experiment}" / "williams.tsv"),
        winners_manifest=manifest(RESULTS / "{experiment}" / "winners.tsv"),
        system_scores_manifest=manifest(RESULTS / "{experiment}" / "system_scores.tsv"),
        md=RESULTS / "tables" / "{experiment}.md",
        html=report(
            RESULTS / "tables" / "{experiment}.html",
            caption="../report/metrics_task.rst",
            category="Metric meta-evaluation",
        ),
        md_manifest=manifest(RESULTS / "tables" / "{experiment}.md"),
        tex=RESULTS / "tables" / "{experiment}.tex",
        csv=RESULTS / "tables" / "{experiment}.csv",
        figures=report(
            directory(RESULTS / "figures" / "{experiment}"),
            patterns=["{name}.png"],
            caption="../report/metrics_task.rst",
            category="Metric meta-evaluation",
        ),
    log:
        "logs/{experiment}/metrics_task.log",
    wildcard_constraints:
        experiment=mtsig_config.one_of(RUN["metrics_task"]),
    priority: mtsig_steps.RULE_PRIORITIES["metrics_task"]
    conda:
        "../envs/mtsig.yaml"
    params:
        spec=lambda wildcards: config["metrics_task"][wildcards.experiment],
        data_root=DATA_ROOT,
    script:
        "../scripts/step.py"


rule metrics_task_gold:
    input:
        human=lambda wildcards: metrics_task_gold_inputs(),
    output:
        gold=metrics_task_gold_outputs("gold.tsv"),
        conclusions=metrics_task_gold_outputs("gold_conclusions.tsv"),
        gold_manifest=[manifest(p) for p in metrics_task_gold_outputs("gold.tsv")],
        conclusions_manifest=[
            manifest(p) for p in metrics_task_gold_outputs("gold_conclusions.tsv")
        ],
    log:
        "logs/metrics_task_gold.log",
    priority: mtsig_steps.RULE_PRIORITIES["metrics_task_gold"]
    conda:
        "../envs/mtsig.yaml"
    params:
        specs={
            name: {
                key: config["metrics_task"][name][key]
                for key in mtsig_settings.MetricsTask.GOLD_FIELDS
            }
            for name in RUN["metrics_task"]
        },
        data_root=DATA_ROOT,
        alphas=ALPHAS,
    script:
        "../scripts/step.py"


# The study's jobs in the run and its table in the index (common.smk, add_named_study).
add_named_study(
    RUN["metrics_task"],
    [rules.metrics_task],
    rules.metrics_task.output.md,
    "metrics_task",
)
