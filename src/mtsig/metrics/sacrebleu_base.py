"""What BLEU, chrF and TER share: sacrebleu 2.6.0's own per-segment statistics, its reference streams and signature.

The statistics come from sacrebleu's (private, hence the pinned version) ``_extract_corpus_statistics``, so
tokenisation, n-gram matching and TER's shift search are sacrebleu's own; :mod:`mtsig.metrics.bleu`,
:mod:`mtsig.metrics.chrf` and :mod:`mtsig.metrics.ter` (one module per metric, as in sacrebleu) transcribe each
metric's score of summed statistics in NumPy, on sacrebleu's 0-100 scale. Several references per segment
(reference streams) follow sacrebleu's rules: BLEU clips each n-gram to its largest count in one reference and takes
the closest reference length, chrF keeps the reference with the best segment F-score, TER the fewest edits with the
mean reference length. ``stats_many`` of BLEU and chrF with one reference counts sacrebleu's n-gram matches with
compiled code (:mod:`mtsig.metrics.ngram_compiled`), tested identical on every WMT12 system; otherwise it groups
sacrebleu's own statistics by segment (:func:`segment_grouped_statistics`).
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from mtsig.errors import InputError
from mtsig.metrics.base import (
    Metric,
    References,
    check_hypotheses,
    check_parallel,
    chunk_bounds,
    distinct_segment_hypotheses,
    reference_streams,
)

if TYPE_CHECKING:
    from mtsig.metrics.ngram_compiled import Encoder


def sacrebleu_reference_streams(refs: References) -> list[list[str | None]]:
    """``refs`` (one reference per segment, or reference streams: :mod:`mtsig.metrics.base`) as sacrebleu's
    reference streams.

    With several streams an empty string is no reference, as sacrebleu's documentation says; sacrebleu 2.6.0's
    code skips only ``None`` (an empty string is scored as an empty reference), so empty strings become ``None``
    and the statistics equal sacrebleu's with ``None``. A single stream is passed as it is, so that an empty
    reference line stays what it is for sacrebleu.

    Raises:
        InputError: as :func:`mtsig.metrics.base.reference_streams`, or a segment has no reference in any stream.
    """
    streams: list[list[str | None]] = [list(stream) for stream in reference_streams(refs)]
    if len(streams) == 1:
        return streams
    streams = [[ref if ref != "" else None for ref in stream] for stream in streams]
    for i, segment in enumerate(zip(*streams, strict=True)):
        if all(ref is None for ref in segment):
            raise InputError(
                f"segment {i + 1} has no reference in any of the {len(streams)} reference streams"
            )
    return streams


def _sacrebleu_statistics(metric: Any, hyps: Sequence[str], refs: References) -> np.ndarray:
    """Per-segment statistics from a sacrebleu metric object against one or several reference streams."""
    streams = sacrebleu_reference_streams(refs)
    check_hypotheses(hyps, len(streams[0]))
    rows = metric._extract_corpus_statistics(list(hyps), streams)
    width = len(rows[0]) if rows else 0
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), width)


#: Segments whose references are cached at a time by :func:`segment_grouped_statistics`: bounds the memory of
#: sacrebleu's reference n-gram dictionaries (chrF keeps about 20 kB per segment and reference).
SEGMENT_CHUNK = 500


def segment_grouped_statistics(
    metric: Any, hyps_by_system: Sequence[Sequence[str]], streams: Sequence[Sequence[str | None]]
) -> np.ndarray:
    """``[S, N, k]`` statistics of every system's hypotheses from a sacrebleu metric object, reorganised so that
    each segment's references are preprocessed and their n-grams extracted once (``_cache_references``), not once
    per system, and each distinct hypothesis of a segment is scored once (``_preprocess_segment`` then
    ``_compute_segment_statistics``, exactly what ``_extract_corpus_statistics`` does per line). Segments are
    processed :data:`SEGMENT_CHUNK` at a time, so memory is the output plus one chunk's reference n-grams.

    ``streams`` are sacrebleu's reference streams (:func:`sacrebleu_reference_streams`). The statistics are the
    same numbers as sacrebleu's ``_extract_corpus_statistics`` of each system (tested)."""
    n_systems, n_segments = len(hyps_by_system), len(streams[0])
    out: np.ndarray | None = None
    for first in range(0, n_segments, SEGMENT_CHUNK):
        last = min(first + SEGMENT_CHUNK, n_segments)
        ref_cache = metric._cache_references([stream[first:last] for stream in streams])
        for i in range(first, last):
            ref_info, scored = ref_cache[i - first], {}
            for s in range(n_systems):
                hyp = hyps_by_system[s][i]
                row = scored.get(hyp)
                if row is None:
                    row = scored[hyp] = metric._compute_segment_statistics(
                        metric._preprocess_segment(hyp), ref_info
                    )
                if out is None:
                    out = np.zeros((n_systems, n_segments, len(row)), dtype=np.float64)
                out[s, i] = row
    return out if out is not None else np.zeros((n_systems, n_segments, 0), dtype=np.float64)


