"""Segments are not independent: what the documents of a test set do to the WMT23 protocol's permutation tests between
metrics, its bootstrap intervals and its item-level power. Asserts nothing; prints Markdown tables.

    python benchmarks/bench_document_structure.py between     # level of the test "A beats B" for equally good A, B
    python benchmarks/bench_document_structure.py effects     # WMT23: variance of the task values, documents vs items
    python benchmarks/bench_document_structure.py coverage    # coverage of the item bootstrap's 95% intervals

The protocol's permutation tests swap two metrics' scores cell by cell (Pearson, PDP) or pair by pair (acc-t), its
bootstrap intervals draw segments (items) with replacement, and its power study re-draws test sets of segments: each
treats segments as independent. A metric's errors, though, are shared by the segments of a document (WMT23's
XCOMET-Ensemble: about 30% of its error variance in en-de is a document's mean), and so are the humans' scores.

``between``: known truth for the test between metrics. On WMT23's en-de MQM (its 12 systems, 460 rated segments, 190
documents), two metrics equally good by construction, ``A = z(H) + E_A`` and ``B = z(H) + E_B`` with independent
errors of the same law: ``iid`` (one N(0, 1) error per cell) or ``documents`` (N(0, 1) in all, split as
XCOMET-Ensemble's errors split in en-de: 30% a document's, 25% a segment's shared by the systems, 25% a system's in a
document, 20% the cell's). ``--pairs`` such pairs, each tested (A above B, one-sided) with ``--resamples`` resamples
of the protocol's own swaps (``mtsig.stats.meta_evaluation.metric_permutation.permutation_test``: PearsonSwaps,
PdpSwaps swap cells; PairSwaps, the WMT23 acc-t test's, pairs of cells) and with the same sources swapping whole
segments or whole documents; the table gives the share with p <= 0.05
and its exact 95% interval. The protocol's p-value counts the resamples at or above the observed difference without
adding one (mt-metrics-eval's), so an exact test rejects at most about 5.2% at 500 resamples.

``effects``: on WMT23 itself, each task value's bootstrap variance when whole documents are drawn, over its variance
when segments are drawn (the design effect: how much the segments' independence understates the spread), for every
metric and for the difference XCOMET-Ensemble minus MetricX-23 (the pair of the power study).

``coverage``: known truth for the intervals. Test sets drawn from a model of en-de (its systems' MQM means, its
documents' sizes; human scores ``H = system + document + segment + system x document + noise``, variance shares as
WMT23 en-de's MQM, about 1 in all; a metric ``M = H + E``, E split as in ``between``); the value on a test set of 200 times as
many documents stands for the truth. Share of 95% percentile intervals (1000 resamples) that cover it, segments
drawn or documents drawn.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from bench_chance_levels import load  # noqa: E402

from mtsig.stats.evaluation import clopper_pearson  # noqa: E402
from mtsig.stats.meta_evaluation import task_bootstrap as tb  # noqa: E402
from mtsig.stats.meta_evaluation.metric_permutation import PairSwaps, PearsonSwaps, permutation_test  # noqa: E402
from mtsig.stats.meta_evaluation.score_permutation import PdpSwaps  # noqa: E402
from mtsig.stats.meta_evaluation.tie_calibration import calibrate_ties, group_pairs, pair_outcomes  # noqa: E402

#: What a resample swaps between the two metrics: the protocol's units (cells; acc-t: pairs of cells), whole
#: segments (every unit of a segment), whole documents.
SWAPS = ("units", "segments", "documents")

#: XCOMET-Ensemble's errors on WMT23 en-de: shares of a document's, a segment's (shared by the systems), a system's in
#: a document and the cell's (rounded; the system's own, 3%, left out: the systems are fixed).
ERROR_SHARES = {"document": 0.30, "segment": 0.25, "system x document": 0.25, "cell": 0.20}


def errors(model: str, shape: tuple[int, int], docs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``[S, N]`` errors of variance 1: ``iid`` or split as :data:`ERROR_SHARES` (``documents``)."""
    if model == "iid":
        return rng.normal(size=shape)
    n_docs = docs.max() + 1
    parts = {
        "document": rng.normal(size=n_docs)[docs][None, :],
        "segment": rng.normal(size=(1, shape[1])),
        "system x document": rng.normal(size=(shape[0], n_docs))[:, docs],
        "cell": rng.normal(size=shape),
    }
    return sum(np.sqrt(ERROR_SHARES[k]) * v for k, v in parts.items())


def _standardised(h: np.ndarray) -> np.ndarray:
    rated = np.isfinite(h)
    return np.where(rated, (h - np.nanmean(h)) / np.nanstd(h), 0.0)


def _block_masks(unit_blocks: np.ndarray, seed: int):
    """Masks that swap whole blocks (segments or documents): a fair coin per block, the same for all its units."""
    _, blocks = np.unique(unit_blocks, return_inverse=True)
    n_blocks = blocks.max() + 1

    def draw(block: int, size: int) -> np.ndarray:
        bits = np.random.default_rng([seed, block]).integers(0, 2, size=(size, n_blocks)).astype(bool)
        return bits[:, blocks]

    return draw


