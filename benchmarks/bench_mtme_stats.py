"""mt-metrics-eval's statistics (``stats.py``, ``pce.py``) beside mtsig's, on the same vectors. Asserts nothing.

    python benchmarks/bench_mtme_stats.py values        # every statistic on stats_test.py's inputs and random ones
    python benchmarks/bench_mtme_stats.py permutations  # permutation tests replaying mt-metrics-eval's own draws
    python benchmarks/bench_mtme_stats.py speed         # CPU seconds of both, and their ratio, per statistic
    python benchmarks/bench_mtme_stats.py all

``values``: Pearson, Spearman, Kendall's b/c (value and mt-metrics-eval's averaged p-value), tau_23/acc_23 with a tie
threshold, the WMT20 Kendall-like tau, PDP (``Pearson(pdp=True)``), macro and micro averages, NaN groups dropped or
zero, under the three groupings; tie calibration (``KendallWithTiesOpt``, value and epsilon) and SPA
(``PairwiseConfidenceError``); Williams; item samples (``stats.Sample``) with the same seed. First on the inputs of
``stats_test.py`` (printed: the constants ``tests/test_mtme_peer_stats.py`` uses), then on 300 random matrices (2-6
systems, 1-8 items, integer and real scores, ties, missing human scores). Printed: the largest absolute difference
of each statistic over all cases (each must be below 1e-9).

``permutations``: ``PermutationSigDiff`` (Pearson, Kendall b/c/23/acc23 under the groupings, ``KendallWithTiesOpt``
re-calibrated on each resample) and ``PairwisePermutationSigDiff`` (acc23 with calibrated epsilons, b and 23 with
given ones) after ``numpy.random.seed(s)``, and mtsig's sources (``mtsig.stats.meta_evaluation.score_permutation``,
``metric_permutation``) fed the same draws (``mtme_cell_masks(s)``, ``mtme_pair_masks(s)``): p-values, deltas and
every draw compared. Printed: the constants of the peer tests' permutation cases, and the largest differences.

``speed``: CPU seconds (``time.process_time``; set OMP_NUM_THREADS=1) of each tool on WMT23-sized random data (12
systems x 500 items, 32 metrics; mt-metrics-eval per metric, or per pair of metrics with fewer resamples,
extrapolated linearly) and the ratio ``mtme/mtsig``.

mt-metrics-eval's ``stats.py``, ``pce.py`` and ``tau_optimization.py`` are read from the bare git dir that the
``fetch`` tool left (``--mtme-git``, commit 68a481a) into a temporary directory and imported from there: never
installed, never committed (numpy and scipy only).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.stats

from mtsig.stats.meta_evaluation.correlation_pvalues import average_correlation, pearson_pvalue
from mtsig.stats.meta_evaluation.grouped_correlation import (
    GROUPINGS,
    CorrelationOptions,
    grouped_correlation,
    kendall_like_counts,
    packed_matrix,
    pairwise_differences,
)
from mtsig.stats.meta_evaluation.item_sampling import item_sample
from mtsig.stats.meta_evaluation.metric_permutation import (
    EarlyStopping,
    PairSwaps,
    PearsonSwaps,
    permutation_test,
    swap_masks,
)
from mtsig.stats.meta_evaluation.score_permutation import (
    PairOutcomeSwaps,
    PdpSwaps,
    ScoreSwaps,
    mtme_cell_masks,
    mtme_pair_masks,
    rated_cells,
    recalibrated_acc_t,
)
from mtsig.stats.meta_evaluation.soft_pairwise_accuracy import soft_pairwise_accuracy
from mtsig.stats.meta_evaluation.system_level import williams_pvalues
from mtsig.stats.meta_evaluation.tie_calibration import calibrate_ties, calibrate_ties_many, pair_outcomes

MTME_GIT = "/work/.mirror/google-research+mt-metrics-eval/repo"
MTME_FILES = ("stats.py", "pce.py", "tau_optimization.py")
#: 1e-9: the agreement the values must reach.
TOLERANCE = 1e-9


def import_mtme(git_dir: str, into: Path):
    """mt-metrics-eval's ``stats`` module, written from the bare git dir into ``into`` and imported."""
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


def seed_mtme(seed: int) -> None:
    """Seed numpy's global generator, from which mt-metrics-eval draws its permutations."""
    np.random.seed(seed)  # noqa: NPY002 - mt-metrics-eval's own draws come from the legacy global state


def packed(matrix: np.ndarray) -> list:
    """An ``[S, N]`` matrix as mt-metrics-eval's packed vector (None for NaN)."""
    return [None if np.isnan(v) else float(v) for v in matrix.reshape(-1)]


