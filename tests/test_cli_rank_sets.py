"""``mtsig rank --rank-sets`` / ``--estimates`` and ``mtsig compare --rank-sets``: confidence sets for ranks from the
command line, against csranks, by hand, and every bad input as one line.

Oracles: csranks's own 100,000-draw bounds of PISA 2018 math (standard errors) and of a full covariance
(tests/oracles/csranks; each csranks bound must lie between the command's at coverage ± a margin, as in
tests/test_rank_sets.py); item scores whose sets follow by hand (a constant difference, a gap of many standard
errors, all systems alike); sacrebleu's BLEU for ``compare``'s estimates.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sacrebleu
from cli_runner import run_mtsig
from test_rank_sets_corpus import DOCUMENTS, OUTPUTS, REFS

REPO = Path(__file__).resolve().parents[1]
CSRANKS = Path(__file__).parent / "oracles" / "csranks"
PISA = REPO / "docs" / "examples" / "pisa2018-math.tsv"


def rank(*args: object) -> dict:
    done = run_mtsig("rank", *args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _oracle(name: str) -> pd.DataFrame:
    return pd.read_csv(CSRANKS / name, sep="\t", keep_default_na=False, na_values=["NA"])


def _csranks_bounds(run: int, systems: list[str]) -> pd.DataFrame:
    bounds = _oracle("bounds.tsv")
    rows = bounds.loc[bounds["run"] == run].sort_values("index")
    return rows.assign(system=[systems[i] for i in rows["index"]]).set_index("system")


def _by_system(document: dict) -> dict[str, dict]:
    return {entry["system"]: entry for entry in document["systems"]}


def _bracket(results: list[dict], expected: pd.DataFrame, kind: str) -> int:
    """Every csranks bound lies between the command's at coverage − margin and + margin (sets grow with the
    coverage); returns how many differ at the nominal coverage."""
    at, narrow, wide = (_by_system(r) for r in results)
    differing = 0
    for system, row in expected.iterrows():
        if kind == "top":
            member = row["member"] in (True, "TRUE")
            assert narrow[system]["top"] <= member <= wide[system]["top"], system
            differing += at[system]["top"] != member
            continue
        low, high = int(row["lower"]), int(row["upper"])
        assert wide[system][kind][0] <= low <= narrow[system][kind][0], (system, kind)
        assert narrow[system][kind][1] <= high <= wide[system][kind][1], (system, kind)
        differing += (at[system][kind][0] != low) + (at[system][kind][1] != high)
    return differing


def test_the_pisa_example_is_csranks_pisa2018_math() -> None:
    pisa = pd.read_csv(CSRANKS / "pisa2018.tsv", sep="\t")
    example = pd.read_csv(PISA, sep="\t")
    assert list(example.columns) == ["system", "estimate", "se"]
    assert list(example["system"]) == list(pisa["jurisdiction"])
    assert np.array_equal(example["estimate"], pisa["math_score"]) and np.array_equal(
        example["se"], pisa["math_se"]
    )


def test_pisa_estimates_give_csranks_sets() -> None:
    """csranks at 100,000 draws of its own (runs 120: simultaneous two-sided with the stepdown; 138: the τ-best,
    τ = 1) against the command at 20,000: each bound within the command's at 0.95 ± 0.01."""
    systems = list(pd.read_csv(PISA, sep="\t")["system"])
    results = [rank("--estimates", PISA, "--draws", 20_000, "--coverage", c) for c in (0.95, 0.94, 0.96)]
    differing = _bracket(results, _csranks_bounds(120, systems), "simultaneous")
    differing += _bracket(results, _csranks_bounds(138, systems), "top")
    assert differing <= 3 * len(systems) // 20
    first = results[0]
    assert first["bootstrap"] == "normal" and first["draws"] == 20_000 and first["tau"] == 1
    assert first["top_set"][0] == "Japan" and "|ranksets:simultaneous|" in first["signature"]


