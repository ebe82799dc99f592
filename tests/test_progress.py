"""Progress of long work: the library says how far it has got without changing a number, and the ``mtsig`` command
shows it on stderr only when stderr is a terminal (never with --quiet, never on stdout).

The command's delay (2 s) is set to 0 here (``MTSIG_PROGRESS_DELAY``) so that short runs show their progress; one
test keeps a long delay and checks that nothing is drawn before it.
"""

from __future__ import annotations

import contextlib
import io
import os
import pty
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mtsig.cli import main
from mtsig.cli._common import PROGRESS_DELAY_ENV, ProgressDisplay
from mtsig.pipeline.verification import checksum_table, verify_results
from mtsig.runtime.progress import counter
from mtsig.stats.meta_evaluation.metric_comparison import (
    PermBothOptions,
    accuracy_permutation_matrix,
    bootstrap_correlations,
    perm_both_matrix,
)
from mtsig.stats.resampling import ResamplingOptions, pairwise_tests
from mtsig.studies.power import PowerSimulation, power_curve

REPO = Path(__file__).resolve().parents[1]


class Terminal(io.StringIO):
    """A stderr that says it is a terminal (of no known size) and keeps what is written to it."""

    def isatty(self) -> bool:
        return True


def run_in_process(*args: object, terminal: bool = True) -> tuple[int, str, str]:
    """``mtsig ARGS`` in this process with stderr a :class:`Terminal` (or a plain buffer): status, stdout, stderr."""
    out, err = io.StringIO(), Terminal() if terminal else io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(arg) for arg in args])
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(autouse=True)
def no_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PROGRESS_DELAY_ENV, "0")


def integer_stats(n_systems: int, n_segments: int, seed: int) -> np.ndarray:
    """``[S, N, 2]`` statistics of a mean-type metric: (matches, length) per segment."""
    rng = np.random.default_rng(seed)
    length = rng.integers(5, 30, size=(1, n_segments)).repeat(n_systems, axis=0)
    quality = np.linspace(0.4, 0.6, n_systems)[:, None]
    return np.stack([rng.binomial(length, quality), length], axis=-1).astype(float)


def ratio(totals: np.ndarray) -> np.ndarray:
    return 100 * totals[..., 0] / totals[..., 1]


# ----------------------------------------------------------------------------------------------------- the library


def test_counter_tells_the_running_total():
    calls: list[tuple[int, int]] = []
    advance = counter(lambda done, total: calls.append((done, total)), 7)
    for units in (3, 1, 3):
        advance(units)
    assert calls == [(3, 7), (4, 7), (7, 7)]
    counter(None, 7)(3)  # no listener: nothing to tell


@pytest.mark.parametrize("threads", ["1", "2"])
def test_engine_tells_every_block_of_every_scheme_and_changes_no_number(threads, monkeypatch):
    monkeypatch.setenv("MTSIG_THREADS", threads)
    stats = integer_stats(4, 300, seed=1)
    # B per test: the i.i.d. bootstrap draws max(300, 600) = 600 (intervals use paired_bootstrap's 300), that is
    # ceil(600 / 256) = 3 blocks; approximate randomization 257 draws, 2 blocks: 5 blocks in all.
    options = {
        "tests": ["paired_bootstrap", "bootstrap", "approximate_randomization"],
        "n_samples": {"paired_bootstrap": 300, "bootstrap": 600, "approximate_randomization": 257},
        "seed": 3,
        "intervals": ("percentile", "bca"),
    }
    calls: list[tuple[int, int]] = []
    told = pairwise_tests(
        stats, ratio, list("ABCD"), ResamplingOptions(**options, progress=lambda d, t: calls.append((d, t)))
    )
    silent = pairwise_tests(stats, ratio, list("ABCD"), ResamplingOptions(**options))
    assert calls == [(done, 5) for done in range(1, 6)]
    pd.testing.assert_frame_equal(told.table, silent.table)
    pd.testing.assert_frame_equal(told.intervals, silent.intervals)
    pd.testing.assert_frame_equal(told.system_intervals, silent.system_intervals)


def test_power_curve_tells_each_cell_by_its_size_and_changes_no_number():
    stats = integer_stats(2, 200, seed=2)
    simulation = PowerSimulation(n_segments_grid=[100, 50], trials=10, n_samples=100, seed=4)
    options = {"q_grid": [0.5, 1.0], "simulation": simulation}
    calls: list[tuple[int, int]] = []
    told = power_curve(stats[1], stats[0], ratio, **options, progress=lambda d, t: calls.append((d, t)))
    # cells in order (50, 0.5), (50, 1), (100, 0.5), (100, 1): 2 * (50 + 100) = 300 segments in all
    assert calls == [(50, 300), (100, 300), (200, 300), (300, 300)]
    pd.testing.assert_frame_equal(told, power_curve(stats[1], stats[0], ratio, **options))


