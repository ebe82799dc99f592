"""A hard stop on purpose, at a named point of a job: how the recovery after a hard stop is tested
(tests/test_hard_stop.py; docs/artifact-review.md, *After a hard stop*).

With ``MTSIG_HARD_STOP=<rule>:<point>`` in its environment, the job of that rule (a rule made per item, such as
``download_dataset__jcml``, also answers to its step's name, ``download_dataset``) kills its whole process group
with SIGKILL when it reaches the point: Snakemake, every job it runs and their children (METEOR's JVM, the metric
statistics' worker processes), as a closed laptop or the out-of-memory killer stops a run. Nothing gets to clean
up. The points:

- ``start``: the step is about to run. Snakemake has removed the job's earlier outputs; nothing is written yet.
- ``rename:<n>``: the job's n-th file is complete under its temporary name and about to be renamed into place
  (n - 1 are in place). An intermediate file and its manifest are two renames, the file's first; a download's
  files are renamed by several threads, counted in the order they get there.
- ``end``: the step has written every output; Snakemake has not yet recorded the job as finished.

Without the variable (every run but the tests'), each point costs one comparison.

The temporary name those renames start from is defined here too (:func:`temporary_path`), for every writer
(mtsig.steps.files, mtsig.report.plots.save_figure) and for ``mtsig verify``, which never takes one for a result.
"""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

HARD_STOP_ENV = "MTSIG_HARD_STOP"
POINTS = ("start", "rename", "end")

#: The point at which this job stops (``start``, ``rename:<n>``, ``end``), None when it runs through.
_point: str | None = None
_renames = 0
_lock = threading.Lock()

#: A file is written as ``<file>.tmp`` and renamed into place when complete.
TEMPORARY_SUFFIX = ".tmp"


def temporary_path(path: str | os.PathLike[str]) -> Path:
    """Where a file is written before it is complete: ``<file>.tmp`` beside it. One name per file, so a job
    stopped hard mid-write and run again writes the same temporary file and renames it away."""
    path = Path(path)
    return path.with_name(path.name + TEMPORARY_SUFFIX)


def parse_hard_stop(value: str) -> tuple[str, str]:
    """``<rule>:<point>`` -> (rule, point). Raises ValueError for anything else."""
    rule, _, point = value.partition(":")
    kind, _, count = point.partition(":")
    valid = (kind in ("start", "end") and not count) or (
        kind == "rename" and count.isdigit() and int(count) > 0
    )
    if not rule or not valid:
        raise ValueError(
            f"{HARD_STOP_ENV}={value!r}: expected <rule>:start, <rule>:rename:<n> (n >= 1) or <rule>:end"
        )
    return rule, point


def arm(rule: str, step: str | None = None) -> str | None:
    """Called once by the job of ``rule`` (whose step is ``step``): read :data:`HARD_STOP_ENV` and stop at its point
    if it names this rule or step. Returns the point, or None."""
    global _point, _renames
    value = os.environ.get(HARD_STOP_ENV)
    _point, _renames = None, 0
    if value:
        target, point = parse_hard_stop(value)
        if target in (rule, step):
            _point = point
    return _point


def reached(point: str) -> None:
    """The job reached ``point`` (``start`` or ``end``): stop here if armed for it."""
    if _point is not None and _point == point:
        stop_hard()


def renaming() -> None:
    """A complete temporary file is about to be renamed into place: counted, and the job stops at the armed one."""
    global _renames
    if _point is None:
        return
    with _lock:
        _renames += 1
        count = _renames
    if _point == f"rename:{count}":
        stop_hard()


def stop_hard() -> None:
    """SIGKILL to this process's group: the whole Snakemake run this job belongs to."""
    os.killpg(os.getpgid(0), signal.SIGKILL)
