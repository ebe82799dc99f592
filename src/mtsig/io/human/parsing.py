"""Row checks shared by the readers of human ratings (:mod:`mtsig.io.human`): delimited files read with each row's
physical line, scores, segment numbers and system names parsed column-wise, and the first bad row named by file and
line (:class:`mtsig.errors.InputError`)."""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.io.segment_scores import fail_first, read_data_lines, split_fields
from mtsig.io.tidy_columns import repeated_columns_message

#: MTurk "Input.item" codes used by the WMT / Graham et al. HIT templates.
CRITERION_CODES = {"ad": "adequacy", "fl": "fluency"}
# A reconstructed raw score (z * sd + mean) is an integer up to floating-point error (README: <= 2.2e-13).
_INTEGER_TOLERANCE = 1e-6


def fail_repeated(
    keys: np.ndarray, lines: np.ndarray, path: Path, problem: Callable[[Any, Any], str]
) -> None:
    """Raise an InputError at the first row whose key an earlier row already has; its message is
    ``problem(key, line of the key's first row)``."""
    duplicated = pd.Series(keys).duplicated().to_numpy()
    first_line = pd.Series(lines).groupby(keys).transform("first").to_numpy()
    fail_first(duplicated, lines, path, [problem(k, f) for k, f in zip(keys, first_line, strict=True)])


def parse_scores(
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


def parse_lines_1based(
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


def parse_segments_0based(
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


def check_known_systems(
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


def require_columns(
    frame: pd.DataFrame, required: Iterable[str], path: Path, line: int = 1, hint: str = ""
) -> None:
    """An InputError at the header's ``line`` naming every column of ``required`` the header lacks (and, with
    ``hint``, what to do instead of the default advice)."""
    missing = [c for c in required if c not in frame.columns]
    if missing:
        found = ", ".join(map(str, frame.columns))
        raise InputError(
            f"missing column(s) {', '.join(missing)}; found {found[:200]}"
            + (hint or " (the first line must be the header naming the columns)"),
            path,
            line,
        )


def read_delimited(
    path: Path,
    sep: str,
    *,
    names: Sequence[str] | None = None,
    comments: bool = False,
    quoted_csv: bool = False,
    check_header: Callable[[list[str]], str | None] | None = None,
) -> tuple[pd.DataFrame, np.ndarray, int]:
    """The rows of a delimited UTF-8 file as strings, with each row's physical line number.

    The first non-blank (non-comment) line is the header unless ``names`` are given. Blank lines are skipped and
    ``#`` lines too when ``comments``, but both are counted, so a line number is the one an editor shows (pandas'
    ``skip_blank_lines`` would shift every later line). Fields are split on ``sep`` without quoting, or with the
    ``csv`` module's quoting when ``quoted_csv`` (one record per line). ``check_header`` is the format's own check
    of the header's names, run first: the message of what is wrong with them, or None. Returns (rows, their lines,
    the header's line, 0 without a header line).

    Raises:
        InputError: the file is missing, empty, binary or not UTF-8; ``check_header`` refuses the header; the
            header names a column twice; there are no rows; a row has another number of fields than the header.
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
        problem = (check_header(header) if check_header else None) or repeated_columns_message(header)
        if problem is not None:
            raise InputError(problem, path, header_line)
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
