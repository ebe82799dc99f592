"""``mtsig metrics HUMAN_FILE METRIC_FILES...``: which metric agrees best with the humans, and is it significant?

System-level meta-evaluation of the user's own files (docs/statistics.md, "Metric meta-evaluation" and "Comparing
metrics with resampling"): every metric's Pearson, Spearman and Kendall correlation with the human system scores,
for all systems and without the MAD outliers (Mathur et al. 2020), the Williams test between every two metrics
and its winners (Graham & Baldwin 2014; the WMT metrics tasks), and, when every metric file holds segment scores,
PERM-BOTH between every two metrics (Deutsch, Dror & Roth 2021) at the system level; every metric's Pearson r
with bootstrap intervals (BOOT-SYSTEMS, and BOOT-INPUTS / BOOT-BOTH with segment scores).

Layouts are detected (:func:`mtsig.io.system_scores.detect_format`): the human file is a WMT DA
``ad-sys-scores-*.csv`` (z and raw), ``ad-seg-scores-*.csv`` (system score = mean of the segment means) or a
tidy system-score TSV (its ``score`` is used as ``z``); metric files are WMT ``.sys.score``/``.seg.score`` (plain or
gzipped), mt-metrics-eval or tidy (a segment-level metric's system score is its mean over the segments).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from mtsig import __version__
from mtsig.cli._common import (
    DEFAULT_SEED,
    NO_PROGRESS,
    ProgressDisplay,
    add_quiet_argument,
    confidence_level,
    positive_int,
    significance_level,
)
from mtsig.errors import InputError
from mtsig.io import system_scores as ss
from mtsig.report.meta_evaluation import correlation_table_latex, correlation_table_markdown
from mtsig.report.signature import signature
from mtsig.stats import meta_evaluation as me
from mtsig.stats.human import _pairwise_mann_whitney
from mtsig.stats.metric_comparison import (
    BOOTSTRAP_SCHEMES,
    accuracy_permutation_matrix,
    bootstrap_correlations,
    gold_pair_signs,
    pair_correct,
    perm_both_matrix,
    segment_mean_scores,
)
from mtsig.stats.seeding import rng_for
from mtsig.studies.metrics_task import PairScores, excluded_systems, meta_evaluate

HELP = "correlate metrics with human scores: Williams winners, outliers, PERM-BOTH between metrics"
GROUP = "metrics"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``mtsig metrics``; :func:`run` runs it."""
    parser.description = __doc__.split("\n\n")[1]
    add = parser.add_argument
    add(
        "human_file",
        type=Path,
        help="human scores: ad-sys-scores-*.csv, ad-seg-scores-*.csv or tidy system scores",
    )
    add(
        "metric_files",
        type=Path,
        nargs="+",
        help="metric scores: .sys.score/.seg.score[.gz], mt-metrics-eval, tidy",
    )
    add("--lp", help="language pair of the rows to keep in WMT .sys.score/.seg.score files (e.g. ja-en)")
    add("--testset", help="test set of the rows to keep in WMT score files (e.g. newstest2020)")
    add("--refset", help="reference of the rows to keep in WMT score files (e.g. newstest2020)")
    add(
        "--system-names",
        type=Path,
        help="TSV of two columns, a system's name in the human file and in the metric files (when they differ)",
    )
    add("--samples", type=positive_int, default=1000, help="bootstrap and PERM-BOTH resamples (default 1000)")
    add(
        "--confidence",
        type=confidence_level,
        default=0.95,
        help="level of the bootstrap intervals: 0.95 or 95 (default 0.95)",
    )
    add("--seed", type=int, default=DEFAULT_SEED, help=f"base seed (default {DEFAULT_SEED})")
    add(
        "--alpha",
        type=significance_level,
        default=me.WILLIAMS_ALPHA,
        help="significance level (default 0.05)",
    )
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print JSON instead of text")
    out.add_argument("--latex", action="store_true", help="print the correlation table as LaTeX")
    add_quiet_argument(parser)


