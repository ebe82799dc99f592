"""What ``mtsig compare`` adds to the p-values: intervals, corrected conclusions, clusters and a LaTeX table.

Everything here reads one metric's :class:`mtsig.stats.resampling.PairwiseResult` (with intervals requested, see
:mod:`mtsig.stats.intervals`) and draws no new sample: the intervals are the engine's, from the paired bootstrap's draws.

* :func:`pair_interval_columns`: per ordered pair, ``{method}_low, {method}_high`` of ``statistic = S(X) - S(Y)``
  (oriented like the tests table) and the pair's systems' own intervals ``x_{method}_low`` ... ``y_{method}_high``.
* :func:`metric_clusters`: WMT-style significance clusters (:mod:`mtsig.stats.clusters`) of one test.
* :func:`latex_table`: a paper-ready table: each system's score with a dagger where it differs significantly from
  the baseline (the first system), the difference from the baseline and its interval, and the signatures.
* The reports of ``mtsig compare`` on its :class:`~mtsig.report.comparison.MetricComparison` results:
  :func:`text_report` (aligned text, with :mod:`mtsig.report.verdict`'s verdict), :func:`json_report`,
  :func:`long_table` (``--tsv``), :func:`clusters_table` (``--tsv --clusters``) and :func:`latex_report`;
  conclusions drawn as :class:`~mtsig.report.comparison.Conclusions` say (per unordered pair, the conclusion of
  one test at ``alpha`` after a correction over the experiment's pairs: :func:`~mtsig.report.comparison.
  pair_conclusions`; ``none`` is the paper's rule).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from mtsig import __version__
from mtsig.report.clusters import clusters_latex, format_rank_range
from mtsig.report.comparison import Conclusions, MetricComparison, aligned_lines, pair_conclusions
from mtsig.report.rank_sets import metric_rank_set_lines, rank_sets_frame, rank_sets_latex, rank_sets_record
from mtsig.report.signature import format_level
from mtsig.report.tables import CORRECTION_LABELS, latex_escape, metric_label
from mtsig.report.verdict import (
    format_p,
    frame_of,
    pair_verdicts,
    preferred_p,
    unordered_pairs,
    verdict_lines,
)
from mtsig.stats.clusters import clusters_from_tests, significant_pairs
from mtsig.stats.intervals import BCA
from mtsig.stats.resampling.tables import PairwiseResult

#: ``--correction`` of the CLI -> :data:`mtsig.stats.evaluation.CORRECTIONS`.
CLI_CORRECTIONS = {"none": "none", "holm": "holm", "bh": "benjamini_hochberg"}


def pair_interval_columns(result: PairwiseResult) -> pd.DataFrame:
    """One row per ordered pair: ``sys_x, sys_y, ci_level``, the difference's bounds ``{method}_low/high`` and the
    systems' ``x_{method}_low/high``, ``y_{method}_low/high`` (each system's score interval, its own scale)."""
    if result.intervals is None or result.system_intervals is None:
        raise ValueError("the result has no intervals: run pairwise_tests with intervals=...")
    pairs = result.intervals.pivot(index=["sys_x", "sys_y"], columns="method", values=["ci_low", "ci_high"])
    methods = list(dict.fromkeys(result.intervals["method"]))
    out = pd.DataFrame(index=pairs.index)
    out["ci_level"] = float(result.intervals["level"].iloc[0])
    for method in methods:
        out[f"{method}_low"] = pairs[("ci_low", method)]
        out[f"{method}_high"] = pairs[("ci_high", method)]
    out = out.reset_index()
    systems = result.system_intervals.pivot(index="system", columns="method", values=["ci_low", "ci_high"])
    for side, column in (("x", "sys_x"), ("y", "sys_y")):
        for method in methods:
            for bound in ("low", "high"):
                out[f"{side}_{method}_{bound}"] = out[column].map(systems[(f"ci_{bound}", method)])
    return out


def metric_clusters(
    result: PairwiseResult, test: str, alpha: float, correction: str, higher_is_better: bool
) -> pd.DataFrame:
    """Significance clusters of the result's systems by ``test`` (:func:`mtsig.stats.clusters.clusters_from_tests`)."""
    table = result.table[result.table["test"] == test]
    return clusters_from_tests(
        table,
        result.system_scores,
        alpha=alpha,
        correction=correction,
        higher_is_better=higher_is_better,
    )


