"""Power to find a planted difference of any size, and the answers read from it: the minimum detectable
difference at a test-set size and the segments a difference needs, extrapolated past the simulated grid where the
variance allows it.

:mod:`mtsig.studies.power` plants a difference by keeping each segment's labels with probability q, which can plant
no difference larger than the real pair's. Here the difference d is the user's: every simulated pair is a null
pair (each segment's two outputs given to X' and Y' in random order, the calibration study's null, on a random
subset of the segments drawn without replacement), and X' is then made better by d (:func:`with_shift`): for a
metric that is a mean of segment scores exactly as if d were added to each of X''s segment scores, for BLEU and the
other corpus metrics as a shift of the corpus score carried segment by segment, so that a randomization test moves
each segment's share of it with the segment. d = 0 is always simulated: the test's size, and the spread ``sd(n)``
of ``S(X') - S(Y')`` with no difference at each size n.

**Reading the table.** Within the grid, answers are interpolated on the probit scale (``Phi^-1`` of the power),
where the normal approximation below makes power linear in d and in ``sqrt(n)``. Beyond it, the normal
approximation itself: a test rejects in the planted direction
when ``S(X') - S(Y') >= z_crit * sd(n)`` (``z_crit = z(1 - alpha)``, or ``z(1 - alpha / 2)`` two-sided), so
power is ``Phi(d / sd(n) - z_crit)``, the minimum detectable difference ``(z_crit + z(power)) * sd(n)`` and the
segments a difference needs ``((z_crit + z(power)) * sigma / d)^2`` with ``sigma = sqrt(n) * sd(n)``, the last
only where ``sqrt(n) * sd(n)`` is steady over the simulated sizes (:func:`noise_scale`); where it is not, the note
says what to change. tests/test_power.py checks each answer against the closed form of a Gaussian population.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.runtime.progress import Progress, counter
from mtsig.stats.resampling.registry import TESTS
from mtsig.stats.seeding import derive_seed, rng_for
from mtsig.studies.power import (
    DEFAULT_TARGET_POWER,
    PowerSimulation,
    ScoreFunction,
    check_target,
    checked_pair,
    curve_sizes,
    power_cell,
    rows_at_size,
    simulated_p_values,
    subsample_indices,
)

#: The columns of :func:`shift_power_curve`.
SHIFT_COLUMNS = [
    "metric",
    "test",
    "alpha",
    "n_segments",
    "difference",
    "planted_difference",
    "sd_difference",
    "rejections",
    "trials",
    "power",
    "ci_low",
    "ci_high",
]


def with_shift(score: ScoreFunction, shift: float, n_segments: int, higher_is_better: bool) -> ScoreFunction:
    """The score of statistics carrying one more column, a marker (1 on the segments of the system to shift, 0 on
    the other's): the metric's score of the other columns plus ``shift * marker total / n_segments`` (minus, for a
    lower-is-better metric: better by ``shift``). On the shifted system's own segments this adds ``shift``; where a
    randomization moves segments between the two systems, each segment carries its share of the shift with it, as
    adding ``shift`` to every segment score of a mean-type metric would."""
    signed = shift if higher_is_better else -shift

    def shifted(totals: np.ndarray) -> np.ndarray:
        return np.asarray(score(totals[..., :-1])) + signed * totals[..., -1] / n_segments

    return shifted


def shift_power_curve(
    stats_x: np.ndarray,
    stats_y: np.ndarray,
    score: ScoreFunction,
    higher_is_better: bool = True,
    *,
    differences: Sequence[float],
    simulation: PowerSimulation,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """Power of ``test`` at ``alpha`` to find a planted difference of any size: for every test-set size and every
    ``differences`` value d (metric units), ``trials`` null pairs (each segment's two outputs given to X' and Y' in
    random order, the calibration study's null, on a random subset of the segments) with X' then made better by d
    (:func:`with_shift`). d is the user's choice, not bounded by the real pair's difference; d = 0 (always
    included) gives the test's size and the spread of ``S(X') - S(Y')`` with no difference (``sd_difference``),
    from which :func:`detectable_shift` and :func:`segments_for_shift` extrapolate.

    ``simulation``: the test, alpha, sizes, trials, samples and seeds (:class:`~mtsig.studies.power.PowerSimulation`).
    Seeds as :func:`power_curve`'s, so every d sees the same subsets, swaps and resamples (common random numbers).
    Returns one row per (size, d), sizes then d ascending, with columns :data:`SHIFT_COLUMNS`.
    """
    stats_x, stats_y = checked_pair(stats_x, stats_y, simulation)
    test, alpha, trials, seed, metric = (
        simulation.test, simulation.alpha, simulation.trials, simulation.seed, simulation.metric
    )  # fmt: skip
    planted = sorted({0.0, *(float(d) for d in differences)})
    if not all(np.isfinite(planted)) or planted[0] < 0:
        raise InputError(f"planted differences must be finite and >= 0; got {list(differences)}")
    n_total = stats_x.shape[0]
    sizes = curve_sizes(n_total, simulation.n_segments_grid)
    rows = []
    advance = counter(progress, sum(sizes) * len(planted))
    for size in sizes:
        subsets = subsample_indices(n_total, size, trials, rng_for(seed, "power", metric, "subsets", size))
        swaps = rng_for(seed, "power", metric, "keep", size).random((trials, size)) < 0.5
        resampling_seed = derive_seed(seed, "power", metric, size, "resampling")
        for difference in planted:
            shifted = with_shift(score, difference, size, higher_is_better)
            p_values = simulated_p_values(
                stats_x, stats_y, shifted, higher_is_better=higher_is_better, subsets=subsets, keep=swaps,
                seed=resampling_seed, marked=True, **simulation.engine,
            )  # fmt: skip
            advance(size)
            head = {"metric": metric, "test": test, "alpha": float(alpha), "n_segments": size}
            rows.append(head | {"difference": difference} | power_cell(p_values, alpha, trials))
    return pd.DataFrame(rows, columns=SHIFT_COLUMNS)


@dataclass(frozen=True)
class PowerAnswer:
    """An answer read from a :func:`shift_power_curve` table: ``value`` (a difference in metric units, or a number
    of segments; NaN when there is no answer), whether it is ``extrapolated`` beyond the simulated grid by the
    normal approximation, and ``note``: how it was found, or precisely what to change to get one."""

    value: float
    extrapolated: bool
    note: str

    @property
    def reached(self) -> bool:
        return bool(np.isfinite(self.value))


def critical_z(test: str, alpha: float) -> float:
    """The standard normal quantile a test's statistic must pass in the planted direction: ``z(1 - alpha)`` for a
    one-sided test, ``z(1 - alpha / 2)`` for a two-sided one (its other tail ignored: a planted difference is
    rejected in its own direction)."""
    from statistics import NormalDist

    two_sided = TESTS[test].sided == "two-sided"
    return NormalDist().inv_cdf(1.0 - (alpha / 2 if two_sided else alpha))


def noise_scale(table: pd.DataFrame, tolerance: float = 0.25) -> tuple[float, bool, str]:
    """``(sigma, follows_one_over_n, note)``: the spread of ``S(X') - S(Y')`` with no difference, scaled to one
    segment, ``sigma = sqrt(n) * sd(n)`` at the largest size simulated, and whether ``sqrt(n) * sd(n)`` agrees
    within ``tolerance`` (relative) over every simulated size of at least 100 segments: where it does, the
    variance shrinks as 1/n and the normal approximation may be carried past the grid (for a mean of segment
    scores under random swaps the variance is exactly ``E[D^2] / n``, D a segment's difference; for BLEU and the
    other corpus metrics approximately, by the delta method)."""
    null = table[table["difference"] == 0].sort_values("n_segments")
    scaled = np.sqrt(null["n_segments"].to_numpy(dtype=float)) * null["sd_difference"].to_numpy(dtype=float)
    large = scaled[null["n_segments"].to_numpy() >= 100]
    sigma = float(scaled[-1])
    shown = ", ".join(f"{v:.3g}" for v in large)
    if len(large) < 2 or not np.all(np.isfinite(large)):
        return sigma, False, "fewer than two sizes of at least 100 segments simulated (give --sizes)"
    spread = float(large.max() / large.min() - 1.0)
    if spread > tolerance:
        note = f"sqrt(n) x sd of the difference varies by {spread:.0%} over the sizes ({shown})"
        return sigma, False, note
    return sigma, True, f"sqrt(n) x sd of the difference {shown} over the sizes simulated"


def probit(rate: np.ndarray | float, trials: int) -> np.ndarray:
    """``z = Phi^-1(rate)`` of rejection rates, kept inside (0, 1) by half a trial. Under the normal approximation
    ``z`` is linear in the planted difference and in ``sqrt(n)`` (module docstring): the scale answers are
    interpolated on."""
    from statistics import NormalDist

    clipped = np.clip(np.atleast_1d(np.asarray(rate, dtype=float)), 0.5 / trials, 1.0 - 0.5 / trials)
    return np.array([NormalDist().inv_cdf(float(value)) for value in clipped])


def _crossing(x: tuple[float, float], z: tuple[float, float], target: float) -> float:
    """Where the line through ``(x[0], z[0])`` and ``(x[1], z[1])`` reaches ``target`` (``x[1]`` if flat)."""
    if z[1] == z[0]:
        return x[1]
    return x[0] + (target - z[0]) / (z[1] - z[0]) * (x[1] - x[0])


def detectable_shift(
    table: pd.DataFrame, *, n_segments: int | None = None, power: float = DEFAULT_TARGET_POWER
) -> PowerAnswer:
    """The smallest planted difference detected with probability ``power`` at ``n_segments`` (default: the
    largest size of the table): interpolated between the two planted differences whose powers bracket the target,
    on the probit scale (:func:`probit`); beyond the largest one planted, by the normal approximation
    ``(z_crit + z(power)) * sd``, sd the spread of ``S(X') - S(Y')`` simulated with no difference at that size
    (:func:`critical_z`)."""
    check_target(power)
    size, rows = rows_at_size(table, n_segments, "difference")
    planted = rows["difference"].to_numpy(dtype=float)
    rate = rows["power"].to_numpy(dtype=float)
    hits = np.flatnonzero(rate >= power)
    if hits.size and hits[0] > 0:
        j = int(hits[0])
        z = probit(rate[j - 1 : j + 1], int(rows["trials"].iloc[0]))
        value = _crossing((planted[j - 1], planted[j]), (z[0], z[1]), _z(power))
        note = (
            f"interpolated between d = {planted[j - 1]:.4g} (power {rate[j - 1]:.3f}) and d = {planted[j]:.4g} "
            f"(power {rate[j]:.3f})"
        )
        return PowerAnswer(float(value), False, note)
    if hits.size:
        note = f"power {rate[0]:.3f} with no difference: the test is not valid here"
        return PowerAnswer(float("nan"), False, note)
    test, alpha = str(rows["test"].iloc[0]), float(rows["alpha"].iloc[0])
    sd = float(rows.loc[rows["difference"] == 0, "sd_difference"].iloc[0])
    value = (critical_z(test, alpha) + _z(power)) * sd
    note = (
        f"beyond the largest difference planted ({planted[-1]:.4g}, power {rate[-1]:.3f}): normal approximation "
        f"(z + z_power) x sd, sd = {sd:.4g} simulated with no difference at {size} segments"
    )
    return PowerAnswer(float(value), True, note)


def _z(power: float) -> float:
    from statistics import NormalDist

    return NormalDist().inv_cdf(power)


def power_at_shift(rows: pd.DataFrame, difference: float) -> tuple[float, bool]:
    """``(power, extrapolated)`` at a planted ``difference`` on one size's rows: interpolated between the two
    planted differences that bracket it on the probit scale, or past the largest by the normal approximation
    ``Phi(difference / sd - z_crit)``."""
    from statistics import NormalDist

    ordered = rows.sort_values("difference")
    planted = ordered["difference"].to_numpy(dtype=float)
    if difference <= planted[-1]:
        z = probit(ordered["power"].to_numpy(dtype=float), int(ordered["trials"].iloc[0]))
        return NormalDist().cdf(float(np.interp(difference, planted, z))), False
    sd = float(ordered["sd_difference"].iloc[0])
    z_crit = critical_z(str(ordered["test"].iloc[0]), float(ordered["alpha"].iloc[0]))
    return NormalDist().cdf(difference / sd - z_crit), True


def segments_for_shift(
    table: pd.DataFrame, difference: float, *, power: float = DEFAULT_TARGET_POWER
) -> PowerAnswer:
    """The number of segments at which a planted ``difference`` (metric units, > 0) is detected with probability
    ``power``, from a :func:`shift_power_curve` table.

    Each size's power at the difference (:func:`power_at_shift`) is read off; the size is interpolated between the
    two simulated sizes whose powers bracket the target (on the probit scale, linearly in ``sqrt(n)``). Outside
    the simulated sizes (the target not reached at the largest, or already at the smallest) the answer is
    extrapolated by the normal approximation ``n = ((z_crit + z(power)) * sigma / difference)^2`` where the
    variance shrinks as 1/n over the simulated sizes (:func:`noise_scale`); where it does not, there is no answer
    and the note says what to change.
    """
    check_target(power)
    if not difference > 0:
        raise InputError(f"the difference must be positive (X better than Y by that much); got {difference}")
    sizes = sorted(int(s) for s in table["n_segments"].unique())
    powers = [power_at_shift(table[table["n_segments"] == size], difference)[0] for size in sizes]
    first = next((i for i, p in enumerate(powers) if p >= power), None)
    if first is not None and first > 0:
        low, high = sizes[first - 1], sizes[first]
        z = probit(powers[first - 1 : first + 1], int(table["trials"].iloc[0]))
        value = _crossing((np.sqrt(low), np.sqrt(high)), (z[0], z[1]), _z(power)) ** 2
        note = f"interpolated between {low} segments (power {powers[first - 1]:.3f}) and {high} ({powers[first]:.3f})"
        return PowerAnswer(float(value), False, note)
    sigma, follows, how = noise_scale(table)
    rows = table[table["n_segments"] == sizes[-1]]
    z = critical_z(str(rows["test"].iloc[0]), float(rows["alpha"].iloc[0])) + _z(power)
    where = f"at most {sizes[0]}" if first == 0 else f"more than {sizes[-1]}"
    if follows:
        value = (z * sigma / difference) ** 2
        return PowerAnswer(float(value), True, f"{where}: normal approximation; {how}")
    advice = (
        f"give smaller --sizes for a closer answer ({how})"
        if first == 0
        else f"no extrapolation, as {how}: give more --trials for a steadier estimate, or sizes of at least 100 "
        f"segments with --sizes"
    )
    return PowerAnswer(float(sizes[0]) if first == 0 else float("nan"), False, f"{where}: {advice}")


def default_differences(
    stats_x: np.ndarray,
    stats_y: np.ndarray,
    score: ScoreFunction,
    *,
    seed: int,
    metric: str,
    trials: int = 200,
) -> list[float]:
    """The planted differences of a curve when none are given: 1, 2, 3 and 4 times the spread of ``S(X') -
    S(Y')`` over ``trials`` null pairs on the whole test set (random swaps alone, no test: cheap), each to two
    significant digits. With a one-sided test at 0.05 their power on the whole test set is about 0.26, 0.64, 0.91
    and 0.99, so the curve brackets the usual targets; any other difference is read by :func:`power_at_shift`."""
    stats_x, stats_y = np.asarray(stats_x, dtype=float), np.asarray(stats_y, dtype=float)
    swaps = (rng_for(seed, "power", metric, "scale").random((trials, stats_x.shape[0])) < 0.5).astype(float)
    totals_x = swaps @ stats_x + (1.0 - swaps) @ stats_y
    totals_y = swaps @ stats_y + (1.0 - swaps) @ stats_x
    spread = float(np.std(np.asarray(score(totals_x)) - np.asarray(score(totals_y)), ddof=1))
    if not spread > 0:
        raise InputError(
            "the two systems' statistics are identical on every segment: no spread to scale a planted difference; "
            "give --differences"
        )
    return [float(f"{k * spread:.2g}") for k in (1, 2, 3, 4)]
