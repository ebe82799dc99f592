"""The tidy layout family: one vocabulary for the columns of every tidy file mtsig reads or writes.

The family: the segment scores of ``mtsig compare --scores`` and ``mtsig power --scores`` (and of a config's
``kind: segment_scores``; :func:`mtsig.io.segment_scores.read_tidy_segment_scores`), the human ratings of
``human.format: tidy`` (:mod:`mtsig.io.human.tidy`; the ``human/z.tsv`` tables the pipeline writes are in that
layout), and the ratings ``mtsig rank --format tidy`` ranks. Each file is TAB-separated with one header line that
names its columns, in any order. A column means the same in every file and has one name, its canonical name
(:data:`CANONICAL`); the spellings the family used before are aliases (:data:`SPELLINGS`) that every reader still
accepts:

=========== ========= ========================================================================================
column      aliases   meaning
=========== ========= ========================================================================================
system                the system: its output file's name (``sysA.txt``) or its label; in a pipeline
                      experiment, its name in ``systems:``
segment     item      the segment: its 0-based line in the test set (``mtsig rank``: any id of the segment)
document    doc       the segment's document
annotator   rater     the person who gave a rating
domain                the segment's domain (``mtsig rank``)
wave                  the round of ratings (``mtsig rank``)
score                 the number: a metric's segment score, or a rating (the human ratings format, which also
                      holds standardised scores, calls the rating ``raw_score`` and the standardised one ``z``)
=========== ========= ========================================================================================

Why these names: ``system``, ``segment`` and ``document`` are the words of the WMT metrics task's submission
format, whose ``seg.score`` fields are "system, document id, segment number" (Mathur et al. 2020, the WMT20
metrics task), and of mtsig's own options (``--docs``); ``annotator`` is the WMT findings' and Appraise's word
for the people who rate (Kocmi et al. 2024, the ESA paper), and the column of the human tables the pipeline
writes (``human/z.tsv``, ``human/qc.tsv``), which stay as they are. The aliases are the other spellings in use:
``rater`` and ``doc`` are the columns of Google's MQM files (Freitag et al. 2021), ``item`` the earlier name of
``mtsig rank``'s column. A name that could be read two ways is no alias: in Google's MQM files ``doc_id`` is the
position of a segment in its document, and ``seg_id`` is 1-based.

Every reader renames a header's aliases to the canonical names (:func:`respelt`, :func:`in_own_names`), and a
header that lacks a column gets :func:`missing_columns_message`: the canonical name, its aliases, and a correct
header line.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

#: The columns of the family, by their canonical names (module docstring).
CANONICAL = ("system", "segment", "document", "annotator", "domain", "wave", "score")

#: A column -> every spelling a tidy file may give it, the canonical one first (each spelling belongs to one column).
SPELLINGS: Mapping[str, tuple[str, ...]] = {
    "segment": ("segment", "item"),
    "document": ("document", "doc"),
    "annotator": ("annotator", "rater"),
}


def aliases(name: str) -> tuple[str, ...]:
    """The spellings other than ``name`` that a tidy file may give the column ``name`` (spelt any way)."""
    group = next((group for group in SPELLINGS.values() if name in group), (name,))
    return tuple(spelling for spelling in group if spelling != name)


def respelt(header: Iterable[str], names: Iterable[str]) -> dict[str, str]:
    """``{spelling in the header: name}`` for each of the reader's ``names`` (spelt any way of
    :data:`SPELLINGS`, e.g. ``item``) that the header lacks but spells otherwise (``segment``): the renaming that
    gives the reader its own names. A header that spells a column in its reader's way, or not at all, is left
    as it is; of several other spellings, the first of :data:`SPELLINGS` is taken."""
    present = list(header)
    renaming = {}
    for name in names:
        if name in present:
            continue
        other = next((s for s in aliases(name) if s in present), None)
        if other is not None:
            renaming[other] = name
    return renaming


def in_own_names(header: Iterable[str], names: Iterable[str]) -> list[str]:
    """The ``header`` with the columns of ``names`` spelt the reader's way (:func:`respelt`), in its order."""
    header = list(header)
    renaming = respelt(header, names)
    return [renaming.get(column, column) for column in header]


