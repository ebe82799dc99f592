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

from mtsig.errors import InputError
from mtsig.io.text import load_texts
from mtsig.metrics import get_metric
from mtsig.metrics.nist import NIST_BETA, information_weights, mteval_tokenize, segment_statistics
from mtsig.pipeline import config as mtsig_config
from mtsig.settings import Experiment


@pytest.fixture(scope="module")
def wmt12_es_en(data_root: Path, repo_root: Path) -> tuple[Experiment, list[str], dict[str, list[str]]]:
    """The pipeline's texts of WMT12 es-en: its experiment config, read and unescaped as the pipeline does."""
    config = yaml.safe_load((repo_root / "config" / "wmt12-es-en.yaml").read_text(encoding="utf-8"))
    spec = mtsig_config.experiment({**config, "metrics": ["nist"]}, "wmt12-es-en")
    refs, outputs = load_texts(
        mtsig_config.data_path(data_root, spec.reference),
        mtsig_config.output_paths(spec.text_sources(), data_root),
        unescape=spec.unescape_html,
    )
    return spec, refs, outputs


#: The default suite's share of the WMT12 es-en systems for the checks on every line (the three of the mteval
#: oracles quoted below); every system with ``-m slow``, as CI runs it.
SAMPLED_SYSTEMS = ("onlineB", "UPC", "GTH-UPM")
THREE_SYSTEMS = pytest.param(SAMPLED_SYSTEMS, id="three-systems")
EVERY_SYSTEM = pytest.param(None, marks=pytest.mark.slow, id="every-system")


def chosen(outputs: dict[str, list[str]], systems: tuple[str, ...] | None) -> dict[str, list[str]]:
    """``outputs`` of ``systems`` (every system when None)."""
    return outputs if systems is None else {name: outputs[name] for name in systems}


def mteval_oracle(data_root: Path) -> dict[str, float]:
    """System -> NIST printed by ``mteval-v13a.pl -c --metricsMATR-output`` (file made by the data's curators)."""
    with (data_root / "wmt12" / "oracles" / "nist_mteval-v13a_es-en.tsv").open(encoding="utf-8") as handle:
        return {row["system"]: float(row["nist"]) for row in csv.DictReader(handle, delimiter="\t")}


def bp(ratio: float) -> float:
    """Doddington's (2002, Eq. 3) brevity penalty, for hand calculations."""
    return math.exp(-NIST_BETA * math.log(ratio) ** 2)


@pytest.mark.parametrize("systems", [THREE_SYSTEMS, EVERY_SYSTEM])
def test_nist_equals_mteval_v13a_on_wmt12_es_en_systems(
    wmt12_es_en, data_root: Path, systems: tuple[str, ...] | None
) -> None:
    spec, refs, outputs = wmt12_es_en
    oracle = mteval_oracle(data_root)
    assert sorted(oracle) == sorted(spec.systems) and len(oracle) == 12
    nist = get_metric("nist", **spec.metric_options("nist"))
    outputs = chosen(outputs, systems)
    stats = nist.stats_many(outputs, refs)
    scores = dict(zip(outputs, nist.score(stats.sum(axis=1)).tolist(), strict=True))
    for system, expected in {name: oracle[name] for name in outputs}.items():
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


@pytest.mark.parametrize("systems", [THREE_SYSTEMS, EVERY_SYSTEM])
def test_tokenization_equals_sacrebleu_13a_on_wmt12(wmt12_es_en, systems: tuple[str, ...] | None) -> None:
    """sacrebleu's 13a transcribes the same rules; on real text (no U+001C..U+001F) the words are identical: the
    reference and three systems' lines, every system's with ``-m slow``."""
    _, refs, outputs = wmt12_es_en
    outputs = chosen(outputs, systems)
    tokenizer = Tokenizer13a()
    segments = [*refs, *(hyp for hyps in outputs.values() for hyp in hyps)]
    assert [mteval_tokenize(s) for s in segments] == [tokenizer(s.rstrip()).split() for s in segments]


