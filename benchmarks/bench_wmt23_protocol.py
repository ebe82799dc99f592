"""The WMT23 metrics-task protocol on MQM: mtsig vs google-research/mt-metrics-eval's own task sets. Asserts nothing.

    python benchmarks/bench_wmt23_protocol.py values               # k=0: every task value of every metric, both tools
    python benchmarks/bench_wmt23_protocol.py clusters --mtme-k 10 # significance: mt-metrics-eval with k=10 per task
    python benchmarks/bench_wmt23_protocol.py speed                # mtsig alone: k = 0, 100, 200, 1000 (CPU, wall, memory)
    python benchmarks/bench_wmt23_protocol.py extras               # the PDP column and WMT25's task set on WMT23, k=0
    python benchmarks/bench_wmt23_protocol.py before_after         # WMT24 at k=1000: this checkout against --before
    python benchmarks/bench_wmt23_protocol.py spa_floor            # WMT24 at k=1000: SPA's work, and its floor

``values`` runs mt-metrics-eval's ``tasks.WMT23()`` and ``tasks.WMT24OnWMT23()`` (k=0; ``TaskSet.Run`` on
``data.EvalSet``s read from ``$MTSIG_DATA/wmt23``) beside :func:`mtsig.studies.metrics_protocol.run_protocol`, prints
every task value of every metric from both, the largest absolute difference per task and per kind of task, and the
weighted averages. Soft pairwise accuracy (SPA) is also recomputed by mtsig in mt-metrics-eval's own system order
(the packing order of its ``Correlation`` objects, a Python set's iteration order) with pce.py's float32 arithmetic
and with mtsig's exact sums: mt-metrics-eval's SPA of a metric whose permutation sums tie exactly (MaTESe's integer
scores, Random-sysname's constant ones) depends on that order, so on ``PYTHONHASHSEED`` (its driver here runs with
``PYTHONHASHSEED=0``); mtsig orders systems by name.

``clusters`` runs mt-metrics-eval's task sets with ``--mtme-k`` resamples per task (its per-pair Python loops: minutes
to hours), times each task, extrapolates linearly to k=1000 without early stopping (its early stopping needs blocks of
100, so a run with k < 100 never stops early), and prints its clusters beside mtsig's at the same k and at k=1000;
and the speed ratio per task at the same k, mtsig without early stopping. ``speed`` times mtsig's whole WMT23 table
(reading the files included) at k = 0, 100, 200 and 1000, each in a fresh process, and WMT24 on WMT23 at k=100.
``before_after`` runs WMT24 on WMT23 at k=1000 (SPA's significance: every metric pair's hybrids) with this checkout
and with the commit ``--before`` (extracted with ``git archive`` into a temporary folder), each in a fresh process
with one BLAS thread, alternating ``--rounds`` times, and checks that both give the same p-values and draws.
``spa_floor`` runs WMT24 on WMT23 at k=1000 in a fresh process with one BLAS thread and counts the work of SPA's
significance (:class:`mtsig.stats.meta_evaluation.metric_permutation.SpaSwaps`): the exact multiply-adds of the
swapped cells' permutation sums and the comparisons of the counts, with the CPU time of each; and times BLAS's float64
product alone on the same shape, so that the products' time at BLAS's own rate is a floor for exact float64 sums.

mt-metrics-eval is read from the bare git dir that the ``fetch`` tool left (``--mtme-git``) into a temporary folder
and run from there with ``apache_beam`` and ``dacite`` replaced by empty modules (used only for parallel runs with
Apache Beam and for reading MQM rating files, neither of which runs here): never installed, never committed.
CPU seconds are ``resource.getrusage`` of each process (all threads); the machine is shared, so wall times vary more.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from mtsig.io.mtme import read_requested_scores, read_test_set
from mtsig.stats.meta_evaluation.metric_ranking import assign_ranks
from mtsig.stats.meta_evaluation.soft_pairwise_accuracy import soft_pairwise_accuracy
from mtsig.studies import metrics_protocol as mp

MTME_GIT = "/work/.mirror/google-research+mt-metrics-eval/repo"
LPS = ("en-de", "he-en", "zh-en")

DRIVER = r"""
import json, resource, sys, time, types
for name in ("apache_beam", "dacite"):  # parallel runs and rating files only
    sys.modules[name] = types.ModuleType(name)
