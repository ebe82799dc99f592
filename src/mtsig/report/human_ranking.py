"""The page of a human-ranking experiment (:mod:`mtsig.studies.human_ranking`): each language pair's systems
ranked by every procedure side by side, where the procedures disagree, which systems could be first (confidence
sets for ranks, beside WMT24's first cluster), the raters' quality control, and (when the calibration study has
run) how often each procedure is wrong."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from mtsig.report.tables import frame_to_markdown
from mtsig.stats.human import ESA_QC_ALPHA
from mtsig.stats.system_ranking import PROCEDURES

#: The score columns of a language pair's table: (label, the procedures whose score it is, first found used).
SCORE_COLUMNS = (
    ("Macro avg", ("wmt24", "wmt24_scipy114", "stratified_permutation", "stratified_permutation_documents")),
    (
        "Mean",
        (
            "wmt25",
            "wmt26",
            "wmt26_paired",
            "wmt26_unpaired",
            "wmt26_ttest",
            "paired_bootstrap",
            "approximate_randomization",
        ),
    ),
)


def rank_cell(cluster: int, top: int, worst: int) -> str:
    """``cluster · top–worst`` (a single rank when top = worst)."""
    ranks = f"{top}" if top == worst else f"{top}–{worst}"
    return f"{cluster} · {ranks}"


def procedures_table(procedures: list[str], resamples: Mapping[str, int]) -> pd.DataFrame:
    """One row per procedure run: what it is, its level, its resamples and what it reproduces."""
    return pd.DataFrame(
        {
            "Procedure": procedures,
            "What it does": [PROCEDURES[p].summary for p in procedures],
            "α": [f"{PROCEDURES[p].alpha:g}" for p in procedures],
            "Resamples": [str(resamples.get(p, 0)) if PROCEDURES[p].resamples else "" for p in procedures],
            "Source": [PROCEDURES[p].source for p in procedures],
        }
    )


def language_pair_table(ranking: pd.DataFrame, procedures: list[str]) -> pd.DataFrame:
    """One language pair's systems (in the first procedure's order) with the score columns and every procedure's
    cluster and rank range."""
    first = ranking.loc[ranking["procedure"] == procedures[0]]
    table = pd.DataFrame({"System": first["system"].to_numpy()})
    for label, sources in SCORE_COLUMNS:
        source = next((p for p in sources if p in procedures), None)
        if source is not None:
            scores = ranking.loc[ranking["procedure"] == source].set_index("system")["score"]
            table[label] = [f"{scores[s]:.2f}" for s in table["System"]]
    for procedure in procedures:
        rows = ranking.loc[ranking["procedure"] == procedure].set_index("system")
        table[procedure] = [
            rank_cell(rows.at[s, "cluster"], rows.at[s, "top_rank"], rows.at[s, "worst_rank"])
            for s in table["System"]
        ]
    return table


def disagreement_matrix(disagreement: pd.DataFrame, called: pd.Series, procedures: list[str]) -> pd.DataFrame:
    """Procedures x procedures: off the diagonal the system pairs on which two procedures disagree (one calls a
    difference the other does not, or opposite winners); on the diagonal the pairs the procedure calls different."""
    cells = {p: {q: "" for q in procedures} for p in procedures}
    for row in disagreement.itertuples(index=False):
        cells[row.procedure_a][row.procedure_b] = cells[row.procedure_b][row.procedure_a] = str(row.disagree)
    for p in procedures:
        cells[p][p] = f"**{int(called[p])}**"
    return pd.DataFrame({"": procedures, **{q: [cells[p][q] for p in procedures] for q in procedures}})


#: The procedure whose first cluster the rank sets are compared with: WMT24's, the organisers' own.
FIRST_CLUSTER_PROCEDURE = "wmt24"


def first_place_summary(rank_sets: pd.DataFrame, ranking: pd.DataFrame) -> pd.DataFrame:
    """Per pair: its systems, how many could be first (the τ-best set, τ = 1) and, when WMT24's procedure was run,
    how many it puts in its first cluster."""
    clusters = ranking.loc[ranking["procedure"] == FIRST_CLUSTER_PROCEDURE]
    rows = []
    for lp, group in rank_sets.groupby("lp", sort=False):
        first = clusters.loc[(clusters["lp"] == lp) & (clusters["cluster"] == 1)]
        rows.append((lp, len(group), int(group["could_be_first"].sum()), len(first)))
    table = pd.DataFrame(rows, columns=["Pair", "Systems", "Could be first", "WMT24's first cluster"])
    return table if len(clusters) else table.iloc[:, :3]


def rank_set_table(rows: pd.DataFrame, ranking: pd.DataFrame) -> pd.DataFrame:
    """One pair's systems, best first: mean item score, estimated rank, marginal and simultaneous sets, whether
    it could be first, and its WMT24 cluster (when that procedure was run)."""
    table = pd.DataFrame(
        {
            "System": rows["system"].to_numpy(),
            "Mean": [f"{v:.2f}" for v in rows["estimate"]],
            **rank_set_columns(rows, rows["could_be_first"]),
        }
    )
    clusters = ranking.loc[ranking["procedure"] == FIRST_CLUSTER_PROCEDURE].set_index(["lp", "system"])
    if len(clusters):
        lp = rows["lp"].iloc[0]
        table["WMT24 cluster"] = [str(clusters.at[(lp, s), "cluster"]) for s in table["System"]]
    return table


def rank_set_columns(rows: pd.DataFrame, first: pd.Series) -> dict[str, object]:
    """The columns a rank-set table shows after its estimate: each row's ``Rank``, its ``Marginal`` and
    ``Simultaneous`` sets (:func:`rank_ranges`) and whether it ``Could be first`` (``first``, truthy)."""
    return {
        "Rank": rows["rank"].astype(str).to_numpy(),
        "Marginal": rank_ranges(rows, "marginal"),
        "Simultaneous": rank_ranges(rows, "simultaneous"),
        "Could be first": ["yes" if v else "" for v in first.astype(bool)],
    }


def rank_ranges(rows: pd.DataFrame, kind: str) -> list[str]:
    """Each row's ``kind`` set as ``2–7`` (a single rank when its bounds are equal)."""
    bounds = zip(rows[f"{kind}_lower"], rows[f"{kind}_upper"], strict=True)
    return [f"{lower}" if lower == upper else f"{lower}–{upper}" for lower, upper in bounds]


