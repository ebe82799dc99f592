"""Verify a run's results against committed checksums: every file the run writes is there, and every deterministic
one is equal, byte for byte.

The pipeline is deterministic (the same config and seed give byte-identical results whatever ``--cores`` or
``pair_shards``), so a reviewer's run can be checked file by file against the checksums of a reference run:
``checksums/default-run.tsv`` (the default run) and ``checksums/quick-run.tsv`` (the quick check, ``config/quick.yaml``).

**What is checked.** Every file under the results folder (:func:`run_files`), by its ``kind``:

- ``text``: the tables (``.tsv``, ``.csv``, ``.md``, ``.tex``, ``.html``), the prepared texts, the manifests
  (``*.manifest.json``), byte for byte; a difference is located to its first differing row.
- ``binary``: the ``.npz`` arrays (metric statistics, pseudo-statistic distributions, the paraphrase index), byte for
  byte; a difference names the file's size against the listed one (a truncated file) or the arrays that differ.
- ``figure``: PNG and PDF, whose bytes depend on the fonts and the matplotlib version (every number they show is
  in a checked table): present and complete (a PNG ends with its ``IEND`` chunk, a PDF with ``%%EOF``).

Not listed: Snakemake's ``.snakemake_timestamp`` stamps in directory outputs, ``verification.txt`` (the report of
``snakemake verify`` itself) and temporary files (``*.tmp``, left only by a run stopped hard that was not rerun).

**The checksum list** is a TSV with one row per file: ``path`` (relative to the results folder, ``/``-separated),
``kind``, ``bytes`` (its size), ``rows`` (its lines; text only), ``sha256`` (of its bytes) and ``blocks``. For a
text file, the first 8 hex digits of the sha256 of each of :data:`BLOCKS` consecutive runs of lines
(:func:`block_bounds`): a differing file is located by its first differing block, exactly to the row in a file of
at most :data:`BLOCKS` lines (every table a reader looks at), to a run of ``rows / BLOCKS`` lines in the longer
ones, without keeping their content. For an ``.npz``, ``name=`` and the first 8 hex digits of the sha256 of each
array's member. A figure's row has its path and kind only. A list of an earlier mtsig (columns ``path, rows,
sha256, blocks``: tables and TSVs only) is still read, each of its rows a ``text`` file.
"""

from __future__ import annotations

import hashlib
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from mtsig.errors import InputError
from mtsig.runtime.hard_stop import TEMPORARY_SUFFIX  # a file being written: never a result
from mtsig.runtime.progress import Progress, counter

#: How a listed file is checked (the list's ``kind`` column).
TEXT, BINARY, FIGURE = "text", "binary", "figure"
#: Suffixes of the files checked as arrays, and of the figures (checked for presence and completeness).
BINARY_SUFFIXES = (".npz",)
FIGURE_SUFFIXES = (".png", ".pdf")
#: Files under a results folder that are no result: Snakemake's stamps of directory outputs (any folder), and the
#: report of the Snakemake target ``verify`` (the results folder itself).
SNAKEMAKE_STAMP = ".snakemake_timestamp"
VERIFY_REPORT = "verification.txt"
#: Blocks of lines hashed per file, to locate the first difference.
BLOCKS = 32
CHECKSUM_COLUMNS = ["path", "kind", "bytes", "rows", "sha256", "blocks"]
#: The columns of a list written by mtsig before the kinds (tables and TSVs only, all text).
EARLIER_COLUMNS = ["path", "rows", "sha256", "blocks"]
EQUAL, DIFFERENT, MISSING, UNLISTED = "equal", "different", "missing", "not in the list"


def file_kind(path: str) -> str:
    """How a file of a run is checked, from its suffix: :data:`FIGURE`, :data:`BINARY` or :data:`TEXT`."""
    suffix = Path(path).suffix.lower()
    if suffix in FIGURE_SUFFIXES:
        return FIGURE
    return BINARY if suffix in BINARY_SUFFIXES else TEXT


def run_files(results: Path) -> list[str]:
    """Every file of the run under ``results``, as sorted ``/``-separated relative paths: all files but
    Snakemake's stamps, the verification report and temporary files."""
    names = []
    for path in results.rglob("*"):
        name = path.relative_to(results).as_posix()
        if not path.is_file() or path.name == SNAKEMAKE_STAMP or name == VERIFY_REPORT:
            continue
        if not path.name.endswith(TEMPORARY_SUFFIX):
            names.append(name)
    return sorted(names)


def temporary_files(results: Path) -> list[str]:
    """Temporary files under ``results`` (a run stopped hard and not rerun since), as relative paths."""
    return sorted(
        p.relative_to(results).as_posix() for p in results.rglob(f"*{TEMPORARY_SUFFIX}") if p.is_file()
    )


