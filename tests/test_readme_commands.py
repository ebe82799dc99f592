"""Every shell command printed in the READMEs runs as printed, in order, as a reader types it.

The commands are taken from README.md, the docs/ pages it links that print commands, and the READMEs under config/,
profiles/, data/ and benchmarks/ (``READMES``): every line of a fenced block marked ``bash``, ``sh``, ``shell`` or
``console`` (a ``$ `` prompt is dropped), of an unmarked block whose lines all start with a command (a line ending in
a backslash continues on the next), and every inline code span that starts with ``snakemake``, ``mtsig`` or
``python``. They run where a reader runs them: in a copy of the repository (a reader's clone, made once) with the
data beside it as the READMEs assume (``../shared/data``, a link to the ``data_root`` fixture), from the clone's
folder, with the environment exactly as the page sets it: no ``MTSIG_DATA`` unless the page exports it, and every
``export NAME=value`` of the page's earlier blocks kept (relative values included), as a reader's shell keeps
them. So a sequence that breaks for a reader breaks here. Rules (a command the rules do not cover fails the test,
so a new command in a README cannot go untested):

- ``snakemake ...``: run as printed with ``-n`` added (a dry run; the full pipeline takes minutes); it must build
  its DAG and exit 0. The sharding command must plan 16 ``resample_tests`` jobs per (experiment, metric).
  ``snakemake --unlock ...`` runs as printed and must exit 0. Lines that differ only in ``--cores``/``-j``, ``-q``
  or ``-n`` are one dry run (the default run is printed with several of them) and run once per environment. The
  process's first Snakemake command runs in a fresh interpreter (``python -m snakemake``), the later ones in this
  process through the function ``python -m snakemake`` calls (``snakemake.cli.main``), in the clone's folder with
  the reader's environment exactly (the Snakefile is parsed again each time): the same command line, without the
  imports of a fresh interpreter.
- ``mtsig compare ...``, ``mtsig power ...``: run in full, on the files it names made from WMT12 es-en
  (``newstest.ref`` the reference, ``sysA.txt``... three system outputs, ``newstest.ref.sgm`` the reference SGML);
  it must exit 0 and print a result for every pair. The example files of docs/cli.md's "File formats" (``ref.txt``,
  ``comet.tsv``, ...) are written where they run, as printed there (``tests/format_examples.py``). The first README command of each sub-command (``compare``,
  ``metrics``) runs through bash in a fresh interpreter (the console script); ``power``'s (about 15 CPU s for
  6 sizes x 5 differences x 200 trials x 1000 resamples) runs with the later ones, and ``tests/test_power.py`` runs the
  console script on a small grid instead (:data:`COSTLY_FIRST`); the later ones are
  checked by the sub-command's own parser on the words bash expands the line to (variables, globs, quotes), and
  run in full by the slow suite (``test_readme_computing_command_runs_in_full``, about a minute of CPU), in this
  process (``tests/cli_runner.py``, the reader's environment set), with stdout written where its ``>`` points: the
  same command, as printed, without 1.5-2.5 CPU s of imports. A line printed twice (README.md and docs/cli.md)
  with the same folder and environment runs once.
- ``mtsig metrics ...``: run in full on the real WMT20 files it names; it must
  exit 0 and print the Williams winners and PERM-BOTH p-values; with ``--mtme`` (the WMT23 folder) the protocol's
  table and its signature.
- ``mtsig verify ...``: the checksum list it names must be the repository's, and run where there are no results it
  must exit 2 saying so (``tests/test_verification.py`` runs it on real results, the quick check's); the first one
  through the console script (the same line on several pages with the same environment: once), the others in this
  process.
- ``python -m pytest ...``: run with ``--collect-only --assert=plain`` (running the suite inside itself would recurse); the
  README's test command must collect no Slurm test, the Slurm command only Slurm tests.
- ``python benchmarks/<script>.py ...``: run with ``--help`` (each benchmark takes minutes, and its figures are
  printed, never asserted); the documented sub-command must be one of the script's choices.
- ``pip install ...``: never run (tests install nothing): the extra it names must exist in pyproject.toml, the
  constraints file it names in the repository.
- ``export VAR=value`` and ``VAR=value`` alone apply to the README's later commands.
- a fenced ``python`` block (docs/cli.md's "From Python"): run in full, as a script in a fresh interpreter in the
  clone with the page's exports; it must exit 0 and print something.

Inline spans with placeholders that do not exist are listed in ``NOT_RUNNABLE`` with the reason.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tomllib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_runner import run_mtsig
from format_examples import write_format_examples
from pipeline_runs import copy_checkout
from snakemake_runner import run_snakemake

REPO = Path(__file__).resolve().parents[1]
# The blocks of Snakemake, pytest and the other quick commands run in one process (the xdist group), which runs a
# command printed twice once (_run_once); the blocks that compute (mtsig compare, power, metrics) are spread over
# the workers like any test.
QUICK_GROUP = "readme_commands"
COMPUTING = ("compare", "power", "metrics")  # mtsig sub-commands run in full
#: Sub-commands whose first README command runs in a fresh interpreter (the console script), the others in this one.
ONE_FRESH_RUN = (*COMPUTING, "verify")
#: Sub-commands whose README commands are all run in full by the slow suite only (parsed by the quick one): their
#: first costs too much CPU for the test command's budget, and a test of the console script on a small input
#: stands in (power: tests/test_power.py::test_console_script_prints_the_power_table).
COSTLY_FIRST = ("power",)
READMES = [
    "README.md",
    "docs/install.md",
    "docs/cli.md",
    "docs/outputs.md",
    "docs/paper.md",
    "docs/results.md",
    "docs/wmt20-metrics.md",
    "docs/artifact-review.md",
    "docs/cluster.md",
    "docs/speed.md",
    "docs/testing.md",
    "docs/extending.md",
    "docs/repository.md",
    "config/README.md",
    "profiles/slurm/README.md",
    "data/README.md",
    "benchmarks/README.md",
]
SHELL_FENCES = {"bash", "sh", "shell", "console"}
COMMAND_WORDS = ("snakemake", "mtsig", "python", "pip", "export", "MTSIG_DATA=")

#: Inline commands that name a file or plugin the reader supplies; each is a template, not a command to run.
NOT_RUNNABLE = {
    "snakemake --cores 8 --configfile config/my-pair.yaml": "config/my-pair.yaml is the reader's own file",
    "snakemake --executor kubernetes --default-storage-provider ...": "a plugin the reader installs; '...' elided",
    "pip install snakemake-executor-plugin-kubernetes": "installs a plugin (tests install nothing)",
    "snakemake --report results/report.html": "needs a finished run (Snakemake's own report command)",
    "mtsig compare": "the command's name, not a command line",
    "mtsig power": "the command's name, not a command line",
    "python -m build": "builds the wheel; tests/test_wheel.py builds it and installs it into a temporary venv",
    "pip wheel --no-deps .": "builds the wheel; tests/test_wheel.py does, in a temporary folder",
    "pip install mtsig-0.1.0-py3-none-any.whl": "installs (tests install nothing here; tests/test_wheel.py installs "
    "the wheel into a temporary venv)",
    "python tests/data_mirror.py ../shared/data": "serves until interrupted; tests/test_download_http.py runs the "
    "same mirror in its own process",
}

WMT12 = {
    "newstest.ref": "wmt12/plain/newstest2012-ref.en",
    "newstest.ref.sgm": "wmt12/sgm/newstest2012-ref.en.sgm",
    "sysA.txt": "wmt12/system-outputs/es-en/newstest2012.es-en.onlineA",
    "sysB.txt": "wmt12/system-outputs/es-en/newstest2012.es-en.onlineB",
    "sysC.txt": "wmt12/system-outputs/es-en/newstest2012.es-en.uedin-wmt12",
}


@dataclass(frozen=True)
class Command:
    readme: str
    block: int  # a fenced block, or one inline span
    text: str
    position: int = 0  # where in the README it is printed: the order a reader meets it

    def __str__(self) -> str:
        return f"{self.readme}: {self.text}"


def _is_shell_block(info: str, body: str) -> bool:
    if info.strip() in SHELL_FENCES:
        return True
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    return not info.strip() and bool(lines) and all(line.startswith(COMMAND_WORDS) for line in lines)


def readme_commands() -> list[Command]:
    """Every command of the READMEs, README by README in the order printed (see the module docstring)."""
    commands: list[Command] = []
    block = 0
    for readme in READMES:
        text = (REPO / readme).read_text(encoding="utf-8")
        fences = list(re.finditer(r"^```([^\n]*)\n(.*?)^```", text, flags=re.S | re.M))
        found: list[Command] = []
        for match in fences:
            if not _is_shell_block(match.group(1), match.group(2)):
                continue
            block += 1
            body = re.sub(r"\\\n\s*", " ", match.group(2))  # a line ending in a backslash continues
            for line in body.splitlines():
                line = line.strip().removeprefix("$ ")
                if line and not line.startswith("#"):
                    found.append(Command(readme, block, line, match.start()))
        prose_starts = [0] + [match.end() for match in fences]
        prose_ends = [match.start() for match in fences] + [len(text)]
        for start, end in zip(prose_starts, prose_ends, strict=True):
            for span in re.finditer(r"`([^`]+)`", text[start:end]):
                command = " ".join(span.group(1).split())
                if (
                    command.startswith(("snakemake ", "mtsig ", "python ", "pip "))
                    or command == "mtsig compare"
                ):
                    block += 1
                    found.append(Command(readme, block, command, start + span.start()))
        commands += sorted(found, key=lambda c: c.position)
    return commands


def _strip_comment(line: str) -> str:
    """A command without its trailing ``# comment``: a ``#`` after whitespace and outside quotes, as bash reads it."""
    quote = None
    for index, char in enumerate(line):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            return line[:index].strip()
    return line.strip()


