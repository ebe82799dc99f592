"""The chance levels' draws have the same bits on every machine (mtsig.stats.meta_evaluation.chance_compiled).

Oracles: Python's own float arithmetic (one rounding per product and per addition, no fused multiply-add) adding
the terms of each cross product in the order of the cells; math.fsum, the correctly rounded sum, which the draws
must approach to within the error bound of sequential summation; and the draws themselves computed from misaligned
copies of the inputs, in chunks of other sizes, and in fresh processes under each OpenBLAS kernel
(``OPENBLAS_CORETYPE``) and thread count: a matrix product (BLAS) adds in an order that depends on all of these.
"""

from __future__ import annotations

import math
import os
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mtsig.stats.meta_evaluation import chance
from mtsig.stats.meta_evaluation.chance_compiled import relabelled_products


def test_relabelled_products_add_the_cells_in_order():
    """Each draw's cross product is Python's term-by-term sum over the cells in increasing order, bit for bit,
    and within sequential summation's error bound of the correctly rounded sum."""
    rng = np.random.default_rng(11)
    n_metrics, n_cells, n_draws = 3, 257, 9
    weights = rng.normal(size=(n_metrics, n_cells)) * 10.0 ** rng.integers(-3, 4, size=(n_metrics, n_cells))
    values = rng.normal(size=400)
    sources = rng.integers(0, 400, size=(n_draws, n_cells))
    got = relabelled_products(weights, values, sources)
    assert got.shape == (n_metrics, n_draws)
    for m in range(n_metrics):
        for b in range(n_draws):
            terms = [float(w) * float(values[s]) for w, s in zip(weights[m], sources[b], strict=True)]
            total = 0.0
            for term in terms:
                total += term
            assert got[m, b] == total
            bound = n_cells * 2.0**-53 * math.fsum(abs(t) for t in terms)
            assert abs(got[m, b] - math.fsum(terms)) <= bound


def _misaligned(array: np.ndarray) -> np.ndarray:
    """A copy of ``array`` whose data start one byte past an aligned address (numpy's ``aligned`` flag off)."""
    raw = np.zeros(array.nbytes + 1, dtype=np.uint8)
    view = np.frombuffer(raw.data, dtype=array.dtype, count=array.size, offset=1).reshape(array.shape)
    view[...] = array
    assert not view.flags.aligned
    return view


def _design(seed: int, systems: int = 7, segments: int = 300):
    """MQM-like human scores with unrated cells, segments in documents of five, two metrics with system offsets."""
    rng = np.random.default_rng(seed)
    human = -np.round(rng.exponential(1.5, size=(systems, segments)) * 10.0) / 10.0
    human[rng.random(human.shape) < 0.2] = np.nan
    metrics = rng.normal(size=(2, systems, segments)) + rng.normal(0.0, 3.0, size=(2, systems, 1))
    documents = np.arange(segments) // 5
    return human, metrics, documents


def _draws(human: np.ndarray, metrics: np.ndarray, documents: np.ndarray) -> bytes:
    relabelling = chance.draw_relabellings(np.random.default_rng(3), np.isfinite(human), documents, 150)
    pearson = chance.chance_pearson(human, metrics, relabelling)
    pdp = chance.chance_pdp(human, metrics, "item", relabelling)
    system = chance.chance_pearson(
        np.nanmean(human, axis=1, keepdims=True), metrics.mean(axis=2, keepdims=True), relabelling
    )
    return np.concatenate([pearson, pdp, system]).tobytes()


def test_draws_do_not_depend_on_memory_layout_or_chunks(monkeypatch):
    """The same bits from misaligned copies of the inputs and from chunks of three draws."""
    human, metrics, documents = _design(1)
    reference = _draws(human, metrics, documents)
    assert _draws(_misaligned(human), _misaligned(metrics), documents) == reference
    monkeypatch.setattr(chance, "CHUNK", 3)
    assert _draws(human, metrics, documents) == reference


SCRIPT = """
import hashlib, sys
sys.path.insert(0, {tests!r})
from test_chance_portable import _design, _draws
print(hashlib.sha256(_draws(*_design(1))).hexdigest())
"""


@pytest.mark.slow
@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"), reason="OpenBLAS's x86-64 kernels")
def test_draws_are_the_same_under_every_openblas_kernel():
    """Fresh processes under three OpenBLAS kernels, one and two threads: the same draws, bit for bit."""
    script = SCRIPT.format(tests=str(Path(__file__).parent))
    digests = set()
    for coretype, threads in (("Haswell", "1"), ("Sandybridge", "2"), ("Prescott", "1"), ("Haswell", "2")):
        env = {**os.environ, "OPENBLAS_CORETYPE": coretype, "OPENBLAS_NUM_THREADS": threads}
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        )
        digests.add(done.stdout.strip())
    assert len(digests) == 1
