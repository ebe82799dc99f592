# The paper's figures: pseudo-statistic distributions (Figs. 5-6), human significance heatmaps (Fig. 7) and the
# metric x test heatmaps (Fig. 8).


rule figures:
    input:
        distributions=lambda wildcards: expand(
            RESULTS / "{experiment}" / "distributions" / "{metric}",
            experiment=wildcards.experiment,
            metric=metrics_of(wildcards.experiment),
        ),
        tests=experiment_tests,
        gold=RESULTS / "{experiment}" / "gold.tsv",
        system_scores=RESULTS / "{experiment}" / "human" / "system_scores.tsv",
    output:
        flag=touch(RESULTS / "figures" / "{experiment}" / "done.flag"),
        figures=report(
            directory(RESULTS / "figures" / "{experiment}" / "png"),
            patterns=["{name}.png"],
            caption="../report/figure.rst",
            category="Figures",
            subcategory="{experiment}",
        ),
        pdf=directory(RESULTS / "figures" / "{experiment}" / "pdf"),
    log:
        "logs/{experiment}/figures.log",
    benchmark:
        "logs/{experiment}/figures.benchmark.tsv"
    conda:
        "../../environment.yml"
    params:
        metrics=lambda wildcards: metrics_of(wildcards.experiment),
        tests=lambda wildcards: tests_of_experiment(wildcards.experiment),
        alpha=ALPHAS[0],
    script:
        "../scripts/figures.py"
