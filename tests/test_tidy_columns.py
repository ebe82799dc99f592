"""The tidy layout family (mtsig.io.tidy_columns): one vocabulary for every tidy reader (segment scores, human
ratings, ``mtsig rank --format tidy``) and writer, the old spellings read as aliases everywhere, and a missing
column told with its aliases and a correct header line.

Oracles: files written by hand both ways (canonical names, aliases) must read the same; the messages are written
out here in full, by hand, from the vocabulary the docs print (docs/cli.md, "File formats")."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_runner import run_mtsig

from mtsig.errors import InputError
from mtsig.io import human, segment_scores, system_scores
from mtsig.io.human.tidy import load_tidy
from mtsig.io.tidy_columns import (
    CANONICAL,
    SPELLINGS,
    aliases,
    looks_like_header,
    missing_columns_message,
    respelt,
)
from mtsig.studies.synthetic import SyntheticSpec, generate_ratings

#: The vocabulary docs/cli.md and config/README.md print: canonical name -> aliases.
DOCUMENTED = {
    "system": (),
    "segment": ("item",),
    "document": ("doc",),
    "annotator": ("rater",),
    "domain": (),
    "wave": (),
    "score": (),
}


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_the_vocabulary_is_the_documented_one_and_each_alias_names_one_column(repo_root: Path) -> None:
    assert {name: aliases(name) for name in CANONICAL} == DOCUMENTED
    spellings = [spelling for group in SPELLINGS.values() for spelling in group]
    assert len(spellings) == len(set(spellings))  # no spelling of two columns
    assert all(group[0] == name for name, group in SPELLINGS.items())  # the canonical name first
    for page in ("docs/cli.md", "config/README.md"):
        text = (repo_root / page).read_text(encoding="utf-8")
        table = text.split("| column | aliases |", 1)[1].split("\n\n", 1)[0]
        rows = [line.split("|")[1:3] for line in table.splitlines()[2:]]
        printed = {
            name.strip(" `"): tuple(a.strip(" `") for a in alias.split(",") if a.strip(" `"))
            for name, alias in rows
        }
        assert printed == DOCUMENTED, page


def test_respelt_renames_only_what_the_reader_lacks() -> None:
    assert respelt(["system", "item", "score"], ["segment"]) == {"item": "segment"}
    assert respelt(["rater", "doc"], ["annotator", "document", "system"]) == {
        "rater": "annotator",
        "doc": "document",
    }
    assert respelt(["segment", "item"], ["segment"]) == {}  # the canonical spelling wins; item stays a column
    assert respelt(["system", "score"], ["segment", "wave"]) == {}
    # Google's MQM doc_id (a position in the document) and seg_id (1-based) are no aliases
    assert respelt(["doc_id", "seg_id"], ["document", "segment"]) == {}


# ------------------------------------------------------------------------------------- the missing-column message


SCORES = ("system", "segment", "score")


@pytest.mark.parametrize(
    ("header", "message"),
    [
        (
            ["system", "segments", "score"],
            "no column segment (or item) in the header 'system\\tsegments\\tscore': the first line names the columns "
            "system, segment (or item), score and optionally document (or doc), separated by TABs, e.g. "
            "'system\\tsegment\\tscore\\tdocument'",
        ),
        (
            ["system,segment,score"],
            "the header 'system,segment,score' is separated by commas: separate its names by TABs, e.g. "
            "'system\\tsegment\\tscore\\tdocument' (the columns: system, segment (or item), score and optionally "
            "document (or doc))",
        ),
        (
            ["System", "Item", "Score"],
            "the header 'System\\tItem\\tScore' spells a column in capitals: column names are lower case, e.g. "
            "'system\\tsegment\\tscore\\tdocument' (the columns: system, segment (or item), score and optionally "
            "document (or doc))",
        ),
        (
            ["sysA.txt", "0", "0.8214"],
            "no header: the first line, 'sysA.txt\\t0\\t0.8214', is a row; add a header line above it, e.g. "
            "'system\\tsegment\\tscore\\tdocument' (the columns: system, segment (or item), score and optionally "
            "document (or doc))",
        ),
    ],
)
def test_a_missing_column_is_named_with_its_aliases_and_a_correct_header(header: list, message: str) -> None:
    assert missing_columns_message(header, SCORES, ("document",)) == message


def test_a_complete_header_has_no_message_whichever_spelling() -> None:
    assert missing_columns_message(["score", "item", "system", "doc"], SCORES, ("document",)) is None
    assert missing_columns_message(["system", "segment", "score"], SCORES) is None


def test_what_looks_like_a_header() -> None:
    assert looks_like_header("system,segment,score") and looks_like_header("System Score")
    assert looks_like_header("sys\tdoc\titem")
    assert not looks_like_header("sysA 0.25") and not looks_like_header("what is this")


# ------------------------------------------------------------------------------- every reader, both spellings


def test_tidy_ratings_read_rater_and_item(tmp_path: Path) -> None:
    rows = ["a\tS1\t0\tsystem\tadequacy\t50", "b\tS2\t1\tsystem\tadequacy\t12.5"]
    own = _write(tmp_path / "own.tsv", ["annotator\tsystem\tsegment\titem_type\tcriterion\traw_score", *rows])
    other = _write(tmp_path / "other.tsv", ["rater\tsystem\titem\titem_type\tcriterion\traw_score", *rows])
    table = load_tidy(other, n_segments=2, systems=["S1", "S2"]).table
    assert table["annotator"].tolist() == ["a", "b"] and table["segment"].tolist() == [0, 1]
    pd.testing.assert_frame_equal(table, load_tidy(own, n_segments=2, systems=["S1", "S2"]).table)
    both = _write(
        tmp_path / "both.tsv",
        [
            "annotator\tsystem\tsegment\titem\titem_type\tcriterion\traw_score",
            "a\tS1\t0\tx7\tsystem\tadequacy\t50",
        ],
    )
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
    with pytest.raises(
        InputError,
        match=r"twice.tsv:1: unknown column\(s\) 'item' \('item' is another name of segment, which the header "
        r"also names: keep one\)",
    ):
        segment_scores.read_tidy_segment_scores(twice)


def test_a_run_sees_the_documents_of_a_tidy_scores_file_in_either_spelling(tmp_path: Path) -> None:
    """A declared metric's tidy file that names documents as ``document`` or as ``doc`` gives the experiment its
    documents (so the run keeps the document tests), also after blank lines or gzip-compressed, as its reader
    finds the header; one without that column, or an mt-metrics-eval file, does not, and a WMT ``seg.score`` file
    always does."""
    import gzip

    from mtsig.pipeline.config import scores_with_documents
    from mtsig.settings import SegmentScoresMetric

    rows = ["A\t0\t0.5\td1", "B\t0\t0.75\td1"]
    _write(tmp_path / "own.tsv", ["system\tsegment\tscore\tdocument", *rows])
    _write(tmp_path / "other.tsv", ["system\titem\tscore\tdoc", *rows])
    _write(tmp_path / "none.tsv", ["system\tsegment\tscore", "A\t0\t0.5", "B\t0\t0.75"])
    # blank lines before the header, which the reader skips
    _write(tmp_path / "late.tsv", ["", "  ", "system\tsegment\tscore\tdoc", *rows])
    (tmp_path / "packed.tsv.gz").write_bytes(gzip.compress((tmp_path / "own.tsv").read_bytes()))
    layouts = {
        "own": ("tidy", "own.tsv"),
        "other": ("tidy", "other.tsv"),
        "late": ("tidy", "late.tsv"),
        "packed": ("tidy", "packed.tsv.gz"),
        "none": ("tidy", "none.tsv"),
        "mtme": ("mtme_seg_score", "none.tsv"),
        "wmt": ("wmt_seg_score", "missing.seg.score"),
    }
    declarations = {
        name: SegmentScoresMetric(kind="segment_scores", format=layout, path=path)
        for name, (layout, path) in layouts.items()
    }
    assert scores_with_documents(declarations, tmp_path) == ["own", "other", "late", "packed", "wmt"]
    for name in ("late.tsv", "packed.tsv.gz"):  # the documents the run sees are the ones its reader reads
        read = segment_scores.read_tidy_segment_scores(tmp_path / name, n_segments=1)
        assert set(read["document"]) == {"d1"}


def test_compare_reads_a_scores_file_in_either_spelling_the_same(tmp_path: Path) -> None:
    rows = [
        f"{s}\t{i}\t{0.5 + 0.01 * i + (0.05 if s == 'A' else 0)}\td{i // 4}" for s in "AB" for i in range(12)
    ]
    results = []
    for header in ("system\tsegment\tscore\tdocument", "system\titem\tscore\tdoc"):
        path = _write(tmp_path / f"{header.split()[1]}.tsv", [header, *rows])
        done = run_mtsig("compare", "--scores", f"m={path}", "--samples", 50, "--json")
        assert done.returncode == 0, done.stderr
        metric = json.loads(done.stdout)["metrics"]["m"]
        # the signatures name the file and its hash, which differ; everything computed must not
        results.append({key: value for key, value in metric.items() if key not in ("signatures", "details")})
    assert results[0] == results[1]
    assert results[0]["scores"] == pytest.approx({"A": np.mean([0.55 + 0.01 * i for i in range(12)]),
                                                  "B": np.mean([0.5 + 0.01 * i for i in range(12)])})  # fmt: skip


def test_rank_command_reads_the_canonical_names_and_the_old_ones_alike(tmp_path: Path) -> None:
    rows = [
        f"{s}\t{i}\tr{i % 3}\t{50 + i + (5 if s == 'a' else 0)}\td{i // 5}" for s in "ab" for i in range(20)
    ]
    canonical = _write(tmp_path / "canonical.tsv", ["system\tsegment\tannotator\tscore\tdocument", *rows])
    old = _write(tmp_path / "old.tsv", ["system\titem\trater\tscore\tdoc", *rows])
    results = []
    for path in (canonical, old):
        done = run_mtsig("rank", path, "--format", "tidy", "--procedure", "wilcoxon_z", "--json")
        assert done.returncode == 0, done.stderr
        results.append({key: value for key, value in json.loads(done.stdout).items() if key != "data"})
    assert results[0] == results[1]
    assert [row["system"] for row in results[0]["ranking"]] == ["a", "b"]
    # the documents are read under either name: the document-level default runs, with 4 documents
    default = json.loads(run_mtsig("rank", canonical, "--format", "tidy", "--json").stdout)
    assert default["procedure"] == "stratified_permutation_documents"
    assert any("only 4 document(s)" in note for note in default["notes"])


# ---------------------------------------------------------------------------------------- the writers


def test_the_tidy_files_mtsig_writes_use_the_canonical_names() -> None:
    """The synthetic experiments' ratings.tsv and every human/z.tsv (the ratings table of mtsig.io.human, written
    as read) name their columns canonically: no alias among them."""
    every_alias = {alias for name in CANONICAL for alias in aliases(name)}
    spec = SyntheticSpec(systems=3, segments=10, annotators=2, random_annotators=0, ratings_per_annotator=4)
    ratings = generate_ratings(spec, np.full((3, 10), 0.5))
    assert not set(ratings.columns) & every_alias
    assert {"annotator", "system", "segment"} <= set(ratings.columns)
    assert not set(human.TIDY_COLUMNS) & every_alias
