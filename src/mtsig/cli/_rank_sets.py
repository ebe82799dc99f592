"""The rank-set options of ``mtsig rank``, ``mtsig compare`` and ``mtsig metrics``: confidence sets for ranks with
guaranteed coverage (Mogstad, Romano, Shaikh & Wilhelm 2023; :mod:`mtsig.stats.rank_sets`, equal to csranks on the
same draws).

``--rank-sets`` asks for them; ``--top K`` chooses τ of the τ-best set (default 1: which systems could be first),
``--coverage`` the coverage of every set (default 0.95), ``--simultaneous`` or ``--marginal`` the kind of set the
text and LaTeX show (default simultaneous; JSON gives both), ``--draws`` the bootstrap's draws (``mtsig rank``,
``mtsig metrics``; ``mtsig compare`` reads the first ``--samples`` draws of its own paired bootstrap). Given without
rank sets asked for, each of them is an error, never silently ignored.

Private to :mod:`mtsig.cli` (the leading underscore keeps it out of the sub-command discovery).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mtsig.cli._common import positive_int
from mtsig.errors import InputError

if TYPE_CHECKING:
    import numpy as np

    from mtsig.metrics.base import Metric
    from mtsig.stats.rank_sets.summary import RankSets
    from mtsig.studies.metrics_protocol import ProtocolData, RunOptions

#: Defaults: csranks's coverage and number of draws; τ = 1 (which systems could be first).
DEFAULT_COVERAGE = 0.95
DEFAULT_DRAWS = 1000
DEFAULT_TOP = 1
#: The rank-set options (argparse destination -> flag), each refused when no rank sets are asked for.
OPTIONS = {
    "top": "--top",
    "coverage": "--coverage",
    "rank_set_kind": "--simultaneous/--marginal",
    "draws": "--draws",
}


def coverage_level(text: str) -> float:
    """An argparse type: a coverage strictly between 0 and 1 (csranks's ``coverage``; a percentage such as 95 is
    refused, as 1.5 would otherwise read as 1.5%)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number strictly between 0 and 1, got {text!r}") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(
            f"must be a number strictly between 0 and 1 (0.95 for 95%), got {text}"
        )
    return value


@dataclass(frozen=True)
class RankSetOptions:
    """The rank-set options as given or defaulted: ``kind`` shown, ``coverage``, ``tau``, ``draws`` (None where
    the command reads its own draws)."""

    kind: str
    coverage: float
    tau: int
    draws: int | None


def add_rank_set_arguments(parser: argparse.ArgumentParser, *, draws: bool, asked_by: str) -> None:
    """``--rank-sets``, ``--top``, ``--coverage``, ``--simultaneous``/``--marginal`` and, with ``draws``,
    ``--draws`` (module docstring); ``asked_by`` completes ``--rank-sets``'s help."""
    group = parser.add_argument_group(
        "rank sets", "confidence sets for ranks (Mogstad, Romano, Shaikh & Wilhelm 2023; docs/cli.md)"
    )
    group.add_argument(
        "--rank-sets",
        action="store_true",
        help=f"which systems could be first, and where each could rank, with guaranteed coverage ({asked_by})",
    )
    group.add_argument(
        "--top",
        type=positive_int,
        metavar="K",
        help=f"the tau-best set: the systems that could be among the K best (default {DEFAULT_TOP}: could be first)",
    )
    group.add_argument(
        "--coverage",
        type=coverage_level,
        help=f"coverage of every set, strictly between 0 and 1 (default {DEFAULT_COVERAGE})",
    )
    kinds = group.add_mutually_exclusive_group()
    kinds.add_argument(
        "--simultaneous",
        dest="rank_set_kind",
        action="store_const",
        const="simultaneous",
        help="show the sets that cover every system's rank at once (the default)",
    )
    kinds.add_argument(
        "--marginal",
        dest="rank_set_kind",
        action="store_const",
        const="marginal",
        help="show each system's own set, which covers that system's rank (JSON always has both)",
    )
    if draws:
        group.add_argument(
            "--draws",
            type=positive_int,
            help=f"bootstrap draws (default {DEFAULT_DRAWS}, as csranks); the seed is --seed",
        )


def check_top(options: RankSetOptions, n_systems: int) -> None:
    """``--top K`` needs at least K systems."""
    if options.tau > n_systems:
        raise InputError(f"--top {options.tau}: there are only {n_systems} systems to rank")


