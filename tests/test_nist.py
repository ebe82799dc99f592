"""NIST against NIST's own mteval-v13a.pl (``-c``): the published WMT12 es-en scores and hand-worked cases.

Oracles: the mteval-v13a scores of the 12 WMT12 es-en systems shipped with the data (``wmt12/oracles``); the
scores mteval-v13a.pl prints without ``-c`` on the same inputs (quoted); hand arithmetic for each rule of the
script, every case also run through mteval-v13a.pl (the value it prints is quoted next to the case). NLTK's ``corpus_nist`` is a second opinion that differs in one documented rule.
"""

from __future__ import annotations

import csv
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import yaml
from nltk.translate.nist_score import corpus_nist
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from mtsig import config as mtsig_config
from mtsig.io.text import load_texts
from mtsig.metrics import get_metric
from mtsig.metrics.nist import NIST_BETA, information_weights, mteval_tokenize, segment_statistics
from mtsig.pipeline import metric_options


@pytest.fixture(scope="module")
def wmt12_es_en(data_root: Path, repo_root: Path) -> tuple[dict, list[str], dict[str, list[str]]]:
    """The pipeline's texts of WMT12 es-en: its experiment config, read and unescaped as the pipeline does."""
    config = yaml.safe_load((repo_root / "config" / "wmt12-es-en.yaml").read_text(encoding="utf-8"))
    spec = mtsig_config.experiment(config, "wmt12-es-en")
    refs, outputs = load_texts(
        mtsig_config.data_path(data_root, spec["reference"]),
        mtsig_config.output_paths(spec, data_root),
        unescape=bool(spec["unescape_html"]),
    )
    return spec, refs, outputs


def mteval_oracle(data_root: Path) -> dict[str, float]:
    """System -> NIST printed by ``mteval-v13a.pl -c --metricsMATR-output`` (file made by the data's curators)."""
    with (data_root / "wmt12" / "oracles" / "nist_mteval-v13a_es-en.tsv").open(encoding="utf-8") as handle:
        return {row["system"]: float(row["nist"]) for row in csv.DictReader(handle, delimiter="\t")}


def bp(ratio: float) -> float:
    """Doddington's (2002, Eq. 3) brevity penalty, for hand calculations."""
    return math.exp(-NIST_BETA * math.log(ratio) ** 2)


def test_nist_equals_mteval_v13a_on_every_wmt12_es_en_system(wmt12_es_en, data_root: Path) -> None:
    spec, refs, outputs = wmt12_es_en
    oracle = mteval_oracle(data_root)
    assert sorted(oracle) == sorted(spec["systems"]) and len(oracle) == 12
    nist = get_metric("nist", **metric_options(spec, "nist"))
    stats = nist.stats_many(outputs, refs)
    scores = dict(zip(outputs, nist.score(stats.sum(axis=1)).tolist(), strict=True))
    for system, expected in oracle.items():
        # The oracle prints 15 significant digits; the remaining difference is float summation order (~1e-15).
        assert scores[system] == pytest.approx(expected, rel=1e-10, abs=0), system
    # Resampling's contract: the corpus score is the score of the summed per-segment statistics, per system.
    single = nist.stats(outputs["onlineB"], refs)
    assert float(nist.score(single.sum(0))) == scores["onlineB"]


def test_lowercase_equals_mteval_v13a_without_c_on_wmt12(wmt12_es_en) -> None:
    """``lowercase=True`` is mteval's default (no ``-c``): ASCII A-Z only. Oracle: mteval-v13a.pl without ``-c``
    on the inputs of the oracle file. Python's Unicode ``str.lower`` would give UPC 8.18703 (334 WMT12 es-en
    segments hold non-ASCII capitals)."""
    _, refs, outputs = wmt12_es_en
    mteval_lowercased = {"onlineB": 9.07943982382522, "UPC": 8.18501838087616, "GTH-UPM": 7.9816865808594}
    nist = get_metric("nist", lowercase=True)
    for system, expected in mteval_lowercased.items():
        score = nist.score(nist.stats(outputs[system], refs).sum(0))
        assert score == pytest.approx(expected, rel=1e-10, abs=0), system


def test_hand_calculation_length_ratio_two_thirds() -> None:
    """Reference "a b a", hypothesis "a b" (mteval-v13a -c prints 1.04248125036058)."""
    nist = get_metric("nist")
    stats = nist.stats(["a b"], ["a b a"])
    # Reference words 3; counts a:2, b:1, "a b":1, "b a":1, "a b a":1.
    info_a, info_b, info_ab = math.log2(3 / 2), math.log2(3 / 1), math.log2(2 / 1)
    expected = [info_a + info_b, info_ab, 0, 0, 0, 2, 1, 0, 0, 0, 2, 3]
    np.testing.assert_allclose(stats[0], expected, rtol=1e-15)
    # Length ratio 2/3 = 1/1.5: NIST's penalty was designed to be exactly 0.5 there.
    precision_sum = (info_a + info_b) / 2 + info_ab / 1
    assert nist.score(stats.sum(0)) == pytest.approx(0.5 * precision_sum, rel=1e-14)
    assert nist.score(stats.sum(0)) == pytest.approx(1.04248125036058, rel=1e-13)
    assert bp(2 / 3) == pytest.approx(0.5, rel=1e-15)


