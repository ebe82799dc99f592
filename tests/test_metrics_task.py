"""The WMT20 metrics task's system-level results, reproduced (mtsig.studies.metrics_task, mtsig.steps.metrics_task).

Oracles, all from the organisers' public repository WMT-Metrics-task/wmt20-metrics at commit 3e434fc (the commit
the data in shared/data/wmt20-metrics comes from), for the results of Mathur, Wei, Freitag, Ma & Bojar (2020):

- ``results/output/system-level/DA-jaen-cor.csv``: Kendall's tau-b of every metric, all 10 ja-en MT systems (their
  last run writes Kendall into this file);
- ``DA-jaen-sig.csv`` / ``DA-jaen-sig-excloutl.csv``: the one-sided Williams p-values (cells with r_a >= r_b and
  p <= 0.05; 0.12 elsewhere), all systems / without their outliers; the winners are the columns of 0.12 only;
- ``DA-jaen-cor-excloutl.csv``: Pearson's r without their outliers, N = 7, and the Winner column;
- ``manual-evaluation/DA/adwilcox-<lp>.csv``: the published one-sided Wilcoxon p-values of the DA gold;
- ``results/p0-preprocess_scores_and_visualize.ipynb``: the printed output of the MAD rule on z for every pair
  ("outliers_z"), and the outlier lists they then "manually update[d]".

Every published cell of all 19 evaluations is compared in the study's report (docs/wmt20-metrics.md, "Which
published number each result equals"); these tests pin a handful and the rules that make them equal.
"""

from __future__ import annotations

import glob
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from mtsig.errors import InputError
from mtsig.io.system_scores import read_wmt_sys_scores
from mtsig.io.wmt_da import read_wmt_da_sys_scores
from mtsig.report import meta_evaluation as report
from mtsig.settings import MetricsTask, build
from mtsig.stats.meta_evaluation import system_level as me
from mtsig.studies import metrics_task as study

# The module's fixtures read and evaluate the WMT20 metrics task once: its tests go to one worker.
pytestmark = pytest.mark.xdist_group("metrics_task")


@pytest.fixture(scope="module")
def spec(repo_root: Path) -> dict:
    """The study's definition as the pipeline passes it: validated, the schema's defaults filled in."""
    from mtsig.settings import MetricsTask, as_block, build

    config = yaml.safe_load((repo_root / "config" / "wmt20-metrics.yaml").read_text())
    return as_block(build(MetricsTask, config["metrics_task"]["wmt20-metrics"]))


@pytest.fixture(scope="module")
def root(data_root: Path) -> Path:
    return data_root / "wmt20-metrics"


@pytest.fixture(scope="module")
def metric_rows(root: Path, spec: dict) -> pd.DataFrame:
    files = sorted({f for pattern in spec["metric_scores"] for f in glob.glob(str(root / pattern))})
    frames = [read_wmt_sys_scores(f) for f in files]
    return pd.concat(
        [f.assign(metric=f["metric"].iloc[0], file=f.attrs["path"]) for f in frames], ignore_index=True
    )


@pytest.fixture(scope="module")
def ja_en(root: Path, spec: dict, metric_rows: pd.DataFrame) -> dict[str, pd.DataFrame]:
    human = read_wmt_da_sys_scores(root / "da" / "metrics-ad-sys-scores-ja-en.csv")
    scores = study.metric_system_scores(
        metric_rows, "ja-en", spec["refset"], spec["reference_free"], "newstest2020"
    )
    pair = study.pair_scores(human, scores, spec["exclude_systems"])
    excluded = study.excluded_systems(pair.systems, pair.human["z"], spec["published_outliers"]["ja-en"])
    return study.meta_evaluate("ja-en", pair, excluded, identical=spec["identical_metrics"])


def test_ja_en_kendall_equals_the_published_file(ja_en):
    """DA-jaen-cor.csv (Kendall, N = 10): prism .8666666666666666, COMET-HTER .8222222222222221, HUMAN_RAW
    .7777777777777777 (the raw DA score competes as a metric), TER .6888888888888888; 31 rows."""
    kendall = ja_en["correlations"].query("human == 'z' and systems == 'all' and kind == 'kendall'")
    r = kendall.set_index("metric")["r"]
    assert len(r) == 31 and set(kendall["n"]) == {10}
    published = {"prism": 0.8666666666666666, "COMET-HTER": 0.8222222222222221, "HUMAN_RAW": 0.7777777777777777,
                 "TER": 0.6888888888888888}  # fmt: skip
    for metric, value in published.items():
        assert r[metric] == pytest.approx(value, abs=1e-15), metric


