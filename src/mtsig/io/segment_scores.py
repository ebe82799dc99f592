"""Segment scores computed elsewhere (COMET, BLEURT, YiSi, MQM, ...) read into one tidy table.

Every reader returns a pandas DataFrame with one row per (system, segment):

========== ===================================================================================================
column     meaning
========== ===================================================================================================
system     the system name exactly as the file spells it
segment    0-based line of the segment in the test set
score      the segment score (a finite float)
document   only when the file carries documents: the segment's document id
line       the 1-based physical line of the row in the file (blank lines counted), for error messages
========== ===================================================================================================

``frame.attrs`` holds ``path`` and ``format``. Three layouts (``FORMATS``):

- ``tidy``: TSV with a header naming ``system``, ``segment``, ``score`` and optionally ``document``, the
  canonical names of the tidy layout family, or their aliases ``item`` and ``doc`` (:mod:`mtsig.io.tidy_columns`).
  A header that lacks a column is an error naming it, its aliases and a correct header line.
- ``wmt_seg_score``: the WMT20 metrics task's ``<METRIC>.seg.score`` (no header; TAB-separated ``metric, lp,
  testset, refset, system, document id, segment number within the document (1-based), score``). A system's rows
  are in test-set order, so its n-th row is segment n-1; documents come from the file.
- ``mtme_seg_score``: google-research/mt-metrics-eval's ``metric-scores/<lp>/<METRIC>-<REF>.seg.score``. Its
  README specifies the lines as ``SYSNAME SCORE`` separated by "any amount of whitespace", a block of lines per
  system holding the scores of all segments of that system's output file in order; ``None`` marks a missing score
  and is allowed in human-score files only, not in metric-score files. Its loader (``data.ReadScoreFile``) splits
  each line on whitespace and appends to the system's list, so a system's n-th line is segment n-1 even when
  systems' lines are interleaved; this reader does the same. mt-metrics-eval keeps documents in a separate
  ``documents/<lp>.docs`` file, so this layout has no ``document`` column.

Validation (each an :class:`mtsig.errors.InputError` naming the file and the line): a missing, empty, binary or
non-UTF-8 file; a missing header (``tidy``); a wrong number of fields; a non-numeric or non-finite score; a
duplicate (system, segment); a system with missing segments or with a different number of segments than the
others; an inconsistent document sequence (``wmt_seg_score``). Blank lines are skipped; line numbers still count
them. :func:`detect_format` tells the three layouts apart by the first line; :func:`scores_array` turns a table into
the ``[systems, segments]`` array a metric needs.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.io.text import decode_utf8_line, read_utf8_bytes
from mtsig.io.tidy_columns import (
    aliases,
    described_column,
    header_line,
    in_own_names,
    looks_like_header,
    missing_columns_message,
)

TIDY_COLUMNS = ("system", "segment", "score")
OPTIONAL_TIDY_COLUMNS = ("document",)
WMT_SEG_SCORE_FIELDS = ("metric", "lp", "testset", "refset", "system", "document", "doc_segment", "score")

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_NON_FINITE = re.compile(r"[+-]?(?:nan|inf|infinity)", re.IGNORECASE)
_NON_NEGATIVE_INTEGER = re.compile(r"\d+")


# ------------------------------------------------------------------------------------------ shared row parsing


def read_data_lines(path: str | Path) -> tuple[list[str], np.ndarray]:
    """The non-blank lines of a UTF-8 text file and their 1-based physical line numbers.

    Lines are split on ``\\n`` only (a trailing ``\\r`` is dropped); a UTF-8 byte-order mark is ignored; lines
    holding only whitespace are skipped but still counted, so every number is the line an editor shows.

    Raises:
        InputError: the file is missing, a directory, binary (a NUL byte), not UTF-8, or has no non-blank line.
    """
    path = Path(path)
    data = read_utf8_bytes(path)
    texts: list[str] = []
    numbers: list[int] = []
    if b"\x00" not in data:
        try:  # the whole file at once (a decoding error is reported line by line below)
            lines = data.decode("utf-8").split("\n")
        except UnicodeDecodeError:
            lines = None
        if lines is not None:
            texts = [line.removesuffix("\r") for line in lines]
            if all(text.strip() for text in texts[:-1]) and not texts[-1].strip():
                texts.pop()  # no blank line but the empty one after the last newline: the common case
                numbers = list(range(1, len(texts) + 1))
            else:
                numbers = [n for n, text in enumerate(texts, start=1) if text.strip()]
                texts = [texts[n - 1] for n in numbers]
    if not numbers and not texts:
        for number, raw in enumerate(data.split(b"\n"), start=1):
            text = decode_utf8_line(raw, path, number).removesuffix("\r")
            if text.strip():
                texts.append(text)
                numbers.append(number)
    if not texts:
        raise InputError("empty file (no non-blank line)", path)
    return texts, np.asarray(numbers, dtype=np.int64)


def fail_first(bad: np.ndarray, lines: np.ndarray, path: Path, problem: Sequence[str] | str) -> None:
    """Raise an InputError at the first row flagged in ``bad`` (``problem``: one string, or one per row)."""
    bad = np.asarray(bad, dtype=bool)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        text = problem if isinstance(problem, str) else problem[first]
        raise InputError(text, path, int(lines[first]))


def split_fields(
    texts: Sequence[str], lines: np.ndarray, path: Path, n_fields: int, sep: str | None, layout: str
) -> list[list[str]]:
    """Each line split on ``sep`` (``None``: any run of whitespace); a line with another field count is an error
    naming the expected ``layout``."""
    rows = [text.split(sep) if sep is not None else text.split() for text in texts]
    counts = np.fromiter((len(row) for row in rows), dtype=np.int64, count=len(rows))
    if (counts != n_fields).any():  # the messages only when one is needed
        fail_first(
            counts != n_fields,
            lines,
            path,
            [f"{n} fields, expected {n_fields} ({layout})" for n in counts],
        )
    return rows


@functools.cache
def _repeated(pattern: str) -> re.Pattern[str]:
    return re.compile(f"(?:{pattern})(?:\n(?:{pattern}))*")


def _all_fullmatch(pattern: re.Pattern[str], strings: list[str]) -> bool:
    """Whether every string fully matches ``pattern``, in one regex pass over the strings joined by newlines (the
    fast path of the parsers below, far cheaper than per-value matching through pandas on large files; a string
    holding a newline itself, which no line of a file can, takes the slow path)."""
    joined = "\n".join(strings)
    if joined.count("\n") != len(strings) - 1:
        return False
    return not strings or _repeated(pattern.pattern).fullmatch(joined) is not None


def parse_finite_numbers(values: Sequence[str], lines: np.ndarray, path: Path, what: str) -> np.ndarray:
    """Decimal numbers as float64. A value that is not a plain decimal number (``1.5``, ``-2e-3``) is an error at
    its line, with a separate message for NaN and infinities and for numbers too large for a float."""
    stripped = [str(v).strip() for v in values]
    if _all_fullmatch(_NUMBER, stripped):
        numbers = np.array(stripped, dtype=np.float64).reshape(len(stripped))
        if np.isfinite(numbers).all():
            return numbers
    strings = pd.Series(list(values), dtype=object).astype(str).str.strip()
    is_number = strings.str.fullmatch(_NUMBER).to_numpy(dtype=bool)
    non_finite = strings.str.fullmatch(_NON_FINITE).to_numpy(dtype=bool)
    fail_first(non_finite, lines, path, [f"{what} {v!r} is not finite" for v in values])
    fail_first(~is_number, lines, path, [f"{what} {v!r} is not a number" for v in values])
    numbers = strings.astype(float).to_numpy(dtype=np.float64)
    fail_first(~np.isfinite(numbers), lines, path, [f"{what} {v!r} overflows a float" for v in values])
    return numbers


def parse_integers(
    values: Sequence[str], lines: np.ndarray, path: Path, what: str, minimum: int = 0
) -> np.ndarray:
    """Non-negative decimal integers (``0``, ``17``) as int64; anything else, or a value below ``minimum``, is an
    error at its line."""
    stripped = [str(v).strip() for v in values]
    if _all_fullmatch(_NON_NEGATIVE_INTEGER, stripped) and all(len(v) < 19 for v in stripped):
        numbers = np.array([int(v) for v in stripped], dtype=np.int64).reshape(len(stripped))
        if (numbers >= minimum).all():
            return numbers
    strings = pd.Series(list(values), dtype=object).astype(str).str.strip()
    fail_first(
        ~strings.str.fullmatch(_NON_NEGATIVE_INTEGER).to_numpy(dtype=bool),
        lines,
        path,
        [f"{what} {v!r} is not a non-negative integer" for v in values],
    )
    numbers = strings.astype(np.int64).to_numpy()
    fail_first(numbers < minimum, lines, path, [f"{what} {v} is below {minimum}" for v in numbers])
    return numbers


def check_no_empty(values: Sequence[str], lines: np.ndarray, path: Path, what: str) -> None:
    """An empty (or whitespace-only) value is an error at its line."""
    empty = np.fromiter((not v.strip() for v in values), dtype=bool, count=len(values))
    fail_first(empty, lines, path, f"empty {what}")


# ------------------------------------------------------------------------------------------------ completeness


def _plain(value: object) -> object:
    """A numpy scalar as the Python value it holds (so that messages read ``0``, not ``np.int64(0)``)."""
    return value.item() if isinstance(value, np.generic) else value


def check_unique(frame: pd.DataFrame, keys: Sequence[str], path: Path, what: str) -> None:
    """A repeated key is an error at its second occurrence, naming the first."""
    duplicated = frame.duplicated(list(keys), keep="first").to_numpy()
    if duplicated.any():
        second = frame.iloc[int(np.flatnonzero(duplicated)[0])]
        same = (frame[list(keys)] == second[list(keys)]).all(axis=1).to_numpy()
        first_line = int(frame["line"].to_numpy()[np.flatnonzero(same)[0]])
        key = ", ".join(f"{k} {_plain(second[k])!r}" for k in keys)
        raise InputError(
            f"{what} ({key}) given twice (first at line {first_line})", path, int(second["line"])
        )


def check_exact_repeats(
    frame: pd.DataFrame, lines: np.ndarray, path: Path, what: str, how_to_tell: str
) -> None:
    """A row whose every field repeats an earlier row is an error naming both lines: the same judgment would
    be counted twice (changing n and every p-value that uses it)."""
    if frame.empty:
        return
    group = frame.groupby(list(frame.columns), sort=False, dropna=False).ngroup().to_numpy()
    repeated = pd.Series(group).duplicated().to_numpy()
    if repeated.any():
        second = int(np.flatnonzero(repeated)[0])
        first = int(np.flatnonzero(group == group[second])[0])
        raise InputError(
            f"exact repeat of line {int(lines[first])}: the same {what} would be counted twice; delete one"
            + (f", or {how_to_tell}" if how_to_tell else ""),
            path,
            int(lines[second]),
        )


def check_complete(frame: pd.DataFrame, path: Path, n_segments: int | None) -> int:
    """Every system must score every segment ``0..n-1`` exactly once; returns ``n``.

    ``n`` is ``n_segments`` when given (a segment >= n is an error at its line), else the largest segment + 1 over
    all systems. Duplicates are reported at their second line; a system's missing segments at the system's first
    line, naming the first missing one and how many segments the system has.
    """
    check_unique(frame, ("system", "segment"), path, "(system, segment)")
    segments = frame["segment"].to_numpy()
    lines = frame["line"].to_numpy()
    if n_segments is not None and (segments >= n_segments).any():
        fail_first(
            segments >= n_segments,
            lines,
            path,
            [f"segment {s} is outside the test set (0..{n_segments - 1}, 0-based)" for s in segments],
        )
    n = int(n_segments if n_segments is not None else segments.max() + 1)
    counts = frame.groupby("system", sort=False)["segment"].size()
    incomplete = counts[counts != n]
    if len(incomplete):
        system = str(incomplete.index[0])
        rows = frame.loc[frame["system"] == system]
        present = np.zeros(n, dtype=bool)
        present[rows["segment"].to_numpy()] = True
        missing = int(np.flatnonzero(~present)[0])
        others = ", ".join(f"{name!r}: {count}" for name, count in counts[counts == n].head(3).items())
        raise InputError(
            f"system {system!r} (first row here) has {len(rows)} of {n} segments: no score for segment "
            f"{missing} (0-based)" + (f"; other systems have all {n} ({others})" if others else ""),
            path,
            int(rows["line"].min()),
        )
    return n


def _check_documents_agree(frame: pd.DataFrame, path: Path) -> None:
    """Every row of a segment must give the same document (an error at the first disagreeing row)."""
    first_document = frame.groupby("segment")["document"].transform("first")
    disagree = (frame["document"] != first_document).to_numpy()
    fail_first(
        disagree,
        frame["line"].to_numpy(),
        path,
        [
            f"segment {s} is in document {d!r} here but {f!r} in an earlier row"
            for s, d, f in zip(frame["segment"], frame["document"], first_document, strict=True)
        ],
    )


def _finish(frame: pd.DataFrame, path: Path, fmt: str) -> pd.DataFrame:
    columns = [*TIDY_COLUMNS, *(["document"] if "document" in frame.columns else []), "line"]
    out = frame[columns].reset_index(drop=True)
    out.attrs.update(path=str(path), format=fmt)
    return out


def read_tidy_columns(
    path: Path, required: Sequence[str], optional: Sequence[str], described: str | None = None
) -> tuple[dict[str, list[str]], np.ndarray]:
    """A tidy TSV's columns by their canonical names and the line number of each row: a header naming every
    ``required`` column and any of the ``optional`` ones (by their canonical names or an alias,
    :mod:`mtsig.io.tidy_columns`: ``item`` for ``segment``, ``doc`` for ``document``), in any order, then at least
    one row with as many TAB-separated fields. A missing column is an error naming it, its aliases and a correct
    header line; another column name is an error too (a misspelt optional column would otherwise be dropped
    silently), as is a column named twice; ``described`` says which columns there are in that message (default:
    the columns with their aliases)."""
    texts, lines = read_data_lines(path)
    fields = texts[0].split("\t")
    missing = missing_columns_message(fields, required, optional)
    if missing is not None:
        raise InputError(missing, path, int(lines[0]))
    header = in_own_names(fields, (*required, *optional))
    unknown = [c for c in header if c not in (*required, *optional)]
    if unknown or len(set(header)) != len(header):
        if described is None:
            described = ", ".join(map(described_column, required))
            described += f" and optionally {', '.join(map(described_column, optional))}" if optional else ""
        problem = (
            f"unknown column(s) {', '.join(map(repr, unknown))}{_alias_twice(unknown, header)}"
            if unknown
            else "a column is named twice"
        )
        raise InputError(f"{problem}; the columns are {described}", path, int(lines[0]))
    if len(texts) == 1:
        raise InputError("no rows after the header", path, int(lines[0]))
    rows = split_fields(texts[1:], lines[1:], path, len(header), "\t", "the header's columns, TAB-separated")
    return {name: [row[i] for row in rows] for i, name in enumerate(header)}, lines[1:]


def _alias_twice(unknown: Sequence[str], header: Sequence[str]) -> str:
    """Why an unknown column is unknown when it is an alias of a column the header names too ('' otherwise)."""
    for name in unknown:
        named = [column for column in header if name in aliases(column)]
        if named:
            return f" ({name!r} is another name of {named[0]}, which the header also names: keep one)"
    return ""


# ----------------------------------------------------------------------------------------------------- readers


def read_tidy_segment_scores(path: str | Path, *, n_segments: int | None = None) -> pd.DataFrame:
    """Read a tidy TSV of segment scores: a header naming ``system``, ``segment`` (0-based line of the test set),
    ``score`` and optionally ``document`` (or their aliases, :mod:`mtsig.io.tidy_columns`), in any order; then one
    row per (system, segment), in any order.

    A missing column is an error naming it, its aliases and a correct header line; another column name is an error
    (a misspelt ``document`` would otherwise drop the documents silently). ``n_segments``: the test set's size,
    when known; otherwise every system must cover ``0..max segment``.
    """
    path = Path(path)
    columns, lines = read_tidy_columns(path, TIDY_COLUMNS, OPTIONAL_TIDY_COLUMNS)
    check_no_empty(columns["system"], lines, path, "system")
    frame = pd.DataFrame(
        {
            "system": columns["system"],
            "segment": parse_integers(columns["segment"], lines, path, "segment"),
            "score": parse_finite_numbers(columns["score"], lines, path, "score"),
            "line": lines,
        }
    )
    if "document" in columns:
        check_no_empty(columns["document"], lines, path, "document")
        frame["document"] = columns["document"]
    check_complete(frame, path, n_segments)
    if "document" in frame.columns:
        _check_documents_agree(frame, path)
    return _finish(frame.sort_values(["system", "segment"], kind="stable"), path, "tidy")


def _rows_in_order(systems: Sequence[str]) -> np.ndarray:
    """0-based position of each row among its system's rows (file order): the segment of order-based layouts."""
    # with integer codes and a stable sort (cheaper than pandas' groupby of a list of names on large files)
    codes, _ = pd.factorize(np.asarray(systems, dtype=object))
    counts = np.bincount(codes)
    order = np.argsort(codes, kind="stable")
    position = np.empty(len(codes), dtype=np.int64)
    position[order] = np.arange(len(codes)) - np.repeat(np.cumsum(counts) - counts, counts)
    return position


