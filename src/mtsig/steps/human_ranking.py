"""Steps of ``workflow/rules/human_ranking.smk``: human ratings of MT systems ranked by every procedure of the
registry (:mod:`mtsig.studies.human_ranking`), and the report page."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from mtsig.errors import InputError
from mtsig.steps.files import read_intermediate_tsv, read_tsv, write_markdown, write_tsv

if TYPE_CHECKING:  # the study is imported when the step runs
    from mtsig.studies.human_ranking import HumanRankingResult

log = logging.getLogger("mtsig")


def _documents_folder(documents: Sequence[str | Path], lps: Sequence[str]) -> Path:
    """The one folder of the rule's ``<lp>.docs`` inputs, each language pair's file among them."""
    paths = [Path(p) for p in documents]
    folders = {p.parent for p in paths}
    if len(folders) != 1:
        raise InputError(f"the documents files are not in one folder: {sorted(map(str, folders))}")
    folder = folders.pop()
    missing = [lp for lp in lps if folder / f"{lp}.docs" not in paths]
    if missing:
        raise InputError(f"no documents file among the rule's inputs for {', '.join(missing)}", folder)
    return folder


def human_ranking(
    experiment: str,
    spec: Mapping[str, Any],
    data_root: str | Path,
    seed: int,
    *,
    ratings: Sequence[str | Path],
    documents: Sequence[str | Path],
    ranking: str | Path,
    pvalues: str | Path,
    disagreement: str | Path,
    disagreeing_pairs: str | Path,
    qc: str | Path,
    filtering: str | Path,
    notes: str | Path,
    rank_sets: str | Path,
) -> None:
    """Read the experiment's ESA exports (``ratings``, the organisers' filtering: :func:`mtsig.io.esa.read_esa`) and
    rank every language pair's systems by every configured procedure (:func:`mtsig.studies.human_ranking.
    rank_language_pairs`, seeds from the run's ``resampling.seed``): ``ranking.tsv``, ``ranking_pvalues.tsv``,
    ``disagreement.tsv``, ``disagreeing_pairs.tsv``, ``notes.tsv``; the raters' quality control of those pairs
    (``qc.tsv``: :func:`mtsig.stats.human.esa_quality_control` of the ratings and BAD items read, reported, nobody
    removed, as the organisers), the rows each filtering step dropped (``filtering.tsv``), and which systems could
    be first: each pair's confidence sets for ranks (``rank_sets.tsv``: :func:`mtsig.studies.human_ranking.
    rank_sets_of_pairs` with the block's ``rank_sets_*`` settings)."""
    from mtsig.io.esa import read_esa
    from mtsig.settings import HumanRanking, build
    from mtsig.stats.human import esa_quality_control
    from mtsig.studies.human_ranking import rank_language_pairs, rank_sets_of_pairs

    settings = build(HumanRanking, spec, f"human_ranking.{experiment}")
    folder = _documents_folder(documents, settings.lps)
    export = read_esa(list(ratings), folder, first_segment_id=settings.first_segment_id)
    result = rank_language_pairs(
        export.ratings,
        settings.lps,
        settings.procedures,
        experiment=experiment,
        seed=seed,
        resamples=settings.resamples,
    )
    recorded = {
        "experiment": experiment,
        "seed": seed,
        "lps": list(result.lps),
        "procedures": list(result.procedures),
        "resamples": dict(result.resamples),
        "alphas": dict(result.alphas),
    }
    options = {
        "coverage": settings.rank_sets_coverage,
        "resamples": settings.rank_sets_resamples,
        "units": settings.rank_sets_units,
    }
    sets = rank_sets_of_pairs(export.ratings, settings.lps, experiment=experiment, seed=seed, **options)
    quality = esa_quality_control(export.ratings, export.bad_items)
    quality = quality.loc[quality["lp"].isin(settings.lps)]
    dropped = export.dropped.assign(file=[Path(f).name for f in export.dropped["file"]])
    for frame, path in (
        (result.ranking, ranking),
        (result.pvalues, pvalues),
        (result.disagreement, disagreement),
        (result.disagreeing_pairs, disagreeing_pairs),
        (result.notes, notes),
        (quality.reset_index(drop=True), qc),
        (dropped, filtering),
    ):
        write_tsv(frame, path, made_by="human_ranking", settings=recorded)
    write_tsv(sets, rank_sets, made_by="human_ranking", settings={**recorded, "rank_sets": options})
    log_ranking(result, quality)
    for lp, group in sets.groupby("lp", sort=False):
        log.info("%s: %d of %d systems could be first", lp, int(group["could_be_first"].sum()), len(group))


def log_ranking(result: HumanRankingResult, quality: pd.DataFrame) -> None:
    """Per language pair and procedure: the system pairs called different; the raters failing QC."""
    called = result.pvalues.groupby(["lp", "procedure"], sort=False)["beats"].sum()
    for (lp, procedure), count in called.items():
        log.info("%s %s: %d system pairs called different", lp, procedure, int(count))
    for lp, group in quality.groupby("lp", sort=True):
        failed = group.loc[~group["passed"].astype(bool)]
        log.info("%s: %d of %d raters fail QC (%s)", lp, len(failed), len(group), ", ".join(failed["rater"]))
    for row in result.notes.itertuples(index=False):
        log.info("%s %s: %s", row.lp, row.procedure, row.note)


def human_ranking_table(
    experiment: str,
    description: str | None,
    *,
    ranking: str | Path,
    pvalues: str | Path,
    disagreement: str | Path,
    qc: str | Path,
    notes: str | Path,
    md: str | Path,
    html: str | Path,
    calibration: str | Path | Sequence[str | Path] = (),
    rank_sets: str | Path | None = None,
    png: str | Path | None = None,
    pdf: str | Path | None = None,
) -> None:
    """``results/tables/<experiment>.md`` and ``.html`` (:func:`mtsig.report.human_ranking.human_ranking_markdown`);
    ``calibration`` (none or one file: the procedures' error rates, ``calibration.tsv``, when a rule writes it)
    adds its section; ``rank_sets`` (``rank_sets.tsv``) the section "Which systems could be first?" and its figure
    (``png``, and ``pdf`` with ``figures.pdf``: :func:`mtsig.report.rank_set_plots.plot_rank_sets`).
    ``description``: the experiment's (the page's title; None: its name)."""
    from mtsig.report.human_ranking import human_ranking_markdown

    tables = {
        "ranking": read_intermediate_tsv(ranking, "human_ranking"),
        "pvalues": read_intermediate_tsv(pvalues, "human_ranking"),
        "disagreement": read_intermediate_tsv(disagreement, "human_ranking"),
        "qc": read_intermediate_tsv(qc, "human_ranking"),
        "notes": read_intermediate_tsv(notes, "human_ranking"),
    }
    settings = tables["ranking"].attrs["settings"]
    calibration_files = [calibration] if isinstance(calibration, str | Path) else list(calibration)
    calibration_table = None
    if calibration_files:
        calibration_table = read_tsv(calibration_files[0])
    sets = None if rank_sets is None else read_intermediate_tsv(rank_sets, "human_ranking")
    set_settings = None if sets is None else sets.attrs["settings"]["rank_sets"]
    title = description or experiment
    page = human_ranking_markdown(
        tables,
        title=title,
        seed=settings["seed"],
        resamples=settings["resamples"],
        calibration=calibration_table,
        rank_sets=sets,
        rank_set_settings=set_settings,
    )
    if sets is not None and png is not None:
        from mtsig.report.plots import FIGURE_DPI, save_figure
        from mtsig.report.rank_set_plots import plot_rank_sets

        figure = plot_rank_sets(sets, float(set_settings["coverage"]))
        save_figure(figure, [png, *([pdf] if pdf else [])], dpi=FIGURE_DPI)
    write_markdown(page, md, html, made_by="human_ranking_table", settings={"experiment": experiment})
