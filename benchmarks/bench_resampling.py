"""Speed benchmarks of mtsig.resampling (issue 3). Prints figures; asserts nothing about time.

    python benchmarks/bench_resampling.py sacrebleu   # (a)+(b): mtsig vs sacrebleu PairedTest, WMT12 es-en BLEU
    python benchmarks/bench_resampling.py matrix      # (c): es-en, 5 metrics x all tests, wall time + peak memory
    python benchmarks/bench_resampling.py growth      # (d): synthetic 100 systems x 10 000 segments
    python benchmarks/bench_resampling.py all

The data root is ``$MTSIG_DATA`` or ``../shared/data``. See benchmarks/README.md for the targets.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

from mtsig import resampling as rs
from mtsig.io.documents import read_sgm_documents
from mtsig.io.text import load_texts
from mtsig.metrics import get_metric

REPO = Path(__file__).resolve().parents[1]


def data_root() -> Path:
    return Path(os.environ.get("MTSIG_DATA") or REPO.parent / "shared" / "data").resolve()


def es_en_texts() -> tuple[list[str], dict[str, list[str]]]:
    root = data_root() / "wmt12"
    outputs = sorted((root / "system-outputs" / "es-en").iterdir())
    systems = {path.name.removeprefix("newstest2012.es-en."): path for path in outputs}
    return load_texts(root / "plain" / "newstest2012-ref.en", systems, unescape=True)


def es_en_documents() -> np.ndarray:
    return read_sgm_documents(data_root() / "wmt12" / "sgm" / "newstest2012-ref.en.sgm")


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    value = function(*args, **kwargs)
    return value, time.perf_counter() - start


def bench_sacrebleu(samples: int = 10_000) -> None:
    """(a) mtsig: all 66 pairs x 3 paper tests x ``samples``; (b) sacrebleu PairedTest: one baseline vs 11 systems,
    AR with 10 000 trials and paired bootstrap with 1 000 resamples (its defaults), in the same run."""
    from sacrebleu.metrics import BLEU as SacreBLEU
    from sacrebleu.significance import PairedTest

    refs, outputs = es_en_texts()
    names = list(outputs)
    bleu = get_metric("bleu")
    stats, stats_seconds = timed(bleu.stats_many, outputs, refs)
    result, mtsig_seconds = timed(
        rs.pairwise_tests, stats, bleu.score, names, tests=rs.PAPER_TESTS, n_samples=samples, seed=1
    )
    n_mtsig = len(result.table) // 2  # unordered pairs x tests
    print(
        f"(a) mtsig: {len(names)} systems, {stats.shape[1]} segments, {n_mtsig} comparisons (66 pairs x 3 tests)"
    )
    print(f"    statistics {stats_seconds:.2f} s (not in the test time); tests {mtsig_seconds:.2f} s")
    print(f"    per comparison ({samples} samples): {1e3 * mtsig_seconds / n_mtsig:.2f} ms")

    os.environ.setdefault("SACREBLEU_SEED", "12345")
    named = [(name, outputs[name]) for name in names]
    sacre_seconds = {}
    for test_type, n in (("ar", 10_000), ("bs", 1_000)):
        metric = SacreBLEU(references=[refs])
        _, sacre_seconds[test_type] = timed(
            PairedTest(named, {"BLEU": metric}, None, test_type=test_type, n_samples=n)
        )
    metric = SacreBLEU(references=[refs])
    _, extraction = timed(lambda: [metric._extract_corpus_statistics(outputs[n], None) for n in names])
    n_sacre = 2 * (len(names) - 1)
    total = sum(sacre_seconds.values())
    tests_only = total - 2 * extraction  # PairedTest extracts every system's statistics once per call
    print(
        f"(b) sacrebleu PairedTest: AR 10000 {sacre_seconds['ar']:.2f} s, bootstrap 1000 {sacre_seconds['bs']:.2f} s"
    )
    print(f"    statistics extraction {extraction:.2f} s per call, subtracted")
    per_mtsig, per_sacre = mtsig_seconds / n_mtsig, tests_only / n_sacre
    print(f"    per comparison (AR 10000 or bootstrap 1000): {1e3 * per_sacre:.1f} ms")
    print(f"speedup_vs_sacrebleu_per_comparison: {per_sacre / per_mtsig:.0f}")


def metric_stats(cache: Path | None) -> dict[str, tuple[np.ndarray, object]]:
    """Stats of the 5 metrics on es-en (cached in ``cache`` as npz); a metric whose statistics cannot be computed
    (e.g. no Java for METEOR) is replaced by BLEU statistics padded to a synthetic width, and said so."""
    refs, outputs = es_en_texts()
    found = {}
    for name in ("bleu", "nist", "meteor", "ter", "chrf"):
        metric = get_metric(name)
        path = None if cache is None else cache / f"{name}.npz"
        if path is not None and path.is_file():
            stats = np.load(path)["stats"]
        else:
            try:
                stats, seconds = timed(metric.stats_many, outputs, refs)
                print(f"    {name}: statistics {stats.shape} in {seconds:.1f} s")
            except Exception as error:  # any failure here means "use a stand-in"
                print(f"    {name}: statistics unavailable ({error}); using BLEU statistics as a stand-in")
                metric = get_metric("bleu")
                stats = metric.stats_many(outputs, refs)
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                np.savez_compressed(path, stats=stats)
        found[name] = (stats, metric)
    return found


def bench_matrix(samples: int = 10_000, cache: Path | None = None) -> None:
    """(c) The full es-en matrix: 5 metrics x all tests x all 66 pairs, given precomputed statistics."""
    print("(c) full es-en matrix: computing/reading statistics (not timed)")
    per_metric = metric_stats(cache)
    names = list(es_en_texts()[1])
    documents = es_en_documents()

    def run_all() -> int:
        rows = 0
        for stats, metric in per_metric.values():
            result = rs.pairwise_tests(
                stats,
                metric.score,
                names,
                higher_is_better=metric.higher_is_better,
                tests=rs.ALL_TESTS,
                n_samples=samples,
                seed=1,
                documents=documents,
            )
            rows += len(result.table)
        return rows

    rows, seconds = timed(run_all)
    tracemalloc.start()
    run_all()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    widths = {name: stats.shape[2] for name, (stats, _) in per_metric.items()}
    print(
        f"    {len(per_metric)} metrics (k = {widths}), {len(rs.ALL_TESTS)} tests, {samples} samples, {rows} rows"
    )
    print(f"    wall time: {seconds:.2f} s (target < 10 s on 2 cores)")
    print(f"    peak traced allocation during the run: {peak / 2**30:.3f} GiB (target < 2 GiB)")
    print(f"    process max RSS so far: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.3f} GiB")


def synthetic_bleu_stats(n_systems: int, n_segments: int, seed: int = 0) -> np.ndarray:
    """Integer BLEU-like statistics ``[sys_len, ref_len, correct_1..4, total_1..4]`` of ``n_systems`` systems."""
    rng = np.random.default_rng(seed)
    hyp_len = rng.integers(5, 50, size=(n_systems, n_segments))
    ref_len = np.broadcast_to(rng.integers(5, 50, size=n_segments), (n_systems, n_segments))
    quality = rng.uniform(0.4, 0.6, size=(n_systems, 1))
    total = np.stack([np.maximum(hyp_len - n, 0) for n in range(4)], axis=-1)
    correct = np.stack([rng.binomial(total[..., n], quality * 0.8**n) for n in range(4)], axis=-1)
    return np.concatenate([hyp_len[..., None], ref_len[..., None], correct, total], axis=-1).astype(
        np.float64
    )


def machine_flops() -> float:
    """FLOP/s of a timed 3000 x 3000 float64 matrix product (best of 3), as a lower-bound reference."""
    a = np.random.default_rng(0).random((3000, 3000))
    best = min(timed(np.matmul, a, a)[1] for _ in range(3))
    return 2 * 3000**3 / best


def bench_growth(n_systems: int = 100, n_segments: int = 10_000, samples: int = 10_000) -> None:
    """(d) Growth with pairs and samples on synthetic BLEU-like statistics; the matmul lower bound."""
    bleu = get_metric("bleu")
    stats = synthetic_bleu_stats(n_systems, n_segments)
    names = [f"sys{i:03d}" for i in range(n_systems)]
    all_pairs = [(i, j) for i in range(n_systems) for j in range(i + 1, n_systems)]
    rate = machine_flops()
    print(f"(d) synthetic {n_systems} systems x {n_segments} segments, k = {stats.shape[2]}, 3 paper tests")
    print(f"    machine: {rate / 1e9:.1f} GFLOP/s (float64 matmul, BLAS threads as configured)")
    for n_pairs, n in (
        (len(all_pairs) // 10, samples // 10),
        (len(all_pairs), samples // 10),
        (len(all_pairs), samples),
    ):
        pairs = all_pairs[:: len(all_pairs) // n_pairs][:n_pairs]
        _, seconds = timed(
            rs.pairwise_tests,
            stats,
            bleu.score,
            names,
            tests=rs.PAPER_TESTS,
            n_samples=n,
            seed=1,
            pairs=pairs,
        )
        # One bootstrap and one AR product per sample over every system, whatever the number of pairs.
        flops = 2 * (2 * n * n_segments * stats.shape[0] * stats.shape[2])
        print(
            f"    pairs {len(pairs):5d}  samples {n:6d}: {seconds:7.2f} s  "
            f"({1e3 * seconds / (3 * len(pairs)):.2f} ms per comparison; matmul lower bound {flops / rate:.2f} s)"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("sacrebleu", "matrix", "growth", "all"))
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument(
        "--stats-cache", type=Path, default=None, help="directory caching (c)'s metric statistics"
    )
    args = parser.parse_args(argv)
    print(f"numpy {np.__version__}; OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}")
    if args.part in ("growth", "all"):
        bench_growth(samples=args.samples)
    if args.part in ("matrix", "all"):
        bench_matrix(args.samples, args.stats_cache)
    if args.part in ("sacrebleu", "all"):  # last, so that the speedup is the last line
        bench_sacrebleu(args.samples)
    return 0


if __name__ == "__main__":
    sys.exit(main())