def _human(path: Path) -> tuple[list[str], dict[str, np.ndarray], pd.DataFrame | None]:
    """(systems, {z, raw: system scores}, the segment table of a DA segment file or None)."""
    layout = ss.detect_format(path)
    level, reader = ss.LAYOUTS[layout]
    frame = reader(path)
    if level == "human_system":
        return (
            frame["system"].tolist(),
            {"z": frame["z"].to_numpy(), "raw": frame["raw_score"].to_numpy()},
            None,
        )
    if level == "human_segment":
        means = frame.groupby("system", sort=False)[["z", "raw_score"]].mean()
        return (
            means.index.tolist(),
            {"z": means["z"].to_numpy(), "raw": means["raw_score"].to_numpy()},
            frame,
        )
    if layout == "tidy_sys_score":
        scores = ss.scores_by_system(frame)
        return list(scores), {"z": np.array(list(scores.values()))}, None
    raise InputError(
        f"a human score file must hold DA system or segment scores or tidy system scores, not {layout}", path
    )


def _metric(
    path: Path, systems: list[str], rows: dict[str, str]
) -> tuple[str, np.ndarray, np.ndarray | None]:
    """(name, system scores [S], segment scores [S, N] or None) of one metric file; ``rows`` (lp, testset,
    refset) select the rows of a WMT score file."""
    layout = ss.detect_format(path)
    level, reader = ss.LAYOUTS[layout]
    if level not in ("system", "segment"):
        raise InputError(f"a metric file must hold system or segment scores, not {layout}", path)
    frame = reader(path, **rows) if layout in ("wmt_sys_score", "wmt_seg_score") else reader(path)
    names = pd.unique(frame["metric"]) if "metric" in frame.columns else []
    if len(names) > 1:
        raise InputError(f"one metric per file, found {', '.join(map(str, names))}", path)
    name = str(names[0]) if len(names) else path.name.split(".")[0]
    present = set(frame["system"])
    missing = [s for s in systems if s not in present]
    if missing:
        raise InputError(f"metric {name!r} has no score for system(s) {', '.join(missing)}", path)
    if level == "system":
        scores = ss.scores_by_system(frame)
        return name, np.array([scores[s] for s in systems]), None
    frame = frame.loc[frame["system"].isin(systems)]
    counts = frame.groupby("system").size()
    if counts.nunique() != 1:
        raise InputError(f"metric {name!r}: systems have different numbers of segments", path)
    n = int(counts.iloc[0])
    seg = np.stack(
        [frame.loc[frame["system"] == s].sort_values("segment")["score"].to_numpy() for s in systems]
    )
    return name, seg.mean(axis=1), seg.reshape(len(systems), n)


def _accuracy(
    segments: pd.DataFrame,
    systems: list[str],
    metrics: dict[str, np.ndarray],
    args: argparse.Namespace,
    display: ProgressDisplay = NO_PROGRESS,
) -> tuple[dict[str, float], pd.DataFrame, int]:
    """Pairwise accuracy of every metric (Kocmi et al. 2021; ties per Deutsch et al. 2023) against the Wilcoxon
    rank-sum gold on the DA segment means (WMT's DA practice; :func:`mtsig.stats.human.wilcoxon_gold`'s test), and
    the paired permutation test between every two metrics' accuracies: (accuracies, p[row beats column], pairs)."""
    samples = {
        (system, "adequacy"): group.to_numpy(dtype=float) for system, group in segments.groupby("system")["z"]
    }
    gold = _pairwise_mann_whitney(samples, systems, ["adequacy"], "segment_mean")
    index = {s: i for i, s in enumerate(systems)}
    better = np.zeros((len(systems), len(systems)), dtype=bool)
    significant = gold.loc[gold["p_value"] < args.alpha]
    better[significant["sys_x"].map(index), significant["sys_y"].map(index)] = True
    signs = gold_pair_signs(better)
    names = list(metrics)
    correct = pair_correct(np.stack([metrics[m] for m in names]), signs)  # [M, P]
    with display.stage("accuracy permutation") as progress:
        p = pd.DataFrame(
            accuracy_permutation_matrix(
                correct,
                n_resamples=args.samples,
                rng=rng_for(args.seed, "metrics", "accuracy"),
                progress=progress,
            ),
            index=names,
            columns=names,
        )
    return dict(zip(names, correct.mean(axis=1).tolist(), strict=True)), p, int(signs.size)


