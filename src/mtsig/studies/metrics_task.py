"""A metrics shared task's system-level results, reproduced: the WMT20 metrics task (Mathur, Wei, Freitag, Ma &
Bojar 2020, "Results of the WMT20 Metrics Shared Task", Sec. 3 (system level) and its significance tests).

For each evaluation (a language pair, or a variant such as en-iu's out-of-domain subset) the organisers' scripts
(WMT-Metrics-task/wmt20-metrics, commit 3e434fc: ``results/combine-scores-sys-DA.py``,
``results/create_sys_tables.py``, ``results/metric_williams.py``, ``results/outliers.py``) do the following, and
so does this module (config/wmt20-metrics.yaml names every choice):

1. The human scores are the DA system means of ``metrics-ad-sys-scores-<lp>.csv``: ``Z.SCR`` (the official
   score) and ``RAW.SCR``, for every DA-rated system.
2. A metric's system scores are its rows of the pair's lp code and of one reference (``newstest2020``;
   reference-free metrics: their ``newstest2020`` rows), joined by system name.
3. The human translations (``Human-A.0``, ``Human-B.0``, ``Human-P.0``) are left out; a metric that lacks any
   remaining system is left out (pandas' ``dropna(axis=1)``).
4. Pearson's r (and Kendall's tau-b) of every metric with the human score, with all systems and without outliers;
   the raw human score competes as a metric (their ``DataFrame.corr()`` takes every numeric column).
5. The Williams test for every ordered pair of metrics; the winners: metrics no other significantly beats.

Beyond the organisers: Spearman's rho, the raw score as the human side, and the outliers both by the stated rule
(MAD on z, ``no_outliers``) and as the organisers published them (``no_outliers_published``: their rule's
output "manually update[d]", in their notebook ``results/p0-preprocess_scores_and_visualize.ipynb``).

Functions take tables (as :mod:`mtsig.io` reads them) and return tables; :mod:`mtsig.steps.metrics_task` reads and
writes the files.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.io.human import Ratings
from mtsig.settings import HumanGold, MetricsTask
from mtsig.stats.meta_evaluation import system_level as me

#: The system sets every correlation is reported for: all MT systems, without the outliers of the MAD rule, and
#: without the outliers the organisers published (only when the config lists them).
SYSTEM_SETS = ("all", "no_outliers", "no_outliers_published")
#: Human score -> the column of :func:`mtsig.io.wmt_da.read_wmt_da_sys_scores` it is.
HUMAN_COLUMNS = {"z": "z", "raw": "raw_score"}
#: The other human score competing as a metric (``human_as_metric``), named as in the WMT20 tables (HUMAN_RAW).
HUMAN_PSEUDO_METRICS = {"z": "HUMAN_RAW", "raw": "HUMAN_Z"}
#: The ``source`` of the human scores in ``system_scores.tsv``.
HUMAN_SOURCES = {"z": "human_z", "raw": "human_raw"}

CORRELATION_COLUMNS = ["lp", "human", "systems", "metric", "kind", "n", "r", "outliers"]
WILLIAMS_COLUMNS = ["lp", "human", "systems", *me.WILLIAMS_COLUMNS]
WINNER_COLUMNS = ["lp", "human", "systems", "metric", "r", "rank", "n", "winner"]
SYSTEM_SCORE_COLUMNS = ["lp", "system", "source", "score"]
OUTLIER_SEPARATOR = ","


@dataclass(frozen=True)
class Evaluation:
    """One group of results: ``name`` (the ``lp`` column of every table), the DA ``pair`` it correlates with,
    the lp code of its rows in the metric files, and the glob patterns of those files (relative to the root)."""

    name: str
    pair: str
    metric_lp: str
    patterns: tuple[str, ...]


def evaluations(task: MetricsTask) -> list[Evaluation]:
    """The evaluations of a ``metrics_task`` definition: each pair, then each variant (config ``variants``)."""
    out = [Evaluation(lp, lp, lp, task.metric_scores) for lp in task.pairs]
    for name, variant in task.variants.items():
        if variant.pair not in task.pairs:
            raise InputError(f"metrics_task variant {name}: pair {variant.pair!r} is not among the pairs")
        patterns = task.metric_scores if variant.metric_scores is None else variant.metric_scores
        out.append(Evaluation(name, variant.pair, variant.metric_lp, patterns))
    names = [e.name for e in out]
    if len(set(names)) != len(names):
        raise InputError(f"metrics_task: a variant is named like a pair ({', '.join(names)})")
    return out


def metric_system_scores(
    rows: pd.DataFrame,
    lp: str,
    refset: str,
    reference_free: Sequence[str] = (),
    reference_free_refset: str = MetricsTask.reference_free_refset,
) -> dict[str, dict[str, float]]:
    """``{metric: {system: score}}`` from WMT ``sys.score`` rows (:func:`mtsig.io.system_scores.read_wmt_sys_scores`,
    several files concatenated, with a ``file`` column naming each row's file): the rows of ``lp`` and ``refset``
    (for a metric in ``reference_free``: of ``reference_free_refset``), whatever the test set column says (the
    organisers filter on lp and refset only; ``testsuites2020`` rows carry refset ``testsuites2020``). Metrics in
    row order; a metric given by two files is an error naming both."""
    wanted = np.where(rows["metric"].isin(set(reference_free)), reference_free_refset, refset)
    chosen = rows.loc[(rows["lp"].to_numpy() == lp) & (rows["refset"].to_numpy() == wanted)]
    scores: dict[str, dict[str, float]] = {}
    for metric, group in chosen.groupby("metric", sort=False):
        files = list(dict.fromkeys(group["file"])) if "file" in group.columns else []
        if len(files) > 1:
            raise InputError(
                f"metric {metric!r} has {lp} {refset} scores in two files (also {files[0]})", files[1]
            )
        scores[str(metric)] = dict(zip(group["system"], group["score"].astype(float), strict=True))
    return scores


@dataclass(frozen=True)
class PairScores:
    """The systems correlated (DA order, excluded systems dropped), their human scores by kind (``z``, ``raw``),
    the metrics that score every one of them, and the metrics left out for lacking some (name -> missing)."""

    systems: list[str]
    human: dict[str, np.ndarray]
    metrics: dict[str, np.ndarray]
    incomplete: dict[str, list[str]]


def pair_scores(
    human: pd.DataFrame, metric_scores: Mapping[str, Mapping[str, float]], exclude: Sequence[str] = ()
) -> PairScores:
    """Join the DA system table (``system``, ``z``, ``raw_score``) with the metrics' scores (steps 1-3 of the
    module docstring). A metric's scores of systems DA did not rate are ignored."""
    kept = human.loc[~human["system"].isin(set(exclude))]
    systems = kept["system"].astype(str).tolist()
    if len(systems) < 2:
        raise InputError(f"{len(systems)} DA-rated systems left after excluding {', '.join(exclude)}")
    complete, incomplete = {}, {}
    for metric, by_system in metric_scores.items():
        missing = [s for s in systems if s not in by_system]
        if missing:
            incomplete[metric] = missing
        else:
            complete[metric] = np.array([by_system[s] for s in systems], dtype=np.float64)
    values = {kind: kept[column].to_numpy(dtype=np.float64) for kind, column in HUMAN_COLUMNS.items()}
    return PairScores(systems, values, complete, incomplete)