class Worst:
    """The largest absolute difference per statistic."""

    def __init__(self) -> None:
        self.worst: dict[str, float] = {}
        self.cases: dict[str, int] = {}

    def add(self, name: str, ours: float, theirs: float) -> None:
        ours, theirs = float(ours), float(theirs)
        if np.isnan(ours) and np.isnan(theirs):
            diff = 0.0
        else:
            diff = abs(ours - theirs)
            if np.isnan(diff):
                diff = np.inf
        self.worst[name] = max(self.worst.get(name, 0.0), diff)
        self.cases[name] = self.cases.get(name, 0) + 1

    def report(self, title: str, note: str = "", explained: tuple[str, ...] = ()) -> None:
        """Print every statistic's largest difference; ``explained``: names (prefixes) whose differences ``note``
        explains, left out of the last line."""
        print(f"\n{title}: largest |mtsig - mt-metrics-eval| per statistic (cases)")
        if note:
            print(note)
        checked = []
        for name in sorted(self.worst):
            known = name.startswith(explained) if explained else False
            flag = (
                ""
                if self.worst[name] <= TOLERANCE
                else ("   (explained above)" if known else "   <-- above 1e-9")
            )
            print(f"  {name:42s} {self.worst[name]:.3g} ({self.cases[name]}){flag}")
            if not known:
                checked.append(self.worst[name] <= TOLERANCE)
        print(f"all within 1e-9{' (but the explained ones)' if explained else ''}: {all(checked)}")


# ------------------------------------------------------------------------------------------------ values


CORRELATIONS = (
    ("pearson", {}, "pearsonr", {}),
    ("spearman", {}, "spearmanr", {}),
    ("kendall", {"kendall_variant": "b"}, "kendalltau", {"variant": "b"}),
    ("kendall", {"kendall_variant": "c"}, "kendalltau", {"variant": "c"}),
    (
        "kendall",
        {"kendall_variant": "23", "epsilon": 0.3},
        "KendallVariants",
        {"variant": "23", "epsilon": 0.3},
    ),
    ("kendall", {"kendall_variant": "acc23"}, "KendallVariants", {"variant": "acc23"}),
    ("kendall_like", {"threshold": 1.0}, "KendallLike", {"thresh": 1.0}),
)


def compare_matrix(stats, worst: Worst, h: np.ndarray, m: np.ndarray) -> None:
    """Every grouped statistic of one human and one metric matrix, both tools."""
    S = h.shape[0]
    gold, metric = packed(h), packed(m)
    functions = {"pearsonr": scipy.stats.pearsonr, "spearmanr": scipy.stats.spearmanr,
                 "kendalltau": scipy.stats.kendalltau, "KendallVariants": stats.KendallVariants,
                 "KendallLike": stats.KendallLike}  # fmt: skip
    for grouping in GROUPINGS:
        for kind, ours_args, theirs_name, theirs_args in CORRELATIONS:
            for macro in (True, False):
                for zero in (False, True):
                    wrapper = stats.AverageCorrelation(
                        functions[theirs_name], S, grouping, True, zero, macro, **theirs_args
                    )
                    try:
                        theirs = wrapper(gold, metric)
                    except (ValueError, ZeroDivisionError):
                        continue  # e.g. scipy's pearsonr of a group of one cell after its own filtering
                    ours = average_correlation(
                        h, m, CorrelationOptions(kind, grouping, nan_groups="zero" if zero else "drop",
                        average="macro" if macro else "micro", **ours_args),
                    )  # fmt: skip
                    label = f"{kind}{ours_args.get('kendall_variant', '')} {grouping}"
                    worst.add(f"{label} value", ours.value, theirs[0])
                    if theirs_name in ("pearsonr", "spearmanr", "kendalltau"):
                        worst.add(f"{label} p-value", ours.pvalue, theirs[1])
                    if (
                        theirs_name == "pearsonr" and grouping == "none" and not zero
                    ):  # the formula, from scipy's r
                        valid = np.isfinite(h.reshape(-1))
                        if valid.sum() >= 2 and not np.isnan(theirs[0]) and theirs[2]:
                            worst.add("pearson p-value from mtme's r (none)",
                                      pearson_pvalue(theirs[0], valid.sum()), theirs[1])  # fmt: skip
        if h.shape[0] >= 2 or grouping != "item":
            try:
                theirs = stats.AverageCorrelation(scipy.stats.pearsonr, S, grouping, pdp=True)(gold, metric)
            except ValueError:
                continue
            worst.add(
                f"PDP {grouping}",
                grouped_correlation(h, m, CorrelationOptions("pearson", grouping, pdp=True)),
                theirs[0],
            )


