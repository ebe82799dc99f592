"""``mtsig metrics HUMAN_FILE METRIC_FILES...``: which metric agrees best with the humans, and is it significant?
``mtsig metrics --mtme DIR --protocol wmt23``: the WMT23 (WMT24, WMT25) metrics task's table on expert MQM.

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

With ``--mtme DIR`` (a test set in google-research/mt-metrics-eval's layout, e.g. ``$MTSIG_DATA/wmt23``) the command
runs a metrics task's protocol instead (:mod:`mtsig.studies.metrics_protocol`: pooled pairwise accuracy, system- and
segment-level Pearson, tie-calibrated acc_23, SPA; the weighted average, permutation tests and clusters); a metric
developer adds their own metric with ``--extra-scores DIR`` (``DIR/<lp>/NAME-REFSET.LEVEL.score`` files in
mt-metrics-eval's format, for every language pair and level the protocol needs), and more columns, not in the
average, with ``--extra-task STATISTIC[:OPTION=VALUE,...]`` (mt-metrics-eval's other statistics: PDP, Kendall's
variants, the WMT20 Kendall-like tau, micro averages, item samples;
:func:`mtsig.studies.metrics_protocol.tasks_from_spec`).
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
    non_negative_int,
    significance_level,
)
from mtsig.cli._rank_sets import (
    RankSetOptions,
    add_rank_set_arguments,
    protocol_rank_set_options,
    protocol_rank_sets_output,
)
from mtsig.errors import InputError
from mtsig.io import mtme
from mtsig.io import system_scores as ss
from mtsig.report.meta_evaluation import correlation_table_latex, correlation_table_markdown
from mtsig.report.metrics_protocol import (
    chance_text,
    protocol_json,
    protocol_signature,
    protocol_table_latex,
    protocol_table_text,
    with_chance,
)
from mtsig.report.signature import signature
from mtsig.stats.human import _pairwise_mann_whitney
from mtsig.stats.meta_evaluation import system_level as me
from mtsig.stats.meta_evaluation.metric_comparison import (
    BOOTSTRAP_SCHEMES,
    PermBothOptions,
    accuracy_permutation_matrix,
    bootstrap_correlations,
    gold_pair_signs,
    pair_correct,
    perm_both_matrix,
    segment_mean_scores,
)
from mtsig.stats.meta_evaluation.soft_pairwise_accuracy import ARITHMETICS
from mtsig.stats.seeding import rng_for
from mtsig.studies import metrics_protocol as mp
from mtsig.studies.metrics_protocol.chance import protocol_chance
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
        nargs="?",
        help="human scores: ad-sys-scores-*.csv, ad-seg-scores-*.csv or tidy system scores",
    )
    add(
        "metric_files",
        type=Path,
        nargs="*",
        help="metric scores: .sys.score/.seg.score[.gz], mt-metrics-eval, tidy",
    )
    _add_protocol_arguments(parser)
    add("--lp", help="language pair of the rows to keep in WMT .sys.score/.seg.score files (e.g. ja-en)")
    add("--testset", help="test set of the rows to keep in WMT score files (e.g. newstest2020)")
    add("--refset", help="reference of the rows to keep in WMT score files (e.g. newstest2020)")
    add(
        "--system-names",
        type=Path,
        help="TSV of two columns, a system's name in the human file and in the metric files (when they differ)",
    )
    add(
        "--samples",
        type=non_negative_int,
        default=1000,
        help="bootstrap and PERM-BOTH resamples; with --mtme the permutation tests' (0: no tests) (default 1000)",
    )
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
    add_rank_set_arguments(
        parser, draws=True, asked_by="with --mtme: the metrics, on the average and each task"
    )


def _add_protocol_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``--mtme``, a metrics task's protocol (:func:`_run_protocol`)."""
    protocol = parser.add_argument_group(
        "a metrics task's protocol on a test set in mt-metrics-eval's layout"
    )
    add = protocol.add_argument
    add(
        "--mtme",
        type=Path,
        metavar="DIR",
        help="the test set's folder (<root>/<testset>, e.g. $MTSIG_DATA/wmt23); replaces HUMAN_FILE METRIC_FILES",
    )
    add(
        "--protocol",
        choices=sorted(mp.PROTOCOLS),
        default="wmt23",
        help="wmt23: pooled accuracy, sys/seg Pearson, acc-t (and PDP, not averaged); wmt24: SPA and acc-t; "
        "wmt25: SPA and acc-t, each language pair's gold (default wmt23)",
    )
    add("--lps", help="comma-separated language pairs (default: all of the protocol)")
    add(
        "--extra-scores",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="your metric's files DIR/<lp>/NAME-REFSET.LEVEL.score (repeatable); shown with the primary metrics",
    )
    add(
        "--extra-task",
        action="append",
        default=[],
        metavar="SPEC",
        help="a column not in the average, per language pair: STATISTIC[:OPTION=VALUE,...], e.g. "
        "pdp:grouping=sys or kendall:variant=b,grouping=item,perm_test=pairs (repeatable; docs/cli.md)",
    )
    add(
        "--all-metrics", action="store_true", help="every metric, not only the primary ones and the baselines"
    )
    add(
        "--early-stopping",
        choices=mp.EARLY_STOPPING,
        default=mp.RunOptions.early_stopping,
        help="mtme: stop a test every 100 resamples once p < 0.02 or p > 0.5 (mt-metrics-eval's); none (default mtme)",
    )
    add(
        "--spa-arithmetic",
        choices=ARITHMETICS,
        default=mp.RunOptions.spa_arithmetic,
        help="SPA p-values: exact sums (the same on every CPU) or pce.py's float32 (default exact)",
    )
    add(
        "--gold",
        metavar="NAME",
        help="the human score every task uses as gold (a human-scores file name, e.g. da-sqm; default: the test "
        "set's standard gold, MQM for WMT23)",
    )
    add(
        "--human-metrics",
        metavar="NAME,...",
        help="human scores entered as metrics against the gold where the test set has them (e.g. da-sqm; JSON "
        "lists them in each task as human:<name>)",
    )
    add(
        "--chance-draws",
        type=non_negative_int,
        metavar="N",
        help="draws per metric of each task's chance level and of every metric's p-value of being above it "
        '(docs/statistics.md, "Chance levels"; 0: none; default: --samples)',
    )


