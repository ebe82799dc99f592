"""One function per pipeline step: read the step's input files, call the library, write the step's outputs.

The Snakemake scripts in ``workflow/scripts/`` only translate the ``snakemake`` object into these calls, so every
step can also be run (and tested) from Python without Snakemake.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from mtsig import config as mtsig_config
from mtsig.errors import InputError
from mtsig.io.documents import read_documents
from mtsig.io.text import load_texts, read_lines
from mtsig.resampling import PAPER_TESTS
from mtsig.seeding import derive_seed
from mtsig.workflow import (
    MANIFEST_SUFFIX,
    load_intermediate_arrays,
    load_stats,
    metric_name_of,
    read_intermediate_text,
    read_intermediate_tsv,
    regenerate_hint,
    save_intermediate_arrays,
    save_stats,
    verify_intermediate,
    write_text,
    write_tsv,
)

if TYPE_CHECKING:
    from mtsig.metrics.base import Metric

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
        doc_ids = read_documents(
            mtsig_config.data_path(data_root, documents["path"]), documents["format"], n_segments
        )
    else:
        doc_ids = np.full(n_segments, "", dtype=object)
    write_prepared_texts(reference, outputs, texts_dir)
    write_tsv(
        pd.DataFrame({"segment": np.arange(n_segments), "doc_id": doc_ids}),
        documents_path,
        made_by="prepare_texts",
        settings={"segments": n_segments},
    )
    log.info("%d systems x %d segments; %d documents", len(outputs), n_segments, len(set(doc_ids)))


def write_prepared_texts(
    reference: Sequence[str], outputs: Mapping[str, Sequence[str]], texts_dir: Path
) -> None:
    """``texts/reference.txt``, ``texts/systems/<name>.txt`` and ``texts/systems.txt`` (the system order), each an
    intermediate file of rule ``prepare_texts`` with its manifest."""
    settings = {"systems": len(outputs), "segments": len(reference)}

    def write(lines: Sequence[str], path: Path) -> None:
        write_text("".join(line + "\n" for line in lines), path, made_by="prepare_texts", settings=settings)

    write(reference, texts_dir / "reference.txt")
    for name, lines in outputs.items():
        write(lines, texts_dir / "systems" / f"{name}.txt")
    write(list(outputs), texts_dir / "systems.txt")


def read_prepared_texts(texts_dir: Path) -> tuple[list[str], dict[str, list[str]]]:
    """The reference and the system outputs written by :func:`prepare_experiment_texts`, in system order.

    Raises:
        InputError: a file of the directory fails its manifest check, names no or repeated systems, or a system's
            line count differs from the reference's; the message says how to regenerate the directory.
    """
    texts_dir = Path(texts_dir)

    def read(path: Path) -> list[str]:
        verify_intermediate(path, "prepare_texts", target=texts_dir, expected_format="text")
        return read_lines(path)

    reference = read(texts_dir / "reference.txt")
    names = read(texts_dir / "systems.txt")
    hint = regenerate_hint(texts_dir / "systems.txt", "prepare_texts", texts_dir)
    if not names or "" in names or len(set(names)) != len(names):
        raise InputError(
            f"names no systems, an empty one or a repeated one; {hint}", texts_dir / "systems.txt"
        )
    outputs = {name: read(texts_dir / "systems" / f"{name}.txt") for name in names}
    for name, lines in outputs.items():
        if len(lines) != len(reference):
            raise InputError(
                f"{len(lines)} lines where reference.txt has {len(reference)}; {hint}",
                texts_dir / "systems" / f"{name}.txt",
            )
    return reference, outputs


def read_segment_documents(path: str | Path, n_segments: int | None = None) -> np.ndarray | None:
    """Document id per segment (``documents.tsv`` of rule ``prepare_texts``), or None when the experiment has
    none. With ``n_segments`` (the statistics' segment count), a file of another length is an error."""
    table = read_intermediate_tsv(path, "prepare_texts", columns=("segment", "doc_id"))
    if n_segments is not None and len(table) != n_segments:
        raise InputError(
            f"{len(table)} segments where the metric statistics have {n_segments}: one of them is stale; "
            + regenerate_hint(path, "prepare_texts", None),
            path,
        )
    doc_ids = table["doc_id"].fillna("").astype(str).to_numpy()
    return None if (doc_ids == "").all() else doc_ids


# --- metrics ----------------------------------------------------------------------------------------------------


def metric_options(spec: Mapping[str, Any], metric: str) -> dict[str, Any]:
    """Options of a metric from the experiment's config (METEOR: language and modules)."""
    if metric == "meteor":
        meteor = dict(spec.get("meteor", {}))
        return {k: v for k, v in meteor.items() if k == "language"}  # modules follow the language
    return {}


def compute_metric_stats(
    spec: Mapping[str, Any], metric: str, texts_dir: Path, stats_path: Path, *, processes: int = 1
) -> None:
    """Per-segment sufficient statistics of ``metric`` for every system (systems x segments x k)."""
    from mtsig.metrics import get_metric

    reference, outputs = read_prepared_texts(texts_dir)
    scorer = get_metric(metric, **metric_options(spec, metric))
    stats = scorer.stats_many(outputs, reference, processes=processes)
    save_stats(stats_path, stats, list(outputs), scorer.details(), scorer.options)
    log.info("%s: stats %s; %s", metric, stats.shape, scorer.details())


def load_scored_stats(path: str | Path) -> tuple[np.ndarray, list[str], str, Metric]:
    """A statistics file's (stats, system names, details) and the metric that computed them, rebuilt with the
    options recorded in the file: a score function depends on them (METEOR's parameters and module weights
    follow its language), so every step scores statistics with the settings that produced them."""
    from mtsig.metrics import METRICS, get_metric

    stats, systems, details, options = load_stats(path)
    metric = metric_name_of(path)
    if metric not in METRICS:
        raise InputError(f"{metric!r} is not a metric (expected one of {', '.join(METRICS)})", path)
    try:
        scorer = get_metric(metric, **options)
    except (TypeError, ValueError) as error:
        raise InputError(
            f"the recorded options {options} do not fit {metric} ({error}); "
            + regenerate_hint(path, "metric_stats", None),
            path,
        ) from None
    return stats, systems, details, scorer


def _check_same_systems(
    systems: Sequence[str], other: Sequence[str], path: str | Path, other_path: str | Path, made_by: str
) -> None:
    """Two intermediate files of one experiment must list the same systems in the same order."""
    if list(systems) != list(other):
        raise InputError(
            f"systems {list(other)} differ from {list(systems)} in {other_path}: one of them is stale; "
            + regenerate_hint(path, made_by, None),
            path,
        )


def corpus_scores_table(stats_paths: Sequence[str | Path]) -> pd.DataFrame:
    """system, metric, score, details: each system's corpus score from its summed statistics."""
    rows = []
    for path in stats_paths:
        metric = metric_name_of(path)
        stats, systems, details, scorer = load_scored_stats(path)
        scores = scorer.score(stats.sum(axis=1))
        rows += [
            (system, metric, float(score), details) for system, score in zip(systems, scores, strict=True)
        ]
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
    from mtsig.resampling import pairwise_tests

    stats, systems, _, scorer = load_scored_stats(stats_path)
    selection_stats, selection_systems, _, selection_scorer = load_scored_stats(selection_stats_path)
    _check_same_systems(systems, selection_systems, selection_stats_path, stats_path, "metric_stats")
    if selection_stats.shape[1] != stats.shape[1]:
        raise InputError(
            f"{selection_stats.shape[1]} segments where {stats_path} has {stats.shape[1]}; "
            + regenerate_hint(selection_stats_path, "metric_stats", None),
            selection_stats_path,
        )
    documents = read_segment_documents(documents_path, stats.shape[1])
    selection_scores = selection_scorer.score(selection_stats.sum(axis=1))
    if metric_name_of(selection_stats_path) == "ter":
        selection_scores = -selection_scores
    keep = distribution_pairs(
        selection_scores, selection_systems, resampling.get("distribution_pairs", "auto")
    )
    pairs = shard_pairs(len(systems), shard, n_shards)
    index = {name: i for i, name in enumerate(systems)}
    in_shard = set(pairs)
    keep = [(x, y) for x, y in keep if tuple(sorted((index[x], index[y]))) in in_shard]
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
        documents=documents,
        mean_block_length=float(resampling.get("mean_block_length", 10)),
    )
    settings = resampling_settings(experiment, metric, tests, resampling, systems) | {
        "shard": shard,
        "n_shards": n_shards,
    }
    write_tsv(result.table, tests_path, made_by="resample_tests", settings=settings)
    arrays = {}
    for (x, y), by_test in result.distributions.items():
        for test, values in by_test.items():
            arrays[f"{x}__{y}__{test}"] = np.asarray(values)
    save_intermediate_arrays(distributions_path, arrays, made_by="resample_tests", settings=settings)
    log.info(
        "%s/%s shard %d/%d: %d pairs, %d rows",
        experiment,
        metric,
        shard,
        n_shards,
        len(pairs),
        len(result.table),
    )


