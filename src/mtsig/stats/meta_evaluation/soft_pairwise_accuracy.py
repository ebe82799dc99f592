"""Soft pairwise accuracy (SPA): agreement of a metric's and the humans' significance about every system pair.

Thompson, Mathur, Deutsch & Lapata (2024), "Improving Statistical Significance in Human Evaluation of Automatic
Metrics via Soft Pairwise Accuracy" (WMT 2024), Sec. 3, the WMT24 metrics task's system-level statistic: for every
pair of systems (i, j), the one-sided p-value of "i is better than j" from a paired permutation test on the
segment scores, computed from the human scores (``p_h``) and from the metric's (``p_m``);
``SPA = 1 - mean_{i<j} |p_h(i, j) - p_m(i, j)|``. mt-metrics-eval calls ``1 - SPA`` the pairwise confidence error
(``pce.compute_one_minus_pce``).

The permutation test (``pce.compute_pairwise_p_values``): R = 1000 random sign vectors ``t_r[n] ∈ {+1, -1}`` over
the N segments, the same for every pair; the null difference ``Σ_n t_r[n] (x_in - x_jn)`` is compared with the
observed ``Σ_n (x_in - x_jn)``, and ``p(i, j)`` is the share of ``r`` where it is at least as large. Since the two
differ by ``-2 Σ_{n: t_r[n] = -1} (x_in - x_jn)``, this is the share of permutations whose *flipped* segments sum
to at most 0: ``p(i, j) = #{r : Σ_{n ∈ F_r} (x_in - x_jn) <= 0} / R``, which is how it is computed here, from the
flip masks ``F[R, N]``, exactly.

Conventions (docs/conventions.md): the flip masks are pce.py's (``pce_flips``: ``numpy.random.default_rng(4)``,
``random(dtype=float32)`` rounded half to even, ``t = -1`` where it rounds to 0), the same masks for the human and
every metric; scores are rounded to float32 first, as pce.py does. ``arithmetic="exact"`` (the default) sums the
float64 differences of the float32 scores exactly (:mod:`mtsig.runtime.portable`: the same bits on every CPU);
``"float32"`` repeats pce.py's float32 matrix product and sums with numpy, so that the p-values equal
mt-metrics-eval's on the same machine, but BLAS's float32 rounding depends on the CPU (on the WMT23 MQM scores it
flips 1-2 near-tie comparisons of the 66-105 system pairs).
"""

from __future__ import annotations

import numpy as np

from mtsig.errors import InputError
from mtsig.runtime.portable import WeightedSums
from mtsig.settings import MetricsProtocol

#: pce.py's seed and number of permutations (``compute_pairwise_p_values(seg_scores, num_permutations=1000,
#: seed=4)``), used by mt-metrics-eval's ``PairwiseConfidenceError`` for the human and every metric.
PCE_SEED = 4
PCE_PERMUTATIONS = 1000
ARITHMETICS = ("exact", "float32")


def pce_flips(n_segments: int, n_permutations: int = PCE_PERMUTATIONS, seed: int = PCE_SEED) -> np.ndarray:
    """bool ``[R, N]``: the segments whose sign pce.py flips in each permutation (``rint`` of its float32
    uniform draws is 0, i.e. the draw is at most 0.5)."""
    uniform = np.random.default_rng(seed).random(size=(n_permutations, n_segments), dtype=np.float32)
    return np.rint(uniform) == 0


