"""A test set in google-research/mt-metrics-eval's directory layout, read for metric meta-evaluation.

mt-metrics-eval (the WMT metrics tasks' own meta-evaluation tool since 2021; its README, "File organization and
naming convention") keeps one test set in a folder ``<root>/<testset>/``::

    sources/<lp>.txt                          the source segments, one per line
    references/<lp>.<REF>.txt                 one file per reference (refA, refB, synthetic_ref, ...)
    system-outputs/<lp>/<SYS>.txt             every system's output; a file named like a reference is a human
                                              translation competing as a system
    documents/<lp>.docs                       per segment: DOMAIN <whitespace> DOCUMENT
    human-scores/<lp>.<GOLD>.<LEVEL>.score    GOLD = mqm, da-sqm, esa, ...; LEVEL = sys, domain, doc, seg
    metric-scores/<lp>/<NAME>-<REFSET>.<LEVEL>.score
                                              REFSET = the reference(s) the metric used, dot-separated, or ``src``
                                              (reference-free) or ``all`` (every reference)

Score files hold ``SYS SCORE`` lines (``sys``: one per system; ``seg`` and ``doc``: one per segment or document,
each system's lines in test-set order) or ``DOMAIN SYS SCORE`` lines (``domain``), whitespace-separated; ``None``
marks a missing score, allowed in human-score files only. This module reads the layout for any test set and
language pair: what is there (:func:`read_test_set`: references, systems and which of them are human, documents and
domains, every gold and metric file by level), and the scores of the golds and metrics asked for
(:func:`read_human_scores`, :func:`read_metric_scores`; only the files asked for are read, so a study of 30
metrics does not read the other 40). Metric names are ``NAME-REFSET`` (:func:`parse_metric_name`).

The line-level parsing is the shared readers' (:func:`mtsig.io.segment_scores.read_mtme_seg_scores`,
:func:`mtsig.io.system_scores.read_mtme_sys_scores`); errors name the file and line: a wrong number of fields, a
score that is not a number, ``None`` in a metric file, a segment file whose systems do not have one line per
segment, a system the study needs that a file lacks, a metric file named outside ``NAME-REFSET.LEVEL.score`` or
naming an unknown reference.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.io.segment_scores import (
    check_unique,
    fail_first,
    parse_finite_numbers,
    read_data_lines,
    read_mtme_seg_scores,
    split_fields,
)
from mtsig.io.system_scores import read_mtme_sys_scores
from mtsig.io.text import read_lines, read_utf8_bytes

#: The columns of :func:`read_mtme_docs`.
DOCS_COLUMNS = ("domain", "document")
#: The levels of mt-metrics-eval's score files (its README): one score per system, domain, document or segment.
LEVELS = ("sys", "domain", "doc", "seg")
#: mt-metrics-eval's REFSET of a reference-free metric, and of a metric that used every reference.
REFERENCE_FREE = "src"
ALL_REFERENCES = "all"
#: Where one language pair's files lie in a test set's folder (glob patterns, ``{lp}`` the language pair).
LAYOUT_PATTERNS = (
    "sources/{lp}.txt",
    "references/{lp}.*.txt",
    "system-outputs/{lp}/*.txt",
    "documents/{lp}.docs",
    "human-scores/{lp}.*.score",
    "metric-scores/{lp}/*.score",
)


# ------------------------------------------------------------------------------------------------ names


def parse_metric_name(name: str, references: Collection[str]) -> tuple[str, frozenset[str]]:
    """``(basename, references used)`` of a metric named ``NAME-REFSET`` (mt-metrics-eval's
    ``EvalSet.ParseMetricName``): the text after the last ``-`` is the reference set, ``src`` for none (a
    reference-free metric), ``all`` for every one of ``references``, else reference names joined by dots.

    Raises:
        InputError: no ``-`` in the name, or a reference that is not among ``references``.
    """
    if "-" not in name:
        raise InputError(f"metric name {name!r} is not NAME-REFSET (e.g. BLEU-refA, COMETKiwi-src)")
    basename, refset = name.rsplit("-", 1)
    if not basename:
        raise InputError(f"metric name {name!r} has an empty NAME before -{refset}")
    if refset == REFERENCE_FREE:
        return basename, frozenset()
    if refset == ALL_REFERENCES:
        return basename, frozenset(references)
    used = frozenset(refset.split("."))
    unknown = sorted(used - set(references))
    if unknown:
        raise InputError(
            f"metric {name!r} names reference(s) {', '.join(map(repr, unknown))}, but the test set has "
            f"{', '.join(sorted(references)) or 'none'} (or use -src, -all)"
        )
    return basename, used


def parse_score_file_name(path: Path) -> tuple[str, str]:
    """``(metric name, level)`` of a metric file named ``NAME-REFSET.LEVEL.score`` (``ParseMetricFilename``)."""
    parts = path.name.rsplit(".", 2)
    if len(parts) != 3 or parts[2] != "score" or parts[1] not in LEVELS:
        raise InputError(
            f"a metric-score file is named NAME-REFSET.LEVEL.score with LEVEL one of {', '.join(LEVELS)}",
            path,
        )
    return parts[0], parts[1]


# ------------------------------------------------------------------------------------------------ the test set


def _count_lines(path: Path) -> int:
    """The number of lines of a text file, counting blank lines (a segment may be empty); a last line without
    a newline counts."""
    data = read_utf8_bytes(path)
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def read_mtme_docs(path: str | Path) -> pd.DataFrame:
    """The domain and document of every segment of an mt-metrics-eval ``documents/<lp>.docs`` file: one line
    ``DOMAIN DOCUMENT-ID`` per segment (TAB-separated in the WMT23 release; any whitespace, as mt-metrics-eval
    splits it). Returns ``DataFrame(domain, document)``, row i = segment i.

    Raises:
        InputError: naming the file and line: a missing, empty, binary or non-UTF-8 file; a line without exactly
            two fields (a blank line too: it would shift every later segment); a document whose segments are not
            contiguous (mt-metrics-eval asserts it: a document is one block of the test set).
    """
    path = Path(path)
    lines = read_lines(path)
    if not lines:
        raise InputError("empty documents file: expected one line DOMAIN DOCUMENT-ID per segment", path)
    fields = [line.split() for line in lines]
    numbers = np.arange(1, len(lines) + 1)
    counts = np.fromiter((len(f) for f in fields), dtype=np.int64, count=len(fields))
    fail_first(
        counts != 2,
        numbers,
        path,
        [
            f"{n} fields, expected 2 (mt-metrics-eval documents: DOMAIN DOCUMENT-ID per segment)"
            for n in counts
        ],
    )
    domains = [f[0] for f in fields]
    documents = [f[1] for f in fields]
    starts = np.flatnonzero(np.r_[True, np.array(documents[1:]) != np.array(documents[:-1])])
    first_of_block = [documents[i] for i in starts]
    fail_first(
        pd.Series(first_of_block).duplicated().to_numpy(),
        numbers[starts],
        path,
        [f"document {d!r} starts again after other documents (a document's segments must be contiguous)"
         for d in first_of_block],
    )  # fmt: skip
    return pd.DataFrame({"domain": domains, "document": documents}, dtype=object)


def read_mtme_document_ids(path: str | Path) -> np.ndarray:
    """The document id of every segment of an mt-metrics-eval ``.docs`` file (:func:`read_mtme_docs`), for the
    block bootstraps over documents (:mod:`mtsig.io.documents`, format ``mtme_docs``)."""
    return read_mtme_docs(path)["document"].to_numpy(dtype=str)


@dataclass(frozen=True)
class MtmeTestSet:
    """One language pair of a test set in mt-metrics-eval's layout: what exists, not yet the scores.

    ``systems``: every file of ``system-outputs/<lp>/`` (sorted), human translations included
    (``human_systems``: those named like a reference). ``human_files[(gold, level)]`` and
    ``metric_files[(metric, level)]``: the score files found. ``segment_domains``, ``segment_documents``: per
    segment, from ``documents/<lp>.docs``.
    """

    directory: Path
    lp: str
    n_segments: int
    references: tuple[str, ...]
    systems: tuple[str, ...]
    segment_domains: tuple[str, ...]
    segment_documents: tuple[str, ...]
    human_files: Mapping[tuple[str, str], Path] = field(repr=False)
    metric_files: Mapping[tuple[str, str], Path] = field(repr=False)
    system_means: frozenset[str] = frozenset()

    @property
    def name(self) -> str:
        """The test set's name: its folder's (e.g. ``wmt23``)."""
        return self.directory.name

    @property
    def human_systems(self) -> tuple[str, ...]:
        """Outputs named like a reference: human translations that may compete as systems."""
        return tuple(s for s in self.systems if s in set(self.references))

    @property
    def domains(self) -> tuple[str, ...]:
        """The domains, sorted (mt-metrics-eval's canonical order: the rows of a domain-level file)."""
        return tuple(sorted(set(self.segment_domains)))

    @property
    def documents(self) -> tuple[str, ...]:
        """The documents in test-set order (the rows of a document-level file)."""
        return tuple(dict.fromkeys(self.segment_documents))

    @property
    def golds(self) -> tuple[str, ...]:
        """The human scores available (``mqm``, ``da-sqm``, ...), sorted."""
        return tuple(sorted({gold for gold, _ in self.human_files}))

    @property
    def metrics(self) -> tuple[str, ...]:
        """The metric names (``NAME-REFSET``) with a file at some level, sorted."""
        return tuple(sorted({name for name, _ in self.metric_files}))

    def units(self, level: str) -> int:
        """The number of scores a system has at ``level``."""
        if level not in LEVELS:
            raise InputError(f"unknown level {level!r}; known: {', '.join(LEVELS)}")
        return {
            "sys": 1,
            "domain": len(self.domains),
            "doc": len(self.documents),
            "seg": self.n_segments,
        }[level]

    def metric_references(self, metric: str) -> frozenset[str]:
        """The references ``metric`` used (empty: reference-free)."""
        return parse_metric_name(metric, self.references)[1]

    def metric_basename(self, metric: str) -> str:
        """``metric`` without its ``-REFSET``."""
        return parse_metric_name(metric, self.references)[0]

    def with_metric_files(
        self, files: Mapping[tuple[str, str], Path], *, system_means: bool = False
    ) -> MtmeTestSet:
        """This test set with more metric files (e.g. a metric developer's own, :func:`metric_files_in`);
        ``system_means``: each of these metrics with segment scores gets the system scores its ``sys`` file lacks
        as the means of its segment scores (:attr:`system_means`).

        Raises:
            InputError: a metric at a level that the test set already has (mt-metrics-eval's ``AddMetric``
                refuses a duplicate name too), or a name that is not ``NAME-REFSET`` of this test set's references.
        """
        merged = dict(self.metric_files)
        for (name, level), path in files.items():
            try:
                parse_metric_name(name, self.references)
            except InputError as error:
                raise InputError(error.problem, path) from None
            if (name, level) in merged:
                raise InputError(
                    f"metric {name!r} at level {level} is already in {self.directory / 'metric-scores' / self.lp}"
                    " (rename your metric)",
                    path,
                )
            merged[(name, level)] = path
        means = {name for name, level in files if level == "seg"} if system_means else set()
        for name in means:
            merged.setdefault((name, "sys"), files[(name, "seg")])
        return replace(self, metric_files=merged, system_means=self.system_means | means)


def metric_files_in(directory: str | Path) -> dict[tuple[str, str], Path]:
    """``{(metric, level): path}`` of the ``NAME-REFSET.LEVEL.score`` files in ``directory`` (one language pair,
    as ``metric-scores/<lp>/``)."""
    directory = Path(directory)
    if not directory.is_dir():
        raise InputError("not a directory of metric-score files", directory)
    files = {}
    for path in sorted(directory.glob("*.score")):
        files[parse_score_file_name(path)] = path
    return files


def _human_score_file(path: Path, lp: str) -> tuple[str, str]:
    """``(gold, level)`` of ``human-scores/LP.GOLD.LEVEL.score``, where GOLD may itself hold dots (mt-metrics-eval's
    ``ParseHumanScoreFilename``)."""
    parts = path.name.split(".")
    if len(parts) < 4 or parts[-2] not in LEVELS:
        raise InputError(
            f"a human-score file is named {lp}.GOLD.LEVEL.score with LEVEL one of {', '.join(LEVELS)}", path
        )
    return ".".join(parts[1:-2]), parts[-2]


def layout_files(directory: str | Path, lp: str) -> list[str]:
    """The files of one language pair in ``directory`` (:data:`LAYOUT_PATTERNS`: the source, the references, the
    system outputs, the documents, the human-score and metric-score files) as paths relative to ``directory``
    (``/``-separated), sorted: what :func:`layout_from_names` reads the layout from."""
    directory = Path(directory)
    found = {p for pattern in LAYOUT_PATTERNS for p in directory.glob(pattern.format(lp=lp))}
    return sorted(p.relative_to(directory).as_posix() for p in found)


def layout_from_names(directory: str | Path, lp: str, files: Iterable[str]) -> MtmeTestSet:
    """What one language pair of a test set holds, from its files' names alone (``files``: paths relative to
    ``directory``, as :func:`layout_files` lists them): references, systems, human-score and metric-score files.
    Nothing is read, so it serves before the files exist (a workflow that will download them); ``n_segments`` is
    0 and the documents empty (:func:`read_test_set` reads them).

    Raises:
        InputError: an invalid reference name, a misnamed score file, no system output.
    """
    directory = Path(directory)
    references, outputs, human, metric = {}, {}, {}, {}
    for name in sorted(files):
        path = directory / name
        folder, _, rest = name.partition("/")
        if folder == "references" and rest.startswith(f"{lp}.") and rest.endswith(".txt") and "/" not in rest:
            reference = rest[len(lp) + 1 : -len(".txt")]
            if "-" in reference or "." in reference or reference in (REFERENCE_FREE, ALL_REFERENCES):
                raise InputError(
                    f"invalid reference name {reference!r} (no '-' or '.', not src or all)", path
                )
            references[reference] = path
        elif folder == "system-outputs" and rest.startswith(f"{lp}/") and rest.endswith(".txt"):
            outputs[Path(rest).stem] = path
        elif folder == "human-scores" and rest.startswith(f"{lp}.") and rest.endswith(".score"):
            human[_human_score_file(path, lp)] = path
        elif folder == "metric-scores" and rest.startswith(f"{lp}/") and rest.endswith(".score"):
            metric[parse_score_file_name(path)] = path
    if not outputs:
        raise InputError(f"no system outputs (expected system-outputs/{lp}/SYS.txt)", directory)
    return MtmeTestSet(
        directory=directory,
        lp=lp,
        n_segments=0,
        references=tuple(sorted(references)),
        systems=tuple(sorted(outputs)),
        segment_domains=(),
        segment_documents=(),
        human_files=human,
        metric_files=metric,
    )


def read_test_set(directory: str | Path, lp: str) -> MtmeTestSet:
    """What one language pair of a test set in mt-metrics-eval's layout holds (module docstring).

    ``directory``: the test set's folder (``<root>/<testset>``, e.g. ``$MTSIG_DATA/wmt23``). Checks that the
    source, every reference and every system output have the same number of lines, that the documents file has
    one line per segment, and that every score file is named as the layout says; reads no scores.

    Raises:
        InputError: a missing folder or file, a wrong line count (naming the file), a misnamed score file.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise InputError("not a directory (expected <root>/<testset> in mt-metrics-eval's layout)", directory)
    source = directory / "sources" / f"{lp}.txt"
    if not source.is_file():
        known = sorted(p.name.removesuffix(".txt") for p in (directory / "sources").glob("*.txt"))
        raise InputError(
            f"no source file for {lp!r}; the test set has {', '.join(known) or 'no sources/<lp>.txt'}", source
        )
    named = layout_from_names(directory, lp, layout_files(directory, lp))
    n_segments = _count_lines(source)
    references = [directory / "references" / f"{lp}.{name}.txt" for name in named.references]
    outputs = [directory / "system-outputs" / lp / f"{name}.txt" for name in named.systems]
    for path in [*references, *outputs]:
        count = _count_lines(path)
        if count != n_segments:
            raise InputError(f"{count} lines, but the source {source} has {n_segments}", path)
    docs = read_mtme_docs(directory / "documents" / f"{lp}.docs")
    if len(docs) != n_segments:
        raise InputError(
            f"{len(docs)} lines, but the source {source} has {n_segments}",
            directory / "documents" / f"{lp}.docs",
        )
    return replace(
        named,
        n_segments=n_segments,
        segment_domains=tuple(docs["domain"]),
        segment_documents=tuple(docs["document"]),
    )


# ------------------------------------------------------------------------------------------------ scores


@dataclass(frozen=True)
class LevelScores:
    """The scores of one file: ``values[s, u]`` for system ``systems[s]`` and unit ``u`` (the level's systems,
    domains in :attr:`MtmeTestSet.domains` order, documents or segments), NaN where the file says ``None``."""

    systems: tuple[str, ...]
    values: np.ndarray
    path: Path

    def rows(self, systems: Sequence[str], *, what: str = "scores") -> np.ndarray:
        """``values`` of ``systems``, in that order.

        Raises:
            InputError: a system the file lacks (naming the file and the systems it has).
        """
        index = {name: row for row, name in enumerate(self.systems)}
        missing = [name for name in systems if name not in index]
        if missing:
            raise InputError(
                f"no {what} for system(s) {', '.join(map(repr, missing))}; the file has "
                f"{', '.join(self.systems)}",
                self.path,
            )
        return self.values[[index[name] for name in systems]]


def _domain_scores(path: Path, domains: Sequence[str], allow_none: bool) -> LevelScores:
    """A ``DOMAIN SYS SCORE`` file (mt-metrics-eval's ``ReadDomainScoreFile``)."""
    texts, lines = read_data_lines(path)
    rows = split_fields(texts, lines, path, 3, None, "mt-metrics-eval domain scores: DOMAIN SYS SCORE")
    frame = pd.DataFrame(
        {"domain": [r[0] for r in rows], "system": [r[1] for r in rows], "value": [r[2] for r in rows]}
    ).assign(line=lines)
    position = {name: d for d, name in enumerate(domains)}
    unknown = ~frame["domain"].isin(position).to_numpy()
    if unknown.any():
        first = int(np.flatnonzero(unknown)[0])
        raise InputError(
            f"domain {frame['domain'].iloc[first]!r} is not in documents/ (domains: {', '.join(domains)})",
            path,
            int(lines[first]),
        )
    check_unique(frame, ("domain", "system"), path, "(domain, system)")
    none = (frame["value"] == "None").to_numpy()
    if none.any() and not allow_none:
        raise InputError(
            "score 'None' (a missing score) is not allowed in a metric-score file",
            path,
            int(lines[np.flatnonzero(none)[0]]),
        )
    systems = tuple(dict.fromkeys(frame["system"]))
    values = np.full((len(systems), len(domains)), np.nan)
    scored = frame.loc[~none]
    row = {name: s for s, name in enumerate(systems)}
    values[scored["system"].map(row).to_numpy(), scored["domain"].map(position).to_numpy()] = (
        parse_finite_numbers(scored["value"].tolist(), scored["line"].to_numpy(), path, "score")
    )
    if not allow_none and np.isnan(values).any():
        s, d = (int(v[0]) for v in np.nonzero(np.isnan(values)))
        raise InputError(f"system {systems[s]!r} has no score for domain {domains[d]!r}", path)
    return LevelScores(systems, values, path)


def read_level_scores(test_set: MtmeTestSet, path: str | Path, level: str, *, human: bool) -> LevelScores:
    """The scores of one file of ``test_set`` at ``level``; ``None`` allowed when ``human``.

    Raises:
        InputError: besides the shared readers' errors, a ``seg`` (``doc``) file whose systems do not each have one
            line per segment (document) of the test set.
    """
    path = Path(path)
    if level == "domain":
        return _domain_scores(path, test_set.domains, human)
    if level == "sys":
        frame = read_mtme_sys_scores(path, allow_none=human)
        systems = tuple(frame["system"])
        return LevelScores(systems, frame["score"].to_numpy(dtype=np.float64)[:, None], path)
    n_units = test_set.units(level)
    frame = read_mtme_seg_scores(path, allow_none=human, n_segments=n_units)
    # the systems in file order; a human file's system whose every score is None has no row left, and is absent
    # (mt-metrics-eval leaves such systems out of every correlation too)
    codes, names = pd.factorize(frame["system"].to_numpy())
    values = np.full((len(names), n_units), np.nan)
    values[codes, frame["segment"].to_numpy()] = frame["score"].to_numpy(dtype=np.float64)
    return LevelScores(tuple(str(n) for n in names), values, path)


def system_scores_with_means(test_set: MtmeTestSet, metric: str) -> tuple[LevelScores, tuple[str, ...]]:
    """``metric``'s system scores, each system its ``sys`` file lacks (every system without a ``sys`` file) scored
    by the mean of its segment scores (the corpus score of a segment-level metric, as ``mtsig compare --scores``
    takes it); and the systems so scored, in the ``seg`` file's order.

    Raises:
        InputError: the metric has no ``seg`` file; besides, the readers' errors.
    """
    seg_path = test_set.metric_files.get((metric, "seg"))
    if seg_path is None:
        raise InputError(
            f"no seg-level scores of metric {metric!r} for {test_set.lp} to average",
            test_set.directory / "metric-scores" / test_set.lp,
        )
    segments = read_level_scores(test_set, seg_path, "seg", human=False)
    means = segments.values.mean(axis=1)
    sys_path = test_set.metric_files.get((metric, "sys"), seg_path)
    if sys_path == seg_path:
        return LevelScores(segments.systems, means[:, None], seg_path), segments.systems
    given = read_level_scores(test_set, sys_path, "sys", human=False)
    derived = tuple(name for name in segments.systems if name not in set(given.systems))
    index = {name: row for row, name in enumerate(segments.systems)}
    values = np.concatenate([given.values, means[[index[name] for name in derived], None]])
    return LevelScores(given.systems + derived, values, sys_path), derived


def _metric_level_scores(test_set: MtmeTestSet, metric: str, level: str, path: Path) -> LevelScores:
    """The scores of ``metric``'s file ``path`` at ``level``; a :attr:`MtmeTestSet.system_means` metric's system
    scores completed by the means of its segment scores."""
    if level == "sys" and metric in test_set.system_means:
        return system_scores_with_means(test_set, metric)[0]
    return read_level_scores(test_set, path, level, human=False)


def read_human_scores(test_set: MtmeTestSet, gold: str, level: str) -> LevelScores:
    """The human scores ``gold`` (``mqm``, ``da-sqm``, ...) at ``level``; NaN where ``None``.

    Raises:
        InputError: no such file (naming the golds and levels the test set has).
    """
    path = test_set.human_files.get((gold, level))
    if path is None:
        have = ", ".join(f"{g}.{lv}" for g, lv in sorted(test_set.human_files)) or "none"
        raise InputError(
            f"no human scores {gold!r} at level {level} for {test_set.lp} (the test set has {have})",
            test_set.directory / "human-scores",
        )
    return read_level_scores(test_set, path, level, human=True)


def read_metric_scores(test_set: MtmeTestSet, metric: str, level: str, systems: Sequence[str]) -> np.ndarray:
    """``float64[len(systems), units]``: ``metric``'s scores of ``systems`` at ``level``.

    Raises:
        InputError: no file for the metric at that level; a requested system missing from the file (a metric
            need not score the references it used, which a study never asks for).
    """
    path = test_set.metric_files.get((metric, level))
    if path is None:
        levels = sorted(lv for name, lv in test_set.metric_files if name == metric)
        raise InputError(
            f"no {level}-level scores of metric {metric!r} for {test_set.lp}"
            + (f" (it has {', '.join(levels)})" if levels else " (no such metric)"),
            test_set.directory / "metric-scores" / test_set.lp,
        )
    return _metric_level_scores(test_set, metric, level, path).rows(systems, what=f"{metric} scores")


def read_requested_scores(
    test_sets: Mapping[str, MtmeTestSet], requests: Iterable[Any]
) -> dict[Any, LevelScores]:
    """``{request: scores}`` for requests with attributes ``lp``, ``kind`` (``human``: ``name`` is a gold;
    ``metric``), ``name`` and ``level`` (e.g. :class:`mtsig.studies.metrics_protocol.ScoreKey`); each file read
    once."""
    out = {}
    for request in requests:
        if request.lp not in test_sets:
            raise InputError(f"no test set read for language pair {request.lp}")
        test_set = test_sets[request.lp]
        if request.kind == "human":
            out[request] = read_human_scores(test_set, request.name, request.level)
        else:
            path = test_set.metric_files.get((request.name, request.level))
            if path is None:
                raise InputError(
                    f"no {request.level}-level scores of metric {request.name!r} for {request.lp}",
                    test_set.directory / "metric-scores" / request.lp,
                )
            out[request] = _metric_level_scores(test_set, request.name, request.level, path)
    return out


# ------------------------------------------------------------------------------------------------ human rows


def read_mtme_human_seg_scores(
    path: str | Path,
    *,
    criterion: str,
    n_segments: int | None = None,
    systems: Iterable[str] | None = None,
    reference_systems: Sequence[str] = (),
) -> pd.DataFrame:
    """An mt-metrics-eval human segment-score file (``human-scores/<lp>.<gold>.seg.score``: MQM, DA+SQM, ESA) as
    the human step's tidy rows: one row per rated (system, segment), ``None`` cells skipped.

    Columns (:data:`mtsig.io.human.TIDY_COLUMNS` and ``z``): ``annotator`` empty (the file holds one merged score
    per cell, no rater), ``system``, ``segment`` (0-based: a system's n-th line is segment n-1, ``None`` lines
    counted), ``item_type`` ``system``, or ``ref`` for a system of ``reference_systems`` (a human reference rated
    as a candidate: kept out of the gold and the system scores, as the rating formats do), ``criterion`` (the
    config's: the file does not say what it holds), and ``raw_score`` and ``z`` both the score as given: with one
    merged score per cell there is nobody to standardise per, so the gold ranks the scores themselves (as the
    ``mqm`` format does with ``standardise_raters: false``), and a system's mean equals the organisers'
    ``<lp>.<gold>.sys.score``.

    Raises:
        InputError: naming the file and line: those of :func:`mtsig.io.segment_scores.read_mtme_seg_scores` (field
            count, a score that is neither a finite number nor ``None``, systems with different numbers of lines,
            another number of lines than ``n_segments``); a system neither in ``systems`` nor in
            ``reference_systems`` (at its first line); a reference system that is also in ``systems``; a file
            without any rated cell.
    """
    from mtsig.io.human import check_reference_systems

    path = Path(path)
    references = check_reference_systems(reference_systems, systems, path)
    scores = read_mtme_seg_scores(path, allow_none=True, n_segments=n_segments)
    if scores.empty:
        raise InputError("no rated segment: every score is None", path)
    names = scores["system"]
    if systems is not None:
        known = set(systems) | set(references)
        fail_first(
            ~names.isin(known).to_numpy(),
            scores["line"].to_numpy(),
            path,
            [
                f"unknown system {n!r} (the experiment's systems: {', '.join(sorted(set(systems)))}); a human "
                "reference rated as a candidate goes in human.reference_systems"
                for n in names
            ],
        )
    is_reference = names.isin(set(references)).to_numpy()
    return pd.DataFrame(
        {
            "annotator": "",
            "system": names.to_numpy(),
            "segment": scores["segment"].to_numpy(dtype=np.int64),
            "item_type": np.where(is_reference, "ref", "system"),
            "criterion": criterion,
            "raw_score": scores["score"].to_numpy(dtype=np.float64),
            "z": scores["score"].to_numpy(dtype=np.float64),
        }
    )
