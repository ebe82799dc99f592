"""Conclusions of every metric x test against the gold: accuracy with Clopper-Pearson intervals, chi-square,
agreement between tests, and the multiple-testing corrections."""

from mtsig.steps.evaluation import evaluate
from mtsig.steps.files import logged

with logged(snakemake.log[0]):
    evaluate(
        tests_paths=list(snakemake.input.tests),
        gold_path=snakemake.input.gold,
        gold_conclusions_path=snakemake.input.gold_conclusions,
        alphas=snakemake.params.alphas,
        corrections=snakemake.params.corrections,
        outputs=dict(snakemake.output.items()),
    )
