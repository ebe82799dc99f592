"""Tests of the RankEval measures (mtsig.stats.ranking_measures.rankeval,
mtsig.stats.ranking_measures.tau_bootstrap), the study (mtsig.studies.rankeval) and sacrebleu's sentence BLEU
(mtsig.metrics.bleu) against independent oracles: hand arithmetic, SciPy, sacrebleu, literal loop
transcriptions of Avramidis (2013)'s equations / Algorithm 1 and of the RankEval tool's pair loop, and
simulation with known truth."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
import sacrebleu
from scipy import stats

from mtsig.errors import InputError
from mtsig.io.rankings import load_jcml, load_wmt_rankings
from mtsig.stats.ranking_measures.rankeval import (
    TIE_MODES,
    best_predicted_human_rank,
    best_predicted_vs_human,
    bph_percentages,
    dcg,
    expected_reciprocal_rank,
    ideal_dcg,
    kendall_tau,
    kendall_tau_p_value,
    macro_tau,
    micro_tau,
    ndcg,
    normalize_ranks,
    pair_counts,
    rankeval_tool_macro_tau,
    rankeval_tool_ndcg_err,
    rankeval_tool_p_value,
    ranks_from_scores,
    reciprocal_ranks,
    round_half_away_from_zero,
)
from mtsig.stats.ranking_measures.tau_bootstrap import (
    bootstrap_micro_taus,
    tau_confidence_interval,
)
from mtsig.stats.resampling.draws import iid_draws
from mtsig.stats.seeding import rng_for
from mtsig.studies.rankeval import (
    RankEvalOptions,
    consensus_scores,
    jcml_segment_level,
    judgment_arrays,
    metric_segment_scores,
    pairwise_tau_tests,
    rankeval_tool_measures,
    segment_level_measures,
    segment_level_table,
    wmt_predictions,
    wmt_segment_level,
)

NAN = np.nan


# ------------------------------------------------------------------------------------------------ oracles


def tool_normalize(ranking: list[float], ties: str) -> list[float]:
    """Literal transcription of the RankEval tool's ``sentence.ranking.normalize`` / ``_handle_tie``."""
    normalized = [0.0] * len(ranking)
    new_rank = 0.0
    for original in sorted(set(ranking)):
        new_rank += 1
        count = ranking.count(original)
        if count <= 1 or ties == "minimize":
            value, following = new_rank, new_rank
        elif ties == "floor":
            value, following = new_rank, new_rank + count - 1
        elif ties == "ceiling":
            value, following = new_rank + count - 1, new_rank + count - 1
        else:  # middle
            value, following = new_rank - 1 + (count + 1.0) / 2, new_rank + count - 1
        for index, rank in enumerate(ranking):
            if rank == original:
                normalized[index] = value
        new_rank = following
    return normalized


def tool_pair_counts(predicted: list[float], human: list[float]) -> tuple[int, int]:
    """Literal transcription of the RankEval tool's ``segment.kendall_tau`` pair loop alone (default options).

    The loop skips pairs with a ``-1``; the tool normalises both lists *before* the loop, so in the tool the skip
    never fires and a blank is the best rank (tested in the rankeval_tool section).  On lists without blanks the
    loop is the tool's tau; with blanks it is the paper convention's."""
    concordant = discordant = 0
    for (oi, oj), (pi, pj) in zip(
        itertools.combinations(human, 2), itertools.combinations(predicted, 2), strict=True
    ):
        if oi == -1 or oj == -1 or oi == oj:
            continue
        if (oi > oj and pi > pj) or (oi < oj and pi < pj):
            concordant += 1
        else:
            discordant += 1
    return concordant, discordant


def err_equation_10(grades_in_predicted_order: list[float], max_grade: float) -> float:
    """Avramidis (2013) eqs. 9-10 literally: sum_r 1/r prod_{i<r} (1 - R_i) R_r, R = (2**g - 1) / 2**g_max."""
    stop = [(2.0**g - 1.0) / 2.0**max_grade for g in grades_in_predicted_order]
    total = 0.0
    for r in range(1, len(stop) + 1):
        total += 1.0 / r * math.prod(1.0 - stop[i] for i in range(r - 1)) * stop[r - 1]
    return total


# ------------------------------------------------------------------------------------------------ normalisation


def test_normalisation_reproduces_the_paper_examples():
    ranks = np.array([[1.0, 2.0, 2.0, 3.0, 4.0]])
    # Sec. 3.6: minimize [1,2,2,3,4], floor [1,2,2,4,5], ceiling [1,3,3,4,5]; middle reserves all positions and
    # averages the tied ones: (2 + 3) / 2 = 2.5, then 4 and 5.
    assert normalize_ranks(ranks, "minimize").tolist() == [[1, 2, 2, 3, 4]]
    assert normalize_ranks(ranks, "floor").tolist() == [[1, 2, 2, 4, 5]]
    assert normalize_ranks(ranks, "ceiling").tolist() == [[1, 3, 3, 4, 5]]
    assert normalize_ranks(ranks, "middle").tolist() == [[1, 2.5, 2.5, 4, 5]]
    assert normalize_ranks(ranks).tolist() == [[1, 3, 3, 4, 5]]  # ceiling is the default


@pytest.mark.parametrize("ties", TIE_MODES)
def test_normalisation_matches_the_tool_transcription(ties):
    rng = rng_for(0, "test-normalise", ties)
    lists = rng.integers(1, 5, size=(200, 5)).astype(float)
    expected = [tool_normalize(row.tolist(), ties) for row in lists]
    np.testing.assert_allclose(normalize_ranks(lists, ties), expected)


def test_normalisation_ignores_absent_items_and_any_monotone_scale():
    ranks = np.array([[30.0, 10.0, NAN, 30.0, 70.0]])
    # present values 10 < 30 = 30 < 70: ceiling ranks 1, 3, 3, 4
    np.testing.assert_array_equal(normalize_ranks(ranks, "ceiling"), [[3, 1, NAN, 3, 4]])
    np.testing.assert_array_equal(normalize_ranks(ranks, "minimize"), [[2, 1, NAN, 2, 3]])


