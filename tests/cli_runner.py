"""``mtsig`` run in the test's own process, as the console script runs it (``mtsig.cli.main``).

A fresh interpreter per call pays for its imports (numpy, pandas, scipy, sacrebleu), which cost far more than the
few milliseconds of work a call often does. The console script itself, in a fresh interpreter, is run by
``tests/test_bad_input.py::test_cli_entry_point_prints_no_traceback`` and by the wheel test.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
from pathlib import Path

from mtsig.cli import main


def run_mtsig(*args: object, cwd: str | Path | None = None) -> subprocess.CompletedProcess[str]:
    """``mtsig ARGS`` (in ``cwd`` if given): exit status, stdout and stderr as a subprocess would give them."""
    out, err = io.StringIO(), io.StringIO()
    words = [str(arg) for arg in args]
    with contextlib.ExitStack() as stack:
        if cwd is not None:
            stack.enter_context(contextlib.chdir(cwd))
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        try:
            status = main(words)
        except SystemExit as stop:  # argparse's usage errors and --help
            status = stop.code if isinstance(stop.code, int) else 2
    return subprocess.CompletedProcess(["mtsig", *words], status, out.getvalue(), err.getvalue())
