"""An experiment read from mt-metrics-eval's layout (config/wmt23-en-de.yaml): the human segment scores and the
documents files as the pipeline reads them, the meta-evaluation against whichever human scores an experiment has,
a rated human reference kept apart, and the warning on a metric declared with the wrong orientation.

Oracles: the organisers' files of WMT23 en-de parsed here with plain Python (line and ``None`` counts, segment
positions, document blocks), their system-level file ``en-de.mqm.sys.score`` (the mean of a system's rated
segments, computed by the organisers: an independent oracle for the system means), ``scipy.stats.mannwhitneyu`` on
the parsed scores for the gold, ``scipy.stats.pearsonr`` on the parsed metric means and the organisers' MQM system
scores for the correlations; hand-made small files for each validation error.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
from collections import defaultdict
from pathlib import Path

import experiment_steps as run
import numpy as np
import pandas as pd
import pytest
import yaml
from scipy import stats
from snakemake_runner import run_snakemake

from mtsig.errors import InputError
from mtsig.io.documents import read_documents
from mtsig.io.human.tidy import load_tidy
from mtsig.io.judgments import load_judgments
from mtsig.io.mtme import read_mtme_docs, read_mtme_human_seg_scores
from mtsig.pipeline import config as mtsig_config
from mtsig.settings import Experiment, HumanSource, as_block, build
from mtsig.stats.meta_evaluation.system_level import negative_correlation_pvalue, reversed_orientation
from mtsig.steps.evaluation import reversed_orientation_check
from mtsig.steps.files import write_tsv
from mtsig.steps.meta_evaluation import meta_evaluation
from mtsig.studies.meta_evaluation import available_human_scores

REPO = Path(__file__).resolve().parents[1]
NAME = "wmt23-en-de"
MQM = "wmt23/human-scores/en-de.mqm.seg.score"
DOCS = "wmt23/documents/en-de.docs"
METRICS = "wmt23/metric-scores/en-de"
ALPHAS = [0.05, 0.01, 0.001]
META_SETTINGS = {"alpha": 0.05, "bootstrap_samples": 100, "permutation_samples": 100, "confidence": 0.95}
META_OUTPUTS = ("correlations", "williams", "winners", "intervals", "perm_both", "accuracy", "accuracy_tests")
HUMAN_OUTPUTS = ("z", "qc", "system_scores")


def configured() -> Experiment:
    raw = yaml.safe_load((REPO / "config" / f"{NAME}.yaml").read_text(encoding="utf-8"))["experiments"]
    return mtsig_config.experiment({"experiments": raw, "metrics": []}, NAME)


def parsed_seg_scores(path: Path) -> dict[str, list[float | None]]:
    """system -> its scores in segment order, None where unrated: the file parsed with plain Python."""
    scores: dict[str, list[float | None]] = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines():
        system, score = line.split()
        scores[system].append(None if score == "None" else float(score))
    return dict(scores)


def parsed_sys_scores(path: Path) -> dict[str, float]:
    return {line.split()[0]: float(line.split()[1]) for line in path.read_text(encoding="utf-8").splitlines()}


def rated_mean(values: list[float | None]) -> float:
    rated = [v for v in values if v is not None]
    return sum(rated) / len(rated)


# --------------------------------------------------------------------------------------- human segment scores


def test_mqm_seg_scores_are_read_as_rated_cells_with_the_reference_apart(data_root: Path) -> None:
    path = data_root / MQM
    lines = path.read_text(encoding="utf-8").splitlines()
    none_cells = sum(line.split()[1] == "None" for line in lines)
    assert (len(lines), none_cells) == (7241, 1261)  # 13 rated outputs x 557 paragraphs; 97 unrated each
    systems = list(configured().systems)
    rows = read_mtme_human_seg_scores(
        path, criterion="mqm", n_segments=557, systems=systems, reference_systems=["refA"]
    )
    assert len(rows) == len(lines) - none_cells
    assert set(rows["criterion"]) == {"mqm"} and set(rows["annotator"]) == {""}
    assert rows.loc[rows["system"] == "refA", "item_type"].eq("ref").all()
    assert rows.loc[rows["system"] != "refA", "item_type"].eq("system").all()
    parsed = parsed_seg_scores(path)
    for system, values in parsed.items():
        mine = rows.loc[rows["system"] == system]
        assert mine["segment"].tolist() == [k for k, v in enumerate(values) if v is not None]
        np.testing.assert_array_equal(mine["raw_score"], [v for v in values if v is not None])
        np.testing.assert_array_equal(mine["z"], mine["raw_score"])


@pytest.mark.parametrize("gold", ["mqm", "da-sqm"])
def test_human_system_scores_equal_the_organisers_sys_score(
    data_root: Path, tmp_path: Path, gold: str
) -> None:
    """The gold step's system scores from the seg.score file (MQM and DA+SQM alike) equal the organisers' own
    system-level file, the reference's mean left out of them."""
    spec = configured()
    spec = dataclasses.replace(
        spec,
        human=dataclasses.replace(
            spec.human, path=f"wmt23/human-scores/en-de.{gold}.seg.score", criterion=gold
        ),
        gold=dataclasses.replace(spec.gold, criteria=(gold,)),
    )
    texts, documents = tmp_path / "texts", tmp_path / "documents.tsv"
    run.prepare(spec, data_root, texts, documents, NAME)
    outputs = {k: tmp_path / "human" / f"{k}.tsv" for k in HUMAN_OUTPUTS}
    run.gold(
        spec, data_root, texts=texts, alphas=ALPHAS, documents=documents, gold=tmp_path / "gold.tsv",
        conclusions=tmp_path / "gold_conclusions.tsv", **outputs,
    )  # fmt: skip
    table = pd.read_csv(outputs["system_scores"], sep="\t").set_index("system")
    organisers = parsed_sys_scores(data_root / f"wmt23/human-scores/en-de.{gold}.sys.score")
    assert list(table.index) == list(spec.systems) and "refA" in organisers
    for system in spec.systems:
        assert table.loc[system, "mean_z"] == pytest.approx(organisers[system], abs=1e-9)
        assert table.loc[system, "mean_raw"] == pytest.approx(organisers[system], abs=1e-9)
    if gold == "mqm":
        gold_p = pd.read_csv(tmp_path / "gold.tsv", sep="\t")
        parsed = parsed_seg_scores(data_root / MQM)
        assert len(gold_p) == 12 * 11 and "refA" not in set(gold_p["sys_x"]) | set(gold_p["sys_y"])
        for x, y, p in gold_p[["sys_x", "sys_y", "p_value"]].itertuples(index=False):
            sample_x = np.round([v for v in parsed[x] if v is not None], 12)  # the gold's tie convention
            sample_y = np.round([v for v in parsed[y] if v is not None], 12)
            expected = stats.mannwhitneyu(sample_x, sample_y, alternative="greater").pvalue
            assert p == pytest.approx(expected, rel=1e-12, abs=1e-300)


