"""What ``mtsig compare`` reports beyond p-values: intervals, corrected conclusions, clusters, LaTeX, signatures,
several references.

Oracles: sacrebleu's own command line with two reference files (multi-reference scores), statsmodels'
``multipletests`` (Holm, Benjamini-Hochberg) on the p-values the command prints, the definition of the WMT cluster
rule checked by hand on the printed p-values, identical system outputs (known truth: a tie), and for the signature
the settings it must record (each setting changed alone must change its field and nothing else).
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

from mtsig.cli import main
from mtsig.report.signature import parse_signature, signature

WMT12 = ("wmt12", "system-outputs", "es-en")
N_LINES = 400  # a prefix of newstest2012 keeps every command fast


def run(*args: object) -> tuple[int, str, str]:
    """``mtsig compare ...`` in-process; returns (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        status = main(["compare", *map(str, args)])
    finally:
        sys.stdout, sys.stderr = old
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def wmt12(data_root: Path, tmp_path_factory) -> dict[str, Path]:
    """The first N_LINES of the WMT12 es-en reference and of four systems (HTML entities undone), plus a copy
    of one system under another name (identical outputs)."""
    from mtsig.io.text import read_lines, unescape_html

    folder = tmp_path_factory.mktemp("wmt12")
    base = data_root.joinpath(*WMT12)
    sources = {
        "ref": data_root / "wmt12" / "plain" / "newstest2012-ref.en",
        **{
            name: base / f"newstest2012.es-en.{name}"
            for name in ("QCRI--primary", "UPC", "onlineA", "onlineB")
        },
    }
    paths = {}
    for name, source in sources.items():
        lines = [unescape_html(line) for line in read_lines(source)[:N_LINES]]
        paths[name] = folder / name
        paths[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    paths["UPC-copy"] = folder / "UPC-copy"
    paths["UPC-copy"].write_bytes(paths["UPC"].read_bytes())
    return paths


def test_two_references_equal_sacrebleu_command_line(wmt12) -> None:
    """``--ref A --ref B`` scores as ``sacrebleu A B -i hyp`` (onlineB's output stands in for a second reference)."""
    systems = [wmt12["QCRI--primary"], wmt12["UPC"]]
    status, out, err = run(
        "--ref", wmt12["ref"], "--ref", wmt12["onlineB"], "--metrics", "bleu,chrf,ter", "--samples", 50,
        "--json", *systems,
    )  # fmt: skip
    assert status == 0, err
    document = json.loads(out)
    assert document["reference"] == [str(wmt12["ref"]), str(wmt12["onlineB"])]
    metrics = ("bleu", "chrf", "ter")
    for metric in metrics:
        assert "|nrefs:2|" in document["metrics"][metric]["details"]
    for (
        path
    ) in systems:  # sacrebleu's command line, the three metrics in one run: a JSON list of their scores
        printed = subprocess.run(
            [sys.executable, "-m", "sacrebleu", str(wmt12["ref"]), str(wmt12["onlineB"]), "-i", str(path),
             "-m", *metrics, "-b", "-w", "8"],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        for metric, score in zip(metrics, json.loads(printed.stdout), strict=True):
            assert document["metrics"][metric]["scores"][path.name] == pytest.approx(score, abs=5e-8), (
                metric,
                path.name,
            )
    # One reference: nrefs:1 and a different BLEU (the second reference adds matches).
    _, single, _ = run("--ref", wmt12["ref"], "--samples", 50, "--json", *systems)
    one = json.loads(single)["metrics"]["bleu"]
    assert "|nrefs:1|" in one["details"]
    assert one["scores"]["UPC"] < document["metrics"]["bleu"]["scores"]["UPC"]


def test_a_reference_of_another_length_is_an_input_error(wmt12, tmp_path) -> None:
    short = tmp_path / "short.ref"
    short.write_text("one line\n", encoding="utf-8")
    status, out, err = run("--ref", wmt12["ref"], "--ref", short, wmt12["UPC"], wmt12["onlineA"])
    assert status == 2 and out == ""
    assert "short.ref: reference has 1 lines but the first reference" in err


def tsv(*args: object) -> pd.DataFrame:
    status, out, err = run(*args, "--tsv")
    assert status == 0, err
    return pd.read_csv(io.StringIO(out), sep="\t")


def test_tsv_intervals_contain_the_statistic_and_nest_by_level(wmt12) -> None:
    systems = [wmt12[n] for n in ("QCRI--primary", "UPC", "onlineA")]
    common = ("--ref", wmt12["ref"], "--samples", 400, "--tests", "paired_bootstrap", *systems)
    narrow, wide = tsv("--confidence", "0.8", *common), tsv("--confidence", "99", *common)
    assert set(narrow["ci_level"]) == {0.8} and set(wide["ci_level"]) == {0.99}
    for method in ("percentile", "bca"):
        low, high = narrow[f"{method}_low"], narrow[f"{method}_high"]
        assert (low <= narrow["statistic"]).all() and (narrow["statistic"] <= high).all()
        # Same draws (same seed), wider level: the interval contains the narrower one.
        assert (wide[f"{method}_low"] <= low).all() and (high <= wide[f"{method}_high"]).all()
        # The interval of (Y, X) is that of (X, Y) negated.
        flipped = narrow.set_index(["sys_y", "sys_x"])[[f"{method}_low", f"{method}_high"]]
        direct = narrow.set_index(["sys_x", "sys_y"])
        assert np.allclose(direct[f"{method}_low"], -flipped.loc[direct.index, f"{method}_high"])
        # Each system's own interval is a proper interval.
        for side in ("x", "y"):
            assert (narrow[f"{side}_{method}_low"] < narrow[f"{side}_{method}_high"]).all()


def holm_bh_family(table: pd.DataFrame) -> tuple[list[tuple[str, str]], np.ndarray]:
    """The n(n-1) ordered one-sided hypotheses of one test and their p-values."""
    rows = table[table["test"] == "paired_bootstrap"]
    return list(zip(rows["sys_x"], rows["sys_y"], strict=True)), rows["p_value"].to_numpy()


@pytest.mark.parametrize(("option", "statsmodels_method"), [("holm", "holm"), ("bh", "fdr_bh")])
def test_corrected_conclusions_equal_statsmodels(wmt12, option: str, statsmodels_method: str) -> None:
    """The conclusions printed in JSON after ``--correction`` are statsmodels' rejections over the family of the
    n(n-1) ordered one-sided p-values printed by the same command (alpha 0.01 to make the correction bite)."""
    systems = [wmt12[n] for n in ("QCRI--primary", "UPC", "onlineA", "onlineB")]
    args = ("--ref", wmt12["ref"], "--samples", 300, "--alpha", 0.01, "--correction", option, *systems)
    status, out, err = run(*args, "--json")
    assert status == 0, err
    document = json.loads(out)
    assert document["conclusions"] == {
        "test": "paired_bootstrap",
        "alpha": 0.01,
        "correction": {"holm": "holm", "bh": "benjamini_hochberg"}[option],
    }
    table = pd.DataFrame(document["results"])
    hypotheses, p = holm_bh_family(table[table["metric"] == "bleu"])
    rejected, _, _, _ = multipletests(p, alpha=0.01, method=statsmodels_method)
    expected = {pair for pair, r in zip(hypotheses, rejected, strict=True) if r}
    concluded = set()
    for row in document["metrics"]["bleu"]["conclusions"]:
        if row["conclusion"] == "sys_x":
            concluded.add((row["sys_x"], row["sys_y"]))
        elif row["conclusion"] == "sys_y":
            concluded.add((row["sys_y"], row["sys_x"]))
    assert concluded == expected
    assert (
        f"correction:{document['conclusions']['correction']}"
        in document["metrics"]["bleu"]["signatures"]["paired_bootstrap"]
    )


def test_clusters_follow_the_printed_p_values_and_identical_outputs_tie(wmt12) -> None:
    """By hand from the printed p-values: a boundary between ranks i and i+1 iff every system above is
    significantly better (p <= alpha) than every system below; UPC and its byte-identical copy share a cluster
    and a rank range (identical outputs are a tie)."""
    systems = [wmt12[n] for n in ("QCRI--primary", "UPC", "UPC-copy", "onlineA", "onlineB")]
    args = ("--ref", wmt12["ref"], "--samples", 300, "--tests", "paired_bootstrap", *systems)
    tests = tsv(*args)
    clusters = tsv(*args, "--clusters")
    assert list(clusters.columns) == [
        "metric", "system", "score", "rank_low", "rank_high", "cluster", "wins", "losses", "signature",
    ]  # fmt: skip
    p = {(x, y): v for x, y, v in tests[["sys_x", "sys_y", "p_value"]].itertuples(index=False)}
    order = list(clusters["system"])
    scores = clusters["score"].to_numpy()
    assert (np.diff(scores) <= 0).all()
    expected = [1]
    for i in range(1, len(order)):
        split = all(
            p[(a, b)] <= 0.05 and scores[order.index(a)] > scores[order.index(b)]
            for a in order[:i]
            for b in order[i:]
        )
        expected.append(expected[-1] + int(split))
    assert list(clusters["cluster"]) == expected
    copy, original = (clusters.set_index("system").loc[name] for name in ("UPC-copy", "UPC"))
    assert copy["cluster"] == original["cluster"] and copy["score"] == original["score"]
    assert (copy["rank_low"], copy["rank_high"]) == (original["rank_low"], original["rank_high"])
    assert copy["rank_low"] < copy["rank_high"]


def test_latex_table_daggers_and_intervals_match_the_json(wmt12) -> None:
    systems = [wmt12[n] for n in ("QCRI--primary", "UPC", "onlineA", "onlineB")]
    args = ("--ref", wmt12["ref"], "--samples", 300, "--metrics", "bleu,ter", *systems)
    status, latex, err = run(*args, "--latex", "--clusters")
    assert status == 0, err
    document = json.loads(run(*args, "--json")[1])
    assert latex.count(r"\begin{table}") == 3  # the scores table and one cluster table per metric
    assert latex.count("% mtsig:0.1.0|test:paired_bootstrap|") == 4
    body = latex.split(r"\midrule", 1)[1].split(r"\bottomrule", 1)[0]
    lines = {
        cells[0]: cells
        for cells in (line.removesuffix(r" \\").split(" & ") for line in body.strip().splitlines())
    }
    baseline = "QCRI-{}-primary"
    for metric, offset in (("bleu", 1), ("ter", 3)):
        conclusions = document["metrics"][metric]["conclusions"]
        significant = {
            row["sys_y"] if row["sys_x"] == "QCRI--primary" else row["sys_x"]
            for row in conclusions
            if row["conclusion"] != "tie" and "QCRI--primary" in (row["sys_x"], row["sys_y"])
        }
        results = pd.DataFrame(document["results"])
        for system in ("UPC", "onlineA", "onlineB"):
            cells = lines[system]
            assert cells[offset].endswith(r"$^\dagger$") == (system in significant), (metric, system)
            row = results[
                (results["metric"] == metric)
                & (results["sys_x"] == system)
                & (results["sys_y"] == "QCRI--primary")
            ].iloc[0]
            sign = 1 if metric == "bleu" else -1  # TER's statistic is oriented (TER_y - TER_x)
            low, high = sorted((sign * row["bca_low"], sign * row["bca_high"]))
            shown = re.findall(r"-?\d+\.\d+", cells[offset + 1])
            assert [float(v) for v in shown] == [
                round(sign * row["statistic"], 2),
                round(low, 2),
                round(high, 2),
            ]
        assert lines[baseline][offset + 1].strip() == "--"


BASE = dict(
    metric_details="BLEU|nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0",
    test="paired_bootstrap",
    n_samples=1000,
    seed=1,
    pvalue="c/B",
    confidence=0.95,
    alpha=0.05,
    correction="none",
)


@pytest.mark.parametrize(
    ("change", "field", "value"),
    [
        ({"metric_details": "chrF2|nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0"}, "metric",
         "chrF2|nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0"),
        ({"test": "approximate_randomization"}, "test", "approximate_randomization"),
        ({"test": "bootstrap_two_sided"}, "sided", "two"),
        ({"n_samples": 10_000}, "samples", "10000"),
        ({"seed": 2}, "seed", "2"),
        ({"pvalue": "(c+1)/(B+1)"}, "pvalue", "(c+1)/(B+1)"),
        ({"confidence": 0.99}, "ci", "99%"),
        ({"alpha": 0.01}, "alpha", "0.01"),
        ({"correction": "holm"}, "correction", "holm"),
        ({"version": "9.9.9"}, "mtsig", "9.9.9"),
    ],
)  # fmt: skip
def test_each_setting_changes_its_signature_field(change: dict, field: str, value: str) -> None:
    before = parse_signature(signature(**BASE))
    after = parse_signature(signature(**(BASE | change)))
    assert after[field] == value != before[field]
    changed = {key for key in before if before[key] != after.get(key)}
    if "test" in change and change["test"] == "bootstrap_two_sided":
        assert changed == {"test", "sided"}
    else:
        assert changed == {field}


def test_signature_fields_and_the_rm_convention() -> None:
    fields = parse_signature(signature(**BASE))
    assert fields == {
        "mtsig": "0.1.0", "test": "paired_bootstrap", "sided": "one", "samples": "1000", "seed": "1",
        "pvalue": "c/B", "ci": "95%", "alpha": "0.05", "correction": "none", "metric": BASE["metric_details"],
    }  # fmt: skip
    # Riezler & Maxwell's tests always use (c+1)/(B+1), whatever the configured convention.
    rm = parse_signature(signature(**(BASE | {"test": "rm_approximate_randomization"})))
    assert rm["pvalue"] == "(c+1)/(B+1)" and rm["sided"] == "two"
    # The stationary bootstrap's mean block length changes its p-values: it is in its signature.
    stationary = signature(**(BASE | {"test": "paired_bootstrap_stationary"}), mean_block_length=12.5)
    assert "|block:12.5|" in stationary


@pytest.mark.parametrize(
    ("option", "field", "value"),
    [
        (("--seed", "7"), "seed", "7"),
        (("--samples", "120"), "samples", "120"),
        (("--pvalue", "(c+1)/(B+1)"), "pvalue", "(c+1)/(B+1)"),
        (("--confidence", "0.9"), "ci", "90%"),
        (("--tests", "approximate_randomization"), "test", "approximate_randomization"),
        (("--metrics", "chrf"), "metric", None),
    ],
)
def test_cli_signature_records_each_option(
    wmt12, option: tuple[str, str], field: str, value: str | None
) -> None:
    systems = [wmt12["UPC"], wmt12["onlineA"]]
    default = tsv("--ref", wmt12["ref"], "--samples", 100, "--tests", "paired_bootstrap", *systems)
    changed = tsv("--ref", wmt12["ref"], "--samples", 100, "--tests", "paired_bootstrap", *option, *systems)
    before, after = (
        parse_signature(default["signature"].iloc[0]),
        parse_signature(changed["signature"].iloc[0]),
    )
    assert after[field] != before[field]
    if value is not None:
        assert after[field] == value
    else:
        assert after[field].startswith("chrF2|")


def test_training_runs_outputs_carry_the_signatures_of_both_tests(wmt12) -> None:
    groups = [
        "--runs",
        f"A={wmt12['QCRI--primary']},{wmt12['UPC']}",
        "--runs",
        f"B={wmt12['onlineA']},{wmt12['onlineB']}",
    ]
    tables = {
        seed: tsv("--ref", wmt12["ref"], "--samples", 50, "--seed", seed, *groups) for seed in ("3", "4")
    }
    for seed, table in tables.items():
        run_aware, multeval = (parse_signature(table[c].iloc[0]) for c in ("signature", "signature_multeval"))
        assert (run_aware["test"], run_aware["sided"], run_aware["samples"]) == ("run_aware_t", "two", "50")
        assert (multeval["test"], multeval["pvalue"], multeval["seed"]) == (
            "multeval_stratified_ar",
            "(c+1)/(R+1)",
            seed,
        )
        assert run_aware["metric"].startswith("BLEU|nrefs:1|")
    status, out, err = run("--ref", wmt12["ref"], "--samples", 50, *groups)
    assert status == 0 and "p_value: mtsig:0.1.0|test:run_aware_t|sided:two|samples:50|" in out, err
    with pytest.raises(ValueError, match="not in the registry"):
        signature(**(BASE | {"test": "run_aware_t"}))
