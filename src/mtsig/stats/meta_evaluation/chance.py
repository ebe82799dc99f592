"""Chance levels of the metrics-task statistics: what a metric that knows nothing about the translations scores.

The null hypothesis: the metric's scores ``M[S, N]`` are independent of the human scores ``H``, and their joint law
does not change when the cells are relabelled by the null's group: the systems relabelled (whole rows), the documents
of a domain exchanged among those rated alike, the segments of each document reordered (the same order for every
system). A metric that draws a random quality per system, per domain, per document, per system and document, per
segment, or for every cell, and any sum of these, satisfies it: WMT's ``Random-sysname`` baseline (Freitag et al.
2023, Sec. 4) is one such metric, a random mean per system and a random score around it. Each draw relabels the
cells by a uniformly drawn element of the group and computes the statistic; every relabelled metric has the
metric's own law, so the statistic's distribution over the draws is its chance level, and a metric's rank among its
own draws is a permutation p-value that holds its level whatever the metric's system, domain, document and segment
structure (the permutation test of "no association", Pitman 1937, over the group the null leaves invariant).
Permuting cells one by one, within an item or across the table, is no such relabelling when a metric's scores share
a random offset per system: it averages away the offsets' chance alignment with the humans' system means, and a
random-by-system metric is then called above chance far more often than 5% (docs/statistics.md, "Chance levels").
The domains (two to four per language pair) are never exchanged: a test set with so few cannot tell a metric that
knows which domain is worse from one that is lucky.

A relabelling keeps which cells have a human score: systems are exchanged only among systems rated on the same
segments, documents only among documents of the same domain with as many segments rated for each set of systems,
segments only among segments of the same document rated for the same systems (:func:`exchangeable_classes`,
:func:`document_exchange`). It maps an item to an item and a system to a system, so it maps the groups of every
grouping (``none``, ``item``, ``sys``) onto groups of the same size: relabelling the metric by ``g`` and the human
scores by ``g⁻¹`` give the same pairs ``(h, m)`` in the same groups, so each draw relabels the human side once, for
every metric at once (Pearson and PDP: the cross products of every metric with each relabelled human side, in
compiled loops that add the cells in a fixed order, :func:`~mtsig.stats.meta_evaluation.chance_compiled.
relabelled_products`, so the draws have the same bits on every machine, as a matrix product's would not; tie
calibration: the metric's pairs sorted once). Each
function returns ``[M, B]``: metric m's statistic in draw b. The chance level is not a constant: it depends on the
metric's own structure (the spread of its system means, its ties: tie calibration lets a random metric declare ties
where that pays, Deutsch, Foster & Freitag 2023, Sec. 5), so each metric's p-value comes from its own draws
(:func:`chance_pvalues`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from mtsig.errors import InputError
from mtsig.stats.meta_evaluation.grouped_correlation import (
    DEFAULT_CORRELATION,
    CorrelationOptions,
    as_groups,
    checked_scores,
    grouped_correlation,
    pdp_terms,
)
from mtsig.stats.meta_evaluation.pooled_accuracy import pooled_pairwise_accuracy
from mtsig.stats.meta_evaluation.soft_pairwise_accuracy import spa_from_counts
from mtsig.stats.meta_evaluation.tie_calibration import TIE_VARIANTS, group_pairs, pair_differences

#: Draws whose relabelled scores are held at once (memory: CHUNK x the task's cells per metric).
CHUNK = 100


class CellRelabelling(Protocol):
    """Draws of relabelled cells of an ``[S, N]`` table: in draw b, cell c (flat, system-major) reads its human
    score from cell ``sources_at(cells, b, b + 1)[0, k]`` where ``cells[k] = c``."""

    n_draws: int

    def sources_at(self, cells: np.ndarray, start: int, stop: int) -> np.ndarray:
        """int ``[stop - start, K]``: the source cell of ``cells[K]`` (flat) in draws ``start .. stop - 1``."""
        ...


@dataclass(frozen=True)
class SystemSegmentRelabelling:
    """Draws of the null's group (module docstring): ``rows[B, S]``, ``cols[B, N]``; in draw b cell (s, n) reads its
    human score from cell ``(rows[b, s], cols[b, n])`` (the metric's systems and segments relabelled by the
    inverse)."""

    rows: np.ndarray
    cols: np.ndarray

    @property
    def n_draws(self) -> int:
        return int(self.rows.shape[0])

    def sources_at(self, cells: np.ndarray, start: int, stop: int) -> np.ndarray:
        n = self.cols.shape[1]
        return self.rows[start:stop, cells // n] * n + self.cols[start:stop, cells % n]

    def inverse(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, cols)`` of draws ``start .. stop - 1`` inverted: the metric relabelled, ``M[rows][:, cols]``."""
        return np.argsort(self.rows[start:stop], axis=1), np.argsort(self.cols[start:stop], axis=1)


