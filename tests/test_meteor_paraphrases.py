"""METEOR's faster paths give the Meteor 1.5 jar's own statistics, segment by segment.

Oracles: the jar run as before on the raw lines (``-norm``: it normalises every line itself) with its own full
paraphrase table, against mtsig's path (each distinct line normalised once by the jar's ``Normalizer`` class, the
jar run with ``-lower``, and for English only the paraphrase entries that can match, :mod:`mtsig.metrics.
meteor_paraphrases`); and a small paraphrase table written here whose entries that can match are worked out by hand.
"""

from __future__ import annotations

import gzip
import subprocess
from pathlib import Path

import numpy as np
import pytest

from mtsig.io.text import load_texts
from mtsig.metrics import METEOR
from mtsig.metrics import meteor_paraphrases as paraphrases_module
from mtsig.metrics.base import distinct_segment_hypotheses
from mtsig.metrics.meteor import (
    java_executable,
    meteor_command,
    meteor_jar,
    meteor_settings,
    normalise_lines,
    normaliser_command,
    parse_meteor_statistics,
)
from mtsig.metrics.meteor_paraphrases import (
    build_paraphrase_index,
    filter_paraphrases,
    ngram_hashes,
    paraphrase_table,
    read_paraphrase_table,
)
from mtsig.steps.files import load_intermediate_arrays
from mtsig.steps.metrics import meteor_paraphrases


def jar_statistics(
    hyps: list[str],
    refs: list[str],
    language: str,
    tmp_path: Path,
    *,
    normalised: bool = False,
    paraphrase_file: Path | None = None,
) -> np.ndarray:
    """The jar's -ssOut statistics of line pairs, run directly (no mtsig code but the command line)."""
    hyp_file, ref_file = tmp_path / "jar-hyp.txt", tmp_path / "jar-ref.txt"
    hyp_file.write_text("".join(line + "\n" for line in hyps), encoding="utf-8")
    ref_file.write_text("".join(line + "\n" for line in refs), encoding="utf-8")
    settings = meteor_settings(language)
    command = meteor_command(
        java_executable(), meteor_jar(), hyp_file, ref_file, settings, 1, normalised, paraphrase_file
    )
    completed = subprocess.run(
        command, capture_output=True, text=True, encoding="utf-8", check=True, cwd=tmp_path
    )
    return parse_meteor_statistics([line for line in completed.stdout.splitlines() if line.strip()])


def wmt12(
    data_root: Path, pair: str, systems: list[str] | None = None
) -> tuple[list[str], dict[str, list[str]]]:
    folder = data_root / "wmt12" / "system-outputs" / pair
    names = systems or sorted(p.name.split(".")[-1] for p in folder.glob(f"newstest2012.{pair}.*"))
    outputs = {name: folder / f"newstest2012.{pair}.{name}" for name in names}
    return load_texts(data_root / "wmt12" / "plain" / f"newstest2012-ref.{pair[-2:]}", outputs, unescape=True)


def test_normalising_each_distinct_line_once_gives_the_jars_statistics(
    data_root: Path, tmp_path: Path
) -> None:
    """Spanish (WMT12 en-es, 3 systems x 150 segments, with segments shared between systems): stats_many, which
    normalises each distinct line once with the jar's Normalizer and runs the jar with -lower, equals the jar run on
    the raw lines with -norm, every statistic of every segment."""
    refs, outputs = wmt12(data_root, "en-es", ["PROMT_DeepHybrid", "UPC", "onlineB"])
    refs = refs[:150]
    outputs = {name: lines[:150] for name, lines in outputs.items()}
    statistics = METEOR(language="es").stats_many(outputs, refs)
    for s, hyps in enumerate(outputs.values()):
        np.testing.assert_array_equal(statistics[s], jar_statistics(hyps, refs, "es", tmp_path))


def test_normaliser_keeps_one_line_per_line(tmp_path: Path) -> None:
    """Lines with characters Java's readLine would not split at (Unicode line separators, form feeds) and empty
    lines come back one for one, normalised as the jar does (English: punctuation split off, quotes unified)."""
    lines = ["He said: «it's 5.5%»\u2028next", "", "\x0cform feed", "“Quotes” and ``more''"]
    settings = meteor_settings("en")
    normalised = normalise_lines(
        lines, normaliser_command(java_executable(), meteor_jar(), settings), str(tmp_path)
    )
    assert len(normalised) == len(lines)
    assert normalised[1] == ""
    assert normalised[3] == '" Quotes " and " more "'


