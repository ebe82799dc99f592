"""Power and sample size of a randomized test, by simulation on the statistics of two real systems.

How large must a difference be to be found, and how many segments does it take? Graham, Mathur & Baldwin (2014)
judge the tests by how often their conclusions agree with a human gold standard; here the same tests are asked
how often they find a difference of known size, planted in real MT statistics.

**The construction** is the planted alternative of the calibration study (:mod:`mtsig.studies.calibration`): from two
real systems X (the better by the metric) and Y, each segment keeps its labels with probability ``q`` (X' gets X's
output, Y' gets Y's) and swaps them otherwise. ``q = 0.5`` is the null (X' and Y' are exchangeable), ``q = 1`` the
real pair. To vary the test-set size, every trial first draws ``n`` of the N segments **without replacement**
(a smaller test set from the same population of segments) and then plants the difference on them.

**What "difference" means.** For a metric that is a mean of segment scores, the expected corpus-score difference
of a planted pair is ``(2q - 1) * (S(X) - S(Y))`` exactly (column ``expected_difference``). BLEU, chrF, TER and
NIST are not means of segment scores, so there the size of a planted difference is measured: the mean over trials
of ``d = S(X') - S(Y')`` (column ``planted_difference``), in the metric's own units (BLEU points; for TER the
oriented ``TER(Y') - TER(X')``, positive when X' is better). Both columns are reported; the minimum detectable
difference and the sample size use the measured one.

**Power** is the rate at which the test rejects at ``alpha`` in the planted direction (one-sided tests: the
p-value of "X' better than Y'" is ``<= alpha``; two-sided tests: any rejection, which at ``q`` clearly above 0.5
is a rejection in the planted direction), with a two-sided 95% Clopper-Pearson interval
(:func:`mtsig.stats.intervals.clopper_pearson`). At ``q = 0.5`` it is the test's size.

**Vectorisation and seeds.** All trials of one (size, q) are stacked as pseudo-systems ``[X'_0, Y'_0, X'_1, ...]``
and tested in one call of :func:`mtsig.stats.resampling.pairwise_tests` (split only to respect the memory cap, which
changes no number). The trials use common random numbers: the subsets of size ``n`` come from
``rng_for(seed, "power", metric, "subsets", n)`` and the keep decisions from one uniform draw per trial and
segment, ``rng_for(seed, "power", metric, "keep", n)``, compared with ``q``; so every ``q`` sees the same subsets,
a larger ``q`` keeps a superset of the segments a smaller one keeps, and the curves are not jagged by independent
noise. The engine's draws come from ``derive_seed(seed, "power", metric, n, "resampling")``.

**Interpolation.** :func:`minimum_detectable_difference` finds the first ``q`` of the grid whose power reaches the
target and interpolates linearly between it and the grid point before it, in power, for ``q`` and for the planted
difference (linear in ``q`` for mean-type metrics). :func:`segments_needed` first interpolates each size's power
at the requested difference linearly in the planted difference, then the size linearly between the two grid sizes
whose powers bracket the target. Neither extrapolates: beyond the grid the answer is "not reached", said as such.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.runtime.progress import Progress, counter
from mtsig.settings import MEMORY_CAP_BYTES, Power, Resampling
from mtsig.stats.intervals import clopper_pearson
from mtsig.stats.resampling.draws import IID_BOOTSTRAP, RANDOMIZATION
from mtsig.stats.resampling.engine import ResamplingOptions, pairwise_tests
from mtsig.stats.resampling.registry import TESTS
from mtsig.stats.seeding import derive_seed, rng_for
from mtsig.studies.calibration import pseudo_system_names, trial_p_values

ScoreFunction = Callable[[np.ndarray], np.ndarray]

#: Tests whose draws treat segments as i.i.d. (the paper's Figs. 1-4 and R&M's originals). The document and
#: stationary block bootstraps need the segments' order and documents, which a random subset does not keep.
POWER_TESTS: tuple[str, ...] = tuple(
    t for t, spec in TESTS.items() if spec.scheme in (IID_BOOTSTRAP, RANDOMIZATION)
)
DEFAULT_Q_GRID: tuple[float, ...] = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
DEFAULT_TARGET_POWER = 0.8
POWER_COLUMNS = [
    "metric",
    "test",
    "alpha",
    "n_segments",
    "q",
    "expected_difference",
    "planted_difference",
    "rejections",
    "trials",
    "power",
    "ci_low",
    "ci_high",
]


def default_sizes(n_segments: int) -> list[int]:
    """Test-set sizes of a power curve when none are given: 125, 250, 500, ... (doubling) below N, and N."""
    sizes = [size for size in (125 * 2**k for k in range(20)) if size < n_segments]
    return sizes + [n_segments]


# --------------------------------------------------------------------------------------------------------------
# Simulation


def subsample_indices(n_total: int, n_segments: int, trials: int, rng: np.random.Generator) -> np.ndarray:
    """``int64[trials, n_segments]``: per trial, ``n_segments`` distinct segment indices out of ``n_total``
    (a uniformly random subset, drawn without replacement), in increasing order.

    Vectorised: the ranks of ``trials x n_total`` uniform keys are independent uniform permutations; the first
    ``n_segments`` of each are a uniform subset.
    """
    if not 1 <= n_segments <= n_total:
        raise InputError(
            f"a test-set size must be between 1 and the {n_total} segments available; got {n_segments}"
        )
    keys = rng.random((trials, n_total))
    chosen = np.argsort(keys, axis=1, kind="stable")[:, :n_segments]
    return np.sort(chosen, axis=1)


def planted_pairs(
    stats_x: np.ndarray, stats_y: np.ndarray, subsets: np.ndarray, keep: np.ndarray
) -> np.ndarray:
    """Pseudo-system statistics ``[X'_0, Y'_0, X'_1, Y'_1, ...]`` (``[2T, n, k]``) of T trials.

    Trial t takes the segments ``subsets[t]`` (``[T, n]``) of both systems; on segment j of the subset X'_t has X's
    statistics where ``keep[t, j]`` and Y's elsewhere, Y'_t the other system's (the calibration study's
    relabelling, :func:`mtsig.studies.calibration.relabelled_pairs`, on a subset).
    """
    sub_x = stats_x[subsets]  # [T, n, k]
    sub_y = stats_y[subsets]
    mask = np.asarray(keep, dtype=bool)[:, :, None]
    pseudo_x = np.where(mask, sub_x, sub_y)
    pseudo_y = np.where(mask, sub_y, sub_x)
    trials, n, k = sub_x.shape
    return np.stack([pseudo_x, pseudo_y], axis=1).reshape(2 * trials, n, k)


def _trials_per_call(memory_cap_bytes: int, values_per_system: int) -> int:
    """Trials per engine call: their stacked statistics take a quarter of the memory cap (as in the calibration
    study), leaving the engine room for its own copy and workspace."""
    return max(1, (memory_cap_bytes // 4) // (2 * values_per_system * 8))


def simulated_p_values(
    stats_x: np.ndarray,
    stats_y: np.ndarray,
    score: ScoreFunction,
    *,
    higher_is_better: bool,
    test: str,
    subsets: np.ndarray,
    keep: np.ndarray,
    n_samples: int,
    seed: int,
    pvalue: str = Resampling.pvalue,
    memory_cap_bytes: int = MEMORY_CAP_BYTES,
    marked: bool = False,
) -> pd.DataFrame:
    """p-value (for "X' better than Y'", or two-sided) and statistic ``d = S(X') - S(Y')`` of every trial;
    ``marked``: the pseudo-systems' statistics get one more column, 1 on every segment of X' and 0 on Y''s (the
    marker of :func:`with_shift`).

    One :func:`mtsig.stats.resampling.pairwise_tests` call for all trials (more only if the memory cap demands it;
    the engine's draws depend only on its seed and the test-set size, so the split changes no number).
    Returns columns ``trial, statistic, p_value`` in trial order.
    """
    trials, n = subsets.shape
    per_call = _trials_per_call(memory_cap_bytes, n * (stats_x.shape[1] + marked))
    frames = []
    for first in range(0, trials, per_call):
        batch = slice(first, min(first + per_call, trials))
        count = batch.stop - batch.start
        names = pseudo_system_names(count, "trial")
        pseudo = planted_pairs(stats_x, stats_y, subsets[batch], keep[batch])
        if marked:
            marker = np.broadcast_to((np.arange(2 * count) % 2 == 0)[:, None, None], (*pseudo.shape[:2], 1))
            pseudo = np.concatenate([pseudo, marker.astype(pseudo.dtype)], axis=2)
        result = pairwise_tests(
            pseudo,
            score,
            names,
            ResamplingOptions(
                higher_is_better=higher_is_better,
                tests=(test,),
                n_samples=n_samples,
                seed=seed,
                pvalue=pvalue,  # type: ignore[arg-type]
                memory_cap_bytes=memory_cap_bytes,
                pairs=[(2 * p, 2 * p + 1) for p in range(count)],
            ),
        )
        frame = trial_p_values(result.table, names)
        frames.append(frame.assign(trial=frame["trial"] + first))
    return pd.concat(frames, ignore_index=True)[["trial", "statistic", "p_value"]]


@dataclass(frozen=True)
class PowerSimulation:
    """How a power curve is simulated (:func:`power_curve`, :func:`mtsig.studies.power_shift.shift_power_curve`):
    the ``test`` (one of :data:`POWER_TESTS`) at level ``alpha``, the test-set sizes ``n_segments_grid`` (None:
    :func:`default_sizes`), ``trials`` simulated pairs per cell, each tested with ``n_samples`` bootstrap samples
    or shuffles, the ``seed`` and ``metric`` name the draws are seeded by (module docstring), the p-value
    convention ``pvalue`` and the engine's ``memory_cap_bytes``."""

    test: str = Power.test
    alpha: float = Power.alpha
    n_segments_grid: Sequence[int] | None = None
    trials: int = 200
    n_samples: int = 1000
    seed: int = Resampling.seed
    metric: str = "metric"
    pvalue: str = Resampling.pvalue
    memory_cap_bytes: int = MEMORY_CAP_BYTES

    @property
    def engine(self) -> dict[str, object]:
        """The keywords of :func:`simulated_p_values` these options set."""
        return {
            "test": self.test, "n_samples": self.n_samples, "pvalue": self.pvalue,
            "memory_cap_bytes": self.memory_cap_bytes,
        }  # fmt: skip


def checked_pair(
    stats_x: np.ndarray, stats_y: np.ndarray, simulation: PowerSimulation
) -> tuple[np.ndarray, np.ndarray]:
    """The two systems' statistics as float arrays, and every setting of a curve checked (an :class:`InputError`
    naming the one at fault)."""
    test, alpha, trials, n_samples = (
        simulation.test,
        simulation.alpha,
        simulation.trials,
        simulation.n_samples,
    )
    stats_x = np.asarray(stats_x, dtype=float)
    stats_y = np.asarray(stats_y, dtype=float)
    if stats_x.ndim != 2 or stats_x.shape != stats_y.shape:
        raise InputError(f"stats of X and Y must both be [N, k]; got {stats_x.shape} and {stats_y.shape}")
    if test not in POWER_TESTS:
        raise InputError(
            f"power needs a test on i.i.d. segments; got {test!r}; known: {', '.join(POWER_TESTS)}"
        )
    if not 0.0 < alpha < 1.0:
        raise InputError(f"alpha must be in (0, 1); got {alpha}")
    if trials < 1 or n_samples < 1:
        raise InputError(f"trials and samples must be at least 1; got {trials} and {n_samples}")
    return stats_x, stats_y


def curve_sizes(n_total: int, n_segments_grid: Sequence[int] | None) -> list[int]:
    """The test-set sizes of a curve (default :func:`default_sizes`), each checked to be in ``1 .. n_total``."""
    sizes = default_sizes(n_total) if n_segments_grid is None else sorted({int(n) for n in n_segments_grid})
    for size in sizes:
        if not 1 <= size <= n_total:
            raise InputError(
                f"test-set sizes must be between 1 and the {n_total} segments available; got {size}"
            )
    return sizes


def power_cell(p_values: pd.DataFrame, alpha: float, trials: int) -> dict[str, float | int]:
    """One (size, planted difference) cell: the rejections at ``alpha``, their rate and its 95% Clopper-Pearson
    interval, the mean and standard deviation over trials of the statistic ``S(X') - S(Y')``."""
    rejections = int(np.count_nonzero(p_values["p_value"].to_numpy() <= alpha))
    low, high = clopper_pearson(rejections, trials)
    statistic = p_values["statistic"].to_numpy(dtype=float)
    return {
        "planted_difference": float(statistic.mean()),
        "sd_difference": float(statistic.std(ddof=1)) if trials > 1 else float("nan"),
        "rejections": rejections,
        "trials": trials,
        "power": rejections / trials,
        "ci_low": low,
        "ci_high": high,
    }


def power_curve(
    stats_x: np.ndarray,
    stats_y: np.ndarray,
    score: ScoreFunction,
    higher_is_better: bool = True,
    *,
    q_grid: Sequence[float] = DEFAULT_Q_GRID,
    simulation: PowerSimulation = PowerSimulation(),
    progress: Progress | None = None,
) -> pd.DataFrame:
    """Power of ``test`` at ``alpha`` for every test-set size in ``n_segments_grid`` and keep probability in
    ``q_grid``, by simulation on the per-segment statistics ``stats_x, stats_y`` (``[N, k]``) of two real systems;
    ``test``, ``alpha``, the sizes and the rest of the simulation's settings are ``simulation``'s
    (:class:`PowerSimulation`).

    X should be the better system by the metric (q > 0.5 plants "X' better than Y'"); a pair in the other order is
    an error, since its planted direction would be "X' worse". Sizes default to :func:`default_sizes`; every
    (size, q) gets ``trials`` simulated pairs, each on its own random subset of segments, and the test uses
    ``n_samples`` bootstrap samples or shuffles (module docstring: construction, seeds, vectorisation).

    Returns one row per (size, q), sizes then q ascending, with columns :data:`POWER_COLUMNS`:
    ``expected_difference = (2q - 1) * (S(X) - S(Y))`` on the full test set (exact for mean-type metrics),
    ``planted_difference`` the mean over trials of ``S(X') - S(Y')`` (oriented: positive = X' better),
    ``power`` = rejections / trials with its 95% Clopper-Pearson interval ``ci_low, ci_high``.

    ``progress`` (:mod:`mtsig.runtime.progress`): told after each (size, q) cell, in segments (a cell counts its
    size, as its work grows with it); it never changes a number.
    """
    stats_x, stats_y = checked_pair(stats_x, stats_y, simulation)
    test, alpha, trials, seed, metric = (
        simulation.test, simulation.alpha, simulation.trials, simulation.seed, simulation.metric
    )  # fmt: skip
    q_levels = sorted({float(q) for q in q_grid})
    if not q_levels or not all(0.5 <= q <= 1.0 for q in q_levels):
        raise InputError(
            f"every q must be in [0.5, 1] (0.5 = no difference, 1 = the real pair); got {list(q_grid)}"
        )
    n_total = stats_x.shape[0]
    sizes = curve_sizes(n_total, simulation.n_segments_grid)
    sign = 1.0 if higher_is_better else -1.0
    real_difference = sign * float(
        np.asarray(score(stats_x.sum(axis=0))) - np.asarray(score(stats_y.sum(axis=0)))
    )
    if real_difference < 0:
        raise InputError(
            f"X must be the better system by the metric (the planted direction is 'X better'); S(X) - S(Y) is "
            f"{real_difference:.6g} in the metric's orientation: swap the two systems"
        )
    rows = []
    advance = counter(progress, sum(sizes) * len(q_levels))
    for size in sizes:
        subsets = subsample_indices(n_total, size, trials, rng_for(seed, "power", metric, "subsets", size))
        uniforms = rng_for(seed, "power", metric, "keep", size).random((trials, size))
        resampling_seed = derive_seed(seed, "power", metric, size, "resampling")
        for q in q_levels:
            p_values = simulated_p_values(
                stats_x, stats_y, score, higher_is_better=higher_is_better, subsets=subsets, keep=uniforms < q,
                seed=resampling_seed, **simulation.engine,
            )  # fmt: skip
            advance(size)
            cell = power_cell(p_values, alpha, trials)
            del cell["sd_difference"]
            rows.append(
                {"metric": metric, "test": test, "alpha": float(alpha), "n_segments": size, "q": q}
                | {"expected_difference": (2.0 * q - 1.0) * real_difference}
                | cell
            )
    return pd.DataFrame(rows, columns=POWER_COLUMNS)


# --------------------------------------------------------------------------------------------------------------
# Reading the curve


@dataclass(frozen=True)
class DetectableDifference:
    """The smallest planted difference detected with the target power at one test-set size.

    ``difference`` is in the metric's units (NaN when not reached within the grid, i.e. not even the real
    pair's difference is detected with the target power); ``q`` the interpolated keep probability; ``note`` says
    how it was found, in words.
    """

    n_segments: int
    target_power: float
    q: float
    difference: float
    reached: bool
    note: str


@dataclass(frozen=True)
class SegmentsNeeded:
    """The test-set size at which a planted ``difference`` is detected with the target power.

    ``n_segments`` is NaN when not reached within the grid of sizes; ``powers`` gives the interpolated power at
    ``difference`` for each size of the grid (NaN where the difference is outside that size's planted range).
    """

    difference: float
    target_power: float
    n_segments: float
    reached: bool
    note: str
    powers: pd.DataFrame


def check_target(power: float) -> None:
    if not 0.0 < power < 1.0:
        raise InputError(f"the target power must be in (0, 1); got {power}")


def rows_at_size(table: pd.DataFrame, n_segments: int | None, order: str = "q") -> tuple[int, pd.DataFrame]:
    if table.empty:
        raise InputError("the power table is empty")
    size = int(table["n_segments"].max()) if n_segments is None else int(n_segments)
    rows = table[table["n_segments"] == size].sort_values(order)
    if rows.empty:
        sizes = ", ".join(str(s) for s in sorted(table["n_segments"].unique()))
        raise InputError(f"the power table has no rows for {size} segments; sizes: {sizes}")
    return size, rows


def minimum_detectable_difference(
    table: pd.DataFrame, *, n_segments: int | None = None, power: float = DEFAULT_TARGET_POWER
) -> DetectableDifference:
    """The smallest planted difference detected with probability ``power`` at ``n_segments`` (default: the
    largest size of the table, normally the whole test set), from a :func:`power_curve` table.

    The q grid is scanned upwards for the first point whose power reaches the target; between it and the point
    before, ``q`` and the planted difference are interpolated linearly in power (module docstring). The
    difference is the measured mean planted difference (``planted_difference``), in the metric's units; for a
    mean-type metric it equals ``(2q - 1) * (S(X) - S(Y))`` up to Monte Carlo error. If even ``q = 1`` (the real
    pair) falls short, the result is NaN with ``reached=False``: this construction cannot plant a difference larger
    than the real pair's, so the answer is "larger than the real difference of this pair".
    """
    check_target(power)
    size, rows = rows_at_size(table, n_segments)
    q = rows["q"].to_numpy(dtype=float)
    rate = rows["power"].to_numpy(dtype=float)
    planted = rows["planted_difference"].to_numpy(dtype=float)
    hits = np.flatnonzero(rate >= power)
    if hits.size == 0:
        return DetectableDifference(
            size,
            power,
            float("nan"),
            float("nan"),
            False,
            f"not reached: power at q = {q[-1]:g} (planted difference {planted[-1]:.4g}) is {rate[-1]:.3f} < "
            f"{power:g}; the minimum detectable difference exceeds the largest one planted",
        )
    j = int(hits[0])
    if j == 0:
        return DetectableDifference(
            size,
            power,
            float(q[0]),
            float(planted[0]),
            True,
            f"the smallest q of the grid ({q[0]:g}) already has power {rate[0]:.3f} >= {power:g}",
        )
    weight = (power - rate[j - 1]) / (rate[j] - rate[j - 1])
    q_star = q[j - 1] + weight * (q[j] - q[j - 1])
    difference = planted[j - 1] + weight * (planted[j] - planted[j - 1])
    return DetectableDifference(
        size,
        power,
        float(q_star),
        float(difference),
        True,
        f"linear interpolation in power between q = {q[j - 1]:g} (power {rate[j - 1]:.3f}) and q = {q[j]:g} "
        f"(power {rate[j]:.3f})",
    )


def power_at_difference(rows: pd.DataFrame, difference: float) -> float:
    """Power at a planted ``difference``, interpolated linearly in the planted difference between the two rows
    of one size (any q) that bracket it; NaN outside the range of planted differences of those rows."""
    ordered = rows.sort_values("planted_difference")
    planted = ordered["planted_difference"].to_numpy(dtype=float)
    rate = ordered["power"].to_numpy(dtype=float)
    if not planted[0] <= difference <= planted[-1]:
        return float("nan")
    return float(np.interp(difference, planted, rate))


def segments_needed(
    table: pd.DataFrame, difference: float, *, power: float = DEFAULT_TARGET_POWER
) -> SegmentsNeeded:
    """The number of segments at which a planted ``difference`` (metric units, oriented: positive = X better) is
    detected with probability ``power``, from a :func:`power_curve` table with several sizes.

    Each size's power at ``difference`` is interpolated in the planted difference (:func:`power_at_difference`);
    then the first size whose power reaches the target is found and the size interpolated linearly between it
    and the size before (module docstring). The grid bounds the answer: if the smallest size already reaches the
    target the answer is "at most" that size; if the largest does not, it is NaN ("more segments than
    simulated", which subsampling a test set cannot go beyond). A difference larger than every planted one (the
    real pair's) cannot be simulated with this pair and is NaN at every size.
    """
    check_target(power)
    if not difference > 0:
        raise InputError(f"the difference must be positive (X better than Y by that much); got {difference}")
    sizes = sorted(int(s) for s in table["n_segments"].unique())
    powers = [power_at_difference(table[table["n_segments"] == size], difference) for size in sizes]
    frame = pd.DataFrame({"n_segments": sizes, "power": powers})
    valid = [(size, p) for size, p in zip(sizes, powers, strict=True) if np.isfinite(p)]
    if not valid:
        return SegmentsNeeded(
            difference,
            power,
            float("nan"),
            False,
            "the difference is outside every size's planted range",
            frame,
        )
    for index, (size, p) in enumerate(valid):
        if p >= power:
            if index == 0:
                return SegmentsNeeded(
                    difference,
                    power,
                    float(size),
                    True,
                    f"at most {size}: the smallest size simulated has power {p:.3f} >= {power:g}",
                    frame,
                )
            previous_size, previous_p = valid[index - 1]
            needed = previous_size + (power - previous_p) / (p - previous_p) * (size - previous_size)
            return SegmentsNeeded(
                difference,
                power,
                float(needed),
                True,
                f"linear interpolation between {previous_size} segments (power {previous_p:.3f}) and {size} "
                f"(power {p:.3f})",
                frame,
            )
    size, p = valid[-1]
    return SegmentsNeeded(
        difference,
        power,
        float("nan"),
        False,
        f"not reached: power at {size} segments is {p:.3f} < {power:g}; more segments than simulated are needed",
        frame,
    )


def best_two_systems(corpus_scores: Sequence[float], higher_is_better: bool) -> tuple[int, int]:
    """Indices of the best and the second-best system by corpus score (first listed wins a tie): the closest
    contest at the top, the pair whose power a pipeline run reports."""
    oriented = np.asarray(corpus_scores, dtype=float) * (1.0 if higher_is_better else -1.0)
    order = np.argsort(-oriented, kind="stable")
    return int(order[0]), int(order[1])


def experiment_power(
    stats: np.ndarray,
    systems: Sequence[str],
    score: ScoreFunction,
    higher_is_better: bool,
    *,
    target_power: float = DEFAULT_TARGET_POWER,
    q_grid: Sequence[float] = DEFAULT_Q_GRID,
    simulation: PowerSimulation = PowerSimulation(),
) -> pd.DataFrame:
    """The power table of an experiment (``stats[S, N, k]``): :func:`power_curve` of its two best systems
    (:func:`best_two_systems`) with ``q_grid`` and ``simulation``, plus ``sys_x, sys_y`` and, per test-set size, the
    ``minimum_detectable_difference`` at ``target_power`` (:func:`minimum_detectable_difference`; NaN where not
    reached) and ``target_power``."""
    stats = np.asarray(stats, dtype=float)
    if stats.shape[0] < 2:
        raise InputError(f"power needs two systems, got {stats.shape[0]}")
    x, y = best_two_systems(score(stats.sum(axis=1)), higher_is_better)
    table = power_curve(stats[x], stats[y], score, higher_is_better, q_grid=q_grid, simulation=simulation)
    detectable = {
        int(n): minimum_detectable_difference(table, n_segments=int(n), power=target_power).difference
        for n in table["n_segments"].unique()
    }
    table.insert(0, "sys_y", systems[y])
    table.insert(0, "sys_x", systems[x])
    table["target_power"] = float(target_power)
    table["minimum_detectable_difference"] = table["n_segments"].map(detectable)
    return table


# --------------------------------------------------------------------------------------------------------------
# Report and figure