def test_ja_en_williams_and_winners_equal_the_published_matrices(ja_en):
    """DA-jaen-sig.csv (all systems) and DA-jaen-sig-excloutl.csv (without zlabs-nlp.66, Online-G.1564 and
    Online-Z.1640): four p-values each, the metric order, and the winners."""
    williams = ja_en["williams"]
    all_p = williams.query("human == 'z' and systems == 'all'").set_index(["metric_a", "metric_b"])["p_value"]
    for cell, value in {
        ("esim", "OpenKiwi-Bert"): 0.001190199324493804,
        ("MEE", "chrF"): 0.0442006131612907,
        ("YiSi-1", "COMET"): 0.02878708818865871,
        ("paresim-1", "COMET-QE"): 0.008879541899479596,
    }.items():
        assert all_p[cell] == pytest.approx(value, rel=1e-9), cell
    out_p = williams.query("human == 'z' and systems == 'no_outliers_published'")
    out_p = out_p.set_index(["metric_a", "metric_b"])["p_value"]
    for cell, value in {
        ("EED", "TER"): 0.02323951663852875,
        ("MEE", "BLEU"): 0.04732472413263263,
        ("BLEURT-extended", "OpenKiwi-XLMR"): 0.009093190183712177,
    }.items():
        assert out_p[cell] == pytest.approx(value, rel=1e-9), cell
    winners = ja_en["winners"].query("human == 'z' and systems == 'all'")
    assert winners["metric"].tolist()[:8] == ["esim", "paresim-1", "MEE", "YiSi-1", "BLEURT", "SWSS+METEOR",
                                               "BERT-large-L2", "sentBLEU"]  # fmt: skip
    assert set(winners.loc[winners["winner"], "metric"]) == {
        "esim", "paresim-1", "MEE", "YiSi-1", "BLEURT", "SWSS+METEOR", "BERT-large-L2", "sentBLEU", "parchrf++",
        "EED", "TER", "prism", "chrF++", "YiSi-0", "YiSi-2", "parbleu", "HUMAN_RAW", "CharacTER", "mBERT-L2", "BLEU",
    }  # fmt: skip


def test_ja_en_without_published_outliers_equals_the_published_file(ja_en):
    """DA-jaen-cor-excloutl.csv: N = 7; SWSS+METEOR .9189438837210531, EED .90386018756323, MEE .9000459744745969,
    CharacTER .8952350591625128; 25 of the 31 are winners, all but BERT-base-L2, BLEU, COMET-MQM, OpenKiwi-Bert,
    OpenKiwi-XLMR and TER."""
    pearson = ja_en["correlations"].query(
        "human == 'z' and systems == 'no_outliers_published' and kind == 'pearson'"
    )
    r = pearson.set_index("metric")["r"]
    assert set(pearson["n"]) == {7}
    assert {tuple(sorted(o.split(","))) for o in pearson["outliers"]} == {
        ("Online-G.1564", "Online-Z.1640", "zlabs-nlp.66")
    }
    for metric, value in {"SWSS+METEOR": 0.9189438837210531, "EED": 0.90386018756323, "MEE": 0.9000459744745969,
                          "CharacTER": 0.8952350591625128}.items():  # fmt: skip
        assert r[metric] == pytest.approx(value, abs=1e-14), metric
    winners = ja_en["winners"].query("human == 'z' and systems == 'no_outliers_published'")
    beaten = set(winners.loc[~winners["winner"], "metric"])
    assert beaten == {"BERT-base-L2", "BLEU", "COMET-MQM", "OpenKiwi-Bert", "OpenKiwi-XLMR", "TER"}
    assert len(winners) == 31


