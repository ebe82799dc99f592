"""mtsig.runtime.portable: weighted sums and elementary functions that give the same bits on every machine.

Oracles: exact rational and integer arithmetic (each sum rounded once), Python's math module (the C library
itself), and the same computation in a process whose numpy and OpenBLAS compute as on another machine.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from pipeline_runs import digests_here_and_on_another_machine, other_machine_numerics

from mtsig.runtime import portable


def _exact(weights: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The exact weighted sums in rational arithmetic, each rounded once to float64 (Fraction -> float rounds to
    nearest)."""
    return np.array(
        [
            [
                float(sum(Fraction(w) * Fraction(v) for w, v in zip(row, column, strict=True)))
                for column in values.T
            ]
            for row in weights
        ]
    )


def test_weighted_sums_are_the_exact_sums_rounded_once() -> None:
    rng = np.random.default_rng(3)
    weights = rng.poisson(1.0, (6, 80)).astype(np.float64)
    # within 2**29 of each column's largest value: two slices, one rounding; order matters for naive sums
    values = rng.normal(size=(80, 4)) * 10.0 ** rng.integers(-7, 2, size=(80, 4))
    assert np.array_equal(portable.weighted_sums(weights, values), _exact(weights, values))
    masks = (rng.random((6, 80)) < 0.5).astype(np.float64)  # randomization masks, 0/1
    assert np.array_equal(portable.weighted_sums(masks, values), _exact(masks, values))


def test_weighted_sums_with_a_wide_range_of_magnitudes_stay_within_an_ulp() -> None:
    rng = np.random.default_rng(8)
    weights = rng.poisson(1.0, (5, 60)).astype(np.float64)
    values = rng.normal(size=(60, 3)) * 10.0 ** rng.integers(-40, 5, size=(60, 3))  # more than two slices
    slices, _ = portable.integer_slices(values, 45)
    assert len(slices) > 2
    exact = _exact(weights, values)
    assert np.all(np.abs(portable.weighted_sums(weights, values) - exact) <= np.spacing(np.abs(exact)))


def test_exact_integer_products_equal_python_integer_arithmetic() -> None:
    """Rows whose magnitudes sum past 2**53 (cut into two slices) and rows within it (one product): every sum equals
    Python's arbitrary-precision integer sum."""
    rng = np.random.default_rng(11)
    binary = rng.random((300, 7)) < 0.5
    narrow = rng.integers(-(2**40), 2**40, size=(3, 300))
    wide = rng.integers(-(2**54), 2**54, size=(2, 300))  # rows summing to about 2**62
    wide -= wide % 1024  # multiples of 2**10: exact in float64
    integers = np.concatenate([narrow, wide]).astype(np.float64)
    expected = [
        [sum(int(x) * int(w) for x, w in zip(row, column, strict=True)) for column in binary.T]
        for row in integers
    ]
    got = portable.exact_integer_products(integers, binary.astype(np.float64))
    assert got.dtype == np.int64 and got.tolist() == expected


def test_binary_grid_puts_float32_numbers_on_one_exact_grid() -> None:
    """Every float32 number is a multiple of its last bit: the grid is the finest of them, exactly; a value far below
    the largest is rounded once the sums would leave int64, and the grid says so."""
    values = np.array([3.0, -0.75, 2.0**-20 * 1.5, 0.0], dtype=np.float32).astype(np.float64)
    integers, exponent, exact = portable.binary_grid(values, 1000)
    assert exact and exponent == 20 + 23  # 1.5 * 2**-20 lies in [2**-20, 2**-19): its last bit is 2**-43
    assert [Fraction(int(i), 2**exponent) for i in integers] == [Fraction(v) for v in values]
    tiny = np.array([3.0, 2.0**-60], dtype=np.float32).astype(np.float64)
    integers, exponent, exact = portable.binary_grid(tiny, 1000)
    assert not exact and integers[1] == 0 and np.abs(integers).max() * 1000 < 2.0**62


