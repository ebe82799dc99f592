"""``mtsig compare --scores``: any metric from precomputed segment scores, through the command line.

Oracles: the resampling engine fed the equivalent ``[sum, count]`` statistics directly, built from scores parsed
here independently of mtsig's readers (pandas on the WMT20 file; sacrebleu's sentence chrF on WMT12); the mean
difference by numpy; hand-made small files for orientation and every bad input.
"""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sacrebleu
from cli_runner import run_mtsig

from mtsig.io.text import load_texts
from mtsig.stats.resampling import PAPER_TESTS, ResamplingOptions, pairwise_tests

SAMPLES = 300
SEED = 777
WMT12_SYSTEMS = ("onlineB", "uedin-wmt12", "UPC")


def run(*args: object) -> subprocess.CompletedProcess[str]:
    return run_mtsig("compare", *args)


def tsv(done: subprocess.CompletedProcess[str]) -> pd.DataFrame:
    assert done.returncode == 0, done.stderr
    return pd.read_csv(io.StringIO(done.stdout), sep="\t")


def engine_p_values(
    scores: np.ndarray, systems: list[str], tests, documents=None, higher=True
) -> pd.DataFrame:
    """The oracle: the engine on ``[score, 1]`` statistics with the mean as the corpus score."""
    stats = np.stack([scores, np.ones_like(scores)], axis=-1)
    return pairwise_tests(
        stats,
        lambda t: t[..., 0] / t[..., 1],
        systems,
        ResamplingOptions(
            higher_is_better=higher, tests=tests, n_samples=SAMPLES, seed=SEED, documents=documents
        ),
    ).table


def assert_same_rows(cli: pd.DataFrame, oracle: pd.DataFrame) -> None:
    keys = ["sys_x", "sys_y", "test"]
    merged = cli.merge(oracle, on=keys, suffixes=("", "_oracle"), validate="one_to_one")
    assert len(merged) == len(oracle) == len(cli)
    # the TSV prints 10 significant digits: the same count of samples c in c/B, and the same value to print precision
    counts = (merged["p_value"] * SAMPLES).round().to_numpy()
    np.testing.assert_array_equal(counts, (merged["p_value_oracle"] * SAMPLES).round().to_numpy())
    np.testing.assert_allclose(merged["p_value"], merged["p_value_oracle"], rtol=1e-9, atol=0)
    np.testing.assert_allclose(merged["statistic"], merged["statistic_oracle"], rtol=1e-9, atol=1e-12)


# --------------------------------------------------------------------------------------- WMT20 ja-en seg.score


@pytest.fixture(scope="module")
def wmt20_chrf(data_root: Path) -> tuple[Path, pd.DataFrame]:
    path = data_root / "wmt20-ja-en" / "metric-scores" / "chrF.ja-en.seg.score"
    names = ["metric", "lp", "testset", "refset", "system", "document", "doc_segment", "score"]
    frame = pd.read_csv(path, sep="\t", header=None, names=names, quoting=3, keep_default_na=False)
    frame["segment"] = frame.groupby("system", sort=False).cumcount()
    return path, frame


def test_a_wmt_seg_score_file_names_its_metric_whatever_the_file_is_called(
    wmt20_chrf, tmp_path: Path
) -> None:
    """``--scores FILE`` names the metric by a seg.score file's metric column (the format's first field), not by
    the file's name; ``NAME=FILE`` by NAME."""
    from mtsig.cli._systems import scores_metric

    path, frame = wmt20_chrf
    renamed = tmp_path / "scores.txt"
    renamed.write_bytes(path.read_bytes())
    assert frame["metric"].unique().tolist() == ["chrF"]
    assert scores_metric(str(renamed), "auto", set()).name == "chrF"
    assert scores_metric(f"mine={renamed}", "wmt_seg_score", set()).name == "mine"


def test_wmt_seg_score_file_gives_the_engines_p_values_and_numpy_mean_differences(wmt20_chrf) -> None:
    path, frame = wmt20_chrf
    systems = ["OPPO.1529", "NiuTrans.1352", "Online-B.1599", "zlabs-nlp.66"]
    tests = [*PAPER_TESTS, "paired_bootstrap_documents"]
    done = run(
        "--scores", path, "--tsv", "--samples", SAMPLES, "--seed", SEED, "--tests", ",".join(tests), *systems
    )
    cli = tsv(done)
    assert set(cli["metric"]) == {"chrF"}  # named by the file's metric column
    wide = frame.pivot(index="system", columns="segment", values="score").loc[systems].to_numpy()
    assert wide.shape == (4, 993)
    documents = frame.loc[frame["system"] == systems[0], "document"].to_numpy()
    assert_same_rows(cli, engine_p_values(wide, systems, tests, documents))
    means = dict(zip(systems, wide.mean(axis=1), strict=True))
    one = cli[(cli["sys_x"] == "OPPO.1529") & (cli["sys_y"] == "zlabs-nlp.66")]
    np.testing.assert_allclose(one["statistic"], means["OPPO.1529"] - means["zlabs-nlp.66"], atol=1e-12)


