"""The ratings that ``mtsig rank`` ranks systems from, in each layout it reads (its ``--format``), as the table that
:func:`mtsig.stats.system_ranking.item_scores` takes: one row per rating, with ``system``, ``item``, ``doc``,
``rater`` and ``score`` (and ``domain`` and ``wave`` where the layout has them).

- ``esa``: Appraise ESA exports, each file a wave (:func:`mtsig.io.esa.read_esa`, the organisers' filtering), with a
  folder of ``<lp>.docs`` for the domains; the files may hold several language pairs, of which one is ranked.
- ``mqm``: one file of Google-style MQM annotations (:func:`mtsig.io.mqm.read_mqm`).
- ``tidy``: one TSV whose header names ``system``, ``segment`` and ``score``, and optionally ``document``,
  ``annotator``, ``domain`` and ``wave``: the tidy layout family's names (:mod:`mtsig.io.tidy_columns`), or
  ``item``, ``doc`` and ``rater``.

Each layout is one entry of :data:`ITEM_RATING_LAYOUTS`: its reader and whether it reads several files. A reader
takes an :class:`ItemRatingFiles` and returns the table and the data's label (the language pair, or the file's
name). Bad input is an :class:`~mtsig.errors.InputError` naming file and line. pandas is imported when a reader runs,
so that a command's parser can list the layouts without it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from mtsig.errors import InputError
from mtsig.io.tidy_columns import missing_columns_message, respelt

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class ItemRatingFiles:
    """What a reader is given: the ``files``, the ESA ``documents`` folder (None: no domains), the ESA
    ``first_segment_id`` (None: the released files' numbering) and the language pair ``lp`` to rank (None: the
    files' only one)."""

    files: Sequence[Path]
    documents: Path | None = None
    first_segment_id: int | None = None
    lp: str | None = None


@dataclass(frozen=True)
class ItemRatingLayout:
    """A layout's reader, and whether it reads several files (each a wave) or exactly one."""

    read: Callable[[ItemRatingFiles], tuple[pd.DataFrame, str]]
    several_files: bool


def read_esa_item_ratings(request: ItemRatingFiles) -> tuple[pd.DataFrame, str]:
    """The ratings of one language pair of Appraise ESA exports, and that pair: ``request.lp``, or the files' only
    pair (several pairs and no ``lp`` is an error that lists them)."""
    from mtsig.io.esa import read_esa

    ratings = read_esa(request.files, request.documents, first_segment_id=request.first_segment_id).ratings
    pairs = sorted(set(ratings["lp"]))
    if request.lp is None and len(pairs) > 1:
        raise InputError(
            f"the files hold {len(pairs)} language pairs ({', '.join(pairs)}): choose one with --lp"
        )
    chosen = request.lp or pairs[0]
    if chosen not in pairs:
        raise InputError(f"no ratings of {chosen} (the files hold {', '.join(pairs)})")
    return ratings.loc[ratings["lp"] == chosen], chosen


def read_mqm_item_ratings(request: ItemRatingFiles) -> tuple[pd.DataFrame, str]:
    """The MQM scores of one file of annotations, each rater's score of each segment, and the file's name."""
    from mtsig.io.mqm import read_mqm

    path = request.files[0]
    table = read_mqm(path).scores.rename(columns={"segment": "item", "document": "doc"})
    return table[["system", "item", "doc", "rater", "score"]], path.name


def read_tidy_item_ratings(request: ItemRatingFiles) -> tuple[pd.DataFrame, str]:
    """The ratings of one tidy TSV (:func:`read_tidy_table`), and the file's name."""
    path = request.files[0]
    return read_tidy_table(path), path.name


def read_tidy_table(path: Path) -> pd.DataFrame:
    """A tidy TSV's ratings (module docstring): the columns of the tidy layout family (:mod:`mtsig.io.tidy_columns`),
    aliases read as their canonical names (other columns are ignored), every cell checked, returned under the names
    that :func:`~mtsig.stats.system_ranking.item_scores` takes (``item``, ``doc``, ``rater``). The file is read as
    the project's other tidy files are (:func:`mtsig.io.human.parsing.read_delimited`: UTF-8, gzip-compressed or
    not, blank lines skipped but counted; fields split on tabs). Bad input is one line naming file and line: a
    missing column (with its aliases and a correct header line), a column named twice, no rows, a line with another
    number of fields than the header, an empty cell, a score that is not a finite number, a segment given two
    documents or domains."""
    import numpy as np
    import pandas as pd

    from mtsig.io.human.parsing import read_delimited

    required, optional = ("system", "segment", "score"), ("document", "annotator", "domain", "wave")
    table, numbers, _ = read_delimited(
        path, "\t", check_header=lambda header: missing_columns_message(header, required, optional)
    )
    header = list(table.columns)
    table.index = numbers  # indexed by line number
    table = table.rename(columns=respelt(header, (*required, *optional)))
    columns = [c for c in (*required, *optional) if c in table.columns]
    table = table[columns]  # the other columns are ignored (an alias beside its column's own name too)
    table = table.loc[(table != "").any(axis=1)]
    for column in columns:
        empty = (table[column].str.strip() == "").to_numpy()
        if empty.any():
            raise InputError(f"empty {column} cell", path, int(table.index[np.argmax(empty)]))
    scores = pd.to_numeric(table["score"].str.strip(), errors="coerce")
    bad = ~np.isfinite(scores.to_numpy(dtype=float))
    if bad.any():
        first = int(np.argmax(bad))
        value = table["score"].iloc[first]
        problem = (
            f"score {value!r} is not a number"
            if np.isnan(scores.iloc[first])
            else f"score {value} is not finite"
        )
        raise InputError(problem, path, int(table.index[first]))
    for column in (c for c in ("document", "domain") if c in table.columns):
        earlier = table.groupby("segment", sort=False)[column].transform("first")
        differs = (table[column] != earlier).to_numpy()
        if differs.any():
            at = int(np.argmax(differs))
            raise InputError(
                f"segment {table['segment'].iloc[at]!r} is in {column} {table[column].iloc[at]!r} here and in "
                f"{earlier.iloc[at]!r} on an earlier line: a segment has one {column}",
                path,
                int(table.index[at]),
            )
    table = table.assign(score=scores).reset_index(drop=True)
    return table.rename(columns={"segment": "item", "document": "doc", "annotator": "rater"})


#: The layouts ``mtsig rank --format`` reads (module docstring).
ITEM_RATING_LAYOUTS = {
    "esa": ItemRatingLayout(read_esa_item_ratings, several_files=True),
    "mqm": ItemRatingLayout(read_mqm_item_ratings, several_files=False),
    "tidy": ItemRatingLayout(read_tidy_item_ratings, several_files=False),
}