def _check_same_row_counts(frame: pd.DataFrame, path: Path, n_segments: int | None) -> int:
    """Order-based layouts: every system needs the same number of rows (``n_segments`` when given); a system
    with another count is an error at its last row."""
    codes, names = pd.factorize(frame["system"].to_numpy(dtype=object))  # in order of first appearance
    counts = pd.Series(np.bincount(codes, minlength=len(names)), index=names)
    expected = n_segments if n_segments is not None else int(counts.max())
    wrong = counts[counts != expected]
    if len(wrong):
        system = str(wrong.index[0])
        last_line = int(frame.loc[frame["system"] == system, "line"].max())
        if n_segments is not None:
            problem = f"the test set has {n_segments} segments"
        else:
            fullest = str(counts.idxmax())
            problem = f"system {fullest!r} has {expected}"
        raise InputError(
            f"system {system!r} has {int(wrong.iloc[0])} rows (its last is here) but {problem}: each system "
            "needs one row per segment, in test-set order",
            path,
            last_line,
        )
    return int(expected)


def wmt_rows_kept(fields: pd.DataFrame, wanted: Mapping[str, str | None], path: Path) -> np.ndarray:
    """Which rows of a WMT ``seg.score`` or ``sys.score`` file have the values ``wanted`` gives (column -> value;
    None: any), as a boolean mask.

    Raises:
        InputError: no row has them (naming what the file has in those columns).
    """
    keep = np.ones(len(fields), dtype=bool)
    for column, value in wanted.items():
        if value is not None:
            keep &= (fields[column] == value).to_numpy()
    if not keep.any():
        asked = ", ".join(f"{column}={value!r}" for column, value in wanted.items() if value is not None)
        has = "; ".join(
            f"{column}: {', '.join(sorted(set(fields[column])))}"
            for column, value in wanted.items()
            if value is not None
        )
        raise InputError(f"no rows with {asked} (the file has {has})", path)
    return keep


