"""Loaders for human judgments on an absolute scale (Direct Assessment, DA) into one tidy ratings table.

The tidy ratings table (a pandas DataFrame, one row per rating) is what :mod:`mtsig.stats.human` works on:

============ =========================================================================================
column       meaning
============ =========================================================================================
annotator    the rater (worker id, Appraise user name, ...); standardisation is per annotator
system       the system whose output was rated, named like the experiment's output files
segment      0-based line of the segment in the test set (source, reference and every output)
item_type    ``system`` (a real item), ``repeat`` (a second rating of a system item, QC),
             ``bad_ref`` (a degraded candidate, QC) or ``ref`` (the human reference rated as a candidate)
criterion    ``adequacy``, ``fluency``, ... (standardisation and the gold are per criterion)
raw_score    the score as given (0-100 for DA)
hit          optional: the HIT / task the rating belongs to; quality control pairs a ``bad_ref`` item with
             its original inside the same (annotator, hit) when this column is present
============ =========================================================================================

Paper: Graham, Mathur & Baldwin (2014), Sec. 4 (crowd-sourced adequacy and fluency scores with QC items, as in
Graham et al. 2013). Every loader validates every row and raises :class:`mtsig.errors.InputError` naming the file,
the line and the problem; nothing partial is returned. Line numbers are the file's own physical lines (blank lines,
and the comment lines the tidy format allows, are counted). A missing, empty, header-only, binary or non-UTF-8 file
is an error, and so is a rating repeated exactly (every field equal): it would be counted twice, changing n and the
gold's p-values, so the error names both lines.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.io.segment_scores import check_exact_repeats, fail_first, read_data_lines, split_fields

ITEM_TYPES = ("system", "repeat", "bad_ref", "ref")
TIDY_COLUMNS = ("annotator", "system", "segment", "item_type", "criterion", "raw_score")
DA_SCORE_RANGE = (0.0, 100.0)
# MTurk "Input.item" codes used by the WMT / Graham et al. HIT templates.
CRITERION_CODES = {"ad": "adequacy", "fl": "fluency"}
_NUMERIC_SUFFIX = re.compile(r"\.\d+$")
# A reconstructed raw score (z * sd + mean) is an integer up to floating-point error (README: <= 2.2e-13).
_INTEGER_TOLERANCE = 1e-6


def _fail_repeated(
    keys: np.ndarray, lines: np.ndarray, path: Path, problem: Callable[[Any, Any], str]
) -> None:
    """Raise an InputError at the first row whose key an earlier row already has; its message is
    ``problem(key, line of the key's first row)``."""
    duplicated = pd.Series(keys).duplicated().to_numpy()
    first_line = pd.Series(lines).groupby(keys).transform("first").to_numpy()
    fail_first(duplicated, lines, path, [problem(k, f) for k, f in zip(keys, first_line, strict=True)])


def _parse_scores(
    values: pd.Series,
    lines: np.ndarray,
    path: Path,
    score_range: tuple[float, float] | None,
    integer: bool = False,
) -> np.ndarray:
    """Scores as floats; a non-numeric, non-finite, out-of-range (or, if ``integer``, non-integral) value is an
    error at its line. Integral scores within 1e-6 of an integer are rounded to it."""
    numbers = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    not_numeric = ~np.isfinite(numbers)
    fail_first(not_numeric, lines, path, [f"score {v!r} is not a finite number" for v in values])
    if integer:
        rounded = np.round(numbers)
        fail_first(
            np.abs(numbers - rounded) > _INTEGER_TOLERANCE,
            lines,
            path,
            [f"score {v!r} is not an integer" for v in values],
        )
        numbers = rounded
    if score_range is not None:
        low, high = score_range
        fail_first(
            (numbers < low) | (numbers > high),
            lines,
            path,
            [f"score {v!r} is outside {low:g}..{high:g}" for v in values],
        )
    return numbers


def _parse_lines_1based(
    values: pd.Series, lines: np.ndarray, path: Path, n_segments: int | None, what: str
) -> np.ndarray:
    """1-based test-set line numbers -> 0-based segments; non-integers and lines outside 1..n are errors."""
    numbers = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(numbers) | (numbers != np.round(numbers))
    fail_first(bad, lines, path, [f"{what} {v!r} is not an integer" for v in values])
    numbers = numbers.astype(np.int64)
    if n_segments is not None:
        outside = (numbers < 1) | (numbers > n_segments)
        fail_first(
            outside, lines, path, [f"{what} {v} is outside the test set (1..{n_segments})" for v in numbers]
        )
    return numbers - 1


def _parse_segments_0based(
    values: pd.Series, lines: np.ndarray, path: Path, n_segments: int | None
) -> np.ndarray:
    """0-based segment numbers; non-integers, negatives and segments >= n are errors."""
    numbers = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(numbers) | (numbers != np.round(numbers))
    fail_first(bad, lines, path, [f"segment {v!r} is not an integer" for v in values])
    upper = np.inf if n_segments is None else n_segments
    outside = (numbers < 0) | (numbers >= upper)
    fail_first(
        outside,
        lines,
        path,
        [f"segment {v} is outside the test set (0..{upper - 1:g}, 0-based)" for v in values],
    )
    return numbers.astype(np.int64)


def _check_known_systems(
    names: pd.Series, lines: np.ndarray, path: Path, systems: Iterable[str] | None, allowed_extra: set[str]
) -> None:
    """A system not among ``systems`` (when given) is an error at its first line."""
    if systems is None:
        return
    known = set(systems) | allowed_extra
    unknown = ~names.isin(known).to_numpy()
    fail_first(
        unknown,
        lines,
        path,
        [f"unknown system {n!r} (known: {', '.join(sorted(known))})" for n in names],
    )


def _require_columns(
    frame: pd.DataFrame, required: Iterable[str], path: Path, line: int = 1, hint: str = ""
) -> None:
    missing = [c for c in required if c not in frame.columns]
    if missing:
        found = ", ".join(map(str, frame.columns))
        raise InputError(
            f"missing column(s) {', '.join(missing)}; found {found[:200]}"
            + (hint or " (the first line must be the header naming the columns)"),
            path,
            line,
        )


def _read_delimited(
    path: Path,
    sep: str,
    *,
    names: Sequence[str] | None = None,
    comments: bool = False,
    quoted_csv: bool = False,
) -> tuple[pd.DataFrame, np.ndarray, int]:
    """The rows of a delimited UTF-8 file as strings, with each row's physical line number.

    The first non-blank (non-comment) line is the header unless ``names`` are given. Blank lines are skipped and
    ``#`` lines too when ``comments``, but both are counted, so a line number is the one an editor shows (pandas'
    ``skip_blank_lines`` would shift every later line). Fields are split on ``sep`` without quoting, or with the
    ``csv`` module's quoting when ``quoted_csv`` (one record per line). Returns (rows, their lines, the header's
    line, 0 without a header line).

    Raises:
        InputError: the file is missing, empty, binary or not UTF-8; the header names a column twice; there are
            no rows; a row has another number of fields than the header.
    """
    texts, lines = read_data_lines(path)
    if comments:
        keep = np.fromiter((not t.lstrip().startswith("#") for t in texts), dtype=bool, count=len(texts))
        texts, lines = [t for t, k in zip(texts, keep, strict=True) if k], lines[keep]
        if not texts:
            raise InputError("no header and no rows: only comment lines", path)

    def split(text_lines: Sequence[str]) -> list[list[str]]:
        if quoted_csv:
            return list(csv.reader(text_lines))
        return [text.split(sep) for text in text_lines]

    header_line = 0
    if names is None:
        header = [name.strip() for name in split(texts[:1])[0]]
        header_line = int(lines[0])
        repeated = sorted({name for name in header if header.count(name) > 1})
        if repeated:
            raise InputError(f"the header names column(s) {', '.join(repeated)} twice", path, header_line)
        texts, lines = texts[1:], lines[1:]
    else:
        header = list(names)
    if not texts:
        raise InputError(
            "no rows after the header" if names is None else "no rows", path, header_line or None
        )
    layout = f"the header's columns, {'comma' if sep == ',' else 'TAB'}-separated"
    if quoted_csv:
        rows = split(texts)
        counts = np.fromiter((len(row) for row in rows), dtype=np.int64, count=len(rows))
        bad = counts != len(header)
        if bad.any():
            first = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"{counts[first]} fields, expected {len(header)} ({layout})", path, int(lines[first])
            )
    else:
        rows = split_fields(texts, lines, path, len(header), sep, layout)
    return pd.DataFrame(rows, columns=header, dtype=str), lines, header_line


