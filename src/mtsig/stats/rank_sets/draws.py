"""Centred draws of the estimates ``Z* = θ̂* − θ̂``, the bootstrap distribution every rank set reads.

* :func:`normal_draws`: the parametric bootstrap of Mogstad, Romano, Shaikh & Wilhelm (2023) and csranks, ``Z* ~
  N(0, Σ)``, made as MASS's ``mvrnorm`` makes csranks's draws: ``Z* = X (V √Λ)ᵀ`` with ``Σ = V Λ Vᵀ`` (negative
  rounding errors of ``Λ`` set to 0) and ``X`` standard normal, one row per draw.
* :func:`unit_bootstrap`: the nonparametric bootstrap of item scores ``[S, N]`` (NaN where a system's item is not
  rated): units (items, or whole documents) drawn with replacement, the same units for every system (paired) or
  each system's own rated units on their own (unpaired); each draw's estimate is a system's mean over the rated
  items of its drawn units.

A :class:`DrawSource` hands the stepdown (:mod:`mtsig.stats.rank_sets.pairwise`) its draws: mtsig's own are one
array used at every step and by every family (:class:`SharedDraws`, Romano & Wolf's one bootstrap distribution);
csranks draws afresh at each step and, for a marginal set, per population (reseeded), from the covariance of only
the populations the step still needs (:class:`FreshNormalDraws` follows that scheme with mtsig's generator);
:class:`RecordedDraws` replays such draws (csranks's own, exported) so that a test can demand equal bounds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from mtsig.errors import InputError
from mtsig.stats.seeding import rng_for


class DrawSource(Protocol):
    """Centred draws for the stepdown: ``centred_t(step, key, needed) -> [S, R]`` (one row per population; rows
    outside ``needed[S]`` may be NaN), ``key`` the family (None: a simultaneous set or shared draws). ``shared``:
    the same draws for every step and family."""

    shared: bool

    @property
    def n_draws(self) -> int:
        """R, the number of draws."""
        ...

    def centred_t(self, step: int, key: object, needed: np.ndarray) -> np.ndarray:
        """The draws of ``step`` for family ``key``, ``[S, R]``."""
        ...


@dataclass(frozen=True)
class SharedDraws:
    """One array of centred draws ``draws_t[S, R]`` for every step and family (mtsig's bootstrap)."""

    draws_t: np.ndarray
    shared: bool = True

    @classmethod
    def of(cls, draws: np.ndarray) -> SharedDraws:
        """From draws ``[R, S]`` (one row per draw, as csranks's ``mvrnorm`` returns them)."""
        return cls(np.ascontiguousarray(np.asarray(draws, dtype=np.float64).T))

    @property
    def n_draws(self) -> int:
        """R, the number of draws."""
        return self.draws_t.shape[1]

    def centred_t(self, step: int, key: object, needed: np.ndarray) -> np.ndarray:
        """The same draws whatever the step and family."""
        return self.draws_t


@dataclass(frozen=True)
class RecordedDraws:
    """Draws recorded per (family key, step): ``records[(key, step)] = (populations, draws[R, k])``, the draws of
    the populations (indices) the step needed, e.g. csranks's ``mvrnorm`` output. ``n_systems``: S. A request
    whose needed populations differ from the recorded ones is an error: the stepdown took another path."""

    records: Mapping[tuple[object, int], tuple[tuple[int, ...], np.ndarray]]
    n_systems: int
    shared: bool = False

    @property
    def n_draws(self) -> int:
        """R, the number of draws of each record (0 without records)."""
        return next((values.shape[0] for _, values in self.records.values()), 0)

    def centred_t(self, step: int, key: object, needed: np.ndarray) -> np.ndarray:
        """The recorded draws of ``(key, step)`` in rows of an ``[S, R]`` array, NaN in the other rows."""
        if (key, step) not in self.records:
            raise ValueError(f"no recorded draws for family {key!r} at step {step}")
        populations, values = self.records[(key, step)]
        wanted = tuple(int(i) for i in np.flatnonzero(needed))
        if wanted != tuple(populations):
            raise ValueError(
                f"family {key!r}, step {step}: the stepdown needs populations {wanted}, "
                f"the recorded draws are of {tuple(populations)}"
            )
        full = np.full((self.n_systems, values.shape[0]), np.nan)
        full[list(populations)] = np.asarray(values, dtype=np.float64).T
        return full


class FreshNormalDraws:
    """csranks's scheme of draws with mtsig's generator: at each step, draws of ``N(0, Σ)`` of only the populations
    the step needs (their block of ``Σ``), and every family restarted from the same seed at its first step (as
    csranks's ``set.seed`` before each marginal population). The generator of a family is
    ``rng_for(seed, "rank_sets", "redraw")``, made afresh at step 0, so a set computed twice is the same set."""

    shared = False

    def __init__(self, covariance: np.ndarray, n_draws: int, seed: int) -> None:
        self.covariance, self._n_draws, self.seed = covariance, n_draws, seed
        self._streams: dict[object, tuple[np.random.Generator, int]] = {}

    @property
    def n_draws(self) -> int:
        """R, the number of draws of each step."""
        return self._n_draws

    def centred_t(self, step: int, key: object, needed: np.ndarray) -> np.ndarray:
        """Fresh draws of the ``needed`` populations, ``[S, R]`` with NaN rows for the others."""
        if step == 0:
            self._streams[key] = (rng_for(self.seed, "rank_sets", "redraw"), 0)
        generator, expected = self._streams[key]
        if step != expected:
            raise ValueError(f"family {key!r}: step {step} requested after step {expected - 1}")
        self._streams[key] = (generator, step + 1)
        rows = np.flatnonzero(needed)
        full = np.full((self.covariance.shape[0], self._n_draws), np.nan)
        full[rows] = normal_draws(self.covariance[np.ix_(rows, rows)], self._n_draws, generator).T
        return full


def normal_draws(covariance: np.ndarray, n_draws: int, rng: np.random.Generator) -> np.ndarray:
    """``[R, S]`` draws of ``N(0, covariance)`` (module docstring): eigenvectors scaled by the square roots of the
    eigenvalues (negative rounding errors set to 0), as MASS's ``mvrnorm`` does, so that a covariance that is only
    positive semi-definite (a singular one) is drawn from too."""
    eigenvalues, eigenvectors = np.linalg.eigh(covariance)
    factor = eigenvectors * np.sqrt(np.maximum(eigenvalues, 0.0))
    standard = rng.standard_normal((n_draws, covariance.shape[0]))
    return standard @ factor.T


@dataclass(frozen=True)
class UnitBootstrap:
    """What :func:`unit_bootstrap` returns: ``estimates[S]`` (each system's mean over its rated items),
    ``resampled[R, S]`` (the same per draw) and ``units`` (``"items"`` or ``"documents"``)."""

    estimates: np.ndarray
    resampled: np.ndarray
    units: str


def _unit_totals(scores: np.ndarray, unit_codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sums[S, G], counts[S, G]): each system's sum and number of rated items per unit (NaN not rated)."""
    order = np.argsort(unit_codes, kind="stable")
    sorted_codes = unit_codes[order]
    starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
    rated = ~np.isnan(scores[:, order])
    filled = np.where(rated, scores[:, order], 0.0)
    return np.add.reduceat(filled, starts, axis=1), np.add.reduceat(rated.astype(np.float64), starts, axis=1)


def _multinomial_counts(rng: np.random.Generator, n_units: int, n_draws: int) -> np.ndarray:
    """``[R, G]``: how often each of ``n_units`` units is drawn in each of ``n_draws`` draws of ``n_units`` units
    with replacement."""
    picks = rng.integers(0, n_units, size=(n_draws, n_units))
    flat = (picks + (np.arange(n_draws) * n_units)[:, None]).ravel()
    return np.bincount(flat, minlength=n_draws * n_units).reshape(n_draws, n_units).astype(np.float64)


def _resampled_means(
    sums: np.ndarray, counts: np.ndarray, n_draws: int, rng: np.random.Generator, paired: bool
) -> np.ndarray:
    """``[R, S]`` means over the drawn units' rated items: one draw of units for all systems (``paired``) or, for
    each system in turn, a draw of its own rated units (a loop over systems, each vectorised over draws)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        if paired:
            weights = _multinomial_counts(rng, sums.shape[1], n_draws)
            return (weights @ sums.T) / (weights @ counts.T)
        means = np.empty((n_draws, sums.shape[0]))
        for s in range(sums.shape[0]):
            own = counts[s] > 0
            weights = _multinomial_counts(rng, int(own.sum()), n_draws)
            means[:, s] = (weights @ sums[s, own]) / (weights @ counts[s, own])
        return means


def unit_bootstrap(
    systems: tuple[str, ...],
    scores: np.ndarray,
    n_draws: int,
    rng: np.random.Generator,
    *,
    documents: np.ndarray | None = None,
    paired: bool = True,
    source: str = "item scores",
) -> UnitBootstrap:
    """The nonparametric bootstrap of ``scores[S, N]`` (module docstring): items drawn, or whole documents when
    ``documents[N]`` (each item's document label) is given. An :class:`InputError` when a draw leaves a system
    without a rated item (a system rated on too few units for a paired bootstrap)."""
    unit_codes = (
        np.arange(scores.shape[1]) if documents is None else np.unique(documents, return_inverse=True)[1]
    )
    sums, counts = _unit_totals(scores, np.asarray(unit_codes).ravel())
    estimates = sums.sum(axis=1) / counts.sum(axis=1)
    resampled = _resampled_means(sums, counts, n_draws, rng, paired)
    empty = np.isnan(resampled).sum(axis=0)
    if empty.any():
        s = int(np.argmax(empty))
        unit = "item" if documents is None else "document"
        raise InputError(
            f"system {systems[s]!r} has no rated {unit} in {int(empty[s])} of {n_draws} resamples (rated in "
            f"{int((counts[s] > 0).sum())} of {counts.shape[1]} {unit}s): too few for a paired bootstrap",
            source,
        )
    return UnitBootstrap(estimates, resampled, "items" if documents is None else "documents")
