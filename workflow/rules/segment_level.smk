# Segment-level meta-evaluation with the RankEval measures (Avramidis 2013): how well each metric ranks the
# translations of one source sentence the way human judges did.


rule segment_level:
    input:
        jcml=jcml_input,
        rankings=wmt_only(human_inputs),
        texts=wmt_only(
            lambda wildcards: experiment_output(
                rules.prepare_texts.output.texts, wildcards
            )
        ),
        stats_folder=wmt_only(
            lambda wildcards: experiment_output(
                rules.metric_stats.output.stats, wildcards
            )
        ),
        predicted=predicted_inputs,
    output:
        table=RESULTS / "{experiment}" / "segment_level.tsv",
        md=RESULTS / "tables" / "{experiment}.segment_level.md",
        html=report(
            RESULTS / "tables" / "{experiment}.segment_level.html",
            caption="../report/segment_level.rst",
            category="Segment level",
        ),
        md_manifest=manifest(RESULTS / "tables" / "{experiment}.segment_level.md"),
    log:
        "logs/{experiment}/segment_level.log",
    wildcard_constraints:
        experiment=mtsig_config.one_of(segment_level_names()),
    conda:
        "../envs/mtsig.yaml"
    resources:
        mem_mb=2000,
    params:
        stats=wmt_only(stats_of),
        languages=ranking_languages,
        seed=SETTINGS.resampling.seed,
        bootstrap_samples=SETTINGS.segment_level.bootstrap_samples,
        convention=SETTINGS.segment_level.convention,
        predicted_rankings=lambda wildcards, input: dict(
            zip(
                predicted_ranking_names(wildcards.experiment),
                input.predicted,
                strict=True,
            )
        ),
    script:
        "../scripts/step.py"
