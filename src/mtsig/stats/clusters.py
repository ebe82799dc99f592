"""Significance clusters: WMT-style tiers of systems from a ranking and pairwise significance (beyond the paper).

The WMT findings papers present each language pair's human-evaluation results as systems ordered by score, with
rank ranges and horizontal lines between *clusters* of systems considered tied (e.g. Barrault et al. 2020, the WMT20
findings; Akhbardeh et al. 2021, the WMT21 findings). Here the significance comes from any one-sided test of mtsig
(a tests table) or from a human gold standard (gold p-values), at level ``alpha`` after a multiple-testing correction
of :mod:`mtsig.stats.evaluation` (none, Holm, Benjamini-Hochberg), read by the same conclusion rule as everywhere in mtsig:
X is significantly better than Y iff its (adjusted) one-sided p-value is ``<= alpha`` (the WMT scripts use ``<``;
the two differ only for a p-value exactly equal to alpha).

Systems are ordered by score, best first; equal scores keep the given order. "X beats Y" means X is significantly
better than Y *and* has the strictly higher score (a significant result against the score order is ignored, as the
WMT scripts ignore a Wilcoxon win of the lower-scored system). A boundary after position i (between the i-th and
the (i+1)-th system) is drawn by one of three rules:

* ``all_pairs`` (default): iff every system above the boundary beats every system below it. Clusters are then
  consistent by construction: two systems in different clusters always differ significantly, in the direction of
  the ranking. A greedy rule that opens a new cluster as soon as a system is significantly worse than the top of the
  current one is not: with A > C significant but A vs B and B vs C not, it separates B from C although they do not
  differ significantly.
* ``wmt_min_wins``: iff the smallest number of wins among the systems above equals the number of systems below.
  This is the WMT organisers' ``make_rankings.py`` (WMT21 out-of-English and French-German human evaluation,
  wmt-conference/wmt21-news-systems, ``humaneval/newstest2021-EX_and_XY``).
* ``wmt_last_system``: iff the system just above the boundary beats every system below it (its wins equal the
  number of systems below). This reproduces the clusters the WMT21 organisers published with their Wilcoxon
  p-value matrices for the into-English and Facebook Wikipedia evaluations (``humaneval/newstest2021-toen`` and
  ``humaneval/facebook-wikipedia-2021``, files ``clusters.csv`` and ``adwilcox-*.csv``).

Each rule's boundaries include the previous one's: ``all_pairs`` implies ``wmt_min_wins`` (every system above has
all the systems below among its wins, and the one just above can have no other), which implies ``wmt_last_system``.
The WMT rules can separate systems that do not differ significantly; ``all_pairs`` never does. Equal scores are never
split by any rule, so systems with identical outputs (identical statistics) always share a cluster.

Rank ranges follow the WMT scripts (``make_rankings.py``): a system ranks at best ``1 + losses`` (the number of
systems that beat it) and at worst ``N - wins``.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.settings import Clusters
from mtsig.stats.conclusions import SYS_X, SYS_Y
from mtsig.stats.evaluation import Source, corrected_gold_conclusions, corrected_test_conclusions

ALL_PAIRS = "all_pairs"
WMT_MIN_WINS = "wmt_min_wins"
WMT_LAST_SYSTEM = "wmt_last_system"
#: The boundary rules of :func:`cluster_boundaries`; the first is the default.
CLUSTER_RULES: tuple[str, ...] = (ALL_PAIRS, WMT_MIN_WINS, WMT_LAST_SYSTEM)

CLUSTER_COLUMNS = ("system", "score", "rank_low", "rank_high", "cluster", "wins", "losses")


def check_cluster_rule(rule: str) -> None:
    """Raise :class:`InputError` unless ``rule`` is one of :data:`CLUSTER_RULES`."""
    if rule not in CLUSTER_RULES:
        raise InputError(f"unknown cluster rule {rule!r}; known: {', '.join(CLUSTER_RULES)}")


def ranked_systems(scores: Mapping[str, float], higher_is_better: bool = True) -> list[str]:
    """Systems ordered by score, best first; equal scores keep the order of ``scores`` (a stable sort)."""
    names = list(scores)
    values = np.array([float(scores[name]) for name in names])
    bad = [name for name, value in zip(names, values, strict=True) if not math.isfinite(value)]
    if bad:
        raise InputError(
            f"system score(s) not a finite number: {', '.join(f'{n}={scores[n]!r}' for n in bad)}"
        )
    order = np.argsort(-values if higher_is_better else values, kind="stable")
    return [names[i] for i in order]


def beats_matrix(
    order: Sequence[str],
    scores: Mapping[str, float],
    better: Collection[tuple[str, str]],
    higher_is_better: bool,
) -> np.ndarray:
    """``beats[j, k]``: the system at position j of ``order`` is significantly better than the one at position k
    (``(order[j], order[k])`` in ``better``) and has the strictly better score."""
    position = {name: n for n, name in enumerate(order)}
    unknown = sorted({name for pair in better for name in pair if name not in position})
    if unknown:
        raise InputError(f"significance given for system(s) without a score: {', '.join(unknown)}")
    sign = 1.0 if higher_is_better else -1.0
    oriented = np.array([sign * float(scores[name]) for name in order])
    beats = np.zeros((len(order), len(order)), dtype=bool)
    for winner, loser in better:
        beats[position[winner], position[loser]] = True
    return beats & (oriented[:, None] > oriented[None, :])


def cluster_boundaries(beats: np.ndarray, rule: str = ALL_PAIRS) -> np.ndarray:
    """``boundary[i]`` for i = 0 .. N-2: a line between positions i and i+1 of the ranking, by ``rule`` (see the
    module docstring), from the ``beats`` matrix of :func:`beats_matrix` (systems in ranking order)."""
    check_cluster_rule(rule)
    n = beats.shape[0]
    wins = beats.sum(axis=1)
    below = n - 1 - np.arange(n - 1)  # systems below each boundary
    if rule == ALL_PAIRS:
        return np.array([bool(beats[: i + 1, i + 1 :].all()) for i in range(n - 1)], dtype=bool)
    if rule == WMT_MIN_WINS:
        return np.minimum.accumulate(wins)[: n - 1] == below
    return np.array([bool(beats[i, i + 1 :].all()) for i in range(n - 1)], dtype=bool)


def significance_clusters(
    scores: Mapping[str, float],
    better: Collection[tuple[str, str]],
    *,
    higher_is_better: bool = True,
    rule: str = ALL_PAIRS,
) -> pd.DataFrame:
    """Clusters of the systems of ``scores`` given the ordered pairs ``(winner, loser)`` that differ significantly.

    Returns one row per system, best first, with columns ``system, score`` (as given), ``rank_low, rank_high``
    (the WMT rank range), ``cluster`` (1 = best), ``wins`` and ``losses`` (systems it beats / that beat it).
    """
    check_cluster_rule(rule)
    if len(scores) < 1:
        raise InputError("no systems to cluster")
    order = ranked_systems(scores, higher_is_better)
    beats = beats_matrix(order, scores, better, higher_is_better)
    boundaries = cluster_boundaries(beats, rule)
    wins, losses = beats.sum(axis=1), beats.sum(axis=0)
    n = len(order)
    return pd.DataFrame(
        {
            "system": order,
            "score": [float(scores[name]) for name in order],
            "rank_low": 1 + losses,
            "rank_high": n - wins,
            "cluster": 1 + np.concatenate([[0], np.cumsum(boundaries)]).astype(np.int64),
            "wins": wins,
            "losses": losses,
        }
    )


def significant_pairs(conclusions: pd.DataFrame, source: Source = None) -> list[tuple[str, str]]:
    """``(winner, loser)`` of every pair concluded "sys_x" or "sys_y" in a conclusions table (columns ``sys_x,
    sys_y, conclusion``, as :func:`mtsig.stats.evaluation.conclusions_of_tests` and the gold conclusions write them) of ONE
    test and alpha."""
    missing = [c for c in ("sys_x", "sys_y", "conclusion") if c not in conclusions.columns]
    if missing:
        raise InputError(f"conclusions table lacks column(s) {', '.join(missing)}", source, 1)
    for column in ("test", "alpha", "gold"):
        if column in conclusions.columns and conclusions[column].nunique() > 1:
            values = ", ".join(map(str, conclusions[column].unique()))
            raise InputError(f"conclusions of several {column} values ({values}): select one first", source)
    pairs = []
    for x, y, conclusion in conclusions[["sys_x", "sys_y", "conclusion"]].itertuples(index=False):
        if conclusion == SYS_X:
            pairs.append((x, y))
        elif conclusion == SYS_Y:
            pairs.append((y, x))
    return pairs


def _check_alpha(alpha: float) -> float:
    if not 0.0 < float(alpha) < 1.0:
        raise InputError(f"alpha must lie strictly between 0 and 1, got {alpha!r}")
    return float(alpha)


def clusters_from_tests(
    tests: pd.DataFrame,
    scores: Mapping[str, float],
    *,
    alpha: float = Clusters.alpha,
    correction: str = Clusters.correction,
    higher_is_better: bool = True,
    rule: str = ALL_PAIRS,
    source: Source = None,
) -> pd.DataFrame:
    """Clusters from a tests table of ONE test (``sys_x, sys_y, test, statistic, p_value``, both orders of every
    pair of the systems of ``scores``) at level ``alpha`` after ``correction`` over the experiment's pairs.

    The significance is :func:`mtsig.stats.evaluation.corrected_test_conclusions`' (one-sided tests: the n(n-1) ordered
    p-values form the family; two-sided tests: the n(n-1)/2 pairs, read in the direction of the statistic), so
    ``correction="none"`` is the paper's conclusion rule. ``scores``: each system's corpus score (e.g.
    :attr:`mtsig.stats.resampling.PairwiseResult.system_scores`), its order breaking ties.
    """
    check_cluster_rule(rule)
    alpha = _check_alpha(alpha)
    if "test" in tests.columns and tests["test"].nunique() > 1:
        names = ", ".join(map(str, tests["test"].unique()))
        raise InputError(f"tests table holds several tests ({names}): cluster one test at a time", source)
    conclusions = corrected_test_conclusions(tests, correction, [alpha], list(scores), source)
    return significance_clusters(
        scores, significant_pairs(conclusions, source), higher_is_better=higher_is_better, rule=rule
    )


def clusters_from_gold(
    gold_p_values: pd.DataFrame,
    scores: Mapping[str, float],
    *,
    alpha: float = Clusters.alpha,
    correction: str = Clusters.correction,
    criteria: Sequence[str] | None = None,
    rule: str = ALL_PAIRS,
    source: Source = None,
) -> pd.DataFrame:
    """Clusters from a human gold standard's p-values (``[gold,] sys_x, sys_y, criterion, p_value``, ordered pairs)
    of ONE gold, by :func:`mtsig.stats.evaluation.corrected_gold_conclusions` (criteria combined by the paper's priority
    rule), ordered by ``scores`` (e.g. the human system means; higher is better)."""
    check_cluster_rule(rule)
    alpha = _check_alpha(alpha)
    if "gold" in gold_p_values.columns and gold_p_values["gold"].nunique() > 1:
        names = ", ".join(map(str, gold_p_values["gold"].unique()))
        raise InputError(f"gold p-values of several golds ({names}): cluster one gold at a time", source)
    conclusions = corrected_gold_conclusions(
        gold_p_values, correction, [alpha], list(scores), criteria, source
    )
    return significance_clusters(scores, significant_pairs(conclusions, source), rule=rule)


#: Columns of :func:`experiment_clusters`: which ranking (``source``: a metric or a human gold; ``kind``:
#: ``metric`` or ``human``), then :data:`CLUSTER_COLUMNS`.
EXPERIMENT_CLUSTER_COLUMNS = ("source", "kind", *CLUSTER_COLUMNS)


def experiment_clusters(
    tests: Mapping[str, pd.DataFrame],
    scores: Mapping[str, Mapping[str, float]],
    higher_is_better: Mapping[str, bool],
    gold_p_values: pd.DataFrame | None = None,
    human_scores: Mapping[str, float] | None = None,
    *,
    test: str = Clusters.test,
    alpha: float = Clusters.alpha,
    correction: str = Clusters.correction,
    rule: str = ALL_PAIRS,
    criteria: Sequence[str] | None = None,
) -> pd.DataFrame:
    """The clusters of every metric (from its tests table, rows of ``test`` only) and of every human gold of an
    experiment (from the gold p-values, systems ordered by ``human_scores``), one block of rows per ranking, metric
    rankings first: columns :data:`EXPERIMENT_CLUSTER_COLUMNS`. ``scores[metric]``: each system's corpus score in
    system order (ties keep it). One alpha, correction and rule for all, so the rankings can be set side by side."""
    frames = []
    for metric, table in tests.items():
        chosen = table[table["test"] == test]
        if chosen.empty:
            raise InputError(
                f"tests table of {metric} has no rows of test {test!r} (evaluation.clusters.test)"
            )
        clusters = clusters_from_tests(
            chosen,
            scores[metric],
            alpha=alpha,
            correction=correction,
            higher_is_better=higher_is_better[metric],
            rule=rule,
        )
        frames.append(clusters.assign(source=metric, kind="metric"))
    if gold_p_values is not None and human_scores is not None:
        golds = gold_p_values["gold"].unique() if "gold" in gold_p_values.columns else [None]
        for gold in golds:
            rows = gold_p_values if gold is None else gold_p_values[gold_p_values["gold"] == gold]
            clusters = clusters_from_gold(
                rows, human_scores, alpha=alpha, correction=correction, criteria=criteria, rule=rule
            )
            frames.append(clusters.assign(source=f"human:{gold or 'gold'}", kind="human"))
    table = pd.concat(frames, ignore_index=True)
    return table[list(EXPERIMENT_CLUSTER_COLUMNS)]


def clusters_side_by_side(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`experiment_clusters`' rankings next to each other: one row per rank position, one column per source,
    each cell ``"<cluster>. <system>"`` (the human gold's clusters next to the metrics')."""
    columns = {}
    for source, rows in table.groupby("source", sort=False):
        columns[source] = [f"{c}. {s}" for c, s in zip(rows["cluster"], rows["system"], strict=True)]
    out = pd.DataFrame(columns)
    out.insert(0, "position", range(1, len(out) + 1))
    return out


__all__ = [
    "ALL_PAIRS",
    "CLUSTER_COLUMNS",
    "CLUSTER_RULES",
    "EXPERIMENT_CLUSTER_COLUMNS",
    "WMT_LAST_SYSTEM",
    "WMT_MIN_WINS",
    "beats_matrix",
    "check_cluster_rule",
    "cluster_boundaries",
    "clusters_from_gold",
    "clusters_from_tests",
    "clusters_side_by_side",
    "experiment_clusters",
    "ranked_systems",
    "significance_clusters",
    "significant_pairs",
]
