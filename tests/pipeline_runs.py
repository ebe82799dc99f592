"""The tiny end-to-end run of the tests (tests/configs/tiny.yaml): its Snakemake command line.

``conftest.tiny_pipeline_run`` makes the run once per test process; tests/test_pipeline.py reads it and
tests/test_bad_input.py damages and repairs a file in it.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TINY_CONFIG = REPO / "tests" / "configs" / "tiny.yaml"


def tiny_pipeline_command(workdir: Path, *extra: str) -> list[str]:
    """Snakemake on tests/configs/tiny.yaml in ``workdir`` with 2 cores; ``extra``: targets and options."""
    args = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--directory", str(workdir)]
    return [*args, "--configfile", str(TINY_CONFIG), "--cores", "2", *extra]
