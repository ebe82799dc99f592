"""The compiled TER (mtsig.metrics.ter_compiled) against its oracle, sacrebleu 2.6.0's own TER.

Every WMT12 segment of both directions (23 systems x 3003 segments, texts prepared as the pipeline does: HTML
entities undone), hand-made edge cases that reach each of sacrebleu's limits (checked by instrumenting sacrebleu
itself), and each tokenisation option on a sample. sacrebleu's statistics are computed once per distinct
(hypothesis, reference) pair, over two processes.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sacrebleu.metrics.lib_ter as sacrebleu_lib_ter
from sacrebleu.metrics.ter import TER as SacreTER

from mtsig.errors import InputError
from mtsig.io.text import load_texts
from mtsig.metrics import get_metric, ter_compiled

PAIRS = {"es-en": "en", "en-es": "es"}


def wmt12_texts(
    data_root: Path, pair: str, *, unescape: bool = True
) -> tuple[list[str], dict[str, list[str]]]:
    """Every WMT12 system of ``pair`` and the reference, loaded as the pipeline's prepare step loads them."""
    folder = data_root / "wmt12"
    outputs = {
        path.name.removeprefix(f"newstest2012.{pair}."): path
        for path in sorted((folder / "system-outputs" / pair).glob(f"newstest2012.{pair}.*"))
    }
    return load_texts(folder / "plain" / f"newstest2012-ref.{PAIRS[pair]}", outputs, unescape=unescape)


def _sacrebleu_rows(options: dict[str, Any], hyps: list[str], refs: list[str]) -> list[list[float]]:
    """sacrebleu's own per-segment TER statistics (run in a worker process)."""
    return SacreTER(**options)._extract_corpus_statistics(hyps, [refs])


def sacrebleu_stats(
    hyps: Sequence[str], refs: Sequence[str], options: dict[str, Any] | None = None, processes: int = 1
) -> np.ndarray:
    """sacrebleu's ``[N, 2]`` statistics, each distinct (hypothesis, reference) pair computed once."""
    options = options or {}
    position: dict[tuple[str, str], int] = {}
    index = np.array([position.setdefault(pair, len(position)) for pair in zip(hyps, refs, strict=True)])
    distinct_hyps = [hyp for hyp, _ in position]
    distinct_refs = [ref for _, ref in position]
    if processes <= 1:
        rows = _sacrebleu_rows(options, distinct_hyps, distinct_refs)
    else:
        bounds = np.linspace(0, len(position), processes + 1).round().astype(int)
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=processes, mp_context=context) as pool:
            futures = [
                pool.submit(_sacrebleu_rows, options, distinct_hyps[a:b], distinct_refs[a:b])
                for a, b in zip(bounds[:-1], bounds[1:], strict=True)
            ]
            rows = [row for future in futures for row in future.result()]
    return np.asarray(rows, dtype=np.float64).reshape(len(position), 2)[index]


@pytest.mark.slow
@pytest.mark.parametrize("pair", list(PAIRS))
def test_every_wmt12_segment_equals_sacrebleu(data_root: Path, pair: str) -> None:
    refs, systems = wmt12_texts(data_root, pair)
    assert len(systems) == {"es-en": 12, "en-es": 11}[pair] and len(refs) == 3003
    names = list(systems)
    all_hyps = [hyp for name in names for hyp in systems[name]]
    expected = sacrebleu_stats(all_hyps, refs * len(names), processes=2).reshape(len(names), len(refs), 2)

    ter = get_metric("ter")
    assert ter.options["implementation"] == "compiled"
    compiled = ter.stats_many(systems, refs, processes=1)
    assert compiled.dtype == np.float64
    mismatched = np.argwhere((compiled != expected).any(axis=-1))
    assert mismatched.size == 0, (
        f"{len(mismatched)} segments differ, first (system, segment): {mismatched[:5]}"
    )

    # sacrebleu's corpus_score is _extract_corpus_statistics followed by _aggregate_and_compute on its rows.
    scores = ter.score(compiled.sum(axis=1))
    for s, name in enumerate(names):
        oracle = SacreTER()._aggregate_and_compute(expected[s].tolist())
        assert scores[s] == oracle.score, name
        assert compiled[s, :, 0].sum() == oracle.num_edits and compiled[s, :, 1].sum() == oracle.ref_length


