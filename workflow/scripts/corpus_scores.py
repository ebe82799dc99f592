"""Corpus scores of every system and metric, from the summed statistics."""

from mtsig.steps.files import logged
from mtsig.steps.metrics import corpus_scores

with logged(snakemake.log[0]):
    corpus_scores(list(snakemake.input.stats), snakemake.output.scores)
