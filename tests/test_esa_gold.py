"""The paper's question asked of WMT24's ESA ratings (config/wmt24-en-*.yaml): the ``esa`` human format, texts
without their canary line, and the gold the paper's machinery builds from ESA.

Oracles: the WMT24 release's files parsed here with the csv module and plain Python (the organisers' filtering as
their README states it: TGT and BAD rows, tutorials, ``#incomplete``, ``#dup`` and the canary dropped, the latest
rating of an item by a rater kept; segment id s is text line s, the segment s - 1 after the canary line), then
``scipy.stats.ttest_rel`` for quality control, z per rater with numpy and ``scipy.stats.mannwhitneyu`` for the gold;
the ESA raters' quality-control table of the reader's rows (:func:`mtsig.stats.human.esa_quality_control`);
hand-made small exports for each error.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import experiment_steps as run
import numpy as np
import pandas as pd
import pytest
import yaml
from scipy import stats

from mtsig.errors import InputError
from mtsig.io.esa import read_esa
from mtsig.io.human.esa import load_esa
from mtsig.io.judgments import load_judgments
from mtsig.pipeline import config as mtsig_config
from mtsig.settings import Experiment
from mtsig.stats.human import esa_quality_control

REPO = Path(__file__).resolve().parents[1]
PAIRS = ("cs", "hi", "ja", "zh")
WAVES = ("wmt24-esa/humeval/esa_generalMT2024_wave2.csv", "wmt24-esa/humeval/esa_generalMT2024_wave3.csv")
ISO = {"cs": "ces", "hi": "hin", "ja": "jpn", "zh": "zho"}
ALPHAS = [0.05, 0.01, 0.001]
HUMAN_OUTPUTS = ("z", "qc", "system_scores")


def configured(lp: str) -> Experiment:
    name = f"wmt24-en-{lp}"
    raw = yaml.safe_load((REPO / "config" / f"{name}.yaml").read_text(encoding="utf-8"))["experiments"]
    return mtsig_config.experiment({"experiments": raw, "metrics": []}, name)


def organisers_rows(data_root: Path, lp: str) -> list[dict]:
    """The pair's real and quality-control rows of both waves after the organisers' filtering (README.txt of the
    release), parsed with the csv module: one dict per kept rating."""
    latest: dict[tuple, tuple] = {}
    for wave in WAVES:
        with (data_root / wave).open(encoding="utf-8", newline="") as handle:
            for index, row in enumerate(csv.reader(handle)):
                rater, system, segment, kind, source, target, score, doc = row[:8]
                if (source, target) != ("eng", ISO[lp]) or kind not in ("TGT", "BAD") or "tutorial" in system:
                    continue
                if "#incomplete" in doc or "#dup" in doc or doc == "canary":
                    continue
                key = (wave, rater, system, doc, int(segment))
                order = (float(row[11]), index)  # the latest end time; among equal ones the later line
                if key not in latest or order > latest[key][0]:
                    latest[key] = (order, kind, float(score))
    return [
        {"wave": w, "rater": r, "system": s, "doc": d, "segment": seg - 1, "kind": kind, "score": score}
        for (w, r, s, d, seg), (_, kind, score) in latest.items()
    ]


# ------------------------------------------------------------------------------------------------- the configs


@pytest.mark.parametrize("lp", PAIRS)
def test_each_config_has_every_rated_system_and_keeps_the_rated_reference_apart(
    data_root: Path, lp: str
) -> None:
    spec = configured(lp)
    rows = organisers_rows(data_root, lp)
    rated = {row["system"] for row in rows if row["kind"] == "TGT"}
    assert "refA" in rated and spec.human.reference_systems == ("refA",)
    assert sorted(spec.systems) == sorted(rated - {"refA"})
    # every system's output, the reference and the documents have the canary line plus 997 segments
    reference = data_root / spec.reference
    assert reference.name == f"en-{lp}.refA.txt" and spec.skip_first_line is True
    lines = reference.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 998 and lines[0].startswith("CANARY")
    for system in spec.systems:
        output = data_root / spec.outputs.format(system=system)
        assert len(output.read_text(encoding="utf-8").split("\n")) - 1 == 998
    # METEOR where Meteor 1.5 has the language (Czech, exact matching); BLEU/TER options for unsegmented scripts
    assert ("meteor" in spec.metric_names) == (lp == "cs")
    assert spec.metric_options("bleu").get("tokenize") == {"ja": "char", "zh": "zh"}.get(lp)
    assert spec.metric_options("ter") == (
        {"normalized": True, "asian_support": True} if lp in ("ja", "zh") else {}
    )
    schema = REPO / "workflow" / "schemas" / "config.schema.yaml"
    name = f"wmt24-en-{lp}"
    raw = yaml.safe_load((REPO / "config" / f"{name}.yaml").read_text(encoding="utf-8"))
    mtsig_config.validate_config(raw, schema, [(str(REPO / "config" / f"{name}.yaml"), raw)])


def test_prepared_texts_and_documents_start_after_the_canary_line(data_root: Path, tmp_path: Path) -> None:
    spec = configured("hi")
    texts, documents = tmp_path / "texts", tmp_path / "documents.tsv"
    run.prepare(spec, data_root, texts, documents)
    reference = (data_root / spec.reference).read_text(encoding="utf-8").split("\n")[1:-1]
    assert (texts / "reference.txt").read_text(encoding="utf-8").split("\n")[:-1] == reference
    output = (data_root / spec.outputs.format(system="GPT-4")).read_text(encoding="utf-8").split("\n")[1:-1]
    assert (texts / "systems" / "GPT-4.txt").read_text(encoding="utf-8").split("\n")[:-1] == output
    docs = [
        line.split("\t")[1]
        for line in (data_root / "wmt24-esa/documents/en-hi.docs").read_text().splitlines()
    ]
    table = pd.read_csv(documents, sep="\t", comment="#", keep_default_na=False)
    assert table["doc_id"].tolist() == docs[1:] and len(table) == 997
    # a rating of segment id s is about text line s: its document is line s of the docs file
    for row in organisers_rows(data_root, "hi")[:200]:
        if row["kind"] == "TGT":
            assert table["doc_id"].iat[row["segment"]] == row["doc"]


# ------------------------------------------------------------------------------------------------- the format


def test_esa_ratings_as_tidy_rows(data_root: Path) -> None:
    spec = configured("hi")
    ratings = load_judgments(spec.human, data_root, 997, list(spec.systems)).table
    rows = organisers_rows(data_root, "hi")
    assert len(ratings) == len(rows) == 3267 + 489  # README: 3,291 TGT ratings before the latest-rating rule
    assert set(ratings["criterion"]) == {"esa"} and set(ratings["hit"]) == {"esa_generalMT2024_wave2"}
    counts = ratings.groupby("item_type").size().to_dict()
    expected = {
        "system": sum(r["kind"] == "TGT" and r["system"] != "refA" for r in rows),
        "ref": sum(r["kind"] == "TGT" and r["system"] == "refA" for r in rows),
        "bad_ref": sum(r["kind"] == "BAD" for r in rows),
    }
    assert counts == expected
    mine = sorted(
        zip(ratings["annotator"], ratings["system"], ratings["segment"], ratings["raw_score"], strict=True)
    )
    theirs = sorted((r["rater"], r["system"], r["segment"], r["score"]) for r in rows)
    assert mine == theirs


def oracle_gold(data_root: Path, lp: str, systems: list[str]) -> tuple[dict, dict]:
    """(QC p-value per rater, gold p-value per ordered pair) from the organisers' rows with scipy and numpy."""
    rows = organisers_rows(data_root, lp)
    original = {
        (r["wave"], r["rater"], r["system"], r["segment"]): r["score"] for r in rows if r["kind"] == "TGT"
    }
    pairs = defaultdict(list)
    for r in rows:
        key = (r["wave"], r["rater"], r["system"], r["segment"])
        if r["kind"] == "BAD" and key in original:
            pairs[r["rater"]].append((r["score"], original[key]))
    qc = {}
    for rater in {r["rater"] for r in rows}:
        bad, orig = np.array(pairs[rater]).reshape(-1, 2).T
        qc[rater] = stats.ttest_rel(bad, orig, alternative="less").pvalue if len(bad) >= 2 else np.nan
    kept = [r for r in rows if qc[r["rater"]] <= 0.05]
    by_rater = defaultdict(list)
    for r in kept:
        by_rater[r["rater"]].append(r["score"])
    moments = {k: (np.mean(v), np.std(v, ddof=1)) for k, v in by_rater.items()}
    cells = defaultdict(list)
    for r in kept:
        if r["kind"] == "TGT" and r["system"] != "refA":
            mean, sd = moments[r["rater"]]
            cells[r["system"], r["segment"]].append((r["score"] - mean) / sd)
    samples = defaultdict(list)
    for (system, _), values in sorted(cells.items()):
        samples[system].append(np.mean(values))
    gold = {}
    for x in systems:
        for y in systems:
            if x != y:
                a, b = np.round(samples[x], 12), np.round(samples[y], 12)
                gold[x, y] = (stats.mannwhitneyu(a, b, alternative="greater").pvalue, len(a), len(b))
    return qc, gold


