"""How long work in the library says how far it has got, without knowing who listens.

A function that can run for seconds takes ``progress: Progress | None = None`` and calls ``progress(done, total)``
after each unit of its work: ``done`` of ``total`` units (blocks of draws, resamples, files; its docstring says
which), ``total`` fixed for the call. Progress never changes a number: it is told what was finished and is given
nothing to draw from, so the results with and without it are the same. The library never writes to a terminal;
the ``mtsig`` command draws the bars (:class:`mtsig.cli._common.ProgressDisplay`).
"""

from __future__ import annotations

from collections.abc import Callable

#: ``progress(done, total)``: ``done`` of ``total`` units of one call's work are finished.
Progress = Callable[[int, int], None]


def counter(progress: Progress | None, total: int) -> Callable[[int], None]:
    """``advance(n)``: ``n`` more of ``total`` units finished, told to ``progress`` (nothing without it)."""
    if progress is None:
        return lambda units: None
    done = 0

    def advance(units: int) -> None:
        nonlocal done
        done += units
        progress(done, total)

    return advance
