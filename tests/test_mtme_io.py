"""Reading a test set in mt-metrics-eval's layout (mtsig.io.mtme): a small layout written here, its malformed copies
(each error names the file and, where there is one, the line), and the real WMT23 folder against the counts its
README.txt states and rows read by hand from its files."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from mtsig.errors import InputError
from mtsig.io.mtme import (
    metric_files_in,
    parse_metric_name,
    read_human_scores,
    read_metric_scores,
    read_mtme_docs,
    read_test_set,
)

LP = "xx-yy"


def write_layout(root: Path) -> Path:
    """A test set of 3 segments (2 documents, 2 domains), systems A, B and the human translation refB."""
    ts = root / "toy"
    files = {
        f"sources/{LP}.txt": "s1\ns2\n\n",  # the third segment is empty: still a line
        f"references/{LP}.refA.txt": "r1\nr2\nr3\n",
        f"references/{LP}.refB.txt": "q1\nq2\nq3\n",
        f"system-outputs/{LP}/A.txt": "a1\na2\na3\n",
        f"system-outputs/{LP}/B.txt": "b1\nb2\nb3\n",
        f"system-outputs/{LP}/refB.txt": "q1\nq2\nq3\n",
        f"documents/{LP}.docs": "news\td1\nnews\td1\nsocial\td2\n",
        f"human-scores/{LP}.mqm.sys.score": "A\t-1.5\nB\t-2\nrefB\tNone\n",
        f"human-scores/{LP}.mqm.seg.score": "A -1\nA None\nA -3\nB 0\nB None\nB -4\n",
        f"human-scores/{LP}.mqm.domain.score": "news A -1\nsocial A -3\nnews B 0\n",
        f"metric-scores/{LP}/M-refA.sys.score": "A 0.5\nB 0.25\nrefB 0.75\n",
        f"metric-scores/{LP}/M-refA.seg.score": "A 1\nA 2\nA 3\nB 4\nB 5\nB 6\nrefB 7\nrefB 8\nrefB 9\n",
        f"metric-scores/{LP}/Q-src.seg.score": "A 1\nB 2\nA 3\nB 4\nA 5\nB 6\n",
    }
    for name, text in files.items():
        path = ts / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return ts


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    return write_layout(tmp_path)


def test_layout_is_read_as_its_files_say(toy):
    ts = read_test_set(toy, LP)
    assert ts.name == "toy" and ts.n_segments == 3
    assert ts.references == ("refA", "refB")
    assert ts.systems == ("A", "B", "refB") and ts.human_systems == ("refB",)
    assert ts.domains == ("news", "social") and ts.documents == ("d1", "d2")
    assert ts.golds == ("mqm",) and ts.metrics == ("M-refA", "Q-src")
    assert ts.metric_references("Q-src") == frozenset() and ts.metric_basename("M-refA") == "M"
    human = read_human_scores(ts, "mqm", "seg")
    assert human.systems == ("A", "B")
    np.testing.assert_array_equal(human.values, [[-1, np.nan, -3], [0, np.nan, -4]])
    sys_level = read_human_scores(ts, "mqm", "sys")  # a None system is left out
    assert sys_level.systems == ("A", "B") and sys_level.values[:, 0].tolist() == [-1.5, -2.0]
    domain = read_human_scores(ts, "mqm", "domain")  # B has no social score: NaN
    np.testing.assert_array_equal(domain.rows(["A", "B"]), [[-1, -3], [0, np.nan]])
    # interleaved systems: each system's n-th line is segment n-1 (mt-metrics-eval's ReadScoreFile)
    np.testing.assert_array_equal(read_metric_scores(ts, "Q-src", "seg", ["B", "A"]), [[2, 4, 6], [1, 3, 5]])
    np.testing.assert_array_equal(read_metric_scores(ts, "M-refA", "sys", ["refB", "A"]), [[0.75], [0.5]])


def test_metric_names_follow_mt_metrics_eval():
    refs = ("refA", "refB")
    assert parse_metric_name("MetricX-23-refB", refs) == ("MetricX-23", frozenset({"refB"}))
    assert parse_metric_name("XCOMET-QE-Ensemble-src", refs) == ("XCOMET-QE-Ensemble", frozenset())
    assert parse_metric_name("BLEU-refA.refB", refs) == ("BLEU", frozenset(refs))
    assert parse_metric_name("BLEU-all", refs) == ("BLEU", frozenset(refs))
    with pytest.raises(InputError, match="refC"):
        parse_metric_name("BLEU-refC", refs)
    with pytest.raises(InputError, match="NAME-REFSET"):
        parse_metric_name("BLEU", refs)


def _error(call, *args) -> str:
    with pytest.raises(InputError) as caught:
        call(*args)
    message = str(caught.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        (
            f"metric-scores/{LP}/M-refA.seg.score",
            "A 1\nA 2 extra\n",
            r"M-refA.seg.score:2: 3 fields, expected 2",
        ),
        (
            f"metric-scores/{LP}/M-refA.seg.score",
            "A 1\nA x\nA 3\n",
            r"M-refA.seg.score:2: score 'x' is not a number",
        ),
        (f"metric-scores/{LP}/M-refA.seg.score", "A 1\nA None\nA 3\n", r"M-refA.seg.score:2: score 'None'"),
        (
            f"metric-scores/{LP}/M-refA.seg.score",
            "A 1\nA 2\nA 3\nB 4\nB 5\n",
            r"M-refA.seg.score:5: system 'B' has 2 rows .* the test set has 3 segments",
        ),
        (
            f"metric-scores/{LP}/M-refA.seg.score",
            "A 1\nA 2\nA 3\n",
            r"M-refA.seg.score: no M-refA scores for system\(s\) 'B'",
        ),
        (
            f"metric-scores/{LP}/M-refA.sys.score",
            "A 1\nA 2\n",
            r"M-refA.sys.score:2: system .*'A'.* given twice",
        ),
    ],
)
def test_malformed_metric_files_name_file_and_line(toy, name, text, expected):
    (toy / name).write_text(text, encoding="utf-8")
    ts = read_test_set(toy, LP)
    level = name.split(".")[-2]
    message = _error(read_metric_scores, ts, "M-refA", level, ["A", "B"])
    assert re.search(expected, message), message


def test_malformed_human_files(toy):
    (toy / f"human-scores/{LP}.mqm.seg.score").write_text("A -1\nA -2\n", encoding="utf-8")
    ts = read_test_set(toy, LP)
    with pytest.raises(InputError, match=r"mqm.seg.score:2: system 'A' has 2 rows"):
        read_human_scores(ts, "mqm", "seg")
    (toy / f"human-scores/{LP}.mqm.domain.score").write_text("news A -1\nsports A 2\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"mqm.domain.score:2: domain 'sports' is not in documents/"):
        read_human_scores(ts, "mqm", "domain")
    with pytest.raises(InputError, match=r"no human scores 'esa' at level seg .*mqm.seg"):
        read_human_scores(ts, "esa", "seg")


def test_layout_errors_name_the_file(toy):
    (toy / f"system-outputs/{LP}/B.txt").write_text("b1\nb2\n", encoding="utf-8")
    assert "B.txt: 2 lines, but the source" in _error(read_test_set, toy, LP)
    (toy / f"system-outputs/{LP}/B.txt").write_text("b1\nb2\nb3\n", encoding="utf-8")
    (toy / f"documents/{LP}.docs").write_text("news d1\nsocial d2\nnews d1\n", encoding="utf-8")
    assert f"{LP}.docs:3: document 'd1' starts again" in _error(read_test_set, toy, LP)
    (toy / f"documents/{LP}.docs").write_text("news d1\nnews\nnews d2\n", encoding="utf-8")
    assert f"{LP}.docs:2: 1 fields, expected 2" in _error(read_test_set, toy, LP)
    (toy / f"documents/{LP}.docs").write_text("news d1\nnews d1\nnews d2\n", encoding="utf-8")
    (toy / f"metric-scores/{LP}/M-refA.segment.score").write_text("A 1\n", encoding="utf-8")
    assert "M-refA.segment.score: a metric-score file is named NAME-REFSET.LEVEL.score" in _error(
        read_test_set, toy, LP
    )
    assert "no source file for 'zz-yy'" in _error(read_test_set, toy, "zz-yy")


def test_docs_reader_returns_domain_and_document(toy):
    docs = read_mtme_docs(toy / "documents" / f"{LP}.docs")
    assert list(docs.itertuples(index=False, name=None)) == [("news", "d1"), ("news", "d1"), ("social", "d2")]


def test_a_developers_metric_folder_is_added_and_may_not_shadow(toy, tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "Mine-refA.sys.score").write_text("A 1\nB 2\n", encoding="utf-8")
    ts = read_test_set(toy, LP).with_metric_files(metric_files_in(mine))
    assert "Mine-refA" in ts.metrics
    np.testing.assert_array_equal(read_metric_scores(ts, "Mine-refA", "sys", ["B"]), [[2.0]])
    (mine / "M-refA.sys.score").write_text("A 1\nB 2\n", encoding="utf-8")
    with pytest.raises(InputError, match="M-refA.sys.score: metric 'M-refA' at level sys is already"):
        read_test_set(toy, LP).with_metric_files(metric_files_in(mine))


def test_a_developers_missing_system_scores_are_the_means_of_its_segment_scores(toy, tmp_path):
    """Hand means: D has segment scores only (A: 1, 2, 6 -> 3; B: 0, 3, 3 -> 2); P's sys file lacks B (B: 2, 4, 9 ->
    5) and keeps its own score for A (0.9, not the mean 1)."""
    from mtsig.io.mtme import system_scores_with_means

    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "D-refA.seg.score").write_text("A 1\nA 2\nA 6\nB 0\nB 3\nB 3\n", encoding="utf-8")
    (mine / "P-src.sys.score").write_text("A 0.9\n", encoding="utf-8")
    (mine / "P-src.seg.score").write_text("A 1\nA 1\nA 1\nB 2\nB 4\nB 9\n", encoding="utf-8")
    plain = read_test_set(toy, LP).with_metric_files(metric_files_in(mine))
    with pytest.raises(InputError, match="no sys-level scores of metric 'D-refA'"):
        read_metric_scores(plain, "D-refA", "sys", ["A"])
    ts = read_test_set(toy, LP).with_metric_files(metric_files_in(mine), system_means=True)
    assert ts.system_means == {"D-refA", "P-src"}
    np.testing.assert_array_equal(read_metric_scores(ts, "D-refA", "sys", ["B", "A"]), [[2.0], [3.0]])
    np.testing.assert_array_equal(read_metric_scores(ts, "P-src", "sys", ["A", "B"]), [[0.9], [5.0]])
    np.testing.assert_array_equal(read_metric_scores(ts, "D-refA", "seg", ["A"]), [[1, 2, 6]])
    assert system_scores_with_means(ts, "D-refA")[1] == ("A", "B")
    assert system_scores_with_means(ts, "P-src")[1] == ("B",)


def test_wmt23_folder_matches_its_readme(data_root):
    """README.txt of the data: en-de 557 segments, he-en 1,910, zh-en 1,976; 14, 14 and 17 output files including
    the references; references refA + synthetic_ref (he-en: refA + refB); MQM for all three, DA-SQM for en-de and
    zh-en; 71 metric variants per pair. Rows read by hand: the first line of en-de.mqm.seg.score is
    ``AIRC -1.0``, of en-de.mqm.sys.score ``AIRC -14.227826086956528``, of BLEU-refA.sys.score ``ONLINE-W
    47.81528524748817``; the first line of en-de.docs is ``news aj-english.33941``."""
    expected = {"en-de": (557, 14, ("refA", "synthetic_ref")), "he-en": (1910, 14, ("refA", "refB")),
                "zh-en": (1976, 17, ("refA", "synthetic_ref"))}  # fmt: skip
    for lp, (segments, outputs, refs) in expected.items():
        ts = read_test_set(data_root / "wmt23", lp)
        assert (ts.n_segments, len(ts.systems), ts.references) == (segments, outputs, refs)
        assert set(ts.golds) == ({"mqm"} if lp == "he-en" else {"mqm", "da-sqm"})
    de = read_test_set(data_root / "wmt23", "en-de")
    assert de.segment_domains[0] == "news" and de.segment_documents[0] == "aj-english.33941"
    assert read_human_scores(de, "mqm", "seg").rows(["AIRC"])[0, 0] == -1.0
    assert read_human_scores(de, "mqm", "sys").rows(["AIRC"])[0, 0] == -14.227826086956528
    assert read_metric_scores(de, "BLEU-refA", "sys", ["ONLINE-W"])[0, 0] == 47.81528524748817
    assert max(len(read_test_set(data_root / "wmt23", lp).metrics) for lp in expected) == 71
