"""Partial conjunction tests over test sets (Dror et al. 2017) against hand calculation, scipy, statsmodels and
a simulation with planted effects; the study's McNemar p-values against scipy."""

from __future__ import annotations

import gc

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from mtsig.stats.replicability import partial_conjunction_pvalues, replicability_count, replicated_sets
from mtsig.studies import replicability as study

#: The example of the authors' code (rtmdrr/replicability-analysis-NLP, README): six data sets.
EXAMPLE = np.array([0.168, 0.297, 0.357, 0.019, 0.218, 0.001])


def test_the_authors_example_by_hand() -> None:
    # Sorted: 0.001, 0.019, 0.168, 0.218, 0.297, 0.357. Bonferroni p^{u/6} = (6 - u + 1) p_(u), running max:
    # u=1: 6 x 0.001 = 0.006; u=2: 5 x 0.019 = 0.095; u=3: 4 x 0.168 = 0.672; u=4: 3 x 0.218 = 0.654 -> 0.672;
    # u=5: 2 x 0.297 = 0.594 -> 0.672; u=6: 0.357 -> 0.672. At alpha 0.05 only u = 1: k = 1.
    expected = [0.006, 0.095, 0.672, 0.672, 0.672, 0.672]
    np.testing.assert_allclose(partial_conjunction_pvalues(EXAMPLE, "bonferroni"), expected, rtol=1e-12)
    assert replicability_count(EXAMPLE, 0.05, "bonferroni") == 1
    assert replicated_sets(EXAMPLE, 0.05).tolist() == [5]  # the data set with p = 0.001
    # Fisher, u = 1: all six combined, -2 sum log p = 27.93... on 12 df (scipy's combination is the oracle)
    fisher = partial_conjunction_pvalues(EXAMPLE, "fisher")
    assert fisher[0] == pytest.approx(stats.combine_pvalues(EXAMPLE, method="fisher").pvalue, rel=1e-12)
    assert fisher[1] == pytest.approx(
        stats.combine_pvalues(np.sort(EXAMPLE)[1:], method="fisher").pvalue, rel=1e-12
    )
    # Fisher pools the evidence of the five largest at u = 2 (p = 0.0399, scipy above): k = 2 where Bonferroni gives 1
    assert fisher[1] < 0.05 < fisher[2] and replicability_count(EXAMPLE, 0.05, "fisher") == 2


