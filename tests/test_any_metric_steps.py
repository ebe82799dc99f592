"""Pipeline steps of the any-metric experiments (mtsig.steps): declared segment-score metrics become statistics
files that every later step reads like a built-in metric's; experiments without texts; texts from an MQM file.

Oracles: the WMT20 ja-en ``chrF.ja-en.seg.score`` parsed here with pandas (statistics ``[score, 1]``, corpus score
= the mean of a system's rows, documents = the file's document column); Google's MQM TSV parsed here by hand
(targets with the ``<v>`` tags removed by ``str.replace``); hand-made small files for each validation error.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import experiment_steps as run
import numpy as np
import pandas as pd
import pytest
import yaml

from mtsig.errors import InputError
from mtsig.pipeline import config as mtsig_config
from mtsig.settings import Experiment
from mtsig.steps.common import load_scored_stats, read_prepared_texts, read_segment_documents
from mtsig.steps.metrics import corpus_scores_table

REPO = Path(__file__).resolve().parents[1]
SEG_SCORE_COLUMNS = ["metric", "lp", "testset", "refset", "system", "document", "doc_segment", "score"]


def configured(name: str) -> Experiment:
    raw = yaml.safe_load((REPO / "config" / f"{name}.yaml").read_text(encoding="utf-8"))["experiments"]
    return mtsig_config.experiment({"experiments": raw, "metrics": []}, name)


def prepared(spec: Experiment, data_root: Path, tmp_path: Path) -> tuple[Path, Path]:
    texts, documents = tmp_path / "texts", tmp_path / "documents.tsv"
    run.prepare(spec, data_root, texts, documents)
    return texts, documents


def test_wmt20_declared_metric_statistics_equal_the_file(data_root: Path, tmp_path: Path) -> None:
    spec = configured("wmt20-ja-en")
    assert spec.metric_names[0] == "chrF" and spec.declarations["chrF"].higher_is_better is True
    texts, documents = prepared(spec, data_root, tmp_path)
    stats_path = tmp_path / "stats" / "chrF.npz"
    run.statistics(spec, "chrF", texts, stats_path, data_root=data_root, documents=documents)

    frame = pd.read_csv(
        data_root / "wmt20-ja-en" / "metric-scores" / "chrF.ja-en.seg.score",
        sep="\t",
        header=None,
        names=SEG_SCORE_COLUMNS,
        quoting=3,
        keep_default_na=False,
    )
    stats, systems, details, scorer = load_scored_stats(stats_path)
    assert systems == list(spec.systems) and stats.shape == (10, 993, 2)
    for row, system in enumerate(systems):
        np.testing.assert_array_equal(
            stats[row, :, 0], frame.loc[frame["system"] == system, "score"].to_numpy()
        )
    np.testing.assert_array_equal(stats[..., 1], 1.0)
    assert "kind:segment_scores" in details and scorer.higher_is_better
    scores = corpus_scores_table([stats_path]).set_index("system")["score"]
    expected = frame.groupby("system")["score"].mean()
    for system in systems:
        assert scores[system] == pytest.approx(expected[system], rel=1e-12)
    first = frame.loc[frame["system"] == systems[0], "document"].to_numpy()
    np.testing.assert_array_equal(read_segment_documents(documents, 993), first)
    assert len(set(first)) == 80
    assert mtsig_config.has_documents(spec.text_sources(), data_root)


def test_declared_statistics_are_the_same_bytes_wherever_the_data_root_is(tmp_path: Path) -> None:
    """The options recorded with a declared metric's statistics name its file as declared (relative to the data
    root), so that two data roots in different places give byte-identical statistics and manifests (mtsig verify
    compares them; the quick check's list was made on another machine)."""
    written = []
    for root in (tmp_path / "here", tmp_path / "elsewhere" / "data"):
        root.mkdir(parents=True)
        spec = tidy_experiment(root, SCORES, RATINGS)
        texts, documents = prepared(spec, root, root / "run")
        stats_path = root / "run" / "stats" / "m.npz"
        run.statistics(spec, "m", texts, stats_path, data_root=root, documents=documents)
        written.append((stats_path.read_bytes(), Path(f"{stats_path}.manifest.json").read_bytes()))
    assert written[0] == written[1]
    assert b'"path": "scores.tsv"' in written[0][1]


def tidy_experiment(tmp_path: Path, scores: str, ratings: str, systems=("A", "B")) -> Experiment:
    (tmp_path / "scores.tsv").write_text(scores, encoding="utf-8")
    (tmp_path / "ratings.tsv").write_text(ratings, encoding="utf-8")
    raw = {
        "toy": {
            "systems": list(systems),
            "metrics": [{"m": {"kind": "segment_scores", "format": "tidy", "path": "scores.tsv"}}],
            "human": {"format": "tidy", "path": "ratings.tsv", "segment_means": True},
            "qc": {"enabled": False},
            "gold": {"methods": ["wilcoxon"], "unit": "segment_mean"},
        }
    }
    return mtsig_config.experiment({"experiments": raw, "metrics": []}, "toy")


SCORES = "system\tsegment\tscore\n" + "".join(
    f"{s}\t{i}\t{v}\n" for s in "AB" for i, v in enumerate([1, 2, 3])
)
RATINGS = "system\tsegment\tcriterion\tz\nA\t0\tadequacy\t0.5\nB\t0\tadequacy\t-0.5\nA\t1\tadequacy\t0.1\nB\t2\tadequacy\t0\n"


def gold(spec: Experiment, tmp_path: Path, texts: Path, documents: Path) -> None:
    """The human_gold step of an experiment prepared in ``tmp_path``, its tables under ``tmp_path/out``."""
    names = ["z", "qc", "system_scores", "gold", "conclusions"]
    outputs = {n: str(tmp_path / "out" / f"{n}.tsv") for n in names}
    run.gold(spec, tmp_path, texts=texts, documents=documents, alphas=[0.05], **outputs)


def test_scored_but_unrated_is_fine_rated_but_unscored_is_an_error(tmp_path: Path) -> None:
    spec = tidy_experiment(tmp_path, SCORES, RATINGS)
    texts, documents = prepared(spec, tmp_path, tmp_path)
    gold(spec, tmp_path, texts, documents)
    assert not (texts / "reference.txt").exists()
    unscored = RATINGS + "A\t3\tadequacy\t1.2\n"  # segment 3 rated, the scores have 0..2
    spec = tidy_experiment(tmp_path, SCORES, unscored)
    with pytest.raises(InputError, match=r"ratings.tsv:6: .*segment 3"):
        gold(spec, tmp_path, texts, documents)


def test_a_rated_system_without_scores_names_the_scores_file(tmp_path: Path) -> None:
    ratings = RATINGS + "C\t0\tadequacy\t0.3\n"
    spec = tidy_experiment(tmp_path, SCORES, ratings, systems=("A", "B", "C"))
    with pytest.raises(
        InputError, match=r"scores.tsv: no segment scores for system\(s\) 'C'; the file has 'A', 'B'"
    ):
        prepared(spec, tmp_path, tmp_path)
    spec = tidy_experiment(tmp_path, SCORES, ratings, systems=("A", "B"))
    texts, documents = prepared(spec, tmp_path, tmp_path)
    with pytest.raises(InputError, match=r"ratings.tsv:\d+: .*'C'"):
        gold(spec, tmp_path, texts, documents)


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        (SCORES.replace("B\t2\t3\n", ""), r"scores.tsv:5: system 'B' \(first row here\) has 2 of 3 segments"),
        (SCORES.replace("B\t2\t3\n", "B\t2\tnan\n"), r"scores.tsv:7: score 'nan' is not finite"),
        (SCORES + "B\t2\t4\n", r"scores.tsv:8: \(system, segment\) \(system 'B', segment 2\) given twice"),
    ],
)
def test_bad_scores_files_stop_prepare_texts_at_their_line(
    tmp_path: Path, scores: str, expected: str
) -> None:
    spec = tidy_experiment(tmp_path, scores, RATINGS)
    with pytest.raises(InputError, match=expected):
        prepared(spec, tmp_path, tmp_path)


