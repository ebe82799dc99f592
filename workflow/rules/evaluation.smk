# Tests against the gold: conclusions, accuracy with Clopper-Pearson intervals, agreement between the tests,
# multiple-testing corrections, and the paper-layout tables (with a note on any metric whose system scores
# correlate strongly negatively with the humans': check higher_is_better).


rule evaluate:
    input:
        tests_folder=rules.merge_tests.output.tests,
        gold=rules.human_gold.output.gold,
        gold_conclusions=rules.human_gold.output.conclusions,
    output:
        accuracy=RESULTS / "{experiment}" / "accuracy.tsv",
        agreement=RESULTS / "{experiment}" / "test_agreement.tsv",
        chi_square=RESULTS / "{experiment}" / "chi_square.tsv",
        conclusions=RESULTS / "{experiment}" / "test_conclusions.tsv",
        accuracy_manifest=manifest(RESULTS / "{experiment}" / "accuracy.tsv"),
        agreement_manifest=manifest(RESULTS / "{experiment}" / "test_agreement.tsv"),
        chi_square_manifest=manifest(RESULTS / "{experiment}" / "chi_square.tsv"),
    log:
        "logs/{experiment}/evaluate.log",
    conda:
        "../envs/mtsig.yaml"
    params:
        tests=experiment_tests,
        alphas=ALPHAS,
        corrections=as_block(SETTINGS.evaluation.corrections),
    script:
        "../scripts/step.py"


rule clusters:
    input:
        tests_folder=rules.merge_tests.output.tests,
        stats_folder=rules.metric_stats.output.stats,
        gold=rules.human_gold.output.gold,
        system_scores=rules.human_gold.output.system_scores,
    output:
        clusters=RESULTS / "{experiment}" / "clusters.tsv",
        latex=RESULTS / "{experiment}" / "clusters.tex",
        markdown=RESULTS / "tables" / "{experiment}.clusters.md",
        markdown_manifest=manifest(RESULTS / "tables" / "{experiment}.clusters.md"),
    log:
        "logs/{experiment}/clusters.log",
    conda:
        "../envs/mtsig.yaml"
    params:
        tests=experiment_tests,
        stats=stats_of,
        settings=as_block(SETTINGS.evaluation.clusters),
    script:
        "../scripts/step.py"


rule tables:
    input:
        accuracy=rules.evaluate.output.accuracy,
        chi_square=rules.evaluate.output.chi_square,
        agreement=rules.evaluate.output.agreement,
        stats_folder=rules.metric_stats.output.stats,
        system_scores=rules.human_gold.output.system_scores,
    output:
        md=RESULTS / "tables" / "{experiment}.md",
        html=report(
            RESULTS / "tables" / "{experiment}.html",
            caption="../report/table.rst",
            category="Tables",
            subcategory="{experiment}",
        ),
        tex=RESULTS / "tables" / "{experiment}.tex",
        csv=RESULTS / "tables" / "{experiment}.csv",
        md_manifest=manifest(RESULTS / "tables" / "{experiment}.md"),
    log:
        "logs/{experiment}/tables.log",
    wildcard_constraints:
        experiment=mtsig_config.one_of(OUTPUT_EXPERIMENTS),
    conda:
        "../envs/mtsig.yaml"
    params:
        stats=stats_of,
        description=lambda wildcards: experiment_spec(wildcards.experiment).description,
        metrics=lambda wildcards: metrics_of(wildcards.experiment),
        n_systems=lambda wildcards: len(experiment_spec(wildcards.experiment).systems),
        samples=as_block(SETTINGS.resampling.samples),
        seed=SETTINGS.resampling.seed,
        pvalue=SETTINGS.resampling.pvalue,
    script:
        "../scripts/step.py"


rule tables_index:
    input:
        tables=tables_index_inputs,
    output:
        index=RESULTS / "tables" / "README.md",
    log:
        "logs/tables_index.log",
    conda:
        "../envs/mtsig.yaml"
    params:
        rules=lambda wildcards: [rule for _, rule in tables_index_entries()],
    script:
        "../scripts/step.py"
