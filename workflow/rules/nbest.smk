# n-best list evaluation (Bremerman, Khayrallah, Oard & Post 2020) on the STAPLE gold: MAP, weighted F1,
# x-best y-reference BLEU, preference correlation and the ablation of incomplete gold.


rule nbest:
    input:
        data=nbest_inputs,
    output:
        systems=RESULTS / "{experiment}" / "systems.tsv",
        ablation=RESULTS / "{experiment}" / "ablation.tsv",
        bleu_grid=RESULTS / "{experiment}" / "bleu_grid.tsv",
        md=RESULTS / "tables" / "{experiment}.md",
        html=report(
            RESULTS / "tables" / "{experiment}.html",
            caption="../report/nbest.rst",
            category="n-best lists",
        ),
        md_manifest=manifest(RESULTS / "tables" / "{experiment}.md"),
        figures=report(
            directory(RESULTS / "figures" / "{experiment}"),
            patterns=["{name}.png"],
            caption="../report/nbest.rst",
            category="n-best lists",
        ),
    log:
        "logs/{experiment}/nbest.log",
    wildcard_constraints:
        experiment=mtsig_config.one_of(RUN["nbest"]),
    conda:
        "../envs/mtsig.yaml"
    resources:
        mem_mb=2000,
    params:
        spec=lambda wildcards: config["nbest"][wildcards.experiment],
        data_root=DATA_ROOT,
        seed=SETTINGS.resampling.seed,
    script:
        "../scripts/step.py"
