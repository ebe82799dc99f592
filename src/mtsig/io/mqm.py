"""Google's MQM annotations (Freitag et al. 2021, "Experts, Errors, and Context: A Large-Scale Study of Human
Evaluation for Machine Translation", TACL): segment scores, raters, and the rated texts themselves.

Layout (the ``mqm_<testset>_<lp>.tsv`` files of google/wmt-mqm-human-evaluation): TAB-separated with a header
naming at least ``system doc doc_id seg_id rater source target category severity`` (some releases add
``comment``); no quoting. One row per error annotation; a (system, segment) without errors has one row of
category and severity ``No-error``. The error's span is marked ``<v>...</v>`` in the target (or, for omissions
and source errors, in the source); removing the tags gives the text.

Scores (:data:`DEFAULT_MQM_WEIGHTS`, Freitag et al. 2021, Sec. 3.3 and Table 2): a segment's MQM score is minus the
sum of the weights of its errors: Major 5, Minor 1, Neutral 0, a Major Non-translation 25, a Minor
Fluency/Punctuation 0.1. A weight key is ``severity[/category[/subcategory]]`` and the most specific key that is a
prefix of the error's ``severity/category`` applies, as in mt-metrics-eval's ``score_mqm`` (whose default
spells the category ``Non-translation!``, as Google's data does; both spellings are keys here). Unlike that tool,
an error whose severity has no key is an error here rather than weight 0, so a misspelt severity cannot vanish
(``No-error`` rows weigh 0 when the mapping has no ``No-error`` key).
The weights are summed as decimals and the sum rounded once to a float, so a score is the double nearest its
decimal value (three Minor punctuation errors score exactly ``-0.3``, not float addition's ``-0.30000000000000004``)
and equals the published 6-decimal value read back as a float.

Segments and documents: ``seg_id`` is the 1-based line of the full test set (the WMT21 TED talks: en-de 606
lines, zh-en 843), of which only some documents were annotated (529 segments in 5 talks for both pairs).
``segment`` here is the 0-based position of ``seg_id`` among the annotated ``seg_id`` values in increasing order,
so the experiment's test set is the annotated segments, in test-set order; ``seg_id`` is kept. ``doc`` (e.g.
``talk.1``) is the document; ``doc_id`` is, despite its name, the 1-based position of the segment in its document
(``doc_id = seg_id - first seg_id of the doc + 1`` on every TED row). Each seg_id must give one ``doc``, one
``doc_id`` and one source text (tags removed) over all rows, and each (system, seg_id) one output text.

In the WMT21 TED files ``ref`` is ``ref-A``/``ref.A`` of the publishers' score files and tables and ``refB`` is
``ref-B``/``ref.B``. On zh-en the two human translations are the best- and the worst-rated translations (mean MQM
weight 0.42 for refB, 5.52 for ref; the MT systems 1.65-2.99), so a reference-based metric scored against ``ref``
there uses the weakest translation as its reference.

Per-rater standardisation is left to the gold step: the ``rater`` of each score is kept. When several raters
rated a (system, segment) there is one score per rater; :func:`rater_means` averages them as the published
``avg_seg_scores`` files do.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.io.segment_scores import (
    check_exact_repeats,
    check_no_empty,
    fail_first,
    parse_integers,
    read_data_lines,
)
from mtsig.settings import MqmTexts

REQUIRED_COLUMNS = ("system", "doc", "doc_id", "seg_id", "rater", "source", "target", "category", "severity")
NO_ERROR = "No-error"
#: Freitag et al. (2021), Table 2 (the weights of the published MQM scores and of mt-metrics-eval's score_mqm).
DEFAULT_MQM_WEIGHTS: Mapping[str, float] = {
    "Major": 5.0,
    "Minor": 1.0,
    "Neutral": 0.0,
    NO_ERROR: 0.0,
    "Major/Non-translation": 25.0,
    "Major/Non-translation!": 25.0,
    "Minor/Fluency/Punctuation": 0.1,
}
_SPAN_TAG = re.compile(r"</?v>")


def error_weight(severity: str, category: str, weights: Mapping[str, float]) -> float | None:
    """Weight of one error: the most specific key of ``weights`` among ``severity/category/...`` and its
    prefixes (``Minor/Fluency/Punctuation``, ``Minor/Fluency``, ``Minor``); ``None`` when none is a key."""
    parts = [severity, *category.split("/")]
    while parts:
        key = "/".join(parts)
        if key in weights:
            return float(weights[key])
        parts.pop()
    return None


def _minus_decimal_sum(weights: Iterable[float]) -> float:
    """Minus the exact sum of the weights read as the decimals they print as (``0.1`` is one tenth), rounded once
    to the nearest double, so a score is the double nearest its decimal value whatever the order of the rows
    (float addition gives ``0.1 + 0.1 + 0.1 = 0.30000000000000004``); ``+0.0`` rather than ``-0.0`` without errors.
    """
    total = sum((Decimal(repr(float(w))) for w in weights), Decimal(0))
    return float(-total) + 0.0


def strip_span_tags(text: str) -> str:
    """The text without the ``<v>``/``</v>`` error-span marks."""
    return _SPAN_TAG.sub("", text)


@dataclass(frozen=True)
class MqmAnnotations:
    """What an MQM file holds, in tidy tables (see the module docstring).

    ``scores``: one row per (system, segment, rater): ``system, segment, seg_id, document, rater, score``
    (minus the weight sum), ``n_errors`` (rows other than No-error) and ``line`` (the group's first line).
    ``segments``: one row per annotated segment in order: ``segment, seg_id, document, doc_segment`` (the file's
    ``doc_id``), ``source``. ``outputs``: one row per (system, segment): ``system, segment, output, line``.
    ``reference_system``: the file's name for the human reference translation (``ref``), a rated system that
    :meth:`system_outputs` leaves out (a second human translation such as zh-en's ``refB`` stays a system).
    """

    path: Path
    scores: pd.DataFrame
    segments: pd.DataFrame
    outputs: pd.DataFrame
    reference_system: str | None

    @property
    def systems(self) -> list[str]:
        """Every rated system except the reference, sorted by name."""
        names = pd.unique(self.outputs["system"])
        return [str(n) for n in names if n != self.reference_system]

    @property
    def documents(self) -> np.ndarray:
        """The document of every segment (``str[N]``)."""
        return self.segments["document"].to_numpy(dtype=str)

    @property
    def sources(self) -> list[str]:
        return self.segments["source"].tolist()

    def texts_of(self, system: str) -> list[str]:
        """The output of ``system`` for every segment; an error naming the file if one is missing."""
        rows = self.outputs.loc[self.outputs["system"] == system]
        if rows.empty:
            raise InputError(f"no system {system!r} in the MQM annotations", self.path)
        n = len(self.segments)
        if len(rows) != n:
            present = np.zeros(n, dtype=bool)
            present[rows["segment"].to_numpy()] = True
            missing = int(np.flatnonzero(~present)[0])
            seg_id = int(self.segments["seg_id"].iloc[missing])
            raise InputError(
                f"system {system!r} (first row here) has no output for seg_id {seg_id} (segment {missing}): "
                f"{len(rows)} of {n} segments",
                self.path,
                int(rows["line"].min()),
            )
        return rows.sort_values("segment")["output"].tolist()

    def references(self) -> list[str]:
        """The reference translation of every segment (the outputs of ``reference_system``)."""
        if self.reference_system is None:
            raise InputError("no reference system declared for these MQM annotations", self.path)
        return self.texts_of(self.reference_system)

    def system_outputs(self, systems: Sequence[str] | None = None) -> dict[str, list[str]]:
        """System name -> output of every segment, for ``systems`` (default :attr:`systems`)."""
        return {name: self.texts_of(name) for name in (self.systems if systems is None else systems)}


def _single_value(
    keys: pd.Series, labels: Sequence[str], values: pd.Series, lines: np.ndarray, path: Path, what: str
) -> None:
    """Every row of one key must give the same value: an error at the first row that differs from its key's
    first row (``labels``: how each row's key reads in the message)."""
    first = values.groupby(keys.to_numpy(), sort=False).transform("first")
    first_line = pd.Series(lines).groupby(keys.to_numpy(), sort=False).transform("first").to_numpy()
    differs = (values != first).to_numpy()
    fail_first(
        differs,
        lines,
        path,
        [f"{what} differs from line {fl} ({label})" for label, fl in zip(labels, first_line, strict=True)],
    )


def read_mqm(
    path: str | Path,
    *,
    weights: Mapping[str, float] = DEFAULT_MQM_WEIGHTS,
    reference_system: str | None = MqmTexts.reference_system,
) -> MqmAnnotations:
    """Read an MQM annotation file into scores, segments and outputs (see the module docstring).

    Raises:
        InputError: naming the file and line: a missing column or header, a wrong field count, an empty system or
            rater, a non-integer ``seg_id``/``doc_id``, a row repeated exactly (its error would count twice; the
            message names both lines), an error with no weight, a ``No-error`` row next to error
            rows of the same (system, segment, rater), a segment whose rows disagree on document, position or
            source, or a (system, segment) whose rows disagree on the output text; ``reference_system`` absent.
    """
    path = Path(path)
    table, lines = _annotation_table(path)
    seg_id = parse_integers(table["seg_id"], lines, path, "seg_id", minimum=1)
    doc_segment = parse_integers(table["doc_id"], lines, path, "doc_id", minimum=1)
    weight, is_error = _row_weights(table, weights, lines, path)
    source, output = _check_segments(table, seg_id, doc_segment, is_error, lines, path)
    segment = np.searchsorted(np.unique(seg_id), seg_id)  # 0-based index among the annotated segments
    scores = _segment_scores(table, segment, seg_id, weight, is_error, lines)
    first_rows = np.sort(np.unique(segment, return_index=True)[1])
    segments = pd.DataFrame(
        {
            "segment": segment[first_rows],
            "seg_id": seg_id[first_rows],
            "document": table["doc"].to_numpy()[first_rows],
            "doc_segment": doc_segment[first_rows],
            "source": source.to_numpy()[first_rows],
        }
    ).sort_values("segment", ignore_index=True)
    outputs = (
        pd.DataFrame({"system": table["system"], "segment": segment, "output": output, "line": lines})
        .drop_duplicates(["system", "segment"])
        .sort_values(["system", "segment"], kind="stable", ignore_index=True)
    )
    if reference_system is not None and reference_system not in set(outputs["system"]):
        raise InputError(f"no reference system {reference_system!r} in the MQM annotations", path)
    for frame in (scores, segments, outputs):
        frame.attrs.update(path=str(path), format="mqm")
    return MqmAnnotations(path, scores, segments, outputs, reference_system)


def _annotation_table(path: Path) -> tuple[pd.DataFrame, np.ndarray]:
    """The file's rows as strings under its header, and each row's line number: the header names every required
    column, there is a row, every row has the header's field count, no row is repeated exactly, and system,
    rater, doc and severity are never empty."""
    texts, lines = read_data_lines(path)
    header = texts[0].split("\t")
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise InputError(
            f"missing column(s) {', '.join(missing)}: expected a TAB-separated header naming "
            f"{' '.join(REQUIRED_COLUMNS)}",
            path,
            int(lines[0]),
        )
    if len(texts) == 1:
        raise InputError("no rows after the header", path, int(lines[0]))
    rows = [text.split("\t") for text in texts[1:]]
    lines = lines[1:]
    counts = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
    fail_first(
        counts != len(header), lines, path, [f"{n} fields, the header has {len(header)}" for n in counts]
    )
    table = pd.DataFrame(rows, columns=header)
    check_exact_repeats(table, lines, path, "error annotation", "")
    for column in ("system", "rater", "doc", "severity"):
        check_no_empty(table[column].tolist(), lines, path, column)
    return table, lines


def _row_weights(
    table: pd.DataFrame, weights: Mapping[str, float], lines: np.ndarray, path: Path
) -> tuple[np.ndarray, np.ndarray]:
    """Each row's error weight (:func:`error_weight`; a ``No-error`` row weighs 0 unless ``weights`` say
    otherwise) and whether it is an error; a (severity, category) without a weight is an error naming its first
    line."""
    for key, value in weights.items():
        if not isinstance(value, (int, float)) or not np.isfinite(value):
            raise InputError(f"MQM weight {key!r} must be a finite number, got {value!r}", path)
    pairs = table[["severity", "category"]].drop_duplicates()
    weight_of = {}
    for first_row, (severity, category) in zip(pairs.index, pairs.itertuples(index=False), strict=True):
        weight = error_weight(severity, category, weights)
        if weight is None and severity == NO_ERROR:
            weight = 0.0  # a segment without errors scores 0 unless the weights say otherwise
        if weight is None:
            where = int(lines[first_row])
            raise InputError(
                f"severity {severity!r} (category {category!r}) has no weight; weights: "
                f"{', '.join(f'{k}={v:g}' for k, v in weights.items())}",
                path,
                where,
            )
        weight_of[(severity, category)] = weight
    weight = np.array([weight_of[p] for p in zip(table["severity"], table["category"], strict=True)])
    return weight, (table["severity"] != NO_ERROR).to_numpy()


def _check_segments(
    table: pd.DataFrame,
    seg_id: np.ndarray,
    doc_segment: np.ndarray,
    is_error: np.ndarray,
    lines: np.ndarray,
    path: Path,
) -> tuple[pd.Series, pd.Series]:
    """Each row's source and target without span tags, after checking that a segment's rows agree on document,
    position and source, a (system, segment)'s rows on the target, and that no (system, segment, rater) has a
    ``No-error`` row next to error rows."""
    seg_key = pd.Series(seg_id)
    seg_labels = [f"seg_id {i}" for i in seg_id]
    _single_value(seg_key, seg_labels, table["doc"], lines, path, "doc")
    _single_value(
        seg_key, seg_labels, pd.Series(doc_segment), lines, path, "doc_id (position in the document)"
    )
    source = table["source"].map(strip_span_tags)
    _single_value(seg_key, seg_labels, source, lines, path, "source (span tags removed)")
    output = table["target"].map(strip_span_tags)
    pair_key = table["system"] + "\t" + seg_key.astype(str)
    pair_labels = [f"system {s!r}, {label}" for s, label in zip(table["system"], seg_labels, strict=True)]
    _single_value(pair_key, pair_labels, output, lines, path, "target (span tags removed)")
    group_key = pair_key + "\t" + table["rater"]
    group_has_error = pd.Series(is_error).groupby(group_key.to_numpy()).transform("any").to_numpy()
    fail_first(
        group_has_error & ~is_error,
        lines,
        path,
        "a No-error row for a (system, seg_id, rater) that also has error rows",
    )
    return source, output


def _segment_scores(
    table: pd.DataFrame,
    segment: np.ndarray,
    seg_id: np.ndarray,
    weight: np.ndarray,
    is_error: np.ndarray,
    lines: np.ndarray,
) -> pd.DataFrame:
    """One row per (system, segment, rater): seg_id, document, score (minus the sum of the error weights, in
    decimal), n_errors and the first line, sorted by system, segment, rater."""
    rows_frame = pd.DataFrame(
        {
            "system": table["system"].to_numpy(),
            "segment": segment,
            "seg_id": seg_id,
            "document": table["doc"].to_numpy(),
            "rater": table["rater"].to_numpy(),
            "weight": weight,
            "is_error": is_error,
            "line": lines,
        }
    )
    grouped = rows_frame.groupby(["system", "segment", "rater"], sort=False)
    scores = (
        grouped.agg(
            seg_id=("seg_id", "first"),
            document=("document", "first"),
            score=("weight", _minus_decimal_sum),
            n_errors=("is_error", "sum"),
            line=("line", "first"),
        )
        .reset_index()
        .sort_values(["system", "segment", "rater"], ignore_index=True)
    )
    scores["n_errors"] = scores["n_errors"].astype(np.int64)
    return scores


def rater_means(scores: pd.DataFrame) -> pd.DataFrame:
    """One score per (system, segment): the mean over its raters (mt-metrics-eval's ``score_mqm`` averages the
    raters' weight sums the same way); columns ``system, segment, seg_id, document, score, n_raters``."""
    grouped = scores.groupby(["system", "segment"], sort=False)
    return grouped.agg(
        seg_id=("seg_id", "first"),
        document=("document", "first"),
        score=("score", "mean"),
        n_raters=("rater", "nunique"),
    ).reset_index()
