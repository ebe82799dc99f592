"""Confidence sets for ranks (mtsig.stats.rank_sets) against the R package csranks run side by side, and against
known truth.

Oracles: tests/oracles/csranks/ (csranks's bounds on PISA 2018 math, a full covariance and small cases, with the
bootstrap draws csranks used, written by its make_oracles.R; README there), hand calculation, and simulations whose
true ranks are known (normal estimates around chosen means; item scores drawn from a model), with statsmodels'
Clopper-Pearson intervals of the coverage.
"""

from __future__ import annotations

import gzip
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

from mtsig.errors import InputError
from mtsig.stats.rank_sets import (
    RANK_SETS,
    FreshNormalDraws,
    RecordedDraws,
    marginal_sets,
    problem_from_estimates,
    problem_from_item_scores,
    quantile_inverse,
    quantile_type7,
    rank_set,
    simultaneous_sets,
    tau_best_set,
)

ORACLE = Path(__file__).resolve().parent / "oracles" / "csranks"


def _tsv(name: str) -> pd.DataFrame:
    """An oracle table, every cell as written (strings)."""
    return pd.read_csv(ORACLE / name, sep="\t", dtype=str, keep_default_na=False)


@cache
def _oracle() -> dict[str, pd.DataFrame | np.ndarray]:
    tables = {
        name: _tsv(f"{name}.tsv") for name in ("runs", "bounds", "inputs", "covariances", "draws", "blobs")
    }
    tables["flat"] = np.frombuffer(gzip.open(ORACLE / "draws.bin.gz").read(), dtype="<f8")
    return tables


def _case_input(case: str) -> tuple[list[str], np.ndarray, dict]:
    """(systems, estimates, covariance or standard errors) of an oracle case, as csranks read them."""
    oracle = _oracle()
    rows = oracle["inputs"][oracle["inputs"]["case"] == case]
    estimates = rows["estimate"].astype(float).to_numpy()
    if (rows["se"] == "NA").all():
        cells = oracle["covariances"][oracle["covariances"]["case"] == case]
        covariance = np.zeros((len(rows), len(rows)))
        covariance[cells["row"].astype(int), cells["col"].astype(int)] = cells["value"].astype(float)
        return list(rows["system"]), estimates, {"covariance": covariance}
    return list(rows["system"]), estimates, {"standard_errors": rows["se"].astype(float).to_numpy()}


def _recorded_draws(run: str, n_systems: int) -> RecordedDraws:
    """csranks's draws of one run, per (family, step): the populations each step needed and their draws."""
    oracle = _oracle()
    blobs = oracle["blobs"].set_index("blob")
    records = {}
    for _, row in oracle["draws"][oracle["draws"]["run"] == run].iterrows():
        blob = blobs.loc[row["blob"]]
        offset, n_rows, n_cols = int(blob["offset"]), int(blob["rows"]), int(blob["cols"])
        # R writes a matrix column by column: one population's draws after another.
        values = oracle["flat"][offset : offset + n_rows * n_cols].reshape(n_cols, n_rows).T
        key = None if row["key"] == "none" else int(row["key"])
        records[(key, int(row["step"]))] = (tuple(int(p) for p in blob["populations"].split(",")), values)
    return RecordedDraws(records, n_systems)


def _compute(run: pd.Series, problem, coverage: float | None = None):
    """mtsig's set for one csranks run."""
    options = {"coverage": float(run["coverage"]) if coverage is None else coverage}
    options["stepdown"] = run["stepdown"] == "TRUE"
    if run["kind"] in ("tau_best", "tau_worst"):
        return rank_set(problem, run["kind"], tau=int(run["tau"]), **options)
    targets = [int(t) for t in run["targets"].split(",")]
    return rank_set(problem, run["kind"], side=run["side"], targets=targets, **options)


def _csranks_bounds(run: pd.Series) -> pd.DataFrame:
    bounds = _oracle()["bounds"]
    return bounds[bounds["run"] == run["run"]]


CASES = ("pisa2018_math", "synthetic_full", "two", "ties", "singular")


