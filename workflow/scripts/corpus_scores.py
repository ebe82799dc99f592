"""Corpus scores of every system and metric, from the summed statistics."""

from mtsig.pipeline import corpus_scores_table
from mtsig.workflow import logged, write_tsv

with logged(snakemake.log[0]):
    write_tsv(corpus_scores_table(list(snakemake.input.stats)), snakemake.output.scores)
