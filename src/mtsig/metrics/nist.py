"""NIST (Doddington 2002) exactly as NIST's own mteval-v13a.pl computes it (``mteval-v13a.pl -c``).

Definition (mteval-v13a ``tokenization``, ``compute_ngram_info``, ``Words2Ngrams``, ``score_segment``,
``nist_score``, ``nist_length_penalty``):

- tokens: mteval-v13a's default ``tokenization`` (:func:`mteval_tokenize`), words split on Perl's ``\\s``;
- information weight of an n-gram, from its counts over every segment of every reference (all streams):
  ``info(w1..wn) = -log(count(w1..wn) / count(w1..wn-1)) / log(2)`` (Doddington 2002, Eq. 2). The prefix
  count is replaced by the total number of reference words when the prefix, joined with spaces, is false as a
  Perl string: the empty prefix of a unigram, *and the one-token prefix* ``0`` of a bigram such as ``0 %``
  (mteval tests ``$mgram ? ... : ...``). That second case is a quirk of the tool, kept here because it is
  what every published mteval NIST score contains: on WMT12 es-en it raises every system's NIST by 2-3.5e-4
  relative;
- per order n = 1..5: the information of the hypothesis n-grams that occur in a reference of the segment, each
  counted at most as often as it occurs in the reference where it occurs most (clipped), divided by
  ``max(number of hypothesis n-grams, 1)``;
- score = the sum of those five ratios times the brevity penalty ``exp(-beta * ln(c/r)^2)`` for
  ``0 < c/r < 1`` (1 for ``c >= r``, 0 for ``c = 0``), ``c`` the hypothesis words, ``r`` the reference words
  divided by the number of references (the *average* reference length: not BLEU's closest or shortest length),
  ``beta = -ln(0.5) / ln(1.5)^2`` so that a length ratio of 2/3 scores 0.5 (Doddington 2002, Eq. 3).

Several references per segment are given as reference streams (:mod:`mtsig.metrics.base`); the statistics keep
the same columns, ``ref_len`` being the segment's mean reference length, so ``score`` does not depend on their
number.

mteval adds the five statistics over segments and documents before scoring, so the corpus score is ``score``
of the summed per-segment statistics: the document layout of the SGML files does not change it.

The information weights are a property of the reference set and are computed once from all references given
to :meth:`NIST.stats`. The randomized tests keep them fixed when they resample segments, as every NIST
bootstrap implementation does (e.g. Koehn 2004; Moses' bootstrap scripts): they are part of the metric's
definition for this test set, not a statistic of the sample.

Remaining intended differences from mteval-v13a:

- input is one segment per string (plain text), not SGML: mtsig converts no entities beyond mteval's own four
  (``&quot; &amp; &lt; &gt;``), as mteval, and cannot misread a segment containing SGML markup such as
  ``</seg>``; the whitespace runs that mteval's SGML reader joins into one space are joined here too. Every
  segment has the same number of references, as mteval requires;
- a corpus with no reference words has no brevity penalty (mteval stops with a division by zero);
- the floating-point additions run in a different order (about 1e-15 relative);
- case-sensitive by default, as ``mteval-v13a.pl -c`` (mteval's own default lowercases);
  ``lowercase=True`` is mteval without ``-c``: ASCII ``A-Z`` only, as its ``tr/[A-Z]/[a-z]/``;
- ``--international-tokenization`` and ``-e`` (mteval options off by default) are not provided.

Second opinion: NLTK's ``corpus_nist`` uses the true prefix count for a ``0 x`` bigram (so it is 2-3.5e-4
lower on WMT12 es-en) and otherwise agrees with this definition for one reference per segment, except that it
divides by zero where a corpus has no hypothesis n-gram of some order (mteval divides by ``max(0, 1)``). For
several references it also differs: it scores each segment and order against its single reference of highest
precision (no clipping to the maximum count over references) and takes that reference's length.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from mtsig.errors import InputError
from mtsig.metrics.base import (
    Metric,
    References,
    check_parallel,
    check_stats_width,
    distinct_segment_hypotheses,
    reference_sets,
    reference_streams,
)
from mtsig.runtime import portable

NIST_MAX_ORDER = 5
# mteval-v13a nist_length_penalty: a length ratio of 1.5^-1 scores 0.5 (same operation order as the script).
NIST_BETA = -math.log(0.5) / math.log(1.5) / math.log(1.5)

Ngram = tuple[str, ...]

# Perl's \s on character strings (Unicode White_Space). mteval splits words on it; Python's str.split would
# also split on U+001C..U+001F, which Perl keeps inside a word.
_PERL_WHITESPACE = re.compile("[\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")
# mteval-v13a tokenization converts these four SGML entities, in this order, and no others.
_MTEVAL_ENTITIES = (("&quot;", '"'), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"))
# mteval-v13a tokenization, "language-dependent part". Its first rule, s/([\{-\~\[-\` -\&\(-\+\:-\@\/])/ $1 /g,
# surrounds every ASCII symbol and punctuation mark except ' , - . with spaces, one character at a time: a
# translation table does the same, much faster than a regular expression that matches every space.
_MTEVAL_SYMBOLS = (
    "".join(
        chr(code)
        for low, high in ((0x20, 0x26), (0x28, 0x2B), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E))
        for code in range(low, high + 1)
    )
    + "/"
)
_MTEVAL_SYMBOL_SPACING = str.maketrans({symbol: f" {symbol} " for symbol in _MTEVAL_SYMBOLS})
# Its other rules, applied in order: period and comma unless preceded by a digit, unless followed by a digit; a
# dash after a digit.
_MTEVAL_SPLITS = (
    (re.compile(r"([^0-9])([.,])"), r"\1 \2 "),
    (re.compile(r"([.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
)
_ASCII_LOWERCASE = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def mteval_tokenize(segment: str, preserve_case: bool = True) -> list[str]:
    """Words of one segment as mteval-v13a reads and tokenises it (its SGML reader, then ``tokenization``).

    Whitespace runs become one space (the SGML reader), ``<skipped>`` is dropped, the four SGML entities are
    converted, ASCII letters are lowercased unless ``preserve_case`` (``-c``), punctuation is split off by the
    script's four rules, and words are split on Perl's ``\\s``. sacrebleu's ``13a`` tokenizer
    transcribes the same rules but splits on Python's whitespace, which differs on U+001C..U+001F.
    """
    text = _PERL_WHITESPACE.sub(" ", segment)
    text = text.replace("<skipped>", "")
    for entity, character in _MTEVAL_ENTITIES:
        text = text.replace(entity, character)
    if not preserve_case:
        text = text.translate(_ASCII_LOWERCASE)
    text = f" {text} ".translate(_MTEVAL_SYMBOL_SPACING)
    for pattern, replacement in _MTEVAL_SPLITS:
        text = pattern.sub(replacement, text)
    return [word for word in _PERL_WHITESPACE.split(text) if word]


def ngram_counts(tokens: Sequence[str], max_order: int) -> Counter[Ngram]:
    """Counts of every n-gram of ``tokens`` with 1 <= n <= max_order (mteval's ``Words2Ngrams``)."""
    counts: Counter[Ngram] = Counter()
    for n in range(1, max_order + 1):
        counts.update(zip(*(tokens[i:] for i in range(n)), strict=False))
    return counts


def prefix_is_perl_false(prefix: Ngram) -> bool:
    """True when mteval's ``$mgram ? ... : ...`` takes the total-words branch: the prefix joined with spaces
    is ``""`` (a unigram) or ``"0"`` (a bigram whose first word is ``0``), Perl's two false strings."""
    return len(prefix) == 0 or prefix == ("0",)


def information_weights(references: Iterable[Sequence[str]], max_order: int) -> dict[Ngram, float]:
    """mteval-v13a ``compute_ngram_info``: ``-log(count(w1..wn) / count(w1..wn-1)) / log(2)`` for every
    n-gram of the reference set (Doddington 2002, Eq. 2), the prefix count being the total number of reference
    words when :func:`prefix_is_perl_false`."""
    counts: Counter[Ngram] = Counter()
    total_words = 0
    for tokens in references:
        total_words += len(tokens)
        counts.update(ngram_counts(tokens, max_order))
    weights = {}
    for ngram, count in counts.items():
        prefix_count = total_words if prefix_is_perl_false(ngram[:-1]) else counts[ngram[:-1]]
        weights[ngram] = -math.log(count / prefix_count) / math.log(2)  # the script's own operations
    return weights


def reference_ngram_maxima(refs: Sequence[Sequence[str]], max_order: int) -> Mapping[Ngram, int]:
    """The largest count of each n-gram in any one of a segment's references (mteval's ``%ref_ngrams_max``)."""
    if len(refs) == 1:
        return ngram_counts(refs[0], max_order)
    maxima: dict[Ngram, int] = {}
    for ref in refs:
        for ngram, count in ngram_counts(ref, max_order).items():
            if count > maxima.get(ngram, 0):
                maxima[ngram] = count
    return maxima


def segment_statistics(
    hyp: Sequence[str],
    refs: Sequence[Sequence[str]],
    weights: dict[Ngram, float],
    max_order: int,
    max_ref_counts: Mapping[Ngram, int] | None = None,
) -> list[float]:
    """One segment's NIST statistics against its references ``refs`` (token lists, at least one): info-weighted
    matches per order, clipped to the largest count in any one reference, hypothesis n-gram counts per order,
    hypothesis length, mean reference length (mteval-v13a ``score_segment``). ``max_ref_counts``: the references'
    :func:`reference_ngram_maxima`, if the caller has them already (several hypotheses of one segment)."""
    if max_ref_counts is None:
        max_ref_counts = reference_ngram_maxima(refs, max_order)
    info = [0.0] * max_order
    for ngram, count in ngram_counts(hyp, max_order).items():
        ref_count = max_ref_counts.get(ngram)
        if ref_count:
            info[len(ngram) - 1] += weights[ngram] * min(count, ref_count)
    hyp_ngrams = [float(max(len(hyp) - n + 1, 0)) for n in range(1, max_order + 1)]
    ref_len = sum(len(ref) for ref in refs) / len(refs)
    return [*info, *hyp_ngrams, float(len(hyp)), ref_len]


def nist_brevity_penalty(hyp_len: np.ndarray, ref_len: np.ndarray) -> np.ndarray:
    """mteval-v13a ``nist_length_penalty``: ``exp(-beta * ln(c/r)^2)`` for ``0 < c/r < 1``, 1 for ``c >= r``,
    0 for ``c = 0``; a corpus with no reference words (``r = 0``) is given no penalty."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = hyp_len / ref_len
        log_ratio = portable.log(np.where((ratio > 0) & (ratio < 1), ratio, 1.0))
        penalty = portable.exp(-NIST_BETA * log_ratio * log_ratio)
    penalty = np.where(ratio <= 0, 0.0, penalty)
    return np.where((ratio >= 1) | (ref_len <= 0), 1.0, penalty)


class NIST(Metric):
    """NIST with mteval-v13a's definition (module docstring); raw scale (about 0-15).

    Statistics per segment (``k = 2 * max_order + 2``): ``info_1..info_5`` (information-weighted clipped
    matches), ``hyp_1grams..hyp_5grams`` (hypothesis n-gram counts), ``hyp_len``, ``ref_len`` (the mean over
    the segment's references). Options: ``lowercase=False`` (True: mteval without ``-c``), ``max_order=5``.
    ``refs`` may be one reference per segment or several reference streams (:attr:`multi_reference`).
    """

    name = "nist"
    higher_is_better = True
    multi_reference = True

    def __init__(self, lowercase: bool = False, max_order: int = NIST_MAX_ORDER) -> None:
        super().__init__(lowercase=lowercase, max_order=max_order)
        self.max_order = max_order
        self._reference_cache: tuple[list[list[str]], list[list[list[str]]], dict[Ngram, float]] | None = None
        self._word_tokens: dict[str, list[str]] = {}  # tokenize's cache

    @property
    def stat_names(self) -> tuple[str, ...]:
        orders = range(1, self.max_order + 1)
        return (*(f"info_{n}" for n in orders), *(f"hyp_{n}grams" for n in orders), "hyp_len", "ref_len")

    def tokenize(self, segment: str) -> list[str]:
        """mteval-v13a's words of a segment (:func:`mteval_tokenize`; ASCII-lowercased if ``lowercase``), computed
        word by word, each distinct word once. Exact: mteval's rules never act across whitespace (its entities
        and ``<skipped>`` contain none, lowercasing is per character, and its regular expressions use a space only
        as the first or last character of a match, never one a match in the neighbouring word needs)."""
        tokens = []
        for word in _PERL_WHITESPACE.split(segment):
            if word:
                word_tokens = self._word_tokens.get(word)
                if word_tokens is None:
                    preserve_case = not self.options["lowercase"]
                    word_tokens = self._word_tokens[word] = mteval_tokenize(word, preserve_case=preserve_case)
                tokens += word_tokens
        return tokens

    def reference_tables(self, refs: References) -> tuple[list[list[list[str]]], dict[Ngram, float]]:
        """Tokens of each segment's references (``[N][R]`` token lists) and the information weights of the
        whole reference set (every stream).

        The last result is kept, so that scoring several systems against the same references tokenises
        them and counts their n-grams once.
        """
        streams = reference_streams(refs)
        self._n_references = len(streams)
        if self._reference_cache is None or self._reference_cache[0] != streams:
            stream_tokens = [[self.tokenize(ref) for ref in stream] for stream in streams]
            weights = information_weights(
                (tokens for stream in stream_tokens for tokens in stream), self.max_order
            )
            # With several streams an empty string is no reference (module docstring of mtsig.metrics.base): it
            # adds no n-grams to the weights and is left out of the segment's mean reference length.
            several = len(streams) > 1
            if several:
                reference_sets(streams)  # raises for a segment with no reference at all
            by_segment = [
                [tokens for tokens, raw in zip(token_lists, raws, strict=True) if raw != "" or not several]
                for token_lists, raws in zip(
                    zip(*stream_tokens, strict=True), zip(*streams, strict=True), strict=True
                )
            ]
            self._reference_cache = (streams, by_segment, weights)
        return self._reference_cache[1], self._reference_cache[2]

    def stats(self, hyps: Sequence[str], refs: References) -> np.ndarray:
        """Per-segment NIST statistics ``[N, 2 * max_order + 2]``, information weights from all of ``refs`` (one
        reference per segment, or reference streams)."""
        if isinstance(hyps, str):
            raise InputError("hypotheses must be a sequence of segments, not one string")
        n_segments = len(reference_streams(refs)[0])
        if len(hyps) != n_segments:
            raise InputError(f"{len(hyps)} hypotheses but {n_segments} references")
        return self._pair_statistics(list(enumerate(hyps)), refs)

    def stats_many(
        self, systems: Mapping[str, Sequence[str]], refs: References, processes: int = 1
    ) -> np.ndarray:
        """:meth:`Metric.stats_many`. In one process each distinct (segment, hypothesis) pair is scored once
        (:func:`mtsig.metrics.base.distinct_segment_hypotheses`): the information weights are those of the whole
        reference set, the same for every system, so a segment's statistics depend only on its hypothesis."""
        if processes > 1:
            return super().stats_many(systems, refs, processes)
        n_segments = check_parallel(systems, refs, multi_reference=True)
        self._n_references = len(reference_streams(refs))
        index, pairs = distinct_segment_hypotheses(systems, n_segments)
        return self._pair_statistics(pairs, refs)[index]

    def _pair_statistics(self, pairs: Sequence[tuple[int, str]], refs: References) -> np.ndarray:
        """Statistics ``[P, k]`` of (segment index, hypothesis) pairs, information weights from all of ``refs``."""
        ref_tokens, weights = self.reference_tables(refs)
        # each segment's reference n-grams counted once, not once per pair
        maxima: dict[int, Mapping[Ngram, int]] = {}
        rows = []
        for i, hyp in pairs:
            if i not in maxima:
                maxima[i] = reference_ngram_maxima(ref_tokens[i], self.max_order)
            rows.append(
                segment_statistics(self.tokenize(hyp), ref_tokens[i], weights, self.max_order, maxima[i])
            )
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
        case = "lc-ascii" if self.options["lowercase"] else "mixed"
        return (
            f"NIST|mteval-v13a|nrefs:{self._n_references}|case:{case}|tok:mteval-v13a|ngram:{self.max_order}|"
            "info:reference-set"
        )
