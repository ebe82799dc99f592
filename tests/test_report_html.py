"""The Markdown tables as HTML pages for ``snakemake --report`` (mtsig.report.html), read back with Python's own
HTML parser (html.parser): every cell, heading and list item as the Markdown says, markup as markup, the rest
escaped."""

from __future__ import annotations

from html.parser import HTMLParser

import pandas as pd

from mtsig.report.html import markdown_page
from mtsig.report.tables import frame_to_markdown


class Page(HTMLParser):
    """The text of every element by tag, table rows as lists of (tag, text, style) cells."""

    def __init__(self, page: str):
        super().__init__()
        self.rows: list[list[tuple[str, str, str]]] = []
        self.texts: dict[str, list[str]] = {}
        self.open: list[tuple[str, dict]] = []
        self.buffer: list[list[str]] = []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        if tag in ("meta", "br", "hr", "img", "link"):  # void elements: no end tag
            return
        if tag == "tr":
            self.rows.append([])
        self.open.append((tag, dict(attrs)))
        self.buffer.append([])

    def handle_endtag(self, tag):
        opened, attrs = self.open.pop()
        assert opened == tag, f"</{tag}> closes <{opened}>"
        text = "".join(self.buffer.pop())
        if self.buffer:
            self.buffer[-1].append(text)
        self.texts.setdefault(tag, []).append(text)
        if tag in ("td", "th"):
            self.rows[-1].append((tag, text, attrs.get("style", "")))

    def handle_data(self, data):
        if self.buffer:
            self.buffer[-1].append(data)


MARKDOWN = """# Accuracy & more: <es-en>

First line of a paragraph
and its second line with **bold**, *italic* and `a|b <code>`.

| metric | p ≤ 0.05 | note |
| --- | ---: | :---: |
| BLEU | **45** | a \\| b |
| chrF++ | 0.001 | [paper](https://example.org/x?a=1&b=2) |

- first item: `mtsig:0.1.0|test:paired_bootstrap`
- second item
"""


def test_every_part_of_the_markdown_is_in_the_page():
    page = Page(markdown_page(MARKDOWN))
    assert page.texts["title"] == ["Accuracy & more: <es-en>"]
    assert page.texts["h1"] == ["Accuracy & more: <es-en>"]
    assert page.texts["p"] == [
        "First line of a paragraph and its second line with bold, italic and a|b <code>."
    ]
    assert page.texts["strong"] == ["bold", "45"] and page.texts["em"] == ["italic"]
    assert page.texts["code"] == ["a|b <code>", "mtsig:0.1.0|test:paired_bootstrap"]
    assert page.texts["li"] == ["first item: mtsig:0.1.0|test:paired_bootstrap", "second item"]
    assert page.rows == [
        [("th", "metric", ""), ("th", "p ≤ 0.05", "text-align:right"), ("th", "note", "text-align:center")],
        [("td", "BLEU", ""), ("td", "45", "text-align:right"), ("td", "a | b", "text-align:center")],
        [("td", "chrF++", ""), ("td", "0.001", "text-align:right"), ("td", "paper", "text-align:center")],
    ]
    assert 'href="https://example.org/x?a=1&amp;b=2"' in markdown_page(MARKDOWN)


def test_a_frame_table_reads_back_cell_for_cell():
    frame = pd.DataFrame(
        {"system": ["A|x", "<B>"], "metric": ["BLEU", "TER"], "score": [32.8512, 0.5], "n": [12, 3]}
    )
    page = Page(markdown_page("# Scores\n\n" + frame_to_markdown(frame, float_format="{:.6g}")))
    assert [[text for _, text, _ in row] for row in page.rows] == [
        ["system", "metric", "score", "n"],
        ["A|x", "BLEU", "32.8512", "12"],
        ["<B>", "TER", "0.5", "3"],
    ]
    assert [style for _, _, style in page.rows[1]] == ["", "", "text-align:right", "text-align:right"]


def test_the_same_markdown_gives_the_same_bytes():
    assert markdown_page(MARKDOWN) == markdown_page(MARKDOWN)
    assert markdown_page(MARKDOWN, title="T").count("<title>T</title>") == 1
