"""MQM annotations (mtsig.io.mqm): the scores equal Google's published ``avg_seg_scores`` for every annotated
(system, segment) of both TED language pairs; texts, documents and segment order; weights by hand; bad rows
name file:line."""

from __future__ import annotations

import re
from contextlib import AbstractContextManager
from pathlib import Path

import numpy as np
import pytest

from mtsig.errors import InputError
from mtsig.io.mqm import DEFAULT_MQM_WEIGHTS, error_weight, rater_means, read_mqm, strip_span_tags

# (folder, annotation file, published file, annotated pairs, published rows, systems incl. ref, test-set lines)
PAIRS = {
    "en-de": ("mqm_ted_ende.tsv", "mqm_ted_ende.avg_seg_scores.tsv", 7406, 8484, 14, 606),
    "zh-en": ("mqm_ted_zhen.tsv", "mqm_ted_zhen.avg_seg_scores.tsv", 7935, 12645, 15, 843),
}
# The human translations are "ref"/"refB" in the annotations but "ref-A"/"ref-B" in avg_seg_scores (README).
PUBLISHED_NAME = {"ref": "ref-A", "refB": "ref-B"}


def published(path: Path) -> dict[tuple[str, int], str]:
    """Oracle: (system, seg_id) -> the published score string; header space-separated, rows
    ``system<TAB>score<SPACE>seg_id`` (README), split by hand."""
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "system mqm_avg_score seg_id"
    table = {}
    for line in lines[1:]:
        system, rest = line.split("\t")
        score, seg_id = rest.split(" ")
        table[(system, int(seg_id))] = score
    return table


@pytest.mark.parametrize("lp", list(PAIRS))
def test_scores_equal_the_published_averages(data_root: Path, lp: str) -> None:
    annotations_file, published_file, n_annotated, n_published, n_systems, n_lines = PAIRS[lp]
    mqm = read_mqm(data_root / "mqm-ted" / lp / annotations_file)
    oracle = published(data_root / "mqm-ted" / lp / published_file)
    assert len(oracle) == n_published == n_systems * n_lines
    annotated = {key: value for key, value in oracle.items() if value != "None"}
    assert len(annotated) == n_annotated

    scores = mqm.scores
    assert len(scores) == n_annotated  # one rater per (system, segment)
    assert scores.groupby(["system", "segment"])["rater"].nunique().eq(1).all()
    ours = {
        (PUBLISHED_NAME.get(s, s), int(i)): v for s, i, v in scores[["system", "seg_id", "score"]].to_numpy()
    }
    assert ours.keys() == annotated.keys()
    for key, value in annotated.items():
        assert ours[key] == float(value), key  # exact: the double nearest the decimal weight sum
        assert f"{ours[key]:f}" == value.replace("-0.000000", "0.000000"), key
    # Every system has every annotated segment: 529 of the test set's lines.
    assert scores.groupby("system").size().eq(529).all() and scores["system"].nunique() == n_systems
    np.testing.assert_array_equal(rater_means(scores)["score"], scores["score"])


