"""Step of ``workflow/rules/verify.smk``: the run's results against the committed checksums (:mod:`mtsig.pipeline.verification`)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from mtsig.errors import InputError
from mtsig.steps.files import write_text

log = logging.getLogger("mtsig")


def verify(
    targets: Sequence[str | Path], report: str | Path, *, results: str | Path, expected: str | Path
) -> None:
    """Check every file under ``results`` against the checksum list ``expected``; write the text report only when
    all are equal (``targets``, the run's final outputs, are inputs so that they exist first)."""
    from mtsig.pipeline.verification import (
        read_checksums,
        verification_failed,
        verification_text,
        verify_results,
    )

    outcome = verify_results(read_checksums(Path(expected)), Path(results))
    text = verification_text(outcome, expected, results)
    for line in text.splitlines():
        log.info("%s", line)
    if verification_failed(outcome):
        raise InputError(f"results differ from the checksums (see the log):\n{text}", expected)
    write_text(text, report)
