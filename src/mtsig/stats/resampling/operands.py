"""The statistics matrix in the form its weighted totals ``W @ A`` are computed in, exactly.

The weights (bootstrap counts, AR swap masks) are non-negative integers, so for integer-valued statistics every
product is an exact integer sum: in float32 where no partial sum can exceed 2**24 (:func:`float32_is_exact`), with
identical columns multiplied once (:func:`distinct_columns`). Statistics that are not integer-valued are summed in
integer slices (:class:`mtsig.runtime.portable.WeightedSums`). :class:`Delta` and :class:`GroupedDelta` hold the factored
products of relabelled pairs (built by :mod:`mtsig.stats.resampling.relabelled`), :class:`SlicedOperand` their
integer slices, and :func:`by_document` the documents' summed statistics for the document bootstrap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mtsig.runtime.portable import WeightedSums, combine_slice_sums, is_integer_valued

#: float32 has a 24-bit significand: every integer of magnitude <= 2**24 is exactly representable.
FLOAT32_EXACT_INTEGER_LIMIT = 2**24


def float32_is_exact(max_abs_statistic: float, max_weight_row_sum: int) -> bool:
    """Whether ``W @ stats`` is exact in float32 for integer-valued ``stats`` with ``max|stats| <=
    max_abs_statistic`` and every non-negative integer weight matrix ``W`` whose rows sum to at most
    ``max_weight_row_sum``.

    Each term ``W[b, i] * stats[i, j]`` and each partial sum of a row, in any order and with or without fused
    multiply-add, is an integer of magnitude at most ``sum_i W[b, i] * |stats[i, j]| <= max_weight_row_sum *
    max_abs_statistic``. If that bound is at most 2**24, float32 represents every intermediate exactly, so the
    product equals the exact integer sum, which is also what float64 gives.
    """
    return max_weight_row_sum * max_abs_statistic <= FLOAT32_EXACT_INTEGER_LIMIT


def distinct_columns(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(distinct, column_of)`` with ``distinct[:, column_of] == matrix``: each distinct column once, in order of
    first appearance. A column shared by every system (BLEU's or TER's reference length, chrF's reference n-gram
    counts) then enters the resampling products once instead of once per system. ``distinct`` is column-major
    (Fortran-ordered), which BLAS multiplies without a copy."""
    # Columns are compared by their bytes (exact; a dict is much faster than np.unique(axis=1) on tall columns).
    index_of: dict[bytes, int] = {}
    firsts: list[int] = []
    column_of = np.empty(matrix.shape[1], dtype=np.int64)
    columns = np.ascontiguousarray(matrix.T)  # no copy when ``matrix`` is the transpose of a C-ordered array
    for j, column in enumerate(columns):
        key = column.tobytes()
        if key not in index_of:
            index_of[key] = len(firsts)
            firsts.append(j)
        column_of[j] = index_of[key]
    return columns[firsts].T, column_of


@dataclass(frozen=True)
class Delta:
    """Products added to (X'_p) and subtracted from (Y'_p) the base totals of relabelled pairs.

    ``values[n, J]``: columns ``keep_p * d`` of distinct differences ``d`` of ``X - Y``, on the segments ``rows``
    (None: all). Column ``source[j]`` of ``W[:, rows] @ values`` is added to column ``plus[j]`` and subtracted from
    column ``minus[j]`` of the statistics matrix's weighted totals.
    """

    rows: np.ndarray | None
    values: np.ndarray
    values32: np.ndarray
    plus: np.ndarray
    minus: np.ndarray
    source: np.ndarray

    @property
    def nbytes(self) -> int:
        return self.values.nbytes + self.values32.nbytes

    def by_segment(self, n_segments: int) -> np.ndarray:
        """``values`` on every segment (zero off ``rows``), float64 ``[N, J]``."""
        if self.rows is None:
            return self.values
        full = np.zeros((n_segments, self.values.shape[1]))
        full[self.rows] = self.values
        return full

    def product(self, weights: np.ndarray) -> np.ndarray:
        """``W[:, rows] @ values`` as float64 (float32 weights with the float32 copy)."""
        selected = weights if self.rows is None else weights[:, self.rows]
        single = weights.dtype == np.float32
        return (selected @ (self.values32 if single else self.values)).astype(np.float64)


