"""Speed benchmarks of mtsig.stats.resampling. Prints figures; asserts nothing about time.

    python benchmarks/bench_resampling.py sacrebleu   # (a)+(b): mtsig vs sacrebleu PairedTest, WMT12 es-en BLEU
    python benchmarks/bench_resampling.py matrix      # (c): es-en, 5 metrics x all tests, wall time + peak memory
    python benchmarks/bench_resampling.py growth      # (d): synthetic 100 systems x 10 000 segments
    python benchmarks/bench_resampling.py all         # (d), (c), then (a)+(b): the speedup is the last line

The data root is ``$MTSIG_DATA`` or ``../shared/data``. See benchmarks/README.md for the targets. Every figure is
printed with the 1-minute load average at the time, because other processes on the machine slow everything down.
"""

from __future__ import annotations

import os

# The per-block products are small: one BLAS thread per mtsig thread is fastest (README). Must precede numpy.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from mtsig.io.documents import read_sgm_documents  # noqa: E402
from mtsig.io.text import load_texts  # noqa: E402
from mtsig.metrics import get_metric  # noqa: E402
from mtsig.stats import resampling as rs  # noqa: E402
from mtsig.stats.resampling import operands  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
METRICS = ("bleu", "nist", "meteor", "ter", "chrf")


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


def es_en_documents() -> np.ndarray:
    return read_sgm_documents(data_root() / "wmt12" / "sgm" / "newstest2012-ref.en.sgm")


def timed(function: Callable, *args, **kwargs):
    start = time.perf_counter()
    value = function(*args, **kwargs)
    return value, time.perf_counter() - start


def repeated(function: Callable[[], object], repeats: int) -> list[float]:
    """Wall seconds of each of ``repeats`` calls."""
    return [timed(function)[1] for _ in range(repeats)]


def with_threads(threads: int, function: Callable[[], object]) -> Callable[[], object]:
    """``function`` run with ``MTSIG_THREADS=threads`` (read by mtsig.stats.resampling at each call)."""

    def run() -> object:
        previous = os.environ.get("MTSIG_THREADS")
        os.environ["MTSIG_THREADS"] = str(threads)
        try:
            return function()
        finally:
            if previous is None:
                del os.environ["MTSIG_THREADS"]
            else:
                os.environ["MTSIG_THREADS"] = previous

    return run


def metric_stats(
    cache: Path | None, names: list[str], metrics: tuple[str, ...] = METRICS
) -> dict[str, tuple[np.ndarray, object]]:
    """Statistics of ``metrics`` (default: the 5) on es-en, systems in ``names`` order (cached in ``cache`` as npz: computing
    METEOR and TER statistics takes minutes and is not part of any timing). A metric whose statistics cannot be
    computed (e.g. no Java for METEOR) is replaced by BLEU statistics, and said so."""
    refs, outputs = es_en_texts()
    assert list(outputs) == names
    found = {}
    for name in metrics:
        metric = get_metric(name)
        path = None if cache is None else cache / f"{name}.npz"
        if path is not None and path.is_file():
            stats = np.load(path)["stats"]
        else:
            try:
                stats, seconds = timed(metric.stats_many, outputs, refs)
                print(f"    {name}: statistics {stats.shape} in {seconds:.1f} s {load()}")
            except Exception as error:  # any failure here means "use a stand-in"
                print(f"    {name}: statistics unavailable ({error}); using BLEU statistics as a stand-in")
                metric = get_metric("bleu")
                stats = metric.stats_many(outputs, refs)
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                np.savez_compressed(path, stats=stats)
        found[name] = (stats, metric)
    return found