def _human(path: Path) -> tuple[list[str], dict[str, np.ndarray], pd.DataFrame | None]:
    """(systems, {z, raw: system scores}, the segment table of a DA segment file or None)."""
    layout = ss.detect_format(path)
    spec = ss.LAYOUTS[layout]
    frame = spec.reader(path)
    if spec.level == "human_system":
        return (
            frame["system"].tolist(),
            {"z": frame["z"].to_numpy(), "raw": frame["raw_score"].to_numpy()},
            None,
        )
    if spec.level == "human_segment":
        means = frame.groupby("system", sort=False)[["z", "raw_score"]].mean()
        return (
            means.index.tolist(),
            {"z": means["z"].to_numpy(), "raw": means["raw_score"].to_numpy()},
            frame,
        )
    if spec.level == "system" and spec.named_columns:
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
    spec = ss.LAYOUTS[layout]
    level = spec.level
    if level not in ("system", "segment"):
        raise InputError(f"a metric file must hold system or segment scores, not {layout}", path)
    frame = spec.reader(path, **rows) if spec.selects_rows else spec.reader(path)
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


def _extra_metric_files(directory: Path, test_sets: dict[str, mtme.MtmeTestSet]) -> dict[str, dict]:
    """``{lp: {(metric, level): path}}`` of a metric developer's folder ``DIR/<lp>/*.score``."""
    if not directory.is_dir():
        raise InputError("not a directory (expected DIR/<lp>/NAME-REFSET.LEVEL.score files)", directory)
    found = {lp: mtme.metric_files_in(directory / lp) for lp in test_sets if (directory / lp).is_dir()}
    if not any(found.values()):
        raise InputError(
            f"no score files in {', '.join(f'{lp}/' for lp in test_sets)} (expected DIR/<lp>/NAME-REFSET.LEVEL.score)",
            directory,
        )
    return found


def _check_extra(protocol: mp.Protocol, test_sets: dict, extra: dict[str, dict], directory: Path) -> None:
    """A developer's metric must be scored at every level the protocol reads (segment scores serve for ``sys``), in
    every language pair, with the standard reference or none (else it would drop out of tasks and the average)."""
    basenames = {test_sets[lp].metric_basename(name) for lp, files in extra.items() for name, _ in files}
    levels = sorted({mp.file_level(task) for task in protocol.tasks + protocol.extras})
    for basename in sorted(basenames):
        for lp in protocol.lps:
            ref = protocol.info.std_ref[lp]
            names = {name for name, _ in extra.get(lp, {}) if test_sets[lp].metric_basename(name) == basename}
            usable = {n for n in names if test_sets[lp].metric_references(n) <= {ref}}
            if not usable:
                raise InputError(
                    f"metric {basename!r} has no {lp} scores with the standard reference {ref} or none: expected "
                    f"{lp}/{basename}-{ref}.<level>.score or {lp}/{basename}-src.<level>.score",
                    directory,
                )
            for level in levels:
                # system scores may be the means of the segment scores (mtme.system_scores_with_means)
                have = {lv for n in usable for name, lv in extra[lp] if name == n}
                if level not in have and not (level == "sys" and "seg" in have):
                    raise InputError(
                        f"metric {basename!r} has no {level}-level {lp} scores: expected "
                        f"{lp}/{sorted(usable)[0]}.{level}.score",
                        directory,
                    )


