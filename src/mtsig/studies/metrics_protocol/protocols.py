"""The task sets of the metrics shared tasks as data (mt-metrics-eval's ``tasks.WMT23()``, ``tasks.WMT24OnWMT23()``,
``tasks.WMT25()`` and their ``meta_info``): :func:`wmt23`, :func:`wmt24_on_wmt23`, :func:`wmt25`, :data:`PROTOCOLS`;
and the tasks a user adds (:func:`tasks_from_spec`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from mtsig.errors import InputError
from mtsig.studies.metrics_protocol.statistics import STATISTICS
from mtsig.studies.metrics_protocol.tasks import Protocol, Task, TestSetInfo

#: The language pairs whose second reference competes as a human system (``lps_with_multiple_refs`` of
#: mt-metrics-eval's ``tasks.WMT23``).
LPS_WITH_MULTIPLE_REFS = frozenset({"en-he", "he-en"})

#: mt-metrics-eval's ``meta_info.WMT23`` (and the ``DATA['wmt23']`` entries of en-de, he-en, zh-en) at commit
#: 68a481a: the WMT23 metrics task's primary submissions and baselines (Freitag et al. 2023, Table 8).
WMT23_BASELINES = frozenset(
    {
        "BERTscore", "BLEU", "BLEURT-20", "chrF", "COMET", "CometKiwi", "docWMT22CometDA", "docWMT22CometKiwiDA",
        "f200spBLEU", "MS-COMET-QE-22", "prismRef", "prismSrc", "Random-sysname", "YiSi-1",
    }
)  # fmt: skip
WMT23_INFO = TestSetInfo(
    std_ref={"en-de": "refA", "he-en": "refB", "zh-en": "refA"},
    std_gold={"en-de": "mqm", "he-en": "mqm", "zh-en": "mqm"},
    outliers={
        "en-de": frozenset({"synthetic_ref"}),
        "he-en": frozenset(),
        "zh-en": frozenset({"synthetic_ref"}),
    },
    primary=frozenset(
        {
            "Calibri-COMET22", "Calibri-COMET22-QE", "cometoid22-wmt22", "eBLEU", "embed_llama", "GEMBA-MQM",
            "KG-BERTScore", "MaTESe", "MEE4", "MetricX-23", "MetricX-23-QE", "mre-score-labse-regular",
            "mbr-metricx-qe", "sescoreX", "tokengram_F", "XCOMET-Ensemble", "XCOMET-QE-Ensemble", "XLsim",
        }
    )
    | WMT23_BASELINES,
    baselines=WMT23_BASELINES,
)  # fmt: skip


def _lps(lps: Sequence[str] | None, info: TestSetInfo) -> tuple[str, ...]:
    chosen = tuple(sorted(lps if lps is not None else info.std_ref))
    unknown = [lp for lp in chosen if lp not in info.std_ref]
    if unknown or not chosen:
        raise InputError(
            f"language pair(s) {', '.join(unknown) or '(none)'} not in the protocol; known: {', '.join(info.std_ref)}"
        )
    return chosen


def pdp_extras(lps: Sequence[str], human_lps: frozenset[str] = LPS_WITH_MULTIPLE_REFS) -> tuple[Task, ...]:
    """Pairwise Difference Pearson grouped by item per language pair (DiIanni & Deutsch 2025: the pairs of
    translations of the same segment), with the segment-level tasks' systems: the WMT23 table's extra column."""
    return tuple(Task("pdp", (lp,), "seg", lp in human_lps, grouping="item") for lp in lps)


def wmt23(
    lps: Sequence[str] | None = None, *, info: TestSetInfo = WMT23_INFO, extras: Sequence[Task] | None = None
) -> Protocol:
    """The WMT23 metrics task's task set (mt-metrics-eval's ``tasks.WMT23``; Freitag et al. 2023, Sec. 5); extra
    columns ``extras`` (default :func:`pdp_extras`), not in the average."""
    lps = _lps(lps, info)
    tasks = [Task("pooled_accuracy", lps, "sys", bool(LPS_WITH_MULTIPLE_REFS & set(lps)), weight=len(lps))]
    for lp in lps:
        human = lp in LPS_WITH_MULTIPLE_REFS
        tasks += [
            Task("pearson", (lp,), "sys", human),
            Task("pearson", (lp,), "seg", human),
            Task("tie_calibrated", (lp,), "seg", human, grouping="item", variant="acc23", perm_test="pairs"),
        ]
    extras = pdp_extras(lps) if extras is None else tuple(extras)
    return Protocol("wmt23", info, tuple(tasks), extras, LPS_WITH_MULTIPLE_REFS)


def wmt24_on_wmt23(
    lps: Sequence[str] | None = None, *, info: TestSetInfo = WMT23_INFO, extras: Sequence[Task] = ()
) -> Protocol:
    """The WMT24 task set applied to WMT23 (mt-metrics-eval's ``tasks.WMT24OnWMT23``): per language pair, SPA
    (Thompson et al. 2024) and acc-t."""
    lps = _lps(lps, info)
    tasks = []
    for lp in lps:
        human = lp in LPS_WITH_MULTIPLE_REFS
        tasks += [
            Task("spa", (lp,), "sys", human),
            Task("tie_calibrated", (lp,), "seg", human, grouping="item", variant="acc23", perm_test="pairs"),
        ]
    return Protocol("wmt24", info, tuple(tasks), tuple(extras), LPS_WITH_MULTIPLE_REFS)


#: mt-metrics-eval's ``meta_info.WMT25_PRIMARIES`` and ``WMT25_BASELINES`` at commit 68a481a.
WMT25_BASELINES = frozenset(
    {"BERTScore", "BLEU", "COMET22", "COMETKiwi22", "YiSi-1", "chrF", "sentinel-cand", "spBLEU"}
)
WMT25_PRIMARIES = frozenset(
    {
        "EnsembleSlick", "GEMBA-v2", "MetricX-25", "Polycand-2", "Q_Relative-MQM", "SEGALE-QE", "TASER-No-Ref",
        "UvA-MT", "comet-multi", "hw-tsc", "mr7_2_1", "rankedCOMET",
    }
)  # fmt: skip
#: The WMT25 language pairs rated with MQM (``meta_info.WMT25``); the 14 others with ESA (``WMT25_ESA``, gold
#: ``esa-human1``).
WMT25_MQM_LPS = frozenset({"en-ko_KR", "ja-zh_CN"})
WMT25_LPS = (
    "cs-de_DE", "cs-uk_UA", "en-ar_EG", "en-bho_IN", "en-cs_CZ", "en-et_EE", "en-is_IS", "en-it_IT", "en-ja_JP",
    "en-ko_KR", "en-mas_KE", "en-ru_RU", "en-sr_Cyrl_RS", "en-uk_UA", "en-zh_CN", "ja-zh_CN",
)  # fmt: skip
#: mt-metrics-eval's ``meta_info.DATA['wmt25']``: refA everywhere, each language pair's gold, no outliers.
WMT25_INFO = TestSetInfo(
    std_ref=dict.fromkeys(WMT25_LPS, "refA"),
    std_gold={lp: "mqm" if lp in WMT25_MQM_LPS else "esa-human1" for lp in WMT25_LPS},
    outliers={lp: frozenset() for lp in WMT25_LPS},
    primary=WMT25_PRIMARIES | WMT25_BASELINES,
    baselines=WMT25_BASELINES,
)


def wmt25(
    lps: Sequence[str] | None = None,
    *,
    info: TestSetInfo = WMT25_INFO,
    gold: str | None = None,
    extras: Sequence[Task] = (),
) -> Protocol:
    """The WMT25 metrics task's task set (mt-metrics-eval's ``tasks.WMT25``): per language pair SPA and acc-t
    (item-grouped, tested by swapping pair outcomes), weight 1 each, no human translation as a system (its
    ``lps_with_multiple_refs`` is empty), each language pair's standard gold unless ``gold`` names one for all.
    ``info=WMT23_INFO`` applies it to WMT23's data."""
    lps = _lps(lps, info)
    tasks = []
    for lp in lps:
        tasks += [
            Task("spa", (lp,), "sys", False, gold=gold),
            Task(
                "tie_calibrated",
                (lp,),
                "seg",
                False,
                grouping="item",
                variant="acc23",
                perm_test="pairs",
                gold=gold,
            ),
        ]
    return Protocol("wmt25", info, tuple(tasks), tuple(extras))