def resampling_settings(
    experiment: str,
    metric: str,
    tests: Sequence[str],
    resampling: Mapping[str, Any],
    systems: Sequence[str],
) -> dict[str, Any]:
    """What a tests table was made with, recorded in its manifest: merged shards must agree on all of it."""
    return {
        "experiment": experiment,
        "metric": metric,
        "systems": list(systems),
        "tests": list(tests),
        "samples": samples_per_test(resampling, tests),
        "seed": int(resampling["seed"]),
        "pvalue": resampling.get("pvalue", "c/B"),
    }


def merge_resampling_shards(
    tests_paths: Sequence[str | Path],
    distributions_paths: Sequence[str | Path],
    *,
    tests_path: str | Path,
    distributions_dir: str | Path,
) -> None:
    """Concatenate the shards in shard order (= the canonical pair order) and split the kept distributions into
    one ``{sys_x}__{sys_y}.npz`` per pair (arrays named by test, plus ``actual``)."""
    from mtsig.evaluation import TESTS_COLUMNS

    shards = [read_intermediate_tsv(p, "resample_tests", columns=TESTS_COLUMNS) for p in tests_paths]
    common = _check_shard_settings(shards, tests_paths)
    table = pd.concat(shards, ignore_index=True)
    per_pair: dict[str, dict[str, np.ndarray]] = {}
    for index, path in enumerate(distributions_paths):
        arrays = load_intermediate_arrays(path, "resample_tests")
        settings = verify_intermediate(path, "resample_tests")["settings"]
        if settings != shards[index].attrs["settings"]:
            raise InputError(
                f"made with other settings than its tests table {tests_paths[index]}; "
                + regenerate_hint(path, "resample_tests", None),
                path,
            )
        for key, values in arrays.items():
            x, y, test = key.split("__")
            per_pair.setdefault(f"{x}__{y}", {})[test] = values
    write_tsv(table, tests_path, made_by="merge_tests", settings=common)
    out = Path(distributions_dir)
    out.mkdir(parents=True, exist_ok=True)
    for pair, arrays in per_pair.items():
        save_intermediate_arrays(out / f"{pair}.npz", arrays, made_by="merge_tests", settings=common)