def test_all_systems_of_the_first_file_by_default_and_json_and_text_modes(wmt20_chrf) -> None:
    path, frame = wmt20_chrf
    done = run("--scores", f"chrf20={path}", "--tsv", "--samples", 20, "--tests", "paired_bootstrap")
    cli = tsv(done)
    assert set(cli["metric"]) == {"chrf20"}
    assert set(cli["sys_x"]) == set(frame["system"]) and len(cli) == 10 * 9
    done = run("--scores", path, "--json", "--samples", 20, "--tests", "paired_bootstrap")
    assert done.returncode == 0 and '"reference": []' in done.stdout
    done = run("--scores", path, "--samples", 20, "--tests", "paired_bootstrap")
    assert (
        done.returncode == 0
        and "kind:segment_scores" in done.stdout
        and "file:chrF.ja-en.seg.score" in done.stdout
    )


def test_a_system_missing_from_a_second_file_names_that_file(data_root: Path) -> None:
    folder = data_root / "wmt20-ja-en" / "metric-scores"
    done = run(
        "--scores",
        folder / "YiSi-2.ja-en.seg.score",
        "--scores",
        folder / "chrF.ja-en.seg.score",
        "--samples",
        20,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "chrF.ja-en.seg.score" in done.stderr and "Human-A.0" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


# ------------------------------------------------------------------------------- WMT12 sentence chrF, tidy file


@pytest.fixture(scope="module")
def wmt12(data_root: Path, tmp_path_factory) -> dict[str, object]:
    folder = data_root / "wmt12"
    files = {
        f"newstest2012.es-en.{n}": folder / "system-outputs" / "es-en" / f"newstest2012.es-en.{n}"
        for n in WMT12_SYSTEMS
    }
    reference = folder / "plain" / "newstest2012-ref.en"
    refs, hyps = load_texts(reference, files, unescape=True)
    names = list(files)
    scores = np.array(
        [[sacrebleu.sentence_chrf(h, [r]).score for h, r in zip(hyps[n], refs, strict=True)] for n in names]
    )
    tidy = tmp_path_factory.mktemp("scores") / "sentchrf.tsv"
    lines = ["score\tsystem\tsegment"]  # any column order
    for name, row in zip(names, scores, strict=True):
        lines += [f"{float(v)!r}\t{name}\t{i}" for i, v in enumerate(row)][::-1]  # any row order
    tidy.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {"files": files, "reference": reference, "scores": scores, "names": names, "tidy": tidy}


def test_tidy_file_alone_gives_the_engines_exact_p_values(wmt12) -> None:
    done = run("--scores", wmt12["tidy"], "--tsv", "--samples", SAMPLES, "--seed", SEED, *wmt12["names"])
    cli = tsv(done)
    assert set(cli["metric"]) == {"sentchrf"}
    assert_same_rows(cli, engine_p_values(wmt12["scores"], wmt12["names"], list(PAPER_TESTS)))


def test_scores_next_to_a_text_metric(wmt12) -> None:
    common = ["--tsv", "--samples", SAMPLES, "--seed", SEED, "--unescape-html", "--ref", wmt12["reference"]]
    mixed = tsv(
        run(*common, "--metrics", "bleu", "--scores", f"sc={wmt12['tidy']}", *wmt12["files"].values())
    )
    alone = tsv(run(*common, "--metrics", "bleu", *wmt12["files"].values()))
    assert list(dict.fromkeys(mixed["metric"])) == ["bleu", "sc"]
    pd.testing.assert_frame_equal(
        mixed[mixed["metric"] == "bleu"].reset_index(drop=True), alone, check_dtype=False
    )
    assert_same_rows(
        mixed[mixed["metric"] == "sc"], engine_p_values(wmt12["scores"], wmt12["names"], list(PAPER_TESTS))
    )


# ------------------------------------------------------------------------------------------ hand-made small files


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


TIDY = "system\tsegment\tscore\nA\t0\t0.1\nA\t1\t0.3\nB\t0\t0.5\nB\t1\t0.6\n"


def test_lower_is_better_flips_the_statistic(tmp_path: Path) -> None:
    path = write(tmp_path / "err.tsv", TIDY)
    higher = tsv(run("--scores", path, "--tsv", "--samples", 10, "--tests", "paired_bootstrap"))
    lower = tsv(
        run(
            "--scores",
            path,
            "--tsv",
            "--samples",
            10,
            "--tests",
            "paired_bootstrap",
            "--lower-is-better",
            "err",
        )
    )
    a_over_b = lambda t: float(t[(t["sys_x"] == "A") & (t["sys_y"] == "B")]["statistic"].iloc[0])  # noqa: E731
    assert a_over_b(higher) == pytest.approx(0.2 - 0.55)  # mean(A) - mean(B), by hand
    assert a_over_b(lower) == pytest.approx(0.55 - 0.2)  # S(Y) - S(X): A's lower error is better


def test_mtme_layout_is_detected(tmp_path: Path) -> None:
    path = write(tmp_path / "m.seg.score", "A 0.1\nB 0.5\nA 0.3\nB 0.6\n")
    table = tsv(run("--scores", path, "--tsv", "--samples", 10, "--tests", "paired_bootstrap"))
    one = table[(table["sys_x"] == "B") & (table["sys_y"] == "A")]
    assert float(one["statistic"].iloc[0]) == pytest.approx(0.55 - 0.2)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "system\tsegment\tscore\nA\t0\t0.1\nA\t1\t0.3\nB\t0\t0.5\nC\t0\t1\nC\t1\t2\n",
            ":4: system 'B' (first row here) has 1 of 2 segments",
        ),
        (
            "system\tsegment\tscore\nA\t0\t0.1\nA\t1\tnan\nB\t0\t0.5\nB\t1\t0.6\n",
            ":3: score 'nan' is not finite",
        ),
        (
            "system\tsegment\tscore\nA\t0\t0.1\nA\t1\tinf\nB\t0\t0.5\nB\t1\t0.6\n",
            ":3: score 'inf' is not finite",
        ),
        (
            "system\tsegment\tscore\nA\t0\t0.1\nA\t1\t0.2\nB\t0\t0.5\nA\t1\t0.6\n",
            ":5: (system, segment) (system 'A', segment 1) given twice (first at line 3)",
        ),
        ("A 0.1\nB 0.2\nA 0.3\n", ":2: system 'B' has 1 rows"),
        ("what is this\n", ":1: cannot tell the segment-score layout"),
    ],
)
def test_bad_files_are_one_line_errors_naming_file_and_line(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path / "bad.tsv", text)
    done = run("--scores", path, "--samples", 10)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert f"{path}{expected}" in done.stderr, done.stderr