def test_task_results_of_ja_en_equal_the_published_files(root, spec, metric_rows):
    """The whole evaluation loop (``task_results``, the step's one call) on ja-en with the study's config: Kendall
    of prism .8666666666666666 over all 10 systems (DA-jaen-cor.csv) and Pearson of SWSS+METEOR .9189438837210531
    without the published outliers (DA-jaen-cor-excloutl.csv); the DA system scores and each metric's scores in
    ``system_scores``."""
    relative = {f: Path(f).relative_to(root).as_posix() for f in set(metric_rows["file"])}
    task = build(MetricsTask, {**spec, "published_outliers": {"ja-en": spec["published_outliers"]["ja-en"]}})
    assert (task.outliers.score, task.outliers.scale, task.outliers.cutoff) == ("z", 1.4826, 2.5)  # Sec. 4.2
    assert task.kinds == me.KINDS and task.human_as_metric and task.alpha == 0.05
    (ja_en,) = [e for e in study.evaluations(task) if e.name == "ja-en"]
    human = {"ja-en": read_wmt_da_sys_scores(root / "da" / "metrics-ad-sys-scores-ja-en.csv")}
    results = study.task_results([ja_en], metric_rows, relative, human, task)
    r = results.correlations.set_index(["systems", "kind", "metric"]).query("human == 'z'")["r"]
    assert r["all", "kendall", "prism"] == pytest.approx(0.8666666666666666, abs=1e-15)
    assert r["no_outliers_published", "pearson", "SWSS+METEOR"] == pytest.approx(
        0.9189438837210531, abs=1e-14
    )
    (evaluation,) = results.evaluations
    assert len(evaluation.systems) == 10 and len(evaluation.metrics) == 30
    assert sorted(evaluation.excluded["no_outliers"]) == ["Online-G.1564", "Online-Z.1640"]
    sources = results.system_scores.groupby("source")["system"].count()
    assert sources["human_z"] == 10 and sources["prism"] == 10


# The MAD rule's output on z that the organisers' notebook printed for every pair ("outliers_z"), and the pairs
# where their published outlier list (the notebook's "manually update outliers" cell) adds systems to it.
NOTEBOOK_MAD_OUTLIERS = {
    "cs-en": [], "de-en": ["WMTBiomedBaseline.387", "yolo.1052", "zlabs-nlp.1153"], "iu-en": [],
    "ja-en": ["Online-G.1564", "Online-Z.1640"], "km-en": [], "pl-en": [], "ps-en": [], "ru-en": ["zlabs-nlp.1164"],
    "ta-en": [], "zh-en": ["WMTBiomedBaseline.183"], "en-cs": ["zlabs-nlp.1151"],
    "en-de": ["WMTBiomedBaseline.388", "zlabs-nlp.179"], "en-iu": ["OPPO.722", "UEDIN.1281", "UQAM_TanLe.521"],
    "en-ja": [], "en-pl": ["Online-Z.1634", "zlabs-nlp.180"], "en-ru": [],
    "en-ta": ["Online-G.1561", "SJTU-NICT.386", "TALP_UPC.1049"], "en-zh": [],
}  # fmt: skip
HAND_EDITED = {"cs-en", "iu-en", "ja-en", "pl-en", "ta-en", "en-cs", "en-de", "en-pl"}


def test_mad_rule_equals_the_organisers_rule_and_differs_from_their_published_list(root, spec):
    for lp, printed in NOTEBOOK_MAD_OUTLIERS.items():
        human = read_wmt_da_sys_scores(root / "da" / f"metrics-ad-sys-scores-{lp}.csv")
        pair = study.pair_scores(human, {}, spec["exclude_systems"])
        excluded = study.excluded_systems(
            pair.systems, pair.human["z"], spec["published_outliers"].get(lp, [])
        )
        assert sorted(excluded["no_outliers"]) == printed, lp
        published = sorted(excluded["no_outliers_published"])
        assert (published != printed) == (lp in HAND_EDITED), lp
        assert set(printed) <= set(published), lp  # the hand edits only add systems


def test_a_file_is_one_metric_named_by_its_first_row(metric_rows, spec):
    """bleurt-combi.sys.score.gz names its newstestP2020 rows (its first) bleurt-Yisi-combi and the others
    bleurt-combi; the organisers' results call its en-de newstest2020 scores bleurt-Yisi-combi, which equal
    Yisi-combi's: the identical pair the convention identical_metrics is about."""
    scores = study.metric_system_scores(metric_rows, "en-de", "newstest2020", spec["reference_free"])
    assert "bleurt-Yisi-combi" in scores and "bleurt-combi" not in scores
    assert scores["bleurt-Yisi-combi"] == scores["Yisi-combi"]


