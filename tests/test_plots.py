"""mtsig.plots: files written, byte-identical reruns, and the drawn data checked against the paper's algorithms."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import pytest

from mtsig.errors import InputError
from mtsig.report import plots
from mtsig.report.plots import distributions as distribution_figures
from mtsig.report.plots import heatmaps, saving
from mtsig.stats.resampling import ALL_TESTS

WMT22_JA_EN = [
    "JDExploreAcademy",
    "Online-B",
    "Online-W",
    "NAIST-NICT-TIT",
    "Online-A",
    "DLUT",
    "LanguageX",
    "Lan-Bridge",
    "Online-Y",
    "AISP-SJTU",
    "NT5",
    "Online-G",
    "KYB",
    "AIST",
]


# ----------------------------------------------------------------------------------------- Figs. 5-6


def count_by_paper_loop(test: str, pseudo: np.ndarray, actual: float) -> int:
    """Literal transcription of the paper's counting loops (Figs. 1-4) and R&M's originals (seed 001)."""
    c = 0
    tau = sum(pseudo) / len(pseudo)
    tau_abs = sum(abs(v) for v in pseudo) / len(pseudo)
    for v in pseudo:
        if test == "paired_bootstrap" and v < 0:  # Fig. 4: S_Xb < S_Yb
            c += 1
        elif test == "bootstrap" and v - tau >= actual:  # Fig. 3
            c += 1
        elif test == "bootstrap_two_sided" and abs(v - tau) >= abs(actual):  # Fig. 1
            c += 1
        elif test == "approximate_randomization" and v >= actual:  # Fig. 2
            c += 1
        elif test == "approximate_randomization_two_sided" and abs(v) >= abs(actual):
            c += 1
        elif test == "rm_bootstrap" and abs(v) - tau_abs >= abs(actual):
            c += 1
        elif test == "rm_approximate_randomization" and abs(v) >= abs(actual):
            c += 1
    return c


@pytest.mark.parametrize(
    "test",
    [
        "paired_bootstrap",
        "bootstrap",
        "bootstrap_two_sided",
        "approximate_randomization",
        "approximate_randomization_two_sided",
        "rm_bootstrap",
        "rm_approximate_randomization",
    ],
)
def test_null_view_counts_like_the_paper_loops(test):
    rng = np.random.default_rng(5)
    pseudo = rng.normal(0.002, 0.003, 500)
    for actual in (0.004, -0.001):
        assert plots.null_view(test, pseudo, actual)["tail"] == count_by_paper_loop(test, pseudo, actual)


def test_distribution_figure_is_written_and_deterministic(tmp_path):
    rng = np.random.default_rng(1)
    d_b = rng.normal(0.004, 0.0025, 2000)
    d_r = rng.normal(0.0, 0.0025, 2000)
    distributions = {"paired_bootstrap": d_b, "bootstrap": d_b, "approximate_randomization": d_r}
    outputs = []
    for run in ("a", "b"):
        paths = [tmp_path / run / "dist.pdf", tmp_path / run / "dist.png"]
        views = plots.pseudo_statistic_distributions(
            distributions, 0.004, list(distributions), "BLEU: onlineA vs uedin-wmt12", paths
        )
        outputs.append([p.read_bytes() for p in paths])
    assert outputs[0] == outputs[1]
    assert outputs[0][0].startswith(b"%PDF") and outputs[0][1].startswith(b"\x89PNG")
    assert b"CreationDate" not in outputs[0][0]
    # the bootstrap panel shows d_b shifted to mean zero (Fig. 3's shift-to-zero)
    assert views["bootstrap"]["values"].mean() == pytest.approx(0.0, abs=1e-12)
    assert views["bootstrap"]["shift"] == pytest.approx(d_b.mean())
    assert views["paired_bootstrap"]["cutoffs"] == [0.0]


def test_missing_distribution_is_an_error(tmp_path):
    with pytest.raises(InputError, match="bootstrap"):
        plots.pseudo_statistic_distributions({}, 0.1, ["bootstrap"], "t", [tmp_path / "x.png"])
    assert not list(tmp_path.iterdir())


# ----------------------------------------------------------------------------------------- Figs. 7-8


def test_heatmap_colours_exactly_the_significant_cells(tmp_path):
    systems = ["A", "B", "C"]
    p = pd.DataFrame(
        [[np.nan, 0.03, 0.0004], [0.97, np.nan, 0.2], [0.9996, 0.8, np.nan]], index=systems, columns=systems
    )
    coloured = plots.significance_heatmap(p, systems, 0.05, "t", [tmp_path / "h.png"])
    # by hand: only A>B (0.03) and A>C (0.0004) are <= 0.05
    assert coloured.to_numpy().tolist() == [[False, True, True], [False, False, False], [False, False, False]]
    coloured_001 = plots.significance_heatmap(p, systems, 0.001, "t", [tmp_path / "h.png"])
    assert coloured_001.to_numpy().sum() == 1


def test_p_values_are_printed_compactly():
    assert [heatmaps._format_p(x) for x in (0.0, 0.0004, 0.012, 0.05, 0.9996)] == [
        "<.001",
        "<.001",
        ".012",
        ".050",
        "1",
    ]


def test_two_sided_p_goes_in_the_cell_the_statistic_favours():
    rows = [
        ("A", "B", "bootstrap_two_sided", -0.5, 0.01),
        ("B", "A", "bootstrap_two_sided", 0.5, 0.01),
    ]
    tests = pd.DataFrame(rows, columns=["sys_x", "sys_y", "test", "statistic", "p_value"])
    matrix = plots.p_matrix_from_tests(tests, "bootstrap_two_sided", ["A", "B"])
    assert matrix.loc["B", "A"] == 0.01
    assert np.isnan(matrix.loc["A", "B"])


def test_gold_matrix_combines_criteria_like_the_paper():
    # A-B differs on adequacy -> adequacy p-values; A-C ties on adequacy -> fluency p-values (paper, Sec. 4).
    rows = []
    for criterion, p_ab, p_ac in (("adequacy", 0.01, 0.4), ("fluency", 0.6, 0.02)):
        for x, y, p in (("A", "B", p_ab), ("A", "C", p_ac), ("B", "C", 0.5)):
            rows += [(criterion, x, y, p), (criterion, y, x, 1 - p)]
    gold = pd.DataFrame(rows, columns=["criterion", "sys_x", "sys_y", "p_value"])
    matrix = plots.p_matrix_from_gold(gold, ["A", "B", "C"], 0.05, ["adequacy", "fluency"])
    assert matrix.loc["A", "B"] == 0.01 and matrix.loc["B", "A"] == pytest.approx(0.99)
    assert matrix.loc["A", "C"] == 0.02 and matrix.loc["C", "A"] == pytest.approx(0.98)
    assert matrix.loc["B", "C"] == 0.5  # ties on both: the last criterion's p
    assert np.isnan(matrix.loc["A", "A"])


def realistic_p_matrix(systems: list[str], seed: int) -> pd.DataFrame:
    """One-sided p(row > column) for systems of decreasing quality: p = Phi(-(q_row - q_col) / sd)."""
    from scipy.stats import norm

    rng = np.random.default_rng(seed)
    quality = np.sort(rng.normal(0, 1, len(systems)))[::-1]
    p = norm.sf((quality[:, None] - quality[None, :]) / 0.4)
    np.fill_diagonal(p, np.nan)
    return pd.DataFrame(p, index=systems, columns=systems)


def test_grid_for_fourteen_long_names_is_deterministic(tmp_path):
    matrices = {
        t: realistic_p_matrix(WMT22_JA_EN, i) for i, t in enumerate(["paired_bootstrap", "bootstrap"])
    }
    outputs = []
    for run in ("a", "b"):
        paths = [tmp_path / run / "grid.png", tmp_path / run / "grid.pdf"]
        coloured = plots.significance_heatmap_grid(
            matrices, WMT22_JA_EN, 0.05, "WMT22 ja-en", paths, metric="bleu"
        )
        outputs.append([p.read_bytes() for p in paths])
    assert outputs[0] == outputs[1]
    for test, matrix in matrices.items():
        expected = (matrix <= 0.05).to_numpy()
        assert (coloured[test].to_numpy() == expected).all()


def _literal_string(content: bytes, start: int) -> tuple[bytes, int]:
    """The PDF literal string opening at ``content[start] == b"("`` (PDF 1.7, Sec. 7.3.4.2: balanced parentheses,
    backslash escapes, octal codes of one to three digits), and the position after it."""
    import re

    escapes = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b", b"f": b"\f"}
    out, depth, i = bytearray(), 1, start + 1
    while True:
        char = content[i : i + 1]
        if char == b"\\":
            octal = re.match(rb"[0-7]{1,3}", content[i + 1 : i + 4])
            if octal:
                out.append(int(octal.group(), 8) & 255)
                i += 1 + len(octal.group())
            else:
                out += escapes.get(content[i + 1 : i + 2], content[i + 1 : i + 2])
                i += 2
            continue
        depth += {b"(": 1, b")": -1}.get(char, 0)
        if depth == 0:
            return bytes(out), i + 1
        out += char
        i += 1


def _to_unicode(cmap: bytes) -> dict[int, str]:
    """A ToUnicode CMap's code -> text (PDF 1.7, Sec. 9.10.3): bfchar pairs and both forms of bfrange."""
    import re

    def text(hex_digits: bytes) -> str:
        return bytes.fromhex(hex_digits.decode()).decode("utf-16-be")

    mapping: dict[int, str] = {}
    for section in re.findall(rb"beginbfchar(.*?)endbfchar", cmap, re.S):
        for code, target in re.findall(rb"<(\w+)>\s*<(\w+)>", section):
            mapping[int(code, 16)] = text(target)
    for section in re.findall(rb"beginbfrange(.*?)endbfrange", cmap, re.S):
        for low, high, targets in re.findall(rb"<(\w+)>\s*<(\w+)>\s*(\[[^\]]*\]|<\w+>)", section):
            first, last = int(low, 16), int(high, 16)
            if targets.startswith(b"["):
                for offset, target in enumerate(re.findall(rb"<(\w+)>", targets)):
                    mapping[first + offset] = text(target)
            else:
                start = int(targets[1:-1], 16)
                mapping.update({first + k: chr(start + k) for k in range(last - first + 1)})
    return mapping