def test_normalisation_rejects_an_unknown_mode():
    with pytest.raises(ValueError, match="ties must be one of"):
        normalize_ranks(np.ones((1, 2)), "average")


def test_ranks_from_scores_higher_is_better_and_equal_scores_tie():
    # scores 0.3, 0.9, 0.3, nan: 0.9 is best (1); both 0.3 have one better item (2)
    np.testing.assert_array_equal(ranks_from_scores(np.array([[0.3, 0.9, 0.3, NAN]])), [[2, 1, 2, NAN]])


# ------------------------------------------------------------------------------------------------ Kendall tau


def test_pair_counts_by_hand_with_ties_on_both_sides():
    human = np.array([[1, 2, 3, 4], [1, 1, 2, NAN]], dtype=float)
    predicted = np.array([[2, 1, 3, 3], [1, 2, 2, 1]], dtype=float)
    # Judgment 0: (0,1) human 1<2, predicted 2>1: discordant; (0,2), (0,3), (1,2), (1,3) agree: concordant;
    #   (2,3) human 3<4, predicted tie 3=3: penalised -> discordant.  c = 4, d = 2.
    # Judgment 1 (item 3 blank): (0,1) human tie: excluded; (0,2) 1<2 and 1<2: concordant;
    #   (1,2) 1<2 but predicted tie 2=2: discordant.  c = 1, d = 1.
    np.testing.assert_array_equal(pair_counts(predicted, human), [[4, 2], [1, 1]])
    # Unpenalised eq. 1: the predicted ties drop out instead.  c = 4, d = 1 and c = 1, d = 0.
    np.testing.assert_array_equal(
        pair_counts(predicted, human, penalize_predicted_ties=False), [[4, 1], [1, 0]]
    )
    counts = pair_counts(predicted, human)
    assert micro_tau(counts) == pytest.approx((5 - 3) / (5 + 3))  # sums 5 and 3
    assert macro_tau(counts) == pytest.approx(((4 - 2) / 6 + 0 / 2) / 2)  # 1/3 and 0 (kept) averaged


def test_macro_tau_skips_judgments_without_pairs():
    counts = np.array([[3, 1], [0, 0], [1, 1]])
    # taus 0.5, undefined, 0.0 -> mean of the defined ones = 0.25
    assert macro_tau(counts) == pytest.approx(0.25)
    assert np.isnan(kendall_tau(counts)[1])


def test_tau_equals_scipy_without_ties():
    rng = rng_for(0, "test-scipy-tau")
    for _ in range(50):
        human = rng.permutation(5).astype(float) + 1
        predicted = rng.permutation(5).astype(float) + 1
        tau = micro_tau(pair_counts(predicted[None], human[None]))
        assert tau == pytest.approx(stats.kendalltau(human, predicted).statistic)


def test_pair_counts_match_the_tool_loop_with_ties_and_blanks():
    rng = rng_for(0, "test-tool-tau")
    human = rng.integers(1, 6, size=(300, 5)).astype(float)
    human[rng.random(human.shape) < 0.05] = -1
    predicted = rng.integers(1, 4, size=(300, 5)).astype(float)  # many predicted ties
    expected = [tool_pair_counts(p.tolist(), h.tolist()) for p, h in zip(predicted, human, strict=True)]
    ours = pair_counts(predicted, np.where(human == -1, NAN, human))
    np.testing.assert_array_equal(ours, expected)


def test_tau_p_value_equals_scipy_asymptotic_without_ties():
    rng = rng_for(0, "test-p")
    x, y = rng.permutation(12), rng.permutation(12)
    reference = stats.kendalltau(x, y, method="asymptotic")
    assert kendall_tau_p_value(reference.statistic, 12) == pytest.approx(reference.pvalue, rel=1e-12)


def test_tau_p_value_by_hand():
    # eq. 3: n = 10, var = (40 + 10) / (9 * 10 * 9) = 50 / 810; z = 0.5 / sqrt(50/810); eq. 4: erfc(|z| / sqrt 2),
    # the two-sided normal tail 2 * (1 - Phi(z))
    z = 0.5 / math.sqrt(50 / 810)
    assert kendall_tau_p_value(0.5, 10) == pytest.approx(2 * stats.norm.sf(z))


# ------------------------------------------------------------------------------------------------ MRR, DCG, ERR


def test_reciprocal_rank_by_hand():
    human = np.array([[2, 1, 1, 3]], dtype=float)  # items 1 and 2 are the correct (human-best) answers
    # predicted ranks [1, 3, 2, 4]: the best-predicted correct answer is item 2 at rank 2 -> 1/2
    assert reciprocal_ranks(np.array([[1, 3, 2, 4.0]]), human).tolist() == [0.5]
    # predicted [1, 2, 2, 4]: items 1, 2 tied at 2; ceiling puts them at 3 -> 1/3, floor at 2 -> 1/2
    tied = np.array([[1, 2, 2, 4.0]])
    assert reciprocal_ranks(tied, human, "ceiling").tolist() == pytest.approx([1 / 3])
    assert reciprocal_ranks(tied, human, "floor").tolist() == pytest.approx([1 / 2])


def test_dcg_ndcg_by_hand():
    human = np.array([[1, 2, 3.0]])
    predicted = np.array([[2, 1, 3.0]])
    # rel = n + 1 - rank = 3, 2, 1; gains 2**rel - 1 = 7, 3, 1; discounts log2(r + 1) at the predicted ranks 2, 1, 3
    expected_dcg = 7 / math.log2(3) + 3 / math.log2(2) + 1 / math.log2(4)
    ideal = 7 / math.log2(2) + 3 / math.log2(3) + 1 / math.log2(4)
    assert dcg(predicted, human)[0] == pytest.approx(expected_dcg)
    assert ideal_dcg(human)[0] == pytest.approx(ideal)
    assert ndcg(predicted, human)[0] == pytest.approx(expected_dcg / ideal)
    assert ndcg(human, human)[0] == pytest.approx(1.0)