source, root, k, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
sys.path.insert(0, source)
import numpy as np
from mt_metrics_eval import data, tasks

lps = ["en-de", "he-en", "zh-en"]
evs = {("wmt23", lp): data.EvalSet("wmt23", lp, True, path=root) for lp in lps}
result = {}
done = {}  # WMT24OnWMT23 repeats WMT23's acc-t tasks: each distinct task runs once
for name, make in (("wmt23", tasks.WMT23), ("wmt24", tasks.WMT24OnWMT23)):
    task_set, weights = make(k=k)
    runs = []
    for task in task_set:
        start = time.process_time()
        if task.name not in done:
            done[task.name] = (task.Run(evs), time.process_time() - start)
        run, seconds = done[task.name]
        entry = {"name": task.name, "corr_fcn": task.corr_fcn, "lang": task.lang, "level": task.level,
                 "cpu": seconds, "corr_ranks": {m: [float(v[0]), int(v[1])] for m, v in run.corr_ranks.items()},
                 "matrix": np.asarray(run.matrix).tolist()}
        if task.corr_fcn == "pce":
            # the order in which mt-metrics-eval packed the systems: match each block of the packed gold vector
            corrs = data.GetCorrelations(evs[("wmt23", task.lang)], "seg", task.refs, task.close_refs, task.human,
                                         task.use_outliers, task.gold, task.primary, task.domain,
                                         metric_format="spreadsheet")
            first = next(iter(corrs.values()))
            gold = evs[("wmt23", task.lang)].Scores("seg", task.gold)
            n = len(first.gold_scores) // first.num_sys
            order = []
            for s in range(first.num_sys):
                block = first.gold_scores[s * n:(s + 1) * n]
                order.append(next(sys for sys, scores in gold.items() if list(scores) == list(block)))
            entry["system_order"] = order
        runs.append((run, entry))
        print(name, task.lang, task.level, task.corr_fcn, f"{seconds:.1f} s", flush=True)
    results = tasks.TaskSetResults([r for r, _ in runs])
    if k:
        average, matrix = results.AverageCorrMatrix(weights)
        average = {m: [float(v[0]), int(v[1])] for m, v in average.items()}
    else:
        average = {m: [float(v), None] for m, v in results.AverageCorrs(weights).items()}
    result[name] = {"tasks": [e for _, e in runs], "average": average, "weights": weights}
result["cpu"] = resource.getrusage(resource.RUSAGE_SELF).ru_utime + resource.getrusage(resource.RUSAGE_SELF).ru_stime
json.dump(result, open(out, "w"))
"""


PVALUE_DRIVER = r"""
import json, resource, sys, time, types
for name in ("apache_beam", "dacite"):
    sys.modules[name] = types.ModuleType(name)
source, root, k, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
sys.path.insert(0, source)
import numpy as np
from mt_metrics_eval import data, tasks

lps = ["en-de", "he-en", "zh-en"]
evs = {("wmt23", lp): data.EvalSet("wmt23", lp, True, path=root) for lp in lps}
task_set, _ = tasks.WMT23(k=k)
result = []
for task in task_set:
    if task.level != "sys":  # the pooled accuracy and the three system-level Pearson tasks
        continue
    start = time.process_time()
    run = task.Run(evs)
    n_used = [len(run.Draws(i, j)) for i in range(len(run.metrics)) for j in range(i + 1, len(run.metrics))]
    result.append({"lang": task.lang, "corr_fcn": task.corr_fcn, "cpu": time.process_time() - start,
                   "metrics": run.metrics, "matrix": np.asarray(run.matrix).tolist(), "n_used": n_used})
    print(task.lang, task.corr_fcn, f"{result[-1]['cpu']:.1f} s", flush=True)