@pytest.mark.parametrize("systems", [THREE_SYSTEMS, EVERY_SYSTEM])
@pytest.mark.parametrize("lowercase", [False, True])
def test_word_by_word_tokenization_equals_the_whole_line(
    wmt12_es_en, lowercase: bool, systems: tuple[str, ...] | None
) -> None:
    """NIST.tokenize caches words: its tokens equal mteval_tokenize of the whole segment (tested above against
    mteval-v13a.pl) on WMT12 es-en lines (the reference and three systems; every system with ``-m slow``) and on
    segments where the rules meet whitespace."""
    _, refs, outputs = wmt12_es_en
    outputs = chosen(outputs, systems)
    edges = [
        'It\'s 3.5-4, e.g. 1,000 "AT&amp;T" &amp;quot; x<skipped>y',
        "a .b c. ,d 3 ,5 3, 5 x- -y 9 -1 <skipped> &quot; . .. , ,",
        "a\x1cb c\xa0d e\u3000f\t.g\n,h",
        "  ",
        "",
    ]
    segments = [*edges, *refs, *(hyp for hyps in outputs.values() for hyp in hyps)]
    nist = get_metric("nist", lowercase=lowercase)
    expected = [mteval_tokenize(s, preserve_case=not lowercase) for s in segments]
    assert [nist.tokenize(s) for s in segments] == expected


@pytest.mark.parametrize(
    "systems",
    [
        pytest.param(("onlineB",), id="onlineB"),
        pytest.param(("onlineB", "UPC"), marks=pytest.mark.slow, id="two"),
    ],
)
def test_nltk_corpus_nist_differs_only_by_the_zero_prefix_rule(wmt12_es_en, systems: tuple[str, ...]) -> None:
    """NLTK's corpus_nist is lower than mteval on WMT12; renaming the word "0" removes the only difference (one
    system; NLTK is pure Python, 2.6 CPU s a system; two with ``-m slow``)."""
    _, refs, outputs = wmt12_es_en
    nist = get_metric("nist")
    ref_tokens = [nist.tokenize(ref) for ref in refs]
    assert Counter(token for tokens in ref_tokens for token in tokens)["0"] > 0

    def renamed(tokens: list[str]) -> list[str]:
        return ["<zero>" if token == "0" else token for token in tokens]  # "<zero>" is never an mteval word

    for system in systems:
        hyp_tokens = [nist.tokenize(hyp) for hyp in outputs[system]]
        ours = float(nist.score(nist.stats(outputs[system], refs).sum(0)))
        nltk = corpus_nist([[tokens] for tokens in ref_tokens], hyp_tokens, n=5)
        assert ours - nltk > 1e-3
        refs_renamed = [renamed(tokens) for tokens in ref_tokens]
        hyps_renamed = [renamed(tokens) for tokens in hyp_tokens]
        weights = information_weights(refs_renamed, 5)
        stats = np.array(
            [segment_statistics(h, [r], weights, 5) for h, r in zip(hyps_renamed, refs_renamed, strict=True)]
        )
        expected = corpus_nist([[tokens] for tokens in refs_renamed], hyps_renamed, n=5)
        # Equal up to float summation order (NLTK sums n-gram information in Counter order).
        assert nist.score(stats.sum(0)) == pytest.approx(expected, rel=1e-12, abs=0)


# --- several references per segment (reference streams) ---------------------------------------------------------

# mteval-v13a.pl -c with two or three reference sets, on the inputs of the oracle file; the second and third
# "references" are the outputs of onlineA and uedin-wmt12 (HTML entities undone like every system output).
MTEVAL_SEVERAL_REFERENCES = {
    ("onlineA",): {"onlineB": 13.1159980972452, "UPC": 12.6179818018048, "GTH-UPM": 12.0720631483204},
    ("onlineA", "uedin-wmt12"): {
        "onlineB": 14.2365638353801,
        "UPC": 14.7124755686506,
        "GTH-UPM": 13.6319693312125,
    },
}


