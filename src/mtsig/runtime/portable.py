"""Numerics that give the same bits on every machine: weighted sums and the elementary functions of the metrics.

A committed checksum list (:mod:`mtsig.pipeline.verification`) can only be met on a reviewer's machine if no number depends
on the CPU it was computed on. Two numpy paths do (checksums made on an AVX2 machine differ on an AVX-512 one in
many tables without this module):

- **Matrix products.** OpenBLAS picks its kernel by CPU (Haswell, SkylakeX, SapphireRapids, ...), and each kernel
  adds the terms of a sum in its own order. :func:`weighted_sums` multiplies integer weights (bootstrap counts,
  randomization masks, sign flips) by statistics so that every sum BLAS computes is a sum of integers below 2**53,
  exact in any order: integer statistics as they are, anything else (NIST's information-weighted matches, published
  segment scores, correlations' cross products) cut into integer slices of a few dozen bits each.
- **exp, log, pow.** On CPUs with AVX-512 numpy's ``np.exp``, ``np.log`` and ``np.power`` use their own vector
  implementations, which differ in the last bit from the C library's in about 5% of arguments (measured on
  100,001 values; on AVX2 machines numpy calls the C library). :func:`exp`, :func:`log`, :func:`log2`, :func:`exp2`
  and :func:`power` call the C library's functions, element by element.

The elementary functions go through Python's math module, or for many values a loop compiled with numba
(:mod:`mtsig.runtime.portable_compiled`): both call the C library. What remains machine-dependent is the C library itself:
with glibc the same code runs on every x86-64 machine with FMA (every one since 2013); other C libraries (macOS,
musl) may differ in the last bit of a logarithm. docs/design.md ("Determinism") says what that means for a
reviewer's ``mtsig verify``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

#: float64 represents every integer of magnitude <= 2**53 exactly.
FLOAT64_EXACT_BITS = 53


def is_integer_valued(values: np.ndarray) -> bool:
    """True when every value is a finite integer (NaN and infinity are not)."""
    return bool(np.all(np.isfinite(values)) and np.all(values == np.rint(values)))


def slice_bits(max_abs_weight_row_sum: float, spare_bits: int = 0) -> int:
    """The width of integer slices whose sums with integer weights (``sum_n |w_n| <= max_abs_weight_row_sum``) are
    integers of at most ``2**(53 - spare_bits)``, so that float64 holds them, and ``2**spare_bits`` times them, exactly."""
    bits = FLOAT64_EXACT_BITS - spare_bits - max(1, math.ceil(math.log2(max(max_abs_weight_row_sum, 1.0))))
    if bits < 8:
        raise ValueError(f"weights whose rows sum to {max_abs_weight_row_sum:g} are too large for exact sums")
    return bits


def integer_slices(values: np.ndarray, bits: int) -> tuple[list[np.ndarray], np.ndarray]:
    """``(slices, exponent)`` with ``values == sum_l ldexp(slices[l], -l * bits - exponent)`` exactly, column by
    column: every slice integer-valued and at most ``2**bits`` in magnitude. ``exponent[u]`` scales column u's
    largest magnitude below ``2**bits``; each slice takes the next ``bits`` bits (``x - rint(x)`` and scaling by
    powers of two are exact in floating point), until nothing is left. Finite ``values`` only."""
    largest = np.abs(values).max(axis=0) if values.shape[0] else np.zeros(values.shape[1])
    _, top = np.frexp(largest)  # largest < 2**top
    exponent = bits - top
    rest = np.ldexp(values, exponent)
    slices = []
    while True:
        whole = np.rint(rest)
        slices.append(whole)
        rest = np.ldexp(rest - whole, bits)
        if not rest.any():
            return slices, exponent


def combine_slice_sums(
    level_sums: Sequence[np.ndarray],
    bits: int,
    exponent: np.ndarray,
    columns: Sequence[np.ndarray] | None = None,
) -> np.ndarray:
    """The sums of the values from the exact, integer-valued sums of their :func:`integer_slices` (most
    significant first; ``columns[l]``: the columns that slice ``l``'s sums cover, all when None), combined least
    significant first in float64: with two slices one rounding of the exact sum."""
    total = np.zeros((level_sums[0].shape[0], len(exponent)))
    for level in reversed(range(len(level_sums))):
        total = np.ldexp(total, -bits)
        total[:, slice(None) if columns is None else columns[level]] += level_sums[level]
    return np.ldexp(total, -exponent)


class WeightedSums:
    """``weights @ values`` for one ``values[N, U]`` and many integer-valued weight matrices ``weights[B, N]``
    (counts, 0/1 masks, signs), exact and the same on every machine.

    Integer-valued ``values`` whose partial sums stay at most 2**53 go to BLAS as they are. Others are cut into
    integer slices (:func:`integer_slices`) narrow enough that every partial sum of ``weights @ slice`` is an
    integer of at most 2**53, so BLAS computes each slice's sums exactly in any order; the slices' sums are then
    combined, least significant first, in float64. With two slices (every value within 2**29 of its column's
    largest, for rows summing to at most 4096) that is one rounding of the exact sum. The values' checks and slices
    are made once, for all the weight matrices they meet (the blocks of a resampling test).
    """

    def __init__(self, values: np.ndarray) -> None:
        self.values = np.asarray(values, dtype=np.float64)
        self.finite = bool(np.all(np.isfinite(self.values)))
        self.integer_valued = is_integer_valued(self.values)
        self.largest = float(np.abs(self.values).max()) if self.values.size and self.finite else 0.0
        self._slices: dict[int, tuple[list[np.ndarray], list[np.ndarray], np.ndarray]] = {}

    def __call__(self, weights: np.ndarray, max_abs_weight_row_sum: float | None = None) -> np.ndarray:
        """``weights @ values``; ``max_abs_weight_row_sum`` bounds ``sum_n |weights[b, n]|`` (default: computed)."""
        weights = np.asarray(weights, dtype=np.float64)
        if max_abs_weight_row_sum is None:
            max_abs_weight_row_sum = float(np.abs(weights).sum(axis=1).max()) if weights.size else 0.0
        if not self.finite or (
            self.integer_valued and max_abs_weight_row_sum * self.largest <= 2.0**FLOAT64_EXACT_BITS
        ):
            return weights @ self.values  # exact; or not a number either way, which the callers reject
        bits = slice_bits(max_abs_weight_row_sum)
        if bits not in self._slices:
            slices, exponent = integer_slices(self.values, bits)
            # each slice with the columns where it is not zero: the others add exact zeros (integer columns, as
            # NIST's counts beside its information sums, end after the first slice)
            columns = [np.flatnonzero(piece.any(axis=0)) for piece in slices]
            pieces = [piece[:, used] for piece, used in zip(slices, columns, strict=True)]
            self._slices[bits] = (pieces, columns, exponent)
        pieces, columns, exponent = self._slices[bits]
        return combine_slice_sums([weights @ piece for piece in pieces], bits, exponent, columns)


#: int64 holds every integer of magnitude < 2**63; the exact integer sums below stay within 2**62.
INT64_SAFE_BITS = 62


def binary_grid(values: np.ndarray, n_terms: int) -> tuple[np.ndarray, int, bool]:
    """``(integers, exponent, exact)``: ``values`` (float32 numbers held as float64) as integers on the common grid
    ``2**-exponent``, ``integers = values * 2**exponent``, for sums of up to ``n_terms`` of them in int64.

    The exponent is the finest any value needs (a float32 number is a multiple of its own last bit, ``2**(e - 24)``
    for ``2**(e-1) <= |v| < 2**e``), capped so that ``n_terms`` of the largest stay within 2**62; ``exact`` is False
    when the cap rounded some value (to nearest, ties to even): a value below ``2**(62 - log2(n_terms) - 24)`` times
    the largest, such as a score that equals the mean but for the mean's last bit."""
    v = np.asarray(values, dtype=np.float64)
    magnitudes = np.abs(v[v != 0])
    if magnitudes.size == 0:
        return np.zeros_like(v), 0, True
    _, exponents = np.frexp(magnitudes)
    # float32's 24 significant bits (the smallest subnormal is 2**-149)
    needed = int(min(149, int((24 - exponents).max())))
    top = int(exponents.max())  # every |value| < 2**top
    cap = INT64_SAFE_BITS - max(1, math.ceil(math.log2(max(n_terms, 2)))) - top
    exponent = min(needed, cap)
    integers = np.rint(np.ldexp(v, exponent))
    return integers, exponent, needed <= cap


def exact_integer_products(integers: np.ndarray, binary: np.ndarray) -> np.ndarray:
    """``integers[K, N] @ binary[N, R]`` as exact int64, the same on every machine: ``integers`` integer-valued
    float64 whose rows' magnitudes sum to at most 2**62, ``binary`` 0/1.

    BLAS adds integers exactly in any order while every partial sum stays within 2**53, which a row whose magnitudes
    sum to at most that guarantees; a larger row is cut into two integer slices (``x = hi * 2**T + lo``,
    ``0 <= lo < 2**T``, ``T = 53 - ceil(log2 N)``), each multiplied on its own, and the slices' sums are combined in
    int64."""
    x = np.asarray(integers, dtype=np.float64)
    weights = np.asarray(binary, dtype=np.float64)
    wide = np.abs(x).sum(axis=1) > 2.0**FLOAT64_EXACT_BITS
    if not wide.any():
        return (x @ weights).astype(np.int64)
    shift = FLOAT64_EXACT_BITS - max(1, math.ceil(math.log2(max(x.shape[1], 2))))
    low = np.mod(x[wide], 2.0**shift)  # exact: x and 2**shift are integers
    high = (x[wide] - low) / 2.0**shift  # exact
    sums = np.concatenate([x[~wide], low, high]) @ weights
    out = np.empty((x.shape[0], weights.shape[1]), dtype=np.int64)
    n_narrow, n_wide = int((~wide).sum()), int(wide.sum())
    out[~wide] = sums[:n_narrow].astype(np.int64)
    low_sums = sums[n_narrow : n_narrow + n_wide].astype(np.int64)
    out[wide] = (sums[n_narrow + n_wide :].astype(np.int64) << shift) + low_sums
    return out


def weighted_sums(
    weights: np.ndarray, values: np.ndarray, max_abs_weight_row_sum: float | None = None
) -> np.ndarray:
    """``weights[B, N] @ values[N, U]`` for integer-valued weights, exact and the same on every machine
    (:class:`WeightedSums`, for one product)."""
    return WeightedSums(values)(weights, max_abs_weight_row_sum)


def sum_of_products(x: np.ndarray, y: np.ndarray) -> float:
    """``sum_i x_i y_i`` of two vectors, by numpy's pairwise summation (``np.dot`` would call BLAS)."""
    return float(np.sum(np.asarray(x, dtype=np.float64) * np.asarray(y, dtype=np.float64)))


#: A process's first values are computed with Python's math module (its function mapped over the values), the rest,
#: once this many have been asked for, by the compiled loop (:mod:`mtsig.runtime.portable_compiled`, which first pays
#: for importing numba and loading its cached code, then costs far less per value), so that a pipeline job imports
#: numba only when that pays. Both call the C library's functions, so the switch never
#: changes a bit.
COMPILED_FROM_SIZE = 3_000_000
_values_asked = 0

_MATH = {"exp": math.exp, "log": math.log, "log2": math.log2, "exp2": math.exp2, "power": math.pow}


def _c_library(name: str, *values: float) -> float:
    """One value of the C library's function, with C's results where Python's math module raises instead."""
    try:
        return _MATH[name](*values)
    except OverflowError:  # exp, exp2 or pow beyond the largest float
        return math.inf
    except ValueError:  # log of 0 or of a negative number, or pow of a negative base
        if name in ("log", "log2") and values[0] == 0.0:
            return -math.inf
        if name == "power" and values[0] == 0.0:  # pow(0, negative)
            return math.inf
        return math.nan


def _elementwise(name: str, *arguments: object) -> np.ndarray | float:
    global _values_asked
    arrays = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in arguments))
    flat = [np.ascontiguousarray(a).reshape(-1) for a in arrays]
    _values_asked += flat[0].size
    if _values_asked >= COMPILED_FROM_SIZE:
        from mtsig.runtime.portable_compiled import elementwise  # imports numba only when needed

        result = elementwise(name, *flat)
    else:
        columns = [a.tolist() for a in flat]
        try:  # every value in the math module's domain (the usual case): its function mapped, faster than one value at a time
            result = np.fromiter(map(_MATH[name], *columns), np.float64, flat[0].size)
        except (OverflowError, ValueError):  # where it raises, C returns a value: one value at a time
            result = np.fromiter(
                (_c_library(name, *v) for v in zip(*columns, strict=True)), np.float64, flat[0].size
            )
    result = result.reshape(arrays[0].shape)
    return float(result) if result.ndim == 0 else result


def exp(x: object) -> np.ndarray | float:
    """``e**x`` element by element, the C library's ``exp`` (module docstring)."""
    return _elementwise("exp", x)


def log(x: object) -> np.ndarray | float:
    """The natural logarithm element by element, the C library's ``log``."""
    return _elementwise("log", x)


def log2(x: object) -> np.ndarray | float:
    """The base-2 logarithm element by element, the C library's ``log2``."""
    return _elementwise("log2", x)


def exp2(x: object) -> np.ndarray | float:
    """``2**x`` element by element, the C library's ``exp2``."""
    return _elementwise("exp2", x)


def power(x: object, y: object) -> np.ndarray | float:
    """``x**y`` element by element (broadcast), the C library's ``pow``."""
    return _elementwise("power", x, y)