def test_bigram_after_the_word_0_is_weighted_by_total_reference_words() -> None:
    """mteval tests the bigram's prefix for Perl truth, and the string "0" is false.

    References "0 x" / "0 y", hypotheses "0 x" / "z". Reference words 4; counts 0:2, x:1, y:1, "0 x":1, "0 y":1.
    info(0) = log2(4/2) = 1, info(x) = log2(4/1) = 2, info("0 x") = log2(4/1) = 2 with mteval's rule (total
    words) where the true prefix count would give log2(2/1) = 1. Hypothesis: 3 unigrams (0, x, z), 1 bigram;
    length ratio 3/4. mteval-v13a -c prints 2.11631771199409 = (3/3 + 2/1) * BP(3/4).
    """
    nist = get_metric("nist")
    hyps, refs = ["0 x", "z"], ["0 x", "0 y"]
    score = float(nist.score(nist.stats(hyps, refs).sum(0)))
    assert score == pytest.approx(3 * bp(3 / 4), rel=1e-14)
    assert score == pytest.approx(2.11631771199409, rel=1e-13)
    # NLTK's corpus_nist uses the true prefix count: (3/3 + 1/1) * BP(3/4). (n=2: with no hypothesis trigram
    # NLTK divides by zero, where mteval divides by max(0, 1).)
    nltk = corpus_nist([[ref.split()] for ref in refs], [hyp.split() for hyp in hyps], n=2)
    assert nltk == pytest.approx(2 * bp(3 / 4), rel=1e-14)
    # "0.0" is a true Perl string: the same layout with the word 0.0 takes the true prefix count
    # (mteval-v13a -c prints 1.41087847466273).
    same_with_true_prefix = nist.score(nist.stats(["0.0 x", "z"], ["0.0 x", "0.0 y"]).sum(0))
    assert same_with_true_prefix == pytest.approx(2 * bp(3 / 4), rel=1e-14)


def test_information_weights_prefix_rule() -> None:
    # Reference words 5; counts 0:1, x:2, w:1, 0.0:1, "0 x":1, "x w":1, "0.0 x":1, "0 x w":1.
    weights = information_weights([["0", "x", "w"], ["0.0", "x"]], max_order=3)
    assert weights[("x",)] == pytest.approx(math.log2(5 / 2), rel=1e-15)
    assert weights[("0", "x")] == pytest.approx(math.log2(5 / 1), rel=1e-15)  # prefix "0": total words
    assert weights[("x", "w")] == pytest.approx(math.log2(2 / 1), rel=1e-15)
    assert weights[("0.0", "x")] == 0.0  # prefix "0.0" is true in Perl: count("0.0") / count("0.0 x") = 1
    assert weights[("0", "x", "w")] == 0.0  # prefix "0 x" is a true string too
    # The prefix count comes from the whole reference set, not the n-gram's own segment.
    weights = information_weights([["x", "y"], ["x", "z"]], max_order=2)
    assert weights[("x",)] == pytest.approx(math.log2(4 / 2), rel=1e-15)
    assert weights[("x", "y")] == pytest.approx(math.log2(2 / 1), rel=1e-15)


def test_clipping_to_the_reference_count() -> None:
    """Hypothesis "a a a", reference "a b a": a matches min(3, 2) = 2 times, "a a" never; ratio 1, no penalty.
    2 * log2(3/2) / 3 (mteval-v13a -c prints 0.389975000480771)."""
    nist = get_metric("nist")
    stats = nist.stats(["a a a"], ["a b a"])
    assert stats[0, :5].tolist() == pytest.approx([2 * math.log2(3 / 2), 0, 0, 0, 0], rel=1e-15)
    assert nist.score(stats.sum(0)) == pytest.approx(2 * math.log2(3 / 2) / 3, rel=1e-14)
    assert nist.score(stats.sum(0)) == pytest.approx(0.389975000480771, rel=1e-13)


