"""``mtsig metrics --mtme DIR --rank-sets``: which metrics could be first on the protocol's average and each task
(mtsig.cli._rank_sets, mtsig.studies.metrics_protocol.rank_sets), and its bad input.

Oracles: the protocol's own table (the estimates are its averages and task values, printed by the same command
without rank sets), known truth on WMT23's en-de MQM (XCOMET-Ensemble leads the segment-level Pearson by far: every
re-drawn test set of the stability study keeps it as winner), the definition of the τ-best set (the metric with the
best estimate is always in it; with τ = the number of metrics every metric is), and the command's documented errors.
"""

from __future__ import annotations

import json

import pytest
from cli_runner import run_mtsig

#: One language pair, no permutation tests and no chance levels: the run reads and ranks only.
QUICK = ("--lps", "en-de", "--samples", "0", "--chance-draws", "0")


@pytest.fixture(scope="module")
def output(data_root):
    done = run_mtsig(
        "metrics", "--mtme", data_root / "wmt23", *QUICK, "--rank-sets", "--draws", "300", "--seed", "3", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_json_ranks_the_protocols_own_average_and_task_values(output):
    """``rank_sets`` holds the average's sets (its metrics and averages are the table's, best first) and each
    task's; the best estimate of every scope is in its top set; settings and signature say how it was drawn."""
    sets = output["rank_sets"]
    assert sets["protocol"] == "wmt23"
    average = sets["average"]
    table = dict(zip(output["average"]["metrics"], output["average"]["values"], strict=True))
    assert [m["metric"] for m in average["metrics"]] == output["average"]["metrics"]
    assert all(abs(m["estimate"] - table[m["metric"]]) < 1e-12 for m in average["metrics"])
    assert (
        average["draws"] == 300 and average["bootstrap"] == "systems+items" and average["units"] == 12 + 460
    )
    assert [t["scope"] for t in sets["tasks"]] == [t["label"] for t in output["tasks"]]
    for scope in [average, *sets["tasks"]]:
        assert scope["metrics"][0]["top"] and scope["top_set"][0] == scope["metrics"][0]["metric"]
        assert "human:da-sqm" not in {m["metric"] for m in scope["metrics"]}
        for entry in scope["metrics"]:
            low, high = entry["simultaneous"]
            assert low <= entry["rank"] <= high
    seg = next(t for t in sets["tasks"] if t["scope"] == "en-de seg pearson")
    assert seg["top_set"] == ["XCOMET-Ensemble"]
    assert "|ranksets:simultaneous|" in sets["signature"] and "|draws:300|seed:3|" in sets["signature"]


def test_text_and_latex_show_who_could_be_first(data_root):
    """Text: the average's rows, who could be first, each task's line and the signature; ``--top`` with as many
    metrics as the average has puts every one of them in the set; LaTeX: the booktabs table of the average."""
    done = run_mtsig(
        "metrics", "--mtme", data_root / "wmt23", *QUICK, "--rank-sets", "--draws", "100", "--marginal",
        "--top", "32",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    text = done.stdout[done.stdout.index("Which metrics could be first (wmt23)") :]
    assert "marginal rank sets at 95%" in text
    assert "could be among the 32 best (the tau-best set, tau = 32, 95%): 32 of 32" in text
    assert "  en-de seg pearson: could be among the 32 best" in text
    assert text.rstrip().splitlines()[-1].startswith("signature: mtsig:")
    latex = run_mtsig(
        "metrics", "--mtme", data_root / "wmt23", *QUICK, "--rank-sets", "--draws", "100", "--latex"
    )
    assert latex.returncode == 0, latex.stderr
    assert "tab:mtsig-metric-rank-sets" in latex.stdout and "$^\\star$" in latex.stdout


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--top", "33"), "--top 33: the average ranks only 32 metrics"),
        (("--draws", "1"), "rank sets from 1 draws: the bootstrap needs at least 2 (--draws"),
        (("--coverage", "95"), "strictly between 0 and 1"),
    ],
)
def test_bad_rank_set_options_are_one_line(data_root, extra, message):
    done = run_mtsig("metrics", "--mtme", data_root / "wmt23", *QUICK, "--rank-sets", *extra)
    assert done.returncode == 2 and message in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_rank_set_options_need_rank_sets_and_a_protocol(data_root):
    without = run_mtsig("metrics", "--mtme", data_root / "wmt23", *QUICK, "--top", "2")
    assert (
        without.returncode == 2
        and "--top is an option of the rank sets: ask for them with --rank-sets" in (without.stderr)
    )
    files = run_mtsig("metrics", "human.csv", "m1.seg.score", "m2.seg.score", "--rank-sets")
    assert (
        files.returncode == 2 and "--rank-sets ranks the metrics of a metrics task's protocol" in files.stderr
    )