@pytest.mark.parametrize("case", CASES)
def test_csranks_draws_give_csranks_bounds_exactly(case: str) -> None:
    """Fed the draws csranks drew (every step, every marginal population), every rank bound, estimated rank and
    τ-set membership is csranks's; the stepdown also needs exactly the populations csranks drew at each step."""
    systems, estimates, spread = _case_input(case)
    runs = _oracle()["runs"]
    runs = runs[(runs["case"] == case) & (runs["draws"] == "recorded")]
    assert len(runs) >= 16
    compared = 0
    for _, run in runs.iterrows():
        draws = _recorded_draws(run["run"], len(systems))
        problem = problem_from_estimates(systems, estimates, draws=draws, **spread)
        result = _compute(run, problem)
        expected = _csranks_bounds(run)
        assert [row.rank for row in result.rows] == expected["rank"].astype(int).tolist(), run.to_dict()
        if run["kind"] in ("tau_best", "tau_worst"):
            assert [row.member for row in result.rows] == (expected["member"] == "TRUE").tolist(), (
                run.to_dict()
            )
            compared += len(expected)
        else:
            assert result.lower.tolist() == expected["lower"].astype(int).tolist(), run.to_dict()
            assert result.upper.tolist() == expected["upper"].astype(int).tolist(), run.to_dict()
            compared += 2 * len(expected)
    assert compared >= 2 * len(systems)


def test_the_oracle_covers_every_kind_side_and_stepdown() -> None:
    runs = _oracle()["runs"]
    recorded = runs[runs["draws"] == "recorded"]
    assert set(recorded["kind"]) == set(RANK_SETS)
    combos = set(zip(recorded["kind"], recorded["side"], recorded["stepdown"], strict=True))
    for kind in ("marginal", "simultaneous"):
        for side in ("two-sided", "lower", "upper"):
            assert {(kind, side, "TRUE"), (kind, side, "FALSE")} <= combos


def _monte_carlo_runs(case: str) -> pd.DataFrame:
    runs = _oracle()["runs"]
    return runs[(runs["case"] == case) & (runs["draws"] == "own")]


def _own_draws_against_csranks(case: str, n_draws: int, margin: float) -> tuple[int, int]:
    """(bounds compared, bounds that differ) with mtsig's own draws; every csranks bound must lie between mtsig's at
    coverage ± margin (sets grow with the coverage), i.e. differ only where a Monte Carlo boundary flips."""
    systems, estimates, spread = _case_input(case)
    problem = problem_from_estimates(systems, estimates, n_draws=n_draws, rng=20251, **spread)
    compared = differing = 0
    for _, run in _monte_carlo_runs(case).iterrows():
        expected = _csranks_bounds(run)
        nominal = float(run["coverage"])
        at, narrow, wide = (_compute(run, problem, c) for c in (nominal, nominal - margin, nominal + margin))
        if run["kind"] == "tau_best":
            theirs = (expected["member"] == "TRUE").to_numpy()
            ours = [np.array([r.member for r in res.rows]) for res in (at, narrow, wide)]
            assert (ours[1] <= theirs).all() and (theirs <= ours[2]).all(), run.to_dict()
            compared, differing = compared + len(theirs), differing + int((ours[0] != theirs).sum())
            continue
        lower, upper = expected["lower"].astype(int).to_numpy(), expected["upper"].astype(int).to_numpy()
        assert (wide.lower <= lower).all() and (lower <= narrow.lower).all(), run.to_dict()
        assert (narrow.upper <= upper).all() and (upper <= wide.upper).all(), run.to_dict()
        compared += 2 * len(lower)
        differing += int((at.lower != lower).sum() + (at.upper != upper).sum())
    return compared, differing


def test_own_draws_differ_from_csranks_only_at_monte_carlo_boundaries_full_covariance() -> None:
    """csranks at 100,000 draws of its own against mtsig at 40,000 of its own (synthetic case, full covariance):
    each bound within mtsig's at coverage 0.95 ± 0.008 (about 7 Monte Carlo standard errors of the level)."""
    compared, differing = _own_draws_against_csranks("synthetic_full", 40_000, 0.008)
    assert compared == 6 * 2 * 8 * 2
    assert differing <= compared // 20


