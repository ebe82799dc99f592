"""Readers for the STAPLE 2020 shared task formats (Mayhew et al. 2020) and for scored n-best lists.

Three formats are read, each strictly, with an :class:`~mtsig.errors.InputError` naming file and line:

- *Gold* (``*.gold.txt``): a ``prompt_id|English prompt`` line, then one ``translation|weight`` line per
  accepted translation, a blank line between prompts. Weights are the relative frequencies with which learners
  chose each translation (they sum to one per prompt).
- *Predictions* (``*.pred.txt``, e.g. the organisers' AWS baseline): the same blocks without weights; the
  translation lines are taken in file order, i.e. as a ranked list without scores.
- *Scored n-best lists*: one ``prompt_id|translation|score`` line per hypothesis (blank lines ignored), so a
  user can drop in the n-best output of their own systems. Scores are model scores, higher is better
  (typically log-probabilities); each prompt's list is ranked by score, ties keeping file order.

Text is kept exactly as written (apart from the line break); matching normalisation belongs to
:mod:`mtsig.stats.ranking_measures.nbest` (``normalize_staple``), as in the official scorer, so that BLEU can
still see the raw text.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from mtsig.errors import InputError
from mtsig.io.text import decode_utf8_line, finite_number

FIELD_SEPARATOR = "|"


@dataclass(frozen=True)
class GoldPrompt:
    """One STAPLE prompt: its English source and its accepted translations with learner-frequency weights."""

    prompt_id: str
    source: str
    translations: tuple[str, ...]
    weights: tuple[float, ...]


@dataclass(frozen=True)
class NBestList:
    """One system's ranked hypotheses for one prompt, best first; ``scores`` is None for unscored lists."""

    texts: tuple[str, ...]
    scores: tuple[float, ...] | None = None


