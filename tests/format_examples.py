"""The example files and commands of docs/cli.md's "File formats" section, as printed.

An example is a fenced ``text`` block whose introducing paragraph starts with the file's name in backticks
(`` `comet.tsv`, tidy: ... ``); a command is a line of a fenced ``bash`` block of the section. Both
tests/test_file_formats.py (which runs every command on the examples and checks the numbers) and
tests/test_readme_commands.py (which runs every command of the docs where a reader types it) write the examples
into the folder the commands run in.
"""

from __future__ import annotations

import re
from pathlib import Path

CLI_PAGE = Path(__file__).resolve().parents[1] / "docs" / "cli.md"
SECTION = "## File formats"
_EXAMPLE = re.compile(r"^`([^`\s]+)`[^\n]*(?:\n[^\n]+)*\n\n```text\n(.*?)^```", flags=re.M | re.S)


def formats_section(page: Path = CLI_PAGE) -> str:
    """The text of the "File formats" section of ``page``, up to the next ``## `` heading."""
    text = page.read_text(encoding="utf-8")
    return text.split(f"\n{SECTION}\n", 1)[1].split("\n## ", 1)[0]


def format_examples(page: Path = CLI_PAGE) -> dict[str, str]:
    """Each example's file name -> its content, exactly as printed (ending in a newline)."""
    return {match.group(1): match.group(2) for match in _EXAMPLE.finditer(formats_section(page))}


def format_commands(page: Path = CLI_PAGE) -> list[str]:
    """The commands of the section's ``bash`` blocks, in order."""
    blocks = re.findall(r"^```bash\n(.*?)^```", formats_section(page), flags=re.M | re.S)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def write_format_examples(folder: Path) -> None:
    """Write every example into ``folder`` (a file already there is left alone)."""
    for name, content in format_examples().items():
        path = folder / name
        if not path.exists():
            path.write_text(content, encoding="utf-8")