def test_ndcg_with_a_predicted_tie_by_hand():
    human = np.array([[1, 2, 3.0]])
    predicted = np.array([[1, 1, 3.0]])  # ceiling: items 0 and 1 both at position 2
    expected = (7 / math.log2(3) + 3 / math.log2(3) + 1 / math.log2(4)) / (7 + 3 / math.log2(3) + 1 / 2)
    assert ndcg(predicted, human)[0] == pytest.approx(expected)


def test_err_by_hand():
    human = np.array([[1, 2, 3.0]])
    # R = (2**rel - 1) / 2**3 = 7/8, 3/8, 1/8; predicted order item 1, item 0, item 2:
    # ERR = 3/8 + (5/8)(7/8)/2 + (5/8)(1/8)(1/8)/3
    expected = 3 / 8 + (5 / 8) * (7 / 8) / 2 + (5 / 8) * (1 / 8) * (1 / 8) / 3
    assert expected_reciprocal_rank(np.array([[2, 1, 3.0]]), human)[0] == pytest.approx(expected)
    # predicted tie of items 0, 1 (ceiling position 2): one cascade step from p = 1, then p = (1/8)(5/8)
    tied = 1 * (7 / 8) / 2 + 1 * (3 / 8) / 2 + (1 / 8) * (5 / 8) * (1 / 8) / 3
    assert expected_reciprocal_rank(np.array([[1, 1, 3.0]]), human)[0] == pytest.approx(tied)


def test_err_equals_equation_10_without_predicted_ties():
    rng = rng_for(0, "test-err")
    human = rng.integers(1, 6, size=(100, 5)).astype(float)
    predicted = np.stack([rng.permutation(5) + 1.0 for _ in range(100)])
    ours = expected_reciprocal_rank(predicted, human)
    grades = 5 + 1 - normalize_ranks(human, "ceiling")
    for j in range(100):
        order = np.argsort(predicted[j])
        assert ours[j] == pytest.approx(err_equation_10(grades[j, order].tolist(), 5))


def test_best_predicted_vs_human_and_average_predicted_by_hand():
    human = np.array([[1, 2, 3], [1, 2, 3], [1, 2, 3]], dtype=float)
    predicted = np.array([[3, 1, 2], [1, 1, 3], [1, 2, 3]], dtype=float)
    # best predicted: item 1 (human 2); items 0 and 1 tied -> worst human rank 2; item 0 (human 1)
    best = best_predicted_human_rank(predicted, human)
    assert best.tolist() == [2, 2, 1]
    assert best.mean() == pytest.approx(5 / 3)
    assert best_predicted_vs_human(best) == {1.0: 1, 2.0: 2}


def test_missing_prediction_for_a_ranked_item_is_an_error():
    with pytest.raises(ValueError, match="no predicted rank"):
        ndcg(np.array([[1, NAN, 2.0]]), np.array([[1, 2, 3.0]]))


# ------------------------------------------------------------------------------------------------ bootstrap


def test_bootstrap_taus_equal_a_loop_over_the_engine_draws():
    rng = rng_for(0, "test-boot")
    counts = rng.integers(0, 6, size=(2, 40, 2))
    taus = bootstrap_micro_taus(counts, 300, seed=7)
    draws = np.concatenate([iid_draws(7, 40, 0), iid_draws(7, 40, 1)])[:300]
    for b in (0, 1, 255, 256, 299):
        for m in range(2):
            total = counts[m, draws[b]].sum(axis=0)
            assert taus[b, m] == pytest.approx((total[0] - total[1]) / (total[0] + total[1]))


def test_confidence_interval_covers_the_truth_in_simulation():
    # Judgments simulated with known micro tau: each pair concordant with probability 0.6 -> tau = 0.2
    covered = 0
    for replicate in range(40):
        rng = rng_for(1, "test-coverage", replicate)
        concordant = rng.binomial(10, 0.6, size=300)
        counts = np.stack([concordant, 10 - concordant], axis=1)
        low, high = tau_confidence_interval(counts, n_samples=400, seed=replicate)
        covered += low <= 0.2 <= high
    assert covered >= 33  # 95% nominal; P(Binomial(40, 0.95) < 33) < 0.01


def test_paired_tests_prefer_the_informative_predictor():
    rng = rng_for(2, "test-paired")
    n_judgments = 150
    human_rows, good_rows, bad_rows = [], [], []
    for j in range(n_judgments):
        human_rank = rng.permutation(5) + 1
        for s in range(5):
            human_rows.append((j, f"s{s}", int(human_rank[s])))
            good_rows.append((j, f"s{s}", -human_rank[s] + rng.normal(0, 1.0)))
            bad_rows.append((j, f"s{s}", rng.normal()))
    human = pd.DataFrame(human_rows, columns=["judgment", "system", "rank"])
    predictions = {
        "good": pd.DataFrame(good_rows, columns=["judgment", "system", "score"]),
        "random": pd.DataFrame(bad_rows, columns=["judgment", "system", "score"]),
    }
    table = pairwise_tau_tests(predictions, human, n_samples=500, seed=0)
    assert table.loc[0, "conclusion"] == "sys_x"
    assert table.loc[0, "tau_x"] > table.loc[0, "tau_y"]
    assert table.loc[0, "p_x_better"] <= 0.01


# ------------------------------------------------------------------------------------------------ tables


def small_tables() -> tuple[pd.DataFrame, pd.DataFrame]:
    human = pd.DataFrame(
        {
            "judgment": [0, 0, 0, 1, 1, 1, 2, 2],
            "system": ["a", "b", "c", "a", "b", "c", "a", "b"],
            "rank": [1, 2, -1, 2, 1, 3, 1, -1],
        }
    )
    predicted = pd.DataFrame(
        {
            "judgment": [0, 0, 0, 1, 1, 1, 2, 2],
            "system": ["a", "b", "c", "a", "b", "c", "a", "b"],
            "score": [0.9, 0.1, 5.0, 0.5, 0.5, 0.1, 1.0, 2.0],
        }
    )
    return human, predicted


def test_judgment_arrays_drop_blanks_and_single_item_judgments():
    human, predicted = small_tables()
    ids, human_ranks, predicted_ranks = judgment_arrays(human, predicted)
    # judgment 2 has one ranked item after dropping the blank: not a ranking
    assert ids.tolist() == [0, 1]
    np.testing.assert_array_equal(human_ranks, [[1, 2, NAN], [2, 1, 3]])
    # judgment 0: scores 0.9 > 0.1 (c is blank, ignored); judgment 1: 0.5 = 0.5 > 0.1
    np.testing.assert_array_equal(predicted_ranks, [[1, 2, NAN], [1, 1, 3]])


