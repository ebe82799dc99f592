"""How the tests run the pipeline: the tiny end-to-end run's Snakemake command line (tests/configs/tiny.yaml), and
the environment that makes numpy and OpenBLAS compute as on another machine.

``conftest.tiny_pipeline_run`` makes the run once per test process; tests/test_pipeline.py reads it and
tests/test_bad_input.py damages and repairs a file in it. tests/test_verification.py runs the quick check, and
tests/test_portable.py and tests/test_metric_permutation.py computations
(:func:`digests_here_and_on_another_machine`), under :func:`other_machine_numerics`.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TINY_CONFIG = REPO / "tests" / "configs" / "tiny.yaml"


def tiny_pipeline_command(workdir: Path, *extra: str) -> list[str]:
    """Snakemake on tests/configs/tiny.yaml in ``workdir`` with 2 cores; ``extra``: targets and options."""
    args = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--directory", str(workdir)]
    return [*args, "--configfile", str(TINY_CONFIG), "--cores", "2", *extra]


def copy_checkout(dest: Path) -> Path:
    """A copy of this checkout's files at ``dest`` (a reader's clone: what git tracks, and new files it does not
    ignore, as they are now, with their compiled caches), for tests that run the workflow where its own folders
    (data/downloads, results, .snakemake) may be written. Returns ``dest``."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    folders = set()
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():  # a file deleted in the work tree but not yet in git's index is skipped
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
            folders.add(Path(name).parent)
    # Python's bytecode and numba's compiled kernels, valid in the copy (same sources, same times): without them
    # every process started in the copy compiles its imports again
    for folder in folders:
        if (REPO / folder / "__pycache__").is_dir():
            shutil.copytree(REPO / folder / "__pycache__", dest / folder / "__pycache__", dirs_exist_ok=True)
    return dest


def digests_here_and_on_another_machine(script: str) -> list[str]:
    """What ``script`` (Python source that prints a digest of its results) prints run in this process, with this
    machine's numerics, and in a fresh interpreter under :func:`other_machine_numerics` (environment variables
    that take effect when numpy and OpenBLAS load). The script must leave the process's state as it found it."""
    import contextlib
    import io
    import os

    here = io.StringIO()
    with contextlib.redirect_stdout(here):
        exec(compile(script, "<digest script>", "exec"), {})
    other = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, **other_machine_numerics()},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [here.getvalue(), other]


def other_machine_numerics() -> dict[str, str]:
    """Environment variables under which numpy and OpenBLAS compute as on another machine: OpenBLAS's generic
    kernels (Prescott on x86-64, ARMV8 on aarch64) instead of the ones it picks for this CPU, and on x86-64 numpy
    without its AVX-512 loops (an AVX2 machine's). Results that depend on the CPU then differ from a run without them
    (mtsig.runtime.portable). Empty on other architectures."""
    import platform

    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    machine = platform.machine().lower()
    if machine in ("aarch64", "arm64"):
        return {"OPENBLAS_CORETYPE": "ARMV8"}
    if machine not in ("x86_64", "amd64"):
        return {}
    avx512 = [
        f for f in ("X86_V4", "AVX512_ICL", "AVX512_SPR") if f in __cpu_dispatch__ and __cpu_features__.get(f)
    ]
    return {
        "OPENBLAS_CORETYPE": "Prescott",
        **({"NPY_DISABLE_CPU_FEATURES": " ".join(avx512)} if avx512 else {}),
    }