def _check_shard_settings(shards: Sequence[pd.DataFrame], paths: Sequence[str | Path]) -> dict[str, Any]:
    """Shard k of n must say so, and every shard must share the other settings (seed, samples, tests, ...):
    a shard left from a run with other settings would otherwise be merged silently."""
    common: dict[str, Any] | None = None
    for index, (frame, path) in enumerate(zip(shards, paths, strict=True)):
        settings = dict(frame.attrs["settings"])
        where = (settings.pop("shard", None), settings.pop("n_shards", None))
        hint = regenerate_hint(path, "resample_tests", None)
        if where != (index, len(paths)):
            raise InputError(
                f"is shard {where[0]} of {where[1]}, expected shard {index} of {len(paths)}; {hint}", path
            )
        if common is None:
            common = settings
        elif settings != common:
            changed = sorted(k for k in set(settings) | set(common) if settings.get(k) != common.get(k))
            raise InputError(f"made with other {', '.join(changed)} than {paths[0]}; {hint}", path)
    return common or {}


# --- human judgments and the gold standard ----------------------------------------------------------------------


def build_human_gold(
    spec: Mapping[str, Any],
    data_root: Path,
    *,
    texts_dir: Path,
    alphas: Sequence[float],
    outputs: Mapping[str, str],
) -> None:
    """Standardised ratings, QC, gold p-values and conclusions, human system scores (paper Sec. 4)."""
    from mtsig.human import build_gold

    reference, systems = read_prepared_texts(texts_dir)
    result = build_gold(
        spec["human"],
        data_root,
        list(systems),
        len(reference),
        alphas,
        qc=spec.get("qc", {}),
        standardise_options=spec.get("standardise", {}),
        gold=spec["gold"],
    )
    for annotator, reason in result["dropped"].itertuples(index=False):
        log.info("dropped annotator %s: %s", annotator, reason)
    for annotator in result["zero_z"]:
        log.info("annotator %s: zero variance, kept with z = 0 (standardise.zero_variance: zero)", annotator)
    settings = {"systems": list(systems), "alphas": [float(a) for a in alphas], "gold": spec["gold"]}
    write_tsv(result["z"], outputs["z"])
    write_tsv(result["qc"], outputs["qc"])
    write_tsv(result["system_scores"], outputs["system_scores"], made_by="human_gold", settings=settings)
    write_tsv(result["gold"], outputs["gold"], made_by="human_gold", settings=settings)
    write_tsv(result["gold_conclusions"], outputs["conclusions"], made_by="human_gold", settings=settings)
    primary = result["gold_conclusions"]
    primary = primary[primary["gold"] == primary["gold"].iloc[0]]
    for alpha in alphas:
        at = primary[primary["alpha"] == alpha]
        log.info(
            "gold %s at %g: %d of %d pairs significant",
            primary["gold"].iloc[0],
            alpha,
            int((at["conclusion"] != "tie").sum()),
            len(at),
        )