def _numbered_lines(path: Path) -> Iterator[tuple[int, str]]:
    """Yield (1-based line number, line without its line break), reading UTF-8 strictly: a line that is not
    UTF-8 or holds a NUL byte (a binary file) is an error naming it."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(f"cannot read file ({error.strerror})", path) from error
    for number, raw in enumerate(data.split(b"\n"), start=1):
        line = decode_utf8_line(raw, path, number)
        yield number, line.removeprefix("\ufeff").rstrip("\r") if number == 1 else line.rstrip("\r")


def _blocks(path: Path) -> Iterator[tuple[int, str, list[tuple[int, str]]]]:
    """Split a STAPLE file into blocks: (header line number, header, [(line number, body line), ...])."""
    header: tuple[int, str] | None = None
    body: list[tuple[int, str]] = []
    for number, line in _numbered_lines(path):
        if line.strip() == "":
            if header is not None:
                yield header[0], header[1], body
            header, body = None, []
        elif header is None:
            header = (number, line)
        else:
            body.append((number, line))
    if header is not None:
        yield header[0], header[1], body


def _parse_header(line: str, path: Path, number: int) -> tuple[str, str]:
    """``prompt_id|English`` -> (prompt_id, English); the English text may not be empty."""
    if FIELD_SEPARATOR not in line:
        raise InputError(f"expected a 'prompt_id|English prompt' line, got {line!r}", path, number)
    prompt_id, source = line.split(FIELD_SEPARATOR, 1)
    if not prompt_id.strip() or not source.strip():
        raise InputError(f"empty prompt id or prompt text in {line!r}", path, number)
    return prompt_id.strip(), source.strip()


def _prompt_blocks(path: Path) -> Iterator[tuple[str, str, list[tuple[int, str]]]]:
    """The blocks of a STAPLE file as (prompt id, English prompt, [(line number, body line), ...]).

    Raises InputError for a bad header, a prompt id repeated, a block with no translations, or no prompts.
    """
    seen: set[str] = set()
    for header_number, header, body in _blocks(path):
        prompt_id, source = _parse_header(header, path, header_number)
        if prompt_id in seen:
            raise InputError(f"prompt id {prompt_id!r} appears twice", path, header_number)
        if not body:
            raise InputError(f"prompt {prompt_id!r} has no translations", path, header_number)
        seen.add(prompt_id)
        yield prompt_id, source, body
    if not seen:
        raise InputError("no prompts found", path)


def _parse_weight(field: str, path: Path, number: int) -> float:
    try:
        weight = float(field)
    except ValueError:
        raise InputError(f"weight {field!r} is not a number", path, number) from None
    if not math.isfinite(weight) or weight <= 0:
        raise InputError(f"weight {field!r} must be a positive finite number", path, number)
    return weight


def read_staple_gold(path: str | Path) -> dict[str, GoldPrompt]:
    """Read a STAPLE gold file (format in the module docstring), prompts in file order.

    Raises InputError for: a header without ``|``; a translation line without exactly one ``|`` (the
    official reader, ``utils.read_transfile`` of duolingo-sharedtask-2020, splits on it); an empty
    translation; a weight that is not a positive finite number; a translation repeated within a prompt; a
    prompt id repeated; a prompt with no translations; a file with no prompts.
    """
    path = Path(path)
    prompts: dict[str, GoldPrompt] = {}
    for prompt_id, source, body in _prompt_blocks(path):
        translations: list[str] = []
        weights: list[float] = []
        seen: set[str] = set()
        for number, line in body:
            if line.count(FIELD_SEPARATOR) != 1:
                raise InputError(f"expected 'translation|weight', got {line!r}", path, number)
            text, weight_field = line.split(FIELD_SEPARATOR)
            text = text.strip()
            if not text:
                raise InputError("empty translation", path, number)
            if text in seen:
                raise InputError(f"translation {text!r} repeated within prompt {prompt_id!r}", path, number)
            seen.add(text)
            translations.append(text)
            weights.append(_parse_weight(weight_field.strip(), path, number))
        prompts[prompt_id] = GoldPrompt(prompt_id, source, tuple(translations), tuple(weights))
    return prompts


def read_staple_predictions(path: str | Path) -> dict[str, NBestList]:
    """Read a STAPLE prediction file (the AWS baseline format): each block's lines are an unscored ranked list.

    Raises InputError for a bad header, a repeated prompt id, a block with no translations, or no prompts.
    """
    path = Path(path)
    systems: dict[str, NBestList] = {}
    for prompt_id, _, body in _prompt_blocks(path):
        systems[prompt_id] = NBestList(tuple(line.strip() for _, line in body))
    return systems


def read_system_file(path: str | Path) -> dict[str, NBestList]:
    """Read a system's output in either format, told apart by the first non-blank line.

    ``prompt_id|translation|score`` with a numeric last field is a scored n-best file; anything else is read as
    a STAPLE prediction file (whose first line is ``prompt_id|English``, two fields).
    """
    path = Path(path)
    for _, line in _numbered_lines(path):
        if line.strip():
            fields = line.split(FIELD_SEPARATOR)
            if len(fields) >= 3:
                try:
                    float(fields[-1])
                except ValueError:
                    break
                return read_scored_nbest(path)
            break
    return read_staple_predictions(path)


def read_scored_nbest(path: str | Path) -> dict[str, NBestList]:
    """Read ``prompt_id|translation|score`` lines into per-prompt lists ranked by score (descending).

    The first field is the prompt id and the last the score; everything between is the translation, so a
    translation may itself contain ``|``. Ties keep file order (a stable sort). Blank lines are skipped.
    Raises InputError for fewer than three fields, an empty id or translation, a non-finite score, a
    translation listed twice for the same prompt, or an empty file.
    """
    path = Path(path)
    entries: dict[str, list[tuple[float, str]]] = {}
    seen: dict[str, set[str]] = {}
    for number, line in _numbered_lines(path):
        if not line.strip():
            continue
        fields = line.split(FIELD_SEPARATOR)
        if len(fields) < 3:
            raise InputError(f"expected 'prompt_id|translation|score', got {line!r}", path, number)
        prompt_id, text, score_field = (
            fields[0].strip(),
            FIELD_SEPARATOR.join(fields[1:-1]).strip(),
            fields[-1],
        )
        if not prompt_id or not text:
            raise InputError(f"empty prompt id or translation in {line!r}", path, number)
        score = finite_number(score_field.strip(), "score", path, number)
        if text in seen.setdefault(prompt_id, set()):
            raise InputError(f"translation {text!r} listed twice for prompt {prompt_id!r}", path, number)
        seen[prompt_id].add(text)
        entries.setdefault(prompt_id, []).append((score, text))
    if not entries:
        raise InputError("no hypotheses found", path)
    ranked: dict[str, NBestList] = {}
    for prompt_id, items in entries.items():
        items = sorted(items, key=lambda item: -item[0])  # stable: ties keep file order
        ranked[prompt_id] = NBestList(tuple(t for _, t in items), tuple(s for s, _ in items))
    return ranked
