"""Steps of ``workflow/rules/significance.smk``: the randomized tests of one shard of an experiment's pairs, and the
merge of the shards."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.settings import Resampling, build
from mtsig.stats.intervals import confidence_level
from mtsig.stats.resampling.registry import samples_per_test
from mtsig.stats.seeding import derive_seed
from mtsig.steps.common import check_same_systems, load_scored_stats, read_segment_documents
from mtsig.steps.files import (
    load_intermediate_arrays,
    metric_name_of,
    per_metric_path,
    read_intermediate_tsv,
    regenerate_hint,
    save_intermediate_arrays,
    verify_intermediate,
    write_tsv,
)

log = logging.getLogger("mtsig")

#: Columns of ``intervals/{metric}.tsv`` (:attr:`mtsig.stats.resampling.PairwiseResult.intervals`).
PAIR_INTERVAL_COLUMNS = ("sys_x", "sys_y", "method", "level", "statistic", "ci_low", "ci_high")
#: Columns of ``intervals/{metric}.systems.tsv`` (:attr:`~mtsig.stats.resampling.PairwiseResult.system_intervals`).
SYSTEM_INTERVAL_COLUMNS = ("system", "method", "level", "score", "ci_low", "ci_high")


@dataclass(frozen=True)
class TestsShard:
    """One shard's tests table, pair and system intervals, kept distributions (``"x__y"`` -> test or ``actual``
    -> values) and the settings they were made with (:func:`resampling_settings` plus signatures and shard)."""

    table: pd.DataFrame
    intervals: pd.DataFrame
    system_intervals: pd.DataFrame
    distributions: dict[str, dict[str, np.ndarray]]
    settings: dict[str, Any]


#: Settings that differ between the shards of one (experiment, metric); a merged table records the others.
SHARD_SETTINGS = ("shard", "n_shards")


def tests_shard(
    stats_path: str | Path,
    selection_path: str | Path,
    documents_path: str | Path,
    experiment: str,
    metric: str,
    shard: int,
    n_shards: int,
    test_names: Sequence[str],
    resampling: Resampling,
) -> TestsShard:
    """Every configured test for one shard of the pairs of one (experiment, metric), and the percentile and BCa
    intervals of every pair's difference and every system's score (:func:`mtsig.studies.significance.shard_tests`).

    The seed is derived from the config seed and (experiment, metric), so each metric's draws are independent
    and the same whatever the sharding (the engine's draws do not depend on which pairs are computed). The
    signature of each test (:mod:`mtsig.report.signature`) is part of the settings.
    """
    from mtsig.report.signature import result_signatures
    from mtsig.studies.significance import shard_tests

    stats, systems, _, scorer = load_scored_stats(stats_path)
    result = shard_tests(
        stats,
        scorer.score,
        systems,
        selection_scores(selection_path, systems, stats_path, stats.shape[1]),
        read_segment_documents(documents_path, stats.shape[1]),
        higher_is_better=scorer.higher_is_better,
        tests=test_names,
        resampling=resampling,
        seed=derive_seed(resampling.seed, experiment, metric),
        shard=shard,
        n_shards=n_shards,
    )
    settings = resampling_settings(experiment, metric, test_names, resampling, systems) | {
        "signatures": result_signatures(scorer.details(), result.engine_settings),
        "shard": shard,
        "n_shards": n_shards,
    }
    log.info(
        "%s/%s shard %d/%d: %d pairs, %d rows",
        experiment,
        metric,
        shard,
        n_shards,
        result.n_pairs,
        len(result.table),
    )
    return TestsShard(result.table, result.intervals, result.system_intervals, result.distributions, settings)


def selection_scores(
    selection_path: str | Path, systems: Sequence[str], stats_path: str | Path, n_segments: int
) -> np.ndarray:
    """The selection metric's corpus scores (higher is better: TER negated) of ``systems``, which choose the pairs
    whose distributions are kept; its statistics must be of the same systems and segments as ``stats_path``'s."""
    selection_stats, selection_systems, _, selection_scorer = load_scored_stats(selection_path)
    check_same_systems(systems, selection_systems, selection_path, stats_path, "metric_stats")
    if selection_stats.shape[1] != n_segments:
        raise InputError(
            f"{selection_stats.shape[1]} segments where {stats_path} has {n_segments}; "
            + regenerate_hint(selection_path, "metric_stats", None),
            selection_path,
        )
    scores = selection_scorer.score(selection_stats.sum(axis=1))
    return -scores if metric_name_of(selection_path) == "ter" else scores


def resample_tests(
    *,
    stats: str | Path,
    selection: str | Path,
    documents: str | Path,
    experiment: str,
    metric: str,
    shard: int | str,
    test_names: Sequence[str],
    resampling: Resampling | Mapping[str, Any],
    shard_tests: str | Path,
    shard_distributions: str | Path,
    shard_intervals: str | Path,
    shard_system_intervals: str | Path,
) -> None:
    """One shard of the pairs (``resampling.pair_shards`` > 1): :func:`tests_shard`, written for
    :func:`merge_tests`, each test's signature and the shard in the manifests' settings. ``resampling``: the
    validated block (:class:`mtsig.settings.Resampling`), whose engine settings the job receives as resources
    (:func:`mtsig.steps.engine_params`)."""
    resampling = build(Resampling, resampling)
    result = tests_shard(
        stats,
        selection,
        documents,
        experiment,
        metric,
        int(shard),
        resampling.pair_shards,
        test_names,
        resampling,
    )
    made = {"made_by": "resample_tests", "settings": result.settings}
    write_tsv(result.table, shard_tests, **made)
    write_tsv(result.intervals, shard_intervals, **made)
    write_tsv(result.system_intervals, shard_system_intervals, **made)
    arrays = {
        f"{pair}__{test}": values
        for pair, by_test in result.distributions.items()
        for test, values in by_test.items()
    }
    save_intermediate_arrays(shard_distributions, arrays, **made)


def training_runs(
    *,
    reference: str | Sequence[str],
    run_files: Mapping[str, Sequence[str]],
    unescape_html: bool,
    meteor_language: str,
    data_root: str | Path,
    experiment: str,
    metrics: Sequence[str],
    samples: int | Mapping[str, int],
    seed: int,
    pairs: str | Path,
    systems: str | Path,
) -> None:
    """Several training runs per system (the experiment's ``training_runs``, ``run_files``: name -> run files, the
    rule's input ``runs`` too), scored against its
    ``reference`` file(s), with its ``unescape_html`` and METEOR language), compared per metric by
    :func:`mtsig.stats.training_runs.compare_training_runs` (the run-aware test and MultEval's stratified
    randomization, Clark et al. 2011) with B = R = the paired bootstrap's samples (of ``resampling.samples``) and
    a seed derived from the config seed and (experiment, metric, "training_runs"): ``training_runs.tsv`` (pairs)
    and ``training_runs.systems.tsv`` (run means, s_dev, s_sel, s_opt), one block of rows per metric."""
    from mtsig.pipeline import config as mtsig_config
    from mtsig.stats.training_runs import compare_training_runs, score_run_files

    groups = {
        name: [mtsig_config.data_path(data_root, path) for path in paths] for name, paths in run_files.items()
    }
    references = [reference] if isinstance(reference, str) else list(reference)
    scored = score_run_files(
        [mtsig_config.data_path(data_root, path) for path in references],
        groups,
        metrics,
        unescape=unescape_html,
        language=meteor_language,
    )
    n_samples = samples_per_test(samples, ["paired_bootstrap"])["paired_bootstrap"]
    pair_tables, system_tables = [], []
    for (metric, by_system), name in zip(scored, metrics, strict=True):
        result = compare_training_runs(
            by_system,
            metric.score,
            higher_is_better=metric.higher_is_better,
            n_samples=n_samples,
            seed=derive_seed(seed, experiment, name, "training_runs"),
            metric=name,
        )
        pair_tables.append(result.pairs)
        system_tables.append(result.systems)
        log.info("%s: %s", name, metric.details())
    write_tsv(pd.concat(pair_tables, ignore_index=True), pairs)
    write_tsv(pd.concat(system_tables, ignore_index=True), systems)


def resampling_settings(
    experiment: str,
    metric: str,
    tests: Sequence[str],
    resampling: Resampling,
    systems: Sequence[str],
) -> dict[str, Any]:
    """What a tests table was made with, recorded in its manifest: merged shards must agree on all of it."""
    return {
        "experiment": experiment,
        "metric": metric,
        "systems": list(systems),
        "tests": list(tests),
        "samples": samples_per_test(resampling.samples, tests),
        "seed": resampling.seed,
        "pvalue": resampling.pvalue,
        "confidence": confidence_level(resampling.confidence),
    }


def merge_tests(
    shard_tests: Sequence[str | Path] = (),
    shard_distributions: Sequence[str | Path] = (),
    shard_intervals: Sequence[str | Path] = (),
    shard_system_intervals: Sequence[str | Path] = (),
    *,
    metrics: Sequence[str],
    tests: str | Path,
    distributions: str | Path,
    intervals: str | Path,
    stats: Sequence[str | Path] = (),
    selection: str | Path | None = None,
    documents: str | Path | None = None,
    experiment: str = "",
    test_names: Sequence[str] = (),
    resampling: Resampling | Mapping[str, Any] | None = None,
) -> None:
    """The tests of every metric of an experiment, one job for all of them: :func:`write_metric_tests` of each
    of ``metrics`` into the folders ``tests``, ``intervals`` and ``distributions``
    (:func:`mtsig.steps.files.per_metric_path`). Given the shards of :func:`resample_tests`
    (``resampling.pair_shards`` > 1), metric after metric in ``metrics`` order, each metric's are merged; else
    each metric's one shard is computed here from its statistics (``stats``, in ``metrics`` order)."""
    for folder in (tests, intervals):
        Path(folder).mkdir(parents=True, exist_ok=True)
    if shard_tests:
        n_shards, left = divmod(len(shard_tests), max(len(metrics), 1))
        if left or not n_shards:
            raise ValueError(f"{len(shard_tests)} shards for {len(metrics)} metrics")
        shards = [shard_tests, shard_distributions, shard_intervals, shard_system_intervals]
        for index, metric in enumerate(metrics):
            part = slice(index * n_shards, (index + 1) * n_shards)
            write_metric_tests(
                *(list(paths)[part] for paths in shards),
                **_metric_outputs(tests, intervals, distributions, metric),
            )
        return
    for metric, stats_path in zip(metrics, stats, strict=True):
        write_metric_tests(
            **_metric_outputs(tests, intervals, distributions, metric),
            stats=stats_path,
            selection=selection,
            documents=documents,
            experiment=experiment,
            metric=metric,
            test_names=test_names,
            resampling=resampling,
        )


def _metric_outputs(
    tests: str | Path, intervals: str | Path, distributions: str | Path, metric: str
) -> dict[str, Path]:
    """:func:`write_metric_tests`' outputs of ``metric`` in :func:`merge_tests`' folders."""
    return {
        "tests": per_metric_path(tests, "tests", metric),
        "intervals": per_metric_path(intervals, "intervals", metric),
        "system_intervals": per_metric_path(intervals, "system_intervals", metric),
        "distributions": per_metric_path(distributions, "distributions", metric),
    }


def write_metric_tests(
    shard_tests: Sequence[str | Path] = (),
    shard_distributions: Sequence[str | Path] = (),
    shard_intervals: Sequence[str | Path] = (),
    shard_system_intervals: Sequence[str | Path] = (),
    *,
    tests: str | Path,
    distributions: str | Path,
    intervals: str | Path,
    system_intervals: str | Path,
    stats: str | Path | None = None,
    selection: str | Path | None = None,
    documents: str | Path | None = None,
    experiment: str = "",
    metric: str = "",
    test_names: Sequence[str] = (),
    resampling: Resampling | Mapping[str, Any] | None = None,
) -> None:
    """The tests of one (experiment, metric): the shards of :func:`resample_tests` concatenated in shard order
    (= the canonical pair order), or, given ``stats`` (``resampling.pair_shards: 1``, the default), the one
    shard computed here by :func:`tests_shard`, which saves the shard a job of its own and gives the same bytes.
    The kept distributions are split into one ``{sys_x}__{sys_y}.npz`` per pair (arrays named by test, plus
    ``actual``). The pairs' intervals are concatenated the same way (``intervals/{metric}.tsv``); the
    systems' intervals, which every shard computes from the same draws, are the first shard's
    (``intervals/{metric}.systems.tsv``). Both are final tables (no later step reads them: no manifest); the
    signatures are in the tests table's manifest."""
    if stats is not None:
        if selection is None or documents is None or resampling is None:
            raise ValueError("tests computed without shards need selection, documents and resampling")
        resampling = build(Resampling, resampling)
        shard = tests_shard(stats, selection, documents, experiment, metric, 0, 1, test_names, resampling)
        table, interval_table, system_table = shard.table, shard.intervals, shard.system_intervals
        per_pair = shard.distributions
        common = {k: v for k, v in shard.settings.items() if k not in SHARD_SETTINGS}
    else:
        table, interval_table, system_table, per_pair, common = _read_shards(
            shard_tests, shard_distributions, shard_intervals, shard_system_intervals
        )
    write_tsv(table, tests, made_by="merge_tests", settings=common)
    write_tsv(interval_table, intervals)
    write_tsv(system_table, system_intervals)
    out = Path(distributions)
    out.mkdir(parents=True, exist_ok=True)
    for pair, arrays in per_pair.items():
        save_intermediate_arrays(out / f"{pair}.npz", arrays, made_by="merge_tests", settings=common)


def _read_shards(
    shard_tests: Sequence[str | Path],
    shard_distributions: Sequence[str | Path],
    shard_intervals: Sequence[str | Path],
    shard_system_intervals: Sequence[str | Path],
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, dict[str, dict[str, np.ndarray]], dict[str, Any]]:
    """The shards' tables concatenated, their distributions by pair, and their common settings; every shard
    checked against its manifest and against the others (:func:`_check_shard_settings`)."""
    from mtsig.stats.evaluation import TESTS_COLUMNS

    shards = [read_intermediate_tsv(p, "resample_tests", columns=TESTS_COLUMNS) for p in shard_tests]
    common = _check_shard_settings(shards, shard_tests)
    interval_shards = [
        read_intermediate_tsv(p, "resample_tests", columns=PAIR_INTERVAL_COLUMNS) for p in shard_intervals
    ]
    _check_shard_settings(interval_shards, shard_intervals)
    system_table = read_intermediate_tsv(
        shard_system_intervals[0], "resample_tests", columns=SYSTEM_INTERVAL_COLUMNS
    )
    per_pair: dict[str, dict[str, np.ndarray]] = {}
    for index, path in enumerate(shard_distributions):
        arrays = load_intermediate_arrays(path, "resample_tests")
        settings = verify_intermediate(path, "resample_tests")["settings"]
        if settings != shards[index].attrs["settings"]:
            raise InputError(
                f"made with other settings than its tests table {shard_tests[index]}; "
                + regenerate_hint(path, "resample_tests", None),
                path,
            )
        for key, values in arrays.items():
            x, y, test = key.split("__")
            per_pair.setdefault(f"{x}__{y}", {})[test] = values
    table = pd.concat(shards, ignore_index=True)
    return table, pd.concat(interval_shards, ignore_index=True), system_table, per_pair, common


def _check_shard_settings(shards: Sequence[pd.DataFrame], paths: Sequence[str | Path]) -> dict[str, Any]:
    """Shard k of n must say so, and every shard must share the other settings (seed, samples, tests, ...):
    a shard left from a run with other settings would otherwise be merged silently."""
    common: dict[str, Any] | None = None
    for index, (frame, path) in enumerate(zip(shards, paths, strict=True)):
        settings = dict(frame.attrs["settings"])
        where = tuple(settings.pop(key, None) for key in SHARD_SETTINGS)
        hint = regenerate_hint(path, "resample_tests", None)
        if where != (index, len(paths)):
            raise InputError(
                f"is shard {where[0]} of {where[1]}, expected shard {index} of {len(paths)}; {hint}", path
            )
        if common is None:
            common = settings
        elif settings != common:
            # The signatures are derived from the other settings: name the setting, not its echo.
            changed = sorted(
                k
                for k in set(settings) | set(common)
                if settings.get(k) != common.get(k) and k != "signatures"
            ) or ["signatures"]
            raise InputError(f"made with other {', '.join(changed)} than {paths[0]}; {hint}", path)
    return common or {}
