"""PERM-BOTH between every metric pair of WMT20 ja-en: mtsig vs mt-metrics-eval's PermutationSigDiff. Asserts nothing.

    python benchmarks/bench_metric_comparison.py                 # 15 pairs x 1000 resamples, both implementations
    python benchmarks/bench_metric_comparison.py --samples 200   # quicker

Data: the six metrics' segment scores of WMT20 ja-en (``metric-scores/*.seg.score``) and the DA segment means
(``da/ad-seg-scores-ja-en.csv``, Z.SCR) of the 10 rated systems; the cells compared are the (system, segment)
cells DA rated (8 940 of 9 930), flattened. Both implementations test "metric B correlates better (Pearson, one
correlation over all cells) than metric A" by swapping the z-scored scores of each cell with probability 1/2:
mt-metrics-eval's ``stats.PermutationSigDiff(average_by="none")`` with a Python loop over resamples (its default
early-stopping blocks of 1000 never stop a 1000-resample run before the end), mtsig's
``metric_comparison.perm_both_matrix`` vectorised (all pairs from one mask per resample). mt-metrics-eval's ``stats.py`` (and the ``pce``/``tau_optimization``
modules it imports) is read from the bare git dir that the ``fetch`` tool left under ``--mtme-git``
(google-research/mt-metrics-eval) into a temporary directory: never installed, never committed.

Also printed, on the system means of the rated cells: each metric's pairwise accuracy by mt-metrics-eval's
``stats.Agreement`` and by mtsig's ``pairwise_accuracy`` (gold: signs of the human system means), and the largest
relative difference of the Williams p-values (``stats.WilliamsSigDiff`` vs ``meta_evaluation.williams_table``).

Printed: CPU seconds (``time.process_time`` of this process) of each (set OMP_NUM_THREADS=1 for one core), the
ratio (last line ``speedup_vs_mt_metrics_eval: X``), and per pair both p-values, their difference and the Monte
Carlo error of that difference (sqrt(2 p (1-p) / k)); the largest |difference| in those units.
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from mtsig.io.segment_scores import read_wmt_seg_scores, scores_array
from mtsig.io.wmt_da import read_wmt_da_seg_scores
from mtsig.stats.meta_evaluation.metric_comparison import (
    PermBothOptions,
    pair_signs,
    pairwise_accuracy,
    perm_both_matrix,
)
from mtsig.stats.meta_evaluation.system_level import williams_table
from mtsig.stats.seeding import rng_for

MTME_GIT = "/work/.mirror/google-research+mt-metrics-eval/repo"
MTME_FILES = ("stats.py", "pce.py", "tau_optimization.py")
METRICS = ("chrF", "TER", "parbleu", "parchrf++", "SWSS+METEOR", "YiSi-2")


def load(data_root: Path) -> tuple[np.ndarray, dict[str, np.ndarray], np.ndarray]:
    """(human z of the rated cells [K], {metric: its scores of the same cells [K]}, each cell's system [K])."""
    folder = data_root / "wmt20-ja-en"
    da = read_wmt_da_seg_scores(folder / "da" / "ad-seg-scores-ja-en.csv", n_segments=993)
    systems = sorted(da["system"].unique())
    human = np.full((len(systems), 993), np.nan)
    human[da["system"].map({s: i for i, s in enumerate(systems)}).to_numpy(), da["segment"].to_numpy()] = da[
        "z"
    ]
    rated = np.isfinite(human)
    metrics = {}
    for name in METRICS:
        frame = read_wmt_seg_scores(folder / "metric-scores" / f"{name}.ja-en.seg.score")
        metrics[name] = scores_array(frame, systems, 993)[rated]
    return human[rated], metrics, np.nonzero(rated)[0]


def system_means(values: np.ndarray, system: np.ndarray) -> np.ndarray:
    """Mean over each system's rated cells."""
    return np.bincount(system, weights=values) / np.bincount(system)


def system_level_side_by_side(
    stats, human: np.ndarray, metrics: dict[str, np.ndarray], system: np.ndarray
) -> None:
    """Pairwise accuracy (mt-metrics-eval ``Agreement``: sign(gold diff) == sign(metric diff), ties included) and
    the Williams test (``WilliamsSigDiff``, one-sided on |t|) on the system means of the rated cells."""
    import scipy.stats  # noqa: PLC0415

    gold = system_means(human, system)
    sys_scores = {m: system_means(metrics[m], system) for m in METRICS}
    worst_acc = 0.0
    for m in METRICS:
        agree, n_pairs = stats.Agreement(list(gold), list(sys_scores[m]))
        ours = float(pairwise_accuracy(sys_scores[m], pair_signs(gold)))
        worst_acc = max(worst_acc, abs(ours - agree / n_pairs))
        print(
            f"pairwise accuracy {m:>12}: mtsig {ours:.6f}  mt-metrics-eval {agree}/{n_pairs} = {agree / n_pairs:.6f}"
        )
    table = williams_table(gold, sys_scores)
    worst_w = 0.0
    for row in table.itertuples():
        if row.r_a < row.r_b:
            continue  # mt-metrics-eval's p is of |t|: compare the direction in which r_a >= r_b
        p, _, _ = stats.WilliamsSigDiff(
            stats.Correlation(1, list(gold), list(sys_scores[row.metric_a])),
            stats.Correlation(1, list(gold), list(sys_scores[row.metric_b])),
            scipy.stats.pearsonr,
        )
        worst_w = max(worst_w, abs(row.p_value - p) / p)
    print(f"max |pairwise accuracy difference|: {worst_acc:.3g}")
    print(f"max relative Williams p difference (r_a >= r_b): {worst_w:.3g}")


def import_mtme(git_dir: str, into: Path):
    package = into / "mt_metrics_eval"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name in MTME_FILES:
        text = subprocess.run(
            ["git", "--git-dir", git_dir, "show", f"HEAD:mt_metrics_eval/{name}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        (package / name).write_text(text)
    sys.path.insert(0, str(into))
    from mt_metrics_eval import stats  # noqa: PLC0415

    return stats


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--samples", type=int, default=1000, help="resamples per pair (default 1000)")
    parser.add_argument(
        "--mtme-git", default=MTME_GIT, help="bare git dir of google-research/mt-metrics-eval"
    )
    parser.add_argument("--seed", type=int, default=12345)
    args = parser.parse_args()
    data_root = Path(os.environ.get("MTSIG_DATA", "../shared/data"))
    human, metrics, system = load(data_root)
    pairs = list(itertools.combinations(METRICS, 2))
    print(f"cells: {human.size}; metrics: {len(METRICS)}; pairs: {len(pairs)}; resamples: {args.samples}")
    print(f"load averages: {os.getloadavg()}")

    start = time.process_time()
    p_matrix, r = perm_both_matrix(
        human,
        np.stack([metrics[m] for m in METRICS]),
        PermBothOptions(n_resamples=args.samples),
        rng=rng_for(args.seed, "perm"),
    )
    ours_cpu = time.process_time() - start
    index = {m: i for i, m in enumerate(METRICS)}
    # mt-metrics-eval's PermutationSigDiff(corr_a, corr_b): p of "b correlates better than a" = p_matrix[b, a]
    ours = {(a, b): (p_matrix[index[b], index[a]], r[index[b]] - r[index[a]]) for a, b in pairs}

    with tempfile.TemporaryDirectory() as tmp:
        stats = import_mtme(args.mtme_git, Path(tmp))
        import scipy.stats  # noqa: PLC0415

        np.random.seed(args.seed)  # noqa: NPY002 -- mt-metrics-eval draws from the legacy global state
        gold = list(human)
        start = time.process_time()
        theirs = {}
        for a, b in pairs:
            corr_a = stats.Correlation(1, gold, list(metrics[a]))
            corr_b = stats.Correlation(1, gold, list(metrics[b]))
            p, delta, k_used, _ = stats.PermutationSigDiff(
                corr_a, corr_b, scipy.stats.pearsonr, "none", args.samples
            )
            theirs[(a, b)] = (p, delta, k_used)
        theirs_cpu = time.process_time() - start
        system_level_side_by_side(stats, human, metrics, system)
    print(f"load averages: {os.getloadavg()}")

    worst = 0.0
    worst_abs = 0.0
    worst_delta = 0.0
    print(
        f"{'metric A':>12} {'metric B':>12} {'delta':>9} {'p mtsig':>8} {'p mtme':>8} {'diff':>7} {'MC err':>7}"
    )
    for pair in pairs:
        (mine_p, mine_delta), (p, delta, k_used) = ours[pair], theirs[pair]
        pooled = (mine_p + p) / 2
        err = np.sqrt(2 * pooled * (1 - pooled) / args.samples)
        diff = mine_p - p
        worst_abs = max(worst_abs, abs(diff))
        worst = max(worst, abs(diff) / err if err > 0 else (0.0 if diff == 0 else np.inf))
        worst_delta = max(worst_delta, abs(mine_delta - delta))
        print(f"{pair[0]:>12} {pair[1]:>12} {mine_delta:9.5f} {mine_p:8.3f} {p:8.3f} {diff:7.3f} {err:7.3f}")
    print(f"max |delta difference|: {worst_delta:.3g}")
    print(f"max |p difference|: {worst_abs:.3f}; in Monte Carlo errors: {worst:.2f}")
    print(f"cpu_seconds_mtsig: {ours_cpu:.2f}")
    print(f"cpu_seconds_mt_metrics_eval: {theirs_cpu:.2f}")
    print(f"speedup_vs_mt_metrics_eval: {theirs_cpu / ours_cpu:.1f}")


if __name__ == "__main__":
    main()
