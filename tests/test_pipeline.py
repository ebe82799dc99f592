"""End to end: the whole DAG on a synthetic experiment with planted truth (tests/configs/tiny.yaml).

The synthetic experiment (mtsig.studies.synthetic) has 6 systems whose corruption rates are planted: sys1 = sys2 < sys3 <
sys4 = sys5 < sys6, rated by biased annotators two of whom answer at random. The run must find the planted
differences in the human gold and in the tests, and produce every table and figure.
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pandas as pd
import pytest
import yaml
from pipeline_runs import TINY_CONFIG
from snakemake_runner import run_snakemake

from mtsig.studies.synthetic import SyntheticSpec, planted_conclusion, system_names

# the planted truth the assertions check is the one the config generates
SPEC = SyntheticSpec(
    **yaml.safe_load(TINY_CONFIG.read_text(encoding="utf-8"))["synthetic"]["synthetic-small"]
)


# The run is shared (conftest.tiny_pipeline_run): its tests go to one pytest-xdist worker (--dist loadgroup).
pytestmark = pytest.mark.xdist_group("tiny_pipeline")


@pytest.fixture(scope="module")
def tiny_run(tiny_pipeline_run: Path) -> Path:
    return tiny_pipeline_run / "results"


def _tsv(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, sep="\t", keep_default_na=False, dtype={"sys_x": str, "sys_y": str})


@pytest.mark.pipeline
def test_every_output_exists(tiny_run: Path) -> None:
    exp = tiny_run / "synthetic-small"
    for name in ["scores.tsv", "gold.tsv", "gold_conclusions.tsv", "accuracy.tsv", "test_agreement.tsv"]:
        assert (exp / name).stat().st_size > 0, name
    for metric in ["bleu", "chrf", "ter", "nist", "meteor"]:
        assert (exp / "tests" / f"{metric}.tsv").is_file()
    for name in ["synthetic-small.md", "synthetic-small.tex", "synthetic-small.csv", "README.md"]:
        assert (tiny_run / "tables" / name).is_file(), name
    segment_level = _tsv(tiny_run / "jcml-wmt10-de-en" / "segment_level.tsv")
    assert segment_level["convention"].unique().tolist() == ["paper", "rankeval_tool"]  # the default: both
    assert (tiny_run / "calibration" / "synthetic-small.tsv").is_file()
    assert list((tiny_run / "figures" / "synthetic-small" / "png").glob("*.png"))


@pytest.mark.pipeline
def test_gold_finds_every_planted_difference(tiny_run: Path) -> None:
    gold = _tsv(tiny_run / "synthetic-small" / "gold_conclusions.tsv")
    gold = gold[gold["alpha"] == 0.05]
    names = system_names(SPEC)
    for x, y in itertools.combinations(names, 2):
        truth = planted_conclusion(SPEC, x, y)
        row = gold[(gold.sys_x == x) & (gold.sys_y == y)]
        assert len(row) == 1, (x, y)
        if truth != "tie":
            assert row.conclusion.iloc[0] == truth, (x, y, row.to_dict("records"))


@pytest.mark.pipeline
def test_tests_find_the_planted_differences(tiny_run: Path) -> None:
    accuracy = _tsv(tiny_run / "synthetic-small" / "accuracy.tsv")
    paper = accuracy[
        (accuracy["alpha"] == 0.05)
        & accuracy["test"].isin(["paired_bootstrap", "bootstrap", "approximate_randomization"])
        & accuracy["metric"].isin(["bleu", "chrf", "ter"])
    ]
    if "correction" in paper:
        paper = paper[paper["correction"] == "none"]
    assert len(paper) == 9
    # 13 of 15 pairs differ by construction and are far apart; the 2 planted ties may go either way by chance.
    assert (paper["correct"] >= 13).all(), paper


@pytest.mark.pipeline
def test_shards_merge_in_canonical_order(tiny_run: Path) -> None:
    tests = _tsv(tiny_run / "synthetic-small" / "tests" / "bleu.tsv")
    names = system_names(SPEC)
    n_pairs = len(names) * (len(names) - 1)
    assert len(tests) == n_pairs * tests["test"].nunique()
    assert not tests.duplicated(["sys_x", "sys_y", "test"]).any()


@pytest.mark.pipeline
def test_intervals_tables_bracket_the_statistics_and_scores(tiny_run: Path) -> None:
    """intervals/{metric}.tsv: both methods for every ordered pair, each containing the tests table's statistic
    (the tie of identical draws aside); intervals/{metric}.systems.tsv: each containing the system's score of
    scores.tsv. Against the other tables of the run, not against the engine."""
    exp = tiny_run / "synthetic-small"
    scores = _tsv(exp / "scores.tsv")
    names = system_names(SPEC)
    for metric in ["bleu", "ter", "meteor"]:
        pairs = _tsv(exp / "intervals" / f"{metric}.tsv")
        assert set(pairs["method"]) == {"percentile", "bca"} and set(pairs["level"]) == {0.95}
        assert len(pairs) == 2 * len(names) * (len(names) - 1)
        tests = _tsv(exp / "tests" / f"{metric}.tsv")
        statistic = tests.drop_duplicates(["sys_x", "sys_y"])[["sys_x", "sys_y", "statistic"]]
        joined = pairs.merge(
            statistic, on=["sys_x", "sys_y"], suffixes=("", "_tests"), validate="many_to_one"
        )
        assert len(joined) == len(pairs)
        assert (joined["statistic"] - joined["statistic_tests"]).abs().max() < 1e-9
        assert ((joined["ci_low"] <= joined["statistic"]) & (joined["statistic"] <= joined["ci_high"])).all()
        systems = _tsv(exp / "intervals" / f"{metric}.systems.tsv")
        score = scores[scores["metric"] == metric].set_index("system")["score"]
        assert (
            (systems["ci_low"] <= systems["system"].map(score))
            & (systems["system"].map(score) <= systems["ci_high"])
        ).all()
        settings = json.loads((exp / "tests" / f"{metric}.tsv.manifest.json").read_text())["settings"]
        assert set(settings["signatures"]) == set(tests["test"])
        assert all("|ci:95%|metric:" in s for s in settings["signatures"].values())


@pytest.mark.pipeline
def test_clusters_agree_with_the_gold_and_the_tests(tiny_run: Path) -> None:
    """clusters.tsv: one ranking per metric and one per human gold; two systems in different clusters of the
    human gold were concluded different by the gold (gold_conclusions.tsv at 0.05), and in different clusters of
    BLEU by the paired bootstrap (tests/bleu.tsv, p <= 0.05)."""
    exp = tiny_run / "synthetic-small"
    clusters = _tsv(exp / "clusters.tsv")
    sources = list(dict.fromkeys(clusters["source"]))
    golds = _tsv(exp / "gold.tsv")["gold"].unique()
    assert sources == ["bleu", "chrf", "ter", "nist", "meteor"] + [f"human:{g}" for g in golds]
    gold = _tsv(exp / "gold_conclusions.tsv")
    primary = gold[(gold["gold"] == gold["gold"].iloc[0]) & (gold["alpha"] == 0.05)]
    human = clusters[clusters["source"] == f"human:{gold['gold'].iloc[0]}"].set_index("system")["cluster"]
    for row in primary.itertuples():
        if human[row.sys_x] != human[row.sys_y]:
            assert row.conclusion != "tie", row
    tests = _tsv(exp / "tests" / "bleu.tsv")
    p = tests[tests["test"] == "paired_bootstrap"].set_index(["sys_x", "sys_y"])["p_value"]
    bleu = clusters[clusters["source"] == "bleu"].set_index("system")["cluster"]
    for x, y in itertools.permutations(bleu.index, 2):
        if bleu[x] < bleu[y]:
            assert p[(x, y)] <= 0.05, (x, y)
    assert (exp / "clusters.tex").read_text().count(r"\begin{table}") == len(sources)
    side_by_side = (tiny_run / "tables" / "synthetic-small.clusters.md").read_text()
    assert (
        "human:" in side_by_side
        and "synthetic-small.clusters.md" in (tiny_run / "tables" / "README.md").read_text()
    )


@pytest.mark.pipeline
def test_power_table_and_figure(tiny_run: Path) -> None:
    exp = tiny_run / "synthetic-small"
    power = _tsv(exp / "power.tsv")
    assert list(power["n_segments"].unique()) == [125, 250, 300] and set(power["q"]) == {0.5, 1.0}
    assert power["sys_x"].nunique() == 1 and "minimum_detectable_difference" in power
    assert power["signature"].nunique() == 1
    assert "|test:paired_bootstrap|sided:one|samples:100|" in power["signature"].iloc[0]
    assert "|alpha:0.05|metric:BLEU|" in power["signature"].iloc[0]
    # The real pair (q = 1) of the two best systems is more often detected on all segments than on 125.
    real = power[power["q"] == 1.0].set_index("n_segments")["power"]
    assert real[300] >= real[125]
    assert (tiny_run / "figures" / "synthetic-small" / "power.png").stat().st_size > 0


@pytest.mark.pipeline
def test_human_ranking_calibration_table_and_figure(tiny_run: Path) -> None:
    """The rule end to end (tiny.yaml's small study on WMT24 ESA en-hi): every procedure and rank set asked, every
    condition and design, each rate or mean with its interval around it."""
    table = pd.read_csv(tiny_run / "wmt24-esa-en-hi" / "calibration.tsv", sep="\t")
    asked = yaml.safe_load(TINY_CONFIG.read_text(encoding="utf-8"))["human_ranking_calibration"]
    procedures = [*asked["procedures"], *(f"rank_sets_{units}" for units in asked["rank_sets"])]
    assert list(dict.fromkeys(table["procedure"])) == procedures and set(table["lp"]) == {"en-hi"}
    pair_kinds = {"null_item", "null_document", "shift", "heterogeneous"}
    assert set(table["kind"]) == pair_kinds | set(asked["cluster_designs"])
    assert ((table["ci_low"] <= table["rate"]) & (table["rate"] <= table["ci_high"])).all()
    assert (tiny_run / "figures" / "wmt24-esa-en-hi" / "calibration.png").stat().st_size > 0


def _run_state(run: Path) -> tuple[tuple[str, int, int], ...]:
    """Every file of the tiny run ``run`` (its results and Snakemake's records of the jobs) with its modification
    time and size: what a dry run reads besides the config."""
    return tuple(
        (str(path), path.stat().st_mtime_ns, path.stat().st_size)
        for folder in (run / "results", run / ".snakemake" / "metadata", run / ".snakemake" / "incomplete")
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    )


#: Snakemake's output by (run, settings, options, the run's files as they were): a dry run repeated by another
#: test on a run in the same state plans the same jobs, so it is read from here (the module is one xdist group).
_SNAKEMAKE_OUTPUTS: dict[tuple, str] = {}


def _snakemake_with(run: Path, data_root: Path, scratch: Path, settings: str, *extra: str) -> str:
    """The output of Snakemake on the tiny run ``run`` with ``settings`` (YAML) merged into the tiny config (a dry
    run made earlier on the run in the same state: its output)."""
    if "-n" not in extra:
        return _run_snakemake_with(run, data_root, scratch, settings, *extra)
    key = (str(run), settings, extra, _run_state(run))
    if key not in _SNAKEMAKE_OUTPUTS:
        _SNAKEMAKE_OUTPUTS[key] = _run_snakemake_with(run, data_root, scratch, settings, *extra)
    return _SNAKEMAKE_OUTPUTS[key]


def _run_snakemake_with(run: Path, data_root: Path, scratch: Path, settings: str, *extra: str) -> str:
    import os

    from pipeline_runs import tiny_pipeline_command

    override = scratch / "override.yaml"
    override.write_text(settings)
    command = tiny_pipeline_command(run, *extra)
    at = command.index("--configfile") + 1
    command[at : at + 1] = [str(TINY_CONFIG), str(override)]
    env = {**os.environ, "MTSIG_DATA": str(data_root)}
    # a dry run or a list of changes, read-only: in this process (tests/snakemake_runner.py)
    done = run_snakemake(command[3:], Path.cwd(), env)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _planned_jobs(run: Path, data_root: Path, scratch: Path, settings: str) -> set[tuple[str, str]]:
    """(rule, its first output) of each job a dry run with ``settings`` plans on the finished tiny run."""
    text = _snakemake_with(run, data_root, scratch, settings, "-n")
    jobs, rule = set(), None
    for line in text.splitlines():
        if line.startswith(("rule ", "localrule ")):
            rule = line.split()[1].rstrip(":")
        elif line.startswith("    output: ") and rule is not None:
            jobs.add((rule, line.removeprefix("    output: ").split(",")[0]))
            rule = None
    return jobs


def _planned(run: Path, data_root: Path, scratch: Path, settings: str, *extra: str) -> dict[str, int]:
    """Rule -> the number of its jobs a dry run with ``settings`` plans on the finished tiny run: its table of
    job counts (none when nothing is planned), from the same output as :func:`_planned_jobs`'s."""
    text = _snakemake_with(run, data_root, scratch, settings, "-n", *extra)
    table = text.split("Job stats:\n", 1)[1].split("\n\n", 1)[0] if "Job stats:\n" in text else ""
    counts = (line.split() for line in table.splitlines())
    return {words[0]: int(words[1]) for words in counts if len(words) == 2 and words[1].isdigit()}


def test_engine_settings_rerun_nothing(tiny_pipeline_run: Path, data_root: Path, tmp_path: Path) -> None:
    """The engine's settings (mtsig.settings.ENGINE_SETTINGS) and the cores change no number (docs/design.md,
    "Memory cap and sharding"), so none is in a rule's params. Another memory cap, on one core, plans exactly
    the jobs a dry run with the run's own settings plans (none, unless a test before this one touched a file).
    Another number of shards changes no output's params; it adds the shards' jobs and, as documented, reruns what
    reads the tests (merge_tests' input set changed) and nothing else. Another seed, which changes every p-value,
    plans the resampling jobs again (the checks can fail)."""
    from mtsig.settings import ENGINE_SETTINGS

    def planned(settings: str, *extra: str) -> dict[str, int]:
        return _planned(tiny_pipeline_run, data_root, tmp_path, settings, *extra)

    def params_changed(settings: str) -> set[str]:
        """The files Snakemake lists as made with other params under ``settings`` (it also lists the files it
        has no record of, e.g. the manifests: the same whatever the settings)."""
        changes = _snakemake_with(
            tiny_pipeline_run, data_root, tmp_path, settings, "--list-changes", "params"
        )
        return set(changes.splitlines())

    assert set(ENGINE_SETTINGS) == {"memory_cap_mb", "pair_shards"}  # a new engine setting is tested here too
    assert params_changed("resampling: {pair_shards: 3}\n") == params_changed("resampling: {}\n")
    as_run = planned("resampling: {}\n")
    assert planned("resampling: {memory_cap_mb: 512}\n", "--cores", "1") == as_run
    sharded = planned("resampling: {pair_shards: 3}\n")
    merges = sharded.get("merge_tests", 0)  # one per experiment, of every metric's shards
    metrics = yaml.safe_load(TINY_CONFIG.read_text(encoding="utf-8"))["metrics"]
    assert merges > 0 and sharded["resample_tests"] == 3 * len(metrics) * merges
    statistics_and_gold = {"prepare_texts", "metric_stats", "human_gold", "calibration", "section2", "power"}
    assert not statistics_and_gold & set(sharded)
    reseeded = planned("resampling: {seed: 7}\n")
    assert reseeded != as_run and "merge_tests" in reseeded


#: Rules whose outputs no gold or QC setting can change: the synthetic data, the texts, the metrics' statistics
#: and scores, the tests and what reads only them (power, Section 2), the JCML segment level, the human-ranking
#: calibration.
NOT_THE_GOLDS = {
    "generate_synthetic", "prepare_texts", "metric_stats", "corpus_scores", "resample_tests", "merge_tests",
    "power", "section2", "segment_level", "human_ranking_calibration",
}  # fmt: skip


def test_a_gold_or_qc_edit_reruns_only_what_reads_the_gold(
    tiny_pipeline_run: Path, data_root: Path, tmp_path: Path
) -> None:
    """Each rule's params hold only what can change its outputs (docs/design.md, "Typed settings"). On the finished
    tiny run, another gold (its criteria's priority swapped) or another QC level of the synthetic experiment plans
    its human_gold job and what reads the gold: the evaluation, clusters, tables, figures, the calibration (its
    planted pair is the primary gold's), replicability, delta agreement and the tables' index. No job of
    :data:`NOT_THE_GOLDS`: a gold's settings must not reach the params of the texts, the metrics' statistics and
    tests or the power study, whose jobs would otherwise be planned again. Another seed plans the
    tests again (the check can fail). Jobs, not counts, are compared: a test before this one (the damaged file of
    tests/test_bad_input.py) may leave jobs planned on the run as it is."""
    as_run = _planned_jobs(tiny_pipeline_run, data_root, tmp_path, "resampling: {}\n")
    gold_edit = "synthetic: {synthetic-small: {gold: {methods: [wilcoxon], criteria: [fluency, adequacy]}}}\n"
    qc_edit = "synthetic: {synthetic-small: {qc: {alpha: 0.01}}}\n"
    reads_the_gold = {"human_gold", "evaluate", "clusters", "tables", "figures", "calibration"}
    for edit in (gold_edit, qc_edit):
        planned = _planned_jobs(tiny_pipeline_run, data_root, tmp_path, edit)
        synthetic = {rule for rule, output in planned if "synthetic-small" in output}
        assert reads_the_gold <= synthetic, (edit, sorted(planned))
        added = {rule for rule, _ in planned - as_run}
        assert "human_gold" in added and not NOT_THE_GOLDS & added, (edit, sorted(planned - as_run))
    reseeded = _planned(tiny_pipeline_run, data_root, tmp_path, "resampling: {seed: 7}\n")
    assert {"merge_tests", "resample_tests", "power"} <= set(reseeded)


def _dry_run(workdir: Path, data_root: Path, *options: str) -> str:
    """What a dry run of the tiny config in ``workdir`` prints."""
    import os

    from pipeline_runs import tiny_pipeline_command

    command = tiny_pipeline_command(workdir, "--dry-run", *options)
    done = run_snakemake(command[3:], Path.cwd(), {**os.environ, "MTSIG_DATA": str(data_root)})
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_every_file_of_the_run_is_a_target_so_a_missing_one_is_made_again(
    tiny_pipeline_run: Path, data_root: Path, tmp_path: Path
) -> None:
    """Every file the tiny run wrote under results/ (statistics, manifests, texts, tables, HTML pages, figures) is
    a target of ``all`` or inside one (a directory output), so the next run notices one that is missing
    (docs/design.md, "Every output is a target"): with the statistics folder moved away (as a forced metric_stats
    job killed after Snakemake removed it leaves it), a dry run plans that job, which it did not before.
    (That a finished run plans nothing with these targets: tests/test_hard_stop.py.)
    The targets are the inputs of rule ``all`` that a dry run forcing every job prints."""
    forced = re.search(
        r"^(?:local)?rule all:\n\s+input: (.*)$", _dry_run(tiny_pipeline_run, data_root, "--forceall"), re.M
    )
    assert forced, "no rule all in the dry run"
    targets = forced[1].split(", ")
    results = tiny_pipeline_run / "results"
    written = [
        p.relative_to(tiny_pipeline_run).as_posix()
        for p in results.rglob("*")
        if p.is_file() and p.name != ".snakemake_timestamp"
    ]
    folders = [t + "/" for t in targets if (tiny_pipeline_run / t).is_dir()]
    untargeted = [f for f in written if f not in targets and not any(f.startswith(d) for d in folders)]
    assert untargeted == [] and len(written) > 100
    assert not [t for t in targets if "/shards/" in t]  # temporary outputs are no target
    # none, unless a test touched a file; the run's own config (an empty override), as the other tests plan it
    before = _planned(tiny_pipeline_run, data_root, tmp_path, "resampling: {}\n")
    assert "metric_stats" not in before, before
    statistics = results / "synthetic-small" / "stats"
    aside = statistics.with_name("stats.aside")
    statistics.replace(aside)  # moved, not copied: its time is kept, so the run is as it was once it is back
    try:
        planned = _planned(tiny_pipeline_run, data_root, tmp_path, "resampling: {}\n")
    finally:
        aside.replace(statistics)
    assert planned.get("metric_stats") == 1, planned
