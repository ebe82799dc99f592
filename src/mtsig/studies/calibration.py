"""True error rates of the randomized tests by simulation with known truth, and Section 2 in numbers.

The paper (Graham, Mathur & Baldwin 2014) judges the tests against a human gold standard, whose own errors are
unknown. Here the truth is known by construction, from the statistics of two real systems X and Y:

* **Null pairs** (no difference is true). Each segment's two outputs are given to the pseudo-systems X' and Y' in
  random order (a fair coin per segment). X' and Y' are exchangeable, so "X' and Y' are equally good" holds exactly.
  The rate at which a test rejects is its Type I error at the nominal alpha.
* **Planted alternatives** (the direction and size of the difference are known). Each segment keeps its labels (X''
  gets X's output, Y'' gets Y's) with probability ``q`` and is swapped otherwise, independently per segment. ``q = 0.5``
  is exactly the null-pair construction, ``q = 1`` is the real pair, and for a metric that is a mean of segment scores
  the expected difference is ``(2q - 1) * (S(X) - S(Y))`` with the noise of the null held fixed. The rate at which a
  test rejects is its power. (The alternative construction "X'' takes X on a fraction q of segments and Y elsewhere,
  compared with Y itself" was rejected: its null, q = 0, compares Y with itself, where every statistic and
  pseudo-statistic is exactly zero, so the power curve would not start at the test's size.)

The unit of relabelling is the segment by default; ``swap_unit="document"`` relabels whole documents instead,
which keeps the within-document dependence of the differences (the case the document and stationary block
bootstraps are for; segment-level swaps make the differences independent, so there the block tests match i.i.d.).

Every construction is a relabelling of the two systems' outputs per segment, so it is a swap of rows of sufficient
statistics: no metric is recomputed. All resampling is done by the shared engine :func:`mtsig.stats.resampling.pairwise_tests`,
called once per (metric, null or q) with every simulated pair as pseudo-systems ``[X'_0, Y'_0, X'_1, ...]``
and ``pairs=[(0, 1), (2, 3), ...]``, given unstacked (:class:`mtsig.stats.resampling.RelabelledPairs`) so that the
engine multiplies only the kept differences ``keep_p * (X - Y)``, once per pair.

Note for the reader of the results: under the null-pair construction approximate randomization is exact by design
(its reference distribution *is* the distribution of the observed statistic over the coin flips), so its rejection
rate differs from alpha only by Monte Carlo error in R and by the ``c/B`` vs ``(c+1)/(B+1)`` convention. The study
therefore measures how far each bootstrap variant is from an exact test on real MT statistics.

**Section 2 in numbers** (:func:`section2_table`) puts the paper's Section 2 argument on real data: on the pairs with
the closest scores, the Riezler & Maxwell (2005) bootstrap as published (``rm_bootstrap``) is compared with their
approximate randomization (``rm_approximate_randomization``) and with the paper's two-sided bootstrap (Fig. 1). If the
R&M bootstrap is effectively one-tailed, its p-value is about half of AR's and doubling it brings it back.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.settings import MEMORY_CAP_BYTES, Calibration, Resampling
from mtsig.stats.conclusions import SYS_X, SYS_Y, unordered_pairs
from mtsig.stats.intervals import clopper_pearson
from mtsig.stats.resampling.draws import IID_BOOTSTRAP, RANDOMIZATION, document_codes
from mtsig.stats.resampling.engine import ResamplingOptions, pairwise_tests
from mtsig.stats.resampling.registry import ALL_TESTS, TESTS
from mtsig.stats.resampling.relabelled import RelabelledPairs
from mtsig.stats.seeding import derive_seed, rng_for

ScoreFunction = Callable[[np.ndarray], np.ndarray]

#: Values of the ``kind`` column. Not "null": pandas reads that string back from a TSV as a missing value.
NULL = "null_pair"
ALTERNATIVE = "alternative"
NULL_KEEP_PROBABILITY = 0.5

#: Tests on i.i.d. segments (the paper's Figs. 1-4 and R&M's originals) and the dependence-aware block bootstraps.
SEGMENT_TESTS: tuple[str, ...] = tuple(
    t for t, spec in TESTS.items() if spec.scheme in (IID_BOOTSTRAP, RANDOMIZATION)
)
BLOCK_TESTS: tuple[str, ...] = tuple(t for t in ALL_TESTS if t not in SEGMENT_TESTS)
RESULT_COLUMNS = [
    "metric",
    "test",
    "alpha",
    "kind",
    "q",
    "rejections",
    "trials",
    "rate",
    "ci_low",
    "ci_high",
    "mean_statistic",
]
SECTION2_COLUMNS = [
    "sys_x",
    "sys_y",
    "score_x",
    "score_y",
    "statistic",
    "p_rm_bootstrap",
    "p_rm_approximate_randomization",
    "p_bootstrap_two_sided",
    "p_rm_bootstrap_doubled",
    "ratio_rm_bootstrap_to_rm_ar",
]


class MetricStats(NamedTuple):
    """One metric's per-segment sufficient statistics ``[S, N, k]`` for the experiment's systems, its corpus score
    function (summed statistics ``[..., k]`` -> score ``[...]``) and its orientation. A plain 3-tuple works too."""

    stats: np.ndarray
    score: ScoreFunction
    higher_is_better: bool


# --------------------------------------------------------------------------------------------------------------
# Simulated pairs


def relabelled_pairs(stats_x: np.ndarray, stats_y: np.ndarray, keep: np.ndarray) -> RelabelledPairs:
    """Pseudo-system statistics ``[X'_0, Y'_0, X'_1, Y'_1, ...]`` (shape ``[2P, N, k]``) from a keep mask ``[P, N]``.

    ``X'_p`` has X's statistics on segment i where ``keep[p, i]`` and Y's elsewhere; ``Y'_p`` has the other system's.
    So each segment's pair of outputs is preserved, only its assignment to the two labels changes (module docstring).
    Returned unstacked (:class:`mtsig.stats.resampling.RelabelledPairs`; ``.materialise()`` stacks them), which the
    engine multiplies in factored form.
    """
    return RelabelledPairs(np.asarray(stats_x), np.asarray(stats_y), np.asarray(keep, dtype=bool))


def keep_mask(n_pairs: int, n_segments: int, keep_probability: float, rng: np.random.Generator) -> np.ndarray:
    """A ``[n_pairs, n_segments]`` mask: each segment keeps its labels independently with ``keep_probability``.

    ``keep_probability = 0.5`` is the null-pair construction (a fair coin per segment, as in approximate
    randomization, paper Fig. 2); ``q > 0.5`` plants X as the better system.
    """
    if not 0.0 <= keep_probability <= 1.0:
        raise InputError(
            f"q (probability of keeping a segment's labels) must be in [0, 1]; got {keep_probability}"
        )
    if n_pairs < 1:
        raise InputError(f"the number of simulated pairs must be at least 1; got {n_pairs}")
    return rng.random((n_pairs, n_segments)) < keep_probability


def document_keep_mask(
    n_pairs: int, documents: Sequence[object] | np.ndarray, keep_probability: float, rng: np.random.Generator
) -> np.ndarray:
    """A ``[n_pairs, N]`` keep mask constant within each document: whole documents keep or swap their labels.

    ``documents[N]`` is each segment's document id. One coin per document (documents numbered in order of first
    appearance, :func:`mtsig.stats.resampling.draws.document_codes`), expanded to the document's segments.
    """
    codes = document_codes(documents)
    return keep_mask(n_pairs, int(codes.max()) + 1, keep_probability, rng)[:, codes]


def pseudo_system_names(n_pairs: int, label: str) -> list[str]:
    """Names of the stacked pseudo-systems, ``[f"{label}{p}.x", f"{label}{p}.y", ...]`` for pairs ``p``."""
    return [f"{label}{p}.{side}" for p in range(n_pairs) for side in ("x", "y")]


# --------------------------------------------------------------------------------------------------------------
# Counting rejections


def trial_p_values(table: pd.DataFrame, names: Sequence[str]) -> pd.DataFrame:
    """The p-value of every simulated pair and test, in the planted direction "X' better than Y'".

    ``table`` is :attr:`PairwiseResult.table` (one row per ordered pair and test, one-sided p for "sys_x better
    than sys_y"; two-sided tests carry the same p in both orders). ``names`` are the stacked pseudo-systems, pair p
    being ``(names[2p], names[2p + 1])``. Returns columns ``trial, test, statistic, p_value``.
    """
    x_names = pd.Series(names[0::2])
    trial_of_x = pd.Series(np.arange(len(x_names)), index=x_names)
    y_of_x = dict(zip(names[0::2], names[1::2], strict=True))
    rows = table[table["sys_x"].isin(y_of_x) & (table["sys_y"] == table["sys_x"].map(y_of_x))]
    out = pd.DataFrame(
        {
            "trial": trial_of_x[rows["sys_x"]].to_numpy(),
            "test": rows["test"].to_numpy(),
            "statistic": rows["statistic"].to_numpy(dtype=float),
            "p_value": rows["p_value"].to_numpy(dtype=float),
        }
    )
    test_order = {test: n for n, test in enumerate(ALL_TESTS)}
    out = out.sort_values(["test", "trial"], key=lambda c: c.map(test_order) if c.name == "test" else c)
    return out.reset_index(drop=True)


def rejection_rates(
    p_values: pd.DataFrame, alphas: Sequence[float], *, metric: str, kind: str, q: float, n_trials: int
) -> pd.DataFrame:
    """Rejections of each test at each alpha, with the rate and its 95% Clopper-Pearson interval.

    A trial rejects when its p-value (:func:`trial_p_values`: one-sided in the planted direction X' > Y', or
    two-sided) is ``<= alpha``, the paper's rule "if c/B <= alpha, reject" (Figs. 1-4). Two-sided tests count every
    rejection, so at q = 0.5 they estimate the size of the two-sided test; under a planted alternative a
    wrong-direction rejection is possible in principle but negligible once q is clearly above 0.5. The interval is
    :func:`mtsig.stats.intervals.clopper_pearson` (two-sided 95%, as in the paper's Tables 1-2). ``mean_statistic`` is
    the mean over trials of ``d = S(X') - S(Y')``: the size of the planted difference in the metric's own units.
    """
    rows = []
    for test, group in p_values.groupby("test", sort=False):
        if len(group) != n_trials:
            raise InputError(f"test {test!r} returned {len(group)} p-values for {n_trials} simulated pairs")
        p = group["p_value"].to_numpy()
        mean_statistic = float(group["statistic"].mean())
        for alpha in alphas:
            rejections = int(np.count_nonzero(p <= alpha))
            low, high = clopper_pearson(rejections, n_trials)
            rows.append(
                {
                    "metric": metric,
                    "test": test,
                    "alpha": float(alpha),
                    "kind": kind,
                    "q": float(q),
                    "rejections": rejections,
                    "trials": n_trials,
                    "rate": rejections / n_trials,
                    "ci_low": low,
                    "ci_high": high,
                    "mean_statistic": mean_statistic,
                }
            )
    return pd.DataFrame(rows, columns=RESULT_COLUMNS)


# --------------------------------------------------------------------------------------------------------------
# The study


def oriented_corpus_scores(stats: np.ndarray, score: ScoreFunction, higher_is_better: bool) -> np.ndarray:
    """Corpus score of every system from summed statistics, negated when lower is better (TER), so that a larger
    value always means a better system (docs/statistics.md, "The randomized tests")."""
    scores = np.asarray(score(stats.sum(axis=1)), dtype=float)
    return scores if higher_is_better else -scores


def choose_planted_pair(
    stats: np.ndarray,
    score: ScoreFunction,
    systems: Sequence[str],
    *,
    higher_is_better: bool = True,
    gold_better: Iterable[tuple[str, str]] | None = None,
) -> tuple[str, str]:
    """The pair (X, Y) whose outputs the planted alternatives are built from, X the better system.

    Without a gold standard: the best and the worst system by the metric. With ``gold_better`` (ordered pairs
    ``(better, worse)`` that the human gold standard calls significantly different): among those the metric orders
    the same way, the pair with the largest metric difference, so that X is "clearly better" by both. If the gold
    and the metric agree on no pair, that is an error (a planted direction the gold contradicts would be no truth).
    """
    index = _system_index(systems)
    scores = oriented_corpus_scores(stats, score, higher_is_better)
    if gold_better is None:
        return systems[int(np.argmax(scores))], systems[int(np.argmin(scores))]
    best: tuple[float, tuple[str, str]] | None = None
    for better, worse in gold_better:
        for name in (better, worse):
            if name not in index:
                raise InputError(f"gold pair names unknown system {name!r}; systems: {', '.join(systems)}")
        difference = scores[index[better]] - scores[index[worse]]
        if difference > 0 and (best is None or difference > best[0]):
            best = (difference, (better, worse))
    if best is None:
        raise InputError("no pair is called better by both the human gold standard and the metric")
    return best[1]


def gold_better_pairs(gold_conclusions: pd.DataFrame, alpha: float) -> list[tuple[str, str]]:
    """Ordered pairs ``(better, worse)`` the gold standard calls significantly different at ``alpha``.

    ``gold_conclusions`` has the pipeline's gold-conclusion columns ``sys_x, sys_y, alpha, conclusion`` (one gold
    standard; filter a multi-gold frame on its ``gold`` column first). Feeds :func:`choose_planted_pair`.
    """
    missing = [c for c in ("sys_x", "sys_y", "alpha", "conclusion") if c not in gold_conclusions.columns]
    if missing:
        raise InputError(f"gold conclusions lack column(s) {', '.join(missing)}")
    at_alpha = gold_conclusions[np.isclose(gold_conclusions["alpha"].astype(float), alpha)]
    pairs = [
        (x, y) for x, y in at_alpha.loc[at_alpha["conclusion"] == SYS_X, ["sys_x", "sys_y"]].itertuples(False)
    ]
    pairs += [
        (y, x) for x, y in at_alpha.loc[at_alpha["conclusion"] == SYS_Y, ["sys_x", "sys_y"]].itertuples(False)
    ]
    return pairs


def simulate_rejections(
    stats_x: np.ndarray,
    stats_y: np.ndarray,
    score: ScoreFunction,
    engine: ResamplingOptions,
    *,
    q: float,
    n_pairs: int,
    alphas: Sequence[float],
    metric: str = "metric",
    swap_unit: str = "segment",
) -> pd.DataFrame:
    """Rejection rates of ``engine.tests`` over ``n_pairs`` simulated pairs with keep probability ``q`` (0.5 =
    null). ``engine``: the options of every engine call (:class:`ResamplingOptions`: tests, samples, p-value rule,
    orientation, documents, block length, memory cap) but its pairs; its ``seed`` is the study's.

    ``swap_unit``: "segment" relabels each segment independently (the brief's construction; it makes the
    per-segment differences X' - Y' independent across segments, so block bootstraps behave like i.i.d. ones);
    "document" relabels whole documents (needs ``engine.documents``), keeping any within-document dependence of the
    differences, which is what the document and stationary block bootstraps are meant to handle.

    The relabelling masks come from ``rng_for(seed, "calibration", metric, swap_unit, q)``; the engine's draws from
    ``derive_seed(seed, "calibration", metric, swap_unit, q, "resampling")``. The engine's draws depend only on its
    seed and the test-set shape, so every simulated pair sees the same draws and splitting the pairs into several
    :func:`pairwise_tests` calls (done to stay under ``engine.memory_cap_bytes``) changes no number. Sharing draws
    makes trials slightly dependent; with B in the hundreds or more this is small next to the binomial error the
    Clopper-Pearson interval reports.
    """
    stats_x = np.asarray(stats_x, dtype=float)
    stats_y = np.asarray(stats_y, dtype=float)
    seed, documents = engine.seed, engine.documents
    rng = rng_for(seed, "calibration", metric, swap_unit, float(q))
    if swap_unit == "segment":
        mask = keep_mask(n_pairs, stats_x.shape[0], q, rng)
    elif swap_unit == "document":
        if documents is None:
            raise InputError("swap_unit='document' needs segment-to-document ids (documents=...)")
        mask = document_keep_mask(n_pairs, documents, q, rng)
    else:
        raise InputError(f"swap_unit must be 'segment' or 'document'; got {swap_unit!r}")
    resampling_seed = derive_seed(seed, "calibration", metric, swap_unit, float(q), "resampling")
    pairs_per_call = _pairs_per_call(engine.memory_cap_bytes, stats_x.size)
    p_values = []
    for first in range(0, n_pairs, pairs_per_call):
        batch = mask[first : first + pairs_per_call]
        names = pseudo_system_names(len(batch), "pair")
        pairs = [(2 * p, 2 * p + 1) for p in range(len(batch))]
        result = pairwise_tests(
            relabelled_pairs(stats_x, stats_y, batch),
            score,
            names,
            dataclasses.replace(engine, seed=resampling_seed, pairs=pairs),
        )
        p_values.append(
            trial_p_values(result.table, names).assign(trial=lambda f, first=first: f["trial"] + first)
        )
    kind = NULL if q == NULL_KEEP_PROBABILITY else ALTERNATIVE
    return rejection_rates(pd.concat(p_values), alphas, metric=metric, kind=kind, q=q, n_trials=n_pairs)


def calibration_study(
    stats_by_metric: Mapping[str, MetricStats | tuple[np.ndarray, ScoreFunction, bool]],
    systems: Sequence[str],
    x: str,
    y: str,
    *,
    null_pairs: int = Calibration.null_pairs,
    q_values: Sequence[float] = (0.6, 0.7, 0.8, 0.9, 1.0),
    alternatives_per_q: int = Calibration.alternatives_per_q,
    alphas: Sequence[float] = (0.01, 0.05, 0.1),
    tests: Sequence[str] | None = None,
    n_samples: int | Mapping[str, int] = Calibration.samples,
    seed: int = Resampling.seed,
    pvalue: str = Resampling.pvalue,
    documents: np.ndarray | None = None,
    mean_block_length: float | None = None,
    swap_unit: str = "segment",
    memory_cap_bytes: int = MEMORY_CAP_BYTES,
) -> pd.DataFrame:
    """Type I error (null pairs) and power curves (planted alternatives) of every test for every metric.

    ``x`` and ``y`` name the real systems the pairs are built from; X should be the better one (see
    :func:`choose_planted_pair`), since q > 0.5 plants "X'' better than Y''". ``tests`` defaults to the segment-level
    tests, plus the document and stationary block-bootstrap tests when ``documents`` (segment -> document id) is
    given. ``swap_unit`` ("segment" or "document") is the unit of relabelling (:func:`simulate_rejections`): only
    document-level swaps keep the within-document dependence that the block bootstraps exist for. A ``q`` of 0.5
    in ``q_values`` is the null again (reported once, as kind "null_pair", with ``null_pairs`` trials).
    ``mean_block_length`` None is the engine's default for the stationary bootstrap.

    Returns one row per metric, test, alpha and (kind, q), columns ``metric, test, alpha, kind, q, rejections,
    trials, rate, ci_low, ci_high, mean_statistic, swap_unit`` (rate with its two-sided 95% Clopper-Pearson
    interval; ``mean_statistic`` the mean planted difference ``S(X') - S(Y')`` in the metric's units).
    """
    index = _system_index(systems)
    for name in (x, y):
        if name not in index:
            raise InputError(f"unknown system {name!r}; systems: {', '.join(systems)}")
    if x == y:
        raise InputError(f"the planted pair needs two different systems; got {x!r} twice")
    tests = _resolve_tests(tests, documents)
    for alpha in alphas:
        if not 0.0 < alpha < 1.0:
            raise InputError(f"alpha must be in (0, 1); got {alpha}")
    q_levels = [NULL_KEEP_PROBABILITY] + sorted({float(q) for q in q_values} - {NULL_KEEP_PROBABILITY})

    tables = []
    for metric, entry in stats_by_metric.items():
        stats, score, higher_is_better = entry
        stats = np.asarray(stats)
        if stats.ndim != 3 or stats.shape[0] != len(systems):
            raise InputError(f"{metric}: stats must be [systems={len(systems)}, N, k]; got {stats.shape}")
        engine = ResamplingOptions(
            seed=seed,
            tests=tuple(tests),
            n_samples=n_samples,
            pvalue=pvalue,
            higher_is_better=higher_is_better,
            documents=documents,
            mean_block_length=mean_block_length,
            memory_cap_bytes=memory_cap_bytes,
        )
        for q in q_levels:
            n_pairs = null_pairs if q == NULL_KEEP_PROBABILITY else alternatives_per_q
            tables.append(
                simulate_rejections(
                    stats[index[x]], stats[index[y]], score, engine,
                    q=q, n_pairs=n_pairs, alphas=alphas, metric=metric, swap_unit=swap_unit,
                )
            )  # fmt: skip
    return pd.concat(tables, ignore_index=True)[RESULT_COLUMNS].assign(swap_unit=swap_unit)


@dataclass(frozen=True)
class ExperimentCalibration:
    """An experiment's calibration study: the table of :func:`calibration_study` for every swap unit run (with
    columns ``sys_x, sys_y`` naming the planted pair), the planted pair ``(better, worse)``, the metric that chose it,
    and the swap units skipped (document swaps without document ids)."""

    table: pd.DataFrame
    planted: tuple[str, str]
    chooser: str
    skipped_units: tuple[str, ...]


def experiment_calibration(
    stats_by_metric: Mapping[str, MetricStats | tuple[np.ndarray, ScoreFunction, bool]],
    systems: Sequence[str],
    gold_conclusions: pd.DataFrame,
    documents: np.ndarray | None,
    *,
    experiment: str,
    null_pairs: int,
    q_values: Sequence[float],
    alternatives_per_q: int,
    alphas: Sequence[float],
    planted_alpha: float,
    swap_units: Sequence[str],
    tests: Sequence[str],
    n_samples: int | Mapping[str, int],
    seed: int,
    pvalue: str,
    mean_block_length: float,
    memory_cap_bytes: int,
) -> ExperimentCalibration:
    """Type I error and power of every test and metric of an experiment (:func:`calibration_study`), once per swap
    unit, seeded by ``derive_seed(seed, experiment, "calibration", unit)``.

    The planted pair is the one the primary gold (the first ``gold`` of ``gold_conclusions``) calls significantly
    different at ``planted_alpha`` with the largest BLEU (or first metric) difference in the same direction
    (:func:`gold_better_pairs`, :func:`choose_planted_pair`): "X clearly better than Y by human gold and metric".
    Without document ids, document swaps and the document tests are left out.
    """
    gold = gold_conclusions[gold_conclusions["gold"] == gold_conclusions["gold"].iloc[0]]
    chooser = "bleu" if "bleu" in stats_by_metric else next(iter(stats_by_metric))
    stats, score, higher = stats_by_metric[chooser]
    x, y = choose_planted_pair(
        stats, score, systems, higher_is_better=higher, gold_better=gold_better_pairs(gold, planted_alpha)
    )
    units = [u for u in swap_units if u != "document" or documents is not None]
    frames = [
        calibration_study(
            stats_by_metric,
            systems,
            x,
            y,
            null_pairs=null_pairs,
            q_values=list(q_values),
            alternatives_per_q=alternatives_per_q,
            alphas=list(alphas),
            tests=[t for t in tests if documents is not None or not t.endswith("_documents")],
            n_samples=n_samples,
            seed=derive_seed(seed, experiment, "calibration", unit),
            pvalue=pvalue,
            documents=documents,
            mean_block_length=mean_block_length,
            swap_unit=unit,
            memory_cap_bytes=memory_cap_bytes,
        ).assign(sys_x=x, sys_y=y)
        for unit in units
    ]
    skipped = tuple(u for u in swap_units if u not in units)
    return ExperimentCalibration(pd.concat(frames, ignore_index=True), (x, y), chooser, skipped)


# --------------------------------------------------------------------------------------------------------------
# Section 2 in numbers


def closest_pairs(scores: np.ndarray, n_closest: int) -> list[tuple[int, int]]:
    """The ``n_closest`` unordered pairs with the smallest ``|score_i - score_j|``, closest first; each pair is
    ordered (better, worse) by ``scores`` (ties in score keep the systems' order; ties in distance the pairs')."""
    pairs = unordered_pairs(range(len(scores)))
    distances = np.array([abs(scores[i] - scores[j]) for i, j in pairs])
    chosen = [pairs[k] for k in np.argsort(distances, kind="stable")[:n_closest]]
    return [(i, j) if scores[i] >= scores[j] else (j, i) for i, j in chosen]


def section2_table(
    stats: np.ndarray,
    score: ScoreFunction,
    systems: Sequence[str],
    *,
    higher_is_better: bool = True,
    n_closest: int = Calibration.section2_pairs,
    n_samples: int = Resampling.samples,
    seed: int = Resampling.seed,
    pvalue: str = "(c+1)/(B+1)",
    memory_cap_bytes: int = MEMORY_CAP_BYTES,
) -> pd.DataFrame:
    """Paper Section 2 on real data: R&M's bootstrap and AR p-values for the pairs with the closest scores.

    For each of the ``n_closest`` closest pairs (X the higher scorer, so ``statistic = S(X) - S(Y) >= 0``):
    ``p_rm_bootstrap`` (R&M 2005 as published: ``tau = mean |d_b|``, count ``|d_b| - tau >= |d|``),
    ``p_rm_approximate_randomization`` (their AR, with absolute values), ``p_bootstrap_two_sided`` (the paper's
    corrected two-sided bootstrap, Fig. 1), ``p_rm_bootstrap_doubled = min(1, 2 p_rm_bootstrap)`` (the paper's
    "first require doubling the values of the one-sided bootstrap") and ``ratio_rm_bootstrap_to_rm_ar``. A ratio
    near 0.5 is the paper's claim that the R&M bootstrap is effectively one-tailed. The default p-value is
    ``(c+1)/(B+1)``, R&M's own convention, which also keeps the ratio defined (no zero p-values).
    """
    stats = np.asarray(stats, dtype=float)
    if stats.ndim != 3 or stats.shape[0] != len(systems):
        raise InputError(f"stats must be [systems={len(systems)}, N, k]; got {stats.shape}")
    n_pairs_available = len(systems) * (len(systems) - 1) // 2
    if not 1 <= n_closest <= n_pairs_available:
        raise InputError(f"n_closest must be between 1 and {n_pairs_available}; got {n_closest}")
    scores = oriented_corpus_scores(stats, score, higher_is_better)
    pairs = closest_pairs(scores, n_closest)
    tests = ("rm_bootstrap", "rm_approximate_randomization", "bootstrap_two_sided")
    options = ResamplingOptions(
        seed=derive_seed(seed, "section2"),
        tests=tests,
        n_samples=n_samples,
        pvalue=pvalue,
        higher_is_better=higher_is_better,
        pairs=pairs,
        memory_cap_bytes=memory_cap_bytes,
    )
    result = pairwise_tests(stats, score, systems, options)
    table = result.table.set_index(["sys_x", "sys_y", "test"])
    raw_scores = scores if higher_is_better else -scores  # report scores as the metric does (TER un-negated)
    rows = []
    for i, j in pairs:
        row = {"sys_x": systems[i], "sys_y": systems[j], "score_x": raw_scores[i], "score_y": raw_scores[j]}
        row["statistic"] = float(table.loc[(systems[i], systems[j], "rm_bootstrap"), "statistic"])
        for test in tests:
            row[f"p_{test}"] = float(table.loc[(systems[i], systems[j], test), "p_value"])
        rows.append(row)
    out = pd.DataFrame(rows)
    out["p_rm_bootstrap_doubled"] = np.minimum(1.0, 2.0 * out["p_rm_bootstrap"])
    p_ar = out["p_rm_approximate_randomization"].to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        out["ratio_rm_bootstrap_to_rm_ar"] = np.where(
            p_ar > 0, out["p_rm_bootstrap"].to_numpy() / p_ar, np.nan
        )
    return out[SECTION2_COLUMNS]


# --------------------------------------------------------------------------------------------------------------
# Helpers


def _pairs_per_call(memory_cap_bytes: int, values_per_system: int) -> int:
    """Simulated pairs per engine call: their stacked statistics take a quarter of the memory cap, leaving the
    engine room for its own copy and workspace."""
    return max(1, (memory_cap_bytes // 4) // (2 * values_per_system * 8))


def _system_index(systems: Sequence[str]) -> dict[str, int]:
    index = {name: i for i, name in enumerate(systems)}
    if len(index) != len(systems):
        raise InputError(f"system names must be unique; got {list(systems)}")
    return index


def _resolve_tests(tests: Sequence[str] | None, documents: np.ndarray | None) -> tuple[str, ...]:
    """Default tests (segment-level, plus block tests with documents); unknown or document-less block tests fail."""
    if tests is None:
        return SEGMENT_TESTS + (BLOCK_TESTS if documents is not None else ())
    known = set(SEGMENT_TESTS) | set(BLOCK_TESTS)
    unknown = [t for t in tests if t not in known]
    if unknown:
        raise InputError(f"unknown test(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    if documents is None and any(t.endswith("_documents") for t in tests):
        raise InputError("the document-level bootstrap tests need segment-to-document ids (documents=...)")
    if not tests:
        raise InputError("no tests given")
    return tuple(tests)
