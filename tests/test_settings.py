"""The typed settings (mtsig.settings), the one home of the settings' defaults, against the config schema and
config/README.md: each dataclass has exactly its block's properties, each field's default is the schema's default
and the README's, the blocks of config/config.yaml build, build refuses an unknown key or a missing required one,
the library reads no YAML for its defaults and no library signature states one again."""

from __future__ import annotations

import ast
import copy
import dataclasses
import functools
import json
import re
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import pytest
import yaml

from mtsig import settings
from mtsig.errors import InputError
from mtsig.pipeline import config as mtsig_config

REPO = Path(__file__).resolve().parents[1]
SCHEMA_FILE = REPO / "workflow" / "schemas" / "config.schema.yaml"
SCHEMA = yaml.safe_load(SCHEMA_FILE.read_text(encoding="utf-8"))


def schema_node(path: tuple[str, ...]) -> dict[str, Any]:
    node: Any = SCHEMA
    for part in path:
        node = node[part]
    return mtsig_config.resolve_ref(node, SCHEMA)


def without_none(value: Any) -> Any:
    """A block without its unset (None) keys, all the way down: a dataclass names its optional fields, the filled
    config block only those it has."""
    if isinstance(value, dict):
        return {k: without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_none(v) for v in value]
    return value


def schema_default(node: dict[str, Any]) -> Any:
    """A property's schema default with its nested blocks' defaults filled in (as validation fills them), or
    ``...`` when it has none."""
    default = node.get("default", mtsig_config.resolve_ref(node, SCHEMA).get("default", ...))
    if default is ...:
        return ...
    return mtsig_config.fill_defaults(copy.deepcopy(default), node, SCHEMA)


@functools.cache
def validated_default_config() -> dict[str, Any]:
    """config/config.yaml with its experiment files merged, validated and filled in as the Snakefile does."""
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text(encoding="utf-8"))
    mtsig_config.merge_experiment_files(config, REPO)
    mtsig_config.validate_config(config, SCHEMA_FILE, [("config/config.yaml", config)])
    return config


@pytest.mark.parametrize("cls", list(settings.SCHEMA_BLOCKS), ids=lambda cls: cls.__name__)
def test_fields_are_the_schema_blocks_properties(cls: type) -> None:
    properties = schema_node(settings.SCHEMA_BLOCKS[cls])["properties"]
    assert {f.name for f in dataclasses.fields(cls)} == set(properties)


@pytest.mark.parametrize("cls", list(settings.SCHEMA_BLOCKS), ids=lambda cls: cls.__name__)
def test_each_default_is_the_schemas(cls: type) -> None:
    """Field by field: a schema default is the dataclass's (nested blocks compared filled in); a field without a
    schema default is required (no dataclass default) or optional (default None)."""
    node = schema_node(settings.SCHEMA_BLOCKS[cls])
    required = set(node.get("required", ()))
    for field in dataclasses.fields(cls):
        child = node["properties"][field.name]
        expected = schema_default(child)
        if expected is not ...:
            assert settings.has_default(cls, field.name), field.name
            assert without_none(settings.as_block(settings.default_of(cls, field.name))) == without_none(
                expected
            ), field.name
        elif field.name in required:
            assert not settings.has_default(cls, field.name), field.name
        else:
            assert settings.default_of(cls, field.name) is None, field.name


def test_the_defaults_are_not_all_the_same_value() -> None:
    """The comparison above is of values that differ from block to block (it can fail): a wrong default in one
    dataclass is caught."""
    changed = dataclasses.replace(settings.Resampling(), seed=1)
    node = schema_node(settings.SCHEMA_BLOCKS[settings.Resampling])
    assert settings.as_block(changed)["seed"] != schema_default(node["properties"]["seed"])
    assert settings.Resampling().seed == 20140626 and settings.MetricsTaskOutliers().scale == 1.4826


def test_a_dataclass_is_a_python_users_config() -> None:
    """Without a config, the dataclass gives every default (what validation fills in)."""
    assert settings.build(settings.Resampling) == settings.Resampling()
    gold = settings.HumanGold(methods=("wilcoxon",))
    block = mtsig_config.fill_defaults({"methods": ["wilcoxon"]}, SCHEMA["$defs"]["gold"], SCHEMA)
    assert settings.build(settings.HumanGold, block) == gold