def test_metric_comparisons_tell_resamples_and_change_no_number():
    rng = np.random.default_rng(5)
    human = rng.normal(size=6)
    metrics = human[None, :, None] + rng.normal(scale=0.5, size=(3, 6, 40))  # [M, S, N] segment scores
    means = metrics.mean(axis=-1)
    correct = rng.random((3, 15)) < 0.7  # [M, P] pairs each metric gets right
    runs = {
        "bootstrap": lambda **kw: bootstrap_correlations(
            lambda counts: means, human, 1, scheme="systems", n_resamples=250, **kw
        ),
        "perm_both": lambda **kw: perm_both_matrix(human, metrics, PermBothOptions(n_resamples=250), **kw),
        "accuracy": lambda **kw: accuracy_permutation_matrix(correct, n_resamples=250, **kw),
    }
    for name, run in runs.items():
        calls: list[tuple[int, int]] = []
        told = run(rng=np.random.default_rng(6), progress=lambda d, t, calls=calls: calls.append((d, t)))
        silent = run(rng=np.random.default_rng(6))
        assert calls == [(100, 250), (200, 250), (250, 250)], name  # chunks of 100 resamples
        if name == "bootstrap":
            assert told == silent
            continue
        arrays = zip(*(r if isinstance(r, tuple) else (r,) for r in (told, silent)), strict=True)
        for array, same in arrays:
            np.testing.assert_array_equal(array, same)  # NaN diagonals included


def results_folder(tmp_path: Path) -> Path:
    results = tmp_path / "results"
    (results / "tables").mkdir(parents=True)
    for n in range(3):
        (results / "tables" / f"t{n}.tsv").write_text(f"a\tb\n{n}\t{n * n}\n", encoding="utf-8")
    return results


def test_verification_tells_files_and_changes_nothing(tmp_path):
    results = results_folder(tmp_path)
    calls: list[tuple[int, int]] = []
    table = checksum_table(results, lambda d, t: calls.append((d, t)))
    assert calls == [(1, 3), (2, 3), (3, 3)]
    pd.testing.assert_frame_equal(table, checksum_table(results))
    calls.clear()
    report = verify_results(table, results, lambda d, t: calls.append((d, t)))
    assert calls == [(1, 3), (2, 3), (3, 3)]
    pd.testing.assert_frame_equal(report, verify_results(table, results))


# ----------------------------------------------------------------------------------------------------- the command


def test_nothing_is_drawn_before_the_delay():
    terminal = Terminal()
    display = ProgressDisplay("compare", enabled=True, delay=60, stream=terminal)
    with display.stage("resampling bleu") as progress:
        for done in range(1, 11):
            progress(done, 10)
    assert terminal.getvalue() == ""


def test_a_disabled_display_gives_the_library_no_listener():
    with ProgressDisplay("compare", enabled=False).stage("scoring") as progress:
        assert progress is None


def small_texts(tmp_path: Path) -> list[Path]:
    rng = np.random.default_rng(8)
    words = [f"w{i}" for i in range(40)]
    ref = [" ".join(rng.choice(words, 10)) for _ in range(200)]
    paths = [tmp_path / "ref.txt"]
    paths[0].write_text("\n".join(ref) + "\n", encoding="utf-8")
    for name, keep in (("a.txt", 0.8), ("b.txt", 0.7), ("c.txt", 0.6)):
        lines = [" ".join(w if rng.random() < keep else "x" for w in line.split()) for line in ref]
        paths.append(tmp_path / name)
        paths[-1].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return paths


def run_on_a_pseudo_terminal(args: list[str]) -> tuple[int, bytes, bytes]:
    """``mtsig ARGS`` in a fresh interpreter with stderr on a pseudo-terminal: status, stdout, stderr bytes."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "mtsig.cli", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=terminal,
        env={**os.environ, PROGRESS_DELAY_ENV: "0"},
    )
    os.close(terminal)
    out = []
    reader = threading.Thread(target=lambda: out.append(process.stdout.read()))
    reader.start()
    err = b""
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # the terminal's other end was closed: the process is done with it
            break
        if not chunk:
            break
        err += chunk
    os.close(controller)
    reader.join()
    return process.wait(timeout=120), out[0], err


def test_compare_shows_progress_on_a_terminal_and_writes_the_same_stdout(tmp_path):
    ref, *systems = small_texts(tmp_path)
    args = ["compare", "--ref", str(ref), "--samples", "2000", "--tsv", *map(str, systems)]
    status, out, err = run_on_a_pseudo_terminal(args)
    assert status == 0, err
    assert b"mtsig compare: resampling bleu" in err
    assert err.endswith(b"\r")  # the last stage's line is cleared
    assert len(out.decode().splitlines()) == 1 + 6 * 3  # header, 6 ordered pairs x the paper's 3 tests
    assert run_in_process(*args, terminal=False) == (0, out.decode(), "")  # not a terminal: nothing
    quiet = run_in_process(*args, "--quiet")
    assert quiet == (0, out.decode(), "")


def test_power_metrics_and_verify_show_progress_on_a_terminal_only(tmp_path, data_root):
    ref, a, b, _ = small_texts(tmp_path)
    ja_en = data_root / "wmt20-ja-en"
    results = results_folder(tmp_path)
    checksums = tmp_path / "checksums.tsv"
    commands = {
        "power: simulating": [
            "power",
            "--ref",
            ref,
            "--trials",
            "10",
            "--samples",
            "100",
            "--sizes",
            "50,100",
            a,
            b,
        ],
        "metrics: PERM-BOTH": [
            "metrics",
            ja_en / "da" / "ad-sys-scores-ja-en.csv",
            *[ja_en / "metric-scores" / f"{m}.ja-en.seg.score" for m in ("chrF", "TER", "YiSi-2")],
            "--samples",
            "200",
        ],
        "verify: hashing files": ["verify", results, "--write", "--expected", checksums],
        "verify: checking files": ["verify", results, "--expected", checksums],
    }
    for stage, args in commands.items():
        status, out, err = run_in_process(*args)
        assert status == 0, err
        assert f"mtsig {stage}" in err
        assert run_in_process(*args, "--quiet") == (0, out, "")
        assert run_in_process(*args, terminal=False) == (0, out, "")
