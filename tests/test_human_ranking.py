"""The human-ranking experiment (config/wmt24-esa.yaml; rules human_ranking and human_ranking_table): WMT24's ESA
ratings ranked by every procedure of the registry, the disagreement between procedures and the report page.

Oracles: the WMT24 organisers' own output on the same files (tests/oracles/wmt24_esa_*.tsv, written by
``python benchmarks/bench_human_ranking.py --python <pandas-2 python> --write-oracles tests/oracles``, which runs
their humeval/tools.py @bfa937e); the disagreement counts recounted from the written p-value table with pandas and
by hand on a small case; the rank sets' estimates, ranks and documents recounted from the ratings with pandas (the
sets themselves: tests/test_rank_sets.py against csranks); a second run for byte-identical outputs; hand-made
configs for each schema error.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from mtsig.errors import InputError
from mtsig.io.esa import read_esa
from mtsig.pipeline import config as mtsig_config
from mtsig.settings import HumanRanking, as_block, build
from mtsig.stats.system_ranking import PROCEDURES
from mtsig.steps.human_ranking import human_ranking, human_ranking_table
from mtsig.studies.human_ranking import disagreement_counts, rank_language_pairs, rank_sets_of_pairs

REPO = Path(__file__).resolve().parents[1]
ORACLES = Path(__file__).parent / "oracles"
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"
OUTPUTS = ("ranking", "pvalues", "disagreement", "disagreeing_pairs", "qc", "filtering", "notes", "rank_sets")
#: Few resamples: the test checks the wiring and the organisers' deterministic procedure, not Monte Carlo error.
FEW = {"wmt26": 20, "wmt26_paired": 20, "wmt26_unpaired": 20, "paired_bootstrap": 50,
       "approximate_randomization": 50, "stratified_permutation": 200,
       "stratified_permutation_documents": 200}  # fmt: skip


def configured() -> dict:
    raw = yaml.safe_load((REPO / "config" / "wmt24-esa.yaml").read_text(encoding="utf-8"))
    return raw["human_ranking"]["wmt24-esa"]


def run_step(data_root: Path, out: Path, lps: list[str]) -> dict[str, Path]:
    # every procedure of the registry (config/wmt24-esa.yaml runs all but the two the calibration adds)
    block = {**configured(), "procedures": list(PROCEDURES), "lps": lps, "resamples": FEW}
    spec = as_block(build(HumanRanking, block))
    root = data_root / "wmt24-esa"
    paths = {name: out / f"{name}.tsv" for name in OUTPUTS}
    human_ranking(
        "wmt24-esa", spec, data_root, 20140626,
        ratings=[root / "humeval" / f"esa_generalMT2024_wave{w}.csv" for w in (2, 3)],
        documents=[root / "documents" / f"{lp}.docs" for lp in lps], **paths,
    )  # fmt: skip
    return paths


def read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, sep="\t", keep_default_na=False, na_values=[""])


@pytest.fixture(scope="module")
def en_hi(data_root: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return run_step(data_root, tmp_path_factory.mktemp("wmt24-esa"), ["en-hi"])


def oracle(name: str) -> pd.DataFrame:
    return pd.read_csv(ORACLES / name, sep="\t", comment="#", keep_default_na=False)


def test_wmt24_rows_equal_the_organisers_output(en_hi: dict[str, Path]) -> None:
    ranking = read(en_hi["ranking"])
    assert list(ranking.columns) == [
        "procedure",
        "lp",
        "system",
        "score",
        "top_rank",
        "worst_rank",
        "cluster",
    ]
    assert list(dict.fromkeys(ranking["procedure"])) == list(PROCEDURES)
    assert (ranking.groupby("procedure").size() == 11).all()  # 10 MT systems and refA, as the organisers rank
    mine = ranking.loc[ranking["procedure"] == "wmt24"].reset_index(drop=True)
    theirs = oracle("wmt24_esa_ranking.tsv").query("lp == 'en-hi'").reset_index(drop=True)
    assert mine["system"].tolist() == theirs["system"].tolist()
    for column in ("top_rank", "worst_rank", "cluster"):
        assert mine[column].tolist() == theirs[column].tolist()
    np.testing.assert_allclose(mine["score"], theirs["overall"], rtol=0, atol=1e-12)
    pvalues = read(en_hi["pvalues"]).query("procedure == 'wmt24'")
    assert len(pvalues) == 11 * 10
    expected = oracle("wmt24_esa_pvalues.tsv").query("lp == 'en-hi'")
    merged = pvalues.merge(expected, on=["lp", "system1", "system2"], suffixes=("", "_theirs"))
    assert len(merged) == 110
    np.testing.assert_allclose(merged["p"], merged["p_theirs"].astype(float), rtol=0, atol=1e-12)


def test_disagreement_is_recounted_from_the_pvalue_table(en_hi: dict[str, Path]) -> None:
    pvalues = read(en_hi["pvalues"])
    beats = pvalues.loc[pvalues["beats"]]
    decided = {}  # procedure -> {(a, b) alphabetical: +1 a better, -1 b better}
    for row in beats.itertuples(index=False):
        a, b = sorted((row.system1, row.system2))
        decided.setdefault(row.procedure, {})[a, b] = 1 if row.system1 == a else -1
    systems = sorted(set(pvalues["system1"]))
    pairs = [(a, b) for i, a in enumerate(systems) for b in systems[i + 1 :]]
    table = read(en_hi["disagreement"])
    assert len(table) == len(PROCEDURES) * (len(PROCEDURES) - 1) // 2
    for row in table.itertuples(index=False):
        x = [decided.get(row.procedure_a, {}).get(p, 0) for p in pairs]
        y = [decided.get(row.procedure_b, {}).get(p, 0) for p in pairs]
        only_a = sum(u != 0 and v == 0 for u, v in zip(x, y, strict=True))
        only_b = sum(u == 0 and v != 0 for u, v in zip(x, y, strict=True))
        opposite = sum(u * v == -1 for u, v in zip(x, y, strict=True))
        assert (row.pairs, row.only_a, row.only_b, row.opposite) == (55, only_a, only_b, opposite)
        assert row.disagree == only_a + only_b + opposite
        assert row.both + row.only_a + row.only_b + row.neither == 55
    listed = read(en_hi["disagreeing_pairs"])
    differing = [p for p in pairs if len({decided.get(q, {}).get(p, 0) for q in PROCEDURES}) > 1]
    assert list(zip(listed["system1"], listed["system2"], strict=True)) == differing
    symbol = {1: ">", -1: "<", 0: "="}
    for row in listed.to_dict("records"):
        for procedure in PROCEDURES:
            assert (
                row[procedure] == symbol[decided.get(procedure, {}).get((row["system1"], row["system2"]), 0)]
            )


def test_qc_and_filtering_tables(en_hi: dict[str, Path]) -> None:
    qc = read(en_hi["qc"])
    assert set(qc["lp"]) == {"en-hi"} and len(qc) == 42
    assert sorted(qc.loc[~qc["passed"], "rater"]) == ["enghin7918", "enghin7928"]  # as tests/test_esa_gold.py
    filtering = read(en_hi["filtering"])
    assert set(filtering["file"]) == {"esa_generalMT2024_wave2.csv", "esa_generalMT2024_wave3.csv"}
    assert filtering["rows"].sum() > 0 and read(en_hi["notes"]).empty


def test_rank_sets_recounted_from_the_ratings(data_root: Path, en_hi: dict[str, Path]) -> None:
    """Each system's mean item score (a system's ratings of one segment in one wave averaged first), its rank
    (1 + the systems above it) and the documents resampled, recounted with pandas from the ratings read."""
    sets = read(en_hi["rank_sets"])
    assert list(sets.columns) == [
        "lp", "system", "estimate", "rank", "marginal_lower", "marginal_upper", "simultaneous_lower",
        "simultaneous_upper", "could_be_first", "units",
    ]  # fmt: skip
    root = data_root / "wmt24-esa"
    ratings = read_esa(
        [root / "humeval" / f"esa_generalMT2024_wave{w}.csv" for w in (2, 3)], root / "documents"
    ).ratings.query("lp == 'en-hi'")
    means = ratings.groupby(["system", "item", "wave"])["score"].mean().groupby("system").mean()
    assert sorted(sets["system"]) == sorted(means.index) and len(sets) == 11
    np.testing.assert_allclose(sets["estimate"], means[sets["system"]].to_numpy(), rtol=0, atol=1e-9)
    assert sets["estimate"].is_monotonic_decreasing
    assert sets["rank"].tolist() == [1 + int((means > v).sum()) for v in sets["estimate"]]
    assert (sets["units"] == ratings["doc"].nunique()).all()
    for kind in ("marginal", "simultaneous"):
        lower, upper = sets[f"{kind}_lower"], sets[f"{kind}_upper"]
        assert ((1 <= lower) & (lower <= sets["rank"]) & (sets["rank"] <= upper) & (upper <= 11)).all()
    assert sets["could_be_first"].iloc[0] and sets["could_be_first"].sum() >= 1
    manifest = json.loads(Path(f"{en_hi['rank_sets']}.manifest.json").read_text())
    assert manifest["settings"]["rank_sets"] == {"coverage": 0.95, "resamples": 1000, "units": "documents"}


def test_the_same_seed_gives_the_same_bytes(data_root: Path, en_hi: dict[str, Path], tmp_path: Path) -> None:
    again = run_step(data_root, tmp_path, ["en-hi"])
    for name in OUTPUTS:
        assert again[name].read_bytes() == en_hi[name].read_bytes(), name


def test_the_page_and_its_calibration_hook(en_hi: dict[str, Path], tmp_path: Path) -> None:
    inputs = {name: en_hi[name] for name in ("ranking", "pvalues", "disagreement", "qc", "notes")}
    md, html = tmp_path / "page.md", tmp_path / "page.html"
    human_ranking_table("wmt24-esa", configured()["description"], md=md, html=html, **inputs)
    page = md.read_text(encoding="utf-8")
    assert page.startswith(f"# {configured()['description']}")
    assert "## en-hi: 11 systems" in page and "## Where the procedures disagree" in page
    assert "enghin7918 (p 0.078)" in page and "How often is each procedure wrong" not in page
    assert "Which systems could be first" not in page
    png = tmp_path / "figures" / "rank_sets.png"
    human_ranking_table("wmt24-esa", None, md=md, html=html, rank_sets=en_hi["rank_sets"], png=png, **inputs)
    page = md.read_text(encoding="utf-8")
    sets, ranking = read(en_hi["rank_sets"]), read(en_hi["ranking"])
    wmt24_first = int(((ranking["procedure"] == "wmt24") & (ranking["cluster"] == 1)).sum())
    assert (
        "## Which systems could be first?" in page
        and "1000 paired bootstrap resamples of whole documents" in page
    )
    assert f"| en-hi | 11 | {int(sets['could_be_first'].sum())} | {wmt24_first} |" in page
    first = sets.iloc[0]
    assert f"| {first['system']} | {first['estimate']:.2f} | 1 |" in page
    assert png.read_bytes().startswith(b"\x89PNG")
    assert "<table" in html.read_text(encoding="utf-8")
    calibration = tmp_path / "calibration.tsv"
    calibration.write_text("procedure\tfalse_positive_rate\nwmt24\t0.125\n", encoding="utf-8")
    human_ranking_table("wmt24-esa", None, md=md, html=html, calibration=[calibration], **inputs)
    page = md.read_text(encoding="utf-8")
    assert "How often is each procedure wrong" in page and "| wmt24 | 0.125 |" in page


def test_disagreement_counts_by_hand() -> None:
    # three procedures on four system pairs: +1 first better, -1 second better, 0 none
    decided = np.array([[1, 0, -1, 0], [1, 1, 1, 0], [0, 0, -1, 0]])
    table = disagreement_counts("xx-yy", ["a", "b", "c"], decided)
    rows = table.set_index(["procedure_a", "procedure_b"])
    # a vs b: both on pairs 0 and 2 (opposite on 2), only b on 1, neither on 3
    assert rows.loc[("a", "b")][["both", "only_a", "only_b", "neither", "opposite", "disagree"]].tolist() == [
        2, 0, 1, 1, 1, 2
    ]  # fmt: skip
    assert rows.loc[("a", "c")][["both", "only_a", "only_b", "neither", "opposite", "disagree"]].tolist() == [
        1, 1, 0, 2, 0, 1
    ]  # fmt: skip
    assert rows.loc[("b", "c")][["both", "only_a", "only_b", "neither", "opposite", "disagree"]].tolist() == [
        1, 2, 0, 1, 1, 3
    ]  # fmt: skip


# ------------------------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"procedures": ["wmt24", "wmt27"]}, r"'wmt27' is not one of \['wmt24'"),
        ({"resamples": {"wmt24": 100}}, r"'wmt24' is not one of \['wmt26'"),
        ({"resamples": {"wmt26": 0}}, "less than the minimum of 1"),
        ({"lps": ["english-czech"]}, "does not match"),
        ({"documents": None}, "None is not of type 'string'"),
        ({"rank_sets_coverage": 1.5}, "greater than or equal to the maximum of 1"),
        ({"rank_sets_resamples": 1}, "less than the minimum of 2"),
        ({"rank_sets_units": "segments"}, r"'segments' is not one of \['documents', 'items'\]"),
    ],
)
def test_schema_refuses_a_bad_human_ranking(change: dict, message: str) -> None:
    block = {**configured(), **change}
    config = {"run": ["wmt24-esa"], "human_ranking": {"wmt24-esa": block}}
    with pytest.raises(InputError, match=message):
        mtsig_config.validate_config(config, SCHEMA, [("mine.yaml", config)])


def test_a_pair_without_ratings_and_missing_documents_are_errors(data_root: Path, tmp_path: Path) -> None:
    ratings = read_esa(data_root / "wmt24-esa/humeval/esa_generalMT2024_wave2.csv").ratings
    with pytest.raises(
        InputError, match=r"no ratings of en-de \(language pairs rated: en-cs, en-hi, en-ja, en-zh\)"
    ):
        rank_language_pairs(ratings, ["en-de"], ["wmt24"], experiment="x", seed=1)
    with pytest.raises(InputError, match="unknown ranking procedure.*wmt27"):
        rank_language_pairs(ratings, ["en-hi"], ["wmt27"], experiment="x", seed=1)
    with pytest.raises(InputError, match="rank-set units must be one of documents, items, not 'segments'"):
        rank_sets_of_pairs(
            ratings, ["en-hi"], experiment="x", seed=1, coverage=0.9, resamples=50, units="segments"
        )
    with pytest.raises(InputError, match=r"no ratings of en-de \(language pairs rated"):
        rank_sets_of_pairs(ratings, ["en-de"], experiment="x", seed=1, coverage=0.9, resamples=50)
    by_items = rank_sets_of_pairs(
        ratings, ["en-hi"], experiment="x", seed=1, coverage=0.9, resamples=50, units="items"
    )
    assert (by_items["units"] == ratings.query("lp == 'en-hi'").groupby(["item", "wave"]).ngroups).all()
    with pytest.raises(InputError, match="do not resample: wmt24"):
        rank_language_pairs(ratings, ["en-hi"], ["wmt24"], experiment="x", seed=1, resamples={"wmt24": 5})
    spec = as_block(build(HumanRanking, {**configured(), "lps": ["en-cs", "en-hi"]}))
    root = data_root / "wmt24-esa"
    with pytest.raises(InputError, match="no documents file among the rule's inputs for en-hi"):
        human_ranking(
            "wmt24-esa", spec, data_root, 1, ratings=[root / "humeval/esa_generalMT2024_wave2.csv"],
            documents=[root / "documents/en-cs.docs"], **{n: tmp_path / f"{n}.tsv" for n in OUTPUTS},
        )  # fmt: skip
    assert not list(tmp_path.iterdir())  # nothing written
