"""Simultaneous confidence bounds for pairwise differences ``θ_a − θ_b``: the max-t bootstrap with Romano & Wolf's
stepdown, on which every rank set rests (Mogstad, Romano, Shaikh & Wilhelm 2023; Romano & Wolf
2005, Algorithm 4.1).

A *family* is a set of ordered pairs ``(a, b)`` whose differences are bounded jointly: one family for a
simultaneous rank set, one per population for marginal rank sets. With ``Δ_ab`` the estimated difference, ``σ_ab``
its standard deviation and ``Z*`` a centred draw of the estimates, the standardised draw of a pair is ``T*_ab =
(Z*_a − Z*_b) / σ_ab``. Each step takes the ``coverage`` quantile ``c`` (:data:`QUANTILES`; csranks's R type 7 by
default) of the
family's maximum over its still active pairs of ``T*_ab`` (``bound="lower"``: lower bounds ``Δ_ab − σ_ab c``),
``−T*_ab`` (``"upper"``: upper bounds ``Δ_ab + σ_ab c``) or ``|T*_ab|`` (``"two-sided"``: both). The pairs whose
interval excludes 0 are rejected; with ``stepdown`` the next step recomputes ``c`` over the pairs left, until a step
rejects nothing or nothing is left (their bounds stay from the step that rejected them). The arithmetic, the
quantile and the stopping rule are csranks's (``R/diffmeans.R``, ``csdiffmeans``), so that the same draws give the
same bounds; csranks draws afresh at each step, mtsig reuses one set of draws (both are Romano & Wolf's bootstrap:
:class:`~mtsig.stats.rank_sets.draws.DrawSource`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mtsig.stats.rank_sets.draws import DrawSource

#: The kinds of bound on the differences: what each step's maximum is taken of.
BOUNDS = ("two-sided", "lower", "upper")

# Elements per block of standardised draws (pairs x draws): two blocks of 1 MB stay in the processor's cache.
_BLOCK = 1 << 17


@dataclass(frozen=True)
class PairwiseBounds:
    """What :func:`pairwise_bounds` returns.

    ``lower[F, S, S]``, ``upper[F, S, S]``: per family, the bounds of ``θ_a − θ_b`` for its pairs (``−inf`` /
    ``inf`` where the kind of bound leaves that side open, NaN for pairs outside the family). ``critical``: each
    step's critical values ``[F]`` (NaN for families already stopped). ``steps``: the number of steps taken.
    """

    lower: np.ndarray
    upper: np.ndarray
    critical: tuple[np.ndarray, ...]
    steps: int


def quantile_type7(values: np.ndarray, probability: float) -> np.ndarray:
    """The ``probability`` quantile of each row of ``values[F, R]``, with R's ``quantile(type = 7)`` arithmetic.

    R (``stats:::quantile.default``): ``index = 1 + (R − 1) p``, ``lo = floor(index)``, ``hi = ceiling(index)``,
    ``h = index − lo``; ``(1 − h) x_lo + h x_hi`` when ``index > lo`` and ``x_hi != x_lo``, else ``x_lo`` (order
    statistics counted from 1). numpy's "linear" method interpolates as ``x_lo + (x_hi − x_lo) h``, which can differ
    in the last bit.
    """
    n = values.shape[1]
    index = 1 + max(n - 1, 0) * probability
    lo, hi = math.floor(index), math.ceil(index)
    ordered = np.partition(values, sorted({lo - 1, hi - 1}), axis=1)
    x_lo, x_hi = ordered[:, lo - 1], ordered[:, hi - 1]
    h = index - lo
    if index > lo:
        return np.where(x_hi != x_lo, (1 - h) * x_lo + h * x_hi, x_lo)
    return x_lo


def quantile_inverse(values: np.ndarray, probability: float) -> np.ndarray:
    """The generalised inverse ``inf{x : F̂(x) >= probability}`` of each row's empirical distribution ``[F, R]``:
    the ``k``-th smallest value, ``k = ceil(R p)`` (at least 1), computed as R's ``quantile(type = 1)`` does
    (``j = floor(R p)``, ``k = j + (R p > j)``)."""
    n = values.shape[1]
    position = n * probability
    j = math.floor(position)
    k = max(j + (1 if position > j else 0), 1)
    return np.partition(values, k - 1, axis=1)[:, k - 1]


#: How a step's critical value is read off the bootstrap distribution of the maximum: ``"type7"``, csranks's
#: (R's ``quantile`` default, interpolated), or ``"inverse"``, the generalised inverse of the distribution function,
#: as the bootstrap critical value is defined in the paper (Mogstad, Romano, Shaikh & Wilhelm 2023) and in Romano &
#: Wolf (2005).
QUANTILES = {"type7": quantile_type7, "inverse": quantile_inverse}


def _statistic_pairs(masks: np.ndarray, bound: str) -> tuple[np.ndarray, ...]:
    """(family, first, second, absolute): the pairs whose standardised draws ``T_first,second`` a step reads, each
    family's together, and which of them enter as ``|T|``.

    Both orderings of a pair active in one family count once, as ``|T_ab| = max(T_ab, T_ba)`` (exactly: ``σ`` is
    symmetric and ``Z_b − Z_a = −(Z_a − Z_b)`` in floating point); an ``"upper"`` family's ``−T_ab`` is read as
    ``T_ba``; a ``"two-sided"`` family reads ``|T|`` of every pair.
    """
    reverse = masks.transpose(0, 2, 1)
    upper_triangle = np.triu(np.ones(masks.shape[1:], dtype=bool), 1)
    if bound == "two-sided":
        absolute = (masks | reverse) & upper_triangle
        single = np.zeros_like(masks)
    else:
        absolute = masks & reverse & upper_triangle
        single = masks & ~reverse
        if bound == "upper":
            single = single.transpose(0, 2, 1)
    family, first, second = np.nonzero(absolute | single)
    return family, first, second, absolute[family, first, second]


def _family_maxima(draws_t: np.ndarray, scales: np.ndarray, masks: np.ndarray, bound: str) -> np.ndarray:
    """Each family's maximum over its pairs of the standardised draws, ``[F, R]`` (module docstring).

    ``draws_t[S, R]``: centred draws, one row per population; ``masks[F, S, S]``: each family's active pairs (every
    family has one). Blocks of draws small enough to stay in the processor's cache; no loop over pairs.
    """
    family, first, second, absolute = _statistic_pairs(masks, bound)
    starts = np.flatnonzero(np.r_[True, family[1:] != family[:-1]])
    # A pair with no variance (item scores that differ by a constant) has standardised draws 0: its bounds are Δ.
    pair_scales = scales[first, second][:, None]
    pair_scales = np.where(pair_scales > 0, pair_scales, np.inf)
    absolute = absolute[:, None] if absolute.any() else None
    n_draws = draws_t.shape[1]
    maxima = np.empty((len(starts), n_draws))
    width = max(1, min(n_draws, _BLOCK // len(first)))
    left, right = np.empty((len(first), width)), np.empty((len(first), width))
    for start in range(0, n_draws, width):
        block = draws_t[:, start : start + width]
        size = block.shape[1]
        a, b = left[:, :size], right[:, :size]
        np.take(block, first, axis=0, out=a)
        np.take(block, second, axis=0, out=b)
        np.subtract(a, b, out=a)
        np.divide(a, pair_scales, out=a)
        if absolute is not None:
            np.abs(a, out=a, where=absolute)
        maxima[:, start : start + size] = np.maximum.reduceat(a, starts, axis=0)
    if np.isnan(maxima).any():
        raise ValueError("a draw needed by an active pair is missing (NaN)")
    return maxima


def _needed(masks: np.ndarray) -> np.ndarray:
    """``[F, S]``: the populations each family's active pairs involve (the draws a step needs)."""
    return masks.any(axis=2) | masks.any(axis=1)


