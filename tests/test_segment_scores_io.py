"""Segment-score readers (mtsig.io.segment_scores): real WMT20 files against their README and a plain split;
the tidy and mt-metrics-eval layouts written from the same scores read back identically; bad input names
file:line (physical lines, blank lines counted)."""

from __future__ import annotations

import re
from contextlib import AbstractContextManager
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mtsig.errors import InputError
from mtsig.io.segment_scores import (
    FORMATS,
    detect_format,
    read_mtme_seg_scores,
    read_segment_scores,
    read_tidy_segment_scores,
    read_wmt_seg_scores,
    scores_array,
    segment_documents,
)

METRIC_FILES = ("SWSS+METEOR", "TER", "YiSi-2", "chrF", "parbleu", "parchrf++")
DA_SYSTEMS = {
    "NICT_Kyoto.1230", "NiuTrans.1352", "OPPO.1529", "Online-A.1581", "Online-B.1599", "Online-G.1564",
    "Online-Z.1640", "Tohoku-AIP-NTT.1429", "eTranslation.269", "zlabs-nlp.66",
}  # fmt: skip


def metric_path(data_root: Path, metric: str) -> Path:
    return data_root / "wmt20-ja-en" / "metric-scores" / f"{metric}.ja-en.seg.score"


def plain_split(path: Path) -> dict[str, list[tuple[str, int, float]]]:
    """Oracle: system -> its (document, segment number, score) rows in file order, by str.split alone."""
    rows: dict[str, list[tuple[str, int, float]]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        rows.setdefault(fields[4], []).append((fields[5], int(fields[6]), float(fields[7])))
    return rows


def write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def raises_at(path: Path, line: int | None, problem: str) -> AbstractContextManager:
    where = re.escape(f"{path}:{line}: ") if line is not None else re.escape(f"{path}: ")
    return pytest.raises(InputError, match=where + problem)


# ------------------------------------------------------------------------------------------- WMT20 real files


@pytest.mark.parametrize("metric", METRIC_FILES)
def test_wmt20_files_match_readme_and_plain_split(data_root: Path, metric: str) -> None:
    path = metric_path(data_root, metric)
    frame = read_wmt_seg_scores(path)
    oracle = plain_split(path)
    # README: 993 rows per system, 80 documents; YiSi-2 and parbleu also score "Human-A.0".
    extra = {"Human-A.0"} if metric in ("YiSi-2", "parbleu") else set()
    assert set(frame["system"]) == DA_SYSTEMS | extra
    assert frame.groupby("system").size().eq(993).all()
    assert frame["document"].nunique() == 80
    assert list(frame.columns) == ["system", "segment", "score", "document", "line"]
    for system, rows in oracle.items():
        mine = frame[frame["system"] == system].sort_values("segment")
        assert mine["segment"].tolist() == list(range(993))
        assert mine["score"].tolist() == [score for _, _, score in rows]
        assert mine["document"].tolist() == [document for document, _, _ in rows]
    documents = segment_documents(frame, 993)
    assert documents is not None and documents[0] == "yahoo-ja.16798"


def test_wmt20_documents_are_the_same_in_every_metric_file(data_root: Path) -> None:
    first = segment_documents(read_wmt_seg_scores(metric_path(data_root, "chrF")), 993)
    for metric in METRIC_FILES[1:]:
        other = segment_documents(read_wmt_seg_scores(metric_path(data_root, metric)), 993)
        assert np.array_equal(other, first), metric


def test_wmt20_ter_file_holds_negated_ter(data_root: Path) -> None:
    # The organisers store TER negated (higher is better): every score <= 0, and it rises with chrF.
    ter = read_wmt_seg_scores(metric_path(data_root, "TER"))
    chrf = read_wmt_seg_scores(metric_path(data_root, "chrF"))
    assert (ter["score"] <= 0).all() and ter["score"].min() == -28.0
    systems = sorted(DA_SYSTEMS)
    r = np.corrcoef(scores_array(ter, systems, 993).ravel(), scores_array(chrf, systems, 993).ravel())[0, 1]
    assert r > 0.4


def test_filters_select_one_metric_and_language_pair(data_root: Path, tmp_path: Path) -> None:
    source = metric_path(data_root, "chrF").read_text(encoding="utf-8")
    other_lp = source.replace("\tja-en\t", "\ten-ja\t")
    path = write(tmp_path / "two.seg.score", source + other_lp)
    with raises_at(path, 9931, r"rows of 2 \(metric/lp/testset/refset\) combinations"):
        read_wmt_seg_scores(path)
    kept = read_wmt_seg_scores(path, lp="en-ja")
    assert len(kept) == 9930 and kept["line"].min() == 9931
    with raises_at(path, None, "no rows with lp='de-en'"):
        read_wmt_seg_scores(path, lp="de-en")


# ------------------------------------------------------------------------------------ layouts round trip


@pytest.fixture(scope="module")
def yisi(data_root: Path) -> pd.DataFrame:
    return read_wmt_seg_scores(metric_path(data_root, "YiSi-2"))


def test_tidy_and_mtme_layouts_read_back_the_same_scores(yisi: pd.DataFrame, tmp_path: Path) -> None:
    systems = list(pd.unique(yisi["system"]))
    expected = scores_array(yisi, systems, 993)
    documents = segment_documents(yisi, 993)

    # tidy, rows shuffled, with blank lines and CRLF endings
    order = np.random.default_rng(0).permutation(len(yisi))
    body = [
        f"{s}\t{g}\t{float(v)!r}\t{d}"
        for s, g, v, d in yisi[["system", "segment", "score", "document"]].to_numpy()
    ]
    text = "system\tsegment\tscore\tdocument\r\n"
    text += "\r\n".join(body[i] for i in order) + "\r\n\r\n"
    tidy = read_tidy_segment_scores(write(tmp_path / "yisi.tsv", text))
    np.testing.assert_array_equal(scores_array(tidy, systems, 993), expected)
    np.testing.assert_array_equal(segment_documents(tidy, 993), documents)

    # mt-metrics-eval: one block per system, whitespace between name and score, no documents
    lines = [f"{name} {float(v)!r}" for name, row in zip(systems, expected, strict=True) for v in row]
    mtme = read_mtme_seg_scores(write(tmp_path / "YiSi-2-src.seg.score", "\n".join(lines) + "\n"))
    np.testing.assert_array_equal(scores_array(mtme, systems, 993), expected)
    assert "document" not in mtme.columns and segment_documents(mtme, 993) is None

    # ... and with the systems' lines interleaved (mt-metrics-eval's reader appends per system)
    interleaved = [f"{name}\t{float(expected[s, i])!r}" for i in range(993) for s, name in enumerate(systems)]
    mixed = read_segment_scores(write(tmp_path / "mixed.seg.score", "\n".join(interleaved)), "mtme_seg_score")
    np.testing.assert_array_equal(scores_array(mixed, systems, 993), expected)
    assert mixed.attrs["format"] == "mtme_seg_score" and set(FORMATS) == {
        "tidy",
        "wmt_seg_score",
        "mtme_seg_score",
    }


def test_tidy_by_hand(tmp_path: Path) -> None:
    path = write(tmp_path / "s.tsv", "segment\tsystem\tscore\n1\tB\t-0.5\n0\tA\t2\n\n0\tB\t1e-3\n1\tA\t.25\n")
    frame = read_tidy_segment_scores(path)
    assert frame[["system", "segment", "score", "line"]].values.tolist() == [
        ["A", 0, 2.0, 3],
        ["A", 1, 0.25, 6],
        ["B", 0, 0.001, 5],
        ["B", 1, -0.5, 2],
    ]
    np.testing.assert_array_equal(scores_array(frame, ["B", "A"], 2), [[0.001, -0.5], [2.0, 0.25]])
    assert frame.attrs == {"path": str(path), "format": "tidy"}


# ---------------------------------------------------------------------------------------------------- errors

TIDY_HEADER = "system\tsegment\tscore\n"


@pytest.mark.parametrize(
    ("body", "line", "problem"),
    [
        (TIDY_HEADER + "A\t0\tnan\n", 2, "score 'nan' is not finite"),
        (TIDY_HEADER + "A\t0\t1\n\n\nA\t1\t-Inf\n", 5, "score '-Inf' is not finite"),
        (TIDY_HEADER + "A\t0\t1e999\n", 2, "score '1e999' overflows a float"),
        (TIDY_HEADER + "A\t0\t0.5\nA\t1\tgood\n", 3, "score 'good' is not a number"),
        (TIDY_HEADER + "A\t0\t1_0\n", 2, "score '1_0' is not a number"),
        (
            TIDY_HEADER + "A\t0\t1\nA\t0\t2\n",
            3,
            r"\(system, segment\) \(system 'A', segment 0\) given twice \(first at line 2\)",
        ),
        (
            TIDY_HEADER + "A\t0\t1\nA\t1\t1\nB\t1\t1\n",
            4,
            "system 'B' .* has 1 of 2 segments: no score for segment 0",
        ),
        (TIDY_HEADER + "A\t0\t1\nA\t2\t1\n", 2, "system 'A' .* has 2 of 3 segments: no score for segment 1"),
        (TIDY_HEADER + "A\t-1\t1\n", 2, "segment '-1' is not a non-negative integer"),
        (TIDY_HEADER + "A\t0\n", 2, r"2 fields, expected 3"),
        (TIDY_HEADER + "\t0\t1\n", 2, "empty system"),
        (
            "A\t0\t0.5\nA\t1\t0.7\n",
            1,
            r"no header: the first line, 'A\\t0\\t0.5', is a row; add a header line",
        ),
        ("system\tsegment\tscores\n", 1, r"no column score in the header 'system\\tsegment\\tscores'"),
        ("system\tsegment\tscore\tdocumnet\nA\t0\t1\td\n", 1, "unknown column\\(s\\) 'documnet'"),
        (TIDY_HEADER, 1, "no rows after the header"),
        (
            TIDY_HEADER.replace("\n", "\tdocument\n") + "A\t0\t1\td1\nB\t0\t1\td2\n",
            3,
            "segment 0 is in document 'd2'",
        ),
    ],
)
def test_tidy_errors(tmp_path: Path, body: str, line: int, problem: str) -> None:
    path = write(tmp_path / "bad.tsv", body)
    with raises_at(path, line, problem):
        read_tidy_segment_scores(path)


@pytest.mark.parametrize(
    ("header", "problem"),
    [
        (
            "system,segment,score,document",
            "the header 'system,segment,score,document' is separated by commas",
        ),
        ("system segment score", "the header 'system segment score' is separated by spaces"),
        ("System\tSegment\tScore", r"the header 'System\\tSegment\\tScore' spells a column in capitals"),
        ("system\tscore", r"no column segment \(or item\) in the header 'system\\tscore'"),
        ("system\tseg\tscore", r"no column segment \(or item\) in the header 'system\\tseg\\tscore'"),
    ],
)
def test_a_header_gone_wrong_is_detected_as_tidy_and_told_its_fix(
    tmp_path: Path, header: str, problem: str
) -> None:
    """Each message names the canonical columns with their aliases and a correct header line (written out here);
    the layout is detected as tidy, so that ``--scores-format auto`` gives the same message."""
    path = write(tmp_path / "bad.tsv", header + "\nA\t0\t0.5\n")
    assert detect_format(path) == "tidy"
    fix = re.escape("e.g. 'system\\tsegment\\tscore\\tdocument'")
    with raises_at(path, 1, problem + ".*" + fix):
        read_tidy_segment_scores(path)


def test_a_file_of_no_layout_shows_the_tidy_header_line(tmp_path: Path) -> None:
    path = write(tmp_path / "bad.txt", "what is this\n")
    with raises_at(
        path,
        1,
        re.escape(
            "cannot tell the segment-score layout from this line: expected a tidy header line "
            "(e.g. 'system\\tsegment\\tscore\\tdocument')"
        ),
    ):
        detect_format(path)


def test_tidy_segment_outside_the_test_set(tmp_path: Path) -> None:
    path = write(tmp_path / "s.tsv", TIDY_HEADER + "A\t0\t1\nA\t1\t1\nA\t2\t1\n")
    with raises_at(path, 4, r"segment 2 is outside the test set \(0..1, 0-based\)"):
        read_tidy_segment_scores(path, n_segments=2)
    with raises_at(path, 2, "system 'A' .* has 3 of 4 segments: no score for segment 3"):
        read_tidy_segment_scores(path, n_segments=4)


@pytest.mark.parametrize(
    ("content", "line", "problem"),
    [
        (b"", None, "empty file"),
        (b"\n  \n\t\n", None, "empty file"),
        (b"system\tsegment\tscore\n\x00\x01\x02", 2, r"binary file \(NUL byte\)"),
        (b"system\tsegment\tscore\nA\t0\t\xff\n", 2, "not valid UTF-8 \\(byte 0xff at column 5\\)"),
    ],
)
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_empty_binary_and_non_utf8_files(
    tmp_path: Path, content: bytes, line: int | None, problem: str, fmt: str
) -> None:
    path = write(tmp_path / "bad", content)
    with raises_at(path, line, problem):
        read_segment_scores(path, fmt)


def test_missing_file_and_unknown_format(tmp_path: Path) -> None:
    with raises_at(tmp_path / "nope", None, "file not found"):
        read_segment_scores(tmp_path / "nope", "tidy")
    with raises_at(tmp_path, None, "is a directory"):
        read_segment_scores(tmp_path, "wmt_seg_score")
    with raises_at(tmp_path / "x", None, "unknown segment-score format 'csv'"):
        read_segment_scores(tmp_path / "x", "csv")
    with raises_at(tmp_path / "x", None, "bad option for segment-score format 'tidy'"):
        read_segment_scores(tmp_path / "x", "tidy", lp="ja-en")


def wmt_rows(rows: list[tuple[str, str, int, str]]) -> str:
    """WMT20 seg.score lines from (system, document, segment number, score)."""
    return "".join(f"M\tja-en\tnewstest2020\tnewstest2020\t{s}\t{d}\t{n}\t{v}\n" for s, d, n, v in rows)


GOOD_WMT = [("A", "d1", 1, "0.1"), ("A", "d1", 2, "0.2"), ("A", "d2", 1, "0.3"),
            ("B", "d1", 1, "0.4"), ("B", "d1", 2, "0.5"), ("B", "d2", 1, "0.6")]  # fmt: skip


def test_wmt_by_hand(tmp_path: Path) -> None:
    frame = read_wmt_seg_scores(write(tmp_path / "m.seg.score", wmt_rows(GOOD_WMT)))
    np.testing.assert_array_equal(scores_array(frame, ["B", "A"], 3), [[0.4, 0.5, 0.6], [0.1, 0.2, 0.3]])
    assert segment_documents(frame, 3).tolist() == ["d1", "d1", "d2"]


@pytest.mark.parametrize(
    ("rows", "line", "problem"),
    [
        (GOOD_WMT[:5], 5, "system 'B' has 2 rows \\(its last is here\\) but system 'A' has 3"),
        (
            [*GOOD_WMT[:2], ("A", "d2", 2, "0.3"), *GOOD_WMT[3:]],
            3,
            "segment number 2 of document 'd2': expected 1",
        ),
        (
            [*GOOD_WMT[:1], ("A", "d1", 3, "0.2"), *GOOD_WMT[2:]],
            2,
            "segment number 3 of document 'd1': expected 2",
        ),
        (
            [*GOOD_WMT[:3], ("A", "d1", 1, "0.7"), *GOOD_WMT[3:], ("B", "d1", 1, "0.7")],
            4,
            "document 'd1' starts again",
        ),
        (
            [*GOOD_WMT[:4], ("B", "d3", 1, "0.5"), GOOD_WMT[5]],
            5,
            "system 'B''s row 2 is \\(document 'd3', segment 1\\)",
        ),
        ([*GOOD_WMT[:5], ("B", "d2", 1, "NaN")], 6, "score 'NaN' is not finite"),
        ([*GOOD_WMT[:5], ("B", "d2", 1, "-")], 6, "score '-' is not a number"),
        ([*GOOD_WMT[:5], ("B", "d2", 0, "0.6")], 6, "segment number 0 is below 1"),
    ],
)
def test_wmt_errors(tmp_path: Path, rows: list[tuple[str, str, int, str]], line: int, problem: str) -> None:
    path = write(tmp_path / "m.seg.score", wmt_rows(rows))
    with raises_at(path, line, problem):
        read_wmt_seg_scores(path)


def test_wmt_field_count_and_blank_lines(tmp_path: Path) -> None:
    text = (
        "\n" + wmt_rows(GOOD_WMT[:2]) + "\n\n" + wmt_rows(GOOD_WMT[2:]).replace("\t0.4\n", "\t0.4\textra\n")
    )
    path = write(tmp_path / "m.seg.score", text)
    with raises_at(path, 7, "9 fields, expected 8 \\(WMT seg.score"):
        read_wmt_seg_scores(path)
    frame = read_wmt_seg_scores(
        write(tmp_path / "ok", "\n" + wmt_rows(GOOD_WMT[:2]) + "\n\n" + wmt_rows(GOOD_WMT[2:]))
    )
    assert frame["line"].tolist() == [2, 3, 6, 7, 8, 9]
    with raises_at(
        tmp_path / "ok", 6, "system .A. has 3 rows \\(its last is here\\) but the test set has 4 segments"
    ):
        read_wmt_seg_scores(tmp_path / "ok", n_segments=4)


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("A 1\nA None\nB 1\nB 2\n", 2, "score 'None' .* is not allowed in a metric-score file"),
        ("A 1\nA 2\nB 1\n", 3, "system 'B' has 1 rows \\(its last is here\\) but system 'A' has 2"),
        ("A 1\nA 2 3\n", 2, "3 fields, expected 2"),
        ("A 1\nA inf\n", 2, "score 'inf' is not finite"),
    ],
)
def test_mtme_errors(tmp_path: Path, text: str, line: int, problem: str) -> None:
    path = write(tmp_path / "m.seg.score", text)
    with raises_at(path, line, problem):
        read_mtme_seg_scores(path)


