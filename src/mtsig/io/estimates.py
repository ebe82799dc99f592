"""Scores with standard errors (a leaderboard, a paper's table) and their covariance, for ``mtsig rank
--estimates`` (:mod:`mtsig.stats.rank_sets`: the parametric bootstrap of csranks).

- **Estimates**: a TSV with a header naming ``system``, ``estimate`` and ``se`` (any order, other columns ignored),
  one row per system. ``se`` may be left out when a covariance is given.
- **Covariance** (optional): a TSV whose header row names the systems and whose next rows are the matrix in that
  order, one row per system, one number per system.

Every cell is checked where it is read; each problem is an :class:`~mtsig.errors.InputError` naming the file and
the line. What only the whole matrix shows (not symmetric, not positive semi-definite) is checked by
:func:`mtsig.stats.rank_sets.inputs.check_covariance`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mtsig.errors import InputError
from mtsig.io.segment_scores import check_no_empty, parse_finite_numbers, read_data_lines, split_fields

ESTIMATE_COLUMNS = ("system", "estimate", "se")
#: Relative difference between a standard error and the square root of the covariance's variance accepted as
#: rounding (a table that prints se to three digits).
SE_TOLERANCE = 0.01


@dataclass(frozen=True)
class Estimates:
    """A file of estimates: ``systems``, ``estimates[S]``, ``standard_errors[S]`` (None without an ``se``
    column), ``lines[S]`` (each row's line in the file) and the ``path``."""

    systems: tuple[str, ...]
    estimates: np.ndarray
    standard_errors: np.ndarray | None
    lines: np.ndarray
    path: Path


def read_estimates(path: str | Path, *, se_required: bool = True) -> Estimates:
    """The estimates of a TSV (module docstring); ``se_required``: an ``se`` column is needed (no covariance).

    Raises:
        InputError: no such file, a missing column, a row with another number of fields, an empty system, a
            system named twice, an estimate that is not a finite number, a missing, non-numeric or non-positive
            standard error; each at its line.
    """
    path = Path(path)
    texts, lines = read_data_lines(path)
    header = texts[0].split("\t")
    names = [name.strip() for name in header]
    needed = ESTIMATE_COLUMNS if se_required else ESTIMATE_COLUMNS[:2]
    missing = [c for c in needed if c not in names]
    if missing:
        raise InputError(
            f"no column(s) {', '.join(missing)} in the header (system, estimate, se; se may be left out with "
            "--covariance)",
            path,
            int(lines[0]),
        )
    rows = split_fields(texts[1:], lines[1:], path, len(header), "\t", f"{len(header)} TAB-separated fields")
    body = lines[1:]
    if not rows:
        raise InputError("no system below the header", path)
    column = {name: [row[names.index(name)] for row in rows] for name in names if name in ESTIMATE_COLUMNS}
    check_no_empty(column["system"], body, path, "system")
    systems = [s.strip() for s in column["system"]]
    seen: dict[str, int] = {}
    for system, line in zip(systems, body, strict=True):
        if system in seen:
            raise InputError(f"system {system!r} given twice (first at line {seen[system]})", path, int(line))
        seen[system] = int(line)
    check_no_empty(column["estimate"], body, path, "estimate")
    estimates = parse_finite_numbers(column["estimate"], body, path, "estimate")
    errors = None
    if "se" in column:
        check_no_empty(column["se"], body, path, "standard error (se)")
        errors = parse_finite_numbers(column["se"], body, path, "standard error")
        bad = np.flatnonzero(errors <= 0)
        if len(bad):
            i = int(bad[0])
            raise InputError(
                f"the standard error of {systems[i]!r} is {column['se'][i].strip()}: it must be positive",
                path,
                int(body[i]),
            )
    return Estimates(tuple(systems), estimates, errors, np.asarray(body), path)


def read_covariance(path: str | Path) -> tuple[tuple[str, ...], np.ndarray]:
    """``(systems, matrix[S, S])`` of a covariance TSV (module docstring).

    Raises:
        InputError: no such file, an empty or repeated name in the header, a row with another number of fields
            than the header, a cell that is not a finite number, more or fewer rows than systems; each at its line.
    """
    path = Path(path)
    texts, lines = read_data_lines(path)
    systems = [name.strip() for name in texts[0].split("\t")]
    header_line = int(lines[0])
    if any(not name for name in systems):
        raise InputError("an empty system name in the header (the systems, TAB-separated)", path, header_line)
    repeated = sorted({s for s in systems if systems.count(s) > 1})
    if repeated:
        raise InputError(f"system(s) named twice in the header: {', '.join(repeated)}", path, header_line)
    n = len(systems)
    rows = split_fields(texts[1:], lines[1:], path, n, "\t", f"one number per system of the header ({n})")
    if len(rows) != n:
        where = None if len(rows) < n else int(lines[1 + n])
        raise InputError(
            f"{len(rows)} rows below the header for {n} systems: one row per system", path, where
        )
    cells = [cell for row in rows for cell in row]
    cell_lines = np.repeat(lines[1:], n)
    check_no_empty(cells, cell_lines, path, "covariance cell")
    matrix = parse_finite_numbers(cells, cell_lines, path, "covariance").reshape(n, n)
    return tuple(systems), matrix


def check_covariance_names(estimates: Estimates, systems: tuple[str, ...], path: str | Path) -> None:
    """The covariance's header names exactly the estimates' systems (in any order); otherwise an error at the
    header line that lists the differences."""
    missing = [s for s in estimates.systems if s not in systems]
    extra = [s for s in systems if s not in estimates.systems]
    if missing or extra:
        parts = [f"no column for {', '.join(missing)}"] if missing else []
        parts += [f"systems not in {estimates.path.name}: {', '.join(extra)}"] if extra else []
        raise InputError(f"the covariance's systems do not match the estimates': {'; '.join(parts)}", path, 1)


def check_standard_errors(
    estimates: Estimates, systems: tuple[str, ...], matrix: np.ndarray, path: str | Path
) -> None:
    """With both, each standard error must be the square root of the covariance's variance of its system (up to
    :data:`SE_TOLERANCE`, rounding): two files that disagree are a mistake, not a choice."""
    if estimates.standard_errors is None:
        return
    variances = np.diag(matrix)
    for system, se, line in zip(estimates.systems, estimates.standard_errors, estimates.lines, strict=True):
        variance = float(variances[systems.index(system)])
        implied = np.sqrt(variance) if variance > 0 else float("nan")
        if not abs(se - implied) <= SE_TOLERANCE * implied:
            raise InputError(
                f"the standard error of {system!r} is {se:g} but the covariance ({Path(path).name}) gives "
                f"variance {variance:g} (se {implied:.4g}): make them agree, or leave the se column out",
                estimates.path,
                int(line),
            )
