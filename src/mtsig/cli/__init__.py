"""The ``mtsig`` command, for one-off use outside the pipeline: one module per sub-command.

* ``mtsig compare`` (:mod:`mtsig.cli.compare`): score systems (or read any metric's segment scores) and run the
  randomized tests for every pair, with intervals, conclusions, clusters and signatures.
* ``mtsig power`` (:mod:`mtsig.cli.power`): a test's power and minimum detectable difference, by simulation.
* ``mtsig metrics`` (:mod:`mtsig.cli.metrics`): which metric agrees best with the humans (correlations, Williams,
  PERM-BOTH), and the WMT23/WMT24 metrics task's table on a folder in mt-metrics-eval's layout (``--mtme``).
* ``mtsig verify`` (:mod:`mtsig.cli.verify`): a run's tables against the committed checksums.

**Adding a sub-command is one new file** ``mtsig/cli/<name>.py`` defining ``HELP`` (one line for ``mtsig --help``, a
string literal), optionally ``DESCRIPTION``, ``add_arguments(parser)`` and ``run(args) -> int`` (the exit status):
:func:`subcommand_names` finds every public module of this package. What they share (exit statuses, argument
types) is in :mod:`mtsig.cli._common`.

**Import what a sub-command needs when it runs.** ``mtsig --help`` reads each module's ``HELP`` from its source
without importing it, and ``mtsig NAME ...`` imports the module of NAME alone; a module imports numpy, pandas,
scipy and the library's heavy modules inside the functions that use them, so that ``mtsig --help`` and ``mtsig NAME
--help`` answer at once (tests/test_cli_startup.py).

No Python traceback reaches the user: bad input (:class:`~mtsig.errors.InputError`, a missing or unreadable file,
an unknown metric, ...) prints one line ``mtsig: error: ...`` to stderr and exits 2; any other failure prints one
line ``mtsig: internal error: ...`` with how to get the traceback (``MTSIG_DEBUG=1``) and exits 1. A sub-command
prints nothing to stdout unless it succeeded.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import pkgutil
import sys
from collections.abc import Sequence
from functools import cache
from types import ModuleType

# One BLAS thread, as the pipeline gives every job (Snakefile), unless the environment says otherwise: set before
# numpy is first imported. mtsig's products are many and small: with OpenBLAS's thread per core they cost more than
# twice the CPU, and longer on the wall clock too (docs/cli.md, `mtsig metrics`).
for _variable in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

from mtsig import __version__  # noqa: E402
from mtsig.cli._common import DEBUG_ENV, EXIT_INPUT_ERROR, EXIT_INTERNAL_ERROR, Parser  # noqa: E402
from mtsig.errors import InputError  # noqa: E402

__all__ = [
    "EXIT_INPUT_ERROR",
    "EXIT_INTERNAL_ERROR",
    "build_parser",
    "main",
    "subcommand_names",
    "subcommands",
]


@cache
def subcommand_names() -> tuple[str, ...]:
    """Every module of this package whose name does not start with ``_``, by name (none is imported)."""
    return tuple(sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")))


def subcommands() -> dict[str, ModuleType]:
    """Sub-command name -> its module (every one imported)."""
    return {name: _module(name) for name in subcommand_names()}


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"{__name__}.{name}")


@cache
def _literals(name: str) -> dict[str, str]:
    """The module-level string constants ``HELP`` and ``DESCRIPTION`` of sub-command ``name``, read from its source
    without importing it (an imported module's own values when it is already loaded)."""
    if f"{__name__}.{name}" in sys.modules:
        module = sys.modules[f"{__name__}.{name}"]
        return {key: getattr(module, key) for key in ("HELP", "DESCRIPTION") if hasattr(module, key)}
    spec = importlib.util.find_spec(f"{__name__}.{name}")
    assert spec is not None and spec.origin is not None
    with open(spec.origin, encoding="utf-8") as source:
        tree = ast.parse(source.read(), spec.origin)
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id in ("HELP", "DESCRIPTION"):
                    found[target.id] = str(node.value.value)
    if "HELP" not in found:  # not a literal: the module says it when imported
        module = _module(name)
        return {key: getattr(module, key) for key in ("HELP", "DESCRIPTION") if hasattr(module, key)}
    return found


def chosen_subcommand(argv: Sequence[str]) -> str | None:
    """The sub-command an argument list runs: its first word that is not an option, if it names one."""
    first = next((word for word in argv if not word.startswith("-")), None)
    return first if first in subcommand_names() else None


def build_parser(argv: Sequence[str] | None = None) -> Parser:
    """The argument parser of ``mtsig``: one sub-parser per module of :func:`subcommand_names`, each with its
    one-line help. Only the sub-command ``argv`` runs (:func:`chosen_subcommand`) is imported and given its
    arguments; without ``argv``, every one is."""
    parser = Parser(
        prog="mtsig", description="Significance tests of MT evaluation, for one-off use outside the pipeline."
    )
    parser.add_argument("--version", action="version", version=f"mtsig {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    chosen = None if argv is None else chosen_subcommand(argv)
    for name in subcommand_names():
        texts = _literals(name)
        sub = commands.add_parser(name, help=texts["HELP"], description=texts.get("DESCRIPTION"))
        if argv is None or name == chosen:
            _module(name).add_arguments(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``mtsig`` console script; returns the exit status.

    Bad input (:class:`~mtsig.errors.InputError`, and the ``ValueError``/``OSError``/``RuntimeError`` a library
    call raises for a bad argument, a missing file or a missing Java) is one line on stderr and exit status 2; an
    unexpected exception is one line with a hint and exit status 1 (``MTSIG_DEBUG=1`` re-raises it for the
    traceback). argparse's own usage errors also exit 2.
    """
    words = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(words).parse_args(words)
    try:
        import numpy as np

        # Overflow and invalid operations are refused where they would reach a result (mtsig.stats.resampling),
        # with one line that says so; numpy's warnings on the way there would only bury it.
        with np.errstate(over="ignore", invalid="ignore"):
            return _module(args.command).run(args)
    except KeyboardInterrupt:
        print("mtsig: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `mtsig compare ... | head`: the reader left, nothing to report
        sys.stderr.close()
        return 0
    except (InputError, ValueError, OSError, RuntimeError) as error:
        if os.environ.get(DEBUG_ENV):
            raise
        print(f"mtsig: error: {_one_line(error)}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except Exception as error:  # noqa: BLE001 - the last line of defence: never a traceback for a user
        if os.environ.get(DEBUG_ENV):
            raise
        print(
            f"mtsig: internal error: {type(error).__name__}: {_one_line(error)} (this is a bug in mtsig; rerun "
            f"with {DEBUG_ENV}=1 for the traceback and report it with the command line)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL_ERROR


def _one_line(error: BaseException) -> str:
    """An exception's message on one line (an OSError without a file name gets its class name)."""
    text = " ".join(str(error).split())
    if isinstance(error, OSError) and error.filename is not None and str(error.filename) not in text:
        text = f"{error.filename}: {text}"
    return text or type(error).__name__
