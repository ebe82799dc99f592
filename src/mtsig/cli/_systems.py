"""How ``mtsig compare`` and ``mtsig power`` are told their systems: labels, training runs, and the segment scores of
``--scores`` mapped onto the systems.

**Labels** (docs/cli.md, "Labels"). A system is labelled in one of two ways, never both in one command:

* ``--labels A,B,C``: one label per system, in the order the systems are given;
* ``LABEL=FILE`` (or, with ``--scores`` and no reference, ``LABEL=NAME``): that system alone.

An unlabelled output file is labelled by its file name (by the path as given where two files share a name), an
unlabelled scores-file system by its name. An argument that is an existing file is always that file, even if its
name holds ``=``. Several files for one system are training runs, which take their own flag, ``--runs
NAME=RUN1,RUN2,...``: ``NAME=RUN1,RUN2`` among the systems is an error that says so, never a silent change of mode.

**Segment scores with a reference.** With ``--ref`` the systems are output files, and a ``--scores`` file may name
each system's rows by its label, its file name or its path as given (the first found, in that order). A system the
file does not name is an error that lists the file's names and gives both ways out: rename the rows, or label the
systems as the file names them. The metric's rows are then renamed to the labels (:func:`labelled_scores`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from mtsig.errors import InputError

if TYPE_CHECKING:
    from mtsig.metrics.segment_scores import SegmentScores

#: The layouts of ``--scores`` (:data:`mtsig.io.segment_scores.FORMATS`, tests/test_cli_scores.py checks it), named
#: here so that a command's ``--help`` needs no reader.
SCORES_FORMATS = ("tidy", "wmt_seg_score", "mtme_seg_score")


def label_list(text: str) -> list[str]:
    """An argparse type for ``--labels``: non-empty, distinct labels, comma-separated."""
    import argparse

    labels = [item.strip() for item in text.split(",")]
    if not all(labels):
        raise argparse.ArgumentTypeError(f"expected comma-separated labels with no empty one, got {text!r}")
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise argparse.ArgumentTypeError(f"label(s) {', '.join(repeated)} given more than once in {text!r}")
    return labels


def split_label(argument: str, *, files: bool) -> tuple[str | None, str]:
    """``(label, source)`` of one system argument: ``LABEL=SOURCE``, or ``(None, argument)`` for an argument without
    a label (an existing file always is one, whatever its name).

    Raises:
        InputError: an empty label or source, or several comma-separated files for one system (training runs:
            ``--runs``).
    """
    if (files and Path(argument).is_file()) or "=" not in argument:
        return None, argument
    label, _, source = (part.strip() for part in argument.partition("="))
    if files and "," in source and not Path(source).is_file():
        raise InputError(
            f"{argument!r}: several files for one system are training runs: give them with --runs {argument} (the "
            "run-aware comparison); LABEL=FILE labels one output file"
        )
    if not label or not source:
        raise InputError(f"{argument!r}: expected LABEL=FILE (a label, then the system's file)")
    return label, source


def labelled_systems(
    arguments: Sequence[str], labels: Sequence[str] | None, *, files: bool
) -> dict[str, str]:
    """Label -> source (an output file's path as given, or a scores-file system's name) of the system arguments,
    in the order given (module docstring).

    Raises:
        InputError: labels given both ways, ``--labels`` of another length, a label given twice, a file given
            twice (comparing a system with itself is never meant).
    """
    split = [split_label(argument, files=files) for argument in arguments]
    sources = [source for _, source in split]
    if labels is not None and any(label is not None for label, _ in split):
        raise InputError("systems are labelled both by --labels and by LABEL=FILE: label them one way")
    if labels is not None and len(labels) != len(sources):
        raise InputError(f"--labels gives {len(labels)} label(s) for {len(sources)} system(s)")
    if files:
        _check_distinct_files(sources)
    defaults = default_labels(sources) if files else list(sources)
    chosen = (
        list(labels)
        if labels is not None
        else [label or d for (label, _), d in zip(split, defaults, strict=True)]
    )
    repeated = sorted({label for label in chosen if chosen.count(label) > 1})
    if repeated:
        raise InputError(f"system label(s) {', '.join(repeated)} given to more than one system")
    return dict(zip(chosen, sources, strict=True))


def default_labels(paths: Sequence[str]) -> list[str]:
    """File names as labels; the paths as given where two files share a name."""
    names = [Path(path).name for path in paths]
    return names if len(set(names)) == len(names) else [str(path) for path in paths]


def _check_distinct_files(paths: Sequence[str]) -> None:
    seen: dict[Path, int] = {}
    for position, path in enumerate(paths, start=1):
        key = Path(os.path.abspath(path))
        if key.exists():
            key = key.resolve()
        if key in seen:
            raise InputError(
                f"system output given twice (as system {seen[key]} and system {position}); give each system once",
                Path(path),
            )
        seen[key] = position


def row_names(systems: Mapping[str, str], *, files: bool) -> dict[str, list[str]]:
    """Label -> the names a scores file may give that system's rows, in the order they are looked for."""
    if not files:
        return {label: [source] for label, source in systems.items()}
    return {
        label: list(dict.fromkeys([label, Path(source).name, str(source)]))
        for label, source in systems.items()
    }


