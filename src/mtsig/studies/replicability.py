"""Do the paper's conclusions replicate? Partial conjunction tests (:mod:`mtsig.stats.replicability`; Dror et al. 2017)
over the experiments of a run and over the 18 language pairs of the WMT20 metrics task.

* **Tests** (the paper's question put to N test sets instead of two): for each experiment with a gold, is test A
  (e.g. approximate randomization) more accurate than test B (the paired bootstrap)? Per experiment, the
  one-sided exact McNemar test on the (metric, pair) conclusions at ``alpha`` where exactly one of the two tests
  agrees with the gold (:func:`more_accurate_pvalue`), then the partial conjunction over the experiments.
* **Metrics** (the metrics task's question over language pairs): for each ordered pair of metrics (A, B), the
  one-sided Williams p-values "A correlates better with humans than B" of every language pair where both were
  scored, then the partial conjunction: "A beats B in at least k of N language pairs"; likewise for the WMT23
  protocol's tasks on MQM (en-de, he-en, zh-en), from their permutation tests (:func:`protocol_replicability`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special

from mtsig.settings import Replicability
from mtsig.stats.replicability import METHODS, partial_conjunction_pvalues, replicability_count

#: The comparisons of tests: (A, B) asks "is A more accurate than B?".
TEST_COMPARISONS: tuple[tuple[str, str], ...] = (
    ("approximate_randomization", "paired_bootstrap"),
    ("approximate_randomization", "bootstrap"),
    ("bootstrap", "paired_bootstrap"),
    ("paired_bootstrap", "approximate_randomization"),
)


def more_accurate_pvalue(correct_a: np.ndarray, correct_b: np.ndarray) -> tuple[int, int, float]:
    """The one-sided exact McNemar test that A is more often right than B on the same items: with ``b`` items only
    A gets right and ``c`` only B does, ``p = P(Bin(b + c, 1/2) >= b)`` (1 when no item separates them).
    Returns ``(b, c, p)``."""
    a, b_ = np.asarray(correct_a, dtype=bool), np.asarray(correct_b, dtype=bool)
    only_a, only_b = int((a & ~b_).sum()), int((~a & b_).sum())
    if only_a == 0:
        return only_a, only_b, 1.0
    return only_a, only_b, float(special.bdtrc(only_a - 1, only_a + only_b, 0.5))


def pair_correctness(
    test_conclusions: pd.DataFrame, gold_conclusions: pd.DataFrame, alpha: float
) -> pd.DataFrame:
    """Per (metric, sys_x, sys_y) at ``alpha``: one boolean column per test, True where the test's three-way
    conclusion equals the primary gold's (the first gold of the file), as the accuracy of the paper counts it."""
    gold = gold_conclusions[gold_conclusions["gold"] == gold_conclusions["gold"].iloc[0]]
    gold = gold[np.isclose(gold["alpha"], alpha)][["sys_x", "sys_y", "conclusion"]]
    tests = test_conclusions[np.isclose(test_conclusions["alpha"], alpha)]
    merged = tests.merge(gold, on=["sys_x", "sys_y"], suffixes=("", "_gold"), validate="many_to_one")
    merged["correct"] = merged["conclusion"] == merged["conclusion_gold"]
    return merged.pivot_table(
        index=["metric", "sys_x", "sys_y"], columns="test", values="correct", aggfunc="first"
    )


def partial_conjunction_rows(p_values: np.ndarray, alpha: float) -> list[dict[str, object]]:
    """``method, u, p_partial_conjunction, rejected`` for every method and ``u = 1..N``."""
    rows = []
    for method in METHODS:
        combined = partial_conjunction_pvalues(p_values, method)
        for u, p in enumerate(combined, start=1):
            rows.append(
                {"method": method, "u": u, "p_partial_conjunction": float(p), "rejected": bool(p <= alpha)}
            )
    return rows


