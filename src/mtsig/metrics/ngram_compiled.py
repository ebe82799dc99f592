"""sacrebleu 2.6.0's n-gram match counts for chrF and BLEU, compiled with numba: the same integers, several times
faster.

For one reference per segment, both metrics' statistics reduce to three integers per n-gram order ``n`` of a
hypothesis ``h`` and its reference ``r``, each a sequence of units (chrF: the characters of the line without
whitespace, ``"".join(line.split())``; BLEU: the words of sacrebleu's tokenised line, ``line.split()``):

- the hypothesis n-gram count ``max(len(h) - n + 1, 0)`` (sacrebleu sums the counts of ``Counter`` n-grams);
- the reference n-gram count ``max(len(r) - n + 1, 0)``;
- the matches: the sum over distinct n-grams of ``min(count in h, count in r)`` (sacrebleu's
  ``CHRF._get_match_statistics`` and the clipped counts of ``BLEU._compute_segment_statistics``).

:func:`ngram_match_counts` computes exactly these. Units become dense ids (one table per chunk of pairs for the
hypotheses and their references), an n-gram the integer ``sum(id_k * V**(n-1-k))`` with ``V`` the number of
distinct units, exact while ``V**order < 2**63`` (e.g. 1 448 characters for chrF's order 6, 55 108 words for
BLEU's order 4; otherwise the function returns None and the caller uses sacrebleu); the matches are a merge of
the sorted n-gram codes of the hypothesis and of its reference (whose codes are sorted once per chunk).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numba import njit

from mtsig.runtime.numba_compilation import compile_once

#: Pairs per chunk: bounds the memory of the unit ids and sorted reference n-grams, so that the statistics' own
#: array dominates.
PAIR_CHUNK = 50_000

#: ``encode(hypotheses, references) -> (hyp_ids, hyp_bounds, ref_ids, ref_bounds, n_distinct_units)``: flat int64
#: unit ids from one table, each line's ``[start, end)`` bounds, and the size of the table.
Encoder = Callable[[Sequence[Any], Sequence[Any]], tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]]


def _bounds(lengths: Sequence[int]) -> np.ndarray:
    bounds = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=bounds[1:])
    return bounds


def encode_characters(
    hyps: Sequence[str], refs: Sequence[str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """chrF's units: the characters of each line without whitespace (as sacrebleu strips it). A Python string's
    length counts code points, as UTF-32 does (``surrogatepass`` keeps lone surrogates)."""
    hyps = ["".join(line.split()) for line in hyps]
    refs = ["".join(line.split()) for line in refs]
    codes = np.frombuffer("".join([*hyps, *refs]).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    alphabet, ids = np.unique(codes, return_inverse=True)
    ids = ids.astype(np.int64).reshape(-1)
    hyp_bounds = _bounds([len(line) for line in hyps])
    return (
        ids[: hyp_bounds[-1]],
        hyp_bounds,
        ids[hyp_bounds[-1] :],
        _bounds([len(line) for line in refs]),
        len(alphabet),
    )


def encode_words(
    hyps: Sequence[str], refs: Sequence[str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """BLEU's units: the whitespace-separated words of each (tokenised) line."""
    table: dict[str, int] = {}
    flat = []
    for lines in (hyps, refs):
        words = [line.split() for line in lines]
        flat += [
            np.array([table.setdefault(word, len(table)) for line in words for word in line], dtype=np.int64),
            _bounds([len(line) for line in words]),
        ]
    return flat[0], flat[1], flat[2], flat[3], len(table)


@njit(cache=True, nogil=True)
def _ngram_codes(ids, first: int, last: int, n: int, base: int):
    """Codes of the n-grams of ``ids[first:last]`` in order: ``sum(id_k * base**(n-1-k))``."""
    count = max(last - first - n + 1, 0)
    codes = np.empty(count, dtype=np.int64)
    for i in range(count):
        code = 0
        for k in range(n):
            code = code * base + ids[first + i + k]
        codes[i] = code
    return codes


