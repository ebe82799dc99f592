"""The rule metrics_protocol's step on the real WMT23 MQM folder (mtsig.steps.metrics_protocol), the files it lists
for Snakemake, and what it hands to the replicability and delta-agreement studies.

Oracles: mt-metrics-eval's task values and averages (the constants of tests/test_metrics_protocol.py, produced by
its ``tasks.WMT23(k=0)`` at commit 68a481a); ``mtsig metrics --mtme`` run with the command the table prints; pce.py's
formulation of the paired permutation p-values (``t @ d`` against the observed sum, sign vectors ``t = ±1``) for
the MQM gold; the organisers' MQM system-score file; and the files' own manifests.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_runner import run_mtsig
from PIL import Image
from snakemake_runner import run_snakemake
from test_metrics_protocol import WMT23_AVERAGE, WMT23_TASKS

from mtsig.io.mtme import layout_files, layout_from_names, read_human_scores, read_test_set
from mtsig.io.system_scores import read_mtme_sys_scores
from mtsig.stats.meta_evaluation.soft_pairwise_accuracy import pce_flips
from mtsig.steps.files import read_intermediate_tsv, verify_intermediate
from mtsig.studies.metrics_protocol import MetricSelection, beyond
from mtsig.studies.metrics_protocol import experiment as experiments

#: The step's run (a module fixture) is made once, on one worker.
pytestmark = pytest.mark.xdist_group("metrics_protocol_step")

#: One language pair keeps the test fast (a third of the files, 4 tasks); the three are tested in
#: tests/test_metrics_protocol.py (the library) and listed below (the input function).
LPS = ["en-de"]
ALL_LPS = ["en-de", "he-en", "zh-en"]
SPEC = {
    "description": "WMT23 metrics task on expert MQM",
    "root": "wmt23",
    "lps": LPS,
    "protocols": {"wmt23": {"samples": 100}},
    "early_stopping": "mtme",
    "spa_arithmetic": "exact",
    "alpha": 0.05,
    "all_metrics": False,
    "bootstrap": {"samples": 100, "confidence": 0.95},
    "replicability_tasks": ["sys pearson", "seg acc-t (item)"],
    "delta_metrics": ["BLEU", "COMET"],
    "gold": None,
    "human_metrics": ["da-sqm"],
    "chance": {"samples": 100},
    "power": {
        "samples": 20,
        "stability_samples": 50,
        "target": 0.8,
        "pairs": [["XCOMET-Ensemble", "MetricX-23"]],
    },
    "rank_sets": {"samples": 200, "coverage": 0.95},
}
TABLES = (
    "tasks",
    "average",
    "significance",
    "replication",
    "system_scores",
    "mqm_gold",
    "mqm_gold_conclusions",
    "chance",
    "human",
    "power",
    "power_curves",
    "stability",
    "rank_sets",
)


@pytest.fixture(scope="module")
def run(data_root, tmp_path_factory):
    """One run of the step (WMT23 protocol on en-de, 100 resamples) into a temporary results folder."""
    from mtsig.steps.metrics_protocol import metrics_protocol

    out = tmp_path_factory.mktemp("results")
    scores = [data_root / "wmt23" / f for lp in LPS for f in layout_files(data_root / "wmt23", lp)]
    metrics_protocol(
        "wmt23", SPEC, data_root, 20140626, [0.05, 0.01],
        scores=[str(p) for p in scores],
        **{name: str(out / "wmt23" / f"{name}.tsv") for name in TABLES},
        md=str(out / "tables" / "wmt23.md"), html=str(out / "tables" / "wmt23.html"),
        tex=str(out / "tables" / "wmt23.tex"), figures=str(out / "figures" / "wmt23"),
    )  # fmt: skip
    return out


def _table(run: Path, name: str) -> pd.DataFrame:
    return read_intermediate_tsv(run / "wmt23" / f"{name}.tsv", "metrics_protocol")


def test_task_values_equal_mt_metrics_eval(run):
    """en-de's system-level Pearson, segment-level Pearson and acc-t (columns 2-4 of WMT23_TASKS); the pooled
    accuracy of en-de alone is no task of mt-metrics-eval's table."""
    tasks = _table(run, "tasks")
    labels = ["en-de sys pearson", "en-de seg pearson", "en-de seg acc-t (item)"]
    assert list(dict.fromkeys(tasks["label"])) == ["accuracy", *labels, "en-de seg PDP (item)"]  # PDP: extra
    assert set(tasks["metric"]) == set(WMT23_AVERAGE) | {"human:da-sqm"}  # DA+SQM rates every en-de MQM cell
    for metric, values in WMT23_TASKS.items():
        rows = tasks[tasks["metric"] == metric].set_index("label").loc[labels]
        np.testing.assert_allclose(rows["value"], values[1:4], rtol=0, atol=1e-9)
    # every value with an interval of its scheme; the value inside its own interval for nearly every metric
    assert set(tasks["scheme"]) == {"systems", "items"}
    assert (tasks["ci_low"] <= tasks["ci_high"]).all()
    inside = (tasks["ci_low"] <= tasks["value"]) & (tasks["value"] <= tasks["ci_high"])
    assert inside.mean() > 0.95