def _system_names(path: Path) -> dict[str, str]:
    """``{name in the human file: name in the metric files}`` from a two-column TSV (no header)."""
    renaming: dict[str, str] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 2 or not all(f.strip() for f in fields):
            raise InputError(f"line {number}: expected two tab-separated names, got {line!r}", path)
        if fields[0] in renaming:
            raise InputError(f"line {number}: {fields[0]!r} is renamed twice", path)
        renaming[fields[0]] = fields[1]
    if len(set(renaming.values())) != len(renaming):
        raise InputError("two systems get the same name", path)
    return renaming


def _intervals(
    human: np.ndarray,
    metrics: dict[str, np.ndarray],
    segments: dict[str, np.ndarray | None],
    args: argparse.Namespace,
    display: ProgressDisplay = NO_PROGRESS,
) -> pd.DataFrame:
    """Every metric's Pearson r with the human z and its bootstrap intervals (Deutsch et al. 2021):
    BOOT-SYSTEMS always; BOOT-INPUTS and BOOT-BOTH too when every metric has segment scores of the same segments
    (a metric's system score is then their mean; the human scores stay fixed when inputs are drawn)."""
    names = list(metrics)
    shapes = {None if seg is None else seg.shape for seg in segments.values()}
    if None not in shapes and len(shapes) == 1:
        scores_of = segment_mean_scores(np.stack([segments[m] for m in names]))
        schemes, n_inputs = BOOTSTRAP_SCHEMES, next(iter(shapes))[1]
    else:
        matrix = np.stack([metrics[m] for m in names])
        scores_of, schemes, n_inputs = (lambda counts: matrix), ("systems",), 1
    rows = []
    for scheme in schemes:
        with display.stage(f"BOOT-{scheme.upper()} intervals") as progress:
            intervals = bootstrap_correlations(
                scores_of,
                human,
                n_inputs,
                scheme=scheme,
                n_resamples=args.samples,
                confidence=args.confidence,
                rng=rng_for(args.seed, "metrics", "bootstrap", scheme),
                progress=progress,
            )
        rows += [
            {
                "scheme": scheme,
                "metric": m,
                "r": i.estimate,
                "low": i.low,
                "high": i.high,
                "n_undefined": i.n_undefined,
            }
            for m, i in zip(names, intervals, strict=True)
        ]
    return pd.DataFrame(rows)