def edge_cases() -> list[tuple[str, str]]:
    """(hypothesis, reference) pairs at the edges of sacrebleu's TER, then random ones with few distinct words."""
    words = [f"u{i}" for i in range(80)]
    cases = [
        ("", "a b c"),  # empty hypothesis: every reference word is an insertion
        ("a b c", ""),  # empty reference: every hypothesis word counts, reference length 0
        ("", ""),
        ("  \t ", "a"),  # whitespace only is empty
        ("the cat sat on the mat", "the cat sat on the mat"),
        ("The CAT sat", "the cat sat"),  # lowercased by default
        ("a a a a a a a", "a a a"),
        ("b a b a b a b a", "a b a b a b a b"),
        ("the the cat the the", "the cat the the the"),
        ("c d e a b", "a b c d e"),
        ("x y z", "a b c"),
        # a 12-word block 60 words from its place: longer than the 10-word shift limit and farther than 50
        (" ".join(words[60:72] + words[:60]), " ".join(words[:72])),
        # a 10-word block 55 words away, then 8 words 45 away
        (" ".join(words[55:65] + words[:55]), " ".join(words[:65])),
        (" ".join(words[45:53] + words[:45]), " ".join(words[:53])),
        # very unequal lengths: the beam widens beyond 25 columns (ratio / 2 > 25)
        ("u3", " ".join(words + words)),
        ("u0 u1", " ".join(words + words[:40])),
        (" ".join(words + words), "u1 u0"),
    ]
    rng = np.random.default_rng(20140626)
    for _ in range(16):
        vocabulary = int(rng.integers(2, 6))
        n_hyp, n_ref = (int(n) for n in rng.integers(25, 46, 2))
        hyp = " ".join(f"w{k}" for k in rng.integers(0, vocabulary, n_hyp))
        ref = " ".join(f"w{k}" for k in rng.integers(0, vocabulary, n_ref))
        cases.append((hyp, ref))
    return cases


@pytest.fixture
def sacrebleu_limits(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, int]]:
    """Instrument sacrebleu's TER to record how far it went: the largest running count of shift candidates,
    the rounds whose improving shift was dropped because that count reached 1000, the largest cache size."""
    seen = {"max_candidates": 0, "dropped_shifts": 0, "max_cache": 0}
    shift = sacrebleu_lib_ter._shift
    add_cache = sacrebleu_lib_ter.BeamEditDistance._add_cache

    def recording_shift(*args: Any) -> tuple[int, list[str], int]:
        gain, words, checked = shift(*args)
        seen["max_candidates"] = max(seen["max_candidates"], checked)
        seen["dropped_shifts"] += checked >= sacrebleu_lib_ter._MAX_SHIFT_CANDIDATES and gain > 0
        return gain, words, checked

    def recording_add_cache(self: Any, *args: Any) -> None:
        add_cache(self, *args)
        seen["max_cache"] = max(seen["max_cache"], self._cache_size)

    monkeypatch.setattr(sacrebleu_lib_ter, "_shift", recording_shift)
    monkeypatch.setattr(sacrebleu_lib_ter.BeamEditDistance, "_add_cache", recording_add_cache)
    yield seen


def longest_common_run(a: list[str], b: list[str]) -> int:
    """Length of the longest run of equal words shared by ``a`` and ``b``."""
    best = 0
    for i in range(len(a)):
        for j in range(len(b)):
            k = 0
            while i + k < len(a) and j + k < len(b) and a[i + k] == b[j + k]:
                k += 1
            best = max(best, k)
    return best