def merged_config(*files: str) -> dict[str, Any]:
    """The config files (relative to the checkout) merged as Snakemake merges --configfile, with their experiment
    files, as the Snakefile has it before validation."""

    def update(into: dict[str, Any], source: dict[str, Any]) -> None:
        for key, value in source.items():
            if isinstance(value, dict) and isinstance(into.get(key), dict):
                update(into[key], value)
            else:
                into[key] = value

    config: dict[str, Any] = {}
    for name in files:
        update(config, yaml.safe_load((REPO / name).read_text(encoding="utf-8")) or {})
    mtsig_config.merge_experiment_files(config, REPO)
    return config


CONFIG_FILES = sorted(
    str(p.relative_to(REPO))
    for p in [*(REPO / "config").glob("*.yaml"), *(REPO / "tests" / "configs").glob("*.yaml")]
)


@pytest.mark.parametrize("extra", CONFIG_FILES)
def test_the_run_fills_the_defaults_snakemake_validate_fills(extra: str) -> None:
    """The Snakefile fills the config's defaults itself (mtsig.pipeline.config.fill_defaults, after its own
    validation), not by Snakemake's ``validate`` reading the schema a second time: the filled config, key order
    included, is the one Snakemake's ``validate`` gives (the oracle), for config/config.yaml (the Snakefile's
    configfile) with each config file of the checkout given as ``--configfile``."""
    from snakemake.utils import validate

    files = list(dict.fromkeys(["config/config.yaml", extra]))
    config = merged_config(*files)
    by_snakemake = copy.deepcopy(config)
    validate(by_snakemake, str(SCHEMA_FILE))
    mtsig_config.validate_config(config, SCHEMA_FILE, [(name, {}) for name in files])
    assert json.dumps(config) == json.dumps(by_snakemake)


def test_the_procedure_names_are_the_registries() -> None:
    """The settings name the ranking procedures without importing them: the names are the registries', in order."""
    from mtsig.stats.system_ranking import PROCEDURES
    from mtsig.studies.ranking_calibration import CALIBRATED

    assert settings.RANKING_PROCEDURES == tuple(PROCEDURES)
    assert settings.HumanRanking((), "", ()).procedures == tuple(PROCEDURES)
    assert settings.CALIBRATED_PROCEDURES == tuple(CALIBRATED)
    assert settings.HumanRankingCalibration().procedures == tuple(CALIBRATED)


def test_the_default_configs_blocks_build() -> None:
    config = validated_default_config()
    run = mtsig_config.run_settings(config)
    for field in dataclasses.fields(run):
        assert settings.as_block(getattr(run, field.name)) == config[field.name], field.name
    assert run.resampling.seed == 20140626 and isinstance(run.resampling.tests, tuple)
    assert isinstance(run.evaluation.clusters, settings.Clusters)
    for name, block in config["nbest"].items():
        assert settings.as_block(settings.build(settings.NBest, block, name)) == block
    for name, block in config["metrics_task"].items():
        task = settings.build(settings.MetricsTask, block, name)
        assert task.outliers.cutoff == 2.5 and isinstance(task.gold, settings.HumanGold)
        assert all(isinstance(v, settings.MetricsTaskVariant) for v in task.variants.values())
    for name, block in config["metrics_protocol"].items():
        protocol = settings.build(settings.MetricsProtocol, block, name)
        assert protocol.bootstrap.samples == block["bootstrap"]["samples"]
        assert {k: v.samples for k, v in protocol.protocols.items()} == {
            k: v["samples"] for k, v in block["protocols"].items()
        }
    for name, block in config["human_ranking"].items():
        ranking = settings.build(settings.HumanRanking, block, name)
        assert settings.as_block(ranking) == {**dict.fromkeys(("first_segment_id", "description")), **block}
    for name in config["experiments"]:
        spec = mtsig_config.experiment(config, name)
        assert spec.qc.method in ("t", "wilcoxon") and spec.standardise.ddof in (0, 1) and spec.gold.methods
        assert spec.metric_names and set(spec.declarations) <= set(spec.metric_names)


