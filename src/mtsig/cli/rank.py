"""``mtsig rank FILES...``: rank the systems of a human evaluation by one of WMT's procedures or mtsig's
(:data:`mtsig.stats.system_ranking.PROCEDURES`).

Input: Appraise ESA exports (``--format esa``, the default; each file a wave, with ``--documents DIR`` for the
domains), Google-style MQM annotations (``--format mqm``), or a tidy TSV with a header naming ``system``, ``item``
and ``score`` and optionally ``domain``, ``rater``, ``wave``, ``doc`` (``--format tidy``; ``segment``, ``annotator``
and ``document`` are read as ``item``, ``rater`` and ``doc``: :data:`mtsig.io.tidy_columns.SPELLINGS`). Prints each
pair's p-values and decision, each system's score, rank range and cluster, the notes on what could not be tested,
and a signature line; ``--json`` or ``--latex`` instead.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from mtsig.errors import InputError

if TYPE_CHECKING:  # pandas is imported when a command runs, not when the parser is built
    import pandas as pd

HELP = "rank the systems of a human evaluation (ESA, MQM or tidy scores) by WMT's or mtsig's procedure"
FORMATS = ("esa", "mqm", "tidy")
#: The columns of a tidy TSV: required, then optional.
TIDY_REQUIRED = ("system", "item", "score")
TIDY_OPTIONAL = ("domain", "rater", "wave", "doc")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``mtsig rank``."""
    from mtsig.stats.system_ranking import PROCEDURES

    parser.add_argument("files", nargs="+", type=Path, help="the ratings (ESA: one file per wave)")
    parser.add_argument("--format", choices=FORMATS, default="esa", help="input layout (default esa)")
    parser.add_argument("--procedure", choices=list(PROCEDURES), default="wmt24", help="default wmt24")
    parser.add_argument("--documents", type=Path, help="ESA: folder with <lp>.docs (domains and documents)")
    parser.add_argument(
        "--first-segment-id",
        type=int,
        default=None,
        help="ESA: id of the first segment after the canary line (default: the released exports' numbering, 1)",
    )
    parser.add_argument("--lp", help="ESA: the language pair to rank, when the files hold several")
    parser.add_argument("--alpha", type=float, help="significance level (default: the procedure's own)")
    parser.add_argument(
        "--resamples", type=int, help="resamples of a randomised procedure (default: its own)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of a randomised procedure (default 0)")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print JSON")
    output.add_argument("--latex", action="store_true", help="print a LaTeX table of the ranking")


