"""WMT's human-ranking procedures: the organisers' own code run side by side with mtsig.stats.system_ranking on the
WMT24 ESA waves 2 and 3 (en-cs, en-hi, en-ja, en-zh). Asserts nothing; prints both and the differences.

    python benchmarks/bench_human_ranking.py --python /tmp/mtsig-pandas2/bin/python
    python benchmarks/bench_human_ranking.py --python ... --write-oracles tests/oracles   # the tests' constants
    python benchmarks/bench_human_ranking.py --python /tmp/scipy114/bin/python \
        --pvalues-oracle tests/oracles/wmt24_esa_pvalues_scipy114.tsv   # their p-values under another scipy

``--python``: an interpreter with pandas 2 (the organisers' code predates pandas 3), scipy and jinja2, e.g. a venv
made with ``python -m venv --system-site-packages DIR && DIR/bin/pip install pandas==2.2.3``; default: this one.

WMT24 (wmt-conference/wmt24-news-systems@bfa937e): ``humeval/tools.py`` is written, from the snapshot's git directory
(``--wmt24-git``), into a temporary ``humeval/`` beside a ``txt/`` of symlinks to the data root's ``wmt24-esa``
folders, with ``ipdb`` (imported, never used) an empty module. The driver runs ``load_data`` on the two waves,
``attach_resources``, and the lines of ``calculate_clusters.py``'s ``main`` that rank (the averaging of repeated
ratings, the macro average, ``sort_values``, ``get_pvalues``, ``get_ranks``, ``get_clusters``); the AutoRank,
MQM and LaTeX parts are left out. The waves are the released files. Under pandas 2 the loop in ``load_data`` that
subtracts 1 from every segment id (``for index, row in df.iterrows(): row['segment_id'] = ...``) does change the
frame: the columns are all strings, so each row is a view of the one object block. ``attach_resources`` then reads
line ``segment_id - 1 + 1``. Under pandas 3 (copy-on-write) each row is a copy, the loop changes nothing, and
``attach_resources`` fails its own assertion; the benchmark shows both, and that the files as indexed before the
organisers' ``fix_canary_indexing.py`` (29 Nov 2024: every id + 1) fail under pandas 2.

WMT25 (wmt-conference/wmt25-general-mt@e0cb47f ``humeval/08-compute_clusters.py``): its functions
``get_significance`` and ``does_cluster_end_here`` are taken from the file's source (``ast``, given as text in
``--wmt25-source``, read with the ``read_file`` tool; the script itself needs the WMT25 data) and the driver runs its
ranking loop's lines on WMT24's item scores in WMT25's layout (per system: wave-0 scores of every item, then wave-1;
here a WMT24 item is rated in one wave only). WMT26 (wmt-conference/wmt26-general-mt@a6ae235
``humeval/02b-analyze_results.py``): ``is_significantly_better`` likewise (``--wmt26-source``), run in its walk
with the global numpy RandomState seeded (``np.random.seed(2026)``; their script never seeds it); mtsig's draws are
its own, so the decisions are compared within Monte Carlo error.

CPU seconds are ``time.process_time`` of the ranking (reading included) in each process.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from mtsig.io.esa import read_esa
from mtsig.stats.system_ranking import item_scores, run_procedure

WMT24_GIT = "/work/.mirror/wmt-conference+wmt24-news-systems/repo"
WAVES = ("esa_generalMT2024_wave2.csv", "esa_generalMT2024_wave3.csv")
LPS = ("en-cs", "en-hi", "en-ja", "en-zh")

WMT24_DRIVER = r"""
import json, os, sys, time, types
sys.modules["ipdb"] = types.ModuleType("ipdb")
humeval, out = sys.argv[1], sys.argv[2]
os.chdir(humeval)
sys.path.insert(0, humeval)
import pandas as pd
import scipy
from tools import load_data, attach_resources, get_pvalues, get_ranks, get_clusters
start = time.process_time()
# calculate_clusters.py main(), the ranking lines (macro average, FLAGS.micro False)
data = [load_data(wave, is_mqm=False) for wave in ["esa_generalMT2024_wave2.csv", "esa_generalMT2024_wave3.csv"]]
df = pd.concat(data)
df = attach_resources(df)
subdf = df.groupby(['annot_id', 'lp', 'system_id', 'orig_segment_id'])
averaged = len(subdf) != len(df)
if averaged:
    df = subdf.agg({'overall': 'mean'}).reset_index()
