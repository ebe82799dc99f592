"""``mtsig rank``: the WMT24 ranking printed for one of the released files, its JSON and LaTeX, and bad
input (a rating outside 0-100, a rater with only QC items, a system with no paired items, a domain with one item,
all-equal scores) as one line or a documented note, never a traceback."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_runner import run_mtsig

WAVE2 = "wmt24-esa/humeval/esa_generalMT2024_wave2.csv"


def test_rank_wmt24_en_hi(data_root: Path) -> None:
    # Oracle: tests/oracles/wmt24_esa_ranking.tsv would be waves 2+3; en-hi is only in wave 2, so it is that ranking.
    oracle = pd.read_csv(Path(__file__).parent / "oracles" / "wmt24_esa_ranking.tsv", sep="\t", comment="#")
    oracle = oracle.loc[oracle["lp"] == "en-hi"]
    arguments = ("rank", data_root / WAVE2, "--documents", data_root / "wmt24-esa/documents", "--lp", "en-hi")
    done = run_mtsig(*arguments, "--procedure", "wmt24")
    assert done.returncode == 0, done.stderr
    assert "procedure: " not in done.stdout  # chosen by the user: no line on why
    assert (
        "mtsig:" in done.stdout and "procedure:wmt24|sided:two|scores:raw|samples:0|alpha:0.05" in done.stdout
    )
    as_json = run_mtsig(*arguments, "--procedure", "wmt24", "--json")
    document = json.loads(as_json.stdout)
    ranking = pd.DataFrame(document["ranking"])
    assert list(ranking["system"]) == list(oracle["system"])
    assert list(ranking["top_rank"]) == list(oracle["top_rank"]) and list(ranking["cluster"]) == list(
        oracle["cluster"]
    )
    assert len(document["pvalues"]) == 55 and document["notes"] == []
    latex = run_mtsig("rank", data_root / WAVE2, "--lp", "en-hi", "--procedure", "wmt25", "--latex")
    assert latex.stdout.startswith("% mtsig:") and "procedure:wmt25|" in latex.stdout.splitlines()[0]
    assert r"\begin{table}" in latex.stdout and r"\toprule" in latex.stdout and r"\bottomrule" in latex.stdout


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
    done = run_mtsig("rank", tidy, "--format", "tidy", "--procedure", "wmt24")
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


def test_a_tidy_file_is_read_as_the_other_tidy_files_gzip_by_its_bytes_and_lines_as_an_editor_counts(
    tmp_path: Path,
) -> None:
    """The tidy ratings are read as every tidy file of the project (mtsig.io.segment_scores.read_data_lines): a
    gzip-compressed file is recognised by its bytes, whatever its name, and ranks as the plain one (a above b on
    every item); a blank line is skipped but counted, so a line with a field too few is named by the line an
    editor shows; an extra column is ignored, a column named twice is an error."""
    import gzip

    lines = ["system\tsegment\tscore\tnote"]
    lines += [f"{s}\t{i}\t{70 if s == 'a' else 50 + i % 3}\tx" for i in range(20) for s in "ba"]
    plain, packed = tmp_path / "plain.tsv", tmp_path / "packed.tsv"
    plain.write_text("\n".join(lines) + "\n")
    packed.write_bytes(gzip.compress(plain.read_bytes(), mtime=0))
    ranked = [
        run_mtsig("rank", f, "--format", "tidy", "--procedure", "wmt24", "--json") for f in (plain, packed)
    ]
    assert all(done.returncode == 0 for done in ranked), ranked[1].stderr
    first, second = (json.loads(done.stdout)["ranking"] for done in ranked)
    assert [r["system"] for r in first] == ["a", "b"] and first == second
    plain.write_text("\n".join([*lines[:3], "", "c\t1\t60"]) + "\n")
    done = run_mtsig("rank", plain, "--format", "tidy")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip() == (
        f"mtsig: error: {plain}:5: 3 fields, expected 4 (the header's columns, TAB-separated)"
    )
    plain.write_text("\n".join(["system\tsegment\tscore\tscore", "a\t1\t50\t50"]) + "\n")
    done = run_mtsig("rank", plain, "--format", "tidy")
    assert done.stderr.strip() == f"mtsig: error: {plain}:1: the header names column(s) score twice"
    plain.write_text("\n\nsystem\tsegment\tscore\n\n")
    done = run_mtsig("rank", plain, "--format", "tidy")
    assert done.stderr.strip() == f"mtsig: error: {plain}:3: no rows after the header"


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
    assert done.stderr.strip() == (
        f"mtsig: error: {tidy}:1: no column score in the header 'system\\titem': the first line names the columns "
        "system, segment (or item), score and optionally document (or doc), annotator (or rater), domain, wave, "
        "separated by TABs, e.g. 'system\\tsegment\\tscore\\tdocument\\tannotator\\tdomain\\twave'"
    )


def test_a_tidy_header_gone_wrong_and_a_segment_in_two_documents_are_told_their_fix(tmp_path: Path) -> None:
    """A comma-separated header, a first line that is a row, and a segment given two documents: each one line naming
    file and line (blank lines counted) and what to do."""
    tidy = tmp_path / "scores.tsv"
    tidy.write_text("system,segment,score\na,1,50\n")
    done = run_mtsig("rank", tidy, "--format", "tidy")
    assert done.returncode == 2 and done.stderr.startswith(
        f"mtsig: error: {tidy}:1: the header 'system,segment,score' is separated by commas: separate its names by "
        "TABs, e.g. 'system\\tsegment\\tscore\\tdocument\\tannotator\\tdomain\\twave'"
    )
    tidy.write_text("a\t1\t50\nb\t1\t60\n")
    done = run_mtsig("rank", tidy, "--format", "tidy")
    assert (
        done.returncode == 2 and f"{tidy}:1: no header: the first line, 'a\\t1\\t50', is a row" in done.stderr
    )
    tidy.write_text("system\tsegment\tscore\tdocument\na\t1\t50\td1\n\nb\t2\t55\td1\nb\t1\t60\td2\n")
    done = run_mtsig("rank", tidy, "--format", "tidy")
    assert done.returncode == 2 and done.stderr.strip() == (
        f"mtsig: error: {tidy}:5: segment '1' is in document 'd2' here and in 'd1' on an earlier line: a segment has "
        "one document"
    )


def _severity_shared_within_documents(path: Path) -> Path:
    """Two systems, ten documents of five items; each (system, document) scored by its own rater, whose severity
    every item of the document shares: seven documents favour a by 4 points, three favour b by 3."""
    rng = np.random.default_rng(0)
    rows = ["system\titem\tscore\tdoc\trater"]
    for document, effect in enumerate([4.0] * 7 + [-3.0] * 3):
        for item in range(5):
            base, noise = rng.normal(50, 5), rng.normal(0, 0.5)
            rows.append(f"a\t{document}-{item}\t{base + effect / 2 + noise:.3f}\td{document}\tr{document}a")
            rows.append(f"b\t{document}-{item}\t{base - effect / 2:.3f}\td{document}\tr{document}b")
    path.write_text("\n".join(rows) + "\n")
    return path


def _exact_document_p(path: Path) -> float:
    """The oracle: the two-sided p of the item-mean difference when whole documents' signs are exchangeable, by
    enumerating all 2^10 sign patterns of the documents' summed differences (one domain: the macro average is the
    item mean)."""
    table = pd.read_csv(path, sep="\t")
    wide = table.pivot(index="item", columns="system", values="score")
    documents = table.drop_duplicates("item").set_index("item").loc[wide.index, "doc"]
    sums = (wide["a"] - wide["b"]).groupby(documents.to_numpy()).sum().to_numpy()
    signs = np.array(list(itertools.product([1.0, -1.0], repeat=len(sums))))
    return float(np.mean(np.abs(signs @ sums) >= abs(sums.sum()) - 1e-9))


def test_the_default_procedure_holds_its_level_when_documents_share_a_rater(tmp_path: Path) -> None:
    """A rater's severity shared within documents. WMT24's procedure treats items as independent
    and calls the pair different; the default, stratified_permutation_documents, says why it is the default in one
    line and gives the exact document-level p (within Monte Carlo error of 10,000 sign draws: sd 0.003)."""
    tidy = _severity_shared_within_documents(tmp_path / "scores.tsv")
    exact = _exact_document_p(tidy)
    assert exact > 0.05  # the design: whole documents do not show a difference
    done = run_mtsig("rank", tidy, "--format", "tidy")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].endswith("stratified_permutation_documents")
    assert lines[1].startswith(
        "procedure: stratified_permutation_documents (the default): the one procedure that"
    )
    document = json.loads(run_mtsig("rank", tidy, "--format", "tidy", "--json").stdout)
    assert document["procedure"] == "stratified_permutation_documents"
    assert "holds its level" in document["procedure_reason"]
    (pair,) = document["pvalues"]
    assert abs(pair["p"] - exact) < 0.015 and pair["decision"] == "none"
    wmt24 = json.loads(run_mtsig("rank", tidy, "--format", "tidy", "--procedure", "wmt24", "--json").stdout)
    assert wmt24["pvalues"][0]["p"] < 0.05 and wmt24["pvalues"][0]["decision"] == "system1"
    assert wmt24["procedure_reason"] is None


def test_without_documents_the_default_is_the_item_level_test_and_says_so(tmp_path: Path) -> None:
    """No doc column: stratified_permutation, with the line that says what it assumes and how to do better. a is 5
    points above b on all 20 items: every one of the 2^20 sign patterns but two gives a smaller |T|, so the Monte
    Carlo p is 1/10001, below the resolution of 10,000 draws: printed as <0.0001, never 0.0000."""
    tidy = tmp_path / "scores.tsv"
    rows = [f"{s}\t{i}\t{50 + i + (5 if s == 'a' else 0)}" for s in "ab" for i in range(20)]
    tidy.write_text("\n".join(["system\titem\tscore", *rows]) + "\n")
    done = run_mtsig("rank", tidy, "--format", "tidy")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1].startswith(
        "procedure: stratified_permutation (the default without documents): it holds its level only if items are "
        "independent"
    )
    pair = next(line.split() for line in done.stdout.splitlines() if line.split()[:2] == ["a", "b"])
    assert pair[2:] == ["<0.0001", "1.0000", "system1"]
    assert "0.0000" not in done.stdout.replace("1.0000", "")


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--alpha", "1.5"], "argument --alpha: must lie strictly between 0 and 1, got 1.5"),
        (["--alpha", "0"], "argument --alpha: must be a positive number, got 0"),
        (["--resamples", "-5"], "argument --resamples: must be a positive integer, got -5"),
        (["--resamples", "0"], "argument --resamples: must be a positive integer, got 0"),
        (["--resamples", "many"], "argument --resamples: must be a positive integer, got 'many'"),
        (["--seed", "-1"], "argument --seed: must be a non-negative integer, got -1"),
        (["--first-segment-id", "-2"], "argument --first-segment-id: must be a non-negative integer, got -2"),
        (
            ["--procedure", "wmt23"],
            "argument --procedure: unknown procedure 'wmt23'; known: wmt24, wmt24_scipy114, wmt25",
        ),
        (["--format", "csv"], "argument --format: invalid choice: 'csv'"),
        (["--documents", "no-such-folder"], "no-such-folder: no such folder (--documents"),
        (["--json", "--latex"], "argument --latex: not allowed with argument --json"),
    ],
)
def test_every_bad_option_is_one_line_exit_2(tmp_path: Path, option: list[str], message: str) -> None:
    tidy = tmp_path / "scores.tsv"
    tidy.write_text("system\titem\tscore\na\t1\t50\nb\t1\t60\n")
    done = run_mtsig("rank", tidy, "--format", "tidy", *option, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == "", done.stdout
    assert len(done.stderr.splitlines()) == 1 and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_missing_ratings_file_and_two_tidy_files_are_one_line(tmp_path: Path) -> None:
    done = run_mtsig("rank", tmp_path / "none.tsv", "--format", "tidy")
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and "none.tsv" in done.stderr
    done = run_mtsig("rank", tmp_path / "a.tsv", tmp_path / "b.tsv", "--format", "tidy")
    assert done.returncode == 2 and "--format tidy reads one file, got 2" in done.stderr


def test_latex_is_compare_style_booktabs_with_clusters_and_labels(tmp_path: Path) -> None:
    """``--latex`` is the ranked table of ``mtsig compare --latex --clusters``: booktabs rules, a rule between
    clusters, names escaped, the signature and the reason for the default procedure as comments, a caption."""
    tidy = tmp_path / "scores.tsv"
    names = ("sys_a", "sys_b", "sys_c")
    rows = [f"{s}\t{i}\t{50 + (i % 7) + (10 if s == 'sys_a' else 0)}" for s in names for i in range(30)]
    mean = 50 + np.mean([i % 7 for i in range(30)])  # one domain: the macro average is the item mean
    tidy.write_text("\n".join(["system\titem\tscore", *rows]) + "\n")
    done = run_mtsig("rank", tidy, "--format", "tidy", "--latex")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("% mtsig:0.1.0|procedure:stratified_permutation|")
    assert lines[1].startswith("% procedure: stratified_permutation (the default without documents)")
    assert lines[2] == "% requires \\usepackage{booktabs}"
    body = lines[lines.index(r"\midrule") + 1 : lines.index(r"\bottomrule")]
    # sys_a is 10 points above the others on every item: a cluster of its own, then sys_b and sys_c tied.
    assert body[0] == rf"1 & sys\_a & {mean + 10:.1f} \\" and body[1] == r"\midrule"
    assert sorted(body[2:]) == [rf"2--3 & sys\_b & {mean:.1f} \\", rf"2--3 & sys\_c & {mean:.1f} \\"]
    assert any(
        line.startswith(r"\caption{scores.tsv: systems ranked by stratified\_permutation") for line in lines
    )


def test_the_procedure_names_of_the_parser_are_the_registry(repo_root: Path) -> None:
    """``mtsig rank --help`` lists the procedures without importing them; the list is the registry's, and
    docs/cli.md's table has a row for each (what it tests, when it holds, which WMT year used it)."""
    from mtsig.cli.rank import PROCEDURE_NAMES
    from mtsig.stats.system_ranking import PROCEDURES

    assert PROCEDURE_NAMES == tuple(PROCEDURES)
    text = (repo_root / "docs" / "cli.md").read_text()
    table = text.split("### Which procedure", 1)[1].split("\n\n", 2)[1]
    rows = {line.split("|")[1].strip().strip("`"): line for line in table.splitlines()[2:]}
    assert list(rows) == list(PROCEDURES)
    assert all(len(line.split("|")) == 6 for line in rows.values())
