"""Known truth for the chance levels on WMT23's real cells (slow suite: about 30 CPU s).

Random metrics that know nothing, drawn on WMT23 en-de's MQM-rated cells (its 12 systems, 460 rated segments, 190
documents in 4 domains) from two generating models that are not the null's own permutation: a N(0, 2.9²) offset per
system plus N(0, 2²) noise per cell (the spread of Random-sysname's system means and of its scores around them), and
Random-sysname's own fitted structure (its rounded system means drawn with replacement as the systems' offsets, its
deviations around them drawn with replacement: integers, with its ties). Each is tested against its own 99 draws of
the protocol's chance level (mtsig.stats.meta_evaluation.chance); at 5% the share called above chance must be at
most 5% within Monte Carlo error, and the cells permuted one by one (the former null, drawn here with numpy) must
call the random-by-system metrics above chance far more often (about 40% of them).
The per-task table for all three language pairs and five models: ``benchmarks/bench_chance_levels.py levels``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from mtsig.io.mtme import read_requested_scores, read_test_set
from mtsig.stats.meta_evaluation import chance
from mtsig.stats.meta_evaluation.grouped_correlation import CorrelationOptions, grouped_correlation
from mtsig.stats.meta_evaluation.tie_calibration import calibrate_ties
from mtsig.studies import metrics_protocol as mp

pytestmark = pytest.mark.slow

RANDOM = "Random-sysname[noref]"


@pytest.fixture(scope="module")
def en_de(data_root):
    """WMT23 en-de: MQM ``[S, N]``, documents and domains per segment, Random-sysname's scores."""
    protocol = mp.wmt23(["en-de"])
    test_sets = {"en-de": read_test_set(data_root / "wmt23", "en-de")}
    scores = read_requested_scores(test_sets, mp.required_scores(protocol, test_sets))
    task = next(t for t in protocol.tasks if t.statistic == "tie_calibrated")
    _, human, metrics = mp.task_inputs(task, "en-de", mp.ProtocolInputs(protocol, test_sets, scores))
    documents = np.asarray(test_sets["en-de"].segment_documents)
    domains = np.asarray(test_sets["en-de"].segment_domains)
    return human, documents, domains, metrics[RANDOM]


def _random_metric(model: str, shape: tuple[int, int], random_sysname: np.ndarray, rng: np.random.Generator):
    if model == "offsets":
        return rng.normal(0.0, 2.9, size=(shape[0], 1)) + rng.normal(0.0, 2.0, size=shape)
    offsets = np.round(random_sysname.mean(axis=1))
    deviations = (random_sysname - offsets[:, None]).ravel()
    return rng.choice(offsets, size=(shape[0], 1)) + rng.choice(deviations, size=shape)


@pytest.mark.parametrize("model", ["offsets", "random-sysname"])
def test_random_by_system_metrics_are_called_above_chance_five_percent_of_the_time(en_de, model):
    human, documents, domains, random_sysname = en_de
    rated = np.isfinite(human)
    rng = np.random.default_rng(54 if model == "offsets" else 55)
    n_metrics, called = 200, {"pearson": 0, "acc-t": 0, "pdp": 0, "pearson, cells": 0}
    cells = np.flatnonzero(rated)
    for _ in range(n_metrics):
        metric = _random_metric(model, human.shape, random_sysname, rng)[None]
        relabelling = chance.draw_relabellings(rng, rated, documents, 99, domains=domains)
        source = np.broadcast_to(np.arange(human.size), (99, human.size)).copy()
        source[:, cells] = rng.permuted(np.broadcast_to(cells, (99, cells.size)), axis=1)
        pearson = grouped_correlation(human, metric, CorrelationOptions("pearson"))
        tests = {
            "pearson": (pearson, chance.chance_pearson(human, metric, relabelling)),
            "acc-t": ([calibrate_ties(human, metric[0]).value], chance.chance_tie_calibrated(human, metric, relabelling)),
            "pdp": (grouped_correlation(human, metric, CorrelationOptions("pearson", "item", pdp=True)),
                    chance.chance_pdp(human, metric, "item", relabelling)),
            "pearson, cells": (pearson, chance.chance_pearson(human, metric, chance.ExplicitRelabelling(source))),
        }  # fmt: skip
        for name, (value, draws) in tests.items():
            called[name] += int(chance.chance_pvalues(np.atleast_1d(value), draws)[0] <= 0.05)
    for name in ("pearson", "acc-t", "pdp"):
        assert stats.binomtest(called[name], n_metrics, 0.05, alternative="greater").pvalue > 0.001, called
    assert called["pearson, cells"] > 0.25 * n_metrics, called
