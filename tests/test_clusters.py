"""Significance clusters (mtsig.stats.clusters).

Oracles: hand-worked significance patterns (including non-transitive ones where the rules differ), brute-force
checks of the definitions on random patterns, hand-adjusted p-values for the corrections, and the clusters the WMT21
organisers published together with their Wilcoxon rank-sum p-value matrices (Akhbardeh et al. 2021, "Findings of
the 2021 Conference on Machine Translation (WMT21)"; files ``humaneval/newstest2021-toen/adwilcox-{jaen,isen}.csv``,
``ad-sys-ranking-{ja,is}-en-z.csv`` and ``clusters.csv`` of github.com/wmt-conference/wmt21-news-systems, commit
124f238c3dd88ff6b70a7118c396c861af0a3dd7), embedded below as literal values.
"""

from __future__ import annotations

from itertools import permutations

import numpy as np
import pandas as pd
import pytest

from mtsig.errors import InputError
from mtsig.report.clusters import clusters_latex
from mtsig.stats import resampling as rs
from mtsig.stats.clusters import (
    CLUSTER_COLUMNS,
    CLUSTER_RULES,
    beats_matrix,
    cluster_boundaries,
    clusters_from_gold,
    clusters_from_tests,
    significance_clusters,
)

# ------------------------------------------------------------------------------------------ WMT21 oracles

