"""A researcher's first hour with ``mtsig compare``: the verdict that opens the report, labels, the document-level
default, the line on what segment-level tests assume, the warning on HTML entities, and the LaTeX for a paper.

Oracles: sacrebleu (scores and, with numpy, an independent paired bootstrap on sacrebleu's own sufficient
statistics), segment scores built with a known truth (one metric prefers A by far, the other B), the documents
counted from the SGML file by a regular expression, and the bytes of the unlabelled run.
"""

from __future__ import annotations

import html
import io
import json
import re
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sacrebleu
from cli_runner import run_mtsig

from mtsig.stats.resampling import PAPER_TESTS

WMT12 = ("wmt12", "system-outputs", "es-en")
N_LINES = 300  # a prefix of newstest2012 keeps every command fast


def run(*args: object, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return run_mtsig("compare", *args, cwd=cwd)


@pytest.fixture(scope="module")
def wmt12(data_root: Path, tmp_path_factory) -> dict[str, Path]:
    """The first N_LINES of the WMT12 es-en reference, its SGML (documents) and three systems, as written (HTML
    entities kept), each under a short file name."""
    folder = tmp_path_factory.mktemp("wmt12")
    base = data_root.joinpath(*WMT12)
    sources = {
        "ref.txt": data_root / "wmt12" / "plain" / "newstest2012-ref.en",
        "QCRI--primary.txt": base / "newstest2012.es-en.QCRI--primary",
        "UPC.txt": base / "newstest2012.es-en.UPC",
        "onlineA.txt": base / "newstest2012.es-en.onlineA",
    }
    paths = {}
    for name, source in sources.items():
        lines = source.read_text(encoding="utf-8").splitlines()[:N_LINES]
        paths[name] = folder / name
        paths[name].write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    sgm = (data_root / "wmt12" / "sgm" / "newstest2012-ref.en.sgm").read_text(encoding="utf-8")
    documents = [m.group(1) for m in re.finditer(r'<doc[^>]*docid="([^"]+)"', sgm)]
    sizes = [len(re.findall(r"<seg ", part)) for part in re.split(r"<doc[^>]*>", sgm)[1:]]
    ids = [doc for doc, size in zip(documents, sizes, strict=True) for _ in range(size)][:N_LINES]
    paths["docs.txt"] = folder / "docs.txt"
    paths["docs.txt"].write_text("".join(f"{doc}\n" for doc in ids), encoding="utf-8")
    return paths


def lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


# ----------------------------------------------------------------------------------------------- the verdict


def known_disagreement(folder: Path) -> tuple[Path, Path]:
    """Two metrics' segment scores of A and B on 200 segments: ``up`` scores A one unit above B on average,
    ``down`` one unit below (noise sd 1): each difference is about 14 standard errors, so every test finds it and
    no resample of 1,000 reverses it (known truth)."""
    rng = np.random.default_rng(3)
    files = []
    for name, shift in (("up", 1.0), ("down", -1.0)):
        base = rng.normal(0, 1, 200)
        rows = ["system\tsegment\tscore"]
        rows += [f"A\t{i}\t{v + shift + rng.normal(0, 0.5):.6f}" for i, v in enumerate(base)]
        rows += [f"B\t{i}\t{v:.6f}" for i, v in enumerate(base)]
        files.append(folder / f"{name}.tsv")
        files[-1].write_text("\n".join(rows) + "\n")
    return files[0], files[1]


def test_significant_metrics_that_disagree_are_named_in_words(tmp_path: Path) -> None:
    """The verdict names each metric's preferred system, keeps the pair's orientation (A vs B) in every metric's
    table although ``down`` prefers B, names the disagreement in words, and prints a p below the resolution of
    1,000 resamples as <0.001, never 0.0000."""
    up, down = known_disagreement(tmp_path)
    done = run("--scores", up, "--scores", down, "--samples", 1000)
    assert done.returncode == 0, done.stderr
    text = done.stdout
    verdict = text.split("Verdict: paired_bootstrap at alpha 0.05\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert [line.split() for line in verdict[1:3]] == [
        ["A", "vs", "B", "up", "A", f"{mean_difference(up):+.4f}", "<0.001", "yes"],
        ["down", "B", f"{mean_difference(down):+.4f}", "<0.001", "yes"],
    ]
    assert (
        verdict[3] == "A vs B: the metrics disagree: up prefers A (p = <0.001), down prefers B (p = <0.001)"
    )
    for metric in ("up", "down"):
        table = text.split(f"\n{metric}: statistic", 1)[1].split("\n\n", 1)[0].splitlines()
        assert table[2].split()[:2] == ["A", "B"]  # the pair's orientation, whichever the metric prefers
    assert "0.0000" not in text
    assert text.count("Signatures (one per metric and test):") == 1
    assert text.index("Verdict") < text.index("System scores") < text.index("Signatures")


def mean_difference(path: Path) -> float:
    table = pd.read_csv(path, sep="\t")
    means = table.groupby("system")["score"].mean()
    return float(means["A"] - means["B"])


def test_metrics_that_agree_are_said_to(tmp_path: Path) -> None:
    up, _ = known_disagreement(tmp_path)
    done = run("--scores", up, "--scores", f"again={up}", "--samples", 200)
    assert done.returncode == 0, done.stderr
    assert "significant metrics agree on the direction of every pair" in done.stdout
    assert "disagree" not in done.stdout


def bootstrap_oracle(hyps: dict[str, list[str]], refs: list[str], samples: int = 2000) -> dict[str, float]:
    """The paired bootstrap (Koehn 2004; the paper's Fig. 4) on sacrebleu's own sufficient statistics, by numpy:
    per metric, the share of resamples in which the system its corpus score prefers is not better."""
    from sacrebleu.metrics import BLEU, TER

    def bleu(totals: np.ndarray) -> np.ndarray:
        brevity = np.where(totals[..., 0] < totals[..., 1], np.exp(1 - totals[..., 1] / totals[..., 0]), 1.0)
        return 100 * brevity * np.exp(np.log(totals[..., 2:6] / totals[..., 6:10]).mean(axis=-1))

    def ter(totals: np.ndarray) -> np.ndarray:
        return -100 * totals[..., 0] / totals[..., 1]  # negated: higher is better

    counts = np.random.default_rng(1).multinomial(len(refs), np.full(len(refs), 1 / len(refs)), size=samples)
    p_values = {}
    for name, extractor, score in (("bleu", BLEU(), bleu), ("ter", TER(), ter)):
        first, second = (
            np.array(extractor._extract_corpus_statistics(h, [refs]), float) for h in hyps.values()
        )
        sign = np.sign(score(first.sum(axis=0)) - score(second.sum(axis=0)))
        p_values[name] = float(np.mean(sign * (score(counts @ first) - score(counts @ second)) <= 0))
    return p_values


@pytest.mark.slow
def test_bleu_prefers_upc_and_ter_prefers_online_a(data_root: Path) -> None:
    """WMT12 es-en UPC vs onlineA (every segment, entities undone): BLEU prefers UPC and TER onlineA, both
    significantly (an independent paired bootstrap on sacrebleu's statistics: p about 0.002 and 0.005), and the
    verdict says so in words, with p-values within Monte Carlo error of the oracle's. Slow: sacrebleu's TER takes
    about 40 CPU s on the 6,006 segments."""
    base = data_root.joinpath(*WMT12)
    ref = data_root / "wmt12" / "plain" / "newstest2012-ref.en"
    paths = {name: base / f"newstest2012.es-en.{name}" for name in ("UPC", "onlineA")}
    refs = [html.unescape(html.unescape(line)) for line in lines_of(ref)]
    hyps = {n: [html.unescape(html.unescape(line)) for line in lines_of(p)] for n, p in paths.items()}
    assert (
        sacrebleu.corpus_bleu(hyps["UPC"], [refs]).score
        > sacrebleu.corpus_bleu(hyps["onlineA"], [refs]).score
    )
    assert (
        sacrebleu.corpus_ter(hyps["UPC"], [refs]).score > sacrebleu.corpus_ter(hyps["onlineA"], [refs]).score
    )
    oracle = bootstrap_oracle(hyps, refs)
    assert oracle["bleu"] < 0.05 and oracle["ter"] < 0.05
    done = run("--ref", ref, "--unescape-html", "--metrics", "bleu,ter", "--samples", 2000, "UPC=" + str(paths["UPC"]),
               "onlineA=" + str(paths["onlineA"]))  # fmt: skip
    assert done.returncode == 0, done.stderr
    sentence = re.search(
        r"^UPC vs onlineA: the metrics disagree: BLEU prefers UPC \(p = ([\d.]+)\), TER prefers onlineA "
        r"\(p = ([\d.]+)\)$",
        done.stdout,
        flags=re.M,
    )
    assert sentence, done.stdout[:3000]
    for shown, expected in zip(sentence.groups(), (oracle["bleu"], oracle["ter"]), strict=True):
        assert abs(float(shown) - expected) < 0.01


# ------------------------------------------------------------------------------------------------------ labels


def test_labels_name_every_output_and_change_no_number(wmt12) -> None:
    """``--labels`` and ``LABEL=FILE`` give the unlabelled run's bytes with the labels for the file names; the
    statistic is sacrebleu's difference."""
    files = [wmt12["QCRI--primary.txt"], wmt12["UPC.txt"]]
    common = ("--ref", wmt12["ref.txt"], "--samples", 100, "--tsv")
    plain = run(*common, *files)
    labelled = run(*common, "--labels", "QCRI,UPC", *files)
    inline = run(*common, f"QCRI={files[0]}", f"UPC={files[1]}")
    assert plain.returncode == labelled.returncode == inline.returncode == 0, plain.stderr + labelled.stderr
    renamed = plain.stdout.replace("QCRI--primary.txt", "QCRI").replace("UPC.txt", "UPC")
    assert labelled.stdout == inline.stdout == renamed
    table = pd.read_csv(io.StringIO(labelled.stdout), sep="\t")
    refs = lines_of(wmt12["ref.txt"])
    bleu = {
        label: sacrebleu.corpus_bleu(lines_of(f), [refs]).score
        for label, f in zip(("QCRI", "UPC"), files, strict=True)
    }
    row = table[(table["sys_x"] == "QCRI") & (table["sys_y"] == "UPC")].iloc[0]
    assert row["statistic"] == pytest.approx(bleu["QCRI"] - bleu["UPC"], abs=1e-8)


def test_latex_shows_labels_display_names_and_says_the_intervals_are_unadjusted(wmt12) -> None:
    files = [wmt12["QCRI--primary.txt"], wmt12["UPC.txt"], wmt12["onlineA.txt"]]
    common = ("--ref", wmt12["ref.txt"], "--samples", 100, "--metrics", "bleu,chrf,ter", "--latex")
    done = run(*common, "--labels", "QCRI,UPC,onlineA", *files)
    assert done.returncode == 0, done.stderr
    assert (
        r"System & BLEU & $\Delta$ [95\% CI] & chrF & $\Delta$ [95\% CI] & TER & $\Delta$ [95\% CI] \\"
        in done.stdout
    )
    body = done.stdout.split(r"\midrule", 1)[1].split(r"\bottomrule", 1)[0]
    assert [line.split(" & ")[0] for line in body.strip().splitlines()] == ["QCRI", "UPC", "onlineA"]
    assert "primary" not in body and "-{}-" not in body
    assert "95\\% BCa interval" in done.stdout and "bca" not in done.stdout.lower().replace(
        "bca interval", ""
    )
    assert "not adjusted" not in done.stdout
    holm = run(*common, "--correction", "holm", *files)
    caption = next(line for line in holm.stdout.splitlines() if line.startswith(r"\caption"))
    assert "(Holm-adjusted)" in caption
    assert "not adjusted for multiple comparisons: an interval may exclude 0 without a dagger" in caption


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["A={a},{b}", "B={b}"], "several files for one system are training runs: give them with --runs A="),
        (["--labels", "A", "{a}", "{b}"], "--labels gives 1 label(s) for 2 system(s)"),
        (["--labels", "A,B", "A={a}", "{b}"], "labelled both by --labels and by LABEL=FILE"),
        (["--labels", "A,A", "{a}", "{b}"], "argument --labels: label(s) A given more than once in 'A,A'"),
        (
            ["--labels", "A,,B", "{a}", "{b}"],
            "argument --labels: expected comma-separated labels with no empty one",
        ),
        (["A={a}", "A={b}"], "system label(s) A given to more than one system"),
        (["={a}", "{b}"], "expected LABEL=FILE"),
        (["--runs", "A={a}", "{b}"], "with --runs give every system as --runs NAME=RUN1[,RUN2...]"),
    ],
)
def test_labels_never_switch_modes_silently(wmt12, arguments: list[str], message: str) -> None:
    """A wrong labelling is one line that says what to write, never a silent change of mode (``A=f1,f2`` once
    switched to the training-runs comparison)."""
    names = {"a": wmt12["UPC.txt"], "b": wmt12["onlineA.txt"]}
    words = [word.format(**names) for word in arguments]
    done = run("--ref", wmt12["ref.txt"], "--samples", 50, *words)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and message in done.stderr, done.stderr


