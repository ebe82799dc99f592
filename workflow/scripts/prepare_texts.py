"""Prepared texts of one experiment: validated, HTML-unescaped if configured, plus segment document ids."""

from pathlib import Path

from mtsig.pipeline import prepare_experiment_texts
from mtsig.workflow import logged

with logged(snakemake.log[0]):
    prepare_experiment_texts(
        snakemake.params.spec,
        Path(snakemake.params.data_root),
        texts_dir=Path(snakemake.output.texts),
        documents_path=Path(snakemake.output.documents),
    )