def test_the_printed_command_reproduces_the_table(run, data_root):
    """``mtsig metrics --mtme`` with the command the Markdown table prints: the same averages, clusters and task
    p-values, from the data folder (the command runs the library's run_protocol, which tests/test_metrics_protocol.py
    checks against mt-metrics-eval's averages)."""
    text = (run / "tables" / "wmt23.md").read_text(encoding="utf-8")
    (command,) = re.findall(r"The same table from the data folder: `(mtsig metrics [^`]+)`", text)
    words = shlex.split(command.replace("$MTSIG_DATA", str(data_root)))[1:]
    done = run_mtsig(*words, "--json")
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    average = _table(run, "average")
    assert printed["average"]["metrics"] == list(average["metric"])
    assert printed["average"]["values"] == list(average["average"])
    assert printed["average"]["ranks"] == list(average["rank"])
    significance = _table(run, "significance")
    for number, task in enumerate(printed["tasks"], start=1):
        names, matrix = task["metrics"], np.array(task["significance"])
        rows = significance[significance["task"] == number]
        i, j = np.triu_indices(len(names), k=1)
        assert list(rows["metric_a"]) == [names[a] for a in i]
        np.testing.assert_array_equal(rows["p_value"], matrix[i, j])


def test_files_are_written_with_manifests_and_figures_decode(run):
    for name in TABLES:
        verify_intermediate(run / "wmt23" / f"{name}.tsv", "metrics_protocol")
    verify_intermediate(run / "tables" / "wmt23.md", "metrics_protocol")
    assert not list(run.rglob("*.tmp"))
    assert "<table" in (run / "tables" / "wmt23.html").read_text(encoding="utf-8")
    assert "\\begin{tabular}" in (run / "tables" / "wmt23.tex").read_text(encoding="utf-8")
    with Image.open(run / "figures" / "wmt23" / "rank_sets.png") as image:  # a panel of 32 metrics
        image.load()
        assert image.height > 500
    pngs = sorted((run / "figures" / "wmt23").glob("wmt23_*.png"))
    assert len(pngs) == 5  # the 4 tasks and the average
    for png in pngs:
        with Image.open(png) as image:
            image.load()
            assert image.width > 800 and image.height > 800
    with Image.open(run / "figures" / "wmt23" / "power_wmt23.png") as image:  # a row per task
        image.load()
        assert image.width > 500 and image.height > 250


def test_chance_human_power_and_stability_tables(run):
    """The studies' tables hold the run's own results: a chance level per task (the extra PDP task's too) and for
    the average, every metric's p-value against it (never 0, at least 1/101 with 100 draws); DA+SQM in every en-de
    task (no partial rows); each metric against the next and the named pair in every task, with power in [0, 1] at
    every size and the units of the task (460 rated segments, 12 systems); one stability row per task whose winner
    heads its ranking."""
    chance = _table(run, "chance")
    assert chance["task"].tolist() == ["accuracy", "en-de sys pearson", "en-de seg pearson", "en-de seg acc-t (item)",
                                       "en-de seg PDP (item)", "average"]  # fmt: skip
    assert (chance["upper_95"] >= chance["mean"]).all() and (chance["samples"] == 100).all()
    tasks = _table(run, "tasks")
    chance_p = tasks["chance_p"]  # the extra PDP column's too
    assert (chance_p >= 1 / 101).all() and (chance_p <= 1).all()
    for label in ("en-de seg acc-t (item)", "en-de seg PDP (item)"):
        values = tasks[tasks["label"] == label].set_index("metric")
        assert values.loc["XCOMET-Ensemble", "chance_p"] == 1 / 101  # far above every permuted draw
    assert len(_table(run, "human")) == 0
    power = _table(run, "power")
    for label, rows in power.groupby("task"):
        assert (rows["chosen"] == "next").sum() + (rows["chosen"] == "named").sum() >= 31, label
        assert ((rows["metric_a"] == "XCOMET-Ensemble") & (rows["metric_b"] == "MetricX-23")).sum() == 1, (
            label
        )
    assert set(power.loc[power["task"] == "en-de seg pearson", "units"]) == {460}
    assert set(power.loc[power["task"] == "en-de sys pearson", "units"]) == {12}
    curves = _table(run, "power_curves")
    assert curves["power"].between(0, 1).all() and len(curves) == 14 * len(power)
    stability = _table(run, "stability")
    assert len(stability) == 5 and stability["p_winner"].between(0, 1).all()
    for row in stability.itertuples():
        if row.task == "average":  # the table's ranking, over every item and system the tasks draw
            assert row.winner == _table(run, "average")["metric"].iloc[0] and row.units == 12 + 460
            continue
        first = tasks[(tasks["label"] == row.task) & (tasks["metric"] != "human:da-sqm")].iloc[0]
        assert first["metric"] == row.winner


