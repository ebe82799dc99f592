"""The pipeline's steps of one experiment called as its rules call them: each with the part of the experiment's
settings (mtsig.settings.Experiment) its rule passes as params (workflow/rules/*.smk), for the tests that run the
steps of a configured or hand-made experiment without Snakemake."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mtsig.pipeline import config as mtsig_config
from mtsig.settings import Experiment
from mtsig.steps.data import prepare_texts
from mtsig.steps.human import human_gold
from mtsig.steps.metrics import write_metric_stats


def experiment_of(block: dict[str, Any], name: str = "x", metrics: list[Any] | None = None) -> Experiment:
    """A hand-made or configured experiment block as the pipeline reads it (the run's ``metrics`` where it lists
    none)."""
    return mtsig_config.experiment({"experiments": {name: block}, "metrics": metrics or []}, name)


def prepare(spec: Experiment, data_root: Path, texts: Path, documents: Path, name: str = "x") -> None:
    """Rule ``prepare_texts``: its params are the experiment's text sources."""
    prepare_texts(spec.text_sources(), data_root, texts=texts, documents=documents, experiment=name)


def statistics(
    spec: Experiment,
    metric: str,
    texts: Path,
    stats: Path,
    data_root: Path | None = None,
    documents: Path | None = None,
) -> None:
    """Rule ``metric_stats``, for one metric: its params are the metric's options, or its declaration."""
    declaration = spec.declarations.get(metric)
    write_metric_stats(
        metric,
        texts,
        stats,
        options=None if declaration is not None else spec.metric_options(metric),
        declaration=declaration,
        data_root=data_root,
        documents=documents,
    )


def gold(spec: Experiment, data_root: Path, **arguments: Any) -> None:
    """Rule ``human_gold``: its params are the experiment's ``human``, ``qc``, ``standardise`` and ``gold``."""
    human_gold(
        spec.human,
        spec.gold,
        data_root,
        quality_control=spec.qc,
        standardise=spec.standardise,
        **arguments,
    )