def strip_numeric_suffix(system_id: str) -> str:
    """WMT DA system id -> output name: drop a trailing ``.<digits>`` (``DLUT.6`` -> ``DLUT``; WMT22 README)."""
    return _NUMERIC_SUFFIX.sub("", system_id)


def load_sid2line(path: str | Path, n_segments: int) -> dict[int, int]:
    """Read a DA sid -> text line map (TSV with header; columns ``da_sid`` and ``txt_line``, 1-based line).

    Returns ``{sid: 0-based segment}``. Used for WMT22 ja-en, whose DA sid is not the line number (README of
    ``wmt22-ja-en``: documents sorted by id, segments numbered from 1 in that order).
    """
    path = Path(path)
    frame, lines, header_line = _read_delimited(path, "\t")
    _require_columns(frame, ("da_sid", "txt_line"), path, header_line)
    sids = pd.to_numeric(frame["da_sid"], errors="coerce").to_numpy(dtype=float)
    fail_first(~np.isfinite(sids), lines, path, [f"da_sid {v!r} is not an integer" for v in frame["da_sid"]])
    segments = _parse_lines_1based(frame["txt_line"], lines, path, n_segments, "txt_line")
    _fail_repeated(
        sids, lines, path, lambda sid, first: f"da_sid {int(sid)} is listed twice (first at line {first})"
    )
    return dict(zip(sids.astype(np.int64).tolist(), segments.tolist(), strict=True))


#: WMT MTurk DA ``type`` -> item type.
WMT_DA_ITEM_TYPES = {"SYSTEM": "system", "REPEAT": "repeat", "BAD_REF": "bad_ref", "REF": "ref"}


def _da_segments_and_systems(
    sids: pd.Series,
    sid_labels: Sequence[str],
    system_ids: pd.Series,
    lines: np.ndarray,
    path: Path,
    sid2line_path: str | Path,
    n_segments: int,
    systems: Iterable[str] | None,
) -> tuple[pd.Series, pd.Series]:
    """WMT DA ``sid``s through the sid2line map -> segments, system ids minus their ``.<digits>`` suffix -> systems;
    a sid outside the map (named by ``sid_labels``) or an unknown system is an error at its line."""
    segment = sids.map(load_sid2line(sid2line_path, n_segments))
    fail_first(
        segment.isna().to_numpy(),
        lines,
        path,
        [f"DA sid {label} is not in the sid2line map {sid2line_path}" for label in sid_labels],
    )
    system = system_ids.map(strip_numeric_suffix)
    _check_known_systems(system, lines, path, systems, set())
    return segment, system


