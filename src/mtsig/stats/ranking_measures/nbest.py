"""Measures of n-best lists and of agreement between system rankings (Bremerman, Khayrallah, Oard & Post 2020).

The STAPLE matching form of a translation (the official scorer's normalisation, below), then functions of ranked
lists, sets and score vectors only (the experiment is in :mod:`mtsig.studies.nbest`): uninterpolated average precision and MAP (Sec. 3.1, eq. 1), STAPLE's weighted F1 and
weighted macro F1 (Mayhew et al. 2020; Sec. 3.3), Pearson's r and Spearman's rho (Sec. 4), and Pearson Rank (Gao,
Bagdouri & Oard 2016; Sec. 3.2) to compare system rankings.
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Collection, Iterable, Mapping, Sequence

import numpy as np

from mtsig.io.staple import GoldPrompt, NBestList
from mtsig.runtime import portable
from mtsig.stats.meta_evaluation.system_level import average_ranks

# Deleting with one compiled character class is faster than str.translate on non-ASCII text, same result.
_PUNCTUATION = re.compile(f"[{re.escape(string.punctuation)}]")

# --------------------------------------------------------------------------------------------------- matching
# A hypothesis is valid when its normalised form is a normalised gold translation. The normalisation is the
# official STAPLE scorer's (duolingo-sharedtask-2020, ``utils.read_transfile``): strip, lowercase, delete ASCII
# punctuation (``string.punctuation``). When two gold translations normalise alike, the official reader keeps
# the weight of the later line (a dict overwrite); so do we, so that weighted F1 equals the official scorer's.


def normalize_staple(text: str) -> str:
    """The official STAPLE matching form: strip, lowercase, delete ASCII punctuation (``utils.read_transfile``)."""
    return _PUNCTUATION.sub("", text.strip().lower())


def gold_weights(prompt: GoldPrompt) -> dict[str, float]:
    """Normalised translation -> weight; on normalisation collisions the later line wins, as in the official reader."""
    return {normalize_staple(t): w for t, w in zip(prompt.translations, prompt.weights, strict=True)}


def normalized_gold_translations(gold: Mapping[str, GoldPrompt]) -> dict[str, list[str]]:
    """Each prompt's gold translations in :func:`normalize_staple` form, in file order."""
    return {
        prompt_id: [normalize_staple(t) for t in prompt.translations] for prompt_id, prompt in gold.items()
    }


def normalized_lists(system: Mapping[str, NBestList]) -> dict[str, list[str]]:
    """Each prompt's ranked hypotheses in normalised form (order kept, repeats kept)."""
    return {prompt_id: [normalize_staple(t) for t in nbest.texts] for prompt_id, nbest in system.items()}


# ------------------------------------------------------------------------------------------- MAP and F1


def average_precision(ranked: Sequence[str], valid: Collection[str]) -> float:
    """Uninterpolated average precision, Bremerman et al. (2020) eq. 1: ``AP = (1/N) sum_i (T_i / i) s_i``.

    ``N`` is the number of valid items, ``s_i`` is 1 when the item at rank ``i`` is valid and ``T_i`` the number
    of valid items at or above rank ``i``. A valid item repeated in the list counts only at its first rank (a
    repeat adds no new valid translation; this also keeps AP <= 1), so later copies are scored as invalid.
    """
    if len(valid) == 0:
        raise ValueError("average precision needs at least one valid item")
    found: set[str] = set()
    precision_sum = 0.0
    for rank, item in enumerate(ranked, start=1):
        if item in valid and item not in found:
            found.add(item)
            precision_sum += len(found) / rank
    return precision_sum / len(valid)


def mean_average_precision(
    system_lists: Mapping[str, Sequence[str]], valid_sets: Mapping[str, Collection[str]]
) -> float:
    """MAP over the gold prompts (Sec. 3.1): the mean of :func:`average_precision` over every prompt in
    ``valid_sets``. A prompt the system did not translate scores AP 0 (as ``trec_eval -c``); lists are expected
    in normalised form (:func:`normalized_lists`)."""
    return float(
        np.mean([average_precision(system_lists.get(p, ()), valid) for p, valid in valid_sets.items()])
    )


def weighted_f1(predicted: Iterable[str], weights: Mapping[str, float]) -> float:
    """STAPLE's per-prompt weighted F1 (Mayhew et al. 2020; ``staple_2020_scorer.py``; Bremerman et al. Sec. 3.3).

    The prediction is a set. Precision is unweighted, ``TP / (TP + FP)``; recall is weighted by the gold
    frequencies, ``WTP / (WTP + WFN)`` (sum of the weights of the found / missed gold translations); F1 is
    their harmonic mean, and 0 when both are 0, as in the official scorer.
    """
    predicted_set = set(predicted)
    true_positives = predicted_set & weights.keys()
    precision = len(true_positives) / len(predicted_set) if predicted_set else 0.0
    total_weight = sum(weights.values())
    # summed in the gold's order: a set's order follows the string hashes, which change from run to run (and so
    # would the last digits of the sum)
    found_weight = sum(w for t, w in weights.items() if t in predicted_set)
    weighted_recall = found_weight / total_weight if total_weight > 0 else 0.0
    if precision == 0 and weighted_recall == 0:
        return 0.0
    return 2 * precision * weighted_recall / (precision + weighted_recall)


