"""Steps of ``workflow/rules/calibration.smk``: Type I error and power by simulation, and the paper's Section 2 in
numbers."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.stats.resampling.registry import samples_per_test
from mtsig.stats.seeding import derive_seed
from mtsig.steps.common import check_same_systems, load_scored_stats, read_gold_table, read_segment_documents
from mtsig.steps.files import (
    metric_name_of,
    regenerate_hint,
    write_markdown,
    write_tsv,
)

log = logging.getLogger("mtsig")


def stats_by_metric(stats_paths: Sequence[str | Path]) -> tuple[dict[str, tuple], list[str]]:
    """metric -> (stats, score function, higher_is_better), and the system names (equal across metrics)."""
    by_metric, systems, first = {}, None, None
    for path in stats_paths:
        stats, names, _, scorer = load_scored_stats(path)
        if systems is not None:
            check_same_systems(systems, names, path, first, "metric_stats")
            n_segments = next(iter(by_metric.values()))[0].shape[1]
            if stats.shape[1] != n_segments:
                raise InputError(
                    f"{stats.shape[1]} segments where {first} has {n_segments}: one of them is stale; "
                    + regenerate_hint(path, "metric_stats", None),
                    path,
                )
        by_metric[metric_name_of(path)] = (stats, scorer.score, scorer.higher_is_better)
        systems, first = names, first or path
    return by_metric, list(systems or [])


def calibration(
    *,
    stats: Sequence[str | Path],
    gold_conclusions: str | Path,
    documents: str | Path,
    experiment: str,
    null_pairs: int,
    samples: int,
    alphas: Sequence[float],
    q: Sequence[float],
    swap_units: Sequence[str],
    alternatives_per_q: int,
    planted_alpha: float,
    figure_alpha: float,
    seed: int,
    pvalue: str,
    mean_block_length: float,
    memory_cap_mb: int,
    tests: Sequence[str],
    table: str | Path,
    png: str | Path,
    pdf: str | Path | None = None,
) -> None:
    """Type I error and power of every test and metric (mtsig.studies.calibration), for each configured swap unit;
    the figure as PNG, and as PDF too when ``pdf`` is given (config ``figures.pdf``). The settings are the fields
    of :class:`mtsig.settings.Calibration` and ``seed``, ``pvalue``, ``mean_block_length``, ``memory_cap_mb`` of
    :class:`mtsig.settings.Resampling`.

    The planted pair is the one the primary gold calls significantly different with the largest BLEU (or first
    metric) difference in the same direction: "X clearly better than Y by human gold and metric".
    """
    from mtsig.report.calibration_plots import plot_calibration
    from mtsig.report.plots import FIGURE_DPI, save_figure
    from mtsig.stats.evaluation import GOLD_CONCLUSION_COLUMNS
    from mtsig.studies.calibration import experiment_calibration

    if not any(np.isclose(figure_alpha, alphas)):
        raise InputError(
            f"calibration.figure_alpha {figure_alpha} is not one of calibration.alphas {list(alphas)}"
        )
    by_metric, systems = stats_by_metric(stats)
    result = experiment_calibration(
        by_metric,
        systems,
        read_gold_table(gold_conclusions, ("gold", *GOLD_CONCLUSION_COLUMNS)),
        read_segment_documents(documents, next(iter(by_metric.values()))[0].shape[1]),
        experiment=experiment,
        null_pairs=null_pairs,
        q_values=q,
        alternatives_per_q=alternatives_per_q,
        alphas=alphas,
        planted_alpha=planted_alpha,
        swap_units=swap_units,
        tests=tests,
        n_samples=samples,
        seed=seed,
        pvalue=pvalue,
        mean_block_length=mean_block_length,
        memory_cap_bytes=memory_cap_mb * 2**20,
    )
    log.info("planted pair: %s better than %s (by gold and %s)", *result.planted, result.chooser)
    for unit in result.skipped_units:
        log.info("no document ids: skipping %s swaps", unit)
    write_tsv(result.table, table)
    figure = plot_calibration(
        result.table[result.table["swap_unit"] == result.table["swap_unit"].iloc[0]], alpha=figure_alpha
    )
    # bbox "tight" keeps the legend, which sits to the right of the panels
    save_figure(figure, [png, *([pdf] if pdf else [])], bbox_inches="tight", dpi=FIGURE_DPI)


def power(
    *,
    experiment: str,
    stats: str | Path | Sequence[str | Path],
    test: str,
    alpha: float,
    trials: int,
    samples: int,
    q: Sequence[float],
    target_power: float,
    seed: int,
    pvalue: str,
    memory_cap_mb: int,
    table: str | Path,
    png: str | Path,
) -> None:
    """``power.tsv`` and the power-vs-segments figure of an experiment: the power of ``power.test`` for its two
    best systems by ``power.metric`` at every test-set size of :func:`mtsig.studies.power.default_sizes` and keep
    probability ``power.q``, with the minimum detectable difference per size (:func:`mtsig.studies.power.
    experiment_power`); seeded by the config seed and (experiment, "power"). The settings are the fields of
    :class:`mtsig.settings.Power` that change the table (not ``experiments``, nor ``metric``, which chooses the
    input) and ``seed``, ``pvalue``, ``memory_cap_mb`` of :class:`mtsig.settings.Resampling`."""
    from mtsig.report.power import plot_power_curve
    from mtsig.report.signature import signature
    from mtsig.studies.power import PowerSimulation, experiment_power

    stats_path = stats if isinstance(stats, str | Path) else stats[0]  # one file: power.metric's statistics
    metric_stats, systems, details, scorer = load_scored_stats(stats_path)
    power_seed = derive_seed(seed, experiment, "power")
    simulation = PowerSimulation(
        test=test, alpha=alpha, trials=trials, n_samples=samples, seed=power_seed, metric=metric_name_of(stats_path),
        pvalue=pvalue, memory_cap_bytes=memory_cap_mb * 2**20,
    )  # fmt: skip
    power_table = experiment_power(
        metric_stats, systems, scorer.score, scorer.higher_is_better, target_power=target_power, q_grid=list(q),
        simulation=simulation,
    )  # fmt: skip
    power_table["signature"] = signature(
        metric_details=details, test=test, n_samples=samples, seed=power_seed, pvalue=pvalue, alpha=alpha
    )
    write_tsv(power_table, table)
    plot_power_curve(power_table, png, target_power=target_power)
    log_power(experiment, power_table, details)


def log_power(experiment: str, power_table: pd.DataFrame, details: str) -> None:
    """Log the pair and the minimum detectable difference at the full test set's size."""
    full = power_table[power_table["n_segments"] == power_table["n_segments"].max()]
    log.info(
        "%s: %s vs %s (%s), minimum detectable difference at %d segments: %.4g",
        experiment,
        full["sys_x"].iloc[0],
        full["sys_y"].iloc[0],
        details,
        int(full["n_segments"].iloc[0]),
        float(full["minimum_detectable_difference"].iloc[0]),
    )