def run(args: argparse.Namespace) -> int:
    """Run ``mtsig metrics``; returns the exit status."""
    display = ProgressDisplay.for_command("metrics", args)
    systems, human, segments_h = _human(args.human_file)
    if args.system_names:
        renaming = _system_names(args.system_names)
        systems = [renaming.get(s, s) for s in systems]
        if segments_h is not None:
            segments_h = segments_h.assign(system=segments_h["system"].replace(renaming))
    metrics: dict[str, np.ndarray] = {}
    segments: dict[str, np.ndarray | None] = {}
    rows = {key: value for key in ("lp", "testset", "refset") if (value := getattr(args, key)) is not None}
    for path in args.metric_files:
        name, system_scores, seg = _metric(path, systems, rows)
        if name in metrics:
            raise InputError(f"metric {name!r} given twice", path)
        metrics[name], segments[name] = system_scores, seg
    if len(metrics) < 2:
        raise InputError("give at least two metric files to compare metrics")
    excluded = excluded_systems(systems, human["z"], None)
    results = meta_evaluate(
        "metrics", PairScores(systems, human, metrics, {}), excluded, human_as_metric=False, alpha=args.alpha
    )
    names = list(metrics)
    intervals = _intervals(human["z"], metrics, segments, args, display)
    accuracy = None if segments_h is None else _accuracy(segments_h, systems, metrics, args, display)
    perm = None
    if (
        all(seg is not None for seg in segments.values())
        and len({seg.shape for seg in segments.values()}) == 1
    ):
        with display.stage("PERM-BOTH") as progress:
            p, r = perm_both_matrix(
                human["z"],
                np.stack([segments[m] for m in names]),
                n_resamples=args.samples,
                rng=rng_for(args.seed, "metrics", "perm_both"),
                progress=progress,
            )
        perm = pd.DataFrame(p, index=names, columns=names)
    details = (
        f"human:{args.human_file.name}|systems:{len(systems)}|outliers:mad-{me.MAD_SCALE}-{me.MAD_CUTOFF}"
    )
    williams_sig = f"mtsig:{__version__}|test:williams|sided:one|alpha:{args.alpha:.10g}|{details}"
    perm_sig = (
        signature(
            metric_details=f"pearson|{details}",
            test="perm-both",
            n_samples=args.samples,
            seed=args.seed,
            pvalue="share",
            alpha=args.alpha,
            sided="one",
        )
        if perm is not None
        else None
    )
    if args.json:
        payload = {
            "correlations": results["correlations"].to_dict(orient="records"),
            "williams": results["williams"].replace({np.nan: None}).to_dict(orient="records"),
            "winners": results["winners"].to_dict(orient="records"),
            "outliers": excluded["no_outliers"],
            "intervals": {"confidence": args.confidence, "rows": intervals.to_dict(orient="records")},
            "pairwise_accuracy": None if accuracy is None else accuracy[0],
            "accuracy_permutation": None
            if accuracy is None
            else accuracy[1].replace({np.nan: None}).to_dict(orient="index"),
            "perm_both": None if perm is None else perm.replace({np.nan: None}).to_dict(orient="index"),
            "signatures": {"williams": williams_sig, "perm_both": perm_sig},
        }
        json.dump(payload, sys.stdout, indent=2, default=lambda v: v.item() if hasattr(v, "item") else str(v))
        sys.stdout.write("\n")
        return 0
    if args.latex:
        sys.stdout.write(correlation_table_latex(results["correlations"], results["winners"]) + "\n")
        return 0
    out = [correlation_table_markdown(results["correlations"], results["winners"]), ""]
    out.append(
        f"outliers (MAD, b = {me.MAD_SCALE}, cut-off {me.MAD_CUTOFF}): {', '.join(excluded['no_outliers']) or 'none'}"
    )
    winners = results["winners"]
    for system_set in excluded:
        chosen = winners.loc[
            (winners["human"] == "z") & (winners["systems"] == system_set) & winners["winner"]
        ]
        out.append(f"Williams winners ({system_set}, alpha {args.alpha:g}): {', '.join(chosen['metric'])}")
    out.append(f"signature: {williams_sig}")
    out += ["", f"Pearson r with {args.confidence:.0%} bootstrap intervals ({args.samples} resamples):"]
    for metric, group in intervals.groupby("metric", sort=False):
        cells = [
            f"BOOT-{r.scheme.upper()} [{r.low:.3f}, {r.high:.3f}]" for r in group.itertuples(index=False)
        ]
        out.append(f"  {metric}: {group['r'].iloc[0]:.3f}  " + "  ".join(cells))
    if accuracy is not None:
        out += [
            "",
            f"pairwise accuracy (acc_eq) against the Wilcoxon DA gold at alpha {args.alpha:g} ({accuracy[2]} pairs):",
        ]
        out += [f"  {name}: {value:.3f}" for name, value in accuracy[0].items()]
        out.append(f"accuracy permutation p (row more accurate than column; {args.samples} resamples):")
        out.append(accuracy[1].to_string(float_format=lambda v: f"{v:.3f}", na_rep="-"))
    if perm is not None:
        out += ["", f"PERM-BOTH p (row correlates better than column; {args.samples} resamples):"]
        out.append(perm.to_string(float_format=lambda v: f"{v:.3f}", na_rep="-"))
        out.append(f"signature: {perm_sig}")
    else:
        out.append("PERM-BOTH: needs segment scores of the same segments in every metric file")
    sys.stdout.write("\n".join(out) + "\n")
    return 0