def test_edge_cases_equal_sacrebleu_and_reach_its_limits(sacrebleu_limits: dict[str, int]) -> None:
    cases = edge_cases()
    hyps, refs = [h for h, _ in cases], [r for _, r in cases]
    expected = sacrebleu_stats(hyps, refs)
    compiled = get_metric("ter").stats(hyps, refs)
    assert np.array_equal(compiled, expected), np.argwhere(compiled != expected)
    assert compiled[:5].tolist() == [[3, 3], [3, 0], [0, 0], [1, 1], [0, 6]]  # by hand
    assert compiled[5].tolist() == [0, 3]

    # The cases reach every limit: 1000 candidates (and a dropped shift), the 10 000-row cache, the widened beam,
    # blocks longer than 10 words and matching words more than 50 positions apart.
    assert sacrebleu_limits["max_candidates"] >= sacrebleu_lib_ter._MAX_SHIFT_CANDIDATES
    assert sacrebleu_limits["dropped_shifts"] > 0
    assert sacrebleu_limits["max_cache"] >= sacrebleu_lib_ter._MAX_CACHE_SIZE
    tokens = [(h.split(), r.split()) for h, r in cases]
    assert any(h and len(r) / len(h) / 2 > sacrebleu_lib_ter._BEAM_WIDTH for h, r in tokens)
    assert any(longest_common_run(h, r) > sacrebleu_lib_ter._MAX_SHIFT_SIZE for h, r in tokens[11:14])
    assert any(
        abs(i - j) > sacrebleu_lib_ter._MAX_SHIFT_DIST and a == b
        for h, r in tokens[11:14]
        for i, a in enumerate(h)
        for j, b in enumerate(r)
    )


OPTIONS = [
    {"case_sensitive": True},
    {"normalized": True},
    {"no_punct": True},
    {"normalized": True, "asian_support": True},
    {"no_punct": True, "asian_support": True},
    {"normalized": True, "no_punct": True, "asian_support": True, "case_sensitive": True},
]

SPECIAL_LINES = [
    # With normalized=True sacrebleu tokenises a reference twice and a hypothesis once: "Sotheby's," becomes
    # "sotheby's ," once and "sotheby 's ," twice, so identical strings get edits.
    ("He sold it at Sotheby's, then left.", "He sold it at Sotheby's, then left."),
    ("&quot;Yes&quot; &amp; no &lt;b&gt;", '"Yes" & no <b>'),
    ("我们今天去北京。东京很大，", "我们明天去北京。东京很大！"),
    ("東京は日本の首都です、そして（大きい）。", "日本の首都は東京です。"),
    ("ＡＢＣ．テスト、カタカナ", "ＡＢＣ，テスト。ひらがな"),
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o))
def test_each_option_equals_sacrebleu(data_root: Path, options: dict[str, bool]) -> None:
    """On raw (still escaped) WMT12 text, so that ``normalized`` has entities to undo, plus special lines."""
    hyps, refs = [], []
    for pair, system in (("es-en", "onlineB"), ("en-es", "onlineA")):
        pair_refs, systems = wmt12_texts(data_root, pair, unescape=False)
        chosen = [i for i, hyp in enumerate(systems[system]) if "&" in hyp][:60] + list(range(100))
        hyps += [systems[system][i] for i in chosen]
        refs += [pair_refs[i] for i in chosen]
    hyps += [h for h, _ in SPECIAL_LINES]
    refs += [r for _, r in SPECIAL_LINES]

    compiled = get_metric("ter", **options).stats(hyps, refs)
    assert np.array_equal(compiled, sacrebleu_stats(hyps, refs, options))
    assert not np.array_equal(compiled, get_metric("ter").stats(hyps, refs))  # the option is in effect
    if options.get("normalized"):
        assert compiled[-len(SPECIAL_LINES), 0] > 0  # sacrebleu's double tokenisation of the reference


def test_implementation_option_selects_the_code_that_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    hyps, refs = ["a b c d", "the cat sat"], ["b a c", "a cat sat down"]
    compiled, reference = get_metric("ter"), get_metric("ter", implementation="sacrebleu")
    assert compiled.details() == reference.details()  # same numbers, same signature
    expected = sacrebleu_stats(hyps, refs)

    def fail(*args: Any) -> None:
        raise AssertionError("the other implementation ran")

    with monkeypatch.context() as patch:
        patch.setattr(SacreTER, "_extract_corpus_statistics", fail)
        assert np.array_equal(compiled.stats(hyps, refs), expected)
    with monkeypatch.context() as patch:
        patch.setattr(ter_compiled, "corpus_edits", fail)
        assert np.array_equal(reference.stats(hyps, refs), expected)
    with pytest.raises(
        InputError, match="TER implementation must be one of compiled, sacrebleu, got 'numba'"
    ):
        get_metric("ter", implementation="numba")
    with pytest.raises(InputError, match="2 hypotheses but 1 references"):
        compiled.stats(["a", "b"], ["a"])