def _pdf_texts(pdf: bytes) -> list[str]:
    """Every text object (``BT`` ... ``ET``) of a matplotlib PDF as a reader copies it: the strings its
    ``Tj``/``TJ`` operators show, 2-byte codes (Identity-H) mapped to Unicode by the font's ToUnicode CMap.
    Independent of matplotlib: zlib-compressed streams and the PDF's own mapping."""
    import re
    import zlib

    streams = []
    for raw in re.findall(rb"stream\r?\n(.*?)\r?\nendstream", pdf, re.S):
        try:
            streams.append(zlib.decompress(raw))
        except zlib.error:  # stored another way (none of matplotlib's text): not read
            continue
    to_unicode: dict[int, str] = {}
    for cmap in (s for s in streams if b"begincmap" in s):
        to_unicode.update(_to_unicode(cmap))
    texts = []
    for stream in streams:
        for block in re.findall(rb"\bBT\b(.*?)\bET\b", stream, re.S):
            shown, i = bytearray(), 0
            while (i := block.find(b"(", i)) >= 0:
                string, i = _literal_string(block, i)
                shown += string
            codes = [int.from_bytes(shown[k : k + 2], "big") for k in range(0, len(shown), 2)]
            texts.append("".join(to_unicode[c] for c in codes))
    return texts


