"""Extra engine cost of confidence intervals (mtsig.stats.intervals): WMT12 es-en BLEU, 66 pairs. Prints; asserts nothing.

    python benchmarks/bench_intervals.py [--samples 10000] [--repeats 7]

Times :func:`mtsig.stats.resampling.pairwise_tests` with and without ``intervals=("percentile", "bca")`` for (i) the
paired bootstrap alone, where the intervals' share is largest, and (ii) the paper's three tests, as the pipeline runs
them; medians of ``--repeats`` alternating runs, one mtsig thread. The BLEU statistics are computed once, untimed.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # see bench_resampling.py; must precede numpy

import argparse  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from mtsig.metrics import get_metric  # noqa: E402
from mtsig.stats import resampling as rs  # noqa: E402
from mtsig.stats.intervals import INTERVAL_METHODS, intervals_from_draws, leave_one_out_scores  # noqa: E402
from mtsig.stats.resampling import schemes  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_resampling import es_en_texts, load, timed  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()

    refs, outputs = es_en_texts()
    names = list(outputs)
    bleu = get_metric("bleu")
    stats, seconds = timed(bleu.stats_many, outputs, refs)
    n_pairs = len(names) * (len(names) - 1) // 2
    print(
        f"WMT12 es-en BLEU: {len(names)} systems, {stats.shape[1]} segments, {n_pairs} pairs, {args.samples} samples"
    )
    print(f"    statistics {stats.shape} in {seconds:.1f} s (not part of any timing) {load()}")

    for label, tests in (
        ("paired bootstrap alone", ("paired_bootstrap",)),
        ("paper's 3 tests", rs.PAPER_TESTS),
    ):

        def run(intervals: tuple[str, ...], tests: tuple[str, ...] = tests) -> rs.PairwiseResult:
            return rs.pairwise_tests(
                stats,
                bleu.score,
                names,
                rs.ResamplingOptions(tests=tests, n_samples=args.samples, seed=1, intervals=intervals),
            )

        run(INTERVAL_METHODS)  # warm-up
        times: dict[str, list[float]] = {"without": [], "with": []}
        for _ in range(args.repeats):  # alternate so that load drifts hit both alike
            times["without"].append(timed(run, ())[1])
            times["with"].append(timed(run, INTERVAL_METHODS)[1])
        without, with_ = (statistics.median(times[key]) for key in ("without", "with"))
        print(
            f"{label}: without intervals {without:.3f} s, with percentile + BCa {with_:.3f} s (medians of "
            f"{args.repeats}); extra {with_ - without:+.3f} s = {100 * (with_ - without) / without:+.1f}% {load()}"
        )

    # The added work alone, on arrays of the run's shapes: the jackknife, then both intervals of 66 pairs and 12
    # systems from their 10 000 draws each (sorting them dominates).
    jackknife, jackknife_seconds = timed(
        leave_one_out_scores, stats, bleu.score, schemes.CACHE_FRIENDLY_BYTES
    )
    draws = np.random.default_rng(0).normal(size=(n_pairs + len(names), args.samples))
    estimate = np.zeros(n_pairs + len(names))
    pair_jackknife = np.repeat(jackknife, -(-(n_pairs + len(names)) // len(names)), axis=0)[: len(estimate)]
    seconds = [
        timed(intervals_from_draws, draws, estimate, INTERVAL_METHODS, 0.95, pair_jackknife)[1]
        for _ in range(args.repeats)
    ]
    print(
        f"added work alone: jackknife {jackknife.shape} {1e3 * jackknife_seconds:.1f} ms; percentile + BCa of "
        f"{len(estimate)} rows x {args.samples} draws {1e3 * statistics.median(seconds):.1f} ms (median) {load()}"
    )


if __name__ == "__main__":
    main()
