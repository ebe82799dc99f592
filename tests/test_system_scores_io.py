"""System-score readers (mtsig.io.system_scores), the WMT20 metrics task's DA files (mtsig.io.wmt_da) and the
layout detector: real WMT20 files against a plain gzip + split oracle and hand-read rows; plain and gzipped files
read identically; bad input names file:line (physical lines, blank lines counted)."""

from __future__ import annotations

import gzip
import re
from contextlib import AbstractContextManager
from pathlib import Path

import numpy as np
import pytest

from mtsig.errors import InputError
from mtsig.io import wmt_da
from mtsig.io.system_scores import (
    LAYOUTS,
    detect_format,
    read_mtme_sys_scores,
    read_system_scores,
    read_tidy_sys_scores,
    read_wmt_sys_scores,
    scores_by_system,
)


def write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def raises_at(path: Path, line: int | None, problem: str) -> AbstractContextManager:
    where = re.escape(f"{path}:{line}: ") if line is not None else re.escape(f"{path}: ")
    return pytest.raises(InputError, match=where + problem)


@pytest.fixture(scope="module")
def wmt20(data_root: Path) -> Path:
    return data_root / "wmt20-metrics"


# ------------------------------------------------------------------------------------------- WMT20 real files


def test_wmt_sys_score_gz_equals_a_plain_gzip_split(wmt20: Path) -> None:
    path = wmt20 / "system-scores" / "baselines" / "BLEU.sys.score.gz"
    oracle = [line.split("\t") for line in gzip.decompress(path.read_bytes()).decode().splitlines()]
    frame = read_wmt_sys_scores(path)
    assert len(frame) == len(oracle)
    assert frame[["metric", "lp", "testset", "refset", "system"]].values.tolist() == [
        row[:5] for row in oracle
    ]
    assert frame["score"].tolist() == [float(row[5]) for row in oracle]
    # Hand-read: "BLEU  ja-en  newstest2020  newstest2020  NICT_Kyoto.1230  22.8020".
    ja_en = read_wmt_sys_scores(path, lp="ja-en", refset="newstest2020")
    assert len(ja_en) == 10
    assert scores_by_system(ja_en)["NICT_Kyoto.1230"] == 22.802
    assert frame.attrs["format"] == "wmt_sys_score"


def test_plain_and_gzipped_files_read_identically(wmt20: Path, tmp_path: Path) -> None:
    path = wmt20 / "system-scores" / "baselines" / "TER.sys.score.gz"
    plain = write(tmp_path / "TER.sys.score", gzip.decompress(path.read_bytes()))
    a, b = read_wmt_sys_scores(path), read_wmt_sys_scores(plain)
    assert a.drop(columns="line").equals(b.drop(columns="line"))
    assert (a["score"] <= 0).all()  # the task's TER is negated: higher is better


def test_every_wmt20_file_is_detected_and_read(wmt20: Path) -> None:
    files = sorted((wmt20 / "system-scores").glob("*/*.sys.score.gz"))
    assert len(files) == 55  # 5 baselines, 31 submissions, 19 en-iu out-of-domain (data README)
    for path in files:
        assert detect_format(path) == "wmt_sys_score"
        assert not read_system_scores(path).empty
    assert detect_format(wmt20 / "da" / "ad-sys-scores-ja-en.csv") == "wmt_da_sys_scores"
    assert detect_format(wmt20 / "da" / "metrics-ad-sys-scores-ja-en.csv") == "wmt_da_sys_scores"
    assert detect_format(wmt20 / "da" / "ad-seg-scores-ja-en.csv") == "wmt_da_seg_scores"
    assert detect_format(wmt20 / "da" / "metrics-ad-seg-scores-ja-en.csv") == "wmt_da_metrics_seg_scores"


def test_metrics_task_names_recover_the_organisers_renaming(wmt20: Path) -> None:
    """The renaming in the organisers' notebook (results/p0-preprocess_scores_and_visualize.ipynb): iu-en's hyphens
    become underscores; en-de's HUMAN-A/B/C become Human-A.0/Human-B.0/Human-P.0; zh-en's HUMAN.0 (the newstestB2020
    reference) becomes Human-B.0; ja-en keeps every name."""

    def renamed(lp: str) -> dict[str, str]:
        da = wmt_da.read_wmt_da_sys_scores(wmt20 / "da" / f"ad-sys-scores-{lp}.csv")
        metrics = wmt_da.read_wmt_da_sys_scores(wmt20 / "da" / f"metrics-ad-sys-scores-{lp}.csv")
        return {k: v for k, v in wmt_da.metrics_task_names(da, metrics).items() if k != v}

    assert renamed("iu-en") == {
        "Facebook-AI.729": "Facebook_AI.729",
        "UQAM-TanLe.520": "UQAM_TanLe.520",
        "NICT-Kyoto.1220": "NICT_Kyoto.1220",
    }
    assert renamed("en-de") == {"HUMAN-A": "Human-A.0", "HUMAN-B": "Human-B.0", "HUMAN-C": "Human-P.0"}
    assert renamed("zh-en") == {"HUMAN.0": "Human-B.0"}
    assert renamed("ja-en") == {}


