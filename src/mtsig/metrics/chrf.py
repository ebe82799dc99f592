"""chrF (Popović 2015) from sacrebleu 2.6.0's per-segment statistics.

``CHRF.score`` transcribes sacrebleu's ``CHRF._compute_f_score`` with only ``+ - * /`` in sacrebleu's order, so
``score(stats.sum(0))`` equals sacrebleu's ``corpus_score`` bit for bit (the summed statistics are integers, exact in
float64).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from sacrebleu.metrics.chrf import CHRF as SacreCHRF

from mtsig.metrics.base import check_stats_width
from mtsig.metrics.sacrebleu_base import SacrebleuMetric

if TYPE_CHECKING:
    from mtsig.metrics.ngram_compiled import Encoder


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