def test_en_iu_news_variant_reads_the_out_of_domain_rows(root, spec):
    [variant] = [e for e in study.evaluations(build(MetricsTask, spec)) if e.name == "en-iu_news"]
    assert (variant.pair, variant.metric_lp) == ("en-iu", "en-in")
    rows = pd.concat(
        [
            read_wmt_sys_scores(f).assign(file=f)
            for p in variant.patterns
            for f in sorted(glob.glob(str(root / p)))
        ]
    )
    scores = study.metric_system_scores(rows, "en-in", spec["refset"], spec["reference_free"])
    assert {"BLEU", "COMET", "prism"} <= set(scores) and "BAQ_dyn" not in scores


# ------------------------------------------------------------------------------------------------ the gold


@pytest.fixture(scope="module")
def golds(tmp_path_factory, data_root: Path, spec: dict) -> Path:
    """The step's gold of ja-en, iu-en (renamed systems; HUMAN has no system score) and en-cs (Appraise SIDs)."""
    from mtsig.steps.metrics_task import metrics_task_gold

    out = tmp_path_factory.mktemp("results") / "wmt20-metrics"
    lps = ["ja-en", "iu-en", "en-cs"]
    keys = ("human_segment_scores", "da_system_scores", "human_system_scores")
    human = [str(data_root / spec["root"] / spec[k].format(lp=lp)) for k in keys for lp in lps]
    metrics_task_gold(
        {"wmt20-metrics": {**spec, "pairs": lps}},
        data_root,
        [0.05, 0.01, 0.001],
        human=human,
        gold=[str(out / lp / "gold.tsv") for lp in lps],
        conclusions=[str(out / lp / "gold_conclusions.tsv") for lp in lps],
    )
    return out


def test_ja_en_gold_is_byte_identical_to_the_wmt20_ja_en_experiments(golds, data_root, repo_root, tmp_path):
    """The experiment's human_gold step calls load_judgments and build_gold with config/wmt20-ja-en.yaml (993
    segments, its 10 systems) and writes with write_tsv: the same calls here, the same bytes."""
    from mtsig.io.judgments import load_judgments
    from mtsig.settings import HumanGold, HumanSource, QualityControl, build
    from mtsig.stats.human_gold import build_gold
    from mtsig.steps.files import write_tsv

    experiment = yaml.safe_load((repo_root / "config" / "wmt20-ja-en.yaml").read_text())["experiments"][
        "wmt20-ja-en"
    ]
    systems = experiment["systems"]
    judgments = load_judgments(build(HumanSource, experiment["human"]), data_root, 993, systems)
    result = build_gold(judgments, systems, [0.05, 0.01, 0.001],
                        qc=build(QualityControl, experiment["qc"]),
                        gold=build(HumanGold, experiment["gold"]))  # fmt: skip
    for key, name in (("gold", "gold.tsv"), ("gold_conclusions", "gold_conclusions.tsv")):
        write_tsv(getattr(result, key), tmp_path / name)
        assert (tmp_path / name).read_bytes() == (golds / "ja-en" / name).read_bytes(), name


def test_gold_p_values_equal_the_published_wilcoxon_matrices(golds):
    """adwilcox-jaen.csv, adwilcox-iuen.csv (DA names Facebook-AI.729 = metrics task Facebook_AI.729; its HUMAN,
    rated but without a system score, is in neither) and adwilcox-encs.csv (Appraise SIDs <document>_<k>)."""
    published = {
        "ja-en": {("Tohoku-AIP-NTT.1429", "NICT_Kyoto.1230"): 0.0156412330675317,
                  ("NiuTrans.1352", "Online-B.1599"): 5.68745342316148e-05,
                  ("OPPO.1529", "Online-Z.1640"): 6.50016857531879e-19},
        "iu-en": {("NiuTrans.1206", "CUNI-Transfer.375"): 0.0275237598790141,
                  ("Facebook_AI.729", "OPPO.191"): 1.51695436524122e-07},
        "en-cs": {("Human-A.0", "CUNI-DocTransformer.1450"): 1.53129630145456e-06,
                  ("CUNI-DocTransformer.1450", "SRPOL.522"): 0.00480545799282921,
                  ("SRPOL.522", "CUNI-T2T-2018.1071"): 0.0235480873646197},
    }  # fmt: skip
    for lp, cells in published.items():
        gold = pd.read_csv(golds / lp / "gold.tsv", sep="\t")
        p = gold.set_index(["sys_x", "sys_y"])["p_value"]
        for cell, value in cells.items():
            assert p[cell] == pytest.approx(value, rel=1e-9), (lp, cell)
    iu_en = pd.read_csv(golds / "iu-en" / "gold.tsv", sep="\t")
    assert len(set(iu_en["sys_x"])) == 11 and "HUMAN" not in set(iu_en["sys_x"])


