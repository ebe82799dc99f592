"""The word-by-word BLEU tokenisation (mtsig.metrics.tokenizers), used by BLEU's compiled statistics and by the
n-best study's x-best y-reference BLEU, against sacrebleu's own preprocessing of the whole line."""

from __future__ import annotations

import numpy as np
import pytest
from sacrebleu.metrics.bleu import BLEU as SacreBLEU

from mtsig.metrics.tokenizers import TokenIds, independent_pieces, word_by_word

# what 13a rewrites, where a rule meets whitespace: "-\n" joins a word hyphenated at a line break (the one rule that
# acts across whitespace), a lone newline is a space, entities, <skipped>, numbers, a final sigma, other spaces
LINES = [
    "state-\nof-the-art",
    "state- \nof the art",
    "a -\nb and c\nd",
    "end-\n",
    'It\'s 3.5-4, e.g. 1,000 "AT&amp;T" &amp;quot; x<skipped>y ΑΣ',
    "a .b c. ,d 3 ,5 3, 5 x- -y 9 -1 <skipped> &quot; . .. , ,",
    "a\x1cb c\xa0d e\u3000f\t.g ,h",
    "  ",
    "",
]


@pytest.mark.parametrize("lowercase", [False, True])
def test_word_by_word_equals_sacrebleu_on_the_whole_line(lowercase: bool) -> None:
    preprocess = SacreBLEU(lowercase=lowercase)._preprocess_segment
    tokenise = word_by_word(preprocess)
    assert [tokenise(line).split() for line in LINES] == [preprocess(line).split() for line in LINES]


def test_token_ids_are_sacrebleus_tokens() -> None:
    """Every line's ids, mapped back to tokens, are sacrebleu's tokens of the whole line; "-\\n" joins the halves
    of a hyphenated word, as 13a (and mteval-v13a) do, where a split on whitespace alone would keep them apart."""
    preprocess = SacreBLEU(lowercase=True)._preprocess_segment
    tokenise = TokenIds(preprocess)
    ids, lengths = tokenise(LINES)
    vocabulary = {token_id: token for token, token_id in tokenise._vocabulary.items()}
    lines = np.split(ids, np.cumsum(lengths)[:-1])
    assert [[vocabulary[int(i)] for i in line] for line in lines] == [
        preprocess(line).split() for line in LINES
    ]
    assert preprocess(LINES[0]).split() == ["stateof-the-art"]
    assert independent_pieces("state-\nof") == ["state-\nof"]
    assert independent_pieces(" a  b\t") == ["a", "b"]
