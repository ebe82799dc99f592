"""System-level metric meta-evaluation: correlation with human scores, outlier systems, the Williams test.

Which metric agrees best with human judgment, and is the difference between two metrics significant? The WMT
metrics tasks (2015-2020) answer at the system level with the Pearson correlation between a metric's system scores
and the human (DA) system scores, and compare two metrics with the Williams test for dependent correlations that
share a variable (Graham & Baldwin 2014), reporting the "winners": the metrics no other metric significantly beats.
Mathur, Baldwin & Cohn (2020) showed that outlier systems inflate these correlations and remove them with a median
absolute deviation (MAD) rule. This module holds all four, vectorised (docs/statistics.md, "Metric meta-evaluation").

Vectorisation: every function takes systems on the LAST axis. ``correlation`` takes ``metric_scores[..., S]`` and
``human[S]`` (or ``[..., S]``, broadcast against it), so that many metrics and many resamples (bootstrap or
permutation draws of systems or of segments, ``[B, M, S]``) are scored in one call; ``pairwise_correlation`` gives
every metric-metric correlation of ``[..., M, S]`` at once; ``williams_pvalues`` broadcasts its four arguments.

Library only: the functions take arrays and mappings, never paths; the WMT20 study
(:mod:`mtsig.steps.metrics_task`) and the ``mtsig metrics`` command read the files.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.runtime import portable
from mtsig.settings import MetricsTask, MetricsTaskOutliers

#: The correlation coefficients of :func:`correlation`.
KINDS = ("pearson", "spearman", "kendall")
#: Kendall's tau variants of :func:`correlation`: ``b`` (the default: WMT20's tables, computed with pandas'
#: ``DataFrame.corr("kendall")``, which calls ``scipy.stats.kendalltau``, whose default is tau-b; mt-metrics-eval's
#: ``Correlation.Kendall(variant="b")``) and ``c`` (Stuart's tau-c, scipy's ``variant="c"``).
KENDALL_VARIANTS = ("b", "c")
#: Mathur, Baldwin & Cohn (2020), Sec. 4.2: b = 1.4826 makes the MAD a consistent estimate of the standard deviation
#: of a normal distribution; a system whose robust z-score exceeds 2.5 in absolute value is an outlier.
MAD_SCALE = MetricsTaskOutliers.scale
MAD_CUTOFF = MetricsTaskOutliers.cutoff
#: The WMT metrics tasks' significance level for the Williams test and its winners (0.05: the config's
#: ``metrics_task.<name>.alpha`` by default).
WILLIAMS_ALPHA = MetricsTask.alpha
WILLIAMS_COLUMNS = ["metric_a", "metric_b", "r_a", "r_b", "r_ab", "n", "t", "p_value"]
#: How :func:`williams_table` treats two metrics whose system scores are identical: ``tie`` (t = 0, p = 0.5: neither
#: beats the other; the default) or ``untested`` (no p-value, NaN, so that neither can be a winner: the outcome
#: of the WMT20 organisers' script in 7 of the 8 such cases of their published matrices, where psych::r.test
#: computes 0 × sqrt(x / 0) or the square root of a negative rounding residue; docs/conventions.md).
IDENTICAL_METRICS = ("tie", "untested")


# ------------------------------------------------------------------------------------------------ correlations


def _as_float(values: object, what: str) -> np.ndarray:
    array = np.asarray(values, dtype=np.float64)
    if array.ndim == 0:
        raise InputError(f"{what}: expected an array with systems on the last axis, got a scalar")
    if not np.isfinite(array).all():
        raise InputError(
            f"{what}: every score must be a finite number (a metric missing a system is dropped first)"
        )
    return array


def _pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r along the last axis, two-pass (centred sums); NaN where either side is constant."""
    xc = x - x.mean(axis=-1, keepdims=True)
    yc = y - y.mean(axis=-1, keepdims=True)
    numerator = (xc * yc).sum(axis=-1)
    denominator = np.sqrt((xc * xc).sum(axis=-1) * (yc * yc).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1.0), np.nan)


