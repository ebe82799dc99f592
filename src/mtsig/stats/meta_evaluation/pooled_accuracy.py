"""Pairwise accuracy of system rankings pooled over language pairs (Kocmi et al. 2021).

Kocmi, Federmann, Grundkiewicz, Junczys-Dowmunt, Matsushita & Menezes (2021), "To Ship or Not to Ship: An Extensive
Evaluation of Automatic Metrics for Machine Translation" (WMT 2021), Sec. 3: a metric's accuracy is the share of
system pairs, over every language pair, that it orders as the humans do. The WMT22-23 metrics tasks use it as their
first system-level task over all language pairs (Freitag et al. 2023, Sec. 5.1; mt-metrics-eval's
``data.CompareMetricsWithGlobalAccuracy``): pairs are formed within each language pair only, and a pair counts as
agreeing when ``sign(h_i - h_j) == sign(m_i - m_j)`` with numpy's ``sign`` (0 for equal scores), so a pair the
humans tie agrees only when the metric ties it too (``stats.Agreement``). Accuracy = agreeing pairs / all pairs,
pooled: ``Σ_lp agree_lp / Σ_lp S_lp (S_lp - 1) / 2``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mtsig.errors import InputError


def pair_agreement(human: object, metric: object) -> np.ndarray:
    """bool ``[..., P]``: ``sign(h_i - h_j) == sign(m_i - m_j)`` for every system pair i < j
    (``np.triu_indices`` order) of ``human[S]`` and ``metric[..., S]``."""
    h = np.asarray(human, dtype=np.float64)
    m = np.asarray(metric, dtype=np.float64)
    if h.ndim != 1 or m.shape[-1] != h.shape[0]:
        raise InputError(
            f"expected human system scores [S] and metric scores [..., S], got {h.shape}, {m.shape}"
        )
    if not (np.isfinite(h).all() and np.isfinite(m).all()):
        raise InputError("pairwise accuracy: every system score must be a finite number")
    i, j = np.triu_indices(h.shape[0], k=1)
    return np.sign(h[i] - h[j]) == np.sign(m[..., i] - m[..., j])


def pooled_pairwise_accuracy(humans: Sequence[object], metrics: Sequence[object]) -> tuple[np.ndarray, int]:
    """``(accuracy[...], pairs)`` of metrics scored on several language pairs: ``humans[l]`` the human system
    scores ``[S_l]`` of language pair l, ``metrics[l]`` the metrics' ``[..., S_l]`` (the same metrics, in the same
    order, in every language pair)."""
    if len(humans) != len(metrics) or not humans:
        raise InputError(
            "pooled pairwise accuracy needs the same non-empty list of language pairs on both sides"
        )
    agree = 0
    pairs = 0
    for human, metric in zip(humans, metrics, strict=True):
        agreement = pair_agreement(human, metric)
        agree = agree + agreement.sum(axis=-1)
        pairs += agreement.shape[-1]
    if pairs == 0:
        raise InputError("pooled pairwise accuracy: no language pair has two systems")
    return np.asarray(agree) / pairs, pairs
