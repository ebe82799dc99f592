"""Loaders of human DA judgments (the format modules of mtsig.io.human): real files against their READMEs, bad rows
name file:line."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mtsig.errors import InputError
from mtsig.io.human import check_systems
from mtsig.io.human.appraise_da import appraise_system_name, load_appraise_da
from mtsig.io.human.mturk_batch import load_mturk_batch
from mtsig.io.human.tidy import load_tidy
from mtsig.io.human.wmt_mturk_da import load_r_mean_sd, load_wmt_mturk_da
from mtsig.io.wmt_da import strip_numeric_suffix

JAEN = "wmt22-ja-en/da"
ENLIV = "wmt22-en-liv/da"
# The module's fixture reads WMT22 ja-en's DA once: its tests go to one worker.
pytestmark = pytest.mark.xdist_group("human_io")


@pytest.fixture(scope="module")
def jaen(data_root: Path) -> pd.DataFrame:
    return load_wmt_mturk_da(
        data_root / JAEN / "ad-jaen-good-raw.RECONSTRUCTED.tsv", data_root / JAEN / "ja-en.sid2line.tsv", 2008
    ).table


# ------------------------------------------------------------------------------------------------ WMT22 ja-en


def test_jaen_counts_match_readme(jaen: pd.DataFrame) -> None:
    # wmt22-ja-en/README.txt, COUNTS.
    assert len(jaen) == 35_773
    assert jaen["item_type"].value_counts().to_dict() == {
        "system": 24_983,
        "repeat": 3_581,
        "bad_ref": 3_605,
        "ref": 3_604,
    }
    assert jaen["annotator"].nunique() == 201
    assert jaen["hit"].nunique() == 387
    per_system = jaen.loc[jaen["item_type"] == "system", "system"].value_counts().to_dict()
    assert per_system == {
        "AISP-SJTU": 1816, "AIST": 1846, "DLUT": 1736, "JDExploreAcademy": 1746, "KYB": 1738, "Lan-Bridge": 1820,
        "LanguageX": 1892, "NAIST-NICT-TIT": 1736, "NT5": 1685, "Online-A": 1777, "Online-B": 1838,
        "Online-G": 1841, "Online-W": 1809, "Online-Y": 1703,
    }  # fmt: skip
    means = jaen.groupby("item_type")["raw_score"].mean().round(1).to_dict()
    assert means == {"ref": 91.4, "system": 63.5, "repeat": 63.0, "bad_ref": 52.1}
    assert set(jaen["criterion"]) == {"adequacy"}
    assert jaen["segment"].between(0, 2007).all()


def test_jaen_first_rows_read_by_hand(jaen: pd.DataFrame, data_root: Path) -> None:
    # Row 1 of the file: M1231, DLUT.6, BAD_REF, sid 1052, score 25; sid2line maps 1052 -> txt_line 578.
    with open(data_root / JAEN / "ja-en.sid2line.tsv", encoding="utf-8") as handle:
        line_of = {int(r["da_sid"]): int(r["txt_line"]) for r in csv.DictReader(handle, delimiter="\t")}
    first = jaen.iloc[0]
    assert (first["annotator"], first["system"], first["item_type"], first["raw_score"]) == (
        "M1231",
        "DLUT",
        "bad_ref",
        25.0,
    )
    assert first["segment"] == line_of[1052] - 1 == 577
    assert jaen.iloc[1]["segment"] == line_of[1053] - 1


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


JAEN_HEADER = "HITId\tWorkerId\tInput.src\tInput.trg\tInput.item\thit\tsys_id\trid\ttype\tsid\tscore\ttime\n"


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        ("H1\tM1\tja\ten\tad\t1\tDLUT.6\t1\tSYSTEM\t1\tabc\t5.0\n", "not a finite number"),
        ("H1\tM1\tja\ten\tad\t1\tDLUT.6\t1\tSYSTEM\t1\t101\t5.0\n", "outside 0..100"),
        ("H1\tM1\tja\ten\tad\t1\tDLUT.6\t1\tSYSTEM\t1\t50.4\t5.0\n", "not an integer"),
        ("H1\tM1\tja\ten\tad\t1\tDLUT.6\t1\tSYSTEM\t9\t50\t5.0\n", "not in the sid2line map"),
        ("H1\tM1\tja\ten\tad\t1\tNOPE.3\t1\tSYSTEM\t1\t50\t5.0\n", "unknown system 'NOPE'"),
        ("H1\tM1\tja\ten\tad\t1\tDLUT.6\t1\tODD\t1\t50\t5.0\n", "unknown item type"),
    ],
)
def test_jaen_bad_row_names_file_and_line(tmp_path: Path, row: str, problem: str) -> None:
    good = "H1\tM1\tja\ten\tad\t1\tDLUT.6\t1\tSYSTEM\t2\t40\t5.0\n"
    ratings = _write(tmp_path / "da.tsv", JAEN_HEADER + good + row)
    sid2line = _write(
        tmp_path / "map.tsv", "da_sid\tdoc_id\tseg_id_in_doc\ttxt_line\n1\td\t1\t2\n2\td\t2\t1\n"
    )
    with pytest.raises(InputError, match=problem) as error:
        load_wmt_mturk_da(ratings, sid2line, 2, systems=["DLUT"])
    assert str(error.value).startswith(f"{ratings}:3: ")


def test_sid2line_line_outside_test_set(tmp_path: Path) -> None:
    ratings = _write(
        tmp_path / "da.tsv", JAEN_HEADER + "H1\tM1\tja\ten\tad\t1\tDLUT.6\t1\tSYSTEM\t1\t40\t5.0\n"
    )
    sid2line = _write(tmp_path / "map.tsv", "da_sid\ttxt_line\n1\t3\n")
    with pytest.raises(InputError, match=f"^{sid2line}:2: txt_line 3 is outside the test set"):
        load_wmt_mturk_da(ratings, sid2line, 2)


def test_strip_numeric_suffix() -> None:
    assert [strip_numeric_suffix(s) for s in ("DLUT.6", "Online-W.1", "MES:.2796", "online-B")] == [
        "DLUT",
        "Online-W",
        "MES:",
        "online-B",
    ]


# ------------------------------------------------------------------------------------------------ R print file


def test_r_mean_sd_parser_real_and_hand(data_root: Path, tmp_path: Path) -> None:
    moments = load_r_mean_sd(data_root / JAEN / "ad-jaen-trk-mean-sd.txt")
    assert len(moments) == 538  # README: 538 workers
    assert moments.iloc[0].tolist() == ["M0867", 68.63918, 21.14148]  # first block, read off the file
    assert moments.set_index("annotator").loc["M0250"].tolist() == [0.0, 0.0]  # the all-zero worker
    hand = load_r_mean_sd(_write(tmp_path / "m.txt", '[1] "W1"\n[1] 1.5\n[1] NA\n'))
    assert (
        hand["annotator"].tolist() == ["W1"]
        and hand["mean"].tolist() == [1.5]
        and np.isnan(hand["sd"].iloc[0])
    )
    bad = _write(tmp_path / "bad.txt", '[1] "W1"\n[1] x\n[1] 2\n')
    with pytest.raises(InputError, match=f"^{bad}:2: expected a number"):
        load_r_mean_sd(bad)


# ------------------------------------------------------------------------------------------------ Appraise en-liv


def test_enliv_source_based_counts(data_root: Path) -> None:
    ratings = load_appraise_da(
        data_root / ENLIV / "WMT22.Appraise.SegLvlLivSrc.20221031.filtered.csv",
        data_root / ENLIV / "header.SegLvl.csv",
        420,
    ).table
    # README: eng-liv 2,702 rows = 2,378 TGT + 324 BAD; 15 annotators; TGT per system 396/397, ref.A 397.
    assert len(ratings) == 2702
    assert (ratings["item_type"] == "bad_ref").sum() == 324
    assert ratings["item_type"].isin(["system", "ref"]).sum() == 2378
    assert ratings["annotator"].nunique() == 15
    tgt = (
        ratings.loc[ratings["item_type"].isin(["system", "ref"])]
        .groupby(["system", "item_type"])
        .size()
        .to_dict()
    )
    assert tgt == {
        ("HuaweiTSC", "system"): 396, ("Liv4ever", "system"): 396, ("NiuTrans", "system"): 396,
        ("TAL-SJTU", "system"): 396, ("TartuNLP", "system"): 397, ("ref.A", "ref"): 397,
    }  # fmt: skip
    # README example row: engliv0c03,...hyp.NiuTrans.liv.txt,362,TGT,eng,liv,16 (2nd line of the file).
    row = ratings.iloc[1]
    assert (row["annotator"], row["system"], row["segment"], row["item_type"], row["raw_score"]) == (
        "engliv0c03",
        "NiuTrans",
        361,
        "system",
        16.0,
    )


def test_enliv_reference_based_counts(data_root: Path) -> None:
    ratings = load_appraise_da(
        data_root / ENLIV / "WMT22.Appraise.SegLvlLivRef.20221031.filtered.csv",
        data_root / ENLIV / "header.SegLvl.csv",
        420,
    ).table
    assert len(ratings) == 1201 and (ratings["item_type"] == "bad_ref").sum() == 144
    assert ratings["annotator"].nunique() == 7 and set(ratings["system"]) == {
        "HuaweiTSC",
        "Liv4ever",
        "NiuTrans",
        "TAL-SJTU",
        "TartuNLP",
    }


def test_appraise_system_names() -> None:
    assert appraise_system_name("generaltest2022.en-liv.hyp.TAL-SJTU.liv.txt") == ("TAL-SJTU", False)
    assert appraise_system_name("generaltest2022.en-liv.ref.A.liv.txt") == ("ref.A", True)
    assert appraise_system_name("x.txt", {"x.txt": "human"}) == ("human", True)


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        ("u1,t.hyp.S1.liv.txt,3,TGT,eng,liv,50,0,1\n", "itemId 3 is outside the test set"),
        ("u1,t.hyp.S1.liv.txt,1,TGT,eng,liv,-1,0,1\n", "outside 0..100"),
        ("u1,t.hyp.S1.liv.txt,1,TGT,eng,liv,n/a,0,1\n", "not a finite number"),
        ("u1,t.hyp.S9.liv.txt,1,TGT,eng,liv,50,0,1\n", "unknown system 'S9'"),
        ("u1,whatever.txt,1,TGT,eng,liv,50,0,1\n", "cannot derive a system name"),
    ],
)
def test_appraise_bad_row_names_file_and_line(tmp_path: Path, row: str, problem: str) -> None:
    header = _write(
        tmp_path / "h.csv", "username,system,itemId,itemType,srcLang,trgLang,score,timeStart,timeEnd\n"
    )
    # Line 1 is a liv-eng row (dropped), line 2 good; the bad row is line 3 of the file.
    lines = "u1,t.hyp.S1.eng.txt,9,TGT,liv,eng,50,0,1\nu1,t.hyp.S1.liv.txt,2,TGT,eng,liv,50,0,1\n" + row
    ratings = _write(tmp_path / "r.csv", lines)
    with pytest.raises(InputError, match=problem) as error:
        load_appraise_da(ratings, header, 2, systems=["S1"])
    assert str(error.value).startswith(f"{ratings}:3: ")


# ------------------------------------------------------------------------------------------------ MTurk batches


def test_mturk_batches_pairing_on_real_files(data_root: Path) -> None:
    paths = sorted((data_root / "mturk-da-sample-cs-en").glob("*.csv"))
    ratings = load_mturk_batch(paths).table
    raw = pd.concat([pd.read_csv(p) for p in paths], ignore_index=True)
    answered = raw.loc[raw["Answer.Q1"].notna()]
    assert len(answered) == 29  # 31 assignments, 2 with an empty answer
    assert len(ratings) == 100 * len(answered)
    # Independent check of the pairing: answer "p_k_s" is item p of the same row; the key k is Input.rid_p.
    first = answered.iloc[0]
    position, key, score = map(int, first["Answer.Q1"].split("|")[0].split("_"))
    assert key == first[f"Input.rid_{position}"]
    got = ratings.iloc[0]
    assert got["annotator"] == first["WorkerId"] and got["raw_score"] == score
    assert got["segment"] == first[f"Input.sid_{position}"] - 1
    assert got["system"] == first[f"Input.sys_id_{position}"] == "online-B"  # no numeric suffix on this one
    assert set(ratings["system"]) >= {
        "FDA",
        "uedin-wmt13",
        "online-G",
    }  # FDA.2855 etc. lose the submission id
    types = ratings["item_type"].value_counts().to_dict()
    assert types == {"system": 2030, "ref": 290, "bad_ref": 290, "repeat": 290}  # 'cal' items read as bad_ref
    # Degraded items score far below system items (the reason 'cal' is bad_ref).
    mean = ratings.groupby("item_type")["raw_score"].mean()
    assert mean["bad_ref"] < mean["system"] - 20
    rejected = set(raw.loc[raw["AssignmentStatus"] == "Rejected", "WorkerId"])
    kept = load_mturk_batch(paths, drop_rejected=True).table
    assert not (set(kept["annotator"]) & rejected) and len(kept) < len(ratings)


def test_mturk_bad_answer_key_names_line(tmp_path: Path) -> None:
    header = "HITId,WorkerId,Input.item,Input.sys_id_0,Input.sid_0,Input.tst_0,Input.rid_0,Answer.Q1\n"
    good = 'H,W1,ad,sysA.12,5,system,777,"0_777_50"\n'
    for answer, problem in [
        ("0_778_50", "does not match Input.rid_0"),
        ("0_777_150", "outside 0..100"),
        ("0_777", "position_key_score"),
    ]:
        path = _write(tmp_path / "b.csv", header + good + f'H,W2,ad,sysA.12,5,system,777,"{answer}"\n')
        with pytest.raises(InputError, match=problem) as error:
            load_mturk_batch([path])
        assert str(error.value).startswith(f"{path}:3: ")
    path = _write(tmp_path / "c.csv", header + good)
    assert load_mturk_batch(path).table[["system", "segment", "raw_score"]].iloc[0].tolist() == [
        "sysA",
        4,
        50.0,
    ]
    with pytest.raises(InputError, match="outside the test set"):
        load_mturk_batch(path, n_segments=4)


# ------------------------------------------------------------------------------------------------ tidy TSV


def test_tidy_roundtrip_and_options(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {"annotator": ["a", "a"], "system": ["S1", "S2"], "segment": [0, 1], "item_type": ["system", "bad_ref"],
         "criterion": ["adequacy", "adequacy"], "raw_score": [50.0, 12.5], "hit": ["h1", "h1"]}
    )  # fmt: skip
    path = tmp_path / "t.tsv"
    frame.to_csv(path, sep="\t", index=False)
    loaded = load_tidy(path, n_segments=2, systems=["S1", "S2"]).table
    pd.testing.assert_frame_equal(loaded.astype(object), frame.astype(object))
    means = _write(
        tmp_path / "m.tsv",
        "system\tsegment\tcriterion\tz\tn\nS1\t0\tadequacy\t-0.5\t2\nS2\t0\tadequacy\t0.25\t1\n",
    )
    loaded = load_tidy(means, segment_means=True).table
    assert (
        loaded["z"].tolist() == [-0.5, 0.25]
        and loaded["n"].tolist() == [2, 1]
        and set(loaded["item_type"]) == {"system"}
    )


@pytest.mark.parametrize(
    ("row", "problem", "kwargs"),
    [
        ("a\tS1\t2\tsystem\tadequacy\t50\n", "segment 2 is outside the test set", {"n_segments": 2}),
        ("a\tS1\t-1\tsystem\tadequacy\t50\n", "outside the test set", {}),
        ("a\tS1\t0\tsystem\tadequacy\tx\n", "not a finite number", {}),
        ("a\tS1\t0\tsystem\tadequacy\t100.5\n", "outside 0..100", {}),
        ("a\tS1\t0\tgold\tadequacy\t50\n", "item_type 'gold'", {}),
        ("a\tS7\t0\tsystem\tadequacy\t50\n", "unknown system 'S7'", {"systems": ["S1"]}),
    ],
)
def test_tidy_bad_row_names_file_and_line(tmp_path: Path, row: str, problem: str, kwargs: dict) -> None:
    path = _write(
        tmp_path / "t.tsv",
        "annotator\tsystem\tsegment\titem_type\tcriterion\traw_score\na\tS1\t0\tsystem\tadequacy\t40\n" + row,
    )
    with pytest.raises(InputError, match=problem) as error:
        load_tidy(path, **kwargs)
    assert str(error.value).startswith(f"{path}:3: ")


@pytest.mark.parametrize(
    ("header", "kwargs", "problem"),
    [
        (
            "rater\tsystem\titem\titem_type\tcriterion",
            {},
            "no column raw_score in the header 'rater\\tsystem\\titem\\titem_type\\tcriterion': the first line "
            "names the columns annotator (or rater), system, segment (or item), item_type, criterion, raw_score, "
            "separated by TABs, e.g. 'annotator\\tsystem\\tsegment\\titem_type\\tcriterion\\traw_score'",
        ),
        (
            "annotator\tsystem\tsegment\titem_type\tcriterion\tscore",
            {},
            "no column raw_score in the header 'annotator\\tsystem\\tsegment\\titem_type\\tcriterion\\tscore': "
            "the first line names the columns annotator (or rater), system, segment (or item), item_type, criterion, "
            "raw_score, separated by TABs, e.g. 'annotator\\tsystem\\tsegment\\titem_type\\tcriterion\\traw_score' "
            "(a rating is raw_score in this format, its standardised score z: rename score)",
        ),
        (
            "system,segment,criterion,z",
            {"segment_means": True},
            "the header 'system,segment,criterion,z' is separated by commas: separate its names by TABs, e.g. "
            "'system\\tsegment\\tcriterion\\tz' (the columns: system, segment (or item), criterion, z)",
        ),
    ],
)
def test_tidy_missing_column_names_it_with_its_aliases_and_a_correct_header(
    tmp_path: Path, header: str, kwargs: dict, problem: str
) -> None:
    row = "\t".join(["x"] * len(header.split("\t"))) if "\t" in header else "S1,0,adequacy,0.5"
    path = _write(tmp_path / "t.tsv", f"{header}\n{row}\n")
    with pytest.raises(InputError) as error:
        load_tidy(path, **kwargs)
    assert str(error.value) == f"{path}:1: {problem}"


def test_tidy_unknown_system_says_how_to_name_the_rows(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "t.tsv",
        "annotator\tsystem\tsegment\titem_type\tcriterion\traw_score\n"
        "a\tsysA\t0\tsystem\tadequacy\t40\na\tsysA.en\t0\tsystem\tadequacy\t50\n",
    )
    with pytest.raises(InputError) as error:
        load_tidy(path, systems=["sysA", "sysB"])
    assert str(error.value) == (
        f"{path}:3: unknown system 'sysA.en' (known: sysA, sysB): name each row's system as the experiment's "
        "systems: list names it (the {system} of its outputs: path); a human reference rated as a candidate goes "
        "in human.reference_systems, or gets item_type ref"
    )


def test_check_systems_lists_both_directions_in_one_error() -> None:
    check_systems(["A", "B"], ["B", "A"], "x.tsv")
    with pytest.raises(InputError) as error:
        check_systems(["A", "B", "C"], ["A", "D"], "x.tsv")
    message = str(error.value)
    assert (
        message.startswith("x.tsv: ")
        and "no output file: B, C" in message
        and "no human judgments: D" in message
    )


def test_organisers_z_file_must_hold_the_raw_files_ratings_row_by_row(
    data_root: Path, tmp_path: Path
) -> None:
    """human.z_path: the stnd file (space-separated header, TAB-separated rows) must be the raw file's ratings in
    the same order; a different worker, a missing row or a non-number is an error at its line."""
    from mtsig.io.human.wmt_mturk_da import load_wmt_mturk_da, load_wmt_mturk_da_z

    folder = data_root / "wmt22-ru-en" / "da"
    raw = (folder / "ad-ruen-good-raw.RECONSTRUCTED.tsv").read_text(encoding="utf-8").splitlines()[:6]
    stnd = (folder / "ad-ruen-good-stnd.csv").read_text(encoding="utf-8").splitlines()[:6]
    (tmp_path / "raw.tsv").write_text("\n".join(raw) + "\n", encoding="utf-8")
    ratings = load_wmt_mturk_da(tmp_path / "raw.tsv", folder / "ru-en.sid2line.tsv", 2016)
    good = tmp_path / "stnd.csv"
    good.write_text("\n".join(stnd) + "\n", encoding="utf-8")
    z = load_wmt_mturk_da_z(good, ratings, folder / "ru-en.sid2line.tsv", 2016)
    assert z.tolist() == [float(line.split("\t")[10]) for line in stnd[1:]]  # the score column, as written
    cases = [
        (
            stnd[:3] + [stnd[3].split("\t", 2)[0] + "\tM9999\t" + stnd[3].split("\t", 2)[2]] + stnd[4:],
            ":4: not the rating",
        ),
        (stnd[:5], "4 ratings, the raw file has 5"),
        (
            stnd[:2] + [stnd[2].rsplit("\t", 2)[0] + "\tabc\t" + stnd[2].rsplit("\t", 1)[1]] + stnd[3:],
            ":3: score 'abc'",
        ),
    ]
    for lines, problem in cases:
        bad = tmp_path / "bad.csv"
        bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
        with pytest.raises(InputError, match=problem):
            load_wmt_mturk_da_z(bad, ratings, folder / "ru-en.sid2line.tsv", 2016)
