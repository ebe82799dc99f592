"""BLEU (Papineni et al. 2002) from sacrebleu 2.6.0's per-segment statistics, and sacrebleu's sentence BLEU.

:class:`BLEU` is corpus BLEU: its ``score`` transcribes sacrebleu's ``BLEU.compute_bleu`` operation by operation in
NumPy. BLEU needs ``log`` and ``exp``; NumPy's SIMD ``np.log``/``np.exp`` may differ from the C library's
``math.log``/``math.exp`` in the last unit in the last place, so BLEU agrees with sacrebleu to about 1e-15 relative,
not always bit for bit. Within mtsig every score goes through the same functions (:mod:`mtsig.runtime.portable`), whose
result for an element does not depend on the array's shape, so resampled and observed statistics are always scored
identically.

Sentence BLEU (:func:`sentence_bleu_scores`, :func:`sentence_bleu_of_statistics`) is a second convention:
``sacrebleu.sentence_bleu``, which scores one segment with exp smoothing and *effective order* (orders with no
hypothesis n-gram are left out of the geometric mean), where corpus BLEU on one segment is 0 whenever a 4-gram is
missing. It is computed by sacrebleu's own ``compute_bleu``, one segment at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import sacrebleu
from sacrebleu.metrics.bleu import BLEU as SacreBLEU

from mtsig.metrics.base import check_choice, check_stats_width
from mtsig.metrics.sacrebleu_base import SacrebleuMetric
from mtsig.metrics.tokenizers import word_by_word
from mtsig.runtime import portable

if TYPE_CHECKING:
    from mtsig.metrics.ngram_compiled import Encoder

# sacrebleu's floor for log(0) (sacrebleu.utils.my_log): a zero precision makes BLEU exactly 0.
_SACREBLEU_LOG_ZERO = -9999999999.0


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
        check_choice("BLEU", "smooth_method", smooth_method, self._SMOOTHINGS)
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


def sentence_bleu_scores(
    system_outputs: Mapping[str, Sequence[str]], references: Sequence[str]
) -> np.ndarray:
    """Smoothed sentence BLEU (``sacrebleu.sentence_bleu``, exp smoothing, effective order) per system and segment,
    ``[S, N]`` in the order of ``system_outputs``."""
    return np.array(
        [
            [sacrebleu.sentence_bleu(hyp, [ref]).score for hyp, ref in zip(hyps, references, strict=True)]
            for hyps in system_outputs.values()
        ]
    )


#: The BLEU options of ``sacrebleu.sentence_bleu`` that its statistics depend on (smoothing and effective order
#: act on the statistics, see :func:`sentence_bleu_of_statistics`).
SENTENCE_BLEU_STATISTICS_OPTIONS = {"lowercase": False, "tokenize": "13a", "max_ngram_order": 4}


def sentence_bleu_of_statistics(stats: np.ndarray) -> np.ndarray:
    """Smoothed sentence BLEU ``[S, N]`` from each segment's own BLEU statistics ``stats[S, N, 10]`` (the layout
    of :class:`BLEU`, sacrebleu's order), without tokenising the texts again.

    ``sacrebleu.sentence_bleu`` scores one segment's statistics with ``BLEU.compute_bleu`` (exp smoothing,
    effective order); this applies that same function to statistics already extracted with
    :data:`SENTENCE_BLEU_STATISTICS_OPTIONS` from one reference, so the scores equal
    :func:`sentence_bleu_scores`' (tests/test_rankeval.py checks every WMT12 es-en segment).
    """
    stats = np.asarray(stats)
    order = (stats.shape[-1] - 2) // 2
    rows = stats.reshape(-1, stats.shape[-1]).astype(np.int64).tolist()  # Python ints, as sacrebleu counts
    scores = [
        SacreBLEU.compute_bleu(
            row[2 : 2 + order],
            row[2 + order :],
            row[0],
            row[1],
            smooth_method="exp",
            effective_order=True,
            max_ngram_order=order,
        ).score
        for row in rows
    ]
    return np.array(scores, dtype=float).reshape(stats.shape[:-1])


def closest_reference_lengths(hypothesis_lengths: np.ndarray, sorted_lengths: np.ndarray) -> np.ndarray:
    """sacrebleu's effective reference length of every hypothesis: the closest reference length, the shorter one
    on a tie (``BLEU._get_closest_ref_len``), for sorted reference lengths."""
    position = np.searchsorted(sorted_lengths, hypothesis_lengths, side="left")
    shorter = sorted_lengths[np.maximum(position - 1, 0)]
    longer = sorted_lengths[np.minimum(position, sorted_lengths.size - 1)]
    return np.where(
        np.abs(shorter - hypothesis_lengths) <= np.abs(longer - hypothesis_lengths), shorter, longer
    )


def line_ngram_counts(
    ids: np.ndarray, lengths: np.ndarray, order: int, vocabulary_size: int
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Distinct n-grams of every line, for n = 1..order: per n, (line, n-gram code, count) of each distinct
    (line, n-gram), n-gram codes shared by all the lines given (``extract_all_word_ngrams`` as arrays).

    An n-gram's code is built from its (n-1)-gram prefix's code and its last token, renumbered densely at each n
    so that codes stay small whatever the vocabulary."""
    line_of = np.repeat(np.arange(lengths.size), lengths)
    start_of = np.repeat(np.cumsum(lengths) - lengths, lengths)
    position = np.arange(ids.size) - start_of  # position of each token within its line
    out = []
    codes = ids  # n-gram starting at each token (valid where it fits in the line)
    for n in range(1, order + 1):
        if n > 1:
            following = np.zeros_like(ids)  # the token n - 1 places on (0 past the end: masked below)
            following[: max(ids.size - n + 1, 0)] = ids[n - 1 :]
            codes = np.unique(codes * vocabulary_size + following, return_inverse=True)[1].astype(np.int64)
        fits = position + n <= lengths[line_of]
        span = int(codes.max()) + 1 if codes.size else 1
        keys, counts = np.unique(line_of[fits] * span + codes[fits], return_counts=True)
        out.append((keys // span, keys % span, counts))
    return out


def sentence_bleu_if_extracted_alike(
    stats: np.ndarray, options: Mapping[str, object], one_reference: bool
) -> np.ndarray | None:
    """Smoothed sentence BLEU ``[S, N]`` as ``sacrebleu.sentence_bleu`` gives it against the first reference, from
    BLEU statistics extracted with ``options`` (:func:`sentence_bleu_of_statistics`) when they were extracted as
    ``sentence_bleu`` extracts them (its tokenisation and case, one reference): far faster than
    tokenising every output again. None otherwise (the caller scores the texts)."""
    wanted = SENTENCE_BLEU_STATISTICS_OPTIONS
    if one_reference and all(options.get(key) == value for key, value in wanted.items()):
        return sentence_bleu_of_statistics(stats)
    return None