def compare_tie_calibration(stats, worst: Worst, h: np.ndarray, m: np.ndarray) -> None:
    for grouping in GROUPINGS:
        for variant in ("acc23", "23"):
            try:
                value, epsilon, _ = stats.KendallWithTiesOpt(
                    packed(h), packed(m), variant, h.shape[0], grouping, sample_rate=1.0
                )
            except (ZeroDivisionError, ValueError):
                continue
            ours = calibrate_ties(h, m, variant=variant, grouping=grouping)
            many = calibrate_ties_many(h, m[None], variant=variant, grouping=grouping)
            worst.add(f"tie calibration {variant} {grouping} value", ours.value, value)
            worst.add(f"tie calibration (many) {variant} {grouping} value", many.values[0], value)
            worst.add(
                f"tie calibration (many) vs one {variant} {grouping} epsilon", many.epsilons[0], ours.epsilon
            )
            # several thresholds may reach the same maximum: mt-metrics-eval's running float sum picks one of them
            if ours.epsilon != epsilon:
                at_theirs = grouped_correlation(
                    h, m, CorrelationOptions("kendall", grouping, kendall_variant=variant, epsilon=epsilon)
                )
                worst.add(f"tie calibration {variant} {grouping}: mtsig's value at mtme's other epsilon", at_theirs,
                          value)  # fmt: skip
                worst.add(f"tie calibration {variant} {grouping}: epsilon differs (tied maxima)", 0.0, 0.0)


def stats_test_inputs(stats) -> None:
    """stats_test.py's own inputs: mt-metrics-eval's full-precision values, the peer tests' constants."""
    print("constants (stats_test.py inputs, mt-metrics-eval's values at full precision):")
    h, m = packed_matrix([1, 2, 3, 4, 5, 6], 2), packed_matrix([2, 1, 4, 3, 3, 7], 2)
    corr = stats.Correlation(2, [1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 3, 7])
    for grouping in ("none", "sys", "item"):
        theirs = corr.Pearson(average_by=grouping, pdp=True)[0]
        print(
            f"  PDP {grouping}: {theirs!r}  mtsig {float(grouped_correlation(h, m, CorrelationOptions(pdp=True, grouping=grouping)))!r}"
        )
    g, mm = [1, 5, None, 10, 2, 12], [3, 15, 1, 20, 4, 24]
    for grouping in ("item", "none"):
        theirs = stats.AverageCorrelation(scipy.stats.pearsonr, 2, grouping, pdp=True)(g, mm)[0]
        ours = grouped_correlation(
            packed_matrix(g, 2), packed_matrix(mm, 2), CorrelationOptions(pdp=True, grouping=grouping)
        )
        print(f"  PDP with None {grouping}: {theirs!r}  mtsig {float(ours)!r}")
    g, mm = [1, 2, 3, 4, None, 6], [2, 1, 8, 3, 5, 6]
    res = stats.AverageCorrelation(
        stats.KendallWithTiesOpt, num_sys=2, average_by="sys", variant="acc23", sample_rate=1.0
    )(g, mm)
    ours = calibrate_ties(packed_matrix(g, 2), packed_matrix(mm, 2), grouping="sys")
    print(f"  AverageCorrelation(KendallWithTiesOpt, sys): {res[:2]!r}  mtsig {(ours.value, ours.epsilon)!r}")
    g, mm = [1, None, 3, 4, None, 6], [2, 1, 8, 3, 5, 6]
    res = stats.AverageCorrelation(stats.PairwiseConfidenceError, num_sys=2)(g, mm)
    hs, ms = packed_matrix(g, 2), packed_matrix(mm, 2)
    rated = np.isfinite(hs).all(axis=0)
    print(f"  AverageCorrelation(PairwiseConfidenceError): {res[0]!r}  mtsig "
          f"{float(soft_pairwise_accuracy(hs[:, rated], ms[:, rated]))!r}")  # fmt: skip
    corr = stats.Correlation(2, [1, 2, 3, 2, 3, 4], [2, 2, 4, 1, 3, 5])
    ours = soft_pairwise_accuracy(packed_matrix([1, 2, 3, 2, 3, 4], 2), packed_matrix([2, 2, 4, 1, 3, 5], 2))
    print(f"  PairwiseConfidenceError: {corr.PairwiseConfidenceError()[0]!r}  mtsig {float(ours)!r}")
    gold, metric = [1, 2, 2, 3, 3, 4], [2, 1, 1.5, 5, 3, 2]
    for grouping in ("none", "sys", "item"):
        value, eps, _ = stats.KendallWithTiesOpt(
            gold, metric, "acc23", 2 if grouping != "none" else 1, grouping, 1.0
        )
        ours = calibrate_ties(packed_matrix(gold, 2 if grouping != "none" else 1),
                              packed_matrix(metric, 2 if grouping != "none" else 1), grouping=grouping)  # fmt: skip
        print(f"  KendallWithTiesOpt {grouping}: {(value, eps)!r}  mtsig {(ours.value, ours.epsilon)!r}")
    print(f"  Sample(10, 5, 'uniform', seed=11): {list(map(int, stats.Sample(10, 5, 'uniform', seed=11).sample))}"
          f"  mtsig {list(map(int, item_sample(10, 5, rng=np.random.default_rng(11))))}")  # fmt: skip
    for bins, size, seed in (([2, 2, 2, 2], 4, 1), ([2, 6], 4, 2), ([1, 7], 3, 3)):
        theirs = list(map(int, stats.Sample(8, size, "stratify", bins, seed=seed).sample))
        ours = list(map(int, item_sample(8, size, "stratify", bins, rng=np.random.default_rng(seed))))
        print(f"  Sample(8, {size}, 'stratify', {bins}, seed={seed}): {theirs}  mtsig {ours}")
    gold, m1, m2 = [1, None, 3, 4, 5, 6], [1, 2, 3, 3, 7, 3], [2, 1, 2, 6, 8, 8]
    wrapper = stats.AverageCorrelation(scipy.stats.pearsonr, 3, average_by="item")
    p, r1, r2 = stats.WilliamsSigDiff(stats.Correlation(3, gold, m1), stats.Correlation(3, gold, m2), wrapper)
    hs = packed_matrix(gold, 3)
    o1, o2 = (
        grouped_correlation(hs, packed_matrix(x, 3), CorrelationOptions(grouping="item")) for x in (m1, m2)
    )
    o12 = grouped_correlation(packed_matrix(m1, 3), packed_matrix(m2, 3), CorrelationOptions(grouping="item"))
    print(f"  WilliamsSigDiff (item, None): {(p, r1, r2)!r}  mtsig "
          f"{(float(williams_pvalues(o1, o2, o12, 6)[1]), float(o1), float(o2))!r}")  # fmt: skip


