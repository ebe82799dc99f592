"""Meteor 1.5's English paraphrase table, filtered to the entries that can match in one experiment.

The jar loads its whole table (5.27 million entries, 61 MB gzipped, as pycocoevalcap ships it) into a trie at every
start, and its paraphrase matcher tries every paraphrase of every phrase it finds in a line against the other line:
for WMT12 es-en this was about a quarter of the jar's CPU time. Given, with ``-a``, only the entries that can match
in the experiment, it computes the same statistics (tested on every WMT12 es-en system) in less time and memory.

Why that is exact, from Meteor 1.5's ``ParaphraseTransducer`` and ``ParaphraseMatcher``:

* an entry is three lines: a probability, which the constructor reads and discards (its parse is commented out),
  a phrase and its paraphrase, both split into words by ``StringTokenizer``; the phrase is added to a trie whose
  end state lists the entries' indices in file order;
* aligning a test line (``words1``) with a reference line (``words2``), the matcher walks the trie from every
  position of the reference and, for each entry found, looks for its paraphrase at every position of the test line,
  then the same from the test line to the reference; a match needs the entry's phrase in one line and its
  paraphrase in the other, as contiguous words; matches are listed by position, phrase length, entry order;
* words are compared through the table's vocabulary (ids assigned in order of first appearance; a word not in the
  table is -1 and matches nothing), so only equality of words matters.

So an entry whose phrase and paraphrase do not occur, one in a hypothesis and the other in a reference (or the
reverse), as word n-grams of the experiment's normalised, lowercased lines, never matches; dropping it, and keeping
the order of the others, leaves every list of matches, hence every alignment and statistic, unchanged.

Phrases and n-grams are compared by 64-bit polynomial hashes of their UTF-8 bytes (words joined by single spaces); a
collision can only keep an entry that cannot match, never drop one. The entries written are the table's own phrases
(distinct phrases found by their bytes, not by hash); their probability line, which the jar reads and discards, is
written as ``1``. The lines are lowercased here by Python's ``str.lower`` while the jar uses
Java's ``toLowerCase``: for a word made of ASCII characters the two agree (the only characters that either
lowercases to ASCII are A-Z and the Kelvin sign, which both map to "k"), so a phrase with a non-ASCII character
(7 998 of the 2.6 million distinct phrases) counts as occurring in every line, as do an empty phrase and one spaced
otherwise than by single spaces (none in the shipped table).
"""

from __future__ import annotations

import gzip
import hashlib
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path

import numpy as np

#: ``java.util.StringTokenizer``'s default delimiters: space, tab, newline, carriage return, form feed.
_DELIMITERS = re.compile(r"[ \t\n\r\f]+")
#: Odd multiplier of the polynomial hash (mod 2**64) of a phrase's bytes, and its inverse mod 2**64.
_BASE = 0x100000001B3
_BASE_INVERSE = pow(_BASE, -1, 2**64)


def paraphrase_table() -> Path:
    """Path of Meteor 1.5's English paraphrase table inside the installed pycocoevalcap package."""
    table = Path(str(resources.files("pycocoevalcap") / "meteor" / "data" / "paraphrase-en.gz"))
    if not table.is_file():
        raise FileNotFoundError(f"Meteor's paraphrase table is missing from pycocoevalcap (expected {table})")
    return table


def read_paraphrase_table(path: str | Path) -> bytes:
    """The decompressed text of a gzipped paraphrase table."""
    return gzip.decompress(Path(path).read_bytes())


#: Environment variable naming the folder where built indexes are kept (empty: keep none).
CACHE_ENV = "MTSIG_CACHE_DIR"
#: Arrays of an index (:func:`build_paraphrase_index`).
INDEX_ARRAYS = (
    "phrase_text",
    "phrase_start",
    "phrase_hash",
    "hash_order",
    "always",
    "entry_phrase",
    "entry_paraphrase",
    "max_words",
)


def cache_directory() -> Path | None:
    """Where built indexes are kept: ``$MTSIG_CACHE_DIR``, else ``$XDG_CACHE_HOME/mtsig``, else
    ``~/.cache/mtsig``; None when ``MTSIG_CACHE_DIR`` is set empty."""
    configured = os.environ.get(CACHE_ENV)
    if configured is not None:
        return Path(configured) if configured else None
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mtsig"