def test_the_esa_gold_of_en_hi_equals_the_paper_machinery_on_the_organisers_rows(
    data_root: Path, tmp_path: Path
) -> None:
    """The human_gold step on WMT24 en-hi: quality control drops the raters whose BAD items do not score lower
    (equal to the ESA raters' QC table), and the gold is the rank-sum test of the per-(system, segment) mean z."""
    spec = configured("hi")
    texts, documents = tmp_path / "texts", tmp_path / "documents.tsv"
    run.prepare(spec, data_root, texts, documents)
    outputs = {k: tmp_path / "human" / f"{k}.tsv" for k in HUMAN_OUTPUTS}
    run.gold(
        spec, data_root, texts=texts, alphas=ALPHAS, documents=documents, gold=tmp_path / "gold.tsv",
        conclusions=tmp_path / "gold_conclusions.tsv", **outputs,
    )  # fmt: skip
    qc_oracle, gold_oracle = oracle_gold(data_root, "hi", list(spec.systems))
    qc = pd.read_csv(outputs["qc"], sep="\t", comment="#").set_index("annotator")
    assert sorted(qc.index) == sorted(qc_oracle)
    for rater, p in qc_oracle.items():
        assert qc.loc[rater, "p_value"] == pytest.approx(p, rel=1e-12)
    assert sorted(qc.index[~qc["kept"]]) == ["enghin7918", "enghin7928"]  # 2 of 42 fail, p 0.078 and 0.057
    export = read_esa(data_root / WAVES[0], data_root / "wmt24-esa/documents")
    reader_qc = (
        esa_quality_control(export.ratings, export.bad_items).query("lp == 'en-hi'").set_index("rater")
    )
    assert (reader_qc["passed"] == qc["kept"].reindex(reader_qc.index)).all()

    gold = pd.read_csv(tmp_path / "gold.tsv", sep="\t", comment="#")
    assert len(gold) == 10 * 9 and not {"refA"} & set(gold["sys_x"])
    for x, y, n_x, n_y, p in gold[["sys_x", "sys_y", "n_x", "n_y", "p_value"]].itertuples(index=False):
        expected, size_x, size_y = gold_oracle[x, y]
        assert (n_x, n_y) == (size_x, size_y)
        assert p == pytest.approx(expected, rel=1e-9, abs=1e-300)