def test_weighted_sums_of_integers_are_exact() -> None:
    rng = np.random.default_rng(4)
    weights = rng.poisson(1.0, (64, 300))
    values = rng.integers(-(2**30), 2**30, size=(300, 5))  # partial sums far beyond float32, within 2**53
    exact = weights.astype(np.int64) @ values.astype(np.int64)  # numpy's integer product: exact, no BLAS
    assert np.array_equal(
        portable.weighted_sums(weights.astype(np.float64), values.astype(np.float64)), exact
    )
    # integers whose partial sums could pass 2**53 are sliced: still exact
    big = np.array([[2.0**52 + 1.0], [2.0**52 - 3.0], [7.0]])
    counts = np.array([[3.0, 1.0, 2.0], [0.0, 4.0, 1.0]])
    sums = portable.WeightedSums(big)
    exact = counts.astype(int).astype(object) @ big.astype(int).astype(object)  # Python integers
    assert sums(counts).ravel().tolist() == [float(c) for c in exact.ravel()]
    assert (
        sums(counts[:1]).tolist() == sums(counts)[:1].tolist()
    )  # slices made once serve every weight matrix


@pytest.fixture(params=["math module", "compiled"])
def elementary_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Small arrays go through Python's math module, large ones through the compiled loop: test both."""
    compiled_from = 0 if request.param == "compiled" else 2**62  # whatever this process computed before
    monkeypatch.setattr(portable, "COMPILED_FROM_SIZE", compiled_from)
    return request.param


@pytest.mark.parametrize(
    ("name", "oracle"),
    [("exp", math.exp), ("log", math.log), ("log2", math.log2), ("exp2", math.exp2)],
)
def test_elementary_functions_are_the_c_library_s(name: str, oracle, elementary_path: str) -> None:
    values = np.linspace(0.001, 40.0, 20_099) if name.startswith("log") else np.linspace(-30.0, 30.0, 20_099)
    result = getattr(portable, name)(values.reshape(101, 199))
    assert result.shape == (101, 199)
    assert [float(v) for v in result.ravel()] == [oracle(float(v)) for v in values]


def test_power_and_the_c_library_s_special_values(elementary_path: str) -> None:
    bases = np.linspace(0.0, 5.0, 5001)
    assert [float(v) for v in portable.power(bases, 0.75)] == [math.pow(float(b), 0.75) for b in bases]
    assert [float(v) for v in portable.power(-bases, 3.0)] == [math.pow(-float(b), 3.0) for b in bases]
    # where Python's math raises, C returns: log(0) = -inf, log(-1) = nan, exp(1000) = inf, pow(0, -1) = inf
    special = portable.log(np.array([0.0, -1.0])), portable.exp(np.array([1000.0])), portable.power(0.0, -1.0)
    assert special[0][0] == -math.inf and math.isnan(special[0][1])
    assert special[1][0] == math.inf and special[2] == math.inf
    assert portable.log2(0.0) == -math.inf and math.isnan(portable.log2(-2.0))
    assert portable.sum_of_products(np.array([1.5, -2.0]), np.array([2.0, 0.25])) == 2.5


_RESAMPLE_FLOAT_STATISTICS = """
import hashlib
import numpy as np
from mtsig.runtime import portable
from mtsig.stats import resampling as rs
from mtsig.stats.meta_evaluation.metric_comparison import PermBothOptions, perm_both_matrix
rng = np.random.default_rng(5)
stats = rng.gamma(2.0, 1.7, size=(4, 300, 2))  # not integer-valued, as NIST's or published segment scores
options = rs.ResamplingOptions(n_samples=600, seed=11, tests=["paired_bootstrap", "approximate_randomization"],
                               intervals=["percentile"])
result = rs.pairwise_tests(stats, lambda t: t[..., 0] / t[..., 1], ["a", "b", "c", "d"], options)
metrics = rng.normal(size=(3, 200))
p, r = perm_both_matrix(metrics[0] + rng.normal(size=200), metrics, PermBothOptions(n_resamples=300),
                        rng=np.random.default_rng(1))
digest = hashlib.sha256(result.table.to_csv().encode() + result.intervals.to_csv().encode())
for array in (p, r, portable.exp(np.linspace(-3, 3, 999)), portable.log(np.linspace(0.1, 9, 999))):
    digest.update(np.ascontiguousarray(array).tobytes())
print(digest.hexdigest())
"""


def test_results_do_not_depend_on_the_machine_s_blas_kernel_or_vector_units() -> None:
    """The same resampling of non-integer statistics here and under another machine's numerics (OpenBLAS's generic
    kernels, numpy without AVX-512): byte-identical. With numpy's matrix product instead of
    :func:`mtsig.runtime.portable.weighted_sums` the two differ on every x86-64 machine (Prescott's kernel is none's own)."""
    assert other_machine_numerics(), "this check knows another machine's numerics for x86-64 and aarch64 only"
    digests = digests_here_and_on_another_machine(_RESAMPLE_FLOAT_STATISTICS)
    assert digests[0] == digests[1] and len(digests[0].strip()) == 64