def average_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1..S along the last axis, ties sharing the mean of their ranks (``scipy.stats.rankdata``'s default
    ``average`` method), vectorised over the leading axes."""
    values = np.asarray(values, dtype=np.float64)
    n = values.shape[-1]
    order = np.argsort(values, axis=-1, kind="stable")
    ordered = np.take_along_axis(values, order, axis=-1)
    position = np.broadcast_to(np.arange(n), values.shape)
    changes = ordered[..., 1:] != ordered[..., :-1]
    starts = np.concatenate([np.ones(values.shape[:-1] + (1,), dtype=bool), changes], axis=-1)
    ends = np.concatenate([changes, np.ones(values.shape[:-1] + (1,), dtype=bool)], axis=-1)
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=-1)
    last = np.flip(np.minimum.accumulate(np.flip(np.where(ends, position, n - 1), axis=-1), axis=-1), axis=-1)
    ranks = np.empty_like(values)
    np.put_along_axis(ranks, order, (first + last) / 2.0 + 1.0, axis=-1)
    return ranks


def _pair_signs(values: np.ndarray) -> np.ndarray:
    """sign(v_i - v_j) for every pair i < j of the last axis, as int8 ``[..., S(S-1)/2]``."""
    i, j = np.triu_indices(values.shape[-1], k=1)
    return np.sign(values[..., i] - values[..., j]).astype(np.int8)


def _distinct_count(values: np.ndarray) -> np.ndarray:
    """Number of distinct values along the last axis."""
    ordered = np.sort(values, axis=-1)
    return 1 + (np.diff(ordered, axis=-1) != 0).sum(axis=-1)


def _kendall(x: np.ndarray, y: np.ndarray, variant: str) -> np.ndarray:
    """Kendall's tau along the last axis (Kendall 1945 tau-b; Stuart 1953 tau-c), as ``scipy.stats.kendalltau``.

    With ``s = Σ_{i<j} sign(x_i - x_j) sign(y_i - y_j)`` (concordant minus discordant pairs):
    tau-b = s / sqrt((P - T_x)(P - T_y)), P = S(S-1)/2 pairs, T_x (T_y) the pairs tied in x (y);
    tau-c = 2 s / (S² (m - 1) / m), m = min(distinct x values, distinct y values).
    """
    sx, sy = _pair_signs(x), _pair_signs(y)
    shape = np.broadcast_shapes(sx.shape, sy.shape)
    concordance = np.einsum(
        "...p,...p->...", np.broadcast_to(sx, shape), np.broadcast_to(sy, shape), dtype=np.int64
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        if variant == "b":
            untied_x = np.abs(sx).sum(axis=-1, dtype=np.int64)
            untied_y = np.abs(sy).sum(axis=-1, dtype=np.int64)
            denominator = np.sqrt(untied_x.astype(np.float64) * untied_y)
            return np.where(
                denominator > 0, concordance / np.where(denominator > 0, denominator, 1.0), np.nan
            )
        n = x.shape[-1]
        m = np.minimum(_distinct_count(x), _distinct_count(y)).astype(np.float64)
        return np.where(m > 1, 2.0 * concordance / (n * n * (m - 1) / np.where(m > 1, m, 2.0)), np.nan)


def correlation(
    metric_scores: object, human: object, kind: str = "pearson", *, kendall_variant: str = "b"
) -> np.ndarray:
    """Correlation of metric system scores with human system scores, along the last axis (systems).

    ``metric_scores``: ``[..., S]`` (one metric ``[S]``, many metrics ``[M, S]``, resampled ``[B, M, S]``);
    ``human``: ``[S]`` or any shape broadcastable against ``metric_scores`` (e.g. ``[B, 1, S]`` when the human
    scores are resampled too). Returns ``[...]``.

    ``kind``: ``pearson`` (the WMT metrics tasks' system-level measure since WMT17; ``scipy.stats.pearsonr``),
    ``spearman`` (Pearson's r of the average ranks; ``scipy.stats.spearmanr``) or ``kendall`` (``kendall_variant``
    ``b``, the default, or ``c``; ``scipy.stats.kendalltau``; see :data:`KENDALL_VARIANTS`). A constant side
    gives NaN, as scipy does. Scores must be finite (:class:`mtsig.errors.InputError` otherwise).
    """
    x = _as_float(metric_scores, "metric scores")
    y = _as_float(human, "human scores")
    if x.shape[-1] != y.shape[-1]:
        raise InputError(
            f"{x.shape[-1]} metric scores per row but {y.shape[-1]} human scores: one per system"
        )
    try:
        np.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        raise InputError(
            f"human scores of shape {y.shape} do not broadcast against metric scores {x.shape}"
        ) from None
    if kind == "pearson":
        return _pearson(x, y)
    if kind == "spearman":
        return _pearson(average_ranks(x), average_ranks(y))
    if kind == "kendall":
        if kendall_variant not in KENDALL_VARIANTS:
            raise InputError(f"unknown Kendall variant {kendall_variant!r} ({', '.join(KENDALL_VARIANTS)})")
        return _kendall(x, y, kendall_variant)
    raise InputError(f"unknown correlation {kind!r} ({', '.join(KINDS)})")


def pairwise_correlation(scores: object) -> np.ndarray:
    """Pearson's r between every two rows: ``scores[..., M, S]`` -> ``[..., M, M]`` (the r_ab of the Williams
    test for every metric pair, for every resample at once). The diagonal is 1 for a non-constant row."""
    x = _as_float(scores, "metric scores")
    if x.ndim < 2:
        raise InputError(f"expected metric scores [..., M, S], got shape {x.shape}")
    return _pearson(x[..., :, None, :], x[..., None, :, :])


# ------------------------------------------------------------------------------------------------ outliers


def robust_z(human: object, *, scale: float = MAD_SCALE) -> np.ndarray:
    """``|h - median(h)| / (scale · median(|h - median(h)|))`` along the last axis (Mathur et al. 2020, Sec. 4.2;
    Leys et al. 2013). A zero MAD gives +inf for every system off the median and NaN on it."""
    h = _as_float(human, "human scores")
    median = np.median(h, axis=-1, keepdims=True)
    deviation = np.abs(h - median)
    mad = scale * np.median(deviation, axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return deviation / mad


def mad_outliers(human: object, *, scale: float = MAD_SCALE, cutoff: float = MAD_CUTOFF) -> np.ndarray:
    """Outlier systems by the MAD rule of Mathur, Baldwin & Cohn (2020), Sec. 4.2: ``robust_z(human) > cutoff``
    (b = 1.4826, cut-off 2.5), ``bool[..., S]``. The WMT20 metrics task applied it to the DA z-scores of the MT
    systems, human translations excluded (its script ``results/outliers.py``); pass those scores."""
    return robust_z(human, scale=scale) > cutoff


# ------------------------------------------------------------------------------------------------ Williams test


def williams_t(r_a: object, r_b: object, r_ab: object, n: object) -> np.ndarray:
    """Williams' t for the difference of two dependent correlations sharing a variable (Williams 1959; Steiger
    1980, Eq. 7; Graham & Baldwin 2014, Eq. 1), broadcast over its arguments:

        K = 1 - r_a² - r_b² - r_ab² + 2 r_a r_b r_ab
        t = (r_a - r_b) sqrt((n - 1)(1 + r_ab)) / sqrt(2 K (n - 1)/(n - 3) + ((r_a + r_b)/2)² (1 - r_ab)³)

    ``r_a`` = r(metric a, human), ``r_b`` = r(metric b, human), ``r_ab`` = r(a, b), ``n`` systems; t has n - 3
    degrees of freedom (R's ``psych::r.test(n, r12=r_a, r13=r_b, r23=r_ab)``). Where r_a == r_b exactly (e.g. two
    metrics with identical scores, r_ab = 1, where the formula is 0 × sqrt(x / 0)) t is 0: no evidence either way.
    NaN for n <= 3."""
    r_a, r_b, r_ab, n = (np.asarray(v, dtype=np.float64) for v in (r_a, r_b, r_ab, n))
    k = 1.0 - r_a * r_a - r_b * r_b - r_ab * r_ab + 2.0 * r_a * r_b * r_ab
    mean = (r_a + r_b) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        denominator = 2.0 * k * (n - 1.0) / (n - 3.0) + mean * mean * portable.power(1.0 - r_ab, 3.0)
        t = (r_a - r_b) * np.sqrt((n - 1.0) * (1.0 + r_ab) / denominator)
    t = np.where(r_a == r_b, 0.0, t)
    return np.where(n > 3, t, np.nan)


def williams_pvalues(
    r_a: object, r_b: object, r_ab: object, n: object, *, two_sided: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """(t, p) of the Williams test (:func:`williams_t`), broadcast over the arguments.

    One-sided (default, as the WMT metrics tasks use it): p = P(T_{n-3} >= t), the p-value of "metric a
    correlates better with humans than metric b"; it exceeds 0.5 when r_a < r_b. R's ``psych::r.test(...,
    twotailed=FALSE)`` returns P(T >= |t|) whatever the sign, which equals this p whenever r_a >= r_b (the only
    case the WMT20 organisers evaluate; ``results/metric_williams.py`` writes no p for r_a < r_b). Two-sided:
    2 P(T >= |t|).
    """
    from scipy import special  # here, not at import: the workflow plans a protocol's inputs without scipy

    t = williams_t(r_a, r_b, r_ab, n)
    df = np.asarray(n, dtype=np.float64) - 3.0
    with np.errstate(invalid="ignore"):
        # P(T_df >= t) = stdtr(df, -t), Student's t CDF (scipy.special; scipy.stats.t.sf computes the same)
        p = 2.0 * special.stdtr(df, -np.abs(t)) if two_sided else special.stdtr(df, -t)
    return t, np.where(np.isnan(t), np.nan, p)


def _metric_matrix(metrics: Mapping[str, object], n_systems: int) -> tuple[list[str], np.ndarray]:
    names = [str(name) for name in metrics]
    if not names:
        raise InputError("no metrics to compare")
    rows = [_as_float(metrics[name], f"metric {name!r}") for name in metrics]
    wrong = [(name, row.shape) for name, row in zip(names, rows, strict=True) if row.shape != (n_systems,)]
    if wrong:
        name, shape = wrong[0]
        raise InputError(
            f"metric {name!r} has scores of shape {shape}; expected one score per system ({n_systems})"
        )
    return names, np.stack(rows)


def order_by_correlation(r: np.ndarray) -> list[int]:
    """Indices of the correlations ``r`` by decreasing correlation, ties (and NaN, last) in the given order: the
    WMT tables' order (their script sorts with pandas, whose order among exact ties is unspecified)."""
    key = np.where(np.isnan(r), np.inf, -np.asarray(r, dtype=np.float64))
    return [int(i) for i in np.argsort(key, kind="stable")]


