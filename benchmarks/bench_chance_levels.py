"""Known truth for the chance levels of the WMT23/24 metrics-task statistics (mtsig.stats.meta_evaluation.chance).
Asserts nothing; prints Markdown tables.

    python benchmarks/bench_chance_levels.py levels      # share of random metrics called above chance, per null
    python benchmarks/bench_chance_levels.py verdicts    # the real metrics' p-values under each null
    python benchmarks/bench_chance_levels.py cost        # CPU of the protocol's chance levels at 200, 500, 1000 draws
    python benchmarks/bench_chance_levels.py digest      # SHA-256 of the default run's chance draws, task by task

``levels`` draws random metrics on WMT23's real cells (en-de, he-en, zh-en: its systems, its MQM-rated segments, its
documents and domains; every cell of the test set gets a score, as a real metric's file has) from generating models
that know nothing about the translations, and none of which is a null's own permutation:

- A: a N(0, 2.9²) offset per system plus N(0, 2.0²) noise per cell (the spread of Random-sysname's system means and
  of its scores around them on WMT23);
- B: a N(0, 2²) offset per document shared by the systems, a N(0, 2²) offset per system and document, N(0, 2²) noise;
- C: Random-sysname's own fitted structure: each system's offset drawn from Random-sysname's rounded system means of
  the language pair, each cell's deviation from its deviations around them (integers: its ties);
- D: a N(0, 2²) offset per segment shared by the systems, plus N(0, 2²) noise;
- E: a N(0, 2.9²) offset per domain (news, social, ...), plus N(0, 2²) noise.

Each random metric is tested against its own ``--draws`` draws of each null, as the protocol tests a metric: p = (1 +
#{draws >= value}) / (1 + B); the table gives the share with p <= 0.05 and its exact (Clopper-Pearson) 95% interval,
which assumes independent tests: with ``--batch`` above 1 that many metrics share their draws, and the interval is
too narrow. The cells-permuted null is applied to the first ``--cells-metrics`` metrics, SPA to the first
``--spa-metrics``. The nulls: ``cells`` (C0, the
statistic's cells permuted within its groups: every rated cell, or an item's); ``sys x doc`` (C1, the systems
relabelled and the segments of each document reordered, the same for every system); ``+ docs`` (C2, C1 with
documents of the same domain and the same number of rated segments exchanged too); ``+ docs, any domain`` (C2 across
domains); ``+ doc means`` (C3, C1 with the metric's document means, over all its cells of a document, permuted among
all documents: its values change); ``systems`` (system-level statistics: the systems relabelled). An exact test
calls at most 5% of them above chance.

``verdicts`` gives every real metric's p-value in every task (``--draws`` draws of its own per null) and lists
the verdicts (p <= 0.05) that differ from the reference run's ``chance_p`` (the metrics' draws pooled, cells
permuted) given with ``--base`` (a ``tasks.tsv``).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from mtsig.io.mtme import read_requested_scores, read_test_set
from mtsig.stats.evaluation import clopper_pearson
from mtsig.stats.meta_evaluation import chance as ch
from mtsig.stats.meta_evaluation.grouped_correlation import CorrelationOptions, grouped_correlation
from mtsig.stats.meta_evaluation.pooled_accuracy import pooled_pairwise_accuracy
from mtsig.stats.meta_evaluation.soft_pairwise_accuracy import pce_flips, permutation_counts, spa_from_counts
from mtsig.stats.meta_evaluation.tie_calibration import calibrate_ties_many
from mtsig.studies import metrics_protocol as mp

LPS = ("en-de", "he-en", "zh-en")
RANDOM = "Random-sysname[noref]"
MODELS = ("A", "B", "C", "D", "E")


@dataclass(frozen=True)
class LpData:
    """One language pair of WMT23: MQM ``human[S, N]`` (NaN: not rated) and system scores ``human_sys[S]``,
    ``documents[N]``, ``domains[N]`` (integer labels), the real metrics' segment and system scores by name."""

    lp: str
    systems: tuple[str, ...]
    human: np.ndarray
    human_sys: np.ndarray
    documents: np.ndarray
    domains: np.ndarray
    seg: dict[str, np.ndarray]
    sys: dict[str, np.ndarray]


