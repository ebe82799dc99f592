"""Step of ``workflow/rules/metrics_protocol.smk``: a metrics task's protocol on expert MQM (the WMT23 and WMT24
task sets on the WMT23 test set, :mod:`mtsig.studies.metrics_protocol`) and what mtsig adds on the same data
(:mod:`mtsig.studies.metrics_protocol_beyond`)."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mtsig.errors import InputError
from mtsig.steps.files import write_markdown, write_text, write_tsv

log = logging.getLogger("mtsig")


def reproduce_command(
    root: str, protocol: str, lps: Sequence[str], spec: Mapping[str, Any], seed: int
) -> str:
    """The ``mtsig metrics --mtme`` command that prints the same table from the data folder (the protocol's
    seed, resamples and options of the experiment)."""
    options = spec["protocols"][protocol]
    parts = [
        f"mtsig metrics --mtme $MTSIG_DATA/{root} --protocol {protocol} --lps {','.join(lps)}",
        f"--samples {options['samples']} --seed {seed}",
    ]
    if spec["early_stopping"] != "mtme":
        parts.append(f"--early-stopping {spec['early_stopping']}")
    if spec["spa_arithmetic"] != "exact":
        parts.append(f"--spa-arithmetic {spec['spa_arithmetic']}")
    if spec["all_metrics"]:
        parts.append("--all-metrics")
    if float(spec["alpha"]) != 0.05:
        parts.append(f"--alpha {spec['alpha']:g}")
    return " ".join(parts)


def metrics_protocol(
    experiment: str,
    spec: Mapping[str, Any],
    data_root: str | Path,
    seed: int,
    alphas: Sequence[float],
    *,
    scores: Sequence[str | Path],
    tasks: str | Path,
    average: str | Path,
    significance: str | Path,
    replication: str | Path,
    system_scores: str | Path,
    mqm_gold: str | Path,
    mqm_gold_conclusions: str | Path,
    md: str | Path,
    html: str | Path,
    tex: str | Path,
    figures: str | Path,
) -> None:
    """Every protocol of ``spec["protocols"]`` on the test set ``spec["root"]`` (mt-metrics-eval's layout):
    ``tasks`` (each task's value, cluster and bootstrap interval per metric), ``average`` (the weighted average
    and its cluster), ``significance`` (the permutation tests' p-values; task 0 is the average), the Markdown,
    HTML and LaTeX tables and a heatmap per tested task under ``figures``; for the replicability study the
    per-language-pair p-values of ``spec["replicability_tasks"]`` (``replication``); for the delta-agreement
    study the MT systems' MQM and metric system scores (``system_scores``) and the MQM gold of every pair
    (``mqm_gold``, ``mqm_gold_conclusions`` at ``alphas``). Seeds: the permutation tests of protocol P from
    ``derive_seed(seed, experiment, P)``; the intervals of a task from ``rng_for(seed, experiment, "bootstrap",
    <task label>)``. ``scores``: the rule's inputs, which must hold every file read."""
    import pandas as pd

    from mtsig.io.mtme import read_requested_scores, read_test_set
    from mtsig.report.metrics_protocol import (
        protocol_heatmaps,
        protocol_table_latex,
        protocol_table_markdown,
        protocol_tables,
    )
    from mtsig.stats.seeding import derive_seed, rng_for
    from mtsig.studies import metrics_protocol as mp
    from mtsig.studies import metrics_protocol_beyond as beyond

    root = Path(data_root) / spec["root"]
    all_metrics = bool(spec["all_metrics"])
    protocols = beyond.experiment_protocols(list(spec["protocols"]), spec.get("lps"))
    lps = sorted({lp for protocol in protocols for lp in protocol.lps})
    test_sets = {lp: read_test_set(root, lp) for lp in lps}
    given = {Path(p).resolve() for p in scores}
    for path in beyond.experiment_files(protocols, test_sets, all_metrics=all_metrics):
        if path.resolve() not in given:
            raise InputError("read by the protocol but not among the rule's inputs", path)
    keys = beyond.experiment_score_keys(protocols, test_sets, all_metrics=all_metrics)
    read = read_requested_scores(test_sets, keys)
    log.info("%s: %d score files of %s", experiment, len(keys), ", ".join(lps))
    bootstrap = spec["bootstrap"]
    frames: dict[str, list[pd.DataFrame]] = {
        "tasks": [],
        "average": [],
        "significance": [],
        "replication": [],
    }
    markdown = [f"# {spec.get('description', experiment)}", ""]
    latex = []
    Path(figures).mkdir(parents=True, exist_ok=True)
    for protocol in protocols:
        start = time.process_time()
        options = spec["protocols"][protocol.name]
        protocol_seed = derive_seed(seed, experiment, protocol.name)
        result = mp.run_protocol(
            protocol,
            test_sets,
            read,
            n_resamples=int(options["samples"]),
            seed=protocol_seed,
            alpha=float(spec["alpha"]),
            early_stopping=spec["early_stopping"],
            spa_arithmetic=spec["spa_arithmetic"],
            all_metrics=all_metrics,
        )
        tested = time.process_time()
        intervals = {}
        if bootstrap["samples"]:
            for task in result.tasks:
                intervals[task.task.label] = beyond.task_intervals(
                    task, protocol, test_sets, read,
                    n_resamples=int(bootstrap["samples"]), confidence=float(bootstrap["confidence"]),
                    rng=rng_for(seed, experiment, "bootstrap", task.task.label),
                    spa_arithmetic=spec["spa_arithmetic"], all_metrics=all_metrics,
                )  # fmt: skip
        bootstrapped = time.process_time()
        tables = protocol_tables(result)
        task_table = tables["tasks"]
        if intervals:
            interval_rows = pd.concat(
                [frame.assign(label=label) for label, frame in intervals.items()], ignore_index=True
            )
            task_table = task_table.merge(
                interval_rows.drop(columns="value"), on=["label", "metric"], how="left", validate="one_to_one"
            )
        frames["tasks"].append(task_table.assign(protocol=protocol.name))
        frames["average"].append(tables["average"].assign(protocol=protocol.name))
        frames["significance"].append(tables["significance"].assign(protocol=protocol.name))
        frames["replication"].append(beyond.replication_pvalues(result, spec["replicability_tasks"]))
        heading = {
            "wmt23": "The WMT23 protocol (Freitag et al. 2023, Table 8; mt-metrics-eval's tasks.WMT23)",
            "wmt24": "The WMT24 protocol on WMT23 (SPA and acc-t; mt-metrics-eval's tasks.WMT24OnWMT23)",
        }.get(protocol.name, f"Protocol {protocol.name}")
        markdown.append(
            protocol_table_markdown(
                result,
                intervals,
                heading=heading,
                confidence=float(bootstrap["confidence"]),
                reproduce=reproduce_command(spec["root"], protocol.name, protocol.lps, spec, protocol_seed),
            )
        )
        latex.append(f"% {heading}\n" + protocol_table_latex(result))
        protocol_heatmaps(result, figures)
        log.info(
            "%s %s: %d tasks, %d metrics, %d resamples (%.1f CPU s), intervals (%.1f CPU s); first %s %.4f, "
            "last %s %.4f",
            experiment, protocol.name, len(result.tasks), len(result.metrics), result.n_resamples,
            tested - start, bootstrapped - tested, result.metrics[0], result.average[0], result.metrics[-1],
            result.average[-1],
        )  # fmt: skip
    pair_frames = [
        beyond.mqm_pairs(lp, protocols[0], test_sets, read, alphas, all_metrics=all_metrics) for lp in lps
    ]
    settings = {"experiment": experiment, "spec": dict(spec), "seed": int(seed)}

    def ordered(frame: pd.DataFrame, first: list[str]) -> pd.DataFrame:
        return frame[first + [c for c in frame.columns if c not in first]]

    write_tsv(
        ordered(pd.concat(frames["tasks"], ignore_index=True), ["protocol"]), tasks, made_by="metrics_protocol",
        settings=settings,
    )  # fmt: skip
    for name, path in (("average", average), ("significance", significance)):
        frame = ordered(pd.concat(frames[name], ignore_index=True), ["protocol"])
        write_tsv(frame, path, made_by="metrics_protocol", settings=settings)
    write_tsv(
        pd.concat(frames["replication"], ignore_index=True),
        replication,
        made_by="metrics_protocol",
        settings=settings,
    )
    write_tsv(
        pd.concat([scores_ for scores_, _, _ in pair_frames], ignore_index=True), system_scores,
        made_by="metrics_protocol", settings=settings,
    )  # fmt: skip
    for index, path in ((1, mqm_gold), (2, mqm_gold_conclusions)):
        frame = pd.concat([parts[index].assign(lp=lp) for lp, parts in zip(lps, pair_frames, strict=True)])
        write_tsv(
            ordered(frame.reset_index(drop=True), ["lp"]), path, made_by="metrics_protocol", settings=settings
        )
    write_markdown("\n".join(markdown), md, html, made_by="metrics_protocol", settings=settings)
    write_text("\n".join(latex), tex)