def _step_critical(
    draws: DrawSource,
    step: int,
    keys: Sequence[object],
    scales: np.ndarray,
    masks: np.ndarray,
    bound: str,
    coverage: float,
    quantile: str,
) -> np.ndarray:
    """The critical value of each family ``[F]`` at ``step``: from one block of draws for all families when the
    draws are shared, else each family from its own draws (csranks's, recorded per family and step)."""
    needed = _needed(masks)
    read = QUANTILES[quantile]
    if draws.shared:
        draws_t = draws.centred_t(step, None, needed.any(axis=0))
        return read(_family_maxima(draws_t, scales, masks, bound), coverage)
    critical = np.empty(len(keys))
    for f, key in enumerate(keys):
        draws_t = draws.centred_t(step, key, needed[f])
        critical[f] = read(_family_maxima(draws_t, scales, masks[f : f + 1], bound), coverage)[0]
    return critical


def pairwise_bounds(
    differences: np.ndarray,
    scales: np.ndarray,
    families: np.ndarray,
    bound: str,
    draws: DrawSource,
    *,
    coverage: float,
    stepdown: bool,
    keys: Sequence[object] | None = None,
    quantile: str = "type7",
) -> PairwiseBounds:
    """Simultaneous bounds of ``differences[S, S]`` (``Δ_ab = θ̂_a − θ̂_b``) over each family (module docstring).

    ``scales[S, S]``: ``σ_ab`` (0 for a pair that never varies: its bounds are ``Δ_ab``); ``families[F, S, S]``:
    each family's pairs (no diagonal); ``bound``: one of :data:`BOUNDS`; ``draws``: the centred draws; ``keys[F]``:
    what identifies each family to draws that differ by family (the population of a marginal set; None for a
    simultaneous one); ``quantile``: a key of :data:`QUANTILES`.
    """
    if bound not in BOUNDS:
        raise ValueError(f"bound must be one of {', '.join(BOUNDS)}, not {bound!r}")
    if quantile not in QUANTILES:
        raise ValueError(f"quantile must be one of {', '.join(QUANTILES)}, not {quantile!r}")
    n_families = families.shape[0]
    keys = [None] * n_families if keys is None else list(keys)
    active = families.copy()
    lower = np.where(families, -np.inf, np.nan)
    upper = np.where(families, np.inf, np.nan)
    running = active.any(axis=(1, 2))
    critical_values = []
    step = 0
    while running.any():
        rows = np.flatnonzero(running)
        critical = np.full(n_families, np.nan)
        critical[rows] = _step_critical(
            draws, step, [keys[f] for f in rows], scales, active[rows], bound, coverage, quantile
        )
        critical_values.append(critical)
        spread = scales[None, :, :] * critical[:, None, None]
        if bound in ("lower", "two-sided"):
            lower = np.where(active, differences[None] - spread, lower)
        if bound in ("upper", "two-sided"):
            upper = np.where(active, differences[None] + spread, upper)
        left = active & ~((lower > 0) | (upper < 0))
        changed = left.sum(axis=(1, 2)) != active.sum(axis=(1, 2))
        running &= changed & left.any(axis=(1, 2)) if stepdown else False
        active = left
        step += 1
    return PairwiseBounds(lower, upper, tuple(critical_values), step)