def first_place_section(
    rank_sets: pd.DataFrame, ranking: pd.DataFrame, settings: Mapping[str, object]
) -> list[str]:
    """ "Which systems could be first?": the summary per pair and each pair's rank sets; ``settings``: the rank
    sets' coverage, resamples and units (the table's manifest)."""
    coverage = float(settings["coverage"])  # type: ignore[arg-type]
    level = f"{100 * coverage:g}%"
    units = "whole documents" if settings["units"] == "documents" else "items"
    parts = [
        "\n## Which systems could be first?\n\nConfidence sets for ranks with guaranteed coverage (Mogstad, Romano, "
        'Shaikh & Wilhelm 2023; the sets of the R package csranks; docs/statistics.md, "Confidence sets for '
        f"ranks\") of each system's mean item score, from {settings['resamples']} paired bootstrap resamples of "
        f"{units} (in ESA one rater scores a system's whole document). *Could be first*: the τ-best set for "
        f"τ = 1, which holds the truly best system with probability at least {level}. The marginal set covers one "
        f"system's rank with probability {level}, the simultaneous sets cover every rank at once. WMT24's first "
        "cluster: the systems the organisers' procedure (`wmt24`) ranks in cluster 1, from unadjusted pairwise "
        "tests (results/<experiment>/rank_sets.tsv; figure results/figures/<experiment>/rank_sets.png).\n",
        frame_to_markdown(first_place_summary(rank_sets, ranking)),
    ]
    for lp, rows in rank_sets.groupby("lp", sort=False):
        parts += [f"\n### {lp}\n", frame_to_markdown(rank_set_table(rows, ranking))]
    return parts


def quality_control_summary(qc: pd.DataFrame) -> pd.DataFrame:
    """Per language pair: raters, how many pass the paired t-test of their BAD items, and the others with their
    p-values (or why they cannot be tested)."""
    rows = []
    for lp, group in qc.groupby("lp", sort=True):
        passed = group["passed"].astype(bool)
        failed = group.loc[~passed]
        described = [
            f"{r.rater} (p {r.p_value:.3f})" if pd.notna(r.p_value) else f"{r.rater} ({r.note})"
            for r in failed.itertuples(index=False)
        ]
        rows.append((lp, len(group), int(passed.sum()), "; ".join(described) or "none"))
    return pd.DataFrame(rows, columns=["Pair", "Raters", "Pass", "Fail or untestable"])