def test_segment_level_table_by_hand():
    human, predicted = small_tables()
    table = segment_level_table({"m": predicted}, human, RankEvalOptions(n_samples=50)).set_index("measure")[
        "value"
    ]
    # judgment 0: (a,b) concordant; judgment 1: (a,b) predicted tie -> discordant, (a,c), (b,c) concordant
    assert table["concordant"] == 3 and table["discordant"] == 1
    assert table["tau_micro"] == pytest.approx(0.5)
    assert table["tau_macro"] == pytest.approx((1 + 1 / 3) / 2)
    # MRR: judgment 0 best a predicted 1 -> 1; judgment 1 best b at ceiling position 2 -> 1/2
    assert table["mrr"] == pytest.approx(0.75)
    # predicted best: a (human 1); a and b tied -> worst human rank 2
    assert table["avg_predicted"] == pytest.approx(1.5)
    assert table["bph_1"] == 50.0 and table["bph_2"] == 50.0  # one judgment each of two: percent
    assert table["tau_ci_low"] <= table["tau_micro"] <= table["tau_ci_high"]


def test_tables_reject_missing_and_duplicate_predictions():
    human, predicted = small_tables()
    with pytest.raises(InputError, match="no predicted score"):
        judgment_arrays(human, predicted.drop(index=3))
    with pytest.raises(InputError, match="predicted twice"):
        judgment_arrays(human, pd.concat([predicted, predicted.iloc[[0]]]))


def test_table_is_reproducible_from_the_seed():
    human, predicted = small_tables()
    first = segment_level_table(
        {"m": predicted}, human, RankEvalOptions(n_samples=100, seed=3), experiment="e"
    )
    second = segment_level_table(
        {"m": predicted}, human, RankEvalOptions(n_samples=100, seed=3), experiment="e"
    )
    pd.testing.assert_frame_equal(first, second)


# ------------------------------------------------------------------------------------------------ rankeval_tool
# The RankEval tool's code (Avramidis 2013's lefterav/rankeval, ranking/segment.py and ranking/set.py).  Every expected
# value is worked by hand in the comments; where a comment says "tool-run", the same value was also printed by the
# tool's own functions under Python 2.7.18 (numpy 1.16.6, scipy 1.2.3), run outside this repository.


def tool_arrays() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    human, predicted = small_tables()
    return judgment_arrays(human, predicted, "rankeval_tool")


def test_tool_arrays_keep_blanks_as_minus_one_every_judgment_and_the_input_order():
    ids, human_ranks, predicted_ranks = tool_arrays()
    assert ids.tolist() == [0, 1, 2]  # judgment 2 (one ranked item and a blank) is kept
    np.testing.assert_array_equal(human_ranks, [[1, 2, -1], [2, 1, 3], [1, -1, NAN]])
    # scores j0: a 0.9, b 0.1, c 5.0 -> 2, 3, 1; j1: 0.5 = 0.5 > 0.1 -> 1, 1, 3; j2: a 1.0 < b 2.0 -> 2, 1
    np.testing.assert_array_equal(predicted_ranks, [[2, 3, 1], [1, 1, 3], [2, 1, NAN]])
    human, predicted = small_tables()
    reordered = human.iloc[[1, 0, 2, 3, 4, 5, 6, 7]]  # b before a in judgment 0: the input order is kept
    _, human_ranks, _ = judgment_arrays(reordered, predicted, "rankeval_tool")
    assert human_ranks[0].tolist() == [2, 1, -1]
    with pytest.raises(InputError, match="blank-ranked items too"):
        judgment_arrays(human, predicted.drop(index=2), "rankeval_tool")  # the blank c of judgment 0


def test_tool_tau_counts_a_blank_as_the_best_rank():
    # human [-1, 2, 1, 3, 3] normalises (ceiling) to [1, 3, 2, 5, 5]; predicted [1, 2, 3, 4, 5].  Pairs: (1,2) human
    # 3 > 2, predicted 2 < 3: discordant; (3,4) human tie: excluded; the other 8 agree.  c = 8, d = 1 (tool-run:
    # segment.kendall_tau gives tau 7/9, 8 concordant, 1 discordant).  The paper drops the blank: c = 4, d = 1.
    human = np.array([[-1, 2, 1, 3, 3.0]])
    predicted = np.array([[1, 2, 3, 4, 5.0]])
    np.testing.assert_array_equal(pair_counts(predicted, human), [[8, 1]])
    np.testing.assert_array_equal(pair_counts(predicted, np.where(human == -1, NAN, human)), [[4, 1]])
    # two blanks tie with each other (excluded) and both beat ranks 1 and 2: c = 5, d = 0 (tool-run: 5, 0)
    np.testing.assert_array_equal(
        pair_counts(np.array([[1, 2, 3, 4.0]]), np.array([[-1, -1, 1, 2.0]])), [[5, 0]]
    )


def test_tool_p_value_uses_pairs_and_its_sqrt2_constant():
    # tau = 7/9 over N = 9 pairs: var = (36 + 10) / (9 * 9 * 8); p = erfc(|z| / 1.4142136) (tool-run: 0.00350929...)
    z = (7 / 9) / math.sqrt(46 / 648)
    assert rankeval_tool_p_value(7 / 9, 9) == pytest.approx(math.erfc(z / 1.4142136), rel=1e-13)
    assert rankeval_tool_p_value(7 / 9, 9) == pytest.approx(0.0035092905791559944, rel=1e-12)
    # one pair: 9n(n-1) = 0, the tool's except sets the variance to 1: p = erfc(1 / 1.4142136) (tool-run: 0.31731...)
    assert rankeval_tool_p_value(1.0, 1) == pytest.approx(math.erfc(1 / 1.4142136), rel=1e-13)
    assert rankeval_tool_p_value(1.0, 1) == pytest.approx(0.3173105207387762, rel=1e-12)