def test_two_scores_files_must_agree_on_the_test_set(tmp_path: Path) -> None:
    spec = tidy_experiment(tmp_path, SCORES, RATINGS)
    longer = SCORES + "A\t3\t1\nB\t3\t1\n"
    (tmp_path / "longer.tsv").write_text(longer, encoding="utf-8")
    longer_metric = {"n": {"kind": "segment_scores", "format": "tidy", "path": "longer.tsv"}}
    spec = dataclasses.replace(spec, metrics=(*spec.metrics, longer_metric))
    with pytest.raises(
        InputError, match=r"longer.tsv: metric 'n' scores 4 segments but .*scores.tsv scores 3"
    ):
        prepared(spec, tmp_path, tmp_path)


@pytest.mark.parametrize(("lp", "name", "file"), [("zh-en", "mqm-ted-zh-en", "mqm_ted_zhen.tsv")])
def test_mqm_texts_are_the_targets_without_tags_and_ref_is_the_reference(
    data_root: Path, tmp_path: Path, lp: str, name: str, file: str
) -> None:
    spec = configured(name)
    texts, documents = prepared(spec, data_root, tmp_path)
    reference, outputs = read_prepared_texts(texts)
    assert list(outputs) == list(spec.systems) and "refB" in outputs and "ref" not in outputs
    lines = (data_root / "mqm-ted" / lp / file).read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t")
    rows = [dict(zip(header, line.split("\t"), strict=True)) for line in lines[1:] if line.strip()]
    seg_ids = sorted({int(r["seg_id"]) for r in rows})
    assert len(reference) == len(seg_ids) == 529
    by_key = {
        (r["system"], int(r["seg_id"])): r["target"].replace("<v>", "").replace("</v>", "") for r in rows
    }
    for position in (0, 264, 528):
        assert reference[position] == by_key[("ref", seg_ids[position])]
        assert outputs["refB"][position] == by_key[("refB", seg_ids[position])]
        assert outputs["NiuTrans"][position] == by_key[("NiuTrans", seg_ids[position])]
    doc_of = {int(r["seg_id"]): r["doc"] for r in rows}
    np.testing.assert_array_equal(read_segment_documents(documents, 529), [doc_of[s] for s in seg_ids])


