"""How long ``mtsig --help``, ``mtsig rank --help`` and a two-system ``mtsig compare`` take, and how much of the
compare is importing. Asserts nothing; prints wall and CPU seconds (medians of ``--runs`` fresh interpreters) with
the load averages, for this checkout's ``src`` and, with ``--against``, another checkout's.

    python benchmarks/bench_cli_startup.py
    python benchmarks/bench_cli_startup.py --against ../main/src --runs 5

Each command runs as ``python -m mtsig.cli ...`` (the console script's code, without an installer's launcher in
front of it). CPU seconds are the child's user + system time (``resource.getrusage``). The compare is WMT12 es-en
UPC vs onlineA, BLEU, the paired bootstrap with 1,000 samples (``$MTSIG_DATA`` or ``../shared/data``); its import
seconds are the CPU seconds of a fresh interpreter that imports exactly the modules the compare imported at the top
level (``python -X importtime``'s list), so that the machine's load does not inflate them.
tests/test_cli_startup.py checks, without timing anything, that ``mtsig --help`` imports no numpy, pandas or scipy.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HELP_COMMANDS = (["--help"], ["rank", "--help"], ["compare", "--help"])


def data_root() -> Path:
    return Path(os.environ.get("MTSIG_DATA", "../shared/data"))


def compare_command() -> list[str]:
    outputs = data_root() / "wmt12" / "system-outputs" / "es-en"
    return [
        "compare",
        "--ref",
        str(data_root() / "wmt12" / "plain" / "newstest2012-ref.en"),
        "--unescape-html",
        "--samples",
        "1000",
        "--tests",
        "paired_bootstrap",
        "--quiet",
        str(outputs / "newstest2012.es-en.UPC"),
        str(outputs / "newstest2012.es-en.onlineA"),
    ]


def timed(words: list[str], source: str) -> tuple[float, float, list[str]]:
    """``(wall s, CPU s, top-level modules imported)`` of ``python -X importtime -m mtsig.cli WORDS`` with
    ``source`` on PYTHONPATH."""
    done, wall, cpu = _child([sys.executable, "-X", "importtime", "-m", "mtsig.cli", *words], source)
    if done.returncode != 0:
        raise SystemExit(f"mtsig {' '.join(words)} failed: {done.stderr[-500:]}")
    # "import time: self | cumulative | name": a top-level import has no indentation before its name
    modules = re.findall(r"^import time:\s+\d+ \|\s+\d+ \| (\S+)$", done.stderr, flags=re.M)
    return wall, cpu, modules


def import_cpu(modules: list[str], source: str) -> float:
    """CPU seconds of a fresh interpreter importing ``modules`` (and nothing else) with ``source``."""
    statement = "; ".join(f"import {name}" for name in modules if not name.startswith("encodings"))
    return _child([sys.executable, "-c", statement or "pass"], source)[2]


def _child(command: list[str], source: str) -> tuple[subprocess.CompletedProcess[str], float, float]:
    env = {**os.environ, "PYTHONPATH": source}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return done, wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def report(label: str, source: str, runs: int) -> None:
    empty = [_child([sys.executable, "-c", "pass"], source) for _ in range(runs)]
    wall, cpu = statistics.median(s[1] for s in empty), statistics.median(s[2] for s in empty)
    print(f"{label}  python -c pass (the interpreter alone)  wall {wall:.3f} s  CPU {cpu:.3f} s")
    for words in HELP_COMMANDS:
        samples = [timed(words, source) for _ in range(runs)]
        wall = statistics.median(s[0] for s in samples)
        cpu = statistics.median(s[1] for s in samples)
        print(f"{label}  mtsig {' '.join(words):<16}  wall {wall:.3f} s  CPU {cpu:.3f} s")
    samples = [timed(compare_command(), source) for _ in range(max(1, runs // 2))]
    wall, cpu = (statistics.median(s[i] for s in samples) for i in range(2))
    imports = statistics.median(import_cpu(samples[0][2], source) for _ in range(runs))
    print(
        f"{label}  mtsig compare (2 systems)  wall {wall:.2f} s  CPU {cpu:.2f} s  of which imports {imports:.2f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", help="another checkout's src folder, measured the same way")
    parser.add_argument("--runs", type=int, default=5, help="fresh interpreters per command (default 5)")
    args = parser.parse_args()
    print(f"load averages {' '.join(f'{v:.2f}' for v in os.getloadavg())}, {os.cpu_count()} CPUs")
    report("this", str(Path(__file__).resolve().parents[1] / "src"), args.runs)
    if args.against:
        report("against", str(Path(args.against).resolve()), args.runs)


if __name__ == "__main__":
    main()
