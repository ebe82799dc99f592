"""Tests of BLEU, chrF, TER (oracle: sacrebleu's API and command line) and of every metric's shared contract.

NIST's own tests (oracle: mteval-v13a.pl, hand arithmetic) are in test_nist.py.

Real data: WMT12 newstest2012 es-en, HTML entities undone (mtsig.io.text.load_texts(unescape=True)).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sacrebleu
from sacrebleu.metrics.bleu import BLEU as SacreBLEU
from sacrebleu.metrics.chrf import CHRF as SacreCHRF
from sacrebleu.metrics.ter import TER as SacreTER

from mtsig.errors import InputError
from mtsig.io.text import load_texts
from mtsig.metrics import METRICS, get_metric
from mtsig.metrics.base import reference_streams

SYSTEMS = ("onlineB", "UPC")


@pytest.fixture(scope="module")
def wmt12(data_root: Path) -> tuple[list[str], dict[str, list[str]]]:
    folder = data_root / "wmt12"
    outputs = {name: folder / "system-outputs" / "es-en" / f"newstest2012.es-en.{name}" for name in SYSTEMS}
    return load_texts(folder / "plain" / "newstest2012-ref.en", outputs, unescape=True)


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def sacrebleu_cli(ref: Path, hyp: Path, metrics: list[str], width: int) -> list[float]:
    """Scores printed by sacrebleu's own command line (``-b``: score only, ``-w``: decimals)."""
    command = [
        sys.executable,
        "-m",
        "sacrebleu",
        str(ref),
        "-i",
        str(hyp),
        "-m",
        *metrics,
        "-b",
        "-w",
        str(width),
    ]
    completed = subprocess.run(command, capture_output=True, text=True, check=True)
    printed = json.loads(completed.stdout)  # one number, or a JSON list of numbers for several metrics
    return [float(value) for value in (printed if isinstance(printed, list) else [printed])]


def oracle_sample(refs: list[str], outputs: dict[str, list[str]], every: int) -> list[int]:
    """The segments a default oracle test compares (fixed, in corpus order): every ``every``-th one, and every
    segment whose reference or an output has fewer than 4 words (an n-gram order with no n-gram, BLEU's
    zero-count case); all of them with ``every`` 1."""
    texts = [refs, *outputs.values()]
    return [
        i for i in range(len(refs)) if i % every == 0 or min(len(lines[i].split()) for lines in texts) < 4
    ]


@pytest.mark.parametrize(
    "every",
    [pytest.param(5, id="sample"), pytest.param(1, marks=pytest.mark.slow, id="every-segment")],
)
def test_bleu_chrf_equal_sacrebleu_on_wmt12(wmt12, tmp_path: Path, every: int) -> None:
    """sacrebleu's API on both systems, its command line on one. By default on :func:`oracle_sample`'s segments
    (every 5th and the short ones: about 700 of 3003; the corpus scores, and so each segment's statistics, are
    compared on them); every segment with ``-m slow``."""
    refs, outputs = wmt12
    assert len(refs) == 3003
    kept = oracle_sample(refs, outputs, every)
    refs = [refs[i] for i in kept]
    outputs = {name: [hyps[i] for i in kept] for name, hyps in outputs.items()}
    bleu, chrf = get_metric("bleu"), get_metric("chrf")
    bleu_stats = bleu.stats_many(outputs, refs)
    chrf_stats = chrf.stats_many(outputs, refs)
    n = len(refs)
    assert bleu_stats.shape == (len(SYSTEMS), n, 10) and chrf_stats.shape == (len(SYSTEMS), n, 18)
    bleu_scores = bleu.score(bleu_stats.sum(axis=1))
    chrf_scores = chrf.score(chrf_stats.sum(axis=1))
    ref_file = write_lines(tmp_path / "ref.en", refs)
    for i, hyps in enumerate(outputs.values()):
        # API oracle. chrF uses only + - * / in sacrebleu's order: bit-for-bit equal. BLEU takes log/exp, and
        # NumPy's SIMD log/exp may differ from libm's math.log/math.exp in the last ulp.
        assert chrf_scores[i] == SacreCHRF().corpus_score(hyps, [refs]).score
        assert bleu_scores[i] == pytest.approx(SacreBLEU().corpus_score(hyps, [refs]).score, rel=1e-13, abs=0)
    # Command-line oracle on the same prepared (unescaped) files, printed with 8 decimals (one system: each run of the
    # command is costly, and the API above is the oracle of both).
    name, hyps = next(iter(outputs.items()))
    cli_bleu, cli_chrf = sacrebleu_cli(ref_file, write_lines(tmp_path / name, hyps), ["bleu", "chrf"], 8)
    assert bleu_scores[0] == pytest.approx(cli_bleu, abs=5e-9)
    assert chrf_scores[0] == pytest.approx(cli_chrf, abs=5e-9)


