"""Two ranking rules of the registry (mtsig.stats.system_ranking): WMT26's first rule (``wmt26_ttest``: a paired or an
unpaired two-sided t-test, either p < 0.05), against scipy's ``ttest_rel``/``ttest_ind`` with ``nan_policy="omit"``
on hand cases and random ones with missing items, and against the organisers' own function run on the WMT24 ESA
ratings (its decisions in tests/oracles/wmt26_ttest_decisions.tsv, written by ``python
benchmarks/bench_wmt26_ttest.py --write-oracle ...`` from wmt-conference/wmt26-general-mt@1fa5211); and WMT24's
procedure under scipy 1.14's choice of the signed-rank method (``wmt24_scipy114``), against the WMT24 organisers'
code run under scipy 1.14.1 (tests/oracles/wmt24_esa_pvalues_scipy114.tsv) and hand values of scipy 1.14's
exact and normal p-values."""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats

from mtsig.io.esa import read_esa
from mtsig.stats.system_ranking import item_scores, rank_systems, run_procedure
from mtsig.stats.system_ranking.signed_rank import signed_rank_pvalues
from mtsig.stats.system_ranking.ttest import paired_t_pvalues, ttest_pvalues, unpaired_t_pvalues

ORACLES = Path(__file__).parent / "oracles"
LPS = ("en-cs", "en-hi", "en-ja", "en-zh")
nan = np.nan


@pytest.fixture(scope="module")
def wmt24_items(data_root: Path):
    root = data_root / "wmt24-esa"
    export = read_esa([root / f"humeval/esa_generalMT2024_wave{w}.csv" for w in (2, 3)], root / "documents")
    return {lp: item_scores(export.ratings.loc[export.ratings["lp"] == lp]) for lp in LPS}


def _oracle(name: str) -> pd.DataFrame:
    return pd.read_csv(ORACLES / name, sep="\t", comment="#", keep_default_na=False)


def _scipy(function, a, b) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(function(a, b, nan_policy="omit").pvalue)


# ---------------------------------------------------------------------------------------------- the t-tests

HAND_CASES = [
    ([1, 2, nan, 4, 6], [2, nan, 3, 1, 2]),  # missing items on both sides
    ([1, 2], [0, 1]),  # paired differences all equal: t = inf, p = 0
    ([1, 1], [1, 1]),  # no variance, no difference: p NaN
    ([1, nan], [0, 1]),  # one paired item: no degree of freedom
    ([1, nan, nan], [0, 1, 3]),  # one rated item on one side: the pooled variance is the other's
    ([1, 1], [0, 0]),  # unpaired: no variance, different means
    ([nan, nan], [0, 0]),  # one side unrated
    ([70, 85, 90, 100, 55], [60, 80, 95, 100, 50]),
]


@pytest.mark.parametrize(("a", "b"), HAND_CASES)
def test_t_pvalues_equal_scipys_on_hand_cases(a, b) -> None:
    a, b = np.array(a, dtype=float), np.array(b, dtype=float)
    paired = paired_t_pvalues((a - b)[None])[0]
    unpaired = unpaired_t_pvalues(a[None], b[None])[0]
    for ours, theirs in ((paired, _scipy(stats.ttest_rel, a, b)), (unpaired, _scipy(stats.ttest_ind, a, b))):
        if np.isnan(theirs):
            assert np.isnan(ours)
        else:
            assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-300)


def test_t_pvalues_equal_scipys_on_random_systems_with_missing_items() -> None:
    """Every pair of 5 systems over 40 items, a fifth of the cells unrated, in 6 replicates at once (symmetric)."""
    rng = np.random.default_rng(7)
    scores = rng.normal(70, 15, (6, 5, 40)).round()
    scores[rng.random(scores.shape) < 0.2] = nan
    paired, unpaired = ttest_pvalues(scores, np.arange(40))
    np.testing.assert_array_equal(paired, paired.transpose(0, 2, 1))
    for r, i, j in itertools.product(range(6), range(5), range(5)):
        if j <= i:
            continue
        x, y = scores[r, i], scores[r, j]
        assert paired[r, i, j] == pytest.approx(_scipy(stats.ttest_rel, x, y), rel=1e-10)
        assert unpaired[r, i, j] == pytest.approx(_scipy(stats.ttest_ind, x, y), rel=1e-10)


def test_wmt26_ttest_declares_the_higher_mean_better_when_either_test_rejects() -> None:
    """Three systems on 8 items. A = B + 1 on every item but one (+2): the paired test rejects (the differences
    hardly vary) while the unpaired one does not (the items vary by 70 points), so A beats B by the paired test alone,
    with the smaller p reported both ways. C has B's scores in reverse order: equal means, no test rejects, so B and
    C keep their input order, and A's advantage over C (the same 1.125 points) is lost in C's differences."""
    base = np.array([20.0, 60, 30, 90, 50, 70, 40, 80])
    a = base + 1
    a[0] += 1
    b = base.copy()
    c = base[::-1].copy()  # the same scores in another order: equal means
    scores = np.stack([b, c, a])  # A last: its order comes from the means, not from the rows
    result = run_procedure("wmt26_ttest", scores, np.arange(8), np.zeros(8, dtype=int))
    p_ab = (_scipy(stats.ttest_rel, a, b), _scipy(stats.ttest_ind, a, b))
    assert p_ab[0] < 0.05 < p_ab[1]
    assert result.beats[0, 2, 0] and not result.beats[0, 0, 2]
    assert result.pvalues[0, 2, 0] == pytest.approx(min(p_ab), rel=1e-12) == result.pvalues[0, 0, 2]
    p_bc = (_scipy(stats.ttest_rel, b, c), _scipy(stats.ttest_ind, b, c))
    assert min(p_bc) > 0.05 and not result.beats[0, 0, 1] and not result.beats[0, 1, 0]
    assert [int(i) for i in result.order[0][:1]] == [2]


