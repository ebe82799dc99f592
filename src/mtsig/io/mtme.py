"""Files of google-research/mt-metrics-eval's test-set layout (the WMT metrics tasks from WMT21 on), read as the
pipeline's own tables.

mt-metrics-eval (Freitag et al.; its README, "File formats") keeps a test set ``<root>/<name>/`` as plain files,
one line per segment and every file in the same segment order:

- ``documents/<lp>.docs``: ``DOMAIN DOCUMENT-ID`` per segment (its loader, ``data.EvalSet._ReadDataset``, splits
  each line on whitespace and asserts that a document's segments are contiguous);
- ``human-scores/<lp>.<gold>.seg.score``: ``SYSNAME SCORE`` lines, each system's lines in segment order, ``None``
  where the segment was not rated (MQM, DA+SQM, ESA alike); the system score of ``<lp>.<gold>.sys.score`` is the
  mean of a system's rated segments.

:func:`read_mtme_docs` reads the documents; :func:`read_mtme_human_seg_scores` turns a human segment-score file into
the human step's tidy rows (:mod:`mtsig.io.human`), one per rated (system, segment), through the low-level parser
shared with the metric scores (:func:`mtsig.io.segment_scores.read_mtme_seg_scores`). Errors are
:class:`mtsig.errors.InputError` naming the file and line.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.io.segment_scores import fail_first, read_mtme_seg_scores

#: The columns of :func:`read_mtme_docs`.
DOCS_COLUMNS = ("domain", "document")


def read_mtme_docs(path: str | Path) -> pd.DataFrame:
    """The domain and document of every segment of an mt-metrics-eval ``documents/<lp>.docs`` file: one line
    ``DOMAIN DOCUMENT-ID`` per segment (TAB-separated in the WMT23 release; any whitespace, as mt-metrics-eval
    splits it). Returns ``DataFrame(domain, document)``, row i = segment i.

    Raises:
        InputError: naming the file and line: a missing, empty, binary or non-UTF-8 file; a line without exactly
            two fields (a blank line too: it would shift every later segment); a document whose segments are not
            contiguous (mt-metrics-eval asserts it: a document is one block of the test set).
    """
    from mtsig.io.text import read_lines

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