@pytest.mark.parametrize("figure", ["single", "grid"])
def test_heatmap_pdf_holds_its_p_values_as_text(tmp_path, figure):
    """The p-values of a PDF heatmap are text a reader can select and copy, one text per cell: the strings
    extracted from the PDF's text objects include each p-value exactly as often as the matrix shows it (printed
    by hand below as the cells show them: three decimals without the leading zero, "<.001" below 0.001, "1" at 1)."""
    systems = ["sys-A", "sys-B", "sys-C"]
    p = pd.DataFrame(
        [[np.nan, 0.018, 0.0004], [0.982, np.nan, 0.25], [1.0, 0.75, np.nan]], index=systems, columns=systems
    )
    expected = {".018": 1, "<.001": 1, ".982": 1, ".250": 1, "1": 1, ".750": 1}
    path = tmp_path / "h.pdf"
    if figure == "single":
        plots.significance_heatmap(p, systems, 0.05, "a title", [path])
    else:
        plots.significance_heatmap_grid({"bootstrap": p, "paired_bootstrap": p}, systems, 0.05, "t", [path])
        expected = {text: 2 * count for text, count in expected.items()}
    texts = _pdf_texts(path.read_bytes())
    assert "sys-A" in texts  # the parser reads the labels that were always text
    assert {text: texts.count(text) for text in expected} == expected


