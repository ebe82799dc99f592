"""The compiled chrF and BLEU statistics (mtsig.metrics.ngram_compiled, used by ``stats_many``) against their
oracle, sacrebleu 2.6.0's own ``_extract_corpus_statistics``, system by system: edge cases, other orders and
options, the fallback to sacrebleu, and every segment of every WMT12 en-es and es-en system."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sacrebleu.metrics.bleu import BLEU as SacreBLEU
from sacrebleu.metrics.chrf import CHRF as SacreCHRF

from mtsig.io.text import load_texts
from mtsig.metrics import get_metric
from mtsig.metrics.ngram_compiled import encode_characters, ngram_match_counts


def sacrebleu_stats(
    name: str, systems: dict[str, list[str]], refs: list[str], **options: object
) -> np.ndarray:
    oracle = SacreBLEU(**options) if name == "bleu" else SacreCHRF(**options)
    return np.stack(
        [
            np.asarray(oracle._extract_corpus_statistics(hyps, [refs]), dtype=np.float64)
            for hyps in systems.values()
        ]
    )


EDGE_REFS = [
    "the cat sat on the mat",
    "",  # an empty reference: no reference n-grams, so sacrebleu reports no hypothesis n-grams either
    "ab",  # shorter than most orders
    "aaaa aaaa",  # repeated n-grams: matches are clipped to the reference's counts
    "Größe 😀 naïve",  # non-ASCII and a character outside the BMP
    "x\u2003y\tz",  # whitespace other than the space
    # what BLEU's 13a tokenizer rewrites: "-\n" joins words, entities, <skipped>, numbers, a final sigma
    "state-\nof-the-art &quot;model&quot; <skipped> 3.5, x. ΑΣ ,a .b",
]
EDGE_SYSTEMS = {
    "a": [
        "the cat sat on the mat",
        "something",
        "abc",
        "aaaaaaaaaaaa",
        "grösse 😀😀 naive",
        "xyz",
        "stateof-the-art",
    ],
    "b": [
        "",
        "",
        "a b",
        "aa",
        "Größe 😀 naïve",
        " x y z ",
        'state-\nof-the-art "model" 3.5 , x . ασ , a . b',
    ],
    "c": [
        "mat the on sat cat the",
        "x",
        "ba",
        "a a a a a a a a",
        "😀",
        "\u3000",
        "<skipped> &amp; 3,5.x.. ΑΣ.Σ",
    ],
}


@pytest.mark.parametrize("name", ["bleu", "chrf"])
@pytest.mark.parametrize("lowercase", [False, True])
def test_edge_cases_equal_sacrebleu(name: str, lowercase: bool) -> None:
    metric = get_metric(name, lowercase=lowercase)
    expected = sacrebleu_stats(name, EDGE_SYSTEMS, EDGE_REFS, lowercase=lowercase)
    assert np.array_equal(metric.stats_many(EDGE_SYSTEMS, EDGE_REFS), expected)


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("chrf", {"char_order": 1}),
        ("chrf", {"char_order": 3}),
        ("chrf", {"char_order": 8}),
        ("chrf", {"word_order": 2}),  # chrF++: sacrebleu's code
        ("chrf", {"whitespace": True}),  # sacrebleu's code
        ("bleu", {"max_ngram_order": 2}),
        ("bleu", {"max_ngram_order": 6}),
        ("bleu", {"tokenize": "char"}),
        ("bleu", {"tokenize": "none"}),
    ],
)
def test_other_orders_and_options_equal_sacrebleu(name: str, options: dict[str, object]) -> None:
    metric = get_metric(name, **options)
    expected = sacrebleu_stats(name, EDGE_SYSTEMS, EDGE_REFS, **options)
    assert np.array_equal(metric.stats_many(EDGE_SYSTEMS, EDGE_REFS), expected)


def test_too_many_distinct_characters_fall_back_to_sacrebleu() -> None:
    """2 000 distinct characters do not fit exact 6-gram codes in 64 bits: the compiled function declines and
    stats_many gives sacrebleu's statistics all the same."""
    alphabet = "".join(chr(0x4E00 + i) for i in range(2000))
    refs = [alphabet[:1000], alphabet[1000:]]
    systems = {"a": [alphabet[:1000:-1], alphabet[1000:1500]]}
    assert ngram_match_counts(systems["a"], refs, np.array([0, 1]), 6, encode_characters) is None
    assert np.array_equal(
        get_metric("chrf").stats_many(systems, refs), sacrebleu_stats("chrf", systems, refs)
    )


def _wmt12(data_root: Path, pair: str) -> tuple[list[str], dict[str, list[str]]]:
    folder = data_root / "wmt12"
    outputs = {
        path.name.split(".")[-1]: path for path in sorted((folder / "system-outputs" / pair).iterdir())
    }
    refs, systems = load_texts(folder / "plain" / f"newstest2012-ref.{pair[-2:]}", outputs, unescape=True)
    assert len(systems) >= 11 and len(refs) == 3003
    return refs, systems


@pytest.mark.parametrize("name", ["bleu", "chrf"])
@pytest.mark.parametrize("pair", ["es-en", "en-es"])
def test_every_10th_wmt12_segment_of_every_system_equals_sacrebleu(
    data_root: Path, pair: str, name: str
) -> None:
    """The default suite's share of the test below (301 of 3003 segments; the whole set with ``-m slow``)."""
    refs, systems = _wmt12(data_root, pair)
    refs, systems = refs[::10], {s: lines[::10] for s, lines in systems.items()}
    assert np.array_equal(get_metric(name).stats_many(systems, refs), sacrebleu_stats(name, systems, refs))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["bleu", "chrf"])
@pytest.mark.parametrize("pair", ["es-en", "en-es"])
def test_every_wmt12_system_equals_sacrebleu(data_root: Path, pair: str, name: str) -> None:
    refs, systems = _wmt12(data_root, pair)
    assert np.array_equal(get_metric(name).stats_many(systems, refs), sacrebleu_stats(name, systems, refs))