def systems_by_human_score(system_scores: pd.DataFrame) -> list[str]:
    """Systems ordered best first by the human score of the first criterion (Fig. 7's order)."""
    first = system_scores[system_scores["criterion"] == system_scores["criterion"].iloc[0]]
    return list(first.sort_values("mean_z", ascending=False, kind="stable")["system"])


# --- evaluation -------------------------------------------------------------------------------------------------


def read_tests_table(path: str | Path) -> pd.DataFrame:
    """A merged tests table (``tests/{metric}.tsv`` of rule ``merge_tests``), checked against its manifest."""
    from mtsig.evaluation import TESTS_COLUMNS

    return read_intermediate_tsv(path, "merge_tests", columns=TESTS_COLUMNS)


def read_gold_table(path: str | Path, columns: Sequence[str] = ()) -> pd.DataFrame:
    """A table of rule ``human_gold`` (gold p-values, gold conclusions, human system scores)."""
    return read_intermediate_tsv(path, "human_gold", columns=tuple(columns))


def _tests_by_metric(tests_paths: Sequence[str | Path]) -> dict[str, pd.DataFrame]:
    return {metric_name_of(p): read_tests_table(p) for p in tests_paths}


def evaluate_experiment(
    *,
    tests_paths: Sequence[str | Path],
    gold_path: str | Path,
    gold_conclusions_path: str | Path,
    alphas: Sequence[float],
    corrections: Sequence[str],
    outputs: Mapping[str, str],
) -> None:
    """Accuracy of every metric x test against every gold (uncorrected, and after each correction applied to the
    tests alone and to tests and gold alike), the chi-square test between metrics, and agreement between tests."""
    from mtsig import evaluation
    from mtsig.evaluation import GOLD_CONCLUSION_COLUMNS, GOLD_PVALUE_COLUMNS

    tests = _tests_by_metric(tests_paths)
    gold_p = read_gold_table(gold_path, GOLD_PVALUE_COLUMNS)
    gold = read_gold_table(gold_conclusions_path, GOLD_CONCLUSION_COLUMNS)
    systems = list(dict.fromkeys([*gold["sys_x"], *gold["sys_y"]]))  # the gold's pairs are in system order
    conclusions = {
        m: evaluation.test_conclusions(t, alphas, systems, source=p)
        for (m, t), p in zip(tests.items(), tests_paths, strict=True)
    }
    frames = [evaluation.accuracy(conclusions, gold).assign(correction="none")]
    for method in corrections:
        corrected = {
            m: evaluation.corrected_test_conclusions(t, method, alphas, systems) for m, t in tests.items()
        }
        corrected_gold = evaluation.corrected_gold_conclusions(gold_p, method, alphas, systems)
        corrected_gold["gold"] = corrected_gold["gold"] + f"+{method}"
        frames.append(evaluation.accuracy(corrected, gold).assign(correction=f"{method} (tests)"))
        frames.append(
            evaluation.accuracy(corrected, corrected_gold).assign(correction=f"{method} (tests and gold)")
        )
    accuracy = pd.concat(frames, ignore_index=True)
    accuracy = accuracy[["correction", *[c for c in accuracy.columns if c != "correction"]]]
    settings = {
        "alphas": [float(a) for a in alphas],
        "corrections": list(corrections),
        "metrics": list(tests),
    }
    write_tsv(accuracy, outputs["accuracy"], made_by="evaluate", settings=settings)
    uncorrected = accuracy[accuracy["correction"] == "none"]
    chi_square = evaluation.metric_chi_square(uncorrected)
    write_tsv(chi_square, outputs["chi_square"], made_by="evaluate", settings=settings)
    write_tsv(
        evaluation.test_agreement(conclusions), outputs["agreement"], made_by="evaluate", settings=settings
    )
    long = pd.concat([c.assign(metric=m) for m, c in conclusions.items()], ignore_index=True)
    write_tsv(long[["metric", *[c for c in long.columns if c != "metric"]]], outputs["conclusions"])


# --- tables -----------------------------------------------------------------------------------------------------