def test_tool_macro_tau_leaves_out_zero_taus():
    # per-judgment taus 0.5, 0.0, undefined, 1.0: the tool averages 0.5 and 1.0; the paper 0.5, 0.0 and 1.0
    counts = np.array([[3, 1], [1, 1], [0, 0], [2, 0]])
    assert rankeval_tool_macro_tau(counts) == pytest.approx(0.75)
    assert macro_tau(counts) == pytest.approx(0.5)
    # tool-run on ranking lists: human [1,1,2,2] vs predicted [2,3,1,4] has tau 0 ((0,2) and (1,2) discordant,
    # (0,3) and (1,3) concordant), [1,2,3] vs itself 1, [1,1] vs [1,2] none: kendall_tau_set gives tau_avg_seg 1.0
    # and tau 3/7 with tau_prob 0.17647430228361427
    human = np.array([[1, 1, 2, 2], [1, 2, 3, NAN], [1, 1, NAN, NAN]])
    predicted = np.array([[2, 3, 1, 4], [1, 2, 3, NAN], [1, 2, NAN, NAN]])
    measures = rankeval_tool_measures(predicted, human, n_samples=20)
    assert measures["tau_macro"] == 1.0
    assert measures["tau_micro"] == pytest.approx(3 / 7)
    assert measures["tau_p"] == pytest.approx(0.17647430228361427, rel=1e-12)


def test_tool_ndcg_err_tied_predictions_overwrite_each_other():
    # human [1, 2, 3]: rel = n - rank + 1 = 3, 2, 1; gains (2**rel - 1) / 2**3 = 7/8, 3/8, 1/8.  Predicted [1, 1, 3]
    # ceiling-normalises to [2, 2, 3]: item 0 writes 7/8 into slot 2, item 1 overwrites it with 3/8, item 2 writes
    # 1/8 into slot 3; slot 1 stays 0.  ERR = 0 + (3/8)/2 + (5/8)(1/8)/3 = 41/192.  DCG (natural log) =
    # (3/8)/ln 3 + (1/8)/ln 4; IDCG from the same gains sorted [3/8, 1/8, 0] = (3/8)/ln 2 + (1/8)/ln 3
    # (tool-run: segment.ndgc_err gives 0.6590018048024133, 0.21354166666666666)
    ndcg_value, err = rankeval_tool_ndcg_err(np.array([[1, 1, 3.0]]), np.array([[1, 2, 3.0]]))
    expected_ndcg = (3 / 8 / math.log(3) + 1 / 8 / math.log(4)) / (3 / 8 / math.log(2) + 1 / 8 / math.log(3))
    assert err[0] == pytest.approx(41 / 192)
    assert ndcg_value[0] == pytest.approx(expected_ndcg)
    assert ndcg_value[0] == pytest.approx(0.6590018048024133, rel=1e-12)
    # the same tie with the two items swapped in list order: now the 7/8 item is last and wins slot 2:
    # ERR = (7/8)/2 + (1/8)(1/8)/3 = 85/192 (tool-run: 0.4427083333333333)
    _, err = rankeval_tool_ndcg_err(np.array([[1, 1, 3.0]]), np.array([[2, 1, 3.0]]))
    assert err[0] == pytest.approx(85 / 192)
    # the paper convention keeps both tied gains at their shared ceiling position 2
    assert ndcg(np.array([[1, 1, 3.0]]), np.array([[1, 2, 3.0]]))[0] > expected_ndcg


def test_tool_cutoff_is_the_first_lists_length():
    # list 0 has 2 items, so k = 2 for list 1 too.  List 1: human [1, 2, 3], predicted [3, 2, 1]: gains 7/8, 3/8,
    # 1/8 land in slots 3, 2, 1 -> [1/8, 3/8, 7/8]; DCG@2 = (1/8)/ln 2 + (3/8)/ln 3, IDCG@2 = (7/8)/ln 2 + (3/8)/ln 3.
    # List 0 (perfect) has NDCG 1.  ERR ignores k: list 0 = 3/4 + (1/4)(1/4)/2 = 25/32; list 1 = 1/8 + (7/8)(3/8)/2
    # + (7/8)(5/8)(7/8)/3 = 689/1536 (tool-run: avg_ndgc_err gives ndgc 0.6626480272895835, err 0.6149088541666667)
    human = np.array([[1, 2, NAN], [1, 2, 3]])
    predicted = np.array([[1, 2, NAN], [3, 2, 1]])
    second = (1 / 8 / math.log(2) + 3 / 8 / math.log(3)) / (7 / 8 / math.log(2) + 3 / 8 / math.log(3))
    err_second = 1 / 8 + (7 / 8) * (3 / 8) / 2 + (7 / 8) * (5 / 8) * (7 / 8) / 3
    measures = rankeval_tool_measures(predicted, human, n_samples=20)
    assert measures["ndcg"] == pytest.approx((1 + second) / 2)
    assert measures["ndcg"] == pytest.approx(0.6626480272895835, rel=1e-12)
    assert measures["err"] == pytest.approx((25 / 32 + err_second) / 2)
    assert measures["err"] == pytest.approx(0.6149088541666667, rel=1e-12)
    # with each list's own length, list 1's DCG would add (7/8)/ln 4 and its IDCG (1/8)/ln 4: a higher NDCG
    ndcg_full, _ = rankeval_tool_ndcg_err(predicted, human)
    assert ndcg_full[1] > second


