"""One function per pipeline step: read the step's input files, call the library, write the step's outputs.

The Snakemake scripts in ``workflow/scripts/`` only translate the ``snakemake`` object into these calls, so every
step can also be run (and tested) from Python without Snakemake.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mtsig import config as mtsig_config
from mtsig.errors import InputError
from mtsig.io.documents import read_documents
from mtsig.io.text import load_texts, read_lines
from mtsig.seeding import derive_seed
from mtsig.workflow import (
    load_arrays,
    load_stats,
    metric_name_of,
    read_tsv,
    save_arrays,
    save_stats,
    write_text,
    write_tsv,
)

log = logging.getLogger("mtsig")


# --- texts ------------------------------------------------------------------------------------------------------


def prepare_experiment_texts(
    spec: Mapping[str, Any], data_root: Path, *, texts_dir: Path, documents_path: Path
) -> None:
    """Validate and prepare an experiment's texts: ``texts/reference.txt``, ``texts/systems/<name>.txt`` (HTML
    entities unescaped if ``unescape_html``), ``texts/systems.txt`` (the system order) and ``documents.tsv``
    (segment, doc_id; empty doc ids when the experiment names no document file)."""
    reference, outputs = load_texts(
        mtsig_config.data_path(data_root, spec["reference"]),
        mtsig_config.output_paths(spec, data_root),
        unescape=bool(spec.get("unescape_html", False)),
    )
    n_segments = len(reference)
    if "documents" in spec:
        documents = spec["documents"]
        doc_ids = read_documents(mtsig_config.data_path(data_root, documents["path"]), documents["format"], n_segments)
    else:
        doc_ids = np.full(n_segments, "", dtype=object)
    write_text("".join(line + "\n" for line in reference), texts_dir / "reference.txt")
    for name, lines in outputs.items():
        write_text("".join(line + "\n" for line in lines), texts_dir / "systems" / f"{name}.txt")
    write_text("".join(name + "\n" for name in outputs), texts_dir / "systems.txt")
    write_tsv(pd.DataFrame({"segment": np.arange(n_segments), "doc_id": doc_ids}), documents_path)
    log.info("%d systems x %d segments; %d documents", len(outputs), n_segments, len(set(doc_ids)))


def read_prepared_texts(texts_dir: Path) -> tuple[list[str], dict[str, list[str]]]:
    """The reference and the system outputs written by :func:`prepare_experiment_texts`, in system order."""
    reference = read_lines(texts_dir / "reference.txt")
    names = read_lines(texts_dir / "systems.txt")
    return reference, {name: read_lines(texts_dir / "systems" / f"{name}.txt") for name in names}


def read_segment_documents(path: str | Path) -> np.ndarray | None:
    """Document id per segment, or None when the experiment has none."""
    doc_ids = read_tsv(path)["doc_id"].fillna("").astype(str).to_numpy()
    return None if (doc_ids == "").all() else doc_ids


# --- metrics ----------------------------------------------------------------------------------------------------


def metric_options(spec: Mapping[str, Any], metric: str) -> dict[str, Any]:
    """Options of a metric from the experiment's config (METEOR: language and modules)."""
    if metric == "meteor":
        meteor = dict(spec.get("meteor", {}))
        return {k: v for k, v in meteor.items() if k in ("language", "modules")}
    return {}


def compute_metric_stats(
    spec: Mapping[str, Any], metric: str, texts_dir: Path, stats_path: Path, *, processes: int = 1
) -> None:
    """Per-segment sufficient statistics of ``metric`` for every system (systems x segments x k)."""
    from mtsig.metrics import get_metric

    reference, outputs = read_prepared_texts(texts_dir)
    scorer = get_metric(metric, **metric_options(spec, metric))
    stats = scorer.stats_many(outputs, reference, processes=processes)
    save_stats(stats_path, stats, list(outputs), scorer.details())
    log.info("%s: stats %s; %s", metric, stats.shape, scorer.details())


def corpus_scores_table(stats_paths: Sequence[str | Path]) -> pd.DataFrame:
    """system, metric, score, details: each system's corpus score from its summed statistics."""
    from mtsig.metrics import get_metric

    rows = []
    for path in stats_paths:
        metric = metric_name_of(path)
        stats, systems, details = load_stats(path)
        scores = get_metric(metric).score(stats.sum(axis=1))
        rows += [(system, metric, float(score), details) for system, score in zip(systems, scores, strict=True)]
    return pd.DataFrame(rows, columns=["system", "metric", "score", "details"])


# --- randomized tests -------------------------------------------------------------------------------------------


def unordered_pairs(n_systems: int) -> list[tuple[int, int]]:
    """All unordered pairs (i < j) in system order: the canonical pair order of every table."""
    return [(i, j) for i in range(n_systems) for j in range(i + 1, n_systems)]


def shard_pairs(n_systems: int, shard: int, n_shards: int) -> list[tuple[int, int]]:
    """The pairs of one shard: contiguous blocks of the canonical order (shards differ by at most one pair)."""
    pairs = unordered_pairs(n_systems)
    bounds = np.linspace(0, len(pairs), n_shards + 1).round().astype(int)
    return pairs[bounds[shard] : bounds[shard + 1]]


