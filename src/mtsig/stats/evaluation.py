"""Judging the randomized tests against the human gold standard (Graham, Mathur & Baldwin 2014, Section 4).

Conclusions per unordered system pair, accuracy with exact Clopper-Pearson intervals (Tables 1-2), the chi-square
test of metric differences (Section 4.1, last paragraph), agreement between the three tests (Section 4.1, the
paper's central finding), and multiple-testing corrections over the pairs of an experiment (beyond the paper; the
family-wise error and FDR of the slides, seed 001).

Input shapes (see docs/design.md, "Data flow"):

* tests table of one metric: ``sys_x, sys_y, test, statistic, p_value``, one row per *ordered* pair and test, the
  statistic ``S(X) - S(Y)`` oriented so that positive means X better, one-sided p-values for "X better than Y";
  two-sided tests (:func:`is_two_sided`) carry the same p-value in both orders.
* gold conclusions: ``[gold,] sys_x, sys_y, alpha, conclusion, decided_by`` for *unordered* pairs, ``sys_x`` before
  ``sys_y`` in the experiment's system order.
* gold p-values: ``[gold,] sys_x, sys_y, criterion, unit, n_x, n_y, statistic, p_value`` for ordered pairs.

Frames carry no file name; every public function takes ``source`` (the file they were read from) so that an
:class:`~mtsig.errors.InputError` names it, and the line of a row is its position + 2 (header line, 1-based) when
the frame was read with ``pandas.read_csv(..., sep="\\t")`` and kept its default index.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.stats.conclusions import (
    SYS_X,
    SYS_Y,
    TIE,
    by_priority,
    conclude,
    conclude_two_sided,
    unordered_pairs,
)
from mtsig.stats.intervals import clopper_pearson
from mtsig.stats.resampling.registry import (
    PAPER_TESTS,  # the paper's three one-sided tests, in its Tables 1-2 column order
    TESTS,
)

#: The multiple-testing corrections :func:`adjust_p_values` knows; "none" leaves p-values as they are.
CORRECTIONS: tuple[str, ...] = ("none", "holm", "benjamini_hochberg")

#: The gold standard's criteria in the paper's priority order (Section 4: adequacy decides, fluency breaks ties).
PAPER_CRITERIA: tuple[str, ...] = ("adequacy", "fluency")

TESTS_COLUMNS = ("sys_x", "sys_y", "test", "statistic", "p_value")
CONCLUSION_COLUMNS = ("sys_x", "sys_y", "test", "alpha", "conclusion")
GOLD_CONCLUSION_COLUMNS = ("sys_x", "sys_y", "alpha", "conclusion")
GOLD_PVALUE_COLUMNS = ("sys_x", "sys_y", "criterion", "p_value")
DEFAULT_GOLD = "gold"

Source = str | Path | None


# --------------------------------------------------------------------------------------------------- validation


def is_two_sided(test: str) -> bool:
    """True if ``test`` reports a two-sided p-value (symmetric in X and Y; its direction comes from the statistic's
    sign), as its entry in the test registry :data:`mtsig.stats.resampling.TESTS` says. Riezler & Maxwell's
    originals use absolute values, so they are two-sided too (docs/statistics.md, "Conclusions"). A test outside
    the registry (e.g. the one-sided Wilcoxon rank-sum of the WMT findings' clusters) is read as one-sided."""
    return test in TESTS and TESTS[test].sided == "two-sided"


def _line(frame: pd.DataFrame, label: object) -> int | None:
    """The file line of row ``label`` if the frame kept read_csv's default index (header is line 1)."""
    if isinstance(frame.index, pd.RangeIndex) and isinstance(label, int | np.integer):
        return int(label) + 2
    return None


def _require_columns(frame: pd.DataFrame, columns: Sequence[str], source: Source, what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(
            f"{what} lacks column(s) {', '.join(missing)}; it has {', '.join(map(str, frame.columns))}",
            source,
            1,
        )


def _check_p_values(frame: pd.DataFrame, source: Source, what: str) -> None:
    p = pd.to_numeric(frame["p_value"], errors="coerce").to_numpy(dtype=float)
    bad = ~((p >= 0.0) & (p <= 1.0))  # also catches NaN and non-numbers
    if bad.any():
        label = frame.index[int(np.argmax(bad))]
        raise InputError(
            f"{what}: p_value {frame.loc[label, 'p_value']!r} is not a probability in [0, 1]",
            source,
            _line(frame, label),
        )


def _check_unique(frame: pd.DataFrame, keys: Sequence[str], source: Source, what: str) -> None:
    duplicated = frame.duplicated(list(keys), keep="first")
    if duplicated.any():
        label = frame.index[int(np.argmax(duplicated.to_numpy()))]
        row = ", ".join(f"{k}={frame.loc[label, k]}" for k in keys)
        raise InputError(f"{what}: duplicate row for {row}", source, _line(frame, label))


def _check_systems(frame: pd.DataFrame, systems: Sequence[str], source: Source, what: str) -> None:
    if len(set(systems)) != len(systems):
        raise InputError(f"the system list repeats a name: {list(systems)}")
    if len(systems) < 2:
        raise InputError(f"at least two systems are needed to form a pair, got {list(systems)}")
    known = set(systems)
    for column in ("sys_x", "sys_y"):
        unknown = ~frame[column].isin(known)
        if unknown.any():
            label = frame.index[int(np.argmax(unknown.to_numpy()))]
            raise InputError(
                f"{what}: system {frame.loc[label, column]!r} is not in the experiment's systems {list(systems)}",
                source,
                _line(frame, label),
            )


def _check_p_value_table(
    frame: pd.DataFrame,
    columns: Sequence[str],
    keys: Sequence[str],
    systems: Sequence[str],
    source: Source,
    what: str,
) -> None:
    """A table of p-values must have its columns, known systems, probabilities and one row per key."""
    _require_columns(frame, columns, source, what)
    _check_systems(frame, systems, source, what)
    _check_p_values(frame, source, what)
    _check_unique(frame, keys, source, what)


def _pairs_both_ways(
    systems: Sequence[str], method: str
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The unordered pairs and the same pairs reversed: a correction's family (after checking ``method``)."""
    check_correction(method)
    pairs = unordered_pairs(systems)
    return pairs, [(y, x) for x, y in pairs]


def _pair_lookup(
    frame: pd.DataFrame, pairs: Sequence[tuple[str, str]], value: str, source: Source, what: str
) -> np.ndarray:
    """``frame[value]`` for every ordered pair in ``pairs``; a missing pair is an error naming it. The callers
    have checked that each ordered pair has at most one row (``_check_unique``)."""
    keys = zip(frame["sys_x"], frame["sys_y"], strict=True)
    by_pair = dict(zip(keys, frame[value].to_numpy(dtype=float), strict=True))
    missing = sorted(set(pairs) - set(by_pair))
    if missing:
        shown = ", ".join(f"{x} vs {y}" for x, y in missing[:5])
        raise InputError(f"{what}: no row for {len(missing)} ordered pair(s), e.g. {shown}", source)
    return np.array([by_pair[pair] for pair in pairs], dtype=float)


# --------------------------------------------------------------------------------------------------- conclusions


def conclusions_of_tests(
    tests: pd.DataFrame, alphas: Sequence[float], systems: Sequence[str], source: Source = None
) -> pd.DataFrame:
    """Three-way conclusion of every test for every unordered pair and alpha (docs/statistics.md, "Conclusions").

    One-sided tests: "sys_x" if p(X>Y) <= alpha, "sys_y" if p(Y>X) <= alpha, else "tie" — the paper's reading of
    Figs. 2-4, each direction tested at alpha (:func:`mtsig.stats.conclusions.conclude`). Two-sided tests: significant at
    alpha in the direction of the statistic's sign (:func:`mtsig.stats.conclusions.conclude_two_sided`).

    Pairs are oriented like the gold: ``(systems[i], systems[j])`` with i < j. Every test in ``tests`` must have
    both ordered rows of every pair; otherwise an :class:`InputError` names the missing pair.

    Returns a frame with columns ``sys_x, sys_y, test, alpha, conclusion``, ordered by test (first appearance),
    alpha (as given), then pair.
    """
    return _conclusions(tests, "none", alphas, systems, source).drop(columns="p_adjusted")


# --------------------------------------------------------------------------------------------------- accuracy


def _with_gold_column(gold: pd.DataFrame) -> pd.DataFrame:
    return gold if "gold" in gold.columns else gold.assign(gold=DEFAULT_GOLD)


def accuracy(
    conclusions_by_metric: Mapping[str, pd.DataFrame],
    gold_conclusions: pd.DataFrame,
    level: float = 0.95,
    source: Source = None,
) -> pd.DataFrame:
    """Accuracy of every metric x test against every gold, per alpha (paper, Tables 1-2).

    ``correct`` counts the unordered pairs whose test conclusion ("sys_x", "sys_y" or "tie") equals the gold's at
    the same alpha; ``total`` is all n(n-1)/2 pairs — ties count, as in the paper (66 pairs for 12 systems, 55 for
    11). ``accuracy`` is the proportion in [0, 1] (tables print percent); ``ci_low, ci_high`` its two-sided
    Clopper-Pearson interval at ``level`` (:func:`clopper_pearson`).

    The test conclusions (from :func:`conclusions_of_tests` or :func:`corrected_test_conclusions`) and the gold must
    cover exactly the same pairs in the same orientation at every alpha; a mismatch is an :class:`InputError`
    (``source`` names the gold file). A gold frame without a ``gold`` column is named "gold".

    Returns columns ``gold, alpha, metric, test, correct, total, accuracy, ci_low, ci_high``, ordered by gold
    (first appearance), alpha (descending, as in the paper), metric (as given), test (first appearance).
    """
    gold = _with_gold_column(gold_conclusions)
    _require_columns(gold, GOLD_CONCLUSION_COLUMNS, source, "gold conclusions")
    _check_unique(gold, ("gold", "alpha", "sys_x", "sys_y"), source, "gold conclusions")
    rows = []
    for gold_name, gold_rows in gold.groupby("gold", sort=False):
        for metric, conclusions in conclusions_by_metric.items():
            _require_columns(conclusions, CONCLUSION_COLUMNS, None, f"test conclusions of {metric}")
            merged = conclusions.merge(
                gold_rows[["sys_x", "sys_y", "alpha", "conclusion"]],
                on=["sys_x", "sys_y", "alpha"],
                how="left",
                suffixes=("", "_gold"),
                indicator=True,
            )
            unmatched = merged["_merge"] != "both"
            if unmatched.any():
                row = merged[unmatched].iloc[0]
                raise InputError(
                    f"gold {gold_name} has no conclusion for {row.sys_x} vs {row.sys_y} at alpha {row.alpha} "
                    f"(needed by {metric}/{row.test}); gold and tests must cover the same pairs in the same order",
                    source,
                )
            for (test, alpha), group in merged.groupby(["test", "alpha"], sort=False):
                total = len(group)
                n_gold = int(np.isclose(gold_rows["alpha"].to_numpy(dtype=float), alpha).sum())
                if total != n_gold:
                    raise InputError(
                        f"gold {gold_name} has {n_gold} pairs at alpha {alpha} but {metric}/{test} has {total}",
                        source,
                    )
                correct = int((group["conclusion"] == group["conclusion_gold"]).sum())
                low, high = clopper_pearson(correct, total, level)
                rows.append(
                    {
                        "gold": gold_name,
                        "alpha": float(alpha),
                        "metric": metric,
                        "test": test,
                        "correct": correct,
                        "total": total,
                        "accuracy": correct / total,
                        "ci_low": low,
                        "ci_high": high,
                    }
                )
    table = pd.DataFrame(rows)
    golds = list(dict.fromkeys(table["gold"]))
    metrics = list(conclusions_by_metric)
    tests = list(dict.fromkeys(table["test"]))
    return (
        table.assign(
            _g=table["gold"].map(golds.index),
            _a=-table["alpha"],
            _m=table["metric"].map(metrics.index),
            _t=table["test"].map(tests.index),
        )
        .sort_values(["_g", "_a", "_m", "_t"], kind="stable")
        .drop(columns=["_g", "_a", "_m", "_t"])
        .reset_index(drop=True)
    )


def pearson_chi_square(observed: np.ndarray) -> tuple[float, float, np.ndarray]:
    """Pearson's chi-square test of independence of a two-way table without Yates' correction: ``(X^2, p, E)``
    with ``E = row sums x column sums / total``, ``X^2 = sum (O - E)^2 / E`` and ``p`` the chi-square survival
    function at ``X^2`` with ``(rows - 1)(columns - 1)`` degrees of freedom.

    The operations of ``scipy.stats.chi2_contingency(observed, correction=False)`` in its order, so the same bits
    (tested), on ``scipy.special.chdtrc`` alone: importing scipy.stats costs a pipeline job about a second. A table
    with a zero expected count raises ValueError, as scipy does."""
    from scipy.special import chdtrc

    observed = np.asarray(observed, dtype=np.float64)
    expected = observed.sum(axis=1, keepdims=True) * observed.sum(axis=0, keepdims=True) / observed.sum()
    if np.any(expected == 0):
        raise ValueError("the table of expected frequencies has a zero element")
    dof = expected.size - sum(expected.shape) + expected.ndim - 1
    statistic = ((observed - expected) ** 2 / expected).sum()
    return float(statistic), float(chdtrc(float(dof), statistic)), expected


def metric_chi_square(accuracy_table: pd.DataFrame) -> pd.DataFrame:
    """Pearson chi-square test that accuracy does not depend on the metric, per (gold, test, alpha).

    The paper's "differences in accuracy for metrics are not significant (Chi-square test)" (Section 4.1): the
    contingency table is metric x {correct, incorrect}, tested for independence with
    ``scipy.stats.chi2_contingency(..., correction=False)`` (:func:`pearson_chi_square`) — no Yates correction, which scipy would otherwise
    apply only when dof = 1 (two metrics), so that the statistic is the plain Pearson X^2 for any number of
    metrics. The test treats the metrics' conclusions as independent samples; they are conclusions about the same
    pairs, so the p-value is approximate (conservative for positively correlated metrics).

    ``min_expected`` is the smallest expected cell count, to judge the chi-square approximation (rule of thumb:
    >= 5). When every metric is right on every pair (or wrong on every pair) the table has an empty column, the
    test is undefined and statistic and p-value are NaN.

    Returns columns ``gold, test, alpha, metrics, statistic, dof, p_value, min_expected``.
    """
    _require_columns(
        accuracy_table, ("gold", "test", "alpha", "metric", "correct", "total"), None, "accuracy"
    )
    rows = []
    for (gold, test, alpha), group in accuracy_table.groupby(["gold", "test", "alpha"], sort=False):
        correct = group["correct"].to_numpy(dtype=float)
        incorrect = group["total"].to_numpy(dtype=float) - correct
        observed = np.column_stack([correct, incorrect])
        dof = (observed.shape[0] - 1) * (observed.shape[1] - 1)
        if observed.shape[0] < 2 or (observed.sum(axis=0) == 0).any():
            statistic, p_value, min_expected = np.nan, np.nan, np.nan
        else:
            statistic, p_value, expected = pearson_chi_square(observed)
            min_expected = float(expected.min())
        rows.append(
            {
                "gold": gold,
                "test": test,
                "alpha": float(alpha),
                "metrics": ",".join(map(str, group["metric"])),
                "statistic": statistic,
                "dof": dof,
                "p_value": p_value,
                "min_expected": min_expected,
            }
        )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------------- agreement


def _conclusions_wide(
    conclusions_by_metric: Mapping[str, pd.DataFrame], tests: Sequence[str]
) -> pd.DataFrame:
    """One row per (metric, alpha, pair), one column per test holding its conclusion."""
    frames = []
    for metric, conclusions in conclusions_by_metric.items():
        _require_columns(conclusions, CONCLUSION_COLUMNS, None, f"test conclusions of {metric}")
        absent = [t for t in tests if t not in set(conclusions["test"])]
        if absent:
            raise InputError(f"test conclusions of {metric} lack test(s) {', '.join(absent)}")
        wide = (
            conclusions[conclusions["test"].isin(tests)]
            .pivot(index=["alpha", "sys_x", "sys_y"], columns="test", values="conclusion")
            .reindex(columns=list(tests))
        )
        wide.columns.name = None
        frames.append(wide.reset_index().assign(metric=metric))
    table = pd.concat(frames, ignore_index=True)
    return table[["metric", "alpha", "sys_x", "sys_y", *tests]]


def differing_conclusions(
    conclusions_by_metric: Mapping[str, pd.DataFrame], tests: Sequence[str] = PAPER_TESTS
) -> pd.DataFrame:
    """The pairs on which the tests reach different conclusions (paper, Section 4.1).

    The paper's central finding is that paired bootstrap, bootstrap and approximate randomization "produce
    precisely the same set of pairwise conclusions" for most metric/alpha combinations, differing "by at most two
    conclusions"; this lists every exception. Returns columns ``metric, alpha, sys_x, sys_y`` plus one column per
    test with its conclusion; empty (with those columns) when the tests agree everywhere.
    """
    wide = _conclusions_wide(conclusions_by_metric, tests)
    differs = wide[list(tests)].nunique(axis=1) > 1
    return wide[differs].reset_index(drop=True)


def agreement_summary(
    conclusions_by_metric: Mapping[str, pd.DataFrame], tests: Sequence[str] = PAPER_TESTS
) -> pd.DataFrame:
    """Per metric and alpha: the number of pairs and of pairs on which ``tests`` disagree (paper, Section 4.1).

    Returns columns ``metric, alpha, pairs, differing``, alpha descending as in the paper's tables.
    """
    wide = _conclusions_wide(conclusions_by_metric, tests)
    wide["differing"] = wide[list(tests)].nunique(axis=1) > 1
    summary = (
        wide.groupby(["metric", "alpha"], sort=False)
        .agg(pairs=("differing", "size"), differing=("differing", "sum"))
        .reset_index()
    )
    metrics = list(conclusions_by_metric)
    order = summary.assign(_m=summary["metric"].map(metrics.index), _a=-summary["alpha"])
    return order.sort_values(["_m", "_a"], kind="stable").drop(columns=["_m", "_a"]).reset_index(drop=True)


# --------------------------------------------------------------------------------------------------- corrections


def _as_p_vector(p: Sequence[float] | np.ndarray) -> np.ndarray:
    values = np.asarray(p, dtype=float)
    if values.ndim != 1:
        raise InputError(f"p-values must be a 1-D vector, got shape {values.shape}")
    if not ((values >= 0.0) & (values <= 1.0)).all():
        raise InputError("p-values must lie in [0, 1] (no NaN)")
    return values


def holm(p: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm (1979) step-down adjusted p-values, controlling the family-wise error rate under any dependence.

    With ascending p_(1) <= ... <= p_(m): ``adj_(i) = max_{j <= i} min(1, (m - j + 1) p_(j))``; a hypothesis is
    rejected at level alpha iff its adjusted p-value is <= alpha. Returned in the input order.
    """
    values = _as_p_vector(p)
    m = values.size
    order = np.argsort(values, kind="stable")
    stepped = (m - np.arange(m)) * values[order]
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(1.0, np.maximum.accumulate(stepped))
    return adjusted


def benjamini_hochberg(p: Sequence[float] | np.ndarray) -> np.ndarray:
    """Benjamini & Hochberg (1995) step-up adjusted p-values ("q-values"), controlling the false discovery rate.

    With ascending p_(1) <= ... <= p_(m): ``adj_(i) = min_{j >= i} min(1, m p_(j) / j)``. FDR control holds for
    independent or positively dependent (PRDS) p-values. Returned in the input order.
    """
    values = _as_p_vector(p)
    m = values.size
    order = np.argsort(values, kind="stable")
    stepped = m * values[order] / np.arange(1, m + 1)
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(1.0, np.minimum.accumulate(stepped[::-1])[::-1])
    return adjusted


def check_correction(method: str) -> None:
    """Raise :class:`InputError` unless ``method`` is one of :data:`CORRECTIONS` (checked before any work)."""
    if method not in CORRECTIONS:
        raise InputError(f"unknown multiple-testing correction {method!r}; known: {', '.join(CORRECTIONS)}")


def adjust_p_values(p: Sequence[float] | np.ndarray, method: str) -> np.ndarray:
    """Adjusted p-values by ``method`` in :data:`CORRECTIONS` ("none" returns them unchanged)."""
    check_correction(method)
    if method == "none":
        return _as_p_vector(p).copy()
    if method == "holm":
        return holm(p)
    return benjamini_hochberg(p)


def _concluded_p(conclusion: np.ndarray, p_x_better: np.ndarray, p_y_better: np.ndarray) -> np.ndarray:
    """The p-value of the concluded direction; the smaller of the two for a tie."""
    return np.select(
        [conclusion == SYS_X, conclusion == SYS_Y],
        [p_x_better, p_y_better],
        np.minimum(p_x_better, p_y_better),
    )


def corrected_test_conclusions(
    tests: pd.DataFrame,
    method: str,
    alphas: Sequence[float],
    systems: Sequence[str],
    source: Source = None,
) -> pd.DataFrame:
    """Test conclusions after correcting for the multiple pairs of an experiment (beyond the paper).

    The family, per metric and test, is the set of hypotheses the paper's conclusion rule actually tests:

    * one-sided tests: the n(n-1) *ordered* hypotheses "X is not better than Y", each with its one-sided p-value.
      The paper's rule tests both directions of every pair at alpha, so these are its claims, and ``method="none"``
      reproduces :func:`conclusions_of_tests` exactly. Holm over them controls the family-wise rate of false
      directional claims at alpha whatever the dependence (the two directions of a pair are almost perfectly
      negatively dependent, p(X>Y) ~ 1 - p(Y>X)); its first step multiplies the smallest p by n(n-1), the same as
      Bonferroni on the per-pair two-sided ``2 min(p(X>Y), p(Y>X))`` over n(n-1)/2 pairs, and Benjamini-Hochberg
      gives the same rejections as on that doubled per-pair p as long as the rejected directions are the smaller
      p of their pairs. The wrong-direction p-values are near 1 and only take the last steps.
    * two-sided tests: the n(n-1)/2 unordered null hypotheses X = Y with their two-sided p-values; a rejection is
      read in the direction of the statistic's sign, as in :func:`conclusions_of_tests`.

    Benjamini-Hochberg's FDR guarantee assumes independent or positively dependent p-values, which the pairs of
    one experiment (sharing systems and resamples) only approximately satisfy; Holm needs no assumption.

    Returns :func:`conclusions_of_tests`' columns plus ``p_adjusted`` (of the direction concluded, or the smaller of
    the two when tie), with ``test`` renamed ``"<test>+<method>"`` so that corrected and uncorrected conclusions
    can share one accuracy table.
    """
    conclusions = _conclusions(tests, method, alphas, systems, source)
    return conclusions.assign(test=conclusions["test"] + f"+{method}")


def _conclusions(
    tests: pd.DataFrame, method: str, alphas: Sequence[float], systems: Sequence[str], source: Source
) -> pd.DataFrame:
    """Every test's conclusions with p-values corrected by ``method`` (``"none"``: as they are), and the p-value of
    the direction concluded (:func:`corrected_test_conclusions`); ``test`` as in ``tests``."""
    _check_p_value_table(tests, TESTS_COLUMNS, ("test", "sys_x", "sys_y"), systems, source, "tests table")
    pairs, reversed_pairs = _pairs_both_ways(systems, method)
    m = len(pairs)
    frames = []
    for test, rows in tests.groupby("test", sort=False):
        p_x_better = _pair_lookup(rows, pairs, "p_value", source, f"test {test}")
        if is_two_sided(str(test)):
            statistic = _pair_lookup(rows, pairs, "statistic", source, f"test {test}")
            adjusted = adjust_p_values(p_x_better, method)
        else:
            p_y_better = _pair_lookup(rows, reversed_pairs, "p_value", source, f"test {test}")
            both = adjust_p_values(np.concatenate([p_x_better, p_y_better]), method)
            adjusted_x, adjusted_y = both[:m], both[m:]
        for alpha in alphas:
            if is_two_sided(str(test)):
                conclusion = conclude_two_sided(adjusted, statistic, alpha)
                p_adjusted = adjusted
            else:
                conclusion = conclude(adjusted_x, adjusted_y, alpha)
                p_adjusted = _concluded_p(conclusion, adjusted_x, adjusted_y)
            frames.append(
                pd.DataFrame(
                    {
                        "sys_x": [x for x, _ in pairs],
                        "sys_y": [y for _, y in pairs],
                        "test": test,
                        "alpha": float(alpha),
                        "conclusion": conclusion,
                        "p_adjusted": p_adjusted,
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


def _criteria_order(present: Sequence[str], criteria: Sequence[str] | None, source: Source) -> list[str]:
    if criteria is None:
        if len(present) == 1:
            return list(present)
        if set(present) <= set(PAPER_CRITERIA):
            return [c for c in PAPER_CRITERIA if c in present]
        raise InputError(
            f"gold p-values have criteria {', '.join(present)}: give their priority order explicitly", source
        )
    unknown = [c for c in present if c not in criteria]
    if unknown:
        raise InputError(
            f"gold p-values have criteria {', '.join(unknown)} not in the priority order {criteria}"
        )
    return [c for c in criteria if c in present]


def corrected_gold_conclusions(
    gold_p_values: pd.DataFrame,
    method: str,
    alphas: Sequence[float],
    systems: Sequence[str],
    criteria: Sequence[str] | None = None,
    source: Source = None,
) -> pd.DataFrame:
    """Gold conclusions after correcting each criterion's p-values for the multiple pairs (beyond the paper).

    Within each gold method and criterion the family is the n(n-1) ordered one-sided hypotheses, as in
    :func:`corrected_test_conclusions`, so ``method="none"`` gives the paper's gold. The criteria are then combined
    by the paper's priority rule (Section 4): the first criterion in ``criteria`` (default: adequacy, then fluency,
    or the only criterion) whose corrected conclusion is not a tie decides, else the pair is a tie. Correcting
    within each criterion, not across them, bounds the combined rule's family-wise error by (number of
    criteria) x alpha at worst (Bonferroni over the criteria); the paper's own rule has the same structure.

    A gold with several ``unit`` values is ambiguous (which unit's p-values?) and an :class:`InputError`.

    Returns columns ``gold, sys_x, sys_y, alpha, conclusion, decided_by, p_adjusted``; ``decided_by`` is the
    deciding criterion and ``p_adjusted`` its corrected p-value; "none" and NaN for ties (as
    :func:`mtsig.stats.human.gold_conclusions`).
    """
    frame = _with_gold_column(gold_p_values)
    keys = ("gold", "criterion", "sys_x", "sys_y")
    _check_p_value_table(frame, GOLD_PVALUE_COLUMNS, keys, systems, source, "gold p-values")
    pairs, reversed_pairs = _pairs_both_ways(systems, method)
    m = len(pairs)
    frames = []
    for gold_name, gold_rows in frame.groupby("gold", sort=False):
        if "unit" in gold_rows.columns and gold_rows["unit"].nunique() > 1:
            raise InputError(
                f"gold {gold_name} mixes units {sorted(gold_rows['unit'].unique())}; give one unit per gold",
                source,
            )
        order = _criteria_order(list(dict.fromkeys(gold_rows["criterion"])), criteria, source)
        adjusted_by_criterion = {}
        for criterion in order:
            rows = gold_rows[gold_rows["criterion"] == criterion]
            what = f"gold {gold_name}, criterion {criterion}"
            p_forward = _pair_lookup(rows, pairs, "p_value", source, what)
            p_backward = _pair_lookup(rows, reversed_pairs, "p_value", source, what)
            both = adjust_p_values(np.concatenate([p_forward, p_backward]), method)
            adjusted_by_criterion[criterion] = (both[:m], both[m:])
        for alpha in alphas:
            by_criterion = {c: conclude(*adjusted_by_criterion[c], alpha) for c in order}
            conclusion, decided_by = by_priority(by_criterion)
            p_adjusted = np.full(m, np.nan)
            for criterion, this in by_criterion.items():
                decided = decided_by == criterion
                p_adjusted[decided] = _concluded_p(this, *adjusted_by_criterion[criterion])[decided]
            frames.append(
                pd.DataFrame(
                    {
                        "gold": gold_name,
                        "sys_x": [x for x, _ in pairs],
                        "sys_y": [y for _, y in pairs],
                        "alpha": float(alpha),
                        "conclusion": conclusion,
                        "decided_by": decided_by,
                        "p_adjusted": p_adjusted,
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


@dataclass(frozen=True)
class ExperimentEvaluation:
    """An experiment's tests judged against its gold: ``accuracy`` (one block per ``correction``: ``none``, then
    ``"<method> (tests)"`` and ``"<method> (tests and gold)"`` per method), the ``chi_square`` between metrics
    and the ``agreement`` between tests (both uncorrected), and every metric's ``conclusions`` (with a ``metric``
    column first)."""

    accuracy: pd.DataFrame
    chi_square: pd.DataFrame
    agreement: pd.DataFrame
    conclusions: pd.DataFrame


def experiment_evaluation(
    tests: Mapping[str, pd.DataFrame],
    gold_pvalues: pd.DataFrame,
    gold_conclusions: pd.DataFrame,
    alphas: Sequence[float],
    corrections: Sequence[str],
    sources: Mapping[str, Source] | None = None,
) -> ExperimentEvaluation:
    """Accuracy of every metric x test (``tests``: metric -> tests table, read from ``sources[metric]``) against
    every gold (Tables 1-2), uncorrected and, for each method of ``corrections``, with the tests corrected against
    the uncorrected gold and with both corrected (the gold named ``<gold>+<method>``); the chi-square test between
    metrics (Section 4.1) and the agreement between tests, both uncorrected. Systems in the gold's order."""
    sources = sources or {}
    systems = list(dict.fromkeys([*gold_conclusions["sys_x"], *gold_conclusions["sys_y"]]))
    conclusions = {
        m: conclusions_of_tests(t, alphas, systems, source=sources.get(m)) for m, t in tests.items()
    }
    frames = [accuracy(conclusions, gold_conclusions).assign(correction="none")]
    for method in corrections:
        corrected = {m: corrected_test_conclusions(t, method, alphas, systems) for m, t in tests.items()}
        corrected_gold = corrected_gold_conclusions(gold_pvalues, method, alphas, systems)
        corrected_gold["gold"] = corrected_gold["gold"] + f"+{method}"
        frames.append(accuracy(corrected, gold_conclusions).assign(correction=f"{method} (tests)"))
        frames.append(accuracy(corrected, corrected_gold).assign(correction=f"{method} (tests and gold)"))
    table = pd.concat(frames, ignore_index=True)
    table = table[["correction", *[c for c in table.columns if c != "correction"]]]
    long = pd.concat([c.assign(metric=m) for m, c in conclusions.items()], ignore_index=True)
    return ExperimentEvaluation(
        table,
        metric_chi_square(table[table["correction"] == "none"]),
        differing_conclusions(conclusions),
        long[["metric", *[c for c in long.columns if c != "metric"]]],
    )


__all__ = [
    "CORRECTIONS",
    "ExperimentEvaluation",
    "PAPER_CRITERIA",
    "PAPER_TESTS",
    "SYS_X",
    "SYS_Y",
    "TIE",
    "accuracy",
    "adjust_p_values",
    "agreement_summary",
    "benjamini_hochberg",
    "conclusions_of_tests",
    "corrected_gold_conclusions",
    "corrected_test_conclusions",
    "differing_conclusions",
    "experiment_evaluation",
    "holm",
    "is_two_sided",
    "metric_chi_square",
    "unordered_pairs",
]