def between_pvalues(human, docs, metrics, resamples, seed) -> dict[tuple[str, str], float]:
    """p of A (metric 0) beating B (metric 1) in each task, swapping the protocol's units, segments or documents."""
    rated = np.isfinite(human)
    _, cells_n = np.nonzero(rated)
    pdp = PdpSwaps(human, metrics, "item")
    eps = np.array([calibrate_ties(human, m).epsilon for m in metrics])
    pairs = group_pairs(human, "item")
    sources = {  # the source and each unit's segment
        "seg pearson": (PearsonSwaps(human[rated], metrics[:, rated]), cells_n),
        "PDP (item)": (pdp, pdp.groups),
        "acc-t (item)": (PairSwaps(pair_outcomes(human, metrics, eps)), pairs.group),
    }
    out = {}
    for task, (source, unit_items) in sources.items():
        for swap in SWAPS:
            masks = {"units": None, "segments": _block_masks(unit_items, seed),
                     "documents": _block_masks(docs[unit_items], seed)}[swap]  # fmt: skip
            result = permutation_test(
                source, [0, 1], resamples, seed=seed, key=("between", task), draw_masks=masks
            )
            out[(task, swap)] = float(result.pvalue[0])
    return out


def print_between(args: argparse.Namespace) -> None:
    data = load(args.root)["en-de"]
    h = data.human
    z = _standardised(h)
    rows = []
    for model in ("iid", "documents"):
        rng = np.random.default_rng([args.seed, len(model)])
        called: dict[tuple[str, str], int] = {}
        for k in range(args.pairs):
            metrics = np.stack([z + errors(model, h.shape, data.documents, rng) for _ in range(2)])
            for key, p in between_pvalues(h, data.documents, metrics, args.resamples, args.seed + k).items():
                called[key] = called.get(key, 0) + int(p <= 0.05)
        for (task, swap), count in called.items():
            low, high = clopper_pearson(count, args.pairs)
            rows.append({"errors": model, "task": task, "swapped": swap,
                         "called": f"{count / args.pairs:.1%} [{low:.1%}, {high:.1%}]"})  # fmt: skip
    frame = pd.DataFrame(rows).pivot_table(
        index=["task", "swapped"], columns="errors", values="called", aggfunc="first"
    )
    print(
        f"\nA beats B at 5% for equally good A and B, en-de ({args.pairs} pairs, {args.resamples} resamples):\n"
    )
    print(frame.to_markdown())


# --- bootstrap: documents vs segments -----------------------------------------------------------------------------


def unit_features(kind: str, human: np.ndarray, metrics: np.ndarray) -> np.ndarray:
    """Per rated segment (item), the additive sums of a task's statistic: ``[N_rated, F]``."""
    rated = np.isfinite(human).any(axis=0)
    h, x = human[:, rated].T, np.swapaxes(metrics[:, :, rated], 1, 2)  # [U, S], [M, U, S]
    if kind == "seg pearson":
        return tb.pearson_features(h, x)
    if kind == "PDP (item)":
        return tb.pdp_features(h, x)
    raise ValueError(kind)


def item_acc23(human: np.ndarray, metrics: np.ndarray) -> np.ndarray:
    """``[N_rated, M]``: each metric's share of good pairs per rated item at its calibrated epsilon."""
    from mtsig.studies.metrics_protocol.beyond import _item_acc23

    eps = np.array([calibrate_ties(human, m).epsilon for m in metrics])
    return _item_acc23(human, metrics, eps, "item").T


def resampled(kind: str, counts: np.ndarray, features: np.ndarray) -> np.ndarray:
    """``[B, M]`` the task value in each resample (``counts[B, U]`` of the units of ``features[U, F]``)."""
    if kind == "seg pearson":
        return tb.resampled_pearson(counts, features)
    if kind == "PDP (item)":
        return tb.resampled_pdp(counts, features)
    weights, sums = (
        features[:, 0],
        features[:, 1:],
    )  # acc-t: items per unit, then the units' sums of item shares
    return (counts @ sums) / (counts @ weights)[:, None]


def task_units(kind: str, human: np.ndarray, metrics: np.ndarray, docs: np.ndarray, by: str) -> np.ndarray:
    """The per-unit features of a task, the units segments (``items``) or documents (their segments' sums)."""
    rated = np.isfinite(human).any(axis=0)
    if kind == "acc-t (item)":
        features = np.column_stack([np.ones(rated.sum()), item_acc23(human, metrics)])
    else:
        features = unit_features(kind, human, metrics)
    if by == "items":
        return features
    _, doc = np.unique(docs[rated], return_inverse=True)
    summed = np.zeros((doc.max() + 1, features.shape[1]))
    np.add.at(summed, doc, features)
    return summed