def test_training_runs_take_their_own_flag(wmt12) -> None:
    """``--runs NAME=RUN1,RUN2`` is the run-aware comparison (its report and the two tests' signatures)."""
    runs = [f"A={wmt12['QCRI--primary.txt']},{wmt12['UPC.txt']}", f"B={wmt12['onlineA.txt']}"]
    done = run("--ref", wmt12["ref.txt"], "--samples", 50, "--runs", runs[0], "--runs", runs[1])
    assert done.returncode == 0, done.stderr
    assert "p_value: mtsig:0.1.0|test:run_aware_t|" in done.stdout and "Verdict" not in done.stdout


# ---------------------------------------------------------------------------------------- --scores and labels


def scores_file(path: Path, names: tuple[str, str], rows: int = N_LINES) -> Path:
    rng = np.random.default_rng(5)
    lines = ["system\tsegment\tscore"]
    for shift, name in zip((0.3, 0.0), names, strict=True):
        lines += [f"{name}\t{i}\t{rng.normal(shift, 1):.6f}" for i in range(rows)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_scores_rows_may_be_named_by_label_or_file_name_and_the_error_gives_the_fix(wmt12, tmp_path) -> None:
    files = [wmt12["UPC.txt"], wmt12["onlineA.txt"]]
    common = ("--ref", wmt12["ref.txt"], "--samples", 50, "--tests", "paired_bootstrap", "--tsv")
    by_label = scores_file(tmp_path / "comet.tsv", ("UPC", "onlineA"))
    by_file = scores_file(tmp_path / "comet2.tsv", ("UPC.txt", "onlineA.txt"))
    labelled = run(*common, "--scores", f"comet={by_label}", "--labels", "UPC,onlineA", *files)
    named = run(*common, "--scores", f"comet={by_file}", "--labels", "UPC,onlineA", *files)
    assert labelled.returncode == named.returncode == 0, labelled.stderr + named.stderr
    same = [
        pd.read_csv(io.StringIO(done.stdout), sep="\t").drop(columns="signature")
        for done in (labelled, named)
    ]
    pd.testing.assert_frame_equal(*same)
    other = scores_file(tmp_path / "other.tsv", ("sysA", "sysB"))
    done = run(*common, "--scores", other, *files)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert (
        f"{other}: no segment scores for system 'UPC.txt' (output UPC.txt); the file has 'sysA', 'sysB': name the "
        "rows after the output files, e.g. 'UPC.txt', or label the systems as the file names them, e.g. --labels "
        f"sysA,sysB (or sysA={files[0]})" in done.stderr
    ), done.stderr
    alone = run("--scores", other, "--samples", 50, "--tsv", "First=sysA", "Second=sysB")
    assert alone.returncode == 0 and set(pd.read_csv(io.StringIO(alone.stdout), sep="\t")["sys_x"]) == {
        "First",
        "Second",
    }


# ------------------------------------------------------------------------------------------------- documents


def test_with_documents_the_verdict_resamples_whole_documents(wmt12) -> None:
    """``--docs`` without ``--tests``: the document-level paired bootstrap concludes, the paper's three tests run
    beside it, and one line says so with the number of documents (counted from the SGML by a regular
    expression); without documents one line says what the segment-level tests assume."""
    files = [wmt12["UPC.txt"], wmt12["onlineA.txt"]]
    n_documents = len(set(lines_of(wmt12["docs.txt"])))
    with_docs = run("--ref", wmt12["ref.txt"], "--docs", wmt12["docs.txt"], "--samples", 100, *files)
    assert with_docs.returncode == 0, with_docs.stderr
    assert "Verdict: paired_bootstrap_documents at alpha 0.05" in with_docs.stdout
    assert (
        f"documents: {n_documents}; the verdict's test resamples whole documents, the paper's segment-level tests "
        "beside it take segments as independent" in with_docs.stdout
    )
    table = pd.read_csv(
        io.StringIO(
            run(
                "--ref", wmt12["ref.txt"], "--docs", wmt12["docs.txt"], "--samples", 100, "--tsv", *files
            ).stdout
        ),
        sep="\t",
    )
    assert set(table["test"]) == {"paired_bootstrap_documents", *PAPER_TESTS}
    without = run("--ref", wmt12["ref.txt"], "--samples", 100, *files)
    assert "Verdict: paired_bootstrap at alpha 0.05" in without.stdout
    assert "no documents: the tests resample segments as if independent" in without.stdout.splitlines()[1]
    document = json.loads(run("--ref", wmt12["ref.txt"], "--samples", 100, "--json", *files).stdout)
    assert document["notes"][0].startswith("no documents:") and len(document["verdict"]) == 1


def test_scores_with_documents_default_to_the_document_test(data_root: Path) -> None:
    path = data_root / "wmt20-ja-en" / "metric-scores" / "chrF.ja-en.seg.score"
    done = run("--scores", path, "--samples", 50, "--tsv", "OPPO.1529", "NiuTrans.1352")
    assert done.returncode == 0, done.stderr
    assert set(pd.read_csv(io.StringIO(done.stdout), sep="\t")["test"]) == {
        "paired_bootstrap_documents",
        *PAPER_TESTS,
    }
    assert (
        "Verdict: paired_bootstrap_documents"
        in run("--scores", path, "--samples", 50, "OPPO.1529", "NiuTrans.1352").stdout
    )


# -------------------------------------------------------------------------------------------- HTML entities


def test_html_entities_are_warned_of_unless_unescaped(wmt12, data_root: Path, tmp_path: Path) -> None:
    """WMT12's onlineA keeps ``&amp;`` on lines 988 and 1618 (found by grep); its first 1,000 lines against
    UPC's: one warning line on stderr naming onlineA, none with --unescape-html, none for UPC alone."""
    base = data_root.joinpath(*WMT12)
    for name in ("onlineA", "UPC"):
        lines = lines_of(base / f"newstest2012.es-en.{name}")[:1000]
        (tmp_path / name).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    ref = tmp_path / "ref"
    ref.write_text(
        "".join(line + "\n" for line in lines_of(data_root / "wmt12/plain/newstest2012-ref.en")[:1000])
    )
    common = ("--ref", ref, "--samples", 20, "--tests", "paired_bootstrap")
    done = run(*common, tmp_path / "UPC", tmp_path / "onlineA")
    assert done.returncode == 0
    assert done.stderr.splitlines() == [
        "mtsig: warning: HTML entities in onlineA (1 line, e.g. &amp; on line 988): text metrics score them as "
        "written; if they are an artefact of the release (WMT12's are), add --unescape-html"
    ]
    assert run(*common, "--unescape-html", tmp_path / "UPC", tmp_path / "onlineA").stderr == ""
    power = run_mtsig("power", *common[:2], "--trials", 2, "--samples", 10, "--sizes", 100, "--differences", 1,
                      tmp_path / "UPC", tmp_path / "onlineA")  # fmt: skip
    assert power.returncode == 0 and power.stderr.startswith("mtsig: warning: HTML entities in onlineA")


def test_an_adjusted_p_below_the_resolution_is_bounded_by_the_family(tmp_path: Path) -> None:
    """With Holm over the 2 ordered hypotheses of a one-sided test on two systems, a raw p below 1/1001 is adjusted
    to at most 2/1001: printed as <0.002 beside the raw <0.001 (by hand)."""
    up, down = known_disagreement(tmp_path)
    done = run("--scores", up, "--scores", down, "--samples", 1000, "--correction", "holm")
    assert done.returncode == 0, done.stderr
    verdict = done.stdout.split("Verdict: paired_bootstrap at alpha 0.05, holm-adjusted\n", 1)[1].splitlines()
    assert verdict[0].split() == [
        "pair",
        "metric",
        "prefers",
        "S(X)",
        "-",
        "S(Y)",
        "p",
        "p",
        "adjusted",
        "significant",
    ]
    assert verdict[1].split()[-3:] == ["<0.001", "<0.002", "yes"]


def test_the_scores_layout_printed_in_the_docs_is_read_as_printed(repo_root: Path, tmp_path: Path) -> None:
    """docs/cli.md's ten-line tidy example: three systems, three segments, two documents (so the verdict is the
    document-level bootstrap's); the scores' means are the corpus scores (by hand)."""
    text = (repo_root / "docs" / "cli.md").read_text()
    block = text.split("of a 3-segment test set in two documents:\n\n```text\n", 1)[1].split("```", 1)[0]
    assert len(block.splitlines()) == 10
    path = tmp_path / "comet.tsv"
    path.write_text(block)
    done = run("--scores", path, "--samples", 50, "--json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["conclusions"]["test"] == "paired_bootstrap_documents"
    assert document["metrics"]["comet"]["scores"] == pytest.approx(
        {"sysA.txt": (0.8214 + 0.7730 + 0.9102) / 3, "sysB.txt": (0.8035 + 0.7912 + 0.8874) / 3,
         "sysC.txt": (0.7120 + 0.6985 + 0.8391) / 3}
    )  # fmt: skip
