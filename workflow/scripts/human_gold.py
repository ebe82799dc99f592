"""Human judgments -> standardised scores, quality control, the gold standard and its conclusions."""

from pathlib import Path

from mtsig.pipeline import build_human_gold
from mtsig.workflow import logged

with logged(snakemake.log[0]):
    build_human_gold(
        snakemake.params.spec,
        Path(snakemake.params.data_root),
        texts_dir=Path(snakemake.input.texts),
        alphas=snakemake.params.alphas,
        outputs=dict(snakemake.output.items()),
    )
