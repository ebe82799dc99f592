"""docs/cli.md's "File formats": every example is a real ten-line file, every command under it runs on the examples
as printed, and prints the numbers the page gives; the error messages the page shows are the ones mtsig prints.

Oracles: sacrebleu's corpus BLEU and chrF of the three text files; the scores' means and the MQM weights (Freitag
et al. 2021, Table 2: Major 5, Minor 1) by hand from the rows printed.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest
import sacrebleu
from cli_runner import run_mtsig
from format_examples import format_commands, format_examples, formats_section, write_format_examples

EXPECTED_FILES = {
    "ref.txt",
    "baseline.txt",
    "ours.txt",
    "docs.txt",
    "comet.tsv",
    "COMET.seg.score",
    "BLEURT-refA.seg.score",
    "ratings.tsv",
    "esa.csv",
    "mqm.tsv",
}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    write_format_examples(tmp_path)
    return tmp_path


def _run(command: str, folder: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    words = shlex.split(command)
    assert words[0] == "mtsig", command
    return run_mtsig(*words[1:], *extra, cwd=folder)


def _command(start: str) -> str:
    (command,) = [c for c in format_commands() if c.startswith(start)]
    return command


def test_every_format_has_a_ten_line_example_and_every_command_runs_as_printed(folder: Path) -> None:
    examples = format_examples()
    assert set(examples) == EXPECTED_FILES
    for name, content in examples.items():
        assert len(content.splitlines()) == 10, name
    assert len(format_commands()) == 8
    for command in format_commands():
        done = _run(command, folder)
        assert done.returncode == 0, f"{command}\n{done.stderr}"
        assert "Traceback" not in done.stderr and done.stdout


def test_outputs_and_references_give_sacrebleus_scores(folder: Path) -> None:
    refs, baseline, ours = (
        (folder / n).read_text().splitlines() for n in ("ref.txt", "baseline.txt", "ours.txt")
    )
    bleu = {
        name: sacrebleu.corpus_bleu(hyps, [refs]).score
        for name, hyps in (("baseline", baseline), ("ours", ours))
    }
    chrf = {
        name: sacrebleu.corpus_chrf(hyps, [refs]).score
        for name, hyps in (("baseline", baseline), ("ours", ours))
    }
    done = _run(_command("mtsig compare --ref ref.txt --metrics"), folder, "--samples", "100", "--json")
    metrics = json.loads(done.stdout)["metrics"]
    assert metrics["bleu"]["scores"] == pytest.approx(bleu, abs=1e-9)
    assert metrics["chrf"]["scores"] == pytest.approx(chrf, abs=1e-9)
    section = formats_section()
    assert f"BLEU {bleu['baseline']:.2f} for baseline and {bleu['ours']:.2f} for ours" in section
    assert f"chrF {chrf['baseline']:.2f} and {chrf['ours']:.2f}" in section


def test_documents_make_the_verdict_document_level(folder: Path) -> None:
    command = _command("mtsig compare --ref ref.txt --docs")
    assert "documents: 3;" in _run(command, folder).stdout
    document = json.loads(_run(command, folder, "--samples", "100", "--json").stdout)
    assert document["conclusions"]["test"] == "paired_bootstrap_documents"


@pytest.mark.parametrize(
    ("command", "metric", "means", "test"),
    [
        (
            "mtsig compare --scores comet.tsv",
            "comet",
            {"sysA.txt": (0.8214 + 0.7730 + 0.9102) / 3, "sysB.txt": (0.8035 + 0.7912 + 0.8874) / 3,
             "sysC.txt": (0.7120 + 0.6985 + 0.8391) / 3},
            "paired_bootstrap_documents",
        ),
        (
            "mtsig compare --scores COMET.seg.score",
            "COMET",
            {"sysA": (0.8214 + 0.7730 + 0.9102 + 0.6541 + 0.7015) / 5,
             "sysB": (0.8035 + 0.7912 + 0.8874 + 0.6012 + 0.6650) / 5},
            "paired_bootstrap_documents",
        ),
        (
            "mtsig compare --scores BLEURT-refA.seg.score",
            "BLEURT-refA",
            {"sysA": (0.6120 + 0.5843 + 0.7011 + 0.4975 + 0.6630) / 5,
             "sysB": (0.5904 + 0.6012 + 0.6548 + 0.4410 + 0.6205) / 5},
            "paired_bootstrap",
        ),
    ],
)  # fmt: skip
def test_segment_scores_give_the_means_of_their_rows(
    folder: Path, command: str, metric: str, means: dict, test: str
) -> None:
    assert command in format_commands()
    document = json.loads(_run(command, folder, "--samples", "100", "--json").stdout)
    assert document["metrics"][metric]["scores"] == pytest.approx(means, abs=1e-12)
    assert document["conclusions"]["test"] == test
    section = formats_section()
    for name, mean in means.items():
        assert f"{name} {mean:.4f}" in section


@pytest.mark.parametrize(
    ("command", "scores"),
    [
        ("mtsig rank --format tidy ratings.tsv", {"sysA": (82 + 75 + 90) / 3, "sysB": (64 + 70 + 81) / 3,
                                                 "sysC": (55 + 61 + 72) / 3}),
        ("mtsig rank esa.csv", {"sysA": (82 + 75 + 90) / 3, "sysB": (64 + 70 + 81) / 3,  # BAD's 20 left out
                                "sysC": (55 + 61 + 72) / 3}),
        ("mtsig rank --format mqm mqm.tsv", {"ref": 0.0, "sysA": (-1 - 5 + 0) / 3, "sysB": (0 - 1 - 1) / 3}),
    ],
)  # fmt: skip
def test_human_ratings_rank_by_the_means_of_their_rows(folder: Path, command: str, scores: dict) -> None:
    assert command in format_commands()
    document = json.loads(_run(command, folder, "--json").stdout)
    ranking = {row["system"]: row["score"] for row in document["ranking"]}
    assert ranking == pytest.approx(scores, abs=1e-12)
    assert [row["system"] for row in document["ranking"]] == sorted(scores, key=scores.get, reverse=True)


def test_the_error_messages_printed_are_mtsigs(folder: Path) -> None:
    """The page's three messages, made by the mistakes they describe."""
    printed = formats_section().split(
        "rows name the systems otherwise than the command does says how to name them:\n\n```text\n"
    )[1]
    printed_lines = printed.split("```", 1)[0].splitlines()
    comet = folder / "comet.tsv"
    original = comet.read_text()
    made = []
    for header in ("system\tsegments\tscore", "system,segment,score"):
        comet.write_text(header + "\n" + original.split("\n", 1)[1])
        made.append(_run("mtsig compare --scores comet.tsv", folder).stderr.strip())
    comet.write_text(original.replace(".txt", ""))  # rows named sysA, sysB, sysC
    for name in ("sysA.txt", "sysB.txt"):
        (folder / name).write_text("\n".join(["x"] * 3) + "\n")
    (folder / "three.txt").write_text("a\nb\nc\n")
    done = _run("mtsig compare --ref three.txt --scores comet.tsv sysA.txt sysB.txt", folder)
    made.append(done.stderr.strip())
    assert made == printed_lines
    # and the fix it gives works: label the systems as the file names them
    done = _run(
        "mtsig compare --ref three.txt --scores comet.tsv --labels sysA,sysB sysA.txt sysB.txt", folder
    )
    assert done.returncode == 0, done.stderr
