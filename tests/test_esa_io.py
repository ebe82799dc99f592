"""Appraise ESA exports (mtsig.io.esa): the WMT24 waves 2 and 3 read with the organisers' filtering (counts from the
release's README and from the organisers' load_data steps written out in pandas here), the segment-id offset
checked against the documents, tiny files by hand, and every kind of malformed row named by file and line; the
raters' quality-control table of what the reader returns (mtsig.stats.human.esa_quality_control)."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mtsig.errors import InputError
from mtsig.io.esa import ESA_COLUMNS, FILTER_STEPS, read_esa
from mtsig.stats.human import esa_quality_control

WAVES = ("humeval/esa_generalMT2024_wave2.csv", "humeval/esa_generalMT2024_wave3.csv")
# README.txt of the release: ratings after the organisers' filtering (before the latest-rating rule), systems
# (refA included), raters, documents.
README_COUNTS = {
    "en-cs": (4767, 16, 61, 85),
    "en-hi": (3291, 11, 42, 85),
    "en-ja": (8294, 13, 106, 170),
    "en-zh": (8333, 13, 106, 170),
}


@pytest.fixture(scope="module")
def wmt24(data_root: Path):
    root = data_root / "wmt24-esa"
    return read_esa([root / w for w in WAVES], root / "documents")


def organisers_load_data(path: Path) -> pd.DataFrame:
    """Oracle: the steps of the organisers' ``load_data`` (humeval/tools.py @bfa937e) written out in pandas, with a
    stable sort (their unstable one picks among equal end times, which never differ in score here)."""
    df = pd.read_csv(path, header=None, dtype=str)
    df.columns = list(ESA_COLUMNS)
    df = df[df["segment_type"] == "TGT"]
    df = df[~df["system_id"].str.contains("tutorial")]
    df = df[~df["doc_id"].str.contains("#incomplete")]
    df = df[~df["doc_id"].str.contains("#dup")]
    df = df[df["doc_id"] != "canary"]
    df["annot_id"] = df["system_id"] + "-" + df["doc_id"] + "-" + df["segment_id"] + "-" + df["target_lang"]
    df = df.sort_values("end_time", ascending=False, kind="stable")
    return df.drop_duplicates(["user_id", "annot_id"], keep="first")


def test_counts_equal_the_readme(wmt24) -> None:
    ratings = wmt24.ratings
    dropped = wmt24.dropped.groupby("step", sort=False)["rows"].sum()
    assert list(dropped.index) == list(FILTER_STEPS)
    for lp, (_n, systems, raters, documents) in README_COUNTS.items():
        rows = ratings.loc[ratings["lp"] == lp]
        assert rows["system"].nunique() == systems and "refA" in set(rows["system"])
        assert rows["rater"].nunique() == raters
        assert rows["doc"].nunique() == documents
        assert rows["domain"].nunique() == 4
    # README: the rows before the latest-rating rule; that rule then removes the repeats.
    assert len(ratings) + dropped[FILTER_STEPS[-1]] == sum(c[0] for c in README_COUNTS.values())
    assert dropped[FILTER_STEPS[0]] == 3813  # README: 3,813 BAD rows in all


def test_ratings_equal_the_organisers_load_data(wmt24, data_root: Path) -> None:
    for wave in WAVES:
        theirs = organisers_load_data(data_root / "wmt24-esa" / wave)
        ours = wmt24.ratings.loc[wmt24.ratings["file"].str.endswith(wave)]
        key = ["rater", "system", "doc", "segment_id"]
        left = ours.assign(segment_id=(ours["item"] + 1).astype(str))[[*key, "score"]]
        right = theirs.rename(columns={"user_id": "rater", "system_id": "system", "doc_id": "doc"})
        right = right.assign(score=right["overall"].astype(float))[[*key, "score"]]
        merged = left.merge(right, on=key, how="outer", indicator=True, suffixes=("", "_theirs"))
        assert (merged["_merge"] == "both").all() and len(merged) == len(left) == len(right)
        np.testing.assert_array_equal(merged["score"], merged["score_theirs"])


def test_domains_and_documents_from_the_documents_file(wmt24, data_root: Path) -> None:
    # Oracle: line item + 1 of <lp>.docs read here by hand.
    ratings = wmt24.ratings
    for lp in README_COUNTS:
        lines = (data_root / "wmt24-esa" / "documents" / f"{lp}.docs").read_text().splitlines()
        rows = ratings.loc[ratings["lp"] == lp]
        expected = [lines[i + 1].split("\t") for i in rows["item"]]
        assert [d for d, _ in expected] == list(rows["domain"])
        assert [d for _, d in expected] == list(rows["doc"])
    assert set(ratings["domain"]) == {"news", "social", "literary", "speech"}


def test_quality_control_table(wmt24, data_root: Path) -> None:
    qc = esa_quality_control(wmt24.ratings, wmt24.bad_items)
    assert len(qc) == 315 and qc["n_items"].gt(0).all()
    # Oracle: the distinct BAD items (rater, system, document, segment) of the raw files, in documents that are
    # not #incomplete or #dup (the organisers' filters, applied to QC items too).
    raw = pd.concat(pd.read_csv(data_root / "wmt24-esa" / w, header=None, dtype=str) for w in WAVES)
    bad = raw.loc[(raw[3] == "BAD") & ~raw[7].str.contains("#incomplete|#dup")]
    assert qc["n_bad"].sum() == len(bad.drop_duplicates([0, 1, 2, 7])) == 3649
    # Every rater's BAD items score lower on average than their own ratings of the originals.
    assert (qc["mean_bad"] < qc["mean_original"]).all()
    assert qc["passed"].sum() == 313 and set(qc.loc[~qc["passed"], "rater"]) == {"enghin7918", "enghin7928"}


# ------------------------------------------------------------------------------------------ tiny files by hand

HEADER_FREE = [
    # rater, system, seg, type, src, tgt, score, doc, unused, spans, start, end
    ["r1", "sysA", "1", "TGT", "eng", "ces", "80", "docA", "False", "[]", "10.0", "11.0"],
    ["r1", "sysA", "1", "TGT", "eng", "ces", "70", "docA", "False", "[]", "12.0", "13.0"],  # later: kept
    ["r1", "sysB", "1", "TGT", "eng", "ces", "60", "docA", "False", '[{"start_i":0,"end_i":3}]', "1", "2"],
    ["r1", "sysB", "2", "TGT", "eng", "ces", "50", "docA", "False", "[]", "1", "2"],
    ["r1", "sysA", "2", "BAD", "eng", "ces", "10", "docA#bad", "False", "[]", "1", "2"],
    ["r1", "sysB", "2", "BAD", "eng", "ces", "20", "docA#bad", "False", "[]", "1", "2"],
    ["r1", "en-tutorial", "1000001", "TGT", "eng", "ces", "0", "tut", "False", "[]", "1", "2"],
    ["r1", "sysA", "3", "TGT", "eng", "ces", "0", "docB#incomplete", "False", "[]", "1", "2"],
    ["r1", "sysA", "4", "TGT", "eng", "ces", "0", "docB#dup", "False", "[]", "1", "2"],
    ["r1", "sysA", "0", "TGT", "eng", "ces", "0", "canary", "False", "[]", "1", "2"],
    ["r2", "sysA", "1", "BAD", "eng", "ces", "5", "docA#bad", "False", "[]", "1", "2"],  # only QC items
]
DOCS = "canary\tcanary\nnews\tdocA\nnews\tdocA\nspeech\tdocB\nspeech\tdocB\n"


def write_export(folder: Path, rows: list[list[str]], name: str = "wave9.csv") -> Path:
    path = folder / name
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    (folder / "en-cs.docs").write_text(DOCS)
    return path


def test_tiny_export_by_hand(tmp_path: Path) -> None:
    export = read_esa(write_export(tmp_path, HEADER_FREE), tmp_path)
    ratings = export.ratings
    assert list(ratings[["system", "item", "score"]].itertuples(index=False, name=None)) == [
        ("sysA", 0, 70.0),
        ("sysB", 0, 60.0),
        ("sysB", 1, 50.0),
    ]
    assert set(ratings["lp"]) == {"en-cs"} and set(ratings["wave"]) == {"wave9"}
    assert list(ratings["domain"]) == ["news"] * 3 and list(ratings["doc"]) == ["docA"] * 3
    assert list(ratings["line"]) == [2, 3, 4]
    dropped = dict(zip(export.dropped["step"], export.dropped["rows"], strict=True))
    assert dropped == dict(zip(FILTER_STEPS, [3, 1, 1, 1, 1, 1], strict=True))
    qc = esa_quality_control(export.ratings, export.bad_items).set_index("rater")
    # r1: one BAD item (sysB, item 1: 20) has the rater's original (50); sysA's item 1 was not rated as TGT.
    assert qc.loc["r1", ["n_items", "n_bad", "n_paired"]].tolist() == [3, 2, 1]
    assert qc.loc["r1", "mean_bad"] == 20 and qc.loc["r1", "mean_original"] == 50
    assert not qc.loc["r1", "passed"] and "not testable" in qc.loc["r1", "note"]
    assert qc.loc["r2", "n_items"] == 0 and qc.loc["r2", "note"] == "only QC items: no rating kept"
    assert not qc.loc["r2", "passed"]


def test_old_indexing_reads_with_first_segment_id_zero(tmp_path: Path) -> None:
    shifted = [r[:2] + [str(int(r[2]) - 1)] + r[3:] if r[7] != "tut" else r for r in HEADER_FREE]
    shifted = [r for r in shifted if r[7] != "canary"]
    old = read_esa(write_export(tmp_path, shifted), tmp_path, first_segment_id=0)
    new = read_esa(write_export(tmp_path, HEADER_FREE, "new.csv"), tmp_path)
    columns = ["system", "item", "doc", "domain", "score"]
    pd.testing.assert_frame_equal(old.ratings[columns], new.ratings[columns])
    # Read with the wrong offset, the documents disagree: an error, not shifted domains.
    with pytest.raises(InputError, match=r"wave9\.csv:\d+: document 'docA' of item \d+ differs from 'docB'"):
        read_esa(tmp_path / "wave9.csv", tmp_path, first_segment_id=-1)


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        (None, None, "11 columns, expected 12"),
        (3, "REF", "item type 'REF' is neither TGT nor BAD"),
        (4, "xxx", "unknown source language code 'xxx'"),
        (5, "cz", "unknown target language code 'cz'"),
        (6, "101", "score 101 is outside 0-100"),
        (6, "-1", "score -1 is outside 0-100"),
        (6, "good", "score 'good' is not a number"),
        (6, "nan", "score 'nan' is not a finite number"),
        (2, "1.5", "segment id '1.5' is not a non-negative integer"),
        (11, "later", "end time 'later' is not a number"),
        (0, "", "empty rater or system id"),
        (2, "9", "item 8 is beyond"),
    ],
)
def test_malformed_row_names_file_and_line(tmp_path: Path, column, value, message) -> None:
    rows = [list(r) for r in HEADER_FREE]
    if column is None:
        rows[3] = rows[3][:-1]
    else:
        rows[3][column] = value
    path = write_export(tmp_path, rows)
    with pytest.raises(InputError, match=re.escape(f"{path}:4: {message}")):
        read_esa(path, tmp_path)


def test_missing_files_are_input_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_esa(tmp_path / "absent.csv")
    path = write_export(tmp_path, HEADER_FREE)
    (tmp_path / "en-cs.docs").unlink()
    with pytest.raises(InputError, match=re.escape(f"{tmp_path / 'en-cs.docs'}: no documents file")):
        read_esa(path, tmp_path)
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(InputError, match="no ratings"):
        read_esa(tmp_path / "empty.csv")