@pytest.mark.slow
def test_own_draws_differ_from_csranks_only_at_monte_carlo_boundaries_pisa() -> None:
    """The same on PISA 2018 math (38 countries): simultaneous sets and the τ-best."""
    compared, differing = _own_draws_against_csranks("pisa2018_math", 100_000, 0.005)
    assert compared == 6 * 2 * 38 + 2 * 38
    assert differing <= compared // 20


def test_quantile_is_rs_type_7() -> None:
    """R: quantile(c(5, 1, 4, 2, 3), c(0.3, 0.95)) is 2.2 and 4.8; quantile(c(1, 1, 2), 0.25) is 1."""
    values = np.array([[5.0, 1, 4, 2, 3]])
    assert quantile_type7(values, 0.3)[0] == pytest.approx(2.2, abs=1e-15)
    assert quantile_type7(values, 0.95)[0] == pytest.approx(4.8, abs=1e-15)
    assert quantile_type7(np.array([[1.0, 1, 2]]), 0.25)[0] == 1.0


def test_the_papers_quantile_is_the_generalised_inverse() -> None:
    """inf{x : F(x) >= p} of the empirical distribution, R's quantile(type = 1): of 1..100, 95 at 0.95 and 96 at
    0.951; of (5, 1, 4, 2, 3), 2 at 0.3 and 5 at 0.95; the smallest value at p = 0.001."""
    values = np.arange(100, 0, -1, dtype=float)[None, :]
    assert quantile_inverse(values, 0.95)[0] == 95.0 and quantile_inverse(values, 0.951)[0] == 96.0
    small = np.array([[5.0, 1, 4, 2, 3]])
    assert quantile_inverse(small, 0.3)[0] == 2.0 and quantile_inverse(small, 0.95)[0] == 5.0
    assert quantile_inverse(small, 0.001)[0] == 1.0


def test_quantile_convention_reaches_the_sets() -> None:
    """With draws whose |Z_a − Z_b| / σ is k / 100 (k = 1..100), the type-7 critical value is 0.9505 and the
    generalised inverse 0.95: a difference of 0.9503 σ is significant under the paper's quantile only."""
    sigma = np.sqrt(0.08)
    draws = np.column_stack([np.arange(1, 101) / 100 * sigma, np.zeros(100)])
    problem = problem_from_estimates(
        ["a", "b"], [0.9503 * sigma, 0.0], standard_errors=[0.2, 0.2], draws=draws
    )
    csranks_way = simultaneous_sets(problem, stepdown=False)
    papers_way = simultaneous_sets(problem, stepdown=False, quantile="inverse")
    assert csranks_way.upper.tolist() == [2, 2] and papers_way.upper.tolist() == [1, 2]
    assert (csranks_way.quantile, papers_way.quantile) == ("type7", "inverse")


def test_redrawn_draws_follow_csranks_scheme() -> None:
    """csranks draws every step afresh, of only the populations the step needs, and restarts each marginal
    population from its seed: in its recorded PISA runs every population's first draws are the same array, and a
    later step draws fewer populations. mtsig's redraw scheme does the same, with its own generator."""
    oracle = _oracle()
    draws, runs = oracle["draws"], oracle["runs"]
    marginal = runs[
        (runs["case"] == "pisa2018_math") & (runs["kind"] == "marginal") & (runs["draws"] == "recorded")
    ]
    for run in marginal["run"]:
        first = draws[(draws["run"] == run) & (draws["step"] == "0")]
        assert len(first) == 4 and first["blob"].nunique() == 1
    systems, estimates, spread = _case_input("pisa2018_math")
    problem = problem_from_estimates(systems, estimates, n_draws=60, rng=4, redraw=True, **spread)
    assert isinstance(problem.draws, FreshNormalDraws)
    everyone = np.ones(len(systems), dtype=bool)
    starts = [problem.draws.centred_t(0, key, everyone) for key in (19, 36)]
    assert np.array_equal(starts[0], starts[1])
    fewer = everyone.copy()
    fewer[:5] = False
    later = problem.draws.centred_t(1, 19, fewer)
    assert np.isnan(later[:5]).all() and not np.isnan(later[5:]).any()
    assert not np.array_equal(later[5:], starts[0][5:])
    again = marginal_sets(problem, targets=[19, 36]), marginal_sets(problem, targets=[19, 36])
    assert again[0] == again[1]


