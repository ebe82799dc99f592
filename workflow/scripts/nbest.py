"""n-best list evaluation on the STAPLE gold: systems table, ablation, BLEU grid, figures."""

from pathlib import Path

from mtsig.pipeline import nbest_experiment
from mtsig.workflow import logged

with logged(snakemake.log[0]):
    nbest_experiment(
        snakemake.params.spec,
        Path(snakemake.params.data_root),
        seed=snakemake.params.seed,
        outputs=dict(snakemake.output.items()),
    )