json.dump(result, open(out, "w"))
"""


def run_mtme(git_dir: str, data_root: Path, k: int, driver_text: str = DRIVER) -> dict:
    """mt-metrics-eval's WMT23() and WMT24OnWMT23() with k resamples, in a subprocess (PYTHONHASHSEED=0)."""
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "src"
        source.mkdir()
        archive = subprocess.run(
            ["git", "--git-dir", git_dir, "archive", "HEAD"], check=True, capture_output=True
        )
        subprocess.run(["tar", "-x", "-C", str(source)], input=archive.stdout, check=True)
        root = Path(tmp) / "root"
        root.mkdir()
        (root / "wmt23").symlink_to(data_root / "wmt23")
        driver = Path(tmp) / "driver.py"
        driver.write_text(driver_text)
        out = Path(tmp) / "out.json"
        env = dict(os.environ, PYTHONHASHSEED="0")
        subprocess.run(
            [sys.executable, str(driver), str(source), str(root), str(k), str(out)], check=True, env=env
        )
        return json.loads(out.read_text())


def read_inputs(data_root: Path, protocol: mp.Protocol) -> tuple[dict, dict]:
    test_sets = {lp: read_test_set(data_root / "wmt23", lp) for lp in protocol.lps}
    return test_sets, read_requested_scores(test_sets, mp.required_scores(protocol, test_sets))


def run_mtsig(data_root: Path, name: str, k: int, **options) -> tuple[mp.ProtocolResult, float, tuple, tuple]:
    protocol = mp.PROTOCOLS[name]()
    test_sets, scores = read_inputs(data_root, protocol)
    start = time.process_time()
    result = mp.run_protocol(protocol, test_sets, scores, mp.RunOptions(n_resamples=k, seed=12345, **options))
    return result, time.process_time() - start, test_sets, scores


def kind(task: mp.Task) -> str:
    return {"pooled_accuracy": "pooled accuracy", "spa": "SPA", "tie_calibrated": "acc-t"}.get(
        task.statistic, f"{task.level} {task.statistic}"
    )


def spa_in_mtme_order(data_root: Path, theirs: dict) -> None:
    """SPA recomputed by mtsig in mt-metrics-eval's system order: pce.py's float32 arithmetic and exact sums."""
    protocol = mp.wmt24_on_wmt23()
    test_sets, scores = read_inputs(data_root, protocol)
    for task, entry in zip(protocol.tasks, theirs["wmt24"]["tasks"], strict=True):
        if task.statistic != "spa":
            continue
        lp = task.lps[0]
        _, human, metrics = mp.task_inputs(task, lp, mp.ProtocolInputs(protocol, test_sets, scores))
        systems = mp.task_systems(
            test_sets[lp], protocol.info, task, scores[mp.ScoreKey(lp, "human", "mqm", "seg")]
        )
        order = [systems.index(s) for s in entry["system_order"]]
        rated = np.isfinite(human).all(axis=0)
        names = sorted(metrics)
        stacked = np.stack([metrics[m] for m in names])[:, order][:, :, rated]
        h = human[order][:, rated]
        reference = np.array([entry["corr_ranks"][m][0] for m in names])
        for arithmetic in ("float32", "exact"):
            ours = soft_pairwise_accuracy(h, stacked, arithmetic=arithmetic)
            worst = int(np.argmax(np.abs(ours - reference)))
            print(
                f"  SPA {lp} in mt-metrics-eval's system order, {arithmetic:>7} arithmetic: max |diff| "
                f"{np.abs(ours - reference).max():.3g} ({names[worst]}), "
                f"{np.count_nonzero(ours != reference)} of {len(names)} metrics differ"
            )