def holm_rejections(p: np.ndarray, alpha: float) -> int:
    """statsmodels' count of Holm's step-down rejections. Its ``multipletests`` runs ``gc.collect()`` on every
    Holm call (statsmodels 0.15), about 0.2-0.5 s in a test process holding the rest of the suite; a collection
    changes no number, so it is skipped here."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(gc, "collect", lambda *args: 0)
        return int(multipletests(p, alpha, method="holm")[0].sum())


def test_every_u_equals_scipy_fisher_and_holm_counts() -> None:
    rng = np.random.default_rng(3)
    p = np.concatenate([rng.uniform(size=(25, 5)), rng.uniform(0, 0.02, size=(25, 4))], axis=1)
    fisher = partial_conjunction_pvalues(p, "fisher")
    bonferroni = partial_conjunction_pvalues(p, "bonferroni")
    for row, f, b in zip(p, fisher, bonferroni, strict=True):
        ordered = np.sort(row)
        raw = [stats.combine_pvalues(ordered[u:], method="fisher").pvalue for u in range(len(row))]
        np.testing.assert_allclose(f, np.maximum.accumulate(raw), rtol=1e-10)
        # Bonferroni's k is the number of rejections of Holm's step-down procedure (statsmodels)
        assert int((b <= 0.05).sum()) == holm_rejections(row, 0.05)
    assert (np.diff(fisher, axis=1) >= 0).all() and (np.diff(bonferroni, axis=1) >= 0).all()


def test_family_wise_error_and_bias_by_simulation_with_planted_effects() -> None:
    """N = 10 test sets, k = 4 with a true effect (z shifted by 3), 20 000 replicates: "at least k_hat" overclaims
    (k_hat > 4) at most alpha of the time (+3 standard errors), and k_hat is biased downwards, never upwards."""
    rng = np.random.default_rng(20170901)
    n_rep, n_sets, k_true, alpha = 20_000, 10, 4, 0.05
    z = rng.standard_normal((n_rep, n_sets))
    z[:, :k_true] += 3.0
    p = stats.norm.sf(z)
    margin = 3 * np.sqrt(alpha * (1 - alpha) / n_rep)
    for method in ("bonferroni", "fisher"):
        k_hat = replicability_count(p, alpha, method)
        assert (k_hat > k_true).mean() <= alpha + margin, method
        assert k_hat.mean() <= k_true and (k_hat >= 1).mean() > 0.5, method
    # Under the global null (no effect anywhere) any claim is a family-wise error.
    null = rng.uniform(size=(n_rep, n_sets))
    for method in ("bonferroni", "fisher"):
        assert (replicability_count(null, alpha, method) > 0).mean() <= alpha + margin


@pytest.mark.parametrize("a, b", [(5, 1), (3, 0), (0, 4), (7, 7), (0, 0)])
def test_more_accurate_is_scipys_one_sided_exact_binomial_on_discordant_items(a: int, b: int) -> None:
    correct_a = np.array([True] * a + [False] * b + [True] * 3 + [False] * 2)
    correct_b = np.array([False] * a + [True] * b + [True] * 3 + [False] * 2)
    only_a, only_b, p = study.more_accurate_pvalue(correct_a, correct_b)
    assert (only_a, only_b) == (a, b)
    expected = 1.0 if a + b == 0 else stats.binomtest(a, a + b, 0.5, alternative="greater").pvalue
    assert p == pytest.approx(expected, rel=1e-12)


def test_tests_replicability_on_hand_made_experiments() -> None:
    gold = pd.DataFrame(
        {"gold": "g", "sys_x": ["A", "A", "B"], "sys_y": ["B", "C", "C"], "alpha": 0.05, "conclusion": ["sys_x", "tie", "sys_y"],
         "decided_by": "x"}
    )  # fmt: skip
    rows = []
    # AR right on all three pairs, the paired bootstrap wrong on two (one metric)
    for test, conclusions in [("approximate_randomization", ["sys_x", "tie", "sys_y"]), ("paired_bootstrap", ["tie", "sys_x", "sys_y"]), ("bootstrap", ["sys_x", "tie", "sys_y"])]:  # fmt: skip
        for (x, y), c in zip([("A", "B"), ("A", "C"), ("B", "C")], conclusions, strict=True):
            rows.append(("bleu", x, y, test, 0.05, c))
    tests = pd.DataFrame(rows, columns=["metric", "sys_x", "sys_y", "test", "alpha", "conclusion"])
    per_set, combined = study.tests_replicability({"e1": (tests, gold), "e2": (tests, gold)}, 0.05)
    row = per_set.set_index(["comparison", "experiment"]).loc[
        ("approximate_randomization > paired_bootstrap", "e1")
    ]
    assert (row["only_a"], row["only_b"]) == (2, 0) and row["p_value"] == pytest.approx(0.25)
    pc = combined[
        (combined["comparison"] == "approximate_randomization > paired_bootstrap")
        & (combined["method"] == "bonferroni")
    ]
    assert pc["p_partial_conjunction"].tolist() == pytest.approx([0.5, 0.5])  # 2 x 0.25, then max(0.25, 0.5)


def test_metrics_replicability_uses_the_listed_language_pairs_only() -> None:
    rows = []
    for lp, p in [("aa", 0.001), ("bb", 0.002), ("cc", 0.5), ("aa_sub", 0.0001)]:
        rows.append((lp, "z", "all", "M1", "M2", p))
        rows.append((lp, "z", "all", "HUMAN_RAW", "M2", 0.0))
        rows.append((lp, "raw", "all", "M1", "M2", 0.0))
    williams = pd.DataFrame(rows, columns=["lp", "human", "systems", "metric_a", "metric_b", "p_value"])
    table = study.metrics_replicability(williams, ["aa", "bb", "cc"], 0.05)
    assert table[["metric_a", "metric_b", "n_sets"]].values.tolist() == [["M1", "M2", 3]]
    # Bonferroni: 3 x 0.001, 2 x 0.002 <= 0.05, 0.5 not: k = 2, in aa and bb
    assert table.loc[0, "k_bonferroni"] == 2 and table.loc[0, "replicated_in"] == "aa,bb"


def test_protocol_replicability_by_hand() -> None:
    """Per (experiment, protocol, kind) and ordered metric pair, by hand (Bonferroni, alpha 0.05): p-values 0.001,
    0.01, 0.2 over three language pairs give 3 x 0.001, 2 x 0.01 <= 0.05 < 0.2, so k = 2 in en-de and he-en
    (Holm's order); 0.5, 0.6, 0.9 give k = 0; a second task kind is combined on its own."""
    rows = []
    for lp, ab, ba, other in (
        ("en-de", 0.001, 0.9, 0.04),
        ("he-en", 0.01, 0.6, 0.04),
        ("zh-en", 0.2, 0.5, 0.04),
    ):
        rows += [
            {"protocol": "wmt23", "kind": "sys pearson", "lp": lp, "metric_a": "A", "metric_b": "B", "p_value": ab},
            {"protocol": "wmt23", "kind": "sys pearson", "lp": lp, "metric_a": "B", "metric_b": "A", "p_value": ba},
            {"protocol": "wmt23", "kind": "seg acc-t (item)", "lp": lp, "metric_a": "A", "metric_b": "B",
             "p_value": other},
        ]  # fmt: skip
    table = study.protocol_replicability(pd.DataFrame(rows).assign(experiment="wmt23"), 0.05)
    assert list(table.columns[:3]) == study.PROTOCOL_KEYS
    by = table.set_index(["kind", "metric_a", "metric_b"])
    assert by.loc[("sys pearson", "A", "B"), "k_bonferroni"] == 2
    assert by.loc[("sys pearson", "A", "B"), "replicated_in"] == "en-de,he-en"
    assert by.loc[("sys pearson", "A", "B"), "significant_alone"] == 2
    assert by.loc[("sys pearson", "B", "A"), "k_bonferroni"] == 0
    # 0.04 in all three: u = 3 gives 1 x 0.04 <= 0.05, but u = 1 gives 3 x 0.04 > 0.05, and k counts from u = 1
    assert by.loc[("seg acc-t (item)", "A", "B"), "k_bonferroni"] == 0
    assert by.loc[("seg acc-t (item)", "A", "B"), "n_sets"] == 3
    empty = study.protocol_replicability(pd.DataFrame(rows).iloc[:0].assign(experiment="wmt23"), 0.05)
    assert empty.empty and list(empty.columns) == list(table.columns)


def test_run_replicability_without_experiments_williams_or_protocols() -> None:
    """A run with only the metrics task's Williams tests: the tests' tables are empty, the protocols' absent
    (None: no ``protocol_metrics.tsv`` rows), and the metrics table is the hand-checked k = 2 of two language
    pairs at p 0.001 and 0.002 (Bonferroni: 2 x 0.002 <= 0.05)."""
    williams = pd.DataFrame(
        [(lp, "z", "all", "M1", "M2", p) for lp, p in [("aa", 0.001), ("bb", 0.002)]],
        columns=["lp", "human", "systems", "metric_a", "metric_b", "p_value"],
    )
    result = study.run_replicability({}, williams, ["aa", "bb"], None, 0.05)
    assert result.tests.empty and result.tests_combined.empty and result.protocols is None
    assert result.metrics.loc[0, "k_bonferroni"] == 2 and result.metrics.loc[0, "replicated_in"] == "aa,bb"
    nothing = study.run_replicability({}, None, ["aa"], None, 0.05)
    assert nothing.metrics.empty