def excluded_systems(
    systems: Sequence[str],
    outlier_scores: np.ndarray,
    published: Sequence[str] | None,
    *,
    scale: float = me.MAD_SCALE,
    cutoff: float = me.MAD_CUTOFF,
) -> dict[str, list[str]]:
    """The systems left out of each system set: none (``all``), the MAD rule's outliers on ``outlier_scores``
    (``no_outliers``), and, unless ``published`` is None, the organisers' list (``no_outliers_published``; a
    listed system that is not among ``systems`` is an error)."""
    flagged = me.mad_outliers(outlier_scores, scale=scale, cutoff=cutoff)
    sets = {"all": [], "no_outliers": [s for s, out in zip(systems, flagged, strict=True) if out]}
    if published is not None:
        unknown = sorted(set(published) - set(systems))
        if unknown:
            raise InputError(
                f"published outlier(s) {', '.join(unknown)} are not among the systems correlated"
            )
        sets["no_outliers_published"] = [s for s in systems if s in set(published)]
    return sets


def meta_evaluate(
    name: str,
    scores: PairScores,
    excluded: Mapping[str, Sequence[str]],
    *,
    kinds: Sequence[str] = me.KINDS,
    human_as_metric: bool = True,
    identical: str = MetricsTask.identical_metrics,
    alpha: float = me.WILLIAMS_ALPHA,
) -> dict[str, pd.DataFrame]:
    """Correlations, Williams tests and winners of one evaluation, for each human score (z, raw) and system set.

    Returns ``correlations`` (:data:`CORRELATION_COLUMNS`: every metric and kind; ``outliers`` names the systems
    left out, comma-separated), ``williams`` (:data:`WILLIAMS_COLUMNS`: every ordered pair of metrics, one-sided p
    of "metric_a correlates better", metrics by decreasing Pearson r) and ``winners`` (:data:`WINNER_COLUMNS`: every
    metric's Pearson r, its rank in that order, and whether it is a winner at ``alpha``)."""
    correlations: list[tuple] = []
    williams, winners = [], []
    for human_kind, human in scores.human.items():
        metrics = dict(scores.metrics)
        if human_as_metric:
            other = next(k for k in scores.human if k != human_kind)
            metrics[HUMAN_PSEUDO_METRICS[human_kind]] = scores.human[other]
        names = list(metrics)
        matrix = np.stack([metrics[m] for m in names])
        for system_set, left_out in excluded.items():
            keep = ~np.isin(scores.systems, list(left_out))
            n = int(keep.sum())
            label = {"lp": name, "human": human_kind, "systems": system_set}
            outliers = OUTLIER_SEPARATOR.join(left_out)
            for kind in kinds:
                r = me.correlation(matrix[:, keep], human[keep], kind)
                correlations += [
                    (name, human_kind, system_set, metric, kind, n, float(value), outliers)
                    for metric, value in zip(names, r, strict=True)
                ]
            table = me.williams_table(human[keep], {m: metrics[m][keep] for m in names}, identical=identical)
            williams.append(table.assign(**label)[WILLIAMS_COLUMNS])
            matrix_p = me.williams_pivot(table)
            won = set(me.winners(matrix_p, alpha))
            order = list(matrix_p.index)
            r_of = dict(zip(table["metric_a"].tolist(), table["r_a"].tolist(), strict=True))
            winners.append(
                pd.DataFrame(
                    {
                        **label,
                        "metric": order,
                        "r": [r_of[m] for m in order],
                        "rank": np.arange(1, len(order) + 1),
                        "n": n,
                        "winner": [m in won for m in order],
                    }
                )
            )
    return {
        "correlations": pd.DataFrame.from_records(correlations, columns=CORRELATION_COLUMNS),
        "williams": pd.concat(williams, ignore_index=True),
        "winners": pd.concat(winners, ignore_index=True)[WINNER_COLUMNS],
    }