def _raw_difference(result: PairwiseResult, system: str, baseline: str, higher_is_better: bool, method: str):
    """``S(system) - S(baseline)`` on the metric's own scale and its interval by ``method``."""
    rows = result.intervals
    assert rows is not None
    row = rows[(rows["sys_x"] == system) & (rows["sys_y"] == baseline) & (rows["method"] == method)].iloc[0]
    if higher_is_better:
        return float(row["statistic"]), float(row["ci_low"]), float(row["ci_high"])
    # The engine orients TER as TER_y - TER_x; the table shows TER_x - TER_y, the interval negated.
    return -float(row["statistic"]), -float(row["ci_high"]), -float(row["ci_low"])


def latex_table(
    metrics: Sequence[tuple[str, bool, PairwiseResult]],
    *,
    test: str,
    alpha: float,
    correction: str,
    signatures: Sequence[str],
    method: str = BCA,
    digits: int = 2,
) -> str:
    """A booktabs table (rows: systems in the given order, the first the baseline; per metric two columns: the
    score, with ``$^\\dagger$`` where it differs significantly from the baseline's, and ``S - S(baseline)`` with its
    ``method`` interval in brackets). ``metrics``: ``(name, higher_is_better, result)`` with intervals. The
    signatures are LaTeX comments above the table; the caption states test, alpha, correction and interval."""
    first = metrics[0][2]
    systems = list(first.system_scores)
    baseline = systems[0]
    level = float(first.intervals["level"].iloc[0]) if first.intervals is not None else float("nan")
    fmt = f"{{:.{digits}f}}"
    significant: dict[str, set[str]] = {}
    for name, _, result in metrics:
        conclusions = pair_conclusions(result, test, alpha, correction)
        involved = conclusions[
            (conclusions["conclusion"] != "tie")
            & ((conclusions["sys_x"] == baseline) | (conclusions["sys_y"] == baseline))
        ]
        significant[name] = set(involved["sys_x"]) | set(involved["sys_y"])
    percent = format_level(level).replace("%", r"\%")
    header = ["System"]
    for name, _, _ in metrics:
        header += [latex_escape(metric_label(name)), rf"$\Delta$ [{percent} CI]"]
    lines = [f"% {line}" for line in signatures]
    lines += [
        "% requires \\usepackage{booktabs}",
        r"\begin{table}[t]",
        r"\centering",
        r"\small",
        r"\begin{tabular}{l" + "rr" * len(metrics) + "}",
        r"\toprule",
        " & ".join(header) + r" \\",
        r"\midrule",
    ]
    for system in systems:
        cells = [latex_escape(system)]
        for name, higher_is_better, result in metrics:
            score = fmt.format(result.system_scores[system])
            if system in significant[name] and system != baseline:
                score += r"$^\dagger$"
            cells.append(score)
            if system == baseline:
                cells.append("--")
            else:
                d, low, high = _raw_difference(result, system, baseline, higher_is_better, method)
                cells.append(f"{fmt.format(d)} [{fmt.format(low)}, {fmt.format(high)}]")
        lines.append(" & ".join(cells) + r" \\")
    caption = latex_caption(
        baseline, test=test, alpha=alpha, correction=correction, percent=percent, method=method
    )
    lines += [
        r"\bottomrule",
        r"\end{tabular}",
        rf"\caption{{{caption}}}",
        r"\label{tab:mtsig}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"


#: Printed names of the interval methods (:data:`mtsig.stats.intervals.INTERVAL_METHODS`).
METHOD_LABELS = {"bca": "BCa", "percentile": "percentile"}


def latex_caption(
    baseline: str, *, test: str, alpha: float, correction: str, percent: str, method: str
) -> str:
    """The caption of :func:`latex_table`: what the dagger and the interval are. With a correction the daggers are
    adjusted and the intervals are not: the caption says so, since an interval may then exclude 0 without a
    dagger (simultaneous intervals would need the level adjusted too)."""
    name = latex_escape(baseline)
    method_name = METHOD_LABELS.get(method, method)
    corrected = correction != "none"
    correction_text = (
        f"{CORRECTION_LABELS.get(correction, correction)}-adjusted" if corrected else "no correction"
    )
    caption = (
        rf"Scores; $^\dagger$: significantly different from {name} by the {latex_escape(test)} test at "
        rf"$\alpha = {alpha:g}$ ({correction_text}); $\Delta$: difference from {name} with its {percent} "
        f"{method_name} interval from the paired bootstrap draws"
    )
    if corrected:
        caption += ", not adjusted for multiple comparisons: an interval may exclude 0 without a dagger"
    return caption + "."


__all__ = [
    "CLI_CORRECTIONS",
    "latex_table",
    "metric_clusters",
    "pair_conclusions",
    "pair_interval_columns",
]


# --- the reports of `mtsig compare` ---------------------------------------------------------------------------


def long_table(comparisons: Sequence[MetricComparison], seed: int) -> pd.DataFrame:
    """All metrics' rows: ``metric, sys_x, sys_y, test, statistic, p_value, samples, seed``, the intervals of
    :func:`mtsig.report.compare_outputs.pair_interval_columns` (when computed) and the row's ``signature``."""
    frames = []
    for comparison in comparisons:
        frame = comparison.result.table.copy()
        frame.insert(0, "metric", comparison.name)
        frame["samples"] = frame["test"].map(comparison.result.settings["n_samples"])
        frame["seed"] = seed
        if comparison.result.intervals is not None:
            frame = frame.merge(pair_interval_columns(comparison.result), on=["sys_x", "sys_y"], how="left")
        frame["signature"] = frame["test"].map(comparison.signatures())
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def _interval_text(low: float, high: float) -> str:
    return f"[{low:.4f}, {high:.4f}]"


def text_report(
    comparisons: Sequence[MetricComparison],
    *,
    seed: int,
    n_samples: int,
    pvalue: str,
    conclusions: Conclusions,
    clusters: bool = False,
    human_agreement: Callable[[str, float], float | str] | None = None,
    notes: Sequence[str] = (),
) -> str:
    """The readable report: settings and ``notes`` (e.g. what the tests assume about documents), the verdict
    (:mod:`mtsig.report.verdict`: which system each metric prefers, whether significantly, and where significant
    metrics disagree), a table of system scores with their BCa intervals, per metric one line per pair
    (:func:`metric_pair_lines`) and with ``clusters`` its clusters, and at the end every signature, once.

    Every pair keeps one orientation in every metric (X the system listed first); a p-value is that of the
    direction the metric prefers (one-sided tests) or two-sided, printed as ``<0.0001`` below the resolution of
    its resamples (:func:`mtsig.report.verdict.format_p`).
    """
    first = comparisons[0].result
    level = format_level(first.settings["intervals"]["level"])  # type: ignore[index]
    c = conclusions
    lines = [
        f"mtsig {__version__} compare: {len(first.system_scores)} systems; seed={seed} samples={n_samples} "
        f"pvalue={pvalue}",
        *notes,
        "",
        *verdict_lines(pair_verdicts(comparisons, c), c),
        "",
        f"System scores [{level} BCa interval]",
        *score_lines(comparisons),
    ]
    for comparison in comparisons:
        lines += ["", *metric_pair_lines(comparison, c, level, human_agreement)]
        if clusters:
            lines += ["", *cluster_lines(comparison, c)]
        if comparison.rank_sets is not None:
            lines += [
                "",
                *metric_rank_set_lines(comparison.name, comparison.rank_sets, comparison.higher_is_better),
            ]
    lines += ["", "Signatures (one per metric and test):"]
    for comparison in comparisons:
        lines += [f"  {text}" for text in comparison.signatures(c.alpha, c.correction).values()]
        lines += [f"  {text}" for text in [comparison.rank_sets_signature()] if text]
    return "\n".join(lines) + "\n"


def score_lines(comparisons: Sequence[MetricComparison]) -> list[str]:
    """Each system's score by every metric with its BCa interval, one row per system."""
    systems = list(comparisons[0].result.system_scores)
    rows = [["system", *(cell for m in comparisons for cell in (metric_label(m.name), "interval"))]]
    for name in systems:
        cells = [name]
        for m in comparisons:
            cells += [
                f"{m.result.system_scores[name]:.4f}",
                _interval_text(*_system_interval(m.result, name)),
            ]
        rows.append(cells)
    return aligned_lines(rows, [False] + [True] * (len(rows[0]) - 1))


def metric_pair_lines(
    comparison: MetricComparison,
    conclusions: Conclusions,
    level: str,
    human_agreement: Callable[[str, float], float | str] | None = None,
) -> list[str]:
    """One metric's pairs, X the system listed first: the oriented statistic (positive: X better), each test's p
    of the preferred direction, the percentile and BCa intervals of the statistic, the preferred system, whether
    the difference is significant, and with ``human_agreement`` the estimated share of such pairs on which humans
    agree with the metric's direction (or the word that says why the table gives none)."""
    c, result = conclusions, comparison.result
    tests = list(dict.fromkeys([c.test, *result.table["test"]]))  # the concluding test first
    samples = result.settings["n_samples"]
    intervals = pair_interval_columns(result).set_index(["sys_x", "sys_y"])
    statistics = result.table.drop_duplicates(["sys_x", "sys_y"]).set_index(["sys_x", "sys_y"])["statistic"]
    winners = set(significant_pairs(pair_conclusions(result, c.test, c.alpha, c.correction)))
    definition = "S(X) - S(Y)" if comparison.higher_is_better else "S(Y) - S(X), lower is better"
    header = ["sys_x", "sys_y", "statistic", *tests, f"{level} percentile", f"{level} BCa", "prefers"]
    rows = [[*header, "significant"] + (["humans agree"] if human_agreement else [])]
    for x, y in unordered_pairs(list(result.system_scores)):
        statistic, bounds = float(statistics[(x, y)]), intervals.loc[(x, y)]
        p_values = [format_p(preferred_p(result, t, x, y)[0], samples[t]) for t in tests]  # type: ignore[index]
        preferred = preferred_p(result, tests[0], x, y)[1]
        winner = next((w for w, loser in winners if {w, loser} == {x, y}), None)
        cells = [x, y, f"{statistic:.4f}", *p_values]
        cells += [_interval_text(bounds["percentile_low"], bounds["percentile_high"])]
        cells += [_interval_text(bounds["bca_low"], bounds["bca_high"]), preferred or "neither"]
        cells.append("no" if winner is None else ("yes" if winner == preferred else f"yes ({winner} better)"))
        if human_agreement is not None:
            cells.append(_agreement_text(human_agreement(comparison.name, abs(statistic))))
        rows.append(cells)
    right = (
        [False, False] + [True] * (len(tests) + 3) + [False, False] + [True] * (human_agreement is not None)
    )
    heading = f"{metric_label(comparison.name)}: statistic = {definition}; p: of the preferred system better (two-sided tests: either way)"
    return [heading, *aligned_lines(rows, right)]


def cluster_lines(comparison: MetricComparison, conclusions: Conclusions) -> list[str]:
    """One metric's significance clusters (rank range, system, score), by the concluding test."""
    c = conclusions
    tiers = metric_clusters(comparison.result, c.test, c.alpha, c.correction, comparison.higher_is_better)
    rows = [["cluster", "rank", "system", "score"]]
    for tier in tiers.itertuples(index=False):
        rank = format_rank_range(int(tier.rank_low), int(tier.rank_high))
        rows.append([str(tier.cluster), rank, str(tier.system), f"{tier.score:.4f}"])
    heading = (
        f"{metric_label(comparison.name)} clusters ({c.test}, alpha {c.alpha:g}, correction {c.correction})"
    )
    return [heading, *aligned_lines(rows, [True, True, False, True])]


def _agreement_text(agreement: float | str) -> str:
    """A ``humans agree`` cell: the probability, ``n/a`` for a metric the table does not have, or the fit's status
    when the table flags the metric's fit (:func:`mtsig.stats.meta_evaluation.delta_agreement.estimated_agreement`)."""
    if isinstance(agreement, str):
        return agreement
    return "n/a" if agreement != agreement else f"{agreement:.2f}"


def _system_interval(result: PairwiseResult, name: str, method: str = BCA) -> tuple[float, float]:
    """A system's own interval (its corpus score, the metric's scale) by ``method``."""
    rows = result.system_intervals
    assert rows is not None
    row = rows[(rows["system"] == name) & (rows["method"] == method)].iloc[0]
    return float(row["ci_low"]), float(row["ci_high"])


def json_report(
    comparisons: Sequence[MetricComparison],
    *,
    seed: int,
    pvalue: str,
    reference: Sequence[Path] | None,
    systems: Mapping[str, Path | None],
    conclusions: Conclusions,
    clusters: bool = False,
    notes: Sequence[str] = (),
) -> str:
    """Settings, ``notes``, the verdict (:func:`mtsig.report.verdict.pair_verdicts`: one record per pair and
    metric), each metric's signatures, scores, system intervals, conclusions (and clusters), and every row of the
    long table (p-values, intervals, signature)."""
    c = conclusions
    metrics = {}
    for m in comparisons:
        entry = {
            "details": m.details,
            "higher_is_better": m.higher_is_better,
            "scores": m.result.system_scores,
            "settings": m.result.settings,
            "signatures": m.signatures(c.alpha, c.correction),
            "system_intervals": m.result.system_intervals.to_dict(orient="records"),  # type: ignore[union-attr]
            "conclusions": pair_conclusions(m.result, c.test, c.alpha, c.correction).to_dict(
                orient="records"
            ),
        }
        if clusters:
            tiers = metric_clusters(m.result, c.test, c.alpha, c.correction, m.higher_is_better)
            entry["clusters"] = tiers.to_dict(orient="records")
        if m.rank_sets is not None:
            entry["rank_sets"] = {**rank_sets_record(m.rank_sets), "signature": m.rank_sets_signature()}
        metrics[m.name] = entry
    document = {
        "mtsig_version": __version__,
        "seed": seed,
        "pvalue": pvalue,
        "reference": [str(path) for path in reference or ()],
        "systems": {name: None if path is None else str(path) for name, path in systems.items()},
        "conclusions": {"test": c.test, "alpha": c.alpha, "correction": c.correction},
        "notes": list(notes),
        "verdict": frame_of(pair_verdicts(comparisons, c)).to_dict(orient="records"),
        "metrics": metrics,
        "results": long_table(comparisons, seed).to_dict(orient="records"),
    }
    return json.dumps(document, indent=2, default=json_default) + "\n"


def rank_sets_tsv(comparisons: Sequence[MetricComparison]) -> str:
    """``--tsv --rank-sets``: every metric's rank sets (:func:`mtsig.report.rank_sets.rank_sets_frame`)."""
    rows = [(m.name, m.rank_sets, m.rank_sets_signature()) for m in comparisons if m.rank_sets is not None]
    return rank_sets_frame(rows).to_csv(sep="\t", index=False, float_format="%.10g")  # type: ignore[arg-type]


def clusters_table(comparisons: Sequence[MetricComparison], conclusions: Conclusions) -> pd.DataFrame:
    """Every metric's clusters (:data:`mtsig.stats.clusters.CLUSTER_COLUMNS`) with ``metric`` first and ``signature``."""
    c = conclusions
    frames = []
    for m in comparisons:
        tiers = metric_clusters(m.result, c.test, c.alpha, c.correction, m.higher_is_better)
        tiers.insert(0, "metric", m.name)
        tiers["signature"] = m.signatures(c.alpha, c.correction)[c.test]
        frames.append(tiers)
    return pd.concat(frames, ignore_index=True)


def latex_report(comparisons: Sequence[MetricComparison], conclusions: Conclusions, clusters: bool) -> str:
    """:func:`mtsig.report.compare_outputs.latex_table` of every metric, then (``clusters``) one ranked cluster table per
    metric (:func:`mtsig.report.clusters.clusters_latex`)."""
    c = conclusions
    signatures = [m.signatures(c.alpha, c.correction)[c.test] for m in comparisons]
    text = latex_table(
        [(m.name, m.higher_is_better, m.result) for m in comparisons],
        test=c.test,
        alpha=c.alpha,
        correction=c.correction,
        signatures=signatures,
    )
    if clusters:
        for m, signature in zip(comparisons, signatures, strict=True):
            tiers = metric_clusters(m.result, c.test, c.alpha, c.correction, m.higher_is_better)
            name = metric_label(m.name)
            caption = (
                f"{name}: significance clusters ({c.test}, alpha {c.alpha:g}, correction {c.correction})"
            )
            table = clusters_latex(tiers, caption=caption, label=f"tab:clusters-{m.name}", score_header=name)
            text += f"\n% {signature}\n" + table
    for m in comparisons:
        if m.rank_sets is not None:
            name = metric_label(m.name)
            table = rank_sets_latex(
                m.rank_sets, caption=f"{name}: the corpus score.", label=f"tab:rank-sets-{m.name}",
                score_header=name, score_format="{:.4f}",
            )  # fmt: skip
            text += f"\n% {m.rank_sets_signature()}\n" + table
    return text


def json_default(value: object) -> object:
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")
