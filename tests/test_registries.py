"""Each definition is stated once: the config schema's test and metric lists, the rules' wildcard constraints and the
step functions agree with the registries (mtsig.stats.resampling.TESTS, mtsig.metrics.METRICS) and the rules."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

from mtsig.metrics import METRICS
from mtsig.pipeline import config as mtsig_config
from mtsig.stats.resampling import TESTS
from mtsig.steps import (
    RULE_PRIORITIES,
    check_rule,
    item_rule,
    step_function,
    step_modules_defining,
)

REPO = Path(__file__).resolve().parents[1]
SCHEMA = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())


def test_schema_test_enum_is_the_test_registry() -> None:
    assert SCHEMA["$defs"]["test"]["enum"] == list(TESTS)


def test_schema_metric_enum_is_the_metric_registry() -> None:
    assert sorted(SCHEMA["$defs"]["builtin_metric"]["enum"]) == sorted(METRICS)
    declared_names = SCHEMA["$defs"]["metric"]["oneOf"][1]["propertyNames"]  # may not reuse a built-in name
    assert sorted(declared_names["not"]["enum"]) == sorted(METRICS)


def test_metric_wildcard_admits_declared_segment_score_metrics() -> None:
    declared = {"YiSi-2": {"kind": "segment_scores", "format": "wmt_seg_score", "path": "x"}}
    config = {"metrics": ["bleu"], "experiments": {"x": {"metrics": ["chrf", declared]}}}
    pattern = mtsig_config.wildcard_constraints(config)["metric"]
    for metric in ("bleu", "chrf", "YiSi-2"):
        assert re.fullmatch(pattern, metric), metric
    assert not re.fullmatch(pattern, "YiSi")


def test_metric_wildcard_matches_exactly_the_configured_metrics() -> None:
    config = {"metrics": ["bleu", "chrf"], "experiments": {"x": {"metrics": ["ter"]}}}
    pattern = mtsig_config.wildcard_constraints(config)["metric"]
    for metric in ("bleu", "chrf", "ter"):
        assert re.fullmatch(pattern, metric), metric
    for other in ("nist", "bleu2", "x", ""):
        assert not re.fullmatch(pattern, other), other


def test_default_metric_wildcard_covers_the_registry() -> None:
    defaults = {"metrics": SCHEMA["properties"]["metrics"]["default"], "experiments": {}}
    pattern = mtsig_config.wildcard_constraints(defaults)["metric"]
    assert all(re.fullmatch(pattern, m) for m in METRICS)


def test_rules_take_their_wildcard_constraints_from_the_config_module() -> None:
    common = (REPO / "workflow" / "rules" / "common.smk").read_text()
    assert "mtsig_config.wildcard_constraints(config)" in common
    for name in list(METRICS) + list(TESTS):
        assert not re.search(rf"\b{name}\|", common), f"{name} hard-coded in a constraint of common.smk"


def test_a_renamed_output_or_input_is_caught_before_any_job_runs() -> None:
    fits = check_rule(
        "merge_tests",
        inputs=[
            "shard_tests",
            "shard_distributions",
            "shard_intervals",
            "shard_system_intervals",
            "manifests",
        ],
        outputs=["tests", "distributions", "intervals"],
        params=["metrics", "stats", "selection", "resampling", "test_names"],
        wildcards=["experiment"],
    )
    assert fits == []
    renamed_output = check_rule(
        "merge_tests",
        inputs=["shard_tests", "shard_distributions", "shard_intervals", "shard_system_intervals"],
        outputs=["tables", "distributions", "intervals"],
        params=["metrics"],
        wildcards=["experiment"],
    )
    assert any("needs 'tests'" in p for p in renamed_output)
    assert any("output 'tables'" in p for p in renamed_output)
    renamed_input = check_rule(
        "resample_tests",
        ["stats_folder", "documents"],
        ["shard_tests", "shard_distributions", "shard_intervals", "shard_system_intervals"],
        ["statistics", "selection", "test_names", "resampling", "shards"],
        ["experiment", "metric", "shard"],
    )
    assert renamed_input == ["rule resample_tests: the step needs 'stats', which the rule does not name"]


def test_every_rule_has_exactly_one_step_in_the_module_named_after_its_rules_file() -> None:
    """A job imports only the step module found by its source text (mtsig.steps.step_modules_defining)."""
    rules = set()
    for path in (REPO / "workflow" / "rules").glob("*.smk"):
        text = path.read_text()
        # rules named in the file, and rules made in a loop, one per item, named by item_rule(<step>, item)
        for rule in re.findall(r"^rule (\w+):", text, flags=re.M) + re.findall(r'item_rule\("(\w+)"', text):
            rules.add(rule)
            assert step_modules_defining(rule) == [path.stem], rule
            step = step_function(rule)
            assert (step.__name__, step.__module__) == (rule, f"mtsig.steps.{path.stem}")
    assert len(rules) == 30
    assert step_function(item_rule("download_dataset", "wmt22-ja-en")).__name__ == "download_dataset"
    assert step_modules_defining("no_such_rule") == []


def test_every_rule_logs_and_leaves_its_usage_to_the_step() -> None:
    """Per-rule wall and CPU times (benchmarks/bench_pipeline.py) come from the file each step writes beside its
    log (mtsig.runtime.job_usage), not from Snakemake's sampling ``benchmark:`` directive."""
    for path in (REPO / "workflow" / "rules").glob("*.smk"):
        for block in re.split(r"^(?=rule )", path.read_text(), flags=re.M)[1:]:
            log = re.search(r'^    log:\n        "(logs/[^"]+)\.log",$', block, flags=re.M)
            assert log and "    benchmark:" not in block, block.splitlines()[0]


