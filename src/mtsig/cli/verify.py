"""``mtsig verify [RESULTS]``: every table and TSV of a run against the committed checksums (:mod:`mtsig.pipeline.verification`).

Prints one line per file that is not equal (``different`` with its first differing row, ``missing``, ``not in the
list``) and a summary ending in ``all equal`` or ``DIFFERENT``; exits 0 when every listed file is equal, 3 when one
is different or missing. ``--write`` makes the list from RESULTS instead (after a change that is meant to change
results): ``mtsig verify --write results/`` regenerates ``checksums/default-run.tsv``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mtsig.cli._common import ProgressDisplay, add_quiet_argument
from mtsig.errors import InputError

HELP = "check a run's tables and TSVs against the committed checksums (or --write them)"
DESCRIPTION = (
    "Check every .tsv, .csv, .md and .tex file under RESULTS against a checksum list (figures excluded: every "
    "number they show is in a checked table). Exit status 0: all equal; 3: a file differs or is missing."
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
        verification_failed,
        verification_text,
        verify_results,
    )
    from mtsig.steps.files import write_tsv

    if not args.results.is_dir():
        raise InputError("no results folder here: run the pipeline first", args.results)
    display = ProgressDisplay.for_command("verify", args)
    if args.write:
        with display.stage("hashing files") as progress:
            table = checksum_table(args.results, progress)
        if table.empty:
            raise InputError("no .tsv, .csv, .md or .tex file under it: nothing to list", args.results)
        write_tsv(table, args.expected)
        sys.stdout.write(f"wrote the checksums of {len(table)} files of {args.results} to {args.expected}\n")
        return 0
    expected = read_checksums(args.expected)
    with display.stage("checking files") as progress:
        report = verify_results(expected, args.results, progress)
    sys.stdout.write(verification_text(report, args.expected, args.results))
    return EXIT_DIFFERENT if verification_failed(report) else 0