def test_two_systems_by_hand() -> None:
    """Two systems, draws given: the single-step two-sided critical value is the 0.95 quantile (R's type 7) of
    |Z_a − Z_b| / σ, σ = √(0.04 + 0.04). With draws Z_a − Z_b = (k / 100) σ, k = 1..100, it is 0.95 · 0.95 + 0.05 ·
    0.96 = 0.9505, so a difference is significant iff it exceeds 0.9505 σ = 0.268842: 0.2689 is, 0.2687 is not."""
    sigma = np.sqrt(0.08)
    steps = np.arange(1, 101) / 100 * sigma
    draws = np.column_stack([steps, np.zeros(100)])
    for difference, separated in ((0.2689, True), (0.2687, False)):
        problem = problem_from_estimates(
            ["a", "b"], [difference, 0.0], standard_errors=[0.2, 0.2], draws=draws
        )
        result = simultaneous_sets(problem, stepdown=False)
        assert (result.lower.tolist(), result.upper.tolist()) == (
            ([1, 2], [1, 2]) if separated else ([1, 1], [2, 2])
        )


# ----------------------------------------------------------------------------------------------- known truth


def _coverage(k: int, n: int) -> tuple[float, float]:
    low, high = proportion_confint(k, n, alpha=0.01, method="beta")
    return float(low), float(high)


def _true_ranks(theta: np.ndarray) -> np.ndarray:
    return 1 + (theta[None, :] > theta[:, None]).sum(axis=1)


def _simulate_coverage(theta, covariance, n_replicates, n_draws, kinds, seed=5):
    """For each (kind, side), how many of ``n_replicates`` normal estimates around ``theta`` gave sets that held
    every true rank (for a marginal set: system 0's)."""
    rng = np.random.default_rng(seed)
    truth = _true_ranks(theta)
    estimates = rng.multivariate_normal(theta, covariance, size=n_replicates)
    systems = [f"s{i}" for i in range(len(theta))]
    held = dict.fromkeys(kinds, 0)
    for r, estimate in enumerate(estimates):
        problem = problem_from_estimates(systems, estimate, covariance=covariance, n_draws=n_draws, rng=r)
        for kind, side in kinds:
            if kind == "marginal":
                result = marginal_sets(problem, side=side, targets=[0])
                covered = result.lower[0] <= truth[0] <= result.upper[0]
            else:
                result = simultaneous_sets(problem, side=side)
                covered = ((result.lower <= truth) & (truth <= result.upper)).all()
            held[(kind, side)] += bool(covered)
    return held


def _ar1(se: np.ndarray, rho: float) -> np.ndarray:
    lags = np.abs(np.subtract.outer(np.arange(len(se)), np.arange(len(se))))
    return np.outer(se, se) * rho**lags


def test_coverage_is_exact_where_the_means_are_equal() -> None:
    """Known truth: four equal means (every true rank 1), correlated normal estimates. The least favourable case:
    the one-sided (lower) sets, simultaneous and marginal, and the two-sided stepdown simultaneous set cover with
    probability 0.95 exactly (up to the bootstrap's Monte Carlo error); the 99% Clopper-Pearson interval of 1,000
    replicates must hold 0.95 (and so catches a critical value from the wrong maximum, e.g. 0.975)."""
    covariance = _ar1(np.array([0.10, 0.15, 0.12, 0.2]), 0.5)
    kinds = [("simultaneous", "lower"), ("marginal", "lower"), ("simultaneous", "two-sided")]
    held = _simulate_coverage(np.zeros(4), covariance, 1000, 1000, kinds)
    for kind, k in held.items():
        low, high = _coverage(k, 1000)
        assert low <= 0.95 <= high, (kind, k)