def _add_extra_metrics(protocol: mp.Protocol, test_sets: dict, directories: list[Path]) -> set[str]:
    """Add a developer's metrics to ``test_sets`` and return their names; one line on stderr per metric and
    language pair whose system scores are (in part) the means of its segment scores."""
    always: set[str] = set()
    for directory in directories:
        extra = _extra_metric_files(directory, test_sets)
        _check_extra(protocol, test_sets, extra, directory)
        for lp, files in extra.items():
            test_sets[lp] = test_sets[lp].with_metric_files(files, system_means=True)
            always |= {name for name, _ in files}
    if "sys" not in {mp.file_level(task) for task in protocol.tasks + protocol.extras}:
        return always
    for lp, test_set in test_sets.items():
        for metric in sorted(test_set.system_means):
            if derived := ", ".join(mtme.system_scores_with_means(test_set, metric)[1]):
                note = f"{metric} ({lp}) has no system score for {derived}: each is the mean of its segment scores"
                print(f"mtsig metrics: {note}", file=sys.stderr)
    return always


def _run_protocol(args: argparse.Namespace, rank_sets: RankSetOptions | None) -> int:
    """``mtsig metrics --mtme DIR``: a metrics task's protocol on the test set (module docstring), with
    ``rank_sets`` which metrics could be first (:func:`mtsig.cli._rank_sets.protocol_rank_sets_output`)."""
    if args.human_file is not None or args.metric_files:
        raise InputError("--mtme replaces HUMAN_FILE METRIC_FILES: give one or the other")
    lps = None if args.lps is None else [lp.strip() for lp in args.lps.split(",") if lp.strip()]
    protocol = mp.with_gold(mp.PROTOCOLS[args.protocol](lps), args.gold)
    for spec in args.extra_task:
        protocol = protocol.with_extras(mp.tasks_from_spec(spec, protocol))
    test_sets = {lp: mtme.read_test_set(args.mtme, lp) for lp in protocol.lps}
    if args.gold is not None:
        lacking = [
            lp for lp, ts in test_sets.items() if not any(name == args.gold for name, _ in ts.human_files)
        ]
        if lacking:
            raise InputError(
                f"--gold {args.gold}: no such human scores for {', '.join(lacking)} (choose --lps)"
            )
    human = (
        ()
        if args.human_metrics is None
        else tuple(n.strip() for n in args.human_metrics.split(",") if n.strip())
    )
    always = _add_extra_metrics(protocol, test_sets, args.extra_scores)
    options = mp.RunOptions(
        n_resamples=args.samples,
        seed=args.seed,
        alpha=args.alpha,
        early_stopping=args.early_stopping,
        spa_arithmetic=args.spa_arithmetic,
        all_metrics=args.all_metrics,
        human_metrics=human,
        always=frozenset(always),
    )
    scores = mtme.read_requested_scores(test_sets, mp.required_scores(protocol, test_sets, options.selection))
    result = mp.run_protocol(protocol, test_sets, scores, options)
    data = mp.ProtocolData(result, test_sets, scores)
    draws = args.samples if args.chance_draws is None else args.chance_draws
    chance = None
    if draws:
        chance = protocol_chance(data, n_draws=draws, seed=args.seed, key=("metrics",), options=options)
    mode = "json" if args.json else "latex" if args.latex else "text"
    sets = None
    if rank_sets is not None:
        sets = protocol_rank_sets_output(data, options, rank_sets, mode)
    if args.json:
        payload = with_chance(protocol_json(result), chance)
        json.dump(payload if sets is None else {**payload, "rank_sets": sets}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif args.latex:
        sys.stdout.write(protocol_table_latex(result) + (sets or ""))
    else:
        sys.stdout.write(protocol_table_text(result))
        if chance is not None:
            sys.stdout.write(chance_text(result, chance))
        sys.stdout.write(f"signature: {protocol_signature(result)}\n" + (sets or ""))
    return 0


def run(args: argparse.Namespace) -> int:
    """Run ``mtsig metrics``; returns the exit status."""
    rank_sets = protocol_rank_set_options(args)
    if args.mtme is not None:
        return _run_protocol(args, rank_sets)
    if args.human_file is None or not args.metric_files:
        raise InputError("give HUMAN_FILE and METRIC_FILES, or --mtme DIR for a metrics task's protocol")
    if args.samples < 1:
        raise InputError("--samples must be at least 1 for the bootstrap intervals and PERM-BOTH")
    display = ProgressDisplay.for_command("metrics", args)
    systems, human, segments_h = _renamed_human(args)
    metrics, segments = _metrics(args, systems)
    excluded = excluded_systems(systems, human["z"], None)
    results = meta_evaluate(
        "metrics", PairScores(systems, human, metrics, {}), excluded, human_as_metric=False, alpha=args.alpha
    )
    intervals = _intervals(human["z"], metrics, segments, args, display)
    accuracy = None if segments_h is None else _accuracy(segments_h, systems, metrics, args, display)
    perm = _perm_both(human["z"], segments, args, display)
    williams_sig, perm_sig = _signatures(args, len(systems), perm is not None)
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
    out = _williams_lines(results, excluded, args, williams_sig) + _interval_lines(intervals, args)
    out += _accuracy_lines(accuracy, perm, args, perm_sig)
    sys.stdout.write("\n".join(out) + "\n")
    return 0


def _renamed_human(args: argparse.Namespace) -> tuple[list[str], dict[str, np.ndarray], pd.DataFrame | None]:
    """The human file's systems, system scores and segment scores (:func:`_human`), systems renamed by
    ``--system-names``."""
    systems, human, segments_h = _human(args.human_file)
    if args.system_names:
        renaming = _system_names(args.system_names)
        systems = [renaming.get(s, s) for s in systems]
        if segments_h is not None:
            segments_h = segments_h.assign(system=segments_h["system"].replace(renaming))
    return systems, human, segments_h


def _metrics(
    args: argparse.Namespace, systems: list[str]
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray | None]]:
    """Every metric file's system scores and segment scores (None without), by metric name: two or more
    metrics, each named once."""
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
    return metrics, segments


