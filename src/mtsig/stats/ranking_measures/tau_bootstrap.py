"""Bootstrap inference on RankEval's micro Kendall tau, resampling judgments (beyond Avramidis 2013).

The per-judgment (concordant, discordant) counts of :func:`mtsig.stats.ranking_measures.rankeval.pair_counts`
are sufficient statistics of micro tau, so a resample of judgments is a count matrix times them; the draws are
the shared resampling engine's (:mod:`mtsig.stats.resampling`), so the intervals and the paired tests of one
seed use the same resamples (docs/statistics.md, "Segment-level measures: RankEval").
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from mtsig.settings import SegmentLevel
from mtsig.stats.ranking_measures.rankeval import kendall_tau
from mtsig.stats.resampling.draws import DRAW_BLOCK_SIZE, counts_from_indices, iid_draws
from mtsig.stats.resampling.engine import ResamplingOptions, pairwise_tests


def bootstrap_micro_taus(counts: np.ndarray, n_samples: int, seed: int) -> np.ndarray:
    """Micro tau of every predictor on ``n_samples`` bootstrap resamples of judgments, ``[B, M]``.

    ``counts[M, J, 2]`` are the per-judgment (concordant, discordant) counts of M predictors.  Each resample draws
    J judgments with replacement, the same draws for every predictor, taken from the shared resampling engine
    (:func:`mtsig.stats.resampling.draws.iid_draws`, blocks of :data:`~mtsig.stats.resampling.draws.DRAW_BLOCK_SIZE`), so they are
    the very draws :func:`mtsig.stats.resampling.pairwise_tests` uses with the same seed; a ``B x J`` count matrix times
    each predictor's counts gives the resampled totals (docs/statistics.md, "Segment-level measures: RankEval").
    """
    counts = np.asarray(counts, dtype=float)
    if counts.ndim != 3 or counts.shape[-1] != 2:
        raise ValueError(f"counts must be [predictors, judgments, 2], got shape {counts.shape}")
    n_judgments = counts.shape[1]
    blocks = []
    for block in range(-(-n_samples // DRAW_BLOCK_SIZE)):
        weights = counts_from_indices(iid_draws(seed, n_judgments, block), n_judgments)
        blocks.append(kendall_tau(np.einsum("bj,mjk->bmk", weights, counts)))
    return np.concatenate(blocks)[:n_samples]


def tau_confidence_interval(
    counts: np.ndarray, n_samples: int = SegmentLevel.bootstrap_samples, seed: int = 0, level: float = 0.95
) -> tuple[float, float]:
    """Bootstrap percentile interval of micro tau, resampling judgments (``counts[J, 2]`` from :func:`pair_counts`).

    Judgments, not pairs, are resampled because the pairs of one ranking list share items and an annotator.
    Draws as in :func:`bootstrap_micro_taus`.
    """
    taus = bootstrap_micro_taus(np.asarray(counts)[None], n_samples, seed)[:, 0]
    alpha = 1.0 - level
    low, high = np.nanquantile(taus, [alpha / 2.0, 1.0 - alpha / 2.0])
    return float(low), float(high)


def paired_tau_tests(
    counts: np.ndarray,
    predictors: Sequence[str],
    n_samples: int = SegmentLevel.bootstrap_samples,
    seed: int = 0,
) -> pd.DataFrame:
    """Paired bootstrap tests of "predictor X has a higher micro tau than Y" for every pair (Koehn 2004; Fig. 4).

    Runs :func:`mtsig.stats.resampling.pairwise_tests` with ``stats = counts[M, J, 2]`` (predictors as "systems",
    judgments as "segments") and ``score = (c - d) / (c + d)``: ``d_b = tau_X(b) - tau_Y(b)`` on shared resamples
    of judgments and ``p(X better) = #{b: d_b < 0} / B`` (the engine's rule, shared with every metric; micro tau
    is a ratio of integer counts, so ``d_b = 0`` happens when two predictors disagree on few judgments, and such
    samples count against neither).  Returns the engine's table (``sys_x, sys_y, test,
    statistic, p_value``, both orders of each pair).
    """
    result = pairwise_tests(
        np.asarray(counts, dtype=float),
        kendall_tau,
        list(predictors),
        ResamplingOptions(tests=("paired_bootstrap",), n_samples=n_samples, seed=seed),
    )
    return result.table
