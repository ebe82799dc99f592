# The paper's figures: pseudo-statistic distributions (Figs. 5-6), human significance heatmaps (Fig. 7) and the
# metric x test heatmaps (Fig. 8).


rule figures:
    input:
        distributions=lambda wildcards: outputs_of(
            rules.merge_tests.output.distributions,
            experiment=wildcards.experiment,
            metric=metrics_of(wildcards.experiment),
        ),
        tests=experiment_tests,
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
        test_names=lambda wildcards: tests_of_experiment(wildcards.experiment),
        alpha=ALPHAS[0],
    script:
        "../scripts/step.py"
