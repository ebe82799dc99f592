"""The pipeline's settings as typed, frozen objects: one dataclass per block of the config.

``workflow/schemas/config.schema.yaml`` is the only home of the settings' defaults: Snakemake's ``validate`` fills
them in, and :func:`build` then takes every field from the validated block, refusing a block that lacks a field or
has one the dataclass does not know (``tests/test_settings.py`` checks that each dataclass's fields are its
schema block's properties, so the two cannot drift). Lists become tuples and mappings read-only, so a settings
object cannot be changed after it is built; a ``float`` field holds a float even where the YAML wrote an integer.

A field typed ``... | None`` without a schema default is optional in the schema (absent means None); every other
field must be in the block.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import yaml

from mtsig.errors import InputError

Settings = TypeVar("Settings")


def _frozen(value: Any) -> Any:
    """Lists as tuples and mappings as read-only mappings, all the way down."""
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, Mapping):
        return types.MappingProxyType({k: _frozen(v) for k, v in value.items()})
    return value


def _allows_none(annotation: Any) -> bool:
    return type(None) in typing.get_args(annotation)


def _dataclass_in(annotation: Any) -> type | None:
    """The settings dataclass a field holds (``Clusters``, ``Clusters | None``), if any."""
    candidates = (annotation, *typing.get_args(annotation))
    return next((c for c in candidates if isinstance(c, type) and dataclasses.is_dataclass(c)), None)


def build(cls: type[Settings], block: Mapping[str, Any], where: str = "") -> Settings:
    """The settings object ``cls`` of a validated config block: every field from the block, nested blocks as their
    own dataclasses, lists as tuples, mappings read-only.

    Raises:
        InputError: the block lacks a field (the schema gives every field a default, so a validated block has
            them all) or has a key ``cls`` does not know.
    """
    if isinstance(block, cls):
        return block
    name = where or cls.__name__
    hints = typing.get_type_hints(cls)
    fields = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(block) - fields)
    missing = sorted(f for f in fields if f not in block and not _allows_none(hints[f]))
    if unknown or missing:
        problems = [f"unknown key(s) {', '.join(unknown)}"] * bool(unknown)
        problems += [f"missing key(s) {', '.join(missing)}"] * bool(missing)
        raise InputError(f"settings {name}: {'; '.join(problems)} (is the block validated by the schema?)")
    values = {}
    for field in fields:
        value = block.get(field)
        nested = _dataclass_in(hints[field])
        if nested is not None and isinstance(value, Mapping):
            values[field] = build(nested, value, f"{name}.{field}")
        else:
            values[field] = _as_annotated(_frozen(value), hints[field])
    return cls(**values)


def _as_annotated(value: Any, annotation: Any) -> Any:
    """An integer of a ``float`` field (the schema's ``number``: YAML reads ``10`` as an int) as a float, alone or
    in a tuple of floats."""
    if annotation is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if typing.get_origin(annotation) is tuple and typing.get_args(annotation) == (float, ...):
        return tuple(_as_annotated(v, float) for v in value)
    return value


def as_block(settings: Any) -> dict[str, Any]:
    """A settings object back as a plain config block (lists and dicts), e.g. to record it in a manifest."""

    def plain(value: Any) -> Any:
        if dataclasses.is_dataclass(value):
            return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
        if isinstance(value, tuple):
            return [plain(v) for v in value]
        if isinstance(value, Mapping):
            return {k: plain(v) for k, v in value.items()}
        return value

    return plain(settings)


# --- the schema ---------------------------------------------------------------------------------------------------

#: The schema of the config, the only home of the settings' defaults: package data, so that the library installed
#: from a wheel has its defaults too (``workflow/schemas/config.schema.yaml``, which the Snakefile validates
#: against, is a link to it).
SCHEMA_PATH = Path(__file__).with_name("config.schema.yaml")


#: libyaml's safe loader where PyYAML was built with it (the same documents, parsed several times faster: every
#: ``snakemake`` start reads the schema and the config files), else PyYAML's own.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(stream: Any) -> Any:
    """A YAML document (text or an open file), as ``yaml.safe_load`` reads it."""
    return yaml.load(stream, Loader=SAFE_LOADER)


@functools.cache
def load_schema(path: str | Path = SCHEMA_PATH) -> dict[str, Any]:
    """The config schema (``workflow/schemas/config.schema.yaml``) as a dict, read once (do not change it)."""
    with open(path, encoding="utf-8") as handle:
        return read_yaml(handle)


def resolve_ref(node: Mapping[str, Any], schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """Follow a local ``$ref`` (``#/$defs/name``)."""
    while "$ref" in node:
        target: Any = schema
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def fill_defaults(value: Any, node: Mapping[str, Any], schema: Mapping[str, Any]) -> Any:
    """Fill in the schema's defaults in ``value`` in place, as Snakemake's ``validate`` does for the config: every
    absent property with a ``default`` gets a copy of it, then nested objects are filled in the same way. For the
    definitions the pipeline makes itself (a synthetic experiment) and blocks a Python user writes
    (:func:`with_defaults`), which no validation sees."""
    node = resolve_ref(node, schema)
    if isinstance(value, dict):
        properties = node.get("properties", {})
        for key, child in properties.items():
            child = resolve_ref(child, schema)
            if key not in value and "default" in child:
                value[key] = copy.deepcopy(child["default"])
        extra = node.get("additionalProperties")
        for key in value:
            child = properties.get(key, extra if isinstance(extra, Mapping) else None)
            if child is not None:
                fill_defaults(value[key], child, schema)
    elif isinstance(value, list) and isinstance(node.get("items"), Mapping):
        for item in value:
            fill_defaults(item, node["items"], schema)
    return value


def block_with_defaults(cls: type, block: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A copy of the config block of ``cls`` (none: empty) with the schema's defaults filled in, as validation
    fills them."""
    schema = load_schema()
    node: Any = schema
    for part in SCHEMA_BLOCKS[cls]:
        node = node[part]
    return fill_defaults(copy.deepcopy(dict(block or {})), node, schema)


def with_defaults(cls: type[Settings], block: Mapping[str, Any] | None = None) -> Settings:
    """The settings object ``cls`` of ``block`` (none: all defaults) with the schema's defaults filled in: for a
    Python user calling the library without a validated config. The defaults are the schema's, never code's."""
    return build(cls, block_with_defaults(cls, block))


# --- resampling and evaluation ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Resampling:
    """``resampling``: the randomized tests' samples, seed and p-value rule, and the engine's settings
    (:data:`ENGINE_SETTINGS`, which change no number)."""

    seed: int
    samples: int | Mapping[str, int]
    pvalue: str
    memory_cap_mb: int
    pair_shards: int
    tests: tuple[str, ...]
    mean_block_length: float
    distribution_gap_quantile: float
    confidence: float
    distribution_pairs: str | tuple[tuple[str, str], ...]

    @property
    def memory_cap_bytes(self) -> int:
        return self.memory_cap_mb * 2**20


#: The settings of :class:`Resampling` that change how the engine works, never a number it writes (docs/design.md,
#: "Memory cap and sharding"): kept out of every rule's ``params``, so that changing them makes Snakemake rerun
#: nothing finished; they reach their jobs as resources (:func:`mtsig.steps.engine_params`).
ENGINE_SETTINGS = ("memory_cap_mb", "pair_shards")


@dataclass(frozen=True)
class Clusters:
    """``evaluation.clusters``: WMT-style significance clusters."""

    test: str
    alpha: float
    correction: str
    rule: str


@dataclass(frozen=True)
class Evaluation:
    """``evaluation``: the levels and corrections of the tests' accuracy, and the clusters."""

    alphas: tuple[float, ...]
    corrections: tuple[str, ...]
    clusters: Clusters


@dataclass(frozen=True)
class SegmentLevel:
    """``segment_level``: the RankEval measures of the experiments with ranking data and the JCML sets."""

    experiments: tuple[str, ...]
    jcml: Mapping[str, str]
    bootstrap_samples: int
    convention: str
    predicted_rankings: Mapping[str, Mapping[str, str]]


@dataclass(frozen=True)
class Calibration:
    """``calibration``: the calibration study by simulation and Section 2 in numbers."""

    experiments: tuple[str, ...]
    null_pairs: int
    samples: int
    alphas: tuple[float, ...]
    q: tuple[float, ...]
    swap_units: tuple[str, ...]
    alternatives_per_q: int
    planted_alpha: float
    figure_alpha: float
    section2_pairs: int


@dataclass(frozen=True)
class HumanRankingCalibration:
    """``human_ranking_calibration``: error rates of the human-ranking procedures with known truth
    (:mod:`mtsig.studies.ranking_calibration`)."""

    experiment: str
    ratings: tuple[str, ...]
    documents: str
    language_pairs: tuple[str, ...]
    procedures: tuple[str, ...]
    exchange_units: tuple[str, ...]
    null_pairs: int
    shifts: tuple[float, ...]
    heterogeneous_shifts: tuple[float, ...]
    alternative_pairs: int
    cluster_tiers: tuple[int, ...]
    cluster_sorting: float
    cluster_sets: int
    flips: bool


@dataclass(frozen=True)
class Power:
    """``power``: power by test-set size and planted difference."""

    experiments: tuple[str, ...]
    metric: str
    test: str
    alpha: float
    trials: int
    samples: int
    q: tuple[float, ...]
    target_power: float


@dataclass(frozen=True)
class Replicability:
    """``replicability``: partial conjunction tests and the delta-agreement curves."""

    alpha: float
    bootstrap_samples: int
    metric_outlier_cutoff: float


@dataclass(frozen=True)
class MetaEvaluation:
    """``meta_evaluation``: which metric agrees with the humans, per experiment."""

    alpha: float
    bootstrap_samples: int
    permutation_samples: int
    confidence: float


@dataclass(frozen=True)
class Figures:
    """``figures``: the formats of the figures."""

    pdf: bool


@dataclass(frozen=True)
class Verification:
    """``verification``: the checksum list of artifact review."""

    expected: str


# --- studies defined by name ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NBestParameters:
    """``nbest.<name>.parameters``: the simulation of :func:`mtsig.studies.nbest.run_nbest_experiment` (ranges are
    (low, high) of a uniform draw per simulated system; depths and references are counts or ``"all"``)."""

    n_systems: int
    list_length: int
    p_valid_head: tuple[float, ...]
    p_valid_tail: tuple[float, ...]
    head_length: float
    drift: tuple[float, ...]
    max_edits: int
    f1_depth: int
    min_matched: int
    kept_fractions: tuple[float, ...]
    bleu_depths: tuple[int | str, ...]
    bleu_references: tuple[int | str, ...]


@dataclass(frozen=True)
class NBest:
    """``nbest.<name>``: an n-best experiment on a STAPLE gold."""

    gold: str
    parameters: NBestParameters
    systems: Mapping[str, str]
    baseline: str | None = None


@dataclass(frozen=True)
class MetricsTaskOutliers:
    """``metrics_task.<name>.outliers``: the MAD rule on the DA scores of the systems correlated."""

    score: str
    scale: float
    cutoff: float


@dataclass(frozen=True)
class MetricsTaskVariant:
    """``metrics_task.<name>.variants.<variant>``: a pair's DA against the metric rows of another lp code."""

    pair: str
    metric_lp: str
    metric_scores: tuple[str, ...] | None = None


@dataclass(frozen=True)
class HumanGold:
    """An experiment's ``gold`` (and a metrics task's): the methods, unit, item types and criteria of the human
    gold."""

    methods: tuple[str, ...]
    unit: str
    item_types: tuple[str, ...]
    criteria: tuple[str, ...]
    significant_digits: int | None


@dataclass(frozen=True)
class MetricsTask:
    """``metrics_task.<name>``: a system-level metric meta-evaluation of a metrics shared task."""

    root: str
    pairs: tuple[str, ...]
    gold: HumanGold
    human_system_scores: str
    da_system_scores: str
    human_segment_scores: str
    metric_scores: tuple[str, ...]
    refset: str
    reference_free: tuple[str, ...]
    reference_free_refset: str
    exclude_systems: tuple[str, ...]
    human_as_metric: bool
    identical_metrics: str
    alpha: float
    kinds: tuple[str, ...]
    outliers: MetricsTaskOutliers
    published_outliers: Mapping[str, tuple[str, ...]]
    variants: Mapping[str, Mapping[str, Any]]
    description: str | None = None

    def variant(self, name: str) -> MetricsTaskVariant:
        """One of :attr:`variants` as its settings object."""
        return build(MetricsTaskVariant, self.variants[name], f"metrics_task.variants.{name}")


@dataclass(frozen=True)
class ProtocolBootstrap:
    """``metrics_protocol.<name>.bootstrap``: percentile bootstrap intervals of every task value."""

    samples: int
    confidence: float


@dataclass(frozen=True)
class ProtocolChance:
    """``metrics_protocol.<name>.chance``: chance levels of every task statistic."""

    samples: int


@dataclass(frozen=True)
class ProtocolPower:
    """``metrics_protocol.<name>.power``: power of the permutation tests and stability of the winner and cluster 1
    on re-drawn test sets (``pairs``: extra metric pairs, display names)."""

    samples: int
    stability_samples: int
    target: float
    pairs: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class MetricsProtocol:
    """``metrics_protocol.<name>``: a metrics task's protocol on expert MQM (``protocols``: task set ->
    ``{samples: ...}``)."""

    root: str
    lps: tuple[str, ...]
    protocols: Mapping[str, Mapping[str, int]]
    early_stopping: str
    spa_arithmetic: str
    alpha: float
    all_metrics: bool
    bootstrap: ProtocolBootstrap
    replicability_tasks: tuple[str, ...]
    delta_metrics: tuple[str, ...]
    human_metrics: tuple[str, ...]
    chance: ProtocolChance
    power: ProtocolPower
    gold: str | None
    description: str | None = None


@dataclass(frozen=True)
class HumanRanking:
    """``human_ranking.<name>``: human rankings of MT systems recomputed by every ranking procedure (``resamples``:
    randomised procedure -> its resamples)."""

    ratings: tuple[str, ...]
    documents: str
    first_segment_id: int
    lps: tuple[str, ...]
    procedures: tuple[str, ...]
    resamples: Mapping[str, int]
    description: str | None = None


# --- an experiment's human side ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class QualityControl:
    """An experiment's ``qc``: the DA annotators' quality control."""

    enabled: bool
    method: str
    alpha: float


@dataclass(frozen=True)
class Standardise:
    """An experiment's ``standardise``: per-annotator z-scores (``moments``: the organisers' printed means and sds,
    relative to the data root, used instead of the ratings' own)."""

    ddof: int
    zero_variance: str
    moments: str | None = None


@dataclass(frozen=True)
class HumanSource:
    """An experiment's ``human``: the judgments' file(s) and format and what each format's reader needs (the
    schema says which format reads which field; paths relative to the data root)."""

    format: str
    path: str | tuple[str, ...]
    standardised: bool
    segment_means: bool
    reference_system: str
    standardise_raters: bool
    first_segment_id: int
    criterion: str | None = None
    documents: str | None = None
    reference_systems: tuple[str, ...] | Mapping[str, str] | None = None
    sid2line: str | None = None
    z_path: str | None = None
    complete_from: Mapping[str, str] | None = None
    header: str | None = None
    source_language: str | None = None
    target_language: str | None = None
    weights: Mapping[str, float] | None = None


#: Settings dataclass -> its block's path in the schema (``properties``/``$defs`` keys), for the test that keeps
#: the two equal.
SCHEMA_BLOCKS: dict[type, tuple[str, ...]] = {
    Resampling: ("properties", "resampling"),
    Evaluation: ("properties", "evaluation"),
    Clusters: ("properties", "evaluation", "properties", "clusters"),
    SegmentLevel: ("properties", "segment_level"),
    Calibration: ("properties", "calibration"),
    HumanRankingCalibration: ("properties", "human_ranking_calibration"),
    Power: ("properties", "power"),
    Replicability: ("properties", "replicability"),
    MetaEvaluation: ("properties", "meta_evaluation"),
    Figures: ("properties", "figures"),
    Verification: ("properties", "verification"),
    NBest: ("properties", "nbest", "additionalProperties"),
    NBestParameters: ("properties", "nbest", "additionalProperties", "properties", "parameters"),
    MetricsTask: ("properties", "metrics_task", "additionalProperties"),
    MetricsTaskOutliers: ("properties", "metrics_task", "additionalProperties", "properties", "outliers"),
    MetricsTaskVariant: (
        "properties",
        "metrics_task",
        "additionalProperties",
        "properties",
        "variants",
        "additionalProperties",
    ),
    MetricsProtocol: ("properties", "metrics_protocol", "additionalProperties"),
    ProtocolBootstrap: ("properties", "metrics_protocol", "additionalProperties", "properties", "bootstrap"),
    HumanRanking: ("properties", "human_ranking", "additionalProperties"),
    ProtocolChance: ("properties", "metrics_protocol", "additionalProperties", "properties", "chance"),
    ProtocolPower: ("properties", "metrics_protocol", "additionalProperties", "properties", "power"),
    HumanGold: ("$defs", "gold"),
    QualityControl: ("$defs", "experiment", "properties", "qc"),
    Standardise: ("$defs", "experiment", "properties", "standardise"),
    HumanSource: ("$defs", "experiment", "properties", "human"),
}
