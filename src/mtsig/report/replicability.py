"""The replicability table (``results/tables/replicability.md``): partial conjunction tests over experiments and
over the WMT20 language pairs (:mod:`mtsig.studies.replicability`)."""

from __future__ import annotations

import pandas as pd

from mtsig.report.tables import frame_to_markdown, label_of_test


def replication_sentence(
    subject: str, other: str, relation: str, k: int, n: int, unit: str, alpha: float
) -> str:
    """ "A is more accurate than B in at least k of N experiments, family-wise alpha 0.05" (or: in none)."""
    if k == 0:
        return (
            f"No {unit[:-1]} shows that {subject} {relation} {other} (family-wise α {alpha:g}, {n} {unit})."
        )
    return f"{subject} {relation} {other} in at least {k} of {n} {unit}, family-wise α {alpha:g}."


#: Rivals whose comparison the table always shows (when both are in the metrics task).
FEATURED_RIVALS: tuple[tuple[str, str], ...] = (
    ("COMET", "BLEU"),
    ("BLEU", "COMET"),
    ("chrF", "BLEU"),
    ("BLEU", "chrF"),
    ("COMET", "chrF"),
    ("prism", "BLEU"),
    ("YiSi-1", "BLEU"),
    ("BLEURT", "BLEU"),
)


def _metric_rows(metrics: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "A": r.metric_a,
                "B": r.metric_b,
                "N": r.n_sets,
                "significant alone": r.significant_alone,
                "k (Bonf.)": r.k_bonferroni,
                "k (Fisher)": r.k_fisher,
                "replicated in (Holm)": r.replicated_in if isinstance(r.replicated_in, str) else "",
            }
            for r in metrics.itertuples(index=False)
        ]
    )


def replicability_markdown(
    per_set: pd.DataFrame,
    combined: pd.DataFrame,
    metrics: pd.DataFrame,
    alpha: float,
    top: int = 20,
    protocol: pd.DataFrame | None = None,
) -> str:
    """The whole table: tests across experiments, metrics across the WMT20 language pairs, then (``protocol``, the
    rows of :func:`mtsig.studies.replicability.protocol_replicability`) across a protocol's language pairs."""
    lines = [
        "# Do the conclusions replicate? Partial conjunction tests (Dror et al. 2017)",
        "",
        "In how many of N test sets does an effect hold? `k` is the estimate of Dror et al. (2017, Sec. 4.3): the "
        "largest u whose partial conjunction p-value (Bonferroni: any dependence; Fisher: independent test sets) "
        f'is at most α = {alpha:g}; "at least k of N" is wrong with probability at most α.',
        "",
        "## Is one randomized test more accurate than another, across the experiments?",
        "",
    ]
    if per_set.empty:
        lines += ["No experiment with a gold in this run.", ""]
    else:
        lines += _tests_lines(per_set, combined, alpha)
    if not metrics.empty:  # a metrics task in the run
        lines += _wmt20_lines(metrics, alpha, top)
    if protocol is not None and not protocol.empty:
        lines += ["", *protocol_replicability_lines(protocol, alpha)]
    return "\n".join(lines) + "\n"


def _tests_lines(per_set: pd.DataFrame, combined: pd.DataFrame, alpha: float) -> list[str]:
    lines = [
        f"Per experiment: the one-sided exact McNemar p-value over the (metric, system pair) conclusions at α = "
        f"{alpha:g} that exactly one of the two tests gets right against the primary gold (A right / B right in "
        "brackets).",
        "",
    ]
    experiments = list(dict.fromkeys(per_set["experiment"]))
    rows = []
    for comparison, group in per_set.groupby("comparison", sort=False):
        test_a, test_b = comparison.split(" > ")
        cells = {
            r.experiment: f"{r.p_value:.3g} ({r.only_a}/{r.only_b})" for r in group.itertuples(index=False)
        }
        pc = combined[combined["comparison"] == comparison]
        k = {m: int((pc["rejected"] & (pc["method"] == m)).sum()) for m in ("bonferroni", "fisher")}
        rows.append(
            {
                "A > B": f"{label_of_test(test_a)} > {label_of_test(test_b)}",
                **{e: cells[e] for e in experiments},
                "k (Bonf.)": k["bonferroni"],
                "k (Fisher)": k["fisher"],
            }
        )
        rows[-1]["conclusion"] = replication_sentence(
            label_of_test(test_a),
            label_of_test(test_b),
            "is more accurate than",
            k["bonferroni"],
            len(group),
            "experiments",
            alpha,
        )
    lines += [frame_to_markdown(pd.DataFrame(rows)), ""]
    lines += ["Partial conjunction p-values for u = 1..N (Bonferroni / Fisher):", ""]
    wide = combined.pivot_table(
        index=["comparison", "u"], columns="method", values="p_partial_conjunction", sort=False
    )
    wide = wide.reset_index()
    wide["p (Bonf. / Fisher)"] = [
        f"{b:.3g} / {f:.3g}" for b, f in zip(wide["bonferroni"], wide["fisher"], strict=True)
    ]
    table = wide.pivot(index="comparison", columns="u", values="p (Bonf. / Fisher)").reset_index()
    table["comparison"] = [" > ".join(map(label_of_test, c.split(" > "))) for c in table["comparison"]]
    table.columns = [str(c) if c != "comparison" else "A > B" for c in table.columns]
    lines += [frame_to_markdown(table), ""]
    return lines


