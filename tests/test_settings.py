"""The typed settings (mtsig.settings) against the config schema: each dataclass has exactly its block's
properties, the blocks of config/config.yaml build once validated, and the constructor refuses a block that lacks
a field or has an unknown one."""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path
from typing import Any

import pytest
import yaml

from mtsig import settings
from mtsig.errors import InputError
from mtsig.pipeline import config as mtsig_config

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"


def schema_node(path: tuple[str, ...]) -> dict[str, Any]:
    schema = yaml.safe_load(SCHEMA.read_text(encoding="utf-8"))
    node: Any = schema
    for part in path:
        node = node[part]
    return mtsig_config._resolve(node, schema)


@functools.cache
def validated_default_config() -> dict[str, Any]:
    """config/config.yaml with its experiment files merged, validated and filled in as the Snakefile does."""
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text(encoding="utf-8"))
    mtsig_config.merge_experiment_files(config, REPO)
    mtsig_config.validate_config(config, SCHEMA, [("config/config.yaml", config)])
    return config


@pytest.mark.parametrize("cls", list(settings.SCHEMA_BLOCKS), ids=lambda cls: cls.__name__)
def test_fields_are_the_schema_blocks_properties(cls: type) -> None:
    properties = schema_node(settings.SCHEMA_BLOCKS[cls])["properties"]
    assert {f.name for f in dataclasses.fields(cls)} == set(properties)


@pytest.mark.parametrize("cls", list(settings.SCHEMA_BLOCKS), ids=lambda cls: cls.__name__)
def test_only_fields_without_a_schema_default_may_be_absent(cls: type) -> None:
    """A field may be absent from a block (None) only where the schema has it optional and without a default;
    every field with a schema default must come from the block (no default in code)."""
    node = schema_node(settings.SCHEMA_BLOCKS[cls])
    schema = yaml.safe_load(SCHEMA.read_text(encoding="utf-8"))
    required = set(node.get("required", ()))
    for field in dataclasses.fields(cls):
        prop = mtsig_config._resolve(node["properties"][field.name], schema)
        if field.default is not dataclasses.MISSING:
            assert field.default is None and "default" not in prop and field.name not in required, field.name


def test_the_default_configs_blocks_build() -> None:
    config = validated_default_config()
    top = {
        "resampling": settings.Resampling,
        "evaluation": settings.Evaluation,
        "segment_level": settings.SegmentLevel,
        "calibration": settings.Calibration,
        "human_ranking_calibration": settings.HumanRankingCalibration,
        "power": settings.Power,
        "replicability": settings.Replicability,
        "meta_evaluation": settings.MetaEvaluation,
        "figures": settings.Figures,
        "verification": settings.Verification,
    }
    for key, cls in top.items():
        built = settings.build(cls, config[key])
        assert settings.as_block(built) == config[key]
    resampling = settings.build(settings.Resampling, config["resampling"])
    assert resampling.seed == 20140626 and isinstance(resampling.tests, tuple)
    assert isinstance(settings.build(settings.Evaluation, config["evaluation"]).clusters, settings.Clusters)
    for name, block in config["nbest"].items():
        assert settings.as_block(settings.build(settings.NBest, block, name)) == block
    for name, block in config["metrics_task"].items():
        task = settings.build(settings.MetricsTask, block, name)
        assert task.outliers.cutoff == 2.5 and isinstance(task.gold, settings.HumanGold)
        for variant in task.variants:
            assert task.variant(variant).pair
    for name, block in config["metrics_protocol"].items():
        assert (
            settings.build(settings.MetricsProtocol, block, name).bootstrap.samples
            == block["bootstrap"]["samples"]
        )
    for name, block in config["human_ranking"].items():
        ranking = settings.build(settings.HumanRanking, block, name)
        assert settings.as_block(ranking) == block and isinstance(ranking.procedures, tuple)
    for name in config["experiments"]:
        spec = mtsig_config.experiment(config, name)
        qc = settings.build(settings.QualityControl, spec["qc"])
        standardise = settings.build(settings.Standardise, spec["standardise"])
        gold = settings.build(settings.HumanGold, spec["gold"])
        assert qc.method in ("t", "wilcoxon") and standardise.ddof in (0, 1) and gold.methods


def test_a_synthetic_experiment_gets_the_schemas_defaults() -> None:
    """A synthetic experiment's definition is made by the pipeline and never validated: its blocks are filled from
    the schema (gold criteria, standardisation) and build."""
    config = {"synthetic": {"syn": {}}, "metrics": ["bleu"], "experiments": {}}
    spec = mtsig_config.experiment(config, "syn", Path("/tmp/results"))
    gold = settings.build(settings.HumanGold, spec["gold"])
    assert gold.criteria == ("adequacy", "fluency") and gold.significant_digits is None
    assert settings.build(settings.Standardise, spec["standardise"]) == settings.Standardise(1, "drop")


def test_build_refuses_missing_and_unknown_keys() -> None:
    block = dict(validated_default_config()["replicability"])
    with pytest.raises(InputError, match="unknown key.*spare"):
        settings.build(settings.Replicability, {**block, "spare": 1})
    del block["alpha"]
    with pytest.raises(InputError, match="missing key.*alpha"):
        settings.build(settings.Replicability, block)


def test_settings_are_frozen_and_hold_no_lists() -> None:
    resampling = settings.build(settings.Resampling, validated_default_config()["resampling"])
    with pytest.raises(dataclasses.FrozenInstanceError):
        resampling.seed = 1  # type: ignore[misc]
    protocol = settings.build(
        settings.MetricsProtocol, validated_default_config()["metrics_protocol"]["wmt23"]
    )
    with pytest.raises(TypeError):
        protocol.protocols["wmt23"]["samples"] = 1  # type: ignore[index]
    assert isinstance(protocol.lps, tuple) and isinstance(protocol.delta_metrics, tuple)
