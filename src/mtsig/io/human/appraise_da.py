"""``human.format: appraise_da``: Appraise's segment-level Direct Assessment exports (WMT22 en-liv,
``*.SegLvl*.csv``: no header, the column names in a separate one-line file), as tidy ratings.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.io.human import DA_SCORE_RANGE, JudgmentRequest, Ratings
from mtsig.io.human.parsing import check_known_systems, parse_lines_1based, parse_scores, read_delimited
from mtsig.io.segment_scores import check_exact_repeats, fail_first, read_data_lines

_APPRAISE_HYP = re.compile(r"\.hyp\.(?P<name>.+)\.[^.]+$")
_APPRAISE_REF = re.compile(r"\.ref\.(?P<name>[^.]+)\.[^.]+$")


def appraise_system_name(
    file_name: str, reference_systems: Mapping[str, str] | None = None
) -> tuple[str, bool]:
    """Appraise ``system`` value (an output file name) -> (system name, is the human reference).

    ``generaltest2022.en-liv.hyp.TartuNLP.liv.txt`` -> ``("TartuNLP", False)``. A name listed in
    ``reference_systems`` (file name -> pseudo-system name) is a reference; otherwise a ``.ref.<id>.`` file is the
    reference pseudo-system ``ref.<id>`` (``...ref.A.liv.txt`` -> ``("ref.A", True)``). Returns ``("", False)``
    when neither pattern applies.
    """
    if reference_systems and file_name in reference_systems:
        return reference_systems[file_name], True
    stem = file_name[: -len(".txt")] if file_name.endswith(".txt") else file_name
    match = _APPRAISE_REF.search(stem)
    if match:
        return f"ref.{match['name']}", True
    match = _APPRAISE_HYP.search(stem)
    return (match["name"], False) if match else ("", False)


def load_appraise_da(
    path: str | Path,
    header_path: str | Path,
    n_segments: int,
    source_language: str = "eng",
    target_language: str = "liv",
    reference_systems: Mapping[str, str] | None = None,
    *,
    criterion: str = "adequacy",
    systems: Iterable[str] | None = None,
) -> Ratings:
    """Read an Appraise segment-level DA export (WMT22 ``*.SegLvl*.csv``) as tidy ratings.

    The file has no header; its column names are the single line of ``header_path``
    (``username,system,itemId,itemType,srcLang,trgLang,score,...``). Only rows of the language pair
    ``source_language -> target_language`` are kept (the en-liv file also holds liv-eng rows). ``itemId`` is the
    1-based line of the segment. ``itemType`` TGT -> ``system`` (``ref`` for the human reference rated blind as a
    system, so it stays apart from MT systems), BAD -> ``bad_ref``, REF -> ``ref``. System names come from
    :func:`appraise_system_name`. Source-based DA is an adequacy judgment, hence ``criterion="adequacy"``.
    Appraise has no HIT column here, so quality control pairs within the annotator. A row repeated exactly
    (the time stamps included) is an error naming both lines.
    """
    path, header_path = Path(path), Path(header_path)
    header_text, header_lines = read_data_lines(header_path)
    names = [c.strip() for c in next(csv.reader(header_text[:1]))]
    required = ("username", "system", "itemId", "itemType", "srcLang", "trgLang", "score")
    missing = [c for c in required if c not in names]
    if missing:
        raise InputError(
            f"missing column name(s) {', '.join(missing)} in the header file; found {', '.join(names)[:200]}",
            header_path,
            int(header_lines[0]),
        )
    frame, lines, _ = read_delimited(path, ",", names=names, quoted_csv=True)
    check_exact_repeats(frame, lines, path, "rating", "")
    keep = ((frame["srcLang"] == source_language) & (frame["trgLang"] == target_language)).to_numpy()
    if not keep.any():
        raise InputError(f"no {source_language}-{target_language} rows", path)
    frame, lines = frame.loc[keep].reset_index(drop=True), lines[keep]
    parsed = [appraise_system_name(name, reference_systems) for name in frame["system"]]
    system = pd.Series([p[0] for p in parsed])
    is_reference = np.array([p[1] for p in parsed], dtype=bool)
    fail_first(
        (system == "").to_numpy(),
        lines,
        path,
        [
            f"cannot derive a system name from {n!r} (expected *.hyp.<system>.<lang>.txt)"
            for n in frame["system"]
        ],
    )
    check_known_systems(system, lines, path, systems, set(system[is_reference]))
    type_map = {"TGT": "system", "BAD": "bad_ref", "REF": "ref"}
    item_type = frame["itemType"].map(type_map)
    fail_first(
        item_type.isna().to_numpy(), lines, path, [f"unknown itemType {t!r}" for t in frame["itemType"]]
    )
    item_type = item_type.to_numpy(dtype=object)
    item_type[is_reference & (item_type == "system")] = "ref"
    fail_first((frame["username"] == "").to_numpy(), lines, path, "empty username")
    segment = parse_lines_1based(frame["itemId"], lines, path, n_segments, "itemId")
    scores = parse_scores(frame["score"], lines, path, DA_SCORE_RANGE, integer=True)
    table = pd.DataFrame(
        {
            "annotator": frame["username"].to_numpy(),
            "system": system.to_numpy(),
            "segment": segment,
            "item_type": item_type,
            "criterion": criterion,
            "raw_score": scores,
        }
    )
    return Ratings(table, path)


def read_judgments(request: JudgmentRequest) -> Ratings:
    """The ratings of ``human.path`` under the column names of ``human.header``, the pair
    ``human.source_language`` -> ``human.target_language``, ``human.reference_systems`` a mapping of file names
    to the names of the rated references."""
    human = request.human
    return load_appraise_da(
        request.path(),
        request.path("header"),
        request.n_segments,
        human.source_language,
        human.target_language,
        human.reference_systems,
        systems=request.systems,
    )
