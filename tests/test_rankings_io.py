"""Readers of relative rankings (mtsig.io.rankings): counts on the real files (from their READMEs) and bad rows."""

from __future__ import annotations

import csv

import pytest

from mtsig.errors import InputError
from mtsig.io.rankings import load_jcml, load_predicted_ranking, load_wmt_rankings

HEADER = (
    "srclang,trglang,srcIndex,documentId,segmentId,judgeId,"
    + ",".join(f"system{i}Number,system{i}Id" for i in range(1, 6))
    + ","
    + ",".join(f"system{i}rank" for i in range(1, 6))
)
GOOD_ROW = "Spanish,English,4,es-en.test,4,J1,1,a,2,b,3,c,4,d,5,e,1,2,2,-1,5"


def rnk_path(tmp_path, *rows):
    path = tmp_path / "rnk.csv"
    path.write_text("\n".join([HEADER, *rows]) + "\n", encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------------------ WMT RNK


def test_wmt12_counts_from_the_readme(data_root):
    path = data_root / "wmt12" / "manual-evaluation" / "wmt12.RNK_results.csv"
    es_en = load_wmt_rankings(path)
    assert es_en["judgment"].nunique() == 1141  # README: 1141 es-en 5-way ranking rows
    assert len(es_en) == 5 * 1141
    assert load_wmt_rankings(path, "English", "Spanish")["judgment"].nunique() == 1475
    assert list(es_en.columns) == ["judgment", "annotator", "segment", "system", "rank"]
    assert es_en["judgment"].tolist() == sorted(es_en["judgment"].tolist())
    assert set(es_en["rank"]) <= {-1, 1, 2, 3, 4, 5}


def test_wmt12_segments_are_zero_based_and_blanks_kept(data_root):
    path = data_root / "wmt12" / "manual-evaluation" / "wmt12.RNK_results.csv"
    with path.open(newline="", encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle) if (r["srclang"], r["trglang"]) == ("Spanish", "English")]
    first = load_wmt_rankings(path).query("judgment == 0")
    assert first["segment"].tolist() == [int(rows[0]["srcIndex"]) - 1] * 5  # README: srcIndex is 1-based
    assert first["system"].tolist() == [rows[0][f"system{i}Id"] for i in range(1, 6)]
    assert first["annotator"].tolist() == [rows[0]["judgeId"]] * 5
    blanks = sum(r[f"system{i}rank"] == "-1" for r in rows for i in range(1, 6))
    assert (load_wmt_rankings(path)["rank"] == -1).sum() == blanks > 0


def test_wmt_reader_on_a_good_row(tmp_path):
    frame = load_wmt_rankings(
        rnk_path(tmp_path, GOOD_ROW, GOOD_ROW.replace("Spanish,English", "Czech,English"))
    )
    assert frame["segment"].tolist() == [3] * 5
    assert frame["rank"].tolist() == [1, 2, 2, -1, 5]
    assert frame["system"].tolist() == list("abcde")


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        (GOOD_ROW[: GOOD_ROW.rindex(",")], "expected 21 comma-separated fields, got 20"),
        (GOOD_ROW.replace(",1,2,2,-1,5", ",1,2,x,-1,5"), "system3rank must be an integer"),
        (GOOD_ROW.replace(",1,2,2,-1,5", ",1,2,7,-1,5"), "system3rank must be 1..5 or -1"),
        (GOOD_ROW.replace("English,4,", "English,0,"), "srcIndex is 1-based"),
        (GOOD_ROW.replace(",2,b,", ",2,a,"), "shown twice"),
        (GOOD_ROW.replace(",J1,", ",,"), "empty judgeId"),
    ],
)
def test_wmt_reader_names_file_line_and_problem(tmp_path, row, problem):
    path = rnk_path(tmp_path, GOOD_ROW, row)
    with pytest.raises(InputError, match=problem) as error:
        load_wmt_rankings(path)
    assert error.value.line == 3 and error.value.path == str(path)
    assert str(error.value).startswith(f"{path}:3: ")