def values(stats) -> None:
    stats_test_inputs(stats)
    worst = Worst()
    rng = np.random.default_rng(20140626)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for case in range(300):
            S, N = int(rng.integers(2, 7)), int(rng.integers(1, 9))
            if case % 2:
                h = rng.integers(0, 4, (S, N)).astype(float)
                m = rng.integers(0, 5, (S, N)).astype(float)
            else:
                h = np.round(rng.normal(size=(S, N)), 1)
                m = np.round(rng.normal(size=(S, N)), int(rng.integers(0, 3)))
            h[rng.random((S, N)) < 0.15] = np.nan
            if not np.isfinite(h).any():
                continue
            compare_matrix(stats, worst, h, m)
            compare_tie_calibration(stats, worst, h, m)
            thresholds = (0.0, 1.0, 25.0)
            for threshold in thresholds:
                gold, metric = packed(h), packed(m)
                valid = [g is not None for g in gold]
                theirs = stats.KendallLike([g for g, v in zip(gold, valid, strict=True) if v],
                                           [x for x, v in zip(metric, valid, strict=True) if v], threshold)  # fmt: skip
                hv = np.where(np.isfinite(h), h, 0.0).reshape(1, -1)
                con, dis = kendall_like_counts(hv, m.reshape(1, -1), np.isfinite(h).reshape(1, -1), threshold)
                worst.add("KendallLike concordant", con[0], theirs[3])
                worst.add("KendallLike discordant", dis[0], theirs[4])
            rated = np.isfinite(h).all(axis=0)
            if rated.sum() >= 1 and S >= 2:
                theirs = stats.PairwiseConfidenceError(packed(h[:, rated]), packed(m[:, rated]), S)[0]
                ours = soft_pairwise_accuracy(h[:, rated], m[:, rated], arithmetic="float32")
                worst.add("SPA (PairwiseConfidenceError), float32 arithmetic", ours, theirs)
                exact = soft_pairwise_accuracy(h[:, rated], m[:, rated])
                worst.add("SPA, exact arithmetic (pce.py's float32 rounds ties)", exact, theirs)
            full = np.where(np.isfinite(h), h, 0.0)
            if S >= 2:
                diffs = stats.AverageCorrelation(scipy.stats.pearsonr, S)._enumerate_pairwise_diffs(
                    full.T.tolist(), m.T.tolist()
                )
                ours = pairwise_differences(full.T)
                worst.add("pairwise differences", np.max(np.abs(ours - np.array(diffs[0], dtype=float))), 0.0)
        for seed in range(50):
            total, size = int(rng.integers(1, 40)), int(rng.integers(0, 45))
            theirs = stats.Sample(total, size, "uniform", seed=seed + 1).sample
            ours = item_sample(total, size, rng=np.random.default_rng(seed + 1))
            worst.add("Sample uniform (mismatches)", float(np.sum(np.asarray(theirs) != ours)), 0.0)
    worst.report(
        "values",
        "(Pearson's p over three cells is ill-conditioned near |r| = 1, p ~ sqrt(1 - |r|): the two tools' r differ in "
        "the last bit, their p up to 1e-8; from mt-metrics-eval's own r, mtsig's p is the same: 'from mtme's r'.\n"
        "A tie-calibrated epsilon may differ where several thresholds reach exactly the same maximum, which "
        "mt-metrics-eval picks by the rounding of its running float sum; mtsig's value at its epsilon is shown.\n"
        "SPA with exact sums: pce.py's float32 product rounds permutation sums that tie; with pce.py's float32 "
        "arithmetic (spa_arithmetic='float32') the same.)",
        explained=("pearson item p-value", "pearson sys p-value", "SPA, exact"),
    )


# ------------------------------------------------------------------------------------------------ permutations