def bench_sacrebleu(samples: int, threads: int, cache: Path | None, repeats: int = 5) -> None:
    """(a) mtsig: all 66 pairs x 3 paper tests x ``samples``; (b) sacrebleu PairedTest: one baseline vs 11 systems,
    AR with 10 000 trials and paired bootstrap with 1 000 resamples (its defaults), in the same run.

    The headline compares one core with one core: mtsig with one thread (median of ``repeats`` runs before and
    ``repeats`` after sacrebleu's) against sacrebleu with ``n_jobs=1`` (one run each; its statistics extraction is
    timed separately and subtracted)."""
    import sacrebleu
    from sacrebleu.metrics import BLEU as SacreBLEU
    from sacrebleu.significance import PairedTest

    refs, outputs = es_en_texts()
    names = list(outputs)
    bleu = get_metric("bleu")
    stats = (
        metric_stats(cache, names, ("bleu",))["bleu"][0]
        if cache is not None
        else bleu.stats_many(outputs, refs)
    )

    def run_mtsig() -> rs.PairwiseResult:
        return rs.pairwise_tests(
            stats, bleu.score, names, rs.ResamplingOptions(tests=rs.PAPER_TESTS, n_samples=samples, seed=1)
        )

    n_mtsig = len(run_mtsig().table) // 2  # unordered pairs x tests (also a warm-up)
    print(
        f"(a) mtsig: {len(names)} systems, {stats.shape[1]} segments, {n_mtsig} comparisons (pairs x 3 tests)"
    )
    thread_counts = sorted({1, threads})
    # mtsig runs take < 1 s and the load drifts: time them both before and after sacrebleu's minute-long run.
    seconds = {n: repeated(with_threads(n, run_mtsig), repeats) for n in thread_counts}
    load_before = load()

    os.environ.setdefault("SACREBLEU_SEED", "12345")
    named = [(name, outputs[name]) for name in names]
    sacre_seconds = {}
    for test_type, n in (("ar", 10_000), ("bs", 1_000)):
        metric = SacreBLEU(references=[refs])
        test = PairedTest(named, {"BLEU": metric}, None, test_type=test_type, n_samples=n, n_jobs=1)
        _, sacre_seconds[test_type] = timed(test)
    metric = SacreBLEU(references=[refs])
    _, extraction = timed(lambda: [metric._extract_corpus_statistics(outputs[n], None) for n in names])
    load_sacre = load()

    per_mtsig = {}
    for n_threads in thread_counts:
        runs = seconds[n_threads] + repeated(with_threads(n_threads, run_mtsig), repeats)
        median = statistics.median(runs)
        per_mtsig[n_threads] = median / n_mtsig
        print(
            f"    MTSIG_THREADS={n_threads}: median {median:.3f} s, best {min(runs):.3f} s, worst {max(runs):.3f} s "
            f"of {len(runs)} runs; per comparison ({samples} samples) {1e3 * median / n_mtsig:.2f} ms (median) "
            f"{load_before} before, {load()} after"
        )
    n_sacre = 2 * (len(names) - 1)
    tests_only = sum(sacre_seconds.values()) - 2 * extraction  # each call extracts every system's statistics
    per_sacre = tests_only / n_sacre
    print(
        f"(b) sacrebleu {sacrebleu.__version__} PairedTest, n_jobs=1: AR 10000 "
        f"{sacre_seconds['ar']:.2f} s, bootstrap 1000 {sacre_seconds['bs']:.2f} s; statistics extraction "
        f"{extraction:.2f} s per call, subtracted {load_sacre}"
    )
    print(f"    per comparison (AR 10000 or bootstrap 1000, {n_sacre} comparisons): {1e3 * per_sacre:.1f} ms")
    if threads != 1:
        print(f"speedup with MTSIG_THREADS={threads}: {per_sacre / per_mtsig[threads]:.0f}")
    print(f"speedup_vs_sacrebleu_per_comparison: {per_sacre / per_mtsig[1]:.0f}")


def bench_matrix(samples: int, threads: int, cache: Path | None) -> None:
    """(c) The full es-en matrix: 5 metrics x all tests x all 66 pairs, given precomputed statistics."""
    print("(c) full es-en matrix: computing/reading statistics (not timed)")
    names = list(es_en_texts()[1])
    per_metric = metric_stats(cache, names)
    documents = es_en_documents()

    def run_all() -> int:
        rows = 0
        for stats, metric in per_metric.values():
            result = rs.pairwise_tests(
                stats,
                metric.score,
                names,
                rs.ResamplingOptions(
                    higher_is_better=metric.higher_is_better,
                    tests=rs.ALL_TESTS,
                    n_samples=samples,
                    seed=1,
                    documents=documents,
                ),
            )
            rows += len(result.table)
        return rows

    widths = {name: stats.shape[2] for name, (stats, _) in per_metric.items()}
    print(f"    {len(per_metric)} metrics (k = {widths}), {len(rs.ALL_TESTS)} tests, {samples} samples")
    for n_threads in sorted({1, threads}):
        rows, seconds = timed(with_threads(n_threads, run_all))
        print(f"    MTSIG_THREADS={n_threads}: wall time {seconds:.2f} s for {rows} rows {load()}")
    tracemalloc.start()
    with_threads(threads, run_all)()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"    peak traced allocation during a run: {peak / 2**30:.3f} GiB (target < 2 GiB)")
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


