"""The WMT23/WMT24 metrics-task protocol: which metric agrees with expert MQM, at system and segment level.

Since WMT22 the metrics shared tasks rank metrics on MQM (Freitag et al. 2023, "Results of WMT23 Metrics Shared
Task: Metrics Might Be Guilty but References Are Not Innocent", Sec. 5 and Table 8; Freitag et al. 2024, WMT24
findings, Sec. 5) with a *task set*: several meta-evaluation tasks, each a statistic on one or more language
pairs, averaged with weights after rescaling each to [0, 1], with significance clusters from permutation tests.
The reference implementation is google-research/mt-metrics-eval (``tasks.WMT23()``, ``tasks.WMT24OnWMT23()``,
``data.GetCorrelations``); this module holds the same task sets as data (:func:`wmt23`, :func:`wmt24_on_wmt23`,
:data:`PROTOCOLS`) and runs one on a test set (:func:`run_protocol`), data in, data out.

**Systems and metrics of a task** (``data.GetCorrelations``): the systems are every system output except the
standard reference (refA; refB for he-en), the human translations unless the task includes them (WMT23: for he-en,
whose second reference refA competes as a system; ``lps_with_multiple_refs``), the outliers (synthetic_ref for
en-de and zh-en), and those without any human score at the task's level. The metrics are those that used only the
standard reference or none (``-src``), and by default only the task's primary submissions and baselines; a metric
is named by its basename, ``[noref]`` appended when reference-free and ``*`` prefixed when not primary
(``DisplayName(fmt='spreadsheet')``). The pooled pairwise accuracy takes the metrics present in every language pair.

**WMT23** (``tasks.WMT23``): task 1 is pairwise accuracy of system rankings pooled over the language pairs
(weight: the number of language pairs); then, per language pair, system-level Pearson, segment-level Pearson
(no grouping) and segment-level tie-calibrated acc_23 grouped by item (acc-t; significance by swapping pair
outcomes), weight 1 each; weights normalised. **WMT24 on WMT23** (``tasks.WMT24OnWMT23``): per language pair,
soft pairwise accuracy (SPA) and acc-t, weight 1 each. **WMT25** (``tasks.WMT25``, the WMT25 metrics task's set as
its organisers put it into mt-metrics-eval): per language pair SPA and acc-t, weight 1 each, no human translation
competing, each language pair's own gold (MQM for en-ko and ja-zh, ESA for the other 14; ``meta_info.WMT25``,
``WMT25_ESA``).

Beyond mt-metrics-eval's task sets, a task may compute any of its other statistics (PDP, micro averages, the WMT20
Kendall-like tau, Kendall's variants with a tie threshold, on a sample of the items) and test it by swapping scores
or pair outcomes (:mod:`mtsig.stats.meta_evaluation.score_permutation`); a protocol's ``extras`` are tasks
reported beside its own and left out of the average (the WMT23 protocol's: PDP grouped by item, DiIanni &
Deutsch 2025).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from mtsig.errors import InputError
from mtsig.io.mtme import LevelScores, MtmeTestSet
from mtsig.settings import MetricsProtocol
from mtsig.stats.meta_evaluation.grouped_correlation import (
    AVERAGES,
    GROUPINGS,
    KENDALL_LIKE_THRESHOLD,
    KENDALL_VARIANTS,
    NAN_GROUPS,
    grouped_correlation,
)
from mtsig.stats.meta_evaluation.item_sampling import SAMPLE_METHODS, item_sample
from mtsig.stats.meta_evaluation.metric_permutation import (
    MTME_EARLY_STOPPING,
    MTME_PAIRS_EARLY_STOPPING,
    EarlyStopping,
    PairSwaps,
    PearsonSwaps,
    PermutationResult,
    PooledAccuracySwaps,
    SpaSwaps,
    SwapSource,
    permutation_test,
)
from mtsig.stats.meta_evaluation.metric_ranking import (
    assign_ranks,
    average_significance,
    ranking_order,
    weighted_average,
)
from mtsig.stats.meta_evaluation.pooled_accuracy import pooled_pairwise_accuracy
from mtsig.stats.meta_evaluation.score_permutation import (
    PAIR_VARIANTS,
    PairOutcomeSwaps,
    PdpSwaps,
    ScoreSwaps,
    recalibrated_acc_t,
)
from mtsig.stats.meta_evaluation.soft_pairwise_accuracy import (
    ARITHMETICS,
    pce_flips,
    permutation_counts,
    soft_pairwise_accuracy,
)
from mtsig.stats.meta_evaluation.tie_calibration import TIE_VARIANTS, calibrate_ties, pair_outcomes
from mtsig.stats.seeding import rng_for

#: The statistics a task can compute.
STATISTICS = (
    "pooled_accuracy", "pearson", "pdp", "spearman", "kendall", "kendall_like", "tie_calibrated", "spa",
)  # fmt: skip
#: The statistics computed by :func:`mtsig.stats.meta_evaluation.grouped_correlation.grouped_correlation`.
GROUPED_STATISTICS = ("pearson", "pdp", "spearman", "kendall", "kendall_like")
#: mt-metrics-eval's ``perm_test``: swap the metrics' scores, or (tie-calibrated statistics) the pairs' outcomes.
PERM_TESTS = ("scores", "pairs")
#: ``early_stopping`` of :func:`run_protocol`: mt-metrics-eval's ``tasks.Task`` defaults, or every resample.
EARLY_STOPPING = ("mtme", "none")
#: The language pairs whose second reference competes as a human system (``lps_with_multiple_refs`` of
#: mt-metrics-eval's ``tasks.WMT23``).
LPS_WITH_MULTIPLE_REFS = frozenset({"en-he", "he-en"})
#: The cluster significance level (``tasks.Task.pval``, 0.05): the config's ``metrics_protocol.<name>.alpha`` by
#: default.
ALPHA = MetricsProtocol.alpha


@dataclass(frozen=True)
class RunOptions:
    """How :func:`run_protocol` and :func:`run_task` run a protocol's tasks: ``n_resamples`` of every permutation
    test (0: values and rankings only, as mt-metrics-eval's ``k=0``, and the clusters are then the ranks); ``seed``
    of the draws (:mod:`mtsig.stats.seeding`); the clusters' ``alpha``; ``early_stopping``: ``mtme``
    (mt-metrics-eval's defaults) or ``none``; ``spa_arithmetic``: ``exact`` or ``float32``
    (:mod:`mtsig.stats.meta_evaluation.soft_pairwise_accuracy`); ``all_metrics``: the non-primary metrics too;
    ``human_metrics``: human scores entered as metrics (:func:`run_task`), not in the average; ``always``: metric
    names kept and shown as primary (a user's own). The defaults are the config's
    (:class:`mtsig.settings.MetricsProtocol`; :meth:`of` takes a protocol's from it)."""

    n_resamples: int = 0
    seed: int = 0
    alpha: float = MetricsProtocol.alpha
    early_stopping: str = MetricsProtocol.early_stopping
    spa_arithmetic: str = MetricsProtocol.spa_arithmetic
    all_metrics: bool = MetricsProtocol.all_metrics
    human_metrics: tuple[str, ...] = ()
    always: frozenset[str] = frozenset()

    @classmethod
    def of(cls, settings: MetricsProtocol, protocol: str, seed: int) -> RunOptions:
        """The options of protocol ``protocol`` of an experiment's settings, run with ``seed``."""
        return cls(
            n_resamples=settings.protocols[protocol].samples,
            seed=seed,
            alpha=settings.alpha,
            early_stopping=settings.early_stopping,
            spa_arithmetic=settings.spa_arithmetic,
            all_metrics=settings.all_metrics,
            human_metrics=settings.human_metrics,
        )


@dataclass(frozen=True)
class TestSetInfo:
    """What mt-metrics-eval's ``meta_info.MetaInfo`` says of a test set's language pairs: the standard reference
    and gold, the outlier systems, the primary metrics' and baselines' basenames."""

    std_ref: Mapping[str, str]
    std_gold: Mapping[str, str]
    outliers: Mapping[str, frozenset[str]]
    primary: frozenset[str]
    baselines: frozenset[str]


#: mt-metrics-eval's ``meta_info.WMT23`` (and the ``DATA['wmt23']`` entries of en-de, he-en, zh-en) at commit
#: 68a481a: the WMT23 metrics task's primary submissions and baselines (Freitag et al. 2023, Table 8).
WMT23_BASELINES = frozenset(
    {
        "BERTscore", "BLEU", "BLEURT-20", "chrF", "COMET", "CometKiwi", "docWMT22CometDA", "docWMT22CometKiwiDA",
        "f200spBLEU", "MS-COMET-QE-22", "prismRef", "prismSrc", "Random-sysname", "YiSi-1",
    }
)  # fmt: skip
WMT23_INFO = TestSetInfo(
    std_ref={"en-de": "refA", "he-en": "refB", "zh-en": "refA"},
    std_gold={"en-de": "mqm", "he-en": "mqm", "zh-en": "mqm"},
    outliers={
        "en-de": frozenset({"synthetic_ref"}),
        "he-en": frozenset(),
        "zh-en": frozenset({"synthetic_ref"}),
    },
    primary=frozenset(
        {
            "Calibri-COMET22", "Calibri-COMET22-QE", "cometoid22-wmt22", "eBLEU", "embed_llama", "GEMBA-MQM",
            "KG-BERTScore", "MaTESe", "MEE4", "MetricX-23", "MetricX-23-QE", "mre-score-labse-regular",
            "mbr-metricx-qe", "sescoreX", "tokengram_F", "XCOMET-Ensemble", "XCOMET-QE-Ensemble", "XLsim",
        }
    )
    | WMT23_BASELINES,
    baselines=WMT23_BASELINES,
)  # fmt: skip


@dataclass(frozen=True)
class Task:
    """One meta-evaluation task (mt-metrics-eval's ``tasks.Task``): a ``statistic`` on language pair(s) ``lps``
    at ``level`` (``sys`` or ``seg``), with or without the human translations as systems.

    ``grouping`` (``none``, ``item``, ``sys``) and ``variant`` (Kendall's ``b``/``c``/``23``/``acc23``; tie
    calibration's ``acc23``/``23``) apply to segment-level correlations; ``sample_rate`` to tie calibration;
    ``perm_test`` says what the significance test swaps; ``gold``: the human score (None: the test set's
    standard gold); ``weight``: unnormalised. mt-metrics-eval's other options: ``average`` (``macro``, or
    ``micro``: groups weighted by their cells, by their counted pairs for ``kendall_like``), ``epsilon`` (Kendall's
    metric tie threshold), ``threshold`` (the WMT20 Kendall-like tau's human difference), and a sample of
    ``sample_size`` items (0: all; ``sample_method`` ``uniform`` or ``stratify`` over documents, drawn from
    ``numpy.random.default_rng(sample_seed)``, ``GetCorrelations(sample_size, sample_method, sample_seed)``)."""

    statistic: str
    lps: tuple[str, ...]
    level: str
    include_human: bool
    grouping: str = "none"
    variant: str = ""
    sample_rate: float = 1.0
    perm_test: str = "scores"
    gold: str | None = None
    weight: float = 1.0
    nan_groups: str = "drop"
    average: str = "macro"
    epsilon: float = 0.0
    threshold: float = KENDALL_LIKE_THRESHOLD
    sample_size: int = 0
    sample_method: str = "uniform"
    sample_seed: int = 0

    def __post_init__(self) -> None:
        if self.statistic not in STATISTICS:
            raise InputError(f"unknown task statistic {self.statistic!r}; known: {', '.join(STATISTICS)}")
        if self.level not in ("sys", "seg"):
            raise InputError(f"a task's level is sys or seg, not {self.level!r}")
        if self.grouping not in GROUPINGS or self.nan_groups not in NAN_GROUPS:
            raise InputError(f"bad grouping {self.grouping!r} or NaN rule {self.nan_groups!r}")
        if self.perm_test not in PERM_TESTS:
            raise InputError(f"unknown perm_test {self.perm_test!r}; known: {', '.join(PERM_TESTS)}")
        if self.statistic == "tie_calibrated" and self.variant not in TIE_VARIANTS:
            raise InputError(f"tie calibration optimises {' or '.join(TIE_VARIANTS)}, not {self.variant!r}")
        if self.statistic == "kendall" and self.variant not in KENDALL_VARIANTS:
            raise InputError(
                f"unknown Kendall variant {self.variant!r}; known: {', '.join(KENDALL_VARIANTS)}"
            )
        if self.statistic == "pooled_accuracy" and self.level != "sys":
            raise InputError("pooled pairwise accuracy is a system-level task")
        if self.statistic != "pooled_accuracy" and len(self.lps) != 1:
            raise InputError(f"a {self.statistic} task has one language pair, got {', '.join(self.lps)}")
        if self.average not in AVERAGES or self.sample_method not in SAMPLE_METHODS:
            raise InputError(f"bad average {self.average!r} or sampling method {self.sample_method!r}")
        if self.epsilon < 0 or self.sample_size < 0:
            raise InputError("a task's epsilon and sample size must be >= 0")
        if not self.threshold >= 0:  # NaN too: it would count no pair, and every metric would score 0
            raise InputError(f"the Kendall-like tau's threshold must be a number >= 0, got {self.threshold}")
        if self.sample_size and file_level(self) == "sys":
            raise InputError(
                f"{self.statistic} at the system level: sample_size samples items of segment scores, and this "
                "task reads system scores only (no sample would be drawn)"
            )
        if self.perm_test == "pairs" and not (
            self.statistic == "tie_calibrated"
            or (self.statistic == "kendall" and self.variant in PAIR_VARIANTS)
        ):
            raise InputError(
                f"{self.statistic} {self.variant}: swapping pairs tests tie-calibrated statistics and Kendall's "
                f"{', '.join(PAIR_VARIANTS)}"
            )
        if self.perm_test == "pairs" and self.average == "micro":
            raise InputError(
                f"{self.statistic} {self.variant}: swapping pairs tests the plain mean of the groups' values "
                "(average=macro); a micro average is tested with perm_test=scores"
            )

    @property
    def default_perm_test(self) -> str:
        """The test a task of this statistic gets unless told otherwise (:func:`tasks_from_spec`, the protocols):
        ``pairs`` for tie calibration, ``scores`` for the others."""
        return "pairs" if self.statistic == "tie_calibrated" else "scores"

    @property
    def label(self) -> str:
        """A short name: ``accuracy``, ``en-de sys pearson``, ``en-de seg acc-t (item)``, ``en-de sys SPA``; the
        options that differ from their defaults in brackets (grouping, micro average, NaN groups as 0, the sample
        rate of tie calibration, an item sample, the permutation test), so that two different tasks of a protocol
        never share a label (labels key the random draws and the per-task results)."""
        if self.statistic == "pooled_accuracy":
            return "accuracy"
        name = {
            "tie_calibrated": "acc-t" if self.variant == "acc23" else "tau-t",
            "spa": "SPA",
            "pdp": "PDP",
            "kendall": f"kendall-{self.variant}",
            "kendall_like": f"kendall-like {self.threshold:g}",
        }.get(self.statistic, self.statistic)
        if self.statistic == "kendall" and self.epsilon:
            name += f" eps {self.epsilon:g}"
        options = [self.grouping] if self.level == "seg" and self.grouping != "none" else []
        options += ["micro"] if self.average == "micro" else []
        options += ["NaN groups as 0"] if self.nan_groups == "zero" else []
        options += [f"sample rate {self.sample_rate:g}"] if self.sample_rate != 1.0 else []
        if self.sample_size:
            options.append(f"{self.sample_method} sample of {self.sample_size}, seed {self.sample_seed}")
        if self.perm_test != self.default_perm_test:
            options.append(self.perm_test)
        grouping = f" ({', '.join(options)})" if options else ""
        return f"{self.lps[0]} {self.level} {name}{grouping}"

    @property
    def value_range(self) -> tuple[float, float]:
        """The range the task's statistic is rescaled from (mt-metrics-eval's ``TaskResults.range``): (0, 1) for
        pooled accuracy, SPA and tie-calibrated acc_23; (-1, 1) otherwise (Kendall's acc23 without tie
        calibration included, as there)."""
        if self.statistic in ("pooled_accuracy", "spa") or (
            self.statistic == "tie_calibrated" and self.variant == "acc23"
        ):
            return (0.0, 1.0)
        return (-1.0, 1.0)


@dataclass(frozen=True)
class Protocol:
    """A task set and the test set's meta information; ``weights``: normalised; ``extras``: tasks reported beside
    the task set's, not averaged; ``human_lps``: the language pairs whose human translations compete (the
    protocol's rule for the tasks a user adds)."""

    name: str
    info: TestSetInfo
    tasks: tuple[Task, ...]
    extras: tuple[Task, ...] = ()
    human_lps: frozenset[str] = frozenset()

    @property
    def weights(self) -> tuple[float, ...]:
        """The tasks' weights normalised to sum to 1, in task order (the extras have none)."""
        total = sum(task.weight for task in self.tasks)
        return tuple(task.weight / total for task in self.tasks)

    @property
    def lps(self) -> tuple[str, ...]:
        """The language pairs of the protocol's tasks, sorted."""
        return tuple(sorted({lp for task in self.tasks for lp in task.lps}))

    def with_extras(self, extras: Sequence[Task]) -> Protocol:
        """The same task set with more extra tasks."""
        return Protocol(self.name, self.info, self.tasks, self.extras + tuple(extras), self.human_lps)


def _lps(lps: Sequence[str] | None, info: TestSetInfo) -> tuple[str, ...]:
    chosen = tuple(sorted(lps if lps is not None else info.std_ref))
    unknown = [lp for lp in chosen if lp not in info.std_ref]
    if unknown or not chosen:
        raise InputError(
            f"language pair(s) {', '.join(unknown) or '(none)'} not in the protocol; known: {', '.join(info.std_ref)}"
        )
    return chosen


def pdp_extras(lps: Sequence[str], human_lps: frozenset[str] = LPS_WITH_MULTIPLE_REFS) -> tuple[Task, ...]:
    """Pairwise Difference Pearson grouped by item per language pair (DiIanni & Deutsch 2025: the pairs of
    translations of the same segment), with the segment-level tasks' systems: the WMT23 table's extra column."""
    return tuple(Task("pdp", (lp,), "seg", lp in human_lps, grouping="item") for lp in lps)


def wmt23(
    lps: Sequence[str] | None = None, *, info: TestSetInfo = WMT23_INFO, extras: Sequence[Task] | None = None
) -> Protocol:
    """The WMT23 metrics task's task set (mt-metrics-eval's ``tasks.WMT23``; Freitag et al. 2023, Sec. 5); extra
    columns ``extras`` (default :func:`pdp_extras`), not in the average."""
    lps = _lps(lps, info)
    tasks = [Task("pooled_accuracy", lps, "sys", bool(LPS_WITH_MULTIPLE_REFS & set(lps)), weight=len(lps))]
    for lp in lps:
        human = lp in LPS_WITH_MULTIPLE_REFS
        tasks += [
            Task("pearson", (lp,), "sys", human),
            Task("pearson", (lp,), "seg", human),
            Task("tie_calibrated", (lp,), "seg", human, grouping="item", variant="acc23", perm_test="pairs"),
        ]
    extras = pdp_extras(lps) if extras is None else tuple(extras)
    return Protocol("wmt23", info, tuple(tasks), extras, LPS_WITH_MULTIPLE_REFS)


def wmt24_on_wmt23(
    lps: Sequence[str] | None = None, *, info: TestSetInfo = WMT23_INFO, extras: Sequence[Task] = ()
) -> Protocol:
    """The WMT24 task set applied to WMT23 (mt-metrics-eval's ``tasks.WMT24OnWMT23``): per language pair, SPA
    (Thompson et al. 2024) and acc-t."""
    lps = _lps(lps, info)
    tasks = []
    for lp in lps:
        human = lp in LPS_WITH_MULTIPLE_REFS
        tasks += [
            Task("spa", (lp,), "sys", human),
            Task("tie_calibrated", (lp,), "seg", human, grouping="item", variant="acc23", perm_test="pairs"),
        ]
    return Protocol("wmt24", info, tuple(tasks), tuple(extras), LPS_WITH_MULTIPLE_REFS)


#: mt-metrics-eval's ``meta_info.WMT25_PRIMARIES`` and ``WMT25_BASELINES`` at commit 68a481a.
WMT25_BASELINES = frozenset(
    {"BERTScore", "BLEU", "COMET22", "COMETKiwi22", "YiSi-1", "chrF", "sentinel-cand", "spBLEU"}
)
WMT25_PRIMARIES = frozenset(
    {
        "EnsembleSlick", "GEMBA-v2", "MetricX-25", "Polycand-2", "Q_Relative-MQM", "SEGALE-QE", "TASER-No-Ref",
        "UvA-MT", "comet-multi", "hw-tsc", "mr7_2_1", "rankedCOMET",
    }
)  # fmt: skip
#: The WMT25 language pairs rated with MQM (``meta_info.WMT25``); the 14 others with ESA (``WMT25_ESA``, gold
#: ``esa-human1``).
WMT25_MQM_LPS = frozenset({"en-ko_KR", "ja-zh_CN"})
WMT25_LPS = (
    "cs-de_DE", "cs-uk_UA", "en-ar_EG", "en-bho_IN", "en-cs_CZ", "en-et_EE", "en-is_IS", "en-it_IT", "en-ja_JP",
    "en-ko_KR", "en-mas_KE", "en-ru_RU", "en-sr_Cyrl_RS", "en-uk_UA", "en-zh_CN", "ja-zh_CN",
)  # fmt: skip
#: mt-metrics-eval's ``meta_info.DATA['wmt25']``: refA everywhere, each language pair's gold, no outliers.
WMT25_INFO = TestSetInfo(
    std_ref=dict.fromkeys(WMT25_LPS, "refA"),
    std_gold={lp: "mqm" if lp in WMT25_MQM_LPS else "esa-human1" for lp in WMT25_LPS},
    outliers={lp: frozenset() for lp in WMT25_LPS},
    primary=WMT25_PRIMARIES | WMT25_BASELINES,
    baselines=WMT25_BASELINES,
)


def wmt25(
    lps: Sequence[str] | None = None,
    *,
    info: TestSetInfo = WMT25_INFO,
    gold: str | None = None,
    extras: Sequence[Task] = (),
) -> Protocol:
    """The WMT25 metrics task's task set (mt-metrics-eval's ``tasks.WMT25``): per language pair SPA and acc-t
    (item-grouped, tested by swapping pair outcomes), weight 1 each, no human translation as a system (its
    ``lps_with_multiple_refs`` is empty), each language pair's standard gold unless ``gold`` names one for all.
    ``info=WMT23_INFO`` applies it to WMT23's data."""
    lps = _lps(lps, info)
    tasks = []
    for lp in lps:
        tasks += [
            Task("spa", (lp,), "sys", False, gold=gold),
            Task(
                "tie_calibrated",
                (lp,),
                "seg",
                False,
                grouping="item",
                variant="acc23",
                perm_test="pairs",
                gold=gold,
            ),
        ]
    return Protocol("wmt25", info, tuple(tasks), tuple(extras))


def with_gold(protocol: Protocol, gold: str | None) -> Protocol:
    """``protocol`` with every task's gold the human score ``gold`` (e.g. ``da-sqm``: the table as if the task had
    used it); None: unchanged (the test set's standard gold)."""
    if gold is None:
        return protocol
    return replace(
        protocol,
        tasks=tuple(replace(task, gold=gold) for task in protocol.tasks),
        extras=tuple(replace(task, gold=gold) for task in protocol.extras),
    )


#: Protocol name -> its constructor (``lps``: a subset of the language pairs, all by default).
PROTOCOLS: dict[str, Callable[..., Protocol]] = {"wmt23": wmt23, "wmt24": wmt24_on_wmt23, "wmt25": wmt25}


#: The options of a task a user may set in :func:`tasks_from_spec`, and their types.
SPEC_OPTIONS: dict[str, type] = {
    "level": str, "grouping": str, "variant": str, "perm_test": str, "gold": str, "nan_groups": str,
    "average": str, "epsilon": float, "threshold": float, "sample_rate": float, "sample_size": int,
    "sample_method": str, "sample_seed": int,
}  # fmt: skip


def tasks_from_spec(spec: str, protocol: Protocol) -> tuple[Task, ...]:
    """The tasks of ``STATISTIC[:OPTION=VALUE,...]`` (``mtsig metrics --extra-task``), one per language pair of the
    protocol, its human translations competing where the protocol's do: ``pdp:grouping=item``,
    ``kendall:variant=b,grouping=item,perm_test=pairs,epsilon=0.5``, ``kendall_like:average=micro,threshold=25``,
    ``pearson:grouping=item,sample_size=200,sample_method=stratify``, ``tie_calibrated:variant=acc23,
    perm_test=scores``. The level is ``seg`` (``sys`` for SPA) unless given.

    Raises:
        InputError: an unknown statistic or option, a value of the wrong type, a task that is not valid.
    """
    statistic, _, rest = spec.partition(":")
    statistic = statistic.strip()
    if statistic not in STATISTICS or statistic == "pooled_accuracy":
        known = ", ".join(s for s in STATISTICS if s != "pooled_accuracy")
        raise InputError(f"--extra-task {spec!r}: unknown statistic {statistic!r}; known: {known}")
    options: dict[str, object] = {"level": "sys" if statistic == "spa" else "seg"}
    if statistic == "tie_calibrated":
        options.update(variant="acc23", grouping="item", perm_test="pairs")
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, equals, value = (text.strip() for text in item.partition("="))
        if not equals or key not in SPEC_OPTIONS:
            raise InputError(
                f"--extra-task {spec!r}: expected OPTION=VALUE with an option among {', '.join(SPEC_OPTIONS)}, "
                f"got {item!r}"
            )
        try:
            options[key] = SPEC_OPTIONS[key](value)
        except ValueError as error:
            raise InputError(
                f"--extra-task {spec!r}: {key} must be a {SPEC_OPTIONS[key].__name__}"
            ) from error
    level = str(options.pop("level"))
    return tuple(Task(statistic, (lp,), level, lp in protocol.human_lps, **options) for lp in protocol.lps)


# ------------------------------------------------------------------------------------------------ selection


def display_name(basename: str, references: frozenset[str], primary: bool) -> str:
    """mt-metrics-eval's ``DisplayName(fmt='spreadsheet')``: ``*`` before a non-primary metric, ``[noref]`` after a
    reference-free one."""
    return f"{'' if primary else '*'}{basename}{'' if references else '[noref]'}"


#: The display name of a human score entered as a metric: ``human:<name>`` (e.g. ``human:da-sqm``).
HUMAN_PREFIX = "human:"


def human_display(name: str) -> str:
    """The display name of the human score ``name`` entered as a metric."""
    return f"{HUMAN_PREFIX}{name}"


def task_human_metrics(
    test_set: MtmeTestSet, level: str, human_metrics: Sequence[str], gold: str
) -> dict[str, str]:
    """``{display name: human score name}`` of the human scores in ``human_metrics`` that the test set has at
    ``level``, other than the task's ``gold``."""
    return {
        human_display(name): name
        for name in human_metrics
        if name != gold and (name, level) in test_set.human_files
    }


def task_metrics(
    test_set: MtmeTestSet,
    info: TestSetInfo,
    level: str,
    *,
    all_metrics: bool = False,
    always: frozenset[str] = frozenset(),
) -> dict[str, str]:
    """``{display name: metric name}`` of the metrics a task at ``level`` compares: a file at that level, only
    the standard reference or none used, and (unless ``all_metrics``) a primary basename; the metrics named in
    ``always`` (a user's own) are kept and shown as primary."""
    main = {info.std_ref[test_set.lp]}
    chosen: dict[str, str] = {}
    for name in test_set.metrics:
        if (name, level) not in test_set.metric_files:
            continue
        basename, references = test_set.metric_basename(name), test_set.metric_references(name)
        if not references <= main:
            continue
        primary = basename in info.primary or name in always
        if not primary and not all_metrics:
            continue
        shown = display_name(basename, references, primary)
        if shown in chosen:
            raise InputError(
                f"metrics {chosen[shown]!r} and {name!r} of {test_set.lp} would both be shown as {shown!r}"
            )
        chosen[shown] = name
    return chosen


def task_systems(test_set: MtmeTestSet, info: TestSetInfo, task: Task, human: LevelScores) -> tuple[str, ...]:
    """The systems of a task at one language pair (module docstring), sorted; ``human``: its gold scores."""
    systems = set(test_set.systems) - {info.std_ref[test_set.lp]}
    if not task.include_human:
        systems -= set(test_set.human_systems)
    systems -= info.outliers.get(test_set.lp, frozenset())
    rated = {name for name, row in zip(human.systems, human.values, strict=True) if np.isfinite(row).any()}
    return tuple(sorted(systems & rated))


@dataclass(frozen=True)
class ScoreKey:
    """One score file a protocol reads: ``kind`` ``human`` (``name`` a gold) or ``metric``."""

    lp: str
    kind: str
    name: str
    level: str


def gold_of(task: Task, info: TestSetInfo, lp: str) -> str:
    """The human score a task takes as its gold in ``lp``: the task's own, else the test set's standard gold."""
    return task.gold or info.std_gold[lp]


def file_level(task: Task) -> str:
    """The level of the files a task reads: SPA is system-level but needs segment scores."""
    return "seg" if task.statistic == "spa" else task.level


def required_scores(
    protocol: Protocol,
    test_sets: Mapping[str, MtmeTestSet],
    *,
    all_metrics: bool = False,
    always: frozenset[str] = frozenset(),
    human_metrics: Sequence[str] = (),
) -> list[ScoreKey]:
    """Every human and metric score file :func:`run_protocol` needs, in a fixed order (``human_metrics``: human
    scores entered as metrics, where the test set has them)."""
    keys: dict[ScoreKey, None] = {}
    for task in protocol.tasks + protocol.extras:
        level = file_level(task)
        for lp in task.lps:
            test_set = _test_set(test_sets, lp)
            gold = gold_of(task, protocol.info, lp)
            keys[ScoreKey(lp, "human", gold, level)] = None
            for name in task_metrics(
                test_set, protocol.info, level, all_metrics=all_metrics, always=always
            ).values():
                keys[ScoreKey(lp, "metric", name, level)] = None
            for name in task_human_metrics(test_set, level, human_metrics, gold).values():
                keys[ScoreKey(lp, "human", name, level)] = None
    return list(keys)


def _test_set(test_sets: Mapping[str, MtmeTestSet], lp: str) -> MtmeTestSet:
    if lp not in test_sets:
        raise InputError(f"no test set read for language pair {lp}")
    return test_sets[lp]


# ------------------------------------------------------------------------------------------------ results


@dataclass(frozen=True)
class TaskResult:
    """A task's outcome: ``metrics`` (display names, alphabetical) and their ``values``; ``order``: the ranking
    (indices, best first; ties by name); ``ranks[m]``: metric m's cluster; ``significance``: mt-metrics-eval's
    matrix in ranking order (``[i, j]``, i < j: p of the i-th beating the j-th; zeros without resamples);
    ``epsilons``: tie-calibrated thresholds; ``systems``: per language pair; ``test``: the permutation test;
    ``human``: the metrics that are human scores (:func:`human_ranks` gives their clusters)."""

    task: Task
    metrics: tuple[str, ...]
    values: np.ndarray
    order: tuple[int, ...]
    ranks: np.ndarray
    significance: np.ndarray
    systems: Mapping[str, tuple[str, ...]]
    epsilons: np.ndarray | None = None
    test: PermutationResult | None = field(default=None, repr=False)
    human: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ProtocolResult:
    """A task set's outcome: every task's result; the weighted average of the metrics every task has, in
    ranking order (``metrics``, ``average``, cluster ``ranks``, ``significance`` in that order); the extra
    tasks' results (``extras``), not in the average."""

    protocol: Protocol
    tasks: tuple[TaskResult, ...]
    metrics: tuple[str, ...]
    average: np.ndarray
    ranks: np.ndarray
    significance: np.ndarray
    n_resamples: int
    seed: int
    alpha: float
    early_stopping: str
    spa_arithmetic: str
    extras: tuple[TaskResult, ...] = ()


# ------------------------------------------------------------------------------------------------ running


def _scores(scores: Mapping[ScoreKey, LevelScores], key: ScoreKey) -> LevelScores:
    if key not in scores:
        raise InputError(f"scores of {key.kind} {key.name!r} ({key.lp}, {key.level}) were not read")
    return scores[key]


def task_inputs(
    task: Task,
    lp: str,
    protocol: Protocol,
    test_sets: Mapping[str, MtmeTestSet],
    scores: Mapping[ScoreKey, LevelScores],
    *,
    all_metrics: bool = False,
    always: frozenset[str] = frozenset(),
    human_metrics: Sequence[str] = (),
) -> tuple[tuple[str, ...], np.ndarray, dict[str, np.ndarray]]:
    """(systems, human ``[S, U]``, ``{display name: metric [S, U]}``) of a task at one language pair: the
    selected systems (sorted) and metrics, their scores at the task's level (U = 1 at the system level). A human
    score of ``human_metrics`` joins the metrics where it scores every cell the task uses (:func:`covers`)."""
    test_set = _test_set(test_sets, lp)
    level = file_level(task)
    gold = gold_of(task, protocol.info, lp)
    human_scores = _scores(scores, ScoreKey(lp, "human", gold, level))
    systems = task_systems(test_set, protocol.info, task, human_scores)
    if len(systems) < 2:
        raise InputError(f"{task.label}: fewer than two systems with human scores in {lp}")
    human = human_scores.rows(systems, what="human scores")
    metrics = {}
    for shown, name in task_metrics(
        test_set, protocol.info, level, all_metrics=all_metrics, always=always
    ).items():
        metrics[shown] = _scores(scores, ScoreKey(lp, "metric", name, level)).rows(
            systems, what=f"{name} scores"
        )
    for shown, name in task_human_metrics(test_set, level, human_metrics, gold).items():
        other = _scores(scores, ScoreKey(lp, "human", name, level))
        if set(systems) <= set(other.systems):
            values = other.rows(systems, what=f"{name} scores")
            if covers(task, human, values):
                # cells the task does not use count for no statistic: any finite value will do
                metrics[shown] = np.nan_to_num(values, nan=0.0)
    if task.sample_size and level == "seg":
        items = sampled_items(task, test_set)
        human = human[:, items]
        metrics = {shown: values[:, items] for shown, values in metrics.items()}
    return systems, human, metrics


#: What :func:`task_inputs` returns for one language pair: systems, human ``[S, U]``, ``{display name: [S, U]}``.
LpInputs = tuple[tuple[str, ...], np.ndarray, dict[str, np.ndarray]]


def task_inputs_per_lp(
    task: Task,
    protocol: Protocol,
    test_sets: Mapping[str, MtmeTestSet],
    scores: Mapping[ScoreKey, LevelScores],
    options: RunOptions,
    *,
    with_human_metrics: bool = True,
) -> dict[str, LpInputs]:
    """``{lp: task_inputs(...)}`` of every language pair of the task, in the task's order, with the metrics
    ``options`` selects; the human scores of ``options.human_metrics`` among them unless ``with_human_metrics`` is
    False."""
    human_metrics = options.human_metrics if with_human_metrics else ()
    return {
        lp: task_inputs(
            task, lp, protocol, test_sets, scores, all_metrics=options.all_metrics, always=options.always,
            human_metrics=human_metrics,
        )
        for lp in task.lps
    }  # fmt: skip


def covers(task: Task, human: np.ndarray, values: np.ndarray) -> bool:
    """Whether ``values[S, U]`` (a human score entered as a metric) scores every cell the task uses: every cell with
    a gold score, for SPA every cell of the segments every system is rated on."""
    used = np.isfinite(human)
    if task.statistic == "spa":
        used = np.broadcast_to(used.all(axis=0), used.shape)
    return bool(np.isfinite(values[used]).all())


def document_sizes(test_set: MtmeTestSet) -> list[int]:
    """The segments of each document, in test-set order (the runs of ``segment_documents``)."""
    documents = np.asarray(test_set.segment_documents, dtype=object)
    if documents.size == 0:
        return []
    starts = np.flatnonzero(np.concatenate([[True], documents[1:] != documents[:-1]]))
    return np.diff(np.append(starts, documents.size)).tolist()


def sampled_items(task: Task, test_set: MtmeTestSet) -> np.ndarray:
    """The items of a task's sample (:func:`mtsig.stats.meta_evaluation.item_sampling.item_sample`;
    ``stratify``: over the documents), from ``numpy.random.default_rng(task.sample_seed)``, as
    ``GetCorrelations`` draws them."""
    bins = document_sizes(test_set) if task.sample_method == "stratify" else None
    return item_sample(
        test_set.n_segments,
        task.sample_size,
        task.sample_method,
        bins,
        rng=np.random.default_rng(task.sample_seed),
    )


def rated_segments(human: np.ndarray, label: str) -> np.ndarray:
    """The segments every system has a human score of (SPA's permutation test pairs systems segment by segment;
    mt-metrics-eval reshapes the rated cells per system and needs the same segments for all)."""
    rated = np.isfinite(human)
    full = rated.all(axis=0)
    if (rated.any(axis=0) & ~full).any():
        raise InputError(
            f"{label}: SPA needs every system rated on the same segments; some are rated for some only"
        )
    return full


def rated_segment_flips(human: np.ndarray, label: str) -> tuple[np.ndarray, np.ndarray]:
    """``(rated, flips)``: the segments every system is rated on (:func:`rated_segments`) and pce.py's sign flips
    over them (:func:`mtsig.stats.meta_evaluation.soft_pairwise_accuracy.pce_flips`), what SPA and its tests use."""
    rated = rated_segments(human, label)
    return rated, pce_flips(int(rated.sum()))


def _early(early_stopping: str, task: Task) -> EarlyStopping | None:
    """mt-metrics-eval's early stopping of the task's test (``mtme``; that of ``PairwisePermutationSigDiff`` when
    pairs are swapped), or None (``none``: every resample)."""
    if early_stopping == "none":
        return None
    return MTME_PAIRS_EARLY_STOPPING if task.perm_test == "pairs" else MTME_EARLY_STOPPING


def _correlation_source(
    task: Task, human: np.ndarray, metrics: np.ndarray, kind: str, grouping: str, options: dict
) -> SwapSource:
    """The permutation test's source of a grouped statistic: Pearson over cells (:class:`PearsonSwaps`, the WMT23
    tasks'), PDP from its sums (:class:`PdpSwaps`), Kendall's variants with the pairs' outcomes swapped at the
    task's epsilon (:class:`PairOutcomeSwaps`, ``perm_test='pairs'``), anything else computed on the hybrids
    (:class:`ScoreSwaps`, mt-metrics-eval's ``PermutationSigDiff``)."""
    if task.statistic == "pearson" and grouping == "none" and task.average == "macro":
        cells = np.isfinite(human).reshape(-1)
        return PearsonSwaps(human.reshape(-1)[cells], metrics.reshape(len(metrics), -1)[:, cells])
    if task.statistic == "pdp":
        return PdpSwaps(human, metrics, grouping)
    if task.perm_test == "pairs":
        epsilons = np.full(len(metrics), task.epsilon)
        return PairOutcomeSwaps(
            human, metrics, epsilons, variant=task.variant, grouping=grouping, nan_groups=task.nan_groups
        )
    return ScoreSwaps(
        human, metrics, lambda x: grouped_correlation(human, x, kind, grouping, **options), grouping=grouping
    )


def run_task(
    task: Task,
    protocol: Protocol,
    test_sets: Mapping[str, MtmeTestSet],
    scores: Mapping[ScoreKey, LevelScores],
    options: RunOptions = RunOptions(),
    *,
    progress: Callable[[str, int, int], None] | None = None,
) -> TaskResult:
    """One task's values, ranking and (with ``options.n_resamples``) permutation tests and clusters
    (:class:`RunOptions`); the human scores of ``options.human_metrics`` that score every cell join as metrics,
    tested against every metric, and the other metrics' clusters are computed without them (:func:`human_ranks`)."""
    n_resamples, seed, spa_arithmetic = options.n_resamples, options.seed, options.spa_arithmetic
    key = ("metrics_protocol", task.label)
    per_lp = task_inputs_per_lp(task, protocol, test_sets, scores, options)
    names = sorted(set.intersection(*(set(metrics) for _, _, metrics in per_lp.values())))
    if len(names) < 1:
        raise InputError(f"{task.label}: no metric to compare")
    systems = {lp: inputs[0] for lp, inputs in per_lp.items()}
    epsilons = None
    source = None
    if task.statistic == "pooled_accuracy":
        humans = [inputs[1][:, 0] for inputs in per_lp.values()]
        metric_rows = [np.stack([inputs[2][m][:, 0] for m in names]) for inputs in per_lp.values()]
        values, _ = pooled_pairwise_accuracy(humans, metric_rows)
        if n_resamples:
            source = PooledAccuracySwaps(humans, metric_rows)
    else:
        ((_, human, metric_map),) = per_lp.values()
        metrics = np.stack([metric_map[m] for m in names])  # [M, S, U]
        if task.statistic in GROUPED_STATISTICS:
            grouping = task.grouping if task.level == "seg" else "none"
            correlation_options = dict(
                kendall_variant=task.variant or "b", epsilon=task.epsilon, nan_groups=task.nan_groups,
                average=task.average, threshold=task.threshold, pdp=task.statistic == "pdp",
            )  # fmt: skip
            kind = "pearson" if task.statistic == "pdp" else task.statistic
            values = grouped_correlation(human, metrics, kind, grouping, **correlation_options)
            if n_resamples:
                source = _correlation_source(task, human, metrics, kind, grouping, correlation_options)
        elif task.statistic == "tie_calibrated":
            calibrations = [
                calibrate_ties(
                    human,
                    metrics[m],
                    variant=task.variant,
                    grouping=task.grouping,
                    sample_rate=task.sample_rate,
                    rng=rng_for(seed, *key, "sample", names[m]) if task.sample_rate < 1 else None,
                )
                for m in range(len(names))
            ]
            values = np.array([c.value for c in calibrations])
            epsilons = np.array([c.epsilon for c in calibrations])
            if n_resamples and task.perm_test == "pairs":
                outcomes = pair_outcomes(human, metrics, epsilons, grouping=task.grouping)
                source = PairSwaps(outcomes, task.variant)
            elif n_resamples:  # epsilon re-calibrated on every hybrid (mt-metrics-eval's perm_test='scores')
                if task.sample_rate < 1:
                    raise InputError(f"{task.label}: re-calibrating on every resample takes every pair")
                source = recalibrated_acc_t(human, metrics, variant=task.variant, grouping=task.grouping)
        else:  # spa
            if spa_arithmetic not in ARITHMETICS:
                raise InputError(
                    f"unknown SPA arithmetic {spa_arithmetic!r}; known: {', '.join(ARITHMETICS)}"
                )
            rated, flips = rated_segment_flips(human, task.label)
            values = soft_pairwise_accuracy(
                human[:, rated], metrics[:, :, rated], flips=flips, arithmetic=spa_arithmetic
            )
            if n_resamples:
                human_counts = permutation_counts(human[:, rated], flips)
                source = SpaSwaps(human_counts, metrics[:, :, rated], flips)
    values = np.asarray(values, dtype=np.float64)
    order = ranking_order(names, values)
    rank_of = np.empty(len(names), dtype=np.int64)
    rank_of[order] = np.arange(len(names))
    test = None
    significance = np.zeros((len(names), len(names)))
    if source is not None and len(names) > 1:
        test = permutation_test(
            source,
            rank_of,
            n_resamples,
            seed=seed,
            key=key,
            early_stopping=_early(options.early_stopping, task),
            progress=None if progress is None else (lambda done, total: progress(task.label, done, total)),
        )
        significance = test.matrix(order)
    human = frozenset(name for name in names if name.startswith(HUMAN_PREFIX))
    ranks = np.empty(len(names), dtype=np.int64)
    ranks[order] = human_ranks([names[m] in human for m in order], significance, options.alpha)
    return TaskResult(
        task, tuple(names), values, tuple(order), ranks, significance, systems, epsilons, test, human
    )


def human_ranks(is_human: Sequence[bool], significance: np.ndarray, alpha: float = ALPHA) -> np.ndarray:
    """Cluster ranks of metrics in ranking order when some are human scores (``is_human``): the others' clusters
    as without them (mt-metrics-eval's ``AssignRanks`` on their own significance matrix); a human score joins the
    cluster of the metric above it, or starts the next one when a metric of that cluster beats it with
    ``p <= alpha`` (where it would fall among the metrics), rank 1 at the top."""
    flags = np.asarray(is_human, dtype=bool)
    if not flags.any():
        return assign_ranks(significance, alpha)
    main = np.flatnonzero(~flags)
    ranks = np.zeros(flags.size, dtype=np.int64)
    ranks[main] = assign_ranks(significance[np.ix_(main, main)], alpha)
    for position in np.flatnonzero(flags):
        above = main[main < position]
        if above.size == 0:
            ranks[position] = 1
            continue
        cluster = above[ranks[above] == ranks[above[-1]]]
        beaten = bool((significance[cluster, position] <= alpha).any())
        ranks[position] = ranks[above[-1]] + int(beaten)
    return ranks


def run_protocol(
    protocol: Protocol,
    test_sets: Mapping[str, MtmeTestSet],
    scores: Mapping[ScoreKey, LevelScores],
    options: RunOptions = RunOptions(),
    *,
    progress: Callable[[str, int, int], None] | None = None,
) -> ProtocolResult:
    """Every task of ``protocol`` on ``test_sets`` (``{lp: read_test_set(...)}``) with the ``scores`` that
    :func:`required_scores` lists, then the weighted average, its significance and clusters, run as ``options``
    says (:class:`RunOptions`: resamples, seed, alpha, early stopping, SPA's arithmetic, which metrics).
    """
    n_resamples, alpha = options.n_resamples, options.alpha
    if n_resamples < 0:
        raise InputError(f"the number of resamples must be >= 0, got {n_resamples}")
    if options.early_stopping not in EARLY_STOPPING:
        raise InputError(
            f"unknown early stopping {options.early_stopping!r}; known: {', '.join(EARLY_STOPPING)}"
        )
    results = tuple(
        run_task(task, protocol, test_sets, scores, options, progress=progress) for task in protocol.tasks
    )
    extras = tuple(
        run_task(task, protocol, test_sets, scores, options, progress=progress) for task in protocol.extras
    )
    # the average ranks the metrics every task has; human scores entered as metrics are rows of their own
    common = set.intersection(*(set(r.metrics) for r in results)) - {
        name for r in results for name in r.human
    }
    # AverageCorrs: metrics in the first task's ranking order, then a stable sort by decreasing average
    first = [results[0].metrics[m] for m in results[0].order if results[0].metrics[m] in common]
    index = [np.array([r.metrics.index(name) for name in first]) for r in results]
    average = weighted_average(
        [r.values[i] for r, i in zip(results, index, strict=True)],
        [r.task.value_range for r in results],
        protocol.weights,
    )
    order = sorted(range(len(first)), key=lambda m: -average[m])
    significance = np.zeros((len(first), len(first)))
    if n_resamples and all(r.test is not None for r in results) and len(first) > 1:
        significance = average_significance(
            order,
            average,
            [r.test for r in results],
            [r.task.value_range for r in results],
            protocol.weights,
            index,
        )
    return ProtocolResult(
        protocol,
        results,
        tuple(first[m] for m in order),
        average[order],
        assign_ranks(significance, alpha),
        significance,
        n_resamples,
        options.seed,
        alpha,
        options.early_stopping,
        options.spa_arithmetic,
        extras,
    )
