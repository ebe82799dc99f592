"""The settings of the studies defined by name: n-best experiments, metrics-task studies and human rankings (a
metrics-task protocol's are :mod:`mtsig.settings.metrics_protocol`)."""

from __future__ import annotations

import typing
from collections.abc import Mapping
from dataclasses import dataclass, field

from mtsig.procedure_names import RANKING_PROCEDURES
from mtsig.settings.building import _readonly
from mtsig.settings.experiment import HumanGold

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


def _with_after(names: tuple[str, ...], anchor: str, extra: tuple[str, ...]) -> tuple[str, ...]:
    """``names`` with ``extra`` inserted after ``anchor``."""
    cut = names.index(anchor) + 1
    return (*names[:cut], *extra, *names[cut:])


#: The procedures the human-ranking calibration compares by default: the registry's, with the paper's bootstrap
#: (Graham, Mathur & Baldwin 2014, Fig. 3) after its paired bootstrap, the paper's tests together, in the order of
#: :data:`mtsig.studies.ranking_calibration.CALIBRATED` (tests/test_settings.py checks it).
CALIBRATED_PROCEDURES = _with_after(RANKING_PROCEDURES, "paired_bootstrap", ("bootstrap",))


@dataclass(frozen=True)
class HumanRanking:
    """``human_ranking.<name>``: human rankings of MT systems recomputed by every ranking procedure (``resamples``:
    randomised procedure -> its resamples; ``first_segment_id`` as :class:`HumanSource`'s); ``rank_sets_*``: the
    confidence sets for ranks of each pair's mean item scores (coverage, bootstrap resamples, and the units
    resampled: ``documents`` or ``items``)."""

    ratings: tuple[str, ...]
    documents: str
    lps: tuple[str, ...]
    first_segment_id: int | None = None
    procedures: tuple[str, ...] = RANKING_PROCEDURES
    resamples: Mapping[str, int] = _readonly()
    description: str | None = None
    rank_sets_coverage: float = 0.95
    rank_sets_resamples: int = 1000
    rank_sets_units: str = "documents"
