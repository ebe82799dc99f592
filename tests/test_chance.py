"""Chance levels of the metrics-task statistics (mtsig.stats.meta_evaluation.chance).

Oracles: each task statistic's own function (calibrate_ties, grouped_correlation, pooled_pairwise_accuracy,
soft_pairwise_accuracy) applied, draw by draw, to the metric's scores relabelled explicitly (its systems and
segments moved by the inverse of the draw); the null's group enumerated with itertools on a small test set (every
permutation of the systems, every exchange of alike documents of a domain, every reordering of each document's
segments), its statistic computed from the definition (PDP: Pearson's r of the pairwise differences, DiIanni &
Deutsch 2025; the WMT20 Kendall-like tau, Mathur et al. 2020, as mt-metrics-eval's ``stats.KendallLike`` counts);
and simulations with known truth: random metrics drawn from generating models that are not the null's permutations
(a random offset per system plus noise; random offsets per document and per system and document plus noise) are
called above chance at 5% at most 5% of the time, within Monte Carlo error, while the cells permuted one by one (the
null this module replaced, drawn here with numpy) call them far more often.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from mtsig.errors import InputError
from mtsig.stats.meta_evaluation import chance
from mtsig.stats.meta_evaluation.grouped_correlation import CorrelationOptions, grouped_correlation
from mtsig.stats.meta_evaluation.pooled_accuracy import pooled_pairwise_accuracy
from mtsig.stats.meta_evaluation.soft_pairwise_accuracy import (
    pce_flips,
    permutation_counts,
    soft_pairwise_accuracy,
)
from mtsig.stats.meta_evaluation.tie_calibration import calibrate_ties


def _design(seed: int, systems: int = 6, documents: int = 8, size: int = 5, missing: float = 0.0):
    """MQM-like human scores (integers, many ties; a share ``missing`` of the cells unrated), documents of ``size``
    segments in two domains, and three metrics: two noisy copies of the human scores (one rounded: ties) and noise
    with a random offset per system."""
    rng = np.random.default_rng(seed)
    n = documents * size
    human = -np.round(rng.exponential(1.5, size=(systems, n)) + rng.exponential(1.0, size=(systems, 1)))
    human[rng.random((systems, n)) < missing] = np.nan
    filled = np.nan_to_num(human, nan=-1.0)
    metrics = np.stack(
        [
            filled + rng.normal(size=filled.shape),
            np.round(filled + rng.normal(size=filled.shape)),
            rng.normal(size=filled.shape) + rng.normal(0.0, 2.0, size=(systems, 1)),
        ]
    )
    docs = np.repeat(np.arange(documents), size)
    domains = (docs >= documents // 2).astype(np.int64)
    return human, metrics, docs, domains


def _relabelled(metric: np.ndarray, relabelling: chance.SystemSegmentRelabelling, b: int) -> np.ndarray:
    """The metric's scores with its systems and segments moved by the inverse of draw b: cell (rows[s], cols[n])
    gets the score of cell (s, n), so that each human score meets the metric score the draw pairs it with."""
    moved = np.empty_like(metric)
    moved[np.ix_(relabelling.rows[b], relabelling.cols[b])] = metric
    return moved


@pytest.mark.parametrize(("grouping", "missing"), [("item", 0.0), ("item", 0.2), ("none", 0.2), ("sys", 0.2)])
def test_tie_calibrated_chance_is_calibrate_ties_on_each_relabelling(grouping, missing):
    """Each draw is calibrate_ties' value, bit for bit, on the metric relabelled: one size of group (fully crossed)
    and several (cells unrated)."""
    human, metrics, docs, domains = _design(1, missing=missing)
    relabelling = chance.draw_relabellings(
        np.random.default_rng(5), np.isfinite(human), docs, 12, domains=domains
    )
    got = chance.chance_tie_calibrated(human, metrics, relabelling, grouping=grouping)
    for k, metric in enumerate(metrics):
        expected = [
            calibrate_ties(human, _relabelled(metric, relabelling, b), grouping=grouping).value
            for b in range(12)
        ]
        assert got[k].tolist() == expected
    tau = chance.chance_tie_calibrated(human, metrics, relabelling, grouping=grouping, variant="23")
    np.testing.assert_array_equal(tau, 2.0 * got - 1.0)


@pytest.mark.parametrize("grouping", ["item", "none", "sys"])
def test_pearson_pdp_and_kendall_chance_are_their_statistics_on_each_relabelling(grouping):
    """Pearson (one product), PDP (one product of the centred scores) and the grouped correlations computed on
    the relabelled matrices equal grouped_correlation of the explicitly relabelled metric, with the task's options
    passed on (a Kendall task with a tie threshold, a micro average and undefined groups as 0)."""
    human, metrics, docs, domains = _design(2, missing=0.2)
    relabelling = chance.draw_relabellings(
        np.random.default_rng(7), np.isfinite(human), docs, 10, domains=domains
    )
    options = {"kendall_variant": "b", "epsilon": 0.5, "average": "micro", "nan_groups": "zero"}
    pdp = chance.chance_pdp(human, metrics, grouping, relabelling)
    kendall = chance.chance_grouped_correlation(
        human, metrics, relabelling, CorrelationOptions("kendall", grouping, **options)
    )
    pearson = chance.chance_grouped_correlation(
        human, metrics, relabelling, CorrelationOptions("pearson", grouping)
    )
    for k, metric in enumerate(metrics):
        moved = np.stack([_relabelled(metric, relabelling, b) for b in range(10)])
        np.testing.assert_allclose(
            pdp[k],
            grouped_correlation(human, moved, CorrelationOptions("pearson", grouping, pdp=True)),
            atol=1e-12,
        )
        np.testing.assert_array_equal(
            kendall[k], grouped_correlation(human, moved, CorrelationOptions("kendall", grouping, **options))
        )
        np.testing.assert_allclose(
            pearson[k], grouped_correlation(human, moved, CorrelationOptions("pearson", grouping)), atol=1e-12
        )
    assert not np.array_equal(kendall[0], chance.chance_grouped_correlation(
        human, metrics, relabelling, CorrelationOptions("kendall", grouping))[0])  # fmt: skip
    assert np.unique(pdp[0]).size == 10  # the draws differ: the scores were relabelled


def test_system_level_chance_relabels_the_systems():
    """Pooled accuracy and SPA of the metrics with their systems relabelled: the statistics' own functions on the
    metric scores moved by the inverse of each draw's system permutation."""
    rng = np.random.default_rng(3)
    human = rng.normal(size=(5, 30)) + np.arange(5)[:, None] * 0.2
    metrics = np.stack([human + rng.normal(size=human.shape), rng.normal(size=human.shape)])
    flips = pce_flips(30)
    counts = chance.full_counts(permutation_counts(metrics, flips), permutation_counts(-metrics, flips), 5)
    rows = np.argsort(np.random.default_rng(9).random((8, 5)), axis=1)
    got = chance.chance_spa(permutation_counts(human, flips), counts, 1000, rows)
    for k, metric in enumerate(metrics):
        moved = np.empty_like(metric)
        expected = []
        for perm in rows:
            moved[perm] = metric
            expected.append(soft_pairwise_accuracy(human, moved, flips=flips))
        np.testing.assert_allclose(got[k], expected, rtol=0, atol=1e-15)
    humans = [np.array([3.0, 1.0, 2.0, 2.0]), np.array([0.5, 0.1, 0.3])]
    systems = [
        np.array([[0.3, 0.1, 0.2, 0.0], [1.0, 0.0, 0.0, 1.0]]),
        np.array([[1.0, 3.0, 2.0], [2.0, 1.0, 3.0]]),
    ]
    rows = [np.argsort(rng.random((7, m.shape[1])), axis=1) for m in systems]
    got = chance.chance_pooled_accuracy(humans, systems, rows)
    for k in range(2):
        for b in range(7):
            moved = [np.empty(m.shape[1]) for m in systems]
            for into, metric, perm in zip(moved, systems, rows, strict=True):
                into[perm[b]] = metric[k]
            assert got[k, b] == pooled_pairwise_accuracy(humans, moved)[0]


