"""WMT Direct Assessment segment and system scores as the WMT20 metrics task released them (``ad-*-scores``).

``ad-seg-scores-<lp>.csv``: space-separated, header ``SYS SID RAW.SCR Z.SCR N``, one row per rated (system,
segment): the mean raw 0-100 score, the mean of the ratings' per-worker z-scores and the number of ratings ``N``.
``SID`` is the 1-based line of the test set. The ratings were standardised per worker by the organisers (Mathur et
al. 2020, WMT20 metrics task; the DA protocol of Graham et al. 2013/2017), so these means feed a gold standard
directly, with no standardisation step; only the segment means are released, not single ratings.

``ad-sys-scores-<lp>.csv``: header ``RAW.SCR Z.SCR N SYS N.ALL``: per system the mean raw and z scores, ``N`` rated
segments and ``N.ALL`` ratings. On WMT20 ja-en, each system's ``Z.SCR`` is the unweighted mean of its segments'
``Z.SCR`` (every rated segment counts once whatever its ``N``; :func:`system_means`), not the mean over ratings.

The WMT20 metrics task re-released both with the system names of its metric files (``metrics-ad-sys-scores``,
same layout, and ``metrics-ad-seg-scores``, header ``SYS SEGID RAW.SCR Z.SCR N SID`` with ``SEGID`` =
``<document>::<n>``): ``HUMAN`` becomes ``Human-A.0`` (into English: ``HUMAN.0`` becomes ``Human-B.0``, the
newstestB2020 reference), ``HUMAN-A/B/C`` become ``Human-A.0/Human-B.0/Human-P.0``, and iu-en, km-en and ps-en's
hyphens become underscores (``NICT-Kyoto.1220`` -> ``NICT_Kyoto.1220``) (their notebook
``results/p0-preprocess_scores_and_visualize.ipynb``). :func:`metrics_task_names` recovers that renaming from the
two system files, whose rows are in the same order.

System names: ``SYS`` is the submission name with the WMT submission id (``OPPO.1529``), spelt exactly as in the
metrics task's ``*.seg.score`` files, so the mapping between the two is the identity (checked on WMT20 ja-en: the
10 DA systems are the 10 systems of every metric file; YiSi-2 and parbleu also score ``Human-A.0``, which DA did
not rate). Output files named without the id map by dropping the final ``.<digits>``.

WMT22's MTurk DA files name a system by its ``sys_id`` (``DLUT.6``: :func:`strip_numeric_suffix` gives the output's
name) and a segment by its DA ``sid``, which is not the test set's line on ja-en: the sid2line map
(:func:`load_sid2line`) gives the line. :func:`load_wmt_da_segment_means` with ``sid2line`` keys the organisers'
``ad-seg-scores-<lp>.csv`` of WMT22 that way, as :mod:`mtsig.io.human.wmt_mturk_da` keys the ratings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.io.human import DA_SCORE_RANGE, Ratings
from mtsig.io.human.parsing import (
    check_known_systems,
    fail_repeated,
    parse_lines_1based,
    read_delimited,
    require_columns,
)
from mtsig.io.segment_scores import (
    check_no_empty,
    check_unique,
    fail_first,
    parse_finite_numbers,
    parse_integers,
    read_data_lines,
    split_fields,
)

SEG_HEADER = ("SYS", "SID", "RAW.SCR", "Z.SCR", "N")
SYS_HEADER = ("RAW.SCR", "Z.SCR", "N", "SYS", "N.ALL")
METRICS_SEG_HEADER = ("SYS", "SEGID", "RAW.SCR", "Z.SCR", "N", "SID")
#: Appraise's document-level DA segment id: ``<document>_<0-based segment of the document>``.
_DOCUMENT_SID = re.compile(r"(.+)_(\d+)")
_NUMERIC_SUFFIX = re.compile(r"\.\d+$")


def _read_table(path: Path, header: tuple[str, ...]) -> tuple[dict[str, list[str]], np.ndarray]:
    """Columns of a whitespace-separated file whose first line names exactly ``header`` (in any order)."""
    texts, lines = read_data_lines(path)
    names = texts[0].split()
    if sorted(names) != sorted(header):
        raise InputError(
            f"header {' '.join(names)!r}: expected the columns {' '.join(header)} (space-separated)",
            path,
            int(lines[0]),
        )
    if len(texts) == 1:
        raise InputError("no rows after the header", path, int(lines[0]))
    rows = split_fields(texts[1:], lines[1:], path, len(names), None, "the header's columns, space-separated")
    return {name: [row[i] for row in rows] for i, name in enumerate(names)}, lines[1:]


def _segment_mean_columns(
    columns: dict[str, list[str]],
    lines: np.ndarray,
    path: Path,
    sid: np.ndarray,
    criterion: str,
    n_segments: int | None,
) -> dict[str, Any]:
    """The columns every layout of DA segment means gives (``system, segment, criterion, raw_score, z, n``), from
    its ``SYS``, ``RAW.SCR``, ``Z.SCR`` and ``N`` columns and the 1-based ``sid``, each checked: SIDs inside the
    test set of ``n_segments`` (when known), raw scores inside :data:`mtsig.io.human.DA_SCORE_RANGE`, counts at
    least 1."""
    if n_segments is not None:
        fail_first(
            sid > n_segments, lines, path, [f"SID {s} is outside the test set (1..{n_segments})" for s in sid]
        )
    raw = parse_finite_numbers(columns["RAW.SCR"], lines, path, "RAW.SCR")
    low, high = DA_SCORE_RANGE
    fail_first(
        (raw < low) | (raw > high), lines, path, [f"RAW.SCR {v} is outside {low:g}..{high:g}" for v in raw]
    )
    return {
        "system": columns["SYS"],
        "segment": sid - 1,
        "criterion": criterion,
        "raw_score": raw,
        "z": parse_finite_numbers(columns["Z.SCR"], lines, path, "Z.SCR"),
        "n": parse_integers(columns["N"], lines, path, "N", minimum=1),
    }


def read_wmt_da_seg_scores(
    path: str | Path,
    *,
    criterion: str = "adequacy",
    n_segments: int | None = None,
    systems: Iterable[str] | None = None,
) -> pd.DataFrame:
    """Read ``ad-seg-scores-<lp>.csv`` as a tidy table of segment means.

    Columns: ``system`` (``SYS`` verbatim), ``segment`` (``SID - 1``, 0-based), ``criterion`` (``adequacy``: the
    file's ``ad-`` prefix), ``raw_score`` (``RAW.SCR``, 0..100), ``z`` (``Z.SCR``), ``n`` (``N`` >= 1 ratings) and
    ``line`` (the file's line). A (system, segment) given twice, a SID outside ``1..n_segments``, a score that is
    not a finite number, a raw score outside 0..100, an ``N`` below 1 and (when ``systems`` is given) an unknown
    system are errors naming the line.

    Two forms of ``SID``: the 1-based line of the test set (WMT20 into English, crowd DA), or
    ``<document>_<k>``, the k-th (0-based) segment of a document (WMT20 out of English, Appraise's document-level DA:
    ``huffingtonpost.com.19389_3`` is segment 4 of that document in the metrics task's ``SEGID``
    ``huffingtonpost.com.19389::4``). With the second form the file does not give the test set's order: the table
    then has ``document`` and ``doc_segment`` (k + 1, the metrics task's numbering) and ``segment`` numbers the
    distinct (document, k) in sorted order, a key and not a line (``n_segments`` is then an error). One file uses
    one form.
    """
    path = Path(path)
    columns, lines = _read_table(path, SEG_HEADER)
    check_no_empty(columns["SYS"], lines, path, "SYS")
    documents = None
    first = columns["SID"][0].strip()
    if not first.isdigit() and _DOCUMENT_SID.fullmatch(first):
        by_document = [_DOCUMENT_SID.fullmatch(value) for value in columns["SID"]]
        fail_first(
            np.array([m is None for m in by_document]),
            lines,
            path,
            [
                f"SID {v!r} is not <document>_<k> like the file's first ({columns['SID'][0]!r})"
                for v in columns["SID"]
            ],
        )
        if n_segments is not None:
            raise InputError(
                "SIDs name documents (<document>_<k>), not test-set lines: n_segments does not apply", path
            )
        documents = pd.DataFrame(
            {"document": [m.group(1) for m in by_document], "k": [int(m.group(2)) for m in by_document]}
        )
        keys = documents.drop_duplicates().sort_values(["document", "k"]).reset_index(drop=True)
        code = {key: i for i, key in enumerate(keys.itertuples(index=False, name=None))}
        sid = np.array(
            [code[key] + 1 for key in documents.itertuples(index=False, name=None)], dtype=np.int64
        )
    else:
        sid = parse_integers(columns["SID"], lines, path, "SID", minimum=1)
    frame = pd.DataFrame(
        {
            **_segment_mean_columns(columns, lines, path, sid, criterion, n_segments),
            "line": lines,
        }
    )
    if documents is not None:
        frame.insert(6, "document", documents["document"].to_numpy())
        frame.insert(7, "doc_segment", documents["k"].to_numpy() + 1)
    if systems is not None:
        known = set(systems)
        fail_first(
            ~frame["system"].isin(known).to_numpy(),
            lines,
            path,
            [f"unknown system {s!r} (known: {', '.join(sorted(known))})" for s in frame["system"]],
        )
    check_unique(frame, ("system", "segment"), path, "(SYS, SID)")
    frame.attrs.update(path=str(path), format="wmt_da_seg_scores")
    return frame


def read_wmt_da_sys_scores(path: str | Path) -> pd.DataFrame:
    """Read ``ad-sys-scores-<lp>.csv``: columns ``system``, ``raw_score``, ``z``, ``n_segments`` (``N``),
    ``n_ratings`` (``N.ALL``), ``line``."""
    path = Path(path)
    columns, lines = _read_table(path, SYS_HEADER)
    check_no_empty(columns["SYS"], lines, path, "SYS")
    frame = pd.DataFrame(
        {
            "system": columns["SYS"],
            "raw_score": parse_finite_numbers(columns["RAW.SCR"], lines, path, "RAW.SCR"),
            "z": parse_finite_numbers(columns["Z.SCR"], lines, path, "Z.SCR"),
            "n_segments": parse_integers(columns["N"], lines, path, "N", minimum=1),
            "n_ratings": parse_integers(columns["N.ALL"], lines, path, "N.ALL", minimum=1),
            "line": lines,
        }
    )
    check_unique(frame, ("system",), path, "SYS")
    frame.attrs.update(path=str(path), format="wmt_da_sys_scores")
    return frame


def read_wmt_da_metrics_seg_scores(
    path: str | Path, *, criterion: str = "adequacy", n_segments: int | None = None
) -> pd.DataFrame:
    """Read the WMT20 metrics task's ``metrics-ad-seg-scores-<lp>.csv`` (header ``SYS SEGID RAW.SCR Z.SCR N SID``):
    the columns of :func:`read_wmt_da_seg_scores` plus ``document`` and ``doc_segment`` (``SEGID`` =
    ``<document>::<n>``, n counted from 1 as in the task's ``seg.score`` files). Same checks, and a ``SEGID``
    without ``::<n>`` is an error at its line."""
    path = Path(path)
    columns, lines = _read_table(path, METRICS_SEG_HEADER)
    check_no_empty(columns["SYS"], lines, path, "SYS")
    parts = [value.rpartition("::") for value in columns["SEGID"]]
    fail_first(
        np.array([not (sep and doc and n.isdigit()) for doc, sep, n in parts]),
        lines,
        path,
        [f"SEGID {value!r} is not <document>::<n>" for value in columns["SEGID"]],
    )
    sid = parse_integers(columns["SID"], lines, path, "SID", minimum=1)
    frame = pd.DataFrame(
        {
            **_segment_mean_columns(columns, lines, path, sid, criterion, n_segments),
            "document": [doc for doc, _, _ in parts],
            "doc_segment": np.array([int(n) for _, _, n in parts], dtype=np.int64),
            "line": lines,
        }
    )
    check_unique(frame, ("system", "segment"), path, "(SYS, SID)")
    frame.attrs.update(path=str(path), format="wmt_da_metrics_seg_scores")
    return frame


def metrics_task_names(da_systems: pd.DataFrame, metrics_systems: pd.DataFrame) -> dict[str, str]:
    """``{DA name: metrics-task name}`` from ``ad-sys-scores-<lp>.csv`` and the metrics task's
    ``metrics-ad-sys-scores-<lp>.csv`` (both read by :func:`read_wmt_da_sys_scores`): the organisers wrote the
    second from the first row by row, renaming systems (module docstring), so row i of one is row i of the other.

    Raises:
        InputError: naming the second file and line, when the files have different numbers of rows or a row's
            ``N`` or ``N.ALL`` differ or its scores differ by more than 1e-12 relative (the organisers re-printed
            the 15-digit numbers): they are then not the same systems in the same order.
    """
    path = metrics_systems.attrs.get("path")
    if len(da_systems) != len(metrics_systems):
        raise InputError(
            f"{len(metrics_systems)} systems but {len(da_systems)} in {da_systems.attrs.get('path')}: "
            "not the same DA system scores",
            path,
        )
    same = (
        (da_systems["n_segments"].to_numpy() == metrics_systems["n_segments"].to_numpy())
        & (da_systems["n_ratings"].to_numpy() == metrics_systems["n_ratings"].to_numpy())
        & np.isclose(da_systems["z"], metrics_systems["z"], rtol=1e-12, atol=0)
        & np.isclose(da_systems["raw_score"], metrics_systems["raw_score"], rtol=1e-12, atol=0)
    )
    fail_first(
        ~same,
        metrics_systems["line"].to_numpy(),
        Path(path) if path else Path("<metrics-ad-sys-scores>"),
        [
            f"system {m!r} does not have the scores of row {i + 1} of {da_systems.attrs.get('path')} ({d!r}): "
            "the two files must list the same systems in the same order"
            for i, (d, m) in enumerate(zip(da_systems["system"], metrics_systems["system"], strict=True))
        ],
    )
    return dict(zip(da_systems["system"], metrics_systems["system"], strict=True))


def system_means(seg_scores: pd.DataFrame) -> pd.DataFrame:
    """Per system: the unweighted mean over rated segments of ``raw_score`` and ``z``, the number of rated
    segments and of ratings (``sum n``): the WMT20 organisers' system scores (see the module docstring)."""
    grouped = seg_scores.groupby("system", sort=True)
    return pd.DataFrame(
        {
            "raw_score": grouped["raw_score"].mean(),
            "z": grouped["z"].mean(),
            "n_segments": grouped.size(),
            "n_ratings": grouped["n"].sum(),
        }
    ).reset_index()


def strip_numeric_suffix(system_id: str) -> str:
    """WMT DA system id -> output name: drop a trailing ``.<digits>`` (``DLUT.6`` -> ``DLUT``; WMT22 README)."""
    return _NUMERIC_SUFFIX.sub("", system_id)


def load_sid2line(path: str | Path, n_segments: int) -> dict[int, int]:
    """Read a DA sid -> text line map (TSV with header; columns ``da_sid`` and ``txt_line``, 1-based line).

    Returns ``{sid: 0-based segment}``. Used for WMT22 ja-en, whose DA sid is not the line number (README of
    ``wmt22-ja-en``: documents sorted by id, segments numbered from 1 in that order).
    """
    path = Path(path)
    frame, lines, header_line = read_delimited(path, "\t")
    require_columns(frame, ("da_sid", "txt_line"), path, header_line)
    sids = pd.to_numeric(frame["da_sid"], errors="coerce").to_numpy(dtype=float)
    fail_first(~np.isfinite(sids), lines, path, [f"da_sid {v!r} is not an integer" for v in frame["da_sid"]])
    segments = parse_lines_1based(frame["txt_line"], lines, path, n_segments, "txt_line")
    fail_repeated(
        sids, lines, path, lambda sid, first: f"da_sid {int(sid)} is listed twice (first at line {first})"
    )
    return dict(zip(sids.astype(np.int64).tolist(), segments.tolist(), strict=True))


def da_segments_and_systems(
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
    check_known_systems(system, lines, path, systems, set())
    return segment, system


def load_wmt_da_segment_means(
    path: str | Path,
    n_segments: int | None = None,
    systems: Iterable[str] | None = None,
    *,
    sid2line: str | Path | None = None,
) -> Ratings:
    """``ad-seg-scores-<lp>.csv`` as ratings: one row per rated (system, segment) with its mean ``z`` (already
    standardised per worker by the organisers: the gold standardises nothing), ``raw_score``, ``n``, annotator
    ``organisers`` and item type ``system``. Errors as :func:`read_wmt_da_seg_scores`.

    ``sid2line`` (WMT22 MTurk DA, whose ``SID`` is a DA sid and ``SYS`` a sys_id): the segment is the ``SID``
    through that map (:func:`load_sid2line`, checked against ``n_segments``) and the system ``SYS`` minus its
    ``.<digits>`` suffix, as :mod:`mtsig.io.human.wmt_mturk_da` keys ratings; a SID outside the map or an unknown
    system is an error at its line. Without it, ``SID`` is the 1-based line and ``SYS`` the system, verbatim.
    """
    path = Path(path)
    if sid2line is None:
        frame = read_wmt_da_seg_scores(path, n_segments=n_segments, systems=systems)
    else:
        frame = read_wmt_da_seg_scores(path)
        segment, system = da_segments_and_systems(
            frame["segment"] + 1,
            [str(sid + 1) for sid in frame["segment"]],
            frame["system"],
            frame["line"].to_numpy(),
            path,
            sid2line,
            n_segments,
            systems,
        )
        frame = frame.assign(system=system, segment=segment.to_numpy(dtype=np.int64))
    return Ratings(frame.assign(annotator="organisers", item_type="system"), path)