def williams_table(
    human: object, metrics: Mapping[str, object], *, identical: str = MetricsTask.identical_metrics
) -> pd.DataFrame:
    """The Williams test for every ORDERED pair of distinct metrics (Graham & Baldwin 2014; the WMT metrics tasks).

    ``human``: the human system scores ``[S]``; ``metrics``: name -> system scores ``[S]`` (same system order).
    Correlations are Pearson's. Rows follow the metrics by decreasing r with the human scores (metric_a outer,
    metric_b inner). Columns: ``metric_a, metric_b, r_a, r_b, r_ab, n, t, p_value``, where p_value is the one-sided
    p of "metric_a correlates better than metric_b" (:func:`williams_pvalues`). ``identical``: how two metrics with
    identical scores are treated (:data:`IDENTICAL_METRICS`).
    """
    if identical not in IDENTICAL_METRICS:
        raise InputError(f"unknown identical-metrics rule {identical!r} ({', '.join(IDENTICAL_METRICS)})")
    h = _as_float(human, "human scores")
    if h.ndim != 1:
        raise InputError(f"human scores: expected one score per system, got shape {h.shape}")
    names, scores = _metric_matrix(metrics, h.shape[0])
    r = correlation(scores, h)
    order = order_by_correlation(r)
    names, scores, r = [names[i] for i in order], scores[order], r[order]
    r_ab = pairwise_correlation(scores)
    a, b = np.nonzero(~np.eye(len(names), dtype=bool))
    n = h.shape[0]
    t, p = williams_pvalues(r[a], r[b], r_ab[a, b], n)
    if identical == "untested":
        same = (scores[a] == scores[b]).all(axis=1)
        t, p = np.where(same, np.nan, t), np.where(same, np.nan, p)
    return pd.DataFrame(
        {
            "metric_a": [names[i] for i in a],
            "metric_b": [names[j] for j in b],
            "r_a": r[a],
            "r_b": r[b],
            "r_ab": r_ab[a, b],
            "n": n,
            "t": t,
            "p_value": p,
        },
        columns=WILLIAMS_COLUMNS,
    )


