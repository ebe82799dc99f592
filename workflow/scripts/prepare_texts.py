"""Prepared texts of one experiment: validated, HTML-unescaped if configured, plus segment document ids."""

from pathlib import Path

from mtsig.steps.data import prepare_texts
from mtsig.steps.files import logged

with logged(snakemake.log[0]):
    prepare_texts(
        snakemake.params.spec,
        Path(snakemake.params.data_root),
        texts_dir=Path(snakemake.output.texts),
        documents_path=Path(snakemake.output.documents),
    )
