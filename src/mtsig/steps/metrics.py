"""Steps of ``workflow/rules/metrics.smk``: per-segment sufficient statistics and corpus scores."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mtsig.errors import InputError
from mtsig.settings import SegmentScoresMetric, build
from mtsig.steps.common import (
    load_scored_stats,
    read_experiment_systems,
    read_prepared_references,
    read_prepared_texts,
)
from mtsig.steps.files import (
    load_intermediate_arrays,
    metric_name_of,
    per_metric_path,
    save_intermediate_arrays,
    save_stats,
    write_text,
    write_tsv,
)

if TYPE_CHECKING:  # imported by corpus_scores_table only: metric_stats needs no pandas
    import pandas as pd

    from mtsig.metrics.base import References

log = logging.getLogger("mtsig")


def metric_stats(
    *,
    metrics: Sequence[str],
    texts: str | Path,
    stats: str | Path,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    declarations: Mapping[str, SegmentScoresMetric | Mapping[str, Any]] | None = None,
    threads: int = 1,
    data_root: str | Path | None = None,
    documents: str | Path | None = None,
    paraphrases: str | Path | Sequence[str | Path] = (),
) -> None:
    """Every metric's statistics of an experiment, one job for all of them: :func:`write_metric_stats` of each of
    ``metrics`` into the folder ``stats`` (:func:`mtsig.steps.files.per_metric_path`), with its ``options`` (by
    metric; none for a metric read from segment scores) or its ``declarations`` entry. ``paraphrases`` (the index
    of rule meteor_paraphrases, for METEOR in English) goes to METEOR."""
    Path(stats).mkdir(parents=True, exist_ok=True)
    declarations = declarations or {}
    scored = None  # the texts, read (and their manifests checked) once for every metric that scores them
    if any(metric not in declarations for metric in metrics):
        scored = read_scored_texts(Path(texts))
    for metric in metrics:
        write_metric_stats(
            metric,
            texts,
            per_metric_path(stats, "stats", metric),
            options=(options or {}).get(metric),
            declaration=declarations.get(metric),
            threads=threads,
            data_root=data_root,
            documents=documents,
            paraphrases=paraphrases if metric == "meteor" else (),
            scored=scored,
        )


def read_scored_texts(texts: Path) -> tuple[References, dict[str, list[str]]]:
    """What a metric scores from rule prepare_texts' folder ``texts``: the references (reference streams when there
    are several) and every system's output, by system."""
    reference, outputs = read_prepared_texts(texts)
    return read_prepared_references(texts, reference), outputs


def write_metric_stats(
    metric: str,
    texts: str | Path,
    stats: str | Path,
    *,
    options: Mapping[str, Any] | None = None,
    declaration: SegmentScoresMetric | Mapping[str, Any] | None = None,
    threads: int = 1,
    data_root: str | Path | None = None,
    documents: str | Path | None = None,
    paraphrases: str | Path | Sequence[str | Path] = (),
    scored: tuple[References, dict[str, list[str]]] | None = None,
) -> None:
    """Per-segment sufficient statistics of ``metric`` for every system (systems x segments x k), the metric built
    with ``options`` (:meth:`mtsig.settings.Experiment.metric_options`: METEOR's language, BLEU's and TER's
    sacrebleu options; none by default).

    ``paraphrases`` (METEOR in English: the index written by :func:`meteor_paraphrases`, as a path or a list of at
    most one) gives the jar only the entries of its paraphrase table that can match in the experiment: the same
    statistics (:mod:`mtsig.metrics.meteor_paraphrases`). ``scored``: the texts as :func:`read_scored_texts`
    reads them from ``texts``, when the caller has them already.

    A metric read from segment scores (``declaration``: its ``kind: segment_scores`` declaration,
    :class:`mtsig.settings.SegmentScoresMetric`) reads its file (relative to ``data_root``): statistics
    ``[score, 1]`` of every system of the experiment (in ``texts/systems.txt`` order) on every segment of the test
    set (``documents.tsv``'s count), so every later step treats it like a built-in metric.

    Raises:
        InputError: naming the scores file (and line): a system or segment missing, another number of segments.
    """
    from mtsig.metrics import get_metric

    if declaration is not None:
        if data_root is None or documents is None:
            raise InputError(f"metric {metric!r} reads segment scores: give data_root and documents")
        declared = build(SegmentScoresMetric, declaration, f"metrics.{metric}")
        declared_metric_stats(metric, declared, Path(data_root), Path(texts), Path(documents), stats)
        return
    reference, outputs = scored if scored is not None else read_scored_texts(Path(texts))
    scorer = get_metric(metric, **dict(options or {}))
    index_paths = [paraphrases] if isinstance(paraphrases, str | Path) else list(paraphrases)
    extra = {}
    if index_paths:
        if len(index_paths) > 1:
            raise InputError(f"one paraphrase index at most, given {len(index_paths)}")
        extra["paraphrases"] = load_intermediate_arrays(index_paths[0], "meteor_paraphrases")
    statistics = scorer.stats_many(outputs, reference, processes=threads, **extra)
    save_stats(stats, statistics, list(outputs), scorer.details(), scorer.options)
    log.info("%s: stats %s; %s", metric, statistics.shape, scorer.details())