#: WMT21 ja-en: average DA z-score of each system (ad-sys-ranking-ja-en-z.csv), in the published order.
JA_EN_Z = {
    "HuaweiTSC.5": 0.141,
    "IIE-MT.0": 0.082,
    "NiuTrans.12": 0.046,
    "KwaiNLP.2": 0.033,
    "Facebook-AI.4": 0.032,
    "XMU.10": 0.025,
    "capitalmarvel.1": 0.011,
    "Online-B.7": 0.001,
    "MiSS.13": -0.031,
    "Online-W.15": -0.039,
    "WeChat-AI.11": -0.062,
    "Online-A.8": -0.08,
    "Online-G.9": -0.14,
    "movelikeajaguar.14": -0.157,
    "Online-Y.6": -0.189,
    "Illini.3": -0.193,
}
#: adwilcox-jaen.csv: one-sided Wilcoxon rank-sum p-value of "row better than column" (6 significant digits). The
#: file writes 0.12 for every other cell (non-significant and lower-triangle cells); so does :func:`wmt_tests`.
JA_EN_P = {
    "HuaweiTSC.5": {
        "IIE-MT.0": 0.0430183,
        "NiuTrans.12": 0.0255152,
        "KwaiNLP.2": 0.000654308,
        "Facebook-AI.4": 0.0153121,
        "XMU.10": 5.77985e-05,
        "capitalmarvel.1": 0.000341422,
        "Online-B.7": 2.78564e-05,
        "MiSS.13": 9.27125e-06,
        "Online-W.15": 3.37098e-05,
        "WeChat-AI.11": 3.68898e-08,
        "Online-A.8": 2.08691e-10,
        "Online-G.9": 3.0924e-14,
        "movelikeajaguar.14": 1.63691e-13,
        "Online-Y.6": 9.09508e-15,
        "Illini.3": 3.61281e-15,
    },
    "IIE-MT.0": {
        "XMU.10": 0.00778912,
        "capitalmarvel.1": 0.0340241,
        "Online-B.7": 0.00552474,
        "MiSS.13": 0.00307837,
        "Online-W.15": 0.00860139,
        "WeChat-AI.11": 1.76711e-05,
        "Online-A.8": 7.11206e-07,
        "Online-G.9": 7.5147e-10,
        "movelikeajaguar.14": 1.03782e-09,
        "Online-Y.6": 5.67945e-11,
        "Illini.3": 5.5596e-11,
    },
    "NiuTrans.12": {
        "XMU.10": 0.0186085,
        "Online-B.7": 0.0101519,
        "MiSS.13": 0.00447847,
        "Online-W.15": 0.016846,
        "WeChat-AI.11": 7.98305e-05,
        "Online-A.8": 1.536e-06,
        "Online-G.9": 2.39123e-09,
        "movelikeajaguar.14": 7.41326e-09,
        "Online-Y.6": 4.80607e-10,
        "Illini.3": 3.16625e-10,
    },
    "KwaiNLP.2": {
        "MiSS.13": 0.0424269,
        "WeChat-AI.11": 0.0019597,
        "Online-A.8": 7.21622e-05,
        "Online-G.9": 3.66957e-07,
        "movelikeajaguar.14": 5.90536e-07,
        "Online-Y.6": 8.15662e-08,
        "Illini.3": 3.50637e-08,
    },
    "Facebook-AI.4": {
        "XMU.10": 0.0465421,
        "Online-B.7": 0.0389796,
        "MiSS.13": 0.0202508,
        "Online-W.15": 0.0375617,
        "WeChat-AI.11": 0.000373393,
        "Online-A.8": 1.80938e-05,
        "Online-G.9": 4.17722e-08,
        "movelikeajaguar.14": 8.24098e-08,
        "Online-Y.6": 8.6769e-09,
        "Illini.3": 4.00673e-09,
    },
    "XMU.10": {
        "Online-A.8": 0.0103407,
        "Online-G.9": 0.00042345,
        "movelikeajaguar.14": 0.000468606,
        "Online-Y.6": 2.08089e-05,
        "Illini.3": 2.9975e-05,
    },
    "capitalmarvel.1": {
        "WeChat-AI.11": 0.00829451,
        "Online-A.8": 0.00082239,
        "Online-G.9": 6.75978e-06,
        "movelikeajaguar.14": 1.26819e-05,
        "Online-Y.6": 1.13701e-06,
        "Illini.3": 7.59731e-07,
    },
    "Online-B.7": {
        "Online-A.8": 0.0144352,
        "Online-G.9": 0.000412178,
        "movelikeajaguar.14": 0.00067945,
        "Online-Y.6": 5.11323e-05,
        "Illini.3": 3.61328e-05,
    },
    "MiSS.13": {
        "Online-A.8": 0.0211428,
        "Online-G.9": 0.000717648,
        "movelikeajaguar.14": 0.00143011,
        "Online-Y.6": 0.000206073,
        "Illini.3": 9.00395e-05,
    },
    "Online-W.15": {
        "Online-A.8": 0.00718337,
        "Online-G.9": 0.00018951,
        "movelikeajaguar.14": 0.00034097,
        "Online-Y.6": 2.73061e-05,
        "Illini.3": 2.16113e-05,
    },
    "WeChat-AI.11": {
        "Online-G.9": 0.0411422,
        "movelikeajaguar.14": 0.048182,
        "Online-Y.6": 0.00771669,
        "Illini.3": 0.00730896,
    },
    "Online-A.8": {"Online-Y.6": 0.0396728, "Illini.3": 0.0283006},
}
#: clusters.csv, ja-en rows: (SYSTEM, WINS, CLUSTER_START, CLUSTER_END).
JA_EN_CLUSTERS = [
    ("HuaweiTSC.5", 15, 1, 1),
    ("IIE-MT.0", 11, 2, 16),
    ("NiuTrans.12", 10, 2, 16),
    ("KwaiNLP.2", 7, 2, 16),
    ("Facebook-AI.4", 10, 2, 16),
    ("XMU.10", 5, 2, 16),
    ("capitalmarvel.1", 6, 2, 16),
    ("Online-B.7", 5, 2, 16),
    ("MiSS.13", 5, 2, 16),
    ("Online-W.15", 5, 2, 16),
    ("WeChat-AI.11", 4, 2, 16),
    ("Online-A.8", 2, 2, 16),
    ("Online-G.9", 0, 2, 16),
    ("movelikeajaguar.14", 0, 2, 16),
    ("Online-Y.6", 0, 2, 16),
    ("Illini.3", 0, 2, 16),
]