def test_command_line_systems_must_be_in_every_file_and_files_must_agree(tmp_path: Path) -> None:
    path = write(tmp_path / "good.tsv", TIDY)
    done = run("--scores", path, "--samples", 10, "A", "Z")
    assert (
        done.returncode == 2
        and f"{path}: no segment scores for system 'Z'; the file has 'A', 'B': give the systems as the file names "
        "them"
        in done.stderr
    )
    longer = write(tmp_path / "longer.tsv", TIDY + "A\t2\t1\nB\t2\t1\n")
    done = run("--scores", path, "--scores", longer, "--samples", 10)
    assert (
        done.returncode == 2
        and f"{longer}: metric 'longer' scores 3 segments but the test set has 2" in done.stderr
    )
    done = run("--scores", path, "--scores", f"good={longer}", "--samples", 10)
    assert done.returncode == 2 and "good given to more than one --scores" in done.stderr
    done = run("--scores", path, "--samples", 10, "--tests", "bootstrap_documents")
    assert done.returncode == 2 and "the scores files have no documents" in done.stderr
    done = run("--scores", path, "--metrics", "bleu")
    assert done.returncode == 2 and "need the reference" in done.stderr
    done = run("--samples", 10)
    assert done.returncode == 2 and "--scores" in done.stderr


