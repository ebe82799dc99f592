"""TER statistics: sacrebleu 2.6.0 (pure Python) vs mtsig's compiled transcription, WMT12 es-en. Asserts nothing.

    python benchmarks/bench_ter.py                      # all 12 systems x 3003 segments, both implementations
    python benchmarks/bench_ter.py --segments 500       # sacrebleu and compiled on the first 500 of each system

Both run in this one process, one core each, on the same texts (HTML entities undone, as the pipeline does), one
system at a time through ``TER(implementation=...).stats``. Printed: numba's compile time (a fresh process with
an empty cache, then a second process that loads the cache), per-system seconds, whether the statistics are
identical, and the last line ``speedup_vs_sacrebleu: X``. Tokenisation (sacrebleu's, memoised) is timed
in both, its memo emptied before every run. Every figure comes with the load averages at the time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer

from mtsig.io.text import load_texts
from mtsig.metrics import get_metric

REPO = Path(__file__).resolve().parents[1]

# Run in a subprocess: import the module and score one short segment (compiling, or loading numba's cache).
FIRST_CALL = """
import time
start = time.perf_counter()
from mtsig.metrics.ter_compiled import corpus_edits
imported = time.perf_counter()
corpus_edits([["a", "b", "c"]], [["b", "c", "a"]])
print(f"{imported - start:.3f} {time.perf_counter() - imported:.3f}")
"""


def data_root() -> Path:
    return Path(os.environ.get("MTSIG_DATA") or REPO.parent / "shared" / "data").resolve()


def load() -> str:
    """The load averages (1, 5, 15 minutes): how busy the machine was while a figure was measured."""
    one, five, fifteen = os.getloadavg()
    return f"[load {one:.1f} {five:.1f} {fifteen:.1f}, {os.cpu_count()} CPUs]"


def es_en_texts() -> tuple[list[str], dict[str, list[str]]]:
    root = data_root() / "wmt12"
    outputs = sorted((root / "system-outputs" / "es-en").iterdir())
    systems = {path.name.removeprefix("newstest2012.es-en."): path for path in outputs}
    return load_texts(root / "plain" / "newstest2012-ref.en", systems, unescape=True)


def first_call_seconds(cache_dir: str) -> tuple[float, float]:
    """(import, first call) seconds in a fresh interpreter whose numba cache is ``cache_dir``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir, "PYTHONPATH": str(REPO / "src")}
    done = subprocess.run(
        [sys.executable, "-c", FIRST_CALL], env=env, capture_output=True, text=True, check=True
    )
    imported, called = (float(value) for value in done.stdout.split())
    return imported, called


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--segments", type=int, default=None, help="first N segments of each system (default all)"
    )
    parser.add_argument("--repeats", type=int, default=3, help="compiled runs per system (median printed)")
    args = parser.parse_args()

    print("numba compile time (first call in a fresh process):")
    with tempfile.TemporaryDirectory() as cache_dir:
        for label in ("empty cache (compiles, writes the cache)", "cache written by the run above"):
            imported, called = first_call_seconds(cache_dir)
            print(f"    {label}: import {imported:.2f} s, first call {called:.2f} s {load()}", flush=True)

    refs, systems = es_en_texts()
    n = len(refs) if args.segments is None else min(args.segments, len(refs))
    refs = refs[:n]
    systems = {name: hyps[:n] for name, hyps in systems.items()}
    print(f"WMT12 es-en: {len(systems)} systems x {n} segments, one process each")
    compiled, sacrebleu = get_metric("ter"), get_metric("ter", implementation="sacrebleu")
    compiled.stats(["warm up"], ["warm the cache up"])

    total_sacre = total_compiled = 0.0
    identical = True
    for name, hyps in systems.items():
        # sacrebleu's tokeniser memoises up to 65 536 sentences: every timed run starts without them
        TercomTokenizer.__call__.cache_clear()
        start = time.perf_counter()
        expected = sacrebleu.stats(hyps, refs)
        seconds_sacre = time.perf_counter() - start
        runs = []
        for _ in range(args.repeats):
            TercomTokenizer.__call__.cache_clear()
            start = time.perf_counter()
            got = compiled.stats(hyps, refs)
            runs.append(time.perf_counter() - start)
        seconds_compiled = statistics.median(runs)
        identical &= bool(np.array_equal(got, expected))
        total_sacre += seconds_sacre
        total_compiled += seconds_compiled
        print(
            f"    {name:15s} sacrebleu {seconds_sacre:6.2f} s  compiled {1e3 * seconds_compiled:6.1f} ms "
            f"(median of {args.repeats})  x{seconds_sacre / seconds_compiled:5.0f} {load()}",
            flush=True,
        )
    print(
        f"total: sacrebleu {total_sacre:.1f} s, compiled {total_compiled:.2f} s; identical statistics: {identical}"
    )
    print(f"speedup_vs_sacrebleu: {total_sacre / total_compiled:.0f}")


if __name__ == "__main__":
    main()
