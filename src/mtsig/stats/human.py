"""The human gold standard: per-annotator standardisation, quality control and pairwise significance.

Paper: Graham, Mathur & Baldwin (2014), Sec. 4. Every annotator's scores are standardised with that annotator's
mean and sd; for each pair of systems and each criterion a Wilcoxon rank-sum (Mann-Whitney U) test is run on the
standardised scores; adequacy decides and fluency breaks adequacy ties (Fig. 7). Quality control follows Graham et al.
(2013) as in WMT DA: an annotator is kept only if their degraded ("bad reference") items score significantly lower
than the matching originals (:func:`paired_qc_test`, per rater; the same test reports, removing nobody, the raters
of Appraise ESA exports: :func:`esa_quality_control`). For relative rankings (WMT12 RNK, no 0-100 scores)
docs/statistics.md ("Relative rankings") defines two golds: the head-to-head sign test and the paper's machinery
applied to item scores (beats - beaten) standardised per judge.

Inputs are the tidy ratings table (:attr:`mtsig.io.human.Ratings.table`) and the relative-ranking judgments
(:attr:`mtsig.io.human.Rankings.table`: columns judgment, annotator, segment, system, rank; rank -1 = blank). Gold
tables have one row per ORDERED pair (sys_x, sys_y) and criterion with the one-sided p-value of "sys_x better than
sys_y". :func:`mtsig.stats.human_gold.build_gold` runs the whole step on an experiment's judgments.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import stats

from mtsig.errors import InputError
from mtsig.settings import HumanGold, QualityControl, Standardise
from mtsig.stats.conclusions import by_priority, conclude, unordered_pairs

GOLD_COLUMNS = ["sys_x", "sys_y", "criterion", "unit", "n_x", "n_y", "statistic", "p_value"]
QC_COLUMNS = ["annotator", "n_pairs", "statistic", "p_value", "kept"]
#: The tests :func:`paired_qc_test` runs (``qc.method``).
QC_METHODS = ("t", "wilcoxon")
#: Why :func:`paired_qc_test` did not test (:attr:`PairedQcTest.untested`).
TOO_FEW_PAIRS = "fewer than 2 pairs"
NO_DIFFERENCE = "every degraded item scores the same as its original"
#: Columns of :func:`esa_quality_control`: one row per rater and language pair.
ESA_QC_COLUMNS = (
    "lp",
    "rater",
    "n_items",
    "n_bad",
    "n_paired",
    "mean_bad",
    "mean_original",
    "p_value",
    "passed",
    "note",
)
#: The alpha of the ESA raters' QC table (:func:`esa_quality_control`): WMT DA's, the ``qc.alpha`` default.
ESA_QC_ALPHA = QualityControl.alpha
RANKING_CRITERION = "ranking"
# z-scores are rounded to this many decimals before rank tests, so that values equal in exact arithmetic (e.g.
# the same item score of two judges with equal moments) tie whatever the floating-point summation order.
Z_DECIMALS = 12
#: What ``standardise.zero_variance`` may be: drop an annotator whose scores do not vary, or keep them with z = 0.
ZERO_VARIANCE = ("drop", "zero")


# --------------------------------------------------------------------------------------------- standardisation


def _check_zero_variance(zero_variance: str) -> None:
    if zero_variance not in ZERO_VARIANCE:
        raise InputError(
            f"unknown standardise.zero_variance {zero_variance!r} ({' or '.join(ZERO_VARIANCE)})"
        )


def _apply_moments(
    ratings: pd.DataFrame, mean: np.ndarray, sd: np.ndarray, zero_variance: str
) -> tuple[pd.DataFrame, list[str]]:
    """z = (raw - mean) / sd per rating; rows whose sd is not positive follow ``zero_variance``."""
    _check_zero_variance(zero_variance)
    degenerate = ~(sd > 0)
    annotators = sorted(set(ratings.loc[degenerate, "annotator"]))
    raw = ratings["raw_score"].to_numpy(dtype=float)
    if zero_variance == "zero":
        out = ratings.copy()
        # Every rating of such an annotator equals the annotator's mean: a deviation of 0, so z = 0.
        out["z"] = np.where(degenerate, 0.0, (raw - mean) / np.where(degenerate, 1.0, sd))
    else:
        out = ratings.loc[~degenerate].copy()
        out["z"] = (raw[~degenerate] - mean[~degenerate]) / sd[~degenerate]
    return out.reset_index(drop=True), annotators


def standardise(
    ratings: pd.DataFrame, ddof: int = Standardise.ddof, zero_variance: str = Standardise.zero_variance
) -> tuple[pd.DataFrame, list[str]]:
    """Add ``z`` = (raw_score - mean) / sd per annotator AND criterion, over all of that annotator's ratings of
    that criterion (every item type, as the WMT DA scripts do). Paper Sec. 4: "scores provided by each human
    assessor were standardized according to the mean and standard deviation of all scores provided by that
    individual".

    ``ddof=1`` is the sample sd (R's ``sd()``, used by the WMT scripts); ``ddof=0`` the population sd.
    An (annotator, criterion) group whose sd is 0 (every score equal) or undefined (one rating with ddof=1) has
    no z-scores. ``zero_variance="drop"`` drops its ratings (the paper's standardisation cannot apply to them;
    the WMT22 Appraise script ``make_rankings.py`` also excludes zero-sd annotators by default);
    ``zero_variance="zero"`` keeps them with z = 0 (each such rating equals its annotator's mean), as the WMT
    MTurk DA organisers' per-segment scores do (WMT22 ja-en: worker M0250, every score 0). Returns (ratings with
    ``z``, the zero-variance annotators, sorted, for the caller to log as dropped or kept with z = 0).
    """
    groups = ratings.groupby(["annotator", "criterion"], sort=False)["raw_score"]
    mean = groups.transform("mean").to_numpy(dtype=float)
    sd = groups.transform("std", ddof=ddof).to_numpy(dtype=float)
    return _apply_moments(ratings, mean, sd, zero_variance)


def standardise_with(
    ratings: pd.DataFrame, moments: pd.DataFrame, zero_variance: str = Standardise.zero_variance
) -> tuple[pd.DataFrame, list[str]]:
    """Add ``z`` from given per-annotator moments (DataFrame annotator, mean, sd), e.g. the organisers' printed
    means and sds (:func:`mtsig.io.human.wmt_mturk_da.load_r_mean_sd`, 7 significant digits: the WMT22 ja-en
    organisers' z-scores in ``ad-jaen-good-stnd.csv`` are ``(raw - mean) / sd`` with exactly these printed
    values). The moments are per annotator (one criterion). An annotator without moments is an error; one whose sd
    is 0 or missing follows ``zero_variance`` as in :func:`standardise`. Returns (ratings with ``z``, those
    annotators).
    """
    table = moments.set_index("annotator")
    missing = sorted(set(ratings["annotator"]) - set(table.index))
    if missing:
        raise InputError(f"no mean/sd for annotator(s) {', '.join(missing[:10])}")
    mean = ratings["annotator"].map(table["mean"]).to_numpy(dtype=float)
    sd = ratings["annotator"].map(table["sd"]).to_numpy(dtype=float)
    return _apply_moments(ratings, mean, sd, zero_variance)


def round_significant(values: np.ndarray, digits: int) -> np.ndarray:
    """``values`` printed with ``digits`` significant digits (C's ``%.{digits}g``) and read back: what R's
    ``write.table``/``write.csv`` (15 digits) does to numbers a script writes and reads again."""
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return values.copy()
    return np.char.mod(f"%.{int(digits)}g", values).astype(float)


# --------------------------------------------------------------------------------------------- quality control


def reference_pseudo_systems(ratings: pd.DataFrame) -> set[str]:
    """Systems that are the human reference rated blind as a system (Appraise en-liv's ``ref.A``): every one of
    their ratings other than ``bad_ref`` has item type ``ref``. (In WMT MTurk DA a REF item carries the name of
    the MT system whose slot it used; such systems also have ``system`` items and are not pseudo-systems.)"""
    non_qc = ratings.loc[ratings["item_type"] != "bad_ref"]
    only_ref = non_qc.groupby("system")["item_type"].agg(lambda types: bool((types == "ref").all()))
    return set(only_ref.index[only_ref])


def rated_systems(ratings: pd.DataFrame) -> list[str]:
    """The MT systems with ratings (the reference pseudo-system excluded), sorted; for
    :func:`mtsig.io.human.check_systems`."""
    return sorted(set(ratings["system"]) - reference_pseudo_systems(ratings))


def bad_reference_pairs(ratings: pd.DataFrame) -> pd.DataFrame:
    """Pair each ``bad_ref`` rating with the same annotator's rating of the original (Graham et al. 2013).

    The original is the annotator's rating(s) of the same system and segment and criterion with item type
    ``system`` or ``repeat`` (``ref`` for a reference pseudo-system), inside the same ``hit`` when the table has a
    ``hit`` column. If there are several (an item and its repeat) their mean is the original; a bad_ref item
    without an original is left out. Returns DataFrame(annotator, criterion, system, segment, degraded, original).
    On WMT22 ja-en and en-liv every bad_ref item has exactly one original.
    """
    keys = ["annotator", "criterion", "system", "segment"]
    if "hit" in ratings.columns:
        keys.append("hit")
    pseudo = reference_pseudo_systems(ratings)
    is_original = ratings["item_type"].isin(["system", "repeat"]) | (
        (ratings["item_type"] == "ref") & ratings["system"].isin(pseudo)
    )
    originals = ratings.loc[is_original].groupby(keys, sort=False)["raw_score"].mean().rename("original")
    degraded = ratings.loc[ratings["item_type"] == "bad_ref", [*keys, "raw_score"]]
    pairs = degraded.rename(columns={"raw_score": "degraded"}).merge(
        originals.reset_index(), on=keys, how="inner"
    )
    return pairs[["annotator", "criterion", "system", "segment", "degraded", "original"]].reset_index(
        drop=True
    )


def _check_qc_method(method: str) -> None:
    if method not in QC_METHODS:
        raise InputError(f"unknown QC method {method!r} ({' or '.join(QC_METHODS)})")


class PairedQcTest(NamedTuple):
    """What :func:`paired_qc_test` returns: the test's statistic and one-sided p-value (NaN when not tested) and,
    when not tested, why (:data:`TOO_FEW_PAIRS` or :data:`NO_DIFFERENCE`; ``""`` when tested)."""

    statistic: float
    p_value: float
    untested: str


def paired_qc_test(
    degraded: np.ndarray, original: np.ndarray, method: str = QualityControl.method
) -> PairedQcTest:
    """One rater's quality-control test (Graham et al. 2013; WMT DA): the one-sided paired test that the degraded
    (bad reference, ESA's BAD) items score lower than the same rater's ratings of their originals, pair by pair.

    ``method="t"``: ``scipy.stats.ttest_rel(degraded, original, alternative="less")`` (the WMT scripts' test);
    ``"wilcoxon"``: ``scipy.stats.wilcoxon(degraded, original, alternative="less")`` (signed-rank, zero
    differences dropped by scipy's default ``zero_method="wilcox"``). Fewer than 2 pairs (:data:`TOO_FEW_PAIRS`),
    or pairs that all score equal (:data:`NO_DIFFERENCE`), cannot be tested: statistic and p are NaN.
    """
    _check_qc_method(method)
    degraded, original = np.asarray(degraded), np.asarray(original)
    if len(degraded) < 2:
        return PairedQcTest(float("nan"), float("nan"), TOO_FEW_PAIRS)
    if not np.any(degraded != original):
        return PairedQcTest(float("nan"), float("nan"), NO_DIFFERENCE)
    test = stats.ttest_rel if method == "t" else stats.wilcoxon
    result = test(degraded, original, alternative="less")
    return PairedQcTest(float(result.statistic), float(result.pvalue), "")


def quality_control(
    ratings: pd.DataFrame, method: str = QualityControl.method, alpha: float = QualityControl.alpha
) -> pd.DataFrame:
    """Per-annotator QC (Graham et al. 2013; WMT DA): :func:`paired_qc_test` of each annotator's degraded items
    against their originals, over the pairs of :func:`bad_reference_pairs` (all criteria together).

    An annotator is kept iff p <= alpha. Annotators with fewer than 2 pairs (or whose differences are all zero)
    cannot be tested: p is NaN and they are NOT kept, because QC is meant to remove unverified raters; switch QC
    off (config ``qc.enabled: false``) for data without bad_ref items or already filtered by the organisers.
    Returns DataFrame(annotator, n_pairs, statistic, p_value, kept), one row per annotator of ``ratings``.
    """
    _check_qc_method(method)
    pairs = bad_reference_pairs(ratings)
    grouped = dict(tuple(pairs.groupby("annotator", sort=False)))
    records = []
    for annotator in pd.unique(ratings["annotator"]):
        group = grouped.get(annotator, pairs.iloc[:0])
        statistic, p_value, _ = paired_qc_test(
            group["degraded"].to_numpy(), group["original"].to_numpy(), method
        )
        records.append((annotator, len(group), statistic, p_value, bool(p_value <= alpha)))
    return pd.DataFrame(records, columns=QC_COLUMNS)


def esa_quality_control(
    ratings: pd.DataFrame, bad_items: pd.DataFrame, alpha: float = ESA_QC_ALPHA
) -> pd.DataFrame:
    """The raters' quality control of Appraise ESA exports (``ratings`` and ``bad_items`` of
    :func:`mtsig.io.esa.read_esa`), per rater and language pair: the rater's kept items, QC (BAD) items, and how
    the BAD items compare with the same rater's rating of the same item (system, segment, document, wave):
    ``n_paired`` such pairs, the mean BAD and original scores over them, and the p-value of :func:`paired_qc_test`
    with ``method="t"`` (``scipy.stats.ttest_rel(bad, original, alternative="less")``).

    Rule (Graham et al. 2013 as the WMT DA scripts applied it; :func:`quality_control` with its default
    ``method="t"``): ``passed`` iff p <= ``alpha``. A rater with fewer than 2 pairs, or whose pairs all score
    equal, cannot be tested (p NaN, not passed, ``note`` says why); so can a rater with only QC items (``n_items``
    0). The WMT24 organisers drop the BAD items and keep every rater: this table reports, it removes nobody.
    Returns DataFrame with columns :data:`ESA_QC_COLUMNS`, sorted by language pair and rater.
    """
    keys = ["lp", "rater", "system", "item", "doc", "wave"]
    original = ratings.groupby(keys, sort=False)["score"].mean().rename("original").reset_index()
    pairs = bad_items.loc[:, [*keys, "score"]].merge(original, on=keys, how="inner")
    n_items = ratings.groupby(["lp", "rater"]).size()
    n_bad = bad_items.groupby(["lp", "rater"]).size()
    grouped = dict(tuple(pairs.groupby(["lp", "rater"], sort=False)))
    records = []
    for lp, rater in sorted(set(n_items.index) | set(n_bad.index)):
        group = grouped.get((lp, rater), pairs.iloc[:0])
        _, p_value, untested = paired_qc_test(group["score"].to_numpy(), group["original"].to_numpy())
        notes = {
            TOO_FEW_PAIRS: f"{len(group)} QC item(s) with the rater's own rating of the original: not testable",
            NO_DIFFERENCE: "BAD items score the same as their originals",
        }
        count = int(n_items.get((lp, rater), 0))
        records.append(
            (
                lp,
                rater,
                count,
                int(n_bad.get((lp, rater), 0)),
                len(group),
                float(group["score"].mean()),
                float(group["original"].mean()),
                p_value,
                bool(p_value <= alpha),
                notes.get(untested, "") if count else "only QC items: no rating kept",
            )
        )
    return pd.DataFrame(records, columns=list(ESA_QC_COLUMNS))


# --------------------------------------------------------------------------------------------- gold standard


def _r_group_means(values: np.ndarray, codes: np.ndarray, n_groups: int) -> np.ndarray:
    """Per-group means as R's ``mean()`` computes them: the sum in long double, divided by n, then one
    correction pass adding the mean residual (also in long double), rounded to double at the end."""
    count = np.bincount(codes, minlength=n_groups).astype(np.longdouble)
    wide = values.astype(np.longdouble)
    total = np.zeros(n_groups, dtype=np.longdouble)
    np.add.at(total, codes, wide)
    mean = total / count
    residual = np.zeros(n_groups, dtype=np.longdouble)
    np.add.at(residual, codes, wide - mean[codes])
    return (mean + residual / count).astype(np.float64)


def segment_mean_scores(
    z_ratings: pd.DataFrame,
    item_types: Sequence[str] = HumanGold.item_types,
    significant_digits: int | None = None,
) -> pd.DataFrame:
    """Per-(system, segment, criterion) means of z (and raw) over ratings of ``item_types``: WMT's official DA
    unit (a REPEAT is averaged with its original). Returns DataFrame(system, segment, criterion, z, raw_score, n).

    ``significant_digits`` (e.g. 15) reproduces the WMT MTurk DA organisers' R files: each z is first rounded to
    that many significant digits (their per-rating file ``ad-*-good-stnd.csv`` as written), the means are taken as
    R's ``mean()`` does and rounded again (their ``ad-seg-scores-*.csv``). Default: plain float64 means."""
    chosen = z_ratings.loc[z_ratings["item_type"].isin(item_types)]
    grouped = chosen.groupby(["system", "segment", "criterion"], sort=True)
    out = grouped.agg(z=("z", "mean"), raw_score=("raw_score", "mean"), n=("z", "size")).reset_index()
    if significant_digits is not None:
        codes = grouped.ngroup().to_numpy()
        z = round_significant(chosen["z"].to_numpy(dtype=float), significant_digits)
        out["z"] = round_significant(_r_group_means(z, codes, len(out)), significant_digits)
    return out


def _rounded_for_ranks(values: np.ndarray, significant_digits: int | None) -> np.ndarray:
    """Scores as the rank test sees them: to ``significant_digits`` significant digits when given (the
    organisers' files), else to ``Z_DECIMALS`` decimals (values equal in exact arithmetic then tie)."""
    if significant_digits is None:
        return np.round(values, Z_DECIMALS)
    return round_significant(values, significant_digits)


def _pairwise_mann_whitney(
    samples: Mapping[tuple[str, str], np.ndarray],
    systems: Sequence[str],
    criteria: Sequence[str],
    unit: str,
    significant_digits: int | None = None,
) -> pd.DataFrame:
    """One-sided Mann-Whitney U (x greater than y) for every ordered pair and criterion."""
    rounded = {key: _rounded_for_ranks(values, significant_digits) for key, values in samples.items()}
    records = []
    for criterion in criteria:
        for x in systems:
            for y in systems:
                if x == y:
                    continue
                sample_x = rounded[(x, criterion)]
                sample_y = rounded[(y, criterion)]
                result = stats.mannwhitneyu(sample_x, sample_y, alternative="greater")
                records.append(
                    (
                        x,
                        y,
                        criterion,
                        unit,
                        len(sample_x),
                        len(sample_y),
                        float(result.statistic),
                        float(result.pvalue),
                    )
                )
    return pd.DataFrame(records, columns=GOLD_COLUMNS)


def wilcoxon_gold(
    z_ratings: pd.DataFrame,
    *,
    unit: str = HumanGold.unit,
    item_types: Sequence[str] = HumanGold.item_types,
    systems: Sequence[str] | None = None,
    significant_digits: int | None = None,
) -> pd.DataFrame:
    """The paper's gold (Sec. 4): for every ORDERED pair (x, y) and criterion, a one-sided Wilcoxon rank-sum
    (``scipy.stats.mannwhitneyu(z_x, z_y, alternative="greater")``, scipy's default ``method="auto"``: exact
    for small samples without ties, else the normal approximation with tie correction and continuity correction,
    as R's ``wilcox.test``) on the standardised scores of ratings of ``item_types`` (rounded to ``Z_DECIMALS``).

    ``unit="rating"``: every rating is an observation (the paper). ``unit="segment_mean"``: the per-(system,
    segment) mean z is one observation (WMT's official DA practice; :func:`segment_mean_scores`).
    ``significant_digits`` (config ``gold.significant_digits``): z and the segment means rounded to that many
    significant digits as the WMT organisers' R scripts wrote them (15) instead of to ``Z_DECIMALS`` decimals;
    which values tie, and so the p-values, then follow their files (WMT22 ja-en: their published matrix).
    ``systems`` (default: sorted systems with ratings of ``item_types``) fixes the pair order; a listed system
    without ratings of some criterion is an error.
    Returns DataFrame(sys_x, sys_y, criterion, unit, n_x, n_y, statistic=U of x, p_value).
    """
    if unit == "rating":
        chosen = z_ratings.loc[z_ratings["item_type"].isin(item_types)]
    elif unit == "segment_mean":
        chosen = segment_mean_scores(z_ratings, item_types, significant_digits)
    else:
        raise InputError(f"unknown gold unit {unit!r} (rating or segment_mean)")
    systems = sorted(set(chosen["system"])) if systems is None else list(systems)
    criteria = sorted(set(chosen["criterion"]))
    samples = {
        key: group.to_numpy(dtype=float) for key, group in chosen.groupby(["system", "criterion"])["z"]
    }
    for criterion in criteria:
        missing = [s for s in systems if (s, criterion) not in samples]
        if missing:
            raise InputError(
                f"no {criterion} ratings of type {', '.join(item_types)} for {', '.join(missing)}"
            )
    return _pairwise_mann_whitney(samples, systems, criteria, unit, significant_digits)


def gold_conclusions(
    gold: pd.DataFrame,
    alphas: Iterable[float],
    criteria_priority: Sequence[str] = ("adequacy", "fluency"),
    systems: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Three-way gold conclusion for every UNORDERED pair (sys_x listed before sys_y in ``systems``) and alpha.

    Paper Sec. 4 / Fig. 7: "if a system's adequacy score is significantly greater than that of another, the
    combined conclusion is that it is significantly better ... Only when a tie in adequacy scores occurs are
    fluency judgments used". Criteria are tried in ``criteria_priority`` order (those absent from ``gold`` are
    skipped; a gold with only ``ranking`` uses it); the first giving a non-tie :func:`mtsig.stats.conclusions.conclude`
    decides, else the pair is a tie and ``decided_by`` is ``"none"``.
    Returns DataFrame(sys_x, sys_y, alpha, conclusion, decided_by).
    """
    present = list(dict.fromkeys(gold["criterion"]))
    criteria = [c for c in criteria_priority if c in present] or (present if len(present) == 1 else [])
    if not criteria:
        raise InputError(
            f"gold has criteria {', '.join(present)}; none is in the priority list {', '.join(criteria_priority)}"
        )
    p_value = gold.set_index(["sys_x", "sys_y", "criterion"])["p_value"]
    systems = list(dict.fromkeys([*gold["sys_x"], *gold["sys_y"]])) if systems is None else list(systems)
    pairs = unordered_pairs(systems)

    def p_of(criterion: str, reverse: bool) -> np.ndarray:
        keys = [((y, x) if reverse else (x, y)) + (criterion,) for x, y in pairs]
        return p_value.loc[keys].to_numpy(dtype=float)

    frames = []
    for alpha in alphas:
        by_criterion = {c: conclude(p_of(c, False), p_of(c, True), alpha) for c in criteria}
        conclusion, decided_by = by_priority(by_criterion)
        frames.append(
            pd.DataFrame(
                {
                    "sys_x": [x for x, _ in pairs],
                    "sys_y": [y for _, y in pairs],
                    "alpha": float(alpha),
                    "conclusion": conclusion,
                    "decided_by": decided_by,
                }
            )
        )
    columns = ["sys_x", "sys_y", "alpha", "conclusion", "decided_by"]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)


# --------------------------------------------------------------------------------------------- relative rankings


def _ranked(judgments: pd.DataFrame) -> pd.DataFrame:
    """Judgment rows with a rank (blanks, rank -1, removed: a blank is no judgment of that system)."""
    return judgments.loc[judgments["rank"] != -1, ["judgment", "annotator", "segment", "system", "rank"]]


def ranked_systems(judgments: pd.DataFrame) -> list[str]:
    """The systems with a (non-blank) rank in some judgment, sorted; for :func:`mtsig.io.human.check_systems`."""
    return sorted(set(_ranked(judgments)["system"]))


def _within_judgment_pairs(ranked: pd.DataFrame) -> pd.DataFrame:
    """All ordered pairs of distinct ranked systems inside each judgment (columns system_a, rank_a, ...)."""
    left = ranked[["judgment", "system", "rank"]].rename(columns={"system": "system_a", "rank": "rank_a"})
    right = ranked[["judgment", "system", "rank"]].rename(columns={"system": "system_b", "rank": "rank_b"})
    pairs = left.merge(right, on="judgment")
    return pairs.loc[pairs["system_a"] != pairs["system_b"]]


def head_to_head_gold(judgments: pd.DataFrame, systems: Sequence[str] | None = None) -> pd.DataFrame:
    """Head-to-head sign test (docs/statistics.md, "Relative rankings"; the default gold for ranking data).

    Every judgment ranking both x and y (blanks excluded) is a win of x (rank_x < rank_y: lower is better), a
    loss, or a tie (dropped). p = ``scipy.stats.binomtest(wins, wins + losses, 0.5, alternative="greater")``
    (exact one-sided sign test); with no decisive judgment p = 1.
    Returns the :func:`wilcoxon_gold` shape with criterion "ranking", unit "judgment", n_x = wins of x over y,
    n_y = wins of y over x, statistic = wins.
    """
    pairs = _within_judgment_pairs(_ranked(judgments))
    wins = pairs.loc[pairs["rank_a"] < pairs["rank_b"]].groupby(["system_a", "system_b"]).size().to_dict()
    systems = sorted(set(_ranked(judgments)["system"])) if systems is None else list(systems)
    records = []
    for x in systems:
        for y in systems:
            if x == y:
                continue
            n_x, n_y = int(wins.get((x, y), 0)), int(wins.get((y, x), 0))
            p = stats.binomtest(n_x, n_x + n_y, 0.5, alternative="greater").pvalue if n_x + n_y else 1.0
            records.append((x, y, RANKING_CRITERION, "judgment", n_x, n_y, float(n_x), float(p)))
    return pd.DataFrame(records, columns=GOLD_COLUMNS)


def item_scores(judgments: pd.DataFrame) -> pd.DataFrame:
    """Item score of each ranked system in each judgment = (systems it beats) - (systems that beat it) within
    that judgment (docs/statistics.md, "Relative rankings"; ties count as neither). Blank systems are excluded from the
    judgment entirely (neither scored nor counted for the others); a system ranked alone scores 0.
    Returns DataFrame(judgment, annotator, segment, system, item_score)."""
    ranked = _ranked(judgments)
    pairs = _within_judgment_pairs(ranked)
    sign = np.sign(pairs["rank_b"].to_numpy() - pairs["rank_a"].to_numpy())  # +1: a beats b
    score = pd.Series(sign, index=pairs.index).groupby([pairs["judgment"], pairs["system_a"]]).sum()
    score.index.names = ["judgment", "system"]
    out = ranked.merge(score.rename("item_score").reset_index(), on=["judgment", "system"], how="left")
    out["item_score"] = out["item_score"].fillna(0).astype(np.int64)
    return out[["judgment", "annotator", "segment", "system", "item_score"]].reset_index(drop=True)


def standardised_item_scores(
    judgments: pd.DataFrame, ddof: int = Standardise.ddof
) -> tuple[pd.DataFrame, list[str]]:
    """Item scores standardised per judge (annotator) as the paper standardises DA scores (Sec. 4): adds ``z``.
    Judges whose item scores have zero variance are dropped and returned (sorted) for the caller to log."""
    scores = item_scores(judgments)
    as_ratings = scores.rename(columns={"item_score": "raw_score"}).assign(criterion=RANKING_CRITERION)
    z, dropped = standardise(as_ratings, ddof=ddof)
    z = z.rename(columns={"raw_score": "item_score"}).drop(columns="criterion")
    z["item_score"] = z["item_score"].astype(np.int64)
    return z, dropped


def item_score_wilcoxon_gold(
    judgments: pd.DataFrame,
    systems: Sequence[str] | None = None,
    ddof: int = Standardise.ddof,
    *,
    exclude_shared: bool = True,
) -> pd.DataFrame:
    """The paper's machinery on relative rankings (docs/statistics.md, "Relative rankings", second gold): item scores
    standardised per judge, then for every ordered pair a one-sided Mann-Whitney U test (x greater than y).

    With ``exclude_shared`` (default) the pair's samples come only from judgments that contain exactly one of the
    two systems: a judgment ranking both makes the two item scores negatively correlated (x beating y raises
    one and lowers the other), which the rank-sum test does not allow for. Returns the :func:`wilcoxon_gold`
    shape with criterion "ranking", unit "item_score".
    """
    z, _ = standardised_item_scores(judgments, ddof=ddof)
    systems = sorted(set(z["system"])) if systems is None else list(systems)
    judgments_of = {s: set(g) for s, g in z.groupby("system")["judgment"]}
    scores_of = {s: g.set_index("judgment")["z"] for s, g in z.groupby("system")}
    missing = [s for s in systems if s not in scores_of]
    if missing:
        raise InputError(f"no ranked judgments for system(s) {', '.join(missing)}")
    records = []
    for x in systems:
        for y in systems:
            if x == y:
                continue
            sample_x, sample_y = scores_of[x], scores_of[y]
            if exclude_shared:
                shared = judgments_of[x] & judgments_of[y]
                sample_x = sample_x[~sample_x.index.isin(shared)]
                sample_y = sample_y[~sample_y.index.isin(shared)]
            result = stats.mannwhitneyu(
                np.round(sample_x.to_numpy(), Z_DECIMALS),
                np.round(sample_y.to_numpy(), Z_DECIMALS),
                alternative="greater",
            )
            records.append(
                (
                    x,
                    y,
                    RANKING_CRITERION,
                    "item_score",
                    len(sample_x),
                    len(sample_y),
                    float(result.statistic),
                    float(result.pvalue),
                )
            )
    return pd.DataFrame(records, columns=GOLD_COLUMNS)


# --------------------------------------------------------------------------------------------- system scores


def system_scores(
    z_ratings: pd.DataFrame,
    item_types: Sequence[str] = HumanGold.item_types,
    systems: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Human system score: mean z and mean raw score over ratings of ``item_types`` (WMT's "Ave z" / "Ave %",
    here at the rating level), per system and criterion, in ``systems`` order (default sorted).
    For ranking data pass :func:`standardised_item_scores` renamed (item_score -> raw_score, criterion
    "ranking"): mean_z is then the mean standardised item score and mean_raw the mean item score (see
    :func:`ranking_system_scores`). Returns DataFrame(system, criterion, mean_z, mean_raw, n)."""
    chosen = z_ratings.loc[z_ratings["item_type"].isin(item_types)]
    out = (
        chosen.groupby(["system", "criterion"])
        .agg(mean_z=("z", "mean"), mean_raw=("raw_score", "mean"), n=("z", "size"))
        .reset_index()
    )
    if systems is not None:
        order = {s: i for i, s in enumerate(systems)}
        out = out.loc[out["system"].isin(order)]
        out = out.iloc[np.lexsort((out["criterion"].to_numpy(), out["system"].map(order).to_numpy()))]
    return out.reset_index(drop=True)


def ranking_system_scores(
    judgments: pd.DataFrame, systems: Sequence[str] | None = None, ddof: int = Standardise.ddof
):
    """System scores from relative rankings: mean standardised item score (mean_z), mean raw item score
    (mean_raw) and the number of ranked items (n), criterion "ranking"."""
    z, _ = standardised_item_scores(judgments, ddof=ddof)
    as_ratings = z.rename(columns={"item_score": "raw_score"}).assign(
        criterion=RANKING_CRITERION, item_type="system"
    )
    return system_scores(as_ratings, ("system",), systems)
