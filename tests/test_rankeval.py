"""Tests of mtsig.rankeval against independent oracles: hand arithmetic, SciPy, sacrebleu, literal loop transcriptions
of Avramidis (2013)'s equations / Algorithm 1 and of the RankEval tool's pair loop, and simulation with known truth."""

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
from mtsig.rankeval import (
    TIE_MODES,
    best_predicted_human_rank,
    best_predicted_vs_human,
    bootstrap_micro_taus,
    consensus_scores,
    dcg,
    expected_reciprocal_rank,
    ideal_dcg,
    jcml_segment_level,
    judgment_arrays,
    kendall_tau,
    kendall_tau_p_value,
    macro_tau,
    metric_segment_scores,
    micro_tau,
    ndcg,
    normalize_ranks,
    pair_counts,
    pairwise_tau_tests,
    ranks_from_scores,
    reciprocal_ranks,
    segment_level_table,
    tau_confidence_interval,
    wmt_predictions,
    wmt_segment_level,
)
from mtsig.resampling import bootstrap_indices
from mtsig.seeding import rng_for

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
    """Literal transcription of the RankEval tool's ``segment.kendall_tau`` pair loop (default options)."""
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
    draws = np.concatenate([bootstrap_indices(7, 40, 0), bootstrap_indices(7, 40, 1)])[:300]
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
    table = segment_level_table({"m": predicted}, human, n_samples=50).set_index("measure")["value"]
    # judgment 0: (a,b) concordant; judgment 1: (a,b) predicted tie -> discordant, (a,c), (b,c) concordant
    assert table["concordant"] == 3 and table["discordant"] == 1
    assert table["tau_micro"] == pytest.approx(0.5)
    assert table["tau_macro"] == pytest.approx((1 + 1 / 3) / 2)
    # MRR: judgment 0 best a predicted 1 -> 1; judgment 1 best b at ceiling position 2 -> 1/2
    assert table["mrr"] == pytest.approx(0.75)
    # predicted best: a (human 1); a and b tied -> worst human rank 2
    assert table["avg_predicted"] == pytest.approx(1.5)
    assert table["bph_1"] == 1 and table["bph_2"] == 1
    assert table["tau_ci_low"] <= table["tau_micro"] <= table["tau_ci_high"]


def test_tables_reject_missing_and_duplicate_predictions():
    human, predicted = small_tables()
    with pytest.raises(InputError, match="no predicted score"):
        judgment_arrays(human, predicted.drop(index=3))
    with pytest.raises(InputError, match="predicted twice"):
        judgment_arrays(human, pd.concat([predicted, predicted.iloc[[0]]]))


def test_table_is_reproducible_from_the_seed():
    human, predicted = small_tables()
    first = segment_level_table({"m": predicted}, human, n_samples=100, seed=3, experiment="e")
    second = segment_level_table({"m": predicted}, human, n_samples=100, seed=3, experiment="e")
    pd.testing.assert_frame_equal(first, second)


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
    table = jcml_segment_level(path, n_samples=200).pivot(
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


def test_wmt_segment_level_counts_every_untied_human_pair(data_root):
    rnk = data_root / "wmt12" / "manual-evaluation" / "wmt12.RNK_results.csv"
    systems = sorted(load_wmt_rankings(rnk)["system"].unique())
    scores = rng_for(0, "test-wmt").random((len(systems), 3003))  # continuous: no predicted ties
    table = wmt_segment_level(rnk, ("Spanish", "English"), systems, {"random": scores}, n_samples=100)
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
    from mtsig.io.rankings import load_jcml
    from mtsig.rankeval import jcml_segment_level

    jcml = data_root / "jcml" / "wmt10-test.de-en.jcml"
    human = load_jcml(jcml)
    same, reverse = tmp_path / "same.tsv", tmp_path / "reverse.tsv"
    for path, sign in ((same, 1), (reverse, -1)):
        lines = ["judgment\tsystem\tpredicted_rank"]
        lines += [f"{r.judgment}\t{r.system}\t{sign * float(r.rank)}" for r in human.itertuples()]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    table = jcml_segment_level(
        jcml, metrics=("chrf",), n_samples=50, seed=1, predicted_rankings={"same": same, "reverse": reverse}
    )
    value = table.set_index(["predictor", "measure"])["value"]
    assert value[("same", "tau_micro")] == 1.0
    assert value[("reverse", "tau_micro")] == -1.0
    assert -1.0 < value[("consensus_chrf", "tau_micro")] < 1.0