def test_coverage_holds_where_the_means_differ() -> None:
    """Known truth: distinct means close to each other (true ranks 4, 3, 2, 1); every set covers at least 95% (the
    99% Clopper-Pearson interval reaches 0.95): the sets are conservative away from equal means."""
    theta = np.array([0.0, 0.03, 0.06, 0.2])
    covariance = _ar1(np.array([0.10, 0.15, 0.12, 0.2]), 0.3)
    kinds = [(k, s) for k in ("simultaneous", "marginal") for s in ("two-sided", "lower", "upper")]
    held = _simulate_coverage(theta, covariance, 300, 300, kinds, seed=6)
    for kind, k in held.items():
        assert _coverage(k, 300)[1] >= 0.95, (kind, k)


def _item_scores(rng, n_systems, n_docs, doc_size, doc_effect, system_means):
    """Item scores with a per-item effect shared by all systems (a paired design) and a per-(system, document)
    effect of sd ``doc_effect``: items of one document depend on each other."""
    n_items = n_docs * doc_size
    documents = np.repeat(np.arange(n_docs), doc_size)
    item = rng.normal(0, 1.0, n_items)
    per_doc = rng.normal(0, doc_effect, (n_systems, n_docs))[:, documents]
    noise = rng.normal(0, 0.5, (n_systems, n_items))
    return system_means[:, None] + item[None, :] + per_doc + noise, documents


def _item_coverage(n_replicates, doc_effect, by_document, seed=11, n_docs=40):
    rng = np.random.default_rng(seed)
    held = 0
    for r in range(n_replicates):
        scores, documents = _item_scores(rng, 4, n_docs, 5, doc_effect, np.zeros(4))
        problem = problem_from_item_scores(
            ["a", "b", "c", "d"], scores, documents=documents if by_document else None, n_draws=400, rng=r
        )
        held += bool((simultaneous_sets(problem, side="lower").lower == 1).all())
    return held


@pytest.mark.slow
def test_document_bootstrap_covers_where_item_bootstrap_does_not() -> None:
    """Known truth: equal means, items dependent within documents (160 documents of 5 items). Resampling whole
    documents keeps the lower simultaneous set at 95% (99% Clopper-Pearson interval of 300 replicates; with 40
    documents it covers about 0.92, the bootstrap's small-sample error); resampling items ignores the dependence and
    covers about half the time."""
    documents = _item_coverage(300, 0.6, True, n_docs=160)
    items = _item_coverage(300, 0.6, False, n_docs=160)
    assert _coverage(documents, 300)[0] <= 0.95 <= _coverage(documents, 300)[1], documents
    assert _coverage(items, 300)[1] < 0.9, items


def test_item_bootstrap_covers_independent_items() -> None:
    """Known truth: equal means, independent items, a paired design; the lower simultaneous set of the paired item
    bootstrap covers about 95% (99% Clopper-Pearson interval of 300 replicates, allowing the bootstrap's small-sample
    error of 0.02)."""
    held = _item_coverage(300, 0.0, False, seed=12)
    low, high = _coverage(held, 300)
    assert low - 0.02 <= 0.95 <= high + 0.02, held


# ----------------------------------------------------------------------------------- the item bootstrap by hand


def test_item_estimates_are_means_over_rated_items() -> None:
    scores = np.array([[1.0, 2.0, np.nan, 3.0], [4.0, np.nan, np.nan, 0.0], [1.0, 1.0, 1.0, 5.0]])
    problem = problem_from_item_scores(["a", "b", "c"], scores, paired=False, n_draws=50, rng=1)
    assert problem.estimates.tolist() == [2.0, 2.0, 2.0]
    assert [row.rank for row in simultaneous_sets(problem).rows] == [1, 1, 1]


def test_documents_of_one_item_resample_as_items() -> None:
    """Whole documents of one item each are the items themselves: the same draws, the same sets."""
    rng = np.random.default_rng(3)
    scores = rng.normal(size=(5, 60)) + np.arange(5)[:, None] * 0.2
    by_item = problem_from_item_scores(list("abcde"), scores, n_draws=300, rng=9)
    by_doc = problem_from_item_scores(
        list("abcde"), scores, documents=np.arange(60)[::-1], n_draws=300, rng=9
    )
    assert by_doc.bootstrap == "documents"
    a, b = simultaneous_sets(by_item), simultaneous_sets(by_doc)
    assert a.lower.tolist() == b.lower.tolist() and a.upper.tolist() == b.upper.tolist()


