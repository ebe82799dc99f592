"""Plain-text system outputs and references: one segment per line, UTF-8.

WMT releases such as WMT12 ship system outputs with HTML entities left in (``&#39;``, ``&quot;``, and some lines
escaped several times over, e.g. ``&amp;amp;amp;`` in WMT12 onlineA) while the references have none. String-based
metrics would penalise those systems for an artefact of the release, so :func:`load_texts` can undo the escaping
before any metric sees the text; :func:`html_entities_note` says, in one line, which files hold entities when they
are left as written.
"""

from __future__ import annotations

import gzip
import html
import html.entities
import math
import re
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path

from mtsig.errors import InputError

#: The first two bytes of a gzip stream (RFC 1952, Sec. 2.3.1).
GZIP_MAGIC = b"\x1f\x8b"


def read_utf8_bytes(path: str | Path) -> bytes:
    """The bytes of a text file, without a leading UTF-8 byte-order mark; a gzip-compressed file (recognised by its
    magic bytes, whatever its name, e.g. the WMT20 metrics task's ``*.sys.score.gz``) is decompressed first.

    Raises:
        InputError: the file is missing, a directory, unreadable, or a damaged gzip stream.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError("file not found", path) from None
    except IsADirectoryError:
        raise InputError("is a directory, expected a text file", path) from None
    except OSError as error:
        raise InputError(f"cannot read file: {error.strerror}", path) from None
    if data.startswith(GZIP_MAGIC):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as error:
            raise InputError(f"damaged gzip file: {error}", path) from None
    return data.removeprefix(b"\xef\xbb\xbf")


def decode_utf8_line(raw: bytes, path: str | Path, number: int) -> str:
    """One physical line (``raw``, line ``number`` of ``path``, counted from 1) decoded strictly as UTF-8.

    Raises:
        InputError: the line holds a NUL byte (a binary file) or is not valid UTF-8, naming file and line.
    """
    if b"\x00" in raw:  # valid UTF-8, but no text file holds it: a binary file given by mistake
        raise InputError("binary file (NUL byte), expected UTF-8 text", Path(path), number)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(
            f"not valid UTF-8 (byte 0x{raw[error.start]:02x} at column {error.start + 1})", Path(path), number
        ) from None


def finite_number(text: str, what: str, path: str | Path, number: int) -> float:
    """One field of line ``number`` of ``path`` read as a finite float (``what`` names it in the error).

    Raises:
        InputError: not a number, or NaN or an infinity, naming file and line.
    """
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{what} {text!r} is not a number", Path(path), number) from None
    if not math.isfinite(value):
        raise InputError(f"{what} {text!r} is not a finite number", Path(path), number)
    return value


def read_lines(path: str | Path) -> list[str]:
    """Read a UTF-8 file as a list of segments, one per line, stripping only the line terminator.

    Lines are split on ``\\n`` alone (a trailing ``\\r`` of a CRLF file is dropped too): Python's
    ``str.splitlines`` would also split on characters such as U+2028 or U+0085 that can occur *inside* a
    segment and would silently shift every following segment. A final line without a terminator is kept; a
    file that ends with a newline does not gain an empty last segment. A UTF-8 byte-order mark is ignored.

    Raises:
        InputError: the file is missing or unreadable, or a line is not valid UTF-8 or holds a NUL byte (a
            binary file; the message gives that line's number, counted from 1).
    """
    raw_lines = read_utf8_bytes(path).split(b"\n")
    if raw_lines and raw_lines[-1] == b"":
        raw_lines.pop()
    return [
        decode_utf8_line(raw, path, number).removesuffix("\r")
        for number, raw in enumerate(raw_lines, start=1)
    ]


def unescape_html(text: str) -> str:
    """Undo HTML escaping, repeatedly, until the text no longer changes.

    One pass of :func:`html.unescape` turns ``&amp;amp;quot;`` into ``&amp;quot;``; repeating it reaches the
    intended ``"``. The repetition terminates because every change shortens the text. Like a browser,
    :func:`html.unescape` also decodes the HTML5 legacy entities that lack a semicolon (``&amp`` -> ``&``);
    on WMT12 this affects only four onlineF lines of the form ``S&amp\\;P``.
    """
    while True:
        unescaped = html.unescape(text)
        if unescaped == text:
            return text
        text = unescaped


#: An HTML character reference: ``&#39;``, ``&#x27;`` or a named one (``&quot;``; checked against HTML5's names).
_ENTITY = re.compile(r"&(#[0-9]+;|#[xX][0-9a-fA-F]+;|[A-Za-z][A-Za-z0-9]*;)")


def html_entity_lines(lines: Sequence[str]) -> tuple[int, int, str]:
    """``(lines holding an HTML entity, the first such line's number from 1, its first entity)``; ``(0, 0, "")``
    when none does. Named references count only if HTML5 defines them (``&amp;``, ``&quot;``, not ``&foo;``)."""
    count, first, example = 0, 0, ""
    for number, line in enumerate(lines, start=1):
        found = next(
            (
                m.group(0)
                for m in _ENTITY.finditer(line)
                if m.group(1)[0] == "#" or m.group(1) in html.entities.html5
            ),
            None,
        )
        if found is not None:
            count += 1
            if not first:
                first, example = number, found
    return count, first, example


def html_entities_note(texts: Mapping[str, Sequence[str]]) -> str | None:
    """One line naming the texts (name -> lines, as they will be scored) that hold HTML entities, with a count and
    the first one of each, and what to do; None when none does. For a run without ``--unescape-html``: WMT12's
    onlineA, for one, keeps ``&#39;`` and ``&quot;`` that its reference does not have."""
    found = []
    for name, lines in texts.items():
        count, first, example = html_entity_lines(lines)
        if count:
            found.append(f"{name} ({count} line{'s' if count > 1 else ''}, e.g. {example} on line {first})")
    if not found:
        return None
    return (
        f"HTML entities in {', '.join(found)}: text metrics score them as written; if they are an artefact of the "
        "release (WMT12's are), add --unescape-html"
    )


References = list[str] | list[list[str]]


def segment_count(refs: References) -> int:
    """Segments of :func:`load_texts`' references: one list of lines, or reference streams (lists of lines)."""
    return len(refs[0]) if refs and isinstance(refs[0], list) else len(refs)


def load_texts(
    reference: str | Path | Sequence[str | Path], systems: Mapping[str, str | Path], *, unescape: bool
) -> tuple[References, dict[str, list[str]]]:
    """Load a reference (or several) and the named system outputs, validated to be parallel.

    Args:
        reference: the reference file (one segment per line), or several reference files: then the references are
            returned as sacrebleu's reference streams (one list of lines per file, in the order given), which every
            text metric takes (:mod:`mtsig.metrics`); a one-file list is the single reference.
        systems: system name -> output file, in the order the caller wants the systems kept.
        unescape: apply :func:`unescape_html` to every line. It is applied to the reference as well as to the
            system outputs so that both sides of every comparison are in the same (unescaped) form; a
            reference with no entities, as in WMT12, is unchanged by it.

    Returns:
        ``(reference_lines, {system name: output lines})`` with the systems in the mapping's order.

    Raises:
        InputError: a file is missing, binary or not UTF-8, the reference is empty, there are no systems, a system name is empty or is
            repeated after stripping whitespace, or a system output's line count differs from the
            reference's (the message names the file and both counts). Nothing is returned on error.
    """
    if not systems:
        raise InputError("no system outputs given", reference)
    seen: dict[str, str] = {}
    for name, path in systems.items():
        stripped = name.strip()
        if not stripped:
            raise InputError(f"empty system name for output file {str(path)!r}", path)
        if stripped in seen:
            raise InputError(f"duplicate system name {stripped!r} (also used for {seen[stripped]!r})", path)
        seen[stripped] = str(path)

    if not isinstance(reference, (str, Path)):
        paths = list(reference)
        if not paths:
            raise InputError("no reference file given")
        if len(paths) > 1:
            return _load_reference_streams(paths, systems, unescape=unescape)
        reference = paths[0]
    reference_lines = read_lines(reference)
    if not reference_lines:
        raise InputError("empty file: the reference has no segments", reference)
    outputs: dict[str, list[str]] = {}
    for name, path in systems.items():
        lines = read_lines(path)
        if len(lines) != len(reference_lines):
            raise InputError(
                f"system {name!r} has {len(lines)} lines but the reference {str(reference)!r} has "
                f"{len(reference_lines)}",
                path,
            )
        outputs[name] = lines

    if unescape:
        reference_lines = [unescape_html(line) for line in reference_lines]
        outputs = {name: [unescape_html(line) for line in lines] for name, lines in outputs.items()}
    return reference_lines, outputs


def _load_reference_streams(
    paths: Sequence[str | Path], systems: Mapping[str, str | Path], *, unescape: bool
) -> tuple[list[list[str]], dict[str, list[str]]]:
    """:func:`load_texts` with several reference files: every file parallel to the first, each given once."""
    seen: dict[Path, int] = {}
    for position, path in enumerate(paths, start=1):
        key = Path(path).resolve()
        if key in seen:
            raise InputError(
                f"reference file given twice (as reference {seen[key]} and reference {position})", path
            )
        seen[key] = position
    first, outputs = load_texts(paths[0], systems, unescape=unescape)
    streams = [first]
    for path in paths[1:]:
        lines = read_lines(path)
        if len(lines) != len(first):
            raise InputError(
                f"reference has {len(lines)} lines but the first reference {str(paths[0])!r} has {len(first)}",
                path,
            )
        streams.append([unescape_html(line) for line in lines] if unescape else lines)
    return streams, outputs
