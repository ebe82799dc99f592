"""Steps of ``workflow/rules/human_ranking_calibration.smk``: how often is each human-ranking procedure wrong?
Error rates with known truth planted into the real ESA ratings (:mod:`mtsig.studies.ranking_calibration`)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mtsig.errors import InputError
from mtsig.settings import HumanRankingCalibration, build
from mtsig.steps.files import write_tsv

log = logging.getLogger("mtsig")


def documents_folder(documents: Sequence[str | Path]) -> Path:
    """The one folder that holds every ``<lp>.docs`` file given (the reader takes the folder)."""
    folders = sorted({Path(path).parent for path in documents})
    if not folders:
        raise InputError("no documents file (<lp>.docs) in the configured documents folder")
    if len(folders) != 1:
        raise InputError(f"the documents files must share one folder; got {', '.join(map(str, folders))}")
    return folders[0]


def human_ranking_calibration(
    *,
    ratings: Sequence[str | Path],
    documents: Sequence[str | Path],
    settings: Mapping[str, Any],
    seed: int,
    table: str | Path,
    first_segment_id: int | None = None,
    png: str | Path,
    pdf: str | Path | None = None,
) -> None:
    """Read the ESA exports of the human-ranking experiment the study names (``ratings``, ``documents`` and
    ``first_segment_id`` of ``human_ranking.<experiment>``; :func:`mtsig.io.esa.read_esa`, the organisers'
    filtering; every kept rating, quality control not applied, as the WMT24 organisers rank), run
    :func:`mtsig.studies.ranking_calibration.ranking_calibration` with the ``human_ranking_calibration`` block and
    ``resampling.seed``, write its table and the figure of size, power and coverage by procedure (PNG, and PDF with
    ``figures.pdf``)."""
    from mtsig.io.esa import read_esa
    from mtsig.report.plots import FIGURE_DPI, save_figure
    from mtsig.report.ranking_calibration_plots import plot_ranking_calibration
    from mtsig.studies.ranking_calibration import ranking_calibration

    design = build(HumanRankingCalibration, settings, "human_ranking_calibration")
    export = read_esa(
        [Path(p) for p in ratings], documents_folder(documents), first_segment_id=first_segment_id
    )
    result = ranking_calibration(export.ratings, design, seed=seed, source=", ".join(map(str, ratings)))
    for procedure, seconds in result.cpu_seconds.items():
        log.info("%s: %.1f CPU s", procedure, seconds)
    write_tsv(result.table, table)
    figure = plot_ranking_calibration(result.table)
    # bbox "tight" keeps the legends, which sit below the panels
    save_figure(figure, [png, *([pdf] if pdf else [])], bbox_inches="tight", dpi=FIGURE_DPI)