# ------------------------------------------------------------------------------------------------ bad input


def test_bad_study_inputs_are_input_errors(spec):
    rows = pd.DataFrame(
        {
            "metric": ["BLEU", "BLEU"],
            "lp": ["ja-en"] * 2,
            "testset": ["nt"] * 2,
            "refset": ["newstest2020"] * 2,
            "system": ["A", "A"],
            "score": [1.0, 2.0],
            "file": ["one.gz", "two.gz"],
        }  # fmt: skip
    )
    with pytest.raises(InputError, match="two.gz: metric 'BLEU' has ja-en newstest2020 scores in two files"):
        study.metric_system_scores(rows, "ja-en", "newstest2020")
    with pytest.raises(InputError, match="not among the systems correlated"):
        study.excluded_systems(["A", "B", "C"], np.array([0.1, 0.2, 0.3]), ["D"])
    with pytest.raises(InputError, match="pair 'xx-en' is not among the pairs"):
        study.evaluations(
            build(MetricsTask, {**spec, "variants": {"v": {"pair": "xx-en", "metric_lp": "xx-en"}}})
        )


# ------------------------------------------------------------------------------------------------ report


def test_correlation_table_orders_by_pearson_and_marks_winners(tmp_path):
    correlations = pd.DataFrame(
        {
            "lp": "xx-en",
            "human": "z",
            "systems": ["all"] * 4 + ["no_outliers"] * 2,
            "metric": ["A", "B"] * 3,
            "kind": ["pearson", "pearson", "kendall", "kendall", "pearson", "pearson"],
            "n": [5, 5, 5, 5, 4, 4],
            "r": [0.5, 0.9, 0.2, 0.6, 0.7, -0.1],
            "outliers": ["", "", "", "", "S3", "S3"],
        }  # fmt: skip
    )
    winners = pd.DataFrame(
        {
            "lp": "xx-en",
            "human": "z",
            "systems": ["all", "all", "no_outliers", "no_outliers"],
            "metric": ["B", "A", "A", "B"],
            "r": [0.9, 0.5, 0.7, -0.1],
            "rank": [1, 2, 1, 2],
            "n": [5, 5, 4, 4],
            "winner": [True, False, True, False],
        }  # fmt: skip
    )
    table = report.correlation_table(correlations, winners)
    assert table["metric"].tolist() == ["B", "A"]
    assert table["winner all"].tolist() == [True, False]
    assert table["n no_outliers"].tolist() == [4, 4]
    markdown = report.correlation_table_markdown(correlations, winners)
    assert "| xx-en | B | 5 | **0.900** | −0.100 | 4 | 0.600 |" in markdown
    assert "- xx-en, −out (MAD): without S3" in markdown
    latex = report.correlation_table_latex(correlations, winners, caption="c")
    assert r"\textbf{0.900}" in latex and "-0.100" in latex
    williams = me.williams_table(
        np.array([1.0, 2, 3, 4, 5]), {"A": np.array([1.0, 2, 3, 5, 4]), "B": np.array([3.0, 1, 2, 5, 4])}
    )
    coloured = report.williams_heatmap(williams, "test", [tmp_path / "h.png"])
    assert (tmp_path / "h.png").stat().st_size > 0
    matrix = me.williams_pivot(williams)
    np.testing.assert_array_equal(
        coloured.to_numpy(), (matrix.to_numpy() <= 0.05) & ~np.isnan(matrix.to_numpy())
    )


