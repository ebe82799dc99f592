"""Sharded randomized tests at scale: 100 synthetic systems x 10 000 segments (4 950 pairs), 3 paper tests.

    python benchmarks/bench_sharding.py [--systems 100] [--segments 10000] [--samples 10000] [--shards 10]

Runs the unsharded engine once, then every shard of pairs exactly as the pipeline splits them
(:func:`mtsig.studies.significance.shard_pairs`), prints the time of each shard and the total, and checks that the shard
tables, concatenated in shard order and written as the pipeline writes them (:func:`mtsig.steps.files.write_tsv`),
equal the unsharded table byte for byte. Prints figures; asserts nothing about time.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # see bench_resampling.py; must precede numpy

import argparse  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import pandas as pd  # noqa: E402

from mtsig.metrics import get_metric  # noqa: E402
from mtsig.stats import resampling as rs  # noqa: E402
from mtsig.steps.files import write_tsv  # noqa: E402
from mtsig.studies.significance import shard_pairs  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_resampling import load, synthetic_bleu_stats  # noqa: E402


def tsv_bytes(table: pd.DataFrame) -> bytes:
    """The bytes the pipeline would write for ``table``."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "tests.tsv"
        write_tsv(table, path)
        return path.read_bytes()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=100)
    parser.add_argument("--segments", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--shards", type=int, default=10)
    args = parser.parse_args(argv)
    threads = os.environ.setdefault("MTSIG_THREADS", "2")

    bleu = get_metric("bleu")
    stats = synthetic_bleu_stats(args.systems, args.segments)
    names = [f"sys{i:03d}" for i in range(args.systems)]

    def run(pairs: list[tuple[int, int]] | None) -> pd.DataFrame:
        return rs.pairwise_tests(
            stats,
            bleu.score,
            names,
            rs.ResamplingOptions(tests=rs.PAPER_TESTS, n_samples=args.samples, seed=1, pairs=pairs),
        ).table

    n_pairs = args.systems * (args.systems - 1) // 2
    print(
        f"(e) synthetic {args.systems} systems ({n_pairs} pairs) x {args.segments} segments, 3 paper tests, "
        f"{args.samples} samples; MTSIG_THREADS={threads}, OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}"
    )
    start = time.perf_counter()
    full = run(None)
    unsharded = time.perf_counter() - start
    print(f"    unsharded: {unsharded:.2f} s {load()}")

    tables, total = [], 0.0
    for shard in range(args.shards):
        pairs = shard_pairs(args.systems, shard, args.shards)
        start = time.perf_counter()
        tables.append(run(pairs))
        seconds = time.perf_counter() - start
        total += seconds
        print(f"    shard {shard + 1:2d}/{args.shards}: {len(pairs):4d} pairs {seconds:7.2f} s {load()}")
    print(f"    all shards: {total:.2f} s in sequence ({total / unsharded:.2f} x unsharded)")
    sharded = pd.concat(tables, ignore_index=True)
    print(f"identical: {tsv_bytes(sharded) == tsv_bytes(full)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
