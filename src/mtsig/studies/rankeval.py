"""Segment-level meta-evaluation of predicted rankings against human relative rankings: the RankEval measures.

Implements Avramidis (2013), *RankEval: Open Tool for Evaluation of Machine-Learned Ranking* (PBML 100, seed 002):
Kendall's tau with WMT's penalised ties, micro- and macro-averaged, with its p-value (Sec. 3.1, eqs. 1-4); first answer
reciprocal rank and MRR (Sec. 3.2, eqs. 5-6); DCG and NDCG (Sec. 3.3, eqs. 7-8); ERR by the linear algorithm
(Sec. 3.4 and 4.3, eqs. 9-10, Algorithm 1); best-predicted-vs-human and average predicted (Sec. 3.5); and the four
rank normalisations (Sec. 3.6).  On top of the paper: bootstrap confidence intervals and paired tests of micro tau,
resampling judgments (the per-judgment concordant/discordant counts are sufficient statistics of micro tau).

Data layout.  A set of J human judgments (one ranking list each) is held as two ``float`` arrays ``[J, K]``, human
ranks and predicted ranks, lower = better, where ``K`` is the largest list and ``NaN`` marks a padding slot (and, in
the ``paper`` convention, a blank human rank, WMT's ``-1``).

Two conventions (``segment_level.convention``), because the RankEval tool's released code departs from its paper:

* ``paper`` (the functions' default): the equations of Avramidis (2013).  Blank items are dropped from every
  measure, not treated as a rank; judgments with fewer than two ranked items are not rankings and are dropped; ties
  of the predicted ranking are placed at their *normalised* rank (default ``ceiling``), so NDCG, ERR, MRR and
  average-predicted treat a tie pessimistically, in the spirit of WMT's penalised ties.
* ``rankeval_tool``: what the tool's code (``ranking.set.allmetrics``) computes, so that published RankEval numbers
  can be reproduced; :func:`rankeval_tool_measures` lists every departure (blank ``-1`` as the best rank in every
  measure including tau, all judgments kept, tied predictions overwriting each other in NDCG/ERR, natural-log DCG,
  macro tau without zero-tau segments, tau's p-value over pairs, BPH with ``minimize``).

Predictions enter as scores, higher = better; candidates with exactly equal scores are tied.  BPH is reported in
percent of the judgments in both conventions (the tool's unit; the paper's counts are ``percent * judgments / 100``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import numpy as np
import pandas as pd
import sacrebleu
from scipy import special

from mtsig import portable
from mtsig.errors import InputError
from mtsig.io.rankings import BLANK_RANK
from mtsig.metrics import get_metric
from mtsig.stats.conclusions import conclude
from mtsig.stats.resampling.draws import DRAW_BLOCK_SIZE, bootstrap_indices, counts_from_indices
from mtsig.stats.resampling.engine import pairwise_tests
from mtsig.stats.seeding import derive_seed

#: Rank normalisations of Avramidis (2013, Sec. 3.6); ``ceiling`` is the paper's default.
TIE_MODES = ("minimize", "floor", "ceiling", "middle")

#: Conventions of the segment-level table: Avramidis (2013)'s equations, or the RankEval tool's released code.
CONVENTIONS = ("paper", "rankeval_tool")


def convention_names(setting: str) -> tuple[str, ...]:
    """The conventions a ``segment_level.convention`` setting asks for: one of :data:`CONVENTIONS`, or ``both``."""
    if setting == "both":
        return CONVENTIONS
    if setting not in CONVENTIONS:
        raise ValueError(f"convention must be one of {', '.join(CONVENTIONS)} or both, got {setting!r}")
    return (setting,)


# --------------------------------------------------------------------------------------------------------------
# Rank normalisation (Sec. 3.6)
# --------------------------------------------------------------------------------------------------------------


def normalize_ranks(ranks: np.ndarray, ties: str = "ceiling") -> np.ndarray:
    """Normalise each ranking list (last axis; lower = better, ``NaN`` = absent) as in Avramidis (2013, Sec. 3.6).

    For an item with value ``v`` in a list, let ``less`` and ``leq`` count the present items with value ``< v``
    and ``<= v``:

    * ``minimize``: one rank position for all tied items: ``1 + number of distinct values < v``
      (``[1, 2, 2, 3, 4]``);
    * ``floor``: all positions reserved, tied items get the lowest: ``less + 1`` (``[1, 2, 2, 4, 5]``);
    * ``ceiling`` (default, the paper's): all positions reserved, tied items get the highest: ``leq``
      (``[1, 3, 3, 4, 5]``);
    * ``middle``: all positions reserved, tied items get their mean: ``(less + 1 + leq) / 2``
      (``[1, 2.5, 2.5, 4, 5]``).  The paper's example for ``middle`` prints ``[1, 2.5, 2.5, 3, 4]``, which
      contradicts its own definition ("reserves all rank positions") and its list of equivalent representations
      two paragraphs earlier; the definition is followed here, as in the RankEval tool's code.

    Any monotone input scale is accepted (e.g. ``[10, 30, 30]``), so raw scores' ranks need no prior densifying.
    """
    if ties not in TIE_MODES:
        raise ValueError(f"ties must be one of {', '.join(TIE_MODES)}, got {ties!r}")
    values = np.asarray(ranks, dtype=float)
    present = ~np.isnan(values)
    # pairwise[..., i, k]: item k is present and compares so with item i
    other = values[..., None, :]
    mine = values[..., :, None]
    other_present = present[..., None, :]
    less = np.sum(other_present & (other < mine), axis=-1)
    leq = np.sum(other_present & (other <= mine), axis=-1)
    if ties == "floor":
        normalised = less + 1.0
    elif ties == "ceiling":
        normalised = leq.astype(float)
    elif ties == "middle":
        normalised = (less + 1.0 + leq) / 2.0
    else:
        multiplicity = np.sum(other_present & (other == mine), axis=-1)
        # each distinct smaller value contributes 1 in total over its `multiplicity` copies
        share = np.where(present, 1.0 / np.maximum(multiplicity, 1), 0.0)
        normalised = 1.0 + np.round(np.sum(np.where(other < mine, share[..., None, :], 0.0), axis=-1), 9)
    return np.where(present, normalised, np.nan)


def ranks_from_scores(scores: np.ndarray) -> np.ndarray:
    """Ranks (1 = best) from predictor scores where higher is better; exactly equal scores are tied.

    Returns the competition ("floor") rank ``1 + #{items with a strictly higher score}`` per list (last axis),
    ``NaN`` where the score is ``NaN``; :func:`normalize_ranks` then applies the chosen tie convention.
    """
    values = np.asarray(scores, dtype=float)
    present = ~np.isnan(values)
    higher = np.sum(present[..., None, :] & (values[..., None, :] > values[..., :, None]), axis=-1)
    return np.where(present, higher + 1.0, np.nan)


# --------------------------------------------------------------------------------------------------------------
# Kendall's tau (Sec. 3.1)
# --------------------------------------------------------------------------------------------------------------


def pair_counts(
    predicted_ranks: np.ndarray, human_ranks: np.ndarray, penalize_predicted_ties: bool = True
) -> np.ndarray:
    """Concordant and discordant pair counts per judgment, ``int64 [J, 2]`` (Avramidis 2013, Sec. 3.1.1-3.1.2).

    Every unordered pair of items ranked by the human (both ranks present) is decomposed: a pair the human tied
    is excluded ("ties ... form uncertain samples"); otherwise it is concordant when the predicted order agrees,
    and discordant when it disagrees *or the prediction ties it* (Callison-Burch et al. 2008's penalty, eq. 2).
    With ``penalize_predicted_ties=False`` predicted ties are dropped instead (the unpenalised eq. 1).
    The counts are sufficient statistics of micro-averaged tau, which makes judgments the resampling unit.
    """
    human = np.atleast_2d(np.asarray(human_ranks, dtype=float))
    predicted = np.atleast_2d(np.asarray(predicted_ranks, dtype=float))
    if human.shape != predicted.shape:
        raise ValueError(f"predicted {predicted.shape} and human {human.shape} rank arrays differ in shape")
    size = human.shape[-1]
    upper = np.triu(np.ones((size, size), dtype=bool), k=1)
    human_diff = human[:, :, None] - human[:, None, :]
    predicted_diff = predicted[:, :, None] - predicted[:, None, :]
    # NaN differences (absent items, or a missing prediction) compare False everywhere below
    valid = upper & (human_diff != 0) & ~np.isnan(human_diff) & ~np.isnan(predicted_diff)
    concordant = valid & (np.sign(human_diff) == np.sign(predicted_diff))
    predicted_tie = valid & (predicted_diff == 0)
    discordant = valid & ~concordant
    if not penalize_predicted_ties:
        discordant &= ~predicted_tie
    return np.stack([concordant.sum(axis=(1, 2)), discordant.sum(axis=(1, 2))], axis=-1).astype(np.int64)


def kendall_tau(counts: np.ndarray) -> np.ndarray:
    """``tau = (concordant - discordant) / (concordant + discordant)`` over the last axis of ``counts[..., 2]``.

    Avramidis (2013) eq. 1, or eq. 2 when the discordant count includes the penalised predicted ties
    (:func:`pair_counts`).  ``NaN`` where there is no pair to compare.
    """
    counts = np.asarray(counts, dtype=float)
    concordant, discordant = counts[..., 0], counts[..., 1]
    total = concordant + discordant
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, (concordant - discordant) / np.where(total > 0, total, 1.0), np.nan)


def micro_tau(counts: np.ndarray) -> float:
    """Micro-averaged tau (Avramidis 2013, Sec. 3.1.3, the WMT figure): eq. 2 on counts summed over judgments."""
    return float(kendall_tau(np.asarray(counts).sum(axis=0)))


def macro_tau(counts: np.ndarray) -> float:
    """Macro-averaged tau (Avramidis 2013, Sec. 3.1.3): per-judgment tau averaged over judgments.

    Judgments with no comparable pair (all items tied by the human) have no tau and are left out.  The RankEval
    tool also leaves out judgments whose tau is exactly 0 (it tests ``if segtau``; :func:`rankeval_tool_macro_tau`);
    the paper averages over all sentences, so zeros are kept here.
    """
    per_judgment = kendall_tau(counts)
    defined = ~np.isnan(per_judgment)
    return float(per_judgment[defined].mean()) if defined.any() else float("nan")


def kendall_tau_p_value(tau: float | np.ndarray, n_items: int | np.ndarray) -> np.ndarray:
    """Two-sided p-value of tau under no association (Avramidis 2013, eqs. 3-4, after SciPy's former formula).

    ``z = tau / sqrt((4n + 10) / (9n(n - 1)))`` and ``p = erfc(|z| / sqrt(2))``, with ``n`` the number of ranked
    items, as the paper states.  For a data set, :func:`segment_level_table` passes the number of human-ranked
    items in the judgments that contribute pairs; the RankEval tool passes the number of compared pairs
    (concordant + discordant) instead (:func:`rankeval_tool_p_value`).  Neither is the null distribution of a
    pooled tau: for J untied 5-way rankings the null variance of micro tau is 1/(6J), while eq. 3 gives about
    4/(45J) with n = 5J items and 2/(45J) with n = 10J pairs, so this p-value is anti-conservative; prefer
    :func:`tau_confidence_interval`.
    """
    n = np.asarray(n_items, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        variance = (4.0 * n + 10.0) / (9.0 * n * (n - 1.0))
        z = np.asarray(tau, dtype=float) / np.sqrt(variance)
    return special.erfc(np.abs(z) / np.sqrt(2.0))


# --------------------------------------------------------------------------------------------------------------
# Measures on the best items, cumulative gain and ERR (Sec. 3.2-3.5, 4.3)
# --------------------------------------------------------------------------------------------------------------


def _present(predicted_ranks: np.ndarray, human_ranks: np.ndarray) -> np.ndarray:
    """Mask of items ranked by the human; every such item must have a predicted rank."""
    human = np.asarray(human_ranks, dtype=float)
    predicted = np.asarray(predicted_ranks, dtype=float)
    if human.shape != predicted.shape:
        raise ValueError(f"predicted {predicted.shape} and human {human.shape} rank arrays differ in shape")
    present = ~np.isnan(human)
    if np.isnan(predicted[present]).any():
        raise ValueError("an item ranked by the human has no predicted rank")
    return present


def _normalised_pair(
    predicted_ranks: np.ndarray, human_ranks: np.ndarray, ties: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(present mask, normalised predicted ranks, normalised human ranks), both restricted to human-ranked items."""
    human = np.atleast_2d(np.asarray(human_ranks, dtype=float))
    predicted = np.atleast_2d(np.asarray(predicted_ranks, dtype=float))
    present = _present(predicted, human)
    predicted = np.where(present, predicted, np.nan)
    return present, normalize_ranks(predicted, ties), normalize_ranks(human, ties)


def reciprocal_ranks(
    predicted_ranks: np.ndarray, human_ranks: np.ndarray, ties: str = "ceiling"
) -> np.ndarray:
    """First answer reciprocal rank per judgment, ``[J]`` (Avramidis 2013, eq. 5).

    The "correct answers" are the items the human ranked best; FARR is ``1 / (normalised predicted rank)`` of the
    best-predicted of them ("if [ties] occur for this particular rank ... we only consider the ranker's best
    prediction for it").  With ``ceiling``, a predictor that ties the correct answer with another item at the top
    gets 1/2, not 1.  Their mean over judgments is MRR (eq. 6).
    """
    _, predicted, human = _normalised_pair(predicted_ranks, human_ranks, ties)
    is_best = human == np.nanmin(human, axis=-1, keepdims=True)
    return 1.0 / np.min(np.where(is_best, predicted, np.inf), axis=-1)


def _relevance(human: np.ndarray, present: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Relevance grades ``n + 1 - human_rank`` and the list length ``n`` per judgment.

    The paper takes relevance "inversely proportional to its rank index" (Sec. 3.3); its author's tool defines it
    as the reversed rank ``n - rank + 1`` (best item n, worst 1), a graded scale like the Yahoo LTR grades ERR was
    designed for, and that reading is followed (a literal ``1/rank`` would compress grades into (0, 1]).
    """
    n = present.sum(axis=-1, keepdims=True).astype(float)
    return np.where(present, n + 1.0 - human, np.nan), n[..., 0]


def dcg(predicted_ranks: np.ndarray, human_ranks: np.ndarray, ties: str = "ceiling") -> np.ndarray:
    """Discounted cumulative gain per judgment, ``[J]`` (Avramidis 2013, eq. 7, with p = list length).

    ``DCG = sum_items (2**rel - 1) / log2(r + 1)`` with ``rel`` from :func:`_relevance` (human ranks normalised
    by ``ties``) and ``r`` the item's normalised predicted rank, so items the predictor ties share the position
    the normalisation gives them.  (The RankEval tool writes tied items into one list slot, losing all but one of
    their gains, and uses the natural logarithm, which NDCG does not see: :func:`rankeval_tool_ndcg_err`.)
    """
    present, predicted, human = _normalised_pair(predicted_ranks, human_ranks, ties)
    relevance, _ = _relevance(human, present)
    terms = (portable.exp2(relevance) - 1.0) / portable.log2(predicted + 1.0)
    return np.nansum(terms, axis=-1)


def ideal_dcg(human_ranks: np.ndarray, ties: str = "ceiling") -> np.ndarray:
    """Ideal DCG per judgment (Avramidis 2013, Sec. 3.3): the gains sorted best first at positions 1..n."""
    human = normalize_ranks(np.atleast_2d(np.asarray(human_ranks, dtype=float)), ties)
    present = ~np.isnan(human)
    relevance, _ = _relevance(human, present)
    gains = np.where(present, np.exp2(relevance) - 1.0, 0.0)
    ordered = -np.sort(-gains, axis=-1)
    discounts = portable.log2(np.arange(2, gains.shape[-1] + 2, dtype=float))
    return np.sum(ordered / discounts, axis=-1)


def ndcg(predicted_ranks: np.ndarray, human_ranks: np.ndarray, ties: str = "ceiling") -> np.ndarray:
    """Normalised DCG per judgment, ``DCG / IDCG`` (Avramidis 2013, eq. 8), in (0, 1] for ``ceiling``.

    ``floor`` and ``minimize`` place tied predictions at the better position and can push NDCG above 1; that is
    what those conventions mean for a tie, and why ``ceiling`` is the default.
    """
    return dcg(predicted_ranks, human_ranks, ties) / ideal_dcg(human_ranks, ties)


def expected_reciprocal_rank(
    predicted_ranks: np.ndarray, human_ranks: np.ndarray, ties: str = "ceiling"
) -> np.ndarray:
    """Expected reciprocal rank per judgment, ``[J]``, by the linear algorithm (Avramidis 2013, Alg. 1, eqs. 9-10).

    ``R_i = (2**rel_i - 1) / 2**rel_max`` with ``rel`` from :func:`_relevance` and ``rel_max = n`` (the grade of
    a best item; the RankEval tool's ``2**n``).  Items are visited in predicted order; for each,
    ``ERR += p * R / r`` and ``p *= 1 - R``, with ``r`` the normalised predicted rank.  Items the predictor ties
    are one cascade step: each sees the stopping probability ``p`` from before the tie group and none of them
    discounts another, so without predicted ties this is exactly Algorithm 1.  Vectorised over judgments.
    """
    present, predicted, human = _normalised_pair(predicted_ranks, human_ranks, ties)
    relevance, n = _relevance(human, present)
    stop = (np.exp2(relevance) - 1.0) / np.exp2(n)[:, None]
    order = np.argsort(np.where(present, predicted, np.inf), axis=-1, kind="stable")
    position = np.take_along_axis(predicted, order, axis=-1)
    stop = np.take_along_axis(stop, order, axis=-1)
    rows = predicted.shape[0]
    err = np.zeros(rows)
    p_running = np.ones(rows)
    p_group = np.ones(rows)
    previous = np.full(rows, np.nan)
    for slot in range(predicted.shape[-1]):
        r, stop_r = position[:, slot], stop[:, slot]
        here = ~np.isnan(r)
        new_group = here & (r != previous)
        p_group = np.where(new_group, p_running, p_group)
        err = np.where(here, err + p_group * stop_r / np.where(here, r, 1.0), err)
        p_running = np.where(here, p_running * (1.0 - stop_r), p_running)
        previous = np.where(here, r, previous)
    return err


def best_predicted_human_rank(
    predicted_ranks: np.ndarray, human_ranks: np.ndarray, ties: str = "ceiling"
) -> np.ndarray:
    """Normalised human rank of the item the predictor ranks best, per judgment ``[J]`` (Sec. 3.5).

    If the predictor ties several items at the top, the worst human rank among them is taken (as the RankEval
    tool does): a predictor cannot earn credit by declining to choose.  Its mean is *average predicted*; its
    histogram is *best predicted vs human* (:func:`best_predicted_vs_human`).
    """
    _, predicted, human = _normalised_pair(predicted_ranks, human_ranks, ties)
    is_predicted_best = predicted == np.nanmin(predicted, axis=-1, keepdims=True)
    return np.max(np.where(is_predicted_best, human, -np.inf), axis=-1)


def best_predicted_vs_human(best_human_ranks: np.ndarray) -> dict[float, int]:
    """How many times the predicted-best item fell into each human rank (Avramidis 2013, Sec. 3.5, BPH).

    Counts, as the paper defines it (the tables report percentages, :func:`bph_percentages`); keys are the
    normalised human ranks that occur, in increasing order.
    """
    values, counts = np.unique(np.asarray(best_human_ranks, dtype=float), return_counts=True)
    return {float(v): int(c) for v, c in zip(values, counts, strict=True)}


def bph_percentages(best_human_ranks: np.ndarray, n_judgments: int) -> dict[float, float]:
    """BPH in percent of the judgments, ``100 * count / n_judgments`` per human rank that occurs (Sec. 3.5).

    The unit of both conventions' tables: the RankEval tool reports percentages (``ranking.set.best_predicted_vs_
    human``), and a percentage compares across data sets; the paper's counts are ``percent * n_judgments / 100``.
    """
    return {
        rank: 100.0 * count / n_judgments for rank, count in best_predicted_vs_human(best_human_ranks).items()
    }


# --------------------------------------------------------------------------------------------------------------
# The RankEval tool's conventions (its released code, where it departs from the paper)
# --------------------------------------------------------------------------------------------------------------

#: The tool's stand-in for sqrt(2) in its p-value (``segment.kendall_tau_prob``).
RANKEVAL_TOOL_SQRT2 = 1.4142136


def rankeval_tool_p_value(tau: float | np.ndarray, n_pairs: int | np.ndarray) -> np.ndarray:
    """The RankEval tool's p-value of tau (``segment.kendall_tau_prob``): Avramidis (2013) eqs. 3-4 with ``n`` = the
    number of compared pairs (concordant + discordant) and ``sqrt(2)`` written as 1.4142136.

    Where ``9n(n - 1)`` is 0 (a single pair) the tool's ``except`` sets the variance to 1.
    """
    n = np.asarray(n_pairs, dtype=float)
    denominator = 9.0 * n * (n - 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        variance = np.where(
            denominator != 0, (4.0 * n + 10.0) / np.where(denominator != 0, denominator, 1.0), 1.0
        )
        z = np.asarray(tau, dtype=float) / np.sqrt(variance)
    return special.erfc(np.abs(z) / RANKEVAL_TOOL_SQRT2)


def rankeval_tool_macro_tau(counts: np.ndarray) -> float:
    """The RankEval tool's macro tau (``set.kendall_tau_set``, ``if segtau and segprob``): the mean of the
    per-judgment taus that are defined, non-zero and whose per-judgment p-value (:func:`rankeval_tool_p_value` over
    the judgment's pairs) is non-zero; the paper averages over all sentences (:func:`macro_tau`)."""
    counts = np.asarray(counts, dtype=float)
    per_judgment = kendall_tau(counts)
    with np.errstate(invalid="ignore"):
        p = rankeval_tool_p_value(per_judgment, counts.sum(axis=-1))
    kept = ~np.isnan(per_judgment) & (per_judgment != 0) & (p != 0)
    return float(per_judgment[kept].mean()) if kept.any() else float("nan")


def rankeval_tool_ndcg_err(
    predicted_ranks: np.ndarray, human_ranks: np.ndarray, cutoff: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """NDCG and ERR per judgment as the RankEval tool computes them (``segment.ndgc_err``, ``_calculate_gains``).

    Both rankings are ``ceiling``-normalised to integers; an item's gain is ``(2**rel - 1) / 2**n`` with
    ``rel = n - human_rank + 1`` and ``n`` the list length, and is *written* at list slot ``predicted_rank - 1``, in
    list order: items the predictor ties share their ceiling slot and the last of them overwrites the others, the
    slots below stay 0.  ERR is Algorithm 1 over the slots (``ERR += p * g / slot``, ``p *= 1 - g``); DCG is
    ``sum g / ln(slot + 1)`` over the first ``cutoff`` slots (natural log; the tool's ``k``, by default the list
    length); IDCG the same sum over the collided gains sorted best first; NDCG = DCG / IDCG (1 if IDCG is 0).
    The paper's :func:`ndcg` / :func:`expected_reciprocal_rank` keep every tied item's gain instead.
    """
    human = np.atleast_2d(np.asarray(human_ranks, dtype=float))
    predicted = np.atleast_2d(np.asarray(predicted_ranks, dtype=float))
    present = _present(predicted, human)
    slots = normalize_ranks(np.where(present, predicted, np.nan), "ceiling")
    grades = normalize_ranks(human, "ceiling")
    n = present.sum(axis=-1).astype(float)
    item_gain = (np.exp2(n[:, None] - grades + 1.0) - 1.0) / np.exp2(n)[:, None]
    rows, size = human.shape
    gains = np.zeros((rows, size))
    row_index = np.arange(rows)
    for item in range(size):  # list order, so that the last of the tied items wins its slot
        here = present[:, item]
        gains[row_index[here], slots[here, item].astype(int) - 1] = item_gain[here, item]
    err, stay = np.zeros(rows), np.ones(rows)
    for slot in range(size):
        err = err + stay * gains[:, slot] / (slot + 1.0)
        stay = stay * (1.0 - gains[:, slot])
    k = size if cutoff is None else min(int(cutoff), size)
    # math.log, the tool's own, one scalar per slot; sums accumulated slot by slot, in the tool's order
    discounts = [math.log(slot + 2) for slot in range(k)]
    ideal_gains = -np.sort(-gains, axis=-1)
    dcg_value, ideal = np.zeros(rows), np.zeros(rows)
    for slot in range(k):
        dcg_value = dcg_value + gains[:, slot] / discounts[slot]
        ideal = ideal + ideal_gains[:, slot] / discounts[slot]
    with np.errstate(invalid="ignore", divide="ignore"):
        ndcg_value = np.where(ideal != 0, dcg_value / np.where(ideal != 0, ideal, 1.0), 1.0)
    return ndcg_value, err


def round_half_away_from_zero(value: float, decimals: int) -> float:
    """Python 2's ``round(value, decimals)``, which the RankEval tool ran under: the exact binary value rounded to
    ``decimals`` places, halves away from zero (Python 3's ``round`` rounds halves to even: 0.125 -> 0.12, not
    0.13)."""
    quantum = Decimal(1).scaleb(-decimals)
    return float(Decimal(value).quantize(quantum, rounding=ROUND_HALF_UP))


# --------------------------------------------------------------------------------------------------------------
# Bootstrap over judgments (beyond the paper)
# --------------------------------------------------------------------------------------------------------------


def bootstrap_micro_taus(counts: np.ndarray, n_samples: int, seed: int) -> np.ndarray:
    """Micro tau of every predictor on ``n_samples`` bootstrap resamples of judgments, ``[B, M]``.

    ``counts[M, J, 2]`` are the per-judgment (concordant, discordant) counts of M predictors.  Each resample draws
    J judgments with replacement, the same draws for every predictor, taken from the shared resampling engine
    (:func:`mtsig.stats.resampling.bootstrap_indices`, blocks of :data:`~mtsig.stats.resampling.DRAW_BLOCK_SIZE`), so they are
    the very draws :func:`mtsig.stats.resampling.pairwise_tests` uses with the same seed; a ``B x J`` count matrix times
    each predictor's counts gives the resampled totals (docs/statistics.md, "Segment-level measures: RankEval").
    """
    counts = np.asarray(counts, dtype=float)
    if counts.ndim != 3 or counts.shape[-1] != 2:
        raise ValueError(f"counts must be [predictors, judgments, 2], got shape {counts.shape}")
    n_judgments = counts.shape[1]
    blocks = []
    for block in range(-(-n_samples // DRAW_BLOCK_SIZE)):
        weights = counts_from_indices(bootstrap_indices(seed, n_judgments, block), n_judgments)
        blocks.append(kendall_tau(np.einsum("bj,mjk->bmk", weights, counts)))
    return np.concatenate(blocks)[:n_samples]


def tau_confidence_interval(
    counts: np.ndarray, n_samples: int = 1000, seed: int = 0, level: float = 0.95
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
    counts: np.ndarray, predictors: Sequence[str], n_samples: int = 1000, seed: int = 0
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
        tests=("paired_bootstrap",),
        n_samples=n_samples,
        seed=seed,
    )
    return result.table


# --------------------------------------------------------------------------------------------------------------
# From tables to arrays, and the data-set tables
# --------------------------------------------------------------------------------------------------------------


def judgment_arrays(
    human: pd.DataFrame, predictions: pd.DataFrame, convention: str = "paper"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Align human ranks and predicted scores into ``(judgment ids [J], human ranks [J, K], predicted ranks [J, K])``.

    ``human`` has columns ``judgment, system, rank`` (lower = better, ``-1`` = blank); ``predictions`` has
    ``judgment, system, score`` (higher = better).  ``paper``: blank human ranks are dropped with their predictions,
    judgments with fewer than two ranked items are dropped, and items are ordered by system name.
    ``rankeval_tool``: as the RankEval tool reads a JCML file, every candidate is kept with its rank, a blank as
    the value ``-1`` (so it normalises to the best rank), every judgment is kept, and items keep the order of the
    input (the tool's NDCG/ERR depend on it).  Raises InputError if a kept item has no prediction or a
    (judgment, system) is predicted twice.
    """
    if convention not in CONVENTIONS:
        raise ValueError(f"convention must be one of {', '.join(CONVENTIONS)}, got {convention!r}")
    for name, frame, columns in (
        ("human rankings", human, ("judgment", "system", "rank")),
        ("predictions", predictions, ("judgment", "system", "score")),
    ):
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise InputError(f"{name} lack column(s) {', '.join(missing)}")
    duplicated = predictions.duplicated(["judgment", "system"])
    if duplicated.any():
        first = predictions.loc[duplicated].iloc[0]
        raise InputError(f"judgment {first['judgment']}, system {first['system']!r} is predicted twice")
    ranked = human[["judgment", "system", "rank"]].assign(input_order=np.arange(len(human)))
    if convention == "paper":
        ranked = ranked.loc[ranked["rank"] != BLANK_RANK]
        ranked = ranked.loc[ranked.groupby("judgment")["system"].transform("size") >= 2]
    merged = ranked.merge(
        predictions[["judgment", "system", "score"]],
        on=["judgment", "system"],
        how="left",
        validate="one_to_one",
    )
    lacking = merged["score"].isna()
    if lacking.any():
        first = merged.loc[lacking].iloc[0]
        blank_too = "" if convention == "paper" else " (rankeval_tool evaluates blank-ranked items too)"
        raise InputError(
            f"{int(lacking.sum())} ranked item(s) have no predicted score{blank_too}, e.g. judgment "
            f"{first['judgment']}, system {first['system']!r}"
        )
    order = ["judgment", "system"] if convention == "paper" else ["judgment", "input_order"]
    merged = merged.sort_values(order, kind="stable")
    judgment_ids, row = np.unique(merged["judgment"].to_numpy(), return_inverse=True)
    slot = merged.groupby("judgment").cumcount().to_numpy()
    shape = (len(judgment_ids), int(slot.max()) + 1 if len(slot) else 0)
    human_ranks = np.full(shape, np.nan)
    scores = np.full(shape, np.nan)
    human_ranks[row, slot] = merged["rank"].to_numpy(dtype=float)
    scores[row, slot] = merged["score"].to_numpy(dtype=float)
    return judgment_ids, human_ranks, ranks_from_scores(scores)


def _pair_measures(
    predicted_ranks: np.ndarray, human_ranks: np.ndarray, n_samples: int, seed: int, level: float
) -> tuple[np.ndarray, dict[str, float]]:
    """The pair counts of the judgments (:func:`pair_counts`) and the measures both conventions take from them
    alike: ``judgments``, ``concordant``, ``discordant``, ``tau_micro`` and its bootstrap interval
    ``tau_ci_low/high`` (:func:`tau_confidence_interval`), in that order."""
    counts = pair_counts(predicted_ranks, human_ranks)
    low, high = tau_confidence_interval(counts, n_samples, seed, level)
    measures = {
        "judgments": float(human_ranks.shape[0]),
        "concordant": float(counts[:, 0].sum()),
        "discordant": float(counts[:, 1].sum()),
        "tau_micro": micro_tau(counts),
        "tau_ci_low": low,
        "tau_ci_high": high,
    }
    return counts, measures


def segment_level_measures(
    predicted_ranks: np.ndarray,
    human_ranks: np.ndarray,
    ties: str = "ceiling",
    n_samples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    convention: str = "paper",
) -> dict[str, float]:
    """Every RankEval measure of one predictor on one data set of judgments (Avramidis 2013, Sec. 3; ``ranking.set``).

    ``paper``: tau uses WMT's penalised ties and is normalisation-free; the others use ``ties`` and are means over
    judgments.  ``tau_p`` is eqs. 3-4 with ``n`` = the human-ranked items of the judgments contributing pairs (see
    :func:`kendall_tau_p_value`); ``tau_ci_low/high`` the bootstrap percentile interval over judgments
    (:func:`tau_confidence_interval`); ``bph_<rank>`` BPH in percent of the judgments (:func:`bph_percentages`).
    ``rankeval_tool``: the same measures as the tool computes them (:func:`rankeval_tool_measures`); the arrays must
    then come from ``judgment_arrays(..., convention="rankeval_tool")``.
    """
    if convention == "rankeval_tool":
        if ties != "ceiling":
            raise ValueError(
                "the rankeval_tool convention fixes its own normalisations; ties must stay 'ceiling'"
            )
        return rankeval_tool_measures(predicted_ranks, human_ranks, n_samples, seed, level)
    if convention != "paper":
        raise ValueError(f"convention must be one of {', '.join(CONVENTIONS)}, got {convention!r}")
    counts, measures = _pair_measures(predicted_ranks, human_ranks, n_samples, seed, level)
    contributing = counts.sum(axis=1) > 0
    n_items = int((~np.isnan(human_ranks[contributing])).sum())
    best_human = best_predicted_human_rank(predicted_ranks, human_ranks, ties)
    measures |= {
        "tau_p": float(kendall_tau_p_value(measures["tau_micro"], n_items)),
        "tau_macro": macro_tau(counts),
        "mrr": float(reciprocal_ranks(predicted_ranks, human_ranks, ties).mean()),
        "ndcg": float(ndcg(predicted_ranks, human_ranks, ties).mean()),
        "err": float(expected_reciprocal_rank(predicted_ranks, human_ranks, ties).mean()),
        "avg_predicted": float(best_human.mean()),
    }
    for rank, percent in bph_percentages(best_human, human_ranks.shape[0]).items():
        measures[f"bph_{rank:g}"] = percent
    return measures


def rankeval_tool_measures(
    predicted_ranks: np.ndarray,
    human_ranks: np.ndarray,
    n_samples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> dict[str, float]:
    """The measures of :func:`segment_level_measures` as the RankEval tool's ``ranking.set.allmetrics`` computes them.

    Expects arrays from ``judgment_arrays(..., convention="rankeval_tool")``: every judgment, blank human ranks as
    ``-1``, items in input order.  Departures from the paper convention, each as in the tool's code:

    * a blank (``-1``) is a rank value like any other, so the normalisations make it the best rank (several blanks
      in a list tie there) in *every* measure, tau included: the tool normalises before its pair loop, so the
      loop's ``-1`` check never fires;
    * judgments with one candidate count in every mean (they add no pair to tau);
    * tau micro as in the paper; ``tau_macro`` without zero taus (:func:`rankeval_tool_macro_tau`); ``tau_p`` with
      ``n`` = compared pairs (:func:`rankeval_tool_p_value`);
    * ``mrr`` and ``avg_predicted`` with ``ceiling`` on both rankings (the paper convention's default too);
    * ``ndcg`` and ``err`` from :func:`rankeval_tool_ndcg_err` with the cut-off ``k`` = the length of the *first*
      judgment's list for every list (``kwargs.setdefault('k', len(...))`` inside the loop);
    * ``bph_<rank>``: the human rank of the predicted best (worst of a tied top) with ``minimize`` on both
      rankings, ``round(100 * count / judgments, 2)`` per rank that occurs, Python 2's rounding
      (:func:`round_half_away_from_zero`).

    ``tau_ci_low/high`` (not in the tool) are the bootstrap interval of these counts, as in the paper convention.
    """
    human = np.atleast_2d(np.asarray(human_ranks, dtype=float))
    predicted = np.atleast_2d(np.asarray(predicted_ranks, dtype=float))
    counts, measures = _pair_measures(predicted, human, n_samples, seed, level)
    n_pairs = int(counts.sum())
    first_list_length = int((~np.isnan(human[0])).sum()) if human.shape[0] else 0
    ndcg_values, err_values = rankeval_tool_ndcg_err(predicted, human, first_list_length)
    n_judgments = human.shape[0]
    measures |= {
        "tau_p": float(rankeval_tool_p_value(measures["tau_micro"], n_pairs)),
        "tau_macro": rankeval_tool_macro_tau(counts),
        "mrr": float(reciprocal_ranks(predicted, human, "ceiling").mean()),
        "ndcg": float(ndcg_values.mean()),
        "err": float(err_values.mean()),
        "avg_predicted": float(best_predicted_human_rank(predicted, human, "ceiling").mean()),
    }
    best_minimized = best_predicted_human_rank(predicted, human, "minimize")
    for rank, percent in bph_percentages(best_minimized, n_judgments).items():
        measures[f"bph_{rank:g}"] = round_half_away_from_zero(percent, 2)
    return measures


def experiment_seed(seed: int, experiment: str) -> int:
    """The resampling seed of one data set: ``derive_seed(seed, "rankeval", experiment)`` (stable SHA-256)."""
    return derive_seed(seed, "rankeval", experiment)


def segment_level_table(
    predictions: Mapping[str, pd.DataFrame],
    human: pd.DataFrame,
    ties: str = "ceiling",
    n_samples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    experiment: str = "",
    convention: str = "paper",
) -> pd.DataFrame:
    """Long table ``(convention, predictor, measure, value)`` of :func:`segment_level_measures` for every predictor.

    ``predictions`` maps a predictor name to its ``judgment, system, score`` table (higher = better); ``human``
    is a :func:`mtsig.io.rankings.load_wmt_rankings` / :func:`~mtsig.io.rankings.load_jcml` table.  ``convention``
    is ``paper``, ``rankeval_tool`` or ``both`` (:func:`convention_names`; rows of ``paper`` first).  Bootstrap
    draws come from :func:`experiment_seed` and are shared by all predictors and conventions (and by
    :func:`pairwise_tau_tests`).
    """
    rows = []
    for name_of_convention in convention_names(convention):
        for name, predicted in predictions.items():
            _, human_ranks, predicted_ranks = judgment_arrays(human, predicted, name_of_convention)
            measures = segment_level_measures(
                predicted_ranks,
                human_ranks,
                ties,
                n_samples,
                experiment_seed(seed, experiment),
                level,
                name_of_convention,
            )
            rows.extend((name_of_convention, name, measure, value) for measure, value in measures.items())
    return pd.DataFrame(rows, columns=["convention", "predictor", "measure", "value"])


def pairwise_tau_tests(
    predictions: Mapping[str, pd.DataFrame],
    human: pd.DataFrame,
    n_samples: int = 1000,
    seed: int = 0,
    alpha: float = 0.05,
    experiment: str = "",
) -> pd.DataFrame:
    """Paired bootstrap tests of micro tau for every unordered pair of predictors (:func:`paired_tau_tests`).

    Columns ``predictor_x, predictor_y, tau_x, tau_y, p_x_better, p_y_better, conclusion`` (``sys_x`` /
    ``sys_y`` / ``tie`` at ``alpha`` by :func:`mtsig.stats.conclusions.conclude`), one row per unordered pair.
    """
    names = list(predictions)
    if len(names) < 2:
        raise ValueError("paired tests need at least two predictors")
    counts = []
    for name in names:
        _, human_ranks, predicted_ranks = judgment_arrays(human, predictions[name])
        counts.append(pair_counts(predicted_ranks, human_ranks))
    stacked = np.stack(counts)  # same judgments for all: judgment_arrays keeps them by the human ranks alone
    table = paired_tau_tests(stacked, names, n_samples, experiment_seed(seed, experiment))
    p = table.set_index(["sys_x", "sys_y"])["p_value"]
    tau = {name: micro_tau(c) for name, c in zip(names, counts, strict=True)}
    rows = [
        (x, y, tau[x], tau[y], float(p[(x, y)]), float(p[(y, x)]))
        for i, x in enumerate(names)
        for y in names[i + 1 :]
    ]
    result = pd.DataFrame(
        rows, columns=["predictor_x", "predictor_y", "tau_x", "tau_y", "p_x_better", "p_y_better"]
    )
    result["conclusion"] = conclude(result["p_x_better"].to_numpy(), result["p_y_better"].to_numpy(), alpha)
    return result


# --------------------------------------------------------------------------------------------------------------
# Predictors and pipeline steps
# --------------------------------------------------------------------------------------------------------------

_CONSENSUS_METRICS = {"bleu": sacrebleu.sentence_bleu, "chrf": sacrebleu.sentence_chrf}


def consensus_scores(candidates: pd.DataFrame, metric: str = "bleu") -> pd.DataFrame:
    """Reference-free consensus score of every candidate: its sentence-level metric against the other candidates.

    For JCML sets, whose references are empty: each candidate (``text``) of a judged sentence is scored with
    ``sacrebleu.sentence_bleu(hyp, others).score`` (smoothed sentence BLEU, multi-reference) or
    ``sentence_chrf`` (best-matching reference), ``others`` being the other candidates of the same judgment,
    including those the human left blank (they are still translations of the sentence).  A sentence with a single
    candidate scores 0.  Returns ``judgment, system, score``.
    """
    if metric not in _CONSENSUS_METRICS:
        raise ValueError(f"consensus metric must be one of {', '.join(_CONSENSUS_METRICS)}, got {metric!r}")
    sentence_score = _CONSENSUS_METRICS[metric]
    rows = []
    for judgment, group in candidates.groupby("judgment", sort=True):
        texts = [str(t).strip() for t in group["text"]]
        for index, system in enumerate(group["system"]):
            others = texts[:index] + texts[index + 1 :]
            score = sentence_score(texts[index], others).score if others else 0.0
            rows.append((judgment, system, float(score)))
    return pd.DataFrame(rows, columns=["judgment", "system", "score"])


def predicted_ranking_scores(rankings: Mapping[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Predictors from user-supplied rankings (RankEval's own use: evaluating a quality-estimation ranker), each as
    read by :func:`mtsig.io.rankings.load_predicted_ranking`; score = -predicted rank, so rank 1 is best."""
    predictions = {}
    for name, ranking in rankings.items():
        predictions[name] = pd.DataFrame(
            {
                "judgment": ranking["judgment"],
                "system": ranking["system"],
                "score": -ranking["predicted_rank"],
            }
        )
    return predictions


def jcml_segment_level(
    candidates: pd.DataFrame,
    name: str,
    metrics: Sequence[str] = ("bleu", "chrf"),
    ties: str = "ceiling",
    n_samples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    predicted_rankings: Mapping[str, pd.DataFrame] | None = None,
    convention: str = "paper",
) -> pd.DataFrame:
    """RankEval table of consensus predictors (:func:`consensus_scores`) on one JCML set's ``candidates``
    (:func:`mtsig.io.rankings.load_jcml`).

    Predictor names are ``consensus_<metric>``; ``predicted_rankings`` adds a predictor per user-supplied ranking
    (:func:`predicted_ranking_scores`). ``name`` (the file's stem in the pipeline) keys the bootstrap.
    """
    predictions = {f"consensus_{m}": consensus_scores(candidates, m) for m in metrics}
    predictions.update(predicted_ranking_scores(predicted_rankings or {}))
    return segment_level_table(predictions, candidates, ties, n_samples, seed, level, name, convention)


def sentence_bleu_scores(
    system_outputs: Mapping[str, Sequence[str]], references: Sequence[str]
) -> np.ndarray:
    """Smoothed sentence BLEU (``sacrebleu.sentence_bleu``, exp smoothing, effective order) per system and segment,
    ``[S, N]`` in the order of ``system_outputs``."""
    return np.array(
        [
            [sacrebleu.sentence_bleu(hyp, [ref]).score for hyp, ref in zip(hyps, references, strict=True)]
            for hyps in system_outputs.values()
        ]
    )


#: The BLEU options of ``sacrebleu.sentence_bleu`` that its statistics depend on (smoothing and effective order
#: act on the statistics, see :func:`sentence_bleu_of_statistics`).
SENTENCE_BLEU_STATISTICS_OPTIONS = {"lowercase": False, "tokenize": "13a", "max_ngram_order": 4}


def sentence_bleu_of_statistics(stats: np.ndarray) -> np.ndarray:
    """Smoothed sentence BLEU ``[S, N]`` from each segment's own BLEU statistics ``stats[S, N, 10]`` (the layout
    of :class:`mtsig.metrics.BLEU`, sacrebleu's order), without tokenising the texts again.

    ``sacrebleu.sentence_bleu`` scores one segment's statistics with ``BLEU.compute_bleu`` (exp smoothing,
    effective order); this applies that same function to statistics already extracted with
    :data:`SENTENCE_BLEU_STATISTICS_OPTIONS` from one reference, so the scores equal
    :func:`sentence_bleu_scores`' (tests/test_rankeval.py checks every WMT12 es-en segment).
    """
    from sacrebleu.metrics.bleu import BLEU as SacreBLEU

    stats = np.asarray(stats)
    order = (stats.shape[-1] - 2) // 2
    rows = stats.reshape(-1, stats.shape[-1]).astype(np.int64).tolist()  # Python ints, as sacrebleu counts
    scores = [
        SacreBLEU.compute_bleu(
            row[2 : 2 + order],
            row[2 + order :],
            row[0],
            row[1],
            smooth_method="exp",
            effective_order=True,
            max_ngram_order=order,
        ).score
        for row in rows
    ]
    return np.array(scores, dtype=float).reshape(stats.shape[:-1])


def metric_segment_scores(
    metric_name: str, system_outputs: Mapping[str, Sequence[str]], references: Sequence[str]
) -> np.ndarray:
    """Segment-level scores ``[S, N]`` (higher = better) of one metric, for ranking systems within a judgment.

    BLEU is sacrebleu's smoothed sentence BLEU (:func:`sentence_bleu_scores`): corpus BLEU on one segment's
    statistics is zero whenever a 4-gram is missing.  Other metrics score each segment's own sufficient
    statistics, ``metric.score(stats[:, i])`` from :func:`mtsig.metrics.get_metric` (``stats_many``); a metric
    where lower is better (TER) is negated.
    """
    if metric_name.lower() == "bleu":
        return sentence_bleu_scores(system_outputs, references)
    metric = get_metric(metric_name)
    scores = np.asarray(metric.score(metric.stats_many(system_outputs, list(references))), dtype=float)
    return scores if metric.higher_is_better else -scores


def wmt_predictions(
    human: pd.DataFrame,
    systems: Sequence[str],
    segment_scores: np.ndarray,
    rankings_path: str | Path | None = None,
) -> pd.DataFrame:
    """Look up each judged (system, segment) in ``segment_scores[S, N]`` (rows in ``systems`` order).

    Returns ``judgment, system, score``.  Raises InputError (naming the rankings file) for a judged system
    without output or a segment index beyond the outputs.
    """
    scores = np.asarray(segment_scores, dtype=float)
    if scores.shape[0] != len(systems):
        raise ValueError(f"{len(systems)} systems but segment scores for {scores.shape[0]}")
    index = {name: i for i, name in enumerate(systems)}
    unknown = sorted(set(human["system"]) - set(index))
    if unknown:
        raise InputError(f"judged system(s) without output: {', '.join(unknown)}", rankings_path)
    beyond = human["segment"] >= scores.shape[1]
    if beyond.any():
        raise InputError(
            f"segment index {int(human.loc[beyond, 'segment'].max())} beyond the {scores.shape[1]} output lines",
            rankings_path,
        )
    rows = human["system"].map(index).to_numpy()
    return pd.DataFrame(
        {
            "judgment": human["judgment"].to_numpy(),
            "system": human["system"].to_numpy(),
            "score": scores[rows, human["segment"].to_numpy()],
        }
    )


def wmt_segment_level(
    human: pd.DataFrame,
    languages: tuple[str, str],
    systems: Sequence[str],
    segment_scores: Mapping[str, np.ndarray],
    ties: str = "ceiling",
    n_samples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    predicted_rankings: Mapping[str, pd.DataFrame] | None = None,
    convention: str = "paper",
    source: str | Path | None = None,
) -> pd.DataFrame:
    """RankEval table of every metric's segment-level scores against WMT relative rankings.

    ``human``: the judgments of one language pair (:func:`mtsig.io.rankings.load_wmt_rankings`, read from
    ``source``, which errors name); ``languages`` = (source, target) as named in the RNK file (e.g.
    ``("Spanish", "English")``);
    ``segment_scores`` maps a predictor to ``[S, N]`` scores, higher = better, rows in ``systems`` order
    (:func:`metric_segment_scores`).  Each human judgment's shown systems are ranked by their scores on the judged
    segment (WMT's segment-level metric evaluation). ``predicted_rankings`` adds a predictor per user-supplied
    ranking file (:func:`predicted_ranking_scores`).
    """
    predictions = {
        name: wmt_predictions(human, systems, scores, source) for name, scores in segment_scores.items()
    }
    predictions.update(predicted_ranking_scores(predicted_rankings or {}))
    return segment_level_table(
        predictions, human, ties, n_samples, seed, level, "-".join(languages), convention
    )
