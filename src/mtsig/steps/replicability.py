"""Step of ``workflow/rules/replicability.smk``: partial conjunction tests over the run's experiments and over the
WMT20 language pairs (:mod:`mtsig.studies.replicability`)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from mtsig.steps.common import read_gold_table
from mtsig.steps.files import read_tsv, write_text, write_tsv

log = logging.getLogger("mtsig")


def replicability(
    test_conclusions: Sequence[str | Path],
    gold_conclusions: Sequence[str | Path],
    williams: Sequence[str | Path],
    tests: str | Path,
    tests_partial_conjunction: str | Path,
    metrics: str | Path,
    md: str | Path,
    *,
    experiments: Sequence[str],
    language_pairs: Sequence[str],
    alpha: float,
) -> None:
    """Is one test more accurate than another in at least k of the experiments (``test_conclusions`` and
    ``gold_conclusions``, one of each per experiment, in the order of ``experiments``)? Does metric A beat metric
    B in at least k of the ``language_pairs`` of ``williams`` (the metrics task's Williams tests; none: no rows)?"""
    import pandas as pd

    from mtsig.report.replicability import replicability_markdown
    from mtsig.stats.evaluation import GOLD_CONCLUSION_COLUMNS
    from mtsig.studies.replicability import metrics_replicability, tests_replicability

    tables = {
        name: (read_tsv(t), read_gold_table(g, ("gold", *GOLD_CONCLUSION_COLUMNS)))
        for name, t, g in zip(experiments, test_conclusions, gold_conclusions, strict=True)
    }
    per_set, combined = tests_replicability(tables, alpha)
    by_metric = (
        metrics_replicability(pd.concat([read_tsv(path) for path in williams]), language_pairs, alpha)
        if williams
        else pd.DataFrame()
    )
    for row in per_set.itertuples(index=False):
        log.info(
            "%s in %s: %d vs %d, p = %.4g",
            row.comparison,
            row.experiment,
            row.only_a,
            row.only_b,
            row.p_value,
        )
    write_tsv(per_set, tests)
    write_tsv(combined, tests_partial_conjunction)
    write_tsv(by_metric, metrics)
    write_text(replicability_markdown(per_set, combined, by_metric, alpha), md)
