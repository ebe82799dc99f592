"""Open a Snakemake report in a real headless browser and go through it as a reader would.

Chromium from the system (Debian's ``chromium``; ``.ci/run`` installs it), driven by Playwright's Python package
through that executable: Playwright's own browser download is not used. :func:`check_report` loads the report
(a single-page app), clicks every category of the menu and every subcategory, opens every result with its
view button and its information (caption) button, and returns what a reader would have met:

- any page showing docutils' "System Message" (the landing page, every menu, every caption, every table page),
- console errors and uncaught exceptions,
- images that do not decode (``naturalWidth == 0``),
- results that do not show in the page (only an image or an HTML page shows; anything else is a download),
- table pages without a table, or with an empty one;

and saves screenshots of the landing page, of the first of the paper's figures and of the first table. Run by
hand on any report::

    python tests/report_browser.py results/report.html /tmp/report-screenshots
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

#: Chromium in a closed network: no sandbox (root in CI), no GPU, and none of the background connections
#: (component updates, sync, QUIC probes) that a machine without network refuses.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_ENV = "MTSIG_CHROMIUM"
SYSTEM_MESSAGE = "System Message"
#: The report's content pane (Snakemake's ContentDisplay), where a result is shown.
CONTENT = "div.grow.justify-center"


def chromium_executable() -> str:
    """The browser: ``$MTSIG_CHROMIUM``, else the first of :data:`CHROMIUM_NAMES` on PATH; an error naming how
    to install it when there is none (the check never skips)."""
    named = os.environ.get(CHROMIUM_ENV)
    found = named or next((path for name in CHROMIUM_NAMES if (path := shutil.which(name))), None)
    if not found or not Path(found).exists():
        raise RuntimeError(
            f"no Chromium found (looked for ${CHROMIUM_ENV}, then {', '.join(CHROMIUM_NAMES)} on PATH): install "
            "Debian's chromium (apt-get install chromium; .ci/run does) or point MTSIG_CHROMIUM at a Chromium"
        )
    return found


@dataclass
class ReportCheck:
    """What a reader met in the report; :attr:`problems` is empty when everything showed as it should."""

    categories: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    images: dict[str, int] = field(default_factory=dict)  # result path -> naturalWidth
    tables: dict[str, int] = field(default_factory=dict)  # result path -> body rows of its tables
    problems: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    screenshots: list[Path] = field(default_factory=list)


def check_report(report: Path, screenshots: Path, timeout_ms: int = 60_000) -> ReportCheck:
    """Go through ``report`` in headless Chromium (module docstring); screenshots go to ``screenshots``."""
    from playwright.sync_api import sync_playwright

    check = ReportCheck()
    screenshots.mkdir(parents=True, exist_ok=True)
    profile = Path(tempfile.mkdtemp(prefix="mtsig-chromium-"))
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch_persistent_context(
                str(profile),
                executable_path=chromium_executable(),
                headless=True,
                args=list(CHROMIUM_FLAGS),
                viewport={"width": 1400, "height": 1000},
            )
            try:
                page = browser.new_page()
                page.set_default_timeout(timeout_ms)
                page.on("console", lambda m: m.type == "error" and check.console_errors.append(m.text))
                page.on("pageerror", lambda error: check.console_errors.append(f"uncaught: {error}"))
                page.goto(Path(report).resolve().as_uri(), wait_until="load")
                page.wait_for_selector("nav li a")
                _no_system_message(page.inner_text("body"), "the landing page", check)
                check.screenshots.append(screenshots / "landing.png")
                page.screenshot(path=str(check.screenshots[-1]))
                for item in ("Statistics", "About"):
                    _click_link(page, item)
                    _no_system_message(page.inner_text("body"), f"the {item} page", check)
                    page.evaluate("() => app.setView({navbarMode: 'menu', content: 'rulegraph'})")
                check.categories = page.evaluate("() => categories")
                entries = page.evaluate(
                    "() => Object.fromEntries(Object.entries(results).map(([p, r]) => [p, [r.mime_type, r.caption]]))"
                )
                for path, (_, caption) in entries.items():
                    _no_system_message(caption or "", f"the caption of {path}", check)
                if not check.categories:
                    check.problems.append("the report has no results")
                for category, subcategories in sorted(check.categories.items()):
                    for subcategory, paths in sorted(subcategories.items()):
                        where = f"{category} / {subcategory}"
                        _open_menu_to(page, category, subcategory, check)
                        for path in paths:
                            # screenshots: the first of the paper's figures (category Figures), the first table
                            shoot = category == "Figures" or "Figures" not in check.categories
                            shot = screenshots / ("table.png" if path.endswith(".html") else "figure.png")
                            shot = shot if shoot or shot.name == "table.png" else None
                            _view(page, f"{where} / {path}", path, entries[path][0], check, shot)
                        _row(page, paths[0]).locator("a[type=button]").nth(1).click()  # its caption
                        page.wait_for_selector("nav ul")
                        _no_system_message(
                            page.inner_text("nav"), f"the caption of {where} / {paths[0]}", check
                        )
            finally:
                browser.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    check.problems += [f"console: {text}" for text in check.console_errors]
    return check


def _no_system_message(text: str, where: str, check: ReportCheck) -> None:
    if SYSTEM_MESSAGE in text:
        line = next(line for line in text.splitlines() if SYSTEM_MESSAGE in line)
        check.problems.append(f"{where} shows docutils' {line.strip()!r}")


def _click_link(page, name: str) -> None:
    page.locator("nav").get_by_role("link", name=name, exact=True).first.click()


def _open_menu_to(page, category: str, subcategory: str, check: ReportCheck) -> None:
    """From the menu, click the category and (when it has several) the subcategory, as a reader would."""
    page.evaluate("() => app.setView({navbarMode: 'menu'})")
    _click_link(page, category)
    _no_system_message(page.inner_text("nav"), f"category {category!r}", check)
    if len(check.categories[category]) > 1:
        _click_link(page, subcategory)
    page.wait_for_selector("nav tbody tr")


def _row(page, path: str):
    cell = page.locator("td").filter(has_text=re.compile(f"^{re.escape(path)}$"))
    return page.locator("nav tbody tr").filter(has=cell).first


def _view(page, where: str, path: str, mime: str, check: ReportCheck, screenshot: Path | None) -> None:
    """Open one result with its view button and check what shows in the content pane; an image is saved to
    ``screenshot`` when given and no screenshot of that name exists yet."""
    _row(page, path).locator("a[type=button]").nth(0).click()
    if mime.startswith("image/"):
        image = page.locator(f"{CONTENT} img").first
        image.wait_for()
        width = image.evaluate(
            "async (img) => { if (!img.complete) { await new Promise((ok) => { img.onload = ok; "
            "img.onerror = ok; }); } return img.naturalWidth; }"
        )
        check.images[path] = width
        if width <= 0:
            check.problems.append(f"{where}: the image does not decode")
        elif screenshot is not None and screenshot not in check.screenshots:
            check.screenshots.append(screenshot)
            page.screenshot(path=str(screenshot))
    elif mime == "text/html":
        frame = page.frame_locator(f"{CONTENT} iframe")
        frame.locator("body").wait_for()
        _no_system_message(frame.locator("body").inner_text(), where, check)
        rows = frame.locator("table tbody tr").count()
        check.tables[path] = rows
        if frame.locator("table").count() == 0 or rows == 0:
            check.problems.append(f"{where}: the page shows no table with rows")
        elif screenshot is not None and screenshot not in check.screenshots:
            check.screenshots.append(screenshot)
            page.screenshot(path=str(screenshot))
    else:
        check.problems.append(
            f"{where}: a {mime or 'file of unknown type'} is offered as a download, not shown"
        )


def main(argv: list[str]) -> int:
    """``python tests/report_browser.py REPORT SCREENSHOT_DIR``: print what was checked and every problem."""
    report, screenshots = Path(argv[0]), Path(argv[1])
    check = check_report(report, screenshots)
    summary = {
        "report": str(report),
        "megabytes": round(report.stat().st_size / 1e6, 2),
        "categories": {c: {s: len(p) for s, p in subs.items()} for c, subs in check.categories.items()},
        "images": len(check.images),
        "tables": len(check.tables),
        "screenshots": [str(p) for p in check.screenshots],
        "problems": check.problems,
    }
    print(json.dumps(summary, indent=1))
    return 1 if check.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
