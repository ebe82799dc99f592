"""Steps of ``workflow/rules/figures.smk``: the paper's Figs. 5-8."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from mtsig.errors import InputError
from mtsig.stats.resampling.registry import PAPER_TESTS
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
    from mtsig.report import plots

    distributions_dirs, tests_paths, gold_path, system_scores_path = distributions, tests, gold, system_scores
    tests = list(test_names)
    folders = {".png": Path(png), **({".pdf": Path(pdf)} if pdf else {})}
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)

    def outs(name: str) -> list[Path]:
        return [folder / f"{name}{suffix}" for suffix, folder in folders.items()]

    systems = systems_by_human_score(read_gold_table(system_scores_path, ("system", "criterion", "mean_z")))
    for directory in map(Path, distributions_dirs):
        metric = directory.name
        for manifest in sorted(directory.glob("*.npz" + MANIFEST_SUFFIX)):
            data = manifest.with_name(manifest.name.removesuffix(MANIFEST_SUFFIX))
            if not data.is_file():  # a distribution file deleted since: the directory is incomplete
                raise InputError(
                    "intermediate file is missing; " + regenerate_hint(data, "merge_tests", directory), data
                )
        for path in sorted(directory.glob("*.npz")):
            arrays = load_intermediate_arrays(path, "merge_tests", required=("actual",), target=directory)
            x, y = path.stem.split("__")
            shown = [t for t in PAPER_TESTS if t in arrays]  # Figs. 5-6 show the paper's three tests
            plots.pseudo_statistic_distributions(
                {t: arrays[t] for t in shown},
                float(arrays["actual"]),
                shown,
                f"{metric.upper()}: {x} vs {y}",
                outs(f"distributions_{metric.lower()}_{x}__{y}"),
                statistic_label=f"{metric.upper()} difference",
            )
    gold_p = read_gold_table(gold_path, ("gold", "criterion", "sys_x", "sys_y", "p_value"))
    for gold in dict.fromkeys(gold_p["gold"]):
        rows = gold_p[gold_p["gold"] == gold]
        criteria = list(dict.fromkeys(rows["criterion"]))
        matrices = {c: plots.p_matrix_from_gold(rows, systems, alpha, [c]) for c in criteria}
        if len(criteria) > 1:
            matrices["combined"] = plots.p_matrix_from_gold(rows, systems, alpha, criteria)
        plots.significance_heatmap_grid(
            matrices, systems, alpha, f"Human gold ({gold})", outs(f"human_{gold}")
        )
    for path in tests_paths:
        metric = metric_name_of(path)
        table = read_tests_table(path)
        in_table = set(table["test"])
        present = [t for t in tests if t in in_table]
        matrices = {t: plots.p_matrix_from_tests(table, t, systems) for t in present}
        title = "Randomized tests: row system significantly better than column system"
        # lower case: the report links every figure by its file name, case-insensitively (docutils), so TER's
        # grid in one experiment and ter's in another must have the same name, not two that collide
        plots.significance_heatmap_grid(
            matrices, systems, alpha, title, outs(f"tests_{metric.lower()}"), metric
        )
