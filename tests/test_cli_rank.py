"""``mtsig rank``: the WMT24 ranking printed for one of the released files, its JSON and LaTeX, and the issue's bad
input (a rating outside 0-100, a rater with only QC items, a system with no paired items, a domain with one item,
all-equal scores) as one line or a documented note, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from cli_runner import run_mtsig

WAVE2 = "wmt24-esa/humeval/esa_generalMT2024_wave2.csv"


def test_rank_wmt24_en_hi(data_root: Path) -> None:
    # Oracle: tests/oracles/wmt24_esa_ranking.tsv would be waves 2+3; en-hi is only in wave 2, so it is that ranking.
    oracle = pd.read_csv(Path(__file__).parent / "oracles" / "wmt24_esa_ranking.tsv", sep="\t", comment="#")
    oracle = oracle.loc[oracle["lp"] == "en-hi"]
    done = run_mtsig(
        "rank", data_root / WAVE2, "--documents", data_root / "wmt24-esa/documents", "--lp", "en-hi"
    )
    assert done.returncode == 0, done.stderr
    assert (
        "mtsig:" in done.stdout and "procedure:wmt24|sided:two|scores:raw|samples:0|alpha:0.05" in done.stdout
    )
    as_json = run_mtsig(
        "rank", data_root / WAVE2, "--documents", data_root / "wmt24-esa/documents", "--lp", "en-hi", "--json"
    )
    document = json.loads(as_json.stdout)
    ranking = pd.DataFrame(document["ranking"])
    assert list(ranking["system"]) == list(oracle["system"])
    assert list(ranking["top_rank"]) == list(oracle["top_rank"]) and list(ranking["cluster"]) == list(
        oracle["cluster"]
    )
    assert len(document["pvalues"]) == 55 and document["notes"] == []
    latex = run_mtsig("rank", data_root / WAVE2, "--lp", "en-hi", "--procedure", "wmt25", "--latex")
    assert latex.stdout.startswith("\\begin{tabular}") and "% mtsig:" in latex.stdout


def _export(folder: Path, rows: list[str]) -> Path:
    path = folder / "wave.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def _row(rater: str, system: str, seg: int, score: object, kind: str = "TGT", doc: str = "d1") -> str:
    return f"{rater},{system},{seg},{kind},eng,ces,{score},{doc},False,[],1,2"


def test_rating_outside_0_100_is_one_line(tmp_path: Path) -> None:
    path = _export(tmp_path, [_row("r1", "a", 1, 50), _row("r1", "b", 1, 101)])
    done = run_mtsig("rank", path)
    assert (
        done.returncode == 2 and done.stderr.strip() == f"mtsig: error: {path}:2: score 101 is outside 0-100"
    )


def test_a_rater_with_only_qc_items_is_left_out(tmp_path: Path) -> None:
    rows = [_row("r1", s, i, 50 + i + (5 if s == "a" else 0)) for s in "ab" for i in range(1, 30)]
    rows.append(_row("r2", "a", 1, 10, "BAD", "d1#bad"))
    done = run_mtsig("rank", _export(tmp_path, rows), "--json")
    assert done.returncode == 0, done.stderr
    assert [r["system"] for r in json.loads(done.stdout)["ranking"]] == ["a", "b"]


def test_no_paired_items_one_item_domain_and_equal_scores_are_notes(tmp_path: Path) -> None:
    tidy = tmp_path / "scores.tsv"
    lines = ["system\titem\tscore\tdomain"]
    lines += [f"a\t{i}\t70\tnews" for i in range(20)] + [f"b\t{i}\t70\tnews" for i in range(20)]
    lines += ["c\t100\t50\tspeech"]  # c shares no item with a or b; speech has one item
    tidy.write_text("\n".join(lines) + "\n")
    done = run_mtsig("rank", tidy, "--format", "tidy")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "2 pair(s) share no rated item (a/c, b/c)" in done.stdout
    assert "1 pair(s) score equal on every shared item (a/b)" in done.stdout
    assert "domain(s) with a single item: speech" in done.stdout
    assert "ordered pair(s) have no p-value (NaN)" in done.stdout


def test_unknown_procedure_and_bad_tidy_file(tmp_path: Path) -> None:
    tidy = tmp_path / "scores.tsv"
    tidy.write_text("system\titem\tscore\na\t1\tgood\n")
    done = run_mtsig("rank", tidy, "--format", "tidy")
    assert done.returncode == 2 and "score 'good' is not a number" in done.stderr
    assert run_mtsig("rank", tidy, "--procedure", "wmt23").returncode == 2


def test_the_document_level_test_needs_documents_and_enough_of_them(tmp_path: Path) -> None:
    """a is 5 points above b on all 20 items: the item-level stratified test declares it (p about 2 / 2^20), but
    with 4 documents the document-level test's exact p is at least 2 / 2^4 = 0.125 > 0.05: a note, no decision.
    Without a doc column it refuses in one line."""
    tidy = tmp_path / "scores.tsv"
    rows = [f"{s}\t{i}\t{50 + i + (5 if s == 'a' else 0)}\td{i // 5}" for s in "ab" for i in range(20)]
    tidy.write_text("\n".join(["system\titem\tscore\tdoc", *rows]) + "\n")
    done = run_mtsig(
        "rank", tidy, "--format", "tidy", "--procedure", "stratified_permutation_documents", "--json"
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert [p["decision"] for p in document["pvalues"]] == ["none"]
    assert document["pvalues"][0]["p"] >= 0.1
    assert any("only 4 document(s)" in note and "0.125" in note for note in document["notes"])
    items = json.loads(
        run_mtsig("rank", tidy, "--format", "tidy", "--procedure", "stratified_permutation", "--json").stdout
    )
    assert [p["decision"] for p in items["pvalues"]] == ["system1"]
    tidy.write_text("\n".join(["system\titem\tscore", *(r.rsplit("\t", 1)[0] for r in rows)]) + "\n")
    done = run_mtsig("rank", tidy, "--format", "tidy", "--procedure", "stratified_permutation_documents")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "needs each item's document (a doc column); the ratings have none" in done.stderr


def test_an_infinite_score_or_an_empty_label_is_one_line_with_file_and_line(tmp_path: Path) -> None:
    """``inf`` parses as a number but is not a score; an empty domain cell would be a NaN among the domain names:
    each is the CLI's one-line error naming file and line, no traceback."""
    tidy = tmp_path / "scores.tsv"
    tidy.write_text("system\titem\tscore\tdomain\na\t1\t50\tnews\nb\t1\tinf\tnews\n")
    done = run_mtsig("rank", tidy, "--format", "tidy")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip() == f"mtsig: error: {tidy}:3: score inf is not finite"
    tidy.write_text("system\titem\tscore\tdomain\na\t1\t50\tnews\nb\t1\t60\t\n")
    done = run_mtsig("rank", tidy, "--format", "tidy")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip() == f"mtsig: error: {tidy}:3: empty domain cell"
    tidy.write_text("system\titem\n")
    done = run_mtsig("rank", tidy, "--format", "tidy")
    assert "no column 'score' in the header (system, item, score[, domain, rater, wave, doc])" in done.stderr
