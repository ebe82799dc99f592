"""n-best list evaluation on the STAPLE gold: systems table, ablation, BLEU grid, figures."""

from pathlib import Path

from mtsig.steps.files import logged
from mtsig.steps.nbest import nbest

with logged(snakemake.log[0]):
    nbest(
        snakemake.params.spec,
        Path(snakemake.params.data_root),
        seed=snakemake.params.seed,
        outputs=dict(snakemake.output.items()),
    )
