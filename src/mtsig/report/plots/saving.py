"""The one figure writer of the project, and the figures' fixed style.

Figures are built on :class:`matplotlib.figure.Figure` directly (no pyplot state, no GUI backend) and saved with
the metadata that carries dates or versions removed, so the same input gives byte-identical PDF and PNG files.
Every path is written through a temporary file, so nothing partial is left on error.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure
from matplotlib.text import Text

from mtsig.errors import InputError
from mtsig.runtime import hard_stop

#: Pixels per inch of every PNG figure: the heatmaps' smallest p-values (5.5 pt) stay legible, and the default run's
#: report (every figure embedded) stays small enough to send (with :data:`PNG_COLOURS`).
FIGURE_DPI = 120

#: Fixed style so figures do not depend on a user's matplotlibrc.
STYLE: dict[str, object] = {
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "legend.fontsize": 8,
    "figure.dpi": 100,
    "savefig.dpi": FIGURE_DPI,
    # Type 42 (TrueType) text: publishers' PDF checks (IEEE PDF eXpress, ACM's submission systems) reject Type 3
    # fonts, and these figures are made to go into papers (Type 3 would save fontTools' subsetting of each PDF).
    "pdf.fonttype": 42,
    # matplotlib 3.11's PDF backend sizes its font subsets by ps.fonttype (256 glyphs for its default, Type 3), so
    # every character beyond Latin-1 ("≤", the minus sign) went into a second embedded subset of the font: one
    # fontTools subsetting per PDF instead of two (see also _FONT_FEATURES).
    "ps.fonttype": 42,
    # zlib level 3 for the PDF streams: faster to write than the default 6, for a few more bytes
    "pdf.compression": 3,
    "svg.hashsalt": "mtsig",
    # titles at the top of their axes, where matplotlib's automatic placement puts them in these figures (no tick
    # labels above the axes) without measuring every tick label at each save
    "axes.titley": 1.0,
}

#: Savefig options per format: metadata without creation dates or the software version, so bytes are reproducible.
#: PNGs are written by :func:`_save_png`, which writes no metadata but their resolution.
_SAVE_OPTIONS: dict[str, dict[str, Any]] = {
    ".pdf": {"metadata": {"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None}},
    ".png": {},
}
#: PNG colours: these figures are flat fills, lines and anti-aliased text, which a palette of 64 colours shows
#: without a visible difference in far fewer bytes than a full-colour PNG. zlib level 6: level 9 costs much more
#: CPU for few fewer bytes.
PNG_COLOURS = 64
PNG_COMPRESS_LEVEL = 6

#: Text shaping features of every text: no ligatures. matplotlib 3.11 shapes text (libraqm), and each ligature glyph
#: ("fi" in "significantly", "ff" in "difference") goes into a second embedded subset of the font, which costs a
#: second fontTools subsetting per PDF; the letters also stay separate glyphs in the PDF's text.
_FONT_FEATURES = ("-liga",)


def save_figure(figure: Figure, out_paths: Sequence[str | Path], **savefig: Any) -> list[Path]:
    """Write ``figure`` to every path (PDF or PNG by suffix) reproducibly and atomically, then close it: the
    metadata carries no date or version, so reruns are byte-identical. Each file is written as ``<file>.tmp`` and
    renamed when complete, the one temporary name of mtsig.runtime.hard_stop (a job stopped hard mid-write and run again
    writes it again and renames it away: no stray file is left). ``savefig`` options (e.g. ``dpi``,
    ``bbox_inches``) pass through. Returns the paths. The one figure writer of the project."""
    paths = check_figure_paths(out_paths)
    if hasattr(Text, "set_fontfeatures"):  # matplotlib >= 3.11 (earlier versions do not shape text)
        for text in figure.findobj(Text):
            text.set_fontfeatures(_FONT_FEATURES)
    for out in paths:
        suffix = out.suffix.lower()
        out.parent.mkdir(parents=True, exist_ok=True)
        temporary = hard_stop.temporary_path(out)
        try:
            if suffix == ".png":
                _save_png(figure, temporary, savefig)
            else:
                figure.savefig(temporary, format=suffix[1:], **_SAVE_OPTIONS[suffix], **savefig)
            hard_stop.renaming()
            os.replace(temporary, out)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
    import matplotlib.pyplot as plt  # only to release pyplot-managed figures; this package avoids pyplot

    plt.close(figure)
    return paths


def check_figure_paths(out_paths: Sequence[str | Path]) -> list[Path]:
    """``out_paths`` as paths, after checking that there is one and that each is a format :func:`save_figure`
    writes (``.pdf``, ``.png``), so that a bad one is refused before any file is written."""
    if not out_paths:
        raise InputError("no output path given for the figure")
    paths = [Path(p) for p in out_paths]
    for out in paths:
        if out.suffix.lower() not in _SAVE_OPTIONS:
            raise InputError(f"figure format {out.suffix or '(none)'} not supported; use .pdf or .png", out)
    return paths


def _save_png(figure: Figure, path: str | Path, savefig: dict[str, Any]) -> None:
    """``figure`` as a palette PNG of :data:`PNG_COLOURS` colours chosen by Pillow's median cut
    (:meth:`PIL.Image.Image.quantize`), so that a report of every figure stays small enough to send. Drawn to raw
    RGBA by Agg (no PNG encoded and decoded on the way); the file holds the pixels and the resolution, no text
    chunk."""
    import io

    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    canvas = FigureCanvasAgg(figure)  # drawn on this canvas, whose renderer then tells the image's size
    raw = io.BytesIO()
    figure.savefig(raw, format="raw", **savefig)
    size = int(canvas.renderer.width), int(canvas.renderer.height)
    image = Image.frombuffer("RGBA", size, raw.getbuffer(), "raw", "RGBA", 0, 1)
    if image.getextrema()[3][0] == 255:  # opaque, as every figure of the project: median cut needs RGB
        palette = image.convert("RGB").quantize(PNG_COLOURS, Image.Quantize.MEDIANCUT)
    else:  # transparent: the one quantiser of Pillow's own that keeps the alpha channel
        palette = image.quantize(PNG_COLOURS, Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    dpi = savefig.get("dpi", matplotlib.rcParams["savefig.dpi"])
    dpi = figure.dpi if dpi == "figure" else float(dpi)
    palette.save(path, format="png", compress_level=PNG_COMPRESS_LEVEL, dpi=(dpi, dpi))


def pdf_and_png(stem: str | Path) -> list[Path]:
    """``<stem>.pdf`` and ``<stem>.png``: where :func:`save_figure` writes a figure known by its stem."""
    stem = Path(stem)
    return [stem.with_suffix(".pdf"), stem.with_suffix(".png")]