def weighted_macro_f1(
    system_lists: Mapping[str, Sequence[str]],
    weights_by_prompt: Mapping[str, Mapping[str, float]],
    depth: int | None,
) -> float:
    """STAPLE's official measure, weighted macro F1: :func:`weighted_f1` per gold prompt, averaged over prompts.

    Each list is truncated at ``depth`` hypotheses (None: the whole list) before it is read as a set. The paper
    truncated at a tuned fraction of the top hypothesis' probability; a fixed depth is the choice here because
    the simulated systems and the 1-best baseline have no comparable probabilities. A prompt the system did not
    translate scores 0.
    """
    scores = []
    for prompt_id, weights in weights_by_prompt.items():
        ranked = system_lists.get(prompt_id, ())
        scores.append(weighted_f1(ranked[:depth] if depth is not None else ranked, weights))
    return float(np.mean(scores))


# ---------------------------------------------------------------------------------------------- correlations


def pearson_r(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson's product-moment r; NaN when either input is constant or has fewer than two values."""
    x_arr, y_arr = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x_arr.size < 2:
        return math.nan
    x_dev, y_dev = x_arr - x_arr.mean(), y_arr - y_arr.mean()
    denominator = math.sqrt(portable.sum_of_products(x_dev, x_dev) * portable.sum_of_products(y_dev, y_dev))
    # A relative threshold: deviations of a constant vector are rounding noise, not variance.
    scale = max(float(np.abs(x_arr).max()), float(np.abs(y_arr).max()), 1.0)
    if denominator <= 1e-12 * scale**2:
        return math.nan
    return portable.sum_of_products(x_dev, y_dev) / denominator


def spearman_rho(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rho: Pearson's r of the average ranks (ties share their mean rank, ``scipy.stats.rankdata``'s
    ranks); NaN when undefined or when a value is NaN (whose ranks rankdata makes NaN)."""
    x_arr, y_arr = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if np.isnan(x_arr).any() or np.isnan(y_arr).any():
        return math.nan
    return pearson_r(average_ranks(x_arr), average_ranks(y_arr))


# ------------------------------------------------------------------------------- comparing system rankings


def pearson_rank(reference: Sequence[float], other: Sequence[float]) -> float:
    """Pearson Rank (Gao, Bagdouri & Oard 2016, "Pearson Rank: a head-weighted gap-sensitive score-based
    correlation coefficient", SIGIR 2016, pp. 941-944, doi:10.1145/2911451.2914728), as used by Bremerman et
    al. (2020) Sec. 3.2 / Fig. 1 to compare the full-gold and ablated-gold MAP system rankings.

    Pearson Rank is to Pearson's r what Yilmaz et al.'s AP correlation (tau_AP) is to Kendall's tau. Pearson's
    r has a pairwise form, ``r = sum_{i<j} dx_ij dy_ij / sqrt(sum dx_ij^2 * sum dy_ij^2)`` with ``dx_ij = x_i -
    x_j``; Pearson Rank orders the items by ``reference`` (best first), correlates each item ``i = 2..n`` in this
    pairwise form with the items ranked above it only, and averages over the items, as tau_AP averages the
    per-item fraction of correctly ordered items above::

        PR = 1/(n-1) * sum_{i=2..n}  sum_{j<i} dx_ij dy_ij / sqrt(sum_{j<i} dx_ij^2 * sum_{j<i} dy_ij^2)

    with ``x = reference`` and ``y = other``. A pair enters the terms of every item below it, so disagreements
    near the head weigh most (head-weighted; the second item's term is +-1, tau_AP's own); each term weighs a
    pair by the product of its score gaps, so a swap of far-apart systems costs more than one of close ones
    (gap-sensitive). PR = 1 when ``other`` is a positive linear function of ``reference`` and -1 for a negative
    one. Asymmetric, like tau_AP: ``reference`` fixes the order (ties by input order).

    Source: only the paper's abstract could be retrieved where this was written (a head-weighted measure in the
    manner of tau_AP, for interval-scale scores, where Pearson's r is the gap-sensitive one). The formula is
    built from that description after tau_AP, and its per-item terms are those of the public implementation in
    the diffir toolkit (Jose et al. 2021, ``TopkMeasure.pearson_rank``), which weights item ``i``'s term by its
    min-max-normalised reference score where this averages uniformly, as tau_AP does. Items whose term is
    undefined (every item above tied with it, in either vector) are left out of the average; NaN if none is
    defined.
    """
    ref = np.asarray(reference, dtype=float)
    oth = np.asarray(other, dtype=float)
    if ref.shape != oth.shape or ref.ndim != 1:
        raise ValueError("pearson_rank needs two score vectors of equal length")
    order = np.argsort(-ref, kind="stable")
    ref, oth = ref[order], oth[order]
    # Row i holds the gaps x_i - x_j to the items j ranked above i (strictly lower triangle); row 0 is empty.
    above = np.tri(ref.size, k=-1, dtype=bool)
    ref_gaps = np.where(above, ref[:, None] - ref[None, :], 0.0)[1:]
    oth_gaps = np.where(above, oth[:, None] - oth[None, :], 0.0)[1:]
    denominators = np.sqrt((ref_gaps**2).sum(axis=1) * (oth_gaps**2).sum(axis=1))
    defined = denominators > 0
    if not defined.any():
        return math.nan
    return float(np.mean((ref_gaps * oth_gaps).sum(axis=1)[defined] / denominators[defined]))