def test_a_full_covariance_gives_csranks_sets(tmp_path: Path) -> None:
    """csranks's 8 systems with an AR(1) covariance (runs 121 simultaneous, 122 marginal, two-sided with the
    stepdown, 100,000 draws) against the command at 40,000 with ``--covariance``, each bound within 0.95 ± 0.008;
    the covariance's header in another order than the estimates."""
    inputs = _oracle("inputs.tsv").query("case == 'synthetic_full'").sort_values("index")
    systems = list(inputs["system"])
    cells = _oracle("covariances.tsv").query("case == 'synthetic_full'")
    matrix = np.zeros((len(systems), len(systems)))
    matrix[cells["row"], cells["col"]] = cells["value"]
    estimates = tmp_path / "estimates.tsv"
    rows = [f"{s}\t{e!r}" for s, e in zip(systems, inputs["estimate"], strict=True)]
    estimates.write_text("system\testimate\n" + "\n".join(rows) + "\n")
    order = systems[::-1]
    covariance = tmp_path / "covariance.tsv"
    body = ["\t".join(repr(float(matrix[systems.index(a), systems.index(b)])) for b in order) for a in order]
    covariance.write_text("\t".join(order) + "\n" + "\n".join(body) + "\n")
    results = [
        rank("--estimates", estimates, "--covariance", covariance, "--draws", 40_000, "--coverage", c)
        for c in (0.95, 0.942, 0.958)
    ]
    differing = _bracket(results, _csranks_bounds(121, systems), "simultaneous")
    differing += _bracket(results, _csranks_bounds(122, systems), "marginal")
    assert differing <= 4 * len(systems) // 20


# --------------------------------------------------------------------------------------------- item scores by hand


def _tidy(folder: Path, scores: dict[str, list[float]], documents: list[str] | None) -> Path:
    lines = ["system\titem\tscore" + ("\tdoc" if documents else "")]
    for system, values in scores.items():
        for item, value in enumerate(values):
            lines.append(f"{system}\t{item}\t{value:g}" + (f"\t{documents[item]}" if documents else ""))
    path = folder / "scores.tsv"
    path.write_text("\n".join(lines) + "\n")
    return path


def _separated_scores() -> dict[str, list[float]]:
    """A = B + 5 on every item (their difference never varies), C about 30 below B (its noise a small part of
    the gap): the ranking is known exactly, A first."""
    rng = np.random.default_rng(3)
    base = rng.uniform(50, 90, 40).round()
    return {"A": list(base + 5), "B": list(base), "C": list(base - 30 + rng.integers(-2, 3, 40))}


def test_item_scores_known_ranking_by_hand(tmp_path: Path) -> None:
    scores = _separated_scores()
    documents = [f"d{i // 5}" for i in range(40)]
    document = rank("--format", "tidy", _tidy(tmp_path, scores, documents), "--rank-sets", "--draws", 300)
    assert (
        document["bootstrap"] == "documents"
        and document["units"] == 8
        and document["bootstrap_reason"] is None
    )
    assert [entry["system"] for entry in document["systems"]] == ["A", "B", "C"]
    for position, entry in enumerate(document["systems"]):
        assert set(entry) >= {"system", "estimate", "rank", "marginal", "simultaneous", "top"}
        assert entry["estimate"] == pytest.approx(np.mean(scores[entry["system"]]), abs=1e-12)
        assert entry["rank"] == position + 1
        assert entry["marginal"] == entry["simultaneous"] == [position + 1, position + 1]
        assert entry["top"] is (position == 0)
    assert document["top_set"] == ["A"] and document["notes"] == []


def test_item_scores_all_alike_are_ties(tmp_path: Path) -> None:
    """Every system scored alike on every item: every estimate tied (a documented result, not an error): all share
    rank 1, every set is [1, 3], all could be first, and a note says so."""
    same = [float(v) for v in range(60, 90)]
    path = _tidy(tmp_path, {"A": same, "B": same, "C": same}, None)
    document = rank("--format", "tidy", path, "--rank-sets", "--draws", 200)
    assert (
        document["bootstrap"] == "items"
        and document["units"] == 30
        and "independent" in document["bootstrap_reason"]
    )
    for entry in document["systems"]:
        assert entry["rank"] == 1 and entry["marginal"] == entry["simultaneous"] == [1, 3] and entry["top"]
    assert document["notes"] == ["A, B, C have equal estimates: they share rank 1 and their sets overlap"]
    text = run_mtsig("rank", "--format", "tidy", path, "--rank-sets", "--draws", 200).stdout
    assert (
        "note: A, B, C have equal estimates" in text
        and "bootstrap: items resampled as if independent" in text
    )