def read_wmt_seg_scores(
    path: str | Path,
    *,
    lp: str | None = None,
    testset: str | None = None,
    refset: str | None = None,
    metric: str | None = None,
    n_segments: int | None = None,
) -> pd.DataFrame:
    """Read a WMT20 metrics-task ``<METRIC>.seg.score`` file (Mathur et al. 2020, the task's submission format).

    No header; TAB-separated ``metric, lp, testset, refset, system, document id, segment number within the
    document (1-based), score``. The task's files hold every language pair, test set and reference: ``lp``,
    ``testset``, ``refset`` and ``metric`` keep only the matching rows, and the rows kept must share one (metric,
    lp, testset, refset) (an error otherwise, listing them). A system's rows are in test-set order, so its n-th row
    is segment n-1; its documents are the file's.

    Checks: every system has the same number of rows (``n_segments`` when given); the segment number restarts at 1
    with each new document and grows by 1 within it, and a document does not come back after another one started;
    every system has the same (document, segment number) sequence as the first system of the file. The table's
    ``attrs`` name the metric, with the file and the format.
    """
    path = Path(path)
    texts, lines = read_data_lines(path)
    rows = split_fields(texts, lines, path, 8, "\t", "WMT seg.score: " + ", ".join(WMT_SEG_SCORE_FIELDS))
    fields = pd.DataFrame(rows, columns=list(WMT_SEG_SCORE_FIELDS))
    keep = wmt_rows_kept(fields, {"lp": lp, "testset": testset, "refset": refset, "metric": metric}, path)
    fields, lines = fields.loc[keep].reset_index(drop=True), lines[keep]
    combos = fields[["metric", "lp", "testset", "refset"]].drop_duplicates()
    if len(combos) > 1:
        listed = "; ".join("/".join(combo) for combo in combos.head(5).itertuples(index=False))
        raise InputError(
            f"rows of {len(combos)} (metric/lp/testset/refset) combinations ({listed}): choose one with "
            "the lp, testset, refset and metric options",
            path,
            int(lines[combos.index[1]]),
        )
    check_no_empty(fields["system"], lines, path, "system")
    check_no_empty(fields["document"], lines, path, "document id")
    frame = pd.DataFrame(
        {
            "system": fields["system"].to_numpy(),
            "segment": _rows_in_order(fields["system"].tolist()),
            "score": parse_finite_numbers(fields["score"], lines, path, "score"),
            "document": fields["document"].to_numpy(),
            "doc_segment": parse_integers(fields["doc_segment"], lines, path, "segment number", minimum=1),
            "line": lines,
        }
    )
    n = _check_same_row_counts(frame, path, n_segments)
    by_system = {name: rows for name, rows in frame.groupby("system", sort=False)}
    first_name, first = next(iter(by_system.items()))
    _check_document_sequence(first, path)
    expected_doc, expected_seg = first["document"].to_numpy(), first["doc_segment"].to_numpy()
    for name, rows in by_system.items():
        differs = (rows["document"].to_numpy() != expected_doc) | (
            rows["doc_segment"].to_numpy() != expected_seg
        )
        fail_first(
            differs,
            rows["line"].to_numpy(),
            path,
            [
                f"system {name!r}'s row {i + 1} is (document {d!r}, segment {s}) but system {first_name!r}'s is "
                f"(document {expected_doc[i]!r}, segment {expected_seg[i]}): every system must list the test set "
                "in the same order"
                for i, (d, s) in enumerate(zip(rows["document"], rows["doc_segment"], strict=True))
            ],
        )
    check_complete(frame, path, n)
    out = _finish(frame, path, "wmt_seg_score")
    out.attrs["metric"] = combos["metric"].iloc[0]
    return out