def load_wmt_mturk_da(
    path: str | Path,
    sid2line_path: str | Path,
    n_segments: int,
    *,
    systems: Iterable[str] | None = None,
) -> pd.DataFrame:
    """Read a WMT MTurk DA per-rating file (e.g. WMT22 ``ad-jaen-good-raw.RECONSTRUCTED.tsv``) as tidy ratings.

    Format: TAB-separated with a header naming at least ``HITId WorkerId Input.item sys_id type sid score``.
    Mapping: ``WorkerId`` -> annotator; ``sys_id`` minus its ``.<digits>`` suffix -> system; ``sid`` through the
    sid2line map -> segment; ``type`` SYSTEM/REPEAT/BAD_REF/REF -> system/repeat/bad_ref/ref; ``Input.item``
    (``ad``/``fl``) -> criterion; ``HITId`` -> hit. Scores must be 0..100 and integral: the ja-en raw scores are
    reconstructed as ``z * sd + mean`` (floats within 2.2e-13 of an integer), so values within 1e-6 of an integer
    are rounded to it and anything else is an error. A row repeated exactly (every field, the time included) is an
    error naming both lines; WMT marks a deliberate second rating as ``REPEAT``.
    On REF/BAD_REF/REPEAT rows ``sys_id`` names the system whose slot was used; it is kept as the system.
    """
    path = Path(path)
    frame, lines, header_line = _read_delimited(path, "\t")
    _require_columns(
        frame, ("HITId", "WorkerId", "Input.item", "sys_id", "type", "sid", "score"), path, header_line
    )
    check_exact_repeats(frame, lines, path, "rating", "")
    item_type = frame["type"].map(WMT_DA_ITEM_TYPES)
    fail_first(item_type.isna().to_numpy(), lines, path, [f"unknown item type {t!r}" for t in frame["type"]])
    criterion = frame["Input.item"].map(CRITERION_CODES)
    fail_first(
        criterion.isna().to_numpy(), lines, path, [f"unknown Input.item {c!r}" for c in frame["Input.item"]]
    )
    sid_labels = [repr(s) for s in frame["sid"]]
    segment, system = _da_segments_and_systems(
        pd.to_numeric(frame["sid"], errors="coerce"),
        sid_labels,
        frame["sys_id"],
        lines,
        path,
        sid2line_path,
        n_segments,
        systems,
    )
    fail_first((frame["WorkerId"] == "").to_numpy(), lines, path, "empty WorkerId")
    scores = _parse_scores(frame["score"], lines, path, DA_SCORE_RANGE, integer=True)
    return pd.DataFrame(
        {
            "annotator": frame["WorkerId"].to_numpy(),
            "system": system.to_numpy(),
            "segment": segment.to_numpy(dtype=np.int64),
            "item_type": item_type.to_numpy(),
            "criterion": criterion.to_numpy(),
            "raw_score": scores,
            "hit": frame["HITId"].to_numpy(),
        }
    )


def load_wmt_mturk_da_z(
    path: str | Path, ratings: pd.DataFrame, sid2line_path: str | Path, n_segments: int
) -> np.ndarray:
    """The organisers' z-score of every rating, from their per-rating file with z in the ``score`` column (WMT22
    ``ad-<lp>-good-stnd.csv``: its header line space-separated, its rows TAB-separated), in the order of
    ``ratings`` (:func:`load_wmt_mturk_da` of the raw file, which has the same rows in the same order). A row whose
    worker, HIT, system, item type or segment is not the rating's at the same position, a different number of
    rows, or a z that is not a finite number is an error at its line."""
    path = Path(path)
    texts, lines = read_data_lines(path)
    header = texts[0].split()
    rows = [text.split("\t") for text in texts[1:]]
    lines = lines[1:]
    widths = np.array([len(row) for row in rows])
    fail_first(
        widths != len(header), lines, path, [f"{w} fields, the header names {len(header)}" for w in widths]
    )
    frame = pd.DataFrame(rows, columns=header)
    _require_columns(frame, ("HITId", "WorkerId", "sys_id", "type", "sid", "score"), path, int(lines[0]) - 1)
    if len(frame) != len(ratings):
        raise InputError(f"{len(frame)} ratings, the raw file has {len(ratings)}: not the same rows", path)
    sid2line = load_sid2line(sid2line_path, n_segments)
    same = (
        (frame["WorkerId"].to_numpy() == ratings["annotator"].to_numpy())
        & (frame["HITId"].to_numpy() == ratings["hit"].to_numpy())
        & (frame["sys_id"].map(strip_numeric_suffix).to_numpy() == ratings["system"].to_numpy())
        & (frame["type"].map(WMT_DA_ITEM_TYPES).to_numpy() == ratings["item_type"].to_numpy())
        & (
            pd.to_numeric(frame["sid"], errors="coerce").map(sid2line).to_numpy()
            == ratings["segment"].to_numpy()
        )
    )
    fail_first(
        ~same,
        lines,
        path,
        "not the rating at the same position of the raw file (worker, HIT, system, type or sid)",
    )
    return _parse_scores(frame["score"], lines, path, None)