def test_pairing_narrows_the_sets_when_items_vary_more_than_systems() -> None:
    """A shared item effect much larger than the systems' differences: paired resampling cancels it and separates
    all five systems, unpaired resampling cannot separate neighbours."""
    rng = np.random.default_rng(4)
    scores = rng.normal(0, 5, 400)[None, :] + np.arange(5)[::-1, None] * 0.3 + rng.normal(0, 0.3, (5, 400))
    paired = simultaneous_sets(problem_from_item_scores(list("abcde"), scores, n_draws=500, rng=2))
    unpaired = simultaneous_sets(
        problem_from_item_scores(list("abcde"), scores, paired=False, n_draws=500, rng=2)
    )
    assert paired.lower.tolist() == [1, 2, 3, 4, 5] == paired.upper.tolist()
    assert (unpaired.upper - unpaired.lower).min() >= 1


def test_differences_that_never_vary() -> None:
    """Two systems with the same score on every item share a rank and are never separated; a third scored 3 below
    on every item is known exactly to be third."""
    rng = np.random.default_rng(8)
    base = rng.normal(size=100)
    scores = np.vstack([base, base, base - 3])
    result = simultaneous_sets(problem_from_item_scores(["a", "b", "c"], scores, n_draws=200, rng=1))
    assert [row.rank for row in result.rows] == [1, 1, 3]
    assert result.lower.tolist() == [1, 1, 3] and result.upper.tolist() == [2, 2, 3]


def test_same_seed_same_sets_and_tau_best_members() -> None:
    systems, estimates, spread = _case_input("pisa2018_math")
    first = tau_best_set(problem_from_estimates(systems, estimates, rng=3, **spread), tau=3)
    second = tau_best_set(problem_from_estimates(systems, estimates, rng=3, **spread), tau=3)
    assert first == second
    assert {"Japan", "Korea"} <= set(first.members) and "Colombia" not in first.members


# ------------------------------------------------------------------------------------------------- bad input


def _estimates(**changes):
    arguments = {"systems": ["a", "b", "c"], "estimates": [1.0, 0.5, 0.0], "standard_errors": [0.1, 0.1, 0.1]}
    arguments.update(changes)
    return problem_from_estimates(source="scores.tsv", **arguments)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"systems": ["a"], "estimates": [1.0], "standard_errors": [0.1]}, "at least two are needed"),
        ({"systems": ["a", "b", "a"]}, "named more than once: a"),
        ({"estimates": [1.0, np.nan, 0.0]}, "estimate of 'b' is missing"),
        ({"estimates": [1.0, 0.5]}, "2 estimates for 3 systems"),
        ({"standard_errors": [0.1, 0.0, 0.1]}, "standard error of 'b' is 0: it must be positive"),
        ({"standard_errors": [0.1, -1.0, 0.1]}, "standard error of 'b' is -1"),
        ({"standard_errors": [0.1, np.nan, 0.1]}, "standard error of 'b' is missing"),
        (
            {"standard_errors": None, "covariance": np.array([[1.0, 0.5, 0], [0.4, 1, 0], [0, 0, 1]])},
            "not symmetric: (a, b) is 0.5 but (b, a) is 0.4",
        ),
        (
            {"standard_errors": None, "covariance": np.array([[1.0, 2, 0], [2, 1, 0], [0, 0, 1]])},
            "not positive semi-definite",
        ),
        (
            {"standard_errors": None, "covariance": np.eye(3), "covariance_systems": ["a", "b", "x"]},
            "do not match the estimates': no row for c; rows for unknown system(s) x",
        ),
        ({"standard_errors": None, "covariance": np.eye(2)}, "the covariance is 2x2, not 3x3"),
        (
            {"standard_errors": None, "covariance": np.array([[1.0, 1, 0], [1, 1, 0], [0, 0, 1]])},
            "difference of 'a' and 'b' has no variance",
        ),
        ({"n_draws": -5}, "number of draws must be a positive integer, not -5"),
    ],
)
def test_bad_estimates_are_input_errors(changes, message) -> None:
    with pytest.raises(InputError, match="^scores.tsv: ") as error:
        _estimates(**changes)
    assert message in str(error.value)