def section2(
    *,
    stats: Sequence[str | Path],
    experiment: str,
    section2_pairs: int,
    samples: int | Mapping[str, int],
    seed: int,
    memory_cap_mb: int,
    table: str | Path,
    md: str | Path,
    html: str | Path,
) -> None:
    """The paper's Section 2 in numbers for every metric: R&M bootstrap vs R&M AR on the ``section2_pairs``
    closest pairs (``calibration.section2_pairs``), with the R&M bootstrap's ``resampling.samples``."""
    from mtsig.report.tables import section2_markdown
    from mtsig.studies.calibration import section2_table

    stats_paths, table_path = stats, table
    by_metric, systems = stats_by_metric(stats_paths)
    frames = []
    for metric, (stats, score, higher) in by_metric.items():
        table = section2_table(
            stats,
            score,
            systems,
            higher_is_better=higher,
            n_closest=section2_pairs,
            n_samples=samples_per_test(samples, ["rm_bootstrap"])["rm_bootstrap"],
            seed=derive_seed(seed, experiment, metric, "section2"),
            memory_cap_bytes=memory_cap_mb * 2**20,
        )
        frames.append(table.assign(metric=metric))
    table = pd.concat(frames, ignore_index=True)
    table = table[["metric", *[c for c in table.columns if c != "metric"]]]
    write_tsv(table, table_path)
    write_markdown(section2_markdown(experiment, table, section2_pairs), md, html, made_by="section2")