def system_score_rows(
    name: str, human: pd.DataFrame, metric_scores: Mapping[str, Mapping[str, float]]
) -> pd.DataFrame:
    """``system_scores.tsv`` rows of one evaluation (:data:`SYSTEM_SCORE_COLUMNS`): every DA-rated system's human
    z and raw score (sources ``human_z``, ``human_raw``), then every metric's score of each DA-rated system it
    scores (source = the metric; higher is better, as the files give them: TER negated), in DA order."""
    systems = human["system"].astype(str).tolist()
    frames = [
        pd.DataFrame(
            {"lp": name, "system": systems, "source": HUMAN_SOURCES[k], "score": human[c].to_numpy()}
        )
        for k, c in HUMAN_COLUMNS.items()
    ]
    for metric, by_system in metric_scores.items():
        scored = [s for s in systems if s in by_system]
        frames.append(
            pd.DataFrame(
                {"lp": name, "system": scored, "source": metric, "score": [by_system[s] for s in scored]}
            )
        )
    return pd.concat(frames, ignore_index=True)[SYSTEM_SCORE_COLUMNS]


def gold_systems(da_names: Sequence[str], renaming: Mapping[str, str]) -> list[str]:
    """The systems of a pair's gold: every DA-rated system (human translations included, as in the organisers'
    published Wilcoxon matrices), under the metric files' names (``renaming``), in case-insensitive alphabetical
    order (the order of config/wmt20-ja-en.yaml, so that ja-en's gold equals that experiment's byte for byte)."""
    return sorted((renaming.get(s, s) for s in da_names), key=lambda s: (s.casefold(), s))