def labelled_scores(metric: SegmentScores, systems: Mapping[str, str], *, files: bool) -> SegmentScores:
    """``metric`` with only the compared systems' rows, renamed to their labels (module docstring).

    Raises:
        InputError: a system the file does not name: the file, the names it has, and the fix.
    """
    from mtsig.metrics.segment_scores import SegmentScores

    present = metric.systems
    found = {}
    for label, candidates in row_names(systems, files=files).items():
        name = next((c for c in candidates if c in set(present)), None)
        if name is None:
            raise InputError(
                missing_system_message(label, systems[label], present, files=files), metric_path(metric)
            )
        found[name] = label
    frame = metric.frame
    kept = frame.loc[frame["system"].isin(list(found))].assign(system=lambda f: f["system"].map(found))
    kept.attrs = dict(frame.attrs)
    return SegmentScores.from_frame(
        kept, name=metric.name, higher_is_better=metric.higher_is_better, format=metric.options.get("format")
    )


def metric_path(metric: SegmentScores) -> str | None:
    path = metric.options.get("path")
    return None if path is None else str(path)


def missing_system_message(label: str, source: str, present: Sequence[str], *, files: bool) -> str:
    """Why a scores file has no rows for a system, and the two ways to fix it."""
    shown = ", ".join(repr(name) for name in present[:6]) + (", ..." if len(present) > 6 else "")
    if files:
        name = Path(source).name
        return (
            f"no segment scores for system {label!r} (output {name}); the file has {shown}: name the rows after the "
            f"output files, e.g. {name!r}, or label the systems as the file names them, e.g. --labels "
            f"{','.join(present[:2])} (or {present[0]}={source})"
        )
    return (
        f"no segment scores for system {source!r}; the file has {shown}: give the systems as the file names them "
        f"(labels: --labels A,B or LABEL=NAME)"
    )


def scores_metric(argument: str, requested_format: str, lower_is_better: set[str] | bool) -> SegmentScores:
    """The :class:`~mtsig.metrics.segment_scores.SegmentScores` metric of one ``--scores [NAME=]FILE`` argument:
    named by NAME, else by a WMT seg.score file's metric column, else by the file name up to its first dot; lower
    is better if ``lower_is_better`` says so (True, or the set of the names of such metrics)."""
    from mtsig.io.segment_scores import detect_format, read_segment_scores
    from mtsig.metrics.segment_scores import SegmentScores

    name, separator, file = argument.partition("=")
    if not separator or Path(argument).is_file() or "/" in name:
        name, file = "", argument
    path = Path(file)
    fmt = detect_format(path) if requested_format == "auto" else requested_format
    frame = read_segment_scores(path, fmt)
    name = name or frame.attrs.get("metric") or path.name.split(".")[0] or path.name
    lower = lower_is_better if isinstance(lower_is_better, bool) else name in lower_is_better
    return SegmentScores.from_frame(frame, name=name, higher_is_better=not lower, format=fmt)
