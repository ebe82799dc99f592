"""Steps of ``workflow/rules/metrics_task.smk``: a metrics shared task's system-level results (the WMT20 metrics
task, :mod:`mtsig.studies.metrics_task`) and the DA Wilcoxon gold of each of its pairs."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from mtsig.errors import InputError
from mtsig.steps.files import write_markdown, write_text, write_tsv

if TYPE_CHECKING:
    from mtsig.studies.metrics_task import Evaluation, TaskResults

log = logging.getLogger("mtsig")


def _pair_file(root: Path, pattern: str, lp: str) -> Path:
    return root / pattern.format(lp=lp)


def _relative(path: str | Path, root: Path) -> str:
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        raise InputError(f"a metric-score file outside the task's root {root}", path) from None


def _one_metric(table: pd.DataFrame) -> pd.DataFrame:
    """A ``sys.score`` file's rows under one metric name, its first row's, with a ``file`` column: the organisers
    name a file's metric by its first row (``metric_df.metric[0]`` in ``results/combine-scores-sys-DA.py``), and
    WMT20's ``bleurt-combi.sys.score.gz`` names its newstestP2020 rows (first) ``bleurt-Yisi-combi`` and the others
    ``bleurt-combi``: its results are published as ``bleurt-Yisi-combi``."""
    names = list(dict.fromkeys(table["metric"]))
    if len(names) > 1:
        log.info(
            "%s names %s; its metric is %s (its first row's)", table.attrs["path"], ", ".join(names), names[0]
        )
    return table.assign(metric=names[0], file=table.attrs["path"])


def read_metric_scores(
    root: Path, metric_scores: Sequence[str | Path]
) -> tuple[pd.DataFrame, dict[str, str]]:
    """The rows of every ``sys.score`` file of the rule's inputs, each under its first row's metric name with a
    ``file`` column (:func:`_one_metric`), and each file's path relative to the task's ``root``."""
    from mtsig.io.system_scores import read_wmt_sys_scores

    relative = {str(f): _relative(f, root) for f in metric_scores}
    rows = pd.concat(
        [_one_metric(read_wmt_sys_scores(path)) for path in map(Path, metric_scores)], ignore_index=True
    )
    return rows, relative


def read_human_scores(
    root: Path, pattern: str, evaluations: Sequence[Evaluation], human: Sequence[str | Path]
) -> dict[str, pd.DataFrame]:
    """The DA system scores of every evaluation's pair (``pattern`` under ``root``), each of which must be among
    the rule's inputs ``human``."""
    from mtsig.io.wmt_da import read_wmt_da_sys_scores

    human_inputs = {Path(p).resolve() for p in human}
    tables = {}
    for evaluation in evaluations:
        human_path = _pair_file(root, pattern, evaluation.pair)
        if human_path.resolve() not in human_inputs:
            raise InputError(
                f"the human system scores of {evaluation.pair} are not among the rule's inputs", human_path
            )
        tables[evaluation.pair] = read_wmt_da_sys_scores(human_path)
    return tables


def log_evaluations(results: TaskResults) -> None:
    """Per evaluation: the metrics left out, the systems and metrics correlated and the MAD rule's outliers."""
    for evaluation in results.evaluations:
        for metric, missing in evaluation.incomplete.items():
            log.info("%s: %s left out, no score for %s", evaluation.name, metric, ", ".join(missing))
        log.info(
            "%s: %d systems, %d metrics; outliers (MAD): %s",
            evaluation.name,
            len(evaluation.systems),
            len(evaluation.metrics),
            ", ".join(evaluation.excluded["no_outliers"]) or "none",
        )


def metrics_task(
    experiment: str,
    spec: Mapping[str, Any],
    data_root: str | Path,
    *,
    metric_scores: Sequence[str | Path],
    human: Sequence[str | Path],
    correlations: str | Path,
    williams: str | Path,
    winners: str | Path,
    system_scores: str | Path,
    md: str | Path,
    html: str | Path,
    tex: str | Path,
    csv: str | Path,
    figures: str | Path,
) -> None:
    """Every evaluation of the study ``experiment``: correlations (all systems, without the MAD rule's outliers
    and without the published ones), Williams tests and winners for the human z and raw scores; the system scores
    (the input of the delta-agreement study); the table (Markdown, LaTeX, CSV) and a Williams heatmap per
    evaluation (all systems, DA z) under ``figures``. ``metric_scores`` and ``human`` are the rule's inputs."""
    from mtsig.report.meta_evaluation import (
        correlation_table_csv,
        correlation_table_latex,
        correlation_table_markdown,
        williams_heatmap,
        williams_heatmap_title,
    )
    from mtsig.settings import MetricsTask, build
    from mtsig.studies import metrics_task as study

    task = build(MetricsTask, spec, f"metrics_task.{experiment}")
    evaluations = study.evaluations(task)
    root = Path(data_root) / task.root
    rows, relative = read_metric_scores(root, metric_scores)
    human_tables = read_human_scores(root, task.human_system_scores, evaluations, human)
    results = study.task_results(evaluations, rows, relative, human_tables, task)
    log_evaluations(results)
    settings = {"study": experiment, "spec": dict(spec)}
    for frame, path in ((results.correlations, correlations), (results.williams, williams),
                        (results.winners, winners), (results.system_scores, system_scores)):  # fmt: skip
        write_tsv(frame, path, made_by="metrics_task", settings=settings)
    title = task.description or experiment
    page = correlation_table_markdown(results.correlations, results.winners, title=title)
    write_markdown(page, md, html, made_by="metrics_task", settings=settings)
    label = f"tab:{experiment}"
    write_text(
        correlation_table_latex(results.correlations, results.winners, caption=title, label=label), tex
    )
    write_text(correlation_table_csv(results.correlations, results.winners), csv)
    for evaluation in results.evaluations:
        rows_ = evaluation.tables["williams"]
        chosen = rows_.loc[(rows_["human"] == "z") & (rows_["systems"] == "all")]
        title = williams_heatmap_title(evaluation.name, len(evaluation.systems))
        williams_heatmap(chosen, title, [Path(figures) / f"{evaluation.name}.png"], alpha=task.alpha)