def described_column(name: str) -> str:
    """A column as messages name it: ``segment (or item)``."""
    others = aliases(name)
    return f"{name} (or {', '.join(others)})" if others else name


def header_line(required: Sequence[str], optional: Sequence[str] = ()) -> str:
    """A correct header line, its TABs shown as ``\\t`` (as ``repr`` shows them, copyable into ``printf``)."""
    return "\\t".join((*required, *optional))


def repeated_columns_message(fields: Sequence[str]) -> str | None:
    """Why a header (``fields``: its names) cannot be read as columns because it names one twice; ``None`` when
    every name is distinct."""
    repeated = sorted(name for name, count in Counter(fields).items() if count > 1)
    return f"the header names column(s) {', '.join(repeated)} twice" if repeated else None


def missing_columns_message(
    fields: Sequence[str], required: Sequence[str], optional: Sequence[str] = ()
) -> str | None:
    """Why a header (``fields``: its names split on TABs, aliases renamed or not) lacks a column of ``required``,
    and the fix; ``None`` when it has them all.

    The message names each missing column by its canonical name with its aliases, the header found and a correct
    header line (``required`` then ``optional``). A header separated by commas, semicolons or spaces instead of
    TABs, a first line that is a row, and a header spelt in capitals are told so first: the ways a hand-made file
    most often goes wrong.
    """
    names = in_own_names(fields, required)
    missing = [name for name in required if name not in names]
    if not missing:
        return None
    columns = ", ".join(map(described_column, required))
    if optional:
        columns += f" and optionally {', '.join(map(described_column, optional))}"
    found = "\t".join(fields)[:100]
    example = f"e.g. '{header_line(required, optional)}' (the columns: {columns})"
    separators = _separators(found)
    if separators:
        return f"the header {found!r} is separated by {separators}: separate its names by TABs, {example}"
    if any(map(_is_number, fields)):
        return f"no header: the first line, {found!r}, is a row; add a header line above it, {example}"
    if not (_family_names(fields) or set(fields) & {*required, *optional}):
        return (
            f"no header: the first line, {found!r}, names none of the columns; make it the header, {example}"
        )
    if set(required) <= set(in_own_names([field.strip().lower() for field in fields], required)):
        return f"the header {found!r} spells a column in capitals: column names are lower case, {example}"
    return (
        f"no column {', '.join(map(described_column, missing))} in the header {found!r}: the first line names the "
        f"columns {columns}, separated by TABs, e.g. '{header_line(required, optional)}'"
    )


def _is_number(field: str) -> bool:
    """Whether a field reads as a number, which no column name is: the first line is then a row."""
    try:
        float(field)
    except ValueError:
        return False
    return True


def _family_names(parts: Iterable[str]) -> int:
    """How many of ``parts`` are names of the family's columns (canonical or alias, any case)."""
    known = {*CANONICAL, *(spelling for group in SPELLINGS.values() for spelling in group)}
    return sum(part.strip().lower() in known for part in parts)


def looks_like_header(line: str) -> bool:
    """Whether ``line`` names at least two of the family's columns, however separated and spelt: a tidy header
    gone wrong, which deserves :func:`missing_columns_message` rather than "unknown layout"."""
    return any(_family_names(line.split(separator)) >= 2 for separator in ("\t", ",", ";", None))


def _separators(header: str) -> str:
    """What separates the names of a header that has no TAB but names columns of the family ('' otherwise)."""
    if "\t" in header:
        return ""
    for separator, called in ((",", "commas"), (";", "semicolons"), (None, "spaces")):
        if _family_names(header.split(separator)) >= 2:
            return called
    return ""
