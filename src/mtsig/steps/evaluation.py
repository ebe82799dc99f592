"""Steps of ``workflow/rules/evaluation.smk``: conclusions against the gold, the paper-layout tables and the index
of every table."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from mtsig.report import tables as paper_tables
from mtsig.settings import Clusters, as_block, build
from mtsig.steps.common import read_gold_table, read_tests_table
from mtsig.steps.files import (
    metric_name_of,
    read_intermediate_text,
    read_intermediate_tsv,
    write_markdown,
    write_text,
    write_tsv,
)

log = logging.getLogger("mtsig")


def tests_by_metric(tests_paths: Sequence[str | Path]) -> dict[str, pd.DataFrame]:
    return {metric_name_of(p): read_tests_table(p) for p in tests_paths}


def clusters(
    *,
    experiment: str,
    tests: Sequence[str | Path],
    stats: Sequence[str | Path],
    gold: str | Path,
    system_scores: str | Path,
    settings: Mapping[str, Any],
    clusters: str | Path,
    latex: str | Path,
    markdown: str | Path,
) -> None:
    """WMT-style significance clusters of every metric (by ``settings.test``) and of every human gold, at one
    alpha, correction and rule (``settings``: the block ``evaluation.clusters``, :class:`mtsig.settings.Clusters`):
    ``clusters.tsv`` (with each ranking's signature),
    ``clusters.tex`` (one ranked table per ranking) and ``results/tables/{experiment}.clusters.md`` (the rankings
    side by side, with their signatures; listed in the tables index)."""
    from mtsig.report.clusters import experiment_clusters_report
    from mtsig.stats.evaluation import GOLD_PVALUE_COLUMNS
    from mtsig.steps.common import load_scored_stats

    chosen = build(Clusters, settings, "evaluation.clusters")
    scores: dict[str, dict[str, float]] = {}
    higher_is_better: dict[str, bool] = {}
    systems: list[str] = []
    for path in stats:
        metric_stats, systems, _, scorer = load_scored_stats(path)
        values = scorer.score(metric_stats.sum(axis=1))
        scores[metric_name_of(path)] = {s: float(v) for s, v in zip(systems, values, strict=True)}
        higher_is_better[metric_name_of(path)] = scorer.higher_is_better
    human = read_gold_table(system_scores, ("system", "criterion", "mean_z"))
    first = human[human["criterion"] == human["criterion"].iloc[0]].set_index("system")["mean_z"]
    report = experiment_clusters_report(
        tests_by_metric(tests),
        scores,
        higher_is_better,
        read_gold_table(gold, ("gold", *GOLD_PVALUE_COLUMNS)),
        {s: float(first[s]) for s in systems},
        chosen,
        experiment,
    )
    write_tsv(report.table, clusters)
    write_text(report.latex, latex)
    write_text(report.markdown, markdown, made_by="clusters", settings=as_block(chosen))
    for source, rows in report.table.groupby("source", sort=False):
        log.info("%s: %d clusters of %d systems", source, int(rows["cluster"].max()), len(rows))


def evaluate(
    *,
    tests: Sequence[str | Path],
    gold: str | Path,
    gold_conclusions: str | Path,
    alphas: Sequence[float],
    corrections: Sequence[str],
    accuracy: str | Path,
    agreement: str | Path,
    chi_square: str | Path,
    conclusions: str | Path,
) -> None:
    """Accuracy of every metric x test against every gold (uncorrected, and after each correction applied to the
    tests alone and to tests and gold alike), the chi-square test between metrics, and agreement between tests."""
    from mtsig.stats.evaluation import GOLD_CONCLUSION_COLUMNS, GOLD_PVALUE_COLUMNS, experiment_evaluation

    tables = tests_by_metric(tests)
    result = experiment_evaluation(
        tables,
        read_gold_table(gold, GOLD_PVALUE_COLUMNS),
        read_gold_table(gold_conclusions, GOLD_CONCLUSION_COLUMNS),
        alphas,
        corrections,
        sources=dict(zip(tables, tests, strict=True)),
    )
    settings = {
        "alphas": [float(a) for a in alphas],
        "corrections": list(corrections),
        "metrics": list(tables),
    }
    write_tsv(result.accuracy, accuracy, made_by="evaluate", settings=settings)
    write_tsv(result.chi_square, chi_square, made_by="evaluate", settings=settings)
    write_tsv(result.agreement, agreement, made_by="evaluate", settings=settings)
    write_tsv(result.conclusions, conclusions)


def reversed_orientation_check(
    experiment: str, stats: Sequence[str | Path], system_scores: str | Path
) -> str:
    """The note under an experiment's accuracy table on metrics whose system scores correlate strongly negatively
    with the human ones (:func:`mtsig.steps.meta_evaluation.warn_reversed_orientation`, which logs a warning for
    each): empty when there is none, or no human system score every system has."""
    from mtsig.steps.common import oriented_system_scores
    from mtsig.steps.meta_evaluation import warn_reversed_orientation
    from mtsig.studies.meta_evaluation import available_human_scores, primary_human_kind

    systems, scores = oriented_system_scores(stats)
    human = read_gold_table(system_scores)
    criterion = human["criterion"].iloc[0]
    by_system = human.loc[human["criterion"] == criterion].set_index("system")
    if not set(systems) <= set(by_system.index):
        return ""
    available, _ = available_human_scores(by_system, systems)
    if not available:
        return ""
    kind = primary_human_kind(available)
    label = f"{paper_tables.human_label(criterion)} {kind}"
    flagged = warn_reversed_orientation(experiment, scores, available[kind], label)
    return paper_tables.reversed_orientation_note(flagged, label, len(systems))


def tables(
    experiment: str,
    description: str | None,
    metrics: Sequence[str],
    n_systems: int,
    samples: int | Mapping[str, int],
    seed: int,
    pvalue: str,
    *,
    accuracy: str | Path,
    chi_square: str | Path,
    agreement: str | Path,
    stats: Sequence[str | Path],
    system_scores: str | Path,
    md: str | Path,
    html: str | Path,
    tex: str | Path,
    csv: str | Path,
) -> None:
    """The paper's Tables 1-2 for every gold of the experiment (Markdown with the extra rows, LaTeX, CSV).

    The primary gold (the first configured method) fills the main table; every other gold, the tests beyond the
    paper's three, and the corrected conclusions follow in clearly labelled sections of the Markdown file. Under
    the main table, a note names any metric whose system scores (``stats``) correlate strongly negatively with the
    human system scores (``system_scores``): "check higher_is_better" (:func:`reversed_orientation_check`).
    ``description`` (the experiment's; None: its name), ``metrics`` and ``n_systems`` head the tables; ``samples``,
    ``seed`` and ``pvalue`` (``resampling.*``) are named in the captions.
    """
    rendered = paper_tables.experiment_accuracy_tables(
        read_intermediate_tsv(accuracy, "evaluate", columns=("correction", "gold", "metric", "test")),
        read_intermediate_tsv(chi_square, "evaluate"),
        read_intermediate_tsv(agreement, "evaluate"),
        name=experiment,
        description=experiment if description is None else description,
        metrics=list(metrics),
        n_systems=n_systems,
        samples=samples,
        seed=seed,
        pvalue=pvalue,
        orientation_note=reversed_orientation_check(experiment, stats, system_scores),
    )
    write_markdown(rendered.markdown, md, html, made_by="tables")
    write_text(rendered.latex, tex)
    write_text(rendered.csv, csv)


def tables_index(tables: Sequence[str | Path], index: str | Path, rules: Sequence[str] | None = None) -> None:
    """``results/tables/README.md`` (``index``): links to every table, then each table inlined. ``rules``: the rule
    that writes each table (named when a table fails its manifest check); default ``tables``."""
    table_paths, out_path, made_by = tables, index, rules

    out = Path(out_path)
    entries = [(Path(p).stem, Path(p).name) for p in table_paths]
    body = [paper_tables.tables_index_markdown(entries, title="Tables of this run")]
    rules = list(made_by) if made_by is not None else ["tables"] * len(table_paths)
    for path, rule in zip(table_paths, rules, strict=True):
        body.append(f"\n---\n\n<!-- {Path(path).name} -->\n" + read_intermediate_text(path, rule))
    write_text("\n".join(body), out)
