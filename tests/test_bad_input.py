"""Bad input and damaged intermediates, as a new user or a crashed job would produce them.

Every row of a table is one bad input: what is wrong, the error text expected, the line expected (the file's own
physical line, counting blank and comment lines), and, after the failure, no file under the step's output
directory (``results/`` here): the CLI (``mtsig compare``), the pipeline steps reading raw inputs (texts, documents,
human judgments), the config, and every kind of intermediate file truncated, corrupted in place (its size and
modification time kept, which Snakemake cannot see), stripped of its manifest or made with other settings. The
oracle is the file as the test wrote it: the line numbers and texts are those of the bytes written here.
"""

from __future__ import annotations

import dataclasses
import io
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest
import yaml
from pipeline_runs import TINY_CONFIG, tiny_pipeline_command

from mtsig import cli, settings
from mtsig.errors import InputError
from mtsig.pipeline import config as mtsig_config
from mtsig.steps import evaluation as evaluation_step
from mtsig.steps import figures as figures_step
from mtsig.steps import human as human_step
from mtsig.steps.common import read_prepared_texts
from mtsig.steps.data import prepare_texts, write_prepared_texts, write_synthetic_experiment
from mtsig.steps.evaluation import tables_index
from mtsig.steps.files import load_stats, manifest_path, save_stats, write_tsv
from mtsig.steps.metrics import corpus_scores_table, metric_stats, write_metric_stats
from mtsig.steps.significance import merge_tests, resample_tests, write_metric_tests
from mtsig.studies.synthetic import SyntheticSpec

REPO = Path(__file__).resolve().parents[1]
NAME = "synth"
SPEC = {"seed": 3, "systems": 4, "segments": 60, "annotators": 6}
TESTS = ["paired_bootstrap", "bootstrap", "approximate_randomization", "paired_bootstrap_documents"]
# the step functions take the validated config section, every key present (the schema fills the defaults)
RESAMPLING = {
    "seed": 11,
    "samples": 100,
    "distribution_pairs": "auto",
    "pvalue": "c/B",
    "memory_cap_mb": 1024,
    "mean_block_length": 10,
    "distribution_gap_quantile": 0.75,
    "confidence": 0.95,
    "pair_shards": 2,
    "tests": TESTS,
}


def files_under(directory: Path) -> list[str]:
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*") if p.is_file())


def assert_input_error(error: BaseException, file: str, text: str, line: int | None) -> None:
    """The message is ``<path>:<line>: <problem>`` (or ``<path>: <problem>``) with the expected problem."""
    assert isinstance(error, InputError), repr(error)
    assert error.path is not None and error.path.endswith(file), (error.path, file)
    assert error.line == line, (str(error), line)
    assert re.search(text, error.problem), (error.problem, text)
    assert str(error).startswith(f"{error.path}:{line}: " if line else f"{error.path}: ")


# ------------------------------------------------------------------------------------------------------- the CLI

REFS = ["the cat sat on the mat", "a quick brown fox", "we may find ourselves there"]
HYPS_A = ["the cat sat on a mat", "a quick brown fox jumped", "we may find ourselves there again"]
HYPS_B = ["cat sat mat", "the fast brown fox", "we could be there"]


@dataclass(frozen=True)
class CliCase:
    id: str
    files: dict[str, bytes]  # written in the working directory before the run
    args: list[str]
    error: str  # regex of stderr's one line
    line: int | None = None  # the line the message must name (``file:line:``)
    env: dict[str, str] | None = None


def _text(lines: list[str]) -> bytes:
    return "".join(line + "\n" for line in lines).encode()


