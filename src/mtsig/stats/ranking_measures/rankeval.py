"""The RankEval measures of a predicted ranking against human relative rankings, as functions of rank arrays.

Avramidis (2013), *RankEval: Open Tool for Evaluation of Machine-Learned Ranking* (PBML 100): Kendall's tau with
WMT's penalised ties, micro- and macro-averaged, with its p-value (Sec. 3.1, eqs. 1-4); first answer reciprocal rank
and MRR (Sec. 3.2, eqs. 5-6); DCG and NDCG (Sec. 3.3, eqs. 7-8); ERR by the linear algorithm (Sec. 3.4 and 4.3,
eqs. 9-10, Algorithm 1); best-predicted-vs-human and average predicted (Sec. 3.5); the four rank normalisations
(Sec. 3.6); and, where the RankEval tool's released code departs from the paper, the tool's own versions
(``rankeval_tool_*``). The study that aligns judgments and predictions into these arrays and tabulates the measures
is :mod:`mtsig.studies.rankeval`; bootstrap inference on micro tau is :mod:`mtsig.stats.ranking_measures.tau_bootstrap`.

Data layout.  A set of J human judgments (one ranking list each) is held as two ``float`` arrays ``[J, K]``, human
ranks and predicted ranks, lower = better, where ``K`` is the largest list and ``NaN`` marks a padding slot (and, in
the ``paper`` convention, a blank human rank, WMT's ``-1``).
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
from scipy import special

from mtsig.runtime import portable

#: Rank normalisations of Avramidis (2013, Sec. 3.6); ``ceiling`` is the paper's default.
TIE_MODES = ("minimize", "floor", "ceiling", "middle")


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
    items, as the paper states.  For a data set, :func:`mtsig.studies.rankeval.segment_level_table` passes the
    number of human-ranked items in the judgments that contribute pairs; the RankEval tool passes the number of
    compared pairs (concordant + discordant) instead (:func:`rankeval_tool_p_value`).  Neither is the null
    distribution of a pooled tau: for J untied 5-way rankings the null variance of micro tau is 1/(6J), while
    eq. 3 gives about 4/(45J) with n = 5J items and 2/(45J) with n = 10J pairs, so this p-value is
    anti-conservative; prefer :func:`mtsig.stats.ranking_measures.tau_bootstrap.tau_confidence_interval`.
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