def test_mtme_human_scores_bad_input_names_file_and_line(data_root: Path, tmp_path: Path) -> None:
    path = data_root / MQM
    systems = list(configured().systems)
    first_ref = 1 + next(
        i for i, line in enumerate(path.read_text().splitlines()) if line.startswith("refA\t")
    )
    with pytest.raises(InputError, match=rf"{first_ref}: unknown system 'refA'.*human.reference_systems"):
        read_mtme_human_seg_scores(path, criterion="mqm", n_segments=557, systems=systems)
    with pytest.raises(InputError, match="refA: listed in human.reference_systems and in the experiment"):
        read_mtme_human_seg_scores(
            path, criterion="mqm", systems=[*systems, "refA"], reference_systems=["refA"]
        )
    with pytest.raises(InputError, match="has 557 rows .* the test set has 556 segments"):
        read_mtme_human_seg_scores(path, criterion="mqm", n_segments=556, reference_systems=["refA"])
    bad = tmp_path / "bad.seg.score"
    bad.write_text("A\t1.5\nA\tgood\nB\tNone\nB\t2\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.seg.score:2: score 'good' is not a number"):
        read_mtme_human_seg_scores(bad, criterion="esa")
    bad.write_text("A\tNone\nB\tNone\n", encoding="utf-8")
    with pytest.raises(InputError, match="no rated segment"):
        read_mtme_human_seg_scores(bad, criterion="esa")
    human = {"format": "mtme_seg_score", "path": MQM, "reference_systems": ["refA"]}
    with pytest.raises(InputError, match="human.criterion is required with format mtme_seg_score"):
        load_judgments(build(HumanSource, human), data_root, 557, systems)