def test_a_reordered_covariance_is_read_by_name() -> None:
    covariance = np.diag(np.array([0.2, 0.1, 0.3]) ** 2)  # c, a, b
    by_name = _estimates(
        standard_errors=None, covariance=covariance, covariance_systems=["c", "a", "b"], rng=1
    )
    direct = _estimates(standard_errors=[0.1, 0.3, 0.2], rng=1)
    assert np.array_equal(by_name.difference_sds, direct.difference_sds)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"kind": "tau_best", "tau": 4}, "tau is 4 but there are only 3 systems"),
        ({"kind": "tau_best", "tau": 0}, "tau must be a positive integer, not 0"),
        ({"kind": "simultaneous", "coverage": 1.5}, "coverage must be a number strictly between 0 and 1"),
        ({"kind": "marginal", "side": "both"}, "side must be one of two-sided, lower, upper"),
    ],
)
def test_bad_options_are_input_errors(options, message) -> None:
    problem = _estimates(rng=1)
    kind = options.pop("kind")
    with pytest.raises(InputError, match=message):
        rank_set(problem, kind, **options)


def test_targets_by_name_or_index() -> None:
    problem = _estimates(rng=1)
    by_name = marginal_sets(problem, targets=["c", "a"])
    assert [row.system for row in by_name.rows] == ["c", "a"]
    assert by_name == marginal_sets(problem, targets=[2, 0])
    for targets, message in (
        (["x"], "no system 'x'"),
        ([3], "not a system's name or an index below 3"),
        ([0, 0], "none twice"),
    ):
        with pytest.raises(InputError, match=message):
            simultaneous_sets(problem, targets=targets)


def test_ties_are_a_documented_result_not_an_error() -> None:
    """As csranks: tied estimates share the better rank, and their sets overlap."""
    result = simultaneous_sets(_estimates(estimates=[1.0, 1.0, 0.0], standard_errors=[0.01] * 3, rng=1))
    assert [row.rank for row in result.rows] == [1, 1, 3]
    assert result.lower.tolist() == [1, 1, 3] and result.upper.tolist() == [2, 2, 3]


@pytest.mark.parametrize(
    ("scores", "documents", "message"),
    [
        (np.array([[1.0, 2.0], [np.nan, np.nan]]), None, "system 'b' has no rated item"),
        (np.array([[1.0, np.inf], [1.0, 2.0]]), None, "an item score is infinite"),
        (np.array([[1.0, 2.0], [1.0, 2.0]]), np.array([0, 1, 2]), "3 document labels for 2 items"),
        (np.ones((3, 4)), None, "item scores of shape (3, 4) for 2 systems"),
    ],
)
def test_bad_item_scores_are_input_errors(scores, documents, message) -> None:
    with pytest.raises(InputError, match="^ratings.tsv: ") as error:
        problem_from_item_scores(["a", "b"], scores, documents=documents, source="ratings.tsv")
    assert message in str(error.value)


def test_item_scores_need_two_resamples() -> None:
    with pytest.raises(InputError, match="at least 2 resamples are needed"):
        problem_from_item_scores(["a", "b"], np.ones((2, 5)), n_draws=1, source="ratings.tsv")


def test_a_system_rated_in_one_document_of_many_cannot_be_resampled_paired() -> None:
    scores = np.ones((2, 60))
    scores[1, 5:] = np.nan  # b: only the first document of twelve
    documents = np.repeat(np.arange(12), 5)
    with pytest.raises(InputError, match="system 'b' has no rated document in [0-9]+ of 200 resamples"):
        problem_from_item_scores(["a", "b"], scores, documents=documents, n_draws=200, rng=1)
    unpaired = problem_from_item_scores(
        ["a", "b"], scores, documents=documents, paired=False, n_draws=200, rng=1
    )
    assert unpaired.n_draws == 200


def test_recorded_draws_of_another_path_are_refused() -> None:
    draws = RecordedDraws({(None, 0): ((0, 1), np.zeros((10, 2)))}, 3)
    problem = _estimates(draws=draws)
    with pytest.raises(
        ValueError, match=r"needs populations \(0, 1, 2\), the recorded draws are of \(0, 1\)"
    ):
        simultaneous_sets(problem)
