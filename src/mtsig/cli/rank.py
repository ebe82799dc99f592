"""``mtsig rank FILES...``: rank the systems of a human evaluation by one of WMT's procedures or mtsig's
(:data:`mtsig.stats.system_ranking.PROCEDURES`).

Input: Appraise ESA exports (``--format esa``, the default; each file a wave, with ``--documents DIR`` for the domains),
Google-style MQM annotations (``--format mqm``), or a tidy TSV with a header naming ``system``, ``segment`` and
``score`` and optionally ``document``, ``annotator``, ``domain``, ``wave`` (``--format tidy``: the tidy layout
family's names, :mod:`mtsig.io.tidy_columns`, or ``item``, ``doc``, ``rater``), each read by its entry of
:data:`mtsig.io.item_ratings.ITEM_RATING_LAYOUTS`. Prints each pair's p-values and decision, each system's score,
rank range and cluster, the notes on what could not be tested, and a signature line; ``--json`` or ``--latex`` (a
booktabs table, as ``mtsig compare --latex``) instead.

**Rank sets** (``--rank-sets``; :mod:`mtsig.cli._rank_sets`): instead of a procedure's ranking, confidence sets for
ranks with guaranteed coverage (Mogstad, Romano, Shaikh & Wilhelm 2023; :mod:`mtsig.stats.rank_sets`): each
system's mean item score, resampled by whole documents when the ratings name each item's document (else by items,
and the output says what that assumes), paired across systems. ``--estimates FILE`` (with ``--covariance FILE``)
computes them from scores with standard errors instead of ratings, by csranks's parametric bootstrap
(:mod:`mtsig.io.estimates`).

**The default procedure** is the one that holds its level in mtsig's own calibration of the ranking procedures
(docs/results.md, "How often is each human-ranking procedure wrong?"): ``stratified_permutation_documents``, which
exchanges whole documents, when the ratings name each item's document; without documents,
``stratified_permutation`` (it holds its level when items are independent), and the output says so in one line.

Options are read by :func:`add_arguments`, the ratings by :func:`ratings_of`, the procedure chosen by
:func:`chosen_procedure`, and each output written by one function (:func:`text_output`, :func:`json_output`,
:func:`latex_output`), so that a new option or output is one function.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from mtsig.cli._common import non_negative_int, positive_int, significance_level
from mtsig.cli._rank_sets import RankSetOptions, add_rank_set_arguments, check_top, rank_set_options
from mtsig.errors import InputError
from mtsig.io.item_ratings import ITEM_RATING_LAYOUTS, ItemRatingFiles
from mtsig.procedure_names import RANKING_PROCEDURES

if TYPE_CHECKING:  # pandas and the procedures are imported when a command runs, not when the parser is built
    import pandas as pd

    from mtsig.stats.rank_sets import RankProblem
    from mtsig.stats.rank_sets.summary import RankSets
    from mtsig.stats.system_ranking import ItemScores, SystemRanking

HELP = "rank the systems of a human evaluation (ESA, MQM or tidy scores) by WMT's or mtsig's procedure"
#: The procedures of :data:`mtsig.stats.system_ranking.PROCEDURES` (:mod:`mtsig.procedure_names`).
PROCEDURE_NAMES = RANKING_PROCEDURES
#: The default, and the default for ratings without documents (module docstring).
DEFAULT_PROCEDURE = "stratified_permutation_documents"
WITHOUT_DOCUMENTS = "stratified_permutation"
WHY_DEFAULT = (
    f"{DEFAULT_PROCEDURE} (the default): the one procedure that holds its level in mtsig's calibration when a "
    "rater's severity is shared by a document's items, as in ESA; --procedure chooses another"
)
WHY_ITEMS = (
    "items resampled as if independent: give each item's document (a doc column, or ESA's --documents) to resample "
    "whole documents, as a rater's severity is shared by a document's items"
)
#: What asks for rank sets, for the message that refuses their options without them.
RANK_SETS_ASKED_BY = "--rank-sets (ratings) or --estimates FILE"
WHY_WITHOUT_DOCUMENTS = (
    f"{WITHOUT_DOCUMENTS} (the default without documents): it holds its level only if items are independent; give "
    f"each item's document (a doc column, or ESA's --documents) for {DEFAULT_PROCEDURE}, which holds it also when a "
    "rater's severity is shared within a document"
)


def procedure_name(text: str) -> str:
    """An argparse type: a procedure of :data:`PROCEDURE_NAMES`."""
    if text not in PROCEDURE_NAMES:
        raise argparse.ArgumentTypeError(f"unknown procedure {text!r}; known: {', '.join(PROCEDURE_NAMES)}")
    return text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``mtsig rank``."""
    add = parser.add_argument
    add("files", nargs="*", type=Path, help="the ratings (ESA: one file per wave); none with --estimates")
    add("--format", choices=tuple(ITEM_RATING_LAYOUTS), default="esa", help="input layout (default esa)")
    add(
        "--procedure",
        type=procedure_name,
        metavar="NAME",
        help=f"one of {', '.join(PROCEDURE_NAMES)} (docs/cli.md has a table); default {DEFAULT_PROCEDURE}, or "
        f"{WITHOUT_DOCUMENTS} when the ratings name no documents",
    )
    add("--documents", type=Path, help="ESA: folder with <lp>.docs (domains and documents)")
    add(
        "--first-segment-id",
        type=non_negative_int,
        default=None,
        help="ESA: id of the first segment after the canary line (default: the released exports' numbering, 1)",
    )
    add("--lp", help="ESA: the language pair to rank, when the files hold several")
    add("--alpha", type=significance_level, help="significance level (default: the procedure's own)")
    add("--resamples", type=positive_int, help="resamples of a randomised procedure (default: its own)")
    add("--seed", type=non_negative_int, default=0, help="seed of a randomised procedure (default 0)")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print JSON")
    output.add_argument("--latex", action="store_true", help="print a booktabs LaTeX table of the ranking")
    add_rank_set_arguments(parser, draws=True, asked_by="from the ratings' mean item scores")
    add(
        "--estimates",
        type=Path,
        metavar="FILE",
        help="rank sets from scores with standard errors instead of ratings: a TSV with columns system, estimate, se",
    )
    add(
        "--covariance",
        type=Path,
        metavar="FILE",
        help="with --estimates: the estimates' covariance, a TSV whose header names the systems, then the matrix",
    )


