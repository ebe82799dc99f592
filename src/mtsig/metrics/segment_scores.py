"""Any metric whose segment scores were computed elsewhere (COMET, BLEURT, YiSi, MQM, ...), as a :class:`Metric`.

The randomized tests of Graham, Mathur & Baldwin (2014, Sec. 2, Figs. 1-4) only need, per segment, additive
statistics and a score of their sum. For a metric whose corpus score is the mean of its segment scores (the
system-level score of COMET, BLEURT, YiSi, sentence-level chrF averaged, and of MQM in Freitag et al. 2021) the
statistics of a segment are ``[score, 1]`` and the corpus score of summed statistics is ``sum / count``. A
resampled test set then scores ``sum_i c_i x_i / sum_i c_i`` with the draw counts ``c_i``, which is the mean of the
pseudo-test-set's segment scores, so :func:`mtsig.stats.resampling.pairwise_tests` runs unchanged (the count column
matters for the document bootstrap, whose pseudo-sets vary in size).

The metric cannot compute anything from text: it is built from stored scores (a file, a tidy table from
:mod:`mtsig.io.segment_scores`, or an array), and :meth:`SegmentScores.stats_for` /
:meth:`SegmentScores.stats_many` return the stored statistics of the systems asked for.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.io.segment_scores import read_segment_scores, scores_array, segment_documents
from mtsig.metrics.base import Metric, check_stats_width

if TYPE_CHECKING:
    from mtsig.settings import SegmentScoresMetric


class SegmentScores(Metric):
    """A metric scored by the mean of precomputed segment scores; statistics ``[score, 1]`` per segment.

    Options (the declaration, kept in ``self.options``, JSON-able): ``name`` (the user's name for the metric,
    e.g. ``yisi2``: it is this instance's ``name``), ``higher_is_better`` (``False`` for TER-like scores; an
    instance attribute, unlike the text metrics' class attribute), ``path`` and ``format`` (a file in one of
    :data:`mtsig.io.segment_scores.FORMATS`, read at construction) and ``read_options`` (keyword options of that
    reader, e.g. ``{"lp": "ja-en"}``). Without ``path`` the metric can still :meth:`score` statistics (a worker
    that only scores saved statistics needs no file) but has no statistics to give. Use :meth:`from_frame` or
    :meth:`from_array` for scores already in memory.
    """

    name: ClassVar[str] = "segment_scores"  # the registry key; each instance carries the user's name instead
    kind: ClassVar[str] = "segment_scores"
    segment_local = False

    def __init__(
        self,
        name: str = "segment_scores",
        higher_is_better: bool = True,
        path: str | None = None,
        format: str | None = None,
        read_options: Mapping[str, Any] | None = None,
    ) -> None:
        if not isinstance(higher_is_better, bool):
            raise InputError(f"{name}: higher_is_better must be true or false, got {higher_is_better!r}")
        if not name or not str(name).strip():
            raise InputError("a segment_scores metric needs a non-empty name")
        super().__init__(
            name=name,
            higher_is_better=higher_is_better,
            path=None if path is None else str(path),
            format=format,
            read_options=dict(read_options or {}),
        )
        self.name = str(name)  # type: ignore[misc]
        self.higher_is_better = higher_is_better  # type: ignore[misc]
        self._frame: pd.DataFrame | None = None
        self._digest: str | None = None
        if path is not None:
            if format is None:
                raise InputError(f"{name}: a segment-score file needs its format", path)
            self._frame = read_segment_scores(path, format, **self.options["read_options"])
            self._digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        elif read_options:
            raise InputError(f"{name}: read_options given without a path")

    # ----------------------------------------------------------------------------------------- construction

    @classmethod
    def from_declaration(cls, name: str, declaration: SegmentScoresMetric, data_root: Path) -> SegmentScores:
        """From a metric's declaration in the config (``{NAME: {kind: segment_scores, format, path,
        higher_is_better, options}}``, :class:`mtsig.settings.SegmentScoresMetric`; the path relative to
        ``data_root`` unless absolute)."""
        if declaration.kind != "segment_scores":
            raise InputError(f"metric {name!r}: unknown kind {declaration.kind!r} (segment_scores)")
        path = Path(declaration.path)
        return cls(
            name=name,
            higher_is_better=declaration.higher_is_better,
            path=str(path if path.is_absolute() else Path(data_root) / path),
            format=declaration.format,
            read_options=dict(declaration.options),
        )

    @classmethod
    def from_frame(
        cls,
        frame: pd.DataFrame,
        *,
        name: str,
        higher_is_better: bool = True,
        format: str | None = None,
    ) -> SegmentScores:
        """From a tidy table (``system, segment, score`` [, ``document``, ``line``]) as the readers return; its
        ``attrs["path"]``/``["format"]`` (when present) name the file in :meth:`details` and errors."""
        missing = [c for c in ("system", "segment", "score") if c not in frame.columns]
        if missing:
            raise InputError(f"{name}: the segment-score table lacks column(s) {', '.join(missing)}")
        scores = frame["score"].to_numpy(dtype=np.float64)
        if not np.isfinite(scores).all():
            raise InputError(f"{name}: a segment score is not finite", frame.attrs.get("path"))
        metric = cls(name=name, higher_is_better=higher_is_better)
        metric._frame = frame
        metric.options["path"] = frame.attrs.get("path")
        metric.options["format"] = format if format is not None else frame.attrs.get("format")
        source = frame.attrs.get("path")
        if source is not None and Path(source).is_file():
            metric._digest = hashlib.sha256(Path(source).read_bytes()).hexdigest()
        return metric

    @classmethod
    def from_array(
        cls,
        scores: np.ndarray,
        systems: Sequence[str],
        *,
        name: str,
        higher_is_better: bool = True,
        documents: Sequence[str] | None = None,
    ) -> SegmentScores:
        """From ``scores[S, N]`` (row s: ``systems[s]``) and optionally the ``documents[N]`` of the segments."""
        array = np.asarray(scores, dtype=np.float64)
        if array.ndim != 2 or array.shape[0] != len(systems):
            raise InputError(
                f"{name}: scores must have shape [{len(systems)} systems, segments], got {array.shape}"
            )
        if len(set(systems)) != len(systems):
            raise InputError(f"{name}: system names repeat: {list(systems)}")
        if not np.isfinite(array).all():
            s, i = np.argwhere(~np.isfinite(array))[0]
            raise InputError(f"{name}: score of system {systems[s]!r}, segment {i} is not finite")
        n_systems, n_segments = array.shape
        frame = pd.DataFrame(
            {
                "system": np.repeat(np.asarray(systems, dtype=object), n_segments),
                "segment": np.tile(np.arange(n_segments, dtype=np.int64), n_systems),
                "score": array.ravel(),
            }
        )
        if documents is not None:
            if len(documents) != n_segments:
                raise InputError(f"{name}: {len(documents)} documents for {n_segments} segments")
            frame["document"] = np.tile(np.asarray(documents, dtype=object), n_systems)
        return cls.from_frame(frame, name=name, higher_is_better=higher_is_better, format="array")

    # ---------------------------------------------------------------------------------------- the interface

    @property
    def stat_names(self) -> tuple[str, ...]:
        return ("score_sum", "segments")

    @property
    def frame(self) -> pd.DataFrame:
        """The stored tidy table; an error when the metric was declared without scores."""
        if self._frame is None:
            raise InputError(
                f"metric {self.name!r} (segment_scores) has no stored scores: give it a path and format, or build "
                "it with SegmentScores.from_frame / from_array"
            )
        return self._frame

    @property
    def systems(self) -> list[str]:
        """The systems with stored scores, in the table's order."""
        return [str(s) for s in pd.unique(self.frame["system"])]

    @property
    def n_segments(self) -> int:
        """Segments in the stored table (its largest segment + 1; the readers check that systems are complete)."""
        return int(self.frame["segment"].max()) + 1

    def documents(self, n_segments: int | None = None) -> np.ndarray | None:
        """The document of every segment when the scores came with documents (``wmt_seg_score``, a tidy file
        with a ``document`` column), else ``None``."""
        return segment_documents(self.frame, self.n_segments if n_segments is None else n_segments)

    def stats_for(self, systems: Sequence[str], n_segments: int | None = None) -> np.ndarray:
        """``float64[S, N, 2]``: ``[score, 1]`` of every segment of each of ``systems`` (in that order).

        Raises:
            InputError: a system has no stored scores, or lacks a segment (naming the file and line).
        """
        n = self.n_segments if n_segments is None else int(n_segments)
        scores = scores_array(self.frame, list(systems), n)
        return np.stack([scores, np.ones_like(scores)], axis=-1)

    def stats(self, hyps: Sequence[str], refs: Sequence[str]) -> np.ndarray:
        """Not available: the scores were computed elsewhere, and a text list does not say which system it is."""
        raise InputError(
            f"metric {self.name!r} reads precomputed segment scores and cannot score texts; use stats_for(systems)"
        )

    def stats_many(
        self,
        systems: Mapping[str, Sequence[str] | None],
        refs: Sequence[str] | None = None,
        processes: int = 1,
    ) -> np.ndarray:
        """The stored statistics of the systems named by ``systems``' keys, ``[S, N, 2]`` in mapping order.

        The texts are not read (they may be ``None``); when given, each system's output must have as many lines as
        ``refs`` and ``N = len(refs)``, so a score file and texts that disagree on the test set's size are an
        error. ``processes`` is ignored: nothing is computed.
        """
        n_segments = None if refs is None else len(refs)
        for name, hyps in systems.items():
            if hyps is not None and n_segments is not None and len(hyps) != n_segments:
                raise InputError(
                    f"system {name!r} has {len(hyps)} segments but there are {n_segments} references"
                )
        if n_segments is not None and self._frame is not None and self.n_segments != n_segments:
            raise InputError(
                f"metric {self.name!r} scores {self.n_segments} segments but the test set has {n_segments}",
                self.frame.attrs.get("path"),
            )
        return self.stats_for(list(systems), n_segments)

    def score(self, stats: np.ndarray) -> np.ndarray:
        """Mean segment score of summed statistics ``[..., 2]``: ``score_sum / segments`` (NaN for no segment)."""
        stats = check_stats_width(stats, 2, f"segment_scores ({self.name})")
        with np.errstate(divide="ignore", invalid="ignore"):
            return stats[..., 0] / stats[..., 1]

    def details(self) -> str:
        """Name, kind, orientation and the source of the scores (file name, layout, sha256 prefix)."""
        direction = "higher" if self.higher_is_better else "lower"
        parts = [self.name, "kind:segment_scores", "corpus:mean of segment scores", f"{direction} is better"]
        if self.options.get("format"):
            parts.append(f"format:{self.options['format']}")
        if self.options.get("path"):
            parts.append(f"file:{Path(self.options['path']).name}")
        if self._digest:
            parts.append(f"sha256:{self._digest[:16]}")
        return "|".join(parts)


