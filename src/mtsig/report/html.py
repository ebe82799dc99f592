"""The pipeline's Markdown tables as standalone HTML pages, for ``snakemake --report``.

Snakemake's report shows an HTML result in the page and offers any other text file (Markdown, TSV) only as a
download, so every table marked for the report is also written as HTML (``results/tables/*.html``, beside the
Markdown that the checksums cover). :func:`markdown_page` renders the Markdown this project writes (``#`` headings,
paragraphs, ``-`` lists, pipe tables with their alignment row, ``**bold**``, ``*italic*``, ```code```,
``[links](url)``); everything else is text, escaped. Pure and deterministic: the same Markdown gives the same bytes.
"""

from __future__ import annotations

import html
import re

#: The page's style: compact tables that stay legible in the report's frame, numbers right-aligned as in the Markdown.
STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; font-size: 14px; margin: 1em; color: #1f2937; }
h1 { font-size: 1.3em; } h2 { font-size: 1.15em; } h3, h4 { font-size: 1em; }
table { border-collapse: collapse; margin: 0.8em 0; }
th, td { border: 1px solid #d1d5db; padding: 0.2em 0.5em; }
th { background: #f3f4f6; }
tbody tr:nth-child(even) { background: #f9fafb; }
code { font-size: 0.9em; word-break: break-all; }
""".strip()

_ALIGNMENT = re.compile(r"^\s*:?-{3,}:?\s*$")
_BULLET = re.compile(r"^\s*[-*]\s+")
_INLINE = re.compile(
    r"`(?P<code>[^`]+)`"
    r"|\*\*(?P<bold>[^*]+)\*\*"
    r"|(?<![\w*])\*(?P<italic>[^*\s](?:[^*]*[^*\s])?)\*(?![\w*])"
    r"|\[(?P<text>[^\]]+)\]\((?P<url>[^)\s]+)\)"
)


def inline_html(text: str) -> str:
    """One line of Markdown text as HTML: code spans, bold, italic and links; the rest escaped."""
    out, position = [], 0
    for match in _INLINE.finditer(text):
        out.append(html.escape(text[position : match.start()]))
        if match["code"] is not None:
            out.append(f"<code>{html.escape(match['code'])}</code>")
        elif match["bold"] is not None:
            out.append(f"<strong>{inline_html(match['bold'])}</strong>")
        elif match["italic"] is not None:
            out.append(f"<em>{inline_html(match['italic'])}</em>")
        else:
            out.append(f'<a href="{html.escape(match["url"])}">{inline_html(match["text"])}</a>')
        position = match.end()
    out.append(html.escape(text[position:]))
    return "".join(out)


def _cells(line: str) -> list[str]:
    """The cells of a pipe-table row (outer pipes optional; ``\\|`` is a pipe inside a cell)."""
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") else body
    return [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", body)]


def _is_table_start(lines: list[str], i: int) -> bool:
    return (
        lines[i].lstrip().startswith("|")
        and i + 1 < len(lines)
        and all(_ALIGNMENT.match(cell) for cell in _cells(lines[i + 1]))
    )


def _table_html(lines: list[str]) -> str:
    """A pipe table (header, alignment row, body rows) as an HTML table."""
    header, alignment, rows = _cells(lines[0]), _cells(lines[1]), [_cells(line) for line in lines[2:]]
    aligns = [
        "center" if cell.startswith(":") and cell.endswith(":") else "right" if cell.endswith(":") else ""
        for cell in alignment
    ]

    def row(cells: list[str], tag: str) -> str:
        parts = []
        for n, cell in enumerate(cells):
            align = aligns[n] if n < len(aligns) else ""
            style = f' style="text-align:{align}"' if align else ""
            parts.append(f"<{tag}{style}>{inline_html(cell)}</{tag}>")
        return "<tr>" + "".join(parts) + "</tr>"

    body = "\n".join(row(cells, "td") for cells in rows)
    return f"<table>\n<thead>{row(header, 'th')}</thead>\n<tbody>\n{body}\n</tbody>\n</table>"


def markdown_html(markdown: str) -> str:
    """The HTML body of a Markdown text (module docstring: what is understood)."""
    lines = markdown.splitlines()
    blocks: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
        elif heading := re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line):
            level = len(heading[1])
            blocks.append(f"<h{level}>{inline_html(heading[2])}</h{level}>")
            i += 1
        elif _is_table_start(lines, i):
            end = i + 2
            while end < len(lines) and lines[end].lstrip().startswith("|"):
                end += 1
            blocks.append(_table_html(lines[i:end]))
            i = end
        elif _BULLET.match(line):
            items = []
            while i < len(lines) and _BULLET.match(lines[i]):
                items.append(f"<li>{inline_html(_BULLET.sub('', lines[i], count=1))}</li>")
                i += 1
            blocks.append("<ul>\n" + "\n".join(items) + "\n</ul>")
        else:
            paragraph = []
            while (
                i < len(lines)
                and lines[i].strip()
                and not re.match(r"^#{1,6}\s", lines[i])
                and not _BULLET.match(lines[i])
                and not _is_table_start(lines, i)
            ):
                paragraph.append(lines[i].strip())
                i += 1
            blocks.append(f"<p>{inline_html(' '.join(paragraph))}</p>")
    return "\n".join(blocks)


def markdown_page(markdown: str, title: str | None = None) -> str:
    """A standalone HTML page (UTF-8, its own style) showing a Markdown text; ``title`` defaults to its first
    heading."""
    if title is None:
        heading = re.search(r"^#{1,6}\s+(.*?)\s*$", markdown, flags=re.MULTILINE)
        title = heading[1] if heading else ""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title)}</title>\n<style>\n{STYLE}\n</style>\n</head>\n<body>\n"
        f"{markdown_html(markdown)}\n</body>\n</html>\n"
    )
