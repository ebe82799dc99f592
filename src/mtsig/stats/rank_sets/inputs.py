"""Checks of what the rank sets are computed from; each bad input is an :class:`~mtsig.errors.InputError` that names
its source (a file, or what the caller calls the input) and the problem.

Ties among the estimates are not an error (as in csranks): tied systems share the better rank
(:func:`mtsig.stats.rank_sets.sets.estimated_ranks`), their difference is never significant, so their sets overlap.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mtsig.errors import InputError

#: The sides of a rank set: both bounds, only the lower bound (the set ``[L, S]``: how good a system can be at
#: best) or only the upper bound (``[1, U]``), csranks's ``cstype``.
SIDES = ("two-sided", "lower", "upper")

# Relative asymmetry of a covariance accepted as rounding (a matrix written with few digits), and MASS's mvrnorm
# tolerance for negative eigenvalues (relative to the largest).
SYMMETRY_TOLERANCE = 1e-8
EIGENVALUE_TOLERANCE = 1e-6


def check_systems(systems: Sequence[str], source: str) -> tuple[str, ...]:
    """The system names as a tuple: at least two, none empty, no duplicate."""
    names = tuple(str(s) for s in systems)
    if len(names) < 2:
        raise InputError(f"{len(names)} system(s): at least two are needed to rank", source)
    if any(not name.strip() for name in names):
        raise InputError("a system has an empty name", source)
    seen: set[str] = set()
    duplicates = sorted({n for n in names if n in seen or seen.add(n)})
    if duplicates:
        raise InputError(f"system(s) named more than once: {', '.join(duplicates)}", source)
    return names


def check_estimates(systems: tuple[str, ...], estimates: Sequence[float], source: str) -> np.ndarray:
    """``estimates[S]`` as floats: one per system, every one a finite number."""
    values = np.asarray(estimates, dtype=np.float64).ravel()
    if len(values) != len(systems):
        raise InputError(f"{len(values)} estimates for {len(systems)} systems", source)
    bad = np.flatnonzero(~np.isfinite(values))
    if len(bad):
        raise InputError(f"the estimate of {systems[bad[0]]!r} is missing or not a finite number", source)
    return values


def covariance_from_standard_errors(
    systems: tuple[str, ...], standard_errors: Sequence[float], source: str
) -> np.ndarray:
    """``diag(se²)``: independent estimates; every standard error a positive finite number."""
    se = np.asarray(standard_errors, dtype=np.float64).ravel()
    if len(se) != len(systems):
        raise InputError(f"{len(se)} standard errors for {len(systems)} systems", source)
    for s, value in zip(systems, se, strict=True):
        if not np.isfinite(value):
            raise InputError(f"the standard error of {s!r} is missing or not a finite number", source)
        if value <= 0:
            raise InputError(f"the standard error of {s!r} is {value:g}: it must be positive", source)
    return np.diag(se**2)


def _reordered(
    systems: tuple[str, ...], matrix: np.ndarray, names: Sequence[str] | None, source: str
) -> np.ndarray:
    """``matrix`` with rows and columns in the order of ``systems`` (``names``: its own order; None: already)."""
    if names is None:
        return matrix
    names = [str(n) for n in names]
    missing = [s for s in systems if s not in names]
    extra = [n for n in names if n not in systems]
    if missing or extra or len(set(names)) != len(names):
        parts = []
        if missing:
            parts.append(f"no row for {', '.join(missing)}")
        if extra:
            parts.append(f"rows for unknown system(s) {', '.join(extra)}")
        if len(set(names)) != len(names):
            parts.append("a system named twice")
        raise InputError(f"the covariance's systems do not match the estimates': {'; '.join(parts)}", source)
    order = [names.index(s) for s in systems]
    return matrix[np.ix_(order, order)]


def check_covariance(
    systems: tuple[str, ...],
    covariance: np.ndarray,
    source: str,
    names: Sequence[str] | None = None,
) -> np.ndarray:
    """The covariance of the estimates ``[S, S]`` in the order of ``systems`` (``names``: the matrix's own order):
    finite, positive variances, symmetric (asymmetry up to :data:`SYMMETRY_TOLERANCE` of its largest entry is
    taken for rounding and averaged out), positive semi-definite (MASS's tolerance)."""
    matrix = np.asarray(covariance, dtype=np.float64)
    size = len(systems) if names is None else len(names)
    if matrix.shape != (size, size):
        raise InputError(f"the covariance is {'x'.join(map(str, matrix.shape))}, not {size}x{size}", source)
    matrix = _reordered(systems, matrix, names, source)
    if not np.isfinite(matrix).all():
        raise InputError("the covariance has a missing or non-finite entry", source)
    variances = np.diag(matrix)
    if (variances <= 0).any():
        s = systems[int(np.argmin(variances))]
        raise InputError(f"the variance of {s!r} is {variances.min():g}: it must be positive", source)
    asymmetry = np.abs(matrix - matrix.T).max()
    if asymmetry > SYMMETRY_TOLERANCE * np.abs(matrix).max():
        a, b = np.unravel_index(int(np.argmax(np.abs(matrix - matrix.T))), matrix.shape)
        raise InputError(
            f"the covariance is not symmetric: ({systems[a]}, {systems[b]}) is {matrix[a, b]:g} but "
            f"({systems[b]}, {systems[a]}) is {matrix[b, a]:g}",
            source,
        )
    if asymmetry > 0:
        matrix = (matrix + matrix.T) / 2
    eigenvalues = np.linalg.eigvalsh(matrix)
    if eigenvalues[0] < -EIGENVALUE_TOLERANCE * abs(eigenvalues[-1]):
        raise InputError(
            f"the covariance is not positive semi-definite (smallest eigenvalue {eigenvalues[0]:g})", source
        )
    return matrix


def difference_sds(systems: tuple[str, ...], covariance: np.ndarray, source: str) -> np.ndarray:
    """``σ_ab = sqrt((Σ_aa + Σ_bb) − 2 Σ_ab)``, the standard deviation of ``θ̂_a − θ̂_b`` (csranks's arithmetic);
    a pair whose difference has no variance (two systems' estimates perfectly correlated with equal variances) is
    an error, since its standardised differences are undefined."""
    variances = np.diag(covariance)
    with np.errstate(invalid="ignore"):
        sds = np.sqrt(np.add.outer(variances, variances) - 2 * covariance)
    off_diagonal = ~np.eye(len(systems), dtype=bool)
    flat = np.flatnonzero(off_diagonal & ~(sds > 0))
    if len(flat):
        a, b = np.unravel_index(int(flat[0]), sds.shape)
        raise InputError(
            f"the difference of {systems[a]!r} and {systems[b]!r} has no variance under the covariance: "
            "their estimates move together exactly",
            source,
        )
    return sds


def check_options(
    *,
    side: str = "two-sided",
    coverage: float = 0.95,
    n_draws: int | None = None,
    tau: int | None = None,
    n_systems: int = 0,
    source: str | None = None,
) -> None:
    """``side`` one of :data:`SIDES`; ``0 < coverage < 1``; ``n_draws`` a positive integer; ``1 <= tau <= S``."""
    if side not in SIDES:
        raise InputError(f"side must be one of {', '.join(SIDES)}, not {side!r}", source)
    if isinstance(coverage, bool) or not (isinstance(coverage, int | float) and 0 < float(coverage) < 1):
        raise InputError(f"coverage must be a number strictly between 0 and 1, not {coverage!r}", source)
    if n_draws is not None and (
        isinstance(n_draws, bool) or not isinstance(n_draws, int | np.integer) or n_draws < 1
    ):
        raise InputError(f"the number of draws must be a positive integer, not {n_draws!r}", source)
    if tau is not None:
        if not isinstance(tau, int | np.integer) or isinstance(tau, bool) or tau < 1:
            raise InputError(f"tau must be a positive integer, not {tau!r}", source)
        if tau > n_systems:
            raise InputError(f"tau is {tau} but there are only {n_systems} systems", source)


def check_item_scores(
    systems: tuple[str, ...], scores: np.ndarray, documents: np.ndarray | None, source: str
) -> tuple[np.ndarray, np.ndarray | None]:
    """``scores[S, N]`` as floats (NaN: not rated; every other value finite; every system rated at least once)
    and ``documents[N]`` (each item's document label) as an array, or None."""
    values = np.asarray(scores, dtype=np.float64)
    if values.ndim != 2 or values.shape[0] != len(systems):
        raise InputError(f"item scores of shape {values.shape} for {len(systems)} systems", source)
    if np.isinf(values).any():
        raise InputError("an item score is infinite", source)
    unrated = np.flatnonzero(np.isnan(values).all(axis=1))
    if len(unrated):
        raise InputError(f"system {systems[unrated[0]]!r} has no rated item", source)
    if documents is None:
        return values, None
    labels = np.asarray(documents)
    if labels.shape != (values.shape[1],):
        raise InputError(f"{labels.size} document labels for {values.shape[1]} items", source)
    return values, labels
