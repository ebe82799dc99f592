"""``mtsig compare`` against sacrebleu's own paired significance tests on real WMT12 systems.

Which rows correspond (sacrebleu 2.6.0, ``sacrebleu/significance.py``):

- ``--paired-ar`` (``_paired_ar_test``): swap each segment's statistics between the baseline and the system with
  probability 1/2, R times; ``c = #{|d_r| > |d|}``, ``p = (c + 1) / (R + 1)``. That is mtsig's
  ``rm_approximate_randomization`` (Riezler & Maxwell 2005 as published: two-sided, ``#{|d_r| >= |d|}``,
  ``(c + 1) / (R + 1)``).
- ``--paired-bs`` (``_paired_bs_test``): B paired bootstrap resamples of segments; ``s_b = |d_b| - mean_b |d_b|``
  (shift to zero of the mean ABSOLUTE difference), ``c = #{s_b > |d|}``, ``p = (c + 1) / (B + 1)``. That is mtsig's
  ``rm_bootstrap`` (Riezler & Maxwell as published: ``tau = mean |d_b|``, ``#{|d_b| - tau >= |d|}``), not the
  paper's ``bootstrap`` (Fig. 3, ``tau = mean d_b``, one-sided) nor ``bootstrap_two_sided`` (Fig. 1,
  ``|d_b - tau|``).

Both tools take two-sided p-values of ``|d|``, so the order of a pair does not matter. sacrebleu counts ``>``, mtsig
``>=``: a resampled statistic exactly equal to ``|d|`` needs every swapped or resampled segment to leave the
difference unchanged, which does not happen on 3003 real segments, so the counts agree in distribution. The draws
differ (each tool has its own generator), so the p-values agree within Monte-Carlo error only: each is
``(c + 1)/(B + 1)`` with ``c ~ Binomial(B, p)``, standard error ``sqrt(p (1 - p) / B)`` and a bias of at most
``1/(B + 1)``. The tolerance is 4 standard errors of the difference plus both biases.
"""

from __future__ import annotations

import contextlib
import io
import math
from pathlib import Path

import pandas as pd
import pytest
from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.significance import PairedTest

from mtsig import cli
from mtsig.io.text import load_texts

# One sacrebleu reference run per module (its fixture is costly): the module goes to one xdist worker.
pytestmark = pytest.mark.xdist_group("cli_sacrebleu")

# Three WMT12 es-en systems within 0.7 BLEU of each other, so that p-values are neither 0 nor 1: sacrebleu's
# baseline (first) against each of the others, as `sacrebleu REF -i BASE SYS1 SYS2 --paired-ar` compares them.
BASELINE, OTHERS = "onlineE", ("onlineF", "uk-dan-moses")
SAMPLES_MTSIG = 10_000
# sacrebleu's default R is 10 000; its Python loop is slow per trial. The tolerance (below) is 4 standard errors of
# the difference at these sizes: with 2 000 trials it still rejects the wrong conventions of
# test_the_comparison_tells_the_conventions_apart by about twice itself.
SAMPLES_AR = 2_000
SAMPLES_BS = 2_000  # sacrebleu keeps B x N x k float32 statistics per system in memory; its default B is 1000
SIGMAS = 4.0
CORRESPONDING = {"ar": "rm_approximate_randomization", "bs": "rm_bootstrap"}
METRICS = {"bleu": (BLEU, "BLEU"), "chrf": (CHRF, "chrF2")}  # mtsig name -> sacrebleu's class, result key
# sacrebleu's tests score every resample in a Python loop, so chrF (the slower metric) runs AR on the closest pair
# only (its other pair has p at the floor 1/(B + 1) in both tools), and sacrebleu runs fewer samples than mtsig (the
# tolerance counts both), so that the module stays one of the quick tests.
SACREBLEU_RUNS = [("ar", "bleu", OTHERS), ("bs", "bleu", OTHERS), ("ar", "chrf", ("onlineF",))]


def tolerance(p: float, samples_a: int, samples_b: int) -> float:
    """4 standard errors of the difference of two independent Monte-Carlo p-values estimating ``p``, plus the
    ``(c + 1)/(B + 1)`` bias of each (at most ``1/(B + 1)``)."""
    variance = p * (1.0 - p) * (1.0 / samples_a + 1.0 / samples_b)
    return SIGMAS * math.sqrt(variance) + 1.0 / (samples_a + 1) + 1.0 / (samples_b + 1)


@pytest.fixture(scope="module")
def wmt12_es_en(data_root: Path) -> tuple[Path, dict[str, Path]]:
    folder = data_root / "wmt12"
    outputs = {
        name: folder / "system-outputs" / "es-en" / f"newstest2012.es-en.{name}"
        for name in (BASELINE, *OTHERS)
    }
    return folder / "plain" / "newstest2012-ref.en", outputs


