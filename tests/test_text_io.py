"""Tests of mtsig.io.text: reading segments, HTML unescaping, validated loading of parallel files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mtsig.errors import InputError
from mtsig.io.text import load_texts, read_lines, unescape_html

ENTITY = re.compile(r"&(#[0-9]+|[a-z]+);")


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_read_lines_strips_only_the_terminator(tmp_path: Path) -> None:
    # U+2028 and U+0085 are line breaks for str.splitlines but are inside a segment here.
    path = write(tmp_path / "a.txt", "one \n two\u2028half\r\nthree\u0085x\n\nlast".encode())
    assert read_lines(path) == ["one ", " two\u2028half", "three\u0085x", "", "last"]


def test_read_lines_final_newline_adds_no_segment_and_bom_is_dropped(tmp_path: Path) -> None:
    path = write(tmp_path / "a.txt", b"\xef\xbb\xbfa\nb\n")
    assert read_lines(path) == ["a", "b"]
    assert read_lines(write(tmp_path / "empty.txt", b"")) == []


def test_read_lines_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found") as info:
        read_lines(tmp_path / "nope.txt")
    assert info.value.path == str(tmp_path / "nope.txt")


def test_read_lines_bad_utf8_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path / "bad.txt", b"fine\nalso fine\nbad \xff byte\n")
    with pytest.raises(InputError, match=r"bad\.txt:3: not valid UTF-8 \(byte 0xff at column 5\)") as info:
        read_lines(path)
    assert info.value.line == 3


@pytest.mark.parametrize(
    ("escaped", "expected"),
    [
        ("It&#39;s", "It's"),
        ("&quot;yes&quot;", '"yes"'),
        ("AT&amp;amp;amp;T", "AT&T"),  # escaped three times over: four passes to a fixed point
        ("&amp;quot;", '"'),
        ("a < b & c", "a < b & c"),  # nothing to undo
        ("", ""),
    ],
)
def test_unescape_html_reaches_a_fixed_point(escaped: str, expected: str) -> None:
    assert unescape_html(escaped) == expected


def test_load_texts_keeps_order_and_unescapes_both_sides(tmp_path: Path) -> None:
    ref = write(tmp_path / "ref", b"It&#39;s\nb\n")
    sys_b = write(tmp_path / "b", b"It&amp;#39;s\nx\n")
    sys_a = write(tmp_path / "a", b"y\nz\n")
    refs, outputs = load_texts(ref, {"B": sys_b, "A": sys_a}, unescape=True)
    assert refs == ["It's", "b"]
    assert list(outputs) == ["B", "A"]
    assert outputs["B"] == ["It's", "x"]
    refs_raw, outputs_raw = load_texts(ref, {"B": sys_b}, unescape=False)
    assert refs_raw == ["It&#39;s", "b"] and outputs_raw["B"] == ["It&amp;#39;s", "x"]


def test_load_texts_line_count_mismatch_names_file_and_counts(tmp_path: Path) -> None:
    ref = write(tmp_path / "ref", b"1\n2\n3\n")
    short = write(tmp_path / "short", b"1\n2\n")
    with pytest.raises(InputError, match=r"short: system 'S' has 2 lines but the reference .* has 3"):
        load_texts(ref, {"S": short}, unescape=False)


def test_load_texts_missing_system_file(tmp_path: Path) -> None:
    ref = write(tmp_path / "ref", b"1\n")
    with pytest.raises(InputError, match="missing.txt: file not found"):
        load_texts(ref, {"S": tmp_path / "missing.txt"}, unescape=False)


def test_load_texts_bad_names(tmp_path: Path) -> None:
    ref = write(tmp_path / "ref", b"1\n")
    out = write(tmp_path / "out", b"1\n")
    with pytest.raises(InputError, match="empty system name"):
        load_texts(ref, {"  ": out}, unescape=False)
    with pytest.raises(InputError, match="duplicate system name 'A'"):
        load_texts(ref, {"A": out, "A ": out}, unescape=False)
    with pytest.raises(InputError, match="no system outputs"):
        load_texts(ref, {}, unescape=False)


def test_wmt12_onlineB_entities_are_undone(data_root: Path) -> None:
    """WMT12 es-en onlineB has HTML entities (&#39;, &quot;, &amp;) on 776 lines; the reference has none."""
    folder = data_root / "wmt12"
    ref_path = folder / "plain" / "newstest2012-ref.en"
    sys_path = folder / "system-outputs" / "es-en" / "newstest2012.es-en.onlineB"
    raw = read_lines(sys_path)
    assert sum(bool(ENTITY.search(line)) for line in raw) == 776
    refs, outputs = load_texts(ref_path, {"onlineB": sys_path}, unescape=True)
    assert len(refs) == len(outputs["onlineB"]) == 3003
    assert refs == read_lines(ref_path)  # no entities in the reference: unescaping leaves it unchanged
    assert not any(ENTITY.search(line) for line in outputs["onlineB"])
    assert sum(a != b for a, b in zip(raw, outputs["onlineB"], strict=True)) == 776


def test_html_entities_are_found_by_line_named_ones_only_if_html5_has_them():
    """By hand: numeric references in decimal and hex and HTML5's named ones count; ``&foo;``, a bare ``&`` and
    ``AT&T`` do not."""
    from mtsig.io.text import html_entities_note, html_entity_lines

    lines = ["AT&T and R&D", "it&#39;s", "no &foo; here", "&quot;quoted&quot; &#x27;", "plain"]
    assert html_entity_lines(lines) == (2, 2, "&#39;")
    assert html_entity_lines(["a &amp b", "c &lt; d"]) == (1, 2, "&lt;")
    assert html_entity_lines(["&foo;", "& amp;"]) == (0, 0, "")
    assert html_entities_note({"clean": ["plain"]}) is None
    note = html_entities_note({"clean": ["plain"], "sysA": lines})
    assert note is not None and note.startswith("HTML entities in sysA (2 lines, e.g. &#39; on line 2):")
