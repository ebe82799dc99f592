"""numba kernels compiled once per machine, not once per process: an inter-process lock around the first call.

The compiled metrics (:mod:`mtsig.metrics.ngram_compiled` for BLEU and chrF, :mod:`mtsig.metrics.ter_compiled`) keep
their machine code in numba's cache (``cache=True``); a fresh clone has none, and the first call compiles, which
takes seconds of CPU per module (benchmarks/README.md, "Cold start"). The pipeline starts several such jobs at once
(up to eight with ``--cores 8``); without a lock, each one that started before the cache was written would compile
the same kernels again. So the first call in each process compiles (or loads) its module's kernels on a tiny input while it holds an
exclusive lock shared by every process, so one process compiles and writes the cache and the others wait, then load
it; with the cache present the lock is held for as long as loading takes.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

try:
    import fcntl
except ImportError:  # not POSIX: no lock, each process compiles as before
    fcntl = None  # type: ignore[assignment]

_READY: set[str] = set()


def lock_path(module_file: str) -> Path:
    """The lock file of a module's kernels, in the temporary folder, named after the module's path."""
    key = hashlib.sha256(str(Path(module_file).resolve()).encode("utf-8")).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"mtsig-numba-{key}.lock"


def compile_once(module_file: str, warm_up: Callable[[], object]) -> None:
    """Run ``warm_up`` (calls of the module's kernels on a tiny input, with the argument types of every later call)
    once per process, holding the module's lock (:func:`lock_path`)."""
    if module_file in _READY:
        return
    if fcntl is None:
        warm_up()
    else:
        with open(lock_path(module_file), "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                warm_up()
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
    _READY.add(module_file)


def contiguous(dtype: type, *arrays: object) -> list[np.ndarray]:
    """``arrays`` as C-contiguous arrays of ``dtype``: the argument types a module's warm-up compiled its kernels
    for (:func:`compile_once`), whatever the caller passes, so a call never compiles a new specialisation."""
    return [np.ascontiguousarray(array, dtype=dtype) for array in arrays]
