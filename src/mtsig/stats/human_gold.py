"""An experiment's human gold standard from its judgments: the whole human step (paper Sec. 4) as one call.

:func:`build_gold` takes what a reader of :mod:`mtsig.io.human` returns, and the type decides the gold:
:class:`~mtsig.io.human.Ratings` (DA, ESA, MQM, segment means) are checked against the experiment's systems,
quality-controlled (Graham et al. 2013), standardised per annotator and tested pair by pair with the Wilcoxon
rank-sum test (:func:`mtsig.stats.human.wilcoxon_gold`); :class:`~mtsig.io.human.Rankings` get the relative-ranking
golds of docs/statistics.md ("Relative rankings": :func:`mtsig.stats.human.head_to_head_gold`,
:func:`mtsig.stats.human.item_score_wilcoxon_gold`). The result is a :class:`GoldStandard`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import pandas as pd

from mtsig.errors import InputError
from mtsig.io.human import HumanJudgments, Rankings, Ratings, check_systems
from mtsig.settings import HumanGold, QualityControl, Standardise
from mtsig.stats.human import (
    QC_COLUMNS,
    RANKING_CRITERION,
    gold_conclusions,
    head_to_head_gold,
    item_score_wilcoxon_gold,
    quality_control,
    ranked_systems,
    ranking_system_scores,
    rated_systems,
    standardise,
    standardise_with,
    standardised_item_scores,
    system_scores,
    wilcoxon_gold,
)

DROPPED_COLUMNS = ["annotator", "reason"]


@dataclass(frozen=True)
class GoldStandard:
    """What :func:`build_gold` returns: the tables of ``human/z.tsv``, ``human/qc.tsv``, ``gold.tsv``,
    ``gold_conclusions.tsv`` and ``human/system_scores.tsv``, and what the step logs.

    ``z``: the standardised ratings (for rankings, the standardised item scores); ``qc``: the per-annotator
    quality control (:data:`mtsig.stats.human.QC_COLUMNS`; no rows when it did not run); ``dropped``: the
    annotators left out (annotator, reason); ``zero_z``: the zero-variance annotators kept with z = 0
    (``standardise.zero_variance: zero``), sorted; ``gold`` and ``gold_conclusions``: the p-value of every ordered
    pair and criterion and the conclusion of every unordered pair and alpha, with a leading ``gold`` column naming
    the method (the first listed is the primary gold); ``system_scores``: the human system scores.
    """

    z: pd.DataFrame
    qc: pd.DataFrame
    dropped: pd.DataFrame
    zero_z: tuple[str, ...]
    gold: pd.DataFrame
    gold_conclusions: pd.DataFrame
    system_scores: pd.DataFrame


def build_gold(
    judgments: HumanJudgments,
    systems: Sequence[str],
    alphas: Iterable[float],
    *,
    gold: HumanGold,
    moments: pd.DataFrame | None = None,
    qc: QualityControl | None = None,
    standardisation: Standardise | None = None,
) -> GoldStandard:
    """The whole human step of one experiment: check systems, QC, standardise, gold, conclusions, scores.

    ``judgments``: what :func:`mtsig.io.judgments.load_judgments` (or a reader of :mod:`mtsig.io.human`) returns;
    its ``source`` is named in errors. ``moments``: the organisers' per-annotator means and sds when
    ``standardise.moments`` names them (:func:`mtsig.io.human.wmt_mturk_da.load_r_mean_sd`). ``qc``,
    ``standardisation`` and ``gold`` are the experiment's ``qc:``, ``standardise:`` and ``gold:`` blocks as
    settings (:mod:`mtsig.settings`; a Python user without a config builds them, e.g.
    ``HumanGold(methods=("wilcoxon",))``); ``qc`` and ``standardisation`` omitted are their defaults.

    Ratings (:func:`ratings_gold`): QC when enabled, where it applies (DA, ESA; not MQM, nor scores already
    standardised); standardisation with ``ddof`` and ``zero_variance`` (``drop`` | ``zero``,
    :func:`mtsig.stats.human.standardise`) or the ``moments`` (:func:`mtsig.stats.human.standardise_with`); the
    gold method ``wilcoxon`` with ``unit``, ``item_types``, ``criteria``, ``significant_digits``
    (:func:`mtsig.stats.human.wilcoxon_gold`). Rankings (:func:`rankings_gold`): item scores standardised per
    judge; the gold methods ``head_to_head`` and ``item_score_wilcoxon``.
    """
    qc = QualityControl() if qc is None else qc
    standardisation = Standardise() if standardisation is None else standardisation
    if isinstance(judgments, Rankings):
        return rankings_gold(judgments, systems, list(alphas), gold, standardisation)
    if not isinstance(judgments, Ratings):
        raise TypeError(
            f"build_gold takes Ratings or Rankings (mtsig.io.human), not {type(judgments).__name__}"
        )
    return ratings_gold(judgments, systems, list(alphas), gold, qc, standardisation, moments)


def _labelled(table: pd.DataFrame, method: str) -> pd.DataFrame:
    """``table`` (a gold, :data:`mtsig.stats.human.GOLD_COLUMNS`, or its conclusions) with a leading ``gold``
    column naming the method that made it."""
    return table.assign(gold=method)[["gold", *table.columns]]


def _assembled(
    z: pd.DataFrame,
    qc_table: pd.DataFrame,
    dropped: Sequence[tuple[str, str]],
    zero_z: Sequence[str],
    golds: Sequence[tuple[str, pd.DataFrame, pd.DataFrame]],
    scores: pd.DataFrame,
) -> GoldStandard:
    """The :class:`GoldStandard` of one or more golds, each (method, p-values, conclusions), labelled with their
    method in the order given (the first is the primary gold)."""
    return GoldStandard(
        z=z,
        qc=qc_table,
        dropped=pd.DataFrame(list(dropped), columns=DROPPED_COLUMNS),
        zero_z=tuple(zero_z),
        gold=pd.concat([_labelled(table, method) for method, table, _ in golds], ignore_index=True),
        gold_conclusions=pd.concat(
            [_labelled(concluded, method) for method, _, concluded in golds], ignore_index=True
        ),
        system_scores=scores,
    )


def _quality_controlled(
    ratings: Ratings, qc: QualityControl
) -> tuple[pd.DataFrame, pd.DataFrame, list[tuple[str, str]]]:
    """(the ratings of the annotators kept, the QC table, the annotators dropped with the reason): QC runs when
    ``qc.enabled`` and it applies to the ratings (:attr:`mtsig.io.human.Ratings.quality_control_applies`, and
    scores not standardised already)."""
    table = ratings.table
    if not (qc.enabled and ratings.quality_control_applies and not ratings.standardised):
        return table, pd.DataFrame(columns=QC_COLUMNS), []
    qc_table = quality_control(table, qc.method, qc.alpha)
    failed = qc_table.loc[~qc_table["kept"], "annotator"]
    dropped = [(a, f"failed quality control ({qc.method})") for a in failed]
    return table.loc[~table["annotator"].isin(set(failed))], qc_table, dropped


def _standardised(
    table: pd.DataFrame, options: Standardise, moments: pd.DataFrame | None
) -> tuple[pd.DataFrame, list[str], list[tuple[str, str]]]:
    """(the ratings with ``z``, the zero-variance annotators kept with z = 0, those dropped with the reason):
    :func:`mtsig.stats.human.standardise`, or with ``moments`` :func:`mtsig.stats.human.standardise_with`."""
    if moments is not None:
        z, zero_variance = standardise_with(table, moments, options.zero_variance)
    else:
        z, zero_variance = standardise(table, ddof=options.ddof, zero_variance=options.zero_variance)
    if options.zero_variance == "zero":
        return z, zero_variance, []
    return z, [], [(a, "zero variance") for a in zero_variance]


def ratings_gold(
    ratings: Ratings,
    systems: Sequence[str],
    alphas: list[float],
    gold: HumanGold,
    qc: QualityControl,
    standardisation: Standardise,
    moments: pd.DataFrame | None,
) -> GoldStandard:
    """:func:`build_gold` of ratings: the paper's gold (Sec. 4), a one-sided Wilcoxon rank-sum test of every ordered
    pair on the standardised scores (those already standardised used as given)."""
    check_systems(rated_systems(ratings.table), systems, ratings.source)
    table, qc_table, dropped = _quality_controlled(ratings, qc)
    zero_z: list[str] = []
    if ratings.standardised:
        z = table
    else:
        z, zero_z, zero_dropped = _standardised(table, standardisation, moments)
        dropped += zero_dropped
    methods = list(gold.methods)
    if methods != ["wilcoxon"]:
        raise InputError(f"gold methods {methods} do not apply to DA ratings (use [wilcoxon])")
    pairs = wilcoxon_gold(
        z,
        unit=gold.unit,
        item_types=gold.item_types,
        systems=systems,
        significant_digits=gold.significant_digits,
    )
    conclusions = gold_conclusions(pairs, alphas, gold.criteria, systems)
    return _assembled(
        z.reset_index(drop=True),
        qc_table,
        dropped,
        zero_z,
        [("wilcoxon", pairs, conclusions)],
        system_scores(z, gold.item_types, systems),
    )


def rankings_gold(
    rankings: Rankings,
    systems: Sequence[str],
    alphas: list[float],
    gold: HumanGold,
    standardisation: Standardise,
) -> GoldStandard:
    """:func:`build_gold` of relative rankings (docs/statistics.md, "Relative rankings"): one gold per listed method,
    item scores standardised per judge (zero-variance judges dropped), no quality control."""
    if standardisation.zero_variance != "drop" or standardisation.moments:
        raise InputError(
            "standardise.zero_variance: zero and standardise.moments apply to rated (DA) scores; "
            "relative rankings standardise item scores per judge and drop zero-variance judges"
        )
    judgments, ddof = rankings.table, standardisation.ddof
    check_systems(ranked_systems(judgments), systems, rankings.source)
    builders = {
        "head_to_head": lambda: head_to_head_gold(judgments, systems),
        "item_score_wilcoxon": lambda: item_score_wilcoxon_gold(judgments, systems, ddof),
    }
    methods = list(gold.methods)
    unknown = [m for m in methods if m not in builders]
    if unknown:
        raise InputError(f"gold methods {unknown} do not apply to rankings (use {', '.join(builders)})")
    golds = []
    for method in methods:
        table = builders[method]()
        golds.append((method, table, gold_conclusions(table, alphas, (RANKING_CRITERION,), systems)))
    z, zero_variance = standardised_item_scores(judgments, ddof=ddof)
    return _assembled(
        z,
        pd.DataFrame(columns=QC_COLUMNS),
        [(a, "zero variance") for a in zero_variance],
        (),
        golds,
        ranking_system_scores(judgments, systems, ddof),
    )