def load_wmt_mturk_da_segment_means(
    path: str | Path, sid2line_path: str | Path, n_segments: int, *, systems: Iterable[str] | None = None
) -> pd.DataFrame:
    """The WMT22 MTurk DA organisers' per-(system, segment) means (``ad-seg-scores-<lp>.csv``, read by
    :func:`mtsig.io.wmt_da.read_wmt_da_seg_scores`) keyed as :func:`load_wmt_mturk_da` keys ratings: ``SYS`` minus
    its ``.<digits>`` suffix -> system, the DA ``SID`` through the sid2line map -> segment. Columns ``system,
    segment, criterion, raw_score, z, n, line``; a SID outside the map or an unknown system is an error at its line.
    """
    from mtsig.io.wmt_da import read_wmt_da_seg_scores

    path = Path(path)
    frame = read_wmt_da_seg_scores(path)
    lines = frame["line"].to_numpy()
    segment, system = _da_segments_and_systems(
        frame["segment"] + 1,
        [str(sid + 1) for sid in frame["segment"]],
        frame["system"],
        lines,
        path,
        sid2line_path,
        n_segments,
        systems,
    )
    return frame.assign(system=system, segment=segment.to_numpy(dtype=np.int64))


def restore_unrated_cells(
    ratings: pd.DataFrame,
    segment_means: pd.DataFrame,
    moments: pd.DataFrame,
    annotator: str,
    source: str | Path | None = None,
) -> pd.DataFrame:
    """The ratings of a zero-variance worker that a public per-rating file leaves out, restored from the
    organisers' per-(system, segment) means (WMT22 MTurk DA, Kocmi et al. 2022: ja-en's worker M0250 scored
    every item 0; the organisers kept it with z = 0, but ``ad-jaen-good-stnd.csv`` omits its 74 ratings, 67 cells
    of which no other worker rated).

    A cell of ``segment_means`` (system, segment, criterion, raw_score, z, n) that no SYSTEM or REPEAT rating of
    ``ratings`` covers was rated only by workers absent from ``ratings``. ``annotator`` (named in the config: the
    files cannot tell apart workers with identical scores) must have printed sd 0 in ``moments`` and no rating, so
    every one of its scores equals its printed mean and each such cell is exactly ``n`` ratings of that score: they
    are added as item type ``system``, the cell's criterion, that annotator. A cell whose raw mean is not that
    score or whose z is not 0 is an error (the files would not belong together). Cells that ``annotator`` shares
    with other workers cannot be restored; the organisers' means of those cells then differ from the ratings'
    (a test compares every cell).
    """
    rated = ratings.loc[
        ratings["item_type"].isin(["system", "repeat"]), ["system", "segment"]
    ].drop_duplicates()
    cells = segment_means.merge(rated, on=["system", "segment"], how="left", indicator=True)
    cells = cells.loc[cells["_merge"] == "left_only"]
    printed = moments.set_index("annotator")
    if annotator not in printed.index or printed.loc[annotator, "sd"] != 0:
        raise InputError(f"worker {annotator!r} has no printed sd of 0 in standardise.moments", source)
    if (ratings["annotator"] == annotator).any():
        raise InputError(f"worker {annotator!r} already has ratings: nothing of theirs is missing", source)
    score, worker = float(printed.loc[annotator, "mean"]), annotator
    wrong = cells.loc[(cells["raw_score"] != score) | (cells["z"] != 0)]
    if not wrong.empty:
        row = wrong.iloc[0]
        raise InputError(
            f"the unrated cell ({row['system']}, segment {row['segment']}) has raw mean {row['raw_score']} and z "
            f"{row['z']}: not the all-{score:g} ratings of zero-variance worker {worker}",
            source,
        )
    restored = cells.loc[cells.index.repeat(cells["n"].to_numpy(dtype=np.int64))]
    added = pd.DataFrame(
        {
            "annotator": worker,
            "system": restored["system"].to_numpy(),
            "segment": restored["segment"].to_numpy(dtype=np.int64),
            "item_type": "system",
            "criterion": restored["criterion"].to_numpy(),
            "raw_score": score,
        }
    )
    if "z" in ratings.columns:  # z given by the organisers: the worker's is 0 (checked above)
        added["z"] = 0.0
    for column in ratings.columns.difference(added.columns):
        added[column] = f"restored:{worker}" if column == "hit" else np.nan
    return pd.concat([ratings, added[ratings.columns]], ignore_index=True)


_APPRAISE_HYP = re.compile(r"\.hyp\.(?P<name>.+)\.[^.]+$")
_APPRAISE_REF = re.compile(r"\.ref\.(?P<name>[^.]+)\.[^.]+$")


def appraise_system_name(
    file_name: str, reference_systems: Mapping[str, str] | None = None
) -> tuple[str, bool]:
    """Appraise ``system`` value (an output file name) -> (system name, is the human reference).

    ``generaltest2022.en-liv.hyp.TartuNLP.liv.txt`` -> ``("TartuNLP", False)``. A name listed in
    ``reference_systems`` (file name -> pseudo-system name) is a reference; otherwise a ``.ref.<id>.`` file is the
    reference pseudo-system ``ref.<id>`` (``...ref.A.liv.txt`` -> ``("ref.A", True)``). Returns ``("", False)``
    when neither pattern applies.
    """
    if reference_systems and file_name in reference_systems:
        return reference_systems[file_name], True
    stem = file_name[: -len(".txt")] if file_name.endswith(".txt") else file_name
    match = _APPRAISE_REF.search(stem)
    if match:
        return f"ref.{match['name']}", True
    match = _APPRAISE_HYP.search(stem)
    return (match["name"], False) if match else ("", False)