def with_gold(protocol: Protocol, gold: str | None) -> Protocol:
    """``protocol`` with every task's gold the human score ``gold`` (e.g. ``da-sqm``: the table as if the task had
    used it); None: unchanged (the test set's standard gold)."""
    if gold is None:
        return protocol
    return replace(
        protocol,
        tasks=tuple(replace(task, gold=gold) for task in protocol.tasks),
        extras=tuple(replace(task, gold=gold) for task in protocol.extras),
    )


#: Protocol name -> its constructor (``lps``: a subset of the language pairs, all by default).
PROTOCOLS: dict[str, Callable[..., Protocol]] = {"wmt23": wmt23, "wmt24": wmt24_on_wmt23, "wmt25": wmt25}


#: The options of a task a user may set in :func:`tasks_from_spec`, and their types.
SPEC_OPTIONS: dict[str, type] = {
    "level": str, "grouping": str, "variant": str, "perm_test": str, "gold": str, "nan_groups": str,
    "average": str, "epsilon": float, "threshold": float, "sample_rate": float, "sample_size": int,
    "sample_method": str, "sample_seed": int,
}  # fmt: skip


def tasks_from_spec(spec: str, protocol: Protocol) -> tuple[Task, ...]:
    """The tasks of ``STATISTIC[:OPTION=VALUE,...]`` (``mtsig metrics --extra-task``), one per language pair of the
    protocol, its human translations competing where the protocol's do: ``pdp:grouping=item``,
    ``kendall:variant=b,grouping=item,perm_test=pairs,epsilon=0.5``, ``kendall_like:average=micro,threshold=25``,
    ``pearson:grouping=item,sample_size=200,sample_method=stratify``, ``tie_calibrated:variant=acc23,
    perm_test=scores``. The level is ``seg`` unless given, the other options the statistic's ``spec_defaults``
    (:class:`~mtsig.studies.metrics_protocol.statistics.StatisticSpec`: SPA at ``sys``, acc-t grouped by item and
    tested by swapping pairs).

    Raises:
        InputError: an unknown statistic or option, a value of the wrong type, a task that is not valid.
    """
    statistic, _, rest = spec.partition(":")
    statistic = statistic.strip()
    if statistic not in STATISTICS or STATISTICS[statistic].pooled:
        known = ", ".join(name for name, entry in STATISTICS.items() if not entry.pooled)
        raise InputError(f"--extra-task {spec!r}: unknown statistic {statistic!r}; known: {known}")
    options: dict[str, object] = {"level": "seg", **STATISTICS[statistic].spec_defaults}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, equals, value = (text.strip() for text in item.partition("="))
        if not equals or key not in SPEC_OPTIONS:
            raise InputError(
                f"--extra-task {spec!r}: expected OPTION=VALUE with an option among {', '.join(SPEC_OPTIONS)}, "
                f"got {item!r}"
            )
        try:
            options[key] = SPEC_OPTIONS[key](value)
        except ValueError as error:
            raise InputError(
                f"--extra-task {spec!r}: {key} must be a {SPEC_OPTIONS[key].__name__}"
            ) from error
    level = str(options.pop("level"))
    return tuple(Task(statistic, (lp,), level, lp in protocol.human_lps, **options) for lp in protocol.lps)