@dataclass(frozen=True)
class ExplicitRelabelling:
    """Draws given cell by cell: ``source[B, S·N]`` (for permutations that are not the null's group, e.g. cells
    permuted within items, to measure what they do)."""

    source: np.ndarray

    @property
    def n_draws(self) -> int:
        return int(self.source.shape[0])

    def sources_at(self, cells: np.ndarray, start: int, stop: int) -> np.ndarray:
        return self.source[start:stop, cells]


def _labels(rows: np.ndarray) -> np.ndarray:
    """int ``[R]``: the same number for equal rows of the bool ``rows[R, C]`` (their packed bytes compared)."""
    packed = np.packbits(rows, axis=1)
    keys = np.ascontiguousarray(packed).view(np.dtype((np.void, packed.shape[1])))[:, 0]
    return np.unique(keys, return_inverse=True)[1].ravel()


def exchangeable_classes(
    rated: np.ndarray, documents: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(row_class[S], col_class[N], pattern[N])``: the systems a relabelling may exchange (those rated on the same
    segments), the segments it may reorder within a document (those of the same document rated for the same
    systems; a segment rated for none stays where it is) and each segment's pattern of rated systems (-1: none)."""
    rated = np.asarray(rated, dtype=bool)
    documents = np.asarray(documents)
    if documents.shape != (rated.shape[1],):
        raise InputError(f"{documents.size} document labels for {rated.shape[1]} segments")
    row_class = _labels(rated)
    pattern = np.where(rated.any(axis=0), _labels(rated.T), -1)
    document = np.unique(documents, return_inverse=True)[1].ravel().astype(np.int64)
    key = (
        document * (pattern.max() + 2) + pattern + 1
    )  # (document, pattern); a segment rated for none: its own
    key = np.where(pattern < 0, -1 - np.arange(pattern.size), key)
    return row_class, np.unique(key, return_inverse=True)[1].ravel(), pattern


def permutations_within(keys: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """int ``[B, L]``: for each row of ``keys[B, L]`` (uniform on [0, 1)) a uniform random permutation of the
    positions that maps each class onto itself: ``perm[b, home] = source``, the class's positions in increasing order
    receiving them in the order of their keys."""
    classes = np.asarray(classes, dtype=np.int64)
    home = np.argsort(classes, kind="stable")
    order = np.argsort(classes.astype(np.float64) + keys, axis=1, kind="stable")
    perm = np.empty_like(order)
    perm[:, home] = order
    return perm


def document_exchange(
    rng: np.random.Generator, documents: np.ndarray, domains: np.ndarray, pattern: np.ndarray, n_draws: int
) -> np.ndarray:
    """int ``[B, N]``: in each draw, each document reads its rated segments from a document drawn uniformly among
    those of the same domain with as many segments of each rated pattern (itself included), the k-th segment of a
    pattern from the k-th of the same pattern; a segment rated for no system reads itself."""
    segments = np.flatnonzero(pattern >= 0)
    _, doc = np.unique(np.asarray(documents)[segments], return_inverse=True)
    _, pat = np.unique(pattern[segments], return_inverse=True)
    doc, pat = doc.ravel(), pat.ravel()
    order = np.lexsort((segments, pat, doc))  # by document, then pattern, then position
    segments, doc, pat = segments[order], doc[order], pat[order]
    n_docs, n_patterns = int(doc.max()) + 1, int(pat.max()) + 1
    counts = np.zeros((n_docs, n_patterns), dtype=np.int64)
    np.add.at(counts, (doc, pat), 1)
    block_start = np.r_[0, np.cumsum(counts.ravel())[:-1]].reshape(n_docs, n_patterns)
    rank = np.arange(segments.size) - block_start[doc, pat]
    domain = np.unique(np.asarray(domains)[segments], return_inverse=True)[1].ravel()
    first_domain = np.zeros(n_docs, dtype=np.int64)
    first_domain[doc] = domain
    _, doc_class = np.unique(np.column_stack([first_domain, counts]), axis=0, return_inverse=True)
    exchange = permutations_within(rng.random((n_draws, n_docs)), doc_class.ravel())  # [B, D]
    source = np.broadcast_to(np.arange(pattern.size), (n_draws, pattern.size)).copy()
    source[:, segments] = segments[block_start[exchange[:, doc], pat] + rank]
    return source


def draw_relabellings(
    rng: np.random.Generator,
    rated: np.ndarray,
    documents: np.ndarray,
    n_draws: int,
    *,
    domains: np.ndarray | None = None,
) -> SystemSegmentRelabelling:
    """``n_draws`` uniform draws of the null's group (module docstring) for a table whose human scores exist where
    ``rated[S, N]``, segment n in document ``documents[n]`` of domain ``domains[n]`` (None: one domain): the
    systems exchanged among those rated alike, the documents among those of the same domain rated alike
    (:func:`document_exchange`), the segments of each document among those rated alike. The systems' keys are drawn
    first (``[B, S]``), so a system-level table of the same systems (``N = 1``) gets the same system permutations
    from the same generator."""
    row_class, col_class, pattern = exchangeable_classes(rated, documents)
    rows = permutations_within(rng.random((n_draws, row_class.size)), row_class)
    within = permutations_within(rng.random((n_draws, col_class.size)), col_class)
    if pattern.max() < 0:  # no segment has a human score: nothing to exchange
        return SystemSegmentRelabelling(rows, within)
    domains = np.zeros(pattern.size, dtype=np.int64) if domains is None else np.asarray(domains)
    if domains.shape != pattern.shape:
        raise InputError(f"{domains.size} domain labels for {pattern.size} segments")
    exchanged = document_exchange(rng, documents, domains, pattern, n_draws)
    return SystemSegmentRelabelling(rows, np.take_along_axis(within, exchanged, axis=1))


def _chunks(n_draws: int, size: int = CHUNK) -> list[tuple[int, int]]:
    return [(start, min(start + size, n_draws)) for start in range(0, n_draws, size)]


def _metric_stack(human: np.ndarray, metrics: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(human[S, N], metrics[M, S, N])`` as float arrays; metric scores must be finite where a human score is."""
    h = np.asarray(human, dtype=np.float64)
    m = np.asarray(metrics, dtype=np.float64)
    if h.ndim != 2 or m.ndim != 3 or m.shape[1:] != h.shape:
        raise InputError(f"chance levels: metrics [M, S, N] like the human {h.shape}, got {m.shape}")
    if not np.isfinite(m[:, np.isfinite(h)]).all():
        raise InputError(
            "chance levels: every metric score of a cell with a human score must be a finite number"
        )
    return h, m


def chance_pearson(human: np.ndarray, metrics: np.ndarray, relabelling: CellRelabelling) -> np.ndarray:
    """``[M, B]``: Pearson's r over every rated cell (no grouping; at the system level, ``N = 1``, the systems) of
    each of ``metrics[M, S, N]`` against the relabelled ``human[S, N]`` (NaN: not rated): the cross products of the
    centred scores, the cells added in a fixed order (:func:`~mtsig.stats.meta_evaluation.chance_compiled.relabelled_products`). 0 where a
    side is constant (as the statistic averages an undefined group)."""
    from mtsig.stats.meta_evaluation.chance_compiled import relabelled_products

    h, m = _metric_stack(human, metrics)
    rated = np.isfinite(h).ravel()
    cells = np.flatnonzero(rated)
    hc = np.where(rated, h.ravel(), 0.0)
    hc[rated] -= hc[rated].mean()
    mc = m.reshape(m.shape[0], -1)[:, rated]
    mc = mc - mc.mean(axis=1, keepdims=True)
    scale = np.sqrt((hc * hc).sum() * (mc * mc).sum(axis=1))  # numpy's sums, not BLAS's (module docstring)
    out = np.zeros((m.shape[0], relabelling.n_draws))
    for start, stop in _chunks(relabelling.n_draws):
        out[:, start:stop] = relabelled_products(mc, hc, relabelling.sources_at(cells, start, stop))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = out / scale[:, None]
    return np.where(scale[:, None] > 0, np.clip(r, -1.0, 1.0), 0.0)


def chance_pdp(
    human: np.ndarray, metrics: np.ndarray, grouping: str, relabelling: CellRelabelling
) -> np.ndarray:
    """``[M, B]``: the Pairwise Difference Pearson of DiIanni & Deutsch (2025, "Don't Sweat the Small Stuff:
    Segment-Level Meta-Evaluation Based on Pairwise Difference Correlation"; mt-metrics-eval's ``Pearson(...,
    pdp=True)``) of each of ``metrics[M, S, N]`` against the relabelled ``human[S, N]`` (NaN: not rated), the pairs
    taken within the groups of ``grouping``; 0 where PDP is undefined, as ``grouped_correlation`` returns it.

    A relabelling maps each group onto a group of the same size, so the human scores centred within their groups
    (:func:`~mtsig.stats.meta_evaluation.grouped_correlation.pdp_terms`) are centred once and relabelled, the sums
    of squares stay, and ``Σ dh dm`` (each group's centred cross products weighted by its size) is one sum of
    products per metric and draw (:func:`~mtsig.stats.meta_evaluation.chance_compiled.relabelled_products`)."""
    from mtsig.stats.meta_evaluation.chance_compiled import relabelled_products

    h, m = checked_scores(human, metrics)
    if m.ndim != 3:
        raise InputError(f"PDP's chance level: metrics [M, S, N], got shape {m.shape}")
    human_groups = as_groups(h, grouping)
    valid = np.isfinite(human_groups)
    human_centred, metric_centred, sizes, undefined = pdp_terms(
        np.where(valid, human_groups, 0.0), as_groups(m, grouping), valid
    )
    weighted = (metric_centred * sizes[:, None]).reshape(m.shape[0], -1)  # [M, G·L], in the groups' layout
    used = np.flatnonzero(valid.ravel())
    layout = as_groups(np.arange(h.size).reshape(h.shape), grouping).ravel()  # group cell -> table cell
    hc = np.zeros(h.size)
    hc[layout] = human_centred.ravel()
    sxx = ((metric_centred * metric_centred).sum(axis=-1) * sizes).sum(axis=-1)
    syy = float(((human_centred * human_centred).sum(axis=-1) * sizes).sum())
    out = np.empty((m.shape[0], relabelling.n_draws))
    for start, stop in _chunks(relabelling.n_draws):
        out[:, start:stop] = relabelled_products(
            weighted[:, used], hc, relabelling.sources_at(layout[used], start, stop)
        )
    with np.errstate(invalid="ignore", divide="ignore"):
        r = out / np.sqrt(sxx * syy)[:, None]
    return np.where(undefined[:, None], 0.0, np.nan_to_num(np.clip(r, -1.0, 1.0), nan=0.0))


def chance_grouped_correlation(
    human: np.ndarray,
    metrics: np.ndarray,
    relabelling: SystemSegmentRelabelling,
    options: CorrelationOptions = DEFAULT_CORRELATION,
) -> np.ndarray:
    """``[M, B]``: the grouped correlation (:func:`~mtsig.stats.meta_evaluation.grouped_correlation.
    grouped_correlation` with ``options``, :class:`~mtsig.stats.meta_evaluation.grouped_correlation.
    CorrelationOptions`) of each of ``metrics[M, S, N]`` relabelled by each draw's inverse, against ``human[S, N]``
    (NaN: not rated). ``options.kind``: Pearson, Spearman, Kendall or the WMT20 Kendall-like tau
    (``kendall_like``, Mathur et al. 2020; mt-metrics-eval's ``KendallLike``). Pearson without grouping is
    :func:`chance_pearson`; the others call ``grouped_correlation`` on the relabelled matrices ``[chunk, S, N]`` of
    one metric at a time."""
    if options.kind == "pearson" and options.grouping == "none":
        return chance_pearson(human, metrics, relabelling)
    h, m = _metric_stack(human, metrics)
    out = np.empty((m.shape[0], relabelling.n_draws))
    for start, stop in _chunks(relabelling.n_draws, CHUNK // 2):
        rows, cols = relabelling.inverse(start, stop)
        for k, metric in enumerate(m):
            relabelled = metric[rows[:, :, None], cols[:, None, :]]  # [b, S, N]
            out[k, start:stop] = grouped_correlation(h, relabelled, options)
    return out


def chance_tie_calibrated(
    human: np.ndarray,
    metrics: np.ndarray,
    relabelling: CellRelabelling,
    *,
    variant: str = "acc23",
    grouping: str = "item",
) -> np.ndarray:
    """``[M, B]``: the tie-calibrated statistic (:func:`mtsig.stats.meta_evaluation.tie_calibration.calibrate_ties`,
    every pair, its own epsilon searched on each draw) of each of ``metrics[M, S, N]`` against the relabelled
    ``human[S, N]``.

    The human scores' ranks (only their comparisons count) of every draw are laid side by side once,
    ``[cells, B]``; each metric's pairs are sorted by ``|dm|`` once, and the compiled search
    (:func:`mtsig.stats.meta_evaluation.chance_compiled.calibrated_draws`) forms each draw's statistic at every
    candidate epsilon with the integer sums and the divisions of :func:`calibrate_ties`: the first maximum."""
    if variant not in TIE_VARIANTS:
        raise InputError(f"tie calibration optimises {' or '.join(TIE_VARIANTS)}, not {variant!r}")
    h, m = _metric_stack(human, metrics)
    pairs = group_pairs(h, grouping)
    if pairs.group.size == 0:
        raise InputError("tie calibration: no group has two cells with a human score")
    width = as_groups(h, grouping).shape[-1]
    layout = as_groups(np.arange(h.size).reshape(h.shape), grouping).reshape(-1)
    cells, compact = np.unique(
        layout[np.concatenate([pairs.group * width + pairs.first, pairs.group * width + pairs.second])],
        return_inverse=True,
    )
    first, second = compact[: pairs.group.size], compact[pairs.group.size :]
    from mtsig.stats.meta_evaluation.chance_compiled import calibrated_draws, rank_dtype

    distinct, ranks = np.unique(np.where(np.isfinite(h), h, np.inf), return_inverse=True)
    ranks = ranks.ravel().astype(rank_dtype(distinct.size))
    permuted = np.empty((cells.size, relabelling.n_draws), dtype=ranks.dtype)
    for start, stop in _chunks(relabelling.n_draws):
        permuted[:, start:stop] = ranks[relabelling.sources_at(cells, start, stop)].T
    _, inverse, sizes = np.unique(pairs.group, return_inverse=True, return_counts=True)

    out = np.empty((m.shape[0], relabelling.n_draws))
    for k, metric in enumerate(m):
        dm = pair_differences(metric, pairs, grouping)
        order = np.argsort(np.abs(dm), kind="stable")  # the pairs in increasing |dm|, once for every draw
        distance = np.abs(dm)[order]
        size_classes, size_class = np.unique(sizes[inverse][order], return_inverse=True)
        run_end = np.ones(
            distance.size, dtype=bool
        )  # a candidate epsilon: the last pair of a run of equal |dm|
        run_end[:-1] = distance[1:] != distance[:-1]
        out[k] = calibrated_draws(
            permuted, first[order], second[order], dm[order] == 0, np.sign(dm[order]), size_class,
            size_classes.astype(np.float64) * sizes.size, run_end, bool(distance[0] > 0),
        )  # fmt: skip
    return out if variant == "acc23" else 2.0 * out - 1.0


def chance_pooled_accuracy(
    humans: list[np.ndarray], metrics: list[np.ndarray], rows: list[np.ndarray]
) -> np.ndarray:
    """``[M, B]``: pooled pairwise accuracy (:func:`mtsig.stats.meta_evaluation.pooled_accuracy.
    pooled_pairwise_accuracy`) of the metrics' system scores ``metrics[l][M, S_l]`` with the systems of each
    language pair l relabelled (``rows[l][B, S_l]``: system s reads the human score of system ``rows[l][b, s]``)."""
    relabelled = []
    for metric, perm in zip(metrics, rows, strict=True):
        inverse = np.argsort(perm, axis=1)
        relabelled.append(np.asarray(metric, dtype=np.float64)[:, inverse])  # [M, B, S_l]
    values, _ = pooled_pairwise_accuracy(list(humans), relabelled)
    return np.asarray(values, dtype=np.float64)


def full_counts(upper: np.ndarray, lower: np.ndarray, n_systems: int) -> np.ndarray:
    """``int64[..., S, S]``: ``C[u, v]`` the permutation count of "u better than v" for every ordered pair, from the
    counts of the pairs ``u < v`` (``upper[..., P]``, ``np.triu_indices`` order) and of the same pairs reversed
    (``lower``: the counts of ``-scores``, :func:`mtsig.stats.meta_evaluation.soft_pairwise_accuracy.
    permutation_counts`)."""
    i, j = np.triu_indices(n_systems, k=1)
    counts = np.zeros((*np.shape(upper)[:-1], n_systems, n_systems), dtype=np.int64)
    counts[..., i, j] = upper
    counts[..., j, i] = lower
    return counts


def chance_spa(
    human_counts: np.ndarray, metric_counts: np.ndarray, n_permutations: int, rows: np.ndarray
) -> np.ndarray:
    """``[M, B]``: soft pairwise accuracy (:func:`mtsig.stats.meta_evaluation.soft_pairwise_accuracy.
    spa_from_counts`) of each metric with its systems relabelled (``rows[B, S]``: system s reads the human score
    of system ``rows[b, s]``, so system ``rows[b, s]`` gets the metric's row of system s); ``metric_counts[M, S, S]``
    (:func:`full_counts`)."""
    n_systems = metric_counts.shape[-1]
    i, j = np.triu_indices(n_systems, k=1)
    inverse = np.argsort(rows, axis=1)
    relabelled = metric_counts[:, inverse[:, i], inverse[:, j]]  # [M, B, P]
    return spa_from_counts(np.asarray(human_counts, dtype=np.int64), relabelled, n_permutations)


def chance_summary(draws: np.ndarray, quantile: float = 0.95) -> tuple[float, float]:
    """``(mean, q)``: the mean and ``quantile`` (numpy's linear interpolation) of all ``draws``."""
    d = np.asarray(draws, dtype=np.float64)
    return float(d.mean()), float(np.quantile(d, quantile))


def chance_pvalues(values: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """``(1 + #{b: draws[m, b] >= values[m]}) / (1 + B)`` for each metric m, against its own draws ``[M, B]``: the
    p-value of "above chance" (Phipson & Smyth 2010, a permutation p-value that is never 0)."""
    d = np.asarray(draws, dtype=np.float64)
    v = np.asarray(values, dtype=np.float64)
    if d.ndim != 2 or d.shape[0] != v.size:
        raise InputError(f"chance p-values: draws [M, B] for {v.size} values, got shape {d.shape}")
    at_least = (d >= v[:, None]).sum(axis=1)
    return (1.0 + at_least) / (1.0 + d.shape[1])
