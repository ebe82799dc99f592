"""Steps of ``workflow/rules/nbest.smk``: n-best list evaluation (Bremerman et al. 2020)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mtsig import config as mtsig_config
from mtsig.steps.files import (
    write_text,
    write_tsv,
)

log = logging.getLogger("mtsig")


def nbest(spec: Mapping[str, Any], data_root: Path, *, seed: int, outputs: Mapping[str, str]) -> None:
    """The n-best experiment (mtsig.studies.nbest) on a STAPLE gold: systems, ablation, BLEU grid, MAP table, figures."""
    from mtsig.report.nbest_plots import plot_all
    from mtsig.report.tables import frame_to_markdown
    from mtsig.studies.nbest import run_nbest_experiment

    results = run_nbest_experiment(
        mtsig_config.data_path(data_root, spec["gold"]),
        mtsig_config.data_path(data_root, spec["baseline"]),
        dict(spec.get("parameters", {})),
        seed,
        {name: mtsig_config.data_path(data_root, p) for name, p in spec.get("systems", {}).items()},
    )
    write_tsv(results["systems"], outputs["systems"])
    write_tsv(results["ablation"], outputs["ablation"])
    write_tsv(results["bleu_grid"], outputs["bleu_grid"])
    systems = results["systems"].sort_values("map", ascending=False, kind="stable")
    columns = ["system", "simulated", "map", "weighted_f1", "bleu_1best_1ref", "bleu_100best_100ref"]
    text = [
        "# n-best lists: STAPLE en-pt (Bremerman et al. 2020)\n",
        "Every system with `simulated = True` is SIMULATED from the gold (parameters below); `aws_baseline` is the "
        "organisers' real 1-best baseline.\n",
        "## MAP and the other measures\n",
        frame_to_markdown(systems[columns]),
        "\n## Ablation of the gold: correlation of each step's MAP ranking with the full-gold ranking\n",
        frame_to_markdown(results["ablation"]),
        "\n## x-best y-reference BLEU against MAP\n",
        frame_to_markdown(results["bleu_grid"]),
        "\n## Simulation parameters\n",
        frame_to_markdown(results["parameters"]),
    ]
    write_text("\n".join(text), outputs["md"], made_by="nbest")
    plot_all(results, outputs["figures"])