def test_ter_equals_sacrebleu_on_wmt12_subset(wmt12, tmp_path: Path) -> None:
    refs, outputs = wmt12
    n = 75  # sacrebleu's TER is pure Python: a subset keeps the test fast
    refs = refs[:n]
    subset = {name: hyps[:n] for name, hyps in list(outputs.items())[:2]}
    ter = get_metric("ter")
    assert ter.higher_is_better is False
    stats = ter.stats_many(subset, refs, processes=2)
    assert np.array_equal(stats, ter.stats_many(subset, refs, processes=1))  # the pool changes nothing
    scores = ter.score(stats.sum(axis=1))
    ref_file = write_lines(tmp_path / "ref.en", refs)
    for i, (name, hyps) in enumerate(subset.items()):
        assert scores[i] == SacreTER().corpus_score(hyps, [refs]).score
        (cli_ter,) = sacrebleu_cli(ref_file, write_lines(tmp_path / name, hyps), ["ter"], 8)
        assert scores[i] == pytest.approx(cli_ter, abs=5e-9)


def random_bleu_like_stats(rng: np.random.Generator, rows: int, order: int) -> np.ndarray:
    """Integer statistics with many zeros: empty hypotheses, zero matches, orders with no n-grams."""
    hyp_len = rng.integers(0, 6, rows)
    ref_len = rng.integers(0, 8, rows)
    totals = np.maximum(hyp_len[:, None] - np.arange(order)[None, :], 0)
    matches = np.floor(totals * rng.uniform(0, 1.2, (rows, order))).clip(0, totals)
    matches[rng.uniform(size=(rows, order)) < 0.3] = 0
    return np.column_stack([hyp_len, ref_len, matches, totals]).astype(np.float64)


@pytest.mark.parametrize("smooth_method", ["exp", "none", "floor"])
def test_bleu_score_matches_sacrebleu_formula_on_edge_cases(smooth_method: str) -> None:
    rng = np.random.default_rng(7)
    stats = random_bleu_like_stats(rng, 400, 4)
    ours = get_metric("bleu", smooth_method=smooth_method).score(stats)
    oracle = SacreBLEU(smooth_method=smooth_method)
    expected = [oracle._compute_score_from_stats([int(v) for v in row]).score for row in stats]
    np.testing.assert_allclose(ours, expected, rtol=1e-13, atol=0)
    assert (ours == 0).sum() == sum(e == 0 for e in expected) > 0


@pytest.mark.parametrize("eps_smoothing", [False, True])
def test_chrf_score_matches_sacrebleu_formula_on_edge_cases(eps_smoothing: bool) -> None:
    rng = np.random.default_rng(11)
    hyp = rng.integers(0, 5, (400, 6))
    ref = rng.integers(0, 5, (400, 6))
    match = np.floor(np.minimum(hyp, ref) * rng.uniform(0, 1, (400, 6)))
    stats = np.stack([hyp, ref, match], axis=-1).reshape(400, 18).astype(np.float64)
    ours = get_metric("chrf", eps_smoothing=eps_smoothing).score(stats)
    oracle = SacreCHRF(eps_smoothing=eps_smoothing)
    expected = [oracle._compute_f_score([int(v) for v in row]) for row in stats]
    assert ours.tolist() == expected


def test_ter_score_edge_cases_by_hand() -> None:
    ter = get_metric("ter")
    stats = np.array([[3.0, 12.0], [2.0, 0.0], [0.0, 0.0]])
    # 100 * 3/12 = 25; empty reference with edits = 100; nothing at all = 0 (sacrebleu's conventions).
    assert ter.score(stats).tolist() == [25.0, 100.0, 0.0]


