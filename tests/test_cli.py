"""The ``mtsig compare`` command (in process, as the console script runs it) on small files; numbers checked against sacrebleu."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pandas as pd
import pytest
import sacrebleu
from cli_runner import run_mtsig

from mtsig.stats.resampling import PAPER_TESTS

REFS = [
    "the cat sat on the mat",
    "a quick brown fox jumps over the lazy dog",
    "we may find ourselves there once again",
    "but if the ceo is not accountable , who is ?",
    "all for the good",
    "this does not matter at all",
]
SYSTEMS = {
    "alpha.txt": [
        "the cat sat on a mat",
        "a quick brown fox jumped over the lazy dog",
        "we may find ourselves there again",
        "but if the ceo is not responsible , who is ?",
        "all for good",
        "this does not matter",
    ],
    "beta.txt": [
        "cat sat mat",
        "the fast brown fox jumps over a lazy dog",
        "we could be there once more",
        "if the boss is not accountable who is",
        "all is for the good",
        "it does not matter at all",
    ],
    "gamma.txt": [
        "the cat is on the mat",
        "quick brown fox jumps over lazy dog",
        "we may find ourselves there once again",
        "but if the ceo is not accountable , who will be ?",
        "everything for the good",
        "this does not matter at all",
    ],
}


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    paths = {"ref": tmp_path / "ref.txt"}
    paths["ref"].write_text("\n".join(REFS) + "\n", encoding="utf-8")
    for name, lines in SYSTEMS.items():
        paths[name] = tmp_path / name
        paths[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return paths


def run(*args: object) -> subprocess.CompletedProcess[str]:
    return run_mtsig("compare", *args)


def systems(files: dict[str, Path]) -> list[Path]:
    return [files[name] for name in SYSTEMS]


def test_tsv_has_every_ordered_pair_and_sacrebleu_differences(files) -> None:
    done = run(
        "--ref",
        files["ref"],
        "--metrics",
        "bleu",
        "--samples",
        "200",
        "--seed",
        "7",
        "--tsv",
        *systems(files),
    )
    assert done.returncode == 0, done.stderr
    table = pd.read_csv(io.StringIO(done.stdout), sep="\t")
    assert len(table) == 6 * len(PAPER_TESTS)  # 3 systems: 6 ordered pairs
    assert set(table["test"]) == set(PAPER_TESTS)
    assert (table["seed"] == 7).all() and (table["samples"] == 200).all()
    bleu = {name: sacrebleu.corpus_bleu(lines, [REFS]).score for name, lines in SYSTEMS.items()}
    for row in table.itertuples():
        assert row.statistic == pytest.approx(bleu[row.sys_x] - bleu[row.sys_y], abs=1e-8)
        assert 0.0 <= row.p_value <= 1.0


def test_json_reports_scores_seed_and_ter_orientation(files) -> None:
    done = run("--ref", files["ref"], "--metrics", "bleu,ter", "--samples", "100", "--json", *systems(files))
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["seed"] == 12345
    ter = {name: sacrebleu.corpus_ter(lines, [REFS]).score for name, lines in SYSTEMS.items()}
    assert document["metrics"]["ter"]["scores"] == pytest.approx(ter)
    assert document["metrics"]["ter"]["higher_is_better"] is False
    for row in document["results"]:
        if row["metric"] == "ter":  # positive statistic = X better = lower TER
            assert row["statistic"] == pytest.approx(ter[row["sys_y"]] - ter[row["sys_x"]], abs=1e-8)


def test_readable_table_shows_seed_scores_and_each_pair_once(files) -> None:
    first = run("--ref", files["ref"], "--samples", "100", "--seed", "3", *systems(files))
    second = run("--ref", files["ref"], "--samples", "100", "--seed", "3", *systems(files))
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout  # same seed, same bytes
    assert "seed=3" in first.stdout
    scores_part = first.stdout.split("System scores", 1)[1].split("\nBLEU:", 1)[0]
    score_rows = [
        line.split() for line in scores_part.splitlines() if line.split()[:1] and line.split()[0] in SYSTEMS
    ]
    assert [row[0] for row in score_rows] == list(SYSTEMS)
    pairs_part = first.stdout.split("\nBLEU: statistic", 1)[1].split("\n\n", 1)[0]
    pair_rows = [line.split() for line in pairs_part.splitlines()[2:]]
    # Each unordered pair once, in the order the systems were given (X listed first, whichever is better: the
    # statistic is BLEU(X) - BLEU(Y) by sacrebleu), one p-value per test.
    assert [tuple(row[:2]) for row in pair_rows] == [
        ("alpha.txt", "beta.txt"),
        ("alpha.txt", "gamma.txt"),
        ("beta.txt", "gamma.txt"),
    ]
    bleu = {name: sacrebleu.corpus_bleu(lines, [REFS]).score for name, lines in SYSTEMS.items()}
    for row in pair_rows:
        assert float(row[2]) == pytest.approx(bleu[row[0]] - bleu[row[1]], abs=5e-5)
        # Then the percentile and BCa intervals ("[low," "high]" each), the preferred system and the verdict.
        assert len(row) == 3 + len(PAPER_TESTS) + 4 + 2
        assert row[-2] == (row[0] if bleu[row[0]] > bleu[row[1]] else row[1])
        assert row[-1] in {"yes", "no"}


def test_mismatched_line_counts_exit_2_naming_the_file(files, tmp_path) -> None:
    short = tmp_path / "short.txt"
    short.write_text("only one line\n", encoding="utf-8")
    done = run("--ref", files["ref"], files["alpha.txt"], short)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "short.txt" in done.stderr and "1 lines" in done.stderr and "6" in done.stderr


def test_unknown_metric_and_test_exit_2(files) -> None:
    done = run("--ref", files["ref"], "--metrics", "bleu,rouge", *systems(files))
    assert done.returncode == 2 and "unknown metric(s) rouge" in done.stderr
    done = run("--ref", files["ref"], "--tests", "t_test", *systems(files))
    assert done.returncode == 2 and "unknown test" in done.stderr


def test_one_system_is_an_error(files) -> None:
    done = run("--ref", files["ref"], files["alpha.txt"])
    assert done.returncode == 2 and "at least two" in done.stderr


def test_every_subcommand_is_one_module_of_the_cli_package() -> None:
    """A new sub-command is one new file under ``mtsig/cli/`` (HELP, add_arguments, run)."""
    import mtsig.cli as package
    from mtsig.cli import build_parser, subcommands

    commands = subcommands()
    assert {"compare", "power", "verify"} <= set(commands) and list(commands) == sorted(commands)
    for name, module in commands.items():
        assert module.__name__ == f"mtsig.cli.{name}"
        assert module.__file__ == str(Path(package.__file__).with_name(f"{name}.py"))
        assert isinstance(module.HELP, str) and callable(module.add_arguments) and callable(module.run)
    choices = next(a for a in build_parser()._actions if a.dest == "command").choices
    assert list(choices) == list(commands)


def test_a_system_and_its_byte_copy_are_never_significant(files, tmp_path: Path) -> None:
    """A system against a byte copy of itself gets p = 1 from every test (it once printed ``paired_bootstrap 0.0000``; ties
    are no evidence, docs/statistics.md), in both orders, also in the readable report."""
    from mtsig.stats.resampling import ALL_TESTS

    copy = tmp_path / "alpha_copy.txt"
    copy.write_bytes(files["alpha.txt"].read_bytes())
    docs = tmp_path / "docs.txt"
    docs.write_text("d1\nd1\nd2\nd2\nd3\nd3\n", encoding="utf-8")
    common = ["--ref", files["ref"], "--samples", 200, "--docs", docs, "--tests", ",".join(ALL_TESTS)]
    done = run(*common, "--metrics", "bleu,chrf,ter", "--tsv", files["alpha.txt"], copy)
    assert done.returncode == 0, done.stderr
    table = pd.read_csv(io.StringIO(done.stdout), sep="\t")
    assert len(table) == 3 * 2 * len(ALL_TESTS)
    assert (table["statistic"] == 0).all() and (table["p_value"] == 1.0).all()
    text = run(*common, files["alpha.txt"], copy)
    assert text.returncode == 0, text.stderr
    row = next(line for line in text.stdout.splitlines() if line.startswith("alpha.txt  alpha_copy.txt"))
    assert row.split()[3 : 3 + len(ALL_TESTS)] == ["1.0000"] * len(ALL_TESTS)
    assert row.split()[-1] == "no"
