"""Errors raised for bad input: each names the file, the line (when there is one) and the problem."""

from __future__ import annotations

from pathlib import Path


class InputError(ValueError):
    """A problem with a user-supplied input file or value.

    The message reads ``"<path>:<line>: <problem>"`` (or ``"<path>: <problem>"`` without a line), so that an
    editor or a reader can jump straight to the offending row.
    """

    def __init__(self, problem: str, path: str | Path | None = None, line: int | None = None) -> None:
        self.problem = problem
        self.path = None if path is None else str(path)
        self.line = line
        if self.path is None:
            message = problem
        elif line is None:
            message = f"{self.path}: {problem}"
        else:
            message = f"{self.path}:{line}: {problem}"
        super().__init__(message)