def block_bounds(n_rows: int, blocks: int = BLOCKS) -> list[tuple[int, int]]:
    """``[start, end)`` line ranges of the blocks: ``min(blocks, n_rows)`` runs of (nearly) equal length."""
    count = min(blocks, n_rows)
    edges = [n_rows * k // count for k in range(count + 1)] if count else [0, 0]
    return list(zip(edges[:-1], edges[1:], strict=True))


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def _block_hashes(lines: Sequence[bytes]) -> list[str]:
    return [
        hashlib.sha256(b"".join(lines[start:end])).hexdigest()[:8] for start, end in block_bounds(len(lines))
    ]


@dataclass(frozen=True)
class FileChecksum:
    """One row of the checksum list (:data:`CHECKSUM_COLUMNS`); ``size`` is -1 when the list does not record it
    (a list of an earlier mtsig)."""

    path: str
    kind: str
    size: int
    rows: int
    sha256: str
    blocks: tuple[str, ...]


def npz_member_hashes(data: bytes) -> tuple[str, ...] | None:
    """``name=<first 8 hex digits of its sha256>`` of each array of an ``.npz`` (a zip of ``.npy`` members), in
    the archive's order; None when the bytes are not a readable zip (a truncated file)."""
    import io

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return tuple(
                f"{info.filename.removesuffix('.npy')}={hashlib.sha256(archive.read(info)).hexdigest()[:8]}"
                for info in archive.infolist()
            )
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError, KeyError):
        return None


def file_checksum(path: str, data: bytes) -> FileChecksum:
    """The checksum row of a file's bytes (:data:`CHECKSUM_COLUMNS`); a figure's row has its path and kind only."""
    kind = file_kind(path)
    if kind == FIGURE:
        return FileChecksum(path, kind, -1, 0, "", ())
    digest = hashlib.sha256(data).hexdigest()
    if kind == BINARY:
        return FileChecksum(path, kind, len(data), 0, digest, npz_member_hashes(data) or ())
    lines = _lines(data)
    return FileChecksum(path, kind, len(data), len(lines), digest, tuple(_block_hashes(lines)))


def checksum_table(results: Path, progress: Progress | None = None) -> pd.DataFrame:
    """The checksum list of every file of the run under ``results`` (:func:`run_files`)."""
    names = run_files(results)
    advance = counter(progress, len(names))
    rows = []
    for name in names:
        data = b"" if file_kind(name) == FIGURE else (results / name).read_bytes()
        rows.append(file_checksum(name, data))
        advance(1)
    return pd.DataFrame(
        [
            (
                r.path,
                r.kind,
                "" if r.size < 0 else r.size,
                r.rows if r.kind == TEXT else "",
                r.sha256,
                ",".join(r.blocks),
            )
            for r in rows
        ],
        columns=CHECKSUM_COLUMNS,
    )


def read_checksums(path: Path) -> pd.DataFrame:
    """A checksum list (:data:`CHECKSUM_COLUMNS`, or an earlier mtsig's :data:`EARLIER_COLUMNS`, read as text
    files of unrecorded size); an error naming the file (and line) when it is not one."""
    if not path.is_file():
        raise InputError("no checksum list here (regenerate it with mtsig verify --write)", path)
    table = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    if list(table.columns) == EARLIER_COLUMNS:
        table.insert(1, "kind", TEXT)
        table.insert(2, "bytes", "")
    if list(table.columns) != CHECKSUM_COLUMNS:
        raise InputError(f"columns {list(table.columns)}, expected {CHECKSUM_COLUMNS}", path, 1)
    for at, row in enumerate(table.itertuples(index=False), start=2):
        problem = _row_problem(row)
        if problem:
            raise InputError(problem, path, at)
    return table


def _row_problem(row: Any) -> str | None:
    """What is wrong with one row of a checksum list, or None."""
    if row.kind not in (TEXT, BINARY, FIGURE):
        return f"kind {row.kind!r}, expected {TEXT}, {BINARY} or {FIGURE}"
    if row.kind == FIGURE:
        return None
    if len(row.sha256) != 64 or any(c not in "0123456789abcdef" for c in row.sha256):
        return "not a sha256 checksum"
    if not (row.bytes == "" or row.bytes.isdigit()) or (row.kind == TEXT and not row.rows.isdigit()):
        return "bytes and rows must be whole numbers"
    return None


def listed_checksum(row: Any) -> FileChecksum:
    """A row of :func:`read_checksums` as a :class:`FileChecksum`."""
    return FileChecksum(
        row.path,
        row.kind,
        int(row.bytes) if row.bytes else -1,
        int(row.rows) if row.rows else 0,
        row.sha256,
        tuple(filter(None, row.blocks.split(","))),
    )