def test_tool_measures_on_the_small_tables_by_hand():
    # Arrays of test_tool_arrays_...: human [[1,2,-1],[2,1,3],[1,-1]], predicted [[2,3,1],[1,1,3],[2,1]].
    _, human_ranks, predicted_ranks = tool_arrays()
    m = rankeval_tool_measures(predicted_ranks, human_ranks, n_samples=50)
    # tau: j0 all 3 pairs agree (the blank c is best for both); j1 (a,b) predicted tie -> d, 2 c; j2 (a,b) agree
    assert (m["judgments"], m["concordant"], m["discordant"]) == (3, 6, 1)
    assert m["tau_micro"] == pytest.approx(5 / 7)
    assert m["tau_macro"] == pytest.approx((1 + 1 / 3 + 1) / 3)
    # MRR, ceiling both: j0 the best (blank c) predicted 1 -> 1; j1 best b at ceiling 2 -> 1/2; j2 best (blank b)
    # predicted 1 -> 1
    assert m["mrr"] == pytest.approx(5 / 6)
    # avg predicted, ceiling: human ranks of the predicted best c -> 1; a,b tied -> worst of ceiling [2, 1] = 2; b -> 1
    assert m["avg_predicted"] == pytest.approx(4 / 3)
    # BPH, minimize: 1, worst of minimize [2, 1] = 2, 1 -> round(100 * 2/3, 2), round(100 * 1/3, 2)
    assert (m["bph_1"], m["bph_2"]) == (66.67, 33.33)
    # NDCG/ERR (k = 3): j0 gains [7/8, 3/8, 1/8] in ideal order; j1 as the overwrite test with the 7/8 item last:
    # [0, 7/8, 1/8]; j2 (n = 2) gains [3/4, 1/4], NDCG 1
    n1 = (7 / 8 / math.log(3) + 1 / 8 / math.log(4)) / (7 / 8 / math.log(2) + 1 / 8 / math.log(3))
    assert m["ndcg"] == pytest.approx((1 + n1 + 1) / 3)
    assert m["err"] == pytest.approx((1385 / 1536 + 85 / 192 + 25 / 32) / 3)
    # tool-run allmetrics on these lists: the same values
    tool = {"ndcg": 0.8814289754010276, "err": 0.7085503472222223, "tau_p": 0.02427064415782715}
    for measure, value in tool.items():
        assert m[measure] == pytest.approx(value, rel=1e-12)


def test_tool_keeps_single_candidate_judgments():
    # tool-run allmetrics([[1], [1, 2]] predicted, [[1], [2, 1]] human): mrr 0.75, ndgc 2/3 (k = 1 from the first
    # list: list 1 DCG@1 = (1/4)/ln 2 over IDCG@1 = (3/4)/ln 2), err (1/2 + 17/32)/2 = 0.515625, avg 1.5, bph 50/50
    human = np.array([[1, NAN], [2, 1]])
    predicted = np.array([[1, NAN], [1, 2]])
    m = rankeval_tool_measures(predicted, human, n_samples=20)
    assert m["judgments"] == 2 and m["tau_micro"] == -1.0
    assert m["mrr"] == pytest.approx(0.75)
    assert m["ndcg"] == pytest.approx(2 / 3)
    assert m["err"] == pytest.approx(0.515625)
    assert m["avg_predicted"] == pytest.approx(1.5)
    assert (m["bph_1"], m["bph_2"]) == (50.0, 50.0)


def test_tool_bph_uses_minimize_and_average_predicted_ceiling():
    # human [1, 1, 3], predicted best item 0: ceiling human rank 2, minimize human rank 1 (tool-run:
    # avg_predicted_ranked 2.0, bph_1.0 100.0)
    human = np.array([[1, 1, 3.0]])
    m = rankeval_tool_measures(np.array([[1, 2, 3.0]]), human, n_samples=20)
    assert m["avg_predicted"] == 2.0
    assert m["bph_1"] == 100.0 and "bph_2" not in m


def test_tool_bph_rounds_halves_away_from_zero_like_python_2():
    # Python 2.7's round (tool-run): round(0.125, 2) = 0.13, round(2.675, 2) = 2.67 (2.675 is stored below the
    # half), round(99.875, 2) = 99.88; Python 3's round gives 0.12 for the first
    assert round_half_away_from_zero(0.125, 2) == 0.13
    assert round(0.125, 2) == 0.12
    assert round_half_away_from_zero(2.675, 2) == 2.67
    assert round_half_away_from_zero(99.875, 2) == 99.88
    # 800 judgments, one predicted best is human rank 2: 100 * 1/800 = 0.125 -> 0.13, 99.875 -> 99.88 (tool-run)
    human = np.tile([1.0, 2.0, 3.0], (800, 1))
    predicted = human.copy()
    predicted[0] = [2, 1, 3]
    m = rankeval_tool_measures(predicted, human, n_samples=20)
    assert (m["bph_1"], m["bph_2"]) == (99.88, 0.13)


def test_bph_is_in_percent_in_both_conventions():
    best = np.array([1.0, 2.0, 2.0, 3.0])
    assert bph_percentages(best, 4) == {1.0: 25.0, 2.0: 50.0, 3.0: 25.0}


def test_tool_convention_rejects_a_tie_setting():
    _, human_ranks, predicted_ranks = tool_arrays()
    floor = RankEvalOptions(ties="floor", n_samples=20, convention="rankeval_tool")
    with pytest.raises(ValueError, match="ties must stay"):
        segment_level_measures(predicted_ranks, human_ranks, floor)
    unknown = RankEvalOptions(n_samples=20, convention="tool")
    with pytest.raises(ValueError, match="convention must be one of"):
        segment_level_table({"m": small_tables()[1]}, small_tables()[0], unknown)


def test_table_with_both_conventions_keeps_the_paper_rows():
    human, predicted = small_tables()
    both = segment_level_table(
        {"m": predicted}, human, RankEvalOptions(n_samples=50, seed=3, convention="both"), experiment="e"
    )
    assert both["convention"].unique().tolist() == ["paper", "rankeval_tool"]
    paper = segment_level_table(
        {"m": predicted}, human, RankEvalOptions(n_samples=50, seed=3), experiment="e"
    )
    pd.testing.assert_frame_equal(both[both["convention"] == "paper"], paper)
    tool = both[both["convention"] == "rankeval_tool"].set_index("measure")["value"]
    assert tool["judgments"] == 3 and tool["concordant"] == 6  # the blanks count as best ranks here


# ------------------------------------------------------------------------------------------------ predictors