def load(root: Path) -> dict[str, LpData]:
    """WMT23's three language pairs as the WMT23 protocol reads them (its acc-t and sys Pearson tasks' inputs)."""
    protocol = mp.wmt23()
    test_sets = {lp: read_test_set(root, lp) for lp in LPS}
    scores = read_requested_scores(test_sets, mp.required_scores(protocol, test_sets))
    inputs = mp.ProtocolInputs(protocol, test_sets, scores)
    out = {}
    for lp in LPS:
        seg_task = next(t for t in protocol.tasks if t.lps == (lp,) and t.statistic == "tie_calibrated")
        sys_task = next(t for t in protocol.tasks if t.lps == (lp,) and t.level == "sys")
        systems, human, seg = mp.task_inputs(seg_task, lp, inputs)
        sys_systems, human_sys, sys = mp.task_inputs(sys_task, lp, inputs)
        assert systems == sys_systems
        _, documents = np.unique(np.asarray(test_sets[lp].segment_documents), return_inverse=True)
        _, domains = np.unique(np.asarray(test_sets[lp].segment_domains), return_inverse=True)
        out[lp] = LpData(
            lp, systems, human, human_sys[:, 0], documents, domains, seg, {k: v[:, 0] for k, v in sys.items()}
        )
    return out


# --- generating models -----------------------------------------------------------------------------------------


def random_metrics(model: str, data: LpData, n: int, rng: np.random.Generator) -> np.ndarray:
    """``[n, S, N]``: ``n`` random metrics of generating model ``model`` (module docstring) on every cell."""
    s, m = data.human.shape
    noise = rng.normal(0.0, 2.0, size=(n, s, m))
    if model == "A":
        return noise + rng.normal(0.0, 2.9, size=(n, s, 1))
    if model == "B":
        n_docs = data.documents.max() + 1
        shared = rng.normal(0.0, 2.0, size=(n, 1, n_docs))
        per_system = rng.normal(0.0, 2.0, size=(n, s, n_docs))
        return noise + (shared + per_system)[:, :, data.documents]
    if model == "C":
        real = data.seg[RANDOM]
        offsets = np.round(real.mean(axis=1))
        deviations = (real - offsets[:, None]).ravel()
        drawn = rng.choice(offsets, size=(n, s, 1), replace=True)
        return drawn + rng.choice(deviations, size=(n, s, m), replace=True)
    if model == "D":
        return noise + rng.normal(0.0, 2.0, size=(n, 1, m))
    if model == "E":
        return noise + rng.normal(0.0, 2.9, size=(n, 1, data.domains.max() + 1))[:, :, data.domains]
    raise ValueError(model)


# --- nulls -----------------------------------------------------------------------------------------------------


def cells_within(
    rng: np.random.Generator, rated: np.ndarray, grouping: str, n_draws: int
) -> ch.ExplicitRelabelling:
    """C0: the rated cells permuted within the statistic's groups (every rated cell, or an item's), independently
    in every draw."""
    s, n = rated.shape
    source = np.broadcast_to(np.arange(s * n), (n_draws, s * n)).copy()
    if grouping == "none":
        cells = np.flatnonzero(rated)
        source[:, cells] = rng.permuted(np.broadcast_to(cells, (n_draws, cells.size)), axis=1)
        return ch.ExplicitRelabelling(source)
    items = np.flatnonzero(rated.all(axis=0))  # WMT23's MQM: an item is rated for every system or for none
    assert rated[:, items].all() and not rated[:, np.setdiff1d(np.arange(n), items)].any()
    by_item = source.reshape(n_draws, s, n)[:, :, items].transpose(0, 2, 1)  # [B, K, S]
    shuffled = rng.permuted(by_item, axis=2).transpose(0, 2, 1)
    source.reshape(n_draws, s, n)[:, :, items] = shuffled
    return ch.ExplicitRelabelling(source)