def two_metric_test(source, k: int, draw, early: EarlyStopping):
    """mtsig's test of "metric 2 beats metric 1" (rank [1, 0]) with the given draws."""
    return permutation_test(source, [1, 0], k, seed=0, key=(), early_stopping=early, draw_masks=draw)


def compare_test(worst: Worst, name: str, theirs: tuple, ours) -> None:
    """p-values, deltas, resamples and draws; a p-value may differ by the draws that equal the observed difference
    exactly (within 1e-12), which each tool rounds its own way (mtsig: exact integers for acc-t and the pairs
    tests, so every such draw counts), so the difference beyond those ties is reported too."""
    p, delta, n_used, draws = theirs
    theirs_draws = np.array([c2 - c1 for c2, c1 in draws])
    ties = int(np.sum(np.abs(theirs_draws - delta) <= 1e-12))
    worst.add(f"{name} p-value", ours.pvalue[0], p)
    worst.add(f"{name} p-value beyond exact ties", max(0.0, abs(ours.pvalue[0] - p) - ties / n_used), 0.0)
    worst.add(f"{name} delta", -ours.delta[0], delta)
    worst.add(f"{name} resamples used", ours.n_used[0], n_used)
    worst.add(
        f"{name} draws", np.max(np.abs(theirs_draws + ours.draws[: len(theirs_draws), 0]), initial=0.0), 0.0
    )


def permutation_cases(stats, worst: Worst, gold: list, m1: list, m2: list, S: int, seed: int, k: int,
                      block: int = 1000, verbose: bool = False) -> None:  # fmt: skip
    """Every permutation test of two metrics, both tools, the same draws."""
    c1, c2 = stats.Correlation(S, gold, m1), stats.Correlation(S, gold, m2)
    h = packed_matrix(gold, S)
    metrics = np.stack([packed_matrix(m1, S), packed_matrix(m2, S)])
    params = stats.PermutationSigDiffParams(block_size=block)
    early = EarlyStopping(block_size=block)
    cases = [("pearson", grouping, {}, scipy.stats.pearsonr, {}) for grouping in GROUPINGS]
    cases += [
        ("kendall", "item", {"kendall_variant": v}, scipy.stats.kendalltau, {"variant": v}) for v in "bc"
    ]
    cases += [("kendall", g, {"kendall_variant": v}, stats.KendallVariants, {"variant": v})
              for g in ("item", "sys") for v in ("23", "acc23")]  # fmt: skip
    for kind, grouping, ours_args, function, theirs_args in cases:
        for zero in (False, True):
            seed_mtme(seed)
            theirs = stats.PermutationSigDiff(c1, c2, function, grouping, k, params, zero, **theirs_args)

            def statistic(x, kind=kind, grouping=grouping, ours_args=ours_args, zero=zero):
                return grouped_correlation(
                    h,
                    x,
                    CorrelationOptions(kind, grouping, nan_groups="zero" if zero else "drop", **ours_args),
                )

            source = ScoreSwaps(h, metrics, statistic, grouping=grouping)
            ours = two_metric_test(source, k, mtme_cell_masks(seed, source.n_units), early)
            name = f"PermutationSigDiff {kind}{ours_args.get('kendall_variant', '')} {grouping}{' nan0' if zero else ''}"
            compare_test(worst, name, theirs, ours)
            if verbose:
                print(
                    f"  {name}: p {theirs[0]!r} delta {theirs[1]!r} k {theirs[2]}  mtsig p {ours.pvalue[0]!r}"
                )
            if kind == "pearson" and grouping == "none" and not zero:
                cells = np.isfinite(h).reshape(-1)
                flat = PearsonSwaps(h.reshape(-1)[cells], metrics.reshape(2, -1)[:, cells])
                compare_test(worst, "PermutationSigDiff pearson none (PearsonSwaps)", theirs,
                             two_metric_test(flat, k, mtme_cell_masks(seed, flat.n_units), early))  # fmt: skip
            if kind == "pearson" and grouping != "none" and h.shape[1 if grouping == "sys" else 0] >= 2:
                pdp = ScoreSwaps(h, metrics, lambda x, g=grouping: grouped_correlation(h, x, CorrelationOptions(grouping=g, pdp=True)),
                                 grouping=grouping)  # fmt: skip
                direct = two_metric_test(pdp, k, mtme_cell_masks(seed, pdp.n_units), early)
                summed = two_metric_test(
                    PdpSwaps(h, metrics, grouping), k, mtme_cell_masks(seed, pdp.n_units), early
                )
                worst.add(f"PDP test {grouping}: PdpSwaps vs hybrids (p)", summed.pvalue[0], direct.pvalue[0])
                used = slice(0, int(direct.n_used[0]))
                worst.add(f"PDP test {grouping}: PdpSwaps vs hybrids (resamples used)", summed.n_used[0],
                          direct.n_used[0])  # fmt: skip
                worst.add(f"PDP test {grouping}: PdpSwaps vs hybrids (draws)",
                          np.max(np.abs(summed.draws[used] - direct.draws[used])), 0.0)  # fmt: skip
    for grouping in ("item", "sys"):
        seed_mtme(seed)
        theirs = stats.PermutationSigDiff(c1, c2, stats.KendallWithTiesOpt, grouping, k, params,
                                          variant="acc23", sample_rate=1.0)  # fmt: skip
        source = recalibrated_acc_t(h, metrics, grouping=grouping)
        ours = two_metric_test(source, k, mtme_cell_masks(seed, source.n_units), early)
        compare_test(worst, f"PermutationSigDiff KendallWithTiesOpt {grouping}", theirs, ours)
        if verbose:
            print(f"  KendallWithTiesOpt scores {grouping}: p {theirs[0]!r}  mtsig {ours.pvalue[0]!r}")
    _, lens = rated_cells(h, "item")
    pair_early = EarlyStopping(block_size=block, check_only_on_exceedance=True)
    for variant, e1, e2 in (("acc23", None, None), ("23", None, None), ("b", 1.0, 1.0), ("23", 0.5, 0.0)):
        seed_mtme(seed)
        theirs = stats.PairwisePermutationSigDiff(c1, c2, variant, "item", k, params, e1, e2, 1.0)
        # mt-metrics-eval's own epsilons (where thresholds tie at the maximum it may pick another than mtsig)
        eps = [e if e is not None else stats.KendallWithTiesOpt(g, x, variant, S, "item", 1.0)[1]
               for e, g, x in ((e1, gold, m1), (e2, gold, m2))]  # fmt: skip
        source = PairOutcomeSwaps(h, metrics, eps, variant=variant, grouping="item")
        ours = two_metric_test(source, k, mtme_pair_masks(seed, lens), pair_early)
        given = "calibrated" if e1 is None else f"epsilons {e1}, {e2}"
        compare_test(worst, f"PairwisePermutationSigDiff {variant} {given}", theirs, ours)
        if variant in ("acc23", "23") and e1 is None:
            swaps = PairSwaps(pair_outcomes(h, metrics, eps), variant)
            compare_test(worst, f"PairwisePermutationSigDiff {variant} calibrated (PairSwaps)", theirs,
                         two_metric_test(swaps, k, mtme_pair_masks(seed, lens), pair_early))  # fmt: skip
        if verbose:
            print(
                f"  PairwisePermutationSigDiff {variant} eps {e1}, {e2}: p {theirs[0]!r}  mtsig {ours.pvalue[0]!r}"
            )