def test_mtme_none_allowed_in_human_scores_then_missing_on_request(tmp_path: Path) -> None:
    path = write(tmp_path / "h.seg.score", "A 1\nA None\nB 1\nB 2\n")
    frame = read_mtme_seg_scores(path, allow_none=True)
    assert frame[["system", "segment", "score"]].values.tolist() == [
        ["A", 0, 1.0],
        ["B", 0, 1.0],
        ["B", 1, 2.0],
    ]
    np.testing.assert_array_equal(scores_array(frame, ["B"], 2), [[1.0, 2.0]])
    with raises_at(path, 1, r"system 'A' \(first row here\) has no score for segment 1 \(0-based; 1 of 2"):
        scores_array(frame, ["A", "B"], 2)


def test_scores_array_errors(tmp_path: Path) -> None:
    path = write(tmp_path / "s.tsv", TIDY_HEADER + "A\t0\t1\nA\t1\t2\n")
    frame = read_tidy_segment_scores(path)
    with raises_at(
        path,
        None,
        "no segment scores for system\\(s\\) 'B', 'C'; the file has 'A': name each system's rows as the system is "
        "named where it is asked for \\(a pipeline experiment: as its systems: list names it",
    ):
        scores_array(frame, ["A", "B", "C"], 2)
    with raises_at(path, 3, "system 'A' scores segment 1 but the test set has 1 segments"):
        scores_array(frame, ["A"], 1)
    with raises_at(path, 2, "system 'A' \\(first row here\\) has no score for segment 2"):
        scores_array(frame, ["A"], 3)