def ratings_of(args: argparse.Namespace) -> tuple[pd.DataFrame, str]:
    """The ratings of one language pair as :func:`~mtsig.stats.system_ranking.item_scores` takes them, and the data's
    label (the language pair, or the file's name), read by the reader of ``--format``
    (:data:`mtsig.io.item_ratings.ITEM_RATING_LAYOUTS`); bad input is an :class:`InputError` naming file and line."""
    if args.documents is not None and not args.documents.is_dir():
        raise InputError("no such folder (--documents: the folder with <lp>.docs)", args.documents)
    layout = ITEM_RATING_LAYOUTS[args.format]
    if not layout.several_files and len(args.files) != 1:
        raise InputError(f"--format {args.format} reads one file, got {len(args.files)}")
    return layout.read(ItemRatingFiles(args.files, args.documents, args.first_segment_id, args.lp))


def chosen_procedure(requested: str | None, items: ItemScores) -> tuple[str, str | None]:
    """The procedure to run and the line that says why it was chosen (None when the user chose it): the default
    (:data:`DEFAULT_PROCEDURE`), or :data:`WITHOUT_DOCUMENTS` for ratings that name no document."""
    if requested is not None:
        return requested, None
    if (items.columns["doc"] == "").all():
        return WITHOUT_DOCUMENTS, WHY_WITHOUT_DOCUMENTS
    return DEFAULT_PROCEDURE, WHY_DEFAULT


def checked_inputs(args: argparse.Namespace) -> RankSetOptions | None:
    """The rank-set options (None: a procedure's ranking), after refusing what does not go together: ratings and
    ``--estimates``, ``--covariance`` without it, a procedure's options with rank sets, rank-set options
    without them."""
    estimates = args.estimates is not None
    options = rank_set_options(args, asked=args.rank_sets or estimates, how=RANK_SETS_ASKED_BY)
    if estimates and (args.files or args.documents is not None or args.lp is not None):
        raise InputError(
            "--estimates ranks the systems of its own file: give no ratings, --documents or --lp"
        )
    if args.covariance is not None and not estimates:
        raise InputError("--covariance is the covariance of --estimates FILE: give that file too")
    if not estimates and not args.files:
        raise InputError("give the ratings (FILES), or scores with standard errors with --estimates FILE")
    if options is not None:
        procedure_options = {
            "--procedure": args.procedure,
            "--alpha": args.alpha,
            "--resamples": args.resamples,
        }
        given = [flag for flag, value in procedure_options.items() if value is not None]
        if given:
            raise InputError(
                f"{given[0]} is an option of the procedures, not of the rank sets (--coverage, --draws, --top)"
            )
    return options


