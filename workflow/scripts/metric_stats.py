"""Per-segment sufficient statistics of one metric for every system of one experiment."""

from pathlib import Path

from mtsig.steps.files import logged
from mtsig.steps.metrics import metric_stats

if __name__ == "__main__":  # the metric's process pool (spawn) re-imports this module in its workers
    with logged(snakemake.log[0]):
        metric_stats(
            snakemake.params.spec,
            snakemake.wildcards.metric,
            Path(snakemake.input.texts),
            Path(snakemake.output.stats),
            processes=snakemake.threads,
        )