def test_metrics_task_names_refuse_files_in_another_order(wmt20: Path, tmp_path: Path) -> None:
    source = (wmt20 / "da" / "metrics-ad-sys-scores-ja-en.csv").read_text().splitlines()
    swapped = write(
        tmp_path / "swapped.csv", "\n".join([source[0], source[2], source[1], *source[3:]]) + "\n"
    )
    da = wmt_da.read_wmt_da_sys_scores(wmt20 / "da" / "ad-sys-scores-ja-en.csv")
    with raises_at(swapped, 2, "system 'OPPO.1529' does not have the scores of row 1"):
        wmt_da.metrics_task_names(da, wmt_da.read_wmt_da_sys_scores(swapped))


def test_metrics_seg_scores_equal_the_da_segment_file(wmt20: Path) -> None:
    """metrics-ad-seg-scores holds ad-seg-scores' rows with SEGID = document::n added (ja-en: same names)."""
    ours = wmt_da.read_wmt_da_metrics_seg_scores(wmt20 / "da" / "metrics-ad-seg-scores-ja-en.csv")
    theirs = wmt_da.read_wmt_da_seg_scores(wmt20 / "da" / "ad-seg-scores-ja-en.csv")
    merged = ours.merge(theirs, on=["system", "segment"], suffixes=("", "_da"))
    assert len(merged) == len(ours) == len(theirs) == 8940  # the organisers' notebook prints "ja-en 8940"
    np.testing.assert_allclose(merged["z"], merged["z_da"], rtol=1e-12)
    assert (merged["n"] == merged["n_da"]).all()
    first = ours.iloc[0]
    assert (first["system"], first["segment"], first["document"], first["doc_segment"]) == (
        "NICT_Kyoto.1230",
        441,
        "fukui_shimbun-ja.114",
        1,
    )


def test_appraise_document_sids_match_the_metrics_tasks_segids(wmt20: Path) -> None:
    """Out of English, ad-seg-scores names segments <document>_<k> (k from 0: Appraise); the metrics task's copy
    of the same rows names them <document>::<k + 1>, as its seg.score files number them."""
    ours = wmt_da.read_wmt_da_seg_scores(wmt20 / "da" / "ad-seg-scores-en-cs.csv")
    theirs = wmt_da.read_wmt_da_metrics_seg_scores(wmt20 / "da" / "metrics-ad-seg-scores-en-cs.csv")
    assert len(ours) == len(theirs) == 15740  # the organisers' notebook prints "en-cs 15740"
    assert (ours["document"].to_numpy() == theirs["document"].to_numpy()).all()
    assert (ours["doc_segment"].to_numpy() == theirs["doc_segment"].to_numpy()).all()
    np.testing.assert_allclose(ours["z"], theirs["z"], rtol=1e-12)
    first = ours.iloc[0]  # "Online-B.1589 huffingtonpost.com.19389_3 57 -0.208555738222579 2"
    assert (first["document"], first["doc_segment"], first["raw_score"]) == (
        "huffingtonpost.com.19389",
        4,
        57.0,
    )
    assert not ours.duplicated(["system", "segment"]).any()
    assert ours.groupby(["document", "doc_segment"])["segment"].nunique().eq(1).all()


# ------------------------------------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("body", "line", "problem"),
    [
        ("BLEU\tja-en\tnt\tnt\tA\t1.0\n\nBLEU\tja-en\tnt\tnt\tB\n", 3, "5 fields, expected 6"),
        ("BLEU\tja-en\tnt\tnt\tA\tabc\n", 1, "score 'abc' is not a number"),
        ("BLEU\tja-en\tnt\tnt\tA\tnan\n", 1, "score 'nan' is not finite"),
        ("BLEU\tja-en\tnt\tnt\t\t1.0\n", 1, "empty system"),
        (
            "BLEU\tja-en\tnt\tnt\tA\t1.0\nBLEU\tja-en\tnt\tnt\tA\t2.0\n",
            2,
            r"\(metric, lp, testset, refset, system\) .* given twice \(first at line 1\)",
        ),
    ],
)
def test_wmt_sys_score_errors(tmp_path: Path, body: str, line: int, problem: str) -> None:
    path = write(tmp_path / "m.sys.score", body)
    with raises_at(path, line, problem):
        read_wmt_sys_scores(path)