def test_pdf_embeds_one_type42_font_and_no_ligatures(tmp_path):
    """Publishers' PDF checks reject Type 3 fonts; a ligature ("fi", "ff") would make matplotlib (>= 3.11) embed
    a second subset of the font, at the cost of a second fontTools subsetting per PDF."""
    path = tmp_path / "grid.pdf"
    matrices = {"paired_bootstrap": realistic_p_matrix(WMT22_JA_EN, 0)}
    plots.significance_heatmap_grid(matrices, WMT22_JA_EN, 0.05, "significantly different, cut-off", [path])
    pdf = path.read_bytes()
    assert b"/Subtype /Type3" not in pdf
    assert pdf.count(b"/FontFile2") == 1


@pytest.mark.parametrize("names", [["h.svg"], ["h.pdf", "h.png", "h.svg"]])
def test_unknown_format_is_refused_and_nothing_written(tmp_path, names):
    p = realistic_p_matrix(["A", "B"], 0)
    with pytest.raises(InputError, match=r"\.svg"):
        plots.significance_heatmap(p, ["A", "B"], 0.05, "t", [tmp_path / name for name in names])
    with pytest.raises(InputError, match=r"\.svg"):
        plots.significance_heatmap_grid(
            {"bootstrap": p}, ["A", "B"], 0.05, "t", [tmp_path / n for n in names]
        )
    assert not list(tmp_path.iterdir())


def _cell_ink_boxes(figure, cells: list[tuple[int, int]]) -> list[tuple[int, int, int, int]]:
    """Pixel box (x0, y0, x1, y1) of the ink in each ``(row, column)`` cell of a figure's first axes, drawn by Agg:
    the pixels that differ from the colour at the cell's corner (its fill)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    pixels = np.asarray(canvas.buffer_rgba())[..., :3].astype(int)
    ax = figure.axes[0]
    boxes = []
    for row, column in cells:
        (x0, y0), (x1, y1) = ax.transData.transform([(column - 0.4, row + 0.4), (column + 0.4, row - 0.4)])
        top, left = int(pixels.shape[0] - y1), int(x0)  # display y is upwards, image rows downwards
        cell = pixels[top : int(pixels.shape[0] - y0), left : int(x1)]
        ink_rows, ink_columns = np.nonzero((cell != cell[0, 0]).any(axis=2))
        boxes.append(
            (left + ink_columns.min(), top + ink_rows.min(), left + ink_columns.max(), top + ink_rows.max())
        )
    return boxes


def test_png_p_values_are_drawn_where_matplotlib_places_the_text():
    """Oracle: matplotlib's own text layout. A PNG's p-values are glyph outlines (fast to rasterise), a PDF's are
    text; in every cell the outline's ink lies where the text's ink does, within a pixel, for p-values of every
    width and colour."""
    systems = ["A", "B", "C", "D"]
    p = pd.DataFrame(
        [
            [np.nan, 0.0004, 0.018, 1.0],
            [0.5, np.nan, 0.002, 0.25],
            [0.9996, 0.05, np.nan, 0.3],
            [1, 1, 1, np.nan],
        ],
        index=systems,
        columns=systems,
    )
    cells = [(i, j) for i in range(4) for j in range(4) if i != j]
    boxes = {}
    for selectable_text in (True, False):
        with matplotlib.rc_context(plots.STYLE):
            figure, _ = plots.significance_heatmap_figure(
                p, systems, 0.05, "t", selectable_text=selectable_text
            )
            figure.set_dpi(plots.FIGURE_DPI)
            boxes[selectable_text] = _cell_ink_boxes(figure, cells)
    for cell, text, outline in zip(cells, boxes[True], boxes[False], strict=True):
        assert max(abs(a - b) for a, b in zip(text, outline, strict=True)) <= 1, (cell, text, outline)


def test_matrix_missing_a_system_is_an_error(tmp_path):
    p = realistic_p_matrix(["A", "B"], 0)
    with pytest.raises(InputError, match="C"):
        plots.significance_heatmap(p, ["A", "B", "C"], 0.05, "t", [tmp_path / "h.png"])


# ----------------------------------------------------------------------------------------- fast drawing paths


def _render_labelled_axes(label_with_ticks: bool, columns: list[str], rows: list[str] | None) -> np.ndarray:
    """Pixels of a 4 x 4 heatmap-like panel labelled by matplotlib's ticks (the oracle) or by _label_cells."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    n = len(columns)
    with matplotlib.rc_context(plots.STYLE):
        figure = Figure(figsize=(4, 4), dpi=150)
        ax = figure.add_axes((0.4, 0.4, 0.5, 0.5))
        ax.imshow(np.arange(n * n).reshape(n, n) % 3, interpolation="none", aspect="equal")
        ax.set_xlim(-0.5, n - 0.5)
        ax.set_ylim(n - 0.5, -0.5)
        if label_with_ticks:
            ax.set_xticks(range(n), columns, rotation=55, ha="right", rotation_mode="anchor")
            ax.set_yticks(range(n) if rows else [], rows or [])
            ax.tick_params(which="major", length=heatmaps._TICK_LENGTH)
        else:
            heatmaps._label_cells(ax, columns, rows)
        for side in ax.spines.values():
            side.set_visible(False)
        canvas = FigureCanvasAgg(figure)
        canvas.draw()
        return np.asarray(canvas.buffer_rgba()).copy()