@pytest.fixture(scope="module")
def mtsig_rows(wmt12_es_en) -> pd.DataFrame:
    """``mtsig compare --tsv`` on the original files (HTML entities undone, as the pipeline's WMT12 experiments)."""
    reference, outputs = wmt12_es_en
    tests = [*CORRESPONDING.values(), "bootstrap_two_sided", "approximate_randomization"]
    argv = ["compare", "--ref", str(reference), "--metrics", ",".join(METRICS), "--tests", ",".join(tests)]
    argv += ["--samples", str(SAMPLES_MTSIG), "--unescape-html", "--tsv", *map(str, outputs.values())]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert cli.main(argv) == 0
    table = pd.read_csv(io.StringIO(printed.getvalue()), sep="\t")
    names = {path.name: name for name, path in outputs.items()}
    return table.assign(sys_x=table["sys_x"].map(names), sys_y=table["sys_y"].map(names))


@pytest.fixture(scope="module")
def sacrebleu_p(wmt12_es_en) -> dict[tuple[str, str, str], float]:
    """sacrebleu's PairedTest (the code behind ``--paired-ar`` / ``--paired-bs``) on the same texts, loaded with
    the project's loader as ``mtsig compare --unescape-html`` loads them. Returns {(test, metric, system): p}."""
    reference, outputs = wmt12_es_en
    refs, texts = load_texts(reference, outputs, unescape=True)
    p = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SACREBLEU_SEED", "12345")  # its default, fixed here so that the run is reproducible
        for test, metric, others in SACREBLEU_RUNS:
            named = [(name, texts[name]) for name in (BASELINE, *others)]
            samples = {"ar": SAMPLES_AR, "bs": SAMPLES_BS}[test]
            metric_class, key = METRICS[metric]
            run = PairedTest(named, {key: metric_class()}, [refs], test_type=test, n_samples=samples)
            _, results = run()
            for system, result in zip(results["System"][1:], results[key][1:], strict=True):
                p[(test, metric, system)] = result.p_value
    return p


def _mtsig_p(rows: pd.DataFrame, metric: str, test: str, system: str) -> float:
    pair = rows[(rows["metric"] == metric) & (rows["test"] == test)]
    both = pair[
        ((pair["sys_x"] == BASELINE) & (pair["sys_y"] == system))
        | ((pair["sys_x"] == system) & (pair["sys_y"] == BASELINE))
    ]
    assert len(both) == 2 and both["p_value"].nunique() == 1  # two-sided: the same p for both orders
    return float(both["p_value"].iloc[0])


@pytest.mark.parametrize(("test", "metric", "others"), SACREBLEU_RUNS)
def test_rm_rows_equal_sacrebleu_paired_tests_within_monte_carlo_error(
    mtsig_rows, sacrebleu_p, test: str, metric: str, others: tuple[str, ...]
) -> None:
    samples = {"ar": SAMPLES_AR, "bs": SAMPLES_BS}[test]
    for system in others:
        ours = _mtsig_p(mtsig_rows, metric, CORRESPONDING[test], system)
        theirs = sacrebleu_p[(test, metric, system)]
        allowed = tolerance((ours + theirs) / 2, SAMPLES_MTSIG, samples)
        assert abs(ours - theirs) <= allowed, (metric, test, system, ours, theirs, allowed)


def test_the_comparison_tells_the_conventions_apart(mtsig_rows, sacrebleu_p) -> None:
    # The tolerance is tight enough to reject a wrong correspondence on BLEU onlineE-onlineF: sacrebleu's
    # paired-bs (p about 0.056) is not the paper's two-sided shift bootstrap of Fig. 1 (about 0.12), and its
    # paired-ar (about 0.12) is not the one-sided AR of Fig. 2 (about 0.06 with the better system first).
    system = "onlineF"
    two_sided_bootstrap = _mtsig_p(mtsig_rows, "bleu", "bootstrap_two_sided", system)
    one_sided = mtsig_rows[
        (mtsig_rows["metric"] == "bleu") & (mtsig_rows["test"] == "approximate_randomization")
    ]
    one_sided = one_sided[one_sided[["sys_x", "sys_y"]].isin([BASELINE, system]).all(axis=1)]
    one_sided_ar = float(one_sided["p_value"].min())
    for test, samples, ours in (("bs", SAMPLES_BS, two_sided_bootstrap), ("ar", SAMPLES_AR, one_sided_ar)):
        theirs = sacrebleu_p[(test, "bleu", system)]
        assert abs(ours - theirs) > tolerance((ours + theirs) / 2, SAMPLES_MTSIG, samples), (
            test,
            ours,
            theirs,
        )