def test_wmt_reader_missing_column_and_missing_pair(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text(HEADER.replace("judgeId", "judge") + "\n" + GOOD_ROW + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="lacks column\\(s\\) judgeId") as error:
        load_wmt_rankings(path)
    assert error.value.line == 1
    with pytest.raises(
        InputError, match="no judgments for German-English \\(pairs present: Spanish-English\\)"
    ):
        load_wmt_rankings(rnk_path(tmp_path, GOOD_ROW), "German", "English")


# ------------------------------------------------------------------------------------------------ JCML


@pytest.mark.parametrize(
    ("name", "sentences", "candidates", "blanks"), [("wmt08", 365, 1810, 0), ("wmt10-test", 184, 920, 5)]
)
def test_jcml_counts_from_the_readme(data_root, name, sentences, candidates, blanks):
    path = data_root / "jcml" / f"{name}.de-en.jcml"
    frame = load_jcml(path)
    text = path.read_text(encoding="utf-8")
    # README: wmt10-test 184 instances, wmt08 365; candidates and blanks counted in the raw XML
    assert frame["judgment"].nunique() == sentences == text.count("<judgedsentence")
    assert len(frame) == candidates == text.count("<tgt ")
    assert (frame["rank"] == -1).sum() == blanks == text.count('rank="-1"')
    assert frame["rank"].dtype.kind == "i"
    assert (frame["text"] == frame["text"].str.strip()).all() and (frame["text"] != "").all()


def test_jcml_first_sentence_fields(data_root):
    frame = load_jcml(data_root / "jcml" / "wmt08.de-en.jcml")
    first = frame[frame["judgment"] == 0]
    assert first["system"].tolist() == ["rbmt5", "cmu-statxfer", "saar", "rbmt3", "uedin"]
    assert first["rank"].tolist() == [4, 5, 3, 4, 3]
    assert first["sentence_id"].iloc[0] == "13" and first["testset"].iloc[0] == "test2008"
    assert first["source"].iloc[0] == "Empfehlung für die zweite Lesung Piecyk (A5-0232/2000)"
    assert first["text"].iloc[1] == "Recommendation for the second reading Mr Piecyk, A5-0232/2000 draft it"


def jcml_file(tmp_path, body):
    path = tmp_path / "x.jcml"
    path.write_text(f'<?xml version="1.0" ?>\n<jcml>\n{body}\n</jcml>\n', encoding="utf-8")
    return path


def test_jcml_fractional_ranks_stay_float(tmp_path):
    path = jcml_file(
        tmp_path,
        '<judgedsentence id="1"><src> s </src>\n<tgt rank="1.5" system="a"> x &amp; y </tgt>\n'
        '<tgt rank="3" system="b">z</tgt>\n<ref> r </ref></judgedsentence>',
    )
    frame = load_jcml(path)
    assert frame["rank"].tolist() == [1.5, 3.0] and frame["rank"].dtype.kind == "f"
    assert frame["text"].tolist() == ["x & y", "z"] and frame["reference"].tolist() == ["r", "r"]


@pytest.mark.parametrize(
    ("body", "line", "problem"),
    [
        (
            '<judgedsentence id="1">\n<tgt rank="1" system="a">x</tgt>\n<tgt rank="2">y</tgt>\n</judgedsentence>',
            5,
            "without a system",
        ),
        (
            '<judgedsentence id="1">\n<tgt rank="1" system="a">x</tgt>\n<tgt system="b">y</tgt>\n</judgedsentence>',
            5,
            "without a rank",
        ),
        (
            '<judgedsentence id="1">\n<tgt rank="1" system="a">x</tgt>\n<tgt rank="b" system="b">y</tgt>\n</judgedsentence>',
            5,
            "rank must be a number",
        ),
        (
            '<judgedsentence id="1">\n<tgt rank="1" system="a">x</tgt>\n<tgt rank="0" system="b">y</tgt>\n</judgedsentence>',
            5,
            "positive or -1",
        ),
        (
            '<judgedsentence id="1">\n<tgt rank="1" system="a">x</tgt>\n<tgt rank="2" system="a">y</tgt>\n</judgedsentence>',
            5,
            "appears twice",
        ),
        (
            '<judgedsentence id="1">\n<tgt rank="1" system="a">x</tgt>\n<tgt rank="2" system="b">y</src>\n</judgedsentence>',
            5,
            "malformed XML",
        ),
    ],
)
def test_jcml_reader_names_file_line_and_problem(tmp_path, body, line, problem):
    path = jcml_file(tmp_path, body)
    with pytest.raises(InputError, match=problem) as error:
        load_jcml(path)
    assert error.value.line == line and error.value.path == str(path)


def test_jcml_without_sentences_is_an_error(tmp_path):
    with pytest.raises(InputError, match="no <judgedsentence>"):
        load_jcml(jcml_file(tmp_path, ""))


# ------------------------------------------------------------------------------------------------ predicted ranking


def test_predicted_ranking_reader(tmp_path):
    path = tmp_path / "pred.tsv"
    path.write_text("judgment\tsystem\tpredicted_rank\n0\ta\t1\n0\tb\t2.5\n\n1\ta\t1\n", encoding="utf-8")
    frame = load_predicted_ranking(path)
    assert frame.values.tolist() == [[0, "a", 1.0], [0, "b", 2.5], [1, "a", 1.0]]


@pytest.mark.parametrize(
    ("content", "line", "problem"),
    [
        ("judgment\tsys\tpredicted_rank\n", 1, "header must be"),
        ("judgment\tsystem\tpredicted_rank\n0\ta\n", 2, "expected 3 tab-separated fields"),
        ("judgment\tsystem\tpredicted_rank\n0\ta\t1\nx\tb\t2\n", 3, "judgment must be an integer"),
        ("judgment\tsystem\tpredicted_rank\n0\ta\tnan\n", 2, "must be finite"),
        ("judgment\tsystem\tpredicted_rank\n0\ta\t1\n0\ta\t2\n", 3, "duplicate prediction"),
    ],
)
def test_predicted_ranking_reader_names_file_line_and_problem(tmp_path, content, line, problem):
    path = tmp_path / "pred.tsv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=problem) as error:
        load_predicted_ranking(path)
    assert error.value.line == line
