"""The pipeline configuration: experiment files, the data root, validation and per-experiment paths.

The Snakefile validates ``config`` against ``workflow/schemas/config.schema.yaml`` (Snakemake's ``validate``); this
module does what a schema cannot: merging the per-experiment files, the ``MTSIG_DATA`` override, checking that every
name in ``run`` is defined, and turning an experiment's relative paths into absolute ones.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from mtsig.errors import InputError

DATA_ROOT_ENV = "MTSIG_DATA"


def merge_experiment_files(config: dict[str, Any], base_dir: Path) -> None:
    """Add the experiments defined in ``config["experiment_files"]`` to ``config["experiments"]`` in place.

    An experiment already present in ``config`` (e.g. from a ``--configfile`` of the user's) wins over the file.
    Each file has the shape of a stand-alone experiment config: ``run: [...]`` and ``experiments: {name: {...}}``.
    """
    experiments = config.setdefault("experiments", {})
    for relative in config.get("experiment_files", []):
        path = (base_dir / relative).resolve()
        if not path.is_file():
            raise InputError("experiment file listed in experiment_files does not exist", path)
        with path.open(encoding="utf-8") as handle:
            loaded = yaml.safe_load(handle) or {}
        if not isinstance(loaded.get("experiments"), Mapping):
            raise InputError("an experiment file must define a mapping `experiments:`", path)
        for name, spec in loaded["experiments"].items():
            experiments.setdefault(name, spec)


def resolve_data_root(config: Mapping[str, Any], base_dir: Path) -> Path:
    """The data root: ``$MTSIG_DATA`` if set (relative to the current directory, as a shell user expects), else
    ``config["data_root"]`` relative to ``base_dir`` (the repository)."""
    from_env = os.environ.get(DATA_ROOT_ENV)
    if from_env:
        return Path(from_env).resolve()
    return (base_dir / config.get("data_root", "../shared/data")).resolve()


def experiment_kinds(config: Mapping[str, Any]) -> dict[str, str]:
    """Map every defined experiment name to its kind: ``outputs``, ``synthetic``, ``jcml`` or ``nbest``."""
    kinds: dict[str, str] = {}
    for kind, names in (
        ("outputs", config.get("experiments", {})),
        ("synthetic", config.get("synthetic", {})),
        ("jcml", config.get("segment_level", {}).get("jcml", {})),
        ("nbest", config.get("nbest", {})),
    ):
        for name in names:
            if name in kinds:
                raise InputError(f"experiment {name!r} is defined twice (as {kinds[name]} and as {kind})")
            kinds[name] = kind
    return kinds


def check_run(config: Mapping[str, Any]) -> dict[str, list[str]]:
    """Group the names in ``config["run"]`` by kind; an undefined name is an error listing the defined ones."""
    kinds = experiment_kinds(config)
    unknown = [name for name in config["run"] if name not in kinds]
    if unknown:
        raise InputError(
            f"run names undefined experiment(s) {', '.join(unknown)}; defined: {', '.join(sorted(kinds)) or 'none'}"
        )
    grouped: dict[str, list[str]] = {"outputs": [], "synthetic": [], "jcml": [], "nbest": []}
    for name in config["run"]:
        grouped[kinds[name]].append(name)
    return grouped


def synthetic_experiment(name: str, spec: Mapping[str, Any], results_dir: Path) -> dict[str, Any]:
    """The experiment definition of a synthetic experiment whose data the pipeline generates under
    ``results/{name}/synthetic/`` (see :mod:`mtsig.synthetic`)."""
    from mtsig.synthetic import SyntheticSpec, system_names

    data = results_dir / name / "synthetic"
    synthetic = SyntheticSpec(**spec)
    return {
        "description": f"synthetic: {synthetic.systems} systems of planted quality (seed {synthetic.seed})",
        "source_language": "xx",
        "target_language": "en",
        "reference": str(data / "reference.txt"),
        "outputs": str(data / "system.{system}.txt"),
        "systems": system_names(synthetic),
        "unescape_html": False,
        "documents": {"format": "tsv", "path": str(data / "documents.tsv")},
        "meteor": {"language": "other"},
        "human": {"format": "tidy", "path": str(data / "ratings.tsv")},
        "qc": {"enabled": True, "method": "t", "alpha": 0.05},
        "gold": {"methods": ["wilcoxon"], "unit": "rating"},
    }


def experiment(config: Mapping[str, Any], name: str, results_dir: Path = Path("results")) -> dict[str, Any]:
    """The definition of a system-output experiment (real or synthetic) with defaults filled in."""
    if name in config.get("synthetic", {}):
        spec = synthetic_experiment(name, config["synthetic"][name], results_dir.resolve())
    else:
        spec = dict(config["experiments"][name])
    spec.setdefault("metrics", list(config.get("metrics", ["bleu", "nist", "meteor", "ter", "chrf"])))
    spec.setdefault("unescape_html", False)
    spec.setdefault("meteor", {})
    spec.setdefault("qc", {})
    spec.setdefault("standardise", {})
    spec["name"] = name
    return spec


def data_path(data_root: Path, relative: str) -> Path:
    """An experiment path: absolute paths are kept, relative ones are taken from the data root."""
    path = Path(relative)
    return path if path.is_absolute() else data_root / path


def output_paths(spec: Mapping[str, Any], data_root: Path) -> dict[str, Path]:
    """System name -> output file, from the experiment's ``outputs`` pattern."""
    return {system: data_path(data_root, spec["outputs"].format(system=system)) for system in spec["systems"]}