def files_matching(relative: Mapping[str, str], patterns: Sequence[str]) -> list[str]:
    """The files of ``relative`` (file -> its path relative to the task's root) that match one of ``patterns``,
    sorted by relative path (the order of the organisers' sorted glob)."""
    chosen = [f for f, name in relative.items() if any(fnmatch.fnmatch(name, p) for p in patterns)]
    return sorted(chosen, key=relative.__getitem__)


@dataclass(frozen=True)
class EvaluationResult:
    """One evaluation's correlated systems, metrics, the metrics left out for lacking a system's score (metric
    -> the systems it lacks), the systems left out of each system set (:func:`excluded_systems`) and its tables
    (:func:`meta_evaluate`)."""

    name: str
    systems: tuple[str, ...]
    metrics: tuple[str, ...]
    incomplete: dict[str, list[str]]
    excluded: dict[str, list[str]]
    tables: dict[str, pd.DataFrame]


@dataclass(frozen=True)
class TaskResults:
    """The study's tables over every evaluation (their rows in turn): ``correlations``, ``williams``,
    ``winners`` and ``system_scores`` (:func:`system_score_rows`), and each evaluation's own result."""

    correlations: pd.DataFrame
    williams: pd.DataFrame
    winners: pd.DataFrame
    system_scores: pd.DataFrame
    evaluations: tuple[EvaluationResult, ...]


