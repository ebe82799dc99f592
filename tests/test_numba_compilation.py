"""The compiled metrics' kernels are compiled by one process when several start on an empty numba cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mtsig.metrics import ngram_compiled, ter_compiled
from mtsig.runtime.numba_compilation import compile_once, lock_path

REPO = Path(__file__).resolve().parents[1]

# BLEU statistics of a tiny input in a fresh interpreter; prints how numba got each n-gram kernel (compiled: cache
# misses; loaded: cache hits) and how many signatures it has.
CHILD = """
import json
from numba.core.registry import CPUDispatcher
from mtsig.metrics import get_metric, ngram_compiled
get_metric("bleu").stats_many({"a": ["the cat sat", "a dog"], "b": ["a cat sat", "the dog"]}, ["the cat sat", "a dog"])
kernels = {n: k for n, k in vars(ngram_compiled).items() if isinstance(k, CPUDispatcher)}
print(json.dumps({n: [sum(k.stats.cache_misses.values()), sum(k.stats.cache_hits.values()), len(k.signatures)]
                  for n, k in kernels.items()}))
"""


@pytest.mark.slow
def test_processes_started_together_compile_the_kernels_once(tmp_path: Path) -> None:
    """Two processes started together on an empty numba cache: one compiles every n-gram kernel (one signature
    each), the other waits for the lock and loads them from the cache, compiling nothing."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "PYTHONPATH": str(REPO / "src")}
    children = [
        subprocess.Popen([sys.executable, "-c", CHILD], env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    reports = [json.loads(child.communicate(timeout=300)[0]) for child in children]
    assert all(child.returncode == 0 for child in children)
    compiler, loader = sorted(reports, key=lambda r: -sum(misses for misses, _, _ in r.values()))
    assert all(
        misses == 1 and hits == 0 and signatures == 1 for misses, hits, signatures in compiler.values()
    )
    assert all(misses == 0 for misses, _, _ in loader.values())
    # the kernels called from Python are loaded; those they call are inside their cached code
    assert {name for name, (_, hits, _) in loader.items() if hits} == {
        "_sorted_reference_codes",
        "_pair_counts",
    }
    assert set(reports[0]) == {"_ngram_codes", "_sorted_reference_codes", "_matches", "_pair_counts"}


def test_warm_up_runs_once_per_process_under_the_lock(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """compile_once calls the warm-up once per module and process, holding the module's lock file (in the temporary
    folder, one per module path)."""
    calls = []
    monkeypatch.setattr("mtsig.runtime.numba_compilation._READY", set())
    module = str(tmp_path / "kernels.py")
    compile_once(module, lambda: calls.append(lock_path(module).exists()))
    compile_once(module, lambda: calls.append("again"))
    assert calls == [True]
    assert lock_path(ngram_compiled.__file__) != lock_path(ter_compiled.__file__)
    assert lock_path(module).parent == Path(__import__("tempfile").gettempdir())
