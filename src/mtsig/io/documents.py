"""Document ids of test segments, for the block bootstrap over documents.

WMT test sets keep segments of one news article together; resampling whole documents keeps their dependence.
Formats: WMT's SGML (``<doc docid=...>`` with ``<seg>`` lines, as newstest2012), the WMT22 XML (``<doc id=...>``
with ``<src><p><seg>``), a TSV with one document id per line (line i = segment i), or mt-metrics-eval's
``documents/<lp>.docs`` (``DOMAIN DOCUMENT-ID`` per line, :func:`mtsig.io.mtme.read_mtme_docs`).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from mtsig.errors import InputError
from mtsig.io.mtme import read_mtme_document_ids

_SGM_DOC = re.compile(r"<doc\b[^>]*\bdocid\s*=\s*\"([^\"]*)\"", re.IGNORECASE)
_SGM_SEG = re.compile(r"<seg\b", re.IGNORECASE)


def read_sgm_documents(path: str | Path) -> np.ndarray:
    """One document id per ``<seg>`` of a WMT SGML file, in file order."""
    path = Path(path)
    if not path.is_file():
        raise InputError("document file does not exist", path)
    from mtsig.io.text import read_lines  # line-numbered UTF-8 errors

    doc_ids: list[str] = []
    current: str | None = None
    for line_number, line in enumerate(read_lines(path), start=1):
        match = _SGM_DOC.search(line)
        if match:
            current = match.group(1)
        for _ in _SGM_SEG.finditer(line):
            if current is None:
                raise InputError("<seg> outside any <doc docid=...>", path, line_number)
            doc_ids.append(current)
    if not doc_ids:
        raise InputError("no <seg> in this SGML file: expected <doc docid=...> blocks of <seg> lines", path)
    return np.asarray(doc_ids, dtype=str)


def read_wmt_xml_documents(path: str | Path) -> np.ndarray:
    """One document id per source ``<seg>`` of a WMT22-style XML test set, in document order.

    The segment order of the XML equals the line order of the plain-text files (checked for ja-en in the data's
    README), so entry i is the document of line i.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError("document file does not exist", path)
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as error:
        raise InputError(f"malformed XML: {error}", path, error.position[0]) from error
    doc_ids: list[str] = []
    for doc in root.iter("doc"):
        src = doc.find("src")
        if src is None:
            raise InputError(f"<doc id={doc.get('id')!r}> has no <src>", path)
        doc_ids.extend(doc.get("id", "") for _ in src.iter("seg"))
    if not doc_ids:
        raise InputError("no <doc><src>...<seg> in this XML file", path)
    return np.asarray(doc_ids, dtype=str)


def read_tsv_documents(path: str | Path) -> np.ndarray:
    """One document id per line (line i is segment i), UTF-8; surrounding whitespace is ignored.

    Raises:
        InputError: the file is missing, empty, not UTF-8 or has a line with no id (naming the line).
    """
    from mtsig.io.text import read_lines

    path = Path(path)
    if not path.is_file():
        raise InputError("document file does not exist", path)
    lines = read_lines(path)
    if not lines:
        raise InputError("document file is empty: expected one document id per segment", path)
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            raise InputError("empty document id", path, number)
    return np.asarray([line.strip() for line in lines], dtype=str)


READERS = {
    "sgm": read_sgm_documents,
    "wmt_xml": read_wmt_xml_documents,
    "tsv": read_tsv_documents,
    "mtme_docs": read_mtme_document_ids,
}

#: A document file's layout by its extension, when none is named; a file with another extension holds one id per
#: line (``tsv``).
EXTENSION_FORMATS = {".sgm": "sgm", ".sgml": "sgm", ".xml": "wmt_xml"}


def document_format(path: str | Path, requested: str = "auto") -> str:
    """The reader (a key of :data:`READERS`) of a document file: ``requested``, where ``lines`` names one id per line
    (``tsv``), or for ``auto`` the one its extension names (:data:`EXTENSION_FORMATS`)."""
    if requested == "lines":
        return "tsv"
    if requested != "auto":
        return requested
    return EXTENSION_FORMATS.get(Path(path).suffix.lower(), "tsv")


def read_documents(path: str | Path, fmt: str, n_segments: int) -> np.ndarray:
    """Document id of every segment; the count must equal the test set's ``n_segments``."""
    if fmt not in READERS:
        raise InputError(f"unknown document format {fmt!r}; known: {', '.join(READERS)}", path)
    doc_ids = READERS[fmt](path)
    if len(doc_ids) != n_segments:
        raise InputError(
            f"{len(doc_ids)} segments in the document file but {n_segments} in the test set", path
        )
    return doc_ids