@pytest.mark.parametrize("name", ["bleu", "chrf", "ter", "nist"])
def test_score_is_vectorised_over_batch_shapes(name: str) -> None:
    metric = get_metric(name)
    hyps = ["the cat sat on the mat .", "a dog", "", "it is raining today"]
    refs = ["the cat is on the mat .", "the dog barks", "nothing", "it rains today"]
    stats = metric.stats(hyps, refs)
    assert stats.dtype == np.float64 and stats.shape == (4, len(metric.stat_names))
    per_segment = metric.score(stats)
    assert per_segment.shape == (4,)
    assert metric.score(stats[None, None]).shape == (1, 1, 4)
    np.testing.assert_array_equal(metric.score(stats[None, None])[0, 0], per_segment)
    batch = np.stack([stats.sum(0), stats[:2].sum(0), stats[2:].sum(0)])  # [B=3, k]
    expected = [metric.score(row) for row in batch]
    np.testing.assert_array_equal(metric.score(batch), expected)
    assert np.ndim(metric.score(stats.sum(0))) == 0


def test_sacrebleu_sentence_level_agrees_for_a_single_segment() -> None:
    hyp, ref = "the cat sat on the mat .", "the cat is on the mat ."
    stats = get_metric("chrf").stats([hyp], [ref])
    assert get_metric("chrf").score(stats[0]) == sacrebleu.sentence_chrf(hyp, [ref]).score


def test_details_record_settings() -> None:
    assert get_metric("bleu").details() == "BLEU|nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"
    assert "nc:6" in get_metric("chrf").details()
    assert "case:lc" in get_metric("ter").details()
    assert "ngram:5" in get_metric("nist").details()


def test_registry_and_bad_inputs() -> None:
    assert set(METRICS) == {"bleu", "nist", "meteor", "ter", "chrf"}
    assert get_metric("BLEU").name == "bleu"
    with pytest.raises(
        InputError, match=r"unknown metric 'rouge'; known metrics: bleu, nist, meteor, ter, chrf"
    ):
        get_metric("rouge")
    with pytest.raises(InputError, match="bad option"):
        get_metric("bleu", colour="red")
    with pytest.raises(InputError, match="smooth_method"):
        get_metric("bleu", smooth_method="add-k")
    bleu = get_metric("bleu")
    with pytest.raises(InputError, match="2 hypotheses but 1 references"):
        bleu.stats(["a", "b"], ["a"])
    with pytest.raises(InputError, match="system 'S' has 1 segments but there are 2 references"):
        bleu.stats_many({"S": ["a"]}, ["a", "b"])
    with pytest.raises(InputError, match="last axis 10"):
        bleu.score(np.zeros((3, 4)))


@pytest.fixture(scope="module")
def wmt12_two_references(data_root: Path) -> tuple[list[list[str]], dict[str, list[str]]]:
    """Reference streams for WMT12 es-en: the official reference and, as a second "reference", the output of
    onlineA (the data has one human reference); hypotheses of the two test systems."""
    folder = data_root / "wmt12"
    refs, outputs = load_texts(
        folder / "plain" / "newstest2012-ref.en",
        {
            name: folder / "system-outputs" / "es-en" / f"newstest2012.es-en.{name}"
            for name in (*SYSTEMS, "onlineA")
        },
        unescape=True,
    )
    return [refs, outputs.pop("onlineA")], outputs