@njit(cache=True, nogil=True)
def _sorted_reference_codes(ref_ids, ref_bounds, order: int, base: int):
    """Every reference's sorted n-gram codes for n = 1..order, flat, and their ``[R, order + 1]`` offsets."""
    n_refs = ref_bounds.shape[0] - 1
    offsets = np.zeros((n_refs, order + 1), dtype=np.int64)
    total = 0
    for r in range(n_refs):
        length = ref_bounds[r + 1] - ref_bounds[r]
        offsets[r, 0] = total
        for n in range(1, order + 1):
            total += max(length - n + 1, 0)
            offsets[r, n] = total
    flat = np.empty(total, dtype=np.int64)
    for r in range(n_refs):
        for n in range(1, order + 1):
            codes = _ngram_codes(ref_ids, ref_bounds[r], ref_bounds[r + 1], n, base)
            codes.sort()
            flat[offsets[r, n - 1] : offsets[r, n]] = codes
    return flat, offsets


@njit(cache=True, nogil=True)
def _matches(hyp_sorted, ref_sorted) -> int:
    """Sum over distinct codes of ``min(count in hyp, count in ref)``, both arrays sorted."""
    i = j = matches = 0
    while i < hyp_sorted.shape[0] and j < ref_sorted.shape[0]:
        if hyp_sorted[i] < ref_sorted[j]:
            i += 1
        elif hyp_sorted[i] > ref_sorted[j]:
            j += 1
        else:
            code = hyp_sorted[i]
            in_hyp = in_ref = 0
            while i < hyp_sorted.shape[0] and hyp_sorted[i] == code:
                in_hyp += 1
                i += 1
            while j < ref_sorted.shape[0] and ref_sorted[j] == code:
                in_ref += 1
                j += 1
            matches += min(in_hyp, in_ref)
    return matches


@njit(cache=True, nogil=True)
def _pair_counts(hyp_ids, hyp_bounds, ref_of_pair, ref_flat, ref_offsets, order: int, base: int):
    """``[P, order, 3]``: hypothesis n-grams, reference n-grams and matches of each pair and order."""
    n_pairs = hyp_bounds.shape[0] - 1
    out = np.zeros((n_pairs, order, 3), dtype=np.int64)
    for p in range(n_pairs):
        r = ref_of_pair[p]
        hyp_length = hyp_bounds[p + 1] - hyp_bounds[p]
        for n in range(1, order + 1):
            ref_sorted = ref_flat[ref_offsets[r, n - 1] : ref_offsets[r, n]]
            hyp_count = max(hyp_length - n + 1, 0)
            out[p, n - 1, 0] = hyp_count
            out[p, n - 1, 1] = ref_sorted.shape[0]
            if hyp_count > 0 and ref_sorted.shape[0] > 0:
                hyp_sorted = _ngram_codes(hyp_ids, hyp_bounds[p], hyp_bounds[p + 1], n, base)
                hyp_sorted.sort()
                out[p, n - 1, 2] = _matches(hyp_sorted, ref_sorted)
    return out


def _warm_up() -> None:
    """The kernels called once on a tiny input, with the argument types of every call (int64 ids and bounds)."""
    ids = np.zeros(1, dtype=np.int64)
    bounds = np.array([0, 1], dtype=np.int64)
    ref_flat, ref_offsets = _sorted_reference_codes(ids, bounds, 2, 1)
    _pair_counts(ids, bounds, np.zeros(1, dtype=np.int64), ref_flat, ref_offsets, 2, 1)


def ngram_match_counts(
    hyps: Sequence[str], refs: Sequence[str], ref_of_pair: np.ndarray, order: int, encode: Encoder
) -> np.ndarray | None:
    """``[P, order, 3]`` int64: the hypothesis n-grams, reference n-grams and matches (module docstring) of each
    line ``hyps[p]`` against its single reference ``refs[ref_of_pair[p]]``, units given by ``encode``
    (:func:`encode_characters`, :func:`encode_words`); None when a chunk has too many distinct units for exact
    n-gram codes."""
    compile_once(__file__, _warm_up)
    ref_of_pair = np.asarray(ref_of_pair, dtype=np.int64)
    out = np.zeros((len(hyps), order, 3), dtype=np.int64)
    for first in range(0, len(hyps), PAIR_CHUNK):
        last = min(first + PAIR_CHUNK, len(hyps))
        used, local_ref = np.unique(ref_of_pair[first:last], return_inverse=True)
        hyp_ids, hyp_bounds, ref_ids, ref_bounds, n_units = encode(hyps[first:last], [refs[r] for r in used])
        base = max(n_units, 1)
        if base**order >= 2**63:
            return None
        ref_flat, ref_offsets = _sorted_reference_codes(ref_ids, ref_bounds, order, base)
        out[first:last] = _pair_counts(
            hyp_ids, hyp_bounds, local_ref.reshape(-1), ref_flat, ref_offsets, order, base
        )
    return out