def _check_document_sequence(rows: pd.DataFrame, path: Path) -> None:
    """Segment numbers restart at 1 with each document and grow by 1 within it; documents are contiguous."""
    documents = rows["document"].to_numpy()
    numbers = rows["doc_segment"].to_numpy()
    lines = rows["line"].to_numpy()
    new_document = np.r_[True, documents[1:] != documents[:-1]]
    expected = np.ones(len(numbers), dtype=np.int64)
    expected[~new_document] = numbers[np.flatnonzero(~new_document) - 1] + 1
    fail_first(
        numbers != expected,
        lines,
        path,
        [
            f"segment number {n} of document {d!r}: expected {e} "
            + ("(a new document starts at 1)" if new else "(the previous row's number + 1)")
            for n, d, e, new in zip(numbers, documents, expected, new_document, strict=True)
        ],
    )
    starts = pd.Series(documents[new_document])
    reopened = starts.duplicated().to_numpy()
    fail_first(
        reopened,
        lines[new_document],
        path,
        [f"document {d!r} starts again after other documents (documents must be contiguous)" for d in starts],
    )


def read_mtme_seg_scores(
    path: str | Path, *, allow_none: bool = False, n_segments: int | None = None
) -> pd.DataFrame:
    """Read an mt-metrics-eval segment-level score file: lines ``SYSNAME SCORE`` (any whitespace between), each
    system's lines in segment order (its n-th line is segment n-1; see the module docstring).

    ``None`` scores are an error, as mt-metrics-eval's README requires for metric scores; with ``allow_none``
    (its human-score files) they are dropped, the segment still counted, so the table lacks those segments and
    :func:`scores_array` reports them if they are requested. Every system needs the same number of lines.
    """
    path = Path(path)
    texts, lines = read_data_lines(path)
    rows = split_fields(texts, lines, path, 2, None, "mt-metrics-eval: SYSNAME SCORE")
    systems = [row[0] for row in rows]
    values = [row[1] for row in rows]
    is_none = np.array([v == "None" for v in values], dtype=bool)
    if not allow_none:
        fail_first(
            is_none, lines, path, "score 'None' (a missing score) is not allowed in a metric-score file"
        )
    frame = pd.DataFrame({"system": systems, "segment": _rows_in_order(systems), "line": lines})
    # every system has n rows, and its k-th row is its segment k - 1: every (system, segment) once, none missing
    # (what check_complete would check again)
    _check_same_row_counts(frame, path, n_segments)
    scored = ~is_none
    frame = frame.loc[scored].reset_index(drop=True)
    frame["score"] = parse_finite_numbers(
        [v for v, s in zip(values, scored, strict=True) if s], frame["line"].to_numpy(), path, "score"
    )
    return _finish(frame, path, "mtme_seg_score")


