"""What every sub-command of ``mtsig`` shares: exit statuses, the parser class, argument types, text output,
progress on stderr (:class:`ProgressDisplay`).

Private to :mod:`mtsig.cli` (the leading underscore keeps it out of the sub-command discovery of
:func:`mtsig.cli.subcommands`).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

if TYPE_CHECKING:
    from tqdm import tqdm

    from mtsig.runtime.progress import Progress

DEFAULT_SEED = 12345
EXIT_INPUT_ERROR = 2
EXIT_INTERNAL_ERROR = 1
DEBUG_ENV = "MTSIG_DEBUG"
#: Seconds a command runs before its progress is shown (``$MTSIG_PROGRESS_DELAY`` overrides it).
PROGRESS_DELAY = 2.0
PROGRESS_DELAY_ENV = "MTSIG_PROGRESS_DELAY"


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


def _number_type(
    convert: Callable[[str], float], accepts: Callable[[float], bool], what: str
) -> Callable[[str], Any]:
    """An argparse type: ``convert(text)``, refused with "must be ``what``" unless ``accepts`` the value."""

    def parse(text: str) -> Any:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}") from None
        if not accepts(value):
            raise argparse.ArgumentTypeError(f"must be {what}, got {text}")
        return value

    return parse


#: argparse types: an integer >= 1, an integer >= 0, a number > 0.
positive_int = _number_type(int, lambda value: value >= 1, "a positive integer")
non_negative_int = _number_type(int, lambda value: value >= 0, "a non-negative integer")
positive_float = _number_type(float, lambda value: value > 0, "a positive number")


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


def warn(message: str) -> None:
    """One warning line on stderr, ``mtsig: warning: ...`` (stdout keeps only the command's output)."""
    print(f"mtsig: warning: {' '.join(message.split())}", file=sys.stderr)


def add_quiet_argument(parser: argparse.ArgumentParser) -> None:
    """``--quiet``: no progress on stderr (:class:`ProgressDisplay`)."""
    parser.add_argument(
        "--quiet",
        action="store_true",
        help=f"show no progress (otherwise shown on stderr when it is a terminal and the work takes over "
        f"{PROGRESS_DELAY:g} s)",
    )


class ProgressDisplay:
    """Progress of a long command on stderr, one stage at a time (``with display.stage("scoring bleu") as
    progress:``), drawn by tqdm; the library reports through ``progress(done, total)`` (:mod:`mtsig.runtime.progress`).

    Shown only when enabled (stderr is a terminal and no ``--quiet``: :meth:`for_command`) and only once the
    command has run :data:`PROGRESS_DELAY` seconds, so that quick commands print nothing; then a stage shows its
    label, its elapsed time (ticking even while the library is busy in one long call) and, once the library has
    said how much there is, a bar with the remaining time. Each stage's line is cleared when it ends: stdout and
    the terminal keep only the command's output. Disabled, a stage gives ``None`` and nothing is imported.
    """

    TICK = 0.5  # seconds between redraws of the elapsed time

    def __init__(
        self, command: str, *, enabled: bool, delay: float = PROGRESS_DELAY, stream: TextIO | None = None
    ):
        self.command = command
        self.enabled = enabled
        self.delay = delay
        self.stream = stream
        self.started = time.monotonic()
        self._lock = threading.Lock()

    @classmethod
    def for_command(cls, command: str, args: argparse.Namespace) -> ProgressDisplay:
        """The display of ``mtsig <command>``: enabled when stderr is a terminal and ``--quiet`` is not given."""
        delay = float(os.environ.get(PROGRESS_DELAY_ENV, "") or PROGRESS_DELAY)
        enabled = not getattr(args, "quiet", False) and sys.stderr.isatty()
        return cls(command, enabled=enabled, delay=delay)

    @contextmanager
    def stage(self, label: str) -> Iterator[Progress | None]:
        """One stage of the command: yields the ``progress(done, total)`` to give the library (``None`` when
        disabled); the stage's line is cleared at its end, whatever the way out."""
        if not self.enabled:
            yield None
            return
        stage = _Stage(f"mtsig {self.command}: {label}")
        stop = threading.Event()
        ticker = threading.Thread(target=self._tick, args=(stage, stop), daemon=True)
        ticker.start()

        def progress(done: int, total: int) -> None:
            with self._lock:
                stage.done, stage.total = done, total
                self._draw(stage)

        try:
            yield progress
        finally:
            stop.set()
            ticker.join()
            with self._lock:
                if stage.bar is not None:
                    stage.bar.close()

    def _tick(self, stage: _Stage, stop: threading.Event) -> None:
        while not stop.wait(self.TICK):
            with self._lock:
                self._draw(stage, redraw=True)

    def _draw(self, stage: _Stage, redraw: bool = False) -> None:
        """Create the stage's bar once the delay has passed, then bring it up to date (under ``self._lock``);
        drawn when created and at every tick, so a busy library is not slowed by drawing."""
        if stage.bar is None:
            if time.monotonic() - self.started < self.delay:
                return
            from tqdm import tqdm

            stream = self.stream or sys.stderr
            stage.bar = tqdm(
                desc=stage.label,
                total=stage.total,
                file=stream,
                leave=False,
                **_size_options(stream),
                smoothing=0,  # the stage's average rate: its units are alike
                bar_format=_bar_format(stage.total),
            )
            stage.bar.start_t = stage.bar.last_print_t = stage.started  # the stage's own elapsed time
            redraw = True
        bar = stage.bar
        if bar.total != stage.total:
            bar.total, bar.bar_format = stage.total, _bar_format(stage.total)
        bar.n = stage.done
        if redraw:
            bar.refresh()


class _Stage:
    """What a stage has told so far."""

    def __init__(self, label: str):
        self.label = label
        self.done = 0
        self.total: int | None = None
        self.started = time.time()  # tqdm's clock
        self.bar: tqdm | None = None


def _size_options(stream: TextIO) -> dict[str, object]:
    """tqdm's size options: follow the terminal's size, or 80 x 24 where it reports none (some pseudo-terminals
    report 0 x 0, and tqdm then draws nothing at all)."""
    try:
        size = os.get_terminal_size(stream.fileno())
    except (OSError, ValueError, AttributeError):
        size = os.terminal_size((0, 0))
    if size.columns > 0 and size.lines > 0:
        return {"dynamic_ncols": True}
    return {"ncols": 80, "nrows": 24}


def _bar_format(total: int | None) -> str:
    if total is None:
        return "{desc} [{elapsed}]"
    return "{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}]"


#: A display that shows nothing: for library-style callers of the commands' functions.
NO_PROGRESS = ProgressDisplay("", enabled=False)
