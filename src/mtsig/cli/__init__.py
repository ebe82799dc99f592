"""The ``mtsig`` command, for one-off use outside the pipeline: one module per sub-command.

* ``mtsig compare`` (:mod:`mtsig.cli.compare`): score systems (or read any metric's segment scores) and run the
  randomized tests for every pair, with intervals, conclusions, clusters and signatures.
* ``mtsig power`` (:mod:`mtsig.cli.power`): a test's power and minimum detectable difference, by simulation.
* ``mtsig metrics`` (:mod:`mtsig.cli.metrics`): which metric agrees best with the humans (correlations, Williams,
  PERM-BOTH), and the WMT23/WMT24 metrics task's table on a folder in mt-metrics-eval's layout (``--mtme``).
* ``mtsig verify`` (:mod:`mtsig.cli.verify`): a run's tables against the committed checksums.

**Adding a sub-command is one new file** ``mtsig/cli/<name>.py`` defining ``HELP`` (one line for ``mtsig --help``),
optionally ``DESCRIPTION``, ``add_arguments(parser)`` and ``run(args) -> int`` (the exit status):
:func:`subcommands` finds every public module of this package. What they share (exit statuses, argument types) is
in :mod:`mtsig.cli._common`.

No Python traceback reaches the user: bad input (:class:`~mtsig.errors.InputError`, a missing or unreadable file,
an unknown metric, ...) prints one line ``mtsig: error: ...`` to stderr and exits 2; any other failure prints one
line ``mtsig: internal error: ...`` with how to get the traceback (``MTSIG_DEBUG=1``) and exits 1. A sub-command
prints nothing to stdout unless it succeeded.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence
from functools import cache
from types import ModuleType

# One BLAS thread, as the pipeline gives every job (Snakefile), unless the environment says otherwise: set before
# numpy is first imported. mtsig's products are many and small; with OpenBLAS's thread per core, `mtsig metrics --mtme
# ... --protocol wmt24 --samples 1000` took 152 CPU s against 63 with one thread, and longer on the wall clock too.
for _variable in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402

from mtsig import __version__  # noqa: E402
from mtsig.cli._common import DEBUG_ENV, EXIT_INPUT_ERROR, EXIT_INTERNAL_ERROR, Parser  # noqa: E402
from mtsig.errors import InputError  # noqa: E402

__all__ = ["EXIT_INPUT_ERROR", "EXIT_INTERNAL_ERROR", "build_parser", "main", "subcommands"]


@cache
def subcommands() -> dict[str, ModuleType]:
    """Sub-command name -> its module: every module of this package whose name does not start with ``_``, by name."""
    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))
    return {name: importlib.import_module(f"{__name__}.{name}") for name in names}


def build_parser() -> Parser:
    """The argument parser of ``mtsig``: one sub-parser per module of :func:`subcommands`."""
    parser = Parser(
        prog="mtsig", description="Significance tests of MT evaluation, for one-off use outside the pipeline."
    )
    parser.add_argument("--version", action="version", version=f"mtsig {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    for name, module in subcommands().items():
        description = getattr(module, "DESCRIPTION", None)
        module.add_arguments(commands.add_parser(name, help=module.HELP, description=description))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``mtsig`` console script; returns the exit status.

    Bad input (:class:`~mtsig.errors.InputError`, and the ``ValueError``/``OSError``/``RuntimeError`` a library
    call raises for a bad argument, a missing file or a missing Java) is one line on stderr and exit status 2; an
    unexpected exception is one line with a hint and exit status 1 (``MTSIG_DEBUG=1`` re-raises it for the
    traceback). argparse's own usage errors also exit 2.
    """
    args = build_parser().parse_args(argv)
    try:
        # Overflow and invalid operations are refused where they would reach a result (mtsig.stats.resampling),
        # with one line that says so; numpy's warnings on the way there would only bury it.
        with np.errstate(over="ignore", invalid="ignore"):
            return subcommands()[args.command].run(args)
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
