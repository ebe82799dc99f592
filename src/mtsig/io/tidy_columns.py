"""The spellings of the tidy files' columns, in one place.

The tidy files a user writes (human ratings, :mod:`mtsig.io.human.tidy`; segment scores,
:func:`mtsig.io.segment_scores.read_tidy_segment_scores`; the scores ``mtsig rank --format tidy`` ranks) name some
columns differently: ``segment`` or ``item``, ``document`` or ``doc``, ``annotator`` or ``rater``. Every tidy reader
reads such a column under any of its spellings (:func:`respelt`), and calls it by the name it uses.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

#: A column -> every spelling a tidy file may give it (each spelling belongs to one column).
SPELLINGS: Mapping[str, tuple[str, ...]] = {
    "segment": ("segment", "item"),
    "document": ("document", "doc"),
    "annotator": ("annotator", "rater"),
}


def respelt(header: Iterable[str], names: Iterable[str]) -> dict[str, str]:
    """``{spelling in the header: name}`` for each of the reader's ``names`` (spelt any way of
    :data:`SPELLINGS`, e.g. ``item``) that the header lacks but spells otherwise (``segment``): the renaming that
    gives the reader its own names. A header that spells a column in its reader's way, or not at all, is left
    as it is; of several other spellings, the first of :data:`SPELLINGS` is taken."""
    present = list(header)
    renaming = {}
    for name in names:
        spellings = next((group for group in SPELLINGS.values() if name in group), ())
        if name in present:
            continue
        other = next((s for s in spellings if s != name and s in present), None)
        if other is not None:
            renaming[other] = name
    return renaming


def in_own_names(header: Iterable[str], names: Iterable[str]) -> list[str]:
    """The ``header`` with the columns of ``names`` spelt the reader's way (:func:`respelt`), in its order."""
    header = list(header)
    renaming = respelt(header, names)
    return [renaming.get(column, column) for column in header]
