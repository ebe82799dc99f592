"""TER (Snover et al. 2006) as sacrebleu 2.6.0's Tercom reimplementation computes it.

The edit counts are by default those of a compiled transcription of sacrebleu's shift search and beam edit distance
(:mod:`mtsig.metrics.ter_compiled`), tested bit-identical to it on sacrebleu's own tokens. ``TER.score`` transcribes
``TER._compute_score_from_stats`` with only ``+ - * /`` in sacrebleu's order, so ``score(stats.sum(0))`` equals
sacrebleu's ``corpus_score`` bit for bit (with three or more references the mean reference lengths are fractions,
whose sums agree to rounding).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from sacrebleu.metrics.ter import TER as SacreTER

from mtsig.metrics.base import References, check_choice, check_hypotheses, check_stats_width
from mtsig.metrics.sacrebleu_base import SacrebleuMetric, sacrebleu_reference_streams


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
        sacrebleu_options = {
            "normalized": normalized,
            "no_punct": no_punct,
            "asian_support": asian_support,
            "case_sensitive": case_sensitive,
        }
        # implementation is ours alone: which code computes the statistics (sacrebleu has one)
        super().__init__(**sacrebleu_options, implementation=implementation)
        check_choice("TER", "implementation", implementation, self.IMPLEMENTATIONS)
        self._sacrebleu = SacreTER(**sacrebleu_options)

    @property
    def stat_names(self) -> tuple[str, ...]:
        return ("edits", "ref_len")

    def stats(self, hyps: Sequence[str], refs: References) -> np.ndarray:
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