# A small table: (phrase, paraphrase) entries in file order, and whether each can match between HYPS and REFS.
HYPS = ["the cat sat on the mat .", "he left the city early"]
REFS = ["a cat was sitting on the rug .", "early on , he went out of town"]
TINY_TABLE = [
    ("sitting", "sat", True),  # phrase in a reference, paraphrase in a hypothesis
    ("the mat", "the rug", True),  # phrase in a hypothesis, paraphrase in a reference
    ("left", "went out", True),
    ("the city", "town", True),
    ("went out", "left", True),  # the reverse entry of a kept one
    ("sat", "was seated", False),  # the paraphrase occurs nowhere
    ("cat", "feline", False),
    ("the cat", "a cat", True),  # "the cat" in a hypothesis, "a cat" in a reference
    ("a cat", "the cat", True),
    ("on the", "upon the", False),
    ("early", "early", True),  # an identity paraphrase occurring on both sides
    ("the city early", "town", True),  # a three-word phrase
    ("city early", "early on", True),  # "city early" only in a hypothesis, "early on" only in a reference
    ("mat .", "rug", True),  # punctuation is a word
    ("Cat", "a cat", False),  # upper case: the jar lowercases every line, so it can never match
    ("out of", "from", False),  # both sides absent from the hypotheses
    ("café", "cat", True),  # not ASCII: counted as occurring everywhere, and "cat" occurs on both sides
    ("naïve", "coffee shop", False),  # not ASCII, but "coffee shop" occurs nowhere
]


def write_table(path: Path, entries: list[tuple[str, str]]) -> Path:
    text = "".join(f"0.{i + 1}\n{phrase}\n{paraphrase}\n" for i, (phrase, paraphrase) in enumerate(entries))
    path.write_bytes(gzip.compress(text.encode("utf-8")))
    return path


def test_filter_keeps_exactly_the_entries_that_can_match(tmp_path: Path) -> None:
    """Worked out by hand (TINY_TABLE): an entry is kept iff its phrase occurs as a word n-gram of a hypothesis and
    its paraphrase of a reference, or the reverse, a phrase that is not ASCII counting as occurring everywhere.
    Order is the table's."""
    index = build_paraphrase_index(
        read_paraphrase_table(write_table(tmp_path / "t.gz", [e[:2] for e in TINY_TABLE]))
    )
    text, kept = filter_paraphrases(index, HYPS, REFS)
    lines = text.decode("utf-8").split("\n")
    assert lines[-1] == ""
    entries = list(zip(lines[1:-1:3], lines[2:-1:3], strict=True))
    assert entries == [(phrase, paraphrase) for phrase, paraphrase, can_match in TINY_TABLE if can_match]
    assert kept == len(entries) and set(lines[0:-1:3]) == {"1"}


def test_filter_keeps_empty_and_irregular_phrases_and_lowercases_the_lines() -> None:
    """An empty phrase (StringTokenizer gives no words: the jar's matcher matches an empty paraphrase anywhere) and a
    phrase spaced otherwise than by single spaces count as occurring everywhere; the lines are lowercased as the jar
    lowercases them, and their spacing does not matter."""
    table = b"1\nthe  dog\nfeline\n1\n\ncat\n1\nfeline\n\n1\n\nzebra\n1\nzebra\nhorse\n"
    index = build_paraphrase_index(table)
    text, kept = filter_paraphrases(index, ["The Cat"], ["a FELINE"])
    assert text.decode("utf-8") == "1\nthe  dog\nfeline\n1\n\ncat\n1\nfeline\n\n"
    assert kept == 3
    hashes = ngram_hashes(["The  Cat\tsat"], 7)
    assert len(hashes) == 6  # the, cat, sat, the cat, cat sat, the cat sat


def test_filtered_tiny_table_gives_the_jars_statistics(tmp_path: Path) -> None:
    """The jar with the tiny table itself and with the filtered one (through stats_many) computes the same
    statistics, and the table's paraphrases are used (paraphrase module matches in both)."""
    table = write_table(tmp_path / "tiny.gz", [entry[:2] for entry in TINY_TABLE])
    index = build_paraphrase_index(read_paraphrase_table(table))
    statistics = METEOR(language="en").stats_many({"system": HYPS}, REFS, paraphrases=index)[0]
    settings = meteor_settings("en")
    normalise = normaliser_command(java_executable(), meteor_jar(), settings)
    expected = jar_statistics(
        normalise_lines(HYPS, normalise, str(tmp_path)),
        normalise_lines(REFS, normalise, str(tmp_path)),
        "en",
        tmp_path,
        normalised=True,
        paraphrase_file=table,
    )
    np.testing.assert_array_equal(statistics, expected)
    paraphrase_matches = (
        statistics[:, 16] + statistics[:, 18]
    )  # test content + function words, paraphrase module
    assert paraphrase_matches.sum() > 0


