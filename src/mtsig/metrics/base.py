"""The interface every metric implements: per-segment sufficient statistics and the score of their sum.

The randomized tests of Graham, Mathur & Baldwin (2014, Sec. 2, Figs. 1-4) recompute a *corpus-level* metric on
thousands of resampled or shuffled test sets. For BLEU-like metrics that score is not a mean of segment scores,
so each metric here splits into (Koehn 2004, Sec. 4; sacrebleu's design):

- ``stats(hyps, refs) -> [N, k]``: the additive sufficient statistics of each segment, and
- ``score(stats[..., k]) -> [...]``: the corpus score of statistics already *summed* over segments,
  vectorised over any leading batch shape so that a resampled set is one matrix product away.

The contract, tested for every metric: ``score(stats(hyps, refs).sum(0))`` is the metric's corpus score.

References: ``refs`` is one reference per segment (``N`` strings). A metric with ``multi_reference = True`` also
takes several references per segment as reference *streams*, sacrebleu's layout: ``R`` sequences of ``N`` strings,
``refs[r][i]`` being reference ``r`` of segment ``i`` (:func:`reference_streams`). Its statistics keep the same
columns, so resampling and ``score`` do not depend on ``R``. An empty string in a stream is no reference
(sacrebleu's rule), so segments may have different numbers of references. Every other metric rejects streams with an
:class:`InputError` rather than misreading them.
"""

from __future__ import annotations

import multiprocessing
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, ClassVar

import numpy as np

from mtsig.errors import InputError

#: The references of every metric's ``refs``: one reference per segment, or reference streams (module docstring).
References = Sequence[str] | Sequence[Sequence[str]]