def williams_matrix(
    human: object, metrics: Mapping[str, object], *, identical: str = MetricsTask.identical_metrics
) -> pd.DataFrame:
    """The WMT-style Williams matrix: row ``a``, column ``b`` holds the one-sided p of "a correlates better than
    b" (:func:`williams_table`); rows and columns in decreasing order of correlation; NaN on the diagonal.

    The WMT20 organisers' published matrices (``DA-<lp>-sig.csv``) show only the cells with r_a >= r_b and
    p <= 0.05, writing 0.12 in every other cell; :func:`winners` reads this full matrix the same way."""
    return williams_pivot(williams_table(human, metrics, identical=identical))


def williams_pivot(table: pd.DataFrame) -> pd.DataFrame:
    """A :func:`williams_table` (one group) as its square matrix of p-values, rows ``metric_a`` and columns
    ``metric_b`` in the table's metric order (NaN on the diagonal and for any pair the table lacks)."""
    metric_a, metric_b = table["metric_a"].tolist(), table["metric_b"].tolist()
    names = list(dict.fromkeys(metric_a))
    position = {name: i for i, name in enumerate(names)}
    values = np.full((len(names), len(names)), np.nan)
    rows = np.fromiter((position[m] for m in metric_a), dtype=np.intp, count=len(table))
    columns = np.fromiter((position.get(m, -1) for m in metric_b), dtype=np.intp, count=len(table))
    if (columns < 0).any():
        raise InputError("a metric_b of the Williams table is never a metric_a: not one group's table")
    values[rows, columns] = table["p_value"].to_numpy(dtype=np.float64)
    matrix = pd.DataFrame(
        values, index=pd.Index(names, name="metric_a"), columns=pd.Index(names, name="metric_b")
    )
    return matrix