def gold_outputs(
    specs: Mapping[str, Mapping[str, Any]],
    data_root: str | Path,
    human: Sequence[str | Path],
    gold: Sequence[str | Path],
    conclusions: Sequence[str | Path],
) -> Iterator[tuple[str, str, dict[str, Path], Path, Path]]:
    """(study, pair, its DA files, gold output, conclusions output) of every pair of rule ``metrics_task_gold``'s
    outputs (``results/<study>/<lp>/``); the DA files (``human_segment_scores``, ``da_system_scores``,
    ``human_system_scores`` of the study's settings, :class:`mtsig.settings.MetricsTask`) must be among the rule's
    inputs ``human``."""
    from mtsig.settings import MetricsTask, build

    if len(gold) != len(conclusions):
        raise InputError(f"{len(gold)} gold outputs but {len(conclusions)} conclusions outputs")
    human_inputs = {Path(p).resolve() for p in human}
    for gold_path, conclusions_path in zip(map(Path, gold), map(Path, conclusions), strict=True):
        study, lp = gold_path.parent.parent.name, gold_path.parent.name
        if (conclusions_path.parent.parent.name, conclusions_path.parent.name) != (study, lp):
            raise InputError(
                f"gold and conclusions outputs of different pairs: {gold_path}, {conclusions_path}"
            )
        task = build(MetricsTask, specs[study], f"metrics_task.{study}")
        root = Path(data_root) / task.root
        files = {
            key: _pair_file(root, getattr(task, key), lp)
            for key in ("human_segment_scores", "da_system_scores", "human_system_scores")
        }
        for path in files.values():
            if path.resolve() not in human_inputs:
                raise InputError(f"not among the rule's inputs (the {lp} DA files)", path)
        yield study, lp, files, gold_path, conclusions_path


def metrics_task_gold(
    specs: Mapping[str, Mapping[str, Any]],
    data_root: str | Path,
    alphas: Sequence[float],
    *,
    human: Sequence[str | Path],
    gold: Sequence[str | Path],
    conclusions: Sequence[str | Path],
) -> None:
    """The DA Wilcoxon gold of every pair of every study in ``specs`` (each study's block, or its
    :data:`mtsig.settings.MetricsTask.GOLD_FIELDS`: the rule's params; ``results/<study>/<lp>/gold.tsv`` and
    ``gold_conclusions.tsv``, the columns of an experiment's), built exactly as an experiment's ``human_gold``
    builds it from the same file (config/wmt20-ja-en.yaml: ``wmt_da_seg_scores``, no QC, the study's ``gold``
    block), with the systems renamed to the metric files' names (:func:`mtsig.io.wmt_da.metrics_task_names`) and
    in case-insensitive alphabetical order. Each output's study and pair are read from its path."""
    from mtsig.io.wmt_da import load_wmt_da_segment_means, read_wmt_da_sys_scores
    from mtsig.settings import MetricsTask, as_block, build
    from mtsig.studies.metrics_task import pair_gold

    for study, lp, files, gold_path, conclusions_path in gold_outputs(
        specs, data_root, human, gold, conclusions
    ):
        task = build(MetricsTask, specs[study], f"metrics_task.{study}")
        result = pair_gold(
            load_wmt_da_segment_means(files["human_segment_scores"]),
            read_wmt_da_sys_scores(files["da_system_scores"]),
            read_wmt_da_sys_scores(files["human_system_scores"]),
            alphas,
            task.gold,
        )
        for name in result.unscored:
            log.info("%s %s: %s has segment scores but no system score: not in the gold", study, lp, name)
        settings = {
            "systems": result.systems,
            "alphas": [float(a) for a in alphas],
            "gold": as_block(task.gold),
        }
        write_tsv(result.gold, gold_path, made_by="metrics_task_gold", settings=settings)
        write_tsv(result.conclusions, conclusions_path, made_by="metrics_task_gold", settings=settings)
        at = result.conclusions[result.conclusions["alpha"] == result.conclusions["alpha"].iloc[0]]
        log.info(
            "%s %s: %d systems, %d of %d pairs significant at %g",
            study,
            lp,
            len(result.systems),
            int((at["conclusion"] != "tie").sum()),
            len(at),
            float(at["alpha"].iloc[0]),
        )