GOOD = {"ref.txt": _text(REFS), "A.txt": _text(HYPS_A), "B.txt": _text(HYPS_B)}
CLI_CASES = [
    CliCase("missing reference", {"A.txt": GOOD["A.txt"], "B.txt": GOOD["B.txt"]}, ["--ref", "ref.txt", "A.txt", "B.txt"], r"ref\.txt: file not found"),
    CliCase("missing system", GOOD, ["--ref", "ref.txt", "A.txt", "C.txt"], r"C\.txt: file not found"),
    CliCase("empty reference", {**GOOD, "ref.txt": b""}, ["--ref", "ref.txt", "A.txt", "B.txt"], r"ref\.txt: empty file: the reference has no segments"),
    CliCase("a PNG given as system output", {**GOOD, "B.txt": b"\x89PNG\r\n\x1a\n\x00\x00"}, ["--ref", "ref.txt", "A.txt", "B.txt"], r"B\.txt:1: not valid UTF-8 \(byte 0x89 at column 1\)", 1),
    CliCase("a system output saved as UTF-16", {**GOOD, "B.txt": "\n".join(HYPS_B).encode("utf-16")}, ["--ref", "ref.txt", "A.txt", "B.txt"], r"B\.txt:1: binary file \(NUL byte\), expected UTF-8 text", 1),
    CliCase("latin-1 system output", {**GOOD, "B.txt": _text(HYPS_B[:2]) + "caf\xe9\n".encode("latin-1")}, ["--ref", "ref.txt", "A.txt", "B.txt"], r"B\.txt:3: not valid UTF-8 \(byte 0xe9 at column 4\)", 3),
    CliCase("fewer lines than the reference", {**GOOD, "B.txt": _text(HYPS_B[:2])}, ["--ref", "ref.txt", "A.txt", "B.txt"], r"B\.txt: system 'B\.txt' has 2 lines but the reference 'ref\.txt' has 3"),
    CliCase("same file twice among three", GOOD, ["--ref", "ref.txt", "A.txt", "A.txt", "B.txt"], r"A\.txt: system output given twice \(as system 1 and system 2\)"),
    CliCase("same file twice alone", GOOD, ["--ref", "ref.txt", "A.txt", "A.txt"], r"A\.txt: system output given twice"),
    CliCase("same file by two paths", GOOD, ["--ref", "ref.txt", "A.txt", "B.txt", "./A.txt"], r"error: A\.txt: system output given twice \(as system 1 and system 3\)"),
    CliCase("one system", GOOD, ["--ref", "ref.txt", "A.txt"], r"need at least two system outputs to compare, got 1"),
    CliCase("empty --metrics", GOOD, ["--ref", "ref.txt", "--metrics", "", "A.txt", "B.txt"], r"argument --metrics: expected a comma-separated list of metrics with no empty item, got ''"),
    CliCase("--metrics ,", GOOD, ["--ref", "ref.txt", "--metrics", ",", "A.txt", "B.txt"], r"argument --metrics: expected a comma-separated list .* got ','"),
    CliCase("--metrics with an empty item", GOOD, ["--ref", "ref.txt", "--metrics", "bleu,,chrf", "A.txt", "B.txt"], r"no empty item, got 'bleu,,chrf'"),
    CliCase("--metrics repeated", GOOD, ["--ref", "ref.txt", "--metrics", "bleu,BLEU", "A.txt", "B.txt"], r"metric bleu given more than once"),
    CliCase("unknown metric", GOOD, ["--ref", "ref.txt", "--metrics", "bleu,rouge", "A.txt", "B.txt"], r"unknown metric\(s\) rouge; known: bleu, nist, meteor, ter, chrf"),
    CliCase("empty --tests", GOOD, ["--ref", "ref.txt", "--tests", "", "A.txt", "B.txt"], r"argument --tests: expected a comma-separated list of tests"),
    CliCase("document test without --docs", GOOD, ["--ref", "ref.txt", "--tests", "paired_bootstrap_documents", "A.txt", "B.txt"], r"paired_bootstrap_documents resample whole documents: give each segment's document with --docs FILE"),
    CliCase("--docs with too few ids", {**GOOD, "docs.txt": b"d1\nd1\n"}, ["--ref", "ref.txt", "--docs", "docs.txt", "--tests", "bootstrap_documents", "A.txt", "B.txt"], r"docs\.txt: 2 segments in the document file but 3 in the test set"),
    CliCase("--docs with an empty id", {**GOOD, "docs.txt": b"d1\n\nd2\n"}, ["--ref", "ref.txt", "--docs", "docs.txt", "--tests", "bootstrap_documents", "A.txt", "B.txt"], r"docs\.txt:2: empty document id", 2),
    CliCase("--docs SGML with a segment outside any document", {**GOOD, "docs.sgm": b'<refset>\n<seg id="1">x</seg>\n<doc docid="d1">\n<seg id="2">y</seg>\n</doc>\n'}, ["--ref", "ref.txt", "--docs", "docs.sgm", "--tests", "bootstrap_documents", "A.txt", "B.txt"], r"docs\.sgm:2: <seg> outside any <doc docid=\.\.\.>", 2),
    CliCase("--docs missing", GOOD, ["--ref", "ref.txt", "--docs", "nope.txt", "--tests", "bootstrap_documents", "A.txt", "B.txt"], r"nope\.txt: document file does not exist"),
    CliCase("--samples 0", GOOD, ["--ref", "ref.txt", "--samples", "0", "A.txt", "B.txt"], r"argument --samples: must be a positive integer, got 0"),
    CliCase("--samples not a number", GOOD, ["--ref", "ref.txt", "--samples", "many", "A.txt", "B.txt"], r"argument --samples: must be a positive integer, got 'many'"),
    CliCase("METEOR without Java", GOOD, ["--ref", "ref.txt", "--metrics", "meteor", "A.txt", "B.txt"], r"METEOR needs Java: no `java` executable was found on PATH", env={"PATH": "/nonexistent"}),
]  # fmt: skip


@pytest.mark.parametrize("case", CLI_CASES, ids=lambda case: case.id)
def test_cli_bad_input_is_one_line_exit_2_and_no_output(
    case: CliCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, data in case.files.items():
        (tmp_path / name).write_bytes(data)
    monkeypatch.chdir(tmp_path)
    for key, value in (case.env or {}).items():
        monkeypatch.setenv(key, value)
    before = files_under(tmp_path)
    try:
        status = cli.main(["compare", *case.args])
    except SystemExit as exit_info:  # argparse's usage errors
        status = exit_info.code
    assert status == cli.EXIT_INPUT_ERROR
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert re.search(case.error, lines[0]), lines[0]
    if case.line is not None:
        assert re.search(rf":{case.line}: ", lines[0]), lines[0]
    assert "Traceback" not in captured.err
    assert files_under(tmp_path) == before  # nothing written


def test_cli_usage_errors_exit_2_on_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["compare", "--ref", str(tmp_path / "r.txt"), "--metrics", ","])
    assert exit_info.value.code == cli.EXIT_INPUT_ERROR
    assert len(capsys.readouterr().err.splitlines()) == 1


def test_cli_unexpected_failure_is_one_line_with_a_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, data in GOOD.items():
        (tmp_path / name).write_bytes(data)
    monkeypatch.chdir(tmp_path)

    def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr("mtsig.cli.compare.compare_systems", broken)
    assert cli.main(["compare", "--ref", "ref.txt", "A.txt", "B.txt"]) == cli.EXIT_INTERNAL_ERROR
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "mtsig: internal error: ZeroDivisionError: division by zero (this is a bug in mtsig; rerun with "
        "MTSIG_DEBUG=1 for the traceback and report it with the command line)"
    ]
    monkeypatch.setenv("MTSIG_DEBUG", "1")
    with pytest.raises(ZeroDivisionError):
        cli.main(["compare", "--ref", "ref.txt", "A.txt", "B.txt"])


def test_cli_entry_point_prints_no_traceback(tmp_path: Path) -> None:
    """The console command itself (a fresh interpreter), on a bad input and a usage error."""
    for name, data in {**GOOD, "B.txt": b"\x00"}.items():
        (tmp_path / name).write_bytes(data)
    for args in (
        ["--ref", "ref.txt", "A.txt", "B.txt"],
        ["--ref", "ref.txt", "--metrics", "", "A.txt", "A.txt"],
    ):
        done = subprocess.run(
            [sys.executable, "-m", "mtsig.cli", "compare", *args],
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(REPO / "src")},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 2 and done.stdout == ""
        assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr, done.stderr