# Every WMT12 segment (slow): tests/test_compare_outputs.py checks the same through `mtsig compare` on 400 lines.
@pytest.mark.slow
def test_two_references_equal_sacrebleu_command_line_on_wmt12(wmt12_two_references, tmp_path: Path) -> None:
    """BLEU and chrF with two reference files equal sacrebleu's own command line (``sacrebleu ref1 ref2 -i hyp``)."""
    streams, outputs = wmt12_two_references
    ref_files = [write_lines(tmp_path / f"ref{r}.en", stream) for r, stream in enumerate(streams)]
    for name in ("bleu", "chrf"):
        metric = get_metric(name)
        scores = metric.score(metric.stats_many(outputs, streams).sum(axis=1))
        assert metric.details().split("|")[1] == "nrefs:2"
        for i, (system, hyps) in enumerate(outputs.items()):
            command = [
                sys.executable,
                "-m",
                "sacrebleu",
                *map(str, ref_files),
                "-i",
                str(write_lines(tmp_path / system, hyps)),
            ]
            printed = subprocess.run(
                [*command, "-m", name, "-b", "-w", "8"], capture_output=True, text=True, check=True
            )
            assert scores[i] == pytest.approx(float(printed.stdout), abs=5e-9), (name, system)


def test_two_references_ter_equals_sacrebleu_on_wmt12_subset(wmt12_two_references) -> None:
    """Multi-reference TER (fewest edits over the references, mean reference length) of the compiled
    implementation equals sacrebleu's own per-segment statistics and corpus score bit for bit."""
    streams, outputs = wmt12_two_references
    n = 75  # sacrebleu's TER is pure Python
    streams = [stream[:n] for stream in streams]
    ter = get_metric("ter")
    for hyps in outputs.values():
        stats = ter.stats(hyps[:n], streams)
        expected = np.asarray(SacreTER()._extract_corpus_statistics(hyps[:n], streams), dtype=np.float64)
        assert np.array_equal(stats, expected)
        assert ter.score(stats.sum(axis=0)) == SacreTER().corpus_score(hyps[:n], streams).score
    assert ter.details().split("|")[1] == "nrefs:2"


@pytest.mark.parametrize("name", ["bleu", "chrf", "ter"])
def test_variable_number_of_references_equals_sacrebleu_with_none(name: str) -> None:
    """An empty string in a second stream is no reference for that segment: the statistics equal sacrebleu's
    with ``None`` there (its documented rule; sacrebleu 2.6.0 itself skips only ``None``), computed alone, in a
    pool, and from distinct outputs. Hand case: "cat" against "the cat sat" and "" must not pick the empty
    reference's length 0 as BLEU's closest reference length."""
    hyps = ["the cat sat on the mat", "a dog", "x y z w", "cat"]
    first = ["the cat sat on a mat", "the dog", "x y z", "the cat sat"]
    second = ["a cat sat on the mat", "", "w x y z", ""]
    oracle = {"bleu": SacreBLEU(), "chrf": SacreCHRF(), "ter": SacreTER()}[name]
    expected = np.asarray(
        oracle._extract_corpus_statistics(hyps, [first, [ref or None for ref in second]]), dtype=np.float64
    )
    metric = get_metric(name)
    assert np.array_equal(metric.stats(hyps, [first, second]), expected)
    pooled = metric.stats_many({"a": hyps, "b": hyps[::-1], "c": hyps}, [first, second], processes=2)
    assert np.array_equal(pooled[0], expected) and np.array_equal(pooled[2], expected)
    if name == "bleu":
        assert expected[3, 1] == 3  # reference length of "the cat sat", not 0
    with pytest.raises(InputError, match="segment 2 has no reference"):
        metric.stats(hyps, [["a", "", "b", "c"], ["a", "", "b", "c"]])


def test_reference_streams_layout() -> None:
    assert reference_streams(["a", "b"]) == [["a", "b"]]
    assert reference_streams([("a", "b"), ["c", "d"]]) == [["a", "b"], ["c", "d"]]
    assert reference_streams([]) == [[]]
    with pytest.raises(InputError, match="not one string"):
        reference_streams("ab")
    with pytest.raises(InputError, match="sequence of strings"):
        reference_streams([["a", 1]])
    assert get_metric("nist").multi_reference is True
    assert get_metric("meteor").multi_reference is True