def cached_paraphrase_index(table_path: str | Path) -> tuple[dict[str, np.ndarray], bool]:
    """:func:`build_paraphrase_index` of the gzipped table at ``table_path``, kept in :func:`cache_directory` under
    the sha256 of the gzipped table and of this module's source, so that it is built once per machine (as numba
    keeps its compiled code): the index is a function of those two alone. Returns the index and whether it came
    from the cache. A cache that cannot be read or written is ignored (the index is then built)."""
    compressed = Path(table_path).read_bytes()
    key = hashlib.sha256(compressed + Path(__file__).read_bytes()).hexdigest()[:24]
    folder = cache_directory()
    cached = folder / f"meteor-paraphrase-index-{key}.npz" if folder is not None else None
    if cached is not None and cached.is_file():
        try:
            with np.load(cached, allow_pickle=False) as data:
                index = {name: data[name] for name in INDEX_ARRAYS}  # zip CRCs checked on reading
            return index, True
        except Exception:  # noqa: BLE001 - whatever makes it unreadable (truncated zip, wrong arrays), rebuild it
            pass
    index = build_paraphrase_index(gzip.decompress(compressed))
    if cached is not None:
        try:
            cached.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=cached.parent, prefix=f".{cached.stem}.", suffix=".npz")
            with os.fdopen(handle, "wb") as out:
                np.savez(out, **index)
            os.replace(temporary, cached)
        except OSError:
            pass
    return index, False


def _powers(base: int, n: int) -> np.ndarray:
    """``base**0 .. base**(n-1)`` mod 2**64 (uint64)."""
    powers = np.full(max(n, 1), base, dtype=np.uint64)
    powers[0] = 1
    return np.cumprod(powers, dtype=np.uint64)[:n]


