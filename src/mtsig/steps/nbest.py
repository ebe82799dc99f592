"""Steps of ``workflow/rules/nbest.smk``: n-best list evaluation (Bremerman et al. 2020)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mtsig.errors import InputError
from mtsig.pipeline import config as mtsig_config
from mtsig.settings import NBest, build
from mtsig.steps.files import (
    write_markdown,
    write_tsv,
)

log = logging.getLogger("mtsig")


def nbest(
    spec: Mapping[str, Any],
    data_root: str | Path,
    *,
    seed: int,
    systems: str | Path,
    ablation: str | Path,
    bleu_grid: str | Path,
    md: str | Path,
    html: str | Path,
    figures: str | Path,
) -> None:
    """The n-best experiment (mtsig.studies.nbest) on a STAPLE gold: systems, ablation, BLEU grid, MAP table, figures."""
    from mtsig.io.staple import read_staple_gold, read_system_file
    from mtsig.report.nbest_plots import plot_all
    from mtsig.report.tables import nbest_markdown
    from mtsig.studies.nbest import run_nbest_experiment

    settings = build(NBest, spec, "nbest")
    extra = settings.systems
    if "aws_baseline" in extra:
        raise InputError("nbest.systems names a system aws_baseline, the organisers' baseline's name")
    sources = {"aws_baseline": mtsig_config.data_path(data_root, settings.baseline)}
    sources |= {name: mtsig_config.data_path(data_root, p) for name, p in extra.items()}
    results = run_nbest_experiment(
        read_staple_gold(mtsig_config.data_path(data_root, settings.gold)),
        {name: read_system_file(path) for name, path in sources.items()},
        settings.parameters,
        seed,
        sources,
    )
    write_tsv(results["systems"], systems)
    write_tsv(results["ablation"], ablation)
    write_tsv(results["bleu_grid"], bleu_grid)
    write_markdown(nbest_markdown(results), md, html, made_by="nbest")
    plot_all(results, figures)