# -------------------------------------------------------------------------------------------------- documents


def test_mtme_docs_give_every_segment_its_domain_and_document(data_root: Path) -> None:
    lines = (data_root / DOCS).read_text(encoding="utf-8").splitlines()
    fields = [line.split("\t") for line in lines]
    docs = read_mtme_docs(data_root / DOCS)
    assert len(docs) == len(lines) == 557
    assert docs["domain"].tolist() == [f[0] for f in fields]
    assert docs["document"].tolist() == [f[1] for f in fields]
    assert docs["document"].nunique() == 192
    assert docs["domain"].value_counts().to_dict() == {
        "social": 212,
        "news": 139,
        "speech": 113,
        "user_review": 93,
    }
    ids = read_documents(data_root / DOCS, "mtme_docs", 557)
    np.testing.assert_array_equal(ids, [f[1] for f in fields])
    with pytest.raises(InputError, match="557 segments in the document file but 556"):
        read_documents(data_root / DOCS, "mtme_docs", 556)


def test_mtme_docs_bad_input(tmp_path: Path) -> None:
    path = tmp_path / "x.docs"
    path.write_text("news\td1\nnews\td1\nnews\td2\nnews\td1\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"x.docs:4: document 'd1' starts again"):
        read_mtme_docs(path)
    path.write_text("news\td1\n\nnews\td2\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"x.docs:2: 0 fields, expected 2"):
        read_mtme_docs(path)
    path.write_text("news\td1\nnews d2 extra\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"x.docs:2: 3 fields, expected 2"):
        read_mtme_docs(path)


# ------------------------------------------------------------------------------- meta-evaluation, orientation


@pytest.fixture(scope="module")
def wmt23(data_root: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The config's experiment with three of its declared metrics plus MetricX-23 declared lower-is-better (its
    mt-metrics-eval file is already negated: the wrong orientation), prepared texts, statistics and gold."""
    root = tmp_path_factory.mktemp("wmt23")
    spec = configured()
    flipped = {
        "MetricX-flipped": {**as_block(spec.declarations["MetricX-23-refA"]), "higher_is_better": False}
    }
    spec = dataclasses.replace(spec, metrics=(*spec.metrics, flipped))
    texts, documents = root / "texts", root / "documents.tsv"
    run.prepare(spec, data_root, texts, documents, NAME)
    stats_files = {}
    for metric in ("COMET-refA", "MetricX-23-refA", "CometKiwi-src", "MetricX-flipped"):
        stats_files[metric] = root / "stats" / f"{metric}.npz"
        run.statistics(spec, metric, texts, stats_files[metric], data_root=data_root, documents=documents)
    human = {k: root / "human" / f"{k}.tsv" for k in HUMAN_OUTPUTS}
    run.gold(
        spec, data_root, texts=texts, alphas=ALPHAS, documents=documents, gold=root / "gold.tsv",
        conclusions=root / "gold_conclusions.tsv", **human,
    )  # fmt: skip
    return {"root": root, "spec": spec, "texts": texts, "stats": stats_files, "human": human}


def run_meta_evaluation(wmt23: dict, metrics: list[str], system_scores: Path, out: Path) -> dict[str, Path]:
    outputs = {k: out / f"{k}.tsv" for k in META_OUTPUTS}
    meta_evaluation(
        NAME, META_SETTINGS, 7, stats=[wmt23["stats"][m] for m in metrics], texts=wmt23["texts"],
        system_scores=system_scores, gold_conclusions=wmt23["root"] / "gold_conclusions.tsv",
        md=out / "meta_evaluation.md", html=out / "meta_evaluation.html", heatmap=out / "williams.png", **outputs,
    )  # fmt: skip
    return {**outputs, "md": out / "meta_evaluation.md"}


def metric_means(data_root: Path, metric: str, systems: list[str]) -> np.ndarray:
    parsed = parsed_seg_scores(data_root / METRICS / f"{metric}.seg.score")
    return np.array([rated_mean(parsed[s]) for s in systems])


def test_meta_evaluation_of_segment_means_without_raw_scores(
    wmt23: dict, data_root: Path, tmp_path: Path
) -> None:
    """The MQM file converted to the tidy segment-means format (z only, the reference in it, kept apart by
    ``human.reference_systems``): the human system scores have no raw score, and the meta-evaluation correlates
    with z alone and says so."""
    parsed = parsed_seg_scores(data_root / MQM)
    rows = [
        (system, segment, "mqm", value)
        for system, values in parsed.items()
        for segment, value in enumerate(values)
        if value is not None
    ]
    tidy = tmp_path / "mqm.tsv"
    pd.DataFrame(rows, columns=["system", "segment", "criterion", "z"]).to_csv(tidy, sep="\t", index=False)
    spec = dataclasses.replace(
        wmt23["spec"],
        human=HumanSource("tidy", str(tidy), segment_means=True, reference_systems=("refA",)),
    )
    human = {k: tmp_path / "human" / f"{k}.tsv" for k in HUMAN_OUTPUTS}
    documents = wmt23["root"] / "documents.tsv"
    run.gold(
        spec, data_root, texts=wmt23["texts"], alphas=ALPHAS, documents=documents, gold=tmp_path / "gold.tsv",
        conclusions=tmp_path / "gold_conclusions.tsv", **human,
    )  # fmt: skip
    table = pd.read_csv(human["system_scores"], sep="\t")
    assert table["mean_raw"].isna().all() and table["mean_z"].notna().all()

    metrics = ["COMET-refA", "MetricX-23-refA", "CometKiwi-src"]
    out = run_meta_evaluation(wmt23, metrics, human["system_scores"], tmp_path / "me")
    correlations = pd.read_csv(out["correlations"], sep="\t")
    assert set(correlations["human"]) == {"z"}
    for name in ("intervals", "perm_both"):
        assert set(pd.read_csv(out[name], sep="\t")["human"]) == {"z"}
    systems = list(wmt23["spec"].systems)
    organisers = parsed_sys_scores(data_root / "wmt23/human-scores/en-de.mqm.sys.score")
    human_scores = [organisers[s] for s in systems]
    for metric in metrics:
        row = correlations.query("metric == @metric and systems == 'all' and kind == 'pearson'")
        expected = stats.pearsonr(metric_means(data_root, metric, systems), human_scores).statistic
        assert row["r"].item() == pytest.approx(expected, abs=1e-12)
    text = out["md"].read_text(encoding="utf-8")
    assert "Human score: MQM z." in text
    assert "Human scores correlated with: z only." in text
    assert "- no raw: mean_raw is empty for every system (the human judgments carry no raw scores)" in text


def test_meta_evaluation_without_any_usable_human_score_says_why(wmt23: dict, tmp_path: Path) -> None:
    systems = list(wmt23["spec"].systems)
    table = pd.DataFrame(
        {"system": systems, "criterion": "mqm", "mean_z": np.nan, "mean_raw": np.nan, "n": 460}
    )
    table.loc[0, "mean_z"] = -1.0
    path = tmp_path / "system_scores.tsv"
    write_tsv(table, path, made_by="human_gold", settings={})
    with pytest.raises(InputError) as raised:
        run_meta_evaluation(wmt23, ["COMET-refA", "CometKiwi-src"], path, tmp_path / "me")
    message = str(raised.value)
    assert "no human system score to meta-evaluate against" in message
    assert f"mean_z is not a finite number for {', '.join(systems[1:])}" in message
    assert "mean_raw is empty for every system" in message
    usable, missing = available_human_scores(table.set_index("system"), systems[:1])
    assert list(usable) == ["z"] and list(missing) == ["raw"]


def test_reference_apart_in_tidy_segment_means(data_root: Path, tmp_path: Path) -> None:
    """A tidy segment-means file rating the reference: refused as an unknown system unless the config lists it in
    human.reference_systems or the file marks it with an item_type column."""
    parsed = parsed_seg_scores(data_root / MQM)
    systems = list(configured().systems)
    rows = [(s, k, "mqm", v) for s, values in parsed.items() for k, v in enumerate(values) if v is not None]
    frame = pd.DataFrame(rows, columns=["system", "segment", "criterion", "z"])
    path = tmp_path / "mqm.tsv"
    frame.to_csv(path, sep="\t", index=False)
    first_ref = 2 + int(np.flatnonzero(frame["system"].to_numpy() == "refA")[0])  # after the header line
    with pytest.raises(InputError, match=rf"mqm.tsv:{first_ref}: unknown system 'refA'"):
        load_tidy(path, segment_means=True, n_segments=557, systems=systems)
    kept = load_tidy(
        path, segment_means=True, n_segments=557, systems=systems, reference_systems=["refA"]
    ).table
    assert kept.loc[kept["system"] == "refA", "item_type"].eq("ref").all()
    assert (kept["item_type"] == "ref").sum() == sum(v is not None for v in parsed["refA"]) == 460
    frame.assign(item_type=np.where(frame["system"] == "refA", "ref", "system")).to_csv(
        path, sep="\t", index=False
    )
    marked = load_tidy(path, segment_means=True, n_segments=557, systems=systems).table
    pd.testing.assert_frame_equal(marked[kept.columns.drop("item_type")], kept.drop(columns="item_type"))
    assert marked["item_type"].tolist() == kept["item_type"].tolist()
    with pytest.raises(InputError, match="refA: listed in human.reference_systems and in the experiment"):
        load_tidy(path, segment_means=True, systems=[*systems, "refA"], reference_systems=["refA"])


def test_metric_with_the_wrong_orientation_is_flagged(
    wmt23: dict, data_root: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """MetricX-23's mt-metrics-eval file is already negated (higher is better); declared lower-is-better, its
    system scores correlate with MQM at about -0.98: a warning in the log and a note under the accuracy table and
    the meta-evaluation table. Declared right, it and its peers get none."""
    systems = list(wmt23["spec"].systems)
    organisers = parsed_sys_scores(data_root / "wmt23/human-scores/en-de.mqm.sys.score")
    expected_r = -stats.pearsonr(
        metric_means(data_root, "MetricX-23-refA", systems), [organisers[s] for s in systems]
    ).statistic
    assert expected_r < -0.9
    right = [wmt23["stats"][m] for m in ("COMET-refA", "MetricX-23-refA", "CometKiwi-src")]
    with caplog.at_level(logging.WARNING, logger="mtsig"):
        assert reversed_orientation_check(NAME, right, wmt23["human"]["system_scores"]) == ""
        out = run_meta_evaluation(
            wmt23, ["COMET-refA", "MetricX-23-refA", "CometKiwi-src"], wmt23["human"]["system_scores"],
            tmp_path / "right",
        )  # fmt: skip
    assert "higher_is_better" not in caplog.text
    assert "higher_is_better" not in out["md"].read_text(encoding="utf-8")

    wrong = [*right[:1], wmt23["stats"]["MetricX-flipped"], *right[2:]]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="mtsig"):
        note = reversed_orientation_check(NAME, wrong, wmt23["human"]["system_scores"])
        out = run_meta_evaluation(
            wmt23, ["COMET-refA", "MetricX-flipped", "CometKiwi-src"], wmt23["human"]["system_scores"],
            tmp_path / "wrong",
        )  # fmt: skip
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2 and all(
        "MetricX-flipped" in w and "check higher_is_better" in w for w in warnings
    )
    assert f"r = {expected_r:.3f}" in warnings[0]
    shown = f"- MetricX-flipped: r = {expected_r:.3f}".replace("-0", "−0")
    assert "Check higher_is_better" in note and shown in note
    text = out["md"].read_text(encoding="utf-8")
    assert "Check higher_is_better" in text and shown in text


def test_orientation_rule_against_scipy() -> None:
    """The one-sided p of r < 0 is scipy's pearsonr(alternative="less"); the rule needs r <= -0.5 and p <= 0.05, so
    r = -0.85 on four systems (p = 0.075) and r = -0.45 on twelve are not flagged, -0.95 on four and -0.55 on
    twelve are, and two systems never are."""
    rng = np.random.default_rng(3)
    for n in (3, 4, 5, 12, 30):
        x = rng.normal(size=n)
        y = -x + rng.normal(size=n)
        result = stats.pearsonr(x, y, alternative="less")
        assert negative_correlation_pvalue(result.statistic, n) == pytest.approx(result.pvalue, rel=1e-9)
    assert reversed_orientation({"m": with_correlation(4, -0.85)}, np.arange(4.0)) == {}  # p = 0.075
    assert list(reversed_orientation({"m": with_correlation(4, -0.95)}, np.arange(4.0))) == ["m"]
    assert reversed_orientation({"m": with_correlation(12, -0.45)}, np.arange(12.0)) == {}  # p = 0.071
    flagged = reversed_orientation({"m": with_correlation(12, -0.55), "n": np.arange(12.0)}, np.arange(12.0))
    assert list(flagged) == ["m"] and flagged["m"][0] == pytest.approx(-0.55, abs=1e-12)
    assert reversed_orientation({"m": [1.0, 0.0]}, np.arange(2.0)) == {}  # r = -1 on two systems: no evidence


def with_correlation(n: int, r: float) -> np.ndarray:
    """Scores whose Pearson r with ``arange(n)`` is exactly ``r``: the centred ranks and a vector orthogonal to
    them and to the constant, mixed."""
    h = np.arange(n, dtype=float) - (n - 1) / 2
    other = np.random.default_rng(n).normal(size=n)
    other -= other.mean()
    other -= h * (other @ h) / (h @ h)
    return r * h / np.linalg.norm(h) + np.sqrt(1 - r * r) * other / np.linalg.norm(other)


# ------------------------------------------------------------------------------------------------ the config


def test_config_swap_plans_the_default_outputs(data_root: Path, tmp_path: Path) -> None:
    """``snakemake --configfile config/wmt23-en-de.yaml`` alone plans every default output of an experiment: texts,
    ten metrics' statistics and tests (the document bootstraps included: the .docs file gives documents), the gold,
    accuracy, tables, clusters, figures and the meta-evaluation. (The full run: README, measured there.)"""
    # a dry run: in this process (tests/snakemake_runner.py)
    result = run_snakemake(
        ["-n", "--cores", "2", "--directory", str(tmp_path), "--configfile", "config/wmt23-en-de.yaml"],
        REPO, {**os.environ, "MTSIG_DATA": str(data_root)},
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    counts = dict(re.findall(r"^(\w+)\s+(\d+)$", result.stdout, flags=re.M))
    expected = {"prepare_texts": 1, "metric_stats": 1, "merge_tests": 1, "corpus_scores": 1, "human_gold": 1,
                "evaluate": 1, "tables": 1, "clusters": 1, "figures": 1, "meta_evaluation": 1}  # fmt: skip
    assert {rule: int(counts.get(rule, 0)) for rule in expected} == expected
    assert re.search(r"^\s+output: .*results/wmt23-en-de/intervals\b", result.stdout, flags=re.M)
    assert "results/tables/wmt23-en-de.meta_evaluation.md" in result.stdout
    spec = configured()
    assert len(spec.metric_names) == 10  # one job scores and tests them all
    assert mtsig_config.has_documents(spec.text_sources(), data_root)


def test_schema_requires_the_criterion_of_mtme_human_scores() -> None:
    from snakemake.utils import validate

    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text(encoding="utf-8"))
    config.update(yaml.safe_load((REPO / "config" / f"{NAME}.yaml").read_text(encoding="utf-8")))
    schema = str(REPO / "workflow" / "schemas" / "config.schema.yaml")
    validate(config, schema)
    human = config["experiments"][NAME]["human"]
    assert human["reference_systems"] == ["refA"] and human["criterion"] == "mqm"
    del human["criterion"]
    with pytest.raises(Exception, match="criterion"):
        validate(config, schema)


def test_compare_reads_mtme_docs_for_the_document_bootstrap(data_root: Path, tmp_path: Path) -> None:
    """``mtsig compare --docs-format mtme_docs`` takes the .docs file's document ids: the same document bootstrap
    as a file of those ids, one per line, cut out here by hand."""
    from cli_runner import run_mtsig

    ids = tmp_path / "ids.txt"
    lines = (data_root / DOCS).read_text(encoding="utf-8").splitlines()
    ids.write_text("".join(line.split("\t")[1] + "\n" for line in lines), encoding="utf-8")
    outputs = data_root / "wmt23" / "system-outputs" / "en-de"
    common = ["--ref", data_root / "wmt23/references/en-de.refA.txt", "--metrics", "chrf", "--tests",
              "paired_bootstrap_documents", "--samples", "200", "--tsv", outputs / "ONLINE-W.txt",
              outputs / "ONLINE-A.txt"]  # fmt: skip
    read = run_mtsig("compare", "--docs", data_root / DOCS, "--docs-format", "mtme_docs", *common)
    by_hand = run_mtsig("compare", "--docs", ids, "--docs-format", "lines", *common)
    assert read.returncode == 0 == by_hand.returncode, read.stderr + by_hand.stderr
    assert "paired_bootstrap_documents" in read.stdout and read.stdout == by_hand.stdout
