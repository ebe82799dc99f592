"""Steps of ``workflow/rules/metrics_task.smk``: a metrics shared task's system-level results (the WMT20 metrics
task, :mod:`mtsig.studies.metrics_task`) and the DA Wilcoxon gold of each of its pairs."""

from __future__ import annotations

import fnmatch
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from mtsig.errors import InputError
from mtsig.steps.files import write_markdown, write_text, write_tsv

log = logging.getLogger("mtsig")


def _pair_file(root: Path, pattern: str, lp: str) -> Path:
    return root / pattern.format(lp=lp)


def _relative(path: str | Path, root: Path) -> str:
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        raise InputError(f"a metric-score file outside the task's root {root}", path) from None


def files_matching(relative: Mapping[str, str], patterns: Sequence[str]) -> list[str]:
    """The files of ``relative`` (file -> its path relative to the task's root) that match one of ``patterns``,
    sorted by relative path (the order of the organisers' sorted glob)."""
    chosen = [f for f, name in relative.items() if any(fnmatch.fnmatch(name, p) for p in patterns)]
    return sorted(chosen, key=relative.__getitem__)


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
    from mtsig.io.system_scores import read_wmt_sys_scores
    from mtsig.io.wmt_da import read_wmt_da_sys_scores
    from mtsig.report.meta_evaluation import (
        correlation_table_csv,
        correlation_table_latex,
        correlation_table_markdown,
        williams_heatmap,
        williams_heatmap_title,
    )
    from mtsig.studies import metrics_task as study

    root = Path(data_root) / spec["root"]
    human_inputs = {Path(p).resolve() for p in human}
    relative = {str(f): _relative(f, root) for f in metric_scores}
    rows = pd.concat(
        [_one_metric(read_wmt_sys_scores(path)) for path in map(Path, metric_scores)], ignore_index=True
    )
    published = spec.get("published_outliers", {})
    outlier_options = spec.get("outliers", {})
    results: dict[str, list[pd.DataFrame]] = {"correlations": [], "williams": [], "winners": []}
    score_rows = []
    heatmaps = []
    for evaluation in study.evaluations(spec):
        human_path = _pair_file(root, spec["human_system_scores"], evaluation.pair)
        if human_path.resolve() not in human_inputs:
            raise InputError(
                f"the human system scores of {evaluation.pair} are not among the rule's inputs", human_path
            )
        human_table = read_wmt_da_sys_scores(human_path)
        files = set(files_matching(relative, evaluation.patterns))
        scores = study.metric_system_scores(
            rows.loc[rows["file"].isin(files)],
            evaluation.metric_lp,
            spec["refset"],
            spec.get("reference_free", ()),
            spec.get("reference_free_refset", "newstest2020"),
        )
        pair = study.pair_scores(human_table, scores, spec.get("exclude_systems", ()))
        for metric, missing in pair.incomplete.items():
            log.info("%s: %s left out, no score for %s", evaluation.name, metric, ", ".join(missing))
        excluded = study.excluded_systems(
            pair.systems,
            pair.human[outlier_options.get("score", "z")],
            published.get(evaluation.name, []) if published else None,
            scale=float(outlier_options.get("scale", 1.4826)),
            cutoff=float(outlier_options.get("cutoff", 2.5)),
        )
        log.info(
            "%s: %d systems, %d metrics; outliers (MAD): %s",
            evaluation.name,
            len(pair.systems),
            len(pair.metrics),
            ", ".join(excluded["no_outliers"]) or "none",
        )
        tables_of = study.meta_evaluate(
            evaluation.name,
            pair,
            excluded,
            kinds=spec.get("kinds", ("pearson", "spearman", "kendall")),
            human_as_metric=bool(spec.get("human_as_metric", True)),
            identical=spec.get("identical_metrics", "tie"),
            alpha=float(spec.get("alpha", 0.05)),
        )
        for key, frame in tables_of.items():
            results[key].append(frame)
        score_rows.append(study.system_score_rows(evaluation.name, human_table, scores))
        heatmaps.append((evaluation.name, len(pair.systems), tables_of["williams"]))
    settings = {"study": experiment, "spec": dict(spec)}
    frames = {key: pd.concat(parts, ignore_index=True) for key, parts in results.items()}
    write_tsv(frames["correlations"], correlations, made_by="metrics_task", settings=settings)
    write_tsv(frames["williams"], williams, made_by="metrics_task", settings=settings)
    write_tsv(frames["winners"], winners, made_by="metrics_task", settings=settings)
    write_tsv(
        pd.concat(score_rows, ignore_index=True), system_scores, made_by="metrics_task", settings=settings
    )
    title = spec.get("description", experiment)
    write_markdown(
        correlation_table_markdown(frames["correlations"], frames["winners"], title=title),
        md,
        html,
        made_by="metrics_task",
        settings=settings,
    )
    write_text(
        correlation_table_latex(
            frames["correlations"], frames["winners"], caption=title, label=f"tab:{experiment}"
        ),
        tex,
    )
    write_text(correlation_table_csv(frames["correlations"], frames["winners"]), csv)
    alpha = float(spec.get("alpha", 0.05))
    for name, n, williams_rows in heatmaps:
        chosen = williams_rows.loc[(williams_rows["human"] == "z") & (williams_rows["systems"] == "all")]
        williams_heatmap(
            chosen,
            williams_heatmap_title(name, n),
            [Path(figures) / f"{name}.png"],
            alpha=alpha,
        )