@pytest.mark.parametrize("extra", list(MTEVAL_SEVERAL_REFERENCES))
def test_several_references_equal_mteval_v13a_on_wmt12(
    wmt12_es_en, data_root: Path, extra: tuple[str, ...]
) -> None:
    spec, refs, outputs = wmt12_es_en
    _, more = load_texts(
        mtsig_config.data_path(data_root, spec.reference),
        {name: mtsig_config.output_paths(spec.text_sources(), data_root)[name] for name in extra},
        unescape=True,
    )
    streams = [refs, *(more[name] for name in extra)]
    expected = MTEVAL_SEVERAL_REFERENCES[extra]
    nist = get_metric("nist")
    stats = nist.stats_many({name: outputs[name] for name in expected}, streams)
    assert nist.details().startswith(f"NIST|mteval-v13a|nrefs:{len(streams)}|")
    for name, score in zip(expected, nist.score(stats.sum(axis=1)).tolist(), strict=True):
        assert score == pytest.approx(expected[name], rel=1e-10, abs=0), name


def test_several_references_hand_calculation() -> None:
    """Streams ("a b c", "x") and ("a a d e", "x y"); hypotheses "a a b", "x y y" (mteval-v13a -c prints
    3.11576716252633).

    Reference words 10 over both streams: a:3, b:1, x:2, y:1, "a a":1, "a b":1, "x y":1, ... Segment 1 clips a to
    its largest count in one reference (2, in "a a d e"): 2 info(a) + info(b) = 2 log2(10/3) + log2(10); its
    bigrams "a a" and "a b" match in different references: 2 log2(3/1). Segment 2: info(x) + info(y) (y clipped
    to 1) = log2(5) + log2(10), bigram "x y": log2(2/1). Hypothesis: 6 unigrams, 4 bigrams, 6 words; mean
    reference length (3 + 4) / 2 + (1 + 2) / 2 = 5: no penalty.
    """
    nist = get_metric("nist")
    stats = nist.stats(["a a b", "x y y"], [["a b c", "x"], ["a a d e", "x y"]])
    L = math.log2
    assert stats[:, 0].tolist() == pytest.approx([2 * L(10 / 3) + L(10), L(5) + L(10)], rel=1e-15)
    assert stats[:, 1].tolist() == pytest.approx([2 * L(3), 1.0], rel=1e-15)
    assert stats[:, -1].tolist() == [3.5, 1.5]
    expected = (2 * L(10 / 3) + 2 * L(10) + L(5)) / 6 + (2 * L(3) + 1) / 4
    assert nist.score(stats.sum(0)) == pytest.approx(expected, rel=1e-14)
    assert nist.score(stats.sum(0)) == pytest.approx(3.11576716252633, rel=1e-13)
    assert nist.details().startswith("NIST|mteval-v13a|nrefs:2|")


def test_several_references_length_is_the_mean_not_the_closest() -> None:
    """References "a b" and "a b c d e f", hypothesis "a b c": mteval's NIST compares 3 words with the mean 4
    (BLEU's closest length, 2, would give no penalty). Words 8: info a = b = log2(8/2), c = log2(8/1),
    "a b" = log2(2/2), "b c" = log2(2/1), "a b c" = log2(2/1): (7/3 + 1/2 + 1) * BP(3/4) (mteval-v13a -c prints
    2.70418374310356). Three references of unequal total: mteval-v13a -c prints 3.28561419113056."""
    nist = get_metric("nist")
    stats = nist.stats(["a b c"], [["a b"], ["a b c d e f"]])
    assert stats[0, -1] == 4.0
    assert nist.score(stats.sum(0)) == pytest.approx(23 / 6 * bp(3 / 4), rel=1e-14)
    assert nist.score(stats.sum(0)) == pytest.approx(2.70418374310356, rel=1e-13)
    three = nist.stats(["a b c", "c"], [["a b", "c"], ["a b c d e f", "c d"], ["b", "c d e"]])
    assert three[:, -1].tolist() == pytest.approx([3.0, 2.0], rel=1e-15)  # (2 + 6 + 1) / 3, (1 + 2 + 3) / 3
    assert nist.score(three.sum(0)) == pytest.approx(3.28561419113056, rel=1e-13)