def machine_flops(dtype: type, size: int = 2000) -> float:
    """FLOP/s of a timed ``size x size`` matrix product in ``dtype`` (best of 3), BLAS threads as configured."""
    a = np.random.default_rng(0).random((size, size)).astype(dtype)
    best = min(timed(np.matmul, a, a)[1] for _ in range(3))
    return 2 * size**3 / best


def product_flops(stats: np.ndarray, samples: int) -> float:
    """FLOPs of the two weight products (bootstrap counts and AR masks) ``[B, N] @ [N, U]`` over all samples,
    ``U`` the distinct statistic columns the engine multiplies."""
    n_systems, n_segments, k = stats.shape
    distinct = operands.distinct_columns(stats.transpose(1, 0, 2).reshape(n_segments, n_systems * k))[0]
    return 2 * (2 * samples * n_segments * distinct.shape[1])


def bench_growth(threads: int, n_systems: int = 100, n_segments: int = 10_000, samples: int = 10_000) -> None:
    """(d) Growth with systems (pairs) and samples on synthetic BLEU-like statistics; the matmul lower bound."""
    bleu = get_metric("bleu")
    all_stats = synthetic_bleu_stats(n_systems, n_segments)
    rates = {np.float32: machine_flops(np.float32), np.float64: machine_flops(np.float64)}
    print(
        f"(d) synthetic BLEU-like statistics, {n_segments} segments, k = {all_stats.shape[2]}, 3 paper tests"
    )
    print(
        f"    machine: {rates[np.float32] / 1e9:.1f} GFLOP/s float32, {rates[np.float64] / 1e9:.1f} GFLOP/s float64 "
        f"(OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}; the bounds below use this rate, i.e. "
        f"as many cores as BLAS threads) {load()}"
    )
    grid = [(n_systems // 4, samples), (n_systems // 2, samples)]
    grid += [(n_systems, samples // 10), (n_systems, samples // 2), (n_systems, samples)]
    for systems, n in grid:
        stats = all_stats[:systems]
        names = [f"sys{i:03d}" for i in range(systems)]
        n_pairs = systems * (systems - 1) // 2
        run = with_threads(
            threads,
            lambda stats=stats, names=names, n=n: rs.pairwise_tests(
                stats, bleu.score, names, rs.ResamplingOptions(tests=rs.PAPER_TESTS, n_samples=n, seed=1)
            ),
        )
        _, seconds = timed(run)
        dtype = np.float32 if operands.float32_is_exact(np.abs(stats).max(), n_segments) else np.float64
        bound = product_flops(stats, n) / rates[dtype]
        print(
            f"    systems {systems:4d} pairs {n_pairs:5d} samples {n:6d}: {seconds:7.2f} s "
            f"({1e3 * seconds / (3 * n_pairs):.3f} ms per comparison; {np.dtype(dtype).name} matmul lower bound "
            f"{bound:.2f} s; MTSIG_THREADS={threads}) {load()}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("sacrebleu", "matrix", "growth", "all"))
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument(
        "--threads", type=int, default=2, help="MTSIG_THREADS for (c), (d) and a second (a) run"
    )
    parser.add_argument(
        "--stats-cache", type=Path, default=None, help="directory caching the es-en metric statistics"
    )
    args = parser.parse_args(argv)
    print(
        f"numpy {np.__version__}; OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}; "
        f"mtsig threads for (c), (d): {args.threads} {load()}"
    )
    if args.part in ("growth", "all"):
        bench_growth(args.threads, samples=args.samples)
    if args.part in ("matrix", "all"):
        bench_matrix(args.samples, args.threads, args.stats_cache)
    if args.part in ("sacrebleu", "all"):  # last, so that the speedup is the last line
        bench_sacrebleu(args.samples, args.threads, args.stats_cache)
    return 0


if __name__ == "__main__":
    sys.exit(main())