def load_appraise_da(
    path: str | Path,
    header_path: str | Path,
    n_segments: int,
    source_language: str = "eng",
    target_language: str = "liv",
    reference_systems: Mapping[str, str] | None = None,
    *,
    criterion: str = "adequacy",
    systems: Iterable[str] | None = None,
) -> pd.DataFrame:
    """Read an Appraise segment-level DA export (WMT22 ``*.SegLvl*.csv``) as tidy ratings.

    The file has no header; its column names are the single line of ``header_path``
    (``username,system,itemId,itemType,srcLang,trgLang,score,...``). Only rows of the language pair
    ``source_language -> target_language`` are kept (the en-liv file also holds liv-eng rows). ``itemId`` is the
    1-based line of the segment. ``itemType`` TGT -> ``system`` (``ref`` for the human reference rated blind as a
    system, so it stays apart from MT systems), BAD -> ``bad_ref``, REF -> ``ref``. System names come from
    :func:`appraise_system_name`. Source-based DA is an adequacy judgment, hence ``criterion="adequacy"``.
    Appraise has no HIT column here, so quality control pairs within the annotator. A row repeated exactly
    (the time stamps included) is an error naming both lines.
    """
    path, header_path = Path(path), Path(header_path)
    header_text, header_lines = read_data_lines(header_path)
    names = [c.strip() for c in next(csv.reader(header_text[:1]))]
    required = ("username", "system", "itemId", "itemType", "srcLang", "trgLang", "score")
    missing = [c for c in required if c not in names]
    if missing:
        raise InputError(
            f"missing column name(s) {', '.join(missing)} in the header file; found {', '.join(names)[:200]}",
            header_path,
            int(header_lines[0]),
        )
    frame, lines, _ = _read_delimited(path, ",", names=names, quoted_csv=True)
    check_exact_repeats(frame, lines, path, "rating", "")
    keep = ((frame["srcLang"] == source_language) & (frame["trgLang"] == target_language)).to_numpy()
    if not keep.any():
        raise InputError(f"no {source_language}-{target_language} rows", path)
    frame, lines = frame.loc[keep].reset_index(drop=True), lines[keep]
    parsed = [appraise_system_name(name, reference_systems) for name in frame["system"]]
    system = pd.Series([p[0] for p in parsed])
    is_reference = np.array([p[1] for p in parsed], dtype=bool)
    fail_first(
        (system == "").to_numpy(),
        lines,
        path,
        [
            f"cannot derive a system name from {n!r} (expected *.hyp.<system>.<lang>.txt)"
            for n in frame["system"]
        ],
    )
    _check_known_systems(system, lines, path, systems, set(system[is_reference]))
    type_map = {"TGT": "system", "BAD": "bad_ref", "REF": "ref"}
    item_type = frame["itemType"].map(type_map)
    fail_first(
        item_type.isna().to_numpy(), lines, path, [f"unknown itemType {t!r}" for t in frame["itemType"]]
    )
    item_type = item_type.to_numpy(dtype=object)
    item_type[is_reference & (item_type == "system")] = "ref"
    fail_first((frame["username"] == "").to_numpy(), lines, path, "empty username")
    segment = _parse_lines_1based(frame["itemId"], lines, path, n_segments, "itemId")
    scores = _parse_scores(frame["score"], lines, path, DA_SCORE_RANGE, integer=True)
    return pd.DataFrame(
        {
            "annotator": frame["username"].to_numpy(),
            "system": system.to_numpy(),
            "segment": segment,
            "item_type": item_type,
            "criterion": criterion,
            "raw_score": scores,
        }
    )


# WMT13 HIT templates: "cal" items are the degraded candidates (Graham et al. 2013's "bad reference"):
# in the sample batches they score 26.9 on average against 55.9 for system items, and each matches a system
# item of the same system and segment in the same HIT.
MTURK_ITEM_TYPES = {
    "system": "system",
    "repeat": "repeat",
    "ref": "ref",
    "bad_ref": "bad_ref",
    "cal": "bad_ref",
}


