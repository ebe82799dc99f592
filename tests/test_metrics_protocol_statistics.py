"""mt-metrics-eval's other statistics as metrics-task tasks (mtsig.studies.metrics_protocol: Task, run_task), on WMT23
en-de's MQM and three metrics: each task's values are its statistic on the task's systems and items (the library
functions, themselves checked against mt-metrics-eval in tests/test_mtme_peer_stats.py), the items of a sampled task
are mt-metrics-eval's sample (numpy.random.default_rng(seed).choice, the documents of documents/en-de.docs as the
strata), every permutation test runs and agrees with its source fed the same draws, and a statistic added as one
registry entry runs as they do."""

from __future__ import annotations

import numpy as np
import pytest

from mtsig.errors import InputError
from mtsig.io.mtme import read_requested_scores, read_test_set
from mtsig.stats.meta_evaluation.grouped_correlation import CorrelationOptions, grouped_correlation
from mtsig.stats.meta_evaluation.item_sampling import item_sample
from mtsig.stats.meta_evaluation.score_permutation import ScoreSwaps
from mtsig.stats.meta_evaluation.tie_calibration import calibrate_ties
from mtsig.studies import metrics_protocol as mp

#: Three metrics of WMT23 en-de (a reference-based, a reference-free one and BLEU) keep the tests cheap.
THREE = frozenset({"BLEU", "COMET", "CometKiwi"})
INFO = mp.TestSetInfo(
    std_ref=mp.WMT23_INFO.std_ref,
    std_gold=mp.WMT23_INFO.std_gold,
    outliers=mp.WMT23_INFO.outliers,
    primary=THREE,
    baselines=THREE,
)
TASKS = (
    mp.Task("pdp", ("en-de",), "seg", False, grouping="item"),
    mp.Task("pdp", ("en-de",), "seg", False, grouping="sys"),
    mp.Task(
        "kendall", ("en-de",), "seg", False, grouping="item", variant="b", epsilon=0.5, perm_test="pairs"
    ),
    mp.Task("kendall_like", ("en-de",), "seg", False, grouping="item", average="micro", threshold=5),
    mp.Task("spearman", ("en-de",), "seg", False, grouping="sys"),
    mp.Task("pearson", ("en-de",), "seg", False, grouping="item", sample_size=100, sample_seed=3),
    mp.Task("pearson", ("en-de",), "seg", False, grouping="item", sample_size=100, sample_method="stratify"),
    mp.Task("tie_calibrated", ("en-de",), "seg", False, grouping="item", variant="acc23", perm_test="scores"),
)
PROTOCOL = mp.Protocol("three", INFO, TASKS)


@pytest.fixture(scope="module")
def inputs(data_root):
    test_sets = {"en-de": read_test_set(data_root / "wmt23", "en-de")}
    return test_sets, read_requested_scores(test_sets, mp.required_scores(PROTOCOL, test_sets))


def _matrices(task, inputs, sample=True):
    test_sets, scores = inputs
    plain = task if sample else mp.Task(task.statistic, task.lps, task.level, task.include_human)
    systems, human, metrics = mp.task_inputs(plain, "en-de", mp.ProtocolInputs(PROTOCOL, *inputs))
    return systems, human, metrics


def test_values_are_the_statistics_of_the_tasks_inputs(inputs):
    for task in TASKS[:5]:
        result = mp.run_task(task, PROTOCOL, *inputs)
        _, human, metrics = _matrices(task, inputs)
        assert result.metrics == ("BLEU", "COMET", "CometKiwi[noref]")
        stacked = np.stack([metrics[m] for m in result.metrics])
        kind = "pearson" if task.statistic == "pdp" else task.statistic
        expected = grouped_correlation(
            human, stacked, CorrelationOptions(kind, task.grouping, kendall_variant=task.variant or "b", epsilon=task.epsilon,
            average=task.average, threshold=task.threshold, pdp=task.statistic == "pdp"),
        )  # fmt: skip
        np.testing.assert_array_equal(result.values, expected)
    assert (
        TASKS[0].label == "en-de seg PDP (item)"
        and TASKS[3].label == "en-de seg kendall-like 5 (item, micro)"
    )


def test_sampled_items_are_mt_metrics_evals_sample(inputs):
    """Uniform: default_rng(3).choice(557, 100, replace=False); stratified: the documents as strata, in test-set
    order, each getting its share of the 100 items."""
    test_sets, _ = inputs
    _, full, _ = _matrices(TASKS[5], inputs, sample=False)
    _, sampled, metrics = _matrices(TASKS[5], inputs)
    items = np.random.default_rng(3).choice(test_sets["en-de"].n_segments, 100, replace=False)
    np.testing.assert_array_equal(sampled, full[:, items])
    documents = test_sets["en-de"].segment_documents
    sizes = mp.document_sizes(test_sets["en-de"])
    assert sum(sizes) == len(documents) == test_sets["en-de"].n_segments
    assert len(sizes) == len(dict.fromkeys(documents))  # every document one run of segments
    stratified = mp.sampled_items(TASKS[6], test_sets["en-de"])
    assert list(stratified) == list(
        item_sample(len(documents), 100, "stratify", sizes, rng=np.random.default_rng(0))
    )
    starts = np.cumsum([0, *sizes])
    per_document = np.histogram(stratified, bins=starts)[0]
    assert (np.abs(per_document - np.array(sizes) * 100 / len(documents)) < 1).all()