def _grouped_statistics_in_worker(
    name: str,
    options: dict[str, Any],
    hyps_by_system: list[list[str]],
    streams: list[list[str | None]],
) -> np.ndarray:
    """Rebuild a metric in a worker process and compute :func:`segment_grouped_statistics` of a segment range."""
    from mtsig.metrics import get_metric

    return segment_grouped_statistics(get_metric(name, **options)._sacrebleu, hyps_by_system, streams)


def _signature(metric: Any, n_references: int) -> str:
    """sacrebleu's signature string for a run with ``n_references`` references (``nrefs:1|...|version:2.6.0``)."""
    return metric._SIGNATURE_TYPE({**vars(metric), "num_refs": n_references}).format()


class SacrebleuMetric(Metric):
    """What BLEU, chrF and TER share: sacrebleu's reference streams (several references per segment, sacrebleu's
    multi-reference rules) and its signature, which records the number of references."""

    segment_local = True
    multi_reference = True
    _sacrebleu: Any
    #: True when the statistics are sacrebleu's ``_extract_corpus_statistics`` (BLEU, chrF), so that
    #: :meth:`stats_many` may group them by segment (:func:`segment_grouped_statistics`).
    _groups_by_segment: ClassVar[bool] = True

    def stats(self, hyps: Sequence[str], refs: References) -> np.ndarray:
        """sacrebleu's per-segment statistics (``_extract_corpus_statistics``) against one or several references."""
        self._n_references = len(reference_streams(refs))
        return _sacrebleu_statistics(self._sacrebleu, hyps, refs)

    def stats_many(
        self, systems: Mapping[str, Sequence[str]], refs: References, processes: int = 1
    ) -> np.ndarray:
        """:meth:`Metric.stats_many`: compiled n-gram counts where they apply (:meth:`_compiled_stats`), else
        grouped by segment for BLEU and chrF (:func:`segment_grouped_statistics`)."""
        compiled = self._compiled_stats(systems, refs)
        if compiled is not None:
            return compiled
        if not self._groups_by_segment:
            return super().stats_many(systems, refs, processes)
        self._n_references = len(reference_streams(refs))
        check_parallel(systems, refs, multi_reference=True)
        streams = sacrebleu_reference_streams(refs)
        columns = [list(hyps) for hyps in systems.values()]
        n_segments = len(streams[0])
        bounds = chunk_bounds(n_segments, processes)
        if len(bounds) <= 2 or not columns:
            return segment_grouped_statistics(self._sacrebleu, columns, streams)
        # Workers take contiguous segment ranges; each range's rows are copied into the output as it arrives.
        context = multiprocessing.get_context("spawn")
        out = np.zeros((len(columns), n_segments, len(self.stat_names)), dtype=np.float64)
        with ProcessPoolExecutor(max_workers=len(bounds) - 1, mp_context=context) as pool:
            futures = {
                pool.submit(
                    _grouped_statistics_in_worker,
                    self.name,
                    self.options,
                    [hyps[a:b] for hyps in columns],
                    [stream[a:b] for stream in streams],
                ): (a, b)
                for a, b in zip(bounds[:-1], bounds[1:], strict=True)
            }
            for future, (a, b) in futures.items():
                out[:, a:b] = future.result()
        return out

    def _compiled_stats(self, systems: Mapping[str, Sequence[str]], refs: References) -> np.ndarray | None:
        """``[S, N, k]`` from :func:`mtsig.metrics.ngram_compiled.ngram_match_counts` (one reference per segment,
        each distinct (segment, hypothesis) once, lines preprocessed by sacrebleu), or None where it does not
        apply: several references, a metric or option without compiled units (:meth:`_compiled_units`), or too
        many distinct units. The same integers as sacrebleu's (tested on every WMT12 system)."""
        encode = self._compiled_units()
        streams = reference_streams(refs)
        if encode is None or len(streams) != 1:
            return None
        n_segments = check_parallel(systems, refs, multi_reference=True)
        from mtsig.metrics.ngram_compiled import ngram_match_counts  # imports numba only when needed

        self._n_references = 1
        index, pairs = distinct_segment_hypotheses(systems, n_segments)
        preprocess = self._compiled_preprocess()
        counts = ngram_match_counts(
            [preprocess(hyp) for _, hyp in pairs],
            [preprocess(ref) for ref in streams[0]],
            np.array([i for i, _ in pairs], dtype=np.int64),
            self._compiled_order(),
            encode,
        )
        return None if counts is None else self._stats_from_counts(counts)[index]

    def _compiled_units(self) -> Encoder | None:
        """The :mod:`mtsig.metrics.ngram_compiled` encoder of this metric's units, or None (no compiled path)."""
        return None

    def _compiled_order(self) -> int:
        """The largest n-gram order counted by the compiled path."""
        raise NotImplementedError

    def _compiled_preprocess(self) -> Callable[[str], str]:
        """What the compiled path applies to every line before cutting it into units: sacrebleu's own."""
        return self._sacrebleu._preprocess_segment

    def _stats_from_counts(self, counts: np.ndarray) -> np.ndarray:
        """This metric's statistics ``[P, k]`` from the compiled counts ``[P, order, 3]`` (hypothesis n-grams,
        reference n-grams, matches)."""
        raise NotImplementedError

    def signature(self) -> str:
        """sacrebleu's signature of this metric with the number of references of the last statistics."""
        return _signature(self._sacrebleu, self._n_references)
