"""Signatures of results: every setting that changes a number, on one line, in the spirit of sacrebleu's.

Post (2018), *A Call for Clarity in Reporting BLEU Scores*, Sec. 4, made a score reproducible by printing with it a
signature of the settings that produced it (``nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.x``). A
p-value or an interval depends on more: the test, its sidedness, the number of samples, the seed, the p-value
convention and, for an interval, the confidence level. An mtsig signature lists them as ``key:value`` fields joined
by ``|``, the metric's own details string (:meth:`mtsig.metrics.base.Metric.details`, itself ``|``-separated) last::

    mtsig:0.1.0|test:paired_bootstrap|sided:one|samples:10000|seed:12345|pvalue:c/B|ci:95%|metric:BLEU|nrefs:1|...

Optional fields appear only where they change the result: ``ci`` (intervals), ``alpha`` and ``correction``
(conclusions: clusters, daggers), ``block`` (the stationary bootstrap's mean block length). ``pvalue`` is the
convention the test actually used: the Riezler & Maxwell (2005) variants always use ``(c+1)/(B+1)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mtsig import __version__
from mtsig.stats.resampling.draws import STATIONARY_BOOTSTRAP
from mtsig.stats.resampling.registry import TESTS

if TYPE_CHECKING:
    from mtsig.stats.rank_sets.summary import RankSets

PLUS_ONE = "(c+1)/(B+1)"


def format_level(level: float) -> str:
    """A confidence level as a percentage without trailing zeros: ``0.95 -> "95%"``, ``0.975 -> "97.5%"``."""
    return f"{100.0 * float(level):.10g}%"


def signature(
    *,
    metric_details: str,
    test: str,
    n_samples: int,
    seed: int,
    pvalue: str,
    confidence: float | None = None,
    alpha: float | None = None,
    correction: str | None = None,
    mean_block_length: float | None = None,
    version: str = __version__,
    sided: str | None = None,
) -> str:
    """The signature of one metric's results by one test (see the module docstring for the fields). A test
    outside :data:`mtsig.stats.resampling.TESTS` (the training-runs tests) must give its ``sided`` ("one" or
    "two") and its own ``pvalue``."""
    spec = TESTS.get(test)
    if spec is None and sided is None:
        raise ValueError(f"test {test!r} is not in the registry: give its sidedness")
    fields = [
        f"mtsig:{version}",
        f"test:{test}",
        f"sided:{sided if spec is None else spec.sided.removesuffix('-sided')}",
        f"samples:{int(n_samples)}",
        f"seed:{int(seed)}",
        f"pvalue:{PLUS_ONE if spec is not None and spec.plus_one else pvalue}",
    ]
    if spec is not None and spec.scheme == STATIONARY_BOOTSTRAP and mean_block_length is not None:
        fields.append(f"block:{float(mean_block_length):.10g}")
    if confidence is not None:
        fields.append(f"ci:{format_level(confidence)}")
    if alpha is not None:
        fields.append(f"alpha:{float(alpha):.10g}")
    if correction is not None:
        fields.append(f"correction:{correction}")
    fields.append(f"metric:{metric_details}")
    return "|".join(fields)


def result_signatures(
    metric_details: str,
    settings: Mapping[str, object],
    *,
    alpha: float | None = None,
    correction: str | None = None,
) -> dict[str, str]:
    """``{test: signature}`` of an engine result from its ``settings`` (:attr:`mtsig.stats.resampling.PairwiseResult.
    settings`: seed, samples per test, p-value convention, intervals, mean block length)."""
    n_samples = settings["n_samples"]
    assert isinstance(n_samples, Mapping)
    intervals = settings.get("intervals")
    confidence = intervals["level"] if isinstance(intervals, Mapping) else None
    block = settings.get("mean_block_length")
    return {
        str(test): signature(
            metric_details=metric_details,
            test=str(test),
            n_samples=int(samples),
            seed=int(settings["seed"]),  # type: ignore[call-overload]
            pvalue=str(settings["pvalue"]),
            confidence=confidence,
            alpha=alpha,
            correction=correction,
            mean_block_length=None if block is None else float(block),  # type: ignore[arg-type]
        )
        for test, samples in n_samples.items()
    }


def with_conclusion(signature_text: str, alpha: float, correction: str, rule: str | None = None) -> str:
    """A test's signature with the fields of the conclusions drawn from it (``alpha``, ``correction`` and, for
    clusters, the cluster ``rule``) inserted before the metric's details."""
    head, _, metric = signature_text.partition("|metric:")
    fields = [head, f"alpha:{float(alpha):.10g}", f"correction:{correction}"]
    fields += [] if rule is None else [f"rule:{rule}"]
    return "|".join(fields) + (f"|metric:{metric}" if metric else "")


def gold_signature(gold: str, alpha: float, correction: str, rule: str | None = None) -> str:
    """The signature of conclusions drawn from a human gold standard's p-values (no resampling involved)."""
    return with_conclusion(f"mtsig:{__version__}|gold:{gold}", alpha, correction, rule)


def parse_signature(text: str) -> dict[str, str]:
    """The fields of a signature as ``{key: value}``; ``metric`` holds the whole metric details string."""
    head, _, metric = text.partition("|metric:")
    fields = dict(field.split(":", 1) for field in head.split("|"))
    fields["metric"] = metric
    return fields


__all__ = [
    "PLUS_ONE",
    "format_level",
    "gold_signature",
    "parse_signature",
    "rank_sets_signature",
    "result_signatures",
    "signature",
    "with_conclusion",
]


def ranking_signature(
    *,
    procedure: str,
    sided: str,
    scale: str,
    alpha: float,
    n_resamples: int,
    seed: int,
    version: str = __version__,
) -> str:
    """The signature of a ranking of systems from human scores (:mod:`mtsig.stats.system_ranking`): the procedure,
    how its p-values read, the item scores it used (raw or per-rater z), its level, and for a randomised procedure
    its resamples and seed (``samples:0`` and no seed for the others)."""
    fields = [
        f"mtsig:{version}",
        f"procedure:{procedure}",
        f"sided:{sided.removesuffix('-sided')}",
        f"scores:{scale}",
    ]
    fields.append(f"samples:{int(n_resamples)}")
    if n_resamples:
        fields.append(f"seed:{int(seed)}")
    fields.append(f"alpha:{float(alpha):.10g}")
    return "|".join(fields)


def rank_sets_signature(
    sets: RankSets, *, scores: str | None = None, metric_details: str | None = None
) -> str:
    """The signature of confidence sets for ranks (:class:`mtsig.stats.rank_sets.summary.RankSets`): the kind of
    set shown, its coverage, τ of the τ-best set, how the draws were made (``normal``: the parametric bootstrap;
    ``items``, ``documents``, ``segments``: the paired nonparametric bootstrap of those units), their number and
    seed, and what was ranked (``scores``: item scores; ``metric``: a metric's details, last as in
    :func:`signature`). The sets are two-sided with the stepdown and R's type-7 quantile, csranks's defaults."""
    fields = [
        f"mtsig:{__version__}",
        f"ranksets:{sets.kind}",
        "sided:two",
        "stepdown:yes",
        f"coverage:{format_level(sets.coverage)}",
        f"top:{int(sets.tau)}",
        f"bootstrap:{sets.bootstrap}",
        f"draws:{int(sets.n_draws)}",
        f"seed:{int(sets.seed)}",
    ]
    if scores is not None:
        fields.append(f"scores:{scores}")
    if metric_details is not None:
        fields.append(f"metric:{metric_details}")
    return "|".join(fields)