def run(args: argparse.Namespace) -> int:
    """``mtsig rank``: read, rank, print (the rank sets with ``--rank-sets`` or ``--estimates``)."""
    import sys

    from mtsig.report.signature import ranking_signature

    options = checked_inputs(args)
    if options is not None:
        sys.stdout.write(rank_sets_output(args, options))
        return 0
    from mtsig.stats.system_ranking import PROCEDURES, item_scores, rank_systems

    ratings, label = ratings_of(args)
    items = item_scores(ratings, str(args.files[0]))
    procedure, why = chosen_procedure(args.procedure, items)
    ranking = rank_systems(items, procedure, alpha=args.alpha, seed=args.seed, n_resamples=args.resamples)
    spec = PROCEDURES[procedure]
    signature = ranking_signature(
        procedure=procedure,
        sided=spec.sided,
        scale=spec.scale,
        alpha=ranking.alpha,
        n_resamples=ranking.n_resamples,
        seed=ranking.seed,
    )
    if args.json:
        text = json_output(ranking, label, why, signature)
    elif args.latex:
        text = latex_output(ranking, label, why, signature)
    else:
        text = text_output(ranking, label, items, why, signature)
    sys.stdout.write(text)
    return 0


def json_output(ranking: SystemRanking, label: str, why: str | None, signature: str) -> str:
    """``--json``: the data's label, the procedure (and why, when it is the default), the ranking table, every pair's
    p-values and decision, the notes and the signature."""
    pairs = ranking.pvalue_table()
    document = {
        "data": label,
        "procedure": ranking.procedure,
        "procedure_reason": why,
        "ranking": ranking.table().to_dict(orient="records"),
        "pvalues": pairs.astype(object).where(pairs.notna(), None).to_dict(orient="records"),
        "notes": list(ranking.notes),
        "signature": signature,
    }
    return json.dumps(document, indent=1, default=float) + "\n"