def declared_metric_stats(
    metric: str,
    declaration: SegmentScoresMetric,
    data_root: Path,
    texts: Path,
    documents: Path,
    stats: str | Path,
) -> None:
    """:func:`write_metric_stats` of a metric declared with ``kind: segment_scores``: statistics ``[score, 1]`` of every
    system of ``texts/systems.txt`` on every segment of ``documents.tsv``, from the declared scores file. The
    options recorded with them name that file as declared (relative to the data root, unless absolute), so that
    the statistics are byte-identical wherever the data root is."""
    from mtsig.metrics.segment_scores import SegmentScores

    systems, n_segments = read_experiment_systems(texts, documents)
    scorer = SegmentScores.from_declaration(metric, declaration, data_root)
    if scorer.n_segments != n_segments:
        raise InputError(
            f"metric {metric!r} scores {scorer.n_segments} segments but the test set has {n_segments}",
            scorer.options["path"],
        )
    statistics = scorer.stats_for(systems, n_segments)
    # the file as declared (relative to the data root), not where this machine keeps it: the same bytes everywhere
    options = {**scorer.options, "path": str(declaration.path)}
    save_stats(stats, statistics, systems, scorer.details(), options)
    log.info("%s: stats %s; %s", metric, statistics.shape, scorer.details())


def meteor_paraphrases(index: str | Path) -> None:
    """The index of Meteor's English paraphrase table (pycocoevalcap's ``paraphrase-en.gz``) from which each
    English METEOR job takes the entries that can match in its experiment
    (:func:`mtsig.metrics.meteor_paraphrases.build_paraphrase_index`); made once per run, and built once per
    machine (:func:`~mtsig.metrics.meteor_paraphrases.cached_paraphrase_index`)."""
    from mtsig.metrics.meteor_paraphrases import cached_paraphrase_index, paraphrase_table

    table = paraphrase_table()
    arrays, from_cache = cached_paraphrase_index(table)
    save_intermediate_arrays(index, arrays, made_by="meteor_paraphrases", settings={"table": table.name})
    log.info(
        "meteor_paraphrases: %d entries, %d distinct phrases (%s)",
        len(arrays["entry_phrase"]),
        len(arrays["phrase_hash"]),
        "from the cache" if from_cache else "built",
    )


def corpus_scores_table(stats_paths: Sequence[str | Path]) -> pd.DataFrame:
    """system, metric, score, details: each system's corpus score from its summed statistics."""
    import pandas as pd

    rows = []
    for path in stats_paths:
        metric = metric_name_of(path)
        stats, systems, details, scorer = load_scored_stats(path)
        scores = scorer.score(stats.sum(axis=1))
        rows += [
            (system, metric, float(score), details) for system, score in zip(systems, scores, strict=True)
        ]
    return pd.DataFrame(rows, columns=["system", "metric", "score", "details"])


def corpus_scores(stats: Sequence[str | Path], scores: str | Path, html: str | Path) -> None:
    """``scores.tsv``: every system's corpus score per metric (:func:`corpus_scores_table`); ``html`` the same
    table as a page for the report."""
    from mtsig.report.html import markdown_page
    from mtsig.report.tables import frame_to_markdown

    table = corpus_scores_table(stats)
    write_tsv(table, scores)
    heading = f"# Corpus scores: {Path(scores).parent.name}\n\n"
    write_text(markdown_page(heading + frame_to_markdown(table, float_format="{:.6g}")), html)
