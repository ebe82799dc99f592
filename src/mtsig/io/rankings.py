"""Readers for relative-ranking judgments: WMT's RNK csv, RankEval's JCML XML and predicted-ranking TSV.

All readers return *long* tables, one row per ranked candidate, keyed by an integer ``judgment`` id (one human
ranking list = one judgment).  Blank human ranks (``-1`` in both formats) are kept, so that each caller decides what
a blank means; :mod:`mtsig.studies.rankeval` drops them.  Every malformed row raises :class:`mtsig.errors.InputError` naming
the file and line, and nothing partial is returned.
"""

from __future__ import annotations

import csv
import math
import xml.sax
from collections.abc import Iterator
from pathlib import Path

import pandas as pd

from mtsig.errors import InputError
from mtsig.io.segment_scores import read_data_lines

#: The blank rank label of WMT's RNK files and of JCML ("the rank label was left blank").
BLANK_RANK = -1

_RNK_SYSTEMS = 5
_RNK_REQUIRED = ("srclang", "trglang", "srcIndex", "judgeId") + tuple(
    f"system{i}{field}" for i in range(1, _RNK_SYSTEMS + 1) for field in ("Id", "rank")
)


def _parse_int(text: str, what: str, path: Path, line: int) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise InputError(f"{what} must be an integer, got {text!r}", path, line) from None


def load_wmt_rankings(
    path: str | Path, source_language: str = "Spanish", target_language: str = "English"
) -> pd.DataFrame:
    """Load WMT's 5-way relative-ranking judgments (``wmt12.RNK_results.csv``) for one language pair.

    Format (WMT12 manual-evaluation README): a header row, then one judgment per row with ``srclang``,
    ``trglang``, ``srcIndex`` (1-based line of the source segment in the plain test set), ``judgeId`` and, for
    the five outputs shown, ``system{i}Id`` and ``system{i}rank`` (1 = best, ties allowed, -1 = left blank).

    Returns one row per (judgment, shown system) with columns ``judgment`` (0-based index of the row among the
    kept rows, in file order), ``annotator`` (``judgeId``), ``segment`` (0-based, ``srcIndex - 1``), ``system``
    and ``rank`` (int; ``-1`` = blank, kept so the caller decides).  Languages are matched as written in the file
    (English names, e.g. ``"Spanish"``).

    Raises InputError (file:line) for a missing, empty, binary or non-UTF-8 file, a missing column, a short row,
    a non-integer or out-of-range index or rank, an empty system name, a system shown twice in one judgment, or
    when no row has the requested language pair.

    Rows repeated exactly are kept, each a judgment: WMT showed some rankings to the same judge a second time
    to measure intra-annotator agreement, and the organisers' released file and counts include both (WMT12:
    17 such rows, 3 of them en-es and none es-en).
    """
    path = Path(path)
    read_data_lines(path)  # a missing, empty, binary or non-UTF-8 file is an error naming its line
    rows: list[tuple[int, str, int, str, int]] = []
    pairs_seen: set[tuple[str, str]] = set()
    try:
        handle = path.open(newline="", encoding="utf-8")
    except OSError as error:
        raise InputError(f"cannot read rankings file: {error.strerror}", path) from None
    with handle:
        reader = csv.reader(handle)
        header = _rnk_header(reader, path)
        column = {name: header.index(name) for name in _RNK_REQUIRED}
        judgment = 0
        for fields in reader:
            line = reader.line_num
            if not fields or all(not f.strip() for f in fields):
                continue
            if len(fields) != len(header):
                raise InputError(
                    f"expected {len(header)} comma-separated fields, got {len(fields)}", path, line
                )
            pair = (fields[column["srclang"]].strip(), fields[column["trglang"]].strip())
            pairs_seen.add(pair)
            if pair != (source_language, target_language):
                continue
            rows.extend(_rnk_judgment(fields, column, judgment, path, line))
            judgment += 1
    if not rows:
        available = ", ".join(f"{s}-{t}" for s, t in sorted(pairs_seen)) or "none"
        raise InputError(
            f"no judgments for {source_language}-{target_language} (pairs present: {available})", path
        )
    frame = pd.DataFrame(rows, columns=["judgment", "annotator", "segment", "system", "rank"])
    return frame.astype({"judgment": "int64", "segment": "int64", "rank": "int64"})