def peer_test_constants(stats) -> None:
    """mt-metrics-eval's p-value, delta and resamples of each permutation test of stats_test.py, in that test's
    configuration, after ``numpy.random.seed(0)``: the constants of tests/test_mtme_peer_stats.py, whose mtsig
    replays use ``mtme_cell_masks(0)`` / ``mtme_pair_masks(0)``."""
    gold, m1, m2 = [1, 2, 3, 4, 5, 5, 7, 8], [1, 2, 3, 3, 7, 3, 5, 5], [2, 1, 2, 6, 8, 8, 7, 6]
    c1, c2 = stats.Correlation(4, gold, m1), stats.Correlation(4, gold, m2)
    block10 = stats.PermutationSigDiffParams(block_size=10)
    cases = {
        "testPearsonNoAvgNoEarlyStop": lambda: stats.PermutationSigDiff(
            c1, c2, scipy.stats.pearsonr, "none", 1000
        ),
        "testPearsonNoAvgWithEarlyStop": lambda: stats.PermutationSigDiff(
            c1,
            c2,
            scipy.stats.pearsonr,
            "none",
            1000,
            stats.PermutationSigDiffParams(block_size=50, early_max=0.2),
        ),
        "testPearsonSysNoEarlyStop": lambda: stats.PermutationSigDiff(c1, c2, scipy.stats.pearsonr, "sys"),
        "testPearsonSysNoEarlyStopNan0": lambda: stats.PermutationSigDiff(
            c1, c2, scipy.stats.pearsonr, "sys", replace_nans_with_zeros=True
        ),
        "testPearsonItemNoEarlyStop": lambda: stats.PermutationSigDiff(c1, c2, scipy.stats.pearsonr, "item"),
        "testKendallItemWithEarlyStop": lambda: stats.PermutationSigDiff(
            c1, c2, scipy.stats.kendalltau, "item", k=10, params=block10
        ),
        "testKendallC": lambda: stats.PermutationSigDiff(
            c1, c2, scipy.stats.kendalltau, "item", k=10, params=block10, variant="c"
        ),
        "testKendallVariants23": lambda: stats.PermutationSigDiff(
            c1, c2, stats.KendallVariants, "item", k=10, params=block10, variant="23"
        ),
        "testKendallVariantsAcc23": lambda: stats.PermutationSigDiff(
            c1, c2, stats.KendallVariants, "item", k=10, params=block10, variant="acc23"
        ),
        "testTauOptimization": lambda: stats.PermutationSigDiff(
            c1,
            c2,
            stats.KendallWithTiesOpt,
            average_by="item",
            k=10,
            params=block10,
            variant="acc23",
            sample_rate=1.0,
        ),
    }
    gold, m1, m2 = [1, 3, 3, 3, 1, 2, 1, 2], [2, 4, 6, 6, 2, 6, 3, 7], [1, 5, 4, 4, 4, 3, 2, 1]
    p1, p2 = stats.Correlation(4, gold, m1), stats.Correlation(4, gold, m2)
    cases["Pairwise.testKendallVariantsAcc23"] = lambda: stats.PairwisePermutationSigDiff(
        p1, p2, "acc23", "item", k=10, sample_rate=1.0
    )
    cases["Pairwise.testKendallVariantsB"] = lambda: stats.PairwisePermutationSigDiff(
        p1, p2, "b", "item", k=10, epsilon1=1, epsilon2=1
    )
    print("MTME_PERMUTATIONS = {  # test: (p-value, delta, resamples used), numpy.random.seed(0)")
    for name, call in cases.items():
        seed_mtme(0)
        p, delta, k, _ = call()
        print(f"    {name!r}: ({float(p)!r}, {float(delta)!r}, {int(k)}),")
    print("}")