def load_mturk_batch(
    paths: Sequence[str | Path] | str | Path,
    *,
    n_segments: int | None = None,
    systems: Iterable[str] | None = None,
    drop_rejected: bool = False,
    strip_suffix: bool = True,
) -> pd.DataFrame:
    """Read raw MTurk batch result CSVs of a DA campaign (one row per assignment) as tidy ratings.

    Item ``i`` (0-based) of a HIT is described by ``Input.sys_id_i``, ``Input.sid_i``, ``Input.tst_i`` and
    ``Input.rid_i``; the answers are ``Answer.Q1 = "p_k_s|p_k_s|..."``. Pairing (worked out on the WMT13 cs-en
    sample batches, 2,900 answers): ``p`` is the item position ``i`` and ``k`` is that item's ``Input.rid_i``
    (they agree on every answer), ``s`` the 0-100 score. A key that disagrees with ``Input.rid_p`` is an error, as
    is a repeated position. ``Input.sid_i`` is taken as the 1-based line of the test set; ``Input.item``
    (ad/fl) gives the criterion; ``Input.tst_i`` cal -> bad_ref (see ``MTURK_ITEM_TYPES``). ``hit`` is the
    HITId. Assignments with an empty ``Answer.Q1`` give no ratings and are skipped; rejected assignments are kept
    unless ``drop_rejected`` (quality control is then left to :func:`mtsig.stats.human.quality_control`). An assignment
    record repeated exactly is an error naming both lines.
    The line reported in errors is the CSV line where the assignment's record starts.
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    rows: list[tuple] = []
    for path in map(Path, paths):
        read_data_lines(path)  # a missing, empty, binary or non-UTF-8 file is an error naming its line
        with path.open(encoding="utf-8-sig", newline="") as handle:
            reader = csv.reader(handle)
            header = next(reader)
            while not header:  # blank lines before the header
                header = next(reader)
            header_line = reader.line_num
            column = {name: index for index, name in enumerate(header)}
            for required in ("WorkerId", "HITId", "Answer.Q1", "Input.item"):
                if required not in column:
                    raise InputError(
                        f"missing column {required} (the first line must be the header)", path, header_line
                    )
            start = reader.line_num + 1
            first_line_of: dict[tuple[str, ...], int] = {}
            for record in reader:
                if record:
                    if tuple(record) in first_line_of:
                        raise InputError(
                            f"exact repeat of the assignment at line {first_line_of[tuple(record)]}: its "
                            "ratings would be counted twice; delete one",
                            path,
                            start,
                        )
                    first_line_of[tuple(record)] = start
                rows.extend(
                    _mturk_assignment_ratings(
                        record, column, path, start, n_segments, drop_rejected, strip_suffix
                    )
                )
                start = reader.line_num + 1
    ratings = pd.DataFrame(rows, columns=[*TIDY_COLUMNS, "hit", "_path", "_line"])
    if systems is not None and len(ratings):
        known = set(systems)
        unknown = ~ratings["system"].isin(known)
        if unknown.any():
            first = ratings.loc[unknown].iloc[0]
            raise InputError(f"unknown system {first['system']!r}", first["_path"], int(first["_line"]))
    ratings["segment"] = ratings["segment"].astype(np.int64)
    ratings["raw_score"] = ratings["raw_score"].astype(float)
    return ratings.drop(columns=["_path", "_line"])


def _mturk_assignment_ratings(
    record: list[str],
    column: Mapping[str, int],
    path: Path,
    line: int,
    n_segments: int | None,
    drop_rejected: bool,
    strip_suffix: bool,
) -> list[tuple]:
    """The tidy rows of one assignment (see :func:`load_mturk_batch`)."""
    if len(record) > len(column):
        raise InputError(f"{len(record)} fields, header has {len(column)}", path, line)
    # MTurk leaves out trailing empty fields (Approve, Reject) of unreviewed assignments.
    record = record + [""] * (len(column) - len(record))

    def field(name: str) -> str:
        if name not in column:
            raise InputError(f"missing column {name}", path, 1)
        return record[column[name]]

    answer = field("Answer.Q1").strip()
    if not answer or (
        drop_rejected and "AssignmentStatus" in column and field("AssignmentStatus") == "Rejected"
    ):
        return []
    criterion = CRITERION_CODES.get(field("Input.item"))
    if criterion is None:
        raise InputError(f"unknown Input.item {field('Input.item')!r}", path, line)
    annotator, hit = field("WorkerId"), field("HITId")
    seen: set[int] = set()
    out = []
    for token in answer.split("|"):
        parts = token.split("_")
        if len(parts) != 3 or not all(p.lstrip("-").isdigit() for p in parts):
            raise InputError(f"answer {token!r} is not position_key_score", path, line)
        position, key, score = (int(p) for p in parts)
        if position in seen:
            raise InputError(f"answer position {position} given twice", path, line)
        seen.add(position)
        if f"Input.rid_{position}" not in column:
            raise InputError(f"answer position {position} has no Input.rid_{position} column", path, line)
        if int(field(f"Input.rid_{position}")) != key:
            raise InputError(f"answer key {key} does not match Input.rid_{position}", path, line)
        if not 0 <= score <= 100:
            raise InputError(f"score {score} of answer {token!r} is outside 0..100", path, line)
        item_type = MTURK_ITEM_TYPES.get(field(f"Input.tst_{position}"))
        if item_type is None:
            raise InputError(f"unknown item type {field(f'Input.tst_{position}')!r}", path, line)
        sid_text = field(f"Input.sid_{position}")
        if not sid_text.isdigit():
            raise InputError(f"Input.sid_{position} {sid_text!r} is not a positive integer", path, line)
        sid = int(sid_text)
        if sid < 1 or (n_segments is not None and sid > n_segments):
            raise InputError(
                f"Input.sid_{position} {sid} is outside the test set (1..{n_segments})", path, line
            )
        system = field(f"Input.sys_id_{position}")
        if strip_suffix:
            system = strip_numeric_suffix(system)
        out.append((annotator, system, sid - 1, item_type, criterion, float(score), hit, str(path), line))
    return out


#: The criterion of ESA ratings (Kocmi et al. 2024): one 0-100 score per item after marking its error spans.
ESA_CRITERION = "esa"


def _first_row_error(bad: np.ndarray, rows: pd.DataFrame, problem: Sequence[str]) -> None:
    """Raise an InputError at the file and line of the first row of ``rows`` (columns ``file``, ``line``) flagged
    in ``bad``: ESA rows come from several files."""
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise InputError(problem[first], rows["file"].iat[first], int(rows["line"].iat[first]))


def load_esa(
    paths: Sequence[str | Path],
    n_segments: int,
    source_language: str,
    target_language: str,
    *,
    documents: str | Path | None = None,
    first_segment_id: int | None = None,
    reference_systems: Sequence[str] = (),
    systems: Iterable[str] | None = None,
) -> pd.DataFrame:
    """Appraise ESA exports (:func:`mtsig.io.esa.read_esa`, the WMT24 organisers' filtering) as tidy ratings of one
    language pair, criterion :data:`ESA_CRITERION`.

    ``source_language``/``target_language``: the pair as the files write it (ISO 639-3: ``eng``, ``hin``).
    ``documents``: that pair's ``<lp>.docs`` (``DOMAIN<TAB>DOCUMENT``, line 0 the canary line; its name must be
    ``<lp>.docs`` with the reader's two-letter pair, e.g. ``en-hi.docs``): every rating's document is checked
    against it, so a wrong ``first_segment_id`` (None: the released exports' numbering,
    :data:`mtsig.io.esa.RELEASED_FIRST_SEGMENT_ID`) is an error rather than shifted segments. ``segment`` is the
    reader's ``item``: the 0-based segment of the test set without its canary line (segment id minus
    ``first_segment_id``), the line the experiment's ``skip_first_line`` texts give it.

    Item types: a real item (TGT) is ``system``, or ``ref`` for a name in ``reference_systems`` (WMT24 rates its
    reference ``refA`` as a system: it is kept for standardisation and quality control, out of the gold); a
    quality-control item (BAD) is ``bad_ref``. ``hit`` is the wave (the export file), so quality control pairs a
    BAD item with the same rater's rating of the original in the same wave, as the ESA raters' QC table
    (:func:`mtsig.stats.human.esa_quality_control`) does. A rated system that is neither in ``systems`` nor in
    ``reference_systems``, and an item beyond the test set, are errors at their file and line.
    """
    from mtsig.io.esa import LANGUAGE_CODES, RELEASED_FIRST_SEGMENT_ID, read_esa

    first_segment_id = RELEASED_FIRST_SEGMENT_ID if first_segment_id is None else first_segment_id
    paths = [Path(p) for p in paths]
    for code in (source_language, target_language):
        if code not in LANGUAGE_CODES:
            raise InputError(
                f"unknown language code {code!r} in human.source_language/target_language (ISO 639-3 as the ESA "
                f"export writes it: {', '.join(sorted(LANGUAGE_CODES))})",
                paths[0],
            )
    lp = f"{LANGUAGE_CODES[source_language]}-{LANGUAGE_CODES[target_language]}"
    folder = None
    if documents is not None:
        documents = Path(documents)
        if documents.name != f"{lp}.docs":
            raise InputError(
                f"the documents of {lp} must be named {lp}.docs (the ESA reader's layout)", documents
            )
        folder = documents.parent
    export = read_esa(paths, folder, first_segment_id=first_segment_id)
    rated = export.ratings.loc[export.ratings["lp"] == lp]
    if rated.empty:
        found = ", ".join(sorted(set(export.ratings["lp"]))) or "none"
        raise InputError(f"no {lp} ratings (pairs in the files: {found})", paths[0])
    bad = export.bad_items.loc[export.bad_items["lp"] == lp]
    rows = pd.concat([rated.assign(item_type="system"), bad.assign(item_type="bad_ref")], ignore_index=True)
    references = set(reference_systems)
    known = set(systems) | references if systems is not None else None
    if known is not None:
        unknown = ~rows["system"].isin(known).to_numpy()
        _first_row_error(
            unknown,
            rows,
            [f"unknown system {n!r} (known: {', '.join(sorted(known))})" for n in rows["system"]],
        )
    outside = (rows["item"] >= n_segments).to_numpy()
    _first_row_error(
        outside,
        rows,
        [
            f"segment id {i + first_segment_id} is item {i}, outside the test set of {n_segments} segments "
            f"(0..{n_segments - 1} after the canary line)"
            for i in rows["item"]
        ],
    )
    item_type = rows["item_type"].to_numpy(dtype=object)
    item_type[(item_type == "system") & rows["system"].isin(references).to_numpy()] = "ref"
    return pd.DataFrame(
        {
            "annotator": rows["rater"].to_numpy(),
            "system": rows["system"].to_numpy(),
            "segment": rows["item"].to_numpy(dtype=np.int64),
            "item_type": item_type,
            "criterion": ESA_CRITERION,
            "raw_score": rows["score"].to_numpy(dtype=float),
            "hit": rows["wave"].to_numpy(),
        }
    )


def check_reference_systems(
    reference_systems: Sequence[str], systems: Iterable[str] | None, path: str | Path
) -> list[str]:
    """The configured human references rated as candidates (``human.reference_systems``) as a list; a name that is
    also one of the experiment's ``systems`` is an error (a rated reference is kept apart or is a system)."""
    if isinstance(reference_systems, Mapping) or isinstance(reference_systems, str):
        raise InputError(
            "human.reference_systems must be a list of system names for this format (a mapping of file names "
            "to names is appraise_da's)",
            path,
        )
    references = [str(name) for name in reference_systems]
    both = sorted(set(references) & set(systems or ()))
    if both:
        raise InputError(
            f"{', '.join(both)}: listed in human.reference_systems and in the experiment's systems; a rated "
            "human reference is either a system or kept apart, not both",
            path,
        )
    return references


