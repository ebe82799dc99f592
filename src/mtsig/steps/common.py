"""Readers shared by several steps (the step-side twin of ``workflow/rules/common.smk``): prepared texts, document
ids, metric statistics with their scorer, tests tables and gold tables."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from mtsig.errors import InputError
from mtsig.io.text import read_lines
from mtsig.steps.files import (
    load_stats,
    metric_name_of,
    read_intermediate_tsv,
    regenerate_hint,
    verify_intermediate,
)

if TYPE_CHECKING:
    import pandas as pd

    from mtsig.metrics.base import Metric


log = logging.getLogger("mtsig")


def read_prepared_texts(texts_dir: Path) -> tuple[list[str], dict[str, list[str]]]:
    """The reference and the system outputs written by :func:`prepare_texts`, in system order.

    Raises:
        InputError: a file of the directory fails its manifest check, names no or repeated systems, or a system's
            line count differs from the reference's; the message says how to regenerate the directory.
    """
    texts_dir = Path(texts_dir)

    def read(path: Path) -> list[str]:
        verify_intermediate(path, "prepare_texts", target=texts_dir, expected_format="text")
        return read_lines(path)

    reference = read(texts_dir / "reference.txt")
    names = read(texts_dir / "systems.txt")
    hint = regenerate_hint(texts_dir / "systems.txt", "prepare_texts", texts_dir)
    if not names or "" in names or len(set(names)) != len(names):
        raise InputError(
            f"names no systems, an empty one or a repeated one; {hint}", texts_dir / "systems.txt"
        )
    outputs = {name: read(texts_dir / "systems" / f"{name}.txt") for name in names}
    for name, lines in outputs.items():
        if len(lines) != len(reference):
            raise InputError(
                f"{len(lines)} lines where reference.txt has {len(reference)}; {hint}",
                texts_dir / "systems" / f"{name}.txt",
            )
    return reference, outputs


def read_experiment_systems(texts_dir: Path, documents_path: Path) -> tuple[list[str], int]:
    """The experiment's systems (``texts/systems.txt``) and its number of segments (``documents.tsv``), both of
    rule ``prepare_texts``: what a step needs when the experiment may have no texts."""
    path = Path(texts_dir) / "systems.txt"
    verify_intermediate(path, "prepare_texts", target=Path(texts_dir), expected_format="text")
    names = read_lines(path)
    if not names or "" in names or len(set(names)) != len(names):
        raise InputError(
            "names no systems, an empty one or a repeated one; "
            + regenerate_hint(path, "prepare_texts", Path(texts_dir)),
            path,
        )
    table = read_intermediate_tsv(documents_path, "prepare_texts", columns=("segment", "doc_id"))
    return names, len(table)


def read_prepared_references(texts_dir: Path, first: list[str]) -> list[str] | list[list[str]]:
    """The prepared reference ``first`` (``reference.txt``, as :func:`read_prepared_texts` returns it), or with
    several references (``reference.2.txt``, ...) all of them as reference streams, the form every text metric
    takes."""
    texts_dir = Path(texts_dir)
    streams = [first]
    k = 2
    while (texts_dir / f"reference.{k}.txt").exists():
        path = texts_dir / f"reference.{k}.txt"
        verify_intermediate(path, "prepare_texts", target=texts_dir, expected_format="text")
        lines = read_lines(path)
        if len(lines) != len(first):
            hint = regenerate_hint(path, "prepare_texts", texts_dir)
            raise InputError(f"{len(lines)} lines where reference.txt has {len(first)}; {hint}", path)
        streams.append(lines)
        k += 1
    return streams if len(streams) > 1 else first


def read_segment_documents(path: str | Path, n_segments: int | None = None) -> np.ndarray | None:
    """Document id per segment (``documents.tsv`` of rule ``prepare_texts``), or None when the experiment has
    none. With ``n_segments`` (the statistics' segment count), a file of another length is an error."""
    table = read_intermediate_tsv(path, "prepare_texts", columns=("segment", "doc_id"))
    if n_segments is not None and len(table) != n_segments:
        raise InputError(
            f"{len(table)} segments where the metric statistics have {n_segments}: one of them is stale; "
            + regenerate_hint(path, "prepare_texts", None),
            path,
        )
    doc_ids = table["doc_id"].fillna("").astype(str).to_numpy()
    return None if (doc_ids == "").all() else doc_ids


def load_scored_stats(path: str | Path) -> tuple[np.ndarray, list[str], str, Metric]:
    """A statistics file's (stats, system names, details) and the metric that computed them, rebuilt with the
    options recorded in the file: a score function depends on them (METEOR's parameters and module weights
    follow its language), so every step scores statistics with the settings that produced them."""
    from mtsig.metrics import METRICS, metric_from_options

    stats, systems, details, options = load_stats(path)
    metric = metric_name_of(path)
    if metric not in METRICS and "read_options" not in options:
        raise InputError(
            f"{metric!r} is not a metric (expected one of {', '.join(METRICS)} or a segment_scores metric)",
            path,
        )
    try:
        scorer = metric_from_options(metric, options)
    except (TypeError, ValueError) as error:
        raise InputError(
            f"the recorded options {options} do not fit {metric} ({error}); "
            + regenerate_hint(path, "metric_stats", None),
            path,
        ) from None
    return stats, systems, details, scorer


def oriented_system_scores(stats: Sequence[str | Path]) -> tuple[list[str], dict[str, np.ndarray]]:
    """(systems, metric -> system scores) of an experiment's statistics files (rule ``metric_stats``), each
    metric's corpus score oriented so that higher is better (negated where its ``higher_is_better`` is false)."""
    systems: list[str] = []
    scores: dict[str, np.ndarray] = {}
    for path in stats:
        statistics, names, _, scorer = load_scored_stats(path)
        if not systems:
            systems = list(names)
        check_same_systems(systems, names, path, stats[0], "metric_stats")
        sign = 1.0 if scorer.higher_is_better else -1.0
        scores[metric_name_of(path)] = sign * np.asarray(
            scorer.score(np.asarray(statistics, dtype=np.float64).sum(axis=1)), dtype=np.float64
        )
    return systems, scores


def check_same_systems(
    systems: Sequence[str], other: Sequence[str], path: str | Path, other_path: str | Path, made_by: str
) -> None:
    """Two intermediate files of one experiment must list the same systems in the same order."""
    if list(systems) != list(other):
        raise InputError(
            f"systems {list(other)} differ from {list(systems)} in {other_path}: one of them is stale; "
            + regenerate_hint(path, made_by, None),
            path,
        )


def read_tests_table(path: str | Path) -> pd.DataFrame:
    """A merged tests table (``tests/{metric}.tsv`` of rule ``merge_tests``), checked against its manifest."""
    from mtsig.stats.evaluation import TESTS_COLUMNS

    return read_intermediate_tsv(path, "merge_tests", columns=TESTS_COLUMNS)


def read_gold_table(path: str | Path, columns: Sequence[str] = ()) -> pd.DataFrame:
    """A table of rule ``human_gold`` (gold p-values, gold conclusions, human system scores)."""
    return read_intermediate_tsv(path, "human_gold", columns=tuple(columns))


def sentence_bleu(
    statistics: np.ndarray, options: Mapping[str, object], texts_dir: Path
) -> np.ndarray | None:
    """Smoothed sentence BLEU ``[S, N]`` from the experiment's BLEU statistics when they were extracted as
    ``sacrebleu.sentence_bleu`` extracts them, else None (:func:`mtsig.metrics.bleu.sentence_bleu_if_extracted_alike`;
    one reference when ``texts_dir`` has no ``reference.2.txt``)."""
    from mtsig.metrics import bleu

    return bleu.sentence_bleu_if_extracted_alike(
        statistics, options, not (texts_dir / "reference.2.txt").exists()
    )
