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


@pytest.mark.parametrize("pair", list(PAIRS))
def test_every_100th_wmt12_segment_of_every_system_equals_sacrebleu(data_root: Path, pair: str) -> None:
    """The default suite's share of the test below: segments 0, 100, 200, ... (31 of 3003) of every system, the
    statistics equal sacrebleu's exactly (the full check runs with ``-m slow``, as CI does)."""
    refs, systems = wmt12_texts(data_root, pair)
    chosen = list(range(0, len(refs), 100))
    refs = [refs[i] for i in chosen]
    systems = {name: [lines[i] for i in chosen] for name, lines in systems.items()}
    expected = sacrebleu_stats([h for lines in systems.values() for h in lines], refs * len(systems))
    compiled = get_metric("ter").stats_many(systems, refs, processes=1)
    np.testing.assert_array_equal(compiled, expected.reshape(compiled.shape))


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


WORDS = [f"u{i}" for i in range(300)]


def moved(block: range, rest: range, extra: range = range(0)) -> tuple[str, str]:
    """A hypothesis with the words ``block`` moved before ``rest`` (all distinct), and the reference in order."""
    hyp = [WORDS[i] for i in [*block, *rest]]
    ref = [WORDS[i] for i in sorted([*block, *rest])] + [WORDS[i] for i in extra]
    return " ".join(hyp), " ".join(ref)


def sides(head: int, length: int) -> tuple[str, str]:
    """``head`` extra words before a shared run in the hypothesis and other ``head`` words after it in the
    reference: the cheap path (``2 * head`` edits) runs ``head`` columns off the diagonal."""
    hyp = WORDS[200 : 200 + head] + WORDS[:length]
    ref = WORDS[:length] + WORDS[250 : 250 + head]
    return " ".join(hyp), " ".join(ref)


# Cases that sit on one of sacrebleu's limits: sacrebleu itself counts differently with that limit one lower or
# one higher (test_limit_cases_sit_on_sacrebleus_limits checks it).
LIMIT_CASES = {
    "max_shift_size": [
        moved(range(30, 40), range(30)),
        moved(range(30, 41), range(30)),
    ],  # 10- and 11-word blocks
    "max_shift_dist": [
        moved(range(50, 52), range(50)),
        moved(range(51, 53), range(51)),
    ],  # 50 and 51 words away
    "beam_width": [sides(25, 55), sides(26, 55)],  # 25 and 26 columns off the diagonal
    # Found by searching random pairs: sacrebleu counts 9 edits for the first with 999 candidates, 8 with 1000
    # or 1001; 9 for the second with 999 or 1000, 8 with 1001.
    "max_shift_candidates": [
        (
            "w1 w1 w0 w1 w0 w0 w1 w1 w0 w0 w1 w1 w1 w1 w0 w1 w0 w1 w0 w1 w0 w1 w0 w0 w0 w0 w1 w0 w0 w1 w1 w1 w0 w0",
            "w0 w1 w0 w1 w0 w1 w0 w1 w0 w0 w0 w1 w1 w0 w1 w1 w1 w0 w0 w0 w0 w0 w0 w0 w1 w0 w1 w1 w0 w1",
        ),
        (
            "w1 w0 w0 w0 w1 w1 w0 w1 w1 w0 w1 w1 w1 w0 w0 w0 w1 w0 w0 w0 w1 w1 w1 w1 w1 w0 w1 w1 w1 w0 w1 w0 w1 w1 w0 "
            "w1 w1",
            "w1 w0 w0 w1 w1 w0 w0 w0 w1 w1 w0 w1 w0 w0 w1 w0 w0 w1 w0 w1 w0 w1 w1 w1 w0 w0 w0 w1 w0 w1 w0 w1 w0 w0 w1",
        ),
    ],
}
SACREBLEU_CONSTANTS = {
    "max_shift_size": "_MAX_SHIFT_SIZE",
    "max_shift_dist": "_MAX_SHIFT_DIST",
    "beam_width": "_BEAM_WIDTH",
    "max_shift_candidates": "_MAX_SHIFT_CANDIDATES",
}


def random_pairs(
    seed: int, count: int, lengths: tuple[int, int], vocabularies: tuple[int, int]
) -> list[tuple[str, str]]:
    """Random (hypothesis, reference) pairs over a few distinct words: many equal runs, many shift candidates."""
    rng = np.random.default_rng(seed)
    pairs = []
    for _ in range(count):
        vocabulary = int(rng.integers(*vocabularies))
        n_hyp, n_ref = (int(n) for n in rng.integers(*lengths, 2))
        hyp = " ".join(f"w{k}" for k in rng.integers(0, vocabulary, n_hyp))
        ref = " ".join(f"w{k}" for k in rng.integers(0, vocabulary, n_ref))
        pairs.append((hyp, ref))
    return pairs


def edge_cases() -> list[tuple[str, str]]:
    """(hypothesis, reference) pairs at the edges of sacrebleu's TER, then random ones with few distinct words."""
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
        # _perform_shift's third case at target == start + length (the block moves right by its own length): found
        # by searching random pairs for counts that change when that target is handled by the second case
        ("w2 w3 w2 w3 w0", "w3 w1 w3 w1 w0 w3 w1 w3 w2 w1"),
        ("w0 w1 w0 w1 w3 w2 w1", "w1 w3 w0 w3 w2 w0 w1 w1 w1"),
        ("x y z", "a b c"),
        # very unequal lengths: the beam widens beyond 25 columns (ratio / 2 > 25)
        ("u3", " ".join(WORDS[:160])),
        ("u0 u1", " ".join(WORDS[:120])),
        (" ".join(WORDS[:160]), "u1 u0"),
        moved(range(60, 72), range(60)),  # a 12-word block 60 words from its place
    ]
    cases += [case for pairs in LIMIT_CASES.values() for case in pairs]
    # long enough to reach the 1000-candidate budget and the 10 000-row cache
    return cases + random_pairs(20140626, 16, (25, 46), (2, 6))


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