result = {"pandas": pd.__version__, "scipy": scipy.__version__, "averaged": averaged, "lps": {}}
for lp in sorted(df['lp'].unique()):
    df_lp = df[df['lp'] == lp]
    avg_annotations_per_system = df_lp.groupby('system_id')['annot_id'].count().mean()
    if avg_annotations_per_system < 100:
        continue
    per_domain = df_lp.groupby(['system_id', 'domain_name'])['overall'].mean().reset_index()
    avg_rating = per_domain.groupby('system_id')['overall'].mean().reset_index().set_index('system_id', drop=False)
    avg_rating = avg_rating.sort_values('overall', ascending=False)
    pvalues = get_pvalues(df_lp, True)
    ranks, wins, losses = get_ranks(pvalues, avg_rating)
    clusters = get_clusters(pvalues, avg_rating)
    result["lps"][lp] = {
        "order": list(avg_rating['system_id']),
        "overall": [float(v) for v in avg_rating['overall']],
        "pvalues": [[a, b, float(p)] for (a, b), p in pvalues.items()],
        "ranks": {s: [int(r[0]), int(r[1])] for s, r in ranks.items()},
        "clusters": {s: int(c) for s, c in clusters.items()},
    }
result["cpu"] = time.process_time() - start
json.dump(result, open(out, "w"))
"""

FUNCTIONS_DRIVER = r"""
import ast, json, sys, time
import numpy as np
import scipy.stats, statistics, math, functools
source25, source26, data_path, out = sys.argv[1:5]
def functions(path, names):
    tree = ast.parse(open(path).read())
    nodes = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in names]
    namespace = {"scipy": scipy, "np": np, "statistics": statistics, "math": math, "functools": functools}
    exec(compile(ast.Module(body=nodes, type_ignores=[]), path, "exec"), namespace)
    return namespace
wmt25 = functions(source25, {"get_significance", "does_cluster_end_here"})
wmt26 = functions(source26, {"is_significantly_better"})
get_significance, does_cluster_end_here = wmt25["get_significance"], wmt25["does_cluster_end_here"]
is_significantly_better = wmt26["is_significantly_better"]
data = json.load(open(data_path))
result = {}
start = time.process_time()
for lp, entry in data.items():
    # 08-compute_clusters.py: systems sorted by the mean of their non-NaN scores, then its ranking loop
    systems = sorted(entry["wmt25"].items(), key=lambda x: statistics.mean([a for a in x[1] if not np.isnan(a)]), reverse=True)
    systems_info = []
    for sysA_i, (sysA, sysA_v) in enumerate(systems):
        rank_start = sysA_i + 1
        for sysB, sysB_v in systems[:sysA_i][::-1]:
            if get_significance(sysB_v, sysA_v):
                break
            rank_start -= 1
        rank_end = sysA_i + 1
        for sysB, sysB_v in systems[sysA_i+1:]:
            if get_significance(sysA_v, sysB_v):
                break
            rank_end += 1
        systems_info.append((sysA, (rank_start, rank_end)))
    ranks = [x[1] for x in systems_info]
    ends = [i for i in range(1, len(ranks)) if does_cluster_end_here(i, ranks)]
    decisions = {f"{a}|{b}": bool(get_significance(va, vb)) for a, va in systems for b, vb in systems if a != b}
    result.setdefault(lp, {})["wmt25"] = {"order": [s for s, _ in systems], "ranks": ranks, "cluster_ends": ends,
                                          "decisions": decisions}
cpu25 = time.process_time() - start
start = time.process_time()
np.random.seed(2026)
for lp, entry in data.items():
    # 02b-analyze_results.py: sorted by mean, then its per-model loop (significance, rank_top, rank_bottom)
    data_models_flat = [(m, v) for m, v in entry["wmt26"].items()]
    data_models_flat.sort(key=lambda x: statistics.mean([v for v in x[1] if not np.isnan(v)]), reverse=True)
    rows = []
    for model_i, (model, scores) in enumerate(data_models_flat):
        if model_i < len(data_models_flat) - 1:
            significant_locally = is_significantly_better(tuple(data_models_flat[model_i][1]), tuple(data_models_flat[model_i + 1][1]))
            significant_globally = all(
                is_significantly_better(tuple(data_models_flat[model_up][1]), tuple(data_models_flat[model_down][1]))
                for model_up in range(0, model_i+1)
                for model_down in range(model_i + 1, len(data_models_flat)))
        rank_top = model_i
        for rank_top in range(model_i, 0-1, -1):
            if is_significantly_better(tuple(data_models_flat[rank_top-1][1]), tuple(data_models_flat[model_i][1])):
                break
        rank_bottom = model_i
        for rank_bottom in range(model_i, len(data_models_flat)-1):
            if is_significantly_better(tuple(data_models_flat[model_i][1]), tuple(data_models_flat[rank_bottom+1][1])):
                break
        rows.append({"model": model, "rank_top": rank_top + 1, "rank_bottom": rank_bottom + 1,
                     "cluster": ("nothing" if model_i == len(data_models_flat) - 1 else "yes_cluster" if significant_globally
                                 else "yes_local" if significant_locally else "nothing")})
    decisions = {f"{a}|{b}": bool(is_significantly_better(tuple(va), tuple(vb)))
                 for a, va in data_models_flat for b, vb in data_models_flat if a != b}
    result[lp]["wmt26"] = {"rows": rows, "decisions": decisions}