def values(args: argparse.Namespace) -> None:
    start = time.time()
    theirs = run_mtme(args.mtme_git, args.data, 0)
    print(
        f"mt-metrics-eval k=0: {theirs['cpu']:.1f} CPU s (both task sets, reading included), {time.time() - start:.0f} s wall"
    )
    worst_kind: dict[str, float] = {}
    for name in ("wmt23", "wmt24"):
        wall = time.time()
        ours, cpu, _, _ = run_mtsig(args.data, name, 0)
        print(f"\n== {name}: mtsig k=0 {cpu:.2f} CPU s (reading excluded), {time.time() - wall:.1f} s wall")
        for task, entry in zip(ours.tasks, theirs[name]["tasks"], strict=True):
            reference = {m: v[0] for m, v in entry["corr_ranks"].items()}
            if set(reference) != set(task.metrics):
                print(
                    f"  {task.task.label}: metric sets differ: {sorted(set(reference) ^ set(task.metrics))}"
                )
                continue
            diffs = {m: abs(float(v) - reference[m]) for m, v in zip(task.metrics, task.values, strict=True)}
            worst = max(diffs, key=diffs.get)
            key = kind(task.task)
            worst_kind[key] = max(worst_kind.get(key, 0.0), diffs[worst])
            print(f"  {task.task.label:<24} {len(diffs)} metrics, max |diff| {diffs[worst]:.3g} ({worst})")
            if args.verbose:
                for m, v in zip(task.metrics, task.values, strict=True):
                    print(f"      {m:<28} mtsig {float(v): .12f}  mt-metrics-eval {reference[m]: .12f}")
        reference = {m: v[0] for m, v in theirs[name]["average"].items()}
        same_order = list(ours.metrics) == list(reference)
        diff = max(abs(float(v) - reference[m]) for m, v in zip(ours.metrics, ours.average, strict=True))
        print(f"  average: {len(reference)} metrics, max |diff| {diff:.3g}, same order: {same_order}")
        for m, v in zip(ours.metrics, ours.average, strict=True):
            print(f"      {m:<28} mtsig {float(v):.12f}  mt-metrics-eval {reference[m]:.12f}")
    print("\nmax |diff| per kind of task:")
    for key, value in worst_kind.items():
        print(f"  {key:<16} {value:.3g}")
    spa_in_mtme_order(args.data, theirs)


def clusters(args: argparse.Namespace) -> None:
    start = time.time()
    theirs = run_mtme(args.mtme_git, args.data, args.mtme_k)
    print(
        f"mt-metrics-eval k={args.mtme_k}: {theirs['cpu']:.0f} CPU s in all, {time.time() - start:.0f} s wall"
    )
    for name in ("wmt23", "wmt24"):
        same_k, _, _, _ = run_mtsig(args.data, name, args.mtme_k, early_stopping="none")
        full, cpu_full, test_sets, scores = run_mtsig(args.data, name, 1000)
        print(f"\n== {name}")
        print(f"{'task':<24} {'mtme CPU s':>10} {'-> k=1000':>10} {'mtsig k=1000':>13} {'ratio':>7}")
        for task, entry in zip(full.tasks, theirs[name]["tasks"], strict=True):
            per_resample = entry["cpu"] / args.mtme_k
            wall = time.process_time()
            mp.run_task(
                task.task,
                full.protocol,
                test_sets,
                scores,
                mp.RunOptions(n_resamples=1000, seed=12345, early_stopping="none"),
            )
            ours = time.process_time() - wall
            print(
                f"{task.task.label:<24} {entry['cpu']:>10.1f} {per_resample * 1000:>10.0f} {ours:>13.2f} "
                f"{per_resample * 1000 / ours:>7.0f}"
            )
        reference = theirs[name]["average"]
        print(
            f"\naverage clusters: metric, mtsig k=1000, mtsig k={args.mtme_k}, mt-metrics-eval k={args.mtme_k}"
        )
        same = dict(zip(same_k.metrics, same_k.ranks.tolist(), strict=True))
        agree_full = agree_same = 0
        for m, rank in zip(full.metrics, full.ranks.tolist(), strict=True):
            agree_full += rank == reference[m][1]
            agree_same += same[m] == reference[m][1]
            print(f"  {m:<28} {rank:>3} {same[m]:>3} {reference[m][1]:>3}")
        print(
            f"  same cluster as mt-metrics-eval: {agree_full}/{len(reference)} (mtsig k=1000), "
            f"{agree_same}/{len(reference)} (mtsig k={args.mtme_k})"
        )
        print(f"  mtsig {name} k=1000 with early stopping: {cpu_full:.1f} CPU s (reading excluded)")


