"""Appraise's export of Error Span Annotation (ESA) ratings (Kocmi et al. 2024, "Error Span Annotation: a balanced
approach for human evaluation of machine translation"; WMT24 findings, Kocmi et al. 2024, Sec. 3), with the WMT24
organisers' filtering made explicit.

Layout: comma-separated, no header, 12 columns (:data:`ESA_COLUMNS`): rater, system, segment id, item type (``TGT`` a
real item, ``BAD`` a quality-control item: a deliberately damaged translation), source and target language (ISO
639-3), the 0-100 score, the document id, an unused column, the error spans (JSON), start and end time (Unix
seconds). Error spans may contain commas, so fields are read with the csv module's quoting rules (as pandas'
``read_csv`` reads them).

What is kept, in the order the organisers' ``load_data`` applies it (wmt-conference/wmt24-news-systems@bfa937e,
``humeval/tools.py``), each step counted in :attr:`EsaExport.dropped`:

1. ``TGT`` rows only; the ``BAD`` rows are set apart (:attr:`EsaExport.bad_items`, the raters' quality control:
   :func:`mtsig.stats.human.esa_quality_control`);
2. tutorial rows (``tutorial`` in the system id) dropped;
3. ``#incomplete`` documents (items that fill a rater's last batch) dropped;
4. ``#dup`` documents (an account filled with identical evaluations) dropped;
5. the ``canary`` document dropped;
6. of several ratings of one item (system, document, segment, language pair, file) by one rater, the latest
   (largest end time) kept, as the organisers' ``sort_values('end_time', ascending=False)`` then
   ``drop_duplicates(keep='first')``. Among equal end times their unstable sort keeps an arbitrary one; here the
   one on the later line of the file (in the WMT24 waves 2 and 3 such ties occur 150 times and never differ in score).

Segment ids: line 0 of the test set's text files (``sources/<lp>.txt``, ``documents/<lp>.docs``, every system
output) is the canary line, and the released exports number the segments by their line: segment id ``s`` is line
``s`` (0-based), so ``item = s - 1`` is the 0-based index of the segment in the test set without the canary line
(line ``item + 1``). The organisers re-indexed their exports so on 29 Nov 2024 (commit 124a72f, "fix off-by-one ESA
indexing": ``humeval/fix_canary_indexing.py`` adds 1 to every id of ``humeval/old/wave*.csv``).
``first_segment_id`` is the id of the first segment after the canary line (:data:`RELEASED_FIRST_SEGMENT_ID`, 1,
in the released files): 0 reads the old files. Their
``load_data`` subtracts 1 in a loop over ``df.iterrows()`` that writes to each row; under pandas 2 a row of their
all-string frame is a view, so the frame changes, and ``attach_resources`` reads line ``(s - 1) + 1 = s``, as here.
Under pandas 3 (copy-on-write) the loop changes nothing, and their ``attach_resources`` fails its own assertion on
the released files. With a documents folder, each item's domain and document are read from line ``item + 1`` of
``<lp>.docs`` (``DOMAIN<TAB>DOCUMENT``) and the document must equal the row's document id, so a wrong offset is an
error rather than shifted domains.

Bad input: a row with the wrong number of columns, an item type other than TGT/BAD, an unknown language code, a
score that is not a number or lies outside 0-100, a segment id that is not a non-negative integer, an end time that
is not a number, an empty rater or system, an item beyond the documents file or whose document differs: an
:class:`~mtsig.errors.InputError` naming the file, the line and the problem.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.io.text import finite_number

#: The id of the first segment after the canary line in the released WMT24 exports (the organisers re-indexed their
#: files so on 29 Nov 2024; their earlier files start at 0): what ``first_segment_id`` is when a config or caller
#: does not say.
RELEASED_FIRST_SEGMENT_ID = 1

#: The 12 columns of an Appraise ESA export, in order (README of the WMT24 release; the organisers' ``load_data``).
ESA_COLUMNS = (
    "user_id",
    "system_id",
    "segment_id",
    "segment_type",
    "source_lang",
    "target_lang",
    "overall",
    "doc_id",
    "unused",
    "error_spans",
    "start_time",
    "end_time",
)
#: ISO 639-3 codes of the export and the two-letter codes of language-pair names. The first ten are the organisers'
#: ``langcode_mapping`` (``humeval/tools.py``); the rest are the other languages of WMT's general tasks 2022-2025.
LANGUAGE_CODES: Mapping[str, str] = {
    "eng": "en",
    "ces": "cs",
    "hin": "hi",
    "zho": "zh",
    "jpn": "ja",
    "rus": "ru",
    "ukr": "uk",
    "deu": "de",
    "isl": "is",
    "spa": "es",
    "ara": "ar",
    "bho": "bho",
    "est": "et",
    "fra": "fr",
    "hrv": "hr",
    "ita": "it",
    "kor": "ko",
    "liv": "liv",
    "mas": "mas",
    "pol": "pl",
    "sah": "sah",
    "srp": "sr",
    "tat": "tt",
    "heb": "he",
}
ITEM_TYPES = ("TGT", "BAD")
SCORE_RANGE = (0.0, 100.0)
#: Columns of :attr:`EsaExport.ratings`: one row per kept rating.
RATING_COLUMNS = (
    "lp",
    "rater",
    "system",
    "item",
    "doc",
    "domain",
    "score",
    "wave",
    "file",
    "line",
    "end_time",
)
#: The steps that drop rows, in the order they are applied (:attr:`EsaExport.dropped`).
FILTER_STEPS = (
    "quality-control (BAD) items",
    "tutorial",
    "#incomplete",
    "#dup",
    "canary",
    "earlier rating of the same item by the same rater",
)
_INTEGER = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class EsaExport:
    """What :func:`read_esa` returns.

    ``ratings``: the kept ratings, columns :data:`RATING_COLUMNS` (``lp`` such as ``en-cs``; ``item`` the 0-based
    segment index; ``doc`` and ``domain`` from the documents file, else the row's document id and ``""``; ``score``
    float; ``wave`` the file's name without its suffix, as the organisers label a wave; ``file``/``line`` where the
    rating was read). ``dropped``: DataFrame(file, step, rows), the rows each step of :data:`FILTER_STEPS`
    removed from each file. ``bad_items``: the quality-control (BAD) rows after the same filtering, columns
    :data:`RATING_COLUMNS` (``doc`` without its ``#bad`` suffix): with ``ratings``, the input of the raters'
    quality control (:func:`mtsig.stats.human.esa_quality_control`).
    """

    ratings: pd.DataFrame
    dropped: pd.DataFrame
    bad_items: pd.DataFrame


def _language(code: str, column: str, path: Path, line: int) -> str:
    """The two-letter code of an export's ISO 639-3 ``code`` (:data:`LANGUAGE_CODES`); an :class:`InputError`
    naming ``column``, file and line otherwise."""
    if code not in LANGUAGE_CODES:
        raise InputError(
            f"unknown {column} language code {code!r} (known ISO 639-3 codes: {', '.join(sorted(LANGUAGE_CODES))})",
            path,
            line,
        )
    return LANGUAGE_CODES[code]


def _parsed_row(fields: list[str], path: Path, line: int) -> tuple:
    """One row checked and converted: (rater, system, segment, type, lp, score, doc_id, end_time)."""
    if len(fields) != len(ESA_COLUMNS):
        raise InputError(
            f"{len(fields)} columns, expected {len(ESA_COLUMNS)} ({', '.join(ESA_COLUMNS)})", path, line
        )
    rater, system, segment, item_type, source, target, score, doc_id = fields[:8]
    if not rater.strip() or not system.strip():
        raise InputError("empty rater or system id", path, line)
    if item_type not in ITEM_TYPES:
        raise InputError(f"item type {item_type!r} is neither TGT nor BAD", path, line)
    if not _INTEGER.fullmatch(segment):
        raise InputError(f"segment id {segment!r} is not a non-negative integer", path, line)
    lp = f"{_language(source, 'source', path, line)}-{_language(target, 'target', path, line)}"
    value = finite_number(score, "score", path, line)
    if not SCORE_RANGE[0] <= value <= SCORE_RANGE[1]:
        raise InputError(f"score {score} is outside 0-100", path, line)
    end_time = finite_number(fields[11], "end time", path, line)
    return rater, system, int(segment), item_type, lp, value, doc_id, end_time


def _read_rows(path: Path) -> pd.DataFrame:
    """Every row of one export, checked, with its line number (tutorials and QC items included)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("no such file", path) from None
    except UnicodeDecodeError as error:
        raise InputError(f"not UTF-8 text ({error.reason} at byte {error.start})", path) from None
    reader = csv.reader(text.splitlines())
    records = []
    for fields in reader:
        line = reader.line_num
        if not fields:
            continue
        records.append((*_parsed_row(fields, path, line), line))
    if not records:
        raise InputError("no ratings", path)
    columns = ["rater", "system", "item", "item_type", "lp", "score", "doc_id", "end_time", "line"]
    return pd.DataFrame.from_records(records, columns=columns)


_DROPS = {
    "tutorial": lambda rows: rows["system"].str.contains("tutorial", regex=False),
    "#incomplete": lambda rows: rows["doc_id"].str.contains("#incomplete", regex=False),
    "#dup": lambda rows: rows["doc_id"].str.contains("#dup", regex=False),
    "canary": lambda rows: rows["doc_id"] == "canary",
}


def _filtered(rows: pd.DataFrame, path: Path) -> tuple[pd.DataFrame, pd.DataFrame, list[tuple]]:
    """(kept TGT rows, BAD rows, rows dropped per step) of one file, in the organisers' order."""
    kept = rows.loc[rows["item_type"] == "TGT"]
    counts = [(str(path), FILTER_STEPS[0], len(rows) - len(kept))]
    bad = rows.loc[rows["item_type"] == "BAD"]
    for step in FILTER_STEPS[1:5]:
        before = len(kept)
        kept = kept.loc[~_DROPS[step](kept)]
        bad = bad.loc[~_DROPS[step](bad)]
        counts.append((str(path), step, before - len(kept)))
    before = len(kept)
    kept = _latest_per_rater(kept)
    counts.append((str(path), FILTER_STEPS[5], before - len(kept)))
    return kept, _latest_per_rater(bad), counts


def _latest_per_rater(rows: pd.DataFrame) -> pd.DataFrame:
    """The latest (end time) of a rater's ratings of one item; among equal end times the later line."""
    ordered = rows.sort_values(["end_time", "line"], kind="stable")
    latest = ordered.drop_duplicates(["rater", "system", "doc_id", "item", "lp"], keep="last")
    return latest.sort_values("line", kind="stable")


def _read_documents(path: Path) -> list[tuple[str, str]]:
    """``DOMAIN<TAB>DOCUMENT`` per line of a ``<lp>.docs`` file (line 0 the canary line)."""
    if not path.is_file():
        raise InputError("no documents file for this language pair", path)
    entries = []
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        parts = text.strip().split("\t")
        if len(parts) != 2:
            raise InputError(f"{len(parts)} fields, expected DOMAIN<TAB>DOCUMENT", path, number)
        entries.append((parts[0], parts[1]))
    return entries


def _attach_documents(
    rows: pd.DataFrame, path: Path, documents: Path | None, strip: str = ""
) -> pd.DataFrame:
    """Add ``doc`` and ``domain``: from line ``item + 1`` of ``documents/<lp>.docs``, checked against the row's
    document id (without ``strip``, the ``#bad`` suffix of QC items); without documents, the row's id and ``""``."""
    rows = rows.copy()
    doc_ids = rows["doc_id"].str.replace(strip, "", regex=False) if strip else rows["doc_id"]
    if documents is None:
        rows["doc"] = doc_ids
        rows["domain"] = ""
        return rows
    domain = np.empty(len(rows), dtype=object)
    doc = np.empty(len(rows), dtype=object)
    for lp, index in rows.groupby("lp", sort=True).indices.items():
        docs_path = documents / f"{lp}.docs"
        entries = _read_documents(docs_path)
        for i in index:
            item = int(rows["item"].iat[i])
            line = int(rows["line"].iat[i])
            if item + 1 >= len(entries):
                raise InputError(
                    f"item {item} is beyond {docs_path} ({len(entries) - 1} segments after the canary line)",
                    path,
                    line,
                )
            entry_domain, entry_doc = entries[item + 1]
            if entry_doc != doc_ids.iat[i]:
                raise InputError(
                    f"document {doc_ids.iat[i]!r} of item {item} differs from {entry_doc!r} on line {item + 2} "
                    f"of {docs_path}",
                    path,
                    line,
                )
            domain[i], doc[i] = entry_domain, entry_doc
    rows["domain"] = domain
    rows["doc"] = doc
    return rows


def _items(rows: pd.DataFrame, path: Path, first_segment_id: int) -> pd.DataFrame:
    """``item`` = segment id - ``first_segment_id``; an id before the first segment is an error."""
    rows = rows.copy()
    rows["item"] = rows["item"] - first_segment_id
    before = rows.loc[rows["item"] < 0]
    if len(before):
        row = before.iloc[0]
        raise InputError(
            f"segment id {row['item'] + first_segment_id} is before the first segment (id {first_segment_id}; "
            "exports made before the organisers' re-indexing of Nov 2024 start at 0: first_segment_id=0)",
            path,
            int(row["line"]),
        )
    return rows


def _wave_label(path: Path) -> str:
    """A wave's label: its export's file name without the extension."""
    return path.name.rsplit(".", 1)[0] if "." in path.name else path.name


def read_esa(
    paths: Sequence[str | Path] | str | Path,
    documents: str | Path | None = None,
    *,
    first_segment_id: int | None = None,
) -> EsaExport:
    """Read one or more Appraise ESA exports (each file a wave) with the organisers' filtering (module docstring).

    ``documents``: a folder with ``<lp>.docs`` for every language pair of the files (the WMT24 release's
    ``documents/``); each kept rating's domain and document are taken from it and checked. ``first_segment_id``:
    the id of the test set's first segment after the canary line (None: :data:`RELEASED_FIRST_SEGMENT_ID`, the
    released files' numbering; 0 for the organisers' files before Nov 2024; module docstring). Returns
    :class:`EsaExport`. Paths in the tables are as given.
    """
    first_segment_id = RELEASED_FIRST_SEGMENT_ID if first_segment_id is None else first_segment_id
    paths = [Path(paths)] if isinstance(paths, str | Path) else [Path(p) for p in paths]
    documents = None if documents is None else Path(documents)
    kept_frames, bad_frames, counts = [], [], []
    for path in paths:
        rows = _read_rows(path)
        kept, bad, dropped = _filtered(rows, path)
        kept, bad = _items(kept, path, first_segment_id), _items(bad, path, first_segment_id)
        kept = _attach_documents(kept, path, documents)
        bad = _attach_documents(bad, path, documents, strip="#bad")
        for frame in (kept, bad):
            frame["wave"] = _wave_label(path)
            frame["file"] = str(path)
        kept_frames.append(kept)
        bad_frames.append(bad)
        counts.extend(dropped)
    ratings = pd.concat(kept_frames, ignore_index=True)
    ratings["item"] = ratings["item"].astype(np.int64)
    ratings = ratings.loc[:, list(RATING_COLUMNS)].reset_index(drop=True)
    bad = pd.concat(bad_frames, ignore_index=True)
    return EsaExport(
        ratings=ratings,
        dropped=pd.DataFrame(counts, columns=["file", "step", "rows"]),
        bad_items=bad.loc[:, list(RATING_COLUMNS)].reset_index(drop=True),
    )