def human_ranking_markdown(
    tables: Mapping[str, pd.DataFrame],
    *,
    title: str,
    seed: int,
    resamples: Mapping[str, int],
    calibration: pd.DataFrame | None = None,
    rank_sets: pd.DataFrame | None = None,
    rank_set_settings: Mapping[str, object] | None = None,
) -> str:
    """The page (Markdown). ``tables``: the experiment's ``ranking``, ``pvalues``, ``disagreement``, ``qc`` and
    ``notes`` tables; ``calibration``: the error-rate table of the calibration study, or None (no section);
    ``rank_sets`` (with its ``rank_set_settings``): the rank sets of each pair, or None (no section)."""
    ranking, pvalues = tables["ranking"], tables["pvalues"]
    procedures = list(dict.fromkeys(ranking["procedure"]))
    lps = list(dict.fromkeys(ranking["lp"]))
    parts = [
        f"# {title}\n",
        "The same human ratings ranked by every procedure of mtsig's registry: the WMT24-26 organisers' own, "
        "WMT20-22's Wilcoxon test on z scores, the paper's two tests on the item-score means (Graham, Mathur & "
        "Baldwin 2014) and a permutation test stratified by domain that answers WMT24's macro-average question, "
        "with items or whole documents exchanged (in ESA one rater scores one system's document). Each cell is the "
        "system's cluster · rank range (1 = best) under that procedure; systems in the first procedure's order. "
        f'Randomised procedures are seeded from {seed} (docs/statistics.md, "Ranking systems from human '
        'scores").\n',
        frame_to_markdown(procedures_table(procedures, resamples)),
    ]
    for lp in lps:
        in_lp = ranking.loc[ranking["lp"] == lp]
        n = int(in_lp["procedure"].eq(procedures[0]).sum())
        called = pvalues.loc[pvalues["lp"] == lp].groupby("procedure")["beats"].sum()
        summary = ", ".join(f"{p} {int(called[p])}" for p in procedures)
        parts += [
            f"\n## {lp}: {n} systems\n",
            frame_to_markdown(language_pair_table(in_lp, procedures)),
            f"\nSystem pairs called different (of {n * (n - 1) // 2}): {summary}.\n",
        ]
    parts.append(
        "\n## Where the procedures disagree\n\nSystem pairs on which two procedures disagree: one declares a "
        "difference and the other does not, or they declare opposite winners (results/<experiment>/"
        "disagreement.tsv; the pairs themselves in disagreeing_pairs.tsv). Diagonal, in bold: the pairs the "
        "procedure calls different.\n"
    )
    for lp in lps:
        called = pvalues.loc[pvalues["lp"] == lp].groupby("procedure")["beats"].sum()
        matrix = disagreement_matrix(tables["disagreement"].query("lp == @lp"), called, procedures)
        parts += [f"\n### {lp}\n", frame_to_markdown(matrix)]
    if rank_sets is not None:
        parts += first_place_section(rank_sets, ranking, rank_set_settings or {})
    parts += [
        "\n## Raters' quality control\n\nEach rater's BAD items (deliberately damaged translations) against the same "
        f"rater's rating of the original: a one-sided paired t-test at {ESA_QC_ALPHA:g} (Graham et al. 2013, as WMT DA "
        "applied it). Reported only: the WMT24 organisers keep every rater, and so do these rankings.\n",
        frame_to_markdown(quality_control_summary(tables["qc"])),
    ]
    notes = tables["notes"]
    if len(notes):
        parts.append("\n## Notes\n")
        parts += [f"- {row.lp}, {row.procedure}: {row.note}" for row in notes.itertuples(index=False)]
        parts.append("")
    if calibration is not None:
        parts += [
            "\n## How often is each procedure wrong? (known truth)\n\nThe calibration study's error rates "
            "(results/<experiment>/calibration.tsv; figure results/figures/<experiment>/calibration.png).\n",
            frame_to_markdown(calibration),
        ]
    return "\n".join(parts)
