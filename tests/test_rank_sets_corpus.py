"""Rank sets of systems by a corpus metric (mtsig.stats.rank_sets.corpus): the resampled corpus scores are the
metric of each pseudo-test-set (sacrebleu's BLEU of the resampled segments, not a mean of segment scores), drawn
as the resampling engine draws its paired bootstrap (the engine's p-values recounted from them), and the sets of two
systems follow from them by hand (numpy's type-7 quantile of the max-t statistic).

Oracles: sacrebleu's ``corpus_bleu`` and ``corpus_ter`` on the pseudo-test-sets the engine's draws name; the engine's
own paired bootstrap p-values; hand arithmetic of the two-system sets.
"""

from __future__ import annotations

import numpy as np
import pytest
import sacrebleu

from mtsig.errors import InputError
from mtsig.metrics import get_metric
from mtsig.stats.rank_sets.corpus import (
    corpus_rank_sets,
    problem_from_corpus_statistics,
    resampled_corpus_scores,
)
from mtsig.stats.rank_sets.summary import rank_sets_table
from mtsig.stats.resampling import ResamplingOptions, pairwise_tests
from mtsig.stats.resampling.draws import document_draws, iid_draws

REFS = [
    "the cat sat on the mat",
    "a quick brown fox jumps over the lazy dog",
    "we may find ourselves there once again",
    "but if the ceo is not accountable , who is ?",
    "all for the good",
    "this does not matter at all",
    "the weather is fine today",
    "she reads a book every night",
]
OUTPUTS = {
    "alpha": [
        "the cat sat on a mat",
        "a quick brown fox jumped over the lazy dog",
        "we may find ourselves there again",
        "but if the ceo is not responsible , who is ?",
        "all for good",
        "this does not matter",
        "the weather is good today",
        "she reads one book every night",
    ],
    "beta": [
        "cat sat mat",
        "the fast brown fox jumps over a lazy dog",
        "we could be there once more",
        "if the boss is not accountable who is",
        "all is for the good",
        "it does not matter at all",
        "weather fine",
        "she is reading books at night",
    ],
    "gamma": [
        "the cat is on the mat",
        "quick brown fox jumps over lazy dog",
        "we may find ourselves there once again",
        "but if the ceo is not accountable , who will be ?",
        "everything for the good",
        "this does not matter at all",
        "the weather is fine today",
        "she reads a book each night",
    ],
}
DOCUMENTS = np.array(["d1", "d1", "d2", "d2", "d2", "d3", "d4", "d4"])
SEED = 11


def _stats(name: str) -> tuple[object, np.ndarray]:
    metric = get_metric(name)
    return metric, metric.stats_many(OUTPUTS, REFS)


def test_resampled_scores_are_sacrebleus_bleu_of_each_pseudo_test_set() -> None:
    metric, stats = _stats("bleu")
    drawn = resampled_corpus_scores(stats, metric.score, 12, SEED)
    assert drawn.units == "segments" and drawn.n_units == len(REFS)
    indices = iid_draws(SEED, len(REFS), 0)[:12]  # the engine's first block of the paired bootstrap
    for s, name in enumerate(OUTPUTS):
        assert drawn.scores[s] == pytest.approx(sacrebleu.corpus_bleu(OUTPUTS[name], [REFS]).score, abs=1e-9)
        for b, rows in enumerate(indices):
            hypotheses = [OUTPUTS[name][i] for i in rows]
            expected = sacrebleu.corpus_bleu(hypotheses, [[REFS[i] for i in rows]]).score
            assert drawn.resampled[b, s] == pytest.approx(expected, abs=1e-9), (name, b)
    # a mean of sentence-level BLEU is another quantity: not what is ranked
    sentence_mean = np.mean(
        [sacrebleu.sentence_bleu(h, [r]).score for h, r in zip(OUTPUTS["beta"], REFS, strict=True)]
    )
    assert abs(sentence_mean - drawn.scores[1]) > 1


def test_document_resamples_draw_whole_documents() -> None:
    metric, stats = _stats("bleu")
    drawn = resampled_corpus_scores(stats, metric.score, 5, SEED, DOCUMENTS)
    assert drawn.units == "documents" and drawn.n_units == 4
    order = ["d1", "d2", "d3", "d4"]  # numbered in order of first appearance, as the engine numbers them
    for b, picked in enumerate(document_draws(SEED, 4, 0)[:5]):
        rows = [i for d in picked for i in np.flatnonzero(DOCUMENTS == order[d])]
        expected = sacrebleu.corpus_bleu([OUTPUTS["gamma"][i] for i in rows], [[REFS[i] for i in rows]]).score
        assert drawn.resampled[b, 2] == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("documents", [None, DOCUMENTS])