def pvalues(args: argparse.Namespace) -> None:
    """The system-level tasks of WMT23 (pooled accuracy, Pearson per language pair), both tools with k = 1000 and
    mt-metrics-eval's early stopping: every pair's p-value, and the tasks' clusters."""
    theirs = run_mtme(args.mtme_git, args.data, 1000, PVALUE_DRIVER)
    protocol = mp.wmt23()
    test_sets, scores = read_inputs(args.data, protocol)
    for task, entry in zip([t for t in protocol.tasks if t.level == "sys"], theirs, strict=True):
        start = time.process_time()
        ours = mp.run_task(task, protocol, test_sets, scores, mp.RunOptions(n_resamples=1000, seed=12345))
        cpu = time.process_time() - start
        names = [ours.metrics[m] for m in ours.order]
        assert names == entry["metrics"], (names, entry["metrics"])
        sig_ours = ours.significance
        sig_theirs = np.asarray(entry["matrix"])
        i, j = np.triu_indices(len(names), k=1)
        n = len(names)
        used_matrix = np.zeros((n, n), dtype=np.int64)  # n_used by position in the ranking
        position = np.empty(n, dtype=np.int64)
        position[np.asarray(ours.order)] = np.arange(n)
        pa, pb = position[ours.test.a], position[ours.test.b]
        used_matrix[np.minimum(pa, pb), np.maximum(pa, pb)] = ours.test.n_used
        used_ours = used_matrix[i, j]
        used_theirs = np.asarray(entry["n_used"])
        decide = (sig_ours[i, j] <= 0.05) == (sig_theirs[i, j] <= 0.05)
        full = (used_ours == 1000) & (used_theirs == 1000)
        pooled = (sig_ours[i, j] + sig_theirs[i, j]) / 2
        error = np.sqrt(2 * pooled * (1 - pooled) / 1000)
        with np.errstate(invalid="ignore", divide="ignore"):
            z = np.abs(sig_ours[i, j] - sig_theirs[i, j]) / error
        ranks_theirs = assign_ranks(sig_theirs)
        ranks_ours = assign_ranks(sig_ours)
        print(
            f"{task.label} ({','.join(task.lps)}): {len(i)} pairs; p <= 0.05 decided alike in {decide.sum()}; "
            f"{full.sum()} pairs ran 1000 resamples in both, |p difference| max {np.abs(sig_ours - sig_theirs)[i, j][full].max():.3f}"
            f" = {np.nanmax(z[full]):.1f} Monte Carlo errors (median {np.nanmedian(z[full]):.2f}); clusters "
            f"{max(ranks_ours)} (mtsig) and {max(ranks_theirs)} (mt-metrics-eval), the same for "
            f"{int((ranks_ours == ranks_theirs).sum())}/{len(names)} metrics; CPU s mtsig {cpu:.2f}, "
            f"mt-metrics-eval {entry['cpu']:.0f}"
        )