def write_accuracy_tables(
    spec: Mapping[str, Any],
    resampling: Mapping[str, Any],
    *,
    accuracy_path: str | Path,
    chi_square_path: str | Path,
    agreement_path: str | Path,
    outputs: Mapping[str, str],
) -> None:
    """The paper's Tables 1-2 for every gold of the experiment (Markdown with the extra rows, LaTeX, CSV).

    The primary gold (the first configured method) fills the main table; every other gold, the tests beyond the
    paper's three, and the corrected conclusions follow in clearly labelled sections of the Markdown file.
    """
    from mtsig import tables

    accuracy = read_intermediate_tsv(
        accuracy_path, "evaluate", columns=("correction", "gold", "metric", "test")
    )
    chi_square = read_intermediate_tsv(chi_square_path, "evaluate")
    agreement = read_intermediate_tsv(agreement_path, "evaluate")
    uncorrected = accuracy[accuracy["correction"] == "none"]
    golds = list(dict.fromkeys(uncorrected["gold"]))
    metrics = list(spec["metrics"])
    n_systems = len(spec["systems"])
    samples = resampling.get("samples", 10_000)
    seed = int(resampling["seed"])
    description = spec.get("description", spec["name"])
    md, tex, csv = [], [], []
    for index, gold in enumerate(golds):
        caption = tables.accuracy_caption(
            description, gold, n_systems, samples, seed, resampling.get("pvalue", "c/B")
        )
        heading = "Primary gold" if index == 0 else "Second gold"
        md.append(f"## {heading}: {gold}\n")
        md.append(
            tables.accuracy_table_markdown(uncorrected, gold, caption, PAPER_TESTS, metrics, chi_square)
        )
        tex.append(
            tables.accuracy_table_latex(
                uncorrected, gold, caption, f"tab:{spec['name']}:{gold}", PAPER_TESTS, metrics, chi_square
            )
        )
        csv.append(tables.accuracy_table_csv(uncorrected, gold, PAPER_TESTS, metrics) if index == 0 else "")
        extra = [t for t in dict.fromkeys(uncorrected["test"]) if t not in PAPER_TESTS]
        if extra:
            md.append(
                f"\n### Beyond the paper: two-sided tests, R&M as published, block bootstraps ({gold})\n"
            )
            md.append(tables.accuracy_by_test_markdown(uncorrected, gold, caption, extra, metrics))
    for correction in [c for c in dict.fromkeys(accuracy["correction"]) if c != "none"]:
        corrected = accuracy[accuracy["correction"] == correction]
        for gold in dict.fromkeys(corrected["gold"]):
            tests = [t for t in dict.fromkeys(corrected["test"]) if t.split("+")[0] in PAPER_TESTS]
            caption = f"Accuracy after {correction} correction over all pairs, against gold {gold}."
            md.append(f"\n### Multiple comparisons: {correction}, gold {gold}\n")
            md.append(tables.accuracy_by_test_markdown(corrected, gold, caption, tests, metrics))
    md.append("\n## Agreement between the three tests\n")
    md.append(tables.agreement_markdown(agreement))
    write_text(f"# {description}\n\n" + "\n".join(md), outputs["md"], made_by="tables")
    write_text("\n\n".join(tex), outputs["tex"])
    write_text(csv[0], outputs["csv"])


def write_tables_index(
    table_paths: Sequence[str | Path], out_path: str | Path, made_by: Sequence[str] | None = None
) -> None:
    """``results/tables/README.md``: links to every table, then each table inlined. ``made_by``: the rule that
    writes each table (named when a table fails its manifest check); default ``tables``."""
    from mtsig import tables

    out = Path(out_path)
    entries = [(Path(p).stem, Path(p).name) for p in table_paths]
    body = [tables.tables_index_markdown(entries, title="Tables of this run")]
    rules = list(made_by) if made_by is not None else ["tables"] * len(table_paths)
    for path, rule in zip(table_paths, rules, strict=True):
        body.append(f"\n---\n\n<!-- {Path(path).name} -->\n" + read_intermediate_text(path, rule))
    write_text("\n".join(body), out)


# --- figures ----------------------------------------------------------------------------------------------------


