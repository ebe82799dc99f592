"""Human judgments -> standardised scores, quality control, the gold standard and its conclusions."""

from pathlib import Path

from mtsig.steps.files import logged
from mtsig.steps.human import human_gold

with logged(snakemake.log[0]):
    human_gold(
        snakemake.params.spec,
        Path(snakemake.params.data_root),
        texts_dir=Path(snakemake.input.texts),
        alphas=snakemake.params.alphas,
        outputs=dict(snakemake.output.items()),
    )