def test_consensus_scores_equal_sacrebleu_against_the_other_candidates():
    candidates = pd.DataFrame(
        {
            "judgment": [0, 0, 0, 1],
            "system": ["a", "b", "c", "a"],
            "text": [" the cat sat on the mat ", "a cat sat on the mat", "the dog is here", "alone"],
        }
    )
    bleu = consensus_scores(candidates, "bleu").set_index(["judgment", "system"])["score"]
    others = ["a cat sat on the mat", "the dog is here"]
    assert bleu[(0, "a")] == pytest.approx(sacrebleu.sentence_bleu("the cat sat on the mat", others).score)
    assert bleu[(1, "a")] == 0.0  # single candidate
    chrf = consensus_scores(candidates, "chrf").set_index(["judgment", "system"])["score"]
    expected = sacrebleu.sentence_chrf(
        "the dog is here", ["the cat sat on the mat", "a cat sat on the mat"]
    ).score
    assert chrf[(0, "c")] == pytest.approx(expected)


def test_sentence_bleu_segment_scores_equal_sacrebleu():
    outputs = {"a": ["the cat sat", "hello world"], "b": ["a cat", "hello there world"]}
    refs = ["the cat sat down", "hello world"]
    scores = metric_segment_scores("bleu", outputs, refs)
    assert scores.shape == (2, 2)
    assert scores[1, 1] == pytest.approx(sacrebleu.sentence_bleu("hello there world", ["hello world"]).score)


def test_sentence_bleu_of_statistics_equals_sacrebleu_sentence_bleu(data_root):
    """The segment-level step scores BLEU from the experiment's statistics: on real WMT12 es-en outputs and on
    edge cases (empty output, no match, fewer than four words: effective order) each value must equal
    ``sacrebleu.sentence_bleu`` exactly."""
    from mtsig.metrics import get_metric
    from mtsig.metrics.bleu import sentence_bleu_of_statistics

    folder = data_root / "wmt12"
    reference = (folder / "plain" / "newstest2012-ref.en").read_text(encoding="utf-8").splitlines()[:1000]
    outputs = {
        name: (folder / "system-outputs" / "es-en" / f"newstest2012.es-en.{name}")
        .read_text(encoding="utf-8")
        .splitlines()[:1000]
        for name in ("onlineA", "UPC")
    }
    outputs["edge"] = ["", "nothing matches here", "the cat", "the cat sat on the mat"] + ["x"] * 996
    reference[:4] = ["the cat sat on the mat", "a b c d e", "the cat sat", "the cat sat on the mat"]
    statistics = get_metric("bleu").stats_many(outputs, reference)
    scores = sentence_bleu_of_statistics(statistics)
    expected = [
        [sacrebleu.sentence_bleu(h, [r]).score for h, r in zip(hyps, reference, strict=True)]
        for hyps in outputs.values()
    ]
    np.testing.assert_array_equal(scores, expected)
    assert scores[2, 3] == pytest.approx(100.0) and scores[2, 0] == 0.0  # identical output; empty output


def test_wmt_predictions_name_unknown_systems_and_short_outputs():
    human = pd.DataFrame({"judgment": [0, 0], "segment": [1, 1], "system": ["a", "z"], "rank": [1, 2]})
    with pytest.raises(InputError, match="without output: z"):
        wmt_predictions(human, ["a", "b"], np.zeros((2, 3)), "rnk.csv")
    human["system"] = ["a", "b"]
    with pytest.raises(InputError, match="beyond the 1 output lines"):
        wmt_predictions(human, ["a", "b"], np.zeros((2, 1)), "rnk.csv")
    scores = np.arange(6.0).reshape(2, 3)
    assert wmt_predictions(human, ["a", "b"], scores)["score"].tolist() == [1.0, 4.0]


# ------------------------------------------------------------------------------------------------ real data


def test_jcml_consensus_tau_matches_the_tool_loop(data_root):
    path = data_root / "jcml" / "wmt10-test.de-en.jcml"
    table = jcml_segment_level(load_jcml(path), path.stem, options=RankEvalOptions(n_samples=200)).pivot(
        index="measure", columns="predictor", values="value"
    )
    assert table.loc["judgments"].tolist() == [184, 184]
    candidates = load_jcml(path)
    scores = consensus_scores(candidates, "bleu")
    merged = candidates.merge(scores, on=["judgment", "system"])
    concordant = discordant = 0
    for _, group in merged.groupby("judgment"):
        # the tool compares ranks; a higher score is a better (smaller) rank, so negate scores
        c, d = tool_pair_counts((-group["score"]).tolist(), group["rank"].astype(float).tolist())
        concordant, discordant = concordant + c, discordant + d
    assert table.loc["concordant", "consensus_bleu"] == concordant
    assert table.loc["discordant", "consensus_bleu"] == discordant
    assert table.loc["tau_micro", "consensus_bleu"] == pytest.approx(
        (concordant - discordant) / (concordant + discordant)
    )
    assert ((table.loc["ndcg"] > 0) & (table.loc["ndcg"] <= 1)).all()


