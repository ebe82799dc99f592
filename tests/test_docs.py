"""The README and the docs pages hold together: every relative link and anchor resolves, every page that prints
shell commands is one tests/test_readme_commands.py runs, and the figures under docs/ are small, shown, and drawn
from the default run whose checksums are committed (checksums/default-run.tsv)."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from test_readme_commands import READMES

from mtsig.pipeline.verification import read_checksums

REPO = Path(__file__).resolve().parents[1]
PAGES = sorted(
    ["README.md", *(str(p.relative_to(REPO)) for p in (REPO / "docs").glob("*.md"))]
    + ["config/README.md", "data/README.md", "benchmarks/README.md", "profiles/slurm/README.md"]
)
#: A figure shown in the README (docs/figures) may weigh at most this much: the README's first screen loads it.
MAX_FIGURE_BYTES = 150_000
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", flags=re.S | re.M)


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading: lower case, punctuation dropped, spaces to hyphens (code spans
    and emphasis marks are punctuation)."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The anchors of every heading of ``page`` (outside fenced blocks)."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return {github_anchor(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, flags=re.M)}


def links(page: str) -> list[str]:
    """Every relative link target of ``page`` (outside fenced blocks and code spans)."""
    text = FENCE.sub("", (REPO / page).read_text(encoding="utf-8"))
    text = re.sub(r"`[^`]*`", "", text)
    return [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t)]


@pytest.mark.parametrize("page", PAGES)
def test_every_relative_link_and_anchor_resolves(page: str) -> None:
    broken = []
    for target in links(page):
        path, _, anchor = target.partition("#")
        file = (REPO / page).parent / path if path else REPO / page
        if not file.exists():
            broken.append(f"{target}: no file {path}")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{target}: no heading with anchor #{anchor}")
    assert not broken, f"{page}: " + "; ".join(broken)


def test_anchor_rule_on_headings_of_these_pages() -> None:
    """The anchor rule gives GitHub's anchors for the kinds of heading the pages use (GitHub's rendered ids)."""
    assert github_anchor("Does it replicate? Conclusions across test sets") == (
        "does-it-replicate-conclusions-across-test-sets"
    )
    assert github_anchor("The paper's Tables 1-2, side by side") == "the-papers-tables-1-2-side-by-side"
    assert github_anchor("The `mtsig` command") == "the-mtsig-command"
    assert github_anchor("Which metric agrees with experts (WMT23 MQM)") == (
        "which-metric-agrees-with-experts-wmt23-mqm"
    )


def test_a_broken_link_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Title\n\nSee [here](#no-such-heading) and [there](missing.md).\n")
    monkeypatch.setattr(f"{__name__}.REPO", tmp_path)
    with pytest.raises(AssertionError, match=r"no heading with anchor #no-such-heading.*no file missing.md"):
        test_every_relative_link_and_anchor_resolves("page.md")


def test_every_docs_page_with_shell_commands_is_run_by_the_readme_test() -> None:
    shell = re.compile(r"^```(bash|sh|shell|console)\s*$", flags=re.M)
    printing = {str(p.relative_to(REPO)) for p in (REPO / "docs").glob("*.md") if shell.search(p.read_text())}
    assert printing, "no docs page prints a command: the pattern is wrong"
    assert printing <= set(READMES), (
        f"add to READMES in tests/test_readme_commands.py: {printing - set(READMES)}"
    )


def test_docs_figures_are_small_and_shown() -> None:
    shown = " ".join((REPO / page).read_text(encoding="utf-8") for page in PAGES)
    figures = sorted((REPO / "docs" / "figures").glob("*.png"))
    assert figures
    for figure in figures:
        assert figure.stat().st_size <= MAX_FIGURE_BYTES, f"{figure.name}: {figure.stat().st_size} bytes"
        assert f"figures/{figure.name}" in shown, f"{figure.name} is shown on no page"


def test_readme_figure_is_drawn_from_the_default_runs_tables() -> None:
    """docs/figures/sources.tsv names the run's tables each committed figure was drawn from, with their sha256;
    they are the default run's (checksums/default-run.tsv). When a change alters those tables, the coordinator's
    new checksum list fails this test until the figure is copied from the new run
    (results/figures/delta_agreement.png) and sources.tsv takes the new sha256."""
    sources = pd.read_csv(REPO / "docs" / "figures" / "sources.tsv", sep="\t", dtype=str)
    assert list(sources.columns) == ["figure", "drawn_from", "sha256"]
    run = read_checksums(REPO / "checksums" / "default-run.tsv").set_index("path")["sha256"]
    for row in sources.itertuples(index=False):
        assert (REPO / "docs" / "figures" / row.figure).is_file(), row.figure
        assert row.drawn_from in run.index, f"{row.drawn_from} is not an output of the default run"
        assert run[row.drawn_from] == row.sha256, (
            f"docs/figures/{row.figure} was drawn from another {row.drawn_from} than the default run's: redraw it "
            "(docs/artifact-review.md, *The quick check*)"
        )
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    first_screen = readme.split("\n## ", 1)[0]
    assert "](docs/figures/delta-agreement.png)" in first_screen


def test_results_wmt23_table_is_mt_metrics_evals() -> None:
    """docs/results.md's WMT23 MQM table prints mt-metrics-eval's values: each average and task value is the constant its
    ``tasks.WMT23(k=0)`` produced (tests/test_metrics_protocol.py, commit 68a481a) rounded to three decimals, the
    metrics in the order of their average, and the rank (the cluster of the average) never falls down the list."""
    from test_metrics_protocol import WMT23_AVERAGE, WMT23_TASKS

    labels = ["accuracy"] + [
        f"{lp} {kind}"
        for lp in ("en-de", "he-en", "zh-en")
        for kind in ("sys pearson", "seg pearson", "seg acc-t (item)")
    ]
    results = (REPO / "docs" / "results.md").read_text(encoding="utf-8")
    section = results.split("## Which metric agrees with experts? The WMT23 table", 1)[1].split("\n## ", 1)[0]
    rows = [
        [c.strip() for c in line.strip("|").split("|")]
        for line in section.splitlines()
        if line.startswith("|")
    ]
    header, body = rows[0], rows[2:]
    assert header[:3] == ["rank", "metric", "avg"] and set(header[3:]) <= set(labels) and len(body) >= 8
    ranks, positions = [], []
    for rank, metric, average, *values in body:
        assert f"{WMT23_AVERAGE[metric]:.3f}" == average, metric
        for label, cell in zip(header[3:], values, strict=True):
            value, cluster = re.fullmatch(r"(-?\d\.\d{3}) \((\d+)\)", cell).groups()
            assert value == f"{WMT23_TASKS[metric][labels.index(label)]:.3f}", (metric, label)
        ranks.append(int(rank))
        positions.append(list(WMT23_AVERAGE).index(metric))
    assert positions == sorted(positions) and ranks == sorted(ranks)
