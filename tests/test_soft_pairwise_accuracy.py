"""Soft pairwise accuracy (mtsig.stats.meta_evaluation.soft_pairwise_accuracy; Thompson, Mathur, Deutsch &
Lapata 2024, Sec. 3).

Oracles: a loop transcription of pce.py's compute_pairwise_p_values and compute_one_minus_pce (google-research/
mt-metrics-eval, commit 68a481a): its masks (numpy default_rng(4), float32 uniforms, rint, 2m - 1), the null and the
observed differences as sums over the segments, ``null >= observed``, computed here in float64 one permutation at a
time; float32 arithmetic and exact sums agree on integer scores (float32 adds integers exactly); a hand case.
"""

from __future__ import annotations

import numpy as np
import pytest

from mtsig.stats.meta_evaluation.soft_pairwise_accuracy import (
    pairwise_pvalues,
    pce_flips,
    permutation_counts,
    soft_pairwise_accuracy,
)


def pce_transcription(scores: np.ndarray, n_permutations: int = 1000, seed: int = 4) -> np.ndarray:
    """pce.py's p-value matrix, one permutation and one pair at a time (float64)."""
    n_systems, n_segments = scores.shape
    rng = np.random.default_rng(seed)
    two_m_minus_one = np.rint(rng.random(size=(n_permutations, n_segments), dtype=np.float32)) * 2.0 - 1.0
    x = scores.astype(np.float32).astype(np.float64)
    p = np.full((n_systems, n_systems), np.nan)
    for i in range(n_systems):
        for j in range(i + 1, n_systems):
            test_delta = x[i].sum() - x[j].sum()
            count = 0
            for r in range(n_permutations):
                null_delta = float(two_m_minus_one[r] @ x[i]) - float(two_m_minus_one[r] @ x[j])
                count += null_delta >= test_delta
            p[i, j] = count / n_permutations
    return p


def test_flip_masks_are_pces():
    rng = np.random.default_rng(4)
    two_m_minus_one = np.rint(rng.random(size=(1000, 37), dtype=np.float32)) * 2.0 - 1.0
    np.testing.assert_array_equal(pce_flips(37), two_m_minus_one == -1.0)


def test_pvalues_equal_the_transcription():
    rng = np.random.default_rng(0)
    scores = rng.normal(size=(4, 25)) + np.arange(4)[:, None] * 0.1
    np.testing.assert_array_equal(pairwise_pvalues(scores, pce_flips(25)), pce_transcription(scores))


def test_float32_and_exact_agree_on_integer_scores():
    rng = np.random.default_rng(1)
    scores = rng.integers(-25, 1, size=(5, 40)).astype(np.float64)  # MQM-like; exact ties in the sums
    flips = pce_flips(40)
    exact = permutation_counts(scores, flips)
    np.testing.assert_array_equal(exact, permutation_counts(scores, flips, arithmetic="float32"))
    i, j = np.triu_indices(5, k=1)
    np.testing.assert_array_equal(exact / 1000, pce_transcription(scores)[i, j])


def test_spa_equals_one_minus_pce_of_the_transcription():
    rng = np.random.default_rng(2)
    human = rng.normal(size=(4, 30))
    metric = human + rng.normal(size=(4, 30))
    i, j = np.triu_indices(4, k=1)
    expected = 1.0 - np.mean(np.abs(pce_transcription(human)[i, j] - pce_transcription(metric)[i, j]))
    assert soft_pairwise_accuracy(human, metric) == pytest.approx(expected, abs=1e-15)
    assert soft_pairwise_accuracy(human, np.stack([human, metric]))[0] == 1.0


def test_hand_case_one_segment():
    """Two systems, one segment, x = (1, 0): the flipped sum is 1 > 0 where the segment is flipped and the empty
    sum 0 <= 0 where it is not, so p = the share of permutations that keep the segment's sign."""
    flips = pce_flips(1)
    p = pairwise_pvalues(np.array([[1.0], [0.0]]), flips)
    assert p[0, 1] == np.count_nonzero(~flips[:, 0]) / 1000
