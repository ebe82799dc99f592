"""``mtsig --help`` and a sub-command's ``--help`` answer without importing numpy, pandas or scipy: the command
imports what a sub-command needs when it runs (mtsig.cli). Checked on the modules a fresh interpreter holds after
the help is printed, which does not depend on the machine's speed (benchmarks/bench_cli_startup.py times it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("numpy", "pandas", "scipy", "sacrebleu", "numba", "matplotlib")

PROBE = """
import contextlib, io, json, sys
from mtsig.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        main(sys.argv[1:])
    except SystemExit as stop:
        status = stop.code
heavy = sorted({name.split(".")[0] for name in sys.modules} & set(json.loads(HEAVY)))
print(json.dumps({"status": status, "help": out.getvalue(), "heavy": heavy}))
"""


def help_in_fresh_interpreter(*words: str) -> dict:
    """``mtsig WORDS`` (a help) in a fresh interpreter: its exit status, the help text and the heavy modules loaded."""
    code = PROBE.replace("json.loads(HEAVY)", repr(list(HEAVY)))
    done = subprocess.run(
        [sys.executable, "-c", code, *words],
        env={**os.environ, "PYTHONPATH": str(REPO / "src")},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize(
    "words",
    [("--help",), ("rank", "--help"), ("compare", "--help"), ("power", "--help")],
    ids=lambda words: " ".join(words),
)
def test_help_imports_no_numpy_pandas_or_scipy(words: tuple[str, ...]) -> None:
    probe = help_in_fresh_interpreter(*words)
    assert probe["status"] == 0 and probe["help"].startswith("usage: mtsig")
    assert probe["heavy"] == [], f"mtsig {' '.join(words)} imported {probe['heavy']}"


def test_the_root_help_lists_every_subcommand_with_its_own_help_line() -> None:
    """``mtsig --help`` reads each sub-command's HELP from its source: the same line the module holds."""
    from mtsig.cli import subcommands

    text = " ".join(help_in_fresh_interpreter("--help")["help"].split())
    for name, module in subcommands().items():
        assert f"{name} {' '.join(module.HELP.split())}" in text, name


def test_a_subcommand_help_lists_its_options_and_choices() -> None:
    """The lists a parser shows without importing the library are the library's (rank's procedures, the --scores
    layouts)."""
    from mtsig.cli._systems import SCORES_FORMATS
    from mtsig.io.segment_scores import FORMATS

    assert SCORES_FORMATS == tuple(FORMATS)
    rank = " ".join(help_in_fresh_interpreter("rank", "--help")["help"].split())
    assert "stratified_permutation_documents" in rank and "--alpha ALPHA" in rank
    compare = " ".join(help_in_fresh_interpreter("compare", "--help")["help"].split())
    assert "--labels A,B,..." in compare and "--runs NAME=RUN1,RUN2,..." in compare