#: WMT21 is-en, the same three files: four clusters, two of them single systems.
IS_EN_Z = {
    "Facebook-AI.8": 0.293,
    "Manifold.0": 0.112,
    "NiuTrans.7": 0.045,
    "Online-B.4": 0.028,
    "HuaweiTSC.9": 0.013,
    "Mideind.1": 0.009,
    "Online-A.5": 0.003,
    "Allegro.eu.2": -0.037,
    "Online-Y.3": -0.08,
    "Online-G.6": -0.256,
}
IS_EN_P = {
    "Facebook-AI.8": {
        "Manifold.0": 0.000263192,
        "NiuTrans.7": 4.93661e-08,
        "Online-B.4": 2.0852e-11,
        "HuaweiTSC.9": 6.12719e-09,
        "Mideind.1": 2.16567e-10,
        "Online-A.5": 2.22788e-11,
        "Allegro.eu.2": 1.12729e-13,
        "Online-Y.3": 4.95613e-15,
        "Online-G.6": 6.51415e-36,
    },
    "Manifold.0": {
        "NiuTrans.7": 0.0265366,
        "Online-B.4": 0.000791489,
        "HuaweiTSC.9": 0.00784899,
        "Mideind.1": 0.00233692,
        "Online-A.5": 0.000793755,
        "Allegro.eu.2": 2.83781e-05,
        "Online-Y.3": 2.64219e-06,
        "Online-G.6": 6.38282e-21,
    },
    "NiuTrans.7": {"Allegro.eu.2": 0.00503974, "Online-Y.3": 0.00348333, "Online-G.6": 4.78342e-15},
    "Online-B.4": {"Online-Y.3": 0.0434366, "Online-G.6": 3.89131e-12},
    "HuaweiTSC.9": {"Allegro.eu.2": 0.0249579, "Online-Y.3": 0.00987386, "Online-G.6": 3.22372e-14},
    "Mideind.1": {"Allegro.eu.2": 0.0379252, "Online-Y.3": 0.0183008, "Online-G.6": 2.05773e-13},
    "Online-A.5": {"Online-G.6": 3.15095e-11},
    "Allegro.eu.2": {"Online-G.6": 3.69149e-07},
    "Online-Y.3": {"Online-G.6": 8.91949e-07},
}
IS_EN_CLUSTERS = [
    ("Facebook-AI.8", 9, 1, 1),
    ("Manifold.0", 8, 2, 2),
    ("NiuTrans.7", 3, 3, 9),
    ("Online-B.4", 2, 3, 9),
    ("HuaweiTSC.9", 3, 3, 9),
    ("Mideind.1", 3, 3, 9),
    ("Online-A.5", 1, 3, 9),
    ("Allegro.eu.2", 1, 3, 9),
    ("Online-Y.3", 1, 3, 9),
    ("Online-G.6", 0, 10, 10),
]


def wmt_tests(z: dict[str, float], p: dict[str, dict[str, float]]) -> pd.DataFrame:
    """The organisers' matrix as an mtsig tests table: both orders of every pair, 0.12 where the file has it."""
    rows = [
        (x, y, "wilcoxon_rank_sum", z[x] - z[y], p.get(x, {}).get(y, 0.12)) for x, y in permutations(z, 2)
    ]
    return pd.DataFrame(rows, columns=["sys_x", "sys_y", "test", "statistic", "p_value"])


def cluster_spans(clusters: pd.DataFrame) -> list[tuple[int, int]]:
    """(first, last) position (1-based) of each system's cluster, as clusters.csv's CLUSTER_START/END."""
    positions = pd.Series(np.arange(1, len(clusters) + 1), index=clusters.index)
    first = positions.groupby(clusters["cluster"]).transform("min")
    last = positions.groupby(clusters["cluster"]).transform("max")
    return list(zip(first.tolist(), last.tolist(), strict=True))


@pytest.mark.parametrize("rule", CLUSTER_RULES)
@pytest.mark.parametrize("case", ["ja-en", "is-en"])
def test_wmt21_published_clusters_are_reproduced(case: str, rule: str) -> None:
    z, p, published = {
        "ja-en": (JA_EN_Z, JA_EN_P, JA_EN_CLUSTERS),
        "is-en": (IS_EN_Z, IS_EN_P, IS_EN_CLUSTERS),
    }[case]
    clusters = clusters_from_tests(wmt_tests(z, p), z, alpha=0.05, correction="none", rule=rule)
    assert list(clusters["system"]) == [name for name, *_ in published]
    assert list(clusters["wins"]) == [wins for _, wins, _, _ in published]
    assert cluster_spans(clusters) == [(start, end) for *_, start, end in published]
    # WMT's rank range (make_rankings.py): best 1 + losses, worst N - wins.
    assert list(clusters["rank_high"]) == [len(z) - wins for _, wins, _, _ in published]
    assert list(clusters.columns) == list(CLUSTER_COLUMNS)