def test_first_segment_id_belongs_to_the_esa_format() -> None:
    """An ESA-only key: no default in any human block, refused where the format is not esa."""
    assert (
        "default"
        not in SCHEMA["$defs"]["experiment"]["properties"]["human"]["properties"]["first_segment_id"]
    )
    config = validated_default_config()
    for name in config["experiments"]:
        human = config["experiments"][name]["human"]
        assert "first_segment_id" not in human or human["format"] == "esa", name
    bad = copy.deepcopy(config)
    wmt12 = bad["experiments"]["wmt12-es-en"]
    wmt12["human"] = {**wmt12["human"], "first_segment_id": 1}
    with pytest.raises(InputError, match="first_segment_id"):
        mtsig_config.validate_config(bad, SCHEMA_FILE, [("config", bad)])


def test_a_synthetic_experiment_gets_the_dataclasses_defaults() -> None:
    """A synthetic experiment's definition is made by the pipeline and never validated: its blocks are built with
    the dataclasses' defaults (gold criteria, standardisation) and its own gold and QC when given."""
    config = {"synthetic": {"syn": {}}, "metrics": ["bleu"], "experiments": {}}
    spec = mtsig_config.experiment(config, "syn", Path("/tmp/results"))
    assert spec.gold.criteria == ("adequacy", "fluency") and spec.gold.significant_digits is None
    assert spec.gold.methods == ("wilcoxon",) and spec.standardise == settings.Standardise(1, "drop")
    assert spec.metric_names == ("bleu",) and spec.systems == tuple(f"sys{i}" for i in range(1, 7))
    config["synthetic"]["syn"] = {"gold": {"methods": ["head_to_head"]}, "qc": {"alpha": 0.01}}
    spec = mtsig_config.experiment(config, "syn", Path("/tmp/results"))
    assert spec.gold.methods == ("head_to_head",) and spec.qc == settings.QualityControl(alpha=0.01)
    assert mtsig_config.synthetic_generator(config["synthetic"]["syn"]) == {
        "seed": 1, "systems": 6, "segments": 300, "annotators": 12,
    }  # fmt: skip


def test_build_refuses_unknown_keys_and_missing_required_ones() -> None:
    block = dict(validated_default_config()["replicability"])
    with pytest.raises(InputError, match="unknown key.*spare"):
        settings.build(settings.Replicability, {**block, "spare": 1})
    del block["alpha"]
    assert settings.build(settings.Replicability, block).alpha == settings.Replicability.alpha
    with pytest.raises(InputError, match="missing key.*methods"):
        settings.build(settings.HumanGold, {"unit": "rating"})


def test_settings_are_frozen_and_hold_no_lists() -> None:
    resampling = settings.build(settings.Resampling, validated_default_config()["resampling"])
    with pytest.raises(dataclasses.FrozenInstanceError):
        resampling.seed = 1  # type: ignore[misc]
    protocol = settings.build(
        settings.MetricsProtocol, validated_default_config()["metrics_protocol"]["wmt23"]
    )
    with pytest.raises(TypeError):
        protocol.protocols["wmt23"] = settings.ProtocolTests(1)  # type: ignore[index]
    assert isinstance(protocol.lps, tuple) and isinstance(protocol.delta_metrics, tuple)


def test_a_protocol_experiments_settings_travel_in_one_shape() -> None:
    """A metrics-protocol experiment's block is built once into MetricsProtocol (workflow/rules/common.smk), passed to
    its rule as that object's block and built back by the step: the block round-trips unchanged, the manifests
    record the config's block, and a protocol's run options are the settings' ProtocolOptions with the protocol's
    resamples (RunOptions.of), never a value of their own."""
    from mtsig.studies.metrics_protocol import RunOptions

    for name, block in validated_default_config()["metrics_protocol"].items():
        protocol = settings.build(settings.MetricsProtocol, block, name)
        assert settings.as_block(protocol) == {"description": None, **block}
        assert settings.build(settings.MetricsProtocol, settings.as_block(protocol)) == protocol
        assert isinstance(protocol, settings.ProtocolOptions)
        for tested, tests in protocol.protocols.items():
            options = RunOptions.of(protocol, tested, 7)
            for field in dataclasses.fields(settings.ProtocolOptions):
                assert getattr(options, field.name) == getattr(protocol, field.name)
                assert settings.as_block(getattr(options, field.name)) == block[field.name]
            assert (
                (options.n_resamples, options.seed)
                == (tests.samples, 7)
                == (block["protocols"][tested]["samples"], 7)
            )
    shared = {f.name for f in dataclasses.fields(settings.ProtocolOptions)}
    assert shared < {f.name for f in dataclasses.fields(settings.MetricsProtocol)}
    assert shared < {f.name for f in dataclasses.fields(RunOptions)}