EXTRAS_DRIVER = r"""
import json, resource, sys, time, types
for name in ("apache_beam", "dacite"):
    sys.modules[name] = types.ModuleType(name)
source, root, k, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
sys.path.insert(0, source)
import numpy as np
from mt_metrics_eval import data, tasks

lps = ["en-de", "he-en", "zh-en"]
evs = {("wmt23", lp): data.EvalSet("wmt23", lp, True, path=root) for lp in lps}
result = {"pdp": {}, "wmt25": []}
for lp in lps:  # PDP as a task: Pearson(average_by='item', pdp=True), WMT23's segment-level selection
    task = tasks.Task("wmt23", lp, level="seg", corr_fcn="pearson", human=lp == "he-en", avg_by="item",
                      corr_fcn_args={"pdp": True}, k=0)
    start = time.process_time()
    run = task.Run(evs)
    result["pdp"][lp] = {"cpu": time.process_time() - start,
                         "values": {m: float(v[0]) for m, v in run.corr_ranks.items()}}
    print("PDP", lp, f"{result['pdp'][lp]['cpu']:.1f} s", flush=True)
# WMT25's task set (tasks.WMT25: SPA and acc-t per pair, no human systems, weights 1) on WMT23's data
task_set = tasks.TaskSet()
for lp in lps:
    task_set.Append(tasks.Task("wmt23", lp, level="sys", corr_fcn="pce", human=False, k=0))
    task_set.Append(tasks.Task("wmt23", lp, level="seg", corr_fcn="KendallWithTiesOpt", human=False,
                               avg_by="item", perm_test="pairs", corr_fcn_args={"sample_rate": 1.0}, k=0))
runs = [t.Run(evs) for t in task_set]
for t, run in zip(task_set, runs):
    result["wmt25"].append({"lang": t.lang, "corr_fcn": t.corr_fcn,
                            "values": {m: float(v[0]) for m, v in run.corr_ranks.items()}})
weights = [1 / len(runs)] * len(runs)
result["wmt25_average"] = {m: float(v) for m, v in tasks.TaskSetResults(runs).AverageCorrs(weights).items()}
json.dump(result, open(out, "w"))
"""


def extras(args: argparse.Namespace) -> None:
    """The WMT23 table's extra PDP column and WMT25's task set on WMT23, both tools, k = 0 (mt-metrics-eval: a
    ``tasks.Task`` with ``corr_fcn_args={"pdp": True}``, and the tasks ``tasks.WMT25`` builds, on ``wmt23``)."""
    theirs = run_mtme(args.mtme_git, args.data, 0, EXTRAS_DRIVER)
    protocol = mp.wmt23()
    test_sets, scores = read_inputs(args.data, protocol)
    for task in protocol.extras:
        start = time.process_time()
        ours = mp.run_task(task, protocol, test_sets, scores)
        cpu = time.process_time() - start
        reference = theirs["pdp"][task.lps[0]]
        diffs = [
            abs(float(v) - reference["values"][m]) for m, v in zip(ours.metrics, ours.values, strict=True)
        ]
        print(f"{task.label}: {len(diffs)} metrics (mt-metrics-eval {len(reference['values'])}), max |diff| "
              f"{max(diffs):.3g}; CPU s mtsig {cpu:.3f}, mt-metrics-eval {reference['cpu']:.1f}")  # fmt: skip
        print("    " + ", ".join(f"{m!r}: {reference['values'][m]:.12f}" for m in ours.metrics))
    wmt25 = mp.wmt25(info=mp.WMT23_INFO)
    test_sets, scores = read_inputs(args.data, wmt25)
    ours = mp.run_protocol(wmt25, test_sets, scores)
    for task, entry in zip(ours.tasks, theirs["wmt25"], strict=True):
        diffs = {
            m: abs(float(v) - entry["values"][m]) for m, v in zip(task.metrics, task.values, strict=True)
        }
        worst = max(diffs, key=diffs.get)
        print(
            f"WMT25 on WMT23 {task.task.label}: {len(diffs)} metrics, max |diff| {diffs[worst]:.3g} ({worst})"
        )
        if task.task.statistic == "tie_calibrated" and task.task.lps == ("he-en",):
            print("    " + ", ".join(f"{m!r}: {entry['values'][m]:.12f}" for m in task.metrics))
    reference = theirs["wmt25_average"]
    diff = max(abs(float(v) - reference[m]) for m, v in zip(ours.metrics, ours.average, strict=True))
    print(
        f"WMT25 on WMT23 average: max |diff| {diff:.3g}, same order: {list(ours.metrics) == list(reference)}"
    )
    print("    " + ", ".join(f"{m!r}: {v:.12f}" for m, v in reference.items()))


