"""STAPLE readers: the real en-pt dev gold and AWS baseline, and every malformed-line error."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from mtsig.errors import InputError
from mtsig.io.staple import read_scored_nbest, read_staple_gold, read_staple_predictions, read_system_file

GOLD = Path("staple2020/en_pt/dev.en_pt.2020-02-20.gold.txt")
BASELINE = Path("staple2020/en_pt/dev.en_pt.aws_baseline.pred.txt")


def _write(tmp_path: Path, text: str, name: str = "file.txt") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_real_gold(data_root: Path) -> None:
    gold = read_staple_gold(data_root / GOLD)
    assert len(gold) == 500
    first = next(iter(gold.values()))
    # The first block of the file, read by eye: prompt line, then the most frequent translation and weight.
    assert first.prompt_id == "prompt_15049b3b99054c230685063e328369a4"
    assert first.source == "well, what did the boss say?"
    assert first.translations[0] == "bem, o que o chefe disse?"
    assert first.weights[0] == 0.09057569097239057
    # Line count of the file: 61294 = 500 headers + 500 separators + 60294 translations.
    assert sum(len(p.translations) for p in gold.values()) == 61294 - 500 - 500
    for prompt in gold.values():
        assert math.isclose(sum(prompt.weights), 1.0, abs_tol=1e-9)


def test_real_baseline(data_root: Path) -> None:
    gold = read_staple_gold(data_root / GOLD)
    baseline = read_system_file(data_root / BASELINE)
    assert set(baseline) == set(gold)
    assert all(len(nbest.texts) == 1 and nbest.scores is None for nbest in baseline.values())
    assert baseline["prompt_15049b3b99054c230685063e328369a4"].texts == ("Bem, o que o chefe disse?",)


GOOD_GOLD = "p1|hello\nolá|0.75\noi|0.25\n\np2|bye\ntchau|1.0\n"


def test_small_gold_and_trailing_blank_lines(tmp_path: Path) -> None:
    gold = read_staple_gold(_write(tmp_path, GOOD_GOLD + "\n\n"))
    assert list(gold) == ["p1", "p2"]
    assert gold["p1"].translations == ("olá", "oi") and gold["p1"].weights == (0.75, 0.25)


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("p1 hello\nolá|1\n", 1, "prompt_id|English"),
        ("p1|hello\nolá\n", 2, "translation|weight"),
        ("p1|hello\nolá|x|1\n", 2, "translation|weight"),
        ("p1|hello\nolá|abc\n", 2, "not a number"),
        ("p1|hello\nolá|-0.5\n", 2, "positive finite"),
        ("p1|hello\nolá|nan\n", 2, "positive finite"),
        ("p1|hello\n|0.5\n", 2, "empty translation"),
        ("p1|hello\nolá|0.5\nolá|0.5\n", 3, "repeated"),
        ("p1|hello\nolá|1\n\np1|hello\noi|1\n", 4, "appears twice"),
        ("p1|hello\n\n", 1, "no translations"),
    ],
)
def test_gold_errors_name_file_and_line(tmp_path: Path, text: str, line: int, problem: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(InputError, match=problem) as caught:
        read_staple_gold(path)
    assert caught.value.line == line
    assert str(caught.value).startswith(f"{path}:{line}: ")


def test_empty_and_non_utf8_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no prompts"):
        read_staple_gold(_write(tmp_path, "\n\n"))
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("p1|olá\n".encode("latin-1"))
    with pytest.raises(InputError, match="UTF-8"):
        read_staple_predictions(bad)


def test_predictions_keep_file_order(tmp_path: Path) -> None:
    predictions = read_staple_predictions(_write(tmp_path, "p1|hello\nOlá!\noi\n\np2|bye\ntchau\n"))
    assert predictions["p1"].texts == ("Olá!", "oi")
    with pytest.raises(InputError, match="appears twice") as caught:
        read_staple_predictions(_write(tmp_path, "p1|hello\nolá\n\np1|hello\noi\n"))
    assert caught.value.line == 4


def test_scored_nbest_is_ranked_by_score_with_stable_ties(tmp_path: Path) -> None:
    text = "p1|b|-2.0\np1|a|-1.0\np1|c|-2.0\n\np2|x | y|0.5\n"
    nbest = read_scored_nbest(_write(tmp_path, text))
    assert nbest["p1"].texts == ("a", "b", "c")  # b before c: equal scores keep file order
    assert nbest["p1"].scores == (-1.0, -2.0, -2.0)
    assert nbest["p2"].texts == ("x | y",)  # the middle fields are the translation
    assert read_system_file(_write(tmp_path, text, "other.txt")) == nbest


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("p1|a|-1\np1|b\n", 2, "prompt_id|translation|score"),
        ("p1|a|-1\n\np1|b|high\n", 3, "not a number"),
        ("p1|a|inf\n", 1, "not a finite number"),
        ("p1||-1\n", 1, "empty prompt id or translation"),
        ("p1|a|-1\np1|a|-2\n", 2, "listed twice"),
    ],
)
def test_scored_nbest_errors(tmp_path: Path, text: str, line: int, problem: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(InputError, match=problem) as caught:
        read_scored_nbest(path)
    assert caught.value.line == line