@pytest.fixture(scope="session")
def reader_clone(tmp_path_factory: pytest.TempPathFactory, data_root: Path) -> Path:
    """``<tmp>/mtsig``, a copy of the repository, with the data beside it: ``<tmp>/shared/data`` (a link)."""
    parent = tmp_path_factory.mktemp("reader")
    (parent / "shared").mkdir()
    (parent / "shared" / "data").symlink_to(data_root)
    return copy_checkout(parent / "mtsig")


def _env(clone: Path, extra: dict[str, str]) -> dict[str, str]:
    """A reader's environment in the clone: this process's without MTSIG_DATA (set only where the README sets
    it), the clone's code on PYTHONPATH (as `pip install -e .` there would make it), a shell's PWD, and ``extra``."""
    env = {key: value for key, value in os.environ.items() if key not in ("MTSIG_DATA", "PWD")}
    env = {**env, "PWD": str(clone), **extra}
    env["PYTHONPATH"] = os.pathsep.join([str(clone / "src"), env.get("PYTHONPATH", "")])
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def _run(
    args: list[str], cwd: Path, env: dict[str, str], timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


# Results of commands already run by this process, by command line, folder and environment: the READMEs print some
# commands several times (`snakemake --cores 8`, the test command), and the same command with the same environment
# gives the same result (the module is one xdist group: one process runs all).
_ALREADY_RUN: dict[tuple, subprocess.CompletedProcess[str]] = {}


def _run_once(
    args: list[str],
    cwd: Path,
    env: dict[str, str],
    key: tuple,
    timeout: float = 600,
    unread: tuple[str, ...] = (),
    run: Callable[[list[str], Path, dict[str, str], float], subprocess.CompletedProcess[str]] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``_run(args, cwd, env)`` (or ``run``'s), or the result of the run with the same ``key`` made earlier by this
    process; ``unread``: environment variables the command does not read (left out of the comparison)."""
    # PYTEST_CURRENT_TEST names the running test: the one variable that differs between two identical runs
    ignored = {"PYTEST_CURRENT_TEST", *unread}
    key = (key, str(cwd), tuple(sorted(item for item in env.items() if item[0] not in ignored)))
    if key not in _ALREADY_RUN:
        _ALREADY_RUN[key] = (run or _run)(args, cwd, env, timeout)
    return _ALREADY_RUN[key]


#: Whether this process has run Snakemake in a fresh interpreter yet (:func:`_run_snakemake_args`).
_SNAKEMAKE_STARTED = []


def _run_snakemake_args(
    args: list[str], cwd: Path, env: dict[str, str], timeout: float
) -> subprocess.CompletedProcess[str]:
    """``python -m snakemake ARGS`` (``args`` without the interpreter and ``-m snakemake``), as ``_run`` runs it: the
    process's first in a fresh interpreter, the later ones in this process through Snakemake's own entry point
    (``snakemake.cli.main``, what ``python -m snakemake`` calls), in ``cwd`` with exactly the environment ``env``
    (tests/snakemake_runner.py). The same command line, parsed and planned by the same code, without the imports of
    a fresh interpreter."""
    if not _SNAKEMAKE_STARTED:
        _SNAKEMAKE_STARTED.append(True)
        return _run([sys.executable, "-m", "snakemake", *args], cwd, env, timeout)
    return run_snakemake(args, cwd, env)


def _mtsig_words(line: str, workdir: Path, env: dict[str, str], scratch: Path) -> list[str]:
    """The words after ``mtsig`` that bash passes to the command ``line`` in ``workdir`` with ``env`` (variables,
    globs and quotes expanded; a ``> FILE`` redirect is made by bash, which creates the file)."""
    argv = scratch / "mtsig-argv"
    script = f'mtsig() {{ printf "%s\\0" "$@" > {shlex.quote(str(argv))}; }}\n{line}'
    done = _run(["bash", "-c", script], workdir, env, timeout=60)
    assert done.returncode == 0 and argv.is_file(), f"bash could not expand {line}\n{done.stderr}"
    return argv.read_text().split("\0")[:-1]


def _first_of_each_subcommand() -> set[str]:
    """The README command text that first uses each sub-command of ``ONE_FRESH_RUN``, in README order."""
    first: dict[str, str] = {}
    for command in readme_commands():
        if command.text in NOT_RUNNABLE:
            continue
        for part in _strip_comment(command.text).split("&&"):
            words = part.split()
            if (
                words[:1] == ["mtsig"]
                and len(words) > 1
                and words[1] in ONE_FRESH_RUN
                and words[1] not in COSTLY_FIRST
            ):
                first.setdefault(words[1], command.text)
    return set(first.values())


FIRST_OF_EACH_SUBCOMMAND = _first_of_each_subcommand()


def _run_computing(
    line: str, env: dict[str, str], workdir: Path, command: Command, timeout: float, full: bool
) -> subprocess.CompletedProcess[str] | None:
    """``mtsig ...`` (a ``compare``, ``power`` or ``metrics`` line): through bash and the console script if it is
    the README's first command of its sub-command; else, with ``full``, in this process on bash's expansion of it
    (the module docstring), and without, only parsed by the sub-command's own parser (None: nothing ran); a ``>
    FILE`` redirect gets stdout either way."""
    if command.text in FIRST_OF_EACH_SUBCOMMAND:
        # README.md and docs/cli.md print the same example: it runs once (the same line, folder and environment)
        return _run_once(["bash", "-c", line], workdir, env, key=("bash", line), timeout=timeout)
    scratch = workdir / ".argv"
    scratch.mkdir(exist_ok=True)
    words = _mtsig_words(line, workdir, env, scratch)
    if not full:
        from mtsig.cli import build_parser

        try:
            build_parser().parse_args(words)
        except SystemExit as stop:
            if stop.code == 0 and "--help" in words:  # the parser prints the help and ends, as asked
                return None
            pytest.fail(f"{command}: the parser of mtsig {words[0]} refuses it (exit {stop.code})")
        return None
    done = _in_process(words, env, workdir)
    redirect = re.search(r">\s*(\S+)", line)
    if redirect:
        (workdir / redirect.group(1)).write_text(done.stdout)
    return done


def _in_process(words: list[str], env: dict[str, str], workdir: Path) -> subprocess.CompletedProcess[str]:
    """``mtsig WORDS`` in this process (tests/cli_runner.py), in ``workdir``, with the reader's environment ``env``
    as the console script would see it."""
    with pytest.MonkeyPatch.context() as patch:
        for name in set(os.environ) - set(env):
            patch.delenv(name)
        for name, value in env.items():
            patch.setenv(name, value)
        return run_mtsig(*words, cwd=workdir)


#: Options that change nothing a dry run (or an unlock) checks: how many jobs run at once and how much is printed.
_SCHEDULING_OPTIONS = {
    "--cores": 1,
    "-c": 1,
    "--jobs": 1,
    "-j": 1,
    "-q": 0,
    "--quiet": 0,
    "-n": 0,
    "--dry-run": 0,
}


def _dry_run_key(args: list[str]) -> tuple[str, ...]:
    """``args`` without :data:`_SCHEDULING_OPTIONS` (and their values): the README prints the default run as
    ``snakemake --cores 8``, ``--cores 2``, ``--cores 2 -q``, ``-n``... on several pages, which are one dry run."""
    kept, skip = [], 0
    for word in args:
        if skip:
            skip -= 1
        elif word in _SCHEDULING_OPTIONS:
            skip = _SCHEDULING_OPTIONS[word]
        else:
            kept.append(word)
    return tuple(kept)


def _run_snakemake(words: list[str], env: dict[str, str], clone: Path, command: Command) -> str:
    if "--unlock" in words:  # run as printed: it only removes a lock Snakemake left in the folder
        args = words[1:]
        done = _run_once(args, clone, env, key=("unlock", *_dry_run_key(args)), run=_run_snakemake_args)
        assert done.returncode == 0, f"{command}\n{done.stderr[-3000:]}"
        return done.stdout + done.stderr
    args = [*words[1:], "-n"]
    done = _run_once(args, clone, env, key=_dry_run_key(args), run=_run_snakemake_args)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{command}\n{output[-4000:]}"
    assert "Building DAG of jobs" in output, output[-2000:]
    if "pair_shards: 16" in command.text:
        planned = re.search(r"^resample_tests\s+(\d+)$", output, flags=re.M)
        assert planned is not None, output[-3000:]
        merges = int(re.search(r"^merge_tests\s+(\d+)$", output, flags=re.M).group(1))
        # 16 shards of every metric of every experiment, one merge per experiment
        shards = re.findall(r"wildcards: experiment=([^,\s]+), metric=([^,\s]+), shard=\d+", output)
        per_metric = Counter(shards)
        assert int(planned.group(1)) == len(shards) and set(per_metric.values()) == {16}, output[-3000:]
        assert len({experiment for experiment, _ in per_metric}) == merges, output[-3000:]
    return output


def _run_mtsig(
    line: str, env: dict[str, str], workdir: Path, data_root: Path, command: Command, full: bool
) -> None:
    for name, relative in WMT12.items():
        target = workdir / name
        if not target.exists():
            target.symlink_to(data_root / relative)
    write_format_examples(workdir)  # docs/cli.md's "File formats" examples (ref.txt, comet.tsv, ...)
    done = _run_computing(line, env, workdir, command, timeout=900, full=full)
    if done is None:
        return
    assert done.returncode == 0, f"{command}\n{done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr
    redirect = re.search(r">\s*(\S+)", line)
    output = (workdir / redirect.group(1)).read_text() if redirect else done.stdout
    shown = _shown_names(line)
    for x in shown.values():
        for y in shown.values():
            if x < y:
                assert re.search(
                    rf"{re.escape(x)}\s+{re.escape(y)}|{re.escape(y)}\s+{re.escape(x)}", output
                ), f"{command}: no result for {x} vs {y}\n{output[:2000]}"


def _shown_names(line: str) -> dict[str, str]:
    """The output files of WMT12 a command names (sysA.txt, ...) -> the name its output gives each: its label
    (``--labels A,B`` in the order given, or ``A=sysA.txt``), else the file name."""
    words = shlex.split(line)
    files = [
        w.split("=", 1)[-1] for w in words if w.split("=", 1)[-1] in ("sysA.txt", "sysB.txt", "sysC.txt")
    ]
    labels = words[words.index("--labels") + 1].split(",") if "--labels" in words else None
    inline = {
        w.split("=", 1)[1]: w.split("=", 1)[0] for w in words if "=" in w and w.split("=", 1)[1] in files
    }
    if labels is not None:  # labels of the command's own files when it names none of these
        return dict(zip(files, labels, strict=True)) if files else {}
    return {name: inline.get(name, name) for name in files}


def _run_metrics(line: str, env: dict[str, str], workdir: Path, command: Command, full: bool) -> None:
    """``mtsig metrics``: run in full (bash expands the glob) on the real WMT20 files it names; it must exit 0 and
    print (or write, after ``>``) the Williams winners and a PERM-BOTH result (tests/test_cli_metrics.py checks the
    numbers). With ``--mtme`` (a metrics task's protocol on the WMT23 folder): the table and its signature
    (tests/test_metrics_protocol.py checks the numbers)."""
    done = _run_computing(line, env, workdir, command, timeout=300, full=full)
    if done is None:
        return
    assert done.returncode == 0, f"{command}\n{done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr
    redirect = re.search(r">\s*(\S+)", line)
    output = (workdir / redirect.group(1)).read_text() if redirect else done.stdout
    if "--mtme" in line:
        assert "XCOMET-Ensemble" in output and "signature: mtsig:" in output and "|protocol:" in output, (
            output[:2000]
        )
        return
    assert ("Williams winners" in output or '"winners"' in output) and "perm" in output.lower(), output[:2000]


def _run_verify(words: list[str], env: dict[str, str], workdir: Path, command: Command) -> None:
    """``mtsig verify``: needs the results of a finished run (tests/test_verification.py runs it on the quick check);
    here the checksum list it names must be the repository's, and in a folder without results it must parse its
    options and say there are none, on one line, exit 2."""
    from mtsig.pipeline.verification import read_checksums

    expected = words[words.index("--expected") + 1] if "--expected" in words else "checksums/default-run.tsv"
    assert not read_checksums(REPO / expected).empty, command
    if command.text in FIRST_OF_EACH_SUBCOMMAND:  # the console script (a line printed on several pages: once)
        done = _run_once(["mtsig", *words[1:]], workdir, env, key=("mtsig", *words[1:]))
    else:
        done = _in_process(words[1:], env, workdir)
    assert done.returncode == 2 and "no results folder here" in done.stderr, f"{command}\n{done.stderr}"
    assert len(done.stderr.splitlines()) == 1


def _run_pytest(words: list[str], env: dict[str, str], clone: Path, command: Command) -> None:
    if "-n" in words:  # collected as one process: xdist's workers would print no test ids
        at = words.index("-n")
        words = words[:at] + words[at + 2 :]
    # only collected: --assert=plain spares rewriting the assertions of every test module, which collecting never runs
    args = [sys.executable, *words[1:], "--collect-only", "--assert=plain"]
    # collecting reads no data (only the data_root fixture does, when a test runs): README.md's test command (after
    # its `export MTSIG_DATA`) and profiles/slurm/README.md's `python -m pytest -q` collect the same
    done = _run_once(args, clone, env, key=tuple(args), unread=("MTSIG_DATA",))
    assert done.returncode == 0, f"{command}\n{done.stdout[-3000:]}{done.stderr[-2000:]}"
    collected = [line for line in done.stdout.splitlines() if "::" in line]
    assert collected, done.stdout[-2000:]
    slurm = [test for test in collected if test.startswith("tests/test_slurm.py")]
    if "slurm" in words:
        assert slurm == collected, "the Slurm command collects other tests"
    else:  # the user's test command must never install system packages or touch /etc
        assert not slurm, f"{command} collects the Slurm test: {slurm}"


def _run_benchmark(words: list[str], env: dict[str, str], clone: Path, command: Command) -> None:
    """``--help`` only; every option the README gives must be one the script has, every sub-command one of its
    choices."""
    args = [sys.executable, words[1], "--help"]
    done = _run_once(args, clone, env, key=tuple(args))  # a script printed with several sub-commands: once
    assert done.returncode == 0, f"{command}\n{done.stderr[-2000:]}"
    choices = re.search(r"\{([a-z_,]+)\}", done.stdout)
    arguments = iter(words[2:])
    for argument in arguments:
        if argument.startswith("--"):
            option = re.search(rf"{re.escape(argument)}( [A-Z_]+)?", done.stdout)
            assert option is not None, f"{command}: no option {argument}\n{done.stdout}"
            if option.group(1):
                next(arguments)  # its value
        else:
            assert choices is not None and argument in choices.group(1).split(","), (
                f"{command}: {done.stdout}"
            )


def _run_pip(words: list[str], command: Command) -> None:
    assert words[:3] == ["pip", "install", "-e"], (
        f"{command}: only `pip install -e .` or `.[extra]` is understood"
    )
    if "-c" in words:  # the constraints file it names is the repository's
        assert (REPO / words[words.index("-c") + 1]).is_file(), command
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    if words[3] == ".":  # the package alone: the library and the mtsig command
        assert "mtsig" in pyproject["project"]["scripts"], command
        return
    extra = re.fullmatch(r"\.\[(\w+)\]", words[3])
    assert extra is not None, command
    assert extra.group(1) in pyproject["project"]["optional-dependencies"], command


def _expand(value: str, env: dict[str, str]) -> str:
    """``$NAME`` in ``value`` replaced by its value in ``env`` (empty if unset), as bash expands an assignment."""
    return re.sub(r"\$(\w+)", lambda match: env.get(match.group(1), ""), value)


def _assign(part: str, exported: dict[str, str], local: dict[str, str]) -> bool:
    """Apply ``export NAME=value`` (to ``exported``, the environment) or ``NAME=value`` alone (to ``local``, a shell
    variable) as bash does, expanding ``$NAME``; False for any other command."""
    words = shlex.split(part)
    target = local
    if words[:1] == ["export"] and len(words) == 2 and "=" in words[1]:
        words, target = words[1:], exported
    if not words or not all(re.fullmatch(r"[A-Z_]+=.*", word) for word in words):
        return False
    for word in words:
        key, value = word.split("=", 1)
        target[key] = _expand(value, {**exported, **local})
    return True


def _shell_before(block: list[Command]) -> tuple[dict[str, str], dict[str, str]]:
    """What a reader's shell holds on reaching ``block``: the exported and the plain variables set by the README's
    earlier commands."""
    first, exported, local = block[0], {}, {}
    for command in readme_commands():
        if command.readme == first.readme and command.position < first.position:
            for part in _strip_comment(command.text).split("&&"):
                _assign(part.strip(), exported, local)
    return exported, local


def _run_block(
    commands: list[Command],
    data_root: Path,
    clone: Path,
    shell: tuple[dict[str, str], dict[str, str]] = ({}, {}),
    full: bool = False,
) -> None:
    """Run a block's commands in order in ``clone``, from the shell state ``shell`` (exported, plain variables);
    ``full``: every computing command in full (else only the first of each sub-command, the others parsed)."""
    exported, local = dict(shell[0]), dict(shell[1])
    for command in commands:
        for part in _strip_comment(command.text).split("&&"):
            part = part.strip()
            if _assign(part, exported, local):
                continue
            words = shlex.split(part)
            prefix = {}
            while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
                key, value = words.pop(0).split("=", 1)
                prefix[key] = value
            env = _env(clone, {**exported, **prefix})
            if words[0] == "snakemake":
                _run_snakemake(words, env, clone, command)
            elif words[:2] == ["mtsig", "verify"]:
                _run_verify(words, env, clone, command)
            elif words[0] == "mtsig":  # run by bash, which expands the shell's plain variables too
                shell_env = _env(clone, {**exported, **local, **prefix})
                if words[1] == "metrics":
                    _run_metrics(part, shell_env, clone, command, full)
                else:
                    _run_mtsig(part, shell_env, clone, data_root, command, full)
            elif words[:3] == ["python", "-m", "pytest"]:
                _run_pytest(words, env, clone, command)
            elif words[0] == "python" and words[1].startswith("benchmarks/"):
                _run_benchmark(words, env, clone, command)
            elif words[0] == "pip":
                _run_pip(words, command)
            else:
                pytest.fail(f"no rule to run {command}; extend tests/test_readme_commands.py")


def _blocks() -> list[list[Command]]:
    blocks: dict[int, list[Command]] = {}
    for command in readme_commands():
        if command.text not in NOT_RUNNABLE:
            blocks.setdefault(command.block, []).append(command)
    return list(blocks.values())


def _computes(block: list[Command]) -> bool:
    """Whether a block runs an mtsig sub-command in full (outside the group of quick commands)."""
    return any(
        f"mtsig {name} " in f" {_strip_comment(command.text)}" for command in block for name in COMPUTING
    )


def _block_params() -> list:
    return [
        pytest.param(
            block,
            marks=() if _computes(block) else pytest.mark.xdist_group(QUICK_GROUP),
            id=f"{block[0].readme}:{block[0].text[:50]}",
        )
        for block in _blocks()
    ]


def test_the_readmes_print_the_commands_this_test_runs() -> None:
    commands = readme_commands()
    texts = [c.text for c in commands]
    # the sharding command of the Slurm profile and the quick start are found
    assert "snakemake --profile profiles/slurm --config resampling='{pair_shards: 16}'" in [
        _strip_comment(t) for t in texts
    ]
    assert any(t.startswith("mtsig compare --ref newstest.ref --docs") for t in texts)
    assert any(c.readme == "benchmarks/README.md" for c in commands)
    assert any(c.readme == "data/README.md" for c in commands)
    quick_start = (REPO / "README.md").read_text().split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert len(re.findall(r"^```bash$", quick_start, flags=re.M)) == 2, "the quick start stays two commands"


@pytest.mark.parametrize("block", _block_params())
def test_readme_command_runs_as_printed(block: list[Command], data_root: Path, reader_clone: Path) -> None:
    before = {path: path.stat().st_mtime_ns for folder in (REPO, REPO / "data") for path in folder.iterdir()}
    _run_block(block, data_root, reader_clone, _shell_before(block))
    after = {path: path.stat().st_mtime_ns for folder in (REPO, REPO / "data") for path in folder.iterdir()}
    # .git changes under any git command in another worktree of the same repository, not by the command run here
    changed = {path for path in after if before.get(path) != after[path]} - {
        REPO / ".pytest_cache",
        REPO / ".git",
    }
    assert not changed, f"written in the repository: {sorted(map(str, changed))}"


def _runs_more_in_full(block: list[Command]) -> bool:
    """Whether a block has a computing command that is not the first of its sub-command (parsed only by the test
    above, run in full by the slow one below)."""
    return _computes(block) and any(c.text not in FIRST_OF_EACH_SUBCOMMAND for c in block)


@pytest.mark.slow
@pytest.mark.parametrize(
    "block",
    [
        pytest.param(block, id=f"{block[0].readme}:{block[0].text[:50]}")
        for block in _blocks()
        if _runs_more_in_full(block)
    ],
)
def test_readme_computing_command_runs_in_full(
    block: list[Command], data_root: Path, reader_clone: Path
) -> None:
    _run_block(block, data_root, reader_clone, _shell_before(block), full=True)


def test_a_reader_keeps_what_earlier_blocks_exported() -> None:
    """The quick check (docs/artifact-review.md) runs with the relative data root the page exported, as the
    README's test command does: the sequence a reader types, which broke when Snakemake's --directory moved the
    relative path one level down."""
    blocks = _blocks()
    quick_check = next(
        b for b in blocks if b[0].text.startswith("snakemake --cores 2 --configfile config/quick.yaml")
    )
    assert _shell_before(quick_check)[0].get("MTSIG_DATA") == "../shared/data"
    quick_start = next(b for b in blocks if b[0].text.startswith("pip install"))
    assert "MTSIG_DATA" not in _shell_before(quick_start)[0]


@pytest.mark.xdist_group(QUICK_GROUP)
def test_a_broken_command_is_caught(data_root: Path, reader_clone: Path) -> None:
    """The runner fails on what the README's sharding command used to do: a value the schema refuses."""
    bad = Command(
        "README.md", 0, "snakemake --profile profiles/slurm --config resampling='{pair_shards: zero}'"
    )
    with pytest.raises(AssertionError, match="pair_shards: 'zero' is not of type 'integer'"):
        _run_block([bad], data_root, reader_clone)


def python_examples() -> list[Command]:
    """Every fenced ``python`` block of the READMEs, in the order printed (one :class:`Command` per block)."""
    examples = []
    for readme in READMES:
        text = (REPO / readme).read_text(encoding="utf-8")
        for number, match in enumerate(re.finditer(r"^```python\n(.*?)^```", text, flags=re.S | re.M)):
            examples.append(Command(readme, number, match.group(1), match.start()))
    return examples


def test_the_readmes_python_examples_are_found() -> None:
    """docs/cli.md prints an example of every group of mtsig's public names (metrics and tests, meta-evaluation,
    protocol, human ranking): each is found and run below."""
    examples = [e for e in python_examples() if e.readme == "docs/cli.md"]
    assert len(examples) >= 4
    used = " ".join(e.text for e in examples)
    for name in ("pairwise_tests", "williams_table", "run_protocol", "rank_systems", "read_esa"):
        assert f"mtsig.{name}(" in used, name


@pytest.mark.parametrize("example", python_examples(), ids=lambda e: f"{e.readme}:python-{e.block}")
def test_python_example_runs_as_printed(example: Command, data_root: Path, reader_clone: Path) -> None:
    exported, _ = _shell_before([example])
    script = reader_clone.parent / f"example-{example.block}.py"
    script.write_text(example.text, encoding="utf-8")
    done = _run([sys.executable, str(script)], reader_clone, _env(reader_clone, exported), timeout=600)
    assert done.returncode == 0, f"{example}\n{done.stderr[-3000:]}"
    assert done.stdout.strip(), f"{example} printed nothing"
