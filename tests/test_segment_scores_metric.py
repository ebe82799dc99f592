"""The ``segment_scores`` metric (mtsig.metrics.segment_scores): precomputed segment scores through the engine.

Key oracle: sacrebleu's ``sentence_chrf`` on three real WMT12 es-en systems, fed to mtsig's resampling engine
directly as ``[score, 1]`` statistics, must give exactly the p-values that the same scores give after a round
trip through a tidy file and the ``segment_scores`` metric. Orientation: hand arithmetic on negated scores.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sacrebleu

from mtsig.errors import InputError
from mtsig.io.documents import read_sgm_documents
from mtsig.io.segment_scores import read_segment_scores
from mtsig.io.text import load_texts
from mtsig.metrics.segment_scores import SegmentScores
from mtsig.stats.resampling import ALL_TESTS, TESTS, PairwiseResult, ResamplingOptions, pairwise_tests

SYSTEMS = ("onlineB", "uedin-wmt12", "UPC")
N_SAMPLES = 1000
SEED = 20140626
# The module's fixture computes sacrebleu's chrF on WMT12: its tests go to one worker, which computes it once.
pytestmark = pytest.mark.xdist_group("segment_scores_metric")


@pytest.fixture(scope="module")
def wmt12_chrf(data_root: Path) -> tuple[np.ndarray, np.ndarray]:
    """Sentence-level chrF (sacrebleu) of three WMT12 es-en systems, ``[3, 3003]``, and the segments' documents."""
    folder = data_root / "wmt12"
    outputs = {name: folder / "system-outputs" / "es-en" / f"newstest2012.es-en.{name}" for name in SYSTEMS}
    refs, hyps = load_texts(folder / "plain" / "newstest2012-ref.en", outputs, unescape=True)
    scores = np.array(
        [[sacrebleu.sentence_chrf(h, [r]).score for h, r in zip(hyps[n], refs, strict=True)] for n in SYSTEMS]
    )
    documents = read_sgm_documents(folder / "sgm" / "newstest2012-ref.en.sgm")
    assert scores.shape == (3, 3003) and len(documents) == 3003
    return scores, documents