def test_brevity_penalty_is_on_corpus_totals_and_its_edges() -> None:
    nist = get_metric("nist")
    # References "a b" / "a", hypotheses "" / "a": words 3, info(a) = log2(3/2); one hypothesis unigram;
    # ratio 1/3 over the corpus. The empty segment alone scores 0 (ratio 0). mteval-v13a -c: corpus
    # 0.00360687367239029, segments 0 and 0.584962500721156.
    stats = nist.stats(["", "a"], ["a b", "a"])
    assert nist.score(stats.sum(0)) == pytest.approx(math.log2(3 / 2) * bp(1 / 3), rel=1e-14)
    assert nist.score(stats.sum(0)) == pytest.approx(0.00360687367239029, rel=1e-13)
    assert nist.score(stats).tolist() == pytest.approx([0.0, math.log2(3 / 2)], rel=1e-15)
    # Longer than the reference: no penalty. "a b c d" vs "a b": (1 + 1) / 4 + 0 / 3 (mteval prints 0.5).
    assert nist.score(nist.stats(["a b c d"], ["a b"]).sum(0)) == 0.5
    # Orders without hypothesis n-grams divide by max(count, 1) = 1 and add nothing: "b" vs "a b" is
    # info(b) = log2(2/1) = 1 times BP(1/2) (mteval-v13a -c prints 0.131904998821094).
    score = nist.score(nist.stats(["b"], ["a b"]).sum(0))
    assert score == pytest.approx(1 * bp(1 / 2), rel=1e-14)
    assert score == pytest.approx(0.131904998821094, rel=1e-13)


def test_mteval_tokenization_rules() -> None:
    # Each token list below is what mteval-v13a.pl -c -d 3 prints for the segment.
    text = 'It\'s 3.5-4, e.g. 1,000 "AT&amp;T" &amp;quot; x<skipped>y'
    assert mteval_tokenize(text) == [
        *["It's", "3.5", "-", "4", ",", "e", ".", "g", ".", "1,000"],
        *['"', "AT", "&", "T", '"', "&", "quot", ";", "xy"],
    ]
    # Words split on Perl's \s: no-break space and U+3000 split, U+001C (a Python str.split separator) does not.
    assert mteval_tokenize("a\x1cb c\xa0d e\u3000f") == ["a\x1cb", "c", "d", "e", "f"]
    assert Tokenizer13a()("a\x1cb").split() == ["a", "b"]  # why mtsig does not use sacrebleu's 13a here
    # Without -c mteval lowercases ASCII A-Z only (tr/[A-Z]/[a-z]/).
    assert get_metric("nist", lowercase=True).tokenize("ÉCOLE The Cat.") == ["École", "the", "cat", "."]
    assert get_metric("nist").tokenize("The Cat.") == ["The", "Cat", "."]
    assert "case:lc-ascii" in get_metric("nist", lowercase=True).details()


def test_tokenization_equals_sacrebleu_13a_on_wmt12(wmt12_es_en) -> None:
    """sacrebleu's 13a transcribes the same rules; on real text (no U+001C..U+001F) the words are identical."""
    _, refs, outputs = wmt12_es_en
    tokenizer = Tokenizer13a()
    segments = [*refs, *(hyp for hyps in outputs.values() for hyp in hyps)]
    assert [mteval_tokenize(s) for s in segments] == [tokenizer(s.rstrip()).split() for s in segments]


def test_nltk_corpus_nist_differs_only_by_the_zero_prefix_rule(wmt12_es_en) -> None:
    """NLTK's corpus_nist is lower than mteval on WMT12; renaming the word "0" removes the only difference."""
    _, refs, outputs = wmt12_es_en
    nist = get_metric("nist")
    ref_tokens = [nist.tokenize(ref) for ref in refs]
    assert Counter(token for tokens in ref_tokens for token in tokens)["0"] > 0

    def renamed(tokens: list[str]) -> list[str]:
        return ["<zero>" if token == "0" else token for token in tokens]  # "<zero>" is never an mteval word

    for system in ("onlineB", "UPC"):
        hyp_tokens = [nist.tokenize(hyp) for hyp in outputs[system]]
        ours = float(nist.score(nist.stats(outputs[system], refs).sum(0)))
        nltk = corpus_nist([[tokens] for tokens in ref_tokens], hyp_tokens, n=5)
        assert ours - nltk > 1e-3
        refs_renamed = [renamed(tokens) for tokens in ref_tokens]
        hyps_renamed = [renamed(tokens) for tokens in hyp_tokens]
        weights = information_weights(refs_renamed, 5)
        stats = np.array(
            [segment_statistics(h, r, weights, 5) for h, r in zip(hyps_renamed, refs_renamed, strict=True)]
        )
        expected = corpus_nist([[tokens] for tokens in refs_renamed], hyps_renamed, n=5)
        # Equal up to float summation order (NLTK sums n-gram information in Counter order).
        assert nist.score(stats.sum(0)) == pytest.approx(expected, rel=1e-12, abs=0)
