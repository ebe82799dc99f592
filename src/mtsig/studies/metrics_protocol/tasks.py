"""A protocol's tasks and task sets (mt-metrics-eval's ``tasks.Task`` and ``tasks.TaskSet``): what a task computes
and on which data; each statistic's own part is its entry of :data:`~mtsig.studies.metrics_protocol.statistics.
STATISTICS`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mtsig.errors import InputError
from mtsig.stats.meta_evaluation.grouped_correlation import (
    AVERAGES,
    GROUPINGS,
    KENDALL_LIKE_THRESHOLD,
    NAN_GROUPS,
)
from mtsig.stats.meta_evaluation.item_sampling import SAMPLE_METHODS
from mtsig.stats.meta_evaluation.score_permutation import PAIR_VARIANTS
from mtsig.studies.metrics_protocol.statistics import STATISTICS, StatisticSpec

#: mt-metrics-eval's ``perm_test``: swap the metrics' scores, or (tie-calibrated statistics) the pairs' outcomes.
PERM_TESTS = ("scores", "pairs")


@dataclass(frozen=True)
class TestSetInfo:
    """What mt-metrics-eval's ``meta_info.MetaInfo`` says of a test set's language pairs: the standard reference
    and gold, the outlier systems, the primary metrics' and baselines' basenames."""

    std_ref: Mapping[str, str]
    std_gold: Mapping[str, str]
    outliers: Mapping[str, frozenset[str]]
    primary: frozenset[str]
    baselines: frozenset[str]


@dataclass(frozen=True)
class Task:
    """One meta-evaluation task (mt-metrics-eval's ``tasks.Task``): a ``statistic`` (a key of
    :data:`~mtsig.studies.metrics_protocol.statistics.STATISTICS`) on language pair(s) ``lps`` at ``level`` (``sys``
    or ``seg``), with or without the human translations as systems.

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
        self.statistic_spec.check(self)
        if not self.statistic_spec.pooled and len(self.lps) != 1:
            raise InputError(f"a {self.statistic} task has one language pair, got {', '.join(self.lps)}")
        self._check_options()

    def _check_options(self) -> None:
        """The checks of the options every statistic shares (the average, the sample, the permutation test)."""
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
        if self.perm_test == "pairs" and not self.statistic_spec.pairs_test(self):
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
    def statistic_spec(self) -> StatisticSpec:
        """The statistic's registry entry."""
        return STATISTICS[self.statistic]

    @property
    def default_perm_test(self) -> str:
        """The test a task of this statistic gets unless told otherwise (:func:`tasks_from_spec`, the protocols):
        ``pairs`` for tie calibration, ``scores`` for the others."""
        return self.statistic_spec.default_perm_test

    @property
    def label(self) -> str:
        """A short name: ``accuracy``, ``en-de sys pearson``, ``en-de seg acc-t (item)``, ``en-de sys SPA``; the
        options that differ from their defaults in brackets (grouping, micro average, NaN groups as 0, the sample
        rate of tie calibration, an item sample, the permutation test), so that two different tasks of a protocol
        never share a label (labels key the random draws and the per-task results)."""
        name = self.statistic_spec.name(self)
        if self.statistic_spec.pooled:
            return name
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
        return self.statistic_spec.value_range(self)


def file_level(task: Task) -> str:
    """The level of the files a task reads: SPA is system-level but needs segment scores."""
    return task.statistic_spec.file_level or task.level


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


def gold_of(task: Task, info: TestSetInfo, lp: str) -> str:
    """The human score a task takes as its gold in ``lp``: the task's own, else the test set's standard gold."""
    return task.gold or info.std_gold[lp]
