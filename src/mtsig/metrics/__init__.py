"""The five metrics of Graham, Mathur & Baldwin (2014, Sec. 5) as per-segment sufficient statistics.

Every metric implements :class:`mtsig.metrics.base.Metric`: ``stats(hyps, refs) -> [N, k]``,
``stats_many(systems, refs, processes) -> [S, N, k]``, a vectorised ``score(stats[..., k]) -> [...]`` of summed
statistics, ``higher_is_better`` and ``details()``. Scales: BLEU, chrF and TER on sacrebleu's 0-100 scale,
NIST raw, METEOR 0-1.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mtsig.errors import InputError
from mtsig.metrics.base import Metric
from mtsig.metrics.bleu import BLEU
from mtsig.metrics.chrf import CHRF
from mtsig.metrics.meteor import METEOR, JavaNotFoundError
from mtsig.metrics.nist import NIST
from mtsig.metrics.ter import TER

METRICS: dict[str, type[Metric]] = {cls.name: cls for cls in (BLEU, NIST, METEOR, TER, CHRF)}


def get_metric(name: str, **options: Any) -> Metric:
    """A metric by (case-insensitive) name, constructed with ``options``.

    Raises:
        InputError: the name is not one of :data:`METRICS`, or an option is not accepted by that metric.
    """
    key = name.lower()
    if key not in METRICS:
        raise InputError(f"unknown metric {name!r}; known metrics: {', '.join(METRICS)}")
    try:
        return METRICS[key](**options)
    except TypeError as error:
        raise InputError(f"bad option for metric {name!r}: {error}") from None


def metric_from_options(name: str, options: Mapping[str, Any]) -> Metric:
    """The metric that recorded ``options`` with its statistics (a step rebuilds it to score them): a built-in
    metric by name, or a :class:`SegmentScores` metric (its options hold ``read_options``), rebuilt without reading
    its file again since scoring needs only its orientation.

    Raises:
        InputError: as :func:`get_metric`.
    """
    if "read_options" in options and "higher_is_better" in options:  # only SegmentScores records read_options
        from mtsig.metrics.segment_scores import SegmentScores

        return SegmentScores(
            name=str(options.get("name", name)), higher_is_better=options["higher_is_better"]
        )
    return get_metric(name, **options)


__all__ = [
    "BLEU",
    "CHRF",
    "METEOR",
    "METRICS",
    "NIST",
    "TER",
    "JavaNotFoundError",
    "Metric",
    "get_metric",
    "metric_from_options",
]
