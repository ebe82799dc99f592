"""``human.format: esa``: Appraise's Error Span Annotation exports (Kocmi et al. 2024; one file per wave) of one
language pair, read with the WMT24 organisers' filtering (:func:`mtsig.io.esa.read_esa`), as tidy ratings.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.io.esa import LANGUAGE_CODES, RELEASED_FIRST_SEGMENT_ID, read_esa
from mtsig.io.human import JudgmentRequest, Ratings, check_reference_systems, common_source

#: The criterion of ESA ratings (Kocmi et al. 2024): one 0-100 score per item after marking its error spans.
ESA_CRITERION = "esa"


def _first_row_error(bad: np.ndarray, rows: pd.DataFrame, problem: Sequence[str]) -> None:
    """Raise an InputError at the file and line of the first row of ``rows`` (columns ``file``, ``line``) flagged
    in ``bad``: ESA rows come from several files."""
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise InputError(problem[first], rows["file"].iat[first], int(rows["line"].iat[first]))


def _language_pair(source_language: str, target_language: str, path: Path) -> str:
    """The two-letter pair (``en-hi``) of the ISO 639-3 codes the export writes; an unknown code is an error."""
    for code in (source_language, target_language):
        if code not in LANGUAGE_CODES:
            raise InputError(
                f"unknown language code {code!r} in human.source_language/target_language (ISO 639-3 as the ESA "
                f"export writes it: {', '.join(sorted(LANGUAGE_CODES))})",
                path,
            )
    return f"{LANGUAGE_CODES[source_language]}-{LANGUAGE_CODES[target_language]}"


def _documents_folder(documents: str | Path | None, lp: str) -> Path | None:
    """The folder :func:`mtsig.io.esa.read_esa` reads ``<lp>.docs`` from; a file of another name is an error."""
    if documents is None:
        return None
    documents = Path(documents)
    if documents.name != f"{lp}.docs":
        raise InputError(
            f"the documents of {lp} must be named {lp}.docs (the ESA reader's layout)", documents
        )
    return documents.parent


def _pair_rows(paths: list[Path], lp: str, documents: Path | None, first_segment_id: int) -> pd.DataFrame:
    """The kept ratings (item type ``system``) and quality-control items (``bad_ref``) of ``lp`` in the exports;
    none is an error naming the pairs the files hold."""
    export = read_esa(paths, documents, first_segment_id=first_segment_id)
    rated = export.ratings.loc[export.ratings["lp"] == lp]
    if rated.empty:
        found = ", ".join(sorted(set(export.ratings["lp"]))) or "none"
        raise InputError(f"no {lp} ratings (pairs in the files: {found})", paths[0])
    bad = export.bad_items.loc[export.bad_items["lp"] == lp]
    return pd.concat([rated.assign(item_type="system"), bad.assign(item_type="bad_ref")], ignore_index=True)


def load_esa(
    paths: Sequence[str | Path],
    n_segments: int,
    source_language: str,
    target_language: str,
    *,
    documents: str | Path | None = None,
    first_segment_id: int | None = None,
    reference_systems: Sequence[str] = (),
    systems: Iterable[str] | None = None,
) -> Ratings:
    """Appraise ESA exports (:func:`mtsig.io.esa.read_esa`, the WMT24 organisers' filtering) as tidy ratings of one
    language pair, criterion :data:`ESA_CRITERION`.

    ``source_language``/``target_language``: the pair as the files write it (ISO 639-3: ``eng``, ``hin``).
    ``documents``: that pair's ``<lp>.docs`` (``DOMAIN<TAB>DOCUMENT``, line 0 the canary line; its name must be
    ``<lp>.docs`` with the reader's two-letter pair, e.g. ``en-hi.docs``): every rating's document is checked
    against it, so a wrong ``first_segment_id`` (None: the released exports' numbering,
    :data:`mtsig.io.esa.RELEASED_FIRST_SEGMENT_ID`) is an error rather than shifted segments. ``segment`` is the
    reader's ``item``: the 0-based segment of the test set without its canary line (segment id minus
    ``first_segment_id``), the line the experiment's ``skip_first_line`` texts give it.

    Item types: a real item (TGT) is ``system``, or ``ref`` for a name in ``reference_systems`` (WMT24 rates its
    reference ``refA`` as a system: it is kept for standardisation and quality control, out of the gold); a
    quality-control item (BAD) is ``bad_ref``. ``hit`` is the wave (the export file), so quality control pairs a
    BAD item with the same rater's rating of the original in the same wave, as the ESA raters' QC table
    (:func:`mtsig.stats.human.esa_quality_control`) does. A rated system that is neither in ``systems`` nor in
    ``reference_systems``, and an item beyond the test set, are errors at their file and line.
    """
    first_segment_id = RELEASED_FIRST_SEGMENT_ID if first_segment_id is None else first_segment_id
    paths = [Path(p) for p in paths]
    lp = _language_pair(source_language, target_language, paths[0])
    rows = _pair_rows(paths, lp, _documents_folder(documents, lp), first_segment_id)
    references = set(reference_systems)
    if systems is not None:
        known = set(systems) | references
        _first_row_error(
            ~rows["system"].isin(known).to_numpy(),
            rows,
            [f"unknown system {n!r} (known: {', '.join(sorted(known))})" for n in rows["system"]],
        )
    _first_row_error(
        (rows["item"] >= n_segments).to_numpy(),
        rows,
        [
            f"segment id {i + first_segment_id} is item {i}, outside the test set of {n_segments} segments "
            f"(0..{n_segments - 1} after the canary line)"
            for i in rows["item"]
        ],
    )
    item_type = rows["item_type"].to_numpy(dtype=object)
    item_type[(item_type == "system") & rows["system"].isin(references).to_numpy()] = "ref"
    table = pd.DataFrame(
        {
            "annotator": rows["rater"].to_numpy(),
            "system": rows["system"].to_numpy(),
            "segment": rows["item"].to_numpy(dtype=np.int64),
            "item_type": item_type,
            "criterion": ESA_CRITERION,
            "raw_score": rows["score"].to_numpy(dtype=float),
            "hit": rows["wave"].to_numpy(),
        }
    )
    return Ratings(table, common_source(paths))


def read_judgments(request: JudgmentRequest) -> Ratings:
    """The ratings of the waves ``human.path`` lists, of the pair ``human.source_language`` ->
    ``human.target_language``; the rated references ``human.reference_systems`` kept apart."""
    human = request.human
    return load_esa(
        request.paths(),
        request.n_segments,
        str(human.source_language),
        str(human.target_language),
        documents=request.path("documents") if human.documents else None,
        first_segment_id=human.first_segment_id,
        reference_systems=check_reference_systems(
            human.reference_systems or (), request.systems, request.source()
        ),
        systems=request.systems,
    )