@dataclass(frozen=True)
class GroupedDelta:
    """The products of :class:`Delta` when every keep mask is constant on groups of segments (whole documents
    relabelled), computed group by group: with ``K[G, m]`` mask m on group G and ``d`` a difference column,
    ``sum_i W[b, i] K[G(i), m] d[i] = sum_G K[G, m] (sum_{i in G} W[b, i] d[i])``. One small product per group
    (``W[:, G] @ differences[G]``, for every difference at once) and one over the groups replace a product over
    every segment per mask: with WMT12's 99 documents about 30 times fewer multiplications. Every partial sum is an
    integer bounded as in the direct product (integer weights and statistics), so the sums are exact either way and
    the result is the same bit for bit.

    ``order``: the segments sorted by group (None: they already are); ``bounds[j]:bounds[j + 1]`` the positions of
    group j in that order; ``differences[N, J]`` the distinct difference columns in that order; ``masks[groups, M]``
    each distinct mask's keep (0 or 1) on each group. Column ``n * M + m`` of the product is difference n kept by
    mask m, as :class:`Delta`'s columns.
    """

    order: np.ndarray | None
    bounds: np.ndarray
    values: np.ndarray  # the differences [N, J], float64
    values32: np.ndarray
    masks: np.ndarray  # [groups, M], float64
    plus: np.ndarray
    minus: np.ndarray
    source: np.ndarray

    @property
    def nbytes(self) -> int:
        return self.values.nbytes + self.values32.nbytes + self.masks.nbytes

    def by_segment(self, n_segments: int) -> np.ndarray:
        """The multiplied values ``K[G(i), m] d[i]`` of every segment i, float64 ``[N, J * M]`` (column ``n * M +
        m``), as :class:`Delta` would hold them."""
        group = np.repeat(np.arange(len(self.bounds) - 1), np.diff(self.bounds))  # of each position in order
        ordered = (self.values[:, :, None] * self.masks[group][:, None, :]).reshape(n_segments, -1)
        if self.order is None:
            return ordered
        full = np.empty_like(ordered)
        full[self.order] = ordered
        return full

    def product(self, weights: np.ndarray) -> np.ndarray:
        """``W @ (K[G(i), m] d[i])`` for every difference and mask, exactly, as float64 ``[rows, J * M]``."""
        ordered = weights if self.order is None else weights[:, self.order]
        values = self.values32 if weights.dtype == np.float32 else self.values
        n_rows, n_groups, n_values = len(weights), len(self.bounds) - 1, values.shape[1]
        group_sums = np.empty((n_rows, n_values, n_groups))
        for group, (first, last) in enumerate(zip(self.bounds[:-1], self.bounds[1:], strict=True)):
            group_sums[:, :, group] = ordered[:, first:last] @ values[first:last]
        product = group_sums.reshape(n_rows * n_values, n_groups) @ self.masks
        return product.reshape(n_rows, n_values * self.masks.shape[1])


@dataclass(frozen=True)
class Operand:
    """The statistics matrix ``A[N, S*k]`` (column ``s*k + c``: statistic c of system s) in the form its weighted
    totals ``W @ A`` are computed in: ``W @ base`` spread by ``column_of``, plus any ``deltas``.

    ``base32``: float32 copy of ``base`` (and the deltas hold one) when the statistics are integer-valued, else None;
    :func:`weight_dtype` then chooses float32 weights where the products are exact (:func:`float32_is_exact`).
    """

    base: np.ndarray  # [N, U] float64, column-major
    base32: np.ndarray | None
    column_of: np.ndarray  # [S*k]
    max_abs_statistic: float  # of every value multiplied
    deltas: tuple[Delta | GroupedDelta, ...] = ()
    exact_sums: WeightedSums | None = None  # of ``base``, when it is not integer-valued

    @property
    def nbytes(self) -> int:
        own = sum(0 if a is None else a.nbytes for a in (self.base, self.base32))
        return own + sum(delta.nbytes for delta in self.deltas)

    def weighted_totals(self, weights: np.ndarray) -> np.ndarray:
        """``weights[rows, N] @ A`` as float64; float32 weights (chosen by :func:`weight_dtype` only where exact)
        are multiplied with the float32 copies. Statistics that are not integer-valued are summed exactly in integer
        slices (:class:`mtsig.runtime.portable.WeightedSums`): BLAS would round their sums in an order that depends on the
        CPU."""
        if self.exact_sums is not None:
            return self.exact_sums(weights)[:, self.column_of]
        single = weights.dtype == np.float32
        totals = (weights @ (self.base32 if single else self.base)).astype(np.float64)[:, self.column_of]
        for delta in self.deltas:
            product = delta.product(weights)
            totals[:, delta.plus] += product[:, delta.source]
            totals[:, delta.minus] -= product[:, delta.source]
        return totals


