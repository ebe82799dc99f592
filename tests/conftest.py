"""Shared fixtures. Tests that need the real data fail loudly (never skip) when it is missing."""

from __future__ import annotations

import gc
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from pipeline_runs import tiny_pipeline_command

REPO = Path(__file__).resolve().parents[1]


def _data_root() -> Path:
    root = os.environ.get("MTSIG_DATA")
    candidates = [Path(root)] if root else [REPO.parent / "shared" / "data", REPO / "data"]
    for candidate in candidates:
        if (candidate / "wmt12").is_dir():
            return candidate.resolve()
    raise RuntimeError(
        "The real data is missing: set MTSIG_DATA to the data root (CI uses ../shared/data); "
        f"looked in {', '.join(str(c) for c in candidates)}"
    )


@pytest.fixture(scope="session", autouse=True)
def _cache_in_a_temporary_folder(tmp_path_factory: pytest.TempPathFactory):
    """Indexes that mtsig keeps between runs (MTSIG_CACHE_DIR, e.g. METEOR's paraphrase index) go to a temporary
    folder: tests write nothing outside the repository and temporary folders."""
    previous = os.environ.get("MTSIG_CACHE_DIR")
    os.environ["MTSIG_CACHE_DIR"] = str(tmp_path_factory.mktemp("mtsig-cache"))
    yield
    if previous is None:
        os.environ.pop("MTSIG_CACHE_DIR", None)
    else:
        os.environ["MTSIG_CACHE_DIR"] = previous


def pytest_configure(config: pytest.Config) -> None:
    """One BLAS thread per test process, and locally an ``scontrol`` that answers "no controller" at once.

    BLAS: as the Snakefile gives every job (a value already set wins), set here before any test module imports
    numpy. With OpenBLAS's default of a thread per core, the engine's small products on the 2-core machine, with
    pytest-xdist's two workers side by side, took about 3x the CPU time (test_training_runs.py's simulations: 5.3
    against 1.8 CPU s) for the same numbers (results do not depend on the thread count; benchmarks/README.md,
    *Threads*). Processes the tests start inherit it.

    ``scontrol``: Snakemake's Slurm executor plugin (snakemake-executor-plugin-slurm 2.8, ``get_min_job_age``) runs
    ``scontrol show config`` whenever Snakemake is imported or started, even for ``--version`` or a local dry run.
    Where Slurm is installed but no controller runs (as after the opt-in Slurm test), that call waits 9 s before it
    fails, and the plugin then goes on exactly as without Slurm: every test process and every Snakemake the tests
    start waited 9 s for nothing. A session whose ``-m`` selects the ``slurm`` tests keeps the real ``scontrol``.
    """
    for variable in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, "1")
    if re.search(r"(?<!not )\bslurm\b", config.option.markexpr or ""):
        return
    shim = Path(tempfile.mkdtemp(prefix="mtsig-no-slurm-controller-"))
    scontrol = shim / "scontrol"
    scontrol.write_text(
        "#!/bin/sh\necho 'slurm_load_ctl_conf error: Unable to contact slurm controller (connect failure)' >&2\n"
        "exit 1\n"
    )
    scontrol.chmod(0o755)
    os.environ["PATH"] = os.pathsep.join([str(shim), os.environ["PATH"]])
    config.add_cleanup(lambda: shutil.rmtree(shim, ignore_errors=True))


def pytest_collection_finish(session: pytest.Session) -> None:
    """The objects of collection (every test module with what it imports, the test items) are kept for the whole
    session: ``gc.freeze`` leaves them out of every later garbage collection. Each full collection otherwise walks
    them all: pytest's own at the end of the session, Python's automatic ones, and the ``gc.collect()`` some
    libraries run (statsmodels' Holm correction on every call), which costs CPU in every worker."""
    gc.collect()
    gc.freeze()


@pytest.fixture(scope="session")
def data_root() -> Path:
    """The data root (``MTSIG_DATA`` or ``../shared/data``); a missing root is an error, not a skip."""
    return _data_root()


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


@pytest.fixture(scope="session")
def tiny_pipeline_run(tmp_path_factory: pytest.TempPathFactory, data_root: Path) -> Path:
    """The work directory of one whole run of the DAG on tests/configs/tiny.yaml, for every test that needs one.

    Made once per test process: its tests carry ``pytest.mark.xdist_group("tiny_pipeline")``, and pyproject.toml's
    ``--dist loadgroup`` runs a group on one pytest-xdist worker, one test after another. A test that damages a
    file in it must leave the run as it found it (byte for byte).
    """
    workdir = tmp_path_factory.mktemp("tiny")
    env = {**os.environ, "MTSIG_DATA": str(data_root)}
    start = time.perf_counter()
    done = subprocess.run(
        tiny_pipeline_command(workdir), env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-10000:]
    print(f"tiny pipeline wall time: {time.perf_counter() - start:.1f} s")
    return workdir
