"""Replicability across test sets: in how many of N data sets does an effect hold? (Dror, Baumer, Bogomolov &
Reichart 2017, *Replicability Analysis for Natural Language Processing: Testing Significance with Multiple
Datasets*, TACL 5, Sec. 4-5.)

Given one p-value per data set for the same one-sided comparison (system A vs B, test X vs test Y, metric A vs
metric B), the **partial conjunction** null hypothesis ``H^{u/N}`` says that fewer than ``u`` of the ``N`` data sets
have a true effect. Its p-value combines the ``N - u + 1`` largest p-values ``p_(u) <= ... <= p_(N)`` (sorted
ascending) (Benjamini & Heller 2008; Dror et al. 2017, Sec. 4.2):

* **Bonferroni** (valid under any dependence between the data sets): ``p^{u/N} = (N - u + 1) p_(u)``, capped at 1;
* **Fisher** (independent data sets): ``p^{u/N} = P(chi2_{2(N-u+1)} >= -2 sum_{i >= u} log p_(i))``.

Both are made monotone in ``u`` (a running maximum), and the **estimate of the number of data sets with an
effect** is ``k_hat = #{u : p^{u/N} <= alpha}`` (Dror et al. 2017, Sec. 4.3): rejecting ``H^{1/N}, ..., H^{k_hat/N}``
controls the family-wise error rate at ``alpha``, so "the effect holds in at least ``k_hat`` of the ``N`` data
sets" is a claim wrong with probability at most ``alpha``. The data sets themselves are identified by Holm's
procedure: the ``k_hat`` smallest p-values (with Bonferroni's ``k_hat``), as the authors' code does.
Everything is vectorised over leading axes (many comparisons, or simulated replicates, at once).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from scipy import special

from mtsig.runtime import portable

Method = Literal["bonferroni", "fisher"]
METHODS: tuple[str, ...] = ("bonferroni", "fisher")


def partial_conjunction_pvalues(p_values: np.ndarray, method: Method = "bonferroni") -> np.ndarray:
    """``p^{u/N}`` for ``u = 1..N`` along the last axis (monotone non-decreasing in ``u``)."""
    p = np.sort(np.asarray(p_values, dtype=np.float64), axis=-1)
    if p.shape[-1] == 0 or np.isnan(p).any() or (p < 0).any() or (p > 1).any():
        raise ValueError("p-values must be a non-empty array of numbers in [0, 1]")
    n = p.shape[-1]
    remaining = n - np.arange(n)  # N - u + 1 for u = 1..N
    if method == "bonferroni":
        combined = np.minimum(1.0, remaining * p)
    elif method == "fisher":
        with np.errstate(divide="ignore"):
            logs = portable.log(p)
        statistic = -2.0 * np.flip(np.cumsum(np.flip(logs, axis=-1), axis=-1), axis=-1)  # sum over i >= u
        combined = special.chdtrc(2.0 * remaining, statistic)  # chi-square survival function
    else:
        raise ValueError(f"unknown combination {method!r}; use one of {', '.join(METHODS)}")
    return np.maximum.accumulate(combined, axis=-1)


def replicability_count(
    p_values: np.ndarray, alpha: float = 0.05, method: Method = "bonferroni"
) -> np.ndarray:
    """``k_hat``: the number of ``u`` whose partial conjunction p-value is at most ``alpha``."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie strictly between 0 and 1, got {alpha}")
    return (partial_conjunction_pvalues(p_values, method) <= alpha).sum(axis=-1)


def replicated_sets(p_values: np.ndarray, alpha: float = 0.05) -> np.ndarray:
    """Indices of the data sets Holm's procedure declares to have the effect: the ``k_hat`` (Bonferroni) smallest
    p-values, in increasing order of p-value (Dror et al. 2017, Sec. 4.3)."""
    p = np.asarray(p_values, dtype=np.float64)
    k = int(replicability_count(p, alpha, "bonferroni"))
    return np.argsort(p, kind="stable")[:k]