def test_number_parsers_fast_path_equals_float_and_refuses_what_the_slow_path_refuses(tmp_path: Path) -> None:
    """The parsers check every value with one regex pass over the joined values; the values are those of float()
    and int(), and a value the per-value check refuses (a newline inside, a word, NaN) is still an error at its
    line."""
    from mtsig.io.segment_scores import parse_finite_numbers, parse_integers

    values = [" 1.5", "-2e-3", "+7", ".25", "3.", "1E+2", "0", "-0.0"]
    lines = np.arange(1, len(values) + 1)
    np.testing.assert_array_equal(
        parse_finite_numbers(values, lines, tmp_path, "x"), [float(v) for v in values]
    )
    np.testing.assert_array_equal(parse_integers(["0", " 17", "3"], lines[:3], tmp_path, "n"), [0, 17, 3])
    for bad, line, problem in (
        (["1", "2\n3"], 2, "is not a number"),
        (["1", "nan"], 2, "is not finite"),
        (["1", "1_000"], 2, "is not a number"),
    ):
        with raises_at(tmp_path, line, re.escape(f"x {bad[-1]!r} {problem}")):
            parse_finite_numbers(bad, np.array([1, 2]), tmp_path, "x")
    with raises_at(tmp_path, 2, "n '1.0' is not a non-negative integer"):
        parse_integers(["1", "1.0"], np.array([1, 2]), tmp_path, "n")
    with raises_at(tmp_path, 1, "n 0 is below 1"):
        parse_integers(["0"], np.array([1]), tmp_path, "n", minimum=1)
