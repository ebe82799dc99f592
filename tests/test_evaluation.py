"""mtsig.evaluation against independent oracles: the paper's table cells, statsmodels, and hand calculations."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from mtsig.errors import InputError
from mtsig.stats import evaluation as ev

SYSTEMS = ["A", "B", "C"]


def make_tests_table(rows: list[tuple[str, str, str, float, float]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["sys_x", "sys_y", "test", "statistic", "p_value"])


def one_sided_rows(test: str, p_x_better: dict[tuple[str, str], float]) -> list[tuple]:
    """Both ordered rows of each pair: p(Y>X) = 1 - p(X>Y), as for a continuous one-sided test."""
    rows = []
    for (x, y), p in p_x_better.items():
        rows.append((x, y, test, 0.0, p))
        rows.append((y, x, test, 0.0, 1.0 - p))
    return rows


# ----------------------------------------------------------------------------------------- conclusions


def test_one_sided_conclusions_follow_the_paper_rule():
    table = make_tests_table(
        one_sided_rows("bootstrap", {("A", "B"): 0.004, ("A", "C"): 0.97, ("B", "C"): 0.03})
        # listed in the other orientation: C vs B's rows are the same two rows
    )
    out = ev.conclusions_of_tests(table, [0.05, 0.01], SYSTEMS)
    got = {(r.sys_x, r.sys_y, r.alpha): r.conclusion for r in out.itertuples()}
    # A-B: p(A>B)=0.004 <= both alphas. A-C: p(C>A)=1-0.97=0.03 <= 0.05 only. B-C: p(B>C)=0.03 <= 0.05 only.
    assert got == {
        ("A", "B", 0.05): "sys_x",
        ("A", "C", 0.05): "sys_y",
        ("B", "C", 0.05): "sys_x",
        ("A", "B", 0.01): "sys_x",
        ("A", "C", 0.01): "tie",
        ("B", "C", 0.01): "tie",
    }
    assert list(out.columns) == ["sys_x", "sys_y", "test", "alpha", "conclusion"]


def test_two_sided_conclusions_take_the_direction_of_the_statistic():
    rows = []
    for test in ("approximate_randomization_two_sided", "rm_bootstrap"):
        for x, y, d, p in (("A", "B", -0.8, 0.02), ("A", "C", 0.3, 0.2), ("B", "C", 1.1, 0.001)):
            rows += [(x, y, test, d, p), (y, x, test, -d, p)]
    out = ev.conclusions_of_tests(make_tests_table(rows), [0.05], SYSTEMS)
    for test in ("approximate_randomization_two_sided", "rm_bootstrap"):
        got = out[out.test == test].set_index(["sys_x", "sys_y"])["conclusion"].to_dict()
        assert got == {("A", "B"): "sys_y", ("A", "C"): "tie", ("B", "C"): "sys_x"}


def test_orientation_follows_the_system_order():
    table = make_tests_table(
        one_sided_rows("bootstrap", {("A", "B"): 0.001, ("A", "C"): 0.5, ("B", "C"): 0.5})
    )
    out = ev.conclusions_of_tests(table, [0.05], ["B", "A", "C"])
    first = out.iloc[0]
    assert (first.sys_x, first.sys_y, first.conclusion) == ("B", "A", "sys_y")


def test_missing_ordered_row_is_an_error_naming_the_pair():
    table = make_tests_table(one_sided_rows("bootstrap", {("A", "B"): 0.1, ("A", "C"): 0.5, ("B", "C"): 0.5}))
    table = table[~((table.sys_x == "C") & (table.sys_y == "B"))]
    with pytest.raises(InputError, match=r"tests\.tsv: .*C vs B"):
        ev.conclusions_of_tests(table, [0.05], SYSTEMS, source="tests.tsv")


def test_bad_p_value_names_file_and_line():
    table = make_tests_table(one_sided_rows("bootstrap", {("A", "B"): 0.1, ("A", "C"): 0.5, ("B", "C"): 0.5}))
    table.loc[3, "p_value"] = 1.5
    # row 3 of the frame is line 5 of the TSV (header is line 1)
    with pytest.raises(InputError, match=r"^tests\.tsv:5: .*1\.5"):
        ev.conclusions_of_tests(table, [0.05], SYSTEMS, source="tests.tsv")


def test_unknown_system_is_an_error():
    table = make_tests_table(one_sided_rows("bootstrap", {("A", "B"): 0.1, ("A", "D"): 0.5, ("B", "D"): 0.5}))
    with pytest.raises(InputError, match="'D'"):
        ev.conclusions_of_tests(table, [0.05], SYSTEMS)


# ----------------------------------------------------------------------------------------- accuracy


def conclusions_frame(test: str, alpha: float, conclusions: list[str], systems=SYSTEMS) -> pd.DataFrame:
    pairs = ev.unordered_pairs(systems)
    return pd.DataFrame(
        {
            "sys_x": [x for x, _ in pairs],
            "sys_y": [y for _, y in pairs],
            "test": test,
            "alpha": alpha,
            "conclusion": conclusions,
        }
    )


def gold_frame(alpha: float, conclusions: list[str], systems=SYSTEMS, name: str = "wilcoxon") -> pd.DataFrame:
    pairs = ev.unordered_pairs(systems)
    return pd.DataFrame(
        {
            "gold": name,
            "sys_x": [x for x, _ in pairs],
            "sys_y": [y for _, y in pairs],
            "alpha": alpha,
            "conclusion": conclusions,
            "decided_by": "adequacy",
        }
    )


def test_accuracy_counts_ties_and_all_pairs():
    gold = gold_frame(0.05, ["sys_x", "tie", "sys_y"])
    by_metric = {
        "bleu": conclusions_frame("bootstrap", 0.05, ["sys_x", "tie", "tie"]),  # right, right, wrong -> 2/3
        "ter": conclusions_frame("bootstrap", 0.05, ["sys_y", "sys_x", "sys_x"]),  # all wrong -> 0/3
    }
    table = ev.accuracy(by_metric, gold)
    assert table[["metric", "correct", "total"]].values.tolist() == [["bleu", 2, 3], ["ter", 0, 3]]
    assert table["accuracy"].tolist() == pytest.approx([2 / 3, 0.0])
    assert (table.ci_low.iloc[1], table.ci_high.iloc[1]) == pytest.approx(
        proportion_confint(0, 3, alpha=0.05, method="beta")
    )


def test_accuracy_rejects_gold_with_other_orientation():
    gold = gold_frame(0.05, ["sys_x", "tie", "sys_y"])
    gold.loc[0, ["sys_x", "sys_y"]] = ["B", "A"]
    with pytest.raises(InputError, match="A vs B"):
        ev.accuracy({"bleu": conclusions_frame("bootstrap", 0.05, ["tie"] * 3)}, gold, source="gold.tsv")


def test_metric_chi_square_matches_hand_calculation():
    # bleu 40/50 correct, ter 30/50: expected 35 correct and 15 incorrect in each row.
    # X^2 = 2 * ((40-35)^2/35 + (10-15)^2/15) = 2 * (25/35 + 25/15) = 4.7619...
    acc = pd.DataFrame(
        {
            "gold": "g",
            "alpha": 0.05,
            "metric": ["bleu", "ter"],
            "test": "bootstrap",
            "correct": [40, 30],
            "total": [50, 50],
        }
    )
    out = ev.metric_chi_square(acc).iloc[0]
    expected = 2 * (25 / 35 + 25 / 15)
    assert out.statistic == pytest.approx(expected)  # no Yates correction
    assert out.dof == 1
    # chi-square with 1 dof: P(X > x) = erfc(sqrt(x / 2))
    from math import erfc, sqrt

    assert out.p_value == pytest.approx(erfc(sqrt(expected / 2)))
    assert out.min_expected == pytest.approx(15.0)


def test_pearson_chi_square_is_scipy_chi2_contingency_bit_for_bit():
    """metric_chi_square's test on scipy.special alone (no scipy.stats import in a pipeline job): statistic,
    p-value and expected counts equal scipy.stats.chi2_contingency(correction=False)'s to the bit, for tables of
    2 to 12 metrics x {correct, incorrect} like the accuracy tables', dof 1 (where scipy would apply Yates'
    correction by default) included."""
    from scipy import stats

    rng = np.random.default_rng(7)
    for _ in range(400):
        total = rng.integers(1, 3000, size=rng.integers(2, 13))
        correct = rng.binomial(total, rng.uniform(0.05, 0.95))
        observed = np.column_stack([correct, total - correct]).astype(float)
        if (observed.sum(axis=0) == 0).any():
            continue
        statistic, p_value, expected = ev.pearson_chi_square(observed)
        result = stats.chi2_contingency(observed, correction=False)
        assert statistic == result.statistic and p_value == result.pvalue, observed
        assert expected.tobytes() == result.expected_freq.tobytes()
    with pytest.raises(ValueError, match="zero"):
        ev.pearson_chi_square(np.array([[0.0, 0.0], [3.0, 4.0]]))


def test_metric_chi_square_is_nan_when_every_metric_is_always_right():
    acc = pd.DataFrame(
        {"gold": "g", "alpha": 0.05, "metric": ["a", "b"], "test": "t", "correct": [5, 5], "total": [5, 5]}
    )
    assert np.isnan(ev.metric_chi_square(acc).iloc[0].p_value)


# ----------------------------------------------------------------------------------------- agreement


def test_agreement_lists_only_differing_pairs():
    by_metric = {
        "bleu": pd.concat(
            [
                conclusions_frame("paired_bootstrap", 0.05, ["sys_x", "tie", "tie"]),
                conclusions_frame("bootstrap", 0.05, ["sys_x", "tie", "tie"]),
                conclusions_frame("approximate_randomization", 0.05, ["sys_x", "sys_y", "tie"]),
            ]
        ),
        "nist": pd.concat(
            [conclusions_frame(t, 0.05, ["tie", "tie", "sys_y"]) for t in ev.PAPER_TESTS],
        ),
    }
    differing = ev.differing_conclusions(by_metric)
    assert differing[["metric", "sys_x", "sys_y"]].values.tolist() == [["bleu", "A", "C"]]
    assert differing.iloc[0][list(ev.PAPER_TESTS)].tolist() == ["tie", "tie", "sys_y"]
    summary = ev.agreement_summary(by_metric)
    assert summary[["metric", "pairs", "differing"]].values.tolist() == [["bleu", 3, 1], ["nist", 3, 0]]


# ----------------------------------------------------------------------------------------- corrections

P_VECTORS = [
    [0.01, 0.04, 0.03, 0.005, 0.5, 0.2],
    [0.001, 0.001, 0.02, 0.02, 0.9, 1.0, 0.04],  # ties in p
    list(np.linspace(0.0, 1.0, 11)),
    [0.3],
]


@pytest.mark.parametrize("p", P_VECTORS)
def test_holm_matches_statsmodels(p):
    assert ev.holm(p) == pytest.approx(multipletests(p, method="holm")[1])


@pytest.mark.parametrize("p", P_VECTORS)
def test_benjamini_hochberg_matches_statsmodels(p):
    assert ev.benjamini_hochberg(p) == pytest.approx(multipletests(p, method="fdr_bh")[1])


def test_holm_and_bh_by_hand():
    p = [0.01, 0.04, 0.03]
    # Holm: sorted 0.01, 0.03, 0.04 -> 3*0.01, max(.03, 2*0.03), max(.06, 1*0.04) = .03, .06, .06
    assert ev.holm(p) == pytest.approx([0.03, 0.06, 0.06])
    # BH: 3*0.01/1, 3*0.03/2, 3*0.04/3 = .03, .045, .04 -> cumulative min from the top: .03, .04, .04
    assert ev.benjamini_hochberg(p) == pytest.approx([0.03, 0.04, 0.04])


def test_unknown_correction_is_an_error():
    with pytest.raises(InputError, match="bonferoni"):
        ev.adjust_p_values([0.1], "bonferoni")


def test_corrected_none_reproduces_uncorrected_conclusions():
    rng = np.random.default_rng(3)
    systems = [f"s{i}" for i in range(6)]
    p = {pair: float(x) for pair, x in zip(ev.unordered_pairs(systems), rng.uniform(0, 0.1, 15), strict=True)}
    table = make_tests_table(one_sided_rows("bootstrap", p))
    plain = ev.conclusions_of_tests(table, [0.05, 0.01], systems)
    corrected = ev.corrected_test_conclusions(table, "none", [0.05, 0.01], systems)
    assert corrected["conclusion"].tolist() == plain["conclusion"].tolist()
    assert set(corrected["test"]) == {"bootstrap+none"}


def test_holm_over_ordered_hypotheses_by_hand():
    # 3 systems -> 6 ordered hypotheses. p(A>B)=0.004, p(A>C)=0.02, p(B>C)=0.3 and their complements.
    # Holm sorted: 0.004*6=0.024, 0.02*5=0.10, 0.3*4=1.2->1, ... so at alpha 0.05 only A>B survives
    # (uncorrected, A>C at 0.02 would be significant too).
    table = make_tests_table(
        one_sided_rows("bootstrap", {("A", "B"): 0.004, ("A", "C"): 0.02, ("B", "C"): 0.3})
    )
    out = ev.corrected_test_conclusions(table, "holm", [0.05], SYSTEMS)
    assert out["conclusion"].tolist() == ["sys_x", "tie", "tie"]
    assert out["p_adjusted"].tolist()[:2] == pytest.approx([0.024, 0.10])
    assert out["test"].iloc[0] == "bootstrap+holm"


def test_two_sided_correction_uses_the_unordered_pairs():
    rows = []
    for x, y, d, p in (("A", "B", -0.8, 0.01), ("A", "C", 0.3, 0.02), ("B", "C", 1.1, 0.5)):
        rows += [(x, y, "bootstrap_two_sided", d, p), (y, x, "bootstrap_two_sided", -d, p)]
    out = ev.corrected_test_conclusions(make_tests_table(rows), "holm", [0.05], SYSTEMS)
    # Holm over 3 two-sided p: 3*0.01=0.03, 2*0.02=0.04, 0.5 -> A<B and A>C significant at 0.05.
    assert out["conclusion"].tolist() == ["sys_y", "sys_x", "tie"]
    assert out["p_adjusted"].tolist() == pytest.approx([0.03, 0.04, 0.5])


def gold_p_rows(criterion: str, p_x_better: dict[tuple[str, str], float]) -> list[dict]:
    rows = []
    for (x, y), p in p_x_better.items():
        for a, b, q in ((x, y, p), (y, x, 1 - p)):
            rows.append(
                {"gold": "wilcoxon", "sys_x": a, "sys_y": b, "criterion": criterion, "unit": "rating"}
            )
            rows[-1].update({"n_x": 100, "n_y": 100, "statistic": 0.0, "p_value": q})
    return rows


def test_corrected_gold_applies_the_priority_rule():
    frame = pd.DataFrame(
        gold_p_rows("adequacy", {("A", "B"): 0.01, ("A", "C"): 0.6, ("B", "C"): 0.5})
        + gold_p_rows("fluency", {("A", "B"): 0.9, ("A", "C"): 0.001, ("B", "C"): 0.04})
    )
    plain = ev.corrected_gold_conclusions(frame, "none", [0.05], SYSTEMS)
    # adequacy decides A>B (fluency says the opposite but is not consulted); fluency breaks A-C and B-C.
    assert plain["conclusion"].tolist() == ["sys_x", "sys_x", "sys_x"]
    assert plain["decided_by"].tolist() == ["adequacy", "fluency", "fluency"]
    holm = ev.corrected_gold_conclusions(frame, "holm", [0.05], SYSTEMS)
    # adequacy Holm: 6*0.01 = 0.06 > 0.05 -> no adequacy decision; fluency Holm: 6*0.001 = 0.006,
    # then 5*0.04 = 0.2, and p(B>A)=0.1*4... -> only A>C survives.
    assert holm["conclusion"].tolist() == ["tie", "sys_x", "tie"]
    assert holm["decided_by"].tolist() == ["none", "fluency", "none"]
    assert holm["p_adjusted"].iloc[1] == pytest.approx(0.006)


def test_gold_with_unknown_criteria_needs_an_order():
    frame = pd.DataFrame(
        gold_p_rows("x", {("A", "B"): 0.01, ("A", "C"): 0.6, ("B", "C"): 0.5})
        + gold_p_rows("y", {("A", "B"): 0.01, ("A", "C"): 0.6, ("B", "C"): 0.5})
    )
    with pytest.raises(InputError, match="priority order"):
        ev.corrected_gold_conclusions(frame, "none", [0.05], SYSTEMS)
    out = ev.corrected_gold_conclusions(frame, "none", [0.05], SYSTEMS, criteria=["y", "x"])
    assert out["decided_by"].iloc[0] == "y"


def test_holm_controls_familywise_error_by_simulation():
    # Known truth: 10 systems of equal quality; every one-sided p(X>Y) is uniform and p(Y>X) = 1 - p(X>Y).
    # Uncorrected, some of the 45 pairs reach alpha almost always; Holm keeps P(any claim) <= alpha.
    rng = np.random.default_rng(20140626)
    systems = [f"s{i}" for i in range(10)]
    pairs = ev.unordered_pairs(systems)
    any_claim = {"none": 0, "holm": 0}
    runs = 200
    for _ in range(runs):
        table = make_tests_table(
            one_sided_rows("bootstrap", dict(zip(pairs, rng.uniform(size=len(pairs)), strict=True)))
        )
        for method in any_claim:
            out = ev.corrected_test_conclusions(table, method, [0.05], systems)
            any_claim[method] += bool((out["conclusion"] != "tie").any())
    assert any_claim["none"] / runs > 0.9  # 1 - 0.9^45 = 0.99
    assert any_claim["holm"] / runs <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / runs)


def test_uncorrected_gold_agrees_with_the_human_module():
    # Two independent implementations of the paper's priority rule (Sec. 4) must agree on random p-values.
    from mtsig.stats.human import gold_conclusions

    rng = np.random.default_rng(7)
    systems = [f"s{i}" for i in range(7)]
    pairs = ev.unordered_pairs(systems)
    frame = pd.DataFrame(
        gold_p_rows("adequacy", dict(zip(pairs, rng.uniform(0, 0.2, len(pairs)), strict=True)))
        + gold_p_rows("fluency", dict(zip(pairs, rng.uniform(0, 0.2, len(pairs)), strict=True)))
    )
    ours = ev.corrected_gold_conclusions(frame, "none", [0.05, 0.01], systems)
    theirs = gold_conclusions(frame.drop(columns="gold"), [0.05, 0.01], systems=systems)
    columns = ["sys_x", "sys_y", "alpha", "conclusion", "decided_by"]
    pd.testing.assert_frame_equal(ours[columns], theirs[columns])
    assert (ours["conclusion"] != "tie").any() and (ours["decided_by"] == "fluency").any()