def test_every_permutation_test_runs_and_clusters(inputs):
    for task in TASKS[:5]:  # the re-calibrated test: below
        result = mp.run_task(
            task, PROTOCOL, *inputs, mp.RunOptions(n_resamples=10, seed=1, early_stopping="none")
        )
        assert result.test is not None and (result.test.n_used == 10).all()
        assert ((0 <= result.test.pvalue) & (result.test.pvalue <= 1)).all()
        assert result.ranks.min() == 1 and sorted(result.ranks)[-1] <= 3
        np.testing.assert_allclose(
            result.test.delta, result.values[result.test.a] - result.values[result.test.b], rtol=0, atol=1e-9
        )


def test_recalibrated_test_keeps_each_metrics_own_value(inputs):
    """perm_test='scores' re-calibrates epsilon on every hybrid; without a swap (the observed difference) the values
    are each metric's calibrated acc-t."""
    task = TASKS[7]
    result = mp.run_task(task, PROTOCOL, *inputs, mp.RunOptions(n_resamples=10, seed=2))
    _, human, metrics = _matrices(task, inputs)
    own = [calibrate_ties(human, metrics[m]).value for m in result.metrics]
    np.testing.assert_allclose(result.values, own, rtol=0, atol=1e-15)
    np.testing.assert_allclose(
        result.test.delta, np.subtract(*np.array(own)[[result.test.a, result.test.b]]), rtol=0, atol=1e-12
    )


def test_bad_tasks_are_input_errors():
    with pytest.raises(InputError, match="swapping pairs"):
        mp.Task("spearman", ("en-de",), "seg", False, perm_test="pairs")
    with pytest.raises(InputError, match="bad average"):
        mp.Task("pearson", ("en-de",), "seg", False, average="weighted")
    with pytest.raises(InputError, match="epsilon and sample size"):
        mp.Task("kendall", ("en-de",), "seg", False, variant="b", epsilon=-1)


def _cell_pearson(human: np.ndarray, metrics: np.ndarray) -> np.ndarray:
    """Pearson's r of each metric ``[..., S, N]`` with the gold over the gold's rated cells, by its textbook
    formula (the oracle of the statistic below)."""
    rated = np.isfinite(human)
    h = human[rated] - human[rated].mean()
    m = metrics[..., rated]
    m = m - m.mean(axis=-1, keepdims=True)
    return (m @ h) / np.sqrt((m**2).sum(axis=-1) * (h**2).sum())


def test_a_new_statistic_is_one_registry_entry(inputs, monkeypatch):
    """A statistic added as one entry of mp.STATISTICS (here Pearson over the rated cells, written out by hand, its
    test swapping scores) is a task's statistic with nothing else changed: the task takes it and refuses what its
    checks refuse, names and ranges it by the entry, and run_task computes its values and tests it through the
    entry; the values are numpy's corrcoef over the rated cells."""

    def values(task, data, options):
        human, metrics = data.one_lp
        return mp.TaskValues(_cell_pearson(human, metrics))

    def swaps(task, data, computed):
        human, metrics = data.one_lp
        return ScoreSwaps(human, metrics, lambda x: _cell_pearson(human, x))

    def check(task):
        if task.grouping != "none":
            raise InputError("cell Pearson takes no grouping")

    entry = mp.StatisticSpec(
        values, swaps, lambda task: (-1.0, 1.0), lambda task: "cell-r", "Pearson over cells", check=check
    )
    monkeypatch.setitem(mp.STATISTICS, "cell_pearson", entry)
    with pytest.raises(InputError, match="takes no grouping"):
        mp.Task("cell_pearson", ("en-de",), "seg", False, grouping="item")
    task = mp.Task("cell_pearson", ("en-de",), "seg", False)
    assert task.label == "en-de seg cell-r" and task.value_range == (-1.0, 1.0)
    protocol = mp.Protocol("cells", INFO, (task,))
    result = mp.run_task(
        task, protocol, *inputs, mp.RunOptions(n_resamples=20, seed=4, early_stopping="none")
    )
    _, human, metrics = _matrices(task, inputs)
    rated = np.isfinite(human)
    expected = [np.corrcoef(human[rated], metrics[name][rated])[0, 1] for name in result.metrics]
    np.testing.assert_allclose(result.values, expected, rtol=0, atol=1e-12)
    assert result.test is not None and (result.test.n_used == 20).all()
    np.testing.assert_allclose(
        result.test.delta, result.values[result.test.a] - result.values[result.test.b], rtol=0, atol=1e-9
    )
