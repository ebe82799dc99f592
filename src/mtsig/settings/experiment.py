"""The settings of an experiment (``experiments.<name>``): its texts, documents and metrics with their options, and
its human side (the judgments, their quality control and standardisation, the gold); a synthetic experiment's."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mtsig.errors import InputError
from mtsig.settings.building import _readonly, build, given_fields

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
        """What rule ``prepare_texts`` reads: the experiment's fields of the same names, and its segment-score
        declarations only without texts."""
        fields = [f.name for f in dataclasses.fields(TextSources) if f.name != "segment_scores"]
        shared = {name: getattr(self, name) for name in fields}
        declarations = {} if self.has_texts else self.declarations
        return TextSources(**shared, segment_scores=types.MappingProxyType(declarations))

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
