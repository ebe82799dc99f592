"""``mtsig metrics --mtme`` prints and returns each task's chance level and each metric's p-value of being above it
(mtsig.cli.metrics, mtsig.studies.metrics_protocol.chance).

Oracles: known truth on WMT23's en-de MQM: XCOMET-Ensemble (the task's best metric) lies above every draw of its own
(p = 1 / (1 + B)), Random-sysname (a random quality per system and random scores around it: a metric that knows
nothing, Freitag et al. 2023, Sec. 4) is not above chance in any task; the table's text is checked against chance
levels made by hand.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
from cli_runner import run_mtsig

from mtsig.report.metrics_protocol import chance_text
from mtsig.studies.metrics_protocol.chance import ChanceLevel, ProtocolChance

RANDOM = "Random-sysname[noref]"


def test_json_carries_every_tasks_chance_level_and_p_values(data_root):
    """Every task, extra task and the average carry ``chance_p`` beside ``values`` (None where a task has no chance
    level: tie calibration on a sample of pairs) and the chance mean and 95th percentile."""
    done = run_mtsig(
        "metrics", "--mtme", data_root / "wmt23", "--lps", "en-de", "--samples", "0", "--chance-draws", "100",
        "--extra-task", "tie_calibrated:sample_rate=0.1", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["chance_draws"] == 100
    blocks = [*result["tasks"], result["extras"][0], result["average"]]
    for block in blocks:
        p = dict(zip(block["metrics"], block["chance_p"], strict=True))
        assert all(1 / 101 <= value <= 1 for value in p.values())
        assert p["XCOMET-Ensemble"] == 1 / 101  # above every draw of its own
        assert p[RANDOM] > 0.05, block.get("label")  # a metric that knows nothing
        assert block["chance"]["mean"] < block["chance"]["upper_95"]
    sampled = result["extras"][1]
    assert sampled["label"] == "en-de seg acc-t (item, sample rate 0.1)"
    assert sampled["chance_p"] is None and sampled["chance"] is None


def _level(label: str, pvalues: dict[str, float], mean: float = 0.1, upper: float = 0.2) -> ChanceLevel:
    return ChanceLevel(label, np.zeros((len(pvalues), 1)), tuple(pvalues), mean, upper, pvalues)


def test_text_prints_the_chance_row_and_every_metrics_p_value():
    """Below the table: the row ``chance`` with each column's mean [95th percentile] (``-`` for an extra task
    without a level), then each metric's p-value per column, ``°`` where it is above 0.05; a human score entered as
    a metric has ``-`` where it has no p-value (the average)."""
    task = SimpleNamespace(task=SimpleNamespace(label="t1"), human=frozenset({"human:x"}))
    extra = SimpleNamespace(task=SimpleNamespace(label="sampled"), human=frozenset())
    result = SimpleNamespace(metrics=("A", "B"), tasks=(task,), extras=(extra,))
    chance = ProtocolChance(
        (_level("t1", {"A": 0.001, "B": 0.4, "human:x": 0.002}, 0.25, 0.5),),
        _level("average", {"A": 0.01, "B": 0.06}, 0.3, 0.6),
        1000,
    )
    lines = chance_text(result, chance).splitlines()
    assert "1000 draws per metric" in lines[1]
    rows = {line.split()[0]: line.split()[1:] for line in lines[3:] if line}
    assert lines[2].split() == ["metric", "avg", "task1", "x1"]
    assert rows["chance"] == ["0.300", "[0.600]", "0.250", "[0.500]", "-"]
    assert rows["A"] == ["0.010", "0.001", "-"]
    assert rows["B"] == ["0.060°", "0.400°", "-"]
    assert rows["human:x"] == ["-", "0.002", "-"]