def test_relabellings_keep_the_rated_cells_domains_and_documents():
    """Every draw maps the rated cells onto the rated cells; a system only onto a system rated alike; a document's
    rated segments all onto one document of the same domain with as many rated segments, in their order after a
    reordering; an unrated segment onto itself."""
    rng = np.random.default_rng(4)
    docs = np.repeat(np.arange(10), [3, 3, 3, 2, 2, 4, 3, 3, 2, 5])
    domains = (docs >= 5).astype(np.int64)
    rated = np.ones((5, docs.size), dtype=bool)
    rated[:, [0, 7, 14]] = False  # segments nobody rated
    rated[4, 20:] = False  # a system rated on part of the segments
    relabelling = chance.draw_relabellings(rng, rated, docs, 300, domains=domains)
    seen_other_document = 0
    for rows, cols in zip(relabelling.rows, relabelling.cols, strict=True):
        assert np.array_equal(rated[np.ix_(rows, cols)], rated)
        assert rows[4] == 4 and sorted(rows) == list(range(5))
        assert sorted(cols) == list(range(docs.size)) and cols[0] == 0 and cols[7] == 7 and cols[14] == 14
        assert np.array_equal(domains[cols], domains)
        for d in range(10):
            mine = (docs == d) & rated.any(axis=0)
            assert np.unique(docs[cols[mine]]).size == 1  # one source document
            seen_other_document += int(docs[cols[mine]][0] != d)
    assert seen_other_document > 300  # documents are exchanged
    with pytest.raises(InputError, match="document labels"):
        chance.draw_relabellings(rng, rated, docs[:-1], 3)