#: Layout name -> reader(path, **options).
FORMATS: dict[str, Callable[..., pd.DataFrame]] = {
    "tidy": read_tidy_segment_scores,
    "wmt_seg_score": read_wmt_seg_scores,
    "mtme_seg_score": read_mtme_seg_scores,
}


def names_documents(path: str | Path, fmt: str) -> bool:
    """Whether a segment-score file of layout ``fmt`` gives each segment's document: a ``wmt_seg_score`` file always,
    a ``tidy`` file when its header names a ``document`` column (or its alias ``doc``), an ``mtme_seg_score`` file
    never (mt-metrics-eval keeps documents in ``documents/<lp>.docs``). The header is found as
    :func:`read_tidy_columns` finds it (:func:`read_data_lines`: a gzip-compressed file decompressed, blank lines
    skipped). A file that cannot be read gives False: the step that reads it reports why, naming the file."""
    if fmt != "tidy":
        return fmt == "wmt_seg_score"
    try:
        header = read_data_lines(path)[0][0]
    except InputError:
        return False
    return "document" in in_own_names(header.split("\t"), ("document",))


def detect_format(path: str | Path) -> str:
    """The layout of a segment-score file from its first non-blank line: a TAB-separated header naming
    ``system``, ``segment`` and ``score`` is ``tidy``; eight TAB-separated fields are ``wmt_seg_score``; two
    whitespace-separated fields ending in a number or ``None`` are ``mtme_seg_score``; any other line naming two
    columns of the tidy family (:func:`mtsig.io.tidy_columns.looks_like_header`: ``system,segment,score``,
    ``System Score``) is ``tidy`` too, so that its reader says what the header lacks.

    Raises:
        InputError: at line 1 (the first non-blank line) when the line fits none of the three layouts.
    """
    path = Path(path)
    texts, lines = read_data_lines(path)
    first = texts[0]
    if set(TIDY_COLUMNS) <= set(in_own_names(first.split("\t"), TIDY_COLUMNS)):
        return "tidy"
    if len(first.split("\t")) == len(WMT_SEG_SCORE_FIELDS):
        return "wmt_seg_score"
    fields = first.split()
    if len(fields) == 2 and (fields[1] == "None" or _NUMBER.fullmatch(fields[1])):
        return "mtme_seg_score"
    if looks_like_header(first):  # a tidy header gone wrong: the tidy reader says what it lacks
        return "tidy"
    raise InputError(
        "cannot tell the segment-score layout from this line: expected a tidy header line (e.g. "
        f"'{header_line(TIDY_COLUMNS, OPTIONAL_TIDY_COLUMNS)}'), 8 TAB-separated WMT seg.score fields or 'SYSNAME "
        f"SCORE' (mt-metrics-eval); name the layout with --scores-format ({', '.join(FORMATS)})",
        path,
        int(lines[0]),
    )


