"""Several training runs per system: optimizer variance next to test-set variance, and a run-aware test.

Clark, Dyer, Lavie & Smith (2011), "Better hypothesis testing for statistical machine translation: controlling for
optimizer instability" (ACL), ask that every system be trained several times (different optimizer runs or seeds)
and that the spread of its corpus score across runs be reported with the result. Their tool, MultEval, reports per
system the mean of the runs' corpus scores, ``s_dev`` (the sample standard deviation of the run scores, which
MultEval's table calls ``s_opt``), ``s_sel`` (the bootstrap standard deviation of one run's score, averaged over the
runs: the test-set selection variance) and a p-value from approximate randomization over the runs.

Here, every system is a stack of runs ``stats[R, N, k]`` (per-segment sufficient statistics of each run on the
same N segments), scored by the metric's ``score`` of summed statistics as everywhere in mtsig.

**Shared draws.** One i.i.d. bootstrap serves every run of every system: pseudo-test-set b uses the same segment
indices for all runs (the draws of :func:`mtsig.stats.resampling.draws.scheme_counts` with the given seed, i.e. the paired
bootstrap's draws of ``mtsig compare`` with that seed), so one product per block gives every run's resampled
score. (MultEval draws each run's bootstrap independently; s_sel is an average of per-run variances, which sharing
does not change in expectation.)

**The run-aware test** (:func:`run_aware_test`). The statistic is the difference of the run-averaged scores,
``d = mean_r S(A_r) - mean_r S(B_r)``. Its variance over new test sets *and* new training runs is estimated as

    V = v_test + tau2_A / R_A + tau2_B / R_B

* ``v_test``: the bootstrap variance of ``d_b`` over the shared pseudo-test-sets (the runs held fixed);
* ``tau2_s = max(0, s_dev_s**2 - w_s)``: the optimizer variance of system s net of test-set noise. ``s_dev**2``
  estimates the optimizer variance *plus* the part of the segment noise in which one run differs from another
  (``w_s``), and that part is already inside ``v_test``; ``w_s = R/(R-1) * mean_r Var_b(S(s_r,b) - mean_r'
  S(s_r',b))``, the bootstrap variance of a run's deviation from the system's run mean, corrected for the mean
  being estimated. For a metric that is a mean of segment scores this is the two-way (runs x segments) analysis
  of variance: ``s_dev**2`` is the runs mean square over N, ``w_s`` the residual mean square over N.

The p-value is two-sided from Student's t with Satterthwaite's (1946) degrees of freedom
``V**2 / sum_s (s_dev_s**2 / R_s)**2 / (R_s - 1)`` over the systems whose optimizer variance enters (``tau2_s >
0``); ``v_test``, estimated from N segments, counts as known. With no optimizer variance the reference is the
normal distribution (a paired bootstrap test with a normal approximation). Every system needs at least 2 runs
(with one, the optimizer variance cannot be estimated and the p-value is NaN). So a difference that one lucky run
produced is not called significant: the run-to-run spread enters the variance with the few degrees of freedom
that R runs give. Simulated with known truth (a mean-type metric, 300 segments, R = 2, 3 or 5 runs per system,
optimizer offsets of 0.9 to 3.5 times the test-set standard deviation of a run's score, 1,500 pairs each), its
Type I error at alpha = 0.05 was 0.038-0.058, where MultEval's test rejected 0.13-0.58 and a test of the best
single runs 0.18-0.69 of the time. Without optimizer noise it is conservative (0.02-0.034): the degrees of freedom
count the uncertainty of ``s_dev**2`` from R runs even when little of it is optimizer variance.

**MultEval's p-value** (:func:`stratified_randomization`), re-implemented from its description and source
(Clark et al. 2011; MultEval's ``StratifiedApproximateRandomizationTest``): the statistic is the difference of
the two systems' *pooled* corpus scores (statistics summed over all segments of all runs), ``|d|``; each shuffle
redistributes, independently per segment, the ``R_A + R_B`` outputs of that segment (all runs of both systems) so
that A' gets ``R_A`` of them and B' the rest (a uniformly random subset; strata = segments); p is two-sided,
``(c + 1) / (R + 1)``. Two deliberate differences from MultEval's code: the split is an exact partition of the
outputs (MultEval's run permutation gives the two pseudo-systems overlapping outputs), and ``|d_r| >= |d|`` counts
as extreme (MultEval counts only ``>``, which gives identical systems a p-value of 1/(R+1) instead of 1). This test
shuffles outputs segment by segment, so a whole run being better or worse (the optimizer's effect) is averaged
out of the reference distribution: it measures test-set noise only, and the simulation in the tests shows it
rejecting as often as a single-run test when the runs' offsets vary. It is reported for comparison with MultEval.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats as scipy_stats

from mtsig.errors import InputError
from mtsig.metrics.base import Metric
from mtsig.runtime.portable import WeightedSums
from mtsig.settings import MeteorOptions, Resampling
from mtsig.stats.conclusions import unordered_pairs
from mtsig.stats.resampling.draws import DRAW_BLOCK_SIZE, IID_BOOTSTRAP, scheme_counts
from mtsig.stats.seeding import rng_for

ScoreFunction = Callable[[np.ndarray], np.ndarray]

#: Largest number of subsets enumerated for the stratified shuffles; beyond it, subsets come from random ranks.
MAX_ENUMERATED_SUBSETS = 1 << 16

SYSTEM_COLUMNS = [
    "metric",
    "system",
    "runs",
    "score",
    "s_dev",
    "s_sel",
    "s_opt",
    "run_min",
    "run_max",
    "run_scores",
]
PAIR_COLUMNS = [
    "metric",
    "sys_a",
    "sys_b",
    "runs_a",
    "runs_b",
    "score_a",
    "score_b",
    "statistic",
    "se_test",
    "se_optimizer",
    "df",
    "p_value",
    "p_value_one_sided",
    "pooled_statistic",
    "p_multeval",
]


# --------------------------------------------------------------------------------------------------------------
# Command-line syntax


def is_run_group(argument: str | Path) -> bool:
    """Whether a command-line system argument is ``NAME=FILE[,FILE...]`` rather than one output file: it contains
    ``=`` and is not the name of an existing file (so a file whose name contains ``=`` still works)."""
    text = str(argument)
    return "=" in text and not Path(text).is_file()


def parse_run_groups(arguments: Sequence[str | Path]) -> dict[str, list[Path]]:
    """System name -> its run files, from command-line arguments ``NAME=RUN1,RUN2,...`` (one system with several
    training runs) or plain ``FILE`` (one system with one run, named by the file name), in the order given.

    Raises:
        InputError: an empty name or file list, an empty file name, a name given twice, or a file given twice.
    """
    groups: dict[str, list[Path]] = {}
    seen: dict[Path, str] = {}
    for argument in arguments:
        text = str(argument)
        if is_run_group(text):
            name, _, files = text.partition("=")
            name = name.strip()
            items = [item.strip() for item in files.split(",")]
            if not name:
                raise InputError(
                    f"system argument {text!r} has no name before '=' (expected NAME=RUN1,RUN2,...)"
                )
            if not all(items):
                raise InputError(
                    f"system {name!r}: empty file name in {text!r} (expected NAME=RUN1,RUN2,...)"
                )
            paths = [Path(item) for item in items]
        else:
            paths = [Path(text)]
            name = paths[0].name
        if name in groups:
            raise InputError(f"system name {name!r} given twice; give every system once (NAME=RUN1,RUN2,...)")
        for path in paths:
            key = path.resolve() if path.exists() else path.absolute()
            if key in seen:
                raise InputError(
                    f"file given twice (in {seen[key]!r} and {name!r}); every run is one file", path
                )
            seen[key] = name
        groups[name] = paths
    return groups


# --------------------------------------------------------------------------------------------------------------
# Scores and draws


def _oriented(score: ScoreFunction, higher_is_better: bool) -> ScoreFunction:
    if higher_is_better:
        return lambda totals: np.asarray(score(totals), dtype=float)
    return lambda totals: -np.asarray(score(totals), dtype=float)


def _check_runs(stats_by_system: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Each system's statistics as float ``[R, N, k]``, all on the same segments with the same statistics."""
    if len(stats_by_system) < 2:
        raise InputError(f"need at least two systems to compare; got {len(stats_by_system)}")
    checked = {}
    shape = None
    for name, stats in stats_by_system.items():
        array = np.asarray(stats, dtype=float)
        if array.ndim != 3 or array.shape[0] < 1 or array.shape[1] < 1:
            raise InputError(
                f"system {name!r}: run statistics must be [runs, segments, k]; got {array.shape}"
            )
        if shape is not None and array.shape[1:] != shape:
            raise InputError(
                f"system {name!r}: runs have {array.shape[1]} segments x {array.shape[2]} statistics; the other "
                f"systems' have {shape[0]} x {shape[1]} (every run must translate the same test set)"
            )
        shape = array.shape[1:]
        checked[name] = array
    return checked