#: Metric names of the WMT20 task (the longest ones among them), for heatmaps of realistic label widths.
WMT20_METRIC_NAMES = [
    "bleurt-Yisi-combi", "BLEURT-extended", "BERT-large-L2", "OpenKiwi-XLMR", "OpenKiwi-Bert", "SWSS+METEOR",
    "COMET-HTER", "COMET-Rank", "BERT-base-L2", "COMET-MQM", "BAQ_static", "parchrf++", "paresim-1", "Yisi-combi",
    "COMET-2R", "COMET-QE", "CharacTER", "EQ_static", "HUMAN_RAW", "mBERT-L2", "sentBLEU", "BAQ_dyn", "EQ_dyn",
    "parbleu", "YiSi-0", "YiSi-1", "YiSi-2", "BLEURT", "chrF++", "COMET", "prism", "chrF", "BLEU",
]  # fmt: skip


@pytest.mark.parametrize("n_metrics", [6, 12, 33])
def test_williams_heatmap_lays_out_labels_title_and_legend_without_overlap(n_metrics):
    """Rendered by matplotlib's Agg renderer: the title, the y label, the row and column labels, the x label and
    the legend each keep to their own region of the figure (window extents), all inside it, and the matrix fills
    a fair share of the figure whatever the number of metrics (6 to 33 in the default run)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.transforms import Bbox

    rng = np.random.default_rng(n_metrics)
    human = rng.normal(size=10)
    names = WMT20_METRIC_NAMES[:n_metrics]
    metrics = {m: human + rng.normal(scale=0.2 + 0.05 * i, size=10) for i, m in enumerate(names)}
    title = report.williams_heatmap_title("wmt20-ja-en", 10)
    figure, _ = report.williams_heatmap_figure(me.williams_table(human, metrics), title)
    renderer = FigureCanvasAgg(figure).get_renderer()
    (ax,) = figure.axes
    extent = {
        "title": next(t for t in figure.texts if t.get_text().replace("\n", " ") == title),
        "y label": ax.yaxis.label,
        "x label": ax.xaxis.label,
        "legend": figure.legends[0],
    }
    boxes = {name: artist.get_window_extent(renderer) for name, artist in extent.items()}
    row_labels = [t for t in ax.texts if t.get_rotation() == 0]
    column_labels = [t for t in ax.texts if t.get_rotation() != 0]
    assert len(row_labels) == len(column_labels) == n_metrics
    boxes["row labels"] = Bbox.union([t.get_window_extent(renderer) for t in row_labels])
    boxes["column labels"] = Bbox.union([t.get_window_extent(renderer) for t in column_labels])
    boxes["matrix"] = ax.get_window_extent(renderer)
    whole = figure.bbox
    for name, box in boxes.items():
        assert whole.x0 <= box.x0 and box.x1 <= whole.x1 and whole.y0 <= box.y0 and box.y1 <= whole.y1, name
    names_of = sorted(boxes)
    for i, a in enumerate(names_of):
        for b in names_of[i + 1 :]:
            assert not boxes[a].overlaps(boxes[b]), (a, b, boxes[a], boxes[b])
    share = boxes["matrix"].width * boxes["matrix"].height / (whole.width * whole.height)
    assert share >= 0.35, share


def test_docs_show_the_pipelines_ja_en_table_and_heatmap(ja_en, repo_root, tmp_path):
    """docs/wmt20-metrics.md's ja-en table is the study's Markdown table, row for row, and its figure the study's
    heatmap, byte for byte (save_figure writes reproducible PNGs)."""
    readme = (repo_root / "docs" / "wmt20-metrics.md").read_text()
    assert "](figures/wmt20-metrics-ja-en.png)" in readme
    markdown = report.correlation_table_markdown(ja_en["correlations"], ja_en["winners"])
    rows = [line for line in markdown.splitlines() if line.startswith("| ja-en |")]
    assert len(rows) == 31
    for line in rows:
        assert line in readme, line
    williams = ja_en["williams"].query("human == 'z' and systems == 'all'")
    report.williams_heatmap(williams, report.williams_heatmap_title("ja-en", 10), [tmp_path / "ja-en.png"])
    assert (tmp_path / "ja-en.png").read_bytes() == (
        repo_root / "docs" / "figures" / "wmt20-metrics-ja-en.png"
    ).read_bytes()
