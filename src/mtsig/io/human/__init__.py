"""Human judgments as the gold standard reads them: one module per ``human.format``, each returning
:class:`Ratings` or :class:`Rankings`.

============================ ============================================================================
module                       ``human.format`` (registered in :data:`mtsig.io.judgments.JUDGMENT_READERS`)
============================ ============================================================================
:mod:`.wmt_mturk_da`         ``wmt_mturk_da``: WMT's MTurk DA per-rating files (and the organisers' z, their
                             printed per-worker moments, a zero-variance worker restored)
:mod:`.appraise_da`          ``appraise_da``: Appraise segment-level DA exports
:mod:`.mturk_batch`          ``mturk_batch``: raw MTurk batch results of a DA campaign
:mod:`.esa`                  ``esa``: Appraise ESA exports of one language pair
:mod:`.tidy`                 ``tidy``: the tidy ratings TSV (ratings, standardised ratings or segment means)
:mod:`.mqm`                  ``mqm``: Google's MQM annotations, one score per (system, segment, rater)
:mod:`.mtme_seg_score`       ``mtme_seg_score``: mt-metrics-eval human segment scores
:mod:`.wmt_da_seg_scores`    ``wmt_da_seg_scores``: the WMT DA organisers' segment means
:mod:`.wmt_rankings`         ``wmt_rankings``: WMT's 5-way relative rankings (:class:`Rankings`)
============================ ============================================================================

Each module has ``read_judgments(request)``, the adapter from an experiment's ``human`` block
(:class:`JudgmentRequest`) to its loader; the parsers of files that other studies read too stay in
:mod:`mtsig.io.esa`, :mod:`mtsig.io.mqm`, :mod:`mtsig.io.mtme`, :mod:`mtsig.io.wmt_da` and
:mod:`mtsig.io.rankings`.

The tidy ratings table (:attr:`Ratings.table`, a pandas DataFrame, one row per rating) is what
:mod:`mtsig.stats.human` works on:

============ =========================================================================================
column       meaning
============ =========================================================================================
annotator    the rater (worker id, Appraise user name, ...); standardisation is per annotator
system       the system whose output was rated, named like the experiment's output files
segment      0-based line of the segment in the test set (source, reference and every output)
item_type    ``system`` (a real item), ``repeat`` (a second rating of a system item, QC),
             ``bad_ref`` (a degraded candidate, QC) or ``ref`` (the human reference rated as a candidate)
criterion    ``adequacy``, ``fluency``, ... (standardisation and the gold are per criterion)
raw_score    the score as given (0-100 for DA)
hit          optional: the HIT / task the rating belongs to; quality control pairs a ``bad_ref`` item with
             its original inside the same (annotator, hit) when this column is present
z            optional: the score already standardised (the organisers' z, segment means, MQM scores)
============ =========================================================================================

Paper: Graham, Mathur & Baldwin (2014), Sec. 4 (crowd-sourced adequacy and fluency scores with QC items, as in
Graham et al. 2013). Every loader validates every row and raises :class:`mtsig.errors.InputError` naming the file,
the line and the problem; nothing partial is returned. Line numbers are the file's own physical lines (blank lines,
and the comment lines the tidy format allows, are counted). A missing, empty, header-only, binary or non-UTF-8 file
is an error, and so is a rating repeated exactly (every field equal): it would be counted twice, changing n and the
gold's p-values, so the error names both lines.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from mtsig.errors import InputError
from mtsig.io import data_path
from mtsig.settings import HumanSource

ITEM_TYPES = ("system", "repeat", "bad_ref", "ref")
TIDY_COLUMNS = ("annotator", "system", "segment", "item_type", "criterion", "raw_score")
DA_SCORE_RANGE = (0.0, 100.0)


@dataclass(frozen=True)
class Ratings:
    """Human ratings on a scale (DA, ESA, MQM, segment means): what every reader but ``wmt_rankings`` returns.

    ``table``: the tidy ratings table (module docstring). ``source``: the file they were read from (the folder of
    several), named in errors about them. ``quality_control_applies``: whether Graham et al. (2013)'s bad-reference
    quality control applies when an experiment enables it (``qc.enabled``): ``False`` for MQM, whose raters mark
    error spans rather than score degraded candidates.
    """

    table: pd.DataFrame
    source: Path | None = None
    quality_control_applies: bool = True

    @property
    def standardised(self) -> bool:
        """Whether the scores are standardised already (a ``z`` column): the gold then standardises nothing and
        runs no quality control."""
        return "z" in self.table.columns


@dataclass(frozen=True)
class Rankings:
    """Relative-ranking judgments (WMT's 5-way rankings): ``table`` has one row per (judgment, shown system),
    columns ``judgment, annotator, segment, system, rank`` (1 best, ties allowed, -1 blank;
    :func:`mtsig.io.rankings.load_wmt_rankings`); ``source`` the file, named in errors."""

    table: pd.DataFrame
    source: Path | None = None


#: What a reader of a ``human.format`` returns.
HumanJudgments = Ratings | Rankings


@dataclass(frozen=True)
class JudgmentRequest:
    """What every reader of :func:`mtsig.io.judgments.load_judgments` is given: the experiment's ``human`` block,
    the data root its paths are relative to, the test set's size, the experiment's systems (None: any) and the
    organisers' printed per-annotator moments (None: none)."""

    human: HumanSource
    data_root: str | Path
    n_segments: int
    systems: Sequence[str] | None
    moments: pd.DataFrame | None

    def path(self, key: str = "path") -> Path:
        """The file the ``human`` block names under ``key``, resolved against the data root."""
        return data_path(self.data_root, getattr(self.human, key))

    def paths(self) -> list[Path]:
        """The file(s) ``human.path`` names (one path or a list: ``esa``, ``mturk_batch``), from the data root."""
        paths = (self.human.path,) if isinstance(self.human.path, str) else self.human.path
        return [data_path(self.data_root, p) for p in paths]

    def source(self) -> Path | None:
        """The human judgment file named in errors (the folder that holds them when the format reads several)."""
        return common_source(self.paths())


def common_source(paths: Sequence[Path]) -> Path | None:
    """The file that judgments read from ``paths`` are named by in errors: the one file, or the folder that holds
    them all (None: no file)."""
    if len(paths) > 1:
        return Path(os.path.commonpath(paths))
    return paths[0] if paths else None


def check_systems(
    human_systems: Iterable[str], output_systems: Iterable[str], path: str | Path | None
) -> None:
    """Raise ONE InputError listing systems rated in ``path`` without an output file and output systems
    without ratings. Pass the rated MT systems only (the reference pseudo-system excluded, see
    :func:`mtsig.stats.human.rated_systems`)."""
    human, outputs = set(human_systems), set(output_systems)
    no_output = sorted(human - outputs)
    no_ratings = sorted(outputs - human)
    problems = []
    if no_output:
        problems.append(f"systems with human judgments but no output file: {', '.join(no_output)}")
    if no_ratings:
        problems.append(f"systems with an output file but no human judgments: {', '.join(no_ratings)}")
    if problems:
        raise InputError("; ".join(problems), path)


def check_reference_systems(
    reference_systems: Sequence[str], systems: Iterable[str] | None, path: str | Path
) -> list[str]:
    """The configured human references rated as candidates (``human.reference_systems``) as a list; a name that is
    also one of the experiment's ``systems`` is an error (a rated reference is kept apart or is a system)."""
    if isinstance(reference_systems, Mapping) or isinstance(reference_systems, str):
        raise InputError(
            "human.reference_systems must be a list of system names for this format (a mapping of file names "
            "to names is appraise_da's)",
            path,
        )
    references = [str(name) for name in reference_systems]
    both = sorted(set(references) & set(systems or ()))
    if both:
        raise InputError(
            f"{', '.join(both)}: listed in human.reference_systems and in the experiment's systems; a rated "
            "human reference is either a system or kept apart, not both",
            path,
        )
    return references