def test_cli_docs_make_the_document_bootstrap_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """``--docs`` in each format gives the same document bootstrap p-values (same ids, same seed)."""
    for name, data in GOOD.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "docs.txt").write_text("d1\nd1\nd2\n")
    (tmp_path / "docs.sgm").write_text(
        '<refset>\n<doc docid="d1">\n<seg id="1">a</seg>\n<seg id="2">b</seg>\n</doc>\n'
        '<doc docid="d2">\n<seg id="3">c</seg>\n</doc>\n</refset>\n'
    )
    (tmp_path / "docs.xml").write_text(
        '<dataset><collection><doc id="d1"><src><p><seg id="1">a</seg><seg id="2">b</seg></p></src></doc>'
        '<doc id="d2"><src><p><seg id="3">c</seg></p></src></doc></collection></dataset>\n'
    )
    monkeypatch.chdir(tmp_path)
    outputs = []
    for docs in ("docs.txt", "docs.sgm", "docs.xml"):
        args = [
            "--ref",
            "ref.txt",
            "--docs",
            docs,
            "--tests",
            "paired_bootstrap_documents",
            "--samples",
            "50",
        ]
        assert cli.main(["compare", *args, "--tsv", "A.txt", "B.txt"]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] == outputs[2]
    table = pd.read_csv(io.StringIO(outputs[0]), sep="\t")
    assert set(table["test"]) == {"paired_bootstrap_documents"} and len(table) == 2


# ----------------------------------------------------------------------------------- an experiment's intermediates


@dataclass
class Experiment:
    root: Path
    results: Path
    spec: settings.Experiment

    def path(self, relative: str) -> Path:
        return self.results / NAME / relative

    @property
    def texts(self) -> Path:
        return self.path("texts")

    def stats(self, metric: str = "bleu") -> Path:
        return self.path(f"stats/{metric}.npz")

    def shard(self, k: int, ext: str) -> Path:
        return self.path(f"shards/bleu.{k}.{ext}")


def run_shard(exp: Experiment, out: Path, k: int, *, stats: Path | None = None, documents: Path | None = None, seed: int = 11, selection: Path | None = None) -> None:  # fmt: skip
    resample_tests(
        stats=stats or exp.stats(),
        selection=selection or exp.stats(),
        documents=documents or exp.path("documents.tsv"),
        experiment=NAME,
        metric="bleu",
        shard=k,
        test_names=TESTS,
        resampling={**RESAMPLING, "seed": seed},
        shard_tests=out / f"bleu.{k}.tsv",
        shard_distributions=out / f"bleu.{k}.npz",
        shard_intervals=out / f"bleu.{k}.intervals.tsv",
        shard_system_intervals=out / f"bleu.{k}.systems.tsv",
    )


def merge(exp: Experiment, out: Path, shards: list[int] = (0, 1)) -> None:  # type: ignore[assignment]
    write_metric_tests(
        [exp.shard(k, "tsv") for k in shards],
        [exp.shard(k, "npz") for k in shards],
        [exp.shard(k, "intervals.tsv") for k in shards],
        [exp.shard(k, "systems.tsv") for k in shards],
        tests=out / "bleu.tsv",
        distributions=out / "distributions",
        intervals=out / "intervals.tsv",
        system_intervals=out / "systems.tsv",
    )


EVALUATE_OUTPUTS = {
    "accuracy": "accuracy.tsv",
    "agreement": "test_agreement.tsv",
    "chi_square": "chi_square.tsv",
    "conclusions": "test_conclusions.tsv",
}
HUMAN_OUTPUTS = {
    "z": "human/z.tsv",
    "qc": "human/qc.tsv",
    "system_scores": "human/system_scores.tsv",
    "gold": "gold.tsv",
    "conclusions": "gold_conclusions.tsv",
}


def evaluate(exp: Experiment, out: Path) -> None:
    evaluation_step.evaluate(
        tests=[exp.path("tests/bleu.tsv")],
        gold=exp.path("gold.tsv"),
        gold_conclusions=exp.path("gold_conclusions.tsv"),
        alphas=[0.05],
        corrections=["holm"],
        **{name: str(out / file) for name, file in EVALUATE_OUTPUTS.items()},
    )


def tables(exp: Experiment, out: Path) -> None:
    evaluation_step.tables(
        NAME,
        exp.spec.description,
        list(exp.spec.metric_names),
        len(exp.spec.systems),
        RESAMPLING["samples"],
        RESAMPLING["seed"],
        RESAMPLING["pvalue"],
        accuracy=exp.path("accuracy.tsv"),
        chi_square=exp.path("chi_square.tsv"),
        agreement=exp.path("test_agreement.tsv"),
        stats=[exp.stats("bleu"), exp.stats("chrf")],
        system_scores=exp.path("human/system_scores.tsv"),
        md=str(out / f"{NAME}.md"),
        html=str(out / f"{NAME}.html"),
        tex=str(out / "t.tex"),
        csv=str(out / "t.csv"),
    )


def figures(exp: Experiment, out: Path) -> None:
    figures_step.figures(
        distributions=[exp.path("distributions/bleu")],
        tests=[exp.path("tests/bleu.tsv")],
        gold=exp.path("gold.tsv"),
        system_scores=exp.path("human/system_scores.tsv"),
        test_names=TESTS,
        alpha=0.05,
        png=out / "png",
        pdf=out / "pdf",
    )


def human_gold(exp: Experiment, out: Path, human: dict | None = None, texts: Path | None = None) -> None:
    """Rule human_gold's step on the experiment (its human block replaced by ``human``)."""
    outputs = {name: str(out / file) for name, file in HUMAN_OUTPUTS.items()}
    human_step.human_gold(
        human or exp.spec.human, exp.spec.gold, exp.root, quality_control=exp.spec.qc,
        standardise=exp.spec.standardise, texts=texts or exp.texts, alphas=[0.05], **outputs,
    )  # fmt: skip


