"""``human.format: mturk_batch``: raw MTurk batch results of a Direct Assessment campaign (one row per
assignment; the WMT13 HIT templates of Graham et al. 2013), as tidy ratings.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.io.human import TIDY_COLUMNS, JudgmentRequest, Ratings, common_source
from mtsig.io.human.parsing import CRITERION_CODES
from mtsig.io.segment_scores import read_data_lines
from mtsig.io.wmt_da import strip_numeric_suffix

# WMT13 HIT templates: "cal" items are the degraded candidates (Graham et al. 2013's "bad reference"):
# in the sample batches they score 26.9 on average against 55.9 for system items, and each matches a system
# item of the same system and segment in the same HIT.
MTURK_ITEM_TYPES = {
    "system": "system",
    "repeat": "repeat",
    "ref": "ref",
    "bad_ref": "bad_ref",
    "cal": "bad_ref",
}


def load_mturk_batch(
    paths: Sequence[str | Path] | str | Path,
    *,
    n_segments: int | None = None,
    systems: Iterable[str] | None = None,
    drop_rejected: bool = False,
    strip_suffix: bool = True,
) -> Ratings:
    """Read raw MTurk batch result CSVs of a DA campaign (one row per assignment) as tidy ratings.

    Item ``i`` (0-based) of a HIT is described by ``Input.sys_id_i``, ``Input.sid_i``, ``Input.tst_i`` and
    ``Input.rid_i``; the answers are ``Answer.Q1 = "p_k_s|p_k_s|..."``. Pairing (worked out on the WMT13 cs-en
    sample batches, 2,900 answers): ``p`` is the item position ``i`` and ``k`` is that item's ``Input.rid_i``
    (they agree on every answer), ``s`` the 0-100 score. A key that disagrees with ``Input.rid_p`` is an error, as
    is a repeated position. ``Input.sid_i`` is taken as the 1-based line of the test set; ``Input.item``
    (ad/fl) gives the criterion; ``Input.tst_i`` cal -> bad_ref (see ``MTURK_ITEM_TYPES``). ``hit`` is the
    HITId. Assignments with an empty ``Answer.Q1`` give no ratings and are skipped; rejected assignments are kept
    unless ``drop_rejected`` (quality control is then left to :func:`mtsig.stats.human.quality_control`). An assignment
    record repeated exactly is an error naming both lines.
    The line reported in errors is the CSV line where the assignment's record starts.
    """
    paths = [Path(paths)] if isinstance(paths, (str, Path)) else [Path(p) for p in paths]
    rows = [
        row
        for path in paths
        for row in _batch_ratings(path, n_segments, drop_rejected=drop_rejected, strip_suffix=strip_suffix)
    ]
    ratings = pd.DataFrame(rows, columns=[*TIDY_COLUMNS, "hit", "_path", "_line"])
    if systems is not None and len(ratings):
        known = set(systems)
        unknown = ~ratings["system"].isin(known)
        if unknown.any():
            first = ratings.loc[unknown].iloc[0]
            raise InputError(f"unknown system {first['system']!r}", first["_path"], int(first["_line"]))
    ratings["segment"] = ratings["segment"].astype(np.int64)
    ratings["raw_score"] = ratings["raw_score"].astype(float)
    return Ratings(ratings.drop(columns=["_path", "_line"]), common_source(paths))


def _batch_ratings(
    path: Path, n_segments: int | None, *, drop_rejected: bool, strip_suffix: bool
) -> list[tuple]:
    """The tidy rows of one batch file, each with its file and line (see :func:`load_mturk_batch`)."""
    read_data_lines(path)  # a missing, empty, binary or non-UTF-8 file is an error naming its line
    rows: list[tuple] = []
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader)
        while not header:  # blank lines before the header
            header = next(reader)
        header_line = reader.line_num
        column = {name: index for index, name in enumerate(header)}
        for required in ("WorkerId", "HITId", "Answer.Q1", "Input.item"):
            if required not in column:
                raise InputError(
                    f"missing column {required} (the first line must be the header)", path, header_line
                )
        start = reader.line_num + 1
        first_line_of: dict[tuple[str, ...], int] = {}
        for record in reader:
            if record:
                if tuple(record) in first_line_of:
                    raise InputError(
                        f"exact repeat of the assignment at line {first_line_of[tuple(record)]}: its "
                        "ratings would be counted twice; delete one",
                        path,
                        start,
                    )
                first_line_of[tuple(record)] = start
            rows.extend(
                _mturk_assignment_ratings(
                    record, column, path, start, n_segments, drop_rejected, strip_suffix
                )
            )
            start = reader.line_num + 1
    return rows


def _mturk_assignment_ratings(
    record: list[str],
    column: Mapping[str, int],
    path: Path,
    line: int,
    n_segments: int | None,
    drop_rejected: bool,
    strip_suffix: bool,
) -> list[tuple]:
    """The tidy rows of one assignment (see :func:`load_mturk_batch`)."""
    if len(record) > len(column):
        raise InputError(f"{len(record)} fields, header has {len(column)}", path, line)
    # MTurk leaves out trailing empty fields (Approve, Reject) of unreviewed assignments.
    record = record + [""] * (len(column) - len(record))

    def field(name: str) -> str:
        if name not in column:
            raise InputError(f"missing column {name}", path, 1)
        return record[column[name]]

    answer = field("Answer.Q1").strip()
    if not answer or (
        drop_rejected and "AssignmentStatus" in column and field("AssignmentStatus") == "Rejected"
    ):
        return []
    criterion = CRITERION_CODES.get(field("Input.item"))
    if criterion is None:
        raise InputError(f"unknown Input.item {field('Input.item')!r}", path, line)
    annotator, hit = field("WorkerId"), field("HITId")
    seen: set[int] = set()
    out = []
    for token in answer.split("|"):
        parts = token.split("_")
        if len(parts) != 3 or not all(p.lstrip("-").isdigit() for p in parts):
            raise InputError(f"answer {token!r} is not position_key_score", path, line)
        position, key, score = (int(p) for p in parts)
        if position in seen:
            raise InputError(f"answer position {position} given twice", path, line)
        seen.add(position)
        if f"Input.rid_{position}" not in column:
            raise InputError(f"answer position {position} has no Input.rid_{position} column", path, line)
        if int(field(f"Input.rid_{position}")) != key:
            raise InputError(f"answer key {key} does not match Input.rid_{position}", path, line)
        if not 0 <= score <= 100:
            raise InputError(f"score {score} of answer {token!r} is outside 0..100", path, line)
        item_type = MTURK_ITEM_TYPES.get(field(f"Input.tst_{position}"))
        if item_type is None:
            raise InputError(f"unknown item type {field(f'Input.tst_{position}')!r}", path, line)
        sid_text = field(f"Input.sid_{position}")
        if not sid_text.isdigit():
            raise InputError(f"Input.sid_{position} {sid_text!r} is not a positive integer", path, line)
        sid = int(sid_text)
        if sid < 1 or (n_segments is not None and sid > n_segments):
            raise InputError(
                f"Input.sid_{position} {sid} is outside the test set (1..{n_segments})", path, line
            )
        system = field(f"Input.sys_id_{position}")
        if strip_suffix:
            system = strip_numeric_suffix(system)
        out.append((annotator, system, sid - 1, item_type, criterion, float(score), hit, str(path), line))
    return out


def read_judgments(request: JudgmentRequest) -> Ratings:
    """The ratings of the batch files ``human.path`` lists."""
    return load_mturk_batch(request.paths(), n_segments=request.n_segments, systems=request.systems)
