# A metrics task's protocol on expert MQM (config/wmt23.yaml): the WMT23 task set (Freitag et al. 2023, Table 8) and
# WMT24's on the WMT23 test set, as mt-metrics-eval computes them, with what mtsig adds on the same data (bootstrap
# intervals of every task value; chance levels; human scores entered as metrics; the power of the permutation tests
# and the stability of each task's winner and cluster 1; which metrics could be first, confidence sets for ranks;
# the per-language-pair p-values that rule replicability combines; the MQM gold and system scores that rule
# delta_agreement fits). One job per experiment: the files are read once for both protocols.


rule metrics_protocol:
    input:
        scores=metrics_protocol_inputs,
    output:
        tasks=RESULTS / "{experiment}" / "tasks.tsv",
        average=RESULTS / "{experiment}" / "average.tsv",
        significance=RESULTS / "{experiment}" / "significance.tsv",
        replication=RESULTS / "{experiment}" / "replication.tsv",
        system_scores=RESULTS / "{experiment}" / "system_scores.tsv",
        mqm_gold=RESULTS / "{experiment}" / "mqm_gold.tsv",
        mqm_gold_conclusions=RESULTS / "{experiment}" / "mqm_gold_conclusions.tsv",
        chance=RESULTS / "{experiment}" / "chance.tsv",
        human=RESULTS / "{experiment}" / "human.tsv",
        power=RESULTS / "{experiment}" / "power.tsv",
        power_curves=RESULTS / "{experiment}" / "power_curves.tsv",
        stability=RESULTS / "{experiment}" / "stability.tsv",
        rank_sets=RESULTS / "{experiment}" / "rank_sets.tsv",
        tasks_manifest=manifest(RESULTS / "{experiment}" / "tasks.tsv"),
        average_manifest=manifest(RESULTS / "{experiment}" / "average.tsv"),
        significance_manifest=manifest(RESULTS / "{experiment}" / "significance.tsv"),
        replication_manifest=manifest(RESULTS / "{experiment}" / "replication.tsv"),
        system_scores_manifest=manifest(RESULTS / "{experiment}" / "system_scores.tsv"),
        mqm_gold_manifest=manifest(RESULTS / "{experiment}" / "mqm_gold.tsv"),
        mqm_gold_conclusions_manifest=manifest(
            RESULTS / "{experiment}" / "mqm_gold_conclusions.tsv"
        ),
        chance_manifest=manifest(RESULTS / "{experiment}" / "chance.tsv"),
        human_manifest=manifest(RESULTS / "{experiment}" / "human.tsv"),
        power_manifest=manifest(RESULTS / "{experiment}" / "power.tsv"),
        power_curves_manifest=manifest(RESULTS / "{experiment}" / "power_curves.tsv"),
        stability_manifest=manifest(RESULTS / "{experiment}" / "stability.tsv"),
        rank_sets_manifest=manifest(RESULTS / "{experiment}" / "rank_sets.tsv"),
        md=RESULTS / "tables" / "{experiment}.md",
        html=report(
            RESULTS / "tables" / "{experiment}.html",
            caption="../report/metrics_protocol.rst",
            category="Metric meta-evaluation",
            subcategory="{experiment}",
        ),
        md_manifest=manifest(RESULTS / "tables" / "{experiment}.md"),
        tex=RESULTS / "tables" / "{experiment}.tex",
        figures=report(
            directory(RESULTS / "figures" / "{experiment}"),
            patterns=["{name}.png"],
            caption="../report/metrics_protocol_figure.rst",
            category="Metric meta-evaluation",
            subcategory="{experiment}",
        ),
    log:
        "logs/{experiment}/metrics_protocol.log",
    wildcard_constraints:
        experiment=mtsig_config.one_of(RUN["metrics_protocol"]),
    priority: mtsig_steps.RULE_PRIORITIES["metrics_protocol"]
    conda:
        "../envs/mtsig.yaml"
    params:
        settings=lambda wildcards: as_block(PROTOCOL_SETTINGS[wildcards.experiment]),
        data_root=DATA_ROOT,
        seed=SETTINGS.resampling.seed,
        alphas=ALPHAS,
    script:
        "../scripts/step.py"


# The study's jobs in the run and its table in the index (common.smk, add_named_study).
add_named_study(
    RUN["metrics_protocol"],
    [rules.metrics_protocol],
    rules.metrics_protocol.output.md,
    "metrics_protocol",
)