SPEED_CHILD = r"""
import resource, sys, time
start = time.time()
from mtsig.io.mtme import read_requested_scores, read_test_set
from mtsig.studies import metrics_protocol as mp
root, name, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
protocol = mp.PROTOCOLS[name]()
test_sets = {lp: read_test_set(root + "/wmt23", lp) for lp in protocol.lps}
scores = read_requested_scores(test_sets, mp.required_scores(protocol, test_sets))
read = time.time() - start
result = mp.run_protocol(protocol, test_sets, scores, mp.RunOptions(n_resamples=k, seed=12345))
usage = resource.getrusage(resource.RUSAGE_SELF)
print(f"{name} k={k}: {usage.ru_utime + usage.ru_stime:.1f} CPU s, {time.time() - start:.1f} s wall "
      f"(reading {read:.1f} s), peak memory {usage.ru_maxrss / 1024:.0f} MB, clusters of the average: "
      f"{max(result.ranks)}")
"""


def speed(args: argparse.Namespace) -> None:
    print(f"load averages: {os.getloadavg()}")
    for name, k in [
        ("wmt23", 0),
        ("wmt23", 100),
        ("wmt23", 200),
        ("wmt23", 1000),
        ("wmt24", 0),
        ("wmt24", 100),
    ]:
        subprocess.run([sys.executable, "-c", SPEED_CHILD, str(args.data), name, str(k)], check=True)
    print(f"load averages: {os.getloadavg()}")


BEFORE_AFTER_CHILD = r"""
import pickle, resource, sys, time
from mtsig.io.mtme import read_requested_scores, read_test_set
from mtsig.studies import metrics_protocol as mp
root, out = sys.argv[1], sys.argv[2]
protocol = mp.wmt24_on_wmt23()
test_sets = {lp: read_test_set(root + "/wmt23", lp) for lp in protocol.lps}
scores = read_requested_scores(test_sets, mp.required_scores(protocol, test_sets))
start = time.process_time()
result = mp.run_protocol(protocol, test_sets, scores, mp.RunOptions(n_resamples=1000, seed=12345))
tested = time.process_time() - start
pickle.dump([(t.task.label, t.test.pvalue, t.test.draws) for t in result.tasks], open(out, "wb"))
usage = resource.getrusage(resource.RUSAGE_SELF)
print(f"{tested:.1f} {usage.ru_utime + usage.ru_stime:.1f}")
"""


def before_after(args: argparse.Namespace) -> None:
    """WMT24 on WMT23 at k=1000, this checkout against ``--before`` (module docstring)."""
    import pickle

    here = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "before"
        old.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(here), "archive", args.before, "src"], check=True, capture_output=True
        )
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive.stdout, check=True)
        sources = {"after": here / "src", f"before ({args.before})": old / "src"}
        seen = {}
        print(f"load averages: {os.getloadavg()}")
        for round_ in range(args.rounds):
            for label, source in sources.items():
                out = Path(tmp) / f"{round_}.pkl"
                env = dict(os.environ, PYTHONPATH=str(source), OPENBLAS_NUM_THREADS="1")
                done = subprocess.run(
                    [sys.executable, "-c", BEFORE_AFTER_CHILD, str(args.data), str(out)],
                    check=True, capture_output=True, text=True, env=env,
                )  # fmt: skip
                tests, process = done.stdout.split()
                print(f"{label}: WMT24 k=1000 tests {tests} CPU s ({process} CPU s with reading and values)")
                seen[label] = pickle.loads(out.read_bytes())
        first, second = seen.values()
        same = all(
            np.array_equal(a[1], b[1])
            and np.array_equal(np.nan_to_num(a[2], nan=-9), np.nan_to_num(b[2], nan=-9))
            for a, b in zip(first, second, strict=True)
        )
        print(f"same p-values and draws in every task: {same}; load averages: {os.getloadavg()}")