def test_job_usage_counts_the_job_and_the_children_it_waited_for(tmp_path: Path) -> None:
    """Oracle: CPU burnt on purpose, 0.4 s in a child process and 0.3 s in the job's own."""
    script = (
        "import subprocess, sys, time\n"
        "from mtsig.runtime.job_usage import write_job_usage\n"
        "burn = 'import time\\nt = time.process_time()\\nwhile time.process_time() - t < 0.4: pass'\n"
        "subprocess.run([sys.executable, '-c', burn], check=True)\n"
        "t = time.process_time()\n"
        "while time.process_time() - t < 0.3: pass\n"
        "write_job_usage(sys.argv[1])\n"
    )
    usage = tmp_path / "rule.benchmark.tsv"
    subprocess.run([sys.executable, "-c", script, str(usage)], check=True, cwd=REPO)
    header, row = usage.read_text().splitlines()
    record = dict(zip(header.split("\t"), map(float, row.split("\t")), strict=True))
    assert list(record) == ["s", "cpu_time", "max_rss", "mean_load"]
    assert record["cpu_time"] >= 0.7 and record["s"] >= 0.7 - 0.05
    assert 5 < record["max_rss"] < 2000


def test_schema_power_test_enum_is_the_power_registry() -> None:
    from mtsig.studies.power import POWER_TESTS

    assert SCHEMA["properties"]["power"]["properties"]["test"]["enum"] == list(POWER_TESTS)


def test_schema_cluster_rules_and_corrections_are_the_registries() -> None:
    from mtsig.stats.clusters import CLUSTER_RULES
    from mtsig.stats.evaluation import CORRECTIONS

    clusters = SCHEMA["properties"]["evaluation"]["properties"]["clusters"]["properties"]
    assert clusters["rule"]["enum"] == list(CLUSTER_RULES)
    assert clusters["correction"]["enum"] == list(CORRECTIONS)


def test_rule_priorities_are_declared_once_in_the_registry() -> None:
    """Every `priority:` of the rules reads mtsig.steps.RULE_PRIORITIES under its own rule's name, and every
    registry entry is a rule's."""
    declared = {}
    for path in (REPO / "workflow" / "rules").glob("*.smk"):
        for rule, body in re.findall(r"^rule (\w+):\n((?:(?: .*)?\n)+)", path.read_text(), flags=re.M):
            for value in re.findall(r"^    priority: (.+)$", body, flags=re.M):
                declared[rule] = value
    assert declared == {rule: f'mtsig_steps.RULE_PRIORITIES["{rule}"]' for rule in RULE_PRIORITIES}
    assert all(value > 0 for value in RULE_PRIORITIES.values())


def test_citation_gives_the_version_every_signature_prints() -> None:
    """One version: mtsig.__version__ (pyproject.toml reads it), CITATION.cff and the signatures."""
    import tomllib

    import mtsig
    from mtsig.report.signature import signature

    citation = yaml.safe_load((REPO / "CITATION.cff").read_text(encoding="utf-8"))
    assert str(citation["version"]) == mtsig.__version__
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "mtsig.__version__"}
    text = signature(metric_details="bleu", test="bootstrap", n_samples=10, seed=1, pvalue="c/B")
    assert text.startswith(f"mtsig:{mtsig.__version__}|")


