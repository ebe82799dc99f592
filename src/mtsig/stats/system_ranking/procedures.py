"""The system-ranking procedures on arrays of item scores, every one vectorised over a leading replicate axis.

Each takes ``scores[R, S, N]`` (item scores, NaN where unrated), the columns' ``segments[N]`` and ``domains[N]``
codes (:class:`~mtsig.stats.system_ranking.items.ItemScores`) and returns :class:`RankingArrays`. Pairs are never
looped over: the differences of every pair are one array ``[R, P, M]`` (P unordered pairs, M paired units of
:func:`~mtsig.stats.system_ranking.items.pair_units`) and each test ranks it once. docs/statistics.md ("Ranking
systems from human scores") defines each procedure; docs/conventions.md lists the organisers' quirks reproduced.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from scipy import special, stats
from scipy.stats import rankdata

from mtsig.stats.resampling.draws import UNIFORM_DRAWS, bootstrap_indices
from mtsig.stats.seeding import rng_for
from mtsig.stats.system_ranking import ranks as rank_rules
from mtsig.stats.system_ranking.bootstrap import N_RESAMPLES, paired_bca, unpaired_bca
from mtsig.stats.system_ranking.items import pair_units
from mtsig.stats.system_ranking.signed_rank import AUTO_RULES, signed_rank_pvalues

#: Work arrays of at most about this many float64 values per chunk of replicates (32 MB).
CHUNK_VALUES = 4_000_000


@dataclass(frozen=True)
class RankingArrays:
    """One procedure's result on R replicates of S systems.

    ``scores[R, S]``: the score the procedure orders by; ``order[R, S]``: systems best first; ``pvalues[R, S, S]``:
    ``p[i, j]`` of the procedure's test of i against j (one-sided "i better than j" for one-sided procedures; the
    same two-sided value both ways for ``wmt24``; for the stratified permutation tests the two-sided p where i's
    macro average is the higher and 1 the other way; NaN on the diagonal and where the test is undefined);
    ``beats[R, S, S]``: the procedure declares i better than j; ``top_rank``, ``worst_rank``, ``cluster``
    ``[R, S]`` per system (1 = best).
    """

    scores: np.ndarray
    order: np.ndarray
    pvalues: np.ndarray
    beats: np.ndarray
    top_rank: np.ndarray
    worst_rank: np.ndarray
    cluster: np.ndarray


def as_replicates(scores: np.ndarray) -> np.ndarray:
    """``[S, N]`` -> ``[1, S, N]``; ``[R, S, N]`` as it is (float64)."""
    scores = np.asarray(scores, dtype=np.float64)
    return scores[None] if scores.ndim == 2 else scores


def _chunks(replicates: int, per_replicate: int) -> Iterator[slice]:
    """Slices of the replicate axis, each of about :data:`CHUNK_VALUES` work values (``per_replicate`` each)."""
    size = max(1, CHUNK_VALUES // max(per_replicate, 1))
    for start in range(0, replicates, size):
        yield slice(start, min(start + size, replicates))


def _pair_differences(scores: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """``d[R, P, M]`` = score of the first system of each unordered pair minus the second's, on the paired units."""
    first, second = np.triu_indices(scores.shape[1], 1)
    return scores[:, first][:, :, left] - scores[:, second][:, :, right]


def _square(values: np.ndarray, n: int, lower: np.ndarray | None = None) -> np.ndarray:
    """``[R, P]`` over unordered pairs -> ``[R, S, S]``: ``values`` at (i, j), ``lower`` (default the same) at
    (j, i), NaN on the diagonal."""
    first, second = np.triu_indices(n, 1)
    out = np.full((values.shape[0], n, n), np.nan)
    out[:, first, second] = values
    out[:, second, first] = values if lower is None else lower
    return out


def domain_macro_average(scores: np.ndarray, domains: np.ndarray) -> np.ndarray:
    """The WMT24 score: each system's mean per domain over its rated items, then the mean over the domains where
    it has ratings (``calculate_clusters.py``: ``per_domain``, then ``avg_rating``)."""
    codes = np.unique(domains)
    with np.errstate(invalid="ignore"):
        per_domain = np.stack([_nanmean(scores[:, :, domains == d]) for d in codes], axis=-1)
        return _nanmean(per_domain)


def _nanmean(values: np.ndarray) -> np.ndarray:
    """The mean over the last axis of the non-NaN values, NaN where there are none (without numpy's warning)."""
    rated = ~np.isnan(values)
    count = rated.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(rated, values, 0.0).sum(axis=-1) / np.where(count > 0, count, np.nan)