def _rnk_header(reader: Iterator[list[str]], path: Path) -> list[str]:
    """The header of an RNK file (the first non-blank line), naming every column of :data:`_RNK_REQUIRED`."""
    header = next(reader, None)
    while header is not None and not any(field.strip() for field in header):  # blank lines first
        header = next(reader, None)
    if header is None:
        raise InputError("empty rankings file", path, 1)
    header = [name.strip() for name in header]
    missing = [name for name in _RNK_REQUIRED if name not in header]
    if missing:
        raise InputError(
            f"header lacks column(s) {', '.join(missing)} (the first line must be the header)",
            path,
            reader.line_num,
        )
    return header


def _rnk_judgment(
    fields: list[str], column: dict[str, int], judgment: int, path: Path, line: int
) -> list[tuple[int, str, int, str, int]]:
    """The rows (judgment, annotator, segment, system, rank) of one RNK judgment, each field checked."""
    src_index = _parse_int(fields[column["srcIndex"]], "srcIndex", path, line)
    if src_index < 1:
        raise InputError(f"srcIndex is 1-based, got {src_index}", path, line)
    annotator = fields[column["judgeId"]].strip()
    if not annotator:
        raise InputError("empty judgeId", path, line)
    shown: set[str] = set()
    rows = []
    for i in range(1, _RNK_SYSTEMS + 1):
        system = fields[column[f"system{i}Id"]].strip()
        if not system:
            raise InputError(f"empty system{i}Id", path, line)
        if system in shown:
            raise InputError(f"system {system!r} is shown twice in one judgment", path, line)
        shown.add(system)
        rank = _parse_int(fields[column[f"system{i}rank"]], f"system{i}rank", path, line)
        if rank != BLANK_RANK and not 1 <= rank <= _RNK_SYSTEMS:
            raise InputError(f"system{i}rank must be 1..{_RNK_SYSTEMS} or -1 (blank), got {rank}", path, line)
        rows.append((judgment, annotator, src_index - 1, system, rank))
    return rows