def task_results(
    task_evaluations: Sequence[Evaluation],
    rows: pd.DataFrame,
    relative: Mapping[str, str],
    human: Mapping[str, pd.DataFrame],
    task: MetricsTask,
) -> TaskResults:
    """Every evaluation of a metrics task (steps 1-5 of the module docstring; Mathur et al. 2020, Sec. 3): the
    metric system scores of its files (``rows`` of :func:`mtsig.io.system_scores.read_wmt_sys_scores` with a
    ``file`` column; ``relative``: each file's path relative to the task's root, which the evaluation's glob
    patterns match) joined with the DA system scores of its pair (``human``: pair -> the table of
    :func:`mtsig.io.wmt_da.read_wmt_da_sys_scores`), the systems left out by the MAD rule and by the
    organisers, then correlations, Williams tests (Graham & Baldwin 2014) and winners. ``task``: the study's
    settings, every choice of which that changes a number (steps 2-5 of the module docstring): the reference of
    the metrics' rows (``refset``; ``reference_free_refset`` for the metrics of ``reference_free``), the systems
    left out (``exclude_systems``), the MAD rule (``outliers``; Mathur, Baldwin & Cohn 2020, Sec. 4.2), the
    organisers' published outliers (evaluation -> systems; none: no ``no_outliers_published`` set), the correlation
    ``kinds``, whether the other human score competes as a metric, how the Williams test treats identical metrics
    and its ``alpha``."""
    results: dict[str, list[pd.DataFrame]] = {"correlations": [], "williams": [], "winners": []}
    score_rows, done = [], []
    published = dict(task.published_outliers) or None
    for evaluation in task_evaluations:
        human_table = human[evaluation.pair]
        files = set(files_matching(relative, evaluation.patterns))
        scores = metric_system_scores(
            rows.loc[rows["file"].isin(files)],
            evaluation.metric_lp,
            task.refset,
            task.reference_free,
            task.reference_free_refset,
        )
        pair = pair_scores(human_table, scores, task.exclude_systems)
        excluded = excluded_systems(
            pair.systems,
            pair.human[task.outliers.score],
            published.get(evaluation.name, []) if published else None,
            scale=task.outliers.scale,
            cutoff=task.outliers.cutoff,
        )
        tables = meta_evaluate(
            evaluation.name, pair, excluded, kinds=task.kinds, human_as_metric=task.human_as_metric,
            identical=task.identical_metrics, alpha=task.alpha,
        )  # fmt: skip
        for key, frame in tables.items():
            results[key].append(frame)
        score_rows.append(system_score_rows(evaluation.name, human_table, scores))
        done.append(
            EvaluationResult(
                evaluation.name, tuple(pair.systems), tuple(pair.metrics), pair.incomplete, excluded, tables
            )
        )
    frames = {key: pd.concat(parts, ignore_index=True) for key, parts in results.items()}
    return TaskResults(
        frames["correlations"],
        frames["williams"],
        frames["winners"],
        pd.concat(score_rows, ignore_index=True),
        tuple(done),
    )


@dataclass(frozen=True)
class PairGold:
    """The DA Wilcoxon gold of one pair of a metrics task: its systems (the metric files' names, in
    case-insensitive alphabetical order), the systems with segment scores but no DA system score (left out), and
    the gold p-values and conclusions (the tables of :func:`mtsig.stats.human_gold.build_gold`)."""

    systems: list[str]
    unscored: tuple[str, ...]
    gold: pd.DataFrame
    conclusions: pd.DataFrame


def pair_gold(
    segments: Ratings,
    da_system_scores: pd.DataFrame,
    human_system_scores: pd.DataFrame,
    alphas: Sequence[float],
    gold: HumanGold,
) -> PairGold:
    """The gold of one pair built exactly as an experiment's ``human_gold`` builds it from the same DA segment
    means (``segments``, :func:`mtsig.io.wmt_da.load_wmt_da_segment_means`, whose source is named in errors; no QC;
    the study's ``gold`` block; the rank-sum test of Graham et al. 2013 as the WMT organisers run it, Mathur et al.
    2020, Sec. 2), with the systems renamed to the metric files' names (:func:`mtsig.io.wmt_da.metrics_task_names`,
    from the DA and the human system files) and ordered by :func:`gold_systems`. The organisers' Wilcoxon matrices
    hold the systems of the DA system file: iu-en, km-en and ps-en's segment files also rate a human translation
    (HUMAN) that their system files, and so their gold, leave out."""
    from mtsig.io.wmt_da import metrics_task_names
    from mtsig.settings import QualityControl
    from mtsig.stats.human_gold import build_gold

    renaming = metrics_task_names(da_system_scores, human_system_scores)
    table = segments.table
    rated = table["system"].isin(set(renaming))
    unscored = tuple(sorted(set(table.loc[~rated, "system"])))
    table = table.loc[rated]
    table = table.assign(system=table["system"].map(renaming))
    systems = gold_systems(sorted(set(table["system"])), {})
    result = build_gold(
        replace(segments, table=table), systems, alphas, qc=QualityControl(enabled=False), gold=gold
    )
    return PairGold(systems, unscored, result.gold, result.gold_conclusions)