def distribution_pairs(
    selection_scores: np.ndarray, systems: Sequence[str], requested: str | Sequence[Sequence[str]]
) -> list[tuple[str, str]]:
    """Pairs whose pseudo-statistics are kept for the figures (paper Figs. 5-6).

    ``"auto"``: the two systems closest in the selection metric (BLEU; the paper's Fig. 5 shows "a typical pair of
    systems with close BLEU scores") and one clearly different pair, the pair whose score gap is the 75th
    percentile of all gaps. Each pair is oriented with the higher-scoring system first.
    """
    if requested != "auto":
        unknown = sorted({s for pair in requested for s in pair} - set(systems))
        if unknown:
            raise InputError(f"distribution_pairs names unknown systems: {', '.join(unknown)}")
        return [(str(x), str(y)) for x, y in requested]
    pairs = unordered_pairs(len(systems))
    gaps = np.array([abs(selection_scores[i] - selection_scores[j]) for i, j in pairs])
    closest = pairs[int(np.argmin(gaps))]
    target = np.quantile(gaps, 0.75)
    different = pairs[int(np.argmin(np.abs(gaps - target)))]
    chosen = []
    for i, j in dict.fromkeys([closest, different]):
        hi, lo = (i, j) if selection_scores[i] >= selection_scores[j] else (j, i)
        chosen.append((systems[hi], systems[lo]))
    return chosen


def samples_per_test(resampling: Mapping[str, Any], tests: Sequence[str]) -> dict[str, int]:
    samples = resampling.get("samples", 10_000)
    if isinstance(samples, Mapping):
        return {t: int(samples.get(t, 10_000)) for t in tests}
    return {t: int(samples) for t in tests}


def run_resampling_shard(
    *,
    stats_path: str | Path,
    selection_stats_path: str | Path,
    documents_path: str | Path,
    experiment: str,
    metric: str,
    shard: int,
    n_shards: int,
    tests: Sequence[str],
    resampling: Mapping[str, Any],
    tests_path: str | Path,
    distributions_path: str | Path,
) -> None:
    """Every configured test for one shard of the pairs of one (experiment, metric).

    The seed is derived from the config seed and (experiment, metric), so each metric's draws are independent
    and the same whatever the sharding (the engine's draws do not depend on which pairs are computed).
    """
    from mtsig.metrics import get_metric
    from mtsig.resampling import pairwise_tests

    stats, systems, _ = load_stats(stats_path)
    scorer = get_metric(metric)
    selection_stats, selection_systems, _ = load_stats(selection_stats_path)
    selection_scores = get_metric(metric_name_of(selection_stats_path)).score(selection_stats.sum(axis=1))
    if metric_name_of(selection_stats_path) == "ter":
        selection_scores = -selection_scores
    keep = distribution_pairs(selection_scores, selection_systems, resampling.get("distribution_pairs", "auto"))
    pairs = shard_pairs(len(systems), shard, n_shards)
    result = pairwise_tests(
        stats,
        scorer.score,
        systems,
        higher_is_better=scorer.higher_is_better,
        tests=list(tests),
        n_samples=samples_per_test(resampling, tests),
        seed=derive_seed(int(resampling["seed"]), experiment, metric),
        pvalue=resampling.get("pvalue", "c/B"),
        memory_cap_bytes=int(resampling.get("memory_cap_mb", 1024)) * 2**20,
        pairs=pairs,
        keep_distributions=keep,
        documents=read_segment_documents(documents_path),
        mean_block_length=float(resampling.get("mean_block_length", 10)),
    )
    write_tsv(result.table, tests_path)
    arrays = {}
    for (x, y), by_test in result.distributions.items():
        for test, values in by_test.items():
            arrays[f"{x}__{y}__{test}"] = np.asarray(values)
    save_arrays(distributions_path, **arrays)
    log.info("%s/%s shard %d/%d: %d pairs, %d rows", experiment, metric, shard, n_shards, len(pairs), len(result.table))


def merge_resampling_shards(
    tests_paths: Sequence[str | Path],
    distributions_paths: Sequence[str | Path],
    *,
    tests_path: str | Path,
    distributions_dir: str | Path,
) -> None:
    """Concatenate the shards in shard order (= the canonical pair order) and split the kept distributions into
    one ``{sys_x}__{sys_y}.npz`` per pair (arrays named by test, plus ``actual``)."""
    table = pd.concat([read_tsv(p) for p in tests_paths], ignore_index=True)
    write_tsv(table, tests_path)
    per_pair: dict[str, dict[str, np.ndarray]] = {}
    for path in distributions_paths:
        for key, values in load_arrays(path).items():
            x, y, test = key.split("__")
            per_pair.setdefault(f"{x}__{y}", {})[test] = values
    out = Path(distributions_dir)
    out.mkdir(parents=True, exist_ok=True)
    for pair, arrays in per_pair.items():
        save_arrays(out / f"{pair}.npz", **arrays)