@pytest.mark.parametrize("rows", [["JDExploreAcademy", "Online-B", "NT5", "Lan-Bridge"], None])
def test_cell_labels_are_the_pixels_of_matplotlibs_ticks(rows):
    columns = ["JDExploreAcademy", "Online-B", "NT5", "Lan-Bridge"]
    reference = _render_labelled_axes(True, columns, rows)
    drawn = _render_labelled_axes(False, columns, rows)
    assert (reference != 255).any()  # something was drawn
    assert np.array_equal(drawn, reference)


def test_p_matrix_from_tests_by_hand():
    rows = [
        ("A", "B", "bootstrap", 0.2, 0.01),
        ("B", "A", "bootstrap", -0.2, 0.97),
        ("A", "C", "bootstrap", 0.1, 0.04),
        ("A", "Z", "bootstrap", 0.3, 0.001),  # Z is not drawn
        ("A", "B", "paired_bootstrap", 0.2, 0.5),  # another test
    ]
    tests = pd.DataFrame(rows, columns=["sys_x", "sys_y", "test", "statistic", "p_value"])
    matrix = plots.p_matrix_from_tests(tests, "bootstrap", ["A", "B", "C"])
    expected = [[np.nan, 0.01, 0.04], [0.97, np.nan, np.nan], [np.nan, np.nan, np.nan]]
    assert list(matrix.index) == list(matrix.columns) == ["A", "B", "C"]
    np.testing.assert_array_equal(matrix.to_numpy(), np.array(expected))


@pytest.mark.parametrize("test", list(ALL_TESTS))
def test_every_panel_shows_its_cut_off_and_the_actual_statistic_inside_its_axis(test: str) -> None:
    """Every cut-off stays visible: the AR panel of distributions_bleu_QCRI--primary__onlineD showed a cut-off (d = 9.9) beyond every
    d_r, drawn on the axis frame: every cut-off and the actual statistic must lie inside the x-limits, off the
    frame by at least 2% of the axis width, also when they are the extremes of the data."""
    from matplotlib.figure import Figure

    rng = np.random.default_rng(5)
    actual = 9.9
    pseudo = rng.normal(0.0, 0.3, 1000) if "randomization" in test else rng.normal(actual, 0.3, 1000)
    view = plots.null_view(test, pseudo, actual)
    ax = Figure().add_subplot()
    distribution_figures._draw_distribution_panel(ax, test, view, pseudo, actual)
    low, high = ax.get_xlim()
    margin = 0.02 * (high - low)
    for mark in [*view["cutoffs"], actual]:
        assert low + margin <= mark <= high - margin, (test, mark, (low, high))
    lines = [line.get_xdata()[0] for line in ax.get_lines() if len(line.get_xdata())]
    assert all(low < x < high for x in lines)