def test_text_latex_and_kind(tmp_path: Path) -> None:
    scores = _separated_scores()
    mean_a, mean_b = np.mean(scores["A"]), np.mean(scores["B"])
    path = _tidy(tmp_path, scores, [f"d{i // 5}" for i in range(40)])
    text = run_mtsig("rank", "--format", "tidy", path, "--rank-sets", "--draws", 300, "--marginal").stdout
    lines = text.splitlines()
    assert (
        lines[0]
        == "scores.tsv: 3 systems; marginal rank sets at 95% from 300 paired bootstrap resamples of whole documents (8)"
    )
    assert lines[3].split() == ["system", "estimate", "rank", "marginal", "95%", "top", "1"]
    assert lines[4].split() == ["A", f"{mean_a:.4f}", "1", "[1,", "1]", "yes"]
    assert lines[-2] == "could be first (the tau-best set, tau = 1, 95%): 1 of 3: A"
    assert (
        lines[-1].startswith("mtsig:")
        and "|ranksets:marginal|sided:two|stepdown:yes|coverage:95%|top:1|" in lines[-1]
    )
    assert "|bootstrap:documents|draws:300|seed:0|scores:raw" in lines[-1]
    latex = run_mtsig("rank", "--format", "tidy", path, "--rank-sets", "--draws", 300, "--latex").stdout
    assert latex.startswith("% mtsig:") and "ranksets:simultaneous" in latex.splitlines()[0]
    assert r"\toprule" in latex and r"\bottomrule" in latex and f"1 & A$^\\star$ & {mean_a:.2f} \\\\" in latex
    assert f"2 & B & {mean_b:.2f} \\\\" in latex


# --------------------------------------------------------------------------------------------------- bad input