def test_schema_metrics_protocol_enums_are_the_protocol_registries() -> None:
    """The protocols, early-stopping rules and SPA arithmetics a metrics_protocol experiment may name are
    mtsig.studies.metrics_protocol's; its replicability tasks are the per-language-pair task kinds of those
    protocols (mtsig.studies.metrics_protocol.beyond.task_kind)."""
    from mtsig.stats.meta_evaluation.soft_pairwise_accuracy import ARITHMETICS
    from mtsig.studies.metrics_protocol import EARLY_STOPPING, PROTOCOLS
    from mtsig.studies.metrics_protocol.beyond import task_kind

    spec = SCHEMA["properties"]["metrics_protocol"]["additionalProperties"]["properties"]
    assert spec["protocols"]["propertyNames"]["enum"] == list(PROTOCOLS)
    assert spec["early_stopping"]["enum"] == list(EARLY_STOPPING)
    assert spec["spa_arithmetic"]["enum"] == list(ARITHMETICS)
    per_lp = [t for make in PROTOCOLS.values() for t in make().tasks if len(t.lps) == 1]
    kinds = {task_kind(t) for t in per_lp}
    assert set(spec["replicability_tasks"]["items"]["enum"]) == kinds


def test_protocol_statistics_are_the_statistic_registry() -> None:
    """A task's statistic is one entry of mtsig.studies.metrics_protocol.STATISTICS and nothing else: a Task takes
    each name of the registry and refuses any other; the statistics and options that docs/cli.md lists for
    ``--extra-task`` are the registry's (all but the pooled ones) and SPEC_OPTIONS, and the command makes a task of
    each; the statistics the schema's replicability tasks name (``<level> <name>[ (options)]``) are the names the
    registry's entries give the protocols' tasks."""
    import pytest

    from mtsig.errors import InputError
    from mtsig.studies import metrics_protocol as mp

    extra = [name for name, entry in mp.STATISTICS.items() if not entry.pooled]
    assert extra and len(extra) < len(mp.STATISTICS)
    cli = " ".join((REPO / "docs" / "cli.md").read_text(encoding="utf-8").split())
    statistics, options = re.search(
        r"as a column per language pair, not averaged: (.+?), with the options (.+?) \(docs/statistics.md",
        cli,
    ).groups()
    assert re.findall(r"`(\w+)`", statistics) == extra
    assert sorted(o for o in re.findall(r"`(\w+)`", options) if o in mp.SPEC_OPTIONS) == sorted(
        mp.SPEC_OPTIONS
    )
    protocol = mp.wmt23(["en-de"])
    required = {"kendall": {"variant": "b"}}  # Kendall's variant has no default
    for name in extra:
        given = ",".join(f"{key}={value}" for key, value in required.get(name, {}).items())
        assert {task.statistic for task in mp.tasks_from_spec(f"{name}:{given}", protocol)} == {name}
    for name, entry in mp.STATISTICS.items():
        level = entry.spec_defaults.get("level", "sys" if entry.pooled else "seg")
        lps = ("en-de", "zh-en") if entry.pooled else ("en-de",)
        options = {key: value for key, value in entry.spec_defaults.items() if key != "level"}
        task = mp.Task(name, lps, str(level), False, **options, **required.get(name, {}))
        assert task.statistic_spec is entry and entry.name(task) in task.label
    with pytest.raises(InputError, match="unknown task statistic 'bleu'"):
        mp.Task("bleu", ("en-de",), "seg", False)
    spec = SCHEMA["properties"]["metrics_protocol"]["additionalProperties"]["properties"]
    named = {kind.split(" (")[0].split(" ", 1)[1] for kind in spec["replicability_tasks"]["items"]["enum"]}
    given = {t.statistic_spec.name(t) for make in mp.PROTOCOLS.values() for t in make().tasks}
    assert named and named <= given


def test_schema_human_formats_are_the_readers() -> None:
    """Every ``human.format`` the schema admits has a reader (mtsig.io.judgments.JUDGMENT_READERS), and only those."""
    from mtsig.io.judgments import JUDGMENT_READERS

    human = SCHEMA["$defs"]["experiment"]["properties"]["human"]["properties"]
    assert sorted(human["format"]["enum"]) == sorted(JUDGMENT_READERS)


def test_schema_score_file_formats_are_the_readers() -> None:
    """Every layout a declared metric's scores file may take has a reader (mtsig.io.segment_scores.FORMATS), and
    only those."""
    from mtsig.io.segment_scores import FORMATS

    declared = SCHEMA["$defs"]["segment_scores_metric"]["properties"]
    assert sorted(declared["format"]["enum"]) == sorted(FORMATS)


def test_schema_ranking_procedures_are_the_registry() -> None:
    """The procedures a human_ranking experiment may name, and those whose resamples it may set, are
    mtsig.stats.system_ranking's (the randomised ones: a procedure with a default number of resamples)."""
    from mtsig.stats.system_ranking import PROCEDURES

    assert SCHEMA["$defs"]["ranking_procedure"]["enum"] == list(PROCEDURES)
    spec = SCHEMA["properties"]["human_ranking"]["additionalProperties"]["properties"]
    assert spec["procedures"]["default"] == list(PROCEDURES)
    randomised = [name for name, procedure in PROCEDURES.items() if procedure.resamples]
    assert spec["resamples"]["propertyNames"]["enum"] == randomised