@pytest.mark.parametrize("lp", list(PAIRS))
def test_texts_documents_and_segment_order(data_root: Path, lp: str) -> None:
    annotations_file, *_ = PAIRS[lp]
    path = data_root / "mqm-ted" / lp / annotations_file
    mqm = read_mqm(path)
    segments = mqm.segments
    assert segments["segment"].tolist() == list(range(529))
    assert segments["seg_id"].is_monotonic_increasing and segments["seg_id"].is_unique
    assert segments["document"].nunique() == 5
    # Documents are contiguous in seg_id order, and doc_id counts the segments of a document from 1.
    blocks = segments["document"].ne(segments["document"].shift()).sum()
    assert blocks == 5
    first_of_document = segments.groupby("document")["seg_id"].transform("min")
    assert (segments["doc_segment"] == segments["seg_id"] - first_of_document + 1).all()
    assert len(mqm.documents) == 529

    # ref is the reference and not a system; zh-en's refB (a second human translation) stays a system.
    assert "ref" not in mqm.systems and mqm.reference_system == "ref"
    assert ("refB" in mqm.systems) == (lp == "zh-en")
    outputs = mqm.system_outputs()
    references = mqm.references()
    assert len(references) == 529 and all(len(texts) == 529 for texts in outputs.values())
    every_text = [*references, *mqm.sources, *(t for texts in outputs.values() for t in texts)]
    assert not any("<v>" in t or "</v>" in t for t in every_text)

    # Oracle for the texts: the first row of each (system, seg_id) in the file, tags removed by a plain replace.
    first_rows: dict[tuple[str, int], tuple[str, str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        fields = line.split("\t")
        key = (fields[0], int(fields[3]))
        first_rows.setdefault(key, (fields[5], fields[6]))
    untag = {k: tuple(t.replace("<v>", "").replace("</v>", "") for t in v) for k, v in first_rows.items()}
    seg_ids = segments["seg_id"].tolist()
    for name, texts in {**outputs, "ref": references}.items():
        assert texts == [untag[(name, s)][1] for s in seg_ids], name
    assert mqm.sources == [untag[("ref", s)][0] for s in seg_ids]


def test_weights_most_specific_prefix_by_hand() -> None:
    weights = DEFAULT_MQM_WEIGHTS
    assert error_weight("Major", "Accuracy/Mistranslation", weights) == 5
    assert error_weight("Minor", "Fluency/Punctuation", weights) == 0.1
    assert error_weight("Minor", "Fluency/Spelling", weights) == 1
    assert error_weight("Major", "Fluency/Punctuation", weights) == 5
    assert error_weight("Major", "Non-translation!", weights) == 25
    assert error_weight("Major", "Non-translation", weights) == 25
    assert error_weight("Neutral", "Style/Awkward", weights) == 0
    assert error_weight("No-error", "No-error", weights) == 0
    assert error_weight("Critical", "Accuracy", weights) is None
    assert strip_span_tags("a <v>b</v> c") == "a b c"


HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"


def row(
    system: str, seg: int, rater: str, target: str, category: str, severity: str, source: str = "s"
) -> str:
    doc, doc_id = ("d1", seg) if seg <= 2 else ("d2", seg - 2)
    return f"{system}\t{doc}\t{doc_id}\t{seg}\t{rater}\t{source}{seg}\t{target}\t{category}\t{severity}\n"


def small_file(tmp_path: Path, extra: str = "") -> Path:
    text = HEADER + "".join(
        [
            row("ref", 1, "r1", "R1", "No-error", "No-error"),
            row("ref", 2, "r1", "R2", "No-error", "No-error"),
            row("ref", 3, "r1", "R3", "No-error", "No-error"),
            row("A", 1, "r1", "<v>a</v> one.", "Accuracy/Mistranslation", "Major"),
            row("A", 1, "r1", "a one<v>.</v>", "Fluency/Punctuation", "Minor"),
            row("A", 1, "r2", "a<v> one</v>.", "Style/Awkward", "Minor"),
            row("A", 2, "r1", "a two", "No-error", "No-error"),
            row("A", 3, "r1", "<v>a three</v>", "Non-translation!", "Major"),
            row("A", 3, "r1", "a three", "Accuracy/Omission", "Minor", source="<v>s</v>"),
        ]
    )
    path = tmp_path / "mqm.tsv"
    path.write_text(text + extra, encoding="utf-8")
    return path


def test_small_file_by_hand(tmp_path: Path) -> None:
    mqm = read_mqm(small_file(tmp_path))
    got = mqm.scores.set_index(["system", "seg_id", "rater"])["score"].to_dict()
    assert got == {
        ("A", 1, "r1"): -5.1,
        ("A", 1, "r2"): -1.0,
        ("A", 2, "r1"): 0.0,
        ("A", 3, "r1"): -26.0,
        ("ref", 1, "r1"): 0.0,
        ("ref", 2, "r1"): 0.0,
        ("ref", 3, "r1"): 0.0,
    }
    means = rater_means(mqm.scores).set_index(["system", "seg_id"])
    assert means.loc[("A", 1), "score"] == pytest.approx(-3.05) and means.loc[("A", 1), "n_raters"] == 2
    assert mqm.system_outputs() == {"A": ["a one.", "a two", "a three"]}
    assert mqm.references() == ["R1", "R2", "R3"] and mqm.sources == ["s1", "s2", "s3"]
    assert mqm.documents.tolist() == ["d1", "d1", "d2"]
    # A configurable mapping: Minor 2, except Minor Accuracy errors 3 (the more specific key wins).
    custom = {"Major": 5, "Minor": 2, "Major/Non-translation!": 25, "Minor/Accuracy": 3}  # No-error: 0
    got = read_mqm(small_file(tmp_path), weights=custom).scores.set_index(["system", "seg_id", "rater"])[
        "score"
    ]
    assert got[("A", 1, "r1")] == -7.0 and got[("A", 1, "r2")] == -2.0 and got[("A", 3, "r1")] == -28.0


def raises_at(path: Path, line: int | None, problem: str) -> AbstractContextManager:
    where = f"{path}:{line}: " if line is not None else f"{path}: "
    return pytest.raises(InputError, match=re.escape(where) + problem)


@pytest.mark.parametrize(
    ("extra", "line", "problem"),
    [
        (
            row("A", 2, "r1", "a TWO", "No-error", "No-error"),
            12,
            "target \\(span tags removed\\) differs from line 8 \\(system 'A', seg_id 2\\)",
        ),
        (row("A", 2, "r1", "a two", "Style/Awkward", "Critical"), 12, "severity 'Critical' .* has no weight"),
        (
            row("A", 2, "r1", "a two", "Style/Awkward", "Minor"),
            8,
            "a No-error row for a .* that also has error rows",
        ),
        (
            row("B", 2, "r1", "b", "No-error", "No-error", source="x"),
            12,
            "source \\(span tags removed\\) differs",
        ),
        ("B\td9\t2\t2\tr1\ts2\tb\tNo-error\tNo-error\n", 12, "doc differs from line 3 \\(seg_id 2\\)"),
        ("B\td1\t7\t2\tr1\ts2\tb\tNo-error\tNo-error\n", 12, "doc_id \\(position in the document\\) differs"),
        ("B\td1\t2\ttwo\tr1\ts2\tb\tNo-error\tNo-error\n", 12, "seg_id 'two' is not a non-negative integer"),
        ("B\td1\t2\t2\tr1\ts2\tb\tNo-error\n", 12, "8 fields, the header has 9"),
        ("B\td1\t2\t2\t\ts2\tb\tNo-error\tNo-error\n", 12, "empty rater"),
    ],
)
def test_errors_name_the_line(tmp_path: Path, extra: str, line: int, problem: str) -> None:
    path = small_file(tmp_path, "\n" + extra)  # a blank line first: line numbers stay physical
    with raises_at(path, line, problem):
        read_mqm(path)


def test_bad_weights(tmp_path: Path) -> None:
    with raises_at(small_file(tmp_path), None, "MQM weight 'Minor' must be a finite number, got nan"):
        read_mqm(small_file(tmp_path), weights={**DEFAULT_MQM_WEIGHTS, "Minor": float("nan")})
    with raises_at(
        small_file(tmp_path), 5, "severity 'Major' \\(category 'Accuracy/Mistranslation'\\) has no weight"
    ):
        read_mqm(small_file(tmp_path), weights={"Minor": 1})


def test_header_reference_and_missing_outputs(tmp_path: Path) -> None:
    path = tmp_path / "bad.tsv"
    path.write_text(HEADER.replace("rater", "annotator") + row("A", 1, "r", "a", "No-error", "No-error"))
    with raises_at(path, 1, "missing column\\(s\\) rater"):
        read_mqm(path)
    with raises_at(small_file(tmp_path), None, "no reference system 'human'"):
        read_mqm(small_file(tmp_path), reference_system="human")
    mqm = read_mqm(small_file(tmp_path, row("B", 2, "r1", "b", "No-error", "No-error")))
    with raises_at(
        mqm.path, 11, "system 'B' \\(first row here\\) has no output for seg_id 1 \\(segment 0\\)"
    ):
        mqm.system_outputs()
    assert mqm.system_outputs(["A"]) == {"A": ["a one.", "a two", "a three"]}


# System-level MQM (mean over segments of the weight sum) as printed, to two or three decimals, in the TED tables
# of the README of google/wmt-mqm-human-evaluation; "ref.A"/"ref.B" there are "ref"/"refB" here.
README_SYSTEM_MQM = {
    "en-de": {
        "ref": 0.91, "Facebook-AI": 1.06, "Online-W": 1.12, "VolcTrans-AT": 1.24, "metricsystem3": 1.44,
        "VolcTrans-GLAT": 1.49, "HuaweiTSC": 1.50, "metricsystem1": 1.63, "metricsystem2": 1.69,
        "metricsystem5": 1.72, "UEdin": 1.77, "metricsystem4": 1.78, "eTranslation": 1.96, "Nemo": 2.14,
    },
    "zh-en": {
        "refB": 0.42, "DIDI-NLP": 1.65, "metricsystem2": 1.76, "metricsystem1": 1.90, "MiSS": 1.97, "IIE-MT": 1.98,
        "metricsystem4": 2.05, "metricsystem5": 2.15, "SMU": 2.202, "Borderline": 2.40, "NiuTrans": 2.49,
        "Facebook-AI": 2.64, "Online-W": 2.93, "metricsystem3": 2.99, "ref": 5.52,
    },
}  # fmt: skip


@pytest.mark.parametrize("lp", list(PAIRS))
def test_system_means_match_the_publishers_readme(data_root: Path, lp: str) -> None:
    mqm = read_mqm(data_root / "mqm-ted" / lp / PAIRS[lp][0])
    ours = -mqm.scores.groupby("system")["score"].mean()
    printed = README_SYSTEM_MQM[lp]
    assert list(ours.sort_values().index) == list(printed)  # the same ranking, best first
    # Within 0.01: two values are printed truncated rather than rounded (eTranslation 1.9688 as 1.96, Borderline
    # 2.4053 as 2.40).
    for system, value in printed.items():
        assert abs(ours[system] - value) <= 0.01, system