def _system_pairs(n_systems: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(n_systems, k=1)


def permutation_counts(
    scores: object, flips: np.ndarray, *, arithmetic: str = MetricsProtocol.spa_arithmetic
) -> np.ndarray:
    """``int64[..., P]``: for each system pair ``(i, j)``, ``i < j`` (``np.triu_indices`` order), the number of
    permutations whose null difference reaches the observed one (module docstring); ``scores[..., S, N]``."""
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim < 2 or x.shape[-1] != flips.shape[1]:
        raise InputError(f"scores {x.shape} do not have the {flips.shape[1]} segments of the permutations")
    if not np.isfinite(x).all():
        raise InputError("SPA: every segment score must be a finite number (filter unrated segments first)")
    if arithmetic not in ARITHMETICS:
        raise InputError(f"unknown SPA arithmetic {arithmetic!r}; known: {', '.join(ARITHMETICS)}")
    i, j = _system_pairs(x.shape[-2])
    lead = x.shape[:-2]
    if arithmetic == "float32":
        rows = x.reshape(-1, *x.shape[-2:])
        signs = np.where(flips, np.float32(-1.0), np.float32(1.0))
        counts = []
        for row in rows:  # pce.py, line by line: float32 sums and product, then the comparisons
            # C order, as pce.py's array: BLAS sums a transposed operand in another order (other roundings)
            one = np.ascontiguousarray(row, dtype=np.float32)
            totals = np.sum(one, axis=1)
            partial = np.matmul(signs, one.T)
            counts.append(np.sum(partial[:, i] - partial[:, j] >= totals[i] - totals[j], axis=0))
        return np.asarray(counts, dtype=np.int64).reshape(*lead, i.size)
    rounded = x.astype(np.float32).astype(np.float64)
    differences = (rounded[..., i, :] - rounded[..., j, :]).reshape(-1, x.shape[-1]).T  # [N, lead·P]
    flipped_sums = WeightedSums(differences)(flips.astype(np.float64), float(flips.shape[1]))
    return np.count_nonzero(flipped_sums <= 0, axis=0).reshape(*lead, i.size).astype(np.int64)


def pairwise_pvalues(
    scores: object, flips: np.ndarray, *, arithmetic: str = MetricsProtocol.spa_arithmetic
) -> np.ndarray:
    """``p[..., S, S]``: in the upper triangle the p-value of "system i better than system j" (pce.py's
    ``compute_pairwise_p_values``), NaN elsewhere."""
    x = np.asarray(scores, dtype=np.float64)
    counts = permutation_counts(x, flips, arithmetic=arithmetic)
    n_systems = x.shape[-2]
    i, j = _system_pairs(n_systems)
    p = np.full((*x.shape[:-2], n_systems, n_systems), np.nan)
    p[..., i, j] = counts / flips.shape[0]
    return p


def spa_from_counts(human_counts: np.ndarray, metric_counts: np.ndarray, n_permutations: int) -> np.ndarray:
    """SPA from the permutation counts of the human and the metric(s): ``1 - Σ_pairs |c_h - c_m| / (R P)``,
    ``metric_counts[..., P]`` -> ``[...]`` (integers until the one division)."""
    n_pairs = human_counts.shape[-1]
    if n_pairs == 0:
        raise InputError("SPA needs at least two systems")
    distance = np.abs(metric_counts - human_counts).sum(axis=-1)
    return 1.0 - distance / (float(n_permutations) * n_pairs)


def soft_pairwise_accuracy(
    human: object,
    metric: object,
    *,
    flips: np.ndarray | None = None,
    arithmetic: str = MetricsProtocol.spa_arithmetic,
) -> np.ndarray:
    """SPA of ``metric[..., S, N]`` against ``human[S, N]`` (Thompson et al. 2024, Sec. 3), both over the same
    rated segments (no NaN); ``flips`` default to pce.py's (:func:`pce_flips`). Returns ``[...]``."""
    h = np.asarray(human, dtype=np.float64)
    m = np.asarray(metric, dtype=np.float64)
    if m.shape[-2:] != h.shape:
        raise InputError(f"metric scores {m.shape} do not end in the human matrix's {h.shape}")
    if flips is None:
        flips = pce_flips(h.shape[1])
    human_counts = permutation_counts(h, flips, arithmetic=arithmetic)
    metric_counts = permutation_counts(m, flips, arithmetic=arithmetic)
    return spa_from_counts(human_counts, metric_counts, flips.shape[0])