def draw_experiment_figures(
    *,
    distributions_dirs: Sequence[str | Path],
    tests_paths: Sequence[str | Path],
    gold_path: str | Path,
    system_scores_path: str | Path,
    tests: Sequence[str],
    alpha: float,
    png_dir: str | Path,
    pdf_dir: str | Path,
) -> None:
    """Figs. 5-6 (pseudo-statistic distributions of the kept pairs), Fig. 7 (human significance heatmaps per
    criterion and combined, for every gold) and Fig. 8 (every metric x test) as PNG and PDF."""
    from mtsig import plots

    png_dir, pdf_dir = Path(png_dir), Path(pdf_dir)
    png_dir.mkdir(parents=True, exist_ok=True)
    pdf_dir.mkdir(parents=True, exist_ok=True)

    def outs(name: str) -> list[Path]:
        return [png_dir / f"{name}.png", pdf_dir / f"{name}.pdf"]

    systems = systems_by_human_score(read_gold_table(system_scores_path, ("system", "criterion", "mean_z")))
    for directory in map(Path, distributions_dirs):
        metric = directory.name
        for manifest in sorted(directory.glob("*.npz" + MANIFEST_SUFFIX)):
            data = manifest.with_name(manifest.name.removesuffix(MANIFEST_SUFFIX))
            if not data.is_file():  # a distribution file deleted since: the directory is incomplete
                raise InputError(
                    "intermediate file is missing; " + regenerate_hint(data, "merge_tests", directory), data
                )
        for path in sorted(directory.glob("*.npz")):
            arrays = load_intermediate_arrays(path, "merge_tests", required=("actual",), target=directory)
            x, y = path.stem.split("__")
            shown = [t for t in PAPER_TESTS if t in arrays]  # Figs. 5-6 show the paper's three tests
            plots.pseudo_statistic_distributions(
                {t: arrays[t] for t in shown},
                float(arrays["actual"]),
                shown,
                f"{metric.upper()}: {x} vs {y}",
                outs(f"distributions_{metric}_{x}__{y}"),
                statistic_label=f"{metric.upper()} difference",
            )
    gold_p = read_gold_table(gold_path, ("gold", "criterion", "sys_x", "sys_y", "p_value"))
    for gold in dict.fromkeys(gold_p["gold"]):
        rows = gold_p[gold_p["gold"] == gold]
        criteria = list(dict.fromkeys(rows["criterion"]))
        matrices = {c: plots.p_matrix_from_gold(rows, systems, alpha, [c]) for c in criteria}
        if len(criteria) > 1:
            matrices["combined"] = plots.p_matrix_from_gold(rows, systems, alpha, criteria)
        plots.significance_heatmap_grid(
            matrices, systems, alpha, f"Human gold ({gold})", outs(f"human_{gold}")
        )
    for path in tests_paths:
        metric = metric_name_of(path)
        table = read_tests_table(path)
        present = [t for t in tests if t in set(table["test"])]
        matrices = {t: plots.p_matrix_from_tests(table, t, systems) for t in present}
        title = "Randomized tests: row system significantly better than column system"
        plots.significance_heatmap_grid(matrices, systems, alpha, title, outs(f"tests_{metric}"), metric)


# --- beyond the paper: calibration by simulation, Section 2 in numbers ------------------------------------------


def _stats_by_metric(stats_paths: Sequence[str | Path]) -> tuple[dict[str, tuple], list[str]]:
    """metric -> (stats, score function, higher_is_better), and the system names (equal across metrics)."""
    by_metric, systems, first = {}, None, None
    for path in stats_paths:
        stats, names, _, scorer = load_scored_stats(path)
        if systems is not None:
            _check_same_systems(systems, names, path, first, "metric_stats")
            n_segments = next(iter(by_metric.values()))[0].shape[1]
            if stats.shape[1] != n_segments:
                raise InputError(
                    f"{stats.shape[1]} segments where {first} has {n_segments}: one of them is stale; "
                    + regenerate_hint(path, "metric_stats", None),
                    path,
                )
        by_metric[metric_name_of(path)] = (stats, scorer.score, scorer.higher_is_better)
        systems, first = names, first or path
    return by_metric, list(systems or [])