def test_rank_sets_rank_the_tables_own_values(run):
    """``rank_sets.tsv``: the average's metrics with the averages of ``average.tsv``, then each task's metrics
    (DA+SQM left out) with their values of ``tasks.tsv``, ranked by them; the top metric of each scope is in its
    top set. On en-de's segment-level Pearson, XCOMET-Ensemble, which every re-drawn test set of the stability
    study keeps as winner, is alone in the set; the page's section counts the average's set."""
    sets = _table(run, "rank_sets")
    assert list(dict.fromkeys(sets["scope"])) == ["average", "accuracy", "en-de sys pearson", "en-de seg pearson",
                                                  "en-de seg acc-t (item)"]  # fmt: skip
    average = _table(run, "average").set_index("metric")["average"]
    rows = sets[sets["scope"] == "average"].set_index("metric")
    assert list(rows.index) == list(average.index)
    np.testing.assert_allclose(rows["estimate"], average[rows.index], rtol=0, atol=1e-12)
    assert (rows["units"] == 12 + 460).all() and (rows["draws"] == 200).all()
    tasks = _table(run, "tasks")
    for label, group in sets[sets["scope"] != "average"].groupby("scope", sort=False):
        values = tasks[(tasks["label"] == label) & (tasks["metric"] != "human:da-sqm")].set_index("metric")
        assert sorted(group["metric"]) == sorted(values.index), label
        np.testing.assert_allclose(
            group["estimate"], values.loc[group["metric"], "value"], rtol=0, atol=1e-12
        )
    for _, group in sets.groupby("scope", sort=False):
        assert group["could_be_first"].iloc[0] and (group["estimate"].diff().dropna() <= 0).all()
        assert (group["simultaneous_lower"] <= group["rank"]).all()
        assert (group["rank"] <= group["simultaneous_upper"]).all()
    seg = sets[sets["scope"] == "en-de seg pearson"]
    assert seg.loc[seg["could_be_first"], "metric"].tolist() == ["XCOMET-Ensemble"]
    page = (run / "tables" / "wmt23.md").read_text(encoding="utf-8")
    section = page[page.index("## Which metrics could be first?") :]
    count = int(rows["could_be_first"].sum())
    assert f"| wmt23 | average | 32 | {count} |" in section


def test_replication_pvalues_hold_both_directions_of_the_protocols_tests(run):
    """The higher-ranked metric's count over its resamples is the protocol's p-value (significance.tsv); the
    other direction counts the resamples at or below the observed difference, so the two counts add up to at
    least the resamples used."""
    replication = _table(run, "replication")
    assert set(replication["kind"]) == {"sys pearson", "seg acc-t (item)"}
    assert set(replication["lp"]) == {"en-de"}
    np.testing.assert_array_equal(
        replication["p_value"], (replication["count"] + 1) / (replication["n_used"] + 1)
    )
    tasks = _table(run, "tasks")
    numbers = dict(zip(tasks["label"], tasks["task"], strict=False))
    significance = _table(run, "significance")
    merged = replication.assign(number=replication["task"].map(numbers)).merge(
        significance, left_on=["number", "metric_a", "metric_b"], right_on=["task", "metric_a", "metric_b"]
    )
    assert len(merged) == len(replication) // 2  # one direction is the protocol's
    np.testing.assert_allclose(merged["count"] / merged["n_used"], merged["p_value_y"], rtol=0, atol=1e-15)
    both = replication.merge(
        replication, left_on=["task", "metric_a", "metric_b"], right_on=["task", "metric_b", "metric_a"]
    )
    assert (both["count_x"] + both["count_y"] >= both["n_used_x"]).all()


