"""The result of the engine (:class:`PairwiseResult`) and its tables: tests, pair intervals, system intervals.

Every table has one row per ordered pair, (X, Y) before (Y, X), with ``statistic = S(X) - S(Y)`` oriented so that
positive means X is better (Graham, Mathur & Baldwin 2014, Section 2); the reversed row is the first one negated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from mtsig.stats.resampling.registry import require_finite
from mtsig.stats.resampling.schemes import Bounds, Plan

#: A request to keep one ordered pair's pseudo-statistics: (sys_x, sys_y, pair number, reversed).
KeepRequest = tuple[str, str, int, bool]
#: Each test's p-values for (X, Y) and for (Y, X) of every pair.
PValues = dict[str, tuple[np.ndarray, np.ndarray]]


@dataclass
class PairwiseResult:
    """Results of :func:`pairwise_tests`.

    ``table``: columns ``sys_x, sys_y, test, statistic, p_value``, one row per ordered pair (both orders) and test.
    ``statistic = S(X) - S(Y)`` oriented so that positive means X is better; one-sided p-values are for "X better than
    Y"; two-sided p-values are equal for both orders. ``system_scores``: corpus score of each system, as the metric
    reports it (not negated). ``distributions[(sys_x, sys_y)][test]``: the pseudo-statistics of the paper's Figs. 5-6
    (``d_b`` for bootstraps, ``d_r`` for AR), oriented for (sys_x, sys_y), plus ``"actual"``: ``d``.
    ``settings``: every setting that changes a number (for the result's signature).

    ``intervals`` (only when intervals were requested): columns ``sys_x, sys_y, method, level, statistic, ci_low,
    ci_high``, one row per ordered pair (both orders, in the table's pair order) and method: the interval of
    ``statistic = S(X) - S(Y)``, oriented like the table (for TER, ``TER_y - TER_x``). The row of (Y, X) is the row
    of (X, Y) negated and swapped, ``[-ci_high, -ci_low]``: both percentile and BCa intervals are equivariant under
    negation, so this is what computing them on ``-d_b`` gives, and the two rows can never disagree.
    ``system_intervals``: columns ``system, method, level, score, ci_low, ci_high``: each system's corpus score and
    its interval, on the metric's own scale (TER not negated). Both come from the i.i.d. bootstrap draws of the
    paired bootstrap (the first ``settings["intervals"]["n_samples"]`` of them), with ``method`` in
    :data:`mtsig.stats.intervals.INTERVAL_METHODS`.
    """

    table: pd.DataFrame
    system_scores: dict[str, float]
    distributions: dict[tuple[str, str], dict[str, np.ndarray | float]] = field(default_factory=dict)
    settings: dict[str, object] = field(default_factory=dict)
    intervals: pd.DataFrame | None = None
    system_intervals: pd.DataFrame | None = None


def _oriented_rows(
    systems: Sequence[str], x: np.ndarray, y: np.ndarray, actual: np.ndarray, labels: Sequence[str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The ``sys_x``, ``sys_y``, statistic and label columns of a table with one row per pair ``(x[p], y[p])`` (as
    given, with ``actual[p] = d``), then (X, Y) before (Y, X), then label: axis order [pair, orientation, label],
    flattened row-major; (Y, X) has the statistic negated."""
    names = np.asarray(systems, dtype=object)
    shape = (len(x), 2, len(labels))
    sys_x = np.broadcast_to(np.stack([names[x], names[y]], axis=1)[:, :, None], shape)
    sys_y = np.broadcast_to(np.stack([names[y], names[x]], axis=1)[:, :, None], shape)
    statistic = np.broadcast_to(np.stack([actual, -actual], axis=1)[:, :, None], shape)
    label_column = np.broadcast_to(np.asarray(labels, dtype=object)[None, None, :], shape)
    return sys_x.ravel(), sys_y.ravel(), statistic.ravel(), label_column.ravel()


def pair_interval_table(
    systems: Sequence[str], x: np.ndarray, y: np.ndarray, actual: np.ndarray, bounds: Bounds, level: float
) -> pd.DataFrame:
    """The intervals of every pair's difference (:attr:`PairwiseResult.intervals`). Rows in the order: pair (as
    given), then (X, Y) before (Y, X), then method; (Y, X) is (X, Y) negated."""
    methods = list(bounds)
    sys_x, sys_y, statistic, method_names = _oriented_rows(systems, x, y, actual, methods)
    low = np.stack([np.stack([bounds[m][0], -bounds[m][1]], axis=1) for m in methods], axis=2)
    high = np.stack([np.stack([bounds[m][1], -bounds[m][0]], axis=1) for m in methods], axis=2)
    return pd.DataFrame(
        {
            "sys_x": sys_x,
            "sys_y": sys_y,
            "method": method_names,
            "level": level,
            "statistic": statistic,
            "ci_low": low.ravel(),
            "ci_high": high.ravel(),
        }
    )


def system_interval_table(
    systems: Sequence[str], raw_scores: np.ndarray, bounds: Bounds, level: float, higher_is_better: bool
) -> pd.DataFrame:
    """Each system's score and intervals (:attr:`PairwiseResult.system_intervals`). Rows in the order: system (as
    given), then method; on the metric's scale (the oriented bounds of a
    lower-is-better metric are negated back and swapped)."""
    frames = []
    for method, (low, high) in bounds.items():
        if not higher_is_better:
            low, high = -high, -low
        frames.append(
            pd.DataFrame(
                {
                    "system": list(systems),
                    "method": method,
                    "level": level,
                    "score": raw_scores,
                    "ci_low": low,
                    "ci_high": high,
                    "_order": np.arange(len(systems)),
                }
            )
        )
    table = pd.concat(frames, ignore_index=True).sort_values("_order", kind="stable")
    return table.drop(columns="_order").reset_index(drop=True)


def result_table(
    systems: Sequence[str],
    x: np.ndarray,
    y: np.ndarray,
    actual: np.ndarray,
    tests: Sequence[str],
    p_values: Mapping[str, tuple[np.ndarray, np.ndarray]],
) -> pd.DataFrame:
    """The tests' table (:attr:`PairwiseResult.table`). Rows in the order: pair (as given), then (X, Y) before
    (Y, X), then test in :data:`~mtsig.stats.resampling.registry.ALL_TESTS` order."""
    sys_x, sys_y, statistic, test_names = _oriented_rows(systems, x, y, actual, tests)
    shape = (len(x), 2, len(tests))
    p = np.stack([np.stack(p_values[t], axis=1) for t in tests], axis=2) if tests else np.empty(shape)
    return pd.DataFrame(
        {
            "sys_x": sys_x,
            "sys_y": sys_y,
            "test": test_names,
            "statistic": statistic,
            "p_value": p.ravel(),
        }
    )


def checked_result(
    systems: Sequence[str],
    plan: Plan,
    tests: Sequence[str],
    p_values: PValues,
    corpus: np.ndarray,
    higher_is_better: bool,
) -> PairwiseResult:
    """The result without distributions, settings and intervals: the tests' table, checked for non-finite
    differences and p-values, and each system's corpus score as the metric reports it (not negated)."""
    table = result_table(systems, plan.x, plan.y, plan.actual, tests, p_values)

    def row(i: int) -> str:
        return "{!r} vs {!r}, {}".format(*table[["sys_x", "sys_y", "test"]].iloc[i])

    require_finite(table["statistic"].to_numpy(), "difference", row)
    require_finite(table["p_value"].to_numpy(), "p-value", row)
    raw_scores = corpus if higher_is_better else -corpus
    return PairwiseResult(
        table=table, system_scores={name: float(s) for name, s in zip(systems, raw_scores, strict=True)}
    )


def kept_distributions(
    keep_requests: Sequence[KeepRequest],
    pseudo_of: Mapping[str, Mapping[int, np.ndarray]],
    tests: Sequence[str],
    plan: Plan,
) -> dict[tuple[str, str], dict[str, np.ndarray | float]]:
    """The pseudo-statistics of the paper's Figs. 5-6 (``d_b``, ``d_r``) and ``d`` of each requested ordered pair,
    negated for (Y, X) (exact in floating point)."""
    distributions: dict[tuple[str, str], dict[str, np.ndarray | float]] = {}
    for sys_x, sys_y, pair, flipped in keep_requests:
        sign = -1.0 if flipped else 1.0
        entry: dict[str, np.ndarray | float] = {t: sign * pseudo_of[t][pair] for t in tests}
        entry["actual"] = float(sign * plan.actual[pair])
        distributions[(sys_x, sys_y)] = entry
    return distributions


def interval_tables(
    systems: Sequence[str],
    plan: Plan,
    pair_bounds: Bounds,
    system_bounds: Bounds,
    corpus: np.ndarray,
    level: float,
    higher_is_better: bool,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The tables of the pairs' and the systems' intervals, checked for non-finite bounds."""
    raw_scores = corpus if higher_is_better else -corpus
    pairs_table = pair_interval_table(systems, plan.x, plan.y, plan.actual, pair_bounds, level)
    systems_table = system_interval_table(systems, raw_scores, system_bounds, level, higher_is_better)
    for frame in (pairs_table, systems_table):
        labels = frame.select_dtypes(exclude="number").astype(str).agg(" ".join, axis=1)
        bounds = frame[["ci_low", "ci_high"]].to_numpy()
        require_finite(bounds, "interval bound", lambda i, labels=labels: labels.iloc[i // 2])
    return pairs_table, systems_table