class Metric(ABC):
    """A corpus-level MT metric decomposed into additive per-segment statistics.

    Subclasses set ``name``, ``higher_is_better`` and ``stat_names`` (the ``k`` columns), keep every
    constructor argument in ``self.options`` (so a worker process can rebuild the metric with
    :func:`mtsig.metrics.get_metric`), and implement :meth:`stats`, :meth:`score` and :meth:`details`.
    """

    name: ClassVar[str]
    higher_is_better: ClassVar[bool] = True
    #: True when a segment's statistics depend on its own hypothesis and reference only (BLEU, chrF, TER; not NIST,
    #: whose information weights come from the whole reference set), so that :meth:`stats_many` scores each
    #: distinct (segment, hypothesis) once: systems often share outputs (8% of WMT12 es-en's).
    segment_local: ClassVar[bool] = False
    #: True when :meth:`stats` and :meth:`stats_many` accept several references per segment as reference streams
    #: (module docstring); False: exactly one reference string per segment.
    multi_reference: ClassVar[bool] = False
    #: The number of references of the statistics last computed, which :meth:`details` of a multi-reference metric
    #: names; :meth:`stats_many` records it here because the statistics may be computed in worker processes.
    _n_references: int = 1

    def __init__(self, **options: Any) -> None:
        self.options: dict[str, Any] = dict(options)

    @property
    @abstractmethod
    def stat_names(self) -> tuple[str, ...]:
        """Names of the ``k`` statistics columns, in order (recorded next to saved statistics)."""

    @abstractmethod
    def stats(self, hyps: Sequence[str], refs: References) -> np.ndarray:
        """Per-segment sufficient statistics, float64 of shape ``[N, k]``.

        ``refs``: one reference string per segment, or reference streams for a metric with
        :attr:`multi_reference` (module docstring).
        """

    @abstractmethod
    def score(self, stats: np.ndarray) -> np.ndarray:
        """Corpus score of summed statistics ``[..., k]``, vectorised over the leading shape ``[...]``."""

    @abstractmethod
    def details(self) -> str:
        """Every setting that changes a number (a signature in the spirit of sacrebleu's)."""

    def stats_many(
        self, systems: Mapping[str, Sequence[str]], refs: References, processes: int = 1
    ) -> np.ndarray:
        """Statistics of several systems against the same references: ``[S, N, k]`` in mapping order.

        With ``processes > 1`` the systems are spread over a pool of worker processes (``spawn`` start
        method, safe under threads and on every platform); each worker rebuilds this metric from its name
        and options, so the result is identical to the sequential one.
        """
        if self.multi_reference:
            self._n_references = len(reference_streams(refs))
        n_segments = check_parallel(systems, refs, multi_reference=self.multi_reference)
        names = list(systems)
        if self.segment_local and names:
            return self._distinct_segment_stats(systems, refs, processes)
        if processes <= 1 or len(names) <= 1:
            arrays = [self.stats(systems[name], refs) for name in names]
        else:
            context = multiprocessing.get_context("spawn")
            workers = min(processes, len(names))
            with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
                futures = [
                    pool.submit(_stats_in_worker, self.name, self.options, list(systems[name]), list(refs))
                    for name in names
                ]
                arrays = [future.result() for future in futures]
        return np.stack(arrays) if arrays else np.zeros((0, n_segments, len(self.stat_names)))

    def _distinct_segment_stats(
        self, systems: Mapping[str, Sequence[str]], refs: References, processes: int
    ) -> np.ndarray:
        """:meth:`stats_many` for segment-local metrics: each distinct (segment, hypothesis) is scored once, the
        distinct ones split into ``processes`` contiguous chunks, then scattered back to ``[S, N, k]``."""
        streams = reference_streams(refs) if self.multi_reference else [list(refs)]
        index, pairs = distinct_segment_hypotheses(systems, len(streams[0]))
        hyps = [hyp for _, hyp in pairs]
        seg_streams = [[stream[i] for i, _ in pairs] for stream in streams]
        bounds = chunk_bounds(len(hyps), processes)

        def chunk_refs(a: int, b: int) -> list[str] | list[list[str]]:
            # one stream stays one list of strings, so single-reference metrics see their usual input
            return seg_streams[0][a:b] if len(seg_streams) == 1 else [stream[a:b] for stream in seg_streams]

        chunks = [(hyps[a:b], chunk_refs(a, b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
        if len(chunks) == 1:
            parts = [self.stats(*chunks[0])]
        else:
            context = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(max_workers=len(chunks), mp_context=context) as pool:
                futures = [pool.submit(_stats_in_worker, self.name, self.options, h, r) for h, r in chunks]
                parts = [future.result() for future in futures]
        return np.concatenate(parts)[index]


def distinct_segment_hypotheses(
    systems: Mapping[str, Sequence[str]], n_segments: int
) -> tuple[np.ndarray, list[tuple[int, str]]]:
    """Each distinct ``(segment index, hypothesis)`` pair once, in order of first occurrence (system by system,
    segment by segment), and the ``[S, N]`` index of every system's segment into that list.

    Systems often share outputs (8% of WMT12 es-en's segments, 34% of MQM TED zh-en's), so a metric whose
    segment statistics depend only on the segment's own hypothesis and references computes each pair once and
    scatters the rows back with ``pair_stats[index]``.
    """
    position: dict[tuple[int, str], int] = {}
    index = np.empty((len(systems), n_segments), dtype=np.int64)
    for s, hyps in enumerate(systems.values()):
        for i, hyp in enumerate(hyps):
            index[s, i] = position.setdefault((i, hyp), len(position))
    return index, list(position)


def chunk_bounds(n_items: int, parts: int) -> np.ndarray:
    """Boundaries of ``min(parts, n_items)`` contiguous chunks of ``n_items`` (at least one chunk), sizes differing
    by at most one: chunk j is ``[bounds[j], bounds[j + 1])``."""
    return np.linspace(0, n_items, max(1, min(parts, n_items)) + 1).round().astype(int)


def _stats_in_worker(
    name: str, options: dict[str, Any], hyps: list[str], refs: list[str] | list[list[str]]
) -> np.ndarray:
    """Rebuild a metric in a worker process and compute one system's statistics."""
    from mtsig.metrics import get_metric

    return get_metric(name, **options).stats(hyps, refs)


def reference_streams(refs: References) -> list[list[str]]:
    """``refs`` as a list of ``R >= 1`` reference streams of equal length (module docstring): ``N`` strings are
    one stream; ``R`` sequences of strings are ``R`` streams.

    Raises:
        InputError: ``refs`` is one string, mixes strings and sequences, holds something that is neither, or its
            streams differ in length. (No references at all is one empty stream.)
    """
    if isinstance(refs, str):
        raise InputError("references must be a sequence of segments, not one string")
    items = list(refs)
    if all(isinstance(item, str) for item in items):
        return [items]
    if any(isinstance(item, str) or not isinstance(item, Sequence) for item in items):
        raise InputError(
            "references must be one string per segment, or reference streams (sequences of strings)"
        )
    streams = [list(stream) for stream in items]
    if any(not isinstance(segment, str) for stream in streams for segment in stream):
        raise InputError("every reference stream must be a sequence of strings, one per segment")
    lengths = sorted({len(stream) for stream in streams})
    if len(lengths) > 1:
        raise InputError(f"reference streams differ in length: {', '.join(map(str, lengths))} segments")
    return streams


def single_reference(refs: Sequence[str]) -> None:
    """Raise :class:`InputError` unless ``refs`` holds one reference string per segment."""
    if isinstance(refs, str):
        raise InputError("hypotheses and references must be sequences of segments, not one string")
    if any(not isinstance(ref, str) for ref in refs):
        raise InputError("this metric takes one reference string per segment, not several reference streams")


def check_parallel(
    systems: Mapping[str, Sequence[str]], refs: Sequence[str], *, multi_reference: bool = False
) -> int:
    """The number of segments; raise :class:`InputError` unless every system has exactly one segment per
    reference segment (and, unless ``multi_reference``, there is one reference string per segment)."""
    if multi_reference:
        n_segments = len(reference_streams(refs)[0])
    else:
        single_reference(refs)
        n_segments = len(refs)
    for name, hyps in systems.items():
        if len(hyps) != n_segments:
            raise InputError(
                f"system {name!r} has {len(hyps)} segments but there are {n_segments} references"
            )
    return n_segments


def check_hypotheses(hyps: Sequence[str], n_segments: int) -> None:
    """Raise :class:`InputError` unless ``hyps`` is a sequence of ``n_segments`` strings."""
    if isinstance(hyps, str):
        raise InputError("hypotheses must be a sequence of segments, not one string")
    if len(hyps) != n_segments:
        raise InputError(f"{len(hyps)} hypotheses but {n_segments} references")


def reference_sets(refs: References) -> list[tuple[str, ...]]:
    """Each segment's references as a tuple, from one reference per segment or reference streams
    (:func:`reference_streams`). An empty string in a stream means that segment has no reference in that stream,
    as in sacrebleu, so segments may have different numbers of references.

    Raises:
        InputError: as :func:`reference_streams`, or a segment has no non-empty reference in any stream.
    """
    sets = []
    for i, segment in enumerate(zip(*reference_streams(refs), strict=True)):
        references = tuple(ref for ref in segment if ref != "")
        if not references:
            raise InputError(f"segment {i + 1} has no reference")
        sets.append(references)
    return sets


def check_stats_width(stats: np.ndarray, width: int, metric: str) -> np.ndarray:
    """Return ``stats`` as float64, raising :class:`InputError` if its last axis is not ``width`` long."""
    array = np.asarray(stats, dtype=np.float64)
    if array.ndim == 0 or array.shape[-1] != width:
        raise InputError(f"{metric} statistics must have last axis {width}, got shape {array.shape}")
    return array


def check_choice(metric: str, option: str, value: object, choices: Sequence[object]) -> None:
    """Raise :class:`InputError` unless option ``option`` of ``metric`` is one of ``choices`` (the one check of
    every metric option that takes one of a few named values, e.g. BLEU's ``smooth_method``)."""
    if value not in choices:
        raise InputError(
            f"{metric} {option} must be one of {', '.join(str(c) for c in choices)}, got {value!r}"
        )