def test_text_sources_are_the_experiments_fields() -> None:
    """TextSources (rule prepare_texts' params) is a view of an experiment: its fields are the experiment's, with
    the same types, and segment_scores (the declarations, only without texts)."""
    experiment = {f.name: f.type for f in dataclasses.fields(settings.Experiment)}
    for field in dataclasses.fields(settings.TextSources):
        if field.name != "segment_scores":
            assert experiment[field.name] == field.type, field.name
            assert (
                settings.has_default(settings.Experiment, field.name)
                == settings.has_default(settings.TextSources, field.name)
                or field.name == "systems"
            )
    config = validated_default_config()
    with_texts = mtsig_config.experiment(config, "wmt12-es-en").text_sources()
    without = mtsig_config.experiment(config, "wmt20-ja-en").text_sources()
    assert with_texts.has_texts and not with_texts.segment_scores
    assert not without.has_texts and set(without.segment_scores) == set(
        mtsig_config.experiment(config, "wmt20-ja-en").metric_names
    )


# --- config/README.md ---------------------------------------------------------------------------------------------

#: The README's tables of keys: heading of the section -> the schema path of the block its keys are relative to.
README_TABLES = {
    "## Top-level keys": (),
    "### Any metric: segment scores computed elsewhere": ("$defs", "segment_scores_metric"),
    "## A metrics-task study: the WMT20 metrics task": ("properties", "metrics_task", "additionalProperties"),
    "## A metrics-task protocol: WMT23 on expert MQM": (
        "properties",
        "metrics_protocol",
        "additionalProperties",
    ),
    "## Human rankings: are WMT's human rankings right?": (
        "properties",
        "human_ranking",
        "additionalProperties",
    ),
}


def readme_rows() -> list[tuple[str, tuple[str, ...], str]]:
    """(section, key paths, default cell) of every row of the README's tables of keys; a key cell may name several
    keys (```a.b`, `.c``: ``a.c``)."""
    text = (REPO / "config" / "README.md").read_text(encoding="utf-8")
    rows = []
    for heading in README_TABLES:
        section = text.split(heading + "\n", 1)[1]
        section = re.split(r"\n#{2,3} ", section, maxsplit=1)[0]
        table = section.split("| key | default |", 1)[1].split("\n\n", 1)[0]
        for line in table.splitlines()[2:]:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            keys: list[str] = []
            for key in re.findall(r"`([^`]+)`", cells[0]):
                if key.startswith(".") and keys:
                    key = keys[-1].rsplit(".", 1)[0] + key
                keys.append(key)
            rows.append((heading, tuple(keys), cells[1]))
    return rows


def readme_node(heading: str, key: str) -> tuple[tuple[str, ...], dict[str, Any]] | None:
    """The schema path and node of a README key (``a.b``, ``nbest.<name>.parameters``); None for a key that
    names no property (``calibration.*``) or a study by name (``nbest.<name>``: the default cell names the default
    run's)."""
    if key.endswith("<name>"):
        return None
    path: tuple[str, ...] = README_TABLES[heading]
    for part in key.split("."):
        node = schema_node(path)
        if part == "<name>":
            path = (*path, "additionalProperties")
        elif part in node.get("properties", {}):
            path = (*path, "properties", part)
        else:
            return None
    return path, schema_node(path)