def _files(folder: Path) -> dict[str, Path]:
    contents = {
        "est": "system\testimate\tse\nA\t1.0\t0.1\nB\t0.5\t0.2\nC\t0.2\t0.1\n",
        "asymmetric": "A\tB\tC\n0.01\t0.002\t0\n0.003\t0.04\t0\n0\t0\t0.01\n",
        "not_psd": "A\tB\tC\n0.01\t0.05\t0\n0.05\t0.04\t0\n0\t0\t0.01\n",
        "other_names": "A\tB\tX\n0.01\t0\t0\n0\t0.04\t0\n0\t0\t0.01\n",
        "short_row": "A\tB\tC\n0.01\t0\t0\n0\t0.04\n0\t0\t0.01\n",
        "text_cell": "A\tB\tC\n0.01\t0\t0\n0\tlots\t0\n0\t0\t0.01\n",
        "other_variances": "A\tB\tC\n0.04\t0\t0\n0\t0.04\t0\n0\t0\t0.01\n",
        "missing_se": "system\testimate\tse\nA\t1.0\t0.1\nB\t0.5\t\n",
        "zero_se": "system\testimate\tse\nA\t1.0\t0.1\nB\t0.5\t0\n",
        "negative_se": "system\testimate\tse\nA\t1.0\t0.1\nB\t0.5\t-0.2\n",
        "one": "system\testimate\tse\nA\t1.0\t0.1\n",
        "twice": "system\testimate\tse\nA\t1.0\t0.1\nA\t0.5\t0.1\n",
        "no_se_column": "system\testimate\nA\t1.0\nB\t2\n",
        "ties": "system\testimate\tse\nA\t1.0\t0.1\nB\t0.5\t0.1\nC\t0.5\t0.1\n",
    }
    paths = {}
    for name, text in contents.items():
        paths[name] = folder / f"{name}.tsv"
        paths[name].write_text(text)
    return paths


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--estimates", "{est}", "--covariance", "{asymmetric}"],
         "{asymmetric}: the covariance is not symmetric: (A, B) is 0.002 but (B, A) is 0.003"),
        (["--estimates", "{est}", "--covariance", "{not_psd}"],
         "{not_psd}: the covariance is not positive semi-definite (smallest eigenvalue -0.0272015)"),
        (["--estimates", "{est}", "--covariance", "{other_names}"],
         "{other_names}:1: the covariance's systems do not match the estimates': no column for C; systems not in "
         "est.tsv: X"),
        (["--estimates", "{est}", "--covariance", "{short_row}"],
         "{short_row}:3: 2 fields, expected 3 (one number per system of the header (3))"),
        (["--estimates", "{est}", "--covariance", "{text_cell}"], "{text_cell}:3: covariance 'lots' is not a number"),
        (["--estimates", "{est}", "--covariance", "{other_variances}"],
         "{est}:2: the standard error of 'A' is 0.1 but the covariance (other_variances.tsv) gives variance 0.04 (se "
         "0.2): make them agree, or leave the se column out"),
        (["--estimates", "{missing_se}"], "{missing_se}:3: empty standard error (se)"),
        (["--estimates", "{zero_se}"], "{zero_se}:3: the standard error of 'B' is 0: it must be positive"),
        (["--estimates", "{negative_se}"], "{negative_se}:3: the standard error of 'B' is -0.2: it must be positive"),
        (["--estimates", "{no_se_column}"],
         "{no_se_column}:1: no column(s) se in the header (system, estimate, se; se may be left out with --covariance)"),
        (["--estimates", "{one}"], "{one}: 1 system(s): at least two are needed to rank"),
        (["--estimates", "{twice}"], "{twice}:3: system 'A' given twice (first at line 2)"),
        (["--estimates", "{est}", "--top", "4"], "--top 4: there are only 3 systems to rank"),
        (["--estimates", "{folder}/absent.tsv"], "{folder}/absent.tsv: file not found"),
        (["--covariance", "{asymmetric}"], "--covariance is the covariance of --estimates FILE: give that file too"),
        (["--estimates", "{est}", "{est}"],
         "--estimates ranks the systems of its own file: give no ratings, --documents or --lp"),
        (["--estimates", "{est}", "--alpha", "0.1"],
         "--alpha is an option of the procedures, not of the rank sets (--coverage, --draws, --top)"),
        (["--estimates", "{est}", "--procedure", "wmt24"],
         "--procedure is an option of the procedures, not of the rank sets (--coverage, --draws, --top)"),
        (["{est}", "--top", "2"],
         "--top is an option of the rank sets: ask for them with --rank-sets (ratings) or --estimates FILE"),
        (["{est}", "--marginal"],
         "--simultaneous/--marginal is an option of the rank sets: ask for them with --rank-sets (ratings) or "
         "--estimates FILE"),
        ([], "give the ratings (FILES), or scores with standard errors with --estimates FILE"),
        (["--format", "tidy", "{est}", "--rank-sets", "--draws", "1"],
         "--draws 1: the bootstrap of item scores needs at least 2 resamples"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    names = {**{k: str(v) for k, v in _files(tmp_path).items()}, "folder": str(tmp_path)}
    done = run_mtsig("rank", *[a.format(**names) for a in args])
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"mtsig: error: {message.format(**names)}\n"


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--coverage", "1.5", "must be a number strictly between 0 and 1 (0.95 for 95%), got 1.5"),
        ("--coverage", "95", "must be a number strictly between 0 and 1 (0.95 for 95%), got 95"),
        ("--coverage", "0", "must be a number strictly between 0 and 1 (0.95 for 95%), got 0"),
        ("--coverage", "high", "must be a number strictly between 0 and 1, got 'high'"),
        ("--draws", "0", "must be a positive integer, got 0"),
        ("--draws", "-5", "must be a positive integer, got -5"),
        ("--draws", "many", "must be a positive integer, got 'many'"),
        ("--top", "0", "must be a positive integer, got 0"),
        ("--top", "1.5", "must be a positive integer, got '1.5'"),
    ],
)
def test_bad_option_values_are_one_line(tmp_path: Path, option: str, value: str, message: str) -> None:
    estimates = _files(tmp_path)["est"]
    done = run_mtsig("rank", "--estimates", estimates, option, value)
    assert done.returncode == 2
    assert done.stderr == f"mtsig rank: error: argument {option}: {message} (see mtsig rank --help)\n"


def test_ties_in_the_estimates_are_a_documented_result(tmp_path: Path) -> None:
    done = run_mtsig("rank", "--estimates", _files(tmp_path)["ties"])
    assert (
        done.returncode == 0
        and "note: B, C have equal estimates: they share rank 2 and their sets overlap" in done.stdout
    )
    systems = _by_system(rank("--estimates", _files(tmp_path)["ties"]))
    assert systems["B"]["rank"] == systems["C"]["rank"] == 2
    assert systems["B"]["simultaneous"] == systems["C"]["simultaneous"]


def test_both_kinds_refused_together(tmp_path: Path) -> None:
    done = run_mtsig("rank", "--estimates", _files(tmp_path)["est"], "--marginal", "--simultaneous")
    assert done.returncode == 2 and "not allowed with argument --marginal" in done.stderr


# ------------------------------------------------------------------------------------------------ mtsig compare


@pytest.fixture
def texts(tmp_path: Path) -> dict[str, Path]:
    paths = {"ref": tmp_path / "ref.txt", "docs": tmp_path / "docs.txt"}
    paths["ref"].write_text("\n".join(REFS) + "\n")
    paths["docs"].write_text("\n".join(DOCUMENTS) + "\n")
    for name, lines in OUTPUTS.items():
        paths[name] = tmp_path / name
        paths[name].write_text("\n".join(lines) + "\n")
    return paths


