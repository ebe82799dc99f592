"""What every sub-command of ``mtsig`` shares: exit statuses, the parser class, argument types, text output.

Private to :mod:`mtsig.cli` (the leading underscore keeps it out of the sub-command discovery of
:func:`mtsig.cli.subcommands`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

DEFAULT_SEED = 12345
EXIT_INPUT_ERROR = 2
EXIT_INTERNAL_ERROR = 1
DEBUG_ENV = "MTSIG_DEBUG"


def comma_list(text: str, what: str, known: Sequence[str]) -> list[str]:
    """A non-empty comma-separated list of known, distinct names (case-insensitive)."""
    items = [item.strip().lower() for item in text.split(",")]
    if not text.strip() or not all(items):
        raise argparse.ArgumentTypeError(
            f"expected a comma-separated list of {what}s with no empty item, got {text!r}; known: {', '.join(known)}"
        )
    unknown = [item for item in items if item not in known]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown {what}(s) {', '.join(unknown)}; known: {', '.join(known)}")
    repeated = sorted({item for item in items if items.count(item) > 1})
    if repeated:
        raise argparse.ArgumentTypeError(f"{what} {', '.join(repeated)} given more than once in {text!r}")
    return items


def positive_int(text: str) -> int:
    """An argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def non_negative_int(text: str) -> int:
    """An argparse type: an integer >= 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {text}")
    return value


def positive_float(text: str) -> float:
    """An argparse type: a number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def confidence_level(text: str) -> float:
    """An argparse type: :func:`mtsig.stats.intervals.confidence_level` (a fraction or a percentage)."""
    from mtsig.stats.intervals import confidence_level as parse

    try:
        return parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def significance_level(text: str) -> float:
    """An argparse type: a significance level strictly between 0 and 1."""
    value = positive_float(text)
    if not value < 1.0:
        raise argparse.ArgumentTypeError(f"must lie strictly between 0 and 1, got {text}")
    return value


class Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (exit status 2), like every other bad input of the command."""

    def error(self, message: str) -> NoReturn:
        self.exit(
            EXIT_INPUT_ERROR, f"{self.prog}: error: {' '.join(message.split())} (see {self.prog} --help)\n"
        )


def numbers(kind: type) -> Callable[[str], list]:
    """An argparse type: a non-empty comma-separated list of ``kind`` (int or float)."""

    def parse(text: str) -> list:
        try:
            values = [kind(item) for item in text.split(",") if item.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected comma-separated {kind.__name__}s, got {text!r}"
            ) from None
        if not values:
            raise argparse.ArgumentTypeError(f"expected comma-separated {kind.__name__}s, got {text!r}")
        return values

    return parse


def run_text_command(command: Callable[[argparse.Namespace], str], args: argparse.Namespace) -> int:
    """A sub-command whose whole logic lives in its library module (``power``, run groups): print its text."""
    sys.stdout.write(command(args))
    return 0