result["cpu"] = {"wmt25": cpu25, "wmt26": time.process_time() - start}
json.dump(result, open(out, "w"))
"""


def old_indexing(path: Path) -> str:
    """The export with every segment id minus 1: the organisers' file before ``fix_canary_indexing.py``."""
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    for row in rows:
        row[2] = str(int(row[2]) - 1)
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    return out.getvalue()


def run_wmt24(python: str, data: Path, git: str, old_files: bool) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        humeval = Path(folder) / "humeval"
        humeval.mkdir()
        tools = subprocess.run(
            ["git", "-C", git, "show", "bfa937e:humeval/tools.py"], capture_output=True, check=True
        )
        (humeval / "tools.py").write_bytes(tools.stdout)
        txt = Path(folder) / "txt"
        txt.mkdir()
        for name in ("sources", "references", "documents", "system-outputs"):
            (txt / name).symlink_to(data / name)
        for wave in WAVES:
            source = data / "humeval" / wave
            if old_files:
                (humeval / wave).write_text(old_indexing(source), encoding="utf-8")
            else:
                (humeval / wave).symlink_to(source)
        (humeval / "driver.py").write_text(WMT24_DRIVER)
        out = Path(folder) / "out.json"
        run = subprocess.run(
            [python, str(humeval / "driver.py"), str(humeval), str(out)], capture_output=True, text=True
        )
        if run.returncode:
            return {"error": run.stderr.strip().splitlines()[-1]}
        return json.loads(out.read_text())


def mtsig_wmt24(data: Path) -> tuple[dict, float]:
    start = time.process_time()
    export = read_esa([data / "humeval" / w for w in WAVES], data / "documents")
    results = {}
    for lp in LPS:
        items = item_scores(export.ratings.loc[export.ratings["lp"] == lp])
        results[lp] = (items, run_procedure("wmt24", items.scores, items.segments, items.domains))
    return results, time.process_time() - start


def compare_wmt24(theirs: dict, ours: dict) -> list[list]:
    rows = []
    for lp in LPS:
        items, arrays = ours[lp]
        index = {s: i for i, s in enumerate(items.systems)}
        t = theirs["lps"][lp]
        diffs = []
        for a, b, p in t["pvalues"]:
            q = arrays.pvalues[0, index[a], index[b]]
            diffs.append(0.0 if (np.isnan(p) and np.isnan(q)) else abs(p - q))
        order = [items.systems[i] for i in arrays.order[0]]
        ranks_equal = all(
            [int(arrays.top_rank[0, index[s]]), int(arrays.worst_rank[0, index[s]])] == r
            for s, r in t["ranks"].items()
        )
        clusters_equal = all(int(arrays.cluster[0, index[s]]) == c for s, c in t["clusters"].items())
        score_diff = max(
            abs(arrays.scores[0, index[s]] - v) for s, v in zip(t["order"], t["overall"], strict=True)
        )
        rows.append(
            [lp, len(t["pvalues"]), max(diffs), order == t["order"], ranks_equal, clusters_equal, score_diff]
        )
        print(f"\n{lp}: organisers' order, ranks and clusters | mtsig's")
        for s in t["order"]:
            i = index[s]
            print(
                f"  {s:22s} {t['overall'][t['order'].index(s)]:8.4f} {tuple(t['ranks'][s])!s:9s} {t['clusters'][s]:2d}"
                f" | {arrays.scores[0, i]:8.4f} ({arrays.top_rank[0, i]}, {arrays.worst_rank[0, i]}) {arrays.cluster[0, i]:2d}"
            )
    return rows