def test_rank_set_registry_entries_are_frozen_and_cite_the_construction_their_function_implements() -> None:
    """Every kind of rank set (mtsig.stats.rank_sets.RANK_SETS) is a frozen spec whose function's docstring cites
    the paper's construction the spec names (``paper: construction``), takes tau exactly when the spec says so, and
    the csranks call it equals is one the oracle ran (tests/oracles/csranks/runs.tsv)."""
    import dataclasses
    import inspect

    from mtsig.stats.rank_sets import RANK_SETS, RankSetSpec

    runs = (REPO / "tests" / "oracles" / "csranks" / "runs.tsv").read_text(encoding="utf-8")
    for name, spec in RANK_SETS.items():
        assert isinstance(spec, RankSetSpec) and RankSetSpec.__dataclass_params__.frozen
        paper, construction = spec.reference.split(": ", 1)
        assert paper == "Mogstad, Romano, Shaikh & Wilhelm (2023)", name
        assert construction.split(",")[0] in " ".join(spec.compute.__doc__.split()), name
        assert spec.csranks.split("(")[0] in spec.compute.__doc__, name
        parameters = inspect.signature(spec.compute).parameters
        assert ("tau" in parameters) == spec.needs_tau and ("targets" in parameters) != spec.needs_tau, name
        assert f"\t{name}\t" in runs, name
    assert [f.name for f in dataclasses.fields(RankSetSpec)][:3] == ["compute", "simultaneous", "needs_tau"]


def test_design_notes_name_every_module_in_where_in_the_code(repo_root):
    """docs/design.md's "Where in the code" table is the one place that names modules: every module of the package
    appears in it, by its path (``src/mtsig/studies/power.py``, or ``steps/data.py`` below ``src/mtsig/``) or in a
    row that names its folder and its file (``src/mtsig/cli/`` with ``compare.py``), and every path it names
    exists."""
    import re

    text = (repo_root / "docs" / "design.md").read_text()
    section = text.split("## Where in the code", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    package = repo_root / "src" / "mtsig"
    modules = sorted(
        p.relative_to(repo_root).as_posix() for p in package.rglob("*.py") if p.name != "__init__.py"
    )

    def named(module: str) -> bool:
        folder, name = module.rsplit("/", 1)
        inside = module.removeprefix("src/mtsig/")
        return any(
            module in row or f"`{inside}`" in row or (f"`{folder}/`" in row and f"`{name}`" in row)
            for row in rows
        )

    assert [m for m in modules if not named(m)] == []
    paths = set(re.findall(r"`(src/mtsig/[\w/]+(?:\.py|/))`", section))
    assert paths and [p for p in sorted(paths) if not (repo_root / p).exists()] == []


#: The layers of the package, bottom first: a module may import from its own layer and the ones below only.
LAYERS = [
    {"errors", "procedure_names", "settings", "runtime"},
    {"io"},
    {"metrics"},
    {"stats"},
    {"studies"},
    {"report"},
    {"steps", "pipeline"},
    {"cli"},
]


def _layer(module: str) -> int:
    """The layer of ``mtsig.<part>...`` (``mtsig`` itself, the version, sits at the bottom)."""
    parts = module.split(".")
    if len(parts) == 1:
        return 0
    (index,) = [i for i, names in enumerate(LAYERS) if parts[1] in names]
    return index


def upward_imports(root: Path) -> list[str]:
    """Every ``import`` of the package under ``root`` (at module level or inside a function) that points to a
    higher layer than its module's, as ``module -> imported``."""
    import ast

    found = []
    for path in sorted(root.rglob("*.py")):
        module = ".".join(("mtsig", *path.relative_to(root).with_suffix("").parts)).removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets = [node.module]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                continue
            for target in targets:
                if target.split(".")[0] == "mtsig" and _layer(target) > _layer(module):
                    found.append(f"{module} -> {target}")
    return found


def test_layers_only_point_down(repo_root: Path, tmp_path: Path) -> None:
    """cli -> steps -> report -> studies -> stats -> metrics -> io -> errors (docs/design.md, "Principles"): no module
    imports from a layer above its own; and the check finds a planted upward import, inside a function too."""
    assert upward_imports(repo_root / "src" / "mtsig") == []
    planted = tmp_path / "stats"
    planted.mkdir()
    (planted / "clusters.py").write_text("def f():\n    from mtsig.report.tables import latex_escape\n")
    assert upward_imports(tmp_path) == ["mtsig.stats.clusters -> mtsig.report.tables"]