def permutations(stats) -> None:
    worst = Worst()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        peer_test_constants(stats)
        print(
            "constants (PermutationSigDiffTest / PairwisePermutationSigDiffTest inputs, numpy.random.seed(0)):"
        )
        permutation_cases(stats, worst, [1, 2, 3, 4, 5, 5, 7, 8], [1, 2, 3, 3, 7, 3, 5, 5],
                          [2, 1, 2, 6, 8, 8, 7, 6], 4, 0, 1000, verbose=True)  # fmt: skip
        permutation_cases(stats, worst, [1, 3, 3, 3, 1, 2, 1, 2], [2, 4, 6, 6, 2, 6, 3, 7],
                          [1, 5, 4, 4, 4, 3, 2, 1], 4, 0, 10, verbose=True)  # fmt: skip
        rng = np.random.default_rng(7)
        for case in range(40):
            S, N = int(rng.integers(2, 6)), int(rng.integers(2, 7))
            h = rng.integers(0, 4, (S, N)).astype(float)
            h[rng.random((S, N)) < 0.1] = np.nan
            if (np.isfinite(h).sum(axis=0) < 2).any() or (np.isfinite(h).sum(axis=1) < 2).any():
                continue
            m1, m2 = (np.round(rng.normal(size=(S, N)), int(rng.integers(0, 2))) for _ in range(2))
            permutation_cases(stats, worst, packed(h), packed(m1), packed(m2), S, case, 200, block=100)
    worst.report(
        "permutations",
        "(a p-value may differ by the share of draws that equal the observed difference exactly, which each tool "
        "rounds its own way: 'beyond exact ties' is the rest, which must be 0)",
        explained=tuple(
            name
            for name in worst.worst
            if name.endswith(" p-value") and f"{name} beyond exact ties" in worst.worst
        ),
    )


# ------------------------------------------------------------------------------------------------ speed


def timed(function) -> tuple[float, object]:
    start = time.process_time()
    result = function()
    return time.process_time() - start, result


