"""Human item scores as arrays: the input of every system-ranking procedure.

An *item* (column) is one segment as rated in one wave; its score for a system is the mean of the ratings of that
(system, segment, wave) (several raters: the WMT24 organisers' ``groupby(['annot_id', ...]).agg({'overall':
'mean'})``, ``humeval/calculate_clusters.py``). Columns that share a segment (the same segment rated in two waves) are
paired across waves by the procedures that pair items (:func:`pair_units`). ``domains[N]`` codes each column's
domain; ``documents[N]`` its document.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from mtsig.errors import InputError

#: Columns a ratings table must have; ``rater``, ``wave``, ``doc`` and ``domain`` are optional.
REQUIRED = ("system", "item", "score")


@dataclass(frozen=True)
class ItemScores:
    """Item scores of one language pair.

    ``systems[S]`` (sorted); ``scores[S, N]``: raw item scores, NaN where a system's item is not rated; ``z[S, N]``:
    the same from scores standardised per rater (mean and sample sd of all of that rater's kept ratings, WMT DA;
    NaN for raters whose scores do not vary), or None without raters; ``segments[N]``, ``domains[N]``,
    ``documents[N]``: integer codes of each column's segment, domain and document; ``domain_names``,
    ``columns`` (DataFrame item, wave, doc, domain: each column's labels).
    """

    systems: tuple[str, ...]
    scores: np.ndarray
    z: np.ndarray | None
    segments: np.ndarray
    domains: np.ndarray
    documents: np.ndarray
    domain_names: tuple[str, ...]
    columns: pd.DataFrame


def _codes(values: pd.Series) -> tuple[np.ndarray, tuple[str, ...]]:
    """(codes[N], names): each value's index among the sorted distinct values (no missing value: ``item_scores``)."""
    names = tuple(sorted(set(values)))
    lookup = {name: code for code, name in enumerate(names)}
    return np.array([lookup[v] for v in values], dtype=np.int64), names


def _standardised(ratings: pd.DataFrame) -> pd.Series:
    """z = (score - the rater's mean) / the rater's sample sd; NaN where the sd is 0 or undefined."""
    grouped = ratings.groupby("rater", sort=False)["score"]
    mean, sd = grouped.transform("mean"), grouped.transform("std", ddof=1)
    return ((ratings["score"] - mean) / sd.where(sd > 0)).astype(float)


def item_scores(ratings: pd.DataFrame, source: str = "ratings") -> ItemScores:
    """The :class:`ItemScores` of a tidy ratings table (columns ``system, item, score`` and optionally ``rater``,
    ``wave``, ``doc``, ``domain``, ``lp``; e.g. :attr:`mtsig.io.esa.EsaExport.ratings` of one language pair).

    ``source`` names the table in errors. One language pair only; every item has one domain and one document.
    """
    missing = [c for c in REQUIRED if c not in ratings.columns]
    if missing:
        raise InputError(f"no column(s) {', '.join(missing)} in the ratings", source)
    if len(ratings) == 0:
        raise InputError("no ratings", source)
    if "lp" in ratings.columns and ratings["lp"].nunique() > 1:
        raise InputError(
            f"ratings of several language pairs ({', '.join(sorted(set(ratings['lp'])))}): rank one at a time",
            source,
        )
    table = ratings.copy()
    for column, default in (("wave", ""), ("doc", ""), ("domain", "")):
        if column not in table.columns:
            table[column] = default
    # A missing label (an empty cell of a tidy file) would be a NaN among strings, which cannot be sorted.
    for column in ("system", "item", "wave", "doc", "domain"):
        missing_label = int(table[column].isna().sum())
        if missing_label:
            raise InputError(f"{missing_label} rating(s) have no {column} (an empty cell)", source)
    table["item"] = table["item"].astype(str)
    for column in ("domain", "doc"):
        per_item = table.groupby("item")[column].nunique()
        if (per_item > 1).any():
            raise InputError(f"item {per_item.index[per_item > 1][0]!r} has more than one {column}", source)
    scores = table["score"].astype(float)
    if not np.isfinite(scores).all():
        raise InputError("a score is not a finite number", source)
    table["score"] = scores
    table["z"] = _standardised(table) if "rater" in table.columns else np.nan

    cells = table.groupby(["system", "item", "wave"], sort=False).agg(
        score=("score", "mean"), z=("z", "mean")
    )
    cells = cells.reset_index()
    columns = (
        table.drop_duplicates(["item", "wave"])[["item", "wave", "doc", "domain"]]
        .sort_values(["item", "wave"], key=_natural, kind="stable")
        .reset_index(drop=True)
    )
    column_of = {(i, w): n for n, (i, w) in enumerate(zip(columns["item"], columns["wave"], strict=True))}
    systems = tuple(sorted(set(table["system"])))
    system_of = {name: s for s, name in enumerate(systems)}
    rows = np.array([system_of[s] for s in cells["system"]])
    cols = np.array([column_of[(i, w)] for i, w in zip(cells["item"], cells["wave"], strict=True)])
    raw = np.full((len(systems), len(columns)), np.nan)
    raw[rows, cols] = cells["score"].to_numpy()
    z = None
    if "rater" in ratings.columns:
        z = np.full_like(raw, np.nan)
        z[rows, cols] = cells["z"].to_numpy()
    segments, _ = _codes(columns["item"])
    domains, domain_names = _codes(columns["domain"])
    documents, _ = _codes(columns["doc"])
    return ItemScores(systems, raw, z, segments, domains, documents, domain_names, columns)


def _natural(values: pd.Series) -> pd.Series:
    """Numeric item ids in numeric order (as strings they would sort 1, 10, 2)."""
    numbers = pd.to_numeric(values, errors="coerce")
    return numbers if numbers.notna().all() else values


def pair_units(segments: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(left[M], right[M]): every pair of columns of one segment, the units on which two systems' scores are paired.

    With one column per segment this is each column with itself. With a segment rated in two waves it is the four
    pairs (w1, w1), (w2, w2), (w1, w2), (w2, w1): the organisers' pairing of WMT24 (their outer join on
    ``orig_segment_id``, a segment id without the wave, gives every combination) and of WMT25 (``a + a`` against
    ``b + b[half:] + b[:half]`` in ``get_significance``, ``humeval/08-compute_clusters.py``).
    """
    segments = np.asarray(segments)
    order = np.argsort(segments, kind="stable")
    sorted_segments = segments[order]
    starts = np.flatnonzero(np.r_[True, sorted_segments[1:] != sorted_segments[:-1]])
    sizes = np.diff(np.r_[starts, len(segments)])
    if (sizes == 1).all():
        return order, order
    left, right = [], []
    for start, size in zip(starts, sizes, strict=True):
        group = order[start : start + size]
        left.append(np.repeat(group, size))
        right.append(np.tile(group, size))
    return np.concatenate(left), np.concatenate(right)