def item_mean(scores: np.ndarray) -> np.ndarray:
    """Each system's mean over its rated items (WMT25, WMT26, and the paper's tests' corpus score)."""
    return _nanmean(scores)


# --------------------------------------------------------------------------------------------------- WMT24


def stouffer_pvalues(
    scores: np.ndarray, segments: np.ndarray, domains: np.ndarray, auto_rule: str = AUTO_RULES[0]
) -> np.ndarray:
    """WMT24's p-value of every unordered pair, ``[R, P]`` (``weighted_wilcoxon_signed_rank_test``, macro):
    per domain the two-sided signed-rank p of the paired differences, ``z_d = norm.ppf(1 - p_d)``, then
    ``1 - norm.cdf(sum z_d / sqrt(k))`` over the k domains with a paired item. No paired item at all: NaN (their
    ``np.sum([]) / np.sqrt(0)``). ``auto_rule``: the scipy version whose choice of the signed-rank method is
    followed (:data:`~mtsig.stats.system_ranking.signed_rank.AUTO_RULES`)."""
    left, right = pair_units(segments)
    unit_domain = np.asarray(domains)[left]
    replicates, n_systems, _ = scores.shape
    out = np.empty((replicates, n_systems * (n_systems - 1) // 2))
    per_replicate = out.shape[1] * len(left) * 4
    for part in _chunks(replicates, per_replicate):
        differences = _pair_differences(scores[part], left, right)
        z_sum = np.zeros(differences.shape[:2])
        present = np.zeros(differences.shape[:2])
        for code in np.unique(unit_domain):
            in_domain = differences[:, :, unit_domain == code]
            paired = (~np.isnan(in_domain)).any(axis=-1)
            p = signed_rank_pvalues(in_domain, alternative="two-sided", auto_rule=auto_rule)
            with np.errstate(invalid="ignore"):
                z = special.ndtri(1 - p)
            z_sum = z_sum + np.where(paired, z, 0.0)
            present += paired
        with np.errstate(invalid="ignore", divide="ignore"):
            out[part] = 1 - special.ndtr(z_sum / np.sqrt(present))
    return out


def wmt24(
    scores: np.ndarray,
    segments: np.ndarray,
    domains: np.ndarray,
    *,
    alpha: float = 0.05,
    auto_rule: str = AUTO_RULES[0],
) -> RankingArrays:
    """The WMT24 organisers' procedure (wmt-conference/wmt24-news-systems@bfa937e, ``humeval/tools.py``:
    ``get_pvalues``, ``weighted_wilcoxon_signed_rank_test``, ``get_ranks``, ``get_clusters``;
    ``humeval/calculate_clusters.py``: the macro average and its order), its signed-rank p-values as scipy
    ``auto_rule`` computes them (the registry's ``wmt24``: scipy 1.15 and later; ``wmt24_scipy114``: scipy 1.14)."""
    scores = as_replicates(scores)
    n = scores.shape[1]
    pvalues = _square(stouffer_pvalues(scores, segments, domains, auto_rule), n)
    macro = domain_macro_average(scores, np.asarray(domains))
    order = rank_rules.descending_order(macro)
    top, worst = rank_rules.wmt24_ranks(pvalues, macro, alpha)
    beats = (pvalues < alpha) & (macro[:, :, None] > macro[:, None, :])
    cluster = rank_rules.wmt24_clusters(pvalues, order, alpha)
    return RankingArrays(macro, order, pvalues, beats, top, worst, cluster)


# --------------------------------------------------------------------------------------------------- WMT25


def one_sided_signed_rank(scores: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """``p[R, S, S]``: the one-sided signed-rank p of "i better than j" on every paired unit (no domains)."""
    left, right = pair_units(segments)
    replicates, n, _ = scores.shape
    upper = np.empty((replicates, n * (n - 1) // 2))
    lower = np.empty_like(upper)
    for part in _chunks(replicates, upper.shape[1] * len(left) * 4):
        differences = _pair_differences(scores[part], left, right)
        upper[part] = signed_rank_pvalues(differences, alternative="greater")
        lower[part] = signed_rank_pvalues(differences, alternative="less")
    return _square(upper, n, lower)


def wmt25(
    scores: np.ndarray, segments: np.ndarray, domains: np.ndarray, *, alpha: float = 0.05 / 2
) -> RankingArrays:
    """The WMT25 organisers' procedure (wmt-conference/wmt25-general-mt@e0cb47f, ``humeval/08-compute_clusters.py``:
    ``get_significance`` at ``0.05/2``, the rank walk, ``does_cluster_end_here``); domains are not used."""
    scores = as_replicates(scores)
    pvalues = one_sided_signed_rank(scores, segments)
    beats = pvalues < alpha
    mean = item_mean(scores)
    order = rank_rules.descending_order(mean)
    top, worst = rank_rules.walk_ranks(beats, order)
    cluster = rank_rules.wmt25_clusters(top, worst, order)
    return RankingArrays(
        mean,
        order,
        pvalues,
        beats,
        rank_rules._to_systems(top, order),
        rank_rules._to_systems(worst, order),
        cluster,
    )


# --------------------------------------------------------------------------------------------------- WMT26

WMT26_VARIANTS = ("either", "paired", "unpaired")


def wmt26_decisions(
    scores: np.ndarray,
    segments: np.ndarray,
    *,
    variant: str,
    rng: np.random.Generator,
    n_resamples: int = N_RESAMPLES,
    confidence: float = 0.95,
) -> tuple[np.ndarray, np.ndarray]:
    """(beats[R, S, S], p[R, S, S]) of WMT26's bootstrap for every ordered pair, each with its own draws from
    ``rng`` (uniform positions ``floor(u n)``, :func:`~mtsig.stats.resampling.draws.bootstrap_indices`). ``variant``:
    ``"paired"``, ``"unpaired"``, or ``"either"`` (the organisers' ``is_significantly_better``: paired, else
    unpaired). p of ``"either"``: the smaller of the two."""
    if variant not in WMT26_VARIANTS:
        raise ValueError(f"variant must be one of {WMT26_VARIANTS}")
    left, right = pair_units(segments)
    replicates, n, _ = scores.shape
    first, second = np.nonzero(~np.eye(n, dtype=bool))
    beats = np.zeros((replicates, n, n), dtype=bool)
    pvalues = np.full((replicates, n, n), np.nan)
    for part in _chunks(replicates, len(first) * max(len(left), scores.shape[2]) * n_resamples * 3):
        block = scores[part]
        k = block.shape[0] * len(first)
        decided = np.zeros(k, dtype=bool)
        p_best = np.full(k, np.inf)
        if variant in ("either", "paired"):
            differences = (block[:, first][:, :, left] - block[:, second][:, :, right]).reshape(k, -1)
            valid = ~np.isnan(differences)
            indices = bootstrap_indices(
                rng, valid.sum(axis=1), n_resamples, width=valid.shape[1], draw=UNIFORM_DRAWS
            )
            applies, lower, p = paired_bca(differences, valid, indices, confidence)
            decided, p_best = _merge_bca(decided, p_best, applies, lower, p)
        if variant in ("either", "unpaired"):
            a = block[:, first].reshape(k, -1)
            b = block[:, second].reshape(k, -1)
            valid_a, valid_b = ~np.isnan(a), ~np.isnan(b)
            width = a.shape[1]
            indices_a = bootstrap_indices(
                rng, valid_a.sum(axis=1), n_resamples, width=width, draw=UNIFORM_DRAWS
            )
            indices_b = bootstrap_indices(
                rng, valid_b.sum(axis=1), n_resamples, width=width, draw=UNIFORM_DRAWS
            )
            applies, lower, p = unpaired_bca(a, valid_a, b, valid_b, indices_a, indices_b, confidence)
            decided, p_best = _merge_bca(decided, p_best, applies, lower, p)
        rows = np.repeat(np.arange(part.start, part.stop), len(first))
        beats[rows, np.tile(first, block.shape[0]), np.tile(second, block.shape[0])] = decided
        pvalues[rows, np.tile(first, block.shape[0]), np.tile(second, block.shape[0])] = np.where(
            np.isinf(p_best), np.nan, p_best
        )
    return beats, pvalues


def _merge_bca(
    decided: np.ndarray, p_best: np.ndarray, applies: np.ndarray, lower: np.ndarray, p: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """One BCa bootstrap folded into WMT26's ``"either"`` decision: better where it applies and its lower bound is
    above 0 (``is_significantly_better``: paired, else unpaired), p the smaller of the defined ones so far."""
    return decided | (applies & (lower > 0)), np.where(applies & ~np.isnan(p), np.minimum(p_best, p), p_best)


def wmt26_from_decisions(scores: np.ndarray, beats: np.ndarray, pvalues: np.ndarray) -> RankingArrays:
    """WMT26's order (mean over rated items), rank walk and "global" clusters from its decisions."""
    mean = item_mean(scores)
    order = rank_rules.descending_order(mean)
    top, worst, cluster = rank_rules.wmt26_ranks_and_clusters(beats, order)
    return RankingArrays(mean, order, pvalues, beats, top, worst, cluster)


def wmt26(
    scores: np.ndarray,
    segments: np.ndarray,
    domains: np.ndarray,
    *,
    variant: str = "either",
    seed: int = 0,
    n_resamples: int = N_RESAMPLES,
    alpha: float = 0.05,
) -> RankingArrays:
    """The WMT26 organisers' procedure (wmt-conference/wmt26-general-mt@a6ae235, ``humeval/02b-analyze_results.py``)
    with mtsig's draws: seed ``rng_for(seed, "system_ranking", "wmt26", variant)``. ``alpha``: one minus the
    interval's confidence."""
    scores = as_replicates(scores)
    rng = rng_for(seed, "system_ranking", "wmt26", variant)
    beats, pvalues = wmt26_decisions(
        scores, segments, variant=variant, rng=rng, n_resamples=n_resamples, confidence=1 - alpha
    )
    return wmt26_from_decisions(scores, beats, pvalues)


# ------------------------------------------------------------------------------------- beyond the organisers


def _standard_ranking(scores_used: np.ndarray, pvalues: np.ndarray, alpha: float) -> RankingArrays:
    """mtsig's reading of one-sided p-values (:mod:`mtsig.stats.clusters`): i beats j iff p[i, j] <= alpha and i's
    score is strictly higher; ranks ``1 + losses`` to ``S - wins``; ``all_pairs`` clusters."""
    beats = (pvalues <= alpha) & (scores_used[:, :, None] > scores_used[:, None, :])
    order = rank_rules.descending_order(scores_used)
    top, worst = rank_rules.win_loss_ranks(beats)
    cluster = rank_rules.all_pairs_clusters(beats, order)
    return RankingArrays(scores_used, order, pvalues, beats, top, worst, cluster)


def _random_signs(seed: int, procedure: str, n_blocks: int, n_resamples: int) -> np.ndarray:
    """``signs[B, K]`` of +-1, each fair: ``rng_for(seed, "system_ranking", procedure, K)``'s ``integers(0, 2)``."""
    rng = rng_for(seed, "system_ranking", procedure, n_blocks)
    return 2.0 * rng.integers(0, 2, (n_resamples, n_blocks)) - 1.0


def stratified_permutation(
    scores: np.ndarray,
    segments: np.ndarray,
    domains: np.ndarray,
    *,
    documents: np.ndarray | None = None,
    alpha: float = 0.05,
    seed: int = 0,
    n_resamples: int = 10_000,
) -> RankingArrays:
    """A permutation test of the macro-average difference, stratified by domain (docs/statistics.md).

    For a pair, ``T = mean over domains d of mean over d's paired units of (x - y)`` (the domains where the pair
    has a paired unit); under the null the two systems' scores of a unit are exchangeable, so each unit's
    difference flips sign with probability 1/2 (every domain keeps its units and its weight). Two-sided:
    ``p = (1 + #{|T_b| >= |T| - tol}) / (B + 1)``, ``tol = 1e-9 (1 + |T|)``; the sign of T gives the direction:
    ``p[i, j]`` is that two-sided p where T(i, j) > 0 and 1 otherwise, so i beats j iff i's macro average is higher
    and p <= alpha. One draw of signs per unit, shared by every pair and replicate:
    ``rng_for(seed, "system_ranking", "stratified_permutation", M)``.

    With ``documents[N]`` (each column's document code; the registry's ``stratified_permutation_documents``): one
    sign per document. The same statistic T, the same domain weights and the same two-sided p, but under the null
    the two systems are exchangeable by whole documents (in ESA one rater scores one system's whole document, so a
    rater's severity is shared by the document's items and the items' differences are not independent), so every
    paired unit of a document flips with the document's one sign. A document that spans several domains keeps each
    unit's own domain weight. One draw of signs per document with a paired unit, shared by every pair and
    replicate: ``rng_for(seed, "system_ranking", "stratified_permutation_documents", D)``. With D documents the
    smallest attainable p is about ``2 / 2^D``.
    """
    left, _ = pair_units(segments)
    if documents is None:
        blocks, n_blocks, stream = None, len(left), "stratified_permutation"
    else:
        present, codes = np.unique(np.asarray(documents)[left], return_inverse=True)
        blocks, n_blocks, stream = codes.ravel(), len(present), "stratified_permutation_documents"
    signs = _random_signs(seed, stream, n_blocks, n_resamples)
    return _stratified_sign_flip(as_replicates(scores), segments, domains, blocks, signs, alpha)


def _stratified_sign_flip(
    scores: np.ndarray,
    segments: np.ndarray,
    domains: np.ndarray,
    blocks: np.ndarray | None,
    signs: np.ndarray,
    alpha: float,
) -> RankingArrays:
    """The stratified sign-flip test of the macro-average difference (:func:`stratified_permutation`), vectorised
    over replicates and pairs. ``signs[B, K]``: the resamples' signs, one per paired unit (``blocks`` None,
    K = M) or per block of units (``blocks[M]``: each paired unit's block code 0 .. K-1, e.g. its document)."""
    left, right = pair_units(segments)
    unit_domain = np.asarray(domains)[left]
    codes = np.unique(unit_domain)
    replicates, n, _ = scores.shape
    n_resamples, n_blocks = signs.shape
    # [M, K]: each unit's block; a block's resampled contribution is its units' weighted sum times its one sign.
    to_blocks = (
        None if blocks is None else (blocks[:, None] == np.arange(n_blocks)[None, :]).astype(np.float64)
    )
    two_sided = np.empty((replicates, n * (n - 1) // 2))
    direction = np.empty_like(two_sided)
    block_values = 0 if blocks is None else n_blocks
    for part in _chunks(replicates, two_sided.shape[1] * (len(left) + block_values + n_resamples) * 2):
        differences = _pair_differences(scores[part], left, right)
        valid = ~np.isnan(differences)
        weights = np.zeros(differences.shape)
        n_domains = np.zeros(differences.shape[:2])
        for code in codes:
            in_domain = (unit_domain == code)[None, None, :] & valid
            count = in_domain.sum(axis=-1, keepdims=True)
            weights += np.where(in_domain, 1.0 / np.maximum(count, 1), 0.0)
            n_domains += count[..., 0] > 0
        with np.errstate(invalid="ignore", divide="ignore"):
            weights /= n_domains[..., None]
        weighted = np.where(valid, differences, 0.0) * weights
        observed = weighted.sum(axis=-1)
        flat = weighted.reshape(-1, weighted.shape[-1])
        if to_blocks is not None:
            flat = flat @ to_blocks
        # One 2-D product (a stacked 3-D matmul runs one matrix-vector product per pair, far slower).
        resampled = (flat @ signs.T).reshape(*weighted.shape[:2], -1)
        tolerance = 1e-9 * (1 + np.abs(observed))
        exceed = (np.abs(resampled) >= (np.abs(observed) - tolerance)[..., None]).sum(axis=-1)
        p = (1 + exceed) / (n_resamples + 1)
        two_sided[part] = np.where(n_domains > 0, p, np.nan)
        direction[part] = observed
    upper = np.where(direction > 0, two_sided, np.where(np.isnan(two_sided), np.nan, 1.0))
    lower = np.where(direction < 0, two_sided, np.where(np.isnan(two_sided), np.nan, 1.0))
    pvalues = _square(upper, n, lower)
    return _standard_ranking(domain_macro_average(scores, np.asarray(domains)), pvalues, alpha)


def mann_whitney_greater(scores: np.ndarray) -> np.ndarray:
    """``p[R, S, S]``: one-sided Mann-Whitney U p of "i greater than j" over each system's rated items, equal to
    ``scipy.stats.mannwhitneyu(x, y, alternative="greater")`` with its defaults (normal approximation with tie
    and continuity correction; scipy's exact method, used when a sample has at most 8 items and there are no ties,
    is called for those pairs)."""
    replicates, n, _ = scores.shape
    first, second = np.triu_indices(n, 1)
    x, y = scores[:, first], scores[:, second]  # [R, P, N]
    pooled = np.concatenate([x, y], axis=-1)
    valid = ~np.isnan(pooled)
    n1 = (~np.isnan(x)).sum(axis=-1).astype(np.float64)
    n2 = (~np.isnan(y)).sum(axis=-1).astype(np.float64)
    filled = np.where(valid, pooled, np.inf)
    ranks = rankdata(filled, method="average", axis=-1)
    lowest = rankdata(filled, method="min", axis=-1)
    tie_size = 2 * (ranks - lowest) + 1
    r1 = np.where(valid[..., : x.shape[-1]], ranks[..., : x.shape[-1]], 0.0).sum(axis=-1)
    u1 = r1 - n1 * (n1 + 1) / 2
    u2 = n1 * n2 - u1
    tie_term = np.where(valid, tie_size**2 - 1, 0.0).sum(axis=-1)
    total = n1 + n2
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.sqrt(n1 * n2 / 12 * ((total + 1) - tie_term / (total * (total - 1))))
        upper = special.ndtr(-((u1 - n1 * n2 / 2 - 0.5) / s))
        lower = special.ndtr(-((u2 - n1 * n2 / 2 - 0.5) / s))
    upper, lower = np.clip(upper, 0, 1), np.clip(lower, 0, 1)
    ties = np.any(valid & (tie_size > 1), axis=-1)
    exact = ((n1 <= 8) | (n2 <= 8)) & ~ties & (n1 > 0) & (n2 > 0)
    for r, p in zip(*np.nonzero(exact), strict=True):
        a, b = x[r, p][~np.isnan(x[r, p])], y[r, p][~np.isnan(y[r, p])]
        upper[r, p] = stats.mannwhitneyu(a, b, alternative="greater").pvalue
        lower[r, p] = stats.mannwhitneyu(b, a, alternative="greater").pvalue
    empty = (n1 == 0) | (n2 == 0)
    upper[empty] = lower[empty] = np.nan
    return _square(upper, n, lower)


def wilcoxon_z(
    scores: np.ndarray, segments: np.ndarray, domains: np.ndarray, *, alpha: float = 0.05
) -> RankingArrays:
    """WMT20-22 DA's gold on item scores (mtsig's ``wilcoxon_gold`` with ``unit="segment_mean"``,
    :mod:`mtsig.stats.human`): one-sided Wilcoxon rank-sum (Mann-Whitney U) of each pair's per-rater standardised
    item scores (z), the systems ordered by mean z; read by :func:`_standard_ranking`. ``scores`` are the z item
    scores."""
    scores = as_replicates(scores)
    return _standard_ranking(item_mean(scores), mann_whitney_greater(scores), alpha)


def paper_test(
    scores: np.ndarray,
    segments: np.ndarray,
    domains: np.ndarray,
    *,
    test: str,
    alpha: float = 0.05,
    seed: int = 0,
    n_resamples: int = 1000,
) -> RankingArrays:
    """One of the paper's tests (Graham, Mathur & Baldwin 2014, Figs. 2 and 4) on the item-score means, by mtsig's
    resampling engine (:func:`mtsig.stats.resampling.pairwise_tests`): each item is a segment whose statistics are
    ``[score, 1]`` where rated and ``[0, 0]`` where not, so a system's corpus score is its mean over its rated items
    and a resample or swap moves both. One-sided p of "i better than j" (p-value convention ``c/B``), read by
    :func:`_standard_ranking`. The engine has no replicate axis: the replicates' systems are stacked as one engine
    call's systems (``r * S + i``) with only each replicate's own pairs computed; the engine's draws depend only on
    the seed and the number of items, so every replicate gets the draws it would get alone."""
    from mtsig.stats.resampling import ResamplingOptions, pairwise_tests  # noqa: PLC0415 - the engine only here

    scores = as_replicates(scores)
    replicates, n, n_items = scores.shape
    rated = ~np.isnan(scores)
    statistics = np.stack([np.where(rated, scores, 0.0), rated.astype(np.float64)], axis=-1)
    first, second = np.triu_indices(n, 1)
    offsets = (np.arange(replicates) * n)[:, None]
    pairs = list(zip((offsets + first).ravel().tolist(), (offsets + second).ravel().tolist(), strict=True))
    table = pairwise_tests(
        statistics.reshape(replicates * n, n_items, 2),
        lambda totals: totals[..., 0] / totals[..., 1],
        [str(i) for i in range(replicates * n)],
        ResamplingOptions(tests=(test,), n_samples=n_resamples, seed=seed, pairs=pairs),
    ).table
    x, y = table["sys_x"].astype(int).to_numpy(), table["sys_y"].astype(int).to_numpy()
    pvalues = np.full((replicates, n, n), np.nan)
    pvalues[x // n, x % n, y % n] = table["p_value"].to_numpy()
    return _standard_ranking(item_mean(scores), pvalues, alpha)