def calibration_experiment(
    *,
    stats_paths: Sequence[str | Path],
    gold_conclusions_path: str | Path,
    documents_path: str | Path,
    experiment: str,
    calibration: Mapping[str, Any],
    resampling: Mapping[str, Any],
    tests: Sequence[str],
    outputs: Mapping[str, str],
) -> None:
    """Type I error and power of every test and metric (mtsig.calibration), for each configured swap unit.

    The planted pair is the one the primary gold calls significantly different with the largest BLEU (or first
    metric) difference in the same direction: "X clearly better than Y by human gold and metric".
    """
    from mtsig.calibration import calibration_study, choose_planted_pair, gold_better_pairs
    from mtsig.calibration_plots import plot_calibration
    from mtsig.evaluation import GOLD_CONCLUSION_COLUMNS
    from mtsig.plots import save_figure

    by_metric, systems = _stats_by_metric(stats_paths)
    gold = read_gold_table(gold_conclusions_path, ("gold", *GOLD_CONCLUSION_COLUMNS))
    gold = gold[gold["gold"] == gold["gold"].iloc[0]]
    chooser = "bleu" if "bleu" in by_metric else next(iter(by_metric))
    stats, score, higher = by_metric[chooser]
    better = gold_better_pairs(gold, 0.05)
    x, y = choose_planted_pair(stats, score, systems, higher_is_better=higher, gold_better=better)
    log.info("planted pair: %s better than %s (by gold and %s)", x, y, chooser)
    documents = read_segment_documents(documents_path, next(iter(by_metric.values()))[0].shape[1])
    frames = []
    for unit in calibration.get("swap_units", ["segment"]):
        if unit == "document" and documents is None:
            log.info("no document ids: skipping document swaps")
            continue
        frames.append(
            calibration_study(
                by_metric,
                systems,
                x,
                y,
                null_pairs=int(calibration["null_pairs"]),
                q_values=calibration["q"],
                alternatives_per_q=int(calibration["alternatives_per_q"]),
                alphas=calibration["alphas"],
                tests=[t for t in tests if documents is not None or not t.endswith("_documents")],
                n_samples=int(calibration["samples"]),
                seed=derive_seed(int(resampling["seed"]), experiment, "calibration", unit),
                pvalue=resampling.get("pvalue", "c/B"),
                documents=documents,
                mean_block_length=float(resampling.get("mean_block_length", 10)),
                swap_unit=unit,
                memory_cap_bytes=int(resampling.get("memory_cap_mb", 1024)) * 2**20,
            ).assign(sys_x=x, sys_y=y)
        )
    table = pd.concat(frames, ignore_index=True)
    write_tsv(table, outputs["table"])
    figure = plot_calibration(table[table["swap_unit"] == table["swap_unit"].iloc[0]], alpha=0.05)
    # bbox "tight" keeps the legend, which sits to the right of the panels
    save_figure(figure, [outputs["png"], outputs["pdf"]], bbox_inches="tight", dpi=150)


def section2_experiment(
    *,
    stats_paths: Sequence[str | Path],
    experiment: str,
    resampling: Mapping[str, Any],
    outputs: Mapping[str, str],
) -> None:
    """The paper's Section 2 in numbers for every metric: R&M bootstrap vs R&M AR on the closest pairs."""
    from mtsig.calibration import section2_table
    from mtsig.tables import frame_to_markdown

    by_metric, systems = _stats_by_metric(stats_paths)
    frames = []
    for metric, (stats, score, higher) in by_metric.items():
        table = section2_table(
            stats,
            score,
            systems,
            higher_is_better=higher,
            n_closest=5,
            n_samples=int(samples_per_test(resampling, ["rm_bootstrap"])["rm_bootstrap"]),
            seed=derive_seed(int(resampling["seed"]), experiment, metric, "section2"),
            memory_cap_bytes=int(resampling.get("memory_cap_mb", 1024)) * 2**20,
        )
        frames.append(table.assign(metric=metric))
    table = pd.concat(frames, ignore_index=True)
    table = table[["metric", *[c for c in table.columns if c != "metric"]]]
    write_tsv(table, outputs["table"])
    text = (
        f"# Section 2 in numbers: {experiment}\n\n"
        "For the five pairs with the closest scores per metric: p-values of Riezler & Maxwell's bootstrap and "
        "approximate randomization as published (absolute values, p = (c+1)/(B+1)), the paper's two-sided "
        "bootstrap (Fig. 1), and the R&M bootstrap doubled. The paper argues the R&M bootstrap is effectively "
        "one-tailed, i.e. about half the AR p-value: the median ratio here is "
        f"{table['ratio_rm_bootstrap_to_rm_ar'].median():.2f}.\n\n"
    )
    write_text(text + frame_to_markdown(table), outputs["md"], made_by="section2")


# --- n-best lists -----------------------------------------------------------------------------------------------