def metrics_task_gold(
    specs: Mapping[str, Mapping[str, Any]],
    data_root: str | Path,
    alphas: Sequence[float],
    *,
    human: Sequence[str | Path],
    gold: Sequence[str | Path],
    conclusions: Sequence[str | Path],
) -> None:
    """The DA Wilcoxon gold of every pair of every study in ``specs`` (``results/<study>/<lp>/gold.tsv`` and
    ``gold_conclusions.tsv``, the columns of an experiment's), built exactly as an experiment's ``human_gold``
    builds it from the same file (config/wmt20-ja-en.yaml: ``wmt_da_seg_scores``, no QC, the study's ``gold``
    block), with the systems renamed to the metric files' names (:func:`mtsig.io.wmt_da.metrics_task_names`) and
    in case-insensitive alphabetical order. Each output's study and pair are read from its path."""
    from mtsig.io.wmt_da import load_wmt_da_segment_means, metrics_task_names, read_wmt_da_sys_scores
    from mtsig.settings import HumanGold, QualityControl, build, with_defaults
    from mtsig.stats.human import build_gold
    from mtsig.studies.metrics_task import gold_systems

    if len(gold) != len(conclusions):
        raise InputError(f"{len(gold)} gold outputs but {len(conclusions)} conclusions outputs")
    human_inputs = {Path(p).resolve() for p in human}
    for gold_path, conclusions_path in zip(map(Path, gold), map(Path, conclusions), strict=True):
        study, lp = gold_path.parent.parent.name, gold_path.parent.name
        if (conclusions_path.parent.parent.name, conclusions_path.parent.name) != (study, lp):
            raise InputError(
                f"gold and conclusions outputs of different pairs: {gold_path}, {conclusions_path}"
            )
        spec = specs[study]
        root = Path(data_root) / spec["root"]
        files = {
            key: _pair_file(root, spec[key], lp)
            for key in ("human_segment_scores", "da_system_scores", "human_system_scores")
        }
        for path in files.values():
            if path.resolve() not in human_inputs:
                raise InputError(f"not among the rule's inputs (the {lp} DA files)", path)
        renaming = metrics_task_names(
            read_wmt_da_sys_scores(files["da_system_scores"]),
            read_wmt_da_sys_scores(files["human_system_scores"]),
        )
        segments = load_wmt_da_segment_means(files["human_segment_scores"])
        # The organisers' Wilcoxon matrices hold the systems of the DA system file: iu-en, km-en and ps-en's
        # segment files also rate a human translation (HUMAN) that their system files, and so their gold, leave out.
        rated = segments["system"].isin(set(renaming))
        for name in sorted(set(segments.loc[~rated, "system"])):
            log.info("%s %s: %s has segment scores but no system score: not in the gold", study, lp, name)
        segments = segments.loc[rated]
        segments = segments.assign(system=segments["system"].map(renaming))
        systems = gold_systems(sorted(set(segments["system"])), {})
        human_spec = {"format": "wmt_da_seg_scores", "path": str(files["human_segment_scores"])}
        result = build_gold(
            human_spec["format"],
            segments,
            systems,
            alphas,
            source=files["human_segment_scores"],
            qc=with_defaults(QualityControl, {"enabled": False}),
            gold=build(HumanGold, spec["gold"]),
        )
        settings = {"systems": systems, "alphas": [float(a) for a in alphas], "gold": dict(spec["gold"])}
        write_tsv(result["gold"], gold_path, made_by="metrics_task_gold", settings=settings)
        write_tsv(
            result["gold_conclusions"], conclusions_path, made_by="metrics_task_gold", settings=settings
        )
        primary = result["gold_conclusions"]
        at = primary[primary["alpha"] == primary["alpha"].iloc[0]]
        log.info(
            "%s %s: %d systems, %d of %d pairs significant at %g",
            study,
            lp,
            len(systems),
            int((at["conclusion"] != "tie").sum()),
            len(at),
            float(at["alpha"].iloc[0]),
        )