def _substring_hasher(buffer: np.ndarray):
    """A function of byte ranges ``[s, e)`` of ``buffer`` giving ``sum(buffer[s + k] * B**k, k < e - s)`` mod
    2**64 for each, from the prefix sums of ``buffer[x] * B**x``: ``(P[e] - P[s]) * B**-s``."""
    prefix = np.zeros(len(buffer) + 1, dtype=np.uint64)
    np.cumsum(buffer.astype(np.uint64) * _powers(_BASE, len(buffer)), dtype=np.uint64, out=prefix[1:])
    inverse = _powers(_BASE_INVERSE, len(buffer) + 1)

    def hashes(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
        return (prefix[ends] - prefix[starts]) * inverse[starts]

    return hashes


def build_paraphrase_index(table: bytes) -> dict[str, np.ndarray]:
    """The index :func:`filter_paraphrases` works from, for the decompressed text of a paraphrase table.

    Arrays: ``phrase_text`` (the distinct phrases' UTF-8 bytes, each followed by a newline) and ``phrase_start``
    (their offsets, one more than phrases), ``phrase_hash`` (the hash of each, its words joined by single spaces),
    ``hash_order`` (the phrases by increasing hash), ``always`` (the phrase is empty, not ASCII or irregularly
    spaced: it counts as occurring everywhere), ``entry_phrase``
    and ``entry_paraphrase`` (each entry's two phrases, in the table's order) and ``max_words``. Distinct phrases
    are found by their bytes (a dictionary), not by hash.
    """
    lines = table.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if len(lines) % 3:
        raise ValueError(f"a paraphrase table has three lines per entry, this one has {len(lines)} lines")
    phrases = lines[1::3] + lines[2::3]  # every entry's phrase, then every entry's paraphrase
    del lines
    # a dictionary keeps each distinct phrase's first position (in order of first appearance)
    first_position: dict[bytes, int] = {}
    position = np.fromiter(
        map(first_position.setdefault, phrases, range(len(phrases))), dtype=np.int64, count=len(phrases)
    )
    distinct = list(first_position)
    del first_position, phrases
    dense = (
        np.cumsum(position == np.arange(len(position))) - 1
    )  # each phrase's number among the distinct ones
    codes = dense[position].astype(np.int32)
    del position, dense
    lengths = np.fromiter(map(len, distinct), dtype=np.int64, count=len(distinct))
    phrase_start = np.concatenate(([0], np.cumsum(lengths + 1)))
    text = np.frombuffer(b"\n".join(distinct) + b"\n" if distinct else b"", dtype=np.uint8)
    starts = phrase_start[:-1]
    hashes = _substring_hasher(text)(starts, starts + lengths)
    # Canonical phrases (words separated by single spaces, nothing else) are hashed as they are; an irregular one
    # (none in pycocoevalcap's table) counts as occurring everywhere.
    space = text == 32
    odd = np.isin(text, np.frombuffer(b"\t\r\f", dtype=np.uint8))
    odd |= space & np.concatenate(
        (space[1:] | (text[1:] == 10), [True])
    )  # two spaces, or one before a newline
    odd |= space & np.concatenate(([True], text[:-1] == 10))  # a space at a phrase's start
    irregular = (np.add.reduceat(odd, starts) > 0) & (lengths > 0) if len(starts) else np.zeros(0, dtype=bool)
    words = np.add.reduceat(space, starts) + 1 if len(starts) else np.zeros(0, dtype=np.int64)
    non_ascii = np.maximum.reduceat(text, starts) >= 128 if len(starts) else np.zeros(0, dtype=bool)
    return {
        "phrase_text": text,
        "phrase_start": phrase_start,
        "phrase_hash": hashes,
        "hash_order": np.argsort(hashes, kind="stable").astype(np.int32),
        "always": non_ascii | (lengths == 0) | irregular,
        "entry_phrase": codes[: len(codes) // 2],
        "entry_paraphrase": codes[len(codes) // 2 :],
        "max_words": np.asarray(int(words[~irregular & (lengths > 0)].max(initial=0))),
    }


def _distinct(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values (by sorting: numpy's hash-based unique is several times slower on 10**6 uint64)."""
    values = np.sort(values)
    return values[np.concatenate(([True], values[1:] != values[:-1]))] if len(values) else values


def ngram_hashes(lines: Sequence[str], max_words: int) -> np.ndarray:
    """The distinct hashes of every word n-gram (n <= ``max_words``) of the lowercased ``lines``, words
    (``StringTokenizer``'s) joined by single spaces, as :func:`build_paraphrase_index` hashes phrases."""
    canonical = "".join(
        " ".join(word for word in _DELIMITERS.split(line.lower()) if word) + "\n"
        for line in dict.fromkeys(lines)
    )
    buffer = np.frombuffer(canonical.encode("utf-8"), dtype=np.uint8)
    boundary = (buffer == 32) | (buffer == 10)
    word_start = np.flatnonzero(~boundary & np.concatenate(([True], boundary[:-1])))
    word_end = np.flatnonzero(~boundary & np.concatenate((boundary[1:], [True]))) + 1
    word_line = np.cumsum(buffer == 10)[word_start]
    substring_hashes = _substring_hasher(buffer)
    hashes = []
    for n in range(1, min(max_words, len(word_line)) + 1):
        first = np.flatnonzero(word_line[: len(word_line) - n + 1] == word_line[n - 1 :])
        hashes.append(substring_hashes(word_start[first], word_end[first + n - 1]))
    return _distinct(np.concatenate(hashes)) if hashes else np.zeros(0, dtype=np.uint64)


def _contains(sorted_values: np.ndarray, values: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Whether each of ``values`` is in ``sorted_values`` (sorted, distinct); ``order`` sorts ``values`` (looking
    sorted values up is several times faster: the searches walk the array in order)."""
    found = np.zeros(len(values), dtype=bool)
    if len(sorted_values):
        ordered = values[order]
        position = np.minimum(np.searchsorted(sorted_values, ordered), len(sorted_values) - 1)
        found[order] = sorted_values[position] == ordered
    return found


def filter_paraphrases(
    index: Mapping[str, np.ndarray], hypotheses: Sequence[str], references: Sequence[str]
) -> tuple[bytes, int]:
    """The table's entries that can match between ``hypotheses`` and ``references`` (lines as the jar aligns them:
    normalised, before lowercasing, which this function does), in the table's order, as the text of a paraphrase
    table (each entry's probability line written as ``1``: the jar reads and ignores it), and their number.

    An entry is kept when its phrase occurs in a reference and its paraphrase in a hypothesis, or the reverse
    (module docstring); a phrase that is empty, not ASCII or irregularly spaced counts as occurring everywhere.
    """
    max_words, phrase_hash, order = int(index["max_words"]), index["phrase_hash"], index["hash_order"]
    in_hypotheses = _contains(ngram_hashes(hypotheses, max_words), phrase_hash, order) | index["always"]
    in_references = _contains(ngram_hashes(references, max_words), phrase_hash, order) | index["always"]
    phrase, paraphrase = index["entry_phrase"], index["entry_paraphrase"]
    keep = (in_references[phrase] & in_hypotheses[paraphrase]) | (
        in_hypotheses[phrase] & in_references[paraphrase]
    )
    kept = np.flatnonzero(keep)
    text, start = index["phrase_text"].tobytes(), index["phrase_start"]
    first, second = phrase[kept], paraphrase[kept]
    pieces = []
    for a, b, c, d in zip(
        start[first].tolist(),
        start[first + 1].tolist(),
        start[second].tolist(),
        start[second + 1].tolist(),
        strict=True,
    ):
        pieces += [b"1\n", text[a:b], text[c:d]]
    return b"".join(pieces), len(kept)