SPA_FLOOR_CHILD = r"""
import resource, sys, time
import numpy as np
from mtsig.io.mtme import read_requested_scores, read_test_set
from mtsig.stats.meta_evaluation.metric_permutation import SpaSwaps
from mtsig.studies import metrics_protocol as mp
work = {"multiply-adds": 0, "products s": 0.0, "comparisons": 0, "counting s": 0.0}
swapped, distances = SpaSwaps._swapped, SpaSwaps._distances
def timed_swapped(self, cells, used):
    start = time.process_time()
    out = swapped(self, cells, used)
    work["products s"] += time.process_time() - start
    work["multiply-adds"] += cells.shape[0] * used.size * self.n_systems * self.n_segments * self.n_permutations
    return out
def timed_distances(self, swapped_sums, used, a, b):
    start = time.process_time()
    out = distances(self, swapped_sums, used, a, b)
    work["counting s"] += time.process_time() - start
    work["comparisons"] += swapped_sums.shape[0] * a.size * 2 * self.si.size * self.n_permutations
    return out
SpaSwaps._swapped, SpaSwaps._distances = timed_swapped, timed_distances
root = sys.argv[1]
protocol = mp.wmt24_on_wmt23()
test_sets = {lp: read_test_set(root + "/wmt23", lp) for lp in protocol.lps}
scores = read_requested_scores(test_sets, mp.required_scores(protocol, test_sets))
start = time.process_time()
mp.run_protocol(protocol, test_sets, scores, mp.RunOptions(n_resamples=1000, seed=12345))
tests = time.process_time() - start
rng = np.random.default_rng(0)  # BLAS alone, one chunk of zh-en's shape: 10 resamples x 30 metrics, 1177 segments
rows = rng.integers(-2**44, 2**44, size=(300, 1177)).astype(np.float64)
flips = (rng.random((1177, 1000)) < 0.5).astype(np.float64)
rows @ flips
start = time.process_time()
for _ in range(20):
    rows @ flips
rate = 20 * rows.size * flips.shape[1] / (time.process_time() - start)
usage = resource.getrusage(resource.RUSAGE_SELF)
print(f"WMT24 on WMT23, k=1000: {usage.ru_utime + usage.ru_stime:.1f} CPU s in all, the tests {tests:.1f}")
print(f"products: {work['multiply-adds']:.3g} exact multiply-adds in {work['products s']:.1f} CPU s "
      f"({work['multiply-adds'] / work['products s'] / 1e9:.1f} G/s)")
print(f"counting: {work['comparisons']:.3g} comparisons in {work['counting s']:.1f} CPU s "
      f"({work['comparisons'] / work['counting s'] / 1e9:.1f} G/s, hybrid sums included)")
print(f"BLAS float64 product alone, one thread: {rate / 1e9:.1f} G multiply-adds/s; "
      f"the products at that rate: {work['multiply-adds'] / rate:.1f} CPU s")
"""


def spa_floor(args: argparse.Namespace) -> None:
    """WMT24 on WMT23 at k=1000: the work of SPA's significance and its floor (module docstring)."""
    print(f"load averages: {os.getloadavg()}")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    subprocess.run([sys.executable, "-c", SPA_FLOOR_CHILD, str(args.data)], check=True, env=env)
    print(f"load averages: {os.getloadavg()}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "part", choices=("values", "clusters", "pvalues", "speed", "extras", "before_after", "spa_floor")
    )
    parser.add_argument(
        "--mtme-git", default=MTME_GIT, help="bare git dir of google-research/mt-metrics-eval"
    )
    parser.add_argument(
        "--mtme-k", type=int, default=10, help="mt-metrics-eval's resamples per task (clusters)"
    )
    parser.add_argument("--verbose", action="store_true", help="every metric's value in every task (values)")
    parser.add_argument(
        "--before",
        default="1076e3f",
        help="the commit to compare with (before_after; default: before SPA's rework)",
    )
    parser.add_argument("--rounds", type=int, default=1, help="alternations of the two (before_after)")
    args = parser.parse_args()
    args.data = Path(os.environ.get("MTSIG_DATA", "../shared/data")).resolve()
    parts = {
        "values": values,
        "clusters": clusters,
        "pvalues": pvalues,
        "speed": speed,
        "extras": extras,
        "before_after": before_after,
        "spa_floor": spa_floor,
    }
    parts[args.part](args)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(f"this process: {usage.ru_utime + usage.ru_stime:.1f} CPU s")


if __name__ == "__main__":
    main()