class _JcmlHandler(xml.sax.ContentHandler):
    """SAX handler that collects ``<judgedsentence>`` elements with the line of every element (for errors)."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
        self.locator: xml.sax.xmlreader.Locator | None = None
        self.rows: list[dict[str, object]] = []
        self.judgment = -1
        self.sentence: dict[str, str] = {}
        self.field: str | None = None
        self.text: list[str] = []
        self.target: dict[str, object] = {}
        self.systems: set[str] = set()
        self.targets: list[dict[str, object]] = []

    def setDocumentLocator(self, locator: xml.sax.xmlreader.Locator) -> None:  # SAX API name
        self.locator = locator

    def _line(self) -> int | None:
        return None if self.locator is None else self.locator.getLineNumber()

    def startElement(self, name: str, attrs: xml.sax.xmlreader.AttributesImpl) -> None:
        line = self._line()
        if name == "judgedsentence":
            self.judgment += 1
            self.sentence = {
                "sentence_id": attrs.get("id", ""),
                "testset": attrs.get("testset", ""),
                "source": "",
                "reference": "",
            }
            self.systems = set()
            self.targets = []
        elif name in ("src", "ref", "tgt"):
            if self.judgment < 0 or not self.sentence:
                raise InputError(f"<{name}> outside a <judgedsentence>", self.path, line)
            self.field = name
            self.text = []
            if name == "tgt":
                system = attrs.get("system", "").strip()
                if not system:
                    raise InputError("<tgt> without a system attribute", self.path, line)
                if system in self.systems:
                    raise InputError(
                        f"system {system!r} appears twice in one judged sentence", self.path, line
                    )
                self.systems.add(system)
                if "rank" not in attrs:
                    raise InputError(f"<tgt system={system!r}> without a rank attribute", self.path, line)
                try:
                    rank = float(attrs["rank"])
                except ValueError:
                    raise InputError(
                        f"rank must be a number, got {attrs['rank']!r}", self.path, line
                    ) from None
                if not math.isfinite(rank) or (rank != BLANK_RANK and rank <= 0):
                    raise InputError(
                        f"rank must be positive or -1 (blank), got {attrs['rank']!r}", self.path, line
                    )
                self.target = {"system": system, "rank": rank, "line": line}

    def characters(self, content: str) -> None:
        if self.field is not None:
            self.text.append(content)

    def endElement(self, name: str) -> None:
        if name in ("src", "ref", "tgt") and self.field == name:
            text = "".join(self.text).strip()
            self.field = None
            if name == "tgt":
                self.targets.append({**self.target, "text": text})
            else:
                self.sentence["source" if name == "src" else "reference"] = text
        elif name == "judgedsentence":
            if not self.targets:
                raise InputError("<judgedsentence> without any <tgt>", self.path, self._line())
            for target in self.targets:
                self.rows.append(
                    {
                        "judgment": self.judgment,
                        "segment": self.judgment,
                        "sentence_id": self.sentence["sentence_id"],
                        "testset": self.sentence["testset"],
                        "system": target["system"],
                        "rank": target["rank"],
                        "text": target["text"],
                        "source": self.sentence["source"],
                        "reference": self.sentence["reference"],
                    }
                )
            self.sentence = {}


def load_jcml(path: str | Path) -> pd.DataFrame:
    """Load RankEval's JCML XML (Avramidis 2013, Sec. 4.2: "an XML-based format ... with the source and
    translated text"): ``<judgedsentence id=..>`` holding one ``<src>``, ``<tgt rank=.. system=..>`` candidates
    and an optional ``<ref>``.

    Returns one row per candidate with columns ``judgment`` (0-based position of the judged sentence in the
    file), ``segment`` (the same position: JCML sentences are sampled from several test sets, so the position is
    the only unique segment key; the file's own ``id`` attribute is kept as ``sentence_id`` and the test set as
    ``testset``), ``system``, ``rank`` (int when every rank in the file is a whole number, else float;
    ``-1`` = blank, kept), ``text`` (candidate, stripped), ``source`` and ``reference`` (stripped; ``""`` when
    absent or empty, as in the shipped WMT08/WMT10 files).

    Raises InputError (file:line) for malformed XML, a candidate without system or rank, a non-numeric or
    non-positive rank other than -1, a system twice in one sentence, a sentence without candidates, or a file
    without any judged sentence.
    """
    path = Path(path)
    handler = _JcmlHandler(path)
    try:
        xml.sax.parse(str(path), handler)
    except xml.sax.SAXParseException as error:
        raise InputError(f"malformed XML: {error.getMessage()}", path, error.getLineNumber()) from None
    except OSError as error:
        raise InputError(f"cannot read JCML file: {error.strerror}", path) from None
    if not handler.rows:
        raise InputError("no <judgedsentence> with candidates", path)
    frame = pd.DataFrame(handler.rows)
    if (frame["rank"] == frame["rank"].round()).all():
        frame["rank"] = frame["rank"].astype("int64")
    return frame.astype({"judgment": "int64", "segment": "int64"})


def load_predicted_ranking(path: str | Path) -> pd.DataFrame:
    """Load a user-supplied predicted ranking (RankEval's use case: evaluating a quality-estimation ranker).

    Format: tab-separated, UTF-8, a header line ``judgment<TAB>system<TAB>predicted_rank``, then one line per
    ranked candidate: the integer judgment id of the human ranking it predicts (the ``judgment`` column of
    :func:`load_wmt_rankings` / :func:`load_jcml`), the system name, and the predicted rank (a number, lower is
    better, ties allowed; any scale, since :func:`mtsig.stats.ranking_measures.rankeval.normalize_ranks` normalises it).

    Returns columns ``judgment`` (int), ``system``, ``predicted_rank`` (float).  Raises InputError (file:line)
    for a wrong header, a wrong field count, a non-integer judgment, a non-finite rank or a duplicate
    (judgment, system).
    """
    path = Path(path)
    expected = ["judgment", "system", "predicted_rank"]
    rows: list[tuple[int, str, float]] = []
    seen: dict[tuple[int, str], int] = {}
    texts, numbers = read_data_lines(path)  # missing, empty, binary, non-UTF-8: errors naming the line
    if texts[0].strip().split("\t") != expected:
        raise InputError(f"header must be {'<TAB>'.join(expected)}", path, int(numbers[0]))
    for line, line_number in zip(texts[1:], numbers[1:].tolist(), strict=True):
        fields = line.rstrip("\n").split("\t")
        if len(fields) != 3:
            raise InputError(f"expected 3 tab-separated fields, got {len(fields)}", path, line_number)
        judgment = _parse_int(fields[0], "judgment", path, line_number)
        system = fields[1].strip()
        if not system:
            raise InputError("empty system name", path, line_number)
        try:
            predicted = float(fields[2])
        except ValueError:
            raise InputError(
                f"predicted_rank must be a number, got {fields[2]!r}", path, line_number
            ) from None
        if not math.isfinite(predicted):
            raise InputError(f"predicted_rank must be finite, got {fields[2]!r}", path, line_number)
        if (judgment, system) in seen:
            raise InputError(
                f"duplicate prediction for judgment {judgment}, system {system!r} (first at line "
                f"{seen[judgment, system]})",
                path,
                line_number,
            )
        seen[judgment, system] = line_number
        rows.append((judgment, system, predicted))
    if not rows:
        raise InputError("no predictions", path)
    frame = pd.DataFrame(rows, columns=expected)
    return frame.astype({"judgment": "int64", "predicted_rank": "float64"})