@pytest.mark.parametrize("name", ["bleu", "chrf", "ter"])
def test_shared_outputs_are_scored_once_with_identical_statistics(wmt12, name: str) -> None:
    """Segment-local metrics score each distinct (segment, hypothesis) once; systems that share outputs (here a
    copy of a system, and one that repeats another's line 0) must get exactly the statistics of scoring each
    system on its own."""
    refs, outputs = wmt12
    n = 40
    refs = refs[:n]
    first, second = (hyps[:n] for hyps in list(outputs.values())[:2])
    systems = {"a": first, "copy_of_a": list(first), "b": [first[0], *second[1:]], "c": second}
    metric = get_metric(name)
    assert metric.segment_local
    expected = np.stack([metric.stats(hyps, refs) for hyps in systems.values()])
    assert np.array_equal(metric.stats_many(systems, refs, processes=1), expected)
    assert np.array_equal(metric.stats_many(systems, refs, processes=2), expected)


@pytest.mark.parametrize("name", ["bleu", "chrf"])
def test_segment_grouped_statistics_equal_sacrebleu_per_segment(wmt12, name: str) -> None:
    """stats_many groups BLEU's and chrF's work by segment (each segment's references cached once, in chunks of
    SEGMENT_CHUNK segments; segment ranges in worker processes): every per-segment statistic of every system must
    equal sacrebleu's own ``_extract_corpus_statistics`` of that system alone, across chunk and worker bounds."""
    from mtsig.metrics.sacrebleu_base import SEGMENT_CHUNK

    refs, outputs = wmt12
    systems = dict(list(outputs.items())[:3])
    assert len(refs) > 2 * SEGMENT_CHUNK  # several chunks, and worker bounds inside chunks
    oracle = {"bleu": SacreBLEU(), "chrf": SacreCHRF()}[name]
    expected = np.stack(
        [
            np.asarray(oracle._extract_corpus_statistics(hyps, [refs]), dtype=np.float64)
            for hyps in systems.values()
        ]
    )
    metric = get_metric(name)
    assert np.array_equal(metric.stats_many(systems, refs, processes=1), expected)
    assert np.array_equal(metric.stats_many(systems, refs, processes=3), expected)


@pytest.mark.parametrize(
    "every",
    [pytest.param(5, id="sample"), pytest.param(1, marks=pytest.mark.slow, id="every-segment")],
)
@pytest.mark.parametrize("experiment", ["wmt22-ja-en", "wmt22-ru-en"])
def test_bleu_chrf_ter_equal_sacrebleu_on_wmt22(
    experiment: str, every: int, repo_root: Path, data_root: Path
) -> None:
    """The WMT22 experiments' texts, read as their config says: sacrebleu's corpus_score is the oracle.

    Two systems (first and last of the config's list) for BLEU and chrF on :func:`oracle_sample`'s segments (every
    5th and the short ones; every segment with ``-m slow``); TER (pure Python in sacrebleu) on the first 150
    segments of the first system, to keep the suite fast.
    """
    import yaml

    config = yaml.safe_load((repo_root / "config" / f"{experiment}.yaml").read_text())
    spec = config["experiments"][experiment]
    systems = [spec["systems"][0], spec["systems"][-1]]
    outputs = {name: data_root / spec["outputs"].format(system=name) for name in systems}
    refs, hyps = load_texts(data_root / spec["reference"], outputs, unescape=spec["unescape_html"])
    assert len(refs) == {"wmt22-ja-en": 2008, "wmt22-ru-en": 2016}[experiment]
    bleu, chrf, ter = get_metric("bleu"), get_metric("chrf"), get_metric("ter")
    kept = oracle_sample(refs, hyps, every)
    sample_refs = [refs[i] for i in kept]
    sample = {name: [lines[i] for i in kept] for name, lines in hyps.items()}
    bleu_scores = bleu.score(bleu.stats_many(sample, sample_refs).sum(axis=1))
    chrf_scores = chrf.score(chrf.stats_many(sample, sample_refs).sum(axis=1))
    for i, lines in enumerate(sample.values()):
        assert chrf_scores[i] == SacreCHRF().corpus_score(lines, [sample_refs]).score
        assert bleu_scores[i] == pytest.approx(
            SacreBLEU().corpus_score(lines, [sample_refs]).score, rel=1e-13, abs=0
        )
    n = 150
    first = {systems[0]: hyps[systems[0]][:n]}
    ter_score = ter.score(ter.stats_many(first, refs[:n]).sum(axis=1))[0]
    assert ter_score == SacreTER().corpus_score(first[systems[0]], [refs[:n]]).score
