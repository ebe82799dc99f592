"""The pipeline's settings as typed, frozen objects: one dataclass per block of the config, each with its defaults.

The dataclasses are the one home of the settings' defaults: a field's default is the setting's. The config schema
(``src/mtsig/config.schema.yaml``, which Snakemake's ``validate`` applies and which fills the same defaults into
the config) states each default again for the config's readers, and ``tests/test_settings.py`` checks that the two
are equal, field by field, as it checks config/README.md's table. A library function that takes a setting states
no default of its own: it takes the settings object, or the value explicitly, or defaults to the field
(``seed: int = Resampling.seed``).

:func:`build` makes a settings object from a config block (validated or a Python user's): absent fields take their
defaults, a key the dataclass does not know is an error, nested blocks become their own dataclasses, lists become
tuples and mappings read-only, so a settings object cannot be changed after it is built; a ``float`` field holds a
float even where the YAML wrote an integer. A Python user may also call the dataclass itself
(``HumanGold(methods=("wilcoxon",))``). This module reads no file and imports nothing beyond the standard library.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from mtsig.errors import InputError

Settings = TypeVar("Settings")


def _frozen(value: Any) -> Any:
    """Lists as tuples and mappings as read-only mappings, all the way down."""
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, Mapping):
        return types.MappingProxyType({k: _frozen(v) for k, v in value.items()})
    return value


def _readonly(values: Mapping[str, Any] | None = None) -> Any:
    """A field default that is a read-only mapping (a dataclass refuses a plain dict as a default)."""
    return field(default_factory=lambda: _frozen(dict(values or {})))


def _dataclass_in(annotation: Any) -> type | None:
    """The settings dataclass a field holds (``Clusters``, ``Clusters | None``), if any."""
    candidates = (
        annotation,
        *(a for a in typing.get_args(annotation) if typing.get_origin(annotation) is not Mapping),
    )
    return next((c for c in candidates if isinstance(c, type) and dataclasses.is_dataclass(c)), None)


def _mapping_of_dataclass(annotation: Any) -> type | None:
    """The dataclass of the values of a ``Mapping[str, X]`` field (``protocols: Mapping[str, ProtocolTests]``)."""
    for candidate in (annotation, *typing.get_args(annotation)):
        if typing.get_origin(candidate) is Mapping:
            value_type = typing.get_args(candidate)[1]
            if isinstance(value_type, type) and dataclasses.is_dataclass(value_type):
                return value_type
    return None


def has_default(cls: type, name: str) -> bool:
    """Whether field ``name`` of the settings dataclass ``cls`` has a default (the setting is optional)."""
    spec = cls.__dataclass_fields__[name]  # type: ignore[attr-defined]
    return spec.default is not dataclasses.MISSING or spec.default_factory is not dataclasses.MISSING


def default_of(cls: type, name: str) -> Any:
    """The default of field ``name`` of the settings dataclass ``cls`` (its factory's value for a block)."""
    spec = cls.__dataclass_fields__[name]  # type: ignore[attr-defined]
    if spec.default_factory is not dataclasses.MISSING:
        return spec.default_factory()
    if spec.default is dataclasses.MISSING:
        raise KeyError(f"{cls.__name__}.{name} has no default")
    return spec.default


def build(cls: type[Settings], block: Mapping[str, Any] | None = None, where: str = "") -> Settings:
    """The settings object ``cls`` of a config block (none: every default): each field from the block or its
    default, nested blocks as their own dataclasses, lists as tuples, mappings read-only.

    Raises:
        InputError: the block has a key ``cls`` does not know, or lacks a field that has no default.
    """
    if isinstance(block, cls):
        return block
    block = {} if block is None else block
    name = where or cls.__name__
    hints = typing.get_type_hints(cls)
    fields = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    unknown = sorted(set(block) - set(fields))
    missing = sorted(f for f in fields if f not in block and not has_default(cls, f))
    if unknown or missing:
        problems = [f"unknown key(s) {', '.join(unknown)}"] * bool(unknown)
        problems += [f"missing key(s) {', '.join(missing)}"] * bool(missing)
        raise InputError(f"settings {name}: {'; '.join(problems)}")
    values = {}
    for key in fields:
        if key not in block:
            continue
        value = block[key]
        nested, values_of = _dataclass_in(hints[key]), _mapping_of_dataclass(hints[key])
        if values_of is not None and isinstance(value, Mapping):
            values[key] = types.MappingProxyType(
                {k: build(values_of, v, f"{name}.{key}.{k}") for k, v in value.items()}
            )
        elif nested is not None and isinstance(value, Mapping):
            values[key] = build(nested, value, f"{name}.{key}")
        else:
            values[key] = _as_annotated(_frozen(value), hints[key])
    return cls(**values)


def _as_annotated(value: Any, annotation: Any) -> Any:
    """An integer of a ``float`` field (the schema's ``number``: YAML reads ``10`` as an int) as a float, alone or
    in a tuple of floats."""
    if annotation is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if typing.get_origin(annotation) is tuple and typing.get_args(annotation) == (float, ...):
        return tuple(_as_annotated(v, float) for v in value)
    return value


def as_block(settings: Any) -> Any:
    """A settings object back as a plain config block (lists and dicts), e.g. to record it in a manifest or to pass
    it as a rule's ``params`` (which Snakemake compares as plain values)."""
    if dataclasses.is_dataclass(settings) and not isinstance(settings, type):
        return {f.name: as_block(getattr(settings, f.name)) for f in dataclasses.fields(settings)}
    if isinstance(settings, tuple | list):
        return [as_block(v) for v in settings]
    if isinstance(settings, Mapping):
        return {k: as_block(v) for k, v in settings.items()}
    return settings


def given_fields(settings: Any) -> dict[str, Any]:
    """The fields of a settings object that are set (not None), as a plain block: the options a block of optional
    keys passes on (``bleu: {tokenize: zh}`` -> ``{"tokenize": "zh"}``)."""
    return {k: v for k, v in as_block(settings).items() if v is not None}


# --- resampling and evaluation ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Resampling:
    """``resampling``: the randomized tests' samples, seed and p-value rule, and the engine's settings
    (:data:`ENGINE_SETTINGS`, which change no number)."""

    seed: int = 20140626
    samples: int | Mapping[str, int] = 10000
    pvalue: str = "c/B"
    memory_cap_mb: int = 1024
    pair_shards: int = 1
    tests: tuple[str, ...] = ("paired_bootstrap", "bootstrap", "approximate_randomization")
    mean_block_length: float = 10.0
    distribution_gap_quantile: float = 0.75
    confidence: float = 0.95
    distribution_pairs: str | tuple[tuple[str, str], ...] = "auto"

    @property
    def memory_cap_bytes(self) -> int:
        return self.memory_cap_mb * 2**20


#: The settings of :class:`Resampling` that change how the engine works, never a number it writes (docs/design.md,
#: "Memory cap and sharding"): kept out of every rule's ``params``, so that changing them makes Snakemake rerun
#: nothing finished; they reach their jobs as resources (:func:`mtsig.steps.engine_params`).
ENGINE_SETTINGS = ("memory_cap_mb", "pair_shards")

#: The engine's memory cap by default, in bytes (:attr:`Resampling.memory_cap_bytes` of the default settings): the
#: default of every library function that takes the cap.
MEMORY_CAP_BYTES = Resampling.memory_cap_mb * 2**20


@dataclass(frozen=True)
class Clusters:
    """``evaluation.clusters``: WMT-style significance clusters."""

    test: str = "paired_bootstrap"
    alpha: float = 0.05
    correction: str = "none"
    rule: str = "all_pairs"


@dataclass(frozen=True)
class Evaluation:
    """``evaluation``: the levels and corrections of the tests' accuracy, and the clusters."""

    alphas: tuple[float, ...] = (0.05, 0.01, 0.001)
    corrections: tuple[str, ...] = ("holm", "benjamini_hochberg")
    clusters: Clusters = field(default_factory=Clusters)


@dataclass(frozen=True)
class SegmentLevel:
    """``segment_level``: the RankEval measures of the experiments with ranking data and the JCML sets."""

    experiments: tuple[str, ...] = ()
    jcml: Mapping[str, str] = _readonly()
    bootstrap_samples: int = 1000
    convention: str = "both"
    predicted_rankings: Mapping[str, Mapping[str, str]] = _readonly()


@dataclass(frozen=True)
class Calibration:
    """``calibration``: the calibration study by simulation and Section 2 in numbers."""

    experiments: tuple[str, ...] = ()
    null_pairs: int = 200
    samples: int = 1000
    alphas: tuple[float, ...] = (0.01, 0.05, 0.1)
    q: tuple[float, ...] = (0.51, 0.52, 0.53, 0.55, 0.6, 0.75, 1.0)
    swap_units: tuple[str, ...] = ("segment", "document")
    alternatives_per_q: int = 50
    planted_alpha: float = 0.05
    figure_alpha: float = 0.05
    section2_pairs: int = 5


@dataclass(frozen=True)
class HumanRankingCalibration:
    """``human_ranking_calibration``: error rates of the human-ranking procedures with known truth
    (:mod:`mtsig.studies.ranking_calibration`), on the ESA ratings of the human-ranking experiment ``experiment``
    (its ``ratings``, ``documents`` and ``first_segment_id``), written under ``results/<folder>/`` (None: the
    experiment's name)."""

    experiment: str = "wmt24-esa"
    folder: str | None = None
    language_pairs: tuple[str, ...] = ()
    procedures: tuple[str, ...] = (
        "wmt24",
        "wmt24_scipy114",
        "wmt25",
        "wmt26",
        "wmt26_paired",
        "wmt26_unpaired",
        "wmt26_ttest",
        "wilcoxon_z",
        "paired_bootstrap",
        "bootstrap",
        "approximate_randomization",
        "stratified_permutation",
        "stratified_permutation_documents",
    )
    exchange_units: tuple[str, ...] = ("item", "document")
    null_pairs: int = 300
    shifts: tuple[float, ...] = (1.0, 2.0, 4.0)
    heterogeneous_shifts: tuple[float, ...] = (6.0,)
    alternative_pairs: int = 100
    cluster_tiers: tuple[int, ...] = (1, 2, 2)
    cluster_sorting: float = 0.4
    cluster_sets: int = 40
    cluster_designs: tuple[str, ...] = (
        "clusters",
        "clusters_document",
        "clusters_fixed",
        "clusters_dynamic",
        "clusters_document_fixed",
        "clusters_document_dynamic",
    )
    allocation_budget: float = 0.5
    dynamic_models: int = 3
    dynamic_coldstart: int = 20
    dynamic_coldstart_pool: int = 20
    rank_sets: tuple[str, ...] = ("items", "documents")
    rank_set_draws: int = 1000
    rank_set_coverage: float = 0.95
    flips: bool = True

    @property
    def results_folder(self) -> str:
        """The folder under ``results/`` the study writes into (``results/<folder>/calibration.tsv``)."""
        return self.folder or self.experiment


@dataclass(frozen=True)
class Power:
    """``power``: power by test-set size and planted difference."""

    experiments: tuple[str, ...] = ("wmt12-es-en",)
    metric: str = "bleu"
    test: str = "paired_bootstrap"
    alpha: float = 0.05
    trials: int = 50
    samples: int = 200
    q: tuple[float, ...] = (0.5, 0.53, 0.56, 0.6, 0.7, 0.85, 1.0)
    target_power: float = 0.8


@dataclass(frozen=True)
class Replicability:
    """``replicability``: partial conjunction tests and the delta-agreement curves."""

    alpha: float = 0.05
    bootstrap_samples: int = 200
    metric_outlier_cutoff: float = 25.0


@dataclass(frozen=True)
class MetaEvaluation:
    """``meta_evaluation``: which metric agrees with the humans, per experiment."""

    alpha: float = 0.05
    bootstrap_samples: int = 1000
    permutation_samples: int = 1000
    confidence: float = 0.95


@dataclass(frozen=True)
class Figures:
    """``figures``: the formats of the figures."""

    pdf: bool = False


@dataclass(frozen=True)
class Verification:
    """``verification``: the checksum list of artifact review."""

    expected: str = "checksums/default-run.tsv"


# --- an experiment's human side ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class QualityControl:
    """An experiment's ``qc``: the DA annotators' quality control."""

    enabled: bool = True
    method: str = "t"
    alpha: float = 0.05


@dataclass(frozen=True)
class Standardise:
    """An experiment's ``standardise``: per-annotator z-scores (``moments``: the organisers' printed means and sds,
    relative to the data root, used instead of the ratings' own)."""

    ddof: int = 1
    zero_variance: str = "drop"
    moments: str | None = None


@dataclass(frozen=True)
class HumanGold:
    """An experiment's ``gold`` (and a metrics task's): the methods, unit, item types and criteria of the human
    gold."""

    methods: tuple[str, ...]
    unit: str = "rating"
    item_types: tuple[str, ...] = ("system", "repeat")
    criteria: tuple[str, ...] = ("adequacy", "fluency")
    significant_digits: int | None = None


@dataclass(frozen=True)
class HumanSource:
    """An experiment's ``human``: the judgments' file(s) and format and what each format's reader needs (the
    schema says which format reads which field; paths relative to the data root). ``first_segment_id`` (``esa``
    only): the id of the test set's first segment after the canary line; None: the released exports' numbering
    (:data:`mtsig.io.esa.RELEASED_FIRST_SEGMENT_ID`)."""

    format: str
    path: str | tuple[str, ...]
    standardised: bool = False
    segment_means: bool = False
    reference_system: str = "ref"
    standardise_raters: bool = False
    first_segment_id: int | None = None
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


# --- an experiment ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MqmTexts:
    """An experiment's ``texts``: the texts of an MQM annotation file (the rated ``reference_system`` is the
    reference, then not a system)."""

    format: str
    path: str
    reference_system: str = "ref"


@dataclass(frozen=True)
class DocumentsFile:
    """An experiment's ``documents``: the file of each segment's document id and its format."""

    format: str
    path: str


@dataclass(frozen=True)
class MeteorOptions:
    """An experiment's ``meteor``: the Meteor language (its modules follow it)."""

    language: str = "en"


@dataclass(frozen=True)
class BleuOptions:
    """An experiment's ``bleu``: sacrebleu's options where its defaults do not suit the language (None: sacrebleu's
    default, not passed on)."""

    tokenize: str | None = None


@dataclass(frozen=True)
class TerOptions:
    """An experiment's ``ter``: sacrebleu's TER options (None: sacrebleu's default, not passed on)."""

    normalized: bool | None = None
    asian_support: bool | None = None


@dataclass(frozen=True)
class SegmentScoresMetric:
    """A metric read from segment scores (``metrics: [{NAME: declaration}]``): its file, the file's layout, its
    orientation and, for a WMT ``seg.score`` file holding several, the rows to keep (``options``)."""

    kind: str
    format: str
    path: str
    higher_is_better: bool = True
    options: Mapping[str, str] = _readonly()


def metric_entries(
    entries: tuple[str | Mapping[str, Any], ...] | list[Any], experiment: str = ""
) -> tuple[tuple[str, ...], dict[str, SegmentScoresMetric]]:
    """A ``metrics:`` list as the metric names in order and the declarations of the metrics read from segment
    scores (``{NAME: declaration}`` entries).

    Raises:
        InputError: a name is listed twice (as a built-in or declared metric), also in another case: a metric's
            files and figures are named after it, and names that differ only in case would be one file on a
            case-insensitive file system (and one link target in ``snakemake --report``).
    """
    names: list[str] = []
    declared: dict[str, SegmentScoresMetric] = {}
    for entry in entries:
        if isinstance(entry, str):
            names.append(entry)
            continue
        for name, declaration in entry.items():
            names.append(str(name))
            declared[str(name)] = build(SegmentScoresMetric, declaration, f"metrics.{name}")
    folded = [n.casefold() for n in names]
    repeated = sorted({n for n in names if folded.count(n.casefold()) > 1})
    if repeated:
        where = f"experiment {experiment!r}: " if experiment else ""
        raise InputError(
            f"{where}metric(s) {', '.join(repeated)} listed twice in metrics (names that differ only in case "
            "count as one)"
        )
    return tuple(names), declared


@dataclass(frozen=True)
class TextSources:
    """What rule ``prepare_texts`` reads of an experiment (:meth:`Experiment.text_sources`): the reference and
    output files of its systems (or an MQM ``texts`` file), their HTML unescaping and canary line, the documents
    file, and, for an experiment without texts, its metrics read from segment scores (``segment_scores``), whose
    files give the test set."""

    systems: tuple[str, ...]
    reference: str | tuple[str, ...] | None = None
    outputs: str | None = None
    unescape_html: bool = False
    skip_first_line: bool = False
    texts: MqmTexts | None = None
    documents: DocumentsFile | None = None
    segment_scores: Mapping[str, SegmentScoresMetric] = _readonly()

    @property
    def has_texts(self) -> bool:
        """Reference and output files, or a ``texts:`` block (an MQM file): an experiment without either has only
        metrics read from segment scores."""
        return self.reference is not None or self.texts is not None

    @property
    def references(self) -> tuple[str, ...]:
        """The reference file(s): ``reference`` is one path or several (sacrebleu's reference streams, in order)."""
        if self.reference is None:
            return ()
        return (self.reference,) if isinstance(self.reference, str) else tuple(self.reference)

    def output_files(self) -> dict[str, str]:
        """System name -> its output file, from the ``outputs`` pattern (relative to the data root)."""
        if self.outputs is None:
            return {}
        return {system: self.outputs.format(system=system) for system in self.systems}


@dataclass(frozen=True)
class Experiment:
    """A system-output experiment (``experiments.<name>``, or a synthetic experiment's generated definition): its
    texts (reference and output files, or an MQM ``texts`` file), documents, metrics and their options, and its
    human side (the judgments, their quality control and standardisation, the gold). ``metrics``: None means the
    run's (the pipeline fills them in, :func:`mtsig.pipeline.config.experiment`)."""

    systems: tuple[str, ...]
    human: HumanSource
    gold: HumanGold
    description: str | None = None
    source_language: str | None = None
    target_language: str | None = None
    reference: str | tuple[str, ...] | None = None
    outputs: str | None = None
    unescape_html: bool = False
    skip_first_line: bool = False
    metrics: tuple[str | Mapping[str, Any], ...] | None = None
    texts: MqmTexts | None = None
    training_runs: Mapping[str, tuple[str, ...]] | None = None
    documents: DocumentsFile | None = None
    meteor: MeteorOptions = field(default_factory=MeteorOptions)
    bleu: BleuOptions | None = None
    ter: TerOptions | None = None
    qc: QualityControl = field(default_factory=QualityControl)
    standardise: Standardise = field(default_factory=Standardise)

    @property
    def has_texts(self) -> bool:
        """Whether the experiment has texts (:attr:`TextSources.has_texts`)."""
        return self.reference is not None or self.texts is not None

    @property
    def metric_names(self) -> tuple[str, ...]:
        """The names of its metrics, built-in and declared, in order."""
        return metric_entries(self.metrics or ())[0]

    @property
    def declarations(self) -> dict[str, SegmentScoresMetric]:
        """Its metrics read from segment scores: name -> declaration."""
        return metric_entries(self.metrics or ())[1]

    def text_sources(self) -> TextSources:
        """What rule ``prepare_texts`` reads (the segment-score declarations only without texts)."""
        return TextSources(
            systems=self.systems,
            reference=self.reference,
            outputs=self.outputs,
            unescape_html=self.unescape_html,
            skip_first_line=self.skip_first_line,
            texts=self.texts,
            documents=self.documents,
            segment_scores=types.MappingProxyType({} if self.has_texts else self.declarations),
        )

    def metric_options(self, metric: str) -> dict[str, Any]:
        """The options a built-in metric is built with (:func:`mtsig.metrics.get_metric`): METEOR its language
        (its modules follow it), BLEU and TER the options their blocks set (none by default), the others none."""
        if metric == "meteor":
            return {"language": self.meteor.language}
        if metric == "bleu" and self.bleu is not None:
            return given_fields(self.bleu)
        if metric == "ter" and self.ter is not None:
            return given_fields(self.ter)
        return {}


@dataclass(frozen=True)
class Synthetic:
    """``synthetic.<name>``: a synthetic experiment generated by the pipeline (:mod:`mtsig.studies.synthetic`):
    the generator's seed and sizes, and the experiment's gold and quality control."""

    seed: int = 1
    systems: int = 6
    segments: int = 300
    annotators: int = 12
    gold: HumanGold = field(default_factory=lambda: HumanGold(methods=("wilcoxon",)))
    qc: QualityControl = field(default_factory=QualityControl)

    #: The fields of the generator (:class:`mtsig.studies.synthetic.SyntheticSpec`); the others are the
    #: experiment's.
    GENERATOR: typing.ClassVar[tuple[str, ...]] = ("seed", "systems", "segments", "annotators")


# --- studies defined by name ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NBestParameters:
    """``nbest.<name>.parameters``: the simulation of :func:`mtsig.studies.nbest.run_nbest_experiment` (ranges are
    (low, high) of a uniform draw per simulated system; depths and references are counts or ``"all"``)."""

    n_systems: int = 20
    list_length: int = 100
    p_valid_head: tuple[float, ...] = (0.5, 0.98)
    p_valid_tail: tuple[float, ...] = (0.05, 0.8)
    head_length: float = 10.0
    drift: tuple[float, ...] = (0.0, 3.0)
    max_edits: int = 2
    f1_depth: int = 10
    min_matched: int = 3
    kept_fractions: tuple[float, ...] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
    bleu_depths: tuple[int | str, ...] = (1, 5, 10, 100, "all")
    bleu_references: tuple[int | str, ...] = (1, 5, 10, 100, "all")


@dataclass(frozen=True)
class NBest:
    """``nbest.<name>``: an n-best experiment on a STAPLE gold."""

    gold: str
    parameters: NBestParameters = field(default_factory=NBestParameters)
    systems: Mapping[str, str] = _readonly()
    baseline: str | None = None


@dataclass(frozen=True)
class MetricsTaskOutliers:
    """``metrics_task.<name>.outliers``: the MAD rule on the DA scores of the systems correlated (Mathur, Baldwin &
    Cohn 2020, Sec. 4.2: ``b = 1.4826`` makes the MAD a consistent estimate of the standard deviation of normal
    data; cut-off 2.5)."""

    score: str = "z"
    scale: float = 1.4826
    cutoff: float = 2.5


@dataclass(frozen=True)
class MetricsTaskVariant:
    """``metrics_task.<name>.variants.<variant>``: a pair's DA against the metric rows of another lp code."""

    pair: str
    metric_lp: str
    metric_scores: tuple[str, ...] | None = None


@dataclass(frozen=True)
class MetricsTask:
    """``metrics_task.<name>``: a system-level metric meta-evaluation of a metrics shared task."""

    root: str
    pairs: tuple[str, ...]
    gold: HumanGold
    human_system_scores: str = "da/metrics-ad-sys-scores-{lp}.csv"
    da_system_scores: str = "da/ad-sys-scores-{lp}.csv"
    human_segment_scores: str = "da/ad-seg-scores-{lp}.csv"
    metric_scores: tuple[str, ...] = (
        "system-scores/baselines/*.sys.score.gz",
        "system-scores/submissions/*.sys.score.gz",
    )
    refset: str = "newstest2020"
    reference_free: tuple[str, ...] = ()
    reference_free_refset: str = "newstest2020"
    exclude_systems: tuple[str, ...] = ()
    human_as_metric: bool = True
    identical_metrics: str = "tie"
    alpha: float = 0.05
    kinds: tuple[str, ...] = ("pearson", "spearman", "kendall")
    outliers: MetricsTaskOutliers = field(default_factory=MetricsTaskOutliers)
    published_outliers: Mapping[str, tuple[str, ...]] = _readonly()
    variants: Mapping[str, MetricsTaskVariant] = _readonly()
    description: str | None = None

    #: The fields that make a study's DA golds (rule ``metrics_task_gold``'s params): the pairs, their files and
    #: the gold's options.
    GOLD_FIELDS: typing.ClassVar[tuple[str, ...]] = (
        "root",
        "pairs",
        "human_system_scores",
        "da_system_scores",
        "human_segment_scores",
        "gold",
    )


@dataclass(frozen=True)
class ProtocolTests:
    """``metrics_protocol.<name>.protocols.<protocol>``: the resamples of every permutation test of a protocol
    (0: values and rankings only)."""

    samples: int = 1000


@dataclass(frozen=True)
class ProtocolBootstrap:
    """``metrics_protocol.<name>.bootstrap``: percentile bootstrap intervals of every task value."""

    samples: int = 1000
    confidence: float = 0.95


@dataclass(frozen=True)
class ProtocolChance:
    """``metrics_protocol.<name>.chance``: chance levels of every task statistic."""

    samples: int = 1000


@dataclass(frozen=True)
class ProtocolPower:
    """``metrics_protocol.<name>.power``: power of the permutation tests and stability of the winner and cluster 1
    on re-drawn test sets (``pairs``: extra metric pairs, display names)."""

    samples: int = 200
    stability_samples: int = 1000
    target: float = 0.8
    pairs: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class MetricsProtocol:
    """``metrics_protocol.<name>``: a metrics task's protocol on expert MQM (``protocols``: task set -> its
    permutation tests' resamples)."""

    root: str
    lps: tuple[str, ...]
    protocols: Mapping[str, ProtocolTests] = field(
        default_factory=lambda: types.MappingProxyType({"wmt23": ProtocolTests()})
    )
    early_stopping: str = "mtme"
    spa_arithmetic: str = "exact"
    alpha: float = 0.05
    all_metrics: bool = False
    bootstrap: ProtocolBootstrap = field(default_factory=ProtocolBootstrap)
    replicability_tasks: tuple[str, ...] = ("sys pearson", "seg acc-t (item)")
    delta_metrics: tuple[str, ...] = ()
    human_metrics: tuple[str, ...] = ()
    chance: ProtocolChance = field(default_factory=ProtocolChance)
    power: ProtocolPower = field(default_factory=ProtocolPower)
    gold: str | None = None
    description: str | None = None


@dataclass(frozen=True)
class HumanRanking:
    """``human_ranking.<name>``: human rankings of MT systems recomputed by every ranking procedure (``resamples``:
    randomised procedure -> its resamples; ``first_segment_id`` as :class:`HumanSource`'s)."""

    ratings: tuple[str, ...]
    documents: str
    lps: tuple[str, ...]
    first_segment_id: int | None = None
    procedures: tuple[str, ...] = (
        "wmt24",
        "wmt24_scipy114",
        "wmt25",
        "wmt26",
        "wmt26_paired",
        "wmt26_unpaired",
        "wmt26_ttest",
        "wilcoxon_z",
        "paired_bootstrap",
        "approximate_randomization",
        "stratified_permutation",
        "stratified_permutation_documents",
    )
    resamples: Mapping[str, int] = _readonly()
    description: str | None = None


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
