"""Verify a run's results against committed checksums: every table and TSV equal, byte for byte.

The pipeline is deterministic (the same config and seed give byte-identical results whatever ``--cores`` or
``pair_shards``), so a reviewer's run can be checked file by file against the checksums of a reference run:
``checksums/default-run.tsv`` (the default run) and ``checksums/quick-run.tsv`` (the quick check, ``config/quick.yaml``).

**What is checked.** Every ``.tsv``, ``.csv``, ``.md`` and ``.tex`` file under the results folder (the tables, every
intermediate table, the golds, tests, accuracies, clusters). Figures (PNG, PDF) are not: their bytes depend on the
fonts and the matplotlib version, and every number they show is in a checked table. Nor are the manifests
(``*.manifest.json``), which describe the checked files, or the ``.npz`` arrays, whose content the tables derive from.

**The checksum list** is a TSV with one row per file: ``path`` (relative to the results folder, ``/``-separated),
``rows`` (its lines), ``sha256`` (of its bytes) and ``blocks``: the first 8 hex digits of the sha256 of each of
:data:`BLOCKS` consecutive runs of lines (:func:`block_bounds`). A differing file is located by its first differing
block: exactly to the row in a file of at most :data:`BLOCKS` lines (every table a reader looks at), to a run of
``rows / BLOCKS`` lines in the longer ones, without keeping their content.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from mtsig.errors import InputError
from mtsig.runtime.progress import Progress, counter

#: Suffixes of the files whose bytes are checked.
VERIFIED_SUFFIXES = (".tsv", ".csv", ".md", ".tex")
#: Blocks of lines hashed per file, to locate the first difference.
BLOCKS = 32
CHECKSUM_COLUMNS = ["path", "rows", "sha256", "blocks"]
EQUAL, DIFFERENT, MISSING, UNLISTED = "equal", "different", "missing", "not in the list"


def verified_files(results: Path) -> list[str]:
    """The checked files under ``results`` as sorted ``/``-separated relative paths."""
    return sorted(
        path.relative_to(results).as_posix()
        for path in results.rglob("*")
        if path.is_file() and path.suffix in VERIFIED_SUFFIXES
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
    """One row of the checksum list."""

    path: str
    rows: int
    sha256: str
    blocks: tuple[str, ...]


def file_checksum(path: str, data: bytes) -> FileChecksum:
    """The checksum row of a file's bytes (:data:`CHECKSUM_COLUMNS`)."""
    lines = _lines(data)
    return FileChecksum(path, len(lines), hashlib.sha256(data).hexdigest(), tuple(_block_hashes(lines)))


def checksum_table(results: Path, progress: Progress | None = None) -> pd.DataFrame:
    """The checksum list of every checked file under ``results``."""
    names = verified_files(results)
    advance = counter(progress, len(names))
    rows = []
    for name in names:
        rows.append(file_checksum(name, (results / name).read_bytes()))
        advance(1)
    return pd.DataFrame(
        [(r.path, r.rows, r.sha256, ",".join(r.blocks)) for r in rows], columns=CHECKSUM_COLUMNS
    )


def read_checksums(path: Path) -> pd.DataFrame:
    """A checksum list; an error naming the file (and line) when it is not one."""
    if not path.is_file():
        raise InputError("no checksum list here (regenerate it with mtsig verify --write)", path)
    table = pd.read_csv(path, sep="\t", dtype={"path": str, "rows": "int64", "sha256": str, "blocks": str})
    if list(table.columns) != CHECKSUM_COLUMNS:
        raise InputError(f"columns {list(table.columns)}, expected {CHECKSUM_COLUMNS}", path, 1)
    bad = table["sha256"].str.fullmatch(r"[0-9a-f]{64}") != True  # noqa: E712 - NaN counts as bad
    if bad.any():
        raise InputError("not a sha256 checksum", path, int(bad.to_numpy().argmax()) + 2)
    table["blocks"] = table["blocks"].fillna("")
    return table


def first_difference(expected: FileChecksum, data: bytes) -> str:
    """Where ``data`` first departs from the file ``expected`` describes, and what the file has there."""
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


def verify_results(expected: pd.DataFrame, results: Path, progress: Progress | None = None) -> pd.DataFrame:
    """Per file of the list and per checked file found: ``path, status, detail``. Status :data:`EQUAL`,
    :data:`DIFFERENT` (detail: :func:`first_difference`), :data:`MISSING`, or :data:`UNLISTED` (a checked file the
    list does not name: another run's output; reported, not a difference). ``progress``
    (:mod:`mtsig.runtime.progress`): told in listed files."""
    records = []
    advance = counter(progress, len(expected))
    for row in expected.itertuples(index=False):
        want = FileChecksum(row.path, int(row.rows), row.sha256, tuple(filter(None, row.blocks.split(","))))
        records.append((row.path, *_status(want, results / row.path)))
        advance(1)
    listed = set(expected["path"])
    records += [(name, UNLISTED, "") for name in verified_files(results) if name not in listed]
    return pd.DataFrame(records, columns=["path", "status", "detail"])


def _status(want: FileChecksum, file: Path) -> tuple[str, str]:
    """The status of one listed file, and its detail."""
    if not file.is_file():
        return MISSING, ""
    data = file.read_bytes()
    if file_checksum(want.path, data).sha256 == want.sha256:
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