@pytest.mark.parametrize(
    "second, tests",
    [
        ("0", "paired_bootstrap,bootstrap,approximate_randomization"),  # corpus mean 1e308 + 1e308 overflows
        ("0", "approximate_randomization"),
        ("-1e308", "approximate_randomization"),  # corpus scores finite, shuffled sums overflow
        ("-1e308", "paired_bootstrap_stationary,bootstrap_two_sided"),
    ],
)
def test_overflowing_scores_are_refused_never_concluded(tmp_path: Path, second: str, tests: str) -> None:
    """Scores of 1e308 once printed statistic 0.0000, a CI of [0.0000, nan] and 'significant: yes'. Any NaN or
    infinity on the way to a result is refused with one line, exit 2, nothing on stdout."""
    scores = tmp_path / "huge.tsv"
    scores.write_text(f"system\tsegment\tscore\na\t0\t1e308\na\t1\t{second}\nb\t0\t-1e308\nb\t1\t0\n")
    if second == "0":
        scores.write_text("system\tsegment\tscore\na\t0\t1e308\na\t1\t1e308\nb\t0\t1e308\nb\t1\t0\n")
    for output in ([], ["--tsv"], ["--json"]):
        done = run("--scores", scores, "--samples", 200, "--tests", tests, *output)
        assert done.returncode == 2, done.stdout
        assert done.stdout == ""
        assert done.stderr.startswith("mtsig: error: the ") and len(done.stderr.splitlines()) == 1
        assert "non-finite" in done.stderr and "overflow" in done.stderr


def test_the_engine_refuses_non_finite_scores() -> None:
    import numpy as np

    from mtsig.stats.resampling import ResamplingOptions, pairwise_tests

    stats = np.array([[[1e308], [1e308]], [[1.0], [2.0]]])
    with pytest.raises(ValueError, match="corpus score of system 'x' is inf"):
        pairwise_tests(
            stats,
            lambda t: t[..., 0],
            ["x", "y"],
            ResamplingOptions(tests=["bootstrap"], n_samples=10, seed=1),
        )
    stats[0, :, 0] = [np.nan, 1.0]
    with pytest.raises(ValueError, match="corpus score of system 'x' is nan"):
        pairwise_tests(
            stats,
            lambda t: t[..., 0],
            ["x", "y"],
            ResamplingOptions(tests=["bootstrap"], n_samples=10, seed=1),
        )


# ------------------------------------------------------------------------- the tidy layout: errors that say the fix


def test_a_scores_file_with_a_comma_header_is_one_line_with_the_correct_header(tmp_path: Path) -> None:
    path = write(tmp_path / "comet.csv", TIDY.replace("\t", ","))
    for command in (["compare", "--samples", 10], ["power", "A", "B"]):
        done = run_mtsig(*command, "--scores", path)
        assert done.returncode == 2 and done.stdout == "" and len(done.stderr.splitlines()) == 1
        assert done.stderr.strip() == (
            f"mtsig: error: {path}:1: the header 'system,segment,score' is separated by commas: separate its names "
            "by TABs, e.g. 'system\\tsegment\\tscore\\tdocument' (the columns: system, segment (or item), score and "
            "optionally document (or doc))"
        )


def test_rows_named_otherwise_than_the_outputs_are_told_both_fixes_and_each_works(tmp_path: Path) -> None:
    """Rows named 'A' and 'B' for outputs A.txt and B.txt: the error names both ways out, and each (renaming the
    rows after the output files, or labelling the systems as the file names them) gives the same result."""
    for name in ("A.txt", "B.txt", "ref.txt"):
        write(tmp_path / name, "x\ny\n")
    scores = write(tmp_path / "scores.tsv", TIDY)
    files = [tmp_path / "A.txt", tmp_path / "B.txt"]
    done = run("--ref", tmp_path / "ref.txt", "--scores", scores, "--samples", 10, *files)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == (
        f"mtsig: error: {scores}: no segment scores for system 'A.txt' (output A.txt); the file has 'A', 'B': name "
        f"the rows after the output files, e.g. 'A.txt', or label the systems as the file names them, e.g. --labels "
        f"A,B (or A={files[0]})"
    )
    renamed = write(tmp_path / "renamed.tsv", TIDY.replace("A\t", "A.txt\t").replace("B\t", "B.txt\t"))
    common = ("--ref", tmp_path / "ref.txt", "--samples", 50, "--json")
    by_file_names = json.loads(run(*common, "--scores", f"m={renamed}", *files).stdout)
    by_labels = json.loads(run(*common, "--scores", f"m={scores}", "--labels", "A,B", *files).stdout)
    assert by_file_names["metrics"]["m"]["scores"] == {
        "A.txt": pytest.approx(0.2),
        "B.txt": pytest.approx(0.55),
    }
    assert by_labels["metrics"]["m"]["scores"] == {"A": pytest.approx(0.2), "B": pytest.approx(0.55)}