def write_tidy(path: Path, scores: np.ndarray, documents: np.ndarray) -> Path:
    """A tidy file written with plain string formatting; ``repr`` of a float reads back as the same float."""
    lines = ["system\tsegment\tscore\tdocument"]
    for name, row in zip(SYSTEMS, scores, strict=True):
        lines += [f"{name}\t{i}\t{float(value)!r}\t{documents[i]}" for i, value in enumerate(row)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(
    stats: np.ndarray,
    score: Callable[[np.ndarray], np.ndarray],
    higher_is_better: bool,
    documents: np.ndarray,
) -> PairwiseResult:
    return pairwise_tests(
        stats,
        score,
        list(SYSTEMS),
        ResamplingOptions(
            higher_is_better=higher_is_better,
            tests=ALL_TESTS,
            n_samples=N_SAMPLES,
            seed=SEED,
            documents=documents,
        ),
    )


def test_file_round_trip_gives_the_engines_exact_p_values(
    wmt12_chrf: tuple[np.ndarray, np.ndarray], tmp_path: Path
) -> None:
    scores, documents = wmt12_chrf
    direct_stats = np.stack([scores, np.ones_like(scores)], axis=-1)
    direct = run(direct_stats, lambda t: t[..., 0] / t[..., 1], True, documents)

    path = write_tidy(tmp_path / "chrf.seg.tsv", scores, documents)
    metric = SegmentScores(name="sentchrf", higher_is_better=True, path=str(path), format="tidy")
    stats = metric.stats_for(list(SYSTEMS))
    assert np.array_equal(stats, direct_stats)
    assert np.array_equal(metric.documents(), documents)
    through_metric = run(stats, metric.score, metric.higher_is_better, metric.documents())

    pd.testing.assert_frame_equal(through_metric.table, direct.table, check_exact=True)
    assert through_metric.system_scores == direct.system_scores
    assert set(through_metric.table["test"]) == set(ALL_TESTS)
    # The corpus score is the mean of sacrebleu's sentence scores (fsum: an order-free reference sum).
    for name, row in zip(SYSTEMS, scores, strict=True):
        assert through_metric.system_scores[name] == pytest.approx(math.fsum(row) / len(row), abs=1e-12)
    # Not a vacuous comparison: some pairs differ significantly and some do not.
    paper = direct.table[direct.table["test"] == "paired_bootstrap"]["p_value"]
    assert (paper <= 0.05).any() and (paper > 0.05).any()


def test_lower_is_better_gives_the_mirrored_conclusions(wmt12_chrf: tuple[np.ndarray, np.ndarray]) -> None:
    scores, documents = wmt12_chrf
    higher = SegmentScores.from_array(
        scores, SYSTEMS, name="chrf", higher_is_better=True, documents=documents
    )
    # Negation is exact in floating point, so "lower -chrF is better" must reproduce every number of chrF.
    lower = SegmentScores.from_array(
        -scores, SYSTEMS, name="neg", higher_is_better=False, documents=documents
    )
    assert lower.higher_is_better is False and higher.higher_is_better is True
    assert SegmentScores.higher_is_better is True  # the class default is untouched
    result_higher = run(higher.stats_for(SYSTEMS), higher.score, higher.higher_is_better, documents)
    result_lower = run(lower.stats_for(SYSTEMS), lower.score, lower.higher_is_better, documents)
    pd.testing.assert_frame_equal(result_lower.table, result_higher.table, check_exact=True)
    assert result_lower.system_scores == {k: -v for k, v in result_higher.system_scores.items()}

    # The same -chrF declared higher-is-better reverses every conclusion: p(X > Y) becomes p(Y > X).
    wrong = SegmentScores.from_array(-scores, SYSTEMS, name="neg", higher_is_better=True, documents=documents)
    result_wrong = run(wrong.stats_for(SYSTEMS), wrong.score, wrong.higher_is_better, documents)
    key = ["sys_x", "sys_y", "test"]
    original = result_higher.table.set_index(key)
    flipped = result_wrong.table.set_index(key)
    for (x, y, test), row in original.iterrows():
        assert flipped.loc[(x, y, test), "statistic"] == -row["statistic"]
        expected = (
            original.loc[(y, x, test), "p_value"] if TESTS[test].sided == "one-sided" else row["p_value"]
        )
        assert flipped.loc[(x, y, test), "p_value"] == expected


def test_score_is_sum_over_count_by_hand() -> None:
    metric = SegmentScores(name="m")
    stats = np.array([[0.5, 1.0], [0.25, 1.0], [-0.75, 1.0]])
    assert metric.score(stats.sum(axis=0)) == pytest.approx(0.0)
    batch = np.array([[[3.0, 2.0], [1.0, 4.0]], [[0.0, 1.0], [9.0, 3.0]]])  # [2, 2, 2]
    np.testing.assert_array_equal(metric.score(batch), [[1.5, 0.25], [0.0, 3.0]])
    assert np.isnan(metric.score(np.array([0.0, 0.0])))
    with pytest.raises(InputError, match="last axis 2"):
        metric.score(np.zeros((3, 5)))


def test_document_bootstrap_weights_are_a_mean_of_the_drawn_segments() -> None:
    # Segments 0,1 form document a, segment 2 document b: drawing a twice and b once is 5 segments.
    metric = SegmentScores.from_array(np.array([[1.0, 2.0, 6.0]]), ["s"], name="m", documents=["a", "a", "b"])
    counts = np.array([2.0, 2.0, 1.0])
    totals = counts @ metric.stats_for(["s"])[0]
    assert totals.tolist() == [12.0, 5.0]
    assert metric.score(totals) == pytest.approx((1 + 2 + 1 + 2 + 6) / 5)


def test_stats_many_returns_stored_statistics_and_checks_sizes() -> None:
    metric = SegmentScores.from_array(np.arange(6.0).reshape(2, 3), ["a", "b"], name="m")
    stats = metric.stats_many({"b": ["x"] * 3, "a": None}, ["r"] * 3)
    np.testing.assert_array_equal(stats[..., 0], [[3.0, 4.0, 5.0], [0.0, 1.0, 2.0]])
    np.testing.assert_array_equal(stats[..., 1], np.ones((2, 3)))
    with pytest.raises(InputError, match="has 2 segments but there are 3 references"):
        metric.stats_many({"a": ["x", "y"]}, ["r"] * 3)
    with pytest.raises(InputError, match="scores 3 segments but the test set has 4"):
        metric.stats_many({"a": None}, ["r"] * 4)
    with pytest.raises(InputError, match="no segment scores for system\\(s\\) 'c'"):
        metric.stats_for(["a", "c"])
    with pytest.raises(InputError, match="cannot score texts"):
        metric.stats(["x"], ["r"])


def test_declaration_without_scores_can_score_but_has_no_statistics() -> None:
    metric = SegmentScores(name="comet", higher_is_better=False)
    assert metric.name == "comet" and SegmentScores.name == "segment_scores"
    assert metric.score(np.array([6.0, 3.0])) == 2.0
    with pytest.raises(InputError, match="'comet' \\(segment_scores\\) has no stored scores"):
        metric.stats_for(["a"])
    assert metric.details() == "comet|kind:segment_scores|corpus:mean of segment scores|lower is better"
    with pytest.raises(InputError, match="higher_is_better must be true or false"):
        SegmentScores(name="x", higher_is_better="no")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="needs its format"):
        SegmentScores(name="x", path="scores.tsv")


def test_real_wmt20_file_declaration(data_root: Path) -> None:
    path = data_root / "wmt20-ja-en" / "metric-scores" / "YiSi-2.ja-en.seg.score"
    metric = SegmentScores(name="yisi2", path=str(path), format="wmt_seg_score", read_options={"lp": "ja-en"})
    assert metric.n_segments == 993 and len(metric.systems) == 11
    details = metric.details()
    assert details.startswith("yisi2|kind:segment_scores|corpus:mean of segment scores|higher is better|")
    assert "format:wmt_seg_score|file:YiSi-2.ja-en.seg.score|sha256:" in details
    # Oracle: the file's 8th column averaged per system by a plain split, independent of the readers.
    sums: dict[str, list[float]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        sums.setdefault(fields[4], []).append(float(fields[7]))
    systems = sorted(sums)
    observed = metric.score(metric.stats_for(systems).sum(axis=1))
    expected = [math.fsum(sums[s]) / len(sums[s]) for s in systems]
    np.testing.assert_allclose(observed, expected, rtol=0, atol=1e-13)
    frame = read_segment_scores(path, "wmt_seg_score")
    assert SegmentScores.from_frame(frame, name="yisi2").details() == details
