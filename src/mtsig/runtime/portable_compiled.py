"""The elementary functions of :mod:`mtsig.runtime.portable`, compiled with numba.

``math.exp`` and its kin compile to calls of the C library's functions, one element at a time: numba would call a
vector library only with Intel's SVML, which mtsig does not install, and compiles without fast-math flags.
``pow(2, x)`` is compiled as the C library's ``exp2(x)``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from mtsig.runtime.numba_compilation import compile_once


@njit(cache=True, nogil=True)
def _unary(code: int, x: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    out = np.empty_like(x)
    for i in range(x.size):
        if code == 0:
            out[i] = math.exp(x[i])
        elif code == 1:
            out[i] = math.log(x[i]) if x[i] > 0.0 else (-math.inf if x[i] == 0.0 else math.nan)
        elif code == 2:
            out[i] = math.log2(x[i]) if x[i] > 0.0 else (-math.inf if x[i] == 0.0 else math.nan)
        else:
            out[i] = math.pow(2.0, x[i])
    return out


@njit(cache=True, nogil=True)
def _power(x: np.ndarray, y: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    out = np.empty_like(x)
    for i in range(x.size):
        out[i] = math.pow(x[i], y[i])
    return out


_UNARY = {"exp": 0, "log": 1, "log2": 2, "exp2": 3}


def _warm_up() -> None:
    one = np.ones(1)
    _unary(0, one)
    _power(one, one)


def elementwise(name: str, *arguments: np.ndarray) -> np.ndarray:
    """``exp``, ``log``, ``log2``, ``exp2`` (as ``pow(2, x)``) of one, ``power`` of two flat float64 arrays."""
    compile_once(__file__, _warm_up)
    if name == "power":
        return _power(*arguments)
    return _unary(_UNARY[name], *arguments)