#: Three systems rated on six segments in three documents: documents 0 and 1 (domain 0, two segments each) may be
#: exchanged, document 2 (domain 1) may not; the group has 3! x 2 x (2!)^3 = 96 elements. Segment 6, unrated, with a
#: metric score far off, must stay where it is.
SMALL_DOCS = np.array([0, 0, 1, 1, 2, 2, 2])
SMALL_DOMAINS = np.array([0, 0, 0, 0, 1, 1, 1])
SMALL_HUMAN = np.array(
    [
        [1.0, 4.0, 2.0, 0.0, 3.0, 1.0, np.nan],
        [2.0, 1.0, 5.0, 2.0, 0.0, 4.0, np.nan],
        [0.0, 3.0, 1.0, 1.0, 2.0, 2.0, np.nan],
    ]
)
SMALL_METRIC = np.array(
    [
        [0.5, 2.0, 1.0, 0.3, 0.9, 0.1, 100.0],
        [1.0, 0.0, 3.0, 0.2, 0.4, 1.5, 100.0],
        [2.0, 1.5, 0.7, 0.8, 0.6, 0.2, 100.0],
    ]
)


def _group_elements() -> list[tuple[tuple[int, ...], list[int]]]:
    """Every (system permutation, segment map) of the small test set's group, by itertools: the image of each
    segment under an exchange of documents 0 and 1 (or none) and a reordering of each document's rated segments."""
    elements = []
    blocks = [[0, 1], [2, 3], [4, 5]]
    for systems in itertools.permutations(range(3)):
        for exchange in ([0, 1, 2], [1, 0, 2]):
            for orders in itertools.product(*(itertools.permutations(block) for block in blocks)):
                segment_map = list(range(7))
                for d, block in enumerate(blocks):
                    for position, segment in zip(block, orders[exchange[d]], strict=True):
                        segment_map[position] = segment
                elements.append((systems, segment_map))
    return elements


def _pdp_by_definition(human: np.ndarray, metric: np.ndarray) -> float:
    """PDP (DiIanni & Deutsch 2025) grouped by item: Pearson's r of the human and metric differences of every
    ordered pair of distinct rated cells of the same segment."""
    dh, dm = [], []
    for n in range(human.shape[1]):
        rated = [s for s in range(human.shape[0]) if np.isfinite(human[s, n])]
        for a, b in itertools.permutations(rated, 2):
            dh.append(human[a, n] - human[b, n])
            dm.append(metric[a, n] - metric[b, n])
    return float(np.corrcoef(dh, dm)[0, 1])


def _kendall_like_by_definition(human: np.ndarray, metric: np.ndarray, threshold: float) -> float:
    """The WMT20 Kendall-like tau without grouping (Mathur et al. 2020; mt-metrics-eval's ``stats.KendallLike``):
    over the pairs of rated cells whose human scores differ by at least ``threshold``, (C - D) / (C + D), a metric
    tie discordant."""
    cells = [(s, n) for s in range(human.shape[0]) for n in range(human.shape[1]) if np.isfinite(human[s, n])]
    concordant = discordant = 0
    for a, b in itertools.combinations(cells, 2):
        diff = human[a] - human[b]
        if abs(diff) >= threshold:
            if (diff > 0 and metric[a] > metric[b]) or (diff < 0 and metric[a] < metric[b]):
                concordant += 1
            else:
                discordant += 1
    return (concordant - discordant) / (concordant + discordant)


