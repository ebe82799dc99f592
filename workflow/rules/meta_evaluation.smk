# Which of an experiment's metrics agrees best with its humans, and is the difference significant? Correlations with
# the human system scores (with and without outliers), Williams tests and winners, bootstrap intervals, PERM-BOTH
# and pairwise accuracy against the experiment's golds: one job per experiment, about a second of CPU.


rule meta_evaluation:
    input:
        stats_folder=rules.metric_stats.output.stats,
        texts=rules.prepare_texts.output.texts,
        system_scores=rules.human_gold.output.system_scores,
        gold_conclusions=rules.human_gold.output.conclusions,
    output:
        correlations=META_EVALUATION / "correlations.tsv",
        williams=META_EVALUATION / "williams.tsv",
        winners=META_EVALUATION / "winners.tsv",
        intervals=META_EVALUATION / "intervals.tsv",
        perm_both=META_EVALUATION / "perm_both.tsv",
        accuracy=META_EVALUATION / "accuracy.tsv",
        accuracy_tests=META_EVALUATION / "accuracy_tests.tsv",
        correlations_manifest=manifest(META_EVALUATION / "correlations.tsv"),
        williams_manifest=manifest(META_EVALUATION / "williams.tsv"),
        winners_manifest=manifest(META_EVALUATION / "winners.tsv"),
        intervals_manifest=manifest(META_EVALUATION / "intervals.tsv"),
        perm_both_manifest=manifest(META_EVALUATION / "perm_both.tsv"),
        accuracy_manifest=manifest(META_EVALUATION / "accuracy.tsv"),
        accuracy_tests_manifest=manifest(META_EVALUATION / "accuracy_tests.tsv"),
        md=RESULTS / "tables" / "{experiment}.meta_evaluation.md",
        html=report(
            RESULTS / "tables" / "{experiment}.meta_evaluation.html",
            caption="../report/meta_evaluation.rst",
            category="Metric meta-evaluation",
            subcategory="{experiment}",
        ),
        md_manifest=manifest(RESULTS / "tables" / "{experiment}.meta_evaluation.md"),
        heatmap=report(
            RESULTS / "figures" / "{experiment}" / "williams.png",
            caption="../report/meta_evaluation.rst",
            category="Metric meta-evaluation",
            subcategory="{experiment}",
        ),
    log:
        "logs/{experiment}/meta_evaluation.log",
    wildcard_constraints:
        experiment=mtsig_config.one_of(META_EVALUATION_EXPERIMENTS),
    conda:
        "../envs/mtsig.yaml"
    params:
        stats=stats_of,
        settings=as_block(SETTINGS.meta_evaluation),
        seed=SETTINGS.resampling.seed,
    script:
        "../scripts/step.py"
