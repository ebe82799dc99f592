# Do the conclusions replicate across test sets? Partial conjunction tests (Dror et al. 2017) over the run's
# experiments (is one randomized test more accurate than another in at least k of them?) and over the language
# pairs of the metrics task (does metric A beat metric B in at least k of them?). One job, a few CPU seconds.


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
    output:
        tests=RESULTS / "replicability" / "tests.tsv",
        tests_partial_conjunction=RESULTS
        / "replicability"
        / "tests_partial_conjunction.tsv",
        metrics=RESULTS / "replicability" / "metrics.tsv",
        md=report(
            RESULTS / "tables" / "replicability.md",
            caption="../report/replicability.rst",
            category="Replicability",
        ),
    log:
        "logs/replicability.log",
    benchmark:
        "logs/replicability.benchmark.tsv"
    conda:
        "../envs/mtsig.yaml"
    params:
        experiments=OUTPUT_EXPERIMENTS,
        language_pairs=[
            lp
            for name in RUN["metrics_task"]
            for lp in config["metrics_task"][name]["pairs"]
        ],
        alpha=config["replicability"]["alpha"],
    script:
        "../scripts/step.py"