def read_segment_scores(path: str | Path, fmt: str, **options: Any) -> pd.DataFrame:
    """Read ``path`` in layout ``fmt`` (one of :data:`FORMATS`) with the reader's ``options``."""
    if fmt not in FORMATS:
        raise InputError(f"unknown segment-score format {fmt!r}; known: {', '.join(FORMATS)}", path)
    try:
        return FORMATS[fmt](path, **options)
    except TypeError as error:
        raise InputError(f"bad option for segment-score format {fmt!r}: {error}", path) from None


# ------------------------------------------------------------------------------------------------------ arrays


def _path_of(frame: pd.DataFrame, path: str | Path | None) -> str | None:
    return str(path) if path is not None else frame.attrs.get("path")


def scores_array(
    frame: pd.DataFrame, systems: Sequence[str], n_segments: int, *, path: str | Path | None = None
) -> np.ndarray:
    """``float64[len(systems), n_segments]``: row s holds ``systems[s]``'s score of every segment.

    Raises:
        InputError: naming the file (``path``, else ``frame.attrs["path"]``): a requested system is absent (the
            message lists those present and says how to name the rows); a segment of a requested system is
            missing (at the system's first line); a segment is >= ``n_segments`` (at its line).
    """
    where = _path_of(frame, path)
    present = pd.unique(frame["system"])
    absent = [name for name in systems if name not in set(present)]
    if absent:
        raise InputError(
            f"no segment scores for system(s) {', '.join(map(repr, absent))}; the file has "
            f"{', '.join(map(repr, present))}: name each system's rows as the system is named where it is asked "
            "for (a pipeline experiment: as its systems: list names it, the {system} of its outputs: path)",
            where,
        )
    array = np.full((len(systems), n_segments), np.nan)
    for row, name in enumerate(systems):
        rows = frame.loc[frame["system"] == name]
        segments = rows["segment"].to_numpy()
        lines = rows["line"].to_numpy() if "line" in rows.columns else np.zeros(len(rows), dtype=np.int64)
        outside = segments >= n_segments
        if outside.any():
            first = int(np.flatnonzero(outside)[0])
            raise InputError(
                f"system {name!r} scores segment {segments[first]} but the test set has {n_segments} segments "
                "(0-based segments)",
                where,
                int(lines[first]) or None,
            )
        array[row, segments] = rows["score"].to_numpy(dtype=np.float64)
        missing = np.flatnonzero(np.isnan(array[row]))
        if len(missing):
            first_line = int(lines.min()) if len(lines) else 0
            raise InputError(
                f"system {name!r} (first row here) has no score for segment {missing[0]} (0-based; "
                f"{len(missing)} of {n_segments} segments missing)",
                where,
                first_line or None,
            )
    return array


def segment_documents(
    frame: pd.DataFrame, n_segments: int, *, path: str | Path | None = None
) -> np.ndarray | None:
    """The document id of every segment (``str[n_segments]``), or ``None`` when the table has no documents.

    Raises:
        InputError: a segment has no row, or its rows disagree on the document.
    """
    if "document" not in frame.columns:
        return None
    where = _path_of(frame, path)
    firsts = frame.groupby("segment")["document"].agg(["first", "nunique"])
    if (firsts["nunique"] > 1).any():
        segment = int(firsts.index[firsts["nunique"] > 1][0])
        raise InputError(f"segment {segment} is given different documents", where)
    documents = firsts["first"].reindex(range(n_segments))
    if documents.isna().any():
        raise InputError(f"no document for segment {int(np.flatnonzero(documents.isna())[0])}", where)
    return documents.to_numpy(dtype=str)