def run_scores(stats: np.ndarray, score: ScoreFunction) -> np.ndarray:
    """Corpus score of each run, ``[R]``, from ``stats[R, N, k]`` (the score of each run's summed statistics)."""
    return np.asarray(score(np.asarray(stats, dtype=float).sum(axis=1)), dtype=float)


def bootstrap_run_scores(
    stats_by_system: Mapping[str, np.ndarray], score: ScoreFunction, *, n_samples: int, seed: int
) -> dict[str, np.ndarray]:
    """Each system's run scores on B shared pseudo-test-sets: name -> ``[R, B]``.

    Pseudo-test-set b draws N segment indices with replacement, the same for every run of every system (module
    docstring), taken from :func:`mtsig.stats.resampling.draws.scheme_counts` (i.i.d. scheme, ``seed``), block by block. One
    product per block, counts ``[block, N]`` times all runs' statistics ``[N, R_total * k]``, gives every run's
    resampled totals.
    """
    if n_samples < 1:
        raise InputError(f"the number of bootstrap samples must be at least 1; got {n_samples}")
    names = list(stats_by_system)
    stacked = np.concatenate([stats_by_system[name] for name in names])  # [R_total, N, k]
    n_runs, n_segments, k = stacked.shape
    sums_of = WeightedSums(stacked.transpose(1, 0, 2).reshape(n_segments, n_runs * k))
    scores = np.empty((n_runs, n_samples))
    for block in range(-(-n_samples // DRAW_BLOCK_SIZE)):
        first = block * DRAW_BLOCK_SIZE
        rows = min(DRAW_BLOCK_SIZE, n_samples - first)
        counts = scheme_counts(IID_BOOTSTRAP, seed, n_segments, block)[:rows]
        totals = sums_of(counts, n_segments).reshape(rows, n_runs, k)
        scores[:, first : first + rows] = np.asarray(score(totals), dtype=float).T
    bounds = np.cumsum([0] + [stats_by_system[name].shape[0] for name in names])
    return {name: scores[bounds[i] : bounds[i + 1]] for i, name in enumerate(names)}


def _subset_masks(
    n_items: int, n_chosen: int, shape: tuple[int, int], rng: np.random.Generator
) -> np.ndarray:
    """``bool[*shape, n_items]``: for every cell, a uniformly random subset of ``n_chosen`` of ``n_items`` items.

    Small cases draw one index per cell into the table of all subsets (exactly uniform, one integer per cell);
    large ones take the ``n_chosen`` smallest of ``n_items`` uniform keys (the first items of a uniform
    permutation), also exactly uniform.
    """
    if math.comb(n_items, n_chosen) <= MAX_ENUMERATED_SUBSETS:
        table = np.zeros((math.comb(n_items, n_chosen), n_items), dtype=bool)
        for row, chosen in enumerate(combinations(range(n_items), n_chosen)):
            table[row, list(chosen)] = True
        return table[rng.integers(0, len(table), size=shape)]
    keys = rng.random((*shape, n_items))
    ranks = np.argsort(np.argsort(keys, axis=-1, kind="stable"), axis=-1, kind="stable")
    return ranks < n_chosen


def stratified_randomization(
    stats_a: np.ndarray, stats_b: np.ndarray, score: ScoreFunction, *, n_shuffles: int, seed: int
) -> tuple[float, float]:
    """MultEval's approximate randomization over all runs (module docstring): ``(pooled statistic, p-value)``.

    ``stats_a[R_A, N, k]``, ``stats_b[R_B, N, k]``; ``score`` oriented (higher is better). The pooled statistic is
    ``S(sum of A's statistics over runs and segments) - S(same for B)``. Each shuffle gives, per segment, a random
    ``R_A`` of that segment's ``R_A + R_B`` outputs to A' and the rest to B'; p = ``(#{|d_r| >= |d|} + 1) / (R + 1)``.
    Vectorised per block of shuffles: the choice masks ``[block, N, R_A + R_B]`` times the outputs' statistics
    ``[N * (R_A + R_B), k]`` give A''s totals in one product; B''s are the grand total minus A''s. Draws come from
    ``rng_for(seed, "training_runs", "stratified_randomization", N, R_A, R_B, block)``.
    """
    if n_shuffles < 1:
        raise InputError(f"the number of shuffles must be at least 1; got {n_shuffles}")
    runs_a, n_segments, k = stats_a.shape
    runs_b = stats_b.shape[0]
    outputs = np.concatenate([stats_a, stats_b])  # [R_A + R_B, N, k]
    sums_of = WeightedSums(outputs.transpose(1, 0, 2).reshape(n_segments * (runs_a + runs_b), k))
    total_a, total_b = stats_a.sum(axis=(0, 1)), stats_b.sum(axis=(0, 1))
    actual = float(score(total_a) - score(total_b))
    grand_total = total_a + total_b
    count = 0
    for block in range(-(-n_shuffles // DRAW_BLOCK_SIZE)):
        rows = min(DRAW_BLOCK_SIZE, n_shuffles - block * DRAW_BLOCK_SIZE)
        rng = rng_for(seed, "training_runs", "stratified_randomization", n_segments, runs_a, runs_b, block)
        masks = _subset_masks(runs_a + runs_b, runs_a, (rows, n_segments), rng)
        shuffled_a = sums_of(masks.reshape(rows, -1))  # [rows, k]
        pseudo = np.asarray(score(shuffled_a), dtype=float) - np.asarray(
            score(grand_total - shuffled_a), dtype=float
        )
        count += int(np.count_nonzero(np.abs(pseudo) >= abs(actual)))
    return actual, (count + 1.0) / (n_shuffles + 1.0)


# --------------------------------------------------------------------------------------------------------------
# Variances and the run-aware test


@dataclass(frozen=True)
class RunVariance:
    """One system's spread over runs (metric units, oriented as given): ``s_dev`` the sample standard deviation of
    the R run scores (NaN for one run), ``s_sel`` the mean over runs of the bootstrap standard deviation of a
    run's score, ``within`` the test-set noise of one run's deviation from the run mean (``w`` in the module
    docstring; NaN for one run) and ``optimizer`` = ``max(0, s_dev**2 - within)``."""

    runs: int
    mean: float
    s_dev: float
    s_sel: float
    within: float
    optimizer: float


def run_variance(scores: np.ndarray, bootstrap: np.ndarray) -> RunVariance:
    """:class:`RunVariance` from the run scores ``[R]`` and their shared bootstrap scores ``[R, B]`` (B >= 2)."""
    runs = len(scores)
    s_sel = float(np.mean(np.std(bootstrap, axis=1, ddof=1)))
    if runs < 2:
        return RunVariance(runs, float(scores.mean()), float("nan"), s_sel, float("nan"), float("nan"))
    s_dev = float(np.std(scores, ddof=1))
    deviations = bootstrap - bootstrap.mean(axis=0, keepdims=True)
    within = runs / (runs - 1) * float(np.mean(np.var(deviations, axis=1, ddof=1)))
    return RunVariance(runs, float(scores.mean()), s_dev, s_sel, within, max(0.0, s_dev**2 - within))


@dataclass(frozen=True)
class RunAwareResult:
    """The run-aware test of one pair (module docstring): statistic ``d`` (oriented: positive = A better), its
    standard errors from the test set and from the optimizer, Satterthwaite degrees of freedom (``inf``: normal
    reference), two-sided p and one-sided p for "A better than B"."""

    statistic: float
    se_test: float
    se_optimizer: float
    df: float
    p_value: float
    p_value_one_sided: float


def run_aware_test(
    variance_a: RunVariance, variance_b: RunVariance, bootstrap_a: np.ndarray, bootstrap_b: np.ndarray
) -> RunAwareResult:
    """Student-t test of the run-averaged difference with test-set and optimizer variance (module docstring).

    ``bootstrap_a[R_A, B]`` and ``bootstrap_b[R_B, B]`` are the oriented run scores on the *shared*
    pseudo-test-sets (:func:`bootstrap_run_scores`), so ``v_test`` is the paired variance of the difference.
    """
    statistic = variance_a.mean - variance_b.mean
    v_test = float(np.var(bootstrap_a.mean(axis=0) - bootstrap_b.mean(axis=0), ddof=1))
    if variance_a.runs < 2 or variance_b.runs < 2:
        nan = float("nan")
        return RunAwareResult(statistic, math.sqrt(v_test), nan, nan, nan, nan)
    v_optimizer = variance_a.optimizer / variance_a.runs + variance_b.optimizer / variance_b.runs
    v_total = v_test + v_optimizer
    denominator = sum(
        (v.s_dev**2 / v.runs) ** 2 / (v.runs - 1) for v in (variance_a, variance_b) if v.optimizer > 0
    )
    df = math.inf if denominator == 0 else v_total**2 / denominator
    if v_total == 0:  # identical outputs in every run: no evidence of any difference
        p_two, p_one = (1.0, 1.0) if statistic == 0 else (0.0, 0.0 if statistic > 0 else 1.0)
    else:
        t = statistic / math.sqrt(v_total)
        p_one = float(scipy_stats.t.sf(t, df))
        p_two = float(min(1.0, 2.0 * scipy_stats.t.sf(abs(t), df)))
    return RunAwareResult(statistic, math.sqrt(v_test), math.sqrt(v_optimizer), df, p_two, p_one)


# --------------------------------------------------------------------------------------------------------------
# Every pair of systems


@dataclass
class RunsComparison:
    """Results of :func:`compare_training_runs`: ``systems`` (columns :data:`SYSTEM_COLUMNS`), ``pairs`` (columns
    :data:`PAIR_COLUMNS`) and every setting that changes a number."""

    systems: pd.DataFrame
    pairs: pd.DataFrame
    settings: dict[str, object] = field(default_factory=dict)


def compare_training_runs(
    stats_by_system: Mapping[str, np.ndarray],
    score: ScoreFunction,
    *,
    higher_is_better: bool = True,
    n_samples: int = 1000,
    n_shuffles: int | None = None,
    seed: int = Resampling.seed,
    metric: str = "metric",
    pairs: Sequence[tuple[str, str]] | None = None,
) -> RunsComparison:
    """Per system: run-averaged score, ``s_dev``, ``s_sel`` and the net optimizer standard deviation ``s_opt``;
    per pair: the run-aware test and MultEval's stratified randomization (module docstring).

    ``stats_by_system``: name -> ``[R, N, k]`` (any number of runs per system, the same N segments). Scores and
    standard deviations are on the metric's own scale; ``statistic`` and ``pooled_statistic`` are oriented (for
    TER, ``TER(B) - TER(A)``) so that positive means A is better, and ``p_value_one_sided`` is for "A better
    than B". ``pairs`` defaults to every unordered pair in the order given (A the earlier system).
    ``n_samples`` is the bootstrap's B, ``n_shuffles`` the randomization's R (default B).
    """
    checked = _check_runs(stats_by_system)
    oriented = _oriented(score, higher_is_better)
    shuffles = n_samples if n_shuffles is None else n_shuffles
    if n_samples < 2:
        raise InputError(f"the bootstrap needs at least 2 samples for a variance; got {n_samples}")
    names = list(checked)
    pairs = _checked_pairs(names, pairs)
    bootstrap = bootstrap_run_scores(checked, oriented, n_samples=n_samples, seed=seed)
    sign = 1.0 if higher_is_better else -1.0
    variances = {}
    system_rows = []
    for name in names:
        scores = run_scores(checked[name], oriented)
        variances[name] = run_variance(scores, bootstrap[name])
        system_rows.append(_system_row(metric, name, variances[name], sign * scores, sign))
    pair_rows = []
    for a, b in pairs:
        test = run_aware_test(variances[a], variances[b], bootstrap[a], bootstrap[b])
        pooled, p_multeval = stratified_randomization(
            checked[a], checked[b], oriented, n_shuffles=shuffles, seed=seed
        )
        pair_rows.append(
            {
                "metric": metric,
                "sys_a": a,
                "sys_b": b,
                "runs_a": variances[a].runs,
                "runs_b": variances[b].runs,
                "score_a": sign * variances[a].mean,
                "score_b": sign * variances[b].mean,
                **asdict(test),  # statistic, se_test, se_optimizer, df, p_value, p_value_one_sided
                "pooled_statistic": pooled,
                "p_multeval": p_multeval,
            }
        )
    return RunsComparison(
        pd.DataFrame(system_rows, columns=SYSTEM_COLUMNS),
        pd.DataFrame(pair_rows, columns=PAIR_COLUMNS),
        _settings(seed, n_samples, shuffles),
    )


def _checked_pairs(
    names: Sequence[str], pairs: Sequence[tuple[str, str]] | None
) -> Sequence[tuple[str, str]]:
    """The pairs to compare: every unordered pair of ``names`` in order (A the earlier system), or those given,
    each of two different known systems."""
    if pairs is None:
        return unordered_pairs(names)
    for a, b in pairs:
        for name in (a, b):
            if name not in names:
                raise InputError(f"unknown system {name!r} in a pair; systems: {', '.join(names)}")
        if a == b:
            raise InputError(f"a pair needs two different systems; got {a!r} twice")
    return pairs


def _system_row(metric: str, name: str, v: RunVariance, raw: np.ndarray, sign: float) -> dict[str, object]:
    """One system's row of :data:`SYSTEM_COLUMNS`: the mean of its runs' scores, ``s_dev``, ``s_sel`` and the net
    ``s_opt`` (Clark et al. 2011, Sec. 3), on the metric's own scale (``raw``: each run's score, ``sign``: -1 for
    TER, whose oriented scores are negated)."""
    return {
        "metric": metric,
        "system": name,
        "runs": v.runs,
        "score": sign * v.mean,
        "s_dev": v.s_dev,
        "s_sel": v.s_sel,
        "s_opt": math.sqrt(v.optimizer) if v.runs > 1 else float("nan"),
        "run_min": float(raw.min()),
        "run_max": float(raw.max()),
        "run_scores": ",".join(f"{value:.6f}" for value in raw),
    }


def _settings(seed: int, n_samples: int, shuffles: int) -> dict[str, object]:
    """Every setting that changes a number, and what each p-value is (for the result's signature)."""
    return {
        "seed": int(seed),
        "bootstrap_samples": int(n_samples),
        "shuffles": int(shuffles),
        "bootstrap": "i.i.d. segments, the same indices for every run of every system",
        "p_value": "two-sided Student t, test-set + optimizer variance, Satterthwaite df",
        "p_multeval": "stratified approximate randomization over all runs, pooled score, (c+1)/(R+1)",
    }


# --------------------------------------------------------------------------------------------------------------
# From files (the command line)


def score_run_files(
    reference: Path | Sequence[Path],
    groups: Mapping[str, Sequence[Path]],
    metric_names: Sequence[str],
    *,
    unescape: bool,
    language: str = MeteorOptions.language,
) -> list[tuple[Metric, dict[str, np.ndarray]]]:
    """Load the reference and every run file, check they are parallel, and compute each metric's statistics:
    a list of ``(metric, {system: stats[R, N, k]})`` in the order of ``metric_names``."""
    from mtsig.io.text import load_texts
    from mtsig.metrics import get_metric

    first_reference = reference if isinstance(reference, (str, Path)) else reference[0]
    if len(groups) < 2:
        raise InputError(f"need at least two systems to compare, got {len(groups)}", first_reference)
    metrics = [
        get_metric(name, language=language) if name.lower() == "meteor" else get_metric(name)
        for name in metric_names
    ]
    # Run names as error messages show them; unique because system names are.
    flat = {
        f"{name} (run {index + 1})": path
        for name, paths in groups.items()
        for index, path in enumerate(paths)
    }
    refs, outputs = load_texts(reference, flat, unescape=unescape)
    if not refs:
        raise InputError("the reference is empty", first_reference)
    results = []
    for metric in metrics:
        stats = metric.stats_many(outputs, refs)
        by_system: dict[str, np.ndarray] = {}
        start = 0
        for name, paths in groups.items():
            by_system[name] = stats[start : start + len(paths)]
            start += len(paths)
        results.append((metric, by_system))
    return results
