"""Simulated pairs that relabel two real systems' outputs, multiplied in factored form.

The calibration study's null pairs and planted alternatives (:mod:`mtsig.studies.calibration`) swap X's and Y's
statistics per segment or per document. Instead of stacking ``2P`` pseudo-systems, only the kept differences
``keep_p * (X - Y)`` are multiplied, once per distinct mask, on the segments where they are not zero, or document by
document (:class:`mtsig.stats.resampling.operands.GroupedDelta`); for statistics that are not integers, slice by
slice (:func:`sliced_relabelled_operand`). The totals are the stacked statistics' products bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mtsig.errors import InputError
from mtsig.runtime.portable import integer_slices, slice_bits
from mtsig.stats.resampling.operands import Delta, GroupedDelta, Operand, SlicedOperand, distinct_columns


@dataclass(frozen=True)
class RelabelledPairs:
    """The statistics of P simulated pairs that relabel two real systems' outputs, held unstacked.

    On segment i, pair p's pseudo-system X'_p has X's statistics and Y'_p has Y's where ``keep[p, i]``, and the other
    way round elsewhere: the null pairs and planted alternatives of :mod:`mtsig.studies.calibration` (a relabelling
    per segment or per document). :meth:`materialise` gives the stacked statistics ``[X'_0, Y'_0, X'_1, ...]``
    (``[2P, N, k]``); :func:`pairwise_tests` accepts either form and gives byte-identical results, but from this one
    it multiplies far fewer columns (:func:`relabelled_operand`).
    """

    stats_x: np.ndarray  # [N, k]
    stats_y: np.ndarray  # [N, k]
    keep: np.ndarray  # bool [P, N]

    def __post_init__(self) -> None:
        if self.stats_x.shape != self.stats_y.shape or self.stats_x.ndim != 2:
            raise InputError(
                f"stats of X and Y must both be [N, k]; got {self.stats_x.shape} and {self.stats_y.shape}"
            )
        if self.keep.ndim != 2 or self.keep.shape[1] != self.stats_x.shape[0] or self.keep.dtype != bool:
            raise InputError(
                f"keep mask must be boolean [pairs, {self.stats_x.shape[0]}]; got {self.keep.shape}"
            )

    @property
    def shape(self) -> tuple[int, int, int]:
        """Shape of the stacked statistics, ``(2P, N, k)``."""
        return (2 * self.keep.shape[0], *self.stats_x.shape)

    def materialise(self) -> np.ndarray:
        """The stacked statistics ``[2P, N, k]``: pair p is rows ``(2p, 2p + 1)``."""
        mask = self.keep[:, :, None]
        pseudo_x = np.where(mask, self.stats_x[None], self.stats_y[None])
        pseudo_y = np.where(mask, self.stats_y[None], self.stats_x[None])
        return np.stack([pseudo_x, pseudo_y], axis=1).reshape(self.shape)


#: Relabelled pairs whose keep masks are constant on groups of segments are multiplied group by group
#: (:class:`GroupedDelta`) when there are at most this fraction as many groups as segments: whole documents
#: relabelled (WMT12: 99 documents, 3003 segments), not segments relabelled one by one.
GROUPED_FRACTION = 1 / 8


def distinct_rows(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(first, row_of)`` for a boolean ``matrix[R, C]``: the index of each distinct row's first occurrence, in
    order, and each row's number among them (``matrix[first][row_of] == matrix``). Rows are compared as packed bits
    (np.unique(axis=0) sorts structured rows, about 10 times slower)."""
    packed = np.packbits(np.asarray(matrix, dtype=bool), axis=1)
    keys = np.ascontiguousarray(packed).view(np.dtype((np.void, packed.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return np.sort(first), rank[inverse.ravel()]


#: A difference column of relabelled pairs that is zero on more than this fraction of segments is multiplied on its
#: non-zero segments only (a gather of the weights' columns, cheaper than the product it saves); denser ones are
#: multiplied together on all segments.
SPARSE_DIFFERENCE_FRACTION = 0.3


def relabelled_operand(pairs: RelabelledPairs) -> tuple[Operand, np.ndarray]:
    """The operand and the totals ``[2P, k]`` of relabelled pairs with integer-valued statistics, without stacking.

    With ``D = X - Y`` and ``Z_p = keep_p * D`` (zero on swapped segments): ``X'_p = Y + Z_p`` and ``Y'_p = X - Z_p``,
    so ``W @ X'_p = W @ Y + W @ Z_p`` and ``W @ Y'_p = W @ X - W @ Z_p``. One product per pair and varying statistic
    (``W @ Z_p``) replaces two (``W @ X'_p``, ``W @ Y'_p``), and pairs with the same mask share it; statistics with
    ``X == Y`` (a shared reference length) need none, and each product skips the segments where its column of D is
    zero. For integer-valued statistics every product is an exact integer (float32 where
    :func:`~mtsig.stats.resampling.operands.float32_is_exact`; ``|Z| <= max |D|`` enters its bound) and so is each sum
    in float64, so the totals equal the stacked statistics' products bit for bit; that is why
    :func:`~mtsig.stats.resampling.engine.pairwise_tests` uses this form only for integer-valued statistics, or for
    the integer slices of others (:func:`sliced_relabelled_operand`).
    """
    x, y, keep = (
        pairs.stats_x.astype(np.float64, copy=False),
        pairs.stats_y.astype(np.float64, copy=False),
        pairs.keep,
    )
    base, column_of = _base_columns(x, y, keep.shape[0])
    differences = _kept_differences(x, y, keep)
    difference = x - y
    operand = Operand(
        base=base,
        base32=base.astype(np.float32),
        column_of=column_of,
        max_abs_statistic=float(max(np.abs(base).max(), np.abs(difference).max())),
        deltas=_pair_deltas(differences),
    )
    return operand, _relabelled_totals(x, y, keep, difference)


def _base_columns(x: np.ndarray, y: np.ndarray, n_pairs: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct columns of ``[Y, X]`` and, for each column ``2pk + c`` of the stacked statistics matrix, its
    column among them: ``X'_p`` starts from Y, ``Y'_p`` from X (``W @ X'_p = W @ Y + W @ Z_p``)."""
    k = x.shape[1]
    base, base_column_of = distinct_columns(np.concatenate([y, x], axis=1))
    column_of = np.empty((n_pairs, 2, k), dtype=np.int64)
    column_of[:, 0] = base_column_of[:k]  # X'_p starts from Y ...
    column_of[:, 1] = base_column_of[k:]  # ... and Y'_p from X
    return base, column_of.ravel()


@dataclass(frozen=True)
class _KeptDifferences:
    """The distinct columns of ``D = X - Y`` and the distinct keep masks of P relabelled pairs: the factors of the
    products ``W @ (keep_p * D)`` (:func:`relabelled_operand`), with where each product goes in the totals of the
    stacked statistics matrix (column ``2pk + c``: statistic c of X'_p; Y'_p's is k further)."""

    differences: np.ndarray  # [N, J] the distinct columns of D, float64
    difference_of: np.ndarray  # [k] each statistic's column of ``differences``
    kept: np.ndarray  # bool [N, M] the distinct keep masks, one column each
    mask_of_pair: np.ndarray  # [P] each pair's column of ``kept``
    k: int

    def targets(self, groups: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """The columns of X'_p the products of difference ``groups[n]`` and mask m (column n * M + m) go to."""
        x_columns = 2 * self.k * np.arange(len(self.mask_of_pair))  # column of statistic 0 of X'_p
        targets = [(n, c) for n, g in enumerate(groups) for c in np.flatnonzero(self.difference_of == g)]
        plus = np.concatenate([x_columns + c for _, c in targets])
        source = np.concatenate([n * self.kept.shape[1] + self.mask_of_pair for n, _ in targets])
        return plus, source

    def delta(self, groups: list[int], rows: np.ndarray | None) -> Delta:
        """The kept differences ``groups`` times every mask, on the segments ``rows`` (None: all)."""
        on = slice(None) if rows is None else rows
        values = np.concatenate(
            [np.where(self.kept[on], self.differences[on, g][:, None], 0.0) for g in groups], axis=1
        )
        plus, source = self.targets(groups)
        return Delta(rows, values, values.astype(np.float32), plus, plus + self.k, source)


def _kept_differences(x: np.ndarray, y: np.ndarray, keep: np.ndarray) -> _KeptDifferences:
    """The factors of relabelled pairs' products: distinct difference columns and distinct masks."""
    distinct_difference, difference_of = distinct_columns(x - y)
    # Pairs with the same keep mask (every pair at q = 1) have the same products: each distinct mask is multiplied once.
    first_pair, mask_of_pair = distinct_rows(keep)
    return _KeptDifferences(distinct_difference, difference_of, keep[first_pair].T, mask_of_pair, x.shape[1])


def _pair_deltas(differences: _KeptDifferences) -> tuple[Delta | GroupedDelta, ...]:
    """The products of the varying differences (X != Y somewhere) and the masks: group by group when the masks are
    constant on few groups of segments (whole documents relabelled, :data:`GROUPED_FRACTION`), else segment by
    segment (:func:`_segment_deltas`)."""
    n_segments, n_masks = differences.kept.shape
    varying = [g for g in range(differences.differences.shape[1]) if differences.differences[:, g].any()]
    first_segments, group_of_segment = distinct_rows(
        differences.kept
    )  # segments relabelled together: a group
    if varying and n_masks > 1 and len(first_segments) <= GROUPED_FRACTION * n_segments:
        return (_grouped_delta(differences, varying, first_segments, group_of_segment),)
    return tuple(_segment_deltas(differences, varying))


def _grouped_delta(
    differences: _KeptDifferences,
    varying: list[int],
    first_segments: np.ndarray,
    group_of_segment: np.ndarray,
) -> GroupedDelta:
    """Whole documents relabelled: the products group by group (:class:`GroupedDelta`), segments sorted by group."""
    n_segments = len(group_of_segment)
    order = np.argsort(group_of_segment, kind="stable")
    bounds = np.searchsorted(group_of_segment[order], np.arange(len(first_segments) + 1))
    values = differences.differences[order][:, varying]
    plus, source = differences.targets(varying)
    return GroupedDelta(
        None if np.array_equal(order, np.arange(n_segments)) else order,
        bounds,
        values,
        values.astype(np.float32),
        differences.kept[first_segments].astype(np.float64),
        plus,
        plus + differences.k,
        source,
    )


def _segment_deltas(differences: _KeptDifferences, varying: list[int]) -> list[Delta]:
    """Segments relabelled one by one: the dense differences multiplied together on all segments (first), each
    sparse one on its non-zero segments only (:data:`SPARSE_DIFFERENCE_FRACTION`)."""
    n_segments = differences.kept.shape[0]
    deltas: list[Delta] = []
    dense: list[int] = []
    for g in varying:  # X == Y elsewhere: the base totals are every pseudo-system's
        rows = np.flatnonzero(differences.differences[:, g])
        if len(rows) < (1 - SPARSE_DIFFERENCE_FRACTION) * n_segments:
            deltas.append(differences.delta([g], rows))
        else:
            dense.append(g)
    if dense:
        deltas.insert(0, differences.delta(dense, None))
    return deltas


def _relabelled_totals(x: np.ndarray, y: np.ndarray, keep: np.ndarray, difference: np.ndarray) -> np.ndarray:
    """The totals ``[2P, k]`` of the pseudo-systems: ``sum X'_p = sum Y + keep_p . D``, ``sum Y'_p = sum X - keep_p .
    D`` (exact for integers)."""
    kept_difference = keep.astype(np.float64) @ difference  # [P, k], exact for integers
    totals = np.stack([y.sum(axis=0) + kept_difference, x.sum(axis=0) - kept_difference], axis=1)
    return totals.reshape(2 * keep.shape[0], x.shape[1])


def sliced_relabelled_operand(pairs: RelabelledPairs, max_row_sum: int) -> tuple[SlicedOperand, np.ndarray]:
    """The operand and the totals ``[2P, k]`` of relabelled pairs whose statistics are not integer-valued, for
    weights with rows summing to at most ``max_row_sum``.

    X and Y are cut into integer slices of ``bits = 52 - ceil(log2 max_row_sum)`` bits, statistic by statistic on a
    common scale (:func:`mtsig.runtime.portable.integer_slices`), so that each slice of X, of Y and of their difference
    gives products that are integers of at most 2**53: exact in the factored form of :func:`relabelled_operand`,
    one product per pair and varying statistic instead of the stacked statistics' two per pair and statistic.
    """
    n_pairs = pairs.keep.shape[0]
    k = pairs.stats_x.shape[1]
    bits = slice_bits(max_row_sum, spare_bits=1)  # |X - Y| may reach twice a slice's magnitude
    # X above Y, [2N, k]: one scale per statistic for both
    both = np.concatenate([pairs.stats_x, pairs.stats_y]).astype(np.float64)
    slices, exponent = integer_slices(both, bits)
    n = pairs.stats_x.shape[0]
    levels, level_totals = [], []
    for piece in slices:
        operand, totals = relabelled_operand(RelabelledPairs(piece[:n], piece[n:], pairs.keep))
        levels.append(operand)
        level_totals.append(totals.reshape(1, 2 * n_pairs * k))
    sliced = SlicedOperand(tuple(levels), bits, np.tile(exponent, 2 * n_pairs))
    return sliced, sliced.combine(level_totals).reshape(2 * n_pairs, k)
