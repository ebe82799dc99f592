"""WMT26's first ranking rule, the organisers' own function run side by side with mtsig's ``wmt26_ttest`` on the
WMT24 ESA waves 2 and 3 (en-cs, en-hi, en-ja, en-zh). Prints both and their differences; asserts nothing.

    python benchmarks/bench_wmt26_ttest.py
    python benchmarks/bench_wmt26_ttest.py --write-oracle tests/oracles/wmt26_ttest_decisions.tsv   # the test's

The source is ``humeval/02-analyze_results.py`` of wmt-conference/wmt26-general-mt@1fa5211, read from the snapshot's
git directory (``--wmt26-git``: the folder the ``fetch`` tool writes) or from a file (``--source``). Its function
``is_significantly_better`` (``scipy.stats.ttest_rel`` or ``ttest_ind``, both with ``nan_policy="omit"``, either p
< 0.05) is taken from the file with ``ast`` and run in this interpreter, without the rest of the script (which reads
WMT26's annotations and compiles Typst). Their layout is one list per system over the items, NaN where not rated,
the systems sorted by the mean of their rated items; the function is called for every pair, the system above first,
as their loop over ``significant_globally`` calls it. mtsig's decisions are ``run_procedure("wmt26_ttest")``'s.

CPU seconds are ``time.process_time`` of each side's decisions (reading excluded).
"""

from __future__ import annotations

import argparse
import ast
import functools
import math
import os
import statistics
import subprocess
import time
from pathlib import Path

import numpy as np
import scipy.stats

from mtsig.io.esa import read_esa
from mtsig.stats.system_ranking import item_scores, run_procedure

WMT26_GIT = "/work/.mirror/wmt-conference+wmt26-general-mt/repo"
COMMIT = "1fa5211"
SCRIPT = "humeval/02-analyze_results.py"
WAVES = ("esa_generalMT2024_wave2.csv", "esa_generalMT2024_wave3.csv")
LPS = ("en-cs", "en-hi", "en-ja", "en-zh")


def organisers_function(source: str):
    """``is_significantly_better`` of the organisers' script, compiled alone (with its ``lru_cache``)."""
    tree = ast.parse(source)
    nodes = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "is_significantly_better"]
    if len(nodes) != 1:
        raise SystemExit("no function is_significantly_better in the source")
    namespace = {"scipy": scipy, "functools": functools, "np": np, "math": math, "statistics": statistics}
    exec(compile(ast.Module(body=nodes, type_ignores=[]), SCRIPT, "exec"), namespace)  # noqa: S102 - their code
    return namespace["is_significantly_better"]


def organisers_decisions(function, items) -> tuple[list[str], dict[tuple[str, str], bool]]:
    """Their order (mean of the rated items, a stable sort) and their decision on every pair, the system above
    first."""
    vectors = [(name, [float(v) for v in items.scores[s]]) for s, name in enumerate(items.systems)]
    vectors.sort(key=lambda x: statistics.mean([v for v in x[1] if not np.isnan(v)]), reverse=True)
    decisions = {}
    for up in range(len(vectors)):
        for down in range(up + 1, len(vectors)):
            (a, va), (b, vb) = vectors[up], vectors[down]
            decisions[(a, b)] = bool(function(tuple(va), tuple(vb)))
    return [name for name, _ in vectors], decisions


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--wmt26-git", default=WMT26_GIT)
    parser.add_argument("--source", type=Path, help="the script as a file, instead of the git snapshot")
    parser.add_argument("--write-oracle", type=Path)
    args = parser.parse_args()
    if args.source:
        source = args.source.read_text(encoding="utf-8")
    else:
        source = subprocess.run(
            ["git", "-C", args.wmt26_git, "show", f"{COMMIT}:{SCRIPT}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    function = organisers_function(source)
    data = Path(os.environ.get("MTSIG_DATA", "../shared/data")) / "wmt24-esa"
    export = read_esa([data / "humeval" / w for w in WAVES], data / "documents")
    print(f"load {os.getloadavg()}; scipy {scipy.__version__}")
    rows = []
    for lp in LPS:
        items = item_scores(export.ratings.loc[export.ratings["lp"] == lp])
        start = time.process_time()
        order, theirs = organisers_decisions(function, items)
        cpu_theirs = time.process_time() - start
        start = time.process_time()
        arrays = run_procedure("wmt26_ttest", items.scores, items.segments, items.domains)
        cpu_ours = time.process_time() - start
        index = {s: i for i, s in enumerate(items.systems)}
        ours_order = [items.systems[i] for i in arrays.order[0]]
        differ = [(a, b) for (a, b), d in theirs.items() if bool(arrays.beats[0, index[a], index[b]]) != d]
        reverse = int(sum(arrays.beats[0, index[b], index[a]] for a, b in theirs))
        print(
            f"{lp}: {len(theirs)} pairs, {sum(theirs.values())} declared by theirs, {len(differ)} decisions differ, "
            f"{reverse} declared the other way by mtsig, order equal {order == ours_order}; "
            f"CPU s theirs {cpu_theirs:.3f}, mtsig {cpu_ours:.3f}"
        )
        rows += [(lp, a, b, d) for (a, b), d in theirs.items()]
    if args.write_oracle:
        with args.write_oracle.open("w") as f:
            f.write(
                "# The WMT26 organisers' is_significantly_better (wmt-conference/wmt26-general-mt@1fa5211\n"
                f"# humeval/02-analyze_results.py; scipy {scipy.__version__}) on the WMT24 ESA waves 2+3: every pair, the\n"
                "# system above (mean of its rated items) first; written by:\n"
                "# python benchmarks/bench_wmt26_ttest.py --write-oracle tests/oracles/wmt26_ttest_decisions.tsv\n"
                "lp\tsystem1\tsystem2\tbetter\n"
            )
            for lp, a, b, d in rows:
                f.write(f"{lp}\t{a}\t{b}\t{int(d)}\n")
        print(f"oracle written to {args.write_oracle}")


if __name__ == "__main__":
    main()