@pytest.fixture(scope="module")
def experiment(tmp_path_factory: pytest.TempPathFactory) -> Experiment:
    """A synthetic experiment taken through every step by the step functions the rules call."""
    root = tmp_path_factory.mktemp("experiment")
    results = root / "results"
    config = {"synthetic": {NAME: SPEC}, "metrics": ["bleu", "chrf"]}
    spec = mtsig_config.experiment(config, NAME, results)
    write_synthetic_experiment(SyntheticSpec(**SPEC), results / NAME / "synthetic")
    exp = Experiment(root, results, spec)
    prepare_texts(
        spec.text_sources(), root, texts=exp.texts, documents=exp.path("documents.tsv"), experiment=NAME
    )
    metrics = ["bleu", "chrf"]
    options = {metric: spec.metric_options(metric) for metric in metrics}
    metric_stats(metrics=metrics, texts=exp.texts, stats=exp.path("stats"), options=options)
    for k in (0, 1):
        run_shard(exp, exp.path("shards"), k)
    merge_tests(
        [exp.shard(k, "tsv") for k in (0, 1)],
        [exp.shard(k, "npz") for k in (0, 1)],
        [exp.shard(k, "intervals.tsv") for k in (0, 1)],
        [exp.shard(k, "systems.tsv") for k in (0, 1)],
        metrics=["bleu"],
        tests=exp.path("tests"),
        distributions=exp.path("distributions"),
        intervals=exp.path("intervals"),
    )
    human_gold(exp, exp.path(""))
    evaluate(exp, exp.path(""))
    tables(exp, results / "tables")
    return exp


def test_unsharded_merge_tests_writes_the_bytes_of_merged_shards(
    experiment: Experiment, tmp_path: Path
) -> None:
    """With pair_shards: 1, merge_tests computes the one shard itself (no resample_tests job): every file it
    writes, manifests included, is byte-identical to two shards of resample_tests merged (the experiment's own
    tests/, made by the sharded path)."""
    out = tmp_path / "unsharded"
    merge_tests(
        metrics=["bleu"],
        tests=out / "tests",
        distributions=out / "distributions",
        intervals=out / "intervals",
        stats=[experiment.stats()],
        selection=experiment.stats(),
        documents=experiment.path("documents.tsv"),
        experiment=NAME,
        test_names=TESTS,
        resampling=RESAMPLING,
    )
    sharded = experiment.results / NAME
    written = sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())
    assert len(written) > 6 and any(p.suffix == ".npz" for p in written)
    for relative in written:
        assert (out / relative).read_bytes() == (sharded / relative).read_bytes(), relative


def test_every_intermediate_has_a_manifest(experiment: Experiment) -> None:
    """The files the later steps read (and only those) carry a manifest."""
    manifests = [p for p in files_under(experiment.results) if p.endswith(".manifest.json")]
    data = {p.removesuffix(".manifest.json") for p in manifests}
    assert all((experiment.results / p).is_file() for p in data)
    expected = {
        f"{NAME}/documents.tsv",
        f"{NAME}/texts/reference.txt",
        f"{NAME}/texts/systems.txt",
        *(f"{NAME}/texts/systems/sys{i}.txt" for i in range(1, 5)),
        f"{NAME}/stats/bleu.npz",
        f"{NAME}/stats/chrf.npz",
        *(
            f"{NAME}/shards/bleu.{k}.{ext}"
            for k in (0, 1)
            for ext in ("tsv", "npz", "intervals.tsv", "systems.tsv")
        ),
        f"{NAME}/tests/bleu.tsv",
        f"{NAME}/gold.tsv",
        f"{NAME}/gold_conclusions.tsv",
        f"{NAME}/human/system_scores.tsv",
        f"{NAME}/accuracy.tsv",
        f"{NAME}/chi_square.tsv",
        f"{NAME}/test_agreement.tsv",
        f"tables/{NAME}.md",
    }
    distributions = {p for p in data if "/distributions/" in p}
    assert distributions and data - distributions == expected


# Each kind of intermediate: the file, the rule that makes it, the declared output (the directory for files
# inside one), and the step that reads it.
@dataclass(frozen=True)
class Intermediate:
    id: str
    file: Callable[[Experiment], Path]
    rule: str
    target: Callable[[Experiment], Path]
    reader: Callable[[Experiment, Path], None]


def _first_distribution(exp: Experiment) -> Path:
    return sorted(exp.path("distributions/bleu").glob("*.npz"))[0]


INTERMEDIATES = [
    Intermediate("texts/reference.txt", lambda e: e.texts / "reference.txt", "prepare_texts", lambda e: e.texts, lambda e, out: write_metric_stats("bleu", e.texts, out / "bleu.npz")),
    Intermediate("texts/systems.txt", lambda e: e.texts / "systems.txt", "prepare_texts", lambda e: e.texts, lambda e, out: write_metric_stats("chrf", e.texts, out / "chrf.npz")),
    Intermediate("texts/systems/sys2.txt", lambda e: e.texts / "systems" / "sys2.txt", "prepare_texts", lambda e: e.texts, lambda e, out: human_gold(e, out)),
    Intermediate("documents.tsv", lambda e: e.path("documents.tsv"), "prepare_texts", lambda e: e.path("documents.tsv"), lambda e, out: run_shard(e, out, 0)),
    Intermediate("stats/bleu.npz", lambda e: e.stats(), "metric_stats", lambda e: e.path("stats"), lambda e, out: run_shard(e, out, 1)),
    Intermediate("shards/bleu.0.tsv", lambda e: e.shard(0, "tsv"), "resample_tests", lambda e: e.shard(0, "tsv"), merge),
    Intermediate("shards/bleu.1.npz", lambda e: e.shard(1, "npz"), "resample_tests", lambda e: e.shard(1, "npz"), merge),
    Intermediate("tests/bleu.tsv", lambda e: e.path("tests/bleu.tsv"), "merge_tests", lambda e: e.path("tests"), evaluate),
    Intermediate("distributions/bleu/*.npz", _first_distribution, "merge_tests", lambda e: e.path("distributions"), figures),
    Intermediate("gold.tsv", lambda e: e.path("gold.tsv"), "human_gold", lambda e: e.path("gold.tsv"), evaluate),
    Intermediate("gold_conclusions.tsv", lambda e: e.path("gold_conclusions.tsv"), "human_gold", lambda e: e.path("gold_conclusions.tsv"), evaluate),
    Intermediate("human/system_scores.tsv", lambda e: e.path("human/system_scores.tsv"), "human_gold", lambda e: e.path("human/system_scores.tsv"), figures),
    Intermediate("accuracy.tsv", lambda e: e.path("accuracy.tsv"), "evaluate", lambda e: e.path("accuracy.tsv"), tables),
    Intermediate("chi_square.tsv", lambda e: e.path("chi_square.tsv"), "evaluate", lambda e: e.path("chi_square.tsv"), tables),
    Intermediate("test_agreement.tsv", lambda e: e.path("test_agreement.tsv"), "evaluate", lambda e: e.path("test_agreement.tsv"), tables),
    Intermediate(f"tables/{NAME}.md", lambda e: e.results / "tables" / f"{NAME}.md", "tables", lambda e: e.results / "tables" / f"{NAME}.md", lambda e, out: tables_index([e.results / "tables" / f"{NAME}.md"], out / "README.md")),
]  # fmt: skip


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _flip_a_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle] = (data[middle] + 1) % 256 or 1
    path.write_bytes(bytes(data))


