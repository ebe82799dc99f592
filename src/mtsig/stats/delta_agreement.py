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
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mtsig import portable

#: Ridge penalty on (b0, b1) of the logistic fit: enough to keep separated data finite, negligible otherwise.
RIDGE = 1e-3
OUTCOMES: tuple[str, ...] = ("direction", "significant")
TARGETS: tuple[float, ...] = (0.9, 0.95)


def oriented_pairs(
    scores: pd.DataFrame, human: pd.Series, conclusions: pd.DataFrame, higher_is_better: dict[str, bool]
) -> pd.DataFrame:
    """Per metric and unordered gold pair: ``metric, better, worse, delta, direction, significant``.

    ``scores``: ``system, metric, score``; ``human``: system -> human score; ``conclusions``: ``sys_x, sys_y,
    conclusion`` (``sys_x``/``sys_y``/``tie``) of the gold at one alpha. The delta is oriented (TER-like metrics
    negated) and made non-negative by naming the metric's better system first; ``significant`` is whether the gold
    says that system is significantly better. Pairs the metric ties (``delta == 0``) are left out: no direction."""
    wide = scores.pivot_table(index="system", columns="metric", values="score", aggfunc="first")
    sign = np.array([1.0 if higher_is_better.get(m, True) else -1.0 for m in wide.columns])
    frames = []
    x, y = conclusions["sys_x"].to_numpy(), conclusions["sys_y"].to_numpy()
    known = (
        np.isin(x, wide.index) & np.isin(y, wide.index) & np.isin(x, human.index) & np.isin(y, human.index)
    )
    x, y, verdict = x[known], y[known], conclusions["conclusion"].to_numpy()[known]
    raw = (wide.loc[x].to_numpy() - wide.loc[y].to_numpy()) * sign  # [pairs, metrics]
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
                }
            )
        )
    columns = ["metric", "better", "worse", "delta", "direction", "significant"]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)


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


def agreement_curves(
    pairs: pd.DataFrame, *, n_boot: int, rng: np.random.Generator, grid_points: int = 41, level: float = 0.95
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per metric and outcome: the fitted curve with its bootstrap band on a grid of deltas from 0 to the largest
    observed (``metric, outcome, delta, p, low, high``), and a summary (``metric, outcome, n_pairs, observed_rate,
    b0, b1, largest_delta, delta_90, delta_95``)."""
    curves, summary = [], []
    tail = (1.0 - level) / 2.0
    for metric, group in pairs.groupby("metric", sort=True):
        d = group["delta"].to_numpy(dtype=np.float64)
        draws = rng.integers(0, len(d), size=(n_boot, len(d)))
        grid = np.linspace(0.0, d.max(), grid_points)
        for outcome in OUTCOMES:
            y = group[outcome].to_numpy(dtype=np.float64)
            beta = logistic_fit(d, y)
            band = logistic(logistic_fit(d[draws], y[draws]), grid)
            low, high = np.quantile(band, [tail, 1.0 - tail], axis=0)
            curves.append(
                pd.DataFrame(
                    {"metric": metric, "outcome": outcome, "delta": grid, "p": logistic(beta, grid), "low": low,
                     "high": high}
                )
            )  # fmt: skip
            summary.append(
                {
                    "metric": metric,
                    "outcome": outcome,
                    "n_pairs": len(d),
                    "observed_rate": float(y.mean()),
                    "b0": float(beta[0]),
                    "b1": float(beta[1]),
                    "largest_delta": float(d.max()),
                    **{f"delta_{round(t * 100)}": delta_for(beta, t, float(d.max())) for t in TARGETS},
                }
            )
    return pd.concat(curves, ignore_index=True), pd.DataFrame(summary)


def estimated_agreement(
    summary: pd.DataFrame, metric: str, delta: float, outcome: str = "direction"
) -> float:
    """The fitted probability that humans agree with ``metric``'s ranking of a pair ``delta`` apart (nan for a
    metric the table does not have)."""
    row = summary[(summary["metric"] == metric) & (summary["outcome"] == outcome)]
    if row.empty:
        return float("nan")
    beta = row[["b0", "b1"]].to_numpy(dtype=np.float64)[0]
    return float(logistic(beta, np.array([abs(delta)]))[0])
