"""The spellings of the tidy files' columns (mtsig.io.tidy_columns): every tidy reader (human ratings, segment
scores, ``mtsig rank --format tidy``) reads ``item``/``segment``, ``doc``/``document`` and ``rater``/``annotator``
alike; the files below are written by hand both ways and must read the same."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from cli_runner import run_mtsig

from mtsig.errors import InputError
from mtsig.io import segment_scores, system_scores
from mtsig.io.human.tidy import load_tidy
from mtsig.io.tidy_columns import respelt


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_respelt_renames_only_what_the_reader_lacks() -> None:
    assert respelt(["system", "item", "score"], ["segment"]) == {"item": "segment"}
    assert respelt(["system", "segment", "score"], ["item"]) == {"segment": "item"}
    assert respelt(["rater", "doc"], ["annotator", "document", "system"]) == {
        "rater": "annotator",
        "doc": "document",
    }
    assert (
        respelt(["segment", "item"], ["segment"]) == {}
    )  # the reader's own spelling wins; item stays a column
    assert respelt(["system", "score"], ["segment", "wave"]) == {}


def test_tidy_ratings_read_rater_and_item(tmp_path: Path) -> None:
    rows = ["a\tS1\t0\tsystem\tadequacy\t50", "b\tS2\t1\tsystem\tadequacy\t12.5"]
    own = _write(tmp_path / "own.tsv", ["annotator\tsystem\tsegment\titem_type\tcriterion\traw_score", *rows])
    other = _write(tmp_path / "other.tsv", ["rater\tsystem\titem\titem_type\tcriterion\traw_score", *rows])
    table = load_tidy(other, n_segments=2, systems=["S1", "S2"]).table
    assert table["annotator"].tolist() == ["a", "b"] and table["segment"].tolist() == [0, 1]
    pd.testing.assert_frame_equal(table, load_tidy(own, n_segments=2, systems=["S1", "S2"]).table)
    both = _write(
        tmp_path / "both.tsv", ["annotator\tsystem\tsegment\titem\titem_type\tcriterion\traw_score"]
    )
    both.write_text(both.read_text() + "a\tS1\t0\tx7\tsystem\tadequacy\t50\n", encoding="utf-8")
    kept = load_tidy(both).table
    assert kept["segment"].tolist() == [0] and kept["item"].tolist() == ["x7"]  # an extra column, kept


def test_tidy_segment_scores_read_item_and_doc(tmp_path: Path) -> None:
    rows = ["A\t0\t0.5\td1", "A\t1\t0.25\td1", "B\t0\t0.75\td1", "B\t1\t1.0\td1"]
    own = _write(tmp_path / "own.tsv", ["system\tsegment\tscore\tdocument", *rows])
    other = _write(tmp_path / "other.tsv", ["system\titem\tscore\tdoc", *rows])
    assert segment_scores.detect_format(other) == "tidy"
    assert system_scores.detect_format(other) == "tidy_seg_score"
    read = segment_scores.read_tidy_segment_scores(other, n_segments=2)
    assert read["score"].tolist() == [0.5, 0.25, 0.75, 1.0] and set(read["document"]) == {"d1"}
    pd.testing.assert_frame_equal(
        read.drop(columns="line"),
        segment_scores.read_tidy_segment_scores(own, n_segments=2).drop(columns="line"),
    )
    twice = _write(tmp_path / "twice.tsv", ["system\tsegment\titem\tscore", "A\t0\t0\t0.5"])
    with pytest.raises(InputError, match=r"twice.tsv:1: unknown column\(s\) 'item'"):
        segment_scores.read_tidy_segment_scores(twice)


def test_rank_command_reads_segment_annotator_and_document(tmp_path: Path) -> None:
    rows = [
        f"{s}\t{i}\tr{i % 3}\t{50 + i + (5 if s == 'a' else 0)}\td{i // 5}" for s in "ab" for i in range(20)
    ]
    own = _write(tmp_path / "own.tsv", ["system\titem\trater\tscore\tdoc", *rows])
    other = _write(tmp_path / "other.tsv", ["system\tsegment\tannotator\tscore\tdocument", *rows])
    results = []
    for path in (own, other):
        done = run_mtsig("rank", path, "--format", "tidy", "--procedure", "wilcoxon_z", "--json")
        assert done.returncode == 0, done.stderr
        results.append({key: value for key, value in json.loads(done.stdout).items() if key != "data"})
    assert results[0] == results[1]
    assert [row["system"] for row in results[0]["ranking"]] == ["a", "b"]
