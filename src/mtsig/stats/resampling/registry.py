"""The test registry, the counting rules and the p-value conventions.

Each test (:data:`TESTS`) names the draws it uses (:mod:`mtsig.stats.resampling.draws`), the rule that counts its
pseudo-statistics (:func:`exceedance_counts`: Graham, Mathur & Baldwin 2014, Figs. 1-4; Koehn 2004; Riezler &
Maxwell 2005), its sidedness and its p-value convention (:func:`p_value`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from mtsig.errors import InputError
from mtsig.stats.resampling.draws import (
    DOCUMENT_BOOTSTRAP,
    IID_BOOTSTRAP,
    RANDOMIZATION,
    STATIONARY_BOOTSTRAP,
)

PValueConvention = Literal["c/B", "(c+1)/(B+1)"]


@dataclass(frozen=True)
class TestSpec:
    """How a test draws its pseudo-samples and turns them into a p-value.

    ``scheme``: which draws (shared by all tests of one scheme). ``rule``: the counting rule of
    :func:`exceedance_counts`. ``sided``: "one-sided" (p for "X better than Y") or "two-sided".
    ``plus_one``: always ``p = (c + 1) / (B + 1)`` (R&M as published) instead of the configured convention.
    """

    scheme: str
    rule: str
    sided: Literal["one-sided", "two-sided"]
    plus_one: bool
    source: str


#: Every test, in output order. Family (scheme) and sidedness of each.
TESTS: dict[str, TestSpec] = {
    "paired_bootstrap": TestSpec(IID_BOOTSTRAP, "paired", "one-sided", False, "Koehn (2004); paper Fig. 4"),
    "bootstrap": TestSpec(IID_BOOTSTRAP, "shift", "one-sided", False, "paper Fig. 3"),
    "bootstrap_two_sided": TestSpec(IID_BOOTSTRAP, "shift_two_sided", "two-sided", False, "paper Fig. 1"),
    "approximate_randomization": TestSpec(RANDOMIZATION, "at_least", "one-sided", False, "paper Fig. 2"),
    "approximate_randomization_two_sided": TestSpec(
        RANDOMIZATION, "absolute", "two-sided", False, "paper Fig. 2 with |d_r| >= |d|"
    ),
    "rm_bootstrap": TestSpec(IID_BOOTSTRAP, "rm_shift", "two-sided", True, "Riezler & Maxwell (2005)"),
    "rm_approximate_randomization": TestSpec(
        RANDOMIZATION, "absolute", "two-sided", True, "Riezler & Maxwell (2005)"
    ),
    "paired_bootstrap_documents": TestSpec(
        DOCUMENT_BOOTSTRAP, "paired", "one-sided", False, "Fig. 4, documents"
    ),
    "bootstrap_documents": TestSpec(DOCUMENT_BOOTSTRAP, "shift", "one-sided", False, "Fig. 3, documents"),
    "paired_bootstrap_stationary": TestSpec(
        STATIONARY_BOOTSTRAP, "paired", "one-sided", False, "Fig. 4, Politis & Romano (1994)"
    ),
    "bootstrap_stationary": TestSpec(
        STATIONARY_BOOTSTRAP, "shift", "one-sided", False, "Fig. 3, Politis & Romano (1994)"
    ),
}
ALL_TESTS: tuple[str, ...] = tuple(TESTS)
#: The three tests compared by the paper (Tables 1-2), all one-sided.
PAPER_TESTS: tuple[str, ...] = ("paired_bootstrap", "bootstrap", "approximate_randomization")


def samples_per_test(n_samples: int | Mapping[str, int], tests: Sequence[str]) -> dict[str, int]:
    """B (or R) of every test: one number for all, or a mapping test -> number naming every test."""
    per_test = {t: n_samples for t in tests} if isinstance(n_samples, int) else dict(n_samples)
    missing = [t for t in tests if t not in per_test]
    if missing:
        raise InputError(
            f"n_samples (resampling.samples) gives no sample count for test(s) {', '.join(missing)}"
        )
    bad = {t: per_test[t] for t in tests if int(per_test[t]) < 1}
    if bad:
        raise InputError(f"n_samples (resampling.samples) must be >= 1: {bad}")
    return {t: int(per_test[t]) for t in tests}


def exceedance_counts(rule: str, pseudo: np.ndarray, actual: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The counts ``c`` of a test for both orders of each pair.

    ``pseudo[P, B]``: pseudo-statistics oriented for "X better than Y" (``d_b = S(X_b) - S(Y_b)`` or
    ``d_r = S(X_r) - S(Y_r)``); ``actual[P]``: ``d = S(X) - S(Y)``. Returns ``(c_xy, c_yx)``, the counts for
    (X, Y) and for (Y, X). The reversed pair has pseudo-statistics ``-pseudo`` and actual ``-d`` (negation is exact
    in floating point), so its count is derived without recomputation. Rules:

    - ``paired`` (Fig. 4, Koehn 2004): ``#{d_b <= 0}``, the samples in which X is *not* better; a tie is no
      evidence for "X better than Y" (the figure's literal ``S_Xb < S_Yb`` would give identical systems p = 0 for
      both orders, i.e. "significant" both ways).
    - ``shift`` (Fig. 3): ``tau = mean d_b``; ``#{d_b - tau >= d}``.
    - ``shift_two_sided`` (Fig. 1): ``#{|d_b - tau| >= |d|}``.
    - ``at_least`` (Fig. 2): ``#{d_r >= d}``.
    - ``absolute`` (AR two-sided; R&M's AR): ``#{|d_r| >= |d|}``.
    - ``rm_shift`` (R&M's bootstrap as published): ``tau = mean |d_b|``; ``#{|d_b| - tau >= |d|}``.

    ``tau`` is a row-wise mean, so it does not depend on which other pairs are in ``pseudo``.
    """
    require_finite(pseudo, "resampled difference", lambda i: f"sample {i % pseudo.shape[1]}")
    d = actual[:, None]
    if rule == "paired":
        return (pseudo <= 0).sum(axis=1), (pseudo >= 0).sum(axis=1)
    if rule == "shift":
        centred = pseudo - pseudo.mean(axis=1, keepdims=True)
        return (centred >= d).sum(axis=1), (centred <= d).sum(axis=1)
    if rule == "shift_two_sided":
        count = (np.abs(pseudo - pseudo.mean(axis=1, keepdims=True)) >= np.abs(d)).sum(axis=1)
        return count, count
    if rule == "at_least":
        return (pseudo >= d).sum(axis=1), (pseudo <= d).sum(axis=1)
    if rule == "absolute":
        count = (np.abs(pseudo) >= np.abs(d)).sum(axis=1)
        return count, count
    if rule == "rm_shift":
        magnitude = np.abs(pseudo)
        count = (magnitude - magnitude.mean(axis=1, keepdims=True) >= np.abs(d)).sum(axis=1)
        return count, count
    raise ValueError(f"unknown counting rule {rule!r}")


def p_value(count: np.ndarray, n_samples: int, convention: PValueConvention) -> np.ndarray:
    """``c / B`` (the paper's Figs. 1-4) or ``(c + 1) / (B + 1)`` (R&M; never 0, valid at any B)."""
    count = np.asarray(count, dtype=np.float64)
    if convention == "c/B":
        return count / n_samples
    if convention == "(c+1)/(B+1)":
        return (count + 1.0) / (n_samples + 1.0)
    raise ValueError(f"unknown p-value convention {convention!r}; use 'c/B' or '(c+1)/(B+1)'")


def require_finite(values: np.ndarray, what: str, where: Callable[[int], str]) -> None:
    """ValueError at the first NaN or infinity: a conclusion is never drawn from numbers that overflowed (e.g.
    segment scores near 1e308, whose sums exceed double precision) or are undefined."""
    bad = np.flatnonzero(~np.isfinite(np.ravel(values)))
    if bad.size:
        raise ValueError(
            f"the {what} of {where(int(bad[0]))} is {np.ravel(values)[bad[0]]} ({bad.size} non-finite value(s)): "
            "the scores overflow double precision or are undefined; rescale them (e.g. to 0-100) and rerun"
        )
