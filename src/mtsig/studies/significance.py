"""The randomized tests of one shard of an experiment's pairs (Graham, Mathur & Baldwin 2014, Sec. 3; the paper's
Figs. 5-6 for the kept distributions): which pairs a shard holds, which pairs' pseudo-statistics are kept, and the
shared engine run on them with the percentile and BCa intervals from the same draws."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.settings import Resampling
from mtsig.stats.conclusions import unordered_pairs
from mtsig.stats.intervals import INTERVAL_METHODS, confidence_level
from mtsig.stats.resampling.engine import ResamplingOptions, pairwise_tests
from mtsig.stats.resampling.registry import samples_per_test


def shard_pairs(n_systems: int, shard: int, n_shards: int) -> list[tuple[int, int]]:
    """The pairs of one shard: contiguous blocks of the canonical order (shards differ by at most one pair)."""
    pairs = unordered_pairs(range(n_systems))
    bounds = np.linspace(0, len(pairs), n_shards + 1).round().astype(int)
    return pairs[bounds[shard] : bounds[shard + 1]]


def distribution_pairs(
    selection_scores: np.ndarray,
    systems: Sequence[str],
    requested: str | Sequence[Sequence[str]],
    gap_quantile: float,
) -> list[tuple[str, str]]:
    """Pairs whose pseudo-statistics are kept for the figures (paper Figs. 5-6).

    ``"auto"``: the two systems closest in the selection metric (BLEU; the paper's Fig. 5 shows "a typical pair of
    systems with close BLEU scores") and one clearly different pair, the pair whose score gap is nearest the
    ``gap_quantile`` quantile of all gaps (``resampling.distribution_gap_quantile``, default the 75th percentile). Each pair is oriented with the higher-scoring system first.
    """
    if requested != "auto":
        unknown = sorted({s for pair in requested for s in pair} - set(systems))
        if unknown:
            raise InputError(f"distribution_pairs names unknown systems: {', '.join(unknown)}")
        return [(str(x), str(y)) for x, y in requested]
    pairs = unordered_pairs(range(len(systems)))
    gaps = np.array([abs(selection_scores[i] - selection_scores[j]) for i, j in pairs])
    closest = pairs[int(np.argmin(gaps))]
    target = np.quantile(gaps, gap_quantile)
    different = pairs[int(np.argmin(np.abs(gaps - target)))]
    chosen = []
    for i, j in dict.fromkeys([closest, different]):
        hi, lo = (i, j) if selection_scores[i] >= selection_scores[j] else (j, i)
        chosen.append((systems[hi], systems[lo]))
    return chosen


@dataclass(frozen=True)
class ShardTests:
    """One shard's tests table, pair and system intervals, kept distributions (``"x__y"`` -> test or ``actual``
    -> values), and the engine's settings of every test (what the tests' signatures are made from)."""

    table: pd.DataFrame
    intervals: pd.DataFrame
    system_intervals: pd.DataFrame
    distributions: dict[str, dict[str, np.ndarray]]
    engine_settings: dict[str, object]
    n_pairs: int


def shard_tests(
    stats: np.ndarray,
    score: Callable[[np.ndarray], np.ndarray],
    systems: Sequence[str],
    selection_scores: np.ndarray,
    documents: np.ndarray | None,
    *,
    higher_is_better: bool,
    tests: Sequence[str],
    resampling: Resampling,
    seed: int,
    shard: int,
    n_shards: int,
) -> ShardTests:
    """Every test of ``tests`` for the pairs of shard ``shard`` of ``n_shards`` (:func:`shard_pairs`), and the
    percentile and BCa intervals (:mod:`mtsig.stats.intervals`, level ``resampling.confidence``) of every pair's
    difference and every system's score, from the paired bootstrap's own draws (no second resampling).

    ``selection_scores`` (oriented: higher is better) choose the pairs whose distributions are kept
    (:func:`distribution_pairs`); of those, the shard keeps its own. The engine's draws do not depend on which
    pairs are computed, so the shards of one ``seed`` give the unsharded result.
    """
    keep = distribution_pairs(
        selection_scores, systems, resampling.distribution_pairs, resampling.distribution_gap_quantile
    )
    pairs = shard_pairs(len(systems), shard, n_shards)
    index = {name: i for i, name in enumerate(systems)}
    in_shard = set(pairs)
    keep = [(x, y) for x, y in keep if tuple(sorted((index[x], index[y]))) in in_shard]
    result = pairwise_tests(
        stats,
        score,
        systems,
        ResamplingOptions(
            higher_is_better=higher_is_better,
            tests=list(tests),
            n_samples=samples_per_test(resampling.samples, tests),
            seed=seed,
            pvalue=resampling.pvalue,
            memory_cap_bytes=resampling.memory_cap_bytes,
            pairs=pairs,
            keep_distributions=keep,
            documents=documents,
            mean_block_length=resampling.mean_block_length,
            intervals=INTERVAL_METHODS,
            interval_level=confidence_level(resampling.confidence),
        ),
    )
    distributions = {
        f"{x}__{y}": {test: np.asarray(values) for test, values in by_test.items()}
        for (x, y), by_test in result.distributions.items()
    }
    return ShardTests(
        result.table, result.intervals, result.system_intervals, distributions, result.settings, len(pairs)
    )