def _perm_both(
    human_z: np.ndarray,
    segments: dict[str, np.ndarray | None],
    args: argparse.Namespace,
    display: ProgressDisplay,
) -> pd.DataFrame | None:
    """PERM-BOTH p-values between every two metrics (row correlates better than column), or None unless every
    metric file has segment scores of the same shape."""
    if any(seg is None for seg in segments.values()) or len({seg.shape for seg in segments.values()}) != 1:
        return None
    names = list(segments)
    with display.stage("PERM-BOTH") as progress:
        p, _ = perm_both_matrix(
            human_z,
            np.stack([segments[m] for m in names]),
            PermBothOptions(n_resamples=args.samples),
            rng=rng_for(args.seed, "metrics", "perm_both"),
            progress=progress,
        )
    return pd.DataFrame(p, index=names, columns=names)


def _signatures(args: argparse.Namespace, n_systems: int, with_perm: bool) -> tuple[str, str | None]:
    """The signatures of the Williams winners and (``with_perm``) of PERM-BOTH."""
    details = f"human:{args.human_file.name}|systems:{n_systems}|outliers:mad-{me.MAD_SCALE}-{me.MAD_CUTOFF}"
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
        if with_perm
        else None
    )
    return williams_sig, perm_sig


def _williams_lines(
    results: dict[str, pd.DataFrame],
    excluded: dict[str, list[str]],
    args: argparse.Namespace,
    williams_sig: str,
) -> list[str]:
    """The correlation table, the outliers and the Williams winners of every system set, with the signature."""
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
    return out


def _interval_lines(intervals: pd.DataFrame, args: argparse.Namespace) -> list[str]:
    """Each metric's Pearson r with its bootstrap intervals, one line per metric."""
    out = ["", f"Pearson r with {args.confidence:.0%} bootstrap intervals ({args.samples} resamples):"]
    for metric, group in intervals.groupby("metric", sort=False):
        cells = [
            f"BOOT-{r.scheme.upper()} [{r.low:.3f}, {r.high:.3f}]" for r in group.itertuples(index=False)
        ]
        out.append(f"  {metric}: {group['r'].iloc[0]:.3f}  " + "  ".join(cells))
    return out


def _accuracy_lines(
    accuracy: tuple | None, perm: pd.DataFrame | None, args: argparse.Namespace, perm_sig: str | None
) -> list[str]:
    """Pairwise accuracy and its permutation p-values (with human segment scores), and PERM-BOTH's p-values with
    its signature, or why PERM-BOTH was not run."""
    out: list[str] = []
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
    return out
