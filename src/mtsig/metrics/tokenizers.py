"""sacrebleu's BLEU preprocessing of a line (its ``13a`` tokenizer and the others it names), computed word by word.

sacrebleu tokenises a whole line (``Tokenizer13a.__call__``: delete ``<skipped>``, delete ``-\\n``, turn every other
``\\n`` into a space, unescape four SGML entities, then four regular expressions on the line padded with spaces).
Real text repeats its words, so preprocessing each distinct whitespace-separated word once and joining the results
gives the same tokens in a fraction of the time. Every caller in mtsig (BLEU's compiled statistics,
:mod:`mtsig.metrics.bleu`; the x-best y-reference BLEU of :mod:`mtsig.studies.nbest`) cuts its lines with
:func:`independent_pieces`, so BLEU is tokenised one way everywhere.

Why a word can be preprocessed alone: 13a pads the line with spaces and its four regular expressions use a
whitespace character only as the first character of a match (``[^0-9]`` before ``.`` or ``,``) or as the last
(``[.,]`` then ``[^0-9]``), never one that a match in the neighbouring word would need; its replacements
(``<skipped>`` deleted, ``&quot;`` ...) contain no whitespace, and lowercasing is per character (a final sigma is
final in its word either way).

The one rule that acts across whitespace is ``-\\n`` deleted, which joins the two halves of a word hyphenated at a
line break (mteval-v13a's ``s/-\\n//g; # strip end-of-line hyphenation and join lines``, whose segments came from
SGML ``<seg>`` elements that could span several lines; sacrebleu's ``Tokenizer13a`` keeps the rule). A line
holding a newline is therefore preprocessed whole, as sacrebleu does; a segment read from a file never holds one
(segments are lines), so there the rule cannot act and the word-by-word result equals the whole line's either way.
Other tokenizers (``intl``, ``char``, ``zh``, ...) are applied word by word only by callers that have checked the
tokenizer is ``13a`` (:meth:`mtsig.metrics.bleu.BLEU._compiled_preprocess`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np


def independent_pieces(line: str) -> list[str]:
    """The pieces of ``line`` that sacrebleu's 13a preprocessing treats independently: its whitespace-separated
    words, or the whole line when it holds a newline (``-\\n`` joins words across it)."""
    return [line] if "\n" in line else line.split()


def word_by_word(preprocess: Callable[[str], str]) -> Callable[[str], str]:
    """``preprocess`` (sacrebleu's BLEU preprocessing: lowercase, ``13a``) of a line computed piece by piece
    (:func:`independent_pieces`), each distinct piece once, the pieces' results joined by spaces: the same tokens
    once split on whitespace. Tested against sacrebleu on every WMT12 system and edge cases
    (tests/test_ngram_compiled.py, tests/test_tokenizers.py)."""
    cache: dict[str, str] = {}

    def apply(line: str) -> str:
        tokens = []
        for piece in independent_pieces(line):
            tokenised = cache.get(piece)
            if tokenised is None:
                tokenised = cache[piece] = preprocess(piece)
            tokens.append(tokenised)
        return " ".join(tokens)

    return apply


class TokenIds:
    """``preprocess`` of lines (sacrebleu's BLEU preprocessing) as integer token ids, piece by piece
    (:func:`independent_pieces`) with a cache: token ``t`` of the preprocessed line is ``ids[t]``, ids numbered in
    order of first appearance across all lines given to this object."""

    def __init__(self, preprocess: Callable[[str], str]) -> None:
        self._preprocess = preprocess
        self._vocabulary: dict[str, int] = {}
        self._pieces: dict[str, list[int]] = {}

    def _piece(self, piece: str) -> list[int]:
        tokens = self._preprocess(piece).split()
        return [self._vocabulary.setdefault(token, len(self._vocabulary)) for token in tokens]

    def __call__(self, lines: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """(token ids of every line concatenated, token count of every line)."""
        pieces, ids, lengths = self._pieces, [], np.zeros(len(lines), dtype=np.int64)
        for index, line in enumerate(lines):
            start = len(ids)
            for piece in independent_pieces(line):
                tokens = pieces.get(piece)
                if tokens is None:
                    tokens = pieces[piece] = self._piece(piece)
                ids.extend(tokens)
            lengths[index] = len(ids) - start
        return np.asarray(ids, dtype=np.int64), lengths

    @property
    def vocabulary_size(self) -> int:
        """The number of distinct tokens seen so far (at least 1, so that it can serve as a radix)."""
        return max(len(self._vocabulary), 1)
