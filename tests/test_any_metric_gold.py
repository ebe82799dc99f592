"""The human golds of the any-metric experiments: WMT20 ja-en DA segment means and MQM (mtsig.stats.human_gold.build_gold and
mtsig.io.judgments.load_judgments with the ``wmt_da_seg_scores`` and ``mqm`` formats).

Oracles: the WMT20 organisers' ``ad-sys-scores`` file (system z = the unweighted mean of the segment means);
``scipy.stats.mannwhitneyu`` on the segment z means parsed here by hand; Google's published MQM
``avg_seg_scores`` (the gold's observations are the published averages; ``ref-A`` is the reference, not a system).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy import stats

from mtsig.errors import InputError
from mtsig.io.judgments import load_judgments
from mtsig.settings import HumanGold, HumanSource, QualityControl, build
from mtsig.stats.human_gold import GoldStandard, build_gold

REPO = Path(__file__).resolve().parents[1]


def experiment(name: str) -> dict:
    return yaml.safe_load((REPO / "config" / f"{name}.yaml").read_text(encoding="utf-8"))["experiments"][name]


def gold_of(spec: dict, data_root: Path, n_segments: int, systems=None) -> GoldStandard:
    """build_gold on the experiment's human file, read as the pipeline step reads it."""
    systems = spec["systems"] if systems is None else systems
    return build_gold(
        load_judgments(build(HumanSource, spec["human"]), data_root, n_segments, systems),
        systems,
        [0.05],
        qc=build(QualityControl, spec["qc"]),
        gold=build(HumanGold, spec["gold"]),
    )


@pytest.fixture(scope="module")
def wmt20(data_root: Path) -> tuple[dict, GoldStandard, pd.DataFrame]:
    spec = experiment("wmt20-ja-en")
    lines = (data_root / spec["human"]["path"]).read_text(encoding="utf-8").splitlines()
    rows = [line.split() for line in lines[1:] if line.strip()]
    assert lines[0].split() == ["SYS", "SID", "RAW.SCR", "Z.SCR", "N"]
    segments = pd.DataFrame({"system": [r[0] for r in rows], "z": [float(r[3]) for r in rows]})
    return spec, gold_of(spec, data_root, 993), segments


def test_wmt20_system_scores_are_the_organisers(wmt20, data_root: Path) -> None:
    spec, result, _ = wmt20
    published = pd.read_csv(data_root / "wmt20-ja-en" / "da" / "ad-sys-scores-ja-en.csv", sep=r"\s+")
    ours = result.system_scores.set_index("system")
    for _, row in published.iterrows():
        assert ours.loc[row["SYS"], "mean_z"] == pytest.approx(row["Z.SCR"], abs=1e-12)
        assert ours.loc[row["SYS"], "n"] == row["N"]
    assert sorted(ours.index) == sorted(spec["systems"])


def test_wmt20_gold_is_scipy_rank_sum_on_the_segment_means(wmt20) -> None:
    spec, result, segments = wmt20
    gold = result.gold
    assert len(gold) == 10 * 9 and set(gold["unit"]) == {"segment_mean"}
    for x, y in [
        ("OPPO.1529", "zlabs-nlp.66"),
        ("Online-A.1581", "Online-B.1599"),
        ("NiuTrans.1352", "OPPO.1529"),
    ]:
        expected = stats.mannwhitneyu(
            segments.loc[segments["system"] == x, "z"],
            segments.loc[segments["system"] == y, "z"],
            alternative="greater",
        )
        row = gold[(gold["sys_x"] == x) & (gold["sys_y"] == y)]
        assert float(row["p_value"].iloc[0]) == pytest.approx(expected.pvalue, rel=1e-9)
        assert float(row["statistic"].iloc[0]) == expected.statistic


def test_wmt20_a_rated_system_missing_from_systems_is_an_error_at_its_line(wmt20, data_root: Path) -> None:
    spec, _, _ = wmt20
    with pytest.raises(InputError, match=r"ad-seg-scores-ja-en.csv:\d+: unknown system 'zlabs-nlp.66'"):
        gold_of(spec, data_root, 993, [s for s in spec["systems"] if s != "zlabs-nlp.66"])
    with pytest.raises(
        InputError, match=r"ad-seg-scores-ja-en.csv:\d+: SID 993 is outside the test set \(1..992\)"
    ):
        gold_of(spec, data_root, 992)


@pytest.mark.parametrize(("lp", "name"), [("en-de", "mqm-ted-en-de"), ("zh-en", "mqm-ted-zh-en")])
def test_mqm_gold_ranks_the_published_averages_without_the_reference(
    data_root: Path, lp: str, name: str
) -> None:
    spec = experiment(name)
    result = gold_of(spec, data_root, 529)
    published_path = next((data_root / "mqm-ted" / lp).glob("*.avg_seg_scores.tsv"))
    rows = [line.split("\t") for line in published_path.read_text(encoding="utf-8").splitlines()[1:]]
    table = pd.DataFrame({"system": [r[0] for r in rows], "score": [r[1].split(" ")[0] for r in rows]})
    table = table[table["score"] != "None"].assign(score=lambda t: t["score"].astype(float))
    table["system"] = table["system"].replace({"ref-B": "refB"})
    assert "ref" not in set(result.system_scores["system"])  # the reference is not a system
    x, y = spec["systems"][0], spec["systems"][-1]
    expected = stats.mannwhitneyu(
        table.loc[table["system"] == x, "score"],
        table.loc[table["system"] == y, "score"],
        alternative="greater",
    )
    gold = result.gold
    row = gold[(gold["sys_x"] == x) & (gold["sys_y"] == y)]
    assert float(row["p_value"].iloc[0]) == pytest.approx(expected.pvalue, rel=1e-9)
    means = result.system_scores.set_index("system")["mean_z"]
    np.testing.assert_allclose(means[x], table.loc[table["system"] == x, "score"].mean(), atol=1e-12)


def test_mqm_per_rater_standardisation_changes_the_scores(data_root: Path) -> None:
    spec = experiment("mqm-ted-en-de")
    spec["human"] = {**spec["human"], "standardise_raters": True}
    z = gold_of(spec, data_root, 529).z
    for _, group in z.groupby(
        "annotator"
    ):  # every rater's scores (reference rows included) have mean 0, sd 1
        assert group["z"].mean() == pytest.approx(0, abs=1e-9)
        assert group["z"].std(ddof=1) == pytest.approx(1, abs=1e-9)
