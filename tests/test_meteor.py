"""Tests of METEOR: oracle is the Meteor 1.5 jar's own "Final score" in its normal (non-statistics) mode.

The oracle runs use the jar's *default* parameters and weights (no -p/-w), so they also check the settings
table that mtsig passes to the jar explicitly.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from mtsig.io.text import load_texts
from mtsig.metrics import METEOR, JavaNotFoundError, get_metric
from mtsig.metrics.meteor import meteor_jar, meteor_score, meteor_settings, parse_meteor_statistics

N_SEGMENTS = 150  # a few hundred lines keep the JVM runs short


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def jar_final_score(hyp_file: Path, ref_file: Path, options: list[str]) -> float:
    """The jar's corpus score in its normal plain-text mode ("Final score:" line)."""
    command = ["java", "-Xmx2G", "-jar", str(meteor_jar()), str(hyp_file), str(ref_file), *options]
    completed = subprocess.run(command, capture_output=True, text=True, check=True)
    (line,) = [line for line in completed.stdout.splitlines() if line.startswith("Final score:")]
    return float(line.split()[-1])


def subset(
    data_root: Path, pair: str, systems: list[str], ref: str
) -> tuple[list[str], dict[str, list[str]]]:
    folder = data_root / "wmt12"
    outputs = {name: folder / "system-outputs" / pair / f"newstest2012.{pair}.{name}" for name in systems}
    refs, texts = load_texts(folder / "plain" / ref, outputs, unescape=True)
    return refs[:N_SEGMENTS], {name: lines[:N_SEGMENTS] for name, lines in texts.items()}


@pytest.mark.slow
def test_meteor_english_equals_jar_final_score(data_root: Path, tmp_path: Path) -> None:
    refs, outputs = subset(data_root, "es-en", ["onlineB", "UPC"], "newstest2012-ref.en")
    meteor = get_metric("meteor", language="en")
    stats = meteor.stats_many(outputs, refs)  # one JVM for both systems
    assert stats.shape == (2, N_SEGMENTS, 23)
    scores = meteor.score(stats.sum(axis=1))
    ref_file = write_lines(tmp_path / "ref", refs)
    for i, (name, hyps) in enumerate(outputs.items()):
        expected = jar_final_score(write_lines(tmp_path / name, hyps), ref_file, ["-l", "en", "-norm"])
        # Same IEEE operations in the jar's order; in practice bit-equal, tolerance only for Math.pow's ulp.
        assert scores[i] == pytest.approx(expected, rel=1e-14, abs=0)
    assert "modules:exact+stem+synonym+paraphrase" in meteor.details()


def test_meteor_spanish_equals_jar_final_score(data_root: Path, tmp_path: Path) -> None:
    refs, outputs = subset(data_root, "en-es", ["onlineB", "UPC"], "newstest2012-ref.es")
    meteor = get_metric("meteor", language="es")
    scores = meteor.score(meteor.stats_many(outputs, refs).sum(axis=1))
    ref_file = write_lines(tmp_path / "ref", refs)
    for i, (name, hyps) in enumerate(outputs.items()):
        options = ["-l", "es", "-m", "exact stem", "-norm"]
        expected = jar_final_score(write_lines(tmp_path / name, hyps), ref_file, options)
        assert scores[i] == pytest.approx(expected, rel=1e-14, abs=0)
    assert "lang:es|modules:exact+stem|" in meteor.details()


def test_meteor_unknown_language_uses_other_mode(data_root: Path, tmp_path: Path) -> None:
    """Livonian: the jar does not know it; 13a tokens, exact matching, lowercasing by the jar."""
    folder = data_root / "wmt22-en-liv" / "text"
    outputs = {
        name: folder / "system-outputs" / f"generaltest2022.en-liv.hyp.{name}.liv"
        for name in ("TartuNLP", "NiuTrans")
    }
    refs, texts = load_texts(folder / "generaltest2022.en-liv.ref.A.liv", outputs, unescape=True)
    meteor = get_metric("meteor", language="liv")
    assert meteor.settings.jar_language == "other"
    scores = meteor.score(meteor.stats_many(texts, refs).sum(axis=1))
    tokenize = meteor._prepare  # the 13a tokens the jar was given
    ref_file = write_lines(tmp_path / "ref", [tokenize(ref) for ref in refs])
    for i, (name, hyps) in enumerate(texts.items()):
        hyp_file = write_lines(tmp_path / name, [tokenize(hyp) for hyp in hyps])
        expected = jar_final_score(hyp_file, ref_file, ["-l", "other", "-lower"])
        assert scores[i] == pytest.approx(expected, rel=1e-14, abs=0)
    assert "lang:other|modules:exact|" in meteor.details()


def test_meteor_score_hand_calculation() -> None:
    """English parameters alpha .85, beta .2, gamma .6, delta .75; 4 test and 5 reference words, no function
    words, 3 exact content matches in 2 chunks."""
    stats = np.zeros(23)
    stats[[0, 1]] = [4, 5]
    stats[[4, 5]] = [3, 3]  # exact module: test / reference content matches
    stats[[20, 21, 22]] = [2, 3, 3]  # chunks, test / reference word matches
    precision = (3 * 1.0 * 0.75) / (0.75 * 4)  # 0.75
    recall = (3 * 1.0 * 0.75) / (0.75 * 5)  # 0.6
    f_mean = 1 / (0.15 / precision + 0.85 / recall)
    expected = f_mean * (1 - 0.6 * (2 / 3) ** 0.2)
    assert meteor_score(stats, meteor_settings("en")) == pytest.approx(expected, rel=1e-15)
    assert meteor_score(np.zeros(23), meteor_settings("en")) == 0.0  # empty input: the jar's NaN -> 0


def test_parse_zeroes_chunks_of_perfect_segments_only() -> None:
    perfect = "3.0 3.0 1.0 1.0 2.0 2.0 1.0 1.0 " + "0.0 " * 12 + "1.0 3.0 3.0"
    reordered = "2.0 2.0 0.0 0.0 2.0 2.0 0.0 0.0 " + "0.0 " * 12 + "2.0 2.0 2.0"
    stats = parse_meteor_statistics([perfect, reordered])
    assert stats[:, 20].tolist() == [0.0, 2.0]
    # Segment-level scores stay right: a perfect segment scores Fmean = 1 with no fragmentation penalty.
    assert meteor_score(stats[0], meteor_settings("en")) == 1.0
    assert meteor_score(stats, meteor_settings("en")).shape == (2,)
    assert meteor_score(stats[None, None], meteor_settings("en")).shape == (1, 1, 2)


def test_missing_java_is_reported_before_anything_runs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # a PATH with no java on it
    with pytest.raises(JavaNotFoundError, match="METEOR needs Java: no `java` executable was found on PATH"):
        METEOR().stats_many({"S": ["a b"]}, ["a b"])
    assert isinstance(JavaNotFoundError("x"), RuntimeError)


def test_meteor_settings_fall_back_to_other() -> None:
    assert meteor_settings("EN").jar_language == "en"
    assert meteor_settings("liv") == meteor_settings("xx")
    assert meteor_settings("liv").modules == ("exact",)
    assert meteor_settings("de").modules == ("exact", "stem")
