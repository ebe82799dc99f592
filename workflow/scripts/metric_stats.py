"""Per-segment sufficient statistics of one metric for every system of one experiment."""

from pathlib import Path

from mtsig.pipeline import compute_metric_stats
from mtsig.workflow import logged

if __name__ == "__main__":  # the metric's process pool (spawn) re-imports this module in its workers
    with logged(snakemake.log[0]):
        compute_metric_stats(
            snakemake.params.spec,
            snakemake.wildcards.metric,
            Path(snakemake.input.texts),
            Path(snakemake.output.stats),
            processes=snakemake.threads,
        )
