"""WMT20 DA segment and system scores (mtsig.io.wmt_da) against the data's README and the organisers' own system
file; bad rows name file:line."""

from __future__ import annotations

import re
from contextlib import AbstractContextManager
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mtsig.errors import InputError
from mtsig.io.segment_scores import read_wmt_seg_scores, scores_array
from mtsig.io.wmt_da import read_wmt_da_seg_scores, read_wmt_da_sys_scores, system_means

DA = "wmt20-ja-en/da"


@pytest.fixture(scope="module")
def seg(data_root: Path) -> pd.DataFrame:
    return read_wmt_da_seg_scores(data_root / DA / "ad-seg-scores-ja-en.csv", n_segments=993)


def test_counts_match_readme(seg: pd.DataFrame) -> None:
    # README: 10 MT systems, 862-944 rated segments each, SID 1..993.
    per_system = seg.groupby("system").size()
    assert len(per_system) == 10
    assert per_system.min() == 862 and per_system.max() == 944
    assert len(seg) == 8940
    assert seg["segment"].between(0, 992).all()
    assert set(seg["criterion"]) == {"adequacy"}
    assert seg["n"].value_counts().sort_index().to_dict() == {1: 6898, 2: 1916, 4: 126}
    assert list(seg.columns) == ["system", "segment", "criterion", "raw_score", "z", "n", "line"]
    first = seg.iloc[0]
    assert (first["system"], first["segment"], first["raw_score"], first["n"], first["line"]) == (
        "NICT_Kyoto.1230",
        441,
        75.5,
        2,
        2,
    )


def test_system_means_equal_the_organisers_system_file(data_root: Path, seg: pd.DataFrame) -> None:
    path = data_root / DA / "ad-sys-scores-ja-en.csv"
    # Oracle: the organisers' file, split by hand; R printed 15 significant digits.
    printed = {}
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        raw, z, n, system, n_all = line.split()
        printed[system] = (raw, z, int(n), int(n_all))
    ours = system_means(seg).set_index("system")
    assert set(ours.index) == set(printed)
    for system, (raw, z, n, n_all) in printed.items():
        row = ours.loc[system]
        # Each rated segment counts once, whatever its number of ratings: the printed values agree to all
        # 15 significant digits (the unrounded difference is at most 4.7e-16).
        assert f"{row['z']:.15g}" == z, system
        assert f"{row['raw_score']:.15g}" == raw, system
        assert (row["n_segments"], row["n_ratings"]) == (n, n_all)
    # The alternative, a mean over single ratings (segment means weighted by N), is off by up to 0.028.
    weighted = (seg["z"] * seg["n"]).groupby(seg["system"]).sum() / seg.groupby("system")["n"].sum()
    gap = max(abs(weighted[s] - float(printed[s][1])) for s in printed)
    assert 0.02 < gap < 0.03
    assert read_wmt_da_sys_scores(path).set_index("system")["z"].to_dict() == {
        s: float(v[1]) for s, v in printed.items()
    }


def test_system_names_are_the_metric_files_names(data_root: Path, seg: pd.DataFrame) -> None:
    folder = data_root / "wmt20-ja-en" / "metric-scores"
    chrf = read_wmt_seg_scores(folder / "chrF.ja-en.seg.score")
    yisi = read_wmt_seg_scores(folder / "YiSi-2.ja-en.seg.score")
    assert set(seg["system"]) == set(chrf["system"])
    assert set(yisi["system"]) == set(seg["system"]) | {"Human-A.0"}


def test_sid_is_the_test_set_line(data_root: Path, seg: pd.DataFrame) -> None:
    # README's check: segment-level Pearson r between Z.SCR and chrF is clearly positive with SID n = row n and
    # near zero when shifted by one.
    chrf = read_wmt_seg_scores(data_root / "wmt20-ja-en" / "metric-scores" / "chrF.ja-en.seg.score")
    systems = sorted(set(seg["system"]))
    metric = scores_array(chrf, systems, 993)
    row = {name: i for i, name in enumerate(systems)}
    s, g = seg["system"].map(row).to_numpy(), seg["segment"].to_numpy()
    aligned = np.corrcoef(seg["z"], metric[s, g])[0, 1]
    inside = g + 1 < 993
    shifted = np.corrcoef(seg["z"][inside], metric[s[inside], g[inside] + 1])[0, 1]
    assert aligned > 0.25 and abs(shifted) < 0.1
    assert round(aligned, 3) == 0.295


def raises_at(path: Path, line: int, problem: str) -> AbstractContextManager:
    return pytest.raises(InputError, match=re.escape(f"{path}:{line}: ") + problem)


HEADER = "SYS SID RAW.SCR Z.SCR N \n"


@pytest.mark.parametrize(
    ("body", "line", "problem"),
    [
        ("SYS SID RAW Z N\n", 1, "header 'SYS SID RAW Z N': expected the columns"),
        (HEADER, 1, "no rows after the header"),
        (
            HEADER + "A.1 1 50 0.1 1 \nA.1 1 60 0.2 1\n",
            3,
            r"\(SYS, SID\) \(system 'A.1', segment 0\) given twice",
        ),
        (HEADER + "A.1 1 50 0.1 1\n\nA.1 4 50 0.1 1\n", 4, r"SID 4 is outside the test set \(1..3\)"),
        (HEADER + "A.1 0 50 0.1 1\n", 2, "SID 0 is below 1"),
        (HEADER + "A.1 1 101 0.1 1\n", 2, "RAW.SCR 101.0 is outside 0..100"),
        (HEADER + "A.1 1 50 NA 1\n", 2, "Z.SCR 'NA' is not a number"),
        (HEADER + "A.1 1 50 0.1 0\n", 2, "N 0 is below 1"),
        (HEADER + "A.1 1 50 0.1\n", 2, "4 fields, expected 5"),
        (HEADER + "B.2 1 50 0.1 1\n", 2, r"unknown system 'B.2' \(known: A.1\)"),
    ],
)
def test_seg_errors(tmp_path: Path, body: str, line: int, problem: str) -> None:
    path = tmp_path / "ad-seg-scores-xx-yy.csv"
    path.write_text(body, encoding="utf-8")
    with raises_at(path, line, problem):
        read_wmt_da_seg_scores(path, n_segments=3, systems=["A.1"])


def test_seg_columns_in_any_order(tmp_path: Path) -> None:
    path = tmp_path / "seg.csv"
    path.write_text("N Z.SCR SYS SID RAW.SCR\n2 -0.5 A.1 3 40\n", encoding="utf-8")
    frame = read_wmt_da_seg_scores(path)
    assert frame.drop(columns="line").iloc[0].tolist() == ["A.1", 2, "adequacy", 40.0, -0.5, 2]
