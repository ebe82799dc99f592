"""``mtsig verify [RESULTS]``: every file of a run against the committed checksums (:mod:`mtsig.pipeline.verification`).

Prints one line per file that is not equal (``different`` with its first differing row, or for an ``.npz`` its
size and the arrays that differ, or for a figure why it is incomplete; ``missing``; ``not in the list``) and a
summary ending in ``all equal`` or ``DIFFERENT``; exits 0 when every listed file is equal, 3 when one is different
or missing. ``--write`` makes the list from RESULTS instead (after a change that is meant to change
results): ``mtsig verify --write results/`` regenerates ``checksums/default-run.tsv``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mtsig.cli._common import ProgressDisplay, add_quiet_argument
from mtsig.errors import InputError

HELP = "check every file of a run against the committed checksums (or --write them)"
DESCRIPTION = (
    "Check every file under RESULTS against a checksum list: tables, TSVs, texts, manifests and .npz arrays byte "
    "for byte, figures for presence and completeness (their bytes depend on fonts; every number they show is in a "
    "checked table). Exit status 0: all equal; 3: a file differs or is missing."
)
DEFAULT_EXPECTED = Path("checksums") / "default-run.tsv"
EXIT_DIFFERENT = 3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``mtsig verify``."""
    parser.add_argument("results", nargs="?", default=Path("results"), type=Path, help="default results/")
    parser.add_argument(
        "--expected",
        type=Path,
        default=DEFAULT_EXPECTED,
        help=f"the checksum list (default {DEFAULT_EXPECTED}; the quick check's: checksums/quick-run.tsv)",
    )
    parser.add_argument(
        "--write",
        action="store_true",
        help="write the checksum list of RESULTS to --expected instead of checking",
    )
    add_quiet_argument(parser)


def run(args: argparse.Namespace) -> int:
    """``mtsig verify``: check, or with ``--write`` make, the checksum list."""
    from mtsig.pipeline.verification import (
        checksum_table,
        read_checksums,
        temporary_files,
        verification_failed,
        verification_text,
        verify_results,
    )
    from mtsig.steps.files import write_tsv

    if not args.results.is_dir():
        raise InputError("no results folder here: run the pipeline first", args.results)
    display = ProgressDisplay.for_command("verify", args)
    if args.write:
        left = temporary_files(args.results)
        if left:
            raise InputError(
                f"{len(left)} temporary file(s) left by a run stopped hard (first: {left[0]}): finish the run "
                "(snakemake --unlock, then the same command again) before listing its files",
                args.results,
            )
        with display.stage("hashing files") as progress:
            table = checksum_table(args.results, progress)
        if table.empty:
            raise InputError("no file under it: nothing to list", args.results)
        write_tsv(table, args.expected)
        sys.stdout.write(f"wrote the checksums of {len(table)} files of {args.results} to {args.expected}\n")
        return 0
    expected = read_checksums(args.expected)
    with display.stage("checking files") as progress:
        report = verify_results(expected, args.results, progress)
    sys.stdout.write(verification_text(report, args.expected, args.results))
    return EXIT_DIFFERENT if verification_failed(report) else 0