def speed(stats) -> None:
    rng = np.random.default_rng(1)
    S, N, M = 12, 500, 32
    h = np.round(-rng.gamma(1.0, 3.0, (S, N)), 1) * (rng.random((S, N)) < 0.6)
    h[:, rng.random(N) < 0.05] = np.nan
    metrics = np.where(np.isfinite(h), h, 0.0)[None] + rng.normal(0, 2, (M, S, N))
    gold = packed(h)
    print(f"random WMT23-sized data: {S} systems x {N} items, {M} metrics; CPU seconds, ratio mtme/mtsig")

    def row(name: str, theirs: float, ours: float, scale: float = 1.0) -> None:
        print(
            f"  {name:58s} mtme {theirs * scale:9.3f}  mtsig {ours:8.3f}  ratio {theirs * scale / ours:9.1f}"
        )

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for label, kind, args, function, targs, pdp in (
            ("Pearson, grouped by item", "pearson", {}, scipy.stats.pearsonr, {}, False),
            ("PDP, grouped by item", "pearson", {}, scipy.stats.pearsonr, {"pdp": True}, True),
            ("Kendall tau-b, grouped by item", "kendall", {"kendall_variant": "b"}, scipy.stats.kendalltau,
             {"variant": "b"}, False),
            ("acc_23 at epsilon 0.5, grouped by item", "kendall", {"kendall_variant": "acc23", "epsilon": 0.5},
             stats.KendallVariants, {"variant": "acc23", "epsilon": 0.5}, False),
            ("Kendall-like (threshold 1), grouped by item, micro", "kendall_like", {"threshold": 1.0, "average": "micro"},
             stats.KendallLike, {"thresh": 1.0}, False),
        ):  # fmt: skip
            macro = kind != "kendall_like"
            wrapper = stats.AverageCorrelation(function, S, "item", True, False, macro, **targs)
            theirs, _ = timed(lambda w=wrapper: [w(gold, packed(m)) for m in metrics])
            ours, _ = timed(
                lambda k=kind, a=args, p=pdp: grouped_correlation(
                    h, metrics, CorrelationOptions(k, "item", pdp=p, **a)
                )
            )
            row(f"{label}, {M} metrics", theirs, ours)
        theirs, _ = timed(
            lambda: [stats.KendallWithTiesOpt(gold, packed(m), "acc23", S, "item", 1.0) for m in metrics]
        )
        ours, _ = timed(lambda: calibrate_ties_many(h, metrics))
        row(f"tie calibration (acc-t), {M} metrics", theirs, ours)
        ours_single, _ = timed(lambda: [calibrate_ties(h, m) for m in metrics])
        row(f"  (mtsig one metric at a time: {ours_single:.3f} s)", theirs, ours_single)
        rated = np.isfinite(h).all(axis=0)
        theirs, _ = timed(lambda: [stats.PairwiseConfidenceError(packed(h[:, rated]), packed(m[:, rated]), S)
                                   for m in metrics])  # fmt: skip
        ours, _ = timed(lambda: soft_pairwise_accuracy(h[:, rated], metrics[:, :, rated]))
        row(f"SPA, {M} metrics", theirs, ours)
        # permutation tests: mt-metrics-eval per pair with k_theirs resamples, extrapolated to every pair at k
        k, k_theirs, pairs = 1000, 20, M * (M - 1) // 2
        c = [stats.Correlation(S, gold, packed(m)) for m in metrics[:2]]
        none_early = EarlyStopping(block_size=k)
        for label, theirs_call, source in (
            ("Pearson grouped by item (PermutationSigDiff)",
             lambda: stats.PermutationSigDiff(c[0], c[1], scipy.stats.pearsonr, "item", k_theirs),
             lambda: ScoreSwaps(h, metrics, lambda x: grouped_correlation(h, x, CorrelationOptions("pearson", "item")), grouping="item")),
            ("PDP grouped by item (mtsig only: PdpSwaps)", None, lambda: PdpSwaps(h, metrics, "item")),
            ("Kendall tau-b grouped by item (PermutationSigDiff)",
             lambda: stats.PermutationSigDiff(c[0], c[1], scipy.stats.kendalltau, "item", k_theirs),
             lambda: ScoreSwaps(h, metrics, lambda x: grouped_correlation(h, x, CorrelationOptions("kendall", "item")), grouping="item")),
            ("acc-t re-calibrated (PermutationSigDiff, KendallWithTiesOpt)",
             lambda: stats.PermutationSigDiff(c[0], c[1], stats.KendallWithTiesOpt, "item", k_theirs, sample_rate=1.0),
             lambda: recalibrated_acc_t(h, metrics)),
            ("tau-b at epsilon 0.5 by pairs (PairwisePermutationSigDiff)",
             lambda: stats.PairwisePermutationSigDiff(c[0], c[1], "b", "item", k_theirs, epsilon1=0.5, epsilon2=0.5),
             lambda: PairOutcomeSwaps(h, metrics, [0.5] * M, variant="b")),
        ):  # fmt: skip
            heavy = "re-calibrated" in label or "tau-b grouped" in label or "Pearson grouped" in label
            k_ours, subset = (100, 32) if heavy else (k, pairs)  # the heavy ones: 32 pairs, extrapolated
            if subset == pairs:
                ours, _ = timed(lambda s=source: permutation_test(s(), np.arange(M), k, seed=1, key=("x",),
                                                                  early_stopping=none_early))  # fmt: skip
            else:
                first, second = np.triu_indices(M, k=1)
                built = source()
                masks = swap_masks(np.random.default_rng(1), k_ours, built.n_units)
                i, j = first[:subset], second[:subset]
                ours, _ = timed(lambda b=built, w=masks, i=i, j=j: b.draws(w, i, j))
                ours *= (k / k_ours) * (pairs / subset)
            if theirs_call is None:
                print(f"  {label:58s} mtsig {ours:8.3f} ({pairs} pairs x {k})")
                continue
            theirs, _ = timed(theirs_call)
            row(f"{label}, {pairs} pairs x {k}", theirs, ours, scale=pairs * k / k_theirs)
    print(
        "(mt-metrics-eval: one pair timed at 20 resamples, times 496 pairs x 50; mtsig: every pair at once, the "
        "grouped Pearson, Kendall and re-calibrated tests: 32 pairs at 100 resamples, times 15.5 x 10)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("part", choices=("values", "permutations", "speed", "all"), nargs="?", default="all")
    parser.add_argument(
        "--mtme-git", default=MTME_GIT, help="bare git dir of google-research/mt-metrics-eval"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        stats = import_mtme(args.mtme_git, Path(tmp))
        if args.part in ("values", "all"):
            values(stats)
        if args.part in ("permutations", "all"):
            permutations(stats)
        if args.part in ("speed", "all"):
            speed(stats)


if __name__ == "__main__":
    main()