def winners(matrix: pd.DataFrame, alpha: float = WILLIAMS_ALPHA) -> list[str]:
    """The metrics no other metric significantly beats, in the matrix's order: every off-diagonal cell of column
    ``b`` of the Williams matrix (:func:`williams_matrix`) holds a p > ``alpha``. A NaN cell (a test that could not
    be run: n <= 3, a constant metric, or ``identical="untested"``) also keeps ``b`` from being a winner: it was
    not shown to be unbeaten.

    This is the WMT20 organisers' rule (``results/metric_williams.py``): a cell counts as significant when the row
    metric's r is at least the column metric's and p <= 0.05 (a one-sided p <= 0.05 implies t > 0, so r_a > r_b:
    the same cells), and a column is a winner when every cell shows their "insignificant" mark 0.12, which a NaN
    does not."""
    values = matrix.to_numpy(dtype=np.float64).copy()
    values[np.asarray(matrix.index)[:, None] == np.asarray(matrix.columns)[None, :]] = (
        np.inf
    )  # a metric vs itself
    unbeaten = (values > alpha).all(axis=0)
    return [str(name) for name, ok in zip(matrix.columns, unbeaten, strict=True) if ok]


# ------------------------------------------------------------------------------------------------ orientation


#: A metric looks declared with the wrong ``higher_is_better`` when its system scores (as oriented) correlate with
#: the human system scores at Pearson r <= ORIENTATION_R and significantly below zero (one-sided, p <=
#: ORIENTATION_ALPHA; docs/statistics.md, "A metric that disagrees with the humans in sign"). System-level r of a
#: correctly oriented metric is positive in the WMT metrics tasks (Mathur et al. 2020, Freitag et al. 2023); the
#: worst real cases the run knows are -0.13 to -0.27 (every text metric on MQM TED zh-en, Freitag et al. 2021's
#: strong systems and human translation), which the r bound leaves alone, and the significance bound keeps three or
#: four systems from raising the alarm by chance (with 4 systems it needs r <= -0.90).
ORIENTATION_R = -0.5
ORIENTATION_ALPHA = 0.05


def negative_correlation_pvalue(r: object, n: int) -> np.ndarray:
    """One-sided p of Pearson's r being below zero, ``P(T_{n-2} <= t)`` with ``t = r sqrt((n - 2)/(1 - r²))``
    (the exact test of a normal sample's correlation; ``scipy.stats.pearsonr(..., alternative="less")``);
    0 at r = -1, NaN for n < 3 or an undefined r."""
    from scipy import special  # (see williams_pvalues)

    r = np.asarray(r, dtype=np.float64)
    df = float(n) - 2.0
    if df < 1:
        return np.full(r.shape, np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = r * np.sqrt(df / np.maximum(1.0 - r * r, 0.0))
        return special.stdtr(df, t)


def reversed_orientation(
    metrics: Mapping[str, object],
    human: object,
    *,
    r_max: float = ORIENTATION_R,
    alpha: float = ORIENTATION_ALPHA,
) -> dict[str, tuple[float, float]]:
    """The metrics whose system scores ``metrics[name][S]`` (oriented so that higher is better, as declared)
    correlate with the human system scores ``human[S]`` at Pearson r <= ``r_max`` with a one-sided p <= ``alpha``
    (:func:`negative_correlation_pvalue`): most likely declared with the wrong ``higher_is_better``. Returns
    ``{metric: (r, p)}`` in the order of ``metrics``; empty with fewer than three systems or no metric."""
    if not metrics:
        return {}
    names, matrix = _metric_matrix(metrics, np.asarray(human).shape[-1])
    h = _as_float(human, "human scores")
    if h.shape[-1] < 3:
        return {}
    r = correlation(matrix, h, "pearson")
    p = negative_correlation_pvalue(r, h.shape[-1])
    return {
        name: (float(r_i), float(p_i))
        for name, r_i, p_i in zip(names, r, p, strict=True)
        if r_i <= r_max and p_i <= alpha
    }
