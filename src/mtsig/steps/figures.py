"""Steps of ``workflow/rules/figures.smk``: the paper's Figs. 5-8."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.steps.common import read_gold_table, read_tests_table
from mtsig.steps.files import (
    MANIFEST_SUFFIX,
    load_intermediate_arrays,
    metric_name_of,
    regenerate_hint,
)

log = logging.getLogger("mtsig")


def systems_by_human_score(system_scores: pd.DataFrame) -> list[str]:
    """Systems ordered best first by the human score of the first criterion (Fig. 7's order)."""
    first = system_scores[system_scores["criterion"] == system_scores["criterion"].iloc[0]]
    return list(first.sort_values("mean_z", ascending=False, kind="stable")["system"])


def figures(
    *,
    distributions: Sequence[str | Path],
    tests: Sequence[str | Path],
    gold: str | Path,
    system_scores: str | Path,
    test_names: Sequence[str],
    alpha: float,
    png: str | Path,
    pdf: str | Path | None = None,
) -> None:
    """Figs. 5-6 (pseudo-statistic distributions of the kept pairs), Fig. 7 (human significance heatmaps per
    criterion and combined, for every gold) and Fig. 8 (every metric x test) as PNG, and as PDF too when ``pdf``
    (a folder) is given (config ``figures.pdf``)."""
    from mtsig.report.plots import experiment_figures

    folders = {".png": Path(png), **({".pdf": Path(pdf)} if pdf else {})}
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    drawn = experiment_figures(
        {Path(directory).name: kept_distributions(Path(directory)) for directory in distributions},
        read_gold_table(gold, ("gold", "criterion", "sys_x", "sys_y", "p_value")),
        {metric_name_of(path): read_tests_table(path) for path in tests},
        systems_by_human_score(read_gold_table(system_scores, ("system", "criterion", "mean_z"))),
        test_names,
        alpha,
        folders,
    )
    log.info("%d figures", len(drawn))


def kept_distributions(directory: Path) -> dict[str, dict[str, np.ndarray]]:
    """``"x__y"`` -> test or ``actual`` -> values of every kept pair of one metric (``distributions/{metric}/``),
    in file-name order; a distribution file whose manifest is left but which is gone is an error."""
    for manifest in sorted(directory.glob("*.npz" + MANIFEST_SUFFIX)):
        data = manifest.with_name(manifest.name.removesuffix(MANIFEST_SUFFIX))
        if not data.is_file():  # a distribution file deleted since: the directory is incomplete
            raise InputError(
                "intermediate file is missing; " + regenerate_hint(data, "merge_tests", None), data
            )
    return {
        path.stem: load_intermediate_arrays(path, "merge_tests", required=("actual",))
        for path in sorted(directory.glob("*.npz"))
    }