def compare(texts: dict[str, Path], *args: object):
    return run_mtsig("compare", "--ref", texts["ref"], "--samples", 200, *args, *(texts[n] for n in OUTPUTS))


def test_compare_rank_sets_by_bleu_and_ter(texts: dict[str, Path]) -> None:
    done = compare(texts, "--metrics", "bleu,ter", "--rank-sets", "--docs", texts["docs"], "--json")
    assert done.returncode == 0, done.stderr
    metrics = json.loads(done.stdout)["metrics"]
    bleu = {name: sacrebleu.corpus_bleu(lines, [REFS]).score for name, lines in OUTPUTS.items()}
    ter = {name: sacrebleu.corpus_ter(lines, [REFS]).score for name, lines in OUTPUTS.items()}
    for name, truth, best_first in (("bleu", bleu, True), ("ter", ter, False)):
        sets = metrics[name]["rank_sets"]
        assert sets["bootstrap"] == "documents" and sets["units"] == 4 and sets["draws"] == 200
        order = sorted(truth, key=truth.get, reverse=best_first)
        assert [entry["system"] for entry in sets["systems"]] == order
        for entry in sets["systems"]:
            assert entry["estimate"] == pytest.approx(truth[entry["system"]], abs=1e-9)
            assert set(entry) >= {"system", "estimate", "rank", "marginal", "simultaneous", "top"}
        assert sets["systems"][0]["top"] and sets["top_set"][0] == order[0]
        assert "|ranksets:simultaneous|" in sets["signature"] and "|seed:12345|" in sets["signature"]
        assert sets["signature"].split("|metric:")[1].startswith(name.upper())
    text = compare(texts, "--metrics", "bleu,ter", "--rank-sets", "--top", 2).stdout
    assert (
        "BLEU rank sets (by the corpus score): simultaneous at 95%, from 200 paired bootstrap resamples of segments (8)"
        in text
    )
    assert "TER rank sets (by the corpus score, lower is better)" in text
    assert "could be among the 2 best (the tau-best set, tau = 2, 95%)" in text
    assert sum("|ranksets:simultaneous|" in line for line in text.splitlines()) == 2


def test_compare_rank_sets_tsv_and_latex(texts: dict[str, Path]) -> None:
    tsv = compare(texts, "--rank-sets", "--tsv", "--marginal")
    table = pd.read_csv(pd.io.common.StringIO(tsv.stdout), sep="\t")
    assert list(table.columns) == [
        "metric", "system", "estimate", "rank", "marginal_lower", "marginal_upper", "simultaneous_lower",
        "simultaneous_upper", "top", "signature",
    ]  # fmt: skip
    assert (
        (table["metric"] == "bleu").all()
        and len(table) == 3
        and table["signature"].str.contains("ranksets:marginal").all()
    )
    latex = compare(texts, "--rank-sets", "--latex").stdout
    assert r"\label{tab:rank-sets-bleu}" in latex and "% mtsig:0.1.0|ranksets:simultaneous" in latex


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rank-sets", "--top", "4"], "mtsig: error: --top 4: there are only 3 systems to rank"),
        (["--top", "2"], "mtsig: error: --top is an option of the rank sets: ask for them with --rank-sets"),
        (["--rank-sets", "--tsv", "--clusters"],
         "mtsig: error: --tsv prints one table: the clusters' (--clusters) or the rank sets' (--rank-sets)"),
        (["--rank-sets", "--coverage", "95"],
         "mtsig compare: error: argument --coverage: must be a number strictly between 0 and 1 (0.95 for 95%), got 95 "
         "(see mtsig compare --help)"),
    ],
)  # fmt: skip
def test_compare_bad_rank_set_options(texts: dict[str, Path], args: list[str], message: str) -> None:
    done = compare(texts, *args)
    assert done.returncode == 2 and done.stderr == message + "\n"


def test_compare_rank_sets_not_with_runs(texts: dict[str, Path]) -> None:
    runs = f"A={texts['alpha']},{texts['gamma']}"
    done = run_mtsig(
        "compare", "--ref", texts["ref"], "--rank-sets", "--runs", runs, "--runs", f"B={texts['beta']}"
    )
    assert done.returncode == 2
    assert (
        done.stderr
        == "mtsig: error: --rank-sets ranks systems by their corpus scores: not with --runs (training runs)\n"
    )
