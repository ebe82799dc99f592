"""The settings of a metrics-task protocol experiment (``metrics_protocol.<name>``)."""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import dataclass, field


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
class ProtocolRankSets:
    """``metrics_protocol.<name>.rank_sets``: confidence sets for the metrics' ranks on the weighted average and on
    each task (which metrics could be first), from ``samples`` joint bootstrap draws at ``coverage``."""

    samples: int = 1000
    coverage: float = 0.95


@dataclass(frozen=True, kw_only=True)
class ProtocolOptions:
    """The settings of ``metrics_protocol.<name>`` that every run of its protocols reads: the permutation tests'
    ``early_stopping`` (mt-metrics-eval's, or every resample), SPA's arithmetic, the clusters' ``alpha``, which
    metrics (``all_metrics``: the non-primary ones too) and the human scores entered as metrics. The study's
    options of one run (:class:`mtsig.studies.metrics_protocol.RunOptions`) are these and what that run adds;
    ``mtsig metrics --mtme`` sets them from its options."""

    early_stopping: str = "mtme"
    spa_arithmetic: str = "exact"
    alpha: float = 0.05
    all_metrics: bool = False
    human_metrics: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class MetricsProtocol(ProtocolOptions):
    """``metrics_protocol.<name>``: a metrics task's protocol on expert MQM (``protocols``: task set -> its
    permutation tests' resamples), with the options every run of its protocols reads (:class:`ProtocolOptions`)
    and the studies beside them. The one shape of the block from the config to the study: the workflow builds it
    once, the rule's step rebuilds it from the rule's params, and the study reads it."""

    root: str
    lps: tuple[str, ...]
    protocols: Mapping[str, ProtocolTests] = field(
        default_factory=lambda: types.MappingProxyType({"wmt23": ProtocolTests()})
    )
    bootstrap: ProtocolBootstrap = field(default_factory=ProtocolBootstrap)
    replicability_tasks: tuple[str, ...] = ("sys pearson", "seg acc-t (item)")
    delta_metrics: tuple[str, ...] = ()
    chance: ProtocolChance = field(default_factory=ProtocolChance)
    power: ProtocolPower = field(default_factory=ProtocolPower)
    rank_sets: ProtocolRankSets = field(default_factory=ProtocolRankSets)
    gold: str | None = None
    description: str | None = None