def tests_replicability(
    experiments: Mapping[str, tuple[pd.DataFrame, pd.DataFrame]], alpha: float = Replicability.alpha
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per comparison and experiment: ``comparison, experiment, only_a, only_b, p_value``; and per comparison the
    partial conjunction p-values over the experiments (``comparison, n_sets, method, u, p_partial_conjunction,
    rejected``)."""
    correctness = {name: pair_correctness(t, g, alpha) for name, (t, g) in experiments.items()}
    per_set, combined = [], []
    for test_a, test_b in TEST_COMPARISONS:
        name = f"{test_a} > {test_b}"
        p_values = []
        for experiment, table in correctness.items():
            only_a, only_b, p = more_accurate_pvalue(table[test_a].to_numpy(), table[test_b].to_numpy())
            per_set.append(
                {
                    "comparison": name,
                    "experiment": experiment,
                    "only_a": only_a,
                    "only_b": only_b,
                    "p_value": p,
                }
            )
            p_values.append(p)
        for row in partial_conjunction_rows(np.array(p_values), alpha):
            combined.append({"comparison": name, "n_sets": len(p_values), **row})
    return pd.DataFrame(per_set), pd.DataFrame(combined)


def pairwise_replicability(p_values: pd.DataFrame, alpha: float = Replicability.alpha) -> pd.DataFrame:
    """Per ordered metric pair (A, B) of ``p_values`` (``lp, metric_a, metric_b, p_value``: one-sided p-values of
    "A beats B", one per test set): ``n_sets``, ``k_bonferroni``, ``k_fisher`` (language pairs are disjoint test
    sets and judgments, so Fisher's independence holds), ``significant_alone`` (p <= alpha in that test set), the
    test sets Holm's procedure names (``replicated_in``), and the partial conjunction p-value at u = 1. Sorted by
    k, then by name."""
    rows = []
    for (a, b), group in p_values.groupby(["metric_a", "metric_b"], sort=True):
        p = group["p_value"].to_numpy(dtype=float)
        lps = group["lp"].to_numpy()
        k_bonferroni = int(replicability_count(p, alpha, "bonferroni"))
        order = np.argsort(p, kind="stable")
        rows.append(
            {
                "metric_a": a,
                "metric_b": b,
                "n_sets": len(p),
                "k_bonferroni": k_bonferroni,
                "k_fisher": int(replicability_count(p, alpha, "fisher")),
                "significant_alone": int((p <= alpha).sum()),
                "replicated_in": ",".join(lps[order[:k_bonferroni]]),
                "p_u1_bonferroni": float(partial_conjunction_pvalues(p, "bonferroni")[0]),
            }
        )
    columns = [
        "metric_a", "metric_b", "n_sets", "k_bonferroni", "k_fisher", "significant_alone", "replicated_in",
        "p_u1_bonferroni",
    ]  # fmt: skip
    if not rows:
        return pd.DataFrame(columns=columns)
    return (
        pd.DataFrame(rows)
        .sort_values(
            ["k_bonferroni", "k_fisher", "metric_a", "metric_b"],
            ascending=[False, False, True, True],
            kind="stable",
        )
        .reset_index(drop=True)
    )


def metrics_replicability(
    williams: pd.DataFrame,
    language_pairs: Sequence[str],
    alpha: float = Replicability.alpha,
    human: str = "z",
    systems: str = "all",
    exclude: Sequence[str] = ("HUMAN_RAW",),
) -> pd.DataFrame:
    """:func:`pairwise_replicability` of the one-sided Williams p-values "A correlates better with humans than B"
    of the ``language_pairs`` where both metrics were scored (a task's further evaluations of a pair's subsets,
    such as WMT20's en-iu_news, are left out: they share data with their pair), for the ``human`` score and the
    ``systems`` set given."""
    chosen = williams[(williams["human"] == human) & (williams["systems"] == systems)]
    chosen = chosen[chosen["lp"].isin(language_pairs)]
    chosen = chosen[~chosen["metric_a"].isin(exclude) & ~chosen["metric_b"].isin(exclude)]
    return pairwise_replicability(chosen.dropna(subset=["p_value"]), alpha)


#: The columns that name a comparison of :func:`protocol_replicability`, before :func:`pairwise_replicability`'s.
PROTOCOL_KEYS = ["experiment", "protocol", "kind"]


def protocol_replicability(replication: pd.DataFrame, alpha: float = Replicability.alpha) -> pd.DataFrame:
    """Does metric A beat metric B across a metrics-task protocol's language pairs? :func:`pairwise_replicability`
    of each (experiment, protocol, task kind) of ``replication`` (the rows of :func:`mtsig.studies.
    metrics_protocol.beyond.replication_pvalues` with an ``experiment`` column: per language pair, the permutation
    test's ``(c + 1)/(n + 1)`` p-value of "A beats B"), with those three columns first."""
    frames = [
        pairwise_replicability(group, alpha).assign(experiment=e, protocol=p, kind=k)
        for (e, p, k), group in replication.groupby(PROTOCOL_KEYS, sort=False)
    ]
    if not frames:
        return pd.DataFrame(
            columns=PROTOCOL_KEYS + list(pairwise_replicability(replication.iloc[:0]).columns)
        )
    table = pd.concat(frames, ignore_index=True)
    return table[PROTOCOL_KEYS + [c for c in table.columns if c not in PROTOCOL_KEYS]]


@dataclass(frozen=True)
class Replicability:
    """The run's replicability tables: per comparison of tests and experiment (``tests``), their partial
    conjunctions over the experiments (``tests_combined``), the metrics task's metric pairs over its language
    pairs (``metrics``) and the protocols' (``protocols``; None without protocol experiments)."""

    tests: pd.DataFrame
    tests_combined: pd.DataFrame
    metrics: pd.DataFrame
    protocols: pd.DataFrame | None


def run_replicability(
    experiments: Mapping[str, tuple[pd.DataFrame, pd.DataFrame]],
    williams: pd.DataFrame | None,
    language_pairs: Sequence[str],
    protocol_replication: pd.DataFrame | None,
    alpha: float,
) -> Replicability:
    """Partial conjunction tests (Dror et al. 2017; Benjamini & Heller 2008) of the module docstring's three
    questions: the tests over the ``experiments`` (name -> its test conclusions and gold conclusions,
    :func:`tests_replicability`), the metrics task's Williams tests over its ``language_pairs``
    (:func:`metrics_replicability`; ``williams`` None: no rows) and the protocols' permutation tests over theirs
    (:func:`protocol_replicability`; ``protocol_replication`` None: no protocol)."""
    per_set, combined = (
        tests_replicability(experiments, alpha) if experiments else (pd.DataFrame(), pd.DataFrame())
    )
    by_metric = (
        metrics_replicability(williams, language_pairs, alpha) if williams is not None else pd.DataFrame()
    )
    by_protocol = (
        protocol_replicability(protocol_replication, alpha) if protocol_replication is not None else None
    )
    return Replicability(per_set, combined, by_metric, by_protocol)