# The RankEval tool (lefterav/rankeval at 6b5fea5, src/evaluation/rankeval.py; Python 2.7.18, numpy 1.16.6, scipy
# 1.2.3), run outside this repository on each JCML file with a predicted_rank attribute per <tgt> = 1 + the number of
# candidates with a higher consensus score (the ranks this module derives from the same scores); values printed with
# repr from its allmetrics (its command line prints str(), 12 significant digits).
RANKEVAL_TOOL_OUTPUT = {
    ("wmt08.de-en.jcml", "consensus_bleu"): {
        "tau_micro": 0.15913555992141454,
        "tau_macro": 0.17040709028090728,
        "tau_p": 1.0861364745094699e-39,
        "concordant": 1770,
        "discordant": 1284,
        "mrr": 0.5042465753424658,
        "ndcg": 0.7435122905741333,
        "err": 0.5189990652913917,
        "avg_predicted": 3.0986301369863014,
        "bph_1": 28.22,
        "bph_2": 34.52,
        "bph_3": 23.29,
        "bph_4": 9.86,
        "bph_5": 4.11,
    },
    ("wmt08.de-en.jcml", "consensus_chrf"): {
        "tau_micro": 0.1807465618860511,
        "tau_macro": 0.18436069724413284,
        "tau_p": 1.0807302987558059e-50,
        "concordant": 1803,
        "discordant": 1251,
        "mrr": 0.5193150684931507,
        "ndcg": 0.7478142486492672,
        "err": 0.5231427742357124,
        "avg_predicted": 3.0191780821917806,
        "bph_1": 30.96,
        "bph_2": 33.7,
        "bph_3": 21.64,
        "bph_4": 10.41,
        "bph_5": 3.29,
    },
    ("wmt10-test.de-en.jcml", "consensus_bleu"): {
        "tau_micro": 0.14166666666666666,
        "tau_macro": 0.1440954293363932,
        "tau_p": 3.29425254685886e-18,
        "concordant": 959,
        "discordant": 721,
        "mrr": 0.47690217391304346,
        "ndcg": 0.7430151158890277,
        "err": 0.5557948266790398,
        "avg_predicted": 2.9510869565217392,
        "bph_1": 23.37,
        "bph_2": 31.52,
        "bph_3": 24.46,
        "bph_4": 15.76,
        "bph_5": 4.89,
    },
    ("wmt10-test.de-en.jcml", "consensus_chrf"): {
        "tau_micro": 0.18333333333333332,
        "tau_macro": 0.20269436861793552,
        "tau_p": 2.0695685608047983e-29,
        "concordant": 994,
        "discordant": 686,
        "mrr": 0.4973731884057972,
        "ndcg": 0.7450059352950701,
        "err": 0.5536516577653263,
        "avg_predicted": 2.902173913043478,
        "bph_1": 26.09,
        "bph_2": 33.15,
        "bph_3": 19.57,
        "bph_4": 15.76,
        "bph_5": 5.43,
    },
}


@pytest.mark.parametrize("name", ["wmt08.de-en.jcml", "wmt10-test.de-en.jcml"])
def test_rankeval_tool_convention_reproduces_the_tools_output(data_root, name):
    path = data_root / "jcml" / name
    options = RankEvalOptions(n_samples=20, convention="rankeval_tool")
    table = jcml_segment_level(load_jcml(path), path.stem, options=options)
    value = table.set_index(["predictor", "measure"])["value"]
    for predictor in ("consensus_bleu", "consensus_chrf"):
        expected = RANKEVAL_TOOL_OUTPUT[(name, predictor)]
        ours = {m: v for (p, m), v in value.items() if p == predictor and m.startswith("bph_")}
        assert ours == {m: v for m, v in expected.items() if m.startswith("bph_")}  # every rank, to the digit
        for measure, expected_value in expected.items():
            assert value[(predictor, measure)] == pytest.approx(expected_value, rel=1e-12, abs=0), measure
    # the tool keeps WMT08's single-candidate judgment (365 lists) where the paper convention drops it (364)
    assert (
        value[("consensus_bleu", "judgments")]
        == {"wmt08.de-en.jcml": 365, "wmt10-test.de-en.jcml": 184}[name]
    )


def test_wmt_segment_level_counts_every_untied_human_pair(data_root):
    rnk = data_root / "wmt12" / "manual-evaluation" / "wmt12.RNK_results.csv"
    systems = sorted(load_wmt_rankings(rnk)["system"].unique())
    scores = rng_for(0, "test-wmt").random((len(systems), 3003))  # continuous: no predicted ties
    human = load_wmt_rankings(rnk, "Spanish", "English")
    table = wmt_segment_level(
        human, ("Spanish", "English"), systems, {"random": scores}, RankEvalOptions(n_samples=100)
    )
    values = table.set_index("measure")["value"]
    raw = pd.read_csv(rnk)
    raw = raw[(raw.srclang == "Spanish") & (raw.trglang == "English")]
    ranks = raw[[f"system{i}rank" for i in range(1, 6)]].to_numpy()
    untied_pairs = sum(
        1 for row in ranks for a, b in itertools.combinations(row, 2) if a != -1 and b != -1 and a != b
    )
    judgments = int(((ranks != -1).sum(axis=1) >= 2).sum())
    assert values["judgments"] == judgments
    assert values["concordant"] + values["discordant"] == untied_pairs
    assert abs(values["tau_micro"]) < 0.05  # random scores carry no information


@pytest.mark.parametrize(
    ("metric", "sentence_score", "sign"),
    [("ter", sacrebleu.sentence_ter, -1), ("chrf", sacrebleu.sentence_chrf, 1)],
)
def test_segment_scores_of_statistics_metrics_equal_sacrebleu_sentence_scores(metric, sentence_score, sign):
    outputs = {"a": ["the cat sat on it", "hello world"], "b": ["a cat sat", "hello there world"]}
    refs = ["the cat sat on the mat", "hello world"]
    scores = metric_segment_scores(metric, outputs, refs)
    expected = [
        [sign * sentence_score(h, [r]).score for h, r in zip(hyps, refs, strict=True)]
        for hyps in outputs.values()
    ]
    np.testing.assert_allclose(scores, expected)


def test_predicted_ranking_file_equal_to_the_human_ranking_scores_tau_one(tmp_path, data_root) -> None:
    """A user-supplied ranking that repeats the human ranks: every pair the human did not tie is concordant and
    no predicted tie remains among them, so the WMT tau is exactly 1; a reversed ranking gives -1."""
    from mtsig.io.rankings import load_predicted_ranking

    jcml = data_root / "jcml" / "wmt10-test.de-en.jcml"
    human = load_jcml(jcml)
    same, reverse = tmp_path / "same.tsv", tmp_path / "reverse.tsv"
    for path, sign in ((same, 1), (reverse, -1)):
        lines = ["judgment\tsystem\tpredicted_rank"]
        lines += [f"{r.judgment}\t{r.system}\t{sign * float(r.rank)}" for r in human.itertuples()]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    predicted = {"same": load_predicted_ranking(same), "reverse": load_predicted_ranking(reverse)}
    table = jcml_segment_level(
        human,
        jcml.stem,
        metrics=("chrf",),
        options=RankEvalOptions(n_samples=50, seed=1),
        predicted_rankings=predicted,
    )
    value = table.set_index(["predictor", "measure"])["value"]
    assert value[("same", "tau_micro")] == 1.0
    assert value[("reverse", "tau_micro")] == -1.0
    assert -1.0 < value[("consensus_chrf", "tau_micro")] < 1.0