def documented_default(cell: str, count: int) -> list[Any] | None:
    """The default(s) a cell states: its backticked YAML literals outside parentheses (``(config.yaml: ...)`` names
    the default run's choice), one per key; None when it states none (``required``, a description)."""
    outside, depth, quoted = [], 0, False
    for char in cell:  # drop parenthesised remarks, not parentheses inside a literal
        quoted ^= char == "`"
        if not quoted and char in "()":
            depth = max(depth + (1 if char == "(" else -1), 0)
        elif depth == 0:
            outside.append(char)
    stated = re.findall(r"`([^`]+)`", "".join(outside))
    if not stated:
        return None
    if all(re.fullmatch(r"[a-z_0-9]+: .+", s) for s in stated):  # a block's fields: `n_systems: 20`, ...
        return [{k: v for s in stated for k, v in yaml.safe_load(s).items()}]
    assert len(stated) == count, f"{count} keys, {len(stated)} defaults: {cell}"
    return [yaml.safe_load(s) for s in stated]


def dataclass_default(path: tuple[str, ...], node: dict[str, Any]) -> Any:
    """The default of the settings field at schema path ``path`` (its dataclass's), or the schema's where no
    dataclass holds the key (top-level ``metrics``, ``data_root``)."""
    blocks = {block: cls for cls, block in settings.SCHEMA_BLOCKS.items()}
    parent, name = path[:-2], path[-1]
    if parent in blocks and path[-2] == "properties":
        cls = blocks[parent]
        return settings.as_block(settings.default_of(cls, name)) if settings.has_default(cls, name) else ...
    if path in blocks:  # a block with its own dataclass: every default
        return settings.as_block(settings.build(blocks[path]))
    return schema_default(node)


def test_readme_tables_state_the_dataclasses_defaults() -> None:
    """Every default config/README.md's tables of keys state is the dataclass's (the schema's where no dataclass
    holds the key); a key the README calls required has no default; a default the README leaves unstated is
    None."""
    checked = 0
    for heading, keys, cell in readme_rows():
        stated = documented_default(cell, len(keys))
        for index, key in enumerate(keys):
            found = readme_node(heading, key)
            if found is None:
                continue
            path, node = found
            expected = dataclass_default(path, node)
            if stated is None:
                assert expected in (..., None) or "required" not in cell, (key, cell)
                if "required" in cell:
                    assert expected is ..., key
                continue
            value = (
                stated[0]
                if len(stated) == 1 and isinstance(stated[0], dict) and len(keys) == 1
                else stated[index]
            )
            if isinstance(value, dict) and isinstance(expected, dict) and set(value) < set(expected):
                expected = {k: expected[k] for k in value}  # a block's row may name some of its fields
            assert without_none(value) == without_none(expected), (heading, key, value, expected)
            checked += 1
    assert checked >= 80  # the tables are parsed, not skipped


def test_every_setting_with_a_default_is_in_a_readme_table() -> None:
    """config/README.md documents every key: each field of the top-level blocks and of the study blocks with a
    table is named in a row."""
    named = set()
    for heading, keys, _ in readme_rows():
        for key in keys:
            found = readme_node(heading, key)
            if found is not None:
                named.add(found[0])
    documented_blocks = [
        cls
        for cls, path in settings.SCHEMA_BLOCKS.items()
        if path[:1] == ("properties",) and "additionalProperties" not in path or cls in (
            settings.MetricsTask, settings.MetricsProtocol, settings.HumanRanking, settings.SegmentScoresMetric,
            settings.ProtocolBootstrap, settings.ProtocolChance, settings.ProtocolPower, settings.MetricsTaskOutliers,
        )
    ]  # fmt: skip
    missing = []
    for cls in documented_blocks:
        block = settings.SCHEMA_BLOCKS[cls]
        for field in dataclasses.fields(cls):
            if settings._dataclass_in(typing.get_type_hints(cls)[field.name]):
                continue  # a nested block: its own fields are checked
            if (*block, "properties", field.name) not in named and block not in named:
                missing.append(f"{cls.__name__}.{field.name}")
    assert missing == []


# --- defaults once --------------------------------------------------------------------------------------------------


