# Are WMT's human rankings right? Human ratings of MT systems ranked by every procedure of the registry
# (mtsig.stats.system_ranking: the WMT24-26 organisers' and mtsig's), per language pair: rankings, clusters,
# p-values, where the procedures disagree, the raters' quality control, and which systems could be first
# (confidence sets for ranks, mtsig.stats.rank_sets) (config/wmt24-esa.yaml). One job per experiment (a few CPU
# seconds: the procedures and the rank sets are vectorised over pairs and resamples), then its report page.


rule human_ranking:
    input:
        ratings=human_ranking_ratings,
        documents=human_ranking_documents,
    output:
        ranking=RESULTS / "{experiment}" / "ranking.tsv",
        pvalues=RESULTS / "{experiment}" / "ranking_pvalues.tsv",
        disagreement=RESULTS / "{experiment}" / "disagreement.tsv",
        disagreeing_pairs=RESULTS / "{experiment}" / "disagreeing_pairs.tsv",
        qc=RESULTS / "{experiment}" / "qc.tsv",
        filtering=RESULTS / "{experiment}" / "filtering.tsv",
        notes=RESULTS / "{experiment}" / "notes.tsv",
        rank_sets=RESULTS / "{experiment}" / "rank_sets.tsv",
        ranking_manifest=manifest(RESULTS / "{experiment}" / "ranking.tsv"),
        pvalues_manifest=manifest(RESULTS / "{experiment}" / "ranking_pvalues.tsv"),
        disagreement_manifest=manifest(RESULTS / "{experiment}" / "disagreement.tsv"),
        disagreeing_pairs_manifest=manifest(
            RESULTS / "{experiment}" / "disagreeing_pairs.tsv"
        ),
        qc_manifest=manifest(RESULTS / "{experiment}" / "qc.tsv"),
        filtering_manifest=manifest(RESULTS / "{experiment}" / "filtering.tsv"),
        notes_manifest=manifest(RESULTS / "{experiment}" / "notes.tsv"),
        rank_sets_manifest=manifest(RESULTS / "{experiment}" / "rank_sets.tsv"),
    log:
        "logs/{experiment}/human_ranking.log",
    wildcard_constraints:
        experiment=mtsig_config.one_of(RUN["human_ranking"]),
    conda:
        "../envs/mtsig.yaml"
    resources:
        mem_mb=1500,  # above the peak of WMT24's four pairs (WMT26's bootstraps of every ordered pair)
    params:
        spec=lambda wildcards: {
            key: value
            for key, value in config["human_ranking"][wildcards.experiment].items()
            if key != "description"
        },
        data_root=DATA_ROOT,
        seed=SETTINGS.resampling.seed,
    script:
        "../scripts/step.py"


# The page of results/tables/: every language pair's rankings side by side, the disagreement matrices, which systems
# could be first (with the figure of the rank sets, results/figures/{experiment}/rank_sets.png) and the QC summary. `calibration` is the hook of the procedures' error rates with known truth: results/{experiment}/
# calibration.tsv when a rule writes it (human_ranking_calibration_table), shown in its own section.
rule human_ranking_table:
    input:
        ranking=rules.human_ranking.output.ranking,
        pvalues=rules.human_ranking.output.pvalues,
        disagreement=rules.human_ranking.output.disagreement,
        qc=rules.human_ranking.output.qc,
        notes=rules.human_ranking.output.notes,
        rank_sets=rules.human_ranking.output.rank_sets,
        calibration=human_ranking_calibration_table,
    output:
        **pdf_output(RESULTS / "figures" / "{experiment}" / "rank_sets.pdf"),
        png=report(
            RESULTS / "figures" / "{experiment}" / "rank_sets.png",
            caption="../report/rank_sets.rst",
            category="Human rankings",
        ),
        md=RESULTS / "tables" / "{experiment}.md",
        html=report(
            RESULTS / "tables" / "{experiment}.html",
            caption="../report/human_ranking.rst",
            category="Human rankings",
        ),
        md_manifest=manifest(RESULTS / "tables" / "{experiment}.md"),
    log:
        "logs/{experiment}/human_ranking_table.log",
    wildcard_constraints:
        experiment=mtsig_config.one_of(RUN["human_ranking"]),
    conda:
        "../envs/mtsig.yaml"
    params:
        description=lambda wildcards: config["human_ranking"][
            wildcards.experiment
        ].get("description"),
    script:
        "../scripts/step.py"


# The study's jobs in the run and its table in the index (common.smk, add_named_study).
add_named_study(
    RUN["human_ranking"],
    [rules.human_ranking, rules.human_ranking_table],
    rules.human_ranking_table.output.md,
    "human_ranking_table",
)