def _drop_manifest(path: Path) -> None:
    manifest_path(path).unlink()


FAULTS = {
    "truncated": (
        _truncate,
        r"intermediate file is truncated or changed: \d+ bytes where its manifest records \d+",
    ),
    "one byte changed": (_flip_a_byte, r"intermediate file is corrupted: its sha256 differs"),
    "manifest deleted": (_drop_manifest, r"intermediate file has no manifest \S+\.manifest\.json"),
}


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("kind", INTERMEDIATES, ids=lambda kind: kind.id)
def test_damaged_intermediate_is_refused_naming_rule_and_command(
    experiment: Experiment, kind: Intermediate, fault: str, tmp_path: Path
) -> None:
    path = kind.file(experiment)
    saved = {p: p.read_bytes() for p in (path, manifest_path(path))}
    stat = path.stat()
    damage, expected = FAULTS[fault]
    out = tmp_path / "results"
    out.mkdir()
    try:
        damage(path)
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # the modification time kept
        with pytest.raises(InputError) as caught:
            kind.reader(experiment, out)
    finally:
        for p, data in saved.items():
            p.write_bytes(data)
    assert_input_error(caught.value, str(path), expected, None)
    assert f"it is made by rule {kind.rule}" in caught.value.problem
    assert (
        f"regenerate it with `snakemake --cores 2 --force {kind.target(experiment)}`" in caught.value.problem
    )
    assert files_under(out) == []  # no partial output


@pytest.mark.parametrize("kind", INTERMEDIATES, ids=lambda kind: kind.id)
def test_undamaged_intermediate_is_read(experiment: Experiment, kind: Intermediate, tmp_path: Path) -> None:
    """The control: the same step on the same files, undamaged, succeeds."""
    kind.reader(experiment, tmp_path)


def test_truncated_statistics_a_zip_reader_would_crash_on(experiment: Experiment, tmp_path: Path) -> None:
    """A truncated npz, which a zip reader would report as zipfile.BadZipFile naming no file."""
    path = experiment.stats()
    saved = path.read_bytes()
    try:
        path.write_bytes(saved[:100])
        with pytest.raises(InputError, match=r"bleu\.npz: intermediate file is truncated or changed"):
            corpus_scores_table([path])
    finally:
        path.write_bytes(saved)


# Intermediates made with other settings than the files they are combined with (a stale file).


def test_documents_of_another_test_set_are_refused(experiment: Experiment, tmp_path: Path) -> None:
    stale = tmp_path / "documents.tsv"
    write_tsv(pd.DataFrame({"segment": range(50), "doc_id": "d"}), stale, made_by="prepare_texts")
    with pytest.raises(InputError) as caught:
        run_shard(experiment, tmp_path / "results", 0, documents=stale)
    assert_input_error(caught.value, "documents.tsv", r"50 segments where the metric statistics have 60: one of them is stale; it is made by rule prepare_texts", None)  # fmt: skip
    assert not (tmp_path / "results").exists()


def test_statistics_of_other_systems_are_refused(experiment: Experiment, tmp_path: Path) -> None:
    stats, systems, details, options = load_stats(experiment.stats("chrf"))
    stale = tmp_path / "stats" / "chrf.npz"
    save_stats(stale, stats[::-1], systems[::-1], details, options)
    with pytest.raises(InputError) as caught:
        run_shard(experiment, tmp_path / "results", 0, selection=stale)
    assert_input_error(caught.value, "chrf.npz", r"systems \['sys4', 'sys3', 'sys2', 'sys1'\] differ from \['sys1', 'sys2', 'sys3', 'sys4'\] in \S+bleu\.npz: one of them is stale; it is made by rule metric_stats", None)  # fmt: skip
    assert not (tmp_path / "results").exists()


def test_shard_of_another_seed_is_refused(experiment: Experiment, tmp_path: Path) -> None:
    run_shard(experiment, tmp_path / "shards", 1, seed=12)
    exp = Experiment(experiment.root, experiment.results, experiment.spec)
    with pytest.raises(InputError) as caught:
        write_metric_tests(
            [exp.shard(0, "tsv"), tmp_path / "shards" / "bleu.1.tsv"],
            [exp.shard(0, "npz"), tmp_path / "shards" / "bleu.1.npz"],
            [exp.shard(0, "intervals.tsv"), tmp_path / "shards" / "bleu.1.intervals.tsv"],
            [exp.shard(0, "systems.tsv"), tmp_path / "shards" / "bleu.1.systems.tsv"],
            tests=tmp_path / "results" / "bleu.tsv",
            distributions=tmp_path / "results" / "distributions",
            intervals=tmp_path / "results" / "intervals.tsv",
            system_intervals=tmp_path / "results" / "systems.tsv",
        )
    assert_input_error(caught.value, "bleu.1.tsv", r"made with other seed than \S+bleu\.0\.tsv", None)
    assert not (tmp_path / "results").exists()


