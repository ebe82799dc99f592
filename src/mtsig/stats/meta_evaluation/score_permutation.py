"""More sources for the permutation tests between metrics
(:func:`mtsig.stats.meta_evaluation.metric_permutation.permutation_test`): grouped correlations, PDP, Kendall variants
and re-calibrated acc-t, by swapping scores or pair outcomes.

mt-metrics-eval tests any statistic by swapping the two metrics' z-scored scores cell by cell
(``stats.PermutationSigDiff``; Deutsch, Dror & Roth 2021, Sec. 4.1, PERM-BOTH), and Kendall variants also by swapping
the outcomes of the pairs of cells (``PairwisePermutationSigDiff``). Each source here turns a block of swap masks
into every tested pair's hybrid differences ``stat(a') - stat(b')`` at once (no loop per resample or pair of
metrics), with mt-metrics-eval's units in mt-metrics-eval's order, so that its own draws can be replayed
(:func:`mtme_cell_masks`, :func:`mtme_pair_masks`):

* :class:`ScoreSwaps`: any statistic of the metric matrices (grouped Pearson, Spearman, Kendall's variants, the WMT20
  Kendall-like tau, tie-calibrated acc_23 re-calibrated on every hybrid: ``perm_test='scores'``), computed on the
  hybrid matrices themselves, ``[resamples, pairs, S, N]`` in chunks. The units are the cells with a human score in
  the grouping's order (``_ReshapeAndFilter``), each metric z-scored over them; for tie calibration every cell,
  system-major, z-scored over all of them (``PermutationSigDiff`` with ``KendallWithTiesOpt`` swaps the whole packed
  vectors).
* :class:`PdpSwaps`: Pairwise Difference Pearson (DiIanni & Deutsch 2025) from sums that are linear in the
  mask but one, so that a pair costs ``[resamples, groups]`` operations (a compiled loop,
  :mod:`mtsig.stats.meta_evaluation.pdp_compiled`): ``u_k = n_g h_k - Σ_g h`` (centred human) and ``T_g(m) =
  Σ_{k∈g} w_k z_m,k``, ``Σ dh dm = Σ_k u_k a'_k``, ``Σ dm² = Σ_k n_g a'_k² - Σ_g (Σ_{k∈g} a'_k)²`` with
  ``Σ_{k∈g} a'_k = Σ_{k∈g} z_a,k + T_g(b) - T_g(a)``.
* :class:`PairOutcomeSwaps`: Kendall's b, tau_23 and acc_23 at fixed metric tie thresholds with each pair's outcome
  swapped (``PairwisePermutationSigDiff`` with ``epsilon1``, ``epsilon2``); the group counts of a hybrid are integer
  sums ``base + Σ_{q∈g} w_q (F_b,q - F_a,q)``, exact.

docs/statistics.md ("mt-metrics-eval's other statistics") gives the definitions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from mtsig.errors import InputError
from mtsig.runtime.portable import WeightedSums
from mtsig.stats.meta_evaluation.grouped_correlation import NAN_GROUPS, _centred, as_groups
from mtsig.stats.meta_evaluation.metric_permutation import standardise
from mtsig.stats.meta_evaluation.tie_calibration import (
    calibrate_ties_many,
    good_pairs,
    group_pairs,
    pair_differences,
)

#: Hybrid cells held at once by :class:`ScoreSwaps` (resamples x pairs x S x N, twice).
HYBRID_CELLS = 2_000_000
#: mt-metrics-eval's units: the cells with a human score in the grouping's order, or every cell system-major.
UNITS = ("rated", "all")
#: Pairs of metrics whose hybrids :class:`PdpSwaps` and :class:`PairOutcomeSwaps` combine at once.
PAIR_CHUNK = 32


# ------------------------------------------------------------------------------------------------ mt-metrics-eval's draws


def _uniforms_in_order(
    state: np.random.RandomState, width: int, mask: Callable[[np.ndarray], np.ndarray]
) -> Callable[[int, int], np.ndarray]:
    """``draw(block, size)``: ``mask`` of the next ``[size, width]`` uniforms of ``state``, mt-metrics-eval's
    sampler drawing one resample after another, so blocks must come as 0, 1, 2, ..."""
    expected = [0]

    def draw(block: int, size: int) -> np.ndarray:
        if block != expected[0]:
            raise InputError(
                f"mt-metrics-eval's draws come in order: block {expected[0]} expected, got {block}"
            )
        expected[0] += 1
        return mask(state.random_sample((size, width)))

    return draw


def mtme_cell_masks(seed: int, n_units: int) -> Callable[[int, int], np.ndarray]:
    """The swap masks of ``PermutationSigDiff`` after ``numpy.random.seed(seed)``, block after block: resample i
    draws ``w1 = np.random.binomial(1, 0.5, n)`` (one uniform each, ``w1 = U > 0.5``, numpy's legacy inversion
    sampler), and metric 1's hybrid keeps its own score where ``w1 = 1``, so the swap mask is ``U <= 0.5``. The
    returned ``draw(block, size)`` must be called for blocks 0, 1, 2, ... in turn."""
    return _uniforms_in_order(np.random.RandomState(seed), n_units, lambda uniforms: uniforms <= 0.5)


def mtme_pair_masks(seed: int, cells_per_group: Sequence[int]) -> Callable[[int, int], np.ndarray]:
    """The swap masks of ``PairwisePermutationSigDiff`` after ``numpy.random.seed(seed)``: each resample draws, group
    by group, ``w1 = np.triu(np.random.binomial(1, 0.5, (n, n)))`` (n the group's cells with a human score) and the
    pair (i, j), i < j, keeps metric 1's outcome where ``w1[i, j] = 1``; the masks are over the pairs in group order
    and ``np.triu_indices`` order (:func:`mtsig.stats.meta_evaluation.tie_calibration.group_pairs`)."""
    sizes = [int(n) for n in cells_per_group if n > 0]  # a group without a rated cell draws nothing
    offsets = np.concatenate([[0], np.cumsum([n * n for n in sizes])]).astype(np.int64)
    columns = np.concatenate(
        [
            offset + i * n + j
            for offset, n in zip(offsets[:-1], sizes, strict=True)
            for i, j in [np.triu_indices(n, k=1)]
        ]
    ).astype(np.int64)
    return _uniforms_in_order(
        np.random.RandomState(seed), int(offsets[-1]), lambda uniforms: uniforms[:, columns] <= 0.5
    )


def rated_cells(human: np.ndarray, grouping: str) -> tuple[np.ndarray, np.ndarray]:
    """``(systems, items)`` of the cells with a human score in the grouping's order (group by group, in group
    order; mt-metrics-eval's ``_ReshapeAndFilter``), and the number of such cells of each group."""
    s, n = np.indices(human.shape)
    valid = as_groups(np.isfinite(human), grouping)
    order = np.nonzero(valid)
    return (
        (as_groups(s, grouping)[order], as_groups(n, grouping)[order]),
        valid.sum(axis=-1),
    )


def standardised_cells(metrics: np.ndarray, systems: np.ndarray, items: np.ndarray) -> np.ndarray:
    """``metrics[M, S, N]`` with each metric z-scored over the cells ``(systems, items)`` (population sd,
    ``scipy.stats.zscore`` of mt-metrics-eval's packed vector), 0 in every other cell."""
    z = np.zeros_like(metrics)
    # contiguous rows: numpy sums a strided row in another order (scipy.stats.zscore of the packed vector)
    z[:, systems, items] = standardise(np.ascontiguousarray(metrics[:, systems, items]))
    return z


# ------------------------------------------------------------------------------------------------ sources


class ScoreSwaps:
    """Any statistic of ``metrics[M, S, N]`` against ``human[S, N]`` with the metrics' scores swapped cell by cell:
    ``statistic(x[..., S, N]) -> [...]`` computes it on (z-scored, hybrid) metric matrices. ``units``: ``rated`` (the
    cells with a human score, in ``grouping``'s order) or ``all`` (every cell, system-major); each metric is z-scored
    over its units (population sd, ``scipy.stats.zscore``). ``scale``: the statistic's values are numerators over a
    common denominator ``1/scale`` (exact integers compare exactly: tie calibration's
    :attr:`~mtsig.stats.meta_evaluation.tie_calibration.TieCalibrations.numerators`)."""

    def __init__(
        self,
        human: np.ndarray,
        metrics: np.ndarray,
        statistic: Callable[[np.ndarray], np.ndarray],
        *,
        grouping: str = "none",
        units: str = "rated",
        scale: float = 1.0,
    ) -> None:
        h = np.asarray(human, dtype=np.float64)
        x = np.asarray(metrics, dtype=np.float64)
        if units not in UNITS:
            raise InputError(f"unknown units {units!r}; known: {', '.join(UNITS)}")
        if units == "rated":
            (self.systems, self.items), _ = rated_cells(h, grouping)
        else:
            s, n = np.indices(h.shape)
            self.systems, self.items = s.reshape(-1), n.reshape(-1)
        self.shape = h.shape
        self.n_units = self.systems.size
        self.z = standardised_cells(x, self.systems, self.items)
        self.statistic = statistic
        self.values = np.asarray(statistic(self.z), dtype=np.float64)  # [M]
        self.scale = scale

    def observed(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return self.values[a] - self.values[b]

    def draws(self, masks: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        size = masks.shape[0]
        swapped = np.zeros((size, *self.shape), dtype=bool)
        swapped[:, self.systems, self.items] = masks
        out = np.empty((size, a.size))
        chunk = max(1, HYBRID_CELLS // max(1, size * int(np.prod(self.shape))))
        for start in range(0, a.size, chunk):
            za, zb = self.z[a[start : start + chunk]], self.z[b[start : start + chunk]]  # [P, S, N]
            w = swapped[:, None]
            hybrid_a = np.where(w, zb[None], za[None])  # [B, P, S, N]
            hybrid_b = np.where(w, za[None], zb[None])
            values = self.statistic(np.concatenate([hybrid_a, hybrid_b], axis=1))  # [B, 2P]
            half = za.shape[0]
            out[:, start : start + chunk] = values[:, :half] - values[:, half:]
        return out


class PdpSwaps:
    """Pairwise Difference Pearson (DiIanni & Deutsch 2025) of ``metrics[M, S, N]`` against ``human[S, N]`` under
    ``grouping``, the rated cells swapped (module docstring). Undefined hybrids (every difference 0) count 0."""

    def __init__(self, human: np.ndarray, metrics: np.ndarray, grouping: str = "item") -> None:
        h = np.asarray(human, dtype=np.float64)
        x = np.asarray(metrics, dtype=np.float64)
        hg = as_groups(h, grouping)
        valid = np.isfinite(hg)
        if hg.shape[-1] < 2:
            raise InputError(f"PDP needs groups of at least two cells, got {hg.shape[-1]}")
        (systems, items), _ = rated_cells(h, grouping)
        self.n_units = systems.size
        zg = as_groups(standardised_cells(x, systems, items), grouping)  # [M, G, L]
        # one constant per group for every metric: PDP sees differences only, and the sums stay small
        shift = np.where(valid, zg, 0.0).sum(axis=(0, 2)) / np.maximum(valid.sum(axis=-1) * x.shape[0], 1)
        zg = np.where(valid, zg - shift[:, None], 0.0)
        n = valid.sum(axis=-1).astype(np.float64)  # [G]
        hc = _centred(np.where(valid, hg, 0.0), valid)
        sum_h = hc.sum(axis=-1)
        u = np.where(valid, n[:, None] * hc - sum_h[:, None], 0.0)  # [G, L]
        self.syy = float((n * (hc * hc).sum(axis=-1)).sum())
        self.groups, self.positions = np.nonzero(valid)  # the units, group-major
        self.valid = valid
        unit_z = zg[:, self.groups, self.positions].T  # [K, M]
        weight_n = n[self.groups][:, None]
        self.linear = WeightedSums(np.concatenate([unit_z * u[self.groups, self.positions][:, None],
                                                   unit_z * unit_z * weight_n], axis=1))  # fmt: skip
        base = self.linear(np.ones((1, self.n_units)), float(self.n_units))[0]
        self.n_metrics = x.shape[0]
        self.base_num, self.base_xx = base[: self.n_metrics], base[self.n_metrics :]
        self.group_sums = zg.sum(axis=-1)  # [M, G]
        self.zg = zg
        self.scale = 1.0

    def _pdp(self, num: np.ndarray, xx: np.ndarray, squares: np.ndarray) -> np.ndarray:
        den = (xx - squares) * self.syy
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.where(den > 0, num / np.sqrt(np.where(den > 0, den, 1.0)), np.nan)
        return np.nan_to_num(np.clip(r, -1.0, 1.0), nan=0.0)

    def observed(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        squares = (self.group_sums**2).sum(axis=-1)
        values = self._pdp(self.base_num, self.base_xx, squares)
        return values[a] - values[b]

    def draws(self, masks: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        size = masks.shape[0]
        sums = self.linear(masks.astype(np.float64), float(self.n_units))  # [B, 2M]
        num, xx = sums[:, : self.n_metrics], sums[:, self.n_metrics :]
        used = np.union1d(a, b)  # the metrics still tested
        position_of = np.zeros(self.n_metrics, dtype=np.int64)
        position_of[used] = np.arange(used.size)
        w = np.zeros((size, *self.valid.shape), dtype=bool)
        w[:, self.groups, self.positions] = masks
        from mtsig.stats.meta_evaluation.pdp_compiled import (  # numba: only when tested
            hybrid_squares,
            masked_group_sums,
        )

        masked = masked_group_sums(w, self.zg, used)  # T_g(m), [B, G, used]
        squares = hybrid_squares(masked, self.group_sums, position_of, a, b)  # [B, P, 2]
        dn, dx = num[:, b] - num[:, a], xx[:, b] - xx[:, a]
        r_a = self._pdp(self.base_num[a] + dn, self.base_xx[a] + dx, squares[:, :, 0])
        r_b = self._pdp(self.base_num[b] - dn, self.base_xx[b] - dx, squares[:, :, 1])
        return r_a - r_b


#: The Kendall variants :class:`PairOutcomeSwaps` tests (tau-c depends on the scores, not only on the pairs).
PAIR_VARIANTS = ("b", "23", "acc23")


class PairOutcomeSwaps:
    """Kendall's ``variant`` (b, 23, acc23) of ``metrics[M, S, N]`` at their ``epsilons[M]`` against ``human[S, N]``
    under ``grouping``, each pair's outcome swapped (module docstring); the groups' values averaged with
    ``nan_groups`` (tau-b is undefined in a group where a side ties every pair)."""

    def __init__(
        self,
        human: np.ndarray,
        metrics: np.ndarray,
        epsilons: Sequence[float],
        *,
        variant: str = "acc23",
        grouping: str = "item",
        nan_groups: str = "drop",
    ) -> None:
        if variant not in PAIR_VARIANTS:
            raise InputError(f"swapping pairs tests Kendall's {', '.join(PAIR_VARIANTS)}, not {variant!r}")
        if nan_groups not in NAN_GROUPS:
            raise InputError(f"unknown NaN-group rule {nan_groups!r}; known: {', '.join(NAN_GROUPS)}")
        h = np.asarray(human, dtype=np.float64)
        pairs = group_pairs(h, grouping)
        dh = pair_differences(h, pairs, grouping)
        dm = pair_differences(metrics, pairs, grouping)  # [M, P]
        eps = np.asarray(epsilons, dtype=np.float64)[:, None]
        if (eps < 0).any():
            raise InputError("the tie thresholds epsilon must be >= 0")
        metric_tie = np.abs(dm) <= eps
        human_tie = dh == 0
        if variant == "b":
            sign = np.where(metric_tie | human_tie, 0, np.where(np.sign(dh) == np.sign(dm), 1, -1))
            features = [sign, metric_tie.astype(np.int64)]
        else:
            features = [good_pairs(dh, dm, eps[:, 0]).astype(np.int64)]
        self.variant, self.nan_groups = variant, nan_groups
        groups, inverse, pair_count = np.unique(pairs.group, return_inverse=True, return_counts=True)
        self.pair_count = pair_count.astype(np.float64)  # [G] (groups with a pair)
        self.human_ties = np.bincount(inverse, weights=human_tie, minlength=groups.size)
        self.members = [np.flatnonzero(inverse == g) for g in range(groups.size)]
        # per group, the features of its pairs: [pairs of g, M·F]
        stacked = np.concatenate([f.T for f in features], axis=1).astype(np.float64)  # [P, M·F]
        self.blocks = [stacked[members] for members in self.members]
        self.n_metrics = dm.shape[0]
        self.n_features = len(features)
        self.base = np.stack([block.sum(axis=0) for block in self.blocks])  # [G, M·F]
        self.n_units = pairs.group.size
        self.scale = 1.0

    def _values(self, sums: np.ndarray) -> np.ndarray:
        """``sums[..., G, F]`` -> the statistic averaged over the groups ``[...]``."""
        total = self.pair_count
        with np.errstate(invalid="ignore", divide="ignore"):
            if self.variant == "acc23":
                values = sums[..., 0] / total
            elif self.variant == "23":
                values = (2.0 * sums[..., 0] - total) / total
            else:
                metric_ties, human_ties = sums[..., 1], self.human_ties
                values = sums[..., 0] / np.sqrt(total - metric_ties) / np.sqrt(total - human_ties)
                values = np.where((metric_ties == total) | (human_ties == total), np.nan, values)
        if self.nan_groups == "zero":
            return np.nan_to_num(values, nan=0.0).mean(axis=-1)
        defined = np.isfinite(values)
        n = defined.sum(axis=-1)
        return np.where(n > 0, np.where(defined, values, 0.0).sum(axis=-1) / np.maximum(n, 1), 0.0)

    def _split(self, sums: np.ndarray) -> np.ndarray:
        """``[..., G, M·F]`` -> ``[..., M, G, F]``."""
        shaped = sums.reshape(*sums.shape[:-1], self.n_features, self.n_metrics)
        return np.moveaxis(shaped, -1, -3)

    def observed(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        values = self._values(self._split(self.base))
        return values[a] - values[b]

    def draws(self, masks: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        w = masks.astype(np.float64)
        # integer sums of 0/±1 features: exact in any order
        masked = np.stack(
            [w[:, members] @ block for members, block in zip(self.members, self.blocks, strict=True)], axis=1
        )
        masked = self._split(masked)  # [B, M, G, F]
        base = self._split(self.base)  # [M, G, F]
        out = np.empty((masks.shape[0], a.size))
        for start in range(0, a.size, PAIR_CHUNK):
            i, j = a[start : start + PAIR_CHUNK], b[start : start + PAIR_CHUNK]
            d = masked[:, j] - masked[:, i]
            out[:, start : start + PAIR_CHUNK] = self._values(base[i] + d) - self._values(base[j] - d)
        return out


def recalibrated_acc_t(
    human: np.ndarray, metrics: np.ndarray, *, variant: str = "acc23", grouping: str = "item"
) -> ScoreSwaps:
    """The source of the test that re-calibrates epsilon on every hybrid (``PermutationSigDiff`` with
    ``KendallWithTiesOpt``, ``perm_test='scores'``): every cell swapped, each metric z-scored over every cell, the
    hybrids' tie-calibrated statistics as exact numerators."""
    h = np.asarray(human, dtype=np.float64)
    denominator = calibrate_ties_many(
        h, np.zeros((1, *h.shape)), variant=variant, grouping=grouping
    ).denominator

    def statistic(x: np.ndarray) -> np.ndarray:
        return calibrate_ties_many(h, x, variant=variant, grouping=grouping).numerators

    return ScoreSwaps(h, metrics, statistic, grouping=grouping, units="all", scale=1.0 / denominator)
