"""The pipeline's settings as typed, frozen objects: one dataclass per block of the config, each with its defaults.

The dataclasses are the one home of the settings' defaults: a field's default is the setting's. The config schema
(``src/mtsig/config.schema.yaml``, which the Snakefile validates the config against and whose defaults it fills
in) states each default again for the config's readers, and ``tests/test_settings.py`` checks that the two
are equal, field by field, as it checks config/README.md's table. A library function that takes a setting states
no default of its own: it takes the settings object, or the value explicitly, or defaults to the field
(``seed: int = Resampling.seed``).

:func:`build` makes a settings object from a config block (validated or a Python user's): absent fields take their
defaults, a key the dataclass does not know is an error, nested blocks become their own dataclasses, lists become
tuples and mappings read-only, so a settings object cannot be changed after it is built; a ``float`` field holds a
float even where the YAML wrote an integer. A Python user may also call the dataclass itself
(``HumanGold(methods=("wilcoxon",))``). This package reads no file and imports nothing beyond the standard library.

The dataclasses live by area: the run's top-level blocks (:mod:`mtsig.settings.top_level`), an experiment's
(:mod:`mtsig.settings.experiment`), the studies defined by name (:mod:`mtsig.settings.studies`) and a metrics-task
protocol's (:mod:`mtsig.settings.metrics_protocol`); :mod:`mtsig.settings.building` builds them. Every name is
importable from ``mtsig.settings`` itself.
"""

from __future__ import annotations

from mtsig.settings.building import (
    Settings,
    _dataclass_in,
    as_block,
    build,
    default_of,
    given_fields,
    has_default,
)
from mtsig.settings.experiment import (
    BleuOptions,
    DocumentsFile,
    Experiment,
    HumanGold,
    HumanSource,
    MeteorOptions,
    MqmTexts,
    QualityControl,
    SegmentScoresMetric,
    Standardise,
    Synthetic,
    TerOptions,
    TextSources,
    metric_entries,
)
from mtsig.settings.metrics_protocol import (
    MetricsProtocol,
    ProtocolBootstrap,
    ProtocolChance,
    ProtocolOptions,
    ProtocolPower,
    ProtocolRankSets,
    ProtocolTests,
)
from mtsig.settings.studies import (
    CALIBRATED_PROCEDURES,
    RANKING_PROCEDURES,
    HumanRanking,
    MetricsTask,
    MetricsTaskOutliers,
    MetricsTaskVariant,
    NBest,
    NBestParameters,
)
from mtsig.settings.top_level import (
    ENGINE_SETTINGS,
    MEMORY_CAP_BYTES,
    Calibration,
    Clusters,
    Evaluation,
    Figures,
    HumanRankingCalibration,
    MetaEvaluation,
    Power,
    Replicability,
    Resampling,
    RunSettings,
    SegmentLevel,
    Verification,
)

__all__ = [
    "CALIBRATED_PROCEDURES", "ENGINE_SETTINGS", "MEMORY_CAP_BYTES", "RANKING_PROCEDURES", "SCHEMA_BLOCKS",
    "BleuOptions", "Calibration", "Clusters", "DocumentsFile", "Evaluation", "Experiment", "Figures", "HumanGold",
    "HumanRanking", "HumanRankingCalibration", "HumanSource", "MetaEvaluation", "MeteorOptions", "MetricsProtocol",
    "MetricsTask", "MetricsTaskOutliers", "MetricsTaskVariant", "MqmTexts", "NBest", "NBestParameters", "Power",
    "ProtocolBootstrap", "ProtocolChance", "ProtocolOptions", "ProtocolPower", "ProtocolRankSets", "ProtocolTests", "QualityControl",
    "Replicability", "Resampling", "RunSettings", "SegmentLevel", "SegmentScoresMetric", "Settings", "Standardise",
    "Synthetic", "TerOptions", "TextSources", "Verification", "_dataclass_in", "as_block", "build", "default_of",
    "given_fields", "has_default", "metric_entries",
]  # fmt: skip


#: Settings dataclass -> its block's path in the schema (``properties``/``$defs`` keys), for the test that keeps
#: the two equal (fields, defaults).
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
    Synthetic: ("properties", "synthetic", "additionalProperties"),
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
    ProtocolTests: (
        "properties",
        "metrics_protocol",
        "additionalProperties",
        "properties",
        "protocols",
        "additionalProperties",
    ),
    ProtocolBootstrap: ("properties", "metrics_protocol", "additionalProperties", "properties", "bootstrap"),
    ProtocolChance: ("properties", "metrics_protocol", "additionalProperties", "properties", "chance"),
    ProtocolPower: ("properties", "metrics_protocol", "additionalProperties", "properties", "power"),
    ProtocolRankSets: ("properties", "metrics_protocol", "additionalProperties", "properties", "rank_sets"),
    HumanRanking: ("properties", "human_ranking", "additionalProperties"),
    Experiment: ("$defs", "experiment"),
    MqmTexts: ("$defs", "experiment", "properties", "texts"),
    DocumentsFile: ("$defs", "experiment", "properties", "documents"),
    MeteorOptions: ("$defs", "experiment", "properties", "meteor"),
    BleuOptions: ("$defs", "experiment", "properties", "bleu"),
    TerOptions: ("$defs", "experiment", "properties", "ter"),
    SegmentScoresMetric: ("$defs", "segment_scores_metric"),
    HumanGold: ("$defs", "gold"),
    QualityControl: ("$defs", "experiment", "properties", "qc"),
    Standardise: ("$defs", "experiment", "properties", "standardise"),
    HumanSource: ("$defs", "experiment", "properties", "human"),
}