#: sacrebleu's statistics of each limit's cases with its own constants, as the edge cases' test computed them (they
#: are among its cases): the limit's test below reads them when the same process ran that test first.
_LIMIT_CASES_AT_SACREBLEUS_LIMITS: dict[str, np.ndarray] = {}


def test_edge_cases_equal_sacrebleu_and_reach_its_limits(sacrebleu_limits: dict[str, int]) -> None:
    cases = edge_cases()
    hyps, refs = [h for h, _ in cases], [r for _, r in cases]
    expected = sacrebleu_stats(hyps, refs)
    for limit, pairs in LIMIT_CASES.items():
        at = cases.index(pairs[0])
        assert cases[at : at + len(pairs)] == pairs
        _LIMIT_CASES_AT_SACREBLEUS_LIMITS[limit] = expected[at : at + len(pairs)]
    compiled = get_metric("ter").stats(hyps, refs)
    assert np.array_equal(compiled, expected), np.argwhere(compiled != expected)
    assert compiled[:6].tolist() == [[3, 3], [3, 0], [0, 0], [1, 1], [0, 6], [0, 3]]  # by hand

    # sacrebleu's own run went through the 1000-candidate budget (dropping an improving shift), filled its
    # 10 000-row cache and widened its beam.
    assert sacrebleu_limits["max_candidates"] >= sacrebleu_lib_ter._MAX_SHIFT_CANDIDATES
    assert sacrebleu_limits["dropped_shifts"] > 0
    assert sacrebleu_limits["max_cache"] >= sacrebleu_lib_ter._MAX_CACHE_SIZE
    lengths = [(len(h.split()), len(r.split())) for h, r in cases]
    assert any(n_hyp and n_ref / n_hyp / 2 > sacrebleu_lib_ter._BEAM_WIDTH for n_hyp, n_ref in lengths)


@pytest.mark.parametrize("limit", list(LIMIT_CASES))
def test_limit_cases_sit_on_sacrebleus_limits(monkeypatch: pytest.MonkeyPatch, limit: str) -> None:
    """Equal to sacrebleu at its limit, while sacrebleu one below and one above counts differently."""
    hyps, refs = zip(*LIMIT_CASES[limit], strict=True)
    compiled = get_metric("ter").stats(hyps, refs)
    constant = SACREBLEU_CONSTANTS[limit]
    value = getattr(ter_compiled.SACREBLEU_LIMITS, limit)
    assert getattr(sacrebleu_lib_ter, constant) == value
    at_limit = _LIMIT_CASES_AT_SACREBLEUS_LIMITS.get(limit)
    assert np.array_equal(compiled, sacrebleu_stats(hyps, refs) if at_limit is None else at_limit)
    for other in (value - 1, value + 1):
        with monkeypatch.context() as patch:
            patch.setattr(sacrebleu_lib_ter, constant, other)
            assert not np.array_equal(compiled, sacrebleu_stats(hyps, refs)), (limit, other)


SWEEPS = {
    "max_shift_size": range(0, 6),
    "max_shift_dist": range(0, 6),
    "beam_width": range(1, 8),
    "max_shift_candidates": range(0, 60),
}


@pytest.mark.parametrize("limit", list(SWEEPS))
def test_small_limits_equal_sacrebleu_run_with_the_same_limits(
    monkeypatch: pytest.MonkeyPatch, limit: str
) -> None:
    """Each limit's boundary (``>`` or ``>=``, counted from where) at small values, where short sentences cross
    it often: compiled with a limit set to ``v`` equals sacrebleu with its constant patched to ``v``."""
    cases = random_pairs(20140626, 60, (0, 16), (2, 5))
    hyp_tokens, ref_tokens = [h.split() for h, _ in cases], [r.split() for _, r in cases]
    by_value = []
    for value in SWEEPS[limit]:
        with monkeypatch.context() as patch:
            patch.setattr(sacrebleu_lib_ter, SACREBLEU_CONSTANTS[limit], value)
            expected = [
                sacrebleu_lib_ter.translation_edit_rate(h, r)[0]
                for h, r in zip(hyp_tokens, ref_tokens, strict=True)
            ]
        limits = ter_compiled.SACREBLEU_LIMITS._replace(**{limit: value})
        assert ter_compiled.corpus_edits(hyp_tokens, ref_tokens, limits).tolist() == expected, value
        by_value.append(expected)
    changes = sum(a != b for a, b in zip(by_value[:-1], by_value[1:], strict=True))
    assert changes >= 3  # the sweep crosses boundaries that change sacrebleu's counts


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
    """On raw (still escaped) WMT12 text, so that ``normalized`` has entities to undo (30 lines with an entity and
    the first 50 of each direction: sacrebleu's TER is pure Python), plus special lines."""
    hyps, refs = [], []
    for pair, system in (("es-en", "onlineB"), ("en-es", "onlineA")):
        pair_refs, systems = wmt12_texts(data_root, pair, unescape=False)
        chosen = [i for i, hyp in enumerate(systems[system]) if "&" in hyp][:30] + list(range(50))
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