def test_nltk_corpus_nist_with_several_references_takes_the_best_single_reference() -> None:
    """References "a b" and "a a", hypothesis "a a b". mteval clips each n-gram to its largest count in any one
    reference: (2 info(a) + info(b)) / 3 + ("a a" + "a b") / 2 (mteval-v13a -c prints 2.52832083357372). NLTK
    scores each order against its single best reference, "a b" for unigrams: (info(a) + info(b)) / 3 + one
    bigram / 2. Words 4: info(a) = log2(4/3), info(b) = 2, info("a a") = info("a b") = log2(3)."""
    L = math.log2
    nist = get_metric("nist")
    ours = nist.score(nist.stats(["a a b"], [["a b"], ["a a"]]).sum(0))
    assert ours == pytest.approx((2 * L(4 / 3) + 2) / 3 + 2 * L(3) / 2, rel=1e-14)
    assert ours == pytest.approx(2.52832083357372, rel=1e-13)
    nltk = corpus_nist([[["a", "b"], ["a", "a"]]], [["a", "a", "b"]], n=2)
    assert nltk == pytest.approx((L(4 / 3) + 2) / 3 + L(3) / 2, rel=1e-14)


def test_one_stream_equals_the_single_reference_call() -> None:
    nist = get_metric("nist")
    hyps, refs = ["the cat sat", "0 % of it", ""], ["the cat sat down", "0 % of them", "nothing"]
    single = nist.stats(hyps, refs)
    assert np.array_equal(get_metric("nist").stats(hyps, [refs]), single)
    assert np.array_equal(get_metric("nist").stats(hyps, (tuple(refs),)), single)
    assert nist.details().startswith("NIST|mteval-v13a|nrefs:1|")


def test_reference_stream_errors() -> None:
    nist = get_metric("nist")
    with pytest.raises(InputError, match="differ in length: 1, 2"):
        nist.stats(["a", "b"], [["a", "b"], ["a"]])
    with pytest.raises(InputError, match="one string per segment, or reference streams"):
        nist.stats(["a", "b"], ["a", ["b"]])
    with pytest.raises(InputError, match="2 hypotheses but 3 references"):
        nist.stats(["a", "b"], [["a", "b", "c"], ["a", "b", "c"]])
    with pytest.raises(InputError, match="system 'x' has 1 segments but there are 2 references"):
        nist.stats_many({"x": ["a"]}, [["a", "b"], ["c", "d"]])
    with pytest.raises(InputError, match="not one string"):
        nist.stats(["a"], "a")


def test_several_references_in_worker_processes() -> None:
    systems = {"x": ["a a b", "x y y"], "y": ["a b c", "x"]}
    streams = [["a b c", "x"], ["a a d e", "x y"]]
    nist = get_metric("nist")
    assert np.array_equal(nist.stats_many(systems, streams, processes=2), nist.stats_many(systems, streams))
    assert nist.details().startswith("NIST|mteval-v13a|nrefs:2|")


def test_shared_outputs_are_scored_once_with_each_systems_own_statistics() -> None:
    """In one process stats_many scores each distinct (segment, hypothesis) once, the information weights being
    those of the whole reference set: systems sharing outputs (a copy, one repeating another's first line) get
    exactly the statistics of stats() on each system alone, and of the per-system worker processes."""
    refs = ["the cat sat on the mat .", "0 % of the votes", "a dog barks at night", "it is raining today"]
    first = ["the cat is on the mat .", "0 % of votes", "the dog barks", "it rains today"]
    second = ["a cat sat on a mat", "zero percent of the votes", "a dog barks at night", "raining"]
    systems = {"a": first, "copy_of_a": list(first), "b": [first[0], *second[1:]], "c": second}
    nist = get_metric("nist")
    expected = np.stack([nist.stats(hyps, refs) for hyps in systems.values()])
    assert np.array_equal(nist.stats_many(systems, refs), expected)
    assert np.array_equal(nist.stats_many(systems, refs, processes=2), expected)


def test_empty_string_in_a_second_stream_is_no_reference() -> None:
    """Streams ("a b c", "x y") and ("a b d e", ""): segment 2 has one reference, so its reference length is 2
    (the mean over its one reference), not (2 + 0) / 2 = 1; the statistics equal those of segment 2 scored alone
    against "x y" with the same information weights (computed from every non-empty reference)."""
    nist = get_metric("nist")
    stats = nist.stats(["a b c", "x y"], [["a b c", "x y"], ["a b d e", ""]])
    assert stats[1, -1] == 2.0
    assert stats[0, -1] == 3.5
    with pytest.raises(InputError, match="segment 2 has no reference"):
        nist.stats(["a", "b"], [["a", ""], ["a", ""]])