def print_effects(args: argparse.Namespace) -> None:
    data = load(args.root)
    rows = []
    for lp, lp_data in data.items():
        names = sorted(lp_data.seg)
        metrics = np.stack([lp_data.seg[n] for n in names])
        pair = [names.index("XCOMET-Ensemble"), names.index("MetricX-23")]
        for kind in ("seg pearson", "PDP (item)", "acc-t (item)"):
            variances = {}
            for by in ("items", "documents"):
                features = task_units(kind, lp_data.human, metrics, lp_data.documents, by)
                counts = tb.draw_counts(np.random.default_rng(args.seed), features.shape[0], args.resamples)
                values = resampled(kind, counts, features)
                variances[by] = (values.var(axis=0), (values[:, pair[0]] - values[:, pair[1]]).var())
            ratio = variances["documents"][0] / variances["items"][0]
            rows.append({"task": f"{lp} {kind}", "documents / items, median over metrics": np.median(ratio),
                         "range": f"{ratio.min():.1f}-{ratio.max():.1f}",
                         "XCOMET-Ensemble - MetricX-23": variances["documents"][1] / variances["items"][1]})  # fmt: skip
    print(
        f"\nBootstrap variance of the task values, documents drawn over segments drawn ({args.resamples} resamples):\n"
    )
    print(pd.DataFrame(rows).to_markdown(index=False, floatfmt=".2f"))


# --- coverage ---------------------------------------------------------------------------------------------------


def synthetic(rng, system_means, sizes, shares, n_copies=1):
    """Human scores and one metric on ``n_copies`` times the documents of ``sizes``: human components with the
    variance ``shares`` of en-de's MQM around fixed system means, the metric H plus errors split as
    :data:`ERROR_SHARES`."""
    all_sizes = np.tile(sizes, n_copies)
    docs = np.repeat(np.arange(all_sizes.size), all_sizes)
    s, n = system_means.size, docs.size
    h = (system_means[:, None] + np.sqrt(shares["doc"]) * rng.normal(size=all_sizes.size)[docs][None]
         + np.sqrt(shares["seg"]) * rng.normal(size=(1, n))
         + np.sqrt(shares["sysdoc"]) * rng.normal(size=(s, all_sizes.size))[:, docs]
         + np.sqrt(shares["resid"]) * rng.normal(size=(s, n)))  # fmt: skip
    metric = h + errors(
        "documents", (s, n), docs, rng
    )  # a fixed scale: the human scores' variance is about 1
    return h, metric[None], docs


def print_coverage(args: argparse.Namespace) -> None:
    data = load(args.root)["en-de"]
    rated = np.isfinite(data.human).any(axis=0)
    h = data.human[:, rated]
    _, sizes = np.unique(data.documents[rated], return_counts=True)
    total = h.var()
    system_means = (h.mean(axis=1) - h.mean()) / np.sqrt(total)
    shares = {
        "doc": 0.42,
        "seg": 0.16,
        "sysdoc": 0.25,
        "resid": 0.11,
    }  # en-de MQM, the system share in the means
    rng = np.random.default_rng(args.seed)
    truth = {}
    big_h, big_m, big_docs = synthetic(rng, system_means, sizes, shares, n_copies=200)
    for kind in ("seg pearson", "PDP (item)"):
        truth[kind] = float(
            resampled(kind, np.ones((1, big_docs.size)), unit_features(kind, big_h, big_m))[0, 0]
        )
    covered = {(kind, by): 0 for kind in truth for by in ("items", "documents")}
    for _ in range(args.pairs):
        small_h, small_m, docs = synthetic(rng, system_means, sizes, shares)
        for kind in truth:
            for by in ("items", "documents"):
                features = task_units(kind, small_h, small_m, docs, by)
                counts = tb.draw_counts(rng, features.shape[0], args.resamples)
                low, high, _ = tb.percentile_intervals(resampled(kind, counts, features), 0.95)
                covered[(kind, by)] += int(low[0] <= truth[kind] <= high[0])
    rows = []
    for (kind, by), count in covered.items():
        low, high = clopper_pearson(count, args.pairs)
        rows.append({"task": kind, "drawn": by, "truth": truth[kind],
                     "coverage": f"{count / args.pairs:.1%} [{low:.1%}, {high:.1%}]"})  # fmt: skip
    print(
        f"\nCoverage of 95% percentile intervals ({args.pairs} test sets, {args.resamples} resamples each):\n"
    )
    print(pd.DataFrame(rows).to_markdown(index=False, floatfmt=".3f"))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("part", choices=("between", "effects", "coverage"))
    parser.add_argument(
        "--root", type=Path, default=Path(os.environ.get("MTSIG_DATA", "../shared/data")) / "wmt23"
    )
    parser.add_argument("--pairs", type=int, default=300, help="metric pairs or test sets (default 300)")
    parser.add_argument("--resamples", type=int, default=500, help="resamples per test (default 500)")
    parser.add_argument("--seed", type=int, default=20232)
    args = parser.parse_args(argv)
    print(f"load averages {os.getloadavg()}")
    {"between": print_between, "effects": print_effects, "coverage": print_coverage}[args.part](args)


if __name__ == "__main__":
    main()
