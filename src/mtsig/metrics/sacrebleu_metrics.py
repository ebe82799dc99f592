"""BLEU, chrF and TER from sacrebleu 2.6.0's own per-segment statistics, scored by vectorised transcriptions.

The statistics come from sacrebleu's (private, hence the pinned version) ``_extract_corpus_statistics``, so
tokenisation, n-gram matching and TER's shift search are sacrebleu's own; TER's edit counts are by default those
of a compiled transcription of sacrebleu's (:mod:`mtsig.metrics.ter_compiled`), tested bit-identical to it on
sacrebleu's own tokens, and ``stats_many`` of BLEU and chrF with one reference counts sacrebleu's n-gram matches
with compiled code (:mod:`mtsig.metrics.ngram_compiled`), tested identical on every WMT12 system. The ``score``
methods transcribe
sacrebleu's ``compute_bleu``, ``CHRF._compute_f_score`` and ``TER._compute_score_from_stats`` operation by
operation in NumPy, on sacrebleu's 0-100 scale. Several references per segment (reference streams) follow sacrebleu's
rules: BLEU clips each n-gram to its largest count in one reference and takes the closest reference length, chrF
keeps the reference with the best segment F-score, TER the fewest edits with the mean reference length:

- chrF and TER use only ``+ - * /`` in sacrebleu's order, so ``score(stats.sum(0))`` equals sacrebleu's
  ``corpus_score`` bit for bit (the summed statistics are integers, exact in float64; with three or more
  references TER's mean reference lengths are fractions, whose sums agree to rounding).
- BLEU needs ``log`` and ``exp``. NumPy's SIMD ``np.log``/``np.exp`` may differ from the C library's
  ``math.log``/``math.exp`` in the last unit in the last place, so BLEU agrees with sacrebleu to about
  1e-15 relative, not always bit for bit. Within mtsig every score goes through the same NumPy functions,
  whose result for an element does not depend on the array's shape, so resampled and observed statistics
  are always scored identically.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from sacrebleu.metrics.bleu import BLEU as SacreBLEU
from sacrebleu.metrics.chrf import CHRF as SacreCHRF
from sacrebleu.metrics.ter import TER as SacreTER

from mtsig import portable
from mtsig.errors import InputError
from mtsig.metrics.base import (
    Metric,
    check_hypotheses,
    check_parallel,
    check_stats_width,
    distinct_segment_hypotheses,
    reference_streams,
)

if TYPE_CHECKING:
    from mtsig.metrics.ngram_compiled import Encoder

# sacrebleu's floor for log(0) (sacrebleu.utils.my_log): a zero precision makes BLEU exactly 0.
_SACREBLEU_LOG_ZERO = -9999999999.0


def sacrebleu_reference_streams(refs: Sequence[str] | Sequence[Sequence[str]]) -> list[list[str | None]]:
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


def _sacrebleu_statistics(
    metric: Any, hyps: Sequence[str], refs: Sequence[str] | Sequence[Sequence[str]]
) -> np.ndarray:
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


def word_by_word(preprocess: Callable[[str], str]) -> Callable[[str], str]:
    """sacrebleu's BLEU preprocessing (lowercase, ``13a`` tokenizer) of a line computed word by word, each distinct
    word once: the same tokens (joined by single spaces), in a fraction of the time on real text.

    Splitting on whitespace first changes no token: 13a pads the line with spaces and its four regular expressions
    use a whitespace character only as the first character of a match (``[^0-9]`` before ``.`` or ``,``) or as the
    last (``[.,]`` then ``[^0-9]``), never one that a match in the neighbouring word would need; its replacements
    (``<skipped>``, ``&quot;`` ...) contain no whitespace, and lowercasing is per character (a final sigma is final
    in its word either way). The one rule that joins words, ``-\n`` removed, is kept by preprocessing a line that
    contains a newline whole. Tested against sacrebleu on every WMT12 system and edge cases.
    """
    cache: dict[str, str] = {}

    def apply(line: str) -> str:
        if "\n" in line:
            return preprocess(line)
        tokens = []
        for word in line.split():
            tokenised = cache.get(word)
            if tokenised is None:
                tokenised = cache[word] = preprocess(word)
            tokens.append(tokenised)
        return " ".join(tokens)

    return apply


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

    def stats(self, hyps: Sequence[str], refs: Sequence[str] | Sequence[Sequence[str]]) -> np.ndarray:
        """sacrebleu's per-segment statistics (``_extract_corpus_statistics``) against one or several references."""
        self._n_references = len(reference_streams(refs))
        return _sacrebleu_statistics(self._sacrebleu, hyps, refs)

    def stats_many(
        self,
        systems: Mapping[str, Sequence[str]],
        refs: Sequence[str] | Sequence[Sequence[str]],
        processes: int = 1,
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
        bounds = np.linspace(0, n_segments, max(1, min(processes, n_segments)) + 1).round().astype(int)
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

    def _compiled_stats(
        self, systems: Mapping[str, Sequence[str]], refs: Sequence[str] | Sequence[Sequence[str]]
    ) -> np.ndarray | None:
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


class BLEU(SacrebleuMetric):
    """BLEU (Papineni et al. 2002) exactly as sacrebleu computes it; the paper's first metric (Sec. 5, Table 2).

    Statistics per segment (``k = 2 + 2 * max_ngram_order``): hypothesis length, reference length, the
    clipped n-gram matches for n = 1..4, and the hypothesis n-gram counts for n = 1..4 (sacrebleu's order).

    Options (sacrebleu's names and defaults): ``lowercase=False``, ``tokenize="13a"``,
    ``smooth_method="exp"`` (mteval-v13a's smoothing; ``"none"`` and ``"floor"`` are also supported),
    ``smooth_value=None``, ``max_ngram_order=4``. Effective order is off, as for corpus-level BLEU.
    """

    name = "bleu"
    higher_is_better = True
    _SMOOTHINGS = ("exp", "none", "floor")

    def __init__(
        self,
        lowercase: bool = False,
        tokenize: str = "13a",
        smooth_method: str = "exp",
        smooth_value: float | None = None,
        max_ngram_order: int = 4,
    ) -> None:
        super().__init__(
            lowercase=lowercase,
            tokenize=tokenize,
            smooth_method=smooth_method,
            smooth_value=smooth_value,
            max_ngram_order=max_ngram_order,
        )
        if smooth_method not in self._SMOOTHINGS:
            raise InputError(
                f"BLEU smooth_method must be one of {', '.join(self._SMOOTHINGS)}, got {smooth_method!r}"
            )
        # force: the warning about tokenised input is irrelevant to the statistics
        self._sacrebleu = SacreBLEU(**self.options, force=True)
        self.max_ngram_order = max_ngram_order
        default_floor = SacreBLEU.SMOOTH_DEFAULTS["floor"]
        self._floor_value = default_floor if smooth_value is None else smooth_value

    def _compiled_units(self) -> Encoder | None:
        from mtsig.metrics.ngram_compiled import encode_words

        return encode_words  # the words of sacrebleu's tokenised line, as extract_all_word_ngrams splits it

    def _compiled_order(self) -> int:
        return self.max_ngram_order

    def _compiled_preprocess(self) -> Callable[[str], str]:
        if self.options["tokenize"] != "13a":
            return self._sacrebleu._preprocess_segment
        return word_by_word(self._sacrebleu._preprocess_segment)

    def _stats_from_counts(self, counts: np.ndarray) -> np.ndarray:
        # one reference: the closest reference length is its length; totals are the hypothesis n-gram counts
        lengths = counts[:, 0, :2]  # unigram counts: hypothesis and reference lengths
        return np.concatenate([lengths, counts[:, :, 2], counts[:, :, 0]], axis=1).astype(np.float64)

    @property
    def stat_names(self) -> tuple[str, ...]:
        orders = range(1, self.max_ngram_order + 1)
        return ("hyp_len", "ref_len", *(f"match_{n}" for n in orders), *(f"hyp_{n}grams" for n in orders))

    def score(self, stats: np.ndarray) -> np.ndarray:
        """Corpus BLEU (0-100) of summed statistics: sacrebleu's ``BLEU.compute_bleu``, vectorised.

        Brevity penalty ``exp(1 - r/c)`` if ``c < r`` (0 if ``c == 0``); precision ``100 m_n / t_n``; a zero
        match count is smoothed (``exp``: ``100 / (2^k t_n)`` for the k-th zero, as mteval-v13a); a zero
        n-gram count ``t_n`` or no match at all gives BLEU 0, as in sacrebleu.
        """
        order = self.max_ngram_order
        stats = check_stats_width(stats, 2 + 2 * order, "BLEU")
        sys_len, ref_len = stats[..., 0], stats[..., 1]
        correct = stats[..., 2 : 2 + order]
        total = stats[..., 2 + order : 2 + 2 * order]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            brevity = np.where(
                sys_len >= ref_len, 1.0, np.where(sys_len > 0, portable.exp(1.0 - ref_len / sys_len), 0.0)
            )
            log_sum = np.zeros(sys_len.shape)
            smooth = np.ones(sys_len.shape)
            # sacrebleu stops at the first order with no hypothesis n-grams; later precisions stay 0.
            alive = np.ones(sys_len.shape, dtype=bool)
            for n in range(order):
                alive &= total[..., n] != 0
                zero_match = correct[..., n] == 0
                if self.options["smooth_method"] == "exp":
                    smooth = np.where(alive & zero_match, smooth * 2.0, smooth)
                    smoothed = 100.0 / (smooth * total[..., n])
                elif self.options["smooth_method"] == "floor":
                    smoothed = 100.0 * self._floor_value / total[..., n]
                else:
                    smoothed = np.zeros(sys_len.shape)
                precision = np.where(zero_match, smoothed, 100.0 * correct[..., n] / total[..., n])
                precision = np.where(alive, precision, 0.0)
                log_sum = log_sum + np.where(precision > 0, portable.log(precision), _SACREBLEU_LOG_ZERO)
            bleu = brevity * portable.exp(log_sum / order)
        return np.where(np.any(correct != 0, axis=-1), bleu, 0.0)

    def details(self) -> str:
        return f"BLEU|{self.signature()}"


class CHRF(SacrebleuMetric):
    """chrF (Popović 2015) exactly as sacrebleu computes it (character 6-grams, beta 2, whitespace ignored).

    Statistics per segment (``k = 3 * (char_order + word_order)``): for each n-gram order, the hypothesis
    n-gram count, the reference n-gram count and the clipped matches (sacrebleu's order). Options are
    sacrebleu's: ``char_order=6``, ``word_order=0`` (2 gives chrF++), ``beta=2``, ``lowercase=False``,
    ``whitespace=False``, ``eps_smoothing=False``.

    :meth:`stats_many` counts the character n-grams of chrF's default statistics (whitespace removed, one
    reference) with :mod:`mtsig.metrics.ngram_compiled`; chrF++ and ``whitespace=True`` use sacrebleu's code.
    """

    name = "chrf"
    higher_is_better = True

    def __init__(
        self,
        char_order: int = 6,
        word_order: int = 0,
        beta: int = 2,
        lowercase: bool = False,
        whitespace: bool = False,
        eps_smoothing: bool = False,
    ) -> None:
        super().__init__(
            char_order=char_order,
            word_order=word_order,
            beta=beta,
            lowercase=lowercase,
            whitespace=whitespace,
            eps_smoothing=eps_smoothing,
        )
        self._sacrebleu = SacreCHRF(**self.options)
        self.order = char_order + word_order

    def _compiled_units(self) -> Encoder | None:
        if self.options["word_order"] or self.options["whitespace"]:
            return None
        from mtsig.metrics.ngram_compiled import encode_characters

        return encode_characters

    def _compiled_order(self) -> int:
        return self.options["char_order"]

    def _stats_from_counts(self, counts: np.ndarray) -> np.ndarray:
        # sacrebleu reports no hypothesis n-grams of an order where the reference has none
        stats = counts.astype(np.float64)
        stats[:, :, 0] = np.where(counts[:, :, 1] > 0, stats[:, :, 0], 0.0)
        return stats.reshape(len(counts), -1)

    @property
    def stat_names(self) -> tuple[str, ...]:
        names = [f"char{n}" for n in range(1, self.options["char_order"] + 1)]
        names += [f"word{n}" for n in range(1, self.options["word_order"] + 1)]
        return tuple(f"{kind}_{gram}" for gram in names for kind in ("hyp", "ref", "match"))

    def score(self, stats: np.ndarray) -> np.ndarray:
        """Corpus chrF (0-100) of summed statistics: sacrebleu's ``CHRF._compute_f_score``, vectorised.

        Default (effective-order) mode: precision and recall are averaged over the orders where both the
        hypothesis and the reference have n-grams, then ``F_beta = (1 + b^2) P R / (b^2 P + R)``. With
        ``eps_smoothing`` the per-order F scores are averaged instead, with 1e-16 for empty orders.
        """
        stats = check_stats_width(stats, 3 * self.order, "chrF")
        factor = float(self.options["beta"] ** 2)
        eps = 1e-16
        shape = stats.shape[:-1]
        avg_prec, avg_rec = np.zeros(shape), np.zeros(shape)
        effective_order = np.zeros(shape)
        eps_score = np.zeros(shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            for i in range(self.order):
                n_hyp, n_ref, n_match = stats[..., 3 * i], stats[..., 3 * i + 1], stats[..., 3 * i + 2]
                prec = np.where(n_hyp > 0, n_match / n_hyp, eps)
                rec = np.where(n_ref > 0, n_match / n_ref, eps)
                denom = factor * prec + rec
                eps_score = eps_score + np.where(denom > 0, (1 + factor) * prec * rec / denom, eps)
                both = (n_hyp > 0) & (n_ref > 0)
                avg_prec = avg_prec + np.where(both, prec, 0.0)
                avg_rec = avg_rec + np.where(both, rec, 0.0)
                effective_order = effective_order + both
            if self.options["eps_smoothing"]:
                return 100 * eps_score / self.order
            avg_prec = np.where(effective_order > 0, avg_prec / effective_order, 0.0)
            avg_rec = np.where(effective_order > 0, avg_rec / effective_order, 0.0)
            f_score = (1 + factor) * avg_prec * avg_rec
            f_score = f_score / ((factor * avg_prec) + avg_rec)
        return np.where(avg_prec + avg_rec != 0, 100 * f_score, 0.0)

    def details(self) -> str:
        return f"chrF{self.options['beta']}|{self.signature()}"


class TER(SacrebleuMetric):
    """TER (Snover et al. 2006), sacrebleu's Tercom reimplementation; lower is better.

    Statistics per segment (``k = 2``): the number of edits (shifts included) and the reference length.
    Options are sacrebleu's: ``normalized=False``, ``no_punct=False``, ``asian_support=False``,
    ``case_sensitive=False`` (Tercom's default lowercases), plus ``implementation``:

    - ``"compiled"`` (default): sacrebleu's tokenisation, then its shift search and beam edit distance
      transcribed in :mod:`mtsig.metrics.ter_compiled` (numba); tested bit-identical to sacrebleu on every
      WMT12 segment; about 70 times faster (benchmarks/bench_ter.py).
    - ``"sacrebleu"``: sacrebleu's own ``_extract_corpus_statistics`` (pure Python), to cross-check; use
      ``stats_many(..., processes=n)`` to spread it over processes.

    Both give the same statistics, so :meth:`details` (sacrebleu's signature) does not name the implementation.
    """

    name = "ter"
    higher_is_better: ClassVar[bool] = False
    _groups_by_segment: ClassVar[bool] = False  # its own compiled statistics, distinct pairs in chunks
    IMPLEMENTATIONS = ("compiled", "sacrebleu")

    def __init__(
        self,
        normalized: bool = False,
        no_punct: bool = False,
        asian_support: bool = False,
        case_sensitive: bool = False,
        implementation: str = "compiled",
    ) -> None:
        super().__init__(
            normalized=normalized,
            no_punct=no_punct,
            asian_support=asian_support,
            case_sensitive=case_sensitive,
            implementation=implementation,
        )
        if implementation not in self.IMPLEMENTATIONS:
            raise InputError(
                f"TER implementation must be one of {', '.join(self.IMPLEMENTATIONS)}, got {implementation!r}"
            )
        # every option but ours, implementation (which code computes the statistics; sacrebleu has one)
        self._sacrebleu = SacreTER(**{k: v for k, v in self.options.items() if k != "implementation"})

    @property
    def stat_names(self) -> tuple[str, ...]:
        return ("edits", "ref_len")

    def stats(self, hyps: Sequence[str], refs: Sequence[str] | Sequence[Sequence[str]]) -> np.ndarray:
        """sacrebleu's per-segment TER statistics, ``[N, 2]``: edits and reference length.

        With several references, sacrebleu's rule: the fewest edits over the segment's references and the mean
        of their lengths (``TER._compute_segment_statistics``).
        """
        if self.options["implementation"] == "sacrebleu":
            return super().stats(hyps, refs)
        from mtsig.metrics.ter_compiled import corpus_edits, tokenize_pairs  # imports numba only when needed

        streams = sacrebleu_reference_streams(refs)
        self._n_references = len(streams)
        check_hypotheses(hyps, len(streams[0]))
        best_edits = np.full(len(hyps), np.inf)
        ref_lengths = np.zeros(len(hyps))
        n_refs = np.zeros(len(hyps))
        for stream in streams:
            present = np.flatnonzero([ref is not None for ref in stream])
            hyp_tokens, ref_tokens = tokenize_pairs(
                self._sacrebleu._preprocess_segment, [hyps[i] for i in present], [stream[i] for i in present]
            )
            best_edits[present] = np.minimum(best_edits[present], corpus_edits(hyp_tokens, ref_tokens))
            ref_lengths[present] += [len(tokens) for tokens in ref_tokens]
            n_refs[present] += 1
        return np.stack([best_edits, ref_lengths / n_refs], axis=1)

    def score(self, stats: np.ndarray) -> np.ndarray:
        """Corpus TER (0-100, lower is better) = 100 * edits / reference words; sacrebleu's conventions for
        an empty reference (100 if there are edits, else 0)."""
        stats = check_stats_width(stats, 2, "TER")
        edits, ref_len = stats[..., 0], stats[..., 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            rate = np.where(ref_len > 0, edits / ref_len, np.where(edits > 0, 1.0, 0.0))
        return 100 * rate

    def details(self) -> str:
        return f"TER|{self.signature()}"
