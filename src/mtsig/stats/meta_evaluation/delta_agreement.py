"""How large a metric difference do humans notice? Agreement of the human gold with a metric's delta.

Kocmi, Federmann, Grundkiewicz, Junczys-Dowmunt, Matsushita & Menezes (2021), *To Ship or Not to Ship*, Sec. 5, and
Kocmi, Zouhar, Federmann & Post (2024), *Navigating the Metrics Maze: Reconciling Score Magnitudes and Accuracies*,
Sec. 3-4, ask how often humans confirm the ranking of two systems that a metric separates by a given delta. Here,
for every system pair with a human gold and every metric, the pair is oriented so that the metric's delta is
``d >= 0`` (the metric prefers X), and two outcomes are recorded:

* ``direction``: the human system scores (mean z) rank X above Y;
* ``significant``: the human gold (its conclusion at the configured alpha) says X is significantly better.

For each metric and outcome, ``P(outcome | d)`` is modelled as a logistic curve ``1 / (1 + exp(-(b0 + b1 d)))``,
fitted by maximum likelihood (Newton's method with a ridge of :data:`RIDGE` on both coefficients, which keeps the
fit finite when the outcome is perfectly separated), with a pointwise percentile band from a bootstrap over the
pairs (every resample fitted at once, vectorised). Kocmi et al. (2024) read off the delta at which accuracy reaches
a target (their Fig. 3); here :func:`delta_for` solves the fitted curve for 90% and 95% (``nan`` when the curve
does not reach the target within the observed deltas: no extrapolation).

Two guards keep a curve honest. A system score of a metric far outside the other systems' scores of its language
pair or experiment (a scoring failure such as WMT20's en-zh TER of 25.0 for NiuTrans.1511, where the other
systems lie between 1.0 and 4.2) would carry the fit with its pairs' deltas: :func:`metric_score_outliers` finds
such scores by the MAD rule of Mathur, Baldwin & Cohn (2020) applied to the metric's own system scores, and their
pairs are left out of the fit (:func:`left_out_pairs`). And a fit whose slope is not shown to be positive gives no
delta: :func:`fit_status` names it ``decreasing`` or ``undetermined`` from the bootstrap interval of ``b1``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mtsig.runtime import portable
from mtsig.settings import Replicability
from mtsig.stats.meta_evaluation.system_level import MAD_SCALE, robust_z
from mtsig.stats.resampling.draws import bootstrap_indices

#: Ridge penalty on (b0, b1) of the logistic fit: enough to keep separated data finite, negligible otherwise.
RIDGE = 1e-3
OUTCOMES: tuple[str, ...] = ("direction", "significant")
TARGETS: tuple[float, ...] = (0.9, 0.95)
#: The robust z (:func:`mtsig.stats.meta_evaluation.system_level.robust_z` of a metric's system scores within
#: one language pair or experiment) beyond which a score is a metric-score outlier (docs/statistics.md,
#: "Metric deltas humans notice", explains the choice; config ``replicability.metric_outlier_cutoff``).
METRIC_OUTLIER_CUTOFF = Replicability.metric_outlier_cutoff
#: :func:`fit_status`: the slope's bootstrap interval lies above zero, below zero, or includes it.
FIT_STATUSES: tuple[str, ...] = ("increasing", "decreasing", "undetermined")
OUTLIER_COLUMNS = ["metric", "source", "system", "score", "robust_z", "pairs"]


def oriented_pairs(
    scores: pd.DataFrame, human: pd.Series, conclusions: pd.DataFrame, higher_is_better: dict[str, bool]
) -> pd.DataFrame:
    """Per metric and unordered gold pair: ``metric, better, worse, delta, direction, significant, score_better,
    score_worse``.

    ``scores``: ``system, metric, score``; ``human``: system -> human score; ``conclusions``: ``sys_x, sys_y,
    conclusion`` (``sys_x``/``sys_y``/``tie``) of the gold at one alpha. The delta is oriented (TER-like metrics
    negated) and made non-negative by naming the metric's better system first; ``significant`` is whether the gold
    says that system is significantly better; the two scores are the metric's own (TER not negated). Pairs the
    metric ties (``delta == 0``) are left out: no direction."""
    wide = scores.pivot_table(index="system", columns="metric", values="score", aggfunc="first")
    sign = np.array([1.0 if higher_is_better.get(m, True) else -1.0 for m in wide.columns])
    frames = []
    x, y = conclusions["sys_x"].to_numpy(), conclusions["sys_y"].to_numpy()
    known = (
        np.isin(x, wide.index) & np.isin(y, wide.index) & np.isin(x, human.index) & np.isin(y, human.index)
    )
    x, y, verdict = x[known], y[known], conclusions["conclusion"].to_numpy()[known]
    score_x, score_y = wide.loc[x].to_numpy(), wide.loc[y].to_numpy()
    raw = (score_x - score_y) * sign  # [pairs, metrics]
    human_delta = human.loc[x].to_numpy() - human.loc[y].to_numpy()
    for column, metric in enumerate(wide.columns):
        delta = raw[:, column]
        keep = np.isfinite(delta) & (delta != 0)
        flip = delta < 0
        better = np.where(flip, y, x)
        frames.append(
            pd.DataFrame(
                {
                    "metric": metric,
                    "better": better[keep],
                    "worse": np.where(flip, x, y)[keep],
                    "delta": np.abs(delta)[keep],
                    "direction": (np.where(flip, -human_delta, human_delta) > 0)[keep],
                    "significant": (verdict == np.where(flip, "sys_y", "sys_x"))[keep],
                    "score_better": np.where(flip, score_y[:, column], score_x[:, column])[keep],
                    "score_worse": np.where(flip, score_x[:, column], score_y[:, column])[keep],
                }
            )
        )
    columns = [
        "metric",
        "better",
        "worse",
        "delta",
        "direction",
        "significant",
        "score_better",
        "score_worse",
    ]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)


def metric_score_outliers(
    pairs: pd.DataFrame, *, cutoff: float = METRIC_OUTLIER_CUTOFF, scale: float = MAD_SCALE
) -> pd.DataFrame:
    """The system scores of each metric that are outliers among the metric's own scores of their source (language
    pair or experiment): ``metric, source, system, score, robust_z, pairs`` (``pairs``: how many of the metric's
    pairs in that source involve the system), sorted by metric, source and robust z, largest first.

    ``pairs``: :func:`oriented_pairs` with a ``source`` column; a (metric, source)'s systems are those of its
    pairs, with their scores. A score is an outlier when its robust z (the MAD rule of Mathur, Baldwin & Cohn
    2020, Sec. 4.2, :func:`mtsig.stats.meta_evaluation.system_level.robust_z` with ``scale``) exceeds
    ``cutoff``. The rule sees only the metric's scores, never the humans', so it cannot pick pairs by whether
    the humans agree. A metric whose MAD is zero in a source (half its systems tie) has no outliers there: the
    rule has no scale."""
    ends = [
        pairs[["metric", "source", side, f"score_{side}"]].set_axis(
            ["metric", "source", "system", "score"], axis=1
        )
        for side in ("better", "worse")
    ]
    systems = pd.concat(ends, ignore_index=True).drop_duplicates(["metric", "source", "system"])
    systems = systems.sort_values(["metric", "source", "system"], kind="stable", ignore_index=True)
    # one robust z per group; the groups are (metric, source), a few hundred, never resamples or segments
    z = systems.groupby(["metric", "source"], sort=False)["score"].transform(
        lambda scores: robust_z(scores.to_numpy(dtype=np.float64), scale=scale)
    )
    flagged = systems.assign(robust_z=z.to_numpy())
    flagged = flagged[np.isfinite(flagged["robust_z"]) & (flagged["robust_z"] > cutoff)]
    involved = pd.concat(ends, ignore_index=True).merge(flagged[["metric", "source", "system"]])
    counts = involved.groupby(["metric", "source", "system"]).size().rename("pairs").reset_index()
    flagged = flagged.merge(counts, on=["metric", "source", "system"], how="left")
    flagged = flagged.sort_values(
        ["metric", "source", "robust_z"], ascending=[True, True, False], kind="stable"
    )
    return flagged[OUTLIER_COLUMNS].reset_index(drop=True)


def left_out_pairs(pairs: pd.DataFrame, outliers: pd.DataFrame) -> np.ndarray:
    """``bool[len(pairs)]``: the pairs of a metric and source one of whose systems is among that metric's
    outliers in that source (:func:`metric_score_outliers`)."""
    flagged = pd.MultiIndex.from_frame(outliers[["metric", "source", "system"]])
    return np.asarray(
        pd.MultiIndex.from_frame(pairs[["metric", "source", "better"]]).isin(flagged)
        | pd.MultiIndex.from_frame(pairs[["metric", "source", "worse"]]).isin(flagged)
    )


def logistic_fit(delta: np.ndarray, outcome: np.ndarray, iterations: int = 50) -> np.ndarray:
    """``(b0, b1)`` of the ridge-penalised logistic regression of ``outcome`` on ``delta``, for every row of the
    ``[R, n]`` arrays at once (a 1-D pair is one fit). Returns ``[R, 2]`` (or ``[2]``)."""
    single = np.ndim(delta) == 1
    d = np.atleast_2d(np.asarray(delta, dtype=np.float64))
    y = np.atleast_2d(np.asarray(outcome, dtype=np.float64))
    beta = np.zeros((d.shape[0], 2))
    for _ in range(iterations):
        eta = beta[:, :1] + beta[:, 1:] * d
        p = 1.0 / (1.0 + portable.exp(-eta))
        w = p * (1.0 - p)
        gradient = np.stack([(y - p).sum(axis=1), ((y - p) * d).sum(axis=1)], axis=1) - RIDGE * beta
        h00 = w.sum(axis=1) + RIDGE
        h01 = (w * d).sum(axis=1)
        h11 = (w * d * d).sum(axis=1) + RIDGE
        determinant = h00 * h11 - h01 * h01
        step = (
            np.stack(
                [
                    (h11 * gradient[:, 0] - h01 * gradient[:, 1]),
                    (h00 * gradient[:, 1] - h01 * gradient[:, 0]),
                ],
                axis=1,
            )
            / determinant[:, None]
        )
        beta = beta + step
        if np.abs(step).max() < 1e-12:
            break
    return beta[0] if single else beta


def logistic(beta: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """The fitted curve at ``delta``: ``[..., len(delta)]`` for coefficients ``[..., 2]``."""
    beta = np.asarray(beta, dtype=np.float64)
    return 1.0 / (1.0 + portable.exp(-(beta[..., :1] + beta[..., 1:] * np.asarray(delta, dtype=np.float64))))


def delta_for(beta: np.ndarray, target: float, largest: float) -> float:
    """The delta at which the fitted curve reaches ``target``; nan when it does not within ``[0, largest]``."""
    b0, b1 = float(beta[0]), float(beta[1])
    if b1 <= 0:
        return float("nan")
    delta = (portable.log(target / (1.0 - target)) - b0) / b1
    return float(max(delta, 0.0)) if delta <= largest else float("nan")


def deltas_for(beta: np.ndarray, target: float, largest: float) -> np.ndarray:
    """:func:`delta_for` of every row of ``beta[R, 2]`` at once, with ``inf`` (not nan) for a curve that does not
    reach ``target`` within ``[0, largest]``, so that the deltas of bootstrap fits can be ordered."""
    beta = np.asarray(beta, dtype=np.float64)
    b0, b1 = beta[:, 0], beta[:, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        delta = np.maximum((portable.log(np.float64(target / (1.0 - target))) - b0) / b1, 0.0)
    return np.where((b1 > 0) & (delta <= largest), delta, np.inf)


def fit_status(b1_low: float, b1_high: float) -> str:
    """``increasing`` when the slope's bootstrap interval lies above zero, ``decreasing`` when it lies below (the
    humans agree *less* the larger the metric's delta: no delta is a threshold), ``undetermined`` when it includes
    zero (the band is too wide to say whether agreement rises with the delta)."""
    if b1_low > 0:
        return "increasing"
    return "decreasing" if b1_high < 0 else "undetermined"


def agreement_curves(
    pairs: pd.DataFrame, *, n_boot: int, rng: np.random.Generator, grid_points: int = 41, level: float = 0.95
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per metric and outcome: the fitted curve with its bootstrap band on a grid of deltas from 0 to the largest
    observed (``metric, outcome, delta, p, low, high``), and a summary (``metric, outcome, n_pairs, observed_rate,
    b0, b1, b1_low, b1_high, fit, largest_delta``, then per target ``delta_90, delta_90_low, delta_90_high``, ...).

    The band, the slope's interval (``b1_low``, ``b1_high``) and the deltas' intervals come from the same
    ``n_boot`` resamples of the pairs at ``level``; ``fit`` is :func:`fit_status` of the slope's interval. A delta
    is given only for an ``increasing`` fit that reaches the target within the observed deltas (else nan); its
    interval is the percentile interval of the resamples' deltas (Hyndman & Fan type 1, an order statistic, with
    ``inf`` for a resample whose curve does not reach the target within the observed deltas)."""
    curves, summary = [], []
    tail = (1.0 - level) / 2.0
    for metric, group in pairs.groupby("metric", sort=True):
        d = group["delta"].to_numpy(dtype=np.float64)
        draws = bootstrap_indices(rng, len(d), n_boot)
        largest = float(d.max())
        grid = np.linspace(0.0, largest, grid_points)
        for outcome in OUTCOMES:
            y = group[outcome].to_numpy(dtype=np.float64)
            beta = logistic_fit(d, y)
            resampled = logistic_fit(d[draws], y[draws])
            band = logistic(resampled, grid)
            low, high = np.quantile(band, [tail, 1.0 - tail], axis=0)
            b1_low, b1_high = np.quantile(resampled[:, 1], [tail, 1.0 - tail])
            fit = fit_status(float(b1_low), float(b1_high))
            curves.append(
                pd.DataFrame(
                    {"metric": metric, "outcome": outcome, "delta": grid, "p": logistic(beta, grid), "low": low,
                     "high": high}
                )
            )  # fmt: skip
            row = {
                "metric": metric,
                "outcome": outcome,
                "n_pairs": len(d),
                "observed_rate": float(y.mean()),
                "b0": float(beta[0]),
                "b1": float(beta[1]),
                "b1_low": float(b1_low),
                "b1_high": float(b1_high),
                "fit": fit,
                "largest_delta": largest,
            }
            for target in TARGETS:
                name = f"delta_{round(target * 100)}"
                interval = np.quantile(
                    deltas_for(resampled, target, largest), [tail, 1.0 - tail], method="inverted_cdf"
                )
                row[name] = delta_for(beta, target, largest) if fit == "increasing" else float("nan")
                row[f"{name}_low"], row[f"{name}_high"] = float(interval[0]), float(interval[1])
            summary.append(row)
    return pd.concat(curves, ignore_index=True), pd.DataFrame(summary)


def estimated_agreement(
    summary: pd.DataFrame, metric: str, delta: float, outcome: str = "direction"
) -> float | str:
    """The fitted probability that humans agree with ``metric``'s ranking of a pair ``delta`` apart; the fit's
    status instead (``decreasing``, ``undetermined``: :func:`fit_status`) when the table flags it, never a number
    read off an implausible curve; nan for a metric the table does not have. A table without a ``fit`` column (made
    before the status existed) gives the number."""
    row = summary[(summary["metric"] == metric) & (summary["outcome"] == outcome)]
    if row.empty:
        return float("nan")
    if "fit" in row.columns and row["fit"].iloc[0] != "increasing":
        return str(row["fit"].iloc[0])
    beta = row[["b0", "b1"]].to_numpy(dtype=np.float64)[0]
    return float(logistic(beta, np.array([abs(delta)]))[0])