def first_difference(expected: FileChecksum, data: bytes) -> str:
    """Where ``data`` first departs from the file ``expected`` describes, and what the file has there."""
    if expected.kind == BINARY:
        return _binary_difference(expected, data)
    lines = _lines(data)
    if len(lines) != expected.rows:
        note = f"{len(lines)} rows, expected {expected.rows}; "
    else:
        note = ""
    actual_blocks = _block_hashes(lines) if len(lines) == expected.rows else []
    bounds = block_bounds(expected.rows)
    for (start, end), want, got in zip(bounds, expected.blocks, actual_blocks, strict=False):
        if want != got:
            shown = lines[start].decode("utf-8", "replace").rstrip("\n")
            where = (
                f"row {start + 1}" if end - start == 1 else f"rows {start + 1}-{end} (first of them shown)"
            )
            return f"{note}first difference in {where}: {shown}"
    first = lines[0].decode("utf-8", "replace").rstrip("\n") if lines else "(empty)"
    return f"{note}row 1: {first}"


def _binary_difference(expected: FileChecksum, data: bytes) -> str:
    """How an ``.npz`` differs: its size against the listed one, and either that it is not a readable archive (a
    truncated file) or which arrays differ."""
    size = f"{len(data)} bytes, expected {expected.size}" if expected.size >= 0 else f"{len(data)} bytes"
    members = npz_member_hashes(data)
    if members is None:
        return f"{size}; not a readable .npz (truncated?)"
    wanted = dict(m.split("=", 1) for m in expected.blocks)
    found = dict(m.split("=", 1) for m in members)
    changed = [name for name in wanted if found.get(name) != wanted[name]]
    changed += [name for name in found if name not in wanted]
    return f"{size}; arrays that differ: {', '.join(changed) or '(none: the archive itself)'}"


def figure_problem(file: Path) -> str | None:
    """Why ``file`` is not a complete figure (empty; a PNG without its final ``IEND`` chunk, a PDF without
    ``%%EOF`` near its end: a truncated file), or None."""
    size = file.stat().st_size
    if size == 0:
        return "empty"
    with file.open("rb") as handle:
        head = handle.read(8)
        handle.seek(max(0, size - 1024))
        tail = handle.read()
    if file.suffix.lower() == ".png":
        if head != b"\x89PNG\r\n\x1a\n" or not tail.endswith(b"IEND\xaeB`\x82"):
            return "not a complete PNG (truncated?)"
    elif not head.startswith(b"%PDF-") or b"%%EOF" not in tail:
        return "not a complete PDF (truncated?)"
    return None


def verify_results(expected: pd.DataFrame, results: Path, progress: Progress | None = None) -> pd.DataFrame:
    """Per file of the list and per file of the run found: ``path, status, detail``. Status :data:`EQUAL`,
    :data:`DIFFERENT` (detail: :func:`first_difference`, or for a figure :func:`figure_problem`), :data:`MISSING`,
    or :data:`UNLISTED` (a file the list does not name: another run's output, or a temporary file; reported, not a
    difference). ``progress`` (:mod:`mtsig.runtime.progress`): told in listed files."""
    records = []
    advance = counter(progress, len(expected))
    for row in expected.itertuples(index=False):
        records.append((row.path, *_status(listed_checksum(row), results / row.path)))
        advance(1)
    listed = set(expected["path"])
    found = run_files(results) + temporary_files(results)
    records += [(name, UNLISTED, "") for name in sorted(found) if name not in listed]
    return pd.DataFrame(records, columns=["path", "status", "detail"])


def _status(want: FileChecksum, file: Path) -> tuple[str, str]:
    """The status of one listed file, and its detail."""
    if not file.is_file():
        return MISSING, ""
    if want.kind == FIGURE:
        problem = figure_problem(file)
        return (DIFFERENT, problem) if problem else (EQUAL, "")
    data = file.read_bytes()
    if hashlib.sha256(data).hexdigest() == want.sha256:
        return EQUAL, ""
    return DIFFERENT, first_difference(want, data)


def verification_failed(report: pd.DataFrame) -> bool:
    """A file is different or missing."""
    return bool(report["status"].isin([DIFFERENT, MISSING]).any())


def verification_text(report: pd.DataFrame, expected_path: Path | str, results: Path | str) -> str:
    """One line per file that is not equal, then the counts; "all equal" when every listed file is."""
    lines = [
        f"{status}: {path}" + (f": {detail}" if detail else "")
        for path, status, detail in report.itertuples(index=False)
        if status != EQUAL
    ]
    counts = report["status"].value_counts()
    summary = ", ".join(f"{counts.get(s, 0)} {s}" for s in (EQUAL, DIFFERENT, MISSING, UNLISTED))
    verdict = "all equal" if not verification_failed(report) else "DIFFERENT"
    lines.append(f"{results} against {expected_path}: {summary}: {verdict}")
    return "\n".join(lines) + "\n"