# ------------------------------------------------------------------------------------------ hand-worked


def clusters_of(frame: pd.DataFrame) -> list[list[str]]:
    return [list(group["system"]) for _, group in frame.groupby("cluster", sort=True)]


def run(
    scores: dict[str, float], better: list[tuple[str, str]], rule: str = "all_pairs", **kwargs
) -> pd.DataFrame:
    return significance_clusters(scores, better, rule=rule, **kwargs)


ABC = {"A": 3.0, "B": 2.0, "C": 1.0}


def test_total_order_and_no_significance() -> None:
    every = [(x, y) for x, y in permutations("ABCD", 2) if x < y]
    scores = {"A": 4.0, "B": 3.0, "C": 2.0, "D": 1.0}
    for rule in CLUSTER_RULES:
        frame = run(scores, every, rule)
        assert clusters_of(frame) == [["A"], ["B"], ["C"], ["D"]]
        assert list(frame["rank_low"]) == list(frame["rank_high"]) == [1, 2, 3, 4]
        none = run(scores, [], rule)
        assert clusters_of(none) == [["A", "B", "C", "D"]]
        assert list(none["rank_low"]) == [1, 1, 1, 1] and list(none["rank_high"]) == [4, 4, 4, 4]


def test_non_transitive_significance_separates_the_rules() -> None:
    """A > B and B > C significant, A vs C not. A does not beat C, so no line may separate them and all_pairs keeps
    one cluster; both WMT rules draw a line after B anyway (B beats every system below it, and the fewest wins
    above the line, 1, equals the number of systems below it), ranking A above C without a significant difference.
    Rank ranges: A 1-2 (beats one system), B 2 (beaten by one, beats one), C 2-3."""
    frame = run(ABC, [("A", "B"), ("B", "C")])
    assert clusters_of(frame) == [["A", "B", "C"]]
    assert list(zip(frame["rank_low"], frame["rank_high"], strict=True)) == [(1, 2), (2, 2), (2, 3)]
    for rule in ("wmt_min_wins", "wmt_last_system"):
        assert clusters_of(run(ABC, [("A", "B"), ("B", "C")], rule)) == [["A", "B"], ["C"]]


def test_only_the_extremes_differ_so_nothing_is_split() -> None:
    """A > C significant, A vs B and B vs C not. A greedy rule that opens a new cluster as soon as a system is
    significantly worse than the top of the current cluster would give {A, B} {C}, separating B from C although
    they do not differ; every rule here keeps one cluster."""
    for rule in CLUSTER_RULES:
        assert clusters_of(run(ABC, [("A", "C")], rule)) == [["A", "B", "C"]]


def test_wmt_last_system_splits_below_a_system_that_beats_everything_under_it() -> None:
    """A beats nobody, B beats C: only the last-system rule draws a line after B (A does not beat C)."""
    assert clusters_of(run(ABC, [("B", "C")], "all_pairs")) == [["A", "B", "C"]]
    assert clusters_of(run(ABC, [("B", "C")], "wmt_min_wins")) == [["A", "B", "C"]]
    assert clusters_of(run(ABC, [("B", "C")], "wmt_last_system")) == [["A", "B"], ["C"]]


def test_equal_scores_are_never_split_and_keep_the_given_order() -> None:
    scores = {"B": 2.0, "A": 2.0, "C": 1.0}
    # A claimed significant over B despite equal scores (e.g. a rank test): ignored, as WMT ignores z-losers' wins.
    better = [("A", "B"), ("A", "C"), ("B", "C")]
    for rule in CLUSTER_RULES:
        frame = run(scores, better, rule)
        assert clusters_of(frame) == [["B", "A"], ["C"]]
        assert list(frame["wins"]) == [1, 1, 0]