def shared_test_set(
    metrics: Sequence[SegmentScores], systems: Sequence[str], n_segments: int | None = None
) -> tuple[int, np.ndarray | None]:
    """The test set several segment-score metrics share: every metric must score every one of ``systems`` on every
    segment, all on ``n_segments`` segments (default: the first metric's); the documents are those of the first
    file that has them, and a later file with other documents is an error.

    Returns (number of segments, documents or ``None``).

    Raises:
        InputError: naming the file (and line): a system or segment missing, another number of segments, other
            documents.
    """
    documents: np.ndarray | None = None
    source = None
    for metric in metrics:
        path = metric.options.get("path")
        if n_segments is None:
            n_segments, source = metric.n_segments, path
        if metric.n_segments != n_segments:
            where = f" ({source} scores {n_segments})" if source is not None else ""
            raise InputError(
                f"metric {metric.name!r} scores {metric.n_segments} segments but the test set has {n_segments}{where}",
                path,
            )
        metric.stats_for(systems, n_segments)  # every system, every segment (file:line otherwise)
        found = metric.documents()
        if found is not None and documents is None:
            documents = found
        elif found is not None and not np.array_equal(found, documents):
            raise InputError("the segments' documents differ from those of an earlier scores file", path)
    if n_segments is None:
        raise InputError("no segment-score metric: nothing defines the test set")
    return n_segments, documents