def test_document_sids_cannot_mix_with_lines(tmp_path: Path) -> None:
    path = write(tmp_path / "ad-seg.csv", "SYS SID RAW.SCR Z.SCR N\nA doc.1_0 50 0.1 2\nA 7 60 0.2 1\n")
    with raises_at(path, 3, r"SID '7' is not <document>_<k> like the file's first \('doc.1_0'\)"):
        wmt_da.read_wmt_da_seg_scores(path)
    good = write(tmp_path / "ad-seg-doc.csv", "SYS SID RAW.SCR Z.SCR N\nA doc.1_0 50 0.1 2\n")
    with raises_at(good, None, r"SIDs name documents .*: n_segments does not apply"):
        wmt_da.read_wmt_da_seg_scores(good, n_segments=10)


def test_wmt_sys_score_filter_names_what_the_file_has(tmp_path: Path) -> None:
    path = write(tmp_path / "m.sys.score", "BLEU\tja-en\tnt\tnt\tA\t1.0\nBLEU\tde-en\tnt\tnt\tA\t1.0\n")
    with raises_at(path, None, r"no rows with lp='en-de' \(the file has lp: de-en, ja-en\)"):
        read_wmt_sys_scores(path, lp="en-de")


def test_damaged_gzip_is_an_input_error(tmp_path: Path) -> None:
    good = gzip.compress(b"BLEU\tja-en\tnt\tnt\tA\t1.0\n")
    path = write(tmp_path / "m.sys.score.gz", good[:-6])
    with raises_at(path, None, "damaged gzip file"):
        read_wmt_sys_scores(path)


def test_mtme_sys_scores(tmp_path: Path) -> None:
    path = write(tmp_path / "BLEU-refA.sys.score", "sysA  30.5\nsysB\t28.0\n")
    assert scores_by_system(read_mtme_sys_scores(path)) == {"sysA": 30.5, "sysB": 28.0}
    assert detect_format(path) == "mtme_sys_score"
    human = write(tmp_path / "en-de.wmt-z.sys.score", "sysA 0.1\nsysB None\n")
    with raises_at(human, 2, "score 'None'"):
        read_mtme_sys_scores(human)
    assert scores_by_system(read_mtme_sys_scores(human, allow_none=True)) == {"sysA": 0.1}
    twice = write(tmp_path / "twice.sys.score", "sysA 1\nsysB 2\nsysA 3\n")
    assert detect_format(twice) == "mtme_seg_score"  # a repeated system: segment scores
    with raises_at(twice, 3, r"system \(system 'sysA'\) given twice \(first at line 1\)"):
        read_mtme_sys_scores(twice)


def test_tidy_sys_scores(tmp_path: Path) -> None:
    path = write(tmp_path / "scores.tsv", "metric\tsystem\tscore\nBLEU\tA\t30\nchrF\tA\t55.5\n")
    frame = read_tidy_sys_scores(path)
    assert frame[["metric", "system", "score"]].values.tolist() == [["BLEU", "A", 30.0], ["chrF", "A", 55.5]]
    assert detect_format(path) == "tidy_sys_score"
    assert read_system_scores(path).equals(frame)
    with raises_at(write(tmp_path / "bad.tsv", "system\tscore\tmetrc\nA\t1\tB\n"), 1, "unknown column"):
        read_tidy_sys_scores(tmp_path / "bad.tsv")
    twice = write(tmp_path / "twice.tsv", "system\tscore\nA\t1\n\nA\t2\n")
    with raises_at(twice, 4, r"\(system\) \(system 'A'\) given twice \(first at line 2\)"):
        read_tidy_sys_scores(twice)


def test_detector_names_every_layout_and_refuses_others(tmp_path: Path) -> None:
    samples = {
        "wmt_sys_score": "BLEU\tja-en\tnt\tnt\tA\t1.0\n",
        "wmt_seg_score": "BLEU\tja-en\tnt\tnt\tA\tdoc\t1\t1.0\n",
        "tidy_seg_score": "system\tsegment\tscore\nA\t0\t1\n",
        "tidy_sys_score": "system\tscore\nA\t1\n",
        "wmt_da_sys_scores": "RAW.SCR Z.SCR N SYS N.ALL \n70 0.1 10 A 12 \n",
        "wmt_da_seg_scores": "SYS SID RAW.SCR Z.SCR N \nA 1 70 0.1 2 \n",
        "wmt_da_metrics_seg_scores": "SYS SEGID RAW.SCR Z.SCR N SID\nA d::1 70 0.1 2 1\n",
    }
    assert set(samples) | {"mtme_sys_score", "mtme_seg_score"} == set(LAYOUTS)
    for layout, body in samples.items():
        path = write(tmp_path / f"{layout}.txt", body)
        assert detect_format(path) == layout
        assert not LAYOUTS[layout][1](path).empty
    unknown = write(tmp_path / "unknown.txt", "\nthree fields here\n")
    with raises_at(unknown, 2, "cannot tell the score file's layout"):
        detect_format(unknown)
    with raises_at(tmp_path / "wmt_seg_score.txt", None, r"this is a segment score file \(wmt_seg_score\)"):
        read_system_scores(tmp_path / "wmt_seg_score.txt")