def load_tidy(
    path: str | Path,
    *,
    standardised: bool = False,
    segment_means: bool = False,
    n_segments: int | None = None,
    systems: Iterable[str] | None = None,
    score_range: tuple[float, float] | None = DA_SCORE_RANGE,
    reference_systems: Sequence[str] = (),
) -> pd.DataFrame:
    """Read the tidy ratings TSV (UTF-8, TAB-separated, one header line, one rating per line).

    Columns: ``annotator system segment item_type criterion raw_score`` (see the module docstring; ``segment``
    is the 0-based line, ``item_type`` one of system/repeat/bad_ref/ref) and optionally ``hit`` (pairing group for
    QC). Extra columns are kept. Blank lines and lines starting with ``#`` are skipped (and counted in line
    numbers).

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
    frame, lines, header_line = _read_delimited(path, "\t", comments=True)
    required = ["system", "segment", "criterion"]
    if not segment_means:
        required += ["annotator", "item_type"]
    required += ["z"] if standardised else ["raw_score"]
    hint = ""
    if standardised and "z" not in frame.columns:
        option = "segment_means: true" if segment_means else "standardised: true"
        hint = (
            f" ({option} reads the standardised scores from a column named z; raw_score, if present, holds the "
            "raw scores: rename your score column to z)"
        )
    _require_columns(frame, required, path, header_line, hint)
    check_exact_repeats(frame, lines, path, "rating", "give a deliberate second rating item_type repeat")
    if segment_means:
        if "annotator" not in frame.columns:
            frame["annotator"] = ""
        if "item_type" not in frame.columns:
            frame["item_type"] = "system"
    if references:
        frame.loc[frame["system"].isin(set(references)) & (frame["item_type"] == "system"), "item_type"] = (
            "ref"
        )
    bad_type = ~frame["item_type"].isin(ITEM_TYPES).to_numpy()
    fail_first(
        bad_type,
        lines,
        path,
        [f"item_type {t!r} is not one of {', '.join(ITEM_TYPES)}" for t in frame["item_type"]],
    )
    fail_first((frame["system"] == "").to_numpy(), lines, path, "empty system")
    fail_first((frame["criterion"] == "").to_numpy(), lines, path, "empty criterion")
    if not segment_means:
        fail_first((frame["annotator"] == "").to_numpy(), lines, path, "empty annotator")
    _check_known_systems(
        frame["system"], lines, path, systems, set(frame.loc[frame["item_type"] == "ref", "system"])
    )
    segment = _parse_segments_0based(frame["segment"], lines, path, n_segments)
    out = frame.copy()
    out["segment"] = segment
    if "raw_score" in frame.columns and frame["raw_score"].ne("").any():
        out["raw_score"] = _parse_scores(
            frame["raw_score"], lines, path, None if standardised else score_range
        )
    else:
        out["raw_score"] = np.nan
    if standardised:
        out["z"] = _parse_scores(frame["z"], lines, path, None)
    if segment_means:
        if "n" in frame.columns:
            out["n"] = _parse_lines_1based(frame["n"], lines, path, None, "n") + 1
        keys = ["system", "segment", "criterion"]
        group = out.groupby(keys, sort=False).ngroup().to_numpy()
        _fail_repeated(
            group,
            lines,
            path,
            lambda _, first: f"segment_means: (system, segment, criterion) already given at line {first}",
        )
    ordered = [*TIDY_COLUMNS, *[c for c in out.columns if c not in TIDY_COLUMNS]]
    return out[ordered].reset_index(drop=True)


def load_r_mean_sd(path: str | Path) -> pd.DataFrame:
    """Parse the R print output of per-annotator means and sds (WMT22 ``ad-*-trk-mean-sd.txt``).

    Blocks of three lines per annotator: ``[1] "M0867"``, ``[1] 68.63918``, ``[1] 21.14148``. Returns
    DataFrame(annotator, mean, sd). R's ``NA`` becomes NaN; anything else unparsable is an error at its line.
    """
    path = Path(path)
    texts, numbers = read_data_lines(path)
    prefix = "[1] "
    values: list[tuple[str, int]] = []
    for text, number in zip(texts, numbers.tolist(), strict=True):
        text = text.strip()
        if not text.startswith(prefix):
            raise InputError("expected an R print line starting with '[1] '", path, number)
        values.append((text[len(prefix) :].strip(), number))
    if len(values) % 3:
        raise InputError(f"{len(values)} values is not a multiple of 3 (worker, mean, sd)", path)
    records = []
    for start in range(0, len(values), 3):
        (name, name_line), (mean, mean_line), (sd, sd_line) = values[start : start + 3]
        if not (name.startswith('"') and name.endswith('"') and len(name) >= 2):
            raise InputError(f"expected a quoted annotator id, got {name}", path, name_line)
        records.append((name[1:-1], _r_number(mean, path, mean_line), _r_number(sd, path, sd_line)))
    frame = pd.DataFrame(records, columns=["annotator", "mean", "sd"])
    if frame["annotator"].duplicated().any():
        duplicate = frame.loc[frame["annotator"].duplicated(), "annotator"].iloc[0]
        raise InputError(f"annotator {duplicate!r} is listed twice", path)
    return frame


def _r_number(text: str, path: Path, line: int) -> float:
    if text == "NA":
        return float("nan")
    try:
        return float(text)
    except ValueError:
        raise InputError(f"expected a number, got {text!r}", path, line) from None


def check_systems(human_systems: Iterable[str], output_systems: Iterable[str], path: str | Path) -> None:
    """Raise ONE InputError listing systems rated in ``path`` without an output file and output systems
    without ratings. Pass the rated MT systems only (the reference pseudo-system excluded, see
    :func:`mtsig.stats.human.rated_systems`)."""
    human, outputs = set(human_systems), set(output_systems)
    no_output = sorted(human - outputs)
    no_ratings = sorted(outputs - human)
    problems = []
    if no_output:
        problems.append(f"systems with human judgments but no output file: {', '.join(no_output)}")
    if no_ratings:
        problems.append(f"systems with an output file but no human judgments: {', '.join(no_ratings)}")
    if problems:
        raise InputError("; ".join(problems), path)