def _assert_draws_follow(draws: np.ndarray, exact: np.ndarray) -> None:
    """The draws take only the enumeration's values (to 1e-9), each as often as the enumeration says (chi-square
    test at 0.001, the values expected fewer than 5 times pooled into one class)."""
    support, counts = np.unique(np.round(exact, 12), return_counts=True)
    nearest = np.abs(draws[:, None] - support[None, :]).argmin(axis=1)
    np.testing.assert_allclose(draws, support[nearest], rtol=0, atol=1e-9)  # no value outside the enumeration
    observed = np.bincount(nearest, minlength=support.size)
    expected = counts / counts.sum() * draws.size
    rare = expected < 5
    if rare.any():
        observed = np.append(observed[~rare], observed[rare].sum())
        expected = np.append(expected[~rare], expected[rare].sum())
    assert stats.chisquare(observed, expected).pvalue > 0.001


@pytest.mark.parametrize("statistic", ["pdp", "kendall_like"])
def test_chance_draws_the_exact_distribution_over_the_group(statistic):
    """Every element of the small test set's group (96, enumerated with itertools) relabels the metric, and the
    statistic is computed from its definition: 20,000 draws take only those values, as often as the enumeration
    says."""
    if statistic == "pdp":
        of = _pdp_by_definition
    else:
        of = lambda human, metric: _kendall_like_by_definition(human, metric, 1.5)  # noqa: E731
    exact = np.array([of(SMALL_HUMAN, SMALL_METRIC[np.ix_(rows, cols)]) for rows, cols in _group_elements()])
    assert np.unique(np.round(exact, 12)).size >= 10  # a distribution, not one value
    relabelling = chance.draw_relabellings(
        np.random.default_rng(11), np.isfinite(SMALL_HUMAN), SMALL_DOCS, 20_000, domains=SMALL_DOMAINS
    )
    if statistic == "pdp":
        draws = chance.chance_pdp(SMALL_HUMAN, SMALL_METRIC[None], "item", relabelling)[0]
    else:
        draws = chance.chance_grouped_correlation(
            SMALL_HUMAN,
            SMALL_METRIC[None],
            relabelling,
            CorrelationOptions("kendall_like", "none", threshold=1.5),
        )[0]
    _assert_draws_follow(draws, exact)


def test_chance_pvalues_count_each_metrics_own_draws():
    draws = np.array([[0.1, 0.2, 0.2, 0.5], [0.0, 0.0, 0.0, 0.0]])
    assert chance.chance_pvalues(np.array([0.2, 0.0]), draws).tolist() == [4 / 5, 5 / 5]
    assert chance.chance_pvalues(np.array([0.6, 0.1]), draws).tolist() == [1 / 5, 1 / 5]
    mean, upper = chance.chance_summary(np.arange(101.0).reshape(1, -1))
    assert (mean, upper) == (50.0, 95.0)
    with pytest.raises(InputError, match="draws"):
        chance.chance_pvalues(np.array([0.2]), draws)


def test_chance_refuses_what_it_cannot_draw():
    human, metrics, docs, _ = _design(9)
    relabelling = chance.draw_relabellings(np.random.default_rng(0), np.isfinite(human), docs, 4)
    with pytest.raises(InputError, match=r"metrics \[M, S, N\]"):
        chance.chance_pearson(human, metrics[0], relabelling)
    with pytest.raises(InputError, match="tie calibration optimises"):
        chance.chance_tie_calibrated(human, metrics, relabelling, variant="tau_b")
    broken = metrics.copy()
    broken[0, 0, 0] = np.nan
    with pytest.raises(InputError, match="finite"):
        chance.chance_tie_calibrated(human, broken, relabelling)
    constant = np.broadcast_to(np.arange(human.shape[1], dtype=float), human.shape)[
        None
    ]  # one value per item
    assert chance.chance_pdp(human, constant, "item", relabelling).tolist() == [[0.0] * 4]


