"""Which metrics could be first? Confidence sets for the metrics' ranks on a metrics-task protocol's weighted average
and on each of its tasks (Mogstad, Romano, Shaikh & Wilhelm 2023; :mod:`mtsig.stats.rank_sets`; docs/statistics.md,
"Rank sets in the commands and the default run").

The estimates are the protocol's own: each task's value of every metric and their weighted average (the table's
ranking, Freitag et al. 2023, Sec. 5). Their draws are the protocol's bootstrap statistics
(:class:`~mtsig.studies.metrics_protocol.beyond.TaskResampler`) on test sets of the real size in which each
language pair's systems and items are drawn once for all its tasks
(:func:`~mtsig.studies.metrics_protocol.beyond.joint_task_draws`): every metric is scored on the same draw of units,
so the metrics' estimates are resampled jointly, within a task and across the tasks of the average, which is
averaged per draw as the table averages (each task rescaled by its range, weighted). Those draws go to
:func:`mtsig.stats.rank_sets.problem_from_resampled` as any paired bootstrap's. A draw on which some metric's
statistic is undefined (a resampled Pearson with a constant side) is left out, and counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mtsig.errors import InputError
from mtsig.stats.rank_sets import problem_from_resampled
from mtsig.stats.rank_sets.summary import DEFAULT_KIND, RankSets, rank_sets_of
from mtsig.stats.seeding import rng_for
from mtsig.studies.metrics_protocol import ProtocolData, RunOptions
from mtsig.studies.metrics_protocol.beyond import TaskResampler, joint_task_draws, task_resampler, task_scheme

#: The scope of the weighted average's rank sets (a task's is its label).
AVERAGE = "average"
#: What the average's draws resample (:attr:`mtsig.stats.rank_sets.RankProblem.bootstrap`): each language pair's
#: systems and items, once for all its tasks.
JOINT_UNITS = "systems+items"


@dataclass(frozen=True)
class ScopeRankSets:
    """The metrics' rank sets on one ``scope`` (:data:`AVERAGE` or a task's label): ``sets``, and ``n_undefined``
    draws left out because some metric's statistic was undefined on them."""

    scope: str
    sets: RankSets
    n_undefined: int


@dataclass(frozen=True)
class MetricRankSets:
    """A protocol's rank sets: on its weighted average and on each task (in the protocol's order), from
    ``n_draws`` joint draws of ``n_units`` units (every language pair's systems and items)."""

    protocol: str
    average: ScopeRankSets
    tasks: tuple[ScopeRankSets, ...]
    n_draws: int
    n_units: int

    @property
    def scopes(self) -> tuple[ScopeRankSets, ...]:
        """The average's sets, then every task's."""
        return (self.average, *self.tasks)


def scope_rank_sets(
    scope: str,
    metrics: Sequence[str],
    estimates: np.ndarray,
    draws: np.ndarray,
    *,
    bootstrap: str,
    n_units: int,
    coverage: float,
    tau: int,
    seed: int,
    kind: str = DEFAULT_KIND,
) -> ScopeRankSets:
    """The rank sets of ``metrics`` by ``estimates[M]`` from their joint ``draws[B, M]``
    (:func:`mtsig.stats.rank_sets.problem_from_resampled`), the draws with an undefined value left out.

    Raises:
        InputError: fewer than two defined draws, or τ larger than the number of metrics.
    """
    if tau > len(metrics):
        raise InputError(f"--top {tau}: {scope} ranks only {len(metrics)} metrics")
    defined = np.isfinite(draws).all(axis=1)
    problem = problem_from_resampled(
        metrics, estimates, draws[defined], bootstrap=bootstrap, source=f"{scope} draws"
    )
    sets = rank_sets_of(problem, coverage=coverage, tau=tau, seed=seed, kind=kind, n_units=n_units)
    return ScopeRankSets(scope, sets, int((~defined).sum()))


def protocol_rank_sets(
    data: ProtocolData,
    options: RunOptions | None = None,
    *,
    n_draws: int,
    coverage: float,
    tau: int = 1,
    seed: int = 0,
    key: Sequence[object] = (),
    kind: str = DEFAULT_KIND,
    resamplers: Sequence[TaskResampler] | None = None,
) -> MetricRankSets:
    """The rank sets of a protocol run (module docstring): the metrics of the weighted average on it, and each
    task's metrics (human scores entered as metrics left out) on the task, all from the same ``n_draws`` joint
    draws, from ``rng_for(seed, *key, "rank_sets", <protocol>)``; ``resamplers``: the tasks' own, when already
    built (:func:`task_resampler` with ``options``)."""
    if n_draws < 2:
        raise InputError(
            f"rank sets from {n_draws} draws: the bootstrap needs at least 2 (--draws, or rank_sets.samples)"
        )
    result = data.result
    if resamplers is None:
        resamplers = [task_resampler(task, data.inputs, options) for task in result.tasks]
    rng = rng_for(seed, *key, "rank_sets", result.protocol.name)
    task_draws, average_draws, n_units = joint_task_draws(result, resamplers, n_draws, rng)
    shared = {"coverage": coverage, "tau": tau, "seed": seed, "kind": kind}
    average = scope_rank_sets(
        AVERAGE,
        result.metrics,
        result.average,
        average_draws,
        bootstrap=JOINT_UNITS,
        n_units=n_units,
        **shared,
    )
    tasks = []
    for task, resampler, draws in zip(result.tasks, resamplers, task_draws, strict=True):
        keep = [m for m, name in enumerate(task.metrics) if name not in task.human]
        units = int(sum(resampler.n_units))
        tasks.append(
            scope_rank_sets(
                task.task.label,
                [task.metrics[m] for m in keep],
                task.values[keep],
                draws[:, keep],
                bootstrap=task_scheme(task.task),
                n_units=units,
                **shared,
            )  # fmt: skip
        )
    return MetricRankSets(result.protocol.name, average, tuple(tasks), n_draws, n_units)
