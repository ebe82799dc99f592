"""Known truth for the meta-evaluation's other procedures when a metric's scores cluster by system or document.
Asserts nothing; prints a Markdown table.

    python benchmarks/bench_structured_procedures.py              # 100 pairs per model and language pair
    python benchmarks/bench_structured_procedures.py --pairs 20   # a quick look

The permutation test between metrics swaps the two metrics' scores cell by cell (Pearson, PDP) or system by system
(system-level Pearson), the bootstrap intervals resample items (or systems), and the power study re-draws items (or
systems) with replacement and decides with the permutation test's null: each treats its units as independent. The
random metrics of ``bench_chance_levels.py`` are drawn on WMT23's real cells (its systems, MQM-rated segments,
documents), from models that know nothing about the translations: ``iid`` (N(0, 2²) noise per cell, the control),
``A`` (a N(0, 2.9²) offset per system, Random-sysname's spread, plus noise), ``B`` (offsets per document and per
system and document, plus noise) and ``D`` (an offset per segment shared by the systems, plus noise). For each model
and language pair, ``--pairs`` pairs of independent random metrics (two metrics that know nothing: neither is better)
give:

- ``perm``: the share of pairs the protocol's permutation test tells apart (``p <= 0.05`` for the higher-ranked of
  the two, as mt-metrics-eval clusters; ``--resamples`` swaps). An exact test in the winner's direction does so 10%
  of the time (5% each way; 11% with 200 swaps and the protocol's p = count / swaps).
- ``boot``: the share of 95% percentile bootstrap intervals (``--resamples`` resamples) of a metric's value that
  exclude 0, the value of a metric that knows nothing on new systems and documents (nominal 5%).
- ``power``: the share of pairs whose power at the real size, as the power study estimates it (re-drawn test sets,
  the permutation test's null; :mod:`mtsig.stats.meta_evaluation.power`), reaches its 80% target: a pair of metrics
  of equal quality should rarely do so; the ``iid`` column is the reference.

Each share comes with its exact (Clopper-Pearson) 95% interval over the pairs (metrics for ``boot``); ``**`` marks an
interval that lies above the nominal rate. Pairs of one batch (``--batch`` metrics) share the swap masks.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_chance_levels import LPS, LpData, load, random_metrics  # noqa: E402

from mtsig.stats.evaluation import clopper_pearson  # noqa: E402
from mtsig.stats.meta_evaluation import power as mpw  # noqa: E402
from mtsig.stats.meta_evaluation import task_bootstrap as tb  # noqa: E402
from mtsig.stats.meta_evaluation.grouped_correlation import (
    CorrelationOptions,  # noqa: E402
    grouped_correlation,  # noqa: E402
)
from mtsig.stats.meta_evaluation.metric_permutation import PearsonSwaps, permutation_test  # noqa: E402
from mtsig.stats.meta_evaluation.score_permutation import PdpSwaps  # noqa: E402

MODELS = ("iid", "A", "B", "D")
TASKS = ("seg pearson", "pdp", "sys pearson")
NOMINAL = {
    "perm": 0.10,
    "boot": 0.05,
    "power": 1.0,
}  # power: no nominal rate (the iid column is the reference)
POWER_TARGET = 0.8


def metrics_of(model: str, data: LpData, n: int, rng: np.random.Generator) -> np.ndarray:
    """``[n, S, N]`` random metrics of ``model`` (module docstring) on every cell."""
    if model == "iid":
        return rng.normal(0.0, 2.0, size=(n, *data.human.shape))
    return random_metrics(model, data, n, rng)


def task_parts(task: str, data: LpData, metrics: np.ndarray):
    """``(values[M], swap source, bootstrap features, resampled statistic, units)`` of a task for ``metrics``."""
    h = data.human
    rated_items = np.isfinite(h).any(axis=0)
    if task == "seg pearson":
        cells = np.isfinite(h).ravel()
        values = grouped_correlation(h, metrics, CorrelationOptions("pearson", "none"))
        source = PearsonSwaps(h.ravel()[cells], metrics.reshape(len(metrics), -1)[:, cells])
        features = tb.pearson_features(h[:, rated_items].T, metrics[:, :, rated_items].transpose(0, 2, 1))
        return values, source, features, tb.resampled_pearson
    if task == "pdp":
        values = grouped_correlation(h, metrics, CorrelationOptions("pearson", "item", pdp=True))
        features = tb.pdp_features(h[:, rated_items].T, metrics[:, :, rated_items].transpose(0, 2, 1))
        return values, PdpSwaps(h, metrics, "item"), features, tb.resampled_pdp
    system_h, system_m = data.human_sys[:, None], metrics.mean(axis=2)[:, :, None]
    values = grouped_correlation(system_h, system_m, CorrelationOptions("pearson", "none"))
    features = tb.pearson_features(system_h, system_m)
    return values, PearsonSwaps(data.human_sys, system_m[:, :, 0]), features, tb.resampled_pearson


def batch_outcomes(
    task: str,
    data: LpData,
    metrics: np.ndarray,
    args: argparse.Namespace,
    rng: np.random.Generator,
    key: tuple,
) -> dict[str, list[bool]]:
    """Per procedure, the outcome of each disjoint pair (metrics 2i, 2i + 1) or metric of one batch."""
    values, source, features, resampled = task_parts(task, data, metrics)
    rank = np.argsort(np.argsort(-values))
    test = permutation_test(source, rank, args.resamples, seed=args.seed, key=key)
    counts = tb.draw_counts(rng, features.shape[0], args.resamples)
    draws = resampled(counts, features)  # [B, M]
    low, high, _ = tb.percentile_intervals(draws, 0.95)
    out: dict[str, list[bool]] = {"perm": [], "boot": ((low > 0) | (high < 0)).tolist(), "power": []}
    pair_index = {(int(a), int(b)): p for p, (a, b) in enumerate(zip(test.a, test.b, strict=True))}
    for first in range(0, len(metrics) - 1, 2):
        p = pair_index[(first, first + 1)]
        out["perm"].append(bool(test.pvalue[p] <= 0.05))
        winner, loser = (first, first + 1) if test.higher[p] else (first + 1, first)
        null = mpw.sorted_null(test.draws[:, p] * (1.0 if test.higher[p] else -1.0))
        redrawn = draws[:, winner] - draws[:, loser]
        out["power"].append(mpw.rejection_rate(null, redrawn, 1.0, 0.05) >= POWER_TARGET)
    return out


def rows_of(data: dict[str, LpData], args: argparse.Namespace) -> list[dict[str, object]]:
    rows = []
    for m, model in enumerate(args.models.split(",")):
        start = time.process_time()
        for lp, lp_data in data.items():
            rng = np.random.default_rng([args.seed, m, LPS.index(lp)])
            outcomes: dict[tuple[str, str], list[bool]] = {}
            for batch in range(-(-2 * args.pairs // args.batch)):
                size = min(args.batch, 2 * args.pairs - batch * args.batch)
                metrics = metrics_of(model, lp_data, size, rng)
                for task in TASKS:
                    key = ("structured", model, lp, task, batch)
                    for name, flags in batch_outcomes(task, lp_data, metrics, args, rng, key).items():
                        outcomes.setdefault((task, name), []).extend(flags)
            for (task, name), flags in outcomes.items():
                k, n = int(np.sum(flags)), len(flags)
                low, high = clopper_pearson(k, n)
                rows.append({"model": model, "task": f"{lp} {task}", "procedure": name, "n": n, "share": k / n,
                             "low": low, "high": high})  # fmt: skip
        print(f"model {model}: {time.process_time() - start:.0f} CPU s", flush=True)
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--root", type=Path, default=Path(os.environ.get("MTSIG_DATA", "../shared/data")) / "wmt23"
    )
    parser.add_argument("--pairs", type=int, default=100, help="pairs of random metrics per model and pair")
    parser.add_argument("--batch", type=int, default=20, help="random metrics per batch (default 20)")
    parser.add_argument(
        "--resamples", type=int, default=200, help="swaps and bootstrap resamples (default 200)"
    )
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--lps", default=",".join(LPS))
    parser.add_argument("--seed", type=int, default=20231)
    args = parser.parse_args(argv)
    print(f"load averages {os.getloadavg()}")
    data = {lp: d for lp, d in load(args.root).items() if lp in args.lps.split(",")}
    frame = pd.DataFrame(rows_of(data, args))
    frame["cell"] = [
        f"{r.share:.1%} [{r.low:.1%}, {r.high:.1%}]" + (" **" if r.low > NOMINAL[r.procedure] else "")
        for r in frame.itertuples()
    ]
    table = frame.pivot_table(
        index=["task", "procedure"], columns="model", values="cell", aggfunc="first", sort=False
    )
    print(
        f"\nRandom metrics that know nothing: share told apart (perm, nominal 10-11%), intervals excluding 0 (boot, "
        f"nominal 5%) and estimated power at the real size of at least 80% (power), {args.pairs} pairs, {args.resamples} "
        "resamples; exact 95% intervals; ** above the nominal rate.\n"
    )
    print(table.to_markdown())


if __name__ == "__main__":
    main()
