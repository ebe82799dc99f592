"""The report of several training runs per system (:mod:`mtsig.stats.training_runs`): the signatures of the
run-aware test and of MultEval's randomization, and ``mtsig compare``'s readable report (Clark, Dyer, Lavie & Smith
2011, Sec. 4, report the run means, the optimizer's spread and the tests' p-values together).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from mtsig.report.signature import signature
from mtsig.stats.training_runs import RunsComparison

if TYPE_CHECKING:
    from mtsig.metrics.base import Metric

#: The two tests of a runs comparison: result column -> (test name, settings key of its sample count, p-value).
RUNS_TESTS = {
    "p_value": ("run_aware_t", "bootstrap_samples", "t(satterthwaite)"),
    "p_multeval": ("multeval_stratified_ar", "shuffles", "(c+1)/(R+1)"),
}


def runs_signatures(settings: Mapping[str, object], details: str) -> dict[str, str]:
    """The signatures (:mod:`mtsig.report.signature`) of the run-aware test (``p_value``: a t statistic, its
    bootstrap part with ``bootstrap_samples``) and of MultEval's randomization (``p_multeval``: ``shuffles``),
    both two-sided."""
    return {
        column: signature(
            metric_details=details,
            test=test,
            sided="two",
            n_samples=int(settings[samples]),  # type: ignore[call-overload]
            seed=int(settings["seed"]),  # type: ignore[call-overload]
            pvalue=pvalue,
        )
        for column, (test, samples, pvalue) in RUNS_TESTS.items()
    }


def runs_text_report(comparisons: Sequence[RunsComparison], details: Sequence[str]) -> str:
    """The readable report of ``mtsig compare`` with training runs: per metric a table of systems (mean of the
    run scores, s_dev, s_sel, s_opt, runs) and one line per pair, the better system (by the run mean) first."""
    first = comparisons[0].settings
    lines = [
        f"training runs: seed={first['seed']} bootstrap samples={first['bootstrap_samples']} "
        f"shuffles={first['shuffles']}",
        "score = mean of the runs' corpus scores; s_dev = std. dev. over runs; s_sel = bootstrap std. dev. of one "
        "run's score (mean over runs);",
        "s_opt = optimizer std. dev. net of test-set noise; p = run-aware test (two-sided); p_multeval = "
        "MultEval's randomization (ignores run variance)",
    ]
    for comparison, detail in zip(comparisons, details, strict=True):
        systems, pairs = comparison.systems, comparison.pairs
        metric = systems["metric"].iloc[0]
        lines += ["", f"{metric}: {detail}"]
        lines += [f"  {name}: {text}" for name, text in runs_signatures(comparison.settings, detail).items()]
        rows = [["system", "runs", "score", "s_dev", "s_sel", "s_opt"]]
        for _, row in systems.iterrows():
            rows.append(
                [
                    row["system"],
                    str(row["runs"]),
                    f"{row['score']:.4f}",
                    *(_number(row[c]) for c in ("s_dev", "s_sel", "s_opt")),
                ]
            )
        lines += _aligned(rows, left=1)
        rows = [["better", "worse", "difference", "se_test", "se_opt", "df", "p", "p_multeval"]]
        for _, row in pairs.iterrows():
            flip = row["statistic"] < 0
            better, worse = (row["sys_b"], row["sys_a"]) if flip else (row["sys_a"], row["sys_b"])
            rows.append(
                [
                    better,
                    worse,
                    f"{abs(row['statistic']):.4f}",
                    _number(row["se_test"]),
                    _number(row["se_optimizer"]),
                    "inf" if row["df"] == math.inf else _number(row["df"], 1),
                    _number(row["p_value"]),
                    _number(row["p_multeval"]),
                ]
            )
        lines += _aligned(rows, left=2)
    return "\n".join(lines) + "\n"


def _number(value: float, digits: int = 4) -> str:
    return "n/a" if not np.isfinite(value) else f"{value:.{digits}f}"


def _aligned(rows: Sequence[Sequence[str]], left: int) -> list[str]:
    """Rows as text columns: the first ``left`` columns left-aligned (names), the others right-aligned."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [
            c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    return lines


def runs_table(comparisons: Sequence[RunsComparison], details: Sequence[str]) -> pd.DataFrame:
    """``--tsv``: every metric's pairs with the signatures of both tests (``signature``, ``signature_multeval``)."""
    pairs = []
    for comparison, detail in zip(comparisons, details, strict=True):
        signatures = runs_signatures(comparison.settings, detail)
        pairs.append(
            comparison.pairs.assign(
                signature=signatures["p_value"], signature_multeval=signatures["p_multeval"]
            )
        )
    return pd.concat(pairs)


def runs_json(
    reference: Sequence[Path],
    groups: Mapping[str, Sequence[Path]],
    metrics: Sequence[Metric],
    comparisons: Sequence[RunsComparison],
) -> str:
    """``--json``: the files, each metric's details and signatures, the settings, the systems and the pairs."""
    from mtsig.report.compare_outputs import json_default

    details = [metric.details() for metric in metrics]
    document = {
        "reference": [str(path) for path in reference],
        "runs": {name: [str(path) for path in paths] for name, paths in groups.items()},
        "metrics": {metric.name: detail for metric, detail in zip(metrics, details, strict=True)},
        "signatures": {
            metric.name: runs_signatures(c.settings, detail)
            for metric, c, detail in zip(metrics, comparisons, details, strict=True)
        },
        "settings": comparisons[0].settings,
        "systems": pd.concat([c.systems for c in comparisons]).to_dict(orient="records"),
        "pairs": pd.concat([c.pairs for c in comparisons]).to_dict(orient="records"),
    }
    return json.dumps(document, indent=2, default=json_default) + "\n"