def rank_set_options(args: argparse.Namespace, *, asked: bool, how: str) -> RankSetOptions | None:
    """The options when rank sets are ``asked`` for, else None, after refusing any rank-set option given without
    them (``how``: what asks for them, for the message)."""
    given = [flag for dest, flag in OPTIONS.items() if getattr(args, dest, None) is not None]
    if not asked:
        if given:
            raise InputError(f"{given[0]} is an option of the rank sets: ask for them with {how}")
        return None
    draws = getattr(args, "draws", None)
    return RankSetOptions(
        kind=args.rank_set_kind or "simultaneous",
        coverage=DEFAULT_COVERAGE if args.coverage is None else float(args.coverage),
        tau=DEFAULT_TOP if args.top is None else int(args.top),
        draws=DEFAULT_DRAWS if draws is None and "draws" in vars(args) else draws,
    )


def compare_rank_set_options(args: argparse.Namespace) -> RankSetOptions | None:
    """``mtsig compare``'s rank-set options (None without ``--rank-sets``); they go with neither ``--runs`` nor
    ``--tsv --clusters`` (``--tsv`` prints one table)."""
    options = rank_set_options(args, asked=args.rank_sets, how="--rank-sets")
    if options is not None and args.runs:
        raise InputError("--rank-sets ranks systems by their corpus scores: not with --runs (training runs)")
    if options is not None and args.tsv and args.clusters:
        raise InputError("--tsv prints one table: the clusters' (--clusters) or the rank sets' (--rank-sets)")
    return options


def metric_rank_sets(
    metric: Metric,
    stats: np.ndarray,
    systems: Sequence[str],
    documents: np.ndarray | None,
    n_samples: int,
    seed: int,
    options: RankSetOptions,
) -> RankSets:
    """``mtsig compare --rank-sets``: the systems' rank sets by ``metric``'s corpus score, from the first
    ``n_samples`` pseudo-test-sets of the paired bootstrap with ``seed`` (whole documents with ``documents``):
    :func:`mtsig.stats.rank_sets.corpus.corpus_rank_sets`."""
    from mtsig.stats.rank_sets.corpus import corpus_rank_sets

    check_top(options, len(systems))
    return corpus_rank_sets(
        systems, stats, metric.score, higher_is_better=metric.higher_is_better, n_draws=n_samples, seed=seed,
        documents=documents, coverage=options.coverage, tau=options.tau, kind=options.kind, source=metric.name,
    )  # fmt: skip


def protocol_rank_set_options(args: argparse.Namespace) -> RankSetOptions | None:
    """``mtsig metrics``'s rank-set options (None without ``--rank-sets``): they rank the metrics of a protocol,
    so they need ``--mtme``."""
    options = rank_set_options(args, asked=args.rank_sets, how="--rank-sets")
    if options is not None and args.mtme is None:
        raise InputError("--rank-sets ranks the metrics of a metrics task's protocol: give --mtme DIR")
    return options


def protocol_rank_sets_output(
    data: ProtocolData,
    run_options: RunOptions,
    options: RankSetOptions,
    mode: str,
) -> str | dict[str, object]:
    """``mtsig metrics --mtme --rank-sets``: which metrics could be first on the protocol's weighted average and on
    each task (:func:`mtsig.studies.metrics_protocol.rank_sets.protocol_rank_sets`, ``--draws`` joint draws from
    ``rng_for(--seed, "metrics", "rank_sets", <protocol>)``), as ``mode`` says: ``text`` and ``latex`` give text,
    ``json`` the record (:mod:`mtsig.report.metrics_protocol.rank_sets`)."""
    from mtsig.report.metrics_protocol.rank_sets import (
        metric_rank_sets_json,
        metric_rank_sets_latex,
        metric_rank_sets_text,
    )
    from mtsig.studies.metrics_protocol.rank_sets import protocol_rank_sets

    if options.tau > len(data.result.metrics):
        raise InputError(f"--top {options.tau}: the average ranks only {len(data.result.metrics)} metrics")
    sets = protocol_rank_sets(
        data, run_options, n_draws=int(options.draws or DEFAULT_DRAWS),
        coverage=options.coverage, tau=options.tau, seed=run_options.seed, key=("metrics",), kind=options.kind,
    )  # fmt: skip
    if mode == "json":
        return metric_rank_sets_json(sets)
    return metric_rank_sets_latex(sets) if mode == "latex" else metric_rank_sets_text(sets)