def write_pvalues(theirs: dict, path: Path, header: str) -> None:
    """The organisers' p-value of every ordered pair, one row each, under ``header``."""
    with path.open("w") as f:
        f.write(header + "lp\tsystem1\tsystem2\tp\n")
        for lp, t in theirs["lps"].items():
            for a, b, p in t["pvalues"]:
                f.write(f"{lp}\t{a}\t{b}\t{p!r}\n")


def write_oracles(theirs: dict, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    header = (
        "# The WMT24 organisers' output (wmt-conference/wmt24-news-systems@bfa937e humeval/tools.py get_pvalues,\n"
        f"# get_ranks, get_clusters; pandas {theirs['pandas']}, scipy {theirs['scipy']}) on the WMT24 ESA waves 2+3,\n"
        "# written by: python benchmarks/bench_human_ranking.py --python <pandas-2 python> --write-oracles tests/oracles\n"
    )
    write_pvalues(theirs, folder / "wmt24_esa_pvalues.tsv", header)
    with (folder / "wmt24_esa_ranking.tsv").open("w") as f:
        f.write(header + "lp\tsystem\toverall\ttop_rank\tworst_rank\tcluster\n")
        for lp, t in theirs["lps"].items():
            for s, v in zip(t["order"], t["overall"], strict=True):
                f.write(f"{lp}\t{s}\t{v!r}\t{t['ranks'][s][0]}\t{t['ranks'][s][1]}\t{t['clusters'][s]}\n")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--wmt24-git", default=WMT24_GIT)
    parser.add_argument("--wmt25-source", type=Path)
    parser.add_argument("--wmt26-source", type=Path)
    parser.add_argument("--write-oracles", type=Path)
    parser.add_argument(
        "--pvalues-oracle", type=Path, help="write only the organisers' p-values here (another scipy's)"
    )
    args = parser.parse_args()
    data = Path(os.environ.get("MTSIG_DATA", "../shared/data")) / "wmt24-esa"
    print(f"load {os.getloadavg()}")

    old = run_wmt24(args.python, data, args.wmt24_git, old_files=True)
    print("organisers' code on the pre-Nov-2024 indexing (ids - 1):", old.get("error", "ran"))
    if args.python != sys.executable:
        this = run_wmt24(sys.executable, data, args.wmt24_git, old_files=False)
        print(f"organisers' code under this interpreter's pandas: {this.get('error', 'ran')}")
    theirs = run_wmt24(args.python, data, args.wmt24_git, old_files=False)
    if "error" in theirs:
        sys.exit(f"organisers' code failed: {theirs['error']}")
    print(
        f"organisers' WMT24 (pandas {theirs['pandas']}, scipy {theirs['scipy']}): {theirs['cpu']:.2f} CPU s"
    )
    ours, cpu = mtsig_wmt24(data)
    rows = compare_wmt24(theirs, ours)
    print("\nlp     pairs  max|p diff|  order  ranks  clusters  max|score diff|")
    for lp, n, diff, order, ranks, clusters, score in rows:
        print(f"{lp}  {n:5d}  {diff:.2e}    {order!s:5s}  {ranks!s:5s}  {clusters!s:5s}     {score:.2e}")
    print(
        f"\nWMT24 CPU s: organisers {theirs['cpu']:.2f}, mtsig {cpu:.2f} (reading included), ratio {theirs['cpu'] / cpu:.1f}"
    )
    if args.pvalues_oracle:
        header = (
            "# The WMT24 organisers' p-values (wmt-conference/wmt24-news-systems@bfa937e humeval/tools.py get_pvalues;\n"
            f"# pandas {theirs['pandas']}, scipy {theirs['scipy']}) on the WMT24 ESA waves 2+3, written by:\n"
            "# python benchmarks/bench_human_ranking.py --python <that python> --pvalues-oracle <this file>\n"
        )
        write_pvalues(theirs, args.pvalues_oracle, header)
    if args.write_oracles:
        write_oracles(theirs, args.write_oracles)
        (args.write_oracles / "wmt25_esa_ranking.tsv").unlink(missing_ok=True)
        print(f"oracles written to {args.write_oracles}")
    if args.wmt25_source and args.wmt26_source:
        compare_functions(args, ours)


def wmt25_layout(items) -> dict:
    """Per system: wave-0 scores of every item, then wave-1 (WMT25's layout); the waves are the files in order."""
    waves = sorted(set(items.columns["wave"]))
    segments = sorted(set(items.segments))
    out = {}
    for s, name in enumerate(items.systems):
        vector = []
        for wave in waves[:2] + [None] * (2 - len(waves[:2])):
            for segment in segments:
                column = np.flatnonzero(
                    (items.segments == segment) & (items.columns["wave"].to_numpy() == wave)
                )
                vector.append(float(items.scores[s, column[0]]) if len(column) else float("nan"))
        out[name] = vector
    return out


def compare_functions(args: argparse.Namespace, ours: dict) -> None:  # noqa: PLR0914 - a printout
    data = {}
    for lp in LPS:
        items, _ = ours[lp]
        data[lp] = {
            "wmt25": wmt25_layout(items),
            "wmt26": {name: [float(v) for v in items.scores[s]] for s, name in enumerate(items.systems)},
        }
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "data.json").write_text(json.dumps(data))
        (Path(folder) / "driver.py").write_text(FUNCTIONS_DRIVER)
        out = Path(folder) / "out.json"
        subprocess.run(
            [
                args.python,
                str(Path(folder) / "driver.py"),
                str(args.wmt25_source),
                str(args.wmt26_source),
                str(Path(folder) / "data.json"),
                str(out),
            ],
            check=True,
        )
        theirs = json.loads(out.read_text())
    print(f"\norganisers' WMT25 {theirs['cpu']['wmt25']:.2f} CPU s, WMT26 {theirs['cpu']['wmt26']:.2f} CPU s")
    for lp in LPS:
        items, _ = ours[lp]
        index = {s: i for i, s in enumerate(items.systems)}
        start = time.process_time()
        w25 = run_procedure("wmt25", items.scores, items.segments, items.domains)
        w26 = run_procedure("wmt26", items.scores, items.segments, items.domains, seed=2026)
        cpu = time.process_time() - start
        t25 = theirs[lp]["wmt25"]
        same_decisions = all(
            bool(w25.beats[0, index[k.split("|")[0]], index[k.split("|")[1]]]) == v
            for k, v in t25["decisions"].items()
        )
        order = [items.systems[i] for i in w25.order[0]]
        ranks = [[int(w25.top_rank[0, index[s]]), int(w25.worst_rank[0, index[s]])] for s in t25["order"]]
        cluster = [int(w25.cluster[0, index[s]]) for s in t25["order"]]
        ends = [i for i in range(1, len(cluster)) if cluster[i] != cluster[i - 1]]
        if args.write_oracles:
            with (args.write_oracles / "wmt25_esa_ranking.tsv").open("a") as f:
                if lp == LPS[0]:
                    f.write(
                        "# The WMT25 organisers' get_significance/ranking loop/does_cluster_end_here "
                        "(wmt-conference/wmt25-general-mt@e0cb47f humeval/08-compute_clusters.py) on WMT24 ESA waves 2+3,\n"
                        "# written by benchmarks/bench_human_ranking.py --write-oracles; cluster_end: a line after it\n"
                        "lp\tsystem\ttop_rank\tworst_rank\tcluster_end\n"
                    )
                for n, (s, r) in enumerate(zip(t25["order"], t25["ranks"], strict=True)):
                    f.write(f"{lp}\t{s}\t{r[0]}\t{r[1]}\t{int(n + 1 in t25['cluster_ends'])}\n")
        print(
            f"{lp} WMT25: decisions equal {same_decisions}, order equal {order == t25['order']}, ranks equal "
            f"{ranks == t25['ranks']}, clusters equal {ends == t25['cluster_ends']}"
        )
        t26 = theirs[lp]["wmt26"]
        agree = np.mean(
            [
                bool(w26.beats[0, index[k.split("|")[0]], index[k.split("|")[1]]]) == v
                for k, v in t26["decisions"].items()
            ]
        )
        ranks26 = [(r["model"], r["rank_top"], r["rank_bottom"], r["cluster"]) for r in t26["rows"]]
        ours26 = [
            (
                s,
                int(w26.top_rank[0, index[s]]),
                int(w26.worst_rank[0, index[s]]),
                int(w26.cluster[0, index[s]]),
            )
            for s, *_ in ranks26
        ]
        print(
            f"{lp} WMT26: ordered-pair decisions agreeing {agree:.3f}; mtsig {cpu:.2f} CPU s (wmt25 + wmt26)"
        )
        print("   theirs:", " ".join(f"{m}:{a}-{b}/{c[:5]}" for m, a, b, c in ranks26))
        print("   mtsig: ", " ".join(f"{m}:{a}-{b}/{c}" for m, a, b, c in ours26))


if __name__ == "__main__":
    main()
