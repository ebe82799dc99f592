# Tests against the gold: conclusions, accuracy with Clopper-Pearson intervals, agreement between the tests,
# multiple-testing corrections, and the paper-layout tables.


rule evaluate:
    input:
        tests=experiment_tests,
        gold=RESULTS / "{experiment}" / "gold.tsv",
        gold_conclusions=RESULTS / "{experiment}" / "gold_conclusions.tsv",
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
    benchmark:
        "logs/{experiment}/evaluate.benchmark.tsv"
    conda:
        "../../environment.yml"
    params:
        metrics=lambda wildcards: metrics_of(wildcards.experiment),
        alphas=ALPHAS,
        corrections=config["evaluation"]["corrections"],
    script:
        "../scripts/evaluate.py"


rule tables:
    input:
        accuracy=RESULTS / "{experiment}" / "accuracy.tsv",
        chi_square=RESULTS / "{experiment}" / "chi_square.tsv",
        agreement=RESULTS / "{experiment}" / "test_agreement.tsv",
    output:
        md=report(
            RESULTS / "tables" / "{experiment}.md",
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
        "../../environment.yml"
    params:
        spec=lambda wildcards: experiment_spec(wildcards.experiment),
        resampling=config["resampling"],
    script:
        "../scripts/tables.py"


rule tables_index:
    input:
        tables_index_inputs,
    output:
        RESULTS / "tables" / "README.md",
    log:
        "logs/tables_index.log",
    conda:
        "../../environment.yml"
    params:
        rules=[rule for _, rule in tables_index_entries()],
    script:
        "../scripts/tables_index.py"