# --- known truth: random metrics with structure ------------------------------------------------------------------


def _known_truth_design(seed: int = 21):
    """Eight systems, 18 documents of 2 to 6 segments in two domains, MQM-like human scores with a quality per
    system and per document (rounded: ties)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 7, size=18)
    docs = np.repeat(np.arange(18), sizes)
    domains = (docs % 2).astype(np.int64)
    quality = rng.normal(0.0, 1.5, size=(8, 1)) + rng.normal(0.0, 1.5, size=18)[docs]
    human = np.round(quality + rng.normal(0.0, 2.0, size=(8, docs.size)))
    return human, docs, domains


def _random_metric(
    model: str, docs: np.ndarray, shape: tuple[int, int], rng: np.random.Generator
) -> np.ndarray:
    """A metric that knows nothing: ``system`` a N(0, 3²) offset per system plus N(0, 2²) noise (Random-sysname's
    structure); ``document`` N(0, 2²) offsets per document, shared and per system, plus N(0, 2²) noise."""
    noise = rng.normal(0.0, 2.0, size=shape)
    if model == "system":
        return noise + rng.normal(0.0, 3.0, size=(shape[0], 1))
    offsets = rng.normal(0.0, 2.0, size=docs.max() + 1) + rng.normal(
        0.0, 2.0, size=(shape[0], docs.max() + 1)
    )
    return noise + offsets[:, docs]


def _cells_permuted(rng: np.random.Generator, shape: tuple[int, int], grouping: str, n_draws: int):
    """The null this module replaced, drawn with numpy: the cells permuted independently in every draw, within each
    item (``item``) or among all cells (``none``)."""
    s, n = shape
    index = np.arange(s * n).reshape(s, n)
    if grouping == "none":
        return chance.ExplicitRelabelling(np.stack([rng.permutation(s * n) for _ in range(n_draws)]))
    return chance.ExplicitRelabelling(np.stack([rng.permuted(index, axis=0).ravel() for _ in range(n_draws)]))


@pytest.mark.parametrize("model", ["system", "document"])
def test_structured_random_metrics_are_called_above_chance_five_percent_of_the_time(model):
    """Known truth: 300 random metrics of a generating model that is not the null's own permutation (module
    docstring), each tested against its own 99 draws: the share with p <= 0.05 is at most 5% within Monte Carlo
    error (a one-sided binomial test does not reject at 0.001) for Pearson without grouping, acc-t and PDP by item;
    the cells permuted one by one call the random-by-system metrics above chance far more often (more than 15%)."""
    human, docs, domains = _known_truth_design()
    rated = np.isfinite(human)
    rng = np.random.default_rng(22 if model == "system" else 23)
    called = {name: 0 for name in ("pearson", "acc-t", "pdp", "pearson, cells", "pdp, cells")}
    for _ in range(300):
        metric = _random_metric(model, docs, human.shape, rng)[None]
        relabelling = chance.draw_relabellings(rng, rated, docs, 99, domains=domains)
        draws = {
            "pearson": (grouped_correlation(human, metric, CorrelationOptions("pearson")), chance.chance_pearson(human, metric, relabelling)),
            "acc-t": (np.array([calibrate_ties(human, metric[0]).value]),
                      chance.chance_tie_calibrated(human, metric, relabelling)),
            "pdp": (grouped_correlation(human, metric, CorrelationOptions("pearson", "item", pdp=True)),
                    chance.chance_pdp(human, metric, "item", relabelling)),
        }  # fmt: skip
        if model == "system":
            cells = _cells_permuted(rng, human.shape, "none", 99)
            draws["pearson, cells"] = (draws["pearson"][0], chance.chance_pearson(human, metric, cells))
            within = _cells_permuted(rng, human.shape, "item", 99)
            draws["pdp, cells"] = (draws["pdp"][0], chance.chance_pdp(human, metric, "item", within))
        for name, (value, null) in draws.items():
            called[name] += int(chance.chance_pvalues(np.atleast_1d(value), null)[0] <= 0.05)
    for name in ("pearson", "acc-t", "pdp"):
        assert stats.binomtest(called[name], 300, 0.05, alternative="greater").pvalue > 0.001, (name, called)
    if model == "system":
        assert called["pearson, cells"] > 45 and called["pdp, cells"] > 45, called