def test_the_draws_are_the_engines_paired_bootstrap(documents) -> None:
    """The paired bootstrap's p of "alpha better than beta", #{d_b <= 0} / B, recounted from the resampled scores,
    is the engine's: the same pseudo-test-sets."""
    metric, stats = _stats("bleu")
    test = "paired_bootstrap" if documents is None else "paired_bootstrap_documents"
    options = ResamplingOptions(seed=SEED, tests=[test], n_samples=300, documents=documents)
    result = pairwise_tests(stats, metric.score, list(OUTPUTS), options).table
    drawn = resampled_corpus_scores(stats, metric.score, 300, SEED, documents)
    names = list(OUTPUTS)
    for row in result.itertuples(index=False):
        x, y = names.index(row.sys_x), names.index(row.sys_y)
        difference = drawn.resampled[:, x] - drawn.resampled[:, y]
        assert row.p_value == (difference <= 0).sum() / 300, (row.sys_x, row.sys_y)


def test_two_systems_by_hand() -> None:
    """Two systems: the two-sided simultaneous set separates them iff |Δ| > σ c, c the type-7 0.95 quantile of
    |T*| = |d* − Δ| / σ over the draws (σ their standard deviation); otherwise both are [1, 2]."""
    metric, stats = _stats("bleu")
    pair = stats[[0, 2]]
    outcomes = []
    for coverage in (0.5, 0.995):
        sets = corpus_rank_sets(
            ["alpha", "gamma"], pair, metric.score, higher_is_better=True, n_draws=400, seed=SEED,
            documents=None, coverage=coverage, tau=1,
        )  # fmt: skip
        drawn = resampled_corpus_scores(pair, metric.score, 400, SEED)
        delta = drawn.scores[0] - drawn.scores[1]
        centred = (drawn.resampled[:, 0] - drawn.resampled[:, 1]) - delta
        sigma = centred.std(ddof=1)
        c = np.quantile(np.abs(centred) / sigma, coverage, method="linear")
        separated = abs(delta) > sigma * c
        outcomes.append(separated)
        table = rank_sets_table(sets).set_index("system")
        better, worse = ("alpha", "gamma") if delta > 0 else ("gamma", "alpha")
        expected = ([1, 1], [2, 2]) if separated else ([1, 2], [1, 2])
        assert table.loc[better, ["simultaneous_lower", "simultaneous_upper"]].tolist() == expected[0]
        assert table.loc[worse, ["simultaneous_lower", "simultaneous_upper"]].tolist() == expected[1]
    assert outcomes == [True, False]  # both cases are checked: separated at 50%, not at 99.5%


def test_ter_is_ranked_lower_is_better_and_shown_on_its_scale() -> None:
    metric, stats = _stats("ter")
    sets = corpus_rank_sets(
        list(OUTPUTS), stats, metric.score, higher_is_better=False, n_draws=200, seed=SEED, documents=None,
        coverage=0.95, tau=1,
    )  # fmt: skip
    ter = {name: sacrebleu.corpus_ter(lines, [REFS]).score for name, lines in OUTPUTS.items()}
    table = rank_sets_table(sets)
    assert list(table["system"]) == sorted(ter, key=ter.get)  # best (lowest TER) first
    assert table["estimate"].tolist() == pytest.approx(sorted(ter.values()), abs=1e-9)
    assert table["rank"].tolist() == [1, 2, 3]


def test_a_score_undefined_on_a_resample_and_too_few_draws_are_input_errors() -> None:
    metric, stats = _stats("bleu")

    def nan_sometimes(totals: np.ndarray) -> np.ndarray:
        scores = metric.score(totals)
        return np.where(scores < 20, np.nan, scores)  # beta: 26 on the test set, below 20 on some resamples

    with pytest.raises(InputError, match=r"the score of 'beta' is not a finite number on a resample"):
        problem_from_corpus_statistics(list(OUTPUTS), stats, nan_sometimes, n_draws=50, seed=SEED)
    with pytest.raises(InputError, match="1 resample"):
        problem_from_corpus_statistics(list(OUTPUTS), stats, metric.score, n_draws=1, seed=SEED)