def nbest_experiment(
    spec: Mapping[str, Any], data_root: Path, *, seed: int, outputs: Mapping[str, str]
) -> None:
    """The n-best experiment (mtsig.nbest) on a STAPLE gold: systems, ablation, BLEU grid, MAP table, figures."""
    from mtsig.nbest import run_nbest_experiment
    from mtsig.nbest_plots import plot_all
    from mtsig.tables import frame_to_markdown

    results = run_nbest_experiment(
        mtsig_config.data_path(data_root, spec["gold"]),
        mtsig_config.data_path(data_root, spec["baseline"]),
        dict(spec.get("parameters", {})),
        seed,
        {name: mtsig_config.data_path(data_root, p) for name, p in spec.get("systems", {}).items()},
    )
    write_tsv(results["systems"], outputs["systems"])
    write_tsv(results["ablation"], outputs["ablation"])
    write_tsv(results["bleu_grid"], outputs["bleu_grid"])
    systems = results["systems"].sort_values("map", ascending=False, kind="stable")
    columns = ["system", "simulated", "map", "weighted_f1", "bleu_1best_1ref", "bleu_100best_100ref"]
    text = [
        "# n-best lists: STAPLE en-pt (Bremerman et al. 2020)\n",
        "Every system with `simulated = True` is SIMULATED from the gold (parameters below); `aws_baseline` is the "
        "organisers' real 1-best baseline.\n",
        "## MAP and the other measures\n",
        frame_to_markdown(systems[columns]),
        "\n## Ablation of the gold: correlation of each step's MAP ranking with the full-gold ranking\n",
        frame_to_markdown(results["ablation"]),
        "\n## x-best y-reference BLEU against MAP\n",
        frame_to_markdown(results["bleu_grid"]),
        "\n## Simulation parameters\n",
        frame_to_markdown(results["parameters"]),
    ]
    write_text("\n".join(text), outputs["md"], made_by="nbest")
    plot_all(results, outputs["figures"])


# --- segment level (RankEval) -----------------------------------------------------------------------------------


def segment_level_experiment(
    inputs: Mapping[str, Any],
    *,
    spec: Mapping[str, Any] | None,
    seed: int,
    bootstrap_samples: int,
    outputs: Mapping[str, str],
    predicted_rankings: Mapping[str, str] | None = None,
    convention: str = "both",
) -> None:
    """RankEval measures (Avramidis 2013) for one ranking data set: a WMT experiment's metrics (sentence BLEU
    from the texts, every other metric from its per-segment statistics), or a JCML set's consensus predictors;
    plus any user-supplied predicted rankings (name -> file).  ``convention`` (``segment_level.convention``):
    ``paper``, ``rankeval_tool`` (the RankEval tool's code) or ``both``, one block of rows each, marked in the
    table's ``convention`` column (:func:`mtsig.rankeval.segment_level_table`)."""
    from mtsig import rankeval
    from mtsig.tables import frame_to_markdown

    if "jcml" in inputs:
        name = Path(inputs["jcml"]).name
        table = rankeval.jcml_segment_level(
            inputs["jcml"],
            n_samples=bootstrap_samples,
            seed=seed,
            predicted_rankings=predicted_rankings,
            convention=convention,
        )
    else:
        name = spec["name"]
        reference, outputs_by_system = read_prepared_texts(Path(inputs["texts"]))
        systems = list(outputs_by_system)
        scores = {"bleu": rankeval.sentence_bleu_scores(outputs_by_system, reference)}
        for path in inputs["stats"]:
            metric = metric_name_of(path)
            if metric == "bleu":
                continue
            stats, names, _, scorer = load_scored_stats(path)
            _check_same_systems(systems, names, path, Path(inputs["texts"]) / "systems.txt", "metric_stats")
            if stats.shape[1] != len(reference):
                raise InputError(
                    f"{stats.shape[1]} segments where the prepared reference has {len(reference)}; "
                    + regenerate_hint(path, "metric_stats", None),
                    path,
                )
            segment = np.asarray(scorer.score(stats), dtype=float)  # score of each segment's own statistics
            scores[metric] = segment if scorer.higher_is_better else -segment
        human = spec["human"]
        table = rankeval.wmt_segment_level(
            inputs["rankings"][0],
            (human["source_language"], human["target_language"]),
            systems,
            scores,
            n_samples=bootstrap_samples,
            seed=derive_seed(seed, name, "segment_level"),
            predicted_rankings=predicted_rankings,
            convention=convention,
        )
    write_tsv(table, outputs["table"])
    wide = table.pivot_table(index=["convention", "predictor"], columns="measure", values="value", sort=False)
    text = (
        f"# Segment-level meta-evaluation: {name}\n\n"
        "RankEval measures (Avramidis 2013) of each predictor against the human rankings: Kendall's tau with WMT's "
        "penalised ties (micro and macro averaged, with its p-value), MRR, NDCG, ERR, average human rank of the "
        "predicted best, and best-predicted-vs-human (bph_<human rank>) in percent of the judgments. Higher score = "
        "better = rank 1; equal scores tie. Convention `paper` follows the paper's equations; `rankeval_tool` "
        "reproduces the RankEval tool's code (blank ranks as the best rank, tied predictions overwriting each "
        "other in NDCG/ERR, ...; see config/README.md).\n\n"
    )
    write_text(text + frame_to_markdown(wide.reset_index()), outputs["md"], made_by="segment_level")
