"""``human.format: tidy``: the tidy ratings TSV (UTF-8, TAB-separated, one header line, one rating per line; the
columns of :mod:`mtsig.io.human`), as ratings, ratings already standardised, or per-segment means of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.io.human import (
    DA_SCORE_RANGE,
    ITEM_TYPES,
    TIDY_COLUMNS,
    JudgmentRequest,
    Ratings,
    check_reference_systems,
)
from mtsig.io.human.parsing import (
    fail_repeated,
    parse_lines_1based,
    parse_scores,
    parse_segments_0based,
    read_delimited,
)
from mtsig.io.segment_scores import check_exact_repeats, fail_first
from mtsig.io.tidy_columns import missing_columns_message, respelt

#: The columns the tidy ratings format reads under another spelling too (:data:`mtsig.io.tidy_columns.SPELLINGS`).
SPELT_COLUMNS = ("annotator", "segment")


def _check_header(
    frame: pd.DataFrame,
    header: list[str],
    path: Path,
    header_line: int,
    *,
    standardised: bool,
    segment_means: bool,
) -> None:
    """Every column the options need is in the header: ``annotator`` unless ``segment_means``, ``system segment``,
    ``item_type`` unless ``segment_means``, ``criterion``, and ``z`` (standardised) or ``raw_score``; the message
    names a missing column with its aliases and shows a correct header line
    (:func:`mtsig.io.tidy_columns.missing_columns_message`), and a standardised file with its scores in ``raw_score``
    or ``score`` is told where they go (``header``: the header as the file spells it)."""
    required = ["system", "segment", "criterion"] if segment_means else [*TIDY_COLUMNS[:-1]]
    required += ["z"] if standardised else ["raw_score"]
    message = missing_columns_message(header, required)
    if message is None:
        return
    if "score" in frame.columns and not {"raw_score", "z"} & set(frame.columns):
        message += " (a rating is raw_score in this format, its standardised score z: rename score)"
    elif standardised and "z" not in frame.columns and "raw_score" in frame.columns:
        option = "segment_means: true" if segment_means else "standardised: true"
        message += (
            f" ({option} reads the standardised scores from a column named z; raw_score, if present, holds the "
            "raw scores: rename your score column to z)"
        )
    raise InputError(message, path, header_line)


def _check_labels(
    frame: pd.DataFrame,
    lines: np.ndarray,
    path: Path,
    references: Sequence[str],
    systems: Iterable[str] | None,
    segment_means: bool,
) -> pd.DataFrame:
    """The rows' labels filled in and checked: segment means without ``annotator``/``item_type`` get ``""`` and
    ``system``; the ``system`` items of ``references`` become ``ref``; an unknown item type, an empty system,
    criterion or annotator, or a system neither in ``systems`` nor rated as ``ref`` is an error at its line."""
    if segment_means:
        if "annotator" not in frame.columns:
            frame["annotator"] = ""
        if "item_type" not in frame.columns:
            frame["item_type"] = "system"
    if references:
        frame.loc[frame["system"].isin(set(references)) & (frame["item_type"] == "system"), "item_type"] = (
            "ref"
        )
    fail_first(
        ~frame["item_type"].isin(ITEM_TYPES).to_numpy(),
        lines,
        path,
        [f"item_type {t!r} is not one of {', '.join(ITEM_TYPES)}" for t in frame["item_type"]],
    )
    fail_first((frame["system"] == "").to_numpy(), lines, path, "empty system")
    fail_first((frame["criterion"] == "").to_numpy(), lines, path, "empty criterion")
    if not segment_means:
        fail_first((frame["annotator"] == "").to_numpy(), lines, path, "empty annotator")
    _check_known_systems(frame, lines, path, systems)
    return frame


def _check_known_systems(
    frame: pd.DataFrame, lines: np.ndarray, path: Path, systems: Iterable[str] | None
) -> None:
    """A rated system that is neither in ``systems`` (when given) nor a rated reference (item type ``ref``) is an
    error at its first line that says how the rows name their systems."""
    if systems is None:
        return
    known = set(systems)
    unknown = ~frame["system"].isin(known | set(frame.loc[frame["item_type"] == "ref", "system"])).to_numpy()
    if unknown.any():
        first = int(np.flatnonzero(unknown)[0])
        name = frame["system"].iloc[first]
        raise InputError(
            f"unknown system {name!r} (known: {', '.join(sorted(known))}): name each row's system as the "
            "experiment's systems: list names it (the {system} of its outputs: path); a human reference rated "
            "as a candidate goes in human.reference_systems, or gets item_type ref",
            path,
            int(lines[first]),
        )


def _parsed_numbers(
    frame: pd.DataFrame,
    lines: np.ndarray,
    path: Path,
    *,
    n_segments: int | None,
    score_range: tuple[float, float] | None,
    standardised: bool,
    segment_means: bool,
) -> pd.DataFrame:
    """The rows with ``segment``, ``raw_score`` (NaN when absent or empty), ``z`` and ``n`` parsed; with
    ``segment_means`` a (system, segment, criterion) given twice is an error naming both lines."""
    out = frame.copy()
    out["segment"] = parse_segments_0based(frame["segment"], lines, path, n_segments)
    if "raw_score" in frame.columns and frame["raw_score"].ne("").any():
        out["raw_score"] = parse_scores(
            frame["raw_score"], lines, path, None if standardised else score_range
        )
    else:
        out["raw_score"] = np.nan
    if standardised:
        out["z"] = parse_scores(frame["z"], lines, path, None)
    if segment_means:
        if "n" in frame.columns:
            out["n"] = parse_lines_1based(frame["n"], lines, path, None, "n") + 1
        group = out.groupby(["system", "segment", "criterion"], sort=False).ngroup().to_numpy()
        fail_repeated(
            group,
            lines,
            path,
            lambda _, first: f"segment_means: (system, segment, criterion) already given at line {first}",
        )
    return out


def load_tidy(
    path: str | Path,
    *,
    standardised: bool = False,
    segment_means: bool = False,
    n_segments: int | None = None,
    systems: Iterable[str] | None = None,
    score_range: tuple[float, float] | None = DA_SCORE_RANGE,
    reference_systems: Sequence[str] = (),
) -> Ratings:
    """Read the tidy ratings TSV (UTF-8, TAB-separated, one header line, one rating per line).

    Columns: ``annotator system segment item_type criterion raw_score`` (see :mod:`mtsig.io.human`; ``segment``
    is the 0-based line, ``item_type`` one of system/repeat/bad_ref/ref) and optionally ``hit`` (pairing group for
    QC): the canonical names of the tidy layout family (:mod:`mtsig.io.tidy_columns`), whose aliases ``rater`` and
    ``item`` are read as ``annotator`` and ``segment``. A missing column is an error naming it, its aliases and a
    correct header line; a system not in ``systems`` one saying how to name the rows. Extra columns are kept.
    Blank lines and lines starting with ``#`` are skipped (and counted in line numbers).

    - ``standardised=True``: the scores are already standardised per annotator, in a column named ``z``;
      ``raw_score`` may then be absent (filled with NaN) or hold the raw scores, and is not range-checked.
    - ``segment_means=True`` (implies standardised): one row per (system, segment, criterion) holding the
      mean z of that segment's ratings, in ``z``; ``annotator`` and ``item_type`` may be absent (filled with
      ``""`` and ``system``); an optional ``n`` column counts the ratings averaged. Duplicate (system, segment,
      criterion) rows are an error naming both lines.

    A rating repeated exactly (every column equal) is an error naming both lines: give a deliberate second rating
    the item type ``repeat``, or a ``hit`` column that tells the two apart. ``score_range`` (default 0..100) bounds
    ``raw_score``; pass ``None`` for other scales.

    ``reference_systems``: systems that are a human reference rated as a candidate (``human.reference_systems``);
    their ``system`` items become ``ref`` items, kept out of the gold and the system scores, as an ``item_type``
    column saying ``ref`` does (a file without that column, e.g. segment means, needs this list). A listed name
    that is also in ``systems`` is an error.
    """
    path = Path(path)
    references = check_reference_systems(reference_systems, systems, path)
    standardised = standardised or segment_means
    frame, lines, header_line = read_delimited(path, "\t", comments=True)
    header = list(map(str, frame.columns))
    frame = frame.rename(columns=respelt(header, SPELT_COLUMNS))
    _check_header(frame, header, path, header_line, standardised=standardised, segment_means=segment_means)
    check_exact_repeats(frame, lines, path, "rating", "give a deliberate second rating item_type repeat")
    frame = _check_labels(frame, lines, path, references, systems, segment_means)
    out = _parsed_numbers(
        frame,
        lines,
        path,
        n_segments=n_segments,
        score_range=score_range,
        standardised=standardised,
        segment_means=segment_means,
    )
    ordered = [*TIDY_COLUMNS, *[c for c in out.columns if c not in TIDY_COLUMNS]]
    return Ratings(out[ordered].reset_index(drop=True), path)


def read_judgments(request: JudgmentRequest) -> Ratings:
    """The ratings of ``human.path``: raw, ``human.standardised`` or ``human.segment_means``; the rated
    references ``human.reference_systems`` kept apart."""
    human = request.human
    return load_tidy(
        request.path(),
        standardised=human.standardised,
        segment_means=human.segment_means,
        n_segments=request.n_segments,
        systems=request.systems,
        reference_systems=human.reference_systems or (),
    )
