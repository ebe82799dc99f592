"""``human.format: wmt_mturk_da``: WMT's MTurk Direct Assessment per-rating files (WMT22 ja-en and ru-en, Kocmi et
al. 2022), with what the organisers released beside them: their z of every rating (``human.z_path``), their printed
per-worker means and sds (``standardise.moments``, :func:`load_r_mean_sd`), and the segment means that restore the
ratings of a zero-variance worker the per-rating file leaves out (``human.complete_from``).

Segments and systems are keyed through the DA sid2line map and the ``sys_id`` suffix (:mod:`mtsig.io.wmt_da`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.io import data_path
from mtsig.io.human import DA_SCORE_RANGE, JudgmentRequest, Ratings
from mtsig.io.human.parsing import CRITERION_CODES, parse_scores, read_delimited, require_columns
from mtsig.io.segment_scores import check_exact_repeats, fail_first, read_data_lines
from mtsig.io.wmt_da import (
    da_segments_and_systems,
    load_sid2line,
    load_wmt_da_segment_means,
    strip_numeric_suffix,
)

log = logging.getLogger("mtsig")

#: WMT MTurk DA ``type`` -> item type.
WMT_DA_ITEM_TYPES = {"SYSTEM": "system", "REPEAT": "repeat", "BAD_REF": "bad_ref", "REF": "ref"}


def load_wmt_mturk_da(
    path: str | Path,
    sid2line_path: str | Path,
    n_segments: int,
    *,
    systems: Iterable[str] | None = None,
) -> Ratings:
    """Read a WMT MTurk DA per-rating file (e.g. WMT22 ``ad-jaen-good-raw.RECONSTRUCTED.tsv``) as tidy ratings.

    Format: TAB-separated with a header naming at least ``HITId WorkerId Input.item sys_id type sid score``.
    Mapping: ``WorkerId`` -> annotator; ``sys_id`` minus its ``.<digits>`` suffix -> system; ``sid`` through the
    sid2line map -> segment; ``type`` SYSTEM/REPEAT/BAD_REF/REF -> system/repeat/bad_ref/ref; ``Input.item``
    (``ad``/``fl``) -> criterion; ``HITId`` -> hit. Scores must be 0..100 and integral: the ja-en raw scores are
    reconstructed as ``z * sd + mean`` (floats within 2.2e-13 of an integer), so values within 1e-6 of an integer
    are rounded to it and anything else is an error. A row repeated exactly (every field, the time included) is an
    error naming both lines; WMT marks a deliberate second rating as ``REPEAT``.
    On REF/BAD_REF/REPEAT rows ``sys_id`` names the system whose slot was used; it is kept as the system.
    """
    path = Path(path)
    frame, lines, header_line = read_delimited(path, "\t")
    require_columns(
        frame, ("HITId", "WorkerId", "Input.item", "sys_id", "type", "sid", "score"), path, header_line
    )
    check_exact_repeats(frame, lines, path, "rating", "")
    item_type = frame["type"].map(WMT_DA_ITEM_TYPES)
    fail_first(item_type.isna().to_numpy(), lines, path, [f"unknown item type {t!r}" for t in frame["type"]])
    criterion = frame["Input.item"].map(CRITERION_CODES)
    fail_first(
        criterion.isna().to_numpy(), lines, path, [f"unknown Input.item {c!r}" for c in frame["Input.item"]]
    )
    sid_labels = [repr(s) for s in frame["sid"]]
    segment, system = da_segments_and_systems(
        pd.to_numeric(frame["sid"], errors="coerce"),
        sid_labels,
        frame["sys_id"],
        lines,
        path,
        sid2line_path,
        n_segments,
        systems,
    )
    fail_first((frame["WorkerId"] == "").to_numpy(), lines, path, "empty WorkerId")
    scores = parse_scores(frame["score"], lines, path, DA_SCORE_RANGE, integer=True)
    table = pd.DataFrame(
        {
            "annotator": frame["WorkerId"].to_numpy(),
            "system": system.to_numpy(),
            "segment": segment.to_numpy(dtype=np.int64),
            "item_type": item_type.to_numpy(),
            "criterion": criterion.to_numpy(),
            "raw_score": scores,
            "hit": frame["HITId"].to_numpy(),
        }
    )
    return Ratings(table, path)


def load_wmt_mturk_da_z(
    path: str | Path, raw: Ratings, sid2line_path: str | Path, n_segments: int
) -> np.ndarray:
    """The organisers' z-score of every rating, from their per-rating file with z in the ``score`` column (WMT22
    ``ad-<lp>-good-stnd.csv``: its header line space-separated, its rows TAB-separated), in the order of
    ``raw`` (:func:`load_wmt_mturk_da` of the raw file, which has the same rows in the same order). A row whose
    worker, HIT, system, item type or segment is not the rating's at the same position, a different number of
    rows, or a z that is not a finite number is an error at its line."""
    path = Path(path)
    texts, lines = read_data_lines(path)
    header = texts[0].split()
    rows = [text.split("\t") for text in texts[1:]]
    lines = lines[1:]
    widths = np.array([len(row) for row in rows])
    fail_first(
        widths != len(header), lines, path, [f"{w} fields, the header names {len(header)}" for w in widths]
    )
    frame = pd.DataFrame(rows, columns=header)
    require_columns(frame, ("HITId", "WorkerId", "sys_id", "type", "sid", "score"), path, int(lines[0]) - 1)
    ratings = raw.table
    if len(frame) != len(ratings):
        raise InputError(f"{len(frame)} ratings, the raw file has {len(ratings)}: not the same rows", path)
    sid2line = load_sid2line(sid2line_path, n_segments)
    same = (
        (frame["WorkerId"].to_numpy() == ratings["annotator"].to_numpy())
        & (frame["HITId"].to_numpy() == ratings["hit"].to_numpy())
        & (frame["sys_id"].map(strip_numeric_suffix).to_numpy() == ratings["system"].to_numpy())
        & (frame["type"].map(WMT_DA_ITEM_TYPES).to_numpy() == ratings["item_type"].to_numpy())
        & (
            pd.to_numeric(frame["sid"], errors="coerce").map(sid2line).to_numpy()
            == ratings["segment"].to_numpy()
        )
    )
    fail_first(
        ~same,
        lines,
        path,
        "not the rating at the same position of the raw file (worker, HIT, system, type or sid)",
    )
    return parse_scores(frame["score"], lines, path, None)


def restore_unrated_cells(
    ratings: pd.DataFrame,
    segment_means: pd.DataFrame,
    moments: pd.DataFrame,
    annotator: str,
    source: str | Path | None = None,
) -> pd.DataFrame:
    """The ratings of a zero-variance worker that a public per-rating file leaves out, restored from the
    organisers' per-(system, segment) means (WMT22 MTurk DA, Kocmi et al. 2022: ja-en's worker M0250 scored
    every item 0; the organisers kept it with z = 0, but ``ad-jaen-good-stnd.csv`` omits its 74 ratings, 67 cells
    of which no other worker rated).

    A cell of ``segment_means`` (system, segment, criterion, raw_score, z, n) that no SYSTEM or REPEAT rating of
    ``ratings`` covers was rated only by workers absent from ``ratings``. ``annotator`` (named in the config: the
    files cannot tell apart workers with identical scores) must have printed sd 0 in ``moments`` and no rating, so
    every one of its scores equals its printed mean and each such cell is exactly ``n`` ratings of that score: they
    are added as item type ``system``, the cell's criterion, that annotator. A cell whose raw mean is not that
    score or whose z is not 0 is an error (the files would not belong together). Cells that ``annotator`` shares
    with other workers cannot be restored; the organisers' means of those cells then differ from the ratings'
    (a test compares every cell).
    """
    rated = ratings.loc[
        ratings["item_type"].isin(["system", "repeat"]), ["system", "segment"]
    ].drop_duplicates()
    cells = segment_means.merge(rated, on=["system", "segment"], how="left", indicator=True)
    cells = cells.loc[cells["_merge"] == "left_only"]
    printed = moments.set_index("annotator")
    if annotator not in printed.index or printed.loc[annotator, "sd"] != 0:
        raise InputError(f"worker {annotator!r} has no printed sd of 0 in standardise.moments", source)
    if (ratings["annotator"] == annotator).any():
        raise InputError(f"worker {annotator!r} already has ratings: nothing of theirs is missing", source)
    score, worker = float(printed.loc[annotator, "mean"]), annotator
    wrong = cells.loc[(cells["raw_score"] != score) | (cells["z"] != 0)]
    if not wrong.empty:
        row = wrong.iloc[0]
        raise InputError(
            f"the unrated cell ({row['system']}, segment {row['segment']}) has raw mean {row['raw_score']} and z "
            f"{row['z']}: not the all-{score:g} ratings of zero-variance worker {worker}",
            source,
        )
    restored = cells.loc[cells.index.repeat(cells["n"].to_numpy(dtype=np.int64))]
    added = pd.DataFrame(
        {
            "annotator": worker,
            "system": restored["system"].to_numpy(),
            "segment": restored["segment"].to_numpy(dtype=np.int64),
            "item_type": "system",
            "criterion": restored["criterion"].to_numpy(),
            "raw_score": score,
        }
    )
    if "z" in ratings.columns:  # z given by the organisers: the worker's is 0 (checked above)
        added["z"] = 0.0
    for column in ratings.columns.difference(added.columns):
        added[column] = f"restored:{worker}" if column == "hit" else np.nan
    return pd.concat([ratings, added[ratings.columns]], ignore_index=True)


def load_r_mean_sd(path: str | Path) -> pd.DataFrame:
    """Parse the R print output of per-annotator means and sds (WMT22 ``ad-*-trk-mean-sd.txt``).

    Blocks of three lines per annotator: ``[1] "M0867"``, ``[1] 68.63918``, ``[1] 21.14148``. Returns
    DataFrame(annotator, mean, sd). R's ``NA`` becomes NaN; anything else unparsable is an error at its line.
    """
    path = Path(path)
    texts, numbers = read_data_lines(path)
    prefix = "[1] "
    values: list[tuple[str, int]] = []
    for text, number in zip(texts, numbers.tolist(), strict=True):
        text = text.strip()
        if not text.startswith(prefix):
            raise InputError("expected an R print line starting with '[1] '", path, number)
        values.append((text[len(prefix) :].strip(), number))
    if len(values) % 3:
        raise InputError(f"{len(values)} values is not a multiple of 3 (worker, mean, sd)", path)
    records = []
    for start in range(0, len(values), 3):
        (name, name_line), (mean, mean_line), (sd, sd_line) = values[start : start + 3]
        if not (name.startswith('"') and name.endswith('"') and len(name) >= 2):
            raise InputError(f"expected a quoted annotator id, got {name}", path, name_line)
        records.append((name[1:-1], _r_number(mean, path, mean_line), _r_number(sd, path, sd_line)))
    frame = pd.DataFrame(records, columns=["annotator", "mean", "sd"])
    if frame["annotator"].duplicated().any():
        duplicate = frame.loc[frame["annotator"].duplicated(), "annotator"].iloc[0]
        raise InputError(f"annotator {duplicate!r} is listed twice", path)
    return frame


def _r_number(text: str, path: Path, line: int) -> float:
    """One number R printed (``NA``: NaN); anything else is an error at its line."""
    if text == "NA":
        return float("nan")
    try:
        return float(text)
    except ValueError:
        raise InputError(f"expected a number, got {text!r}", path, line) from None


def read_judgments(request: JudgmentRequest) -> Ratings:
    """The ratings of ``human.path`` (keyed by ``human.sid2line``); with ``human.z_path`` the organisers' own z of
    every rating, with ``human.complete_from`` the ratings of a zero-variance worker restored from their segment
    means (``{path, annotator}``; needs ``standardise.moments``, the workers' printed means and sds)."""
    human, n_segments, systems = request.human, request.n_segments, request.systems
    sid2line = request.path("sid2line")
    ratings = load_wmt_mturk_da(request.path(), sid2line, n_segments, systems=systems)
    if human.z_path:
        z = load_wmt_mturk_da_z(request.path("z_path"), ratings, sid2line, n_segments)
        ratings = Ratings(ratings.table.assign(z=z), ratings.source)
    if not human.complete_from:
        return ratings
    restore = human.complete_from
    means_path = data_path(request.data_root, restore["path"])
    if request.moments is None:
        raise InputError("human.complete_from needs standardise.moments (the workers' printed mean and sd)")
    means = load_wmt_da_segment_means(means_path, n_segments, systems, sid2line=sid2line)
    table = restore_unrated_cells(
        ratings.table, means.table, request.moments, restore["annotator"], means_path
    )
    restored = int((table["annotator"] == restore["annotator"]).sum())
    log.info("restored %d ratings of worker %s from %s", restored, restore["annotator"], means_path)
    return Ratings(table, ratings.source)