def test_mqm_gold_is_pces_paired_permutation_test_and_system_scores_the_organisers(run, data_root):
    gold = _table(run, "mqm_gold")
    scores = _table(run, "system_scores")
    test_set = read_test_set(data_root / "wmt23", "en-de")
    segments = read_human_scores(test_set, "mqm", "seg")
    systems = sorted(set(scores.loc[scores["lp"] == "en-de", "system"]))
    assert "refA" not in systems and "synthetic_ref" not in systems and len(systems) == 12
    human = segments.rows(systems)
    rated = np.isfinite(human).all(axis=0)
    signs = np.where(pce_flips(int(rated.sum())), -1.0, 1.0)
    x = human[:, rated].astype(np.float32).astype(np.float64)
    en_de = gold[gold["lp"] == "en-de"].set_index(["sys_x", "sys_y"])["p_value"]
    for a, b in [(0, 1), (1, 0), (3, 7), (11, 2)]:
        d = x[a] - x[b]
        assert en_de[(systems[a], systems[b])] == np.mean(signs @ d >= d.sum())
    conclusions = _table(run, "mqm_gold_conclusions")
    at = conclusions[(conclusions["lp"] == "en-de") & (conclusions["alpha"] == 0.05)]
    assert len(at) == 66 and set(at["conclusion"]) <= {"sys_x", "sys_y", "tie"}
    organisers = read_mtme_sys_scores(data_root / "wmt23" / "human-scores" / "en-de.mqm.sys.score")
    organisers = organisers.set_index("system")["score"]
    mine = scores[(scores["lp"] == "en-de") & (scores["source"] == beyond.HUMAN_SOURCE)].set_index("system")
    np.testing.assert_array_equal(mine["score"].loc[systems], organisers.loc[systems])


def test_listed_files_are_what_the_step_reads(data_root):
    """The input function lists files from their names alone (the download root may not have them yet): the
    same files as from the test sets read from disk, and every one exists."""
    root = data_root / "wmt23"
    protocols = experiments.experiment_protocols(["wmt23", "wmt24"], ALL_LPS)
    named = {lp: layout_from_names(root, lp, layout_files(root, lp)) for lp in ALL_LPS}
    read = {lp: read_test_set(root, lp) for lp in ALL_LPS}
    listed = experiments.experiment_files(named, experiments.experiment_score_keys(protocols, named))
    assert listed == experiments.experiment_files(read, experiments.experiment_score_keys(protocols, read))
    assert all(path.is_file() for path in listed)
    assert len([p for p in listed if "metric-scores" in p.parts]) == 3 * 32 * 2
    assert sum(len(layout_files(root, lp)) for lp in ALL_LPS) > len(listed)


def test_the_default_run_plans_the_protocol_and_hands_it_to_the_studies(data_root, repo_root, tmp_path):
    """``snakemake -n`` of the default run: one metrics_protocol job reading exactly the files the step reads
    (the three language pairs' sources, references, outputs, documents and 198 score files), whose replication
    p-values the replicability job reads and whose MQM gold and system scores the delta-agreement job reads."""
    # a dry run: in this process (tests/snakemake_runner.py)
    result = run_snakemake(
        ["-n", "--cores", "2", "--directory", str(tmp_path)],
        repo_root,
        {**os.environ, "MTSIG_DATA": str(data_root)},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    counts = dict(re.findall(r"^(\w+)\s+(\d+)$", result.stdout, flags=re.M))
    assert counts["metrics_protocol"] == "1"
    jobs = {
        block.split(":", 1)[0].strip(): block
        for block in re.split(r"^(?:local)?rule ", result.stdout, flags=re.M)
    }
    (inputs,) = re.findall(r"^    input: (.+)$", jobs["metrics_protocol"], flags=re.M)
    listed = sorted(Path(p) for p in inputs.split(", "))
    root = data_root / "wmt23"
    protocols = experiments.experiment_protocols(["wmt23", "wmt24"], ALL_LPS)
    read = {lp: read_test_set(root, lp) for lp in ALL_LPS}
    keys = experiments.experiment_score_keys(protocols, read, MetricSelection(human_metrics=("da-sqm",)))
    expected = experiments.experiment_files(read, keys)
    assert listed == expected
    # sys and seg: 32 metrics and MQM per language pair; DA+SQM as a metric in en-de and zh-en
    assert len([p for p in listed if p.suffix == ".score"]) == 3 * (32 * 2 + 2) + 2 * 2
    assert "results/wmt23/replication.tsv" in jobs["replicability"]
    assert "results/replicability/protocol_metrics.tsv" in jobs["replicability"]
    assert "results/wmt23/mqm_gold_conclusions.tsv" in jobs["delta_agreement"]
    assert "results/tables/wmt23.md" in jobs["tables_index"]