def _wmt20_lines(metrics: pd.DataFrame, alpha: float, top: int) -> list[str]:
    lines = [
        "## Does a metric beat another across the WMT20 language pairs?",
        "",
        'Per ordered pair of metrics (A, B): the one-sided Williams p-values of "A correlates better with the DA '
        'z-scores than B" (all systems) of every language pair where both were scored, combined. '
        f"{int((metrics['k_bonferroni'] > 0).sum())} of {len(metrics)} ordered pairs beat their rival in at least one "
        f"language pair (Bonferroni), {int((metrics['k_fisher'] > 0).sum())} with Fisher; the {top} most replicated:",
        "",
    ]
    lines += [frame_to_markdown(_metric_rows(metrics.head(top))), "", "Familiar rivals:", ""]
    pairs = set(zip(metrics["metric_a"], metrics["metric_b"], strict=True))
    featured = [pair for pair in FEATURED_RIVALS if pair in pairs]
    chosen = metrics.set_index(["metric_a", "metric_b"]).loc[featured].reset_index()
    lines += [frame_to_markdown(_metric_rows(chosen)), ""]
    lines += [
        replication_sentence(r.metric_a, r.metric_b, "correlates better with humans than", int(r.k_bonferroni),
                             int(r.n_sets), "language pairs", alpha)
        for r in chosen.itertuples(index=False)
    ]  # fmt: skip
    lines.append("")
    best = metrics.iloc[0]
    lines.append(
        replication_sentence(
            best.metric_a,
            best.metric_b,
            "correlates better with humans than",
            int(best.k_bonferroni),
            int(best.n_sets),
            "language pairs",
            alpha,
        )
    )
    return lines


#: Rivals whose comparison the protocol section always shows (when both are in the protocol's tasks): the task's
#: leaders against each other and the baselines people use.
PROTOCOL_RIVALS: tuple[tuple[str, str], ...] = (
    ("XCOMET-Ensemble", "MetricX-23"),
    ("MetricX-23", "XCOMET-Ensemble"),
    ("XCOMET-Ensemble", "GEMBA-MQM[noref]"),
    ("GEMBA-MQM[noref]", "XCOMET-Ensemble"),
    ("XCOMET-Ensemble", "COMET"),
    ("MetricX-23", "COMET"),
    ("COMET", "BLEURT-20"),
    ("CometKiwi[noref]", "COMET"),
    ("COMET", "BLEU"),
    ("BLEU", "COMET"),
    ("chrF", "BLEU"),
    ("BLEU", "chrF"),
)


def protocol_replicability_lines(protocol: pd.DataFrame, alpha: float) -> list[str]:
    """The section of a metrics-task protocol (rows of :func:`mtsig.studies.replicability.protocol_replicability`):
    per (experiment, protocol, task kind), how many ordered pairs of metrics beat their rival in at least k of the
    language pairs, and the familiar rivals (:data:`PROTOCOL_RIVALS`)."""
    lines = []
    for (experiment, name, kind), group in protocol.groupby(["experiment", "protocol", "kind"], sort=False):
        n = int(group["n_sets"].max())
        lines += [
            f"## Does a metric beat another across the {n} language pairs of {experiment}? ({name} protocol, {kind})",
            "",
            f'Per ordered pair of metrics (A, B): the one-sided p-value of "A beats B" in the task {kind} of each '
            "language pair, from the protocol's paired permutation test (both directions from the same resamples, "
            "(c + 1)/(n + 1)), combined. Ordered pairs of metrics by k (Bonferroni):",
            "",
        ]
        counts = group["k_bonferroni"].value_counts()
        lines += [
            frame_to_markdown(
                pd.DataFrame(
                    {
                        "k (Bonf.)": [f"at least {k} of {n}" if k else "none" for k in range(n, -1, -1)],
                        "ordered pairs": [int(counts.get(k, 0)) for k in range(n, -1, -1)],
                    }
                )
            ),
            "Familiar rivals:",
            "",
        ]
        pairs = set(zip(group["metric_a"], group["metric_b"], strict=True))
        featured = [pair for pair in PROTOCOL_RIVALS if pair in pairs]
        chosen = group.set_index(["metric_a", "metric_b"]).loc[featured].reset_index()
        lines += [frame_to_markdown(_metric_rows(chosen)), ""]
        lines += [
            replication_sentence(r.metric_a, r.metric_b, f"beats ({kind})", int(r.k_bonferroni), int(r.n_sets),
                                 "language pairs", alpha)
            for r in chosen.itertuples(index=False)
        ]  # fmt: skip
        lines.append("")
    return lines