def test_shards_out_of_order_are_refused(experiment: Experiment, tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        merge(experiment, tmp_path / "results", [1, 0])
    assert_input_error(caught.value, "bleu.1.tsv", r"is shard 1 of 2, expected shard 0 of 2", None)
    assert not (tmp_path / "results").exists()


def test_a_deleted_distribution_file_is_noticed(experiment: Experiment, tmp_path: Path) -> None:
    path = _first_distribution(experiment)
    saved = path.read_bytes()
    path.unlink()
    try:
        with pytest.raises(InputError, match=rf"{re.escape(path.name)}: intermediate file is missing; it is made by rule merge_tests"):  # fmt: skip
            figures(experiment, tmp_path / "results")
    finally:
        path.write_bytes(saved)
    assert files_under(tmp_path) == []


# ------------------------------------------------------------------------------------- raw inputs of the pipeline

HEADER = "annotator\tsystem\tsegment\titem_type\tcriterion\traw_score\n"


def _ratings(experiment: Experiment) -> str:
    return (experiment.path("synthetic/ratings.tsv")).read_text()


@dataclass(frozen=True)
class RawCase:
    id: str
    content: Callable[[Experiment], bytes]  # the ratings file
    error: str
    line: int | None
    human: dict | None = None  # the experiment's human: block (default: tidy at the file)


def _rows(experiment: Experiment) -> list[str]:
    return _ratings(experiment).splitlines(keepends=True)


RAW_CASES = [
    RawCase("a rating repeated exactly", lambda e: "".join(_rows(e)[:6] + [_rows(e)[3]] + _rows(e)[6:]).encode(), r"exact repeat of line 4: the same rating would be counted twice; delete one, or give a deliberate second rating item_type repeat", 7),
    RawCase("a bad row after blank lines", lambda e: "".join(_rows(e)[:3] + ["\n", "   \n", "A01\tsys1\t0\tsystem\tadequacy\tlots\tX1\n"] + _rows(e)[3:]).encode(), r"score 'lots' is not a finite number", 6),
    RawCase("a bad row after a comment", lambda e: ("# ratings exported 2026-11-23\n" + HEADER + "A01\tsys1\t0\tsystem\tadequacy\t101\n").encode(), r"score '101' is outside 0\.\.100", 3),
    RawCase("an unknown system", lambda e: "".join(_rows(e)[:5] + ["A01\tsys9\t3\tsystem\tadequacy\t50\tX1\n"] + _rows(e)[5:]).encode(), r"unknown system 'sys9' \(known: sys1, sys2, sys3, sys4\)", 6),
    RawCase("an empty file", lambda e: b"", r"empty file \(no non-blank line\)", None),
    RawCase("only a header", lambda e: HEADER.encode(), r"no rows after the header", 1),
    RawCase("no header", lambda e: "".join(_rows(e)[1:]).encode(), r"no header: the first line, 'A\d\d\\tsys\d.*', is a row; add a header line above it, e\.g\. 'annotator\\tsystem\\tsegment\\titem_type\\tcriterion\\traw_score'", 1),
    RawCase("a binary file", lambda e: b"PK\x03\x04\x14\x00\x00\x00\x08\x00", r"binary file \(NUL byte\), expected UTF-8 text", 1),
    RawCase("a row with a missing field", lambda e: (HEADER + "A01\tsys1\t0\tsystem\tadequacy\n").encode(), r"5 fields, expected 6 \(the header's columns, TAB-separated\)", 2),
    RawCase("a segment outside the test set", lambda e: (HEADER + "A01\tsys1\t60\tsystem\tadequacy\t50\n").encode(), r"segment 60 is outside the test set \(0\.\.59, 0-based\)", 2),
    RawCase("segment means with the scores in raw_score", lambda e: b"system\tsegment\tcriterion\traw_score\nsys1\t0\tadequacy\t0.4\n", r"no column z in the header 'system\\tsegment\\tcriterion\\traw_score': .* \(segment_means: true reads the standardised scores from a column named z", 1, {"format": "tidy", "path": "ratings.tsv", "standardised": True, "segment_means": True}),
    RawCase("segment means given twice", lambda e: b"system\tsegment\tcriterion\tz\nsys1\t0\tadequacy\t0.4\n\nsys1\t0\tadequacy\t0.5\n", r"segment_means: \(system, segment, criterion\) already given at line 2", 4, {"format": "tidy", "path": "ratings.tsv", "segment_means": True}),
    RawCase("WMT MTurk DA: a rating repeated exactly", lambda e: b"HITId\tWorkerId\tInput.item\tsys_id\ttype\tsid\tscore\nH1\tW1\tad\tsys1.3\tSYSTEM\t1\t50\n\nH1\tW1\tad\tsys1.3\tSYSTEM\t1\t50\n", r"exact repeat of line 2: the same rating would be counted twice", 4, {"format": "wmt_mturk_da", "path": "ratings.tsv", "sid2line": "sid2line.tsv"}),
    RawCase("Appraise DA: a rating repeated exactly", lambda e: b"u1,x.hyp.sys1.en.txt,1,TGT,eng,liv,50,1,2\nu1,x.hyp.sys2.en.txt,1,TGT,eng,liv,40,3,4\nu1,x.hyp.sys1.en.txt,1,TGT,eng,liv,50,1,2\n", r"exact repeat of line 1: the same rating would be counted twice", 3, {"format": "appraise_da", "path": "ratings.tsv", "header": "header.csv", "source_language": "eng", "target_language": "liv"}),
    RawCase("MTurk batch: an assignment repeated exactly", lambda e: b"HITId,WorkerId,Input.item,Answer.Q1,Input.sys_id_0,Input.sid_0,Input.tst_0,Input.rid_0\nH1,W1,ad,0_7_50,sys1,1,system,7\nH1,W1,ad,0_7_50,sys1,1,system,7\n", r"exact repeat of the assignment at line 2: its ratings would be counted twice", 3, {"format": "mturk_batch", "path": "ratings.tsv"}),
]  # fmt: skip


@pytest.mark.parametrize("case", RAW_CASES, ids=lambda case: case.id)
def test_bad_human_judgments(experiment: Experiment, case: RawCase, tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "ratings.tsv").write_bytes(case.content(experiment))
    (data / "sid2line.tsv").write_text("da_sid\ttxt_line\n1\t1\n")
    (data / "header.csv").write_text(
        "username,system,itemId,itemType,srcLang,trgLang,score,timeStart,timeEnd\n"
    )
    human = case.human or {"format": "tidy", "path": "ratings.tsv"}
    out = tmp_path / "results"
    with pytest.raises(InputError) as caught:
        outputs = {name: str(out / file) for name, file in HUMAN_OUTPUTS.items()}
        human_step.human_gold(
            human, experiment.spec.gold, data, quality_control={"enabled": False}, texts=experiment.texts,
            alphas=[0.05], **outputs,
        )  # fmt: skip
    assert_input_error(caught.value, "ratings.tsv", case.error, case.line)
    assert not out.exists()


def test_the_repeated_rating_would_have_changed_the_gold(experiment: Experiment, tmp_path: Path) -> None:
    """Why a repeat is an error: counted twice, it changes n and the gold's p-values (here, every rating of the
    file once more: the Wilcoxon p-values all fall)."""
    from mtsig.stats import human

    ratings = pd.read_csv(experiment.path("synthetic/ratings.tsv"), sep="\t")
    once = human.wilcoxon_gold(human.standardise(ratings)[0], unit="rating", item_types=("system",), systems=["sys1", "sys2", "sys3", "sys4"])  # fmt: skip
    doubled = pd.concat([ratings, ratings], ignore_index=True)
    twice = human.wilcoxon_gold(human.standardise(doubled)[0], unit="rating", item_types=("system",), systems=["sys1", "sys2", "sys3", "sys4"])  # fmt: skip
    assert (twice["n_x"] == 2 * once["n_x"]).all()
    separated = once["p_value"] < 0.05
    assert separated.any() and (twice["p_value"][separated] < once["p_value"][separated]).all()


TEXT_CASES = [
    ("an empty reference", "reference.txt", b"", r"empty file: the reference has no segments", None),
    (
        "a short system output",
        "system.sys2.txt",
        b"one line\n",
        r"system 'sys2' has 1 lines but the reference .* has 60",
        None,
    ),
    ("a binary system output", "system.sys3.txt", b"\x7fELF\x02\x01\x01\x00", r"binary file \(NUL byte\)", 1),
    (
        "a document file of another length",
        "documents.tsv",
        b"d1\nd2\n",
        r"2 segments in the document file but 60 in the test set",
        None,
    ),
    (
        "a document file with a blank id",
        "documents.tsv",
        b"d1\n" * 10 + b"\n" + b"d2\n" * 49,
        r"empty document id",
        11,
    ),
]


@pytest.mark.parametrize("case", TEXT_CASES, ids=lambda case: case[0])
def test_bad_texts(experiment: Experiment, case: tuple, tmp_path: Path) -> None:
    _, name, content, error, line = case
    data = tmp_path / "data"
    shutil.copytree(experiment.path("synthetic"), data)
    (data / name).write_bytes(content)
    sources = dataclasses.replace(
        experiment.spec.text_sources(),
        reference=str(data / "reference.txt"),
        outputs=str(data / "system.{system}.txt"),
        documents=settings.DocumentsFile("tsv", str(data / "documents.tsv")),
    )
    out = tmp_path / "results"
    with pytest.raises(InputError) as caught:
        prepare_texts(sources, data, texts=out / "texts", documents=out / "documents.tsv")
    assert_input_error(caught.value, name, error, line)
    assert not out.exists()


def test_documented_tidy_examples_are_accepted(experiment: Experiment, tmp_path: Path) -> None:
    """The three five-line example files of config/README.md load with the options the README gives them, and
    the gold step runs on them (systems and segments renamed to the experiment's)."""
    text = (REPO / "config" / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```tsv\n(.*?)^```", text, flags=re.S | re.M)
    assert len(blocks) == 3 and all(len(block.splitlines()) == 5 for block in blocks)
    options = [{}, {"standardised": True}, {"segment_means": True}]
    for block, option in zip(blocks, options, strict=True):
        body = block.replace("sysA", "sys1").replace("sysB", "sys2")
        (tmp_path / "ratings.tsv").write_text(body)
        human = {"format": "tidy", "path": "ratings.tsv", **option}
        out = tmp_path / "results"
        texts = tmp_path / "texts"
        reference, outputs = read_prepared_texts(experiment.texts)
        write_prepared_texts(reference, {s: outputs[s] for s in ("sys1", "sys2")}, texts)
        outputs = {name: str(out / file) for name, file in HUMAN_OUTPUTS.items()}
        human_step.human_gold(
            human, experiment.spec.gold, tmp_path, quality_control={"enabled": False}, texts=texts, alphas=[0.05],
            **outputs,
        )  # fmt: skip
        gold = pd.read_csv(out / "gold.tsv", sep="\t")
        assert set(zip(gold["sys_x"], gold["sys_y"], strict=True)) == {("sys1", "sys2"), ("sys2", "sys1")}
        shutil.rmtree(out)


# -------------------------------------------------------------------------------------------------- the config


def test_schema_error_names_the_config_file_that_set_the_key(tmp_path: Path) -> None:
    schema = REPO / "workflow" / "schemas" / "config.schema.yaml"
    mine = tmp_path / "mine.yaml"
    mine.write_text("resampling:\n  pair_shards: zero\n")
    config = {"run": ["x"], "resampling": {"pair_shards": "zero", "seed": 1}}
    sources = mtsig_config.config_sources([REPO / "config" / "config.yaml", mine], [mine], {}, [])
    with pytest.raises(InputError) as caught:
        mtsig_config.validate_config(config, schema, sources)
    assert_input_error(caught.value, "mine.yaml", r"config key resampling\.pair_shards: 'zero' is not of type 'integer'", None)  # fmt: skip
    # set on the command line: the option is named
    config = {"run": ["x"], "resampling": {"pair_shards": "0"}}
    sources = mtsig_config.config_sources([REPO / "config" / "config.yaml"], [], {"resampling": {"pair_shards": "0"}}, ["resampling={pair_shards: 0}"])  # fmt: skip
    with pytest.raises(InputError) as caught:
        mtsig_config.validate_config(config, schema, sources)
    assert str(caught.value) == (
        "--config resampling={pair_shards: 0}: config key resampling.pair_shards: 0 is less than the minimum of 1"
    )


def test_command_line_values_are_read_as_yaml_where_the_schema_wants_numbers() -> None:
    schema = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())
    config = {
        "run": ["x"],
        "resampling": {"pair_shards": "16", "samples": {"bootstrap": "200"}, "pvalue": "c/B", "seed": "7"},
        "evaluation": {"alphas": ["0.05", "0.01"]},
        "experiments": {"e": {"systems": ["1", "2"], "unescape_html": "true", "description": "123"}},
    }
    mtsig_config.coerce_command_line_values(config, schema, schema)
    assert config["resampling"] == {
        "pair_shards": 16,
        "samples": {"bootstrap": 200},
        "pvalue": "c/B",
        "seed": 7,
    }
    assert config["evaluation"]["alphas"] == [0.05, 0.01]
    # strings stay strings where the schema wants strings (a system named 1, a numeric description)
    assert config["experiments"]["e"] == {"systems": ["1", "2"], "unescape_html": True, "description": "123"}


def test_pipeline_config_error_names_the_file_and_writes_nothing(data_root: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("resampling:\n  samples: lots\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "-s",
            str(REPO / "Snakefile"),
            "--directory",
            str(tmp_path),
            "--cores",
            "1",
            "--configfile",
            str(bad),
        ],  # fmt: skip
        env={**os.environ, "MTSIG_DATA": str(data_root)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode != 0
    assert (
        f"{bad}: config key resampling.samples: 'lots' is not valid under any of the given schemas"
        in done.stderr
    )
    assert not (tmp_path / "results").exists()


# ------------------------------------------------------------------------------ a damaged file, through Snakemake


@pytest.mark.pipeline
@pytest.mark.xdist_group("tiny_pipeline")
def test_snakemake_reports_a_damaged_file_and_its_command_repairs_it(
    data_root: Path, tiny_pipeline_run: Path
) -> None:
    """Truncate the BLEU statistics of a finished run (the shared tiny run; new modification time): the step that
    reads them stops with the error naming the file, the rule and the command; that command, as printed, remakes
    the file, and the next run completes with the same bytes as before the damage (so the run is left as found)."""
    workdir = tiny_pipeline_run
    env = {**os.environ, "MTSIG_DATA": str(data_root)}
    target = "results/synthetic-small/scores.tsv"  # rule corpus_scores: one job, which reads every statistic

    def snakemake(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            tiny_pipeline_command(workdir, *args), env=env, capture_output=True, text=True, timeout=900
        )

    good = (workdir / target).read_bytes()
    (workdir / target).unlink()  # so that every later run must read the statistics again
    stats = workdir / "results" / "synthetic-small" / "stats" / "bleu.npz"
    intact = stats.read_bytes()
    stats.write_bytes(intact[:1000])
    failed = snakemake(target)
    assert failed.returncode != 0
    message = re.search(r"InputError: (results/synthetic-small/stats/bleu\.npz: .*)", failed.stderr)
    assert message is not None, failed.stderr[-5000:]
    assert (
        "intermediate file is truncated or changed: 1000 bytes where its manifest records" in message.group(1)
    )
    assert "it is made by rule metric_stats" in message.group(1)
    command = re.search(r"`(snakemake --cores 2 --force \S+)`", message.group(1)).group(1)
    assert command == "snakemake --cores 2 --force results/synthetic-small/stats"  # rule metric_stats' folder
    assert not (workdir / target).exists()  # no partial output
    # the printed command, in the run's folder and with its config (-s, --directory, --configfile as above)
    words = command.split()
    repaired = subprocess.run(
        [sys.executable, "-m", words[0], "-s", str(REPO / "Snakefile"), "--directory", str(workdir),
         "--configfile", str(TINY_CONFIG), *words[1:]],
        env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert repaired.returncode == 0, repaired.stderr[-5000:]
    assert stats.read_bytes() == intact
    final = snakemake(target)
    assert final.returncode == 0, final.stderr[-5000:]
    assert (workdir / target).read_bytes() == good
    # The statistics were remade byte for byte, so what else reads the folder is still right: Snakemake's --touch
    # marks it so, and the run is left as found for the tests that plan jobs on it.
    touched = snakemake("--touch")
    assert touched.returncode == 0, touched.stderr[-5000:]


# ------------------------------------------------------------------------------------------ confidence levels


@pytest.mark.parametrize(
    "given, level", [("0.95", 0.95), ("95", 0.95), ("99.5", 0.995), ("0.5", 0.5), ("1.5", 0.015)]
)
def test_confidence_level_is_a_fraction_or_a_percentage(given: str, level: float) -> None:
    from mtsig.stats.intervals import confidence_level

    assert confidence_level(given) == pytest.approx(level, abs=1e-15)
    assert confidence_level(float(given)) == pytest.approx(level, abs=1e-15)


@pytest.mark.parametrize("given", ["0", "1", "1.0", "100", "-5", "150", "nan", "inf", "ninety"])
def test_ambiguous_or_impossible_confidence_levels_are_refused(
    given: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A confidence level is a percentage strictly between 0 and 100 (``--confidence 1.0`` once printed 1% intervals):
    0, 1, 100 and everything outside (0, 100) are refused,
    by the CLI (one line, exit 2, nothing on stdout) and by the config's schema, with the same rule."""
    from mtsig.stats.intervals import confidence_level

    with pytest.raises(ValueError, match="fraction in \\(0, 1\\).*percentage in \\(1, 100\\)"):
        confidence_level(given)
    for name, data in GOOD.items():
        (tmp_path / name).write_bytes(data)
    paths = [str(tmp_path / name) for name in ("ref.txt", "A.txt", "B.txt")]
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["compare", "--ref", paths[0], "--confidence", given, *paths[1:]])
    assert exit_info.value.code == cli.EXIT_INPUT_ERROR
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and "--confidence: " in err and given in err
    if given == "ninety":
        return
    schema = REPO / "workflow" / "schemas" / "config.schema.yaml"
    config = {"run": ["x"], "resampling": {"confidence": float(given)}}
    sources = mtsig_config.config_sources([REPO / "config" / "config.yaml"], [], {}, [])
    with pytest.raises(InputError, match="config key resampling.confidence"):
        mtsig_config.validate_config(config, schema, sources)


def test_the_config_accepts_a_confidence_level_as_a_fraction_or_a_percentage() -> None:
    schema = REPO / "workflow" / "schemas" / "config.schema.yaml"
    sources = mtsig_config.config_sources([REPO / "config" / "config.yaml"], [], {}, [])
    for level in (95, 0.95):
        mtsig_config.validate_config({"run": ["x"], "resampling": {"confidence": level}}, schema, sources)