def test_the_reference_cannot_be_a_system(data_root: Path, tmp_path: Path) -> None:
    spec = configured("mqm-ted-en-de")
    spec = dataclasses.replace(spec, systems=(*spec.systems, "ref"))
    with pytest.raises(InputError, match="'ref' is the reference"):
        prepared(spec, data_root, tmp_path)


SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"


def schema_error(experiment: dict) -> str:
    """The schema's message for a config holding this one experiment ('' when it validates)."""
    config = {"run": ["x"], "experiments": {"x": experiment}}
    try:
        mtsig_config.validate_config(config, SCHEMA, [("test", config)])
    except InputError as error:
        return str(error)
    return ""


def test_the_schema_checks_experiments_without_texts() -> None:
    for name in ("wmt20-ja-en", "mqm-ted-en-de", "mqm-ted-zh-en"):
        raw = yaml.safe_load((REPO / "config" / f"{name}.yaml").read_text(encoding="utf-8"))["experiments"][
            name
        ]
        assert schema_error(raw) == "", name
    no_texts = yaml.safe_load((REPO / "config" / "wmt20-ja-en.yaml").read_text(encoding="utf-8"))[
        "experiments"
    ]
    spec = no_texts["wmt20-ja-en"]
    assert "'bleu' is not of type 'object'" in schema_error({**spec, "metrics": [*spec["metrics"], "bleu"]})
    assert "'metrics' is a required property" in schema_error(
        {k: v for k, v in spec.items() if k != "metrics"}
    )
    assert "'outputs' is a dependency of 'reference'" in schema_error({**spec, "reference": "ref.txt"})
    reused = {"bleu": {"kind": "segment_scores", "format": "tidy", "path": "x.tsv"}}
    assert "config key experiments.x.metrics.0" in schema_error({**spec, "metrics": [reused]})
    bad_format = {"m": {"kind": "segment_scores", "format": "csv", "path": "x.tsv"}}
    assert "config key experiments.x.metrics.0" in schema_error({**spec, "metrics": [bad_format]})


def test_metric_names_that_differ_only_in_case_are_one_name() -> None:
    """A metric's files and figures are named after it: chrf and chrF would be one file on a case-insensitive
    file system, and one link target in the Snakemake report."""
    declared = {"chrF": {"kind": "segment_scores", "format": "tidy", "path": "chrF.tsv"}}
    with pytest.raises(InputError, match="chrF, chrf listed twice"):
        mtsig_config.metric_declarations(["bleu", "chrf", declared], "mixed")
    names = mtsig_config.metric_declarations(["bleu", "chrf", {"chrF2": declared["chrF"]}], "mixed")
    assert names == ["bleu", "chrf", "chrF2"]