def text_output(
    ranking: SystemRanking, label: str, items: ItemScores, why: str | None, signature: str
) -> str:
    """The readable output: what was ranked, why this procedure (when it is the default), every pair's p-values
    (below the resolution of a randomised procedure as ``<0.0001``) and decision, the ranking, notes, signature."""
    from mtsig.report.verdict import format_p

    pairs = ranking.pvalue_table()
    for column in ("p", "p_reverse"):
        pairs[column] = [format_p(p, ranking.n_resamples) for p in pairs[column]]
    lines = [f"{label}: {len(items.systems)} systems, {items.scores.shape[1]} items, {ranking.procedure}"]
    lines += [f"procedure: {why}"] if why else []
    lines += ["", pairs.to_string(index=False), ""]
    lines.append(ranking.table().to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    lines += [f"note: {note}" for note in ranking.notes]
    lines.append(signature)
    return "\n".join(lines) + "\n"


def latex_output(ranking: SystemRanking, label: str, why: str | None, signature: str) -> str:
    """``--latex``: the ranked booktabs table of ``mtsig compare --latex --clusters``
    (:func:`mtsig.report.clusters.clusters_latex`: rank range, system, score, a rule between clusters), the
    signature and, for a default procedure, why it was chosen as comments above it."""
    from mtsig.report.clusters import clusters_latex

    table = ranking.table().rename(columns={"top_rank": "rank_low", "worst_rank": "rank_high"})
    caption = (
        f"{label}: systems ranked by {ranking.procedure} at alpha {ranking.alpha:g} (rank range; a rule between "
        "significance clusters)"
    )
    comments = [signature] + ([f"procedure: {why}"] if why else [])
    return "".join(f"% {line}\n" for line in comments) + clusters_latex(
        table.assign(wins=0, losses=0), caption=caption, label="tab:mtsig-rank", score_format="{:.1f}"
    )


def rank_set_problem(
    args: argparse.Namespace, options: RankSetOptions
) -> tuple[RankProblem, str, str, int | None, str | None]:
    """(problem, the data's label, what the estimates are, the resampled units' count or None, why the units when
    they are items) of ``--estimates`` (the parametric bootstrap; :mod:`mtsig.io.estimates`) or of the ratings
    (each system's mean item score, documents resampled when known)."""
    from mtsig.stats.rank_sets import problem_from_estimates, problem_from_item_scores

    if args.estimates is not None:
        from mtsig.io.estimates import (
            check_covariance_names,
            check_standard_errors,
            read_covariance,
            read_estimates,
        )

        given = read_estimates(args.estimates, se_required=args.covariance is None)
        spread: dict[str, object] = {"standard_errors": given.standard_errors}
        if args.covariance is not None:
            names, matrix = read_covariance(args.covariance)
            check_covariance_names(given, names, args.covariance)
            check_standard_errors(given, names, matrix, args.covariance)
            spread = {"covariance": matrix, "covariance_systems": names}
        source = str(args.covariance if args.covariance is not None else args.estimates)
        problem = problem_from_estimates(
            given.systems, given.estimates, n_draws=options.draws, rng=args.seed, source=source, **spread
        )
        return problem, args.estimates.name, f"the estimates of {args.estimates.name}", None, None
    from mtsig.stats.system_ranking import item_scores

    if options.draws is not None and options.draws < 2:
        raise InputError(f"--draws {options.draws}: the bootstrap of item scores needs at least 2 resamples")
    ratings, label = ratings_of(args)
    items = item_scores(ratings, str(args.files[0]))
    known = bool((items.columns["doc"] != "").any())
    documents = items.documents if known else None
    problem = problem_from_item_scores(
        items.systems, items.scores, documents=documents, n_draws=options.draws, rng=args.seed, source=label
    )
    units = len(set(items.documents.tolist())) if known else items.scores.shape[1]
    return problem, label, "each system's mean item score", units, None if known else WHY_ITEMS


def rank_sets_output(args: argparse.Namespace, options: RankSetOptions) -> str:
    """The rank sets in the requested mode: readable lines, ``--json`` or ``--latex``, with the signature."""
    from mtsig.report.rank_sets import draws_description, sets_signature
    from mtsig.stats.rank_sets.summary import rank_sets_of

    problem, label, what, units, why = rank_set_problem(args, options)
    check_top(options, len(problem.systems))
    sets = rank_sets_of(
        problem, coverage=options.coverage, tau=options.tau, seed=args.seed, kind=options.kind, n_units=units
    )
    signature = sets_signature(sets, scores="estimates" if args.estimates is not None else "raw")
    if args.json:
        return rank_sets_json(sets, label, what, why, signature)
    if args.latex:
        return rank_sets_latex_output(sets, label, what, why, signature)
    return rank_sets_text(sets, label, what, why, signature, draws_description(sets))


def rank_sets_text(sets: RankSets, label: str, what: str, why: str | None, signature: str, drawn: str) -> str:
    """The readable rank sets: what was ranked and how it was drawn, one row per system, who could be first, the
    notes (ties) and the signature."""
    from mtsig.report.rank_sets import rank_sets_lines, tie_notes
    from mtsig.report.signature import format_level

    lines = [
        f"{label}: {len(sets.systems)} systems; {sets.kind} rank sets at {format_level(sets.coverage)} from {drawn}",
        f"estimate: {what}",
    ]
    lines += [f"bootstrap: {why}"] if why else []
    lines += ["", *rank_sets_lines(sets)]
    lines += [f"note: {note}" for note in tie_notes(sets)]
    lines.append(signature)
    return "\n".join(lines) + "\n"


def rank_sets_json(sets: RankSets, label: str, what: str, why: str | None, signature: str) -> str:
    """``--json``: the data's label, what the estimates are, the sets (:func:`mtsig.report.rank_sets.
    rank_sets_record`: ``systems`` with ``marginal``, ``simultaneous`` and ``top``) and the signature."""
    from mtsig.report.rank_sets import rank_sets_record

    document = {"data": label, "estimate": what, "bootstrap_reason": why, **rank_sets_record(sets)}
    document["signature"] = signature
    return json.dumps(document, indent=1) + "\n"


def rank_sets_latex_output(sets: RankSets, label: str, what: str, why: str | None, signature: str) -> str:
    """``--latex``: :func:`mtsig.report.rank_sets.rank_sets_latex` with the signature (and why the units, when
    items) as comments above it."""
    from mtsig.report.rank_sets import rank_sets_latex

    comments = [signature] + ([f"bootstrap: {why}"] if why else [])
    table = rank_sets_latex(
        sets, caption=f"{label}: {what}.", label="tab:mtsig-rank-sets", score_format="{:.2f}"
    )
    return "".join(f"% {line}\n" for line in comments) + table