def test_png_of_a_heatmap_shows_matplotlibs_colours_in_a_palette(tmp_path):
    """Oracle: matplotlib's own full-colour PNG of the same figure. The palette PNG keeps every colour that covers
    a visible area (background, shades, diagonal, grid) exactly, nearly every pixel exactly, and the anti-aliased
    edges of grey and black text grey (a palette of the most frequent colours alone showed them dark green)."""
    import io

    from PIL import Image

    systems = WMT22_JA_EN[:8]

    def figure():
        return plots.significance_heatmap_figure(realistic_p_matrix(systems, 3), systems, 0.05, "t")[0]

    expected = io.BytesIO()
    with matplotlib.rc_context(plots.STYLE):
        written = plots.save_figure(figure(), [tmp_path / "h.png"])[0]
        figure().savefig(expected, format="png")
    ours, theirs = Image.open(written), Image.open(expected)
    assert ours.mode == "P" and len(ours.getcolors()) <= saving.PNG_COLOURS
    shown = np.asarray(ours.convert("RGB")).astype(int)
    drawn = np.asarray(theirs.convert("RGB")).astype(int)
    assert shown.shape == drawn.shape
    error = np.abs(shown - drawn).max(axis=2)
    colours, inverse, counts = np.unique(
        drawn.reshape(-1, 3), axis=0, return_inverse=True, return_counts=True
    )
    large = (counts >= 0.005 * error.size)[inverse.ravel()].reshape(error.shape)
    assert len(colours) > 4 * saving.PNG_COLOURS  # anti-aliased text: the palette has to choose
    assert (error[large] == 0).all()
    assert (error == 0).mean() >= 0.95
    assert np.percentile(error, 99.9) <= 24
    grey = drawn.max(axis=2) == drawn.min(axis=2)
    assert (shown.max(axis=2) - shown.min(axis=2))[grey].max() <= 16


@pytest.mark.parametrize("bbox_inches", [None, "tight"])
def test_png_has_matplotlibs_pixels_and_resolution(tmp_path, bbox_inches):
    """Flat fills without anti-aliasing (few colours, so the palette is lossless): the file's pixels equal
    matplotlib's own PNG of the same figure, also when the tight bounding box changes the image's size."""
    import io

    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle
    from PIL import Image

    def figure() -> Figure:
        made = Figure(figsize=(3.0, 2.0))
        axes = made.add_axes((0.1, 0.1, 0.6, 0.8))
        axes.set_axis_off()
        for n, colour in enumerate(["#c7e9c0", "#74c476", "#238b45", "#e6e6e6"]):
            axes.add_patch(Rectangle((n, n % 2), 0.9, 0.9, color=colour, antialiased=False))
        axes.set_xlim(0, 4)
        axes.set_ylim(0, 2)
        return made

    written = plots.save_figure(figure(), [tmp_path / "f.png"], dpi=97, bbox_inches=bbox_inches)[0]
    expected = io.BytesIO()
    figure().savefig(expected, format="png", dpi=97, bbox_inches=bbox_inches)
    ours, theirs = Image.open(written), Image.open(expected)
    assert ours.mode == "P" and ours.size == theirs.size
    np.testing.assert_array_equal(np.asarray(ours.convert("RGBA")), np.asarray(theirs.convert("RGBA")))
    assert ours.info["dpi"] == pytest.approx((97, 97), abs=0.01)


def test_figures_get_the_mode_of_any_new_file(tmp_path):
    """A written figure is readable by whoever may read the files next to it: the mode open() gives a new file
    under the process's umask, not the temporary file's private 0600."""
    import stat

    from matplotlib.figure import Figure

    figure = Figure(figsize=(1.0, 1.0))
    written = plots.save_figure(figure, [tmp_path / "f.png", tmp_path / "f.pdf"], dpi=50)
    (tmp_path / "plain.txt").write_text("x")
    expected = stat.S_IMODE((tmp_path / "plain.txt").stat().st_mode)
    assert [stat.S_IMODE(p.stat().st_mode) for p in written] == [expected, expected]
