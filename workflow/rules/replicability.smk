# Do the conclusions replicate across test sets, and which metric deltas do humans notice? Partial conjunction tests (Dror et al. 2017) over the run's
# experiments (is one randomized test more accurate than another in at least k of them?) and over the language
# pairs of the metrics task and of a metrics-task protocol (does metric A beat metric B in at least k of them?).
# One job, a few CPU seconds.


rule replicability:
    input:
        test_conclusions=expand(
            rules.evaluate.output.conclusions, experiment=OUTPUT_EXPERIMENTS
        ),
        gold_conclusions=expand(
            rules.human_gold.output.conclusions, experiment=OUTPUT_EXPERIMENTS
        ),
        williams=expand(
            rules.metrics_task.output.williams, experiment=RUN["metrics_task"]
        ),
        protocol_replication=expand(
            rules.metrics_protocol.output.replication,
            experiment=RUN["metrics_protocol"],
        ),
    output:
        **(
            {"protocol_metrics": RESULTS / "replicability" / "protocol_metrics.tsv"}
            if RUN["metrics_protocol"]
            else {}
        ),
        tests=RESULTS / "replicability" / "tests.tsv",
        tests_partial_conjunction=RESULTS
        / "replicability"
        / "tests_partial_conjunction.tsv",
        metrics=RESULTS / "replicability" / "metrics.tsv",
        md=RESULTS / "tables" / "replicability.md",
        html=report(
            RESULTS / "tables" / "replicability.html",
            caption="../report/replicability.rst",
            category="Replicability",
        ),
    log:
        "logs/replicability.log",
    conda:
        "../envs/mtsig.yaml"
    params:
        experiments=OUTPUT_EXPERIMENTS,
        language_pairs=[
            lp
            for name in RUN["metrics_task"]
            for lp in config["metrics_task"][name]["pairs"]
        ],
        alpha=SETTINGS.replicability.alpha,
    script:
        "../scripts/step.py"


rule delta_agreement:
    input:
        scores=expand(rules.corpus_scores.output.scores, experiment=TEXT_EXPERIMENTS),
        human=expand(rules.human_gold.output.system_scores, experiment=TEXT_EXPERIMENTS),
        gold_conclusions=expand(
            rules.human_gold.output.conclusions, experiment=TEXT_EXPERIMENTS
        ),
        metrics_task_scores=expand(
            rules.metrics_task.output.system_scores, experiment=RUN["metrics_task"]
        ),
        metrics_task_golds=rules.metrics_task_gold.output.conclusions,
        protocol_scores=expand(
            rules.metrics_protocol.output.system_scores,
            experiment=RUN["metrics_protocol"],
        ),
        protocol_golds=expand(
            rules.metrics_protocol.output.mqm_gold_conclusions,
            experiment=RUN["metrics_protocol"],
        ),
    output:
        pairs=RESULTS / "delta_agreement" / "pairs.tsv",
        outliers=RESULTS / "delta_agreement" / "outliers.tsv",
        curves=RESULTS / "delta_agreement" / "curves.tsv",
        summary=RESULTS / "delta_agreement" / "summary.tsv",
        md=RESULTS / "tables" / "delta_agreement.md",
        html=report(
            RESULTS / "tables" / "delta_agreement.html",
            caption="../report/delta_agreement.rst",
            category="Replicability",
        ),
        figure=report(
            RESULTS / "figures" / "delta_agreement.png",
            caption="../report/delta_agreement.rst",
            category="Replicability",
        ),
    log:
        "logs/delta_agreement.log",
    conda:
        "../envs/mtsig.yaml"
    params:
        alpha=SETTINGS.replicability.alpha,
        seed=SETTINGS.resampling.seed,
        bootstrap_samples=SETTINGS.replicability.bootstrap_samples,
        metric_outlier_cutoff=SETTINGS.replicability.metric_outlier_cutoff,
        protocol_metrics={
            name: as_block(PROTOCOL_SETTINGS[name].delta_metrics)
            for name in RUN["metrics_protocol"]
        },
    script:
        "../scripts/step.py"