def test_index_is_built_once_and_kept_by_the_content_of_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The meteor_paraphrases step keeps the index in MTSIG_CACHE_DIR under the table's hash: a second run reads it
    and writes the same bytes; another table gets its own index; an unreadable cache file is rebuilt; an empty
    MTSIG_CACHE_DIR keeps nothing."""
    table = write_table(tmp_path / "tiny.gz", [entry[:2] for entry in TINY_TABLE])
    monkeypatch.setattr(paraphrases_module, "paraphrase_table", lambda: table)
    cache = tmp_path / "cache"
    monkeypatch.setenv("MTSIG_CACHE_DIR", str(cache))
    built = []
    build = paraphrases_module.build_paraphrase_index
    monkeypatch.setattr(
        paraphrases_module, "build_paraphrase_index", lambda text: built.append(1) or build(text)
    )

    meteor_paraphrases(tmp_path / "first.npz")
    (kept,) = cache.glob("*.npz")
    meteor_paraphrases(tmp_path / "second.npz")
    assert len(built) == 1
    assert (tmp_path / "first.npz").read_bytes() == (tmp_path / "second.npz").read_bytes()
    expected = build_paraphrase_index(read_paraphrase_table(table))
    index = load_intermediate_arrays(tmp_path / "second.npz", "meteor_paraphrases")
    assert index.keys() == expected.keys()
    assert all(np.array_equal(index[name], expected[name]) for name in expected)

    kept.write_bytes(kept.read_bytes()[:1000])  # truncated: rebuilt, and kept again
    meteor_paraphrases(tmp_path / "third.npz")
    assert len(built) == 2
    assert (tmp_path / "third.npz").read_bytes() == (tmp_path / "first.npz").read_bytes()
    assert kept.stat().st_size > 1000

    write_table(table, [entry[:2] for entry in TINY_TABLE[:3]])  # another table: another index
    meteor_paraphrases(tmp_path / "fourth.npz")
    assert len(built) == 3 and len(list(cache.glob("*.npz"))) == 2
    assert len(load_intermediate_arrays(tmp_path / "fourth.npz", "meteor_paraphrases")["entry_phrase"]) == 3

    monkeypatch.setenv("MTSIG_CACHE_DIR", "")
    meteor_paraphrases(tmp_path / "fifth.npz")
    assert len(built) == 4 and len(list(cache.glob("*.npz"))) == 2


@pytest.fixture(scope="module")
def shipped_index() -> dict[str, np.ndarray]:
    """The shipped table's index, from the session's cache folder when a pipeline test already built it."""
    return paraphrases_module.cached_paraphrase_index(paraphrase_table())[0]


@pytest.mark.slow
def test_every_wmt12_es_en_system_has_the_jars_statistics(
    data_root: Path, tmp_path: Path, shipped_index: dict[str, np.ndarray]
) -> None:
    """All 12 WMT12 es-en systems, the first 500 segments (English: exact, stem, synonym, paraphrase):
    stats_many with the filtered paraphrase table and pre-normalised lines equals, on every statistic of every
    segment, the jar run as a user runs it, on the raw lines (-norm) with its own full table. (All 3 003 segments
    were checked the same way once, and the default run's statistics files are byte-identical to those computed
    before: benchmarks/README.md; 500 keep the test suite's time down.)"""
    refs, outputs = wmt12(data_root, "es-en")
    assert len(outputs) == 12
    refs = refs[:500]
    outputs = {name: lines[:500] for name, lines in outputs.items()}
    statistics = METEOR(language="en").stats_many(outputs, refs, paraphrases=shipped_index)
    index, pairs = distinct_segment_hypotheses(outputs, len(refs))
    expected = jar_statistics([hyp for _, hyp in pairs], [refs[i] for i, _ in pairs], "en", tmp_path)
    np.testing.assert_array_equal(statistics, expected[index])
    assert (statistics[..., 16] > 0).sum() > 100  # paraphrase matches