def statistics_operand(stats: np.ndarray) -> Operand:
    """The operand of statistics ``stats[S, N, k]`` (float64): their distinct columns (:func:`distinct_columns`),
    with a float32 copy when integer-valued."""
    n_systems, n_segments, k = stats.shape
    # Column s*k + c of the statistics matrix [N, S*k] is statistic c of system s; built column-major in one pass.
    distinct, column_of = distinct_columns(stats.transpose(0, 2, 1).reshape(n_systems * k, n_segments).T)
    integer_valued = is_integer_valued(distinct)
    return Operand(
        base=distinct,
        base32=distinct.astype(np.float32) if integer_valued else None,
        column_of=column_of,
        max_abs_statistic=float(np.abs(distinct).max()),
        exact_sums=None if integer_valued else WeightedSums(distinct),
    )


@dataclass(frozen=True)
class SlicedOperand:
    """Relabelled pairs whose statistics are not integer-valued, as integer slices: ``levels[l]`` is the factored
    operand (:func:`relabelled_operand`) of slice ``l`` of X and Y, most significant first, each scaled by
    ``2**(l * bits + exponent[column])``. Every product in a level is exact (:func:`sliced_relabelled_operand`), and
    the levels' totals are combined least significant first, as :class:`mtsig.runtime.portable.WeightedSums` combines a
    stacked operand's slices: with two slices both give the exact sums rounded once, the same bits."""

    levels: tuple[Operand, ...]
    bits: int
    exponent: np.ndarray  # [2P * k]: column j of the totals is statistic j % k
    base32: None = None  # for weight_dtype: float64 weights

    @property
    def base(self) -> np.ndarray:
        return self.levels[0].base

    @property
    def nbytes(self) -> int:
        return sum(level.nbytes for level in self.levels)

    def combine(self, level_totals: Sequence[np.ndarray]) -> np.ndarray:
        """The totals of the pseudo-systems from each level's (exact, integer-valued) totals."""
        return combine_slice_sums(level_totals, self.bits, self.exponent)

    def weighted_totals(self, weights: np.ndarray) -> np.ndarray:
        """``weights[rows, N] @ A`` of the stacked statistics, exactly (float64 weights)."""
        return self.combine([level.weighted_totals(weights) for level in self.levels])


def by_document(
    operand: Operand | SlicedOperand, document_of_segment: np.ndarray
) -> Operand | SlicedOperand | None:
    """The operand of the documents' summed statistics, for the document bootstrap, whose weights are constant
    within documents: ``W @ A = W_d @ (P^T A)``, ``W_d`` the documents' counts and ``P`` the segment-to-document
    indicator, in about as many multiplications as there are documents instead of segments. Every product of
    integer statistics is an exact sum of integers, as large at most as the segments' own, so the totals are the
    same bits (float32 where the segments' products were exact in it). None for statistics that are not integers
    (:class:`mtsig.runtime.portable.WeightedSums` slices them by their magnitude, which summing would change) and for
    whole documents relabelled (:class:`GroupedDelta`, multiplied group by group already)."""
    if isinstance(operand, SlicedOperand):
        levels = [by_document(level, document_of_segment) for level in operand.levels]
        if any(level is None for level in levels):
            return None
        return SlicedOperand(tuple(levels), operand.bits, operand.exponent)  # type: ignore[arg-type]
    if operand.exact_sums is not None or operand.base32 is None:
        return None
    if any(isinstance(delta, GroupedDelta) for delta in operand.deltas):
        return None  # already multiplied group by group: summing its segments' values would cost more
    n_segments = operand.base.shape[0]
    indicator = np.zeros((int(document_of_segment.max()) + 1, n_segments))
    indicator[document_of_segment, np.arange(n_segments)] = 1.0

    def summed(values: np.ndarray) -> np.ndarray:
        return indicator @ values  # exact: sums of integers

    deltas = []
    for delta in operand.deltas:
        values = summed(delta.by_segment(n_segments))
        deltas.append(Delta(None, values, values.astype(np.float32), delta.plus, delta.minus, delta.source))
    base = np.asfortranarray(summed(operand.base))
    return Operand(base, base.astype(np.float32), operand.column_of, operand.max_abs_statistic, tuple(deltas))
