"""The replicability table (``results/tables/replicability.md``): partial conjunction tests over experiments and
over the WMT20 language pairs (:mod:`mtsig.studies.replicability`)."""

from __future__ import annotations

import pandas as pd

from mtsig.report.tables import frame_to_markdown, test_label


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
    per_set: pd.DataFrame, combined: pd.DataFrame, metrics: pd.DataFrame, alpha: float, top: int = 20
) -> str:
    """The whole table: tests across experiments, then metrics across language pairs."""
    lines = [
        "# Do the conclusions replicate? Partial conjunction tests (Dror et al. 2017)",
        "",
        "In how many of N test sets does an effect hold? `k` is the estimate of Dror et al. (2017, Sec. 4.3): the "
        "largest u whose partial conjunction p-value (Bonferroni: any dependence; Fisher: independent test sets) "
        f'is at most α = {alpha:g}; "at least k of N" is wrong with probability at most α.',
        "",
        "## Is one randomized test more accurate than another, across the experiments?",
        "",
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
                "A > B": f"{test_label(test_a)} > {test_label(test_b)}",
                **{e: cells[e] for e in experiments},
                "k (Bonf.)": k["bonferroni"],
                "k (Fisher)": k["fisher"],
            }
        )
        rows[-1]["conclusion"] = replication_sentence(
            test_label(test_a),
            test_label(test_b),
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
    table["comparison"] = [" > ".join(map(test_label, c.split(" > "))) for c in table["comparison"]]
    table.columns = [str(c) if c != "comparison" else "A > B" for c in table.columns]
    lines += [frame_to_markdown(table), ""]
    if metrics.empty:  # no metrics task in the run
        return "\n".join(lines) + "\n"
    lines += [
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
    return "\n".join(lines) + "\n"
