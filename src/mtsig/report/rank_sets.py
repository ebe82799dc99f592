"""Confidence sets for ranks (:mod:`mtsig.stats.rank_sets`; Mogstad, Romano, Shaikh & Wilhelm 2023) as text:
which systems could be first, and where each one could really rank.

The sets of one problem are a :class:`mtsig.stats.rank_sets.summary.RankSets` (marginal, simultaneous, τ-best).
Each output is one function: readable lines (:func:`rank_sets_lines`), the JSON record (:func:`rank_sets_record`),
a booktabs table (:func:`rank_sets_latex`), ``mtsig compare``'s TSV (:func:`rank_sets_frame`) and the signature
(:func:`sets_signature`).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from mtsig.report.signature import format_level, rank_sets_signature
from mtsig.report.tables import latex_escape, metric_label, ranked_table_latex
from mtsig.stats.rank_sets.summary import RankSets, rank_sets_table

#: How each kind of draws is described (:attr:`mtsig.stats.rank_sets.RankProblem.bootstrap`).
_UNITS = {
    "items": "items",
    "documents": "whole documents",
    "segments": "segments",
    "systems+items": "each language pair's systems and items",
}


def sets_signature(sets: RankSets, *, scores: str | None = None, metric_details: str | None = None) -> str:
    """The signature of ``sets`` (:func:`mtsig.report.signature.rank_sets_signature`)."""
    return rank_sets_signature(sets, scores=scores, metric_details=metric_details)


def draws_description(sets: RankSets) -> str:
    """How the draws were made, in words: ``1000 paired bootstrap resamples of whole documents (85)``, or the
    parametric bootstrap's normal draws."""
    if sets.bootstrap.startswith("normal"):
        return f"{sets.n_draws} draws of N(0, covariance) (the parametric bootstrap)"
    units = _UNITS.get(sets.bootstrap, sets.bootstrap)
    count = "" if sets.n_units is None else f" ({sets.n_units})"
    return f"{sets.n_draws} paired bootstrap resamples of {units}{count}"


def tie_notes(sets: RankSets) -> list[str]:
    """One note per group of systems with equal estimates: they share the better rank, and their sets overlap
    (a documented result, not an error: csranks's ``irank``)."""
    notes = []
    table = rank_sets_table(sets)
    for rank, group in table.groupby("rank", sort=True):
        if len(group) > 1:
            names = ", ".join(group["system"])
            notes.append(f"{names} have equal estimates: they share rank {rank} and their sets overlap")
    return notes


def top_line(sets: RankSets) -> str:
    """``could be first (the τ-best set, τ = 1, 95%): 10 of 16: A, B, ...`` (or among the τ best)."""
    members = sets.members
    what = "could be first" if sets.tau == 1 else f"could be among the {sets.tau} best"
    return (
        f"{what} (the tau-best set, tau = {sets.tau}, {format_level(sets.coverage)}): {len(members)} of "
        f"{len(sets.systems)}: {', '.join(members)}"
    )


def rank_sets_lines(sets: RankSets, score_format: str = "{:.4f}", ranked: str = "system") -> list[str]:
    """Readable lines: one row per system (estimate, estimated rank, its set of the kind shown, whether in the
    τ-best set), then who could be first (or among the τ best); ``ranked`` heads the first column."""
    kind, table = sets.kind, rank_sets_table(sets)
    header = [ranked, "estimate", "rank", f"{kind} {format_level(sets.coverage)}", f"top {sets.tau}"]
    rows = [header]
    for row in table.itertuples(index=False):
        low, high = getattr(row, f"{kind}_lower"), getattr(row, f"{kind}_upper")
        rows.append(
            [row.system, score_format.format(row.estimate), str(row.rank), f"[{low}, {high}]", "yes" if row.top else "no"]
        )  # fmt: skip
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    right = (False, True, True, False, False)
    lines = [
        "  ".join(
            c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right, strict=True)
        ).rstrip()
        for cells in rows
    ]
    return [*lines, top_line(sets)]


def rank_sets_record(sets: RankSets) -> dict[str, object]:
    """The JSON record: the settings and ``systems``, one entry per system best first with ``system``,
    ``estimate``, ``rank``, ``marginal`` and ``simultaneous`` (``[lower, upper]``) and ``top`` (in the τ-best set)."""
    table = rank_sets_table(sets)
    return {
        "kind": sets.kind,
        "coverage": sets.coverage,
        "tau": sets.tau,
        "bootstrap": sets.bootstrap,
        "draws": sets.n_draws,
        "units": sets.n_units,
        "top_set": list(sets.members),
        "systems": [
            {
                "system": row.system,
                "estimate": float(row.estimate),
                "rank": int(row.rank),
                "marginal": [int(row.marginal_lower), int(row.marginal_upper)],
                "simultaneous": [int(row.simultaneous_lower), int(row.simultaneous_upper)],
                "top": bool(row.top),
            }
            for row in table.itertuples(index=False)
        ],
        "notes": tie_notes(sets),
    }


def rank_sets_latex(
    sets: RankSets, *, caption: str, label: str, score_header: str = "Score", score_format: str = "{:.2f}"
) -> str:
    """A booktabs table (needs ``\\usepackage{booktabs}``), as :func:`mtsig.report.clusters.clusters_latex` lays
    its tables out: the set of the kind shown, system (``$\\star$`` when in the τ-best set), score, best first."""
    kind = sets.kind
    level = format_level(sets.coverage).replace("%", r"\%")
    rows = []
    for row in rank_sets_table(sets).itertuples(index=False):
        low, high = getattr(row, f"{kind}_lower"), getattr(row, f"{kind}_upper")
        ranks = f"{low}" if low == high else f"{low}--{high}"
        star = r"$^\star$" if row.top else ""
        rows.append(
            f"{ranks} & {latex_escape(str(row.system))}{star} & {score_format.format(row.estimate)} \\\\"
        )
    what = "could be first" if sets.tau == 1 else f"could be among the {sets.tau} best"
    full_caption = (
        f"{latex_escape(caption)} {kind.capitalize()} {level} confidence sets for ranks (Mogstad, Romano, Shaikh "
        f"\\& Wilhelm 2023) from {latex_escape(draws_description(sets))}; $\\star$: {what} (the $\\tau$-best "
        f"set, $\\tau = {sets.tau}$)."
    )
    return ranked_table_latex(f"{level} set", score_header, rows, full_caption, label)


def metric_rank_set_lines(metric: str, sets: RankSets, higher_is_better: bool = True) -> list[str]:
    """One metric's rank sets in ``mtsig compare``'s readable report: a heading that says what is ranked and how
    the draws were made, then :func:`rank_sets_lines`."""
    order = "" if higher_is_better else ", lower is better"
    heading = (
        f"{metric_label(metric)} rank sets (by the corpus score{order}): {sets.kind} at "
        f"{format_level(sets.coverage)}, from {draws_description(sets)}"
    )
    return [heading, *rank_sets_lines(sets), *(f"note: {note}" for note in tie_notes(sets))]


def rank_sets_frame(sets_by_metric: Sequence[tuple[str, RankSets, str]]) -> pd.DataFrame:
    """``mtsig compare --tsv --rank-sets``: ``metric``, :data:`TABLE_COLUMNS` and ``signature``, every metric's
    rows best first; ``sets_by_metric``: (metric, its sets, its signature)."""
    frames = []
    for metric, sets, signature in sets_by_metric:
        table = rank_sets_table(sets)
        table.insert(0, "metric", metric)
        table["signature"] = signature
        frames.append(table)
    return pd.concat(frames, ignore_index=True)
