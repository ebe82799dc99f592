"""``snakemake --report`` as a reader sees it: the report of the tiny pipeline run, opened in headless Chromium.

tests/report_browser.py goes through the report as a person would (every category, every result, every caption)
and lists what went wrong: docutils' "System Message" on any page, console errors, an image that does not decode, a
table offered as a download instead of shown, a table page without rows. The browser is the system's Chromium
(.ci/run installs Debian's ``chromium``); without one the test fails and says how to install it. The screenshots of
the landing page, of one figure and of one table are left in the test's temporary folder, ``screenshots/`` (their
paths are printed; ``-s`` shows them).
"""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import pytest
from pipeline_runs import tiny_pipeline_command
from report_browser import check_report

pytestmark = pytest.mark.xdist_group("tiny_pipeline")


@pytest.mark.pipeline
def test_the_report_shows_every_result_without_a_docutils_message(tiny_pipeline_run: Path, tmp_path: Path):
    report = tmp_path / "report.html"
    made = subprocess.run(
        tiny_pipeline_command(tiny_pipeline_run, "--report", str(report)),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert made.returncode == 0, made.stderr[-5000:]
    docutils_messages = re.findall(r".*\((?:INFO|WARNING|ERROR|SEVERE)/\d\).*", made.stderr)
    assert docutils_messages == []
    start = time.perf_counter()
    check = check_report(report, tmp_path / "screenshots")
    print(f"report {report.stat().st_size / 1e6:.1f} MB, browser walk {time.perf_counter() - start:.1f} s")
    print("screenshots:", *check.screenshots)
    assert check.problems == []
    # the tiny run's results, each shown: every figure decoded, every table with rows
    figures = {path for paths in check.categories.get("Figures", {}).values() for path in paths}
    assert len(figures) >= 10 and figures <= set(check.images)
    assert all(width > 0 for width in check.images.values())
    assert {"Tables", "Scores", "Segment level", "Replicability"} <= set(check.categories)
    assert len(check.tables) >= 5 and all(rows > 0 for rows in check.tables.values())
    assert sorted(p.name for p in check.screenshots) == ["figure.png", "landing.png", "table.png"]
    assert all(p.stat().st_size > 10_000 for p in check.screenshots)
