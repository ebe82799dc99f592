# The paper's figures: pseudo-statistic distributions (Figs. 5-6), human significance heatmaps (Fig. 7) and the
# metric x test heatmaps (Fig. 8).


rule figures:
    input:
        distributions_folder=rules.merge_tests.output.distributions,
        tests_folder=rules.merge_tests.output.tests,
        gold=rules.human_gold.output.gold,
        system_scores=rules.human_gold.output.system_scores,
    output:
        **pdf_output(directory(RESULTS / "figures" / "{experiment}" / "pdf")),
        png=report(
            directory(RESULTS / "figures" / "{experiment}" / "png"),
            patterns=["{name}.png"],
            caption="../report/figure.rst",
            category="Figures",
            subcategory="{experiment}",
        ),
    log:
        "logs/{experiment}/figures.log",
    conda:
        "../envs/mtsig.yaml"
    resources:
        mem_mb=2000,
    params:
        distributions=lambda wildcards: per_metric_files(
            rules.merge_tests.output.distributions, "distributions", wildcards
        ),
        tests=experiment_tests,
        test_names=lambda wildcards: tests_of_experiment(wildcards.experiment),
        alpha=ALPHAS[0],
    script:
        "../scripts/step.py"