def _ratings(args: argparse.Namespace) -> tuple[pd.DataFrame, str]:
    """The ratings of one language pair as :func:`~mtsig.stats.system_ranking.item_scores` takes them, and the data's
    label (the language pair, or the file's name); bad input is an :class:`InputError` naming file and line."""
    import numpy as np
    import pandas as pd

    if args.format == "esa":
        from mtsig.io.esa import read_esa

        ratings = read_esa(args.files, args.documents, first_segment_id=args.first_segment_id).ratings
        pairs = sorted(set(ratings["lp"]))
        if args.lp is None and len(pairs) > 1:
            raise InputError(
                f"the files hold {len(pairs)} language pairs ({', '.join(pairs)}): choose one with --lp"
            )
        chosen = args.lp or pairs[0]
        if chosen not in pairs:
            raise InputError(f"no ratings of {chosen} (the files hold {', '.join(pairs)})")
        return ratings.loc[ratings["lp"] == chosen], chosen
    if len(args.files) != 1:
        raise InputError(f"--format {args.format} reads one file, got {len(args.files)}")
    path = args.files[0]
    if args.format == "mqm":
        from mtsig.io.mqm import read_mqm

        scores = read_mqm(path).scores
        table = scores.rename(columns={"segment": "item", "document": "doc"})
        return table[["system", "item", "doc", "rater", "score"]], path.name
    from mtsig.io.tidy_columns import SPELLINGS, respelt

    try:
        table = pd.read_csv(path, sep="\t", dtype={**dict.fromkeys(SPELLINGS["segment"], str), "system": str})
    except (FileNotFoundError, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read a tidy TSV: {error}", path) from None
    table = table.rename(columns=respelt(table.columns, (*TIDY_REQUIRED, *TIDY_OPTIONAL)))
    columns = f"{', '.join(TIDY_REQUIRED)}[, {', '.join(TIDY_OPTIONAL)}]"
    for column in TIDY_REQUIRED:
        if column not in table.columns:
            raise InputError(f"no column {column!r} in the header ({columns})", path)
    # Line numbers: the header is line 1, row k of the table line k + 2.
    for column in (c for c in ("system", "item", *TIDY_OPTIONAL) if c in table.columns):
        empty = table[column].isna()
        if empty.any():
            raise InputError(f"empty {column} cell", path, int(empty.idxmax()) + 2)
    scores = pd.to_numeric(table["score"], errors="coerce")
    not_a_number = scores.isna()
    bad = not_a_number | ~np.isfinite(scores)
    if bad.any():
        first = int(bad.idxmax())
        value = table["score"][first]
        shown = repr(value) if isinstance(value, str) else str(value)
        problem = "is not a number" if not_a_number[first] else "is not finite"
        raise InputError(f"score {shown} {problem}", path, first + 2)
    return table.assign(score=scores), path.name


def run(args: argparse.Namespace) -> int:
    """``mtsig rank``: read, rank, print."""
    from mtsig.report.signature import ranking_signature
    from mtsig.stats.system_ranking import PROCEDURES, item_scores, rank_systems

    ratings, label = _ratings(args)
    items = item_scores(ratings, str(args.files[0]))
    ranking = rank_systems(
        items, args.procedure, alpha=args.alpha, seed=args.seed, n_resamples=args.resamples
    )
    spec = PROCEDURES[args.procedure]
    signature = ranking_signature(
        procedure=args.procedure,
        sided=spec.sided,
        scale=spec.scale,
        alpha=ranking.alpha,
        n_resamples=ranking.n_resamples,
        seed=ranking.seed,
    )
    table, pairs = ranking.table(), ranking.pvalue_table()
    if args.json:
        document = {
            "data": label,
            "procedure": args.procedure,
            "ranking": table.to_dict(orient="records"),
            "pvalues": pairs.astype(object).where(pairs.notna(), None).to_dict(orient="records"),
            "notes": list(ranking.notes),
            "signature": signature,
        }
        json.dump(document, sys.stdout, indent=1, default=float)
        sys.stdout.write("\n")
        return 0
    if args.latex:
        sys.stdout.write(_latex(table, signature))
        return 0
    sys.stdout.write(
        f"{label}: {len(items.systems)} systems, {items.scores.shape[1]} items, {args.procedure}\n\n"
    )
    sys.stdout.write(pairs.to_string(index=False, float_format=lambda v: f"{v:.4g}", na_rep="NaN") + "\n\n")
    sys.stdout.write(table.to_string(index=False, float_format=lambda v: f"{v:.3f}") + "\n")
    for note in ranking.notes:
        sys.stdout.write(f"note: {note}\n")
    sys.stdout.write(f"{signature}\n")
    return 0


def _latex(table: pd.DataFrame, signature: str) -> str:
    """A LaTeX tabular of :meth:`~mtsig.stats.system_ranking.SystemRanking.table` (rank range, system, score), a
    rule between clusters, the signature as a comment."""
    lines = ["\\begin{tabular}{rlr}", "Rank & System & Score \\\\", "\\midrule"]
    previous = None
    for row in table.itertuples(index=False):
        if previous is not None and row.cluster != previous:
            lines.append("\\midrule")
        previous = row.cluster
        rank = f"{row.top_rank}" if row.top_rank == row.worst_rank else f"{row.top_rank}--{row.worst_rank}"
        name = str(row.system).replace("_", "\\_")
        lines.append(f"{rank} & {name} & {row.score:.1f} \\\\")
    lines += ["\\end{tabular}", f"% {signature}", ""]
    return "\n".join(lines)