def test_significance_against_the_score_order_is_ignored() -> None:
    frame = run(ABC, [("C", "A"), ("A", "B")])  # C "beats" A although it scores lower
    assert list(frame["wins"]) == [1, 0, 0] and list(frame["losses"]) == [0, 1, 0]


def test_lower_is_better_scores_rank_ascending() -> None:
    ter = {"X": 60.0, "Y": 50.0, "Z": 55.0}
    frame = run(ter, [("Y", "X"), ("Y", "Z")], higher_is_better=False)
    assert list(frame["system"]) == ["Y", "Z", "X"]
    assert clusters_of(frame) == [["Y"], ["Z", "X"]]
    assert list(frame["score"]) == [50.0, 55.0, 60.0]


@pytest.mark.parametrize("seed", range(40))
def test_random_patterns_obey_the_definitions(seed: int) -> None:
    """Brute force: all_pairs clusters are consistent (a system above a line beats every system below it) and
    maximal (no line is missing), each rule's lines contain the previous rule's, and equal scores are never split."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 9))
    names = [f"s{i}" for i in range(n)]
    scores = dict(zip(names, rng.integers(0, 5, size=n).astype(float), strict=True))
    better = [(x, y) for x, y in permutations(names, 2) if rng.random() < 0.6]
    frames = {rule: run(scores, better, rule) for rule in CLUSTER_RULES}
    order = list(frames["all_pairs"]["system"])
    significant = set(better)
    for i in range(n - 1):
        above, below = order[: i + 1], order[i + 1 :]
        consistent = all((x, y) in significant and scores[x] > scores[y] for x in above for y in below)
        line = frames["all_pairs"]["cluster"].iloc[i] != frames["all_pairs"]["cluster"].iloc[i + 1]
        assert line == consistent
    lines = {rule: frame["cluster"].diff().fillna(0).to_numpy()[1:] > 0 for rule, frame in frames.items()}
    assert (lines["all_pairs"] <= lines["wmt_min_wins"]).all()
    assert (lines["wmt_min_wins"] <= lines["wmt_last_system"]).all()
    for frame in frames.values():
        values = frame["score"].to_numpy()
        assert not (frame["cluster"].diff().to_numpy()[1:][values[1:] == values[:-1]] > 0).any()


def test_boundaries_by_hand_from_a_beats_matrix() -> None:
    order = ["A", "B", "C", "D"]
    scores = {"A": 4.0, "B": 3.0, "C": 2.0, "D": 1.0}
    beats = beats_matrix(order, scores, [("A", "B"), ("A", "C"), ("B", "C"), ("B", "D"), ("C", "D")], True)
    # wins: A 2, B 2, C 1, D 0. all_pairs: after A? A does not beat D -> no; after B? A-D missing -> no; after C?
    # A-D missing -> no. min_wins: min(2)=2 vs 3; min(2,2)=2 vs 2 -> line; min(2,2,1)=1 vs 1 -> line.
    # last_system: A beats B, C, D? no; B beats C, D -> line; C beats D -> line.
    assert cluster_boundaries(beats, "all_pairs").tolist() == [False, False, False]
    assert cluster_boundaries(beats, "wmt_min_wins").tolist() == [False, True, True]
    assert cluster_boundaries(beats, "wmt_last_system").tolist() == [False, True, True]


# ------------------------------------------------------------------------ from tests tables and corrections


def one_sided_tests(p: dict[tuple[str, str], float], scores: dict[str, float]) -> pd.DataFrame:
    rows = [(x, y, "paired_bootstrap", scores[x] - scores[y], p[(x, y)]) for x, y in permutations(scores, 2)]
    return pd.DataFrame(rows, columns=["sys_x", "sys_y", "test", "statistic", "p_value"])


def test_multiple_testing_corrections_by_hand() -> None:
    """One-sided family of the 6 ordered p-values. Holm: ascending 0.001, 0.008, 0.02 -> x6, x5, x4 = 0.006,
    0.04, 0.08, so B > C is no longer significant at 0.05. Benjamini-Hochberg: 6p/i = 0.006, 0.024, 0.04: all
    three stay significant."""
    p = {
        ("A", "B"): 0.008,
        ("A", "C"): 0.001,
        ("B", "C"): 0.02,
        ("B", "A"): 0.992,
        ("C", "A"): 0.999,
        ("C", "B"): 0.98,
    }
    tests = one_sided_tests(p, ABC)
    assert clusters_of(clusters_from_tests(tests, ABC, correction="none")) == [["A"], ["B"], ["C"]]
    assert clusters_of(clusters_from_tests(tests, ABC, correction="holm")) == [["A"], ["B", "C"]]
    assert clusters_of(clusters_from_tests(tests, ABC, correction="benjamini_hochberg")) == [
        ["A"],
        ["B"],
        ["C"],
    ]
    assert clusters_of(clusters_from_tests(tests, ABC, alpha=0.01)) == [["A"], ["B", "C"]]


def test_two_sided_tests_read_the_statistic_sign() -> None:
    rows = []
    for x, y in permutations(ABC, 2):
        p = {frozenset("AB"): 0.01, frozenset("AC"): 0.001, frozenset("BC"): 0.3}[frozenset((x, y))]
        rows.append((x, y, "approximate_randomization_two_sided", ABC[x] - ABC[y], p))
    tests = pd.DataFrame(rows, columns=["sys_x", "sys_y", "test", "statistic", "p_value"])
    assert clusters_of(clusters_from_tests(tests, ABC)) == [["A"], ["B", "C"]]


def test_gold_p_values_give_the_same_clusters_as_a_tests_table() -> None:
    p = {
        ("A", "B"): 0.008,
        ("A", "C"): 0.001,
        ("B", "C"): 0.2,
        ("B", "A"): 0.992,
        ("C", "A"): 0.999,
        ("C", "B"): 0.8,
    }
    gold = pd.DataFrame(
        [(x, y, "adequacy", "segment", 100, 100, 0.0, value) for (x, y), value in p.items()],
        columns=["sys_x", "sys_y", "criterion", "unit", "n_x", "n_y", "statistic", "p_value"],
    )
    from_gold = clusters_from_gold(gold, ABC)
    pd.testing.assert_frame_equal(from_gold, clusters_from_tests(one_sided_tests(p, ABC), ABC))
    assert clusters_of(from_gold) == [["A"], ["B", "C"]]


def test_identical_systems_share_a_cluster_with_engine_p_values() -> None:
    """A copy of a system (identical statistics) always ties with it; a much better system stands alone."""
    rng = np.random.default_rng(1)
    scores = rng.normal(50.0, 10.0, size=(3, 300))
    scores[1] = scores[0]
    scores[2] = scores[0] + 5.0 + rng.normal(0.0, 1.0, size=300)
    stats = np.stack([scores, np.ones_like(scores)], axis=-1)
    result = rs.pairwise_tests(
        stats,
        lambda t: t[..., 0] / t[..., 1],
        ["base", "copy", "better"],
        rs.ResamplingOptions(tests=("paired_bootstrap",), n_samples=1000, seed=3),
    )
    for rule in CLUSTER_RULES:
        frame = clusters_from_tests(result.table, result.system_scores, rule=rule)
        assert clusters_of(frame) == [["better"], ["base", "copy"]]


def test_bad_inputs_raise_input_errors() -> None:
    tests = one_sided_tests(dict.fromkeys(permutations(ABC, 2), 0.5), ABC)
    with pytest.raises(InputError, match="unknown cluster rule"):
        clusters_from_tests(tests, ABC, rule="greedy")
    with pytest.raises(InputError, match="alpha"):
        clusters_from_tests(tests, ABC, alpha=0.0)
    with pytest.raises(InputError, match="not a finite number"):
        run({"A": float("nan"), "B": 1.0}, [])
    with pytest.raises(InputError, match="without a score"):
        run(ABC, [("A", "Q")])
    with pytest.raises(InputError, match="not in the experiment's systems"):
        clusters_from_tests(tests, {"A": 1.0, "B": 0.0})
    two = pd.concat([tests, tests.assign(test="bootstrap")], ignore_index=True)
    with pytest.raises(InputError, match="several tests"):
        clusters_from_tests(two, ABC)


# ------------------------------------------------------------------------------------------------ LaTeX


def test_latex_table_has_booktabs_rules_and_a_midrule_between_clusters() -> None:
    scores = {"QCRI--primary": 30.25, "jhu_hiero": 29.5, "onlineA": 20.0}
    frame = run(scores, [("QCRI--primary", "onlineA"), ("jhu_hiero", "onlineA")])
    latex = clusters_latex(frame, caption="WMT12 es-en, BLEU", label="tab:clusters", score_header="BLEU")
    expected = "\n".join(
        [
            "% requires \\usepackage{booktabs}",
            r"\begin{table}[t]",
            r"\centering",
            r"\small",
            r"\begin{tabular}{rlr}",
            r"\toprule",
            r"Rank & System & BLEU \\",
            r"\midrule",
            r"1--2 & QCRI-{}-primary & 30.25 \\",
            r"1--2 & jhu\_hiero & 29.50 \\",
            r"\midrule",
            r"3 & onlineA & 20.00 \\",
            r"\bottomrule",
            r"\end{tabular}",
            r"\caption{WMT12 es-en, BLEU}",
            r"\label{tab:clusters}",
            r"\end{table}",
        ]
    )
    assert latex == expected + "\n"


def test_experiment_clusters_put_each_metric_and_gold_ranking_side_by_side() -> None:
    """By hand: the metric's p-values separate all three systems (A > B > C, every pair significant); the gold only
    A > C, so under all_pairs it is one cluster (neither boundary has every system above beating every system
    below), and C ranks above B by the human scores (lower TER is better for the other metric, same clusters)."""
    from mtsig.report.clusters import experiment_clusters_latex
    from mtsig.stats.clusters import clusters_side_by_side, experiment_clusters

    p_metric = {("A", "B"): 0.01, ("A", "C"): 0.001, ("B", "C"): 0.02}
    p_metric |= {(y, x): 1 - v for (x, y), v in p_metric.items()}
    ter = {"A": 40.0, "B": 45.0, "C": 50.0}
    ter_tests = one_sided_tests(p_metric, {s: -v for s, v in ter.items()})
    gold_p = {
        ("A", "B"): 0.3,
        ("A", "C"): 0.01,
        ("B", "C"): 0.7,
        ("B", "A"): 0.7,
        ("C", "A"): 0.99,
        ("C", "B"): 0.3,
    }
    gold = pd.DataFrame(
        [("wilcoxon", x, y, "adequacy", v) for (x, y), v in gold_p.items()],
        columns=["gold", "sys_x", "sys_y", "criterion", "p_value"],
    )
    table = experiment_clusters(
        {"bleu": one_sided_tests(p_metric, ABC), "ter": ter_tests},
        {"bleu": ABC, "ter": ter},
        {"bleu": True, "ter": False},
        gold,
        {"A": 0.3, "C": 0.1, "B": 0.0},
    )
    blocks = {source: clusters_of(rows) for source, rows in table.groupby("source", sort=False)}
    assert blocks == {
        "bleu": [["A"], ["B"], ["C"]],
        "ter": [["A"], ["B"], ["C"]],
        "human:wilcoxon": [["A", "C", "B"]],
    }
    assert list(table["kind"]) == ["metric"] * 6 + ["human"] * 3
    wide = clusters_side_by_side(table)
    assert list(wide.columns) == ["position", "bleu", "ter", "human:wilcoxon"]
    assert list(wide["human:wilcoxon"]) == ["1. A", "1. C", "1. B"]
    latex = experiment_clusters_latex(table, experiment="toy", settings="paired_bootstrap, alpha 0.05")
    assert latex.count(r"\begin{table}") == 3 and "human:wilcoxon" in latex
    with pytest.raises(InputError, match="no rows of test 'bootstrap'"):
        experiment_clusters(
            {"bleu": one_sided_tests(p_metric, ABC)}, {"bleu": ABC}, {"bleu": True}, test="bootstrap"
        )