# ------------------------------------------------------------------------------------------------- bad input


def write_export(path: Path, rows: list[tuple]) -> Path:
    """A small Appraise ESA export: (rater, system, segment id, type, doc, score) per row."""
    lines = [
        f'{rater},{system},{segment},{kind},eng,hin,{score},{doc},,"[]",1700000000,{1700000100 + k}'
        for k, (rater, system, segment, kind, doc, score) in enumerate(rows)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def small_export(tmp_path: Path) -> tuple[Path, Path]:
    docs = tmp_path / "en-hi.docs"
    docs.write_text("canary\tcanary\nnews\td1\nnews\td1\nsocial\td2\n", encoding="utf-8")
    export = write_export(
        tmp_path / "wave.csv",
        [("r1", "A", 1, "TGT", "d1", 70), ("r1", "B", 2, "TGT", "d1", 60), ("r1", "refA", 3, "TGT", "d2", 90),
         ("r1", "A", 1, "BAD", "d1#bad", 20)],
    )  # fmt: skip
    return export, docs


def test_a_small_export_is_read_with_its_reference_and_qc_items(small_export: tuple[Path, Path]) -> None:
    export, docs = small_export
    rows = load_esa(
        [export], 3, "eng", "hin", documents=docs, reference_systems=["refA"], systems=["A", "B"]
    ).table
    assert rows[["system", "segment", "item_type", "raw_score"]].values.tolist() == [
        ["A", 0, "system", 70.0], ["B", 1, "system", 60.0], ["refA", 2, "ref", 90.0], ["A", 0, "bad_ref", 20.0],
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("change", "message", "line"),
    [
        ({"systems": ["A"]}, r"unknown system 'B' \(known: A, refA\)", 2),
        ({"n_segments": 2}, r"segment id 3 is item 2, outside the test set of 2 segments", 3),
        ({"first_segment_id": 0}, r"document 'd1' of item 2 differs from 'd2' on line 4 of", 2),
        ({"target_language": "hi"}, r"unknown language code 'hi'.*ISO 639-3", None),
        (
            {"target_language": "ces", "documents": None},
            r"no en-cs ratings \(pairs in the files: en-hi\)",
            None,
        ),
    ],
)
def test_bad_esa_input_names_file_and_line(
    small_export: tuple[Path, Path], change: dict, message: str, line: int | None
) -> None:
    export, docs = small_export
    arguments = {"n_segments": 3, "source_language": "eng", "target_language": "hin", "systems": ["A", "B"]}
    arguments = {**arguments, "documents": docs, **change}
    with pytest.raises(InputError, match=message) as caught:
        load_esa([export], reference_systems=["refA"], **arguments)
    assert caught.value.path is not None
    if line is not None:
        assert Path(caught.value.path).name == "wave.csv" and caught.value.line == line


def test_documents_not_named_after_the_pair_are_refused(
    small_export: tuple[Path, Path], tmp_path: Path
) -> None:
    export, docs = small_export
    other = tmp_path / "hindi.docs"
    other.write_bytes(docs.read_bytes())
    with pytest.raises(InputError, match=r"must be named en-hi\.docs"):
        load_esa([export], 3, "eng", "hin", documents=other, reference_systems=["refA"], systems=["A", "B"])


@pytest.mark.parametrize(
    ("experiment", "message"),
    [
        ({"human": {"format": "esa", "path": "x.csv", "source_language": "eng"}}, "target_language"),
        ({"human": {"format": "tidy", "path": ["a.tsv", "b.tsv"]}}, "is not of type 'string'"),
        ({"skip_first_line": True, "training_runs": {"A": ["a1"], "B": ["b1"]}}, "should not be valid"),
        ({"bleu": {"tokenize": "ja-mecab"}}, "is not one of"),
    ],
)
def test_schema_refuses_bad_esa_experiments(experiment: dict, message: str) -> None:
    base = {
        "systems": ["A", "B"],
        "reference": "r.txt",
        "outputs": "{system}.txt",
        "human": {"format": "esa", "path": ["w2.csv"], "source_language": "eng", "target_language": "hin"},
        "gold": {"methods": ["wilcoxon"], "criteria": ["esa"]},
    }
    config = {"run": ["e"], "experiments": {"e": {**base, **experiment}}}
    schema = REPO / "workflow" / "schemas" / "config.schema.yaml"
    with pytest.raises(InputError, match=message):
        mtsig_config.validate_config(config, schema, [("mine.yaml", config)])


def test_bleu_and_ter_options_equal_sacrebleu_on_wmt24(data_root: Path) -> None:
    """The en-zh and en-ja configs' BLEU tokenizers and TER options give sacrebleu 2.6.0's corpus scores on the 40
    shortest segments (sacrebleu's TER on characters is slow); TER's asian_support without normalized is sacrebleu's
    plain TER (it acts only with normalized)."""
    import sacrebleu

    from mtsig.metrics import get_metric

    for lp, system in (("zh", "GPT-4"), ("ja", "Team-J")):
        spec = configured(lp)
        root = data_root / "wmt24-esa"
        refs = (root / f"references/en-{lp}.refA.txt").read_text(encoding="utf-8").split("\n")[1:-1]
        hyps = (root / f"system-outputs/en-{lp}/{system}.txt").read_text(encoding="utf-8").split("\n")[1:-1]
        shortest = sorted(range(len(refs)), key=lambda i: (len(refs[i]) + len(hyps[i]), i))[:40]
        refs, hyps = [refs[i] for i in shortest], [hyps[i] for i in shortest]
        for name, oracle in (
            ("bleu", sacrebleu.metrics.BLEU(tokenize=spec.bleu.tokenize)),
            ("ter", sacrebleu.metrics.TER(normalized=True, asian_support=True)),
        ):
            metric = get_metric(name, **spec.metric_options(name))
            mine = float(metric.score(metric.stats(hyps, refs).sum(axis=0)))
            assert mine == pytest.approx(oracle.corpus_score(hyps, [refs]).score, rel=1e-12)
        asian_only = get_metric("ter", asian_support=True)
        plain = sacrebleu.metrics.TER().corpus_score(hyps, [refs]).score
        assert plain != pytest.approx(oracle.corpus_score(hyps, [refs]).score)  # the options matter here
        assert float(asian_only.score(asian_only.stats(hyps, refs).sum(axis=0))) == pytest.approx(
            plain, rel=1e-12
        )