def systems_and_segments(
    rng: np.random.Generator, rated: np.ndarray, documents: np.ndarray, n_draws: int
) -> ch.SystemSegmentRelabelling:
    """C1: the systems relabelled and the segments of each document reordered (the same for every system), no
    document exchanged."""
    row_class, col_class, _ = ch.exchangeable_classes(rated, documents)
    rows = ch.permutations_within(rng.random((n_draws, row_class.size)), row_class)
    return ch.SystemSegmentRelabelling(
        rows, ch.permutations_within(rng.random((n_draws, col_class.size)), col_class)
    )


def pearson_document_means(
    human: np.ndarray, metrics: np.ndarray, relabelling: ch.SystemSegmentRelabelling, documents: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:  # fmt: skip
    """C3 for Pearson without grouping, ``[M, B]``: each metric's document means (over its cells of the document)
    permuted among all documents in each draw (a shift per document, the same for every system), with C1's
    relabelling of the human scores."""
    rated = np.isfinite(human).ravel()
    cells = np.flatnonzero(rated)
    hc = np.where(rated, human.ravel(), 0.0)
    hc[rated] -= hc[rated].mean()
    permuted = hc[relabelling.sources_at(cells, 0, relabelling.n_draws)]  # [B, K]
    _, doc = np.unique(documents, return_inverse=True)
    n_docs = doc.max() + 1
    cell_doc = np.broadcast_to(doc, human.shape).ravel()[cells]
    out = np.empty((metrics.shape[0], relabelling.n_draws))
    for k, metric in enumerate(metrics):
        means = np.bincount(doc, weights=metric.sum(axis=0), minlength=n_docs) / (
            np.bincount(doc, minlength=n_docs) * metric.shape[0]
        )
        moved = means[np.argsort(rng.random((relabelling.n_draws, n_docs)), axis=1)]  # [B, D]
        x = metric.ravel()[cells] + (moved - means)[:, cell_doc]  # [B, K]
        x -= x.mean(axis=1, keepdims=True)
        out[k] = (x * permuted).sum(axis=1) / np.sqrt((x * x).sum(axis=1) * (hc @ hc))
    return out


# --- the statistics --------------------------------------------------------------------------------------------


def seg_task_draws(
    kind: str, data: LpData, metrics: np.ndarray, null: str, n_draws: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``(values[M], draws[M, B])`` of a segment-level task (``seg pearson``, ``acc-t``, ``pdp``) under ``null``."""
    h = data.human
    rated = np.isfinite(h)
    grouping = "none" if kind == "seg pearson" else "item"
    if null == "cells":
        relabelling = cells_within(rng, rated, grouping, n_draws)
    elif null in ("sys x doc", "+ doc means"):
        relabelling = systems_and_segments(rng, rated, data.documents, n_draws)
    else:
        domains = data.domains if null == "+ docs" else None
        relabelling = ch.draw_relabellings(rng, rated, data.documents, n_draws, domains=domains)
    if kind == "seg pearson":
        values = grouped_correlation(h, metrics, CorrelationOptions("pearson", "none"))
        if null == "+ doc means":
            return values, pearson_document_means(h, metrics, relabelling, data.documents, rng)
        return values, ch.chance_pearson(h, metrics, relabelling)
    if kind == "acc-t":
        return calibrate_ties_many(h, metrics).values, ch.chance_tie_calibrated(h, metrics, relabelling)
    return grouped_correlation(h, metrics, CorrelationOptions("pearson", "item", pdp=True)), ch.chance_pdp(
        h, metrics, "item", relabelling
    )


def spa_draws(
    data: LpData, metrics: np.ndarray, n_draws: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``(values[M], draws[M, B])`` of SPA over the rated segments, the systems relabelled."""
    rated = np.isfinite(data.human).all(axis=0)
    flips = pce_flips(int(rated.sum()))
    human_counts = permutation_counts(data.human[:, rated], flips)
    upper = permutation_counts(metrics[:, :, rated], flips)
    lower = permutation_counts(-metrics[:, :, rated], flips)
    values = spa_from_counts(human_counts, upper, flips.shape[0])
    rows = ch.draw_relabellings(rng, np.ones((len(data.systems), 1), bool), np.zeros(1), n_draws).rows
    counts = ch.full_counts(upper, lower, len(data.systems))
    return values, ch.chance_spa(human_counts, counts, flips.shape[0], rows)


def system_rows(rng: np.random.Generator, n_systems: int, n_draws: int) -> np.ndarray:
    return ch.draw_relabellings(rng, np.ones((n_systems, 1), bool), np.zeros(1), n_draws).rows


SEG_NULLS = {
    "seg pearson": ("cells", "sys x doc", "+ docs", "+ docs, any domain", "+ doc means"),
    "acc-t": ("cells", "sys x doc", "+ docs"),
    "pdp": ("cells", "sys x doc", "+ docs"),
}


def level_rows(data: dict[str, LpData], model: str, args: argparse.Namespace) -> list[dict[str, object]]:
    """The share called above chance at 0.05 per task and null for ``n_metrics`` random metrics of ``model``."""
    called: dict[tuple[str, str], list[bool]] = {}
    rng = np.random.default_rng([args.seed, MODELS.index(model)])
    n_metrics, n_draws, batch = args.metrics, args.draws, args.batch
    kinds = args.kinds.split(",")

    def record(task: str, null: str, values: np.ndarray, draws: np.ndarray) -> None:
        called.setdefault((task, null), []).extend((ch.chance_pvalues(values, draws) <= 0.05).tolist())

    for start in range(0, n_metrics, batch):
        size = min(batch, n_metrics - start)
        system_scores = {}
        for lp, lp_data in data.items():
            metrics = random_metrics(model, lp_data, size, rng)
            system_scores[lp] = metrics.mean(axis=2)
            for kind, nulls in SEG_NULLS.items():
                for null in nulls if kind in kinds else ():
                    if null == "cells" and start >= args.cells_metrics:
                        continue
                    record(f"{lp} {kind}", null, *seg_task_draws(kind, lp_data, metrics, null, n_draws, rng))
            if "systems" not in kinds:
                continue
            sys_h = lp_data.human_sys[:, None]
            rows = system_rows(rng, len(lp_data.systems), n_draws)
            relabelling = ch.SystemSegmentRelabelling(rows, np.zeros((n_draws, 1), dtype=np.int64))
            values = grouped_correlation(
                sys_h, system_scores[lp][:, :, None], CorrelationOptions("pearson", "none")
            )
            record(
                f"{lp} sys pearson",
                "systems",
                values,
                ch.chance_pearson(sys_h, system_scores[lp][:, :, None], relabelling),
            )
            if start < args.spa_metrics:
                record(f"{lp} SPA", "systems", *spa_draws(lp_data, metrics, n_draws, rng))
        if "systems" not in kinds:
            continue
        humans = [d.human_sys for d in data.values()]
        values, _ = pooled_pairwise_accuracy(humans, [system_scores[lp] for lp in data])
        rows = [system_rows(rng, len(d.systems), n_draws) for d in data.values()]
        draws = ch.chance_pooled_accuracy(humans, [system_scores[lp] for lp in data], rows)
        record("accuracy", "systems", values, draws)
    out = []
    for (task, null), flags in called.items():
        k, n = int(np.sum(flags)), len(flags)
        low, high = clopper_pearson(k, n)
        out.append(
            {
                "model": model,
                "task": task,
                "null": null,
                "metrics": n,
                "share": k / n,
                "low": low,
                "high": high,
            }
        )
    return out


def print_levels(args: argparse.Namespace) -> None:
    data = {lp: d for lp, d in load(args.root).items() if lp in args.lps.split(",")}
    rows = []
    for model in args.models.split(","):
        start = time.process_time()
        rows += level_rows(data, model, args)
        print(f"model {model}: {time.process_time() - start:.0f} CPU s", flush=True)
    frame = pd.DataFrame(rows)
    frame["cell"] = [
        f"{r.share:.1%} [{r.low:.1%}, {r.high:.1%}]" + (" **" if r.low > 0.05 else "")
        for r in frame.itertuples()
    ]
    table = frame.pivot_table(
        index=["task", "null"], columns="model", values="cell", aggfunc="first", sort=False
    )
    print(
        f"\nShare of random metrics called above chance at 5% (p <= 0.05), {args.draws} draws each, exact 95% "
        "intervals; ** the interval lies above 5%.\n"
    )
    print(table.to_markdown())
    if args.out:
        frame.drop(columns="cell").to_csv(args.out, sep="\t", index=False)


# --- real metrics -----------------------------------------------------------------------------------------------


def verdict_frame(data: dict[str, LpData], n_draws: int, seed: int) -> pd.DataFrame:
    """Every real metric's value and p-value in every segment-level task under each null, and in the system-level
    tasks (systems relabelled)."""
    rows = []
    rng = np.random.default_rng(seed)
    for lp, lp_data in data.items():
        names = sorted(lp_data.seg)
        metrics = np.stack([lp_data.seg[n] for n in names])
        for kind, nulls in SEG_NULLS.items():
            for null in nulls:
                values, draws = seg_task_draws(kind, lp_data, metrics, null, n_draws, rng)
                p = ch.chance_pvalues(values, draws)
                rows += [{"task": f"{lp} {kind}", "null": null, "metric": n, "value": v, "p": q}
                         for n, v, q in zip(names, values, p, strict=True)]  # fmt: skip
    return pd.DataFrame(rows)


def print_verdicts(args: argparse.Namespace) -> None:
    data = load(args.root)
    frame = verdict_frame(data, args.draws, args.seed)
    wide = frame.pivot_table(index=["task", "metric"], columns="null", values="p", sort=False)
    print(f"\nReal metrics: p-value of 'above chance' per null ({args.draws} draws each)\n")
    called = (wide <= 0.05).groupby(level="task", sort=False).sum()
    print("Metrics called above chance at 5%, per task and null:\n")
    print(called.to_markdown())
    verdicts = (wide <= 0.05).where(wide.notna())
    changed = wide[verdicts.nunique(axis=1) > 1]
    print("\nMetrics whose verdict depends on the null:\n")
    print(changed.to_markdown(floatfmt=".3f"))
    if args.base:
        base = pd.read_csv(args.base, sep="\t")
        print("\nReference run (pooled draws, cells permuted) vs. sys x doc, segment-level tasks:")
        for label, group in base.groupby("label", sort=False):
            kind = {"pearson": "seg pearson", "tie_calibrated": "acc-t", "pdp": "pdp"}.get(
                group["statistic"].iloc[0]
            )
            if group["level"].iloc[0] != "seg" or kind is None:
                continue
            task = f"{label.split()[0]} {kind}"
            for metric, p_base in zip(group["metric"], group["chance_p"], strict=True):
                p_new = wide.loc[(task, metric), "sys x doc"] if (task, metric) in wide.index else np.nan
                if (p_base <= 0.05) != (p_new <= 0.05):
                    print(f"  {label}: {metric}: {p_base:.3f} -> {p_new:.3f}")


def protocol_results(root: Path) -> tuple[list[tuple[mp.ProtocolResult, mp.RunOptions]], dict, dict, int]:
    """``(results, test_sets, scores, n_draws)``: the WMT23 and WMT24 protocols on WMT23 as config/wmt23.yaml sets
    them (no permutation test: the chance levels need the task values only), and its chance draws per metric."""
    import yaml

    from mtsig.settings import MetricsProtocol, build
    from mtsig.studies.metrics_protocol import experiment as experiments

    config = Path(__file__).resolve().parents[1] / "config" / "wmt23.yaml"
    block = yaml.safe_load(config.read_text(encoding="utf-8"))["metrics_protocol"]["wmt23"]
    settings = build(MetricsProtocol, block, "metrics_protocol.wmt23")
    protocols = experiments.settings_protocols(settings)
    test_sets = {lp: read_test_set(root, lp) for lp in settings.lps}
    keys = experiments.experiment_score_keys(protocols, test_sets, mp.MetricSelection.of(settings))
    scores = read_requested_scores(test_sets, keys)
    results = []
    for protocol in protocols:
        options = mp.RunOptions.of(settings, protocol.name, 1)
        result = mp.run_protocol(protocol, test_sets, scores, replace(options, n_resamples=0))
        results.append((result, options))
    return results, test_sets, scores, settings.chance.samples


def print_cost(args: argparse.Namespace) -> None:
    from mtsig.studies.metrics_protocol import ProtocolData
    from mtsig.studies.metrics_protocol.chance import protocol_chance

    results, test_sets, scores, _ = protocol_results(args.root)
    for n_draws in (200, 500, 1000):
        start = time.process_time()
        cache: dict = {}
        for result, options in results:
            data = ProtocolData(result, test_sets, scores)
            protocol_chance(data, n_draws=n_draws, seed=1, key=("bench",), cache=cache, options=options)
        print(
            f"{n_draws} draws per metric: {time.process_time() - start:.1f} CPU s, load {os.getloadavg()[0]:.1f}"
        )


def print_digest(args: argparse.Namespace) -> None:
    """The SHA-256 of every task's chance draws, as the default run draws them (its seed and experiment key): the
    same lines on every machine (run it under OPENBLAS_CORETYPE=Haswell, Sandybridge, Prescott and compare)."""
    import hashlib

    from mtsig.settings import Resampling
    from mtsig.studies.metrics_protocol import ProtocolData
    from mtsig.studies.metrics_protocol.chance import protocol_chance

    results, test_sets, scores, n_draws = protocol_results(args.root)
    total = hashlib.sha256()
    cache: dict = {}
    for result, options in results:
        data = ProtocolData(result, test_sets, scores)
        chance = protocol_chance(data, n_draws=n_draws, seed=Resampling.seed, key=("wmt23",), cache=cache,
                                 options=options)  # fmt: skip
        for level in (*chance.tasks, *chance.extras, chance.average):
            draws = np.ascontiguousarray(level.draws, dtype=np.float64).tobytes()
            summary = repr((level.mean, level.upper, sorted(level.pvalues.items()))).encode()
            total.update(draws + summary)
            digest = hashlib.sha256(draws + summary).hexdigest()[:16]
            print(f"{result.protocol.name}\t{level.label}\t{digest}\t{level.mean!r}\t{level.upper!r}")
    print(f"every task: {total.hexdigest()}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("part", choices=("levels", "verdicts", "cost", "digest"))
    parser.add_argument(
        "--root", type=Path, default=Path(os.environ.get("MTSIG_DATA", "../shared/data")) / "wmt23"
    )
    parser.add_argument("--metrics", type=int, default=300, help="random metrics per model (default 300)")
    parser.add_argument("--spa-metrics", type=int, default=100, help="of which tested by SPA (default 100)")
    parser.add_argument(
        "--cells-metrics", type=int, default=100, help="of which tested with the cells permuted (default 100)"
    )
    parser.add_argument("--draws", type=int, default=99, help="draws per metric (default 99)")
    parser.add_argument("--batch", type=int, default=1, help="random metrics sharing their draws (default 1)")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument(
        "--lps", default=",".join(LPS), help="levels: the language pairs (default: all three)"
    )
    parser.add_argument(
        "--kinds", default="seg pearson,acc-t,pdp,systems", help="levels: the tasks (default: every kind)"
    )
    parser.add_argument("--seed", type=int, default=20231)
    parser.add_argument("--base", type=Path, help="a reference run's results/wmt23/tasks.tsv (verdicts)")
    parser.add_argument("--out", type=Path, help="levels: the table as TSV")
    args = parser.parse_args(argv)
    parts: dict[str, Callable[[argparse.Namespace], None]] = {
        "levels": print_levels, "verdicts": print_verdicts, "cost": print_cost, "digest": print_digest,
    }  # fmt: skip
    print(f"load averages {os.getloadavg()}")
    parts[args.part](args)


if __name__ == "__main__":
    main()