def test_wmt26_ttest_equals_the_organisers_function_on_wmt24(wmt24_items) -> None:
    oracle = _oracle("wmt26_ttest_decisions.tsv")
    assert len(oracle) == 120 + 55 + 78 + 78
    for lp, items in wmt24_items.items():
        result = run_procedure("wmt26_ttest", items.scores, items.segments, items.domains)
        index = {s: i for i, s in enumerate(items.systems)}
        theirs = oracle.loc[oracle["lp"] == lp]
        up, down = theirs["system1"].map(index).to_numpy(), theirs["system2"].map(index).to_numpy()
        np.testing.assert_array_equal(result.beats[0, up, down], theirs["better"].astype(bool))
        assert not result.beats[0, down, up].any()
        # their order is the oracle's order of first appearance: the system above is always listed first
        order = list(dict.fromkeys([*theirs["system1"], *theirs["system2"]]))
        assert [items.systems[i] for i in result.order[0]] == order


# ------------------------------------------------------------------------------------- scipy 1.14's wilcoxon


def test_scipy_114_rule_by_hand() -> None:
    """d = (1, 2, -2, 3, 4): tied |d|, no zero. Ranks 1, 2.5, 2.5, 4, 5; r+ = 12.5. scipy 1.14: exact with r+
    rounded, P(R+ >= 12) = 5/32 among the 32 sign patterns of ranks 1..5 (complements of sum <= 3), two-sided 10/32;
    scipy >= 1.15: the permutation test over the tied ranks, P(R+ >= 12.5) = 4/32, two-sided 8/32 (scipy's own).
    d = (0, 1, 2, -3, 4, 5): a zero. scipy 1.14: the normal approximation, z = (12 - 7.5) / sqrt(13.75); scipy
    >= 1.15: the permutation test (scipy's own)."""
    tied = np.array([[1.0, 2, -2, 3, 4]])
    assert signed_rank_pvalues(tied, auto_rule="scipy1.14")[0] == pytest.approx(10 / 32, rel=1e-14)
    assert signed_rank_pvalues(tied, alternative="greater", auto_rule="scipy1.14")[0] == pytest.approx(5 / 32)
    assert signed_rank_pvalues(tied)[0] == pytest.approx(8 / 32) == stats.wilcoxon(tied[0]).pvalue
    zero = np.array([[0.0, 1, 2, -3, 4, 5]])
    z = (12 - 7.5) / np.sqrt(5 * 6 * 11 / 24)
    assert signed_rank_pvalues(zero, auto_rule="scipy1.14")[0] == pytest.approx(
        2 * special.ndtr(-z), rel=1e-14
    )
    assert signed_rank_pvalues(zero)[0] == pytest.approx(stats.wilcoxon(zero[0]).pvalue, rel=1e-14)
    # without ties or zeros both versions take the exact distribution
    clean = np.array([[1.0, -2, 3, 4, 5, 6]])
    assert signed_rank_pvalues(clean, auto_rule="scipy1.14")[0] == signed_rank_pvalues(clean)[0]
    with pytest.raises(ValueError, match="auto_rule"):
        signed_rank_pvalues(clean, auto_rule="scipy1.13")


def test_wmt24_scipy114_equals_the_organisers_code_under_scipy_114(wmt24_items) -> None:
    """The organisers' p-values under scipy 1.14.1 (exactly), and the same ranks and clusters as under scipy 1.17;
    the two scipy versions' p-values differ on 124 of the 662 ordered pairs."""
    old, new = _oracle("wmt24_esa_pvalues_scipy114.tsv"), _oracle("wmt24_esa_pvalues.tsv")
    assert len(old) == len(new) == 662
    assert (old["p"].astype(float) != new["p"].astype(float)).sum() == 124
    for lp, items in wmt24_items.items():
        arrays = rank_systems(items, "wmt24_scipy114").arrays
        default = rank_systems(items, "wmt24").arrays
        index = {s: i for i, s in enumerate(items.systems)}
        theirs = old.loc[old["lp"] == lp]
        ours = arrays.pvalues[0, theirs["system1"].map(index), theirs["system2"].map(index)]
        np.testing.assert_allclose(ours, theirs["p"].astype(float), rtol=0, atol=1e-15)
        for field in ("top_rank", "worst_rank", "cluster", "order"):
            np.testing.assert_array_equal(getattr(arrays, field), getattr(default, field))
