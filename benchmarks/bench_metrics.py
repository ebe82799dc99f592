"""Time the per-segment statistics of every metric on WMT12 es-en (12 systems, 3003 segments).

Usage: python benchmarks/bench_metrics.py [--data DATA_ROOT] [--processes 2] [--metrics bleu nist ...]

Prints seconds per metric and the corpus scores table (system x metric, HTML entities undone).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from mtsig.io.text import load_texts
from mtsig.metrics import METRICS, get_metric

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument(
        "--metrics", nargs="+", default=["bleu", "nist", "meteor", "ter", "chrf"], choices=list(METRICS)
    )
    args = parser.parse_args()

    folder = args.data / "wmt12"
    outputs = {
        path.name.removeprefix("newstest2012.es-en."): path
        for path in sorted((folder / "system-outputs" / "es-en").glob("newstest2012.es-en.*"))
    }
    refs, systems = load_texts(folder / "plain" / "newstest2012-ref.en", outputs, unescape=True)
    print(f"WMT12 es-en: {len(systems)} systems x {len(refs)} segments, processes={args.processes}")

    scores: dict[str, list[float]] = {}
    for name in args.metrics:
        metric = get_metric(name, language="en") if name == "meteor" else get_metric(name)
        start = time.perf_counter()
        stats = metric.stats_many(systems, refs, processes=args.processes)
        seconds = time.perf_counter() - start
        scores[name] = metric.score(stats.sum(axis=1)).tolist()
        print(f"{name:7s} {seconds:8.1f} s   stats {tuple(stats.shape)}   {metric.details()}", flush=True)

    print()
    print("system".ljust(16) + "".join(f"{name:>9s}" for name in scores))
    for i, system in enumerate(systems):
        print(system.ljust(16) + "".join(f"{scores[name][i]:9.4f}" for name in scores))


if __name__ == "__main__":
    main()
