"""Loading and validating every input format; errors name the file, the line and the problem.

- :mod:`mtsig.io.text`: plain-text system outputs and references (HTML unescaping, line-count checks).
- :mod:`mtsig.io.human`: human judgments as the gold reads them, one module per ``human.format`` (DA ratings in the
  WMT/MTurk/Appraise formats, ESA, MQM, segment means, the tidy TSV, relative rankings), each returning
  :class:`~mtsig.io.human.Ratings` or :class:`~mtsig.io.human.Rankings`.
- :mod:`mtsig.io.rankings`: relative rankings (WMT RNK csv, RankEval's JCML).
- :mod:`mtsig.io.documents`: document ids of test segments (WMT sgm, WMT22 xml).
- :mod:`mtsig.io.staple`: STAPLE n-best gold and predictions.
- :mod:`mtsig.io.segment_scores`: segment scores computed elsewhere (tidy TSV, WMT ``seg.score``, mt-metrics-eval).
- :mod:`mtsig.io.system_scores`: system scores computed elsewhere (WMT ``sys.score``, mt-metrics-eval, tidy TSV), and
  :func:`~mtsig.io.system_scores.detect_format`, which tells every score-file layout apart.
- :mod:`mtsig.io.wmt_da`: the WMT DA segment and system means (``ad-seg-scores``, ``ad-sys-scores``, and the WMT20
  metrics task's ``metrics-ad-*`` with the metric files' system names).
- :mod:`mtsig.io.mqm`: MQM error annotations: segment scores, raters and the rated texts.
- :mod:`mtsig.io.esa`: Appraise's Error Span Annotation (ESA) exports, with the WMT24 organisers' filtering.
- :mod:`mtsig.io.judgments`: an experiment's human judgments in any of these formats (``human.format``): the
  registry of the readers.
- :mod:`mtsig.io.tidy_columns`: the spellings of the tidy files' columns (``segment``/``item``, ...).

Paths an experiment names are relative to a data root (:func:`data_path`).
"""

from __future__ import annotations

from pathlib import Path


def data_path(data_root: str | Path, relative: str) -> Path:
    """An experiment path: absolute paths are kept, relative ones are taken from the data root."""
    path = Path(relative)
    return path if path.is_absolute() else Path(data_root) / path
