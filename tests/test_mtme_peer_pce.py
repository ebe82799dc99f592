"""google-research/mt-metrics-eval's unit test of soft pairwise accuracy's permutation p-values
(``mt_metrics_eval/pce_test.py`` at commit 68a481a, one test), ported to mtsig's functions
(:mod:`mtsig.stats.meta_evaluation.soft_pairwise_accuracy`). Its input is ``np.random.rand(10, 100)``: here
the same shape from a seeded generator."""

from __future__ import annotations

import numpy as np

from mtsig.stats.meta_evaluation.soft_pairwise_accuracy import pairwise_pvalues, pce_flips


def test_pairwise_p_values_are_deterministic():
    """ports pce_test.py::PCETest::test_pairwise_p_values_are_deterministic: two calls, each drawing pce.py's
    permutations afresh (seed 4), give the same p-values, with either arithmetic"""
    scores = np.random.default_rng(20140626).random((10, 100))
    for arithmetic in ("exact", "float32"):
        pvalues1 = pairwise_pvalues(scores, pce_flips(100), arithmetic=arithmetic)
        pvalues2 = pairwise_pvalues(scores, pce_flips(100), arithmetic=arithmetic)
        np.testing.assert_array_equal(pvalues1, pvalues2)
        upper = np.triu_indices(10, k=1)
        assert np.isfinite(pvalues1[upper]).all() and np.isnan(pvalues1[np.tril_indices(10)]).all()