def test_settings_and_the_library_read_no_yaml(tmp_path: Path) -> None:
    """The settings module imports only the standard library (and mtsig.errors): a Python user's defaults come
    from the dataclasses, never from the schema file; no module under stats/ or studies/ reads YAML. Checked in a
    fresh interpreter, and in the source."""
    code = (
        "import sys; import mtsig.settings; import mtsig.studies.human_ranking, mtsig.stats.human;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('yaml', 'jsonschema')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
    for folder in ("stats", "studies"):
        for path in (REPO / "src" / "mtsig" / folder).rglob("*.py"):
            source = path.read_text(encoding="utf-8")
            assert "import yaml" not in source and "config.schema" not in source, path
    trees = [
        ast.parse(p.read_text(encoding="utf-8")) for p in (REPO / "src" / "mtsig" / "settings").glob("*.py")
    ]
    imported = {
        (node.module or "").split(".")[0] if isinstance(node, ast.ImportFrom) else alias.name.split(".")[0]
        for tree in trees
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    assert imported <= {"__future__", "dataclasses", "types", "typing", "collections", "mtsig"}


#: Library parameter name -> the settings fields it stands for (a default equal to one of theirs restates it).
SETTING_PARAMETERS = {
    "seed": ["Resampling.seed"],
    "pvalue": ["Resampling.pvalue"],
    "n_samples": [
        "Resampling.samples",
        "Calibration.samples",
        "SegmentLevel.bootstrap_samples",
        "Power.samples",
    ],
    "samples": ["Resampling.samples"],
    "n_resamples": ["MetaEvaluation.bootstrap_samples", "MetaEvaluation.permutation_samples"],
    "bootstrap_samples": ["MetaEvaluation.bootstrap_samples", "Replicability.bootstrap_samples"],
    "permutation_samples": ["MetaEvaluation.permutation_samples"],
    "interval_level": ["Resampling.confidence"],
    "confidence": ["MetaEvaluation.confidence", "ProtocolBootstrap.confidence"],
    "alpha": [
        "Clusters.alpha",
        "Power.alpha",
        "Replicability.alpha",
        "MetaEvaluation.alpha",
        "MetricsTask.alpha",
    ],
    "test": ["Clusters.test", "Power.test"],
    "correction": ["Clusters.correction"],
    "trials": ["Power.trials"],
    "null_pairs": ["Calibration.null_pairs"],
    "alternatives_per_q": ["Calibration.alternatives_per_q"],
    "n_closest": ["Calibration.section2_pairs"],
    "min_matched": ["NBestParameters.min_matched"],
    "first_segment_id": ["HumanRanking.first_segment_id"],
    "reference_system": ["MqmTexts.reference_system", "HumanSource.reference_system"],
    "language": ["MeteorOptions.language"],
    "identical": ["MetricsTask.identical_metrics"],
    "reference_free_refset": ["MetricsTask.reference_free_refset"],
    "early_stopping": ["MetricsProtocol.early_stopping"],
    "spa_arithmetic": ["MetricsProtocol.spa_arithmetic"],
    "arithmetic": ["MetricsProtocol.spa_arithmetic"],
    "ddof": ["Standardise.ddof"],
    "zero_variance": ["Standardise.zero_variance"],
    "method": ["QualityControl.method"],
    "unit": ["HumanGold.unit"],
    "item_types": ["HumanGold.item_types"],
    "scale": ["MetricsTaskOutliers.scale"],
    "cutoff": ["MetricsTaskOutliers.cutoff", "Replicability.metric_outlier_cutoff"],
    "target": ["ProtocolPower.target"],
    "n_sets": ["ProtocolPower.samples"],
    "stability_sets": ["ProtocolPower.stability_samples"],
}

#: Parameters named like a setting that are another quantity: (module, function, parameter) -> what it is.
NOT_SETTINGS = {
    ("stats/system_ranking/procedures.py", "wmt24", "alpha"): "the WMT24 organisers' level (their procedure)",
    ("stats/system_ranking/procedures.py", "wmt26", "alpha"): "the WMT26 organisers' level (their procedure)",
    (
        "stats/system_ranking/ttest.py",
        "wmt26_ttest",
        "alpha",
    ): "the WMT26 organisers' level (their first rule)",
    ("stats/system_ranking/procedures.py", "wilcoxon_z", "alpha"): "WMT20-22's level (their procedure)",
    ("stats/system_ranking/procedures.py", "paper_test", "alpha"): "the paper's level of its tests",
    ("stats/system_ranking/procedures.py", "stratified_permutation", "alpha"): "the procedure's own level",
    (
        "stats/system_ranking/procedures.py",
        "stratified_permutation_documents",
        "alpha",
    ): "the procedure's own level",
    ("stats/system_ranking/procedures.py", "paper_test", "n_resamples"): "the procedure's own resamples",
    ("stats/system_ranking/procedures.py", "wmt26_decisions", "confidence"): "the WMT26 organisers' level",
    (
        "stats/training_runs.py",
        "compare_training_runs",
        "n_samples",
    ): "the library's B (the pipeline passes the paired bootstrap's resampling.samples)",
    ("studies/power.py", "power_curve", "n_samples"): "the power command's B (power.samples is 200)",
    (
        "stats/meta_evaluation/metric_ranking.py",
        "assign_ranks",
        "alpha",
    ): "mt-metrics-eval's AssignRanks' level",
    ("stats/replicability.py", "replicability_count", "alpha"): "Dror et al. 2017's family-wise level",
    ("stats/replicability.py", "replicated_sets", "alpha"): "Dror et al. 2017's family-wise level",
    ("studies/rankeval.py", "pairwise_tau_tests", "alpha"): "the level of the tau tests (no setting)",
}


def _field_default(qualified: str) -> Any:
    cls_name, field = qualified.split(".")
    cls = getattr(settings, cls_name)
    return settings.as_block(settings.default_of(cls, field)) if settings.has_default(cls, field) else ...


def _literal(node: ast.expr) -> Any:
    if ast.unparse(node) in ("1 << 30", "2 ** 30", "2**30"):
        return 2**30
    try:
        value = ast.literal_eval(node)
    except ValueError:
        return ...
    return list(value) if isinstance(value, tuple) else value


def restated_defaults(root: Path) -> list[str]:
    """Parameters of the library (io, metrics, stats, studies, report) whose literal default equals the default of
    a setting they stand for (:data:`SETTING_PARAMETERS`), and module constants named after a setting with its
    value (the MAD rule's, the metric-outlier cutoff)."""
    found = []
    constants = {"MAD_SCALE": "MetricsTaskOutliers.scale", "MAD_CUTOFF": "MetricsTaskOutliers.cutoff",
                 "METRIC_OUTLIER_CUTOFF": "Replicability.metric_outlier_cutoff", "WILLIAMS_ALPHA": "MetricsTask.alpha",
                 "DEFAULT_LEVEL": "Resampling.confidence"}  # fmt: skip
    for folder in ("io", "metrics", "stats", "studies", "report"):
        for path in sorted((root / folder).rglob("*.py")):
            relative = path.relative_to(root).as_posix()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for target in targets:
                        name = getattr(target, "id", None)
                        if name in constants and _literal(node.value) == _field_default(constants[name]):
                            found.append(f"{relative}: {name} = {ast.unparse(node.value)}")
                if not isinstance(node, ast.FunctionDef):
                    continue
                args = node.args
                positional = args.posonlyargs + args.args
                pairs = list(
                    zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True)
                )
                pairs += [
                    (a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None
                ]
                for arg, default in pairs:
                    if (relative, node.name, arg.arg) in NOT_SETTINGS:
                        continue
                    value = _literal(default)
                    if value is ... or value is None or isinstance(value, bool):
                        continue
                    if arg.arg == "memory_cap_bytes" and value == settings.MEMORY_CAP_BYTES:
                        found.append(f"{relative}: {node.name}({arg.arg}={ast.unparse(default)})")
                    same = [q for q in SETTING_PARAMETERS.get(arg.arg, ()) if value == _field_default(q)]
                    if same:
                        found.append(f"{relative}: {node.name}({arg.arg}={ast.unparse(default)}) {same[0]}")
    return found


def test_no_library_signature_restates_a_schema_default() -> None:
    """A library function takes a setting explicitly, its settings object, or defaults to the field
    (``seed: int = Resampling.seed``): never the value written again."""
    assert restated_defaults(REPO / "src" / "mtsig") == []


def test_the_restatement_check_finds_one(tmp_path: Path) -> None:
    """The check above can fail: a module that writes the seed and the p-value rule again is caught."""
    (tmp_path / "stats").mkdir()
    (tmp_path / "stats" / "x.py").write_text(
        'MAD_CUTOFF = 2.5\ndef f(seed=20140626, pvalue="c/B", memory_cap_bytes=1 << 30):\n    pass\n'
    )
    assert len(restated_defaults(tmp_path)) == 4
