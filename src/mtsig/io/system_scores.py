"""System-level scores computed elsewhere (metrics' and humans'), and the layout detector for every score file.

Every system-level reader returns a pandas DataFrame with one row per (system[, metric, lp, ...]):

========== ===================================================================================================
column     meaning
========== ===================================================================================================
system     the system name exactly as the file spells it
score      the system score (a finite float)
metric     ``wmt_sys_score`` and (optionally) ``tidy``: the metric's name as the file gives it
lp         ``wmt_sys_score`` and (optionally) ``tidy``: the language pair
testset    ``wmt_sys_score``: the test set (``newstest2020``, ``testsuites2020``)
refset     ``wmt_sys_score``: the reference (``newstest2020``, ``newstestB2020``, ...; QE metrics give one anyway)
line       the 1-based physical line of the row in the file (blank lines counted), for error messages
========== ===================================================================================================

``frame.attrs`` holds ``path`` and ``format``. Three layouts (``FORMATS``), each plain or gzip-compressed (the
compression is recognised by its magic bytes, :func:`mtsig.io.text.read_utf8_bytes`):

- ``wmt_sys_score``: the WMT20 metrics task's ``<METRIC>.sys.score[.gz]`` (Mathur et al. 2020, the task's
  submission format): no header; TAB-separated ``metric, lp, testset, refset, system, score``. A file holds every
  language pair, test set and reference; the reader keeps every row unless asked for some (``lp``, ``testset``,
  ``refset``, ``metric``). Every metric is given higher-is-better (the task's TER is minus TER).
- ``mtme_sys_score``: google-research/mt-metrics-eval's ``metric-scores/<lp>/<METRIC>-<REF>.sys.score`` and
  ``human-scores/<lp>.<NAME>.sys.score``: ``SYSNAME SCORE`` separated by any whitespace, "exactly one score per
  system" (its README); ``None`` marks a missing score and is allowed in human-score files only (``allow_none``).
- ``tidy``: a TSV with a header naming ``system`` and ``score``, and optionally ``metric`` and ``lp`` (several
  metrics or pairs in one file); a (metric, lp, system) given twice is an error.

The human system scores of WMT DA (``ad-sys-scores-<lp>.csv`` and the metrics task's ``metrics-ad-sys-scores``)
and the segment-level layouts are read by :mod:`mtsig.io.wmt_da` and :mod:`mtsig.io.segment_scores`;
:func:`detect_format` tells all of them apart (:data:`LAYOUTS`), so that a command can take any score file.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.io import segment_scores, wmt_da
from mtsig.io.segment_scores import (
    _NUMBER,
    check_no_empty,
    check_unique,
    parse_finite_numbers,
    read_data_lines,
    read_tidy_columns,
    split_fields,
    wmt_rows_kept,
)
from mtsig.io.tidy_columns import in_own_names

WMT_SYS_SCORE_FIELDS = ("metric", "lp", "testset", "refset", "system", "score")
TIDY_COLUMNS = ("system", "score")
OPTIONAL_TIDY_COLUMNS = ("metric", "lp")


def _finish(frame: pd.DataFrame, path: Path, fmt: str) -> pd.DataFrame:
    out = frame.reset_index(drop=True)
    out.attrs.update(path=str(path), format=fmt)
    return out


def read_wmt_sys_scores(
    path: str | Path,
    *,
    lp: str | None = None,
    testset: str | None = None,
    refset: str | None = None,
    metric: str | None = None,
) -> pd.DataFrame:
    """Read a WMT20 metrics-task ``<METRIC>.sys.score`` file (plain or gzipped; see the module docstring).

    Returns columns ``metric, lp, testset, refset, system, score, line``, the rows in file order; ``lp``,
    ``testset``, ``refset`` and ``metric`` keep only the matching rows (none matching is an error naming what the
    file has). Errors, each at its line: a row without exactly six TAB-separated fields, an empty name, a score
    that is not a finite number, and a (metric, lp, testset, refset, system) given twice.
    """
    path = Path(path)
    texts, lines = read_data_lines(path)
    rows = split_fields(texts, lines, path, 6, "\t", "WMT sys.score: " + ", ".join(WMT_SYS_SCORE_FIELDS))
    fields = pd.DataFrame(rows, columns=list(WMT_SYS_SCORE_FIELDS))
    for column in WMT_SYS_SCORE_FIELDS[:5]:
        check_no_empty(fields[column].tolist(), lines, path, column)
    frame = fields.assign(score=parse_finite_numbers(fields["score"], lines, path, "score"), line=lines)
    check_unique(frame, WMT_SYS_SCORE_FIELDS[:5], path, "(metric, lp, testset, refset, system)")
    keep = wmt_rows_kept(frame, {"lp": lp, "testset": testset, "refset": refset, "metric": metric}, path)
    return _finish(frame.loc[keep], path, "wmt_sys_score")


def read_mtme_sys_scores(path: str | Path, *, allow_none: bool = False) -> pd.DataFrame:
    """Read an mt-metrics-eval system-level score file: lines ``SYSNAME SCORE`` (any whitespace between), one per
    system. Returns ``system, score, line``.

    ``None`` is an error, as mt-metrics-eval's README requires of metric scores; with ``allow_none`` (its human
    score files, which "don't have to contain entries for all systems") those systems are dropped. A system given
    twice is an error at its second line.
    """
    path = Path(path)
    texts, lines = read_data_lines(path)
    rows = split_fields(texts, lines, path, 2, None, "mt-metrics-eval: SYSNAME SCORE")
    frame = pd.DataFrame({"system": [r[0] for r in rows], "value": [r[1] for r in rows], "line": lines})
    check_unique(frame, ("system",), path, "system")
    missing = (frame["value"] == "None").to_numpy()
    if missing.any() and not allow_none:
        first = int(np.flatnonzero(missing)[0])
        raise InputError(
            "score 'None' (a missing score) is not allowed in a metric-score file", path, int(lines[first])
        )
    frame = frame.loc[~missing]
    frame = frame.assign(
        score=parse_finite_numbers(frame["value"].tolist(), frame["line"].to_numpy(), path, "score")
    )
    return _finish(frame[["system", "score", "line"]], path, "mtme_sys_score")


def read_tidy_sys_scores(path: str | Path) -> pd.DataFrame:
    """Read a tidy TSV of system scores: a header naming ``system`` and ``score`` and optionally ``metric`` and
    ``lp``, in any order; then one row per (metric, lp, system). Another column name is an error (a misspelt
    ``metric`` would otherwise merge two metrics silently), as is a repeated key."""
    path = Path(path)
    columns, lines = read_tidy_columns(
        path, TIDY_COLUMNS, OPTIONAL_TIDY_COLUMNS, "system, score and optionally metric, lp"
    )
    keys = [c for c in ("metric", "lp") if c in columns] + ["system"]
    for key in keys:
        check_no_empty(columns[key], lines, path, key)
    frame = pd.DataFrame({key: columns[key] for key in keys})
    frame["score"] = parse_finite_numbers(columns["score"], lines, path, "score")
    frame["line"] = lines
    check_unique(frame, keys, path, "(" + ", ".join(keys) + ")")
    return _finish(frame, path, "tidy")


#: System-level layout name -> reader(path, **options).
FORMATS: dict[str, Callable[..., pd.DataFrame]] = {
    "wmt_sys_score": read_wmt_sys_scores,
    "mtme_sys_score": read_mtme_sys_scores,
    "tidy": read_tidy_sys_scores,
}


class ScoreLayout(NamedTuple):
    """A score-file layout :func:`detect_format` recognises. ``level``: ``system`` and ``segment`` (a metric's or
    any other scores), ``human_system`` and ``human_segment`` (WMT DA means of the organisers); ``reader(path,
    **options)``; ``selects_rows``: the file may hold several test sets, and the reader keeps the rows of one (its
    ``lp``, ``testset`` and ``refset`` options); ``named_columns``: a header names the columns (a tidy table, which
    may hold any scores, human ones included)."""

    level: str
    reader: Callable[..., pd.DataFrame]
    selects_rows: bool = False
    named_columns: bool = False


#: Every score-file layout :func:`detect_format` recognises.
LAYOUTS: dict[str, ScoreLayout] = {
    "wmt_sys_score": ScoreLayout("system", read_wmt_sys_scores, selects_rows=True),
    "mtme_sys_score": ScoreLayout("system", read_mtme_sys_scores),
    "tidy_sys_score": ScoreLayout("system", read_tidy_sys_scores, named_columns=True),
    "wmt_seg_score": ScoreLayout("segment", segment_scores.read_wmt_seg_scores, selects_rows=True),
    "mtme_seg_score": ScoreLayout("segment", segment_scores.read_mtme_seg_scores),
    "tidy_seg_score": ScoreLayout("segment", segment_scores.read_tidy_segment_scores, named_columns=True),
    "wmt_da_sys_scores": ScoreLayout("human_system", wmt_da.read_wmt_da_sys_scores),
    "wmt_da_seg_scores": ScoreLayout("human_segment", wmt_da.read_wmt_da_seg_scores),
    "wmt_da_metrics_seg_scores": ScoreLayout("human_segment", wmt_da.read_wmt_da_metrics_seg_scores),
}


def detect_format(path: str | Path) -> str:
    """The layout of a score file (a key of :data:`LAYOUTS`), from its first non-blank line (and, for the
    mt-metrics-eval layouts, from whether a system name repeats):

    - space-separated DA headers: ``RAW.SCR Z.SCR N SYS N.ALL`` is ``wmt_da_sys_scores`` (``ad-sys-scores`` and
      ``metrics-ad-sys-scores``), ``SYS SID RAW.SCR Z.SCR N`` is ``wmt_da_seg_scores``, ``SYS SEGID RAW.SCR Z.SCR N
      SID`` is ``wmt_da_metrics_seg_scores``;
    - a TAB-separated header naming ``system`` and ``score``: ``tidy_seg_score`` if it also names ``segment``, else
      ``tidy_sys_score``;
    - six TAB-separated fields: ``wmt_sys_score``; eight: ``wmt_seg_score``;
    - ``SYSNAME SCORE`` lines: ``mtme_seg_score`` if some system has several lines, else ``mtme_sys_score``.

    Raises:
        InputError: at the first non-blank line when it fits none of these.
    """
    path = Path(path)
    texts, lines = read_data_lines(path)
    first = texts[0]
    names = sorted(first.split())
    for layout, header in (
        ("wmt_da_sys_scores", wmt_da.SYS_HEADER),
        ("wmt_da_seg_scores", wmt_da.SEG_HEADER),
        ("wmt_da_metrics_seg_scores", wmt_da.METRICS_SEG_HEADER),
    ):
        if names == sorted(header):
            return layout
    tab_fields = first.split("\t")
    if set(TIDY_COLUMNS) <= set(tab_fields):
        return "tidy_seg_score" if "segment" in in_own_names(tab_fields, ("segment",)) else "tidy_sys_score"
    if len(tab_fields) == len(WMT_SYS_SCORE_FIELDS):
        return "wmt_sys_score"
    if len(tab_fields) == len(segment_scores.WMT_SEG_SCORE_FIELDS):
        return "wmt_seg_score"
    fields = first.split()
    if len(fields) == 2 and (fields[1] == "None" or _NUMBER.fullmatch(fields[1])):
        systems = [text.split()[0] for text in texts if text.split()]
        return "mtme_seg_score" if len(set(systems)) < len(systems) else "mtme_sys_score"
    raise InputError(
        "cannot tell the score file's layout from this line: expected a WMT DA header (RAW.SCR Z.SCR N SYS N.ALL, "
        "SYS SID RAW.SCR Z.SCR N), a tidy TAB header naming system and score, 6 (sys.score) or 8 (seg.score) "
        "TAB-separated WMT fields, or 'SYSNAME SCORE' (mt-metrics-eval)",
        path,
        int(lines[0]),
    )


def read_system_scores(path: str | Path, fmt: str = "auto", **options: Any) -> pd.DataFrame:
    """Read a system-level score file in layout ``fmt`` (one of :data:`FORMATS`, or ``auto``: :func:`detect_format`,
    which must then find a system-level layout) with the reader's ``options``."""
    if fmt == "auto":
        detected = detect_format(path)
        level = LAYOUTS[detected].level
        if level != "system":
            raise InputError(
                f"this is a {level.replace('_', ' ')} score file ({detected}), not system scores", path
            )
        fmt = {"tidy_sys_score": "tidy"}.get(detected, detected)
    if fmt not in FORMATS:
        raise InputError(f"unknown system-score format {fmt!r}; known: {', '.join(FORMATS)}, auto", path)
    try:
        return FORMATS[fmt](path, **options)
    except TypeError as error:
        raise InputError(f"bad option for system-score format {fmt!r}: {error}", path) from None


def scores_by_system(frame: pd.DataFrame, column: str = "score") -> dict[str, float]:
    """``{system: score}`` of a table with one row per system (after any filtering); a repeated system is an error
    naming its line."""
    path = frame.attrs.get("path")
    if "line" in frame.columns:
        check_unique(frame, ("system",), Path(path or "<table>"), "system")
    elif frame["system"].duplicated().any():
        raise InputError(
            f"system {frame['system'][frame['system'].duplicated()].iloc[0]!r} given twice", path
        )
    return dict(zip(frame["system"].astype(str), frame[column].astype(float), strict=True))
