"""NIST (Doddington 2002) as defined by mteval-v13a.pl, on sacrebleu's 13a tokens.

Definition (mteval-v13a ``compute_ngram_info``, ``score_segment``, ``nist_score``, ``nist_length_penalty``):

- information weight of an n-gram, from the counts over the whole reference set:
  ``info(w1..wn) = log2(count(w1..wn-1) / count(w1..wn))``, with ``count()`` of the empty prefix being the
  total number of reference words (Doddington 2002, Eq. 2);
- per order n = 1..5: the information of the hypothesis n-grams that match the reference, each counted at most
  as often as it occurs in the reference (clipped), divided by the number of hypothesis n-grams (at least 1);
- score = sum over n of those ratios, times the brevity penalty
  ``exp(-beta * log(c/r)^2)`` for ``c < r`` (1 otherwise), ``beta = -ln(0.5) / ln(1.5)^2``, so that a
  hypothesis 2/3 the reference length is penalised by a factor 0.5 (Doddington 2002, Eq. 3).

The information weights are a property of the reference set and are computed once from all references given
to :meth:`NIST.stats`. The randomized tests keep them fixed when they resample segments, as every NIST
bootstrap implementation does (e.g. Koehn 2004; Moses' bootstrap scripts): they are part of the metric's
definition for this test set, not a statistic of the sample.

Intended differences from mteval-v13a:

- case-sensitive by default (mteval-v13a lowercases unless run with ``-c``); ``lowercase=True`` lowercases
  with Python's full Unicode ``str.lower`` where mteval's ``tr/[A-Z]/[a-z]/`` only maps ASCII A-Z;
- single reference per segment (mteval averages the reference length over references);
- mteval tests the n-1-gram prefix for Perl truth, so a bigram whose first token is ``0`` gets the unigram
  weight formula (total words) instead of ``count("0")``; here the true prefix count is always used, as in
  NLTK's ``corpus_nist``;
- tokenisation is sacrebleu's 13a tokenizer, the Python transcription of mteval-v13a's ``tokenization``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
from sacrebleu.version import __version__ as sacrebleu_version

from mtsig.metrics.base import Metric, check_pair, check_stats_width

NIST_MAX_ORDER = 5
# mteval-v13a nist_length_penalty: a length ratio of 1.5^-1 scores 0.5.
NIST_BETA = -math.log(0.5) / math.log(1.5) ** 2

Ngram = tuple[str, ...]


def ngram_counts(tokens: Sequence[str], max_order: int) -> Counter[Ngram]:
    """Counts of every n-gram of ``tokens`` with 1 <= n <= max_order (mteval's ``Words2Ngrams``)."""
    counts: Counter[Ngram] = Counter()
    for n in range(1, max_order + 1):
        counts.update(zip(*(tokens[i:] for i in range(n)), strict=False))
    return counts


def information_weights(references: Iterable[Sequence[str]], max_order: int) -> dict[Ngram, float]:
    """``info(w1..wn) = log2(count(w1..wn-1) / count(w1..wn))`` over the whole reference set (Doddington
    2002, Eq. 2; mteval-v13a ``compute_ngram_info``); the empty prefix counts all reference words."""
    counts: Counter[Ngram] = Counter()
    total_words = 0
    for tokens in references:
        total_words += len(tokens)
        counts.update(ngram_counts(tokens, max_order))
    return {
        ngram: math.log2((counts[ngram[:-1]] if len(ngram) > 1 else total_words) / count)
        for ngram, count in counts.items()
    }


def segment_statistics(
    hyp: Sequence[str], ref: Sequence[str], weights: dict[Ngram, float], max_order: int
) -> list[float]:
    """One segment's NIST statistics: info-weighted clipped matches per order, hypothesis n-gram counts per
    order, hypothesis length, reference length (mteval-v13a ``score_segment`` for one reference)."""
    hyp_counts = ngram_counts(hyp, max_order)
    ref_counts = ngram_counts(ref, max_order)
    info = [0.0] * max_order
    for ngram, count in hyp_counts.items():
        ref_count = ref_counts.get(ngram)
        if ref_count:
            info[len(ngram) - 1] += weights[ngram] * min(count, ref_count)
    hyp_ngrams = [float(max(len(hyp) - n + 1, 0)) for n in range(1, max_order + 1)]
    return [*info, *hyp_ngrams, float(len(hyp)), float(len(ref))]


def nist_brevity_penalty(hyp_len: np.ndarray, ref_len: np.ndarray) -> np.ndarray:
    """mteval-v13a ``nist_length_penalty``: ``exp(-beta * ln(c/r)^2)`` for ``0 < c/r < 1``, 1 for ``c >= r``,
    0 for ``c = 0``; a corpus with no reference words (``r = 0``) is given no penalty."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = hyp_len / ref_len
        log_ratio = np.log(np.where((ratio > 0) & (ratio < 1), ratio, 1.0))
        penalty = np.exp(-NIST_BETA * log_ratio * log_ratio)
    penalty = np.where(ratio <= 0, 0.0, penalty)
    return np.where((ratio >= 1) | (ref_len <= 0), 1.0, penalty)


class NIST(Metric):
    """NIST with mteval-v13a's definition (module docstring) on sacrebleu 13a tokens; raw scale (about 0-15).

    Statistics per segment (``k = 2 * max_order + 2``): ``info_1..info_5`` (information-weighted clipped
    matches), ``hyp_1grams..hyp_5grams`` (hypothesis n-gram counts), ``hyp_len``, ``ref_len``.
    Options: ``lowercase=False``, ``max_order=5``.
    """

    name = "nist"
    higher_is_better = True

    def __init__(self, lowercase: bool = False, max_order: int = NIST_MAX_ORDER) -> None:
        super().__init__(lowercase=lowercase, max_order=max_order)
        self.max_order = max_order
        self._tokenizer = Tokenizer13a()
        self._reference_cache: tuple[list[str], list[list[str]], dict[Ngram, float]] | None = None

    @property
    def stat_names(self) -> tuple[str, ...]:
        orders = range(1, self.max_order + 1)
        return (*(f"info_{n}" for n in orders), *(f"hyp_{n}grams" for n in orders), "hyp_len", "ref_len")

    def tokenize(self, segment: str) -> list[str]:
        """sacrebleu's 13a tokens of a segment (lowercased first if ``lowercase``)."""
        if self.options["lowercase"]:
            segment = segment.lower()
        return self._tokenizer(segment.rstrip()).split()

    def reference_tables(self, refs: Sequence[str]) -> tuple[list[list[str]], dict[Ngram, float]]:
        """13a tokens of every reference and the information weights of the reference set.

        The last result is kept, so that scoring several systems against the same references tokenises
        them and counts their n-grams once.
        """
        refs = list(refs)
        if self._reference_cache is None or self._reference_cache[0] != refs:
            ref_tokens = [self.tokenize(ref) for ref in refs]
            self._reference_cache = (refs, ref_tokens, information_weights(ref_tokens, self.max_order))
        return self._reference_cache[1], self._reference_cache[2]

    def stats(self, hyps: Sequence[str], refs: Sequence[str]) -> np.ndarray:
        """Per-segment NIST statistics ``[N, 2 * max_order + 2]``, information weights from all of ``refs``."""
        check_pair(hyps, refs)
        ref_tokens, weights = self.reference_tables(refs)
        rows = [
            segment_statistics(self.tokenize(hyp), ref, weights, self.max_order)
            for hyp, ref in zip(hyps, ref_tokens, strict=True)
        ]
        return np.asarray(rows, dtype=np.float64).reshape(len(rows), len(self.stat_names))

    def score(self, stats: np.ndarray) -> np.ndarray:
        """Corpus NIST of summed statistics (mteval-v13a ``nist_score``): ``sum_n info_n / max(hyp_n, 1)``
        times the NIST brevity penalty of ``hyp_len / ref_len``."""
        order = self.max_order
        stats = check_stats_width(stats, 2 * order + 2, "NIST")
        total = np.zeros(stats.shape[:-1])
        for n in range(order):
            total = total + stats[..., n] / np.maximum(stats[..., order + n], 1.0)
        return total * nist_brevity_penalty(stats[..., 2 * order], stats[..., 2 * order + 1])

    def details(self) -> str:
        case = "lc" if self.options["lowercase"] else "mixed"
        return (
            f"NIST|nrefs:1|case:{case}|tok:13a|ngram:{self.max_order}|info:reference-set|"
            f"bp:mteval-v13a|sacrebleu:{sacrebleu_version}"
        )
