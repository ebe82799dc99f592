"""Snakemake run in the test's own process, as ``python -m snakemake`` runs it (``snakemake.cli.main``).

A fresh interpreter per call pays 2-3 CPU s for Snakemake's and the workflow's imports, more than a dry run's own
work on the tiny config. Tests whose commands a fresh interpreter runs too (the pipeline runs themselves, the first
README command) keep the fresh one; dry runs and unlocks read this.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path


def run_snakemake(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``python -m snakemake ARGS`` in ``cwd`` with exactly the environment ``env`` (the Snakefile reads it when it
    is parsed, on every run): exit status, stdout and stderr as a subprocess would give them. The environment,
    ``sys.path`` (the Snakefile puts its checkout's ``src`` first) and the working directory are as they were
    afterwards."""
    from snakemake.cli import main

    out, err = io.StringIO(), io.StringIO()
    saved_environ, saved_path = dict(os.environ), list(sys.path)
    try:
        os.environ.clear()
        os.environ.update(env)
        with contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(args)
                status = 0
            except SystemExit as stop:
                status = stop.code if isinstance(stop.code, int) else 1
    finally:
        os.environ.clear()
        os.environ.update(saved_environ)
        sys.path[:] = saved_path
    return subprocess.CompletedProcess(["snakemake", *args], status, out.getvalue(), err.getvalue())
