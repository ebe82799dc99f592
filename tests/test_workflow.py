"""The workflow itself: lint and format checks, config validation, and the README/CI contract."""

from __future__ import annotations

import ast
import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml
from snakemake.cli import parse_config
from snakemake.utils import update_config, validate
from snakemake_runner import run_snakemake

from mtsig.errors import InputError
from mtsig.pipeline import config as mtsig_config

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"


def _run(args: list[str], data_root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MTSIG_DATA": str(data_root)}
    return subprocess.run(args, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)


def _snakemake(args: list[str], data_root: Path) -> subprocess.CompletedProcess[str]:
    """``python -m snakemake ARGS`` as :func:`_run` runs it, through Snakemake's entry point in this process (a lint
    or a dry run; tests/snakemake_runner.py)."""
    return run_snakemake(args, REPO, {**os.environ, "MTSIG_DATA": str(data_root)})


def test_snakemake_lint_is_clean(data_root: Path, tmp_path: Path) -> None:
    # Snakemake's own folder (.snakemake) in a temporary directory: tests running in parallel (pytest -n) check
    # that the READMEs' commands write nothing into the repository.
    result = _snakemake(["--lint", "--directory", str(tmp_path)], data_root)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Congratulations, your workflow is in a good condition!" in result.stdout + result.stderr


def test_a_config_of_one_experiment_plans_only_its_own_studies(data_root: Path, tmp_path: Path) -> None:
    """A reader who swaps in config/wmt12-es-en.yaml studies WMT12 es-en: the human-ranking calibration, which
    config/config.yaml sets for its ESA experiment (not in that run), is not planned, nor its data downloaded. (It
    was, before the study followed its experiment: the slow download test's run fetched wmt24-esa.)"""
    result = _snakemake(
        ["-n", "--quiet", "rules", "--directory", str(tmp_path), "--configfile", "config/wmt12-es-en.yaml"],
        data_root,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    planned = {line.split()[0] for line in result.stdout.splitlines() if line.strip()}
    assert {"metric_stats", "merge_tests", "evaluate"} <= planned  # the dry run planned the experiment
    assert not {"human_ranking_calibration", "human_ranking", "download_dataset"} & planned


def test_snakefmt_formatted(data_root: Path) -> None:
    result = _run(["snakefmt", "--check", "Snakefile", "workflow/rules"], data_root)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_clean(data_root: Path) -> None:
    paths = ["src", "tests", "benchmarks", "workflow/scripts"]
    lint = _run(["ruff", "check", "--no-cache", *paths], data_root)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    fmt = _run(["ruff", "format", "--check", "--no-cache", *paths], data_root)
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr


def _merged_config(*files: Path) -> dict:
    config: dict = {}
    for path in files:
        loaded = yaml.safe_load(path.read_text())
        for key, value in loaded.items():
            if isinstance(value, dict) and isinstance(config.get(key), dict):
                config[key] = {**config[key], **value}
            else:
                config[key] = value
    mtsig_config.merge_experiment_files(config, REPO)
    return config


@pytest.mark.parametrize(
    "extra",
    [
        None,
        "config/wmt12-es-en.yaml",
        "config/wmt22-ja-en.yaml",
        "config/wmt22-ru-en.yaml",
        "config/wmt23-en-de.yaml",
        "config/wmt23.yaml",
        "config/wmt24-en-cs.yaml",
        "config/wmt24-esa.yaml",
        "config/wmt24-esa-calibration.yaml",
        "tests/configs/tiny.yaml",
    ],
)
def test_configs_validate_against_schema(extra: str | None) -> None:
    files = [REPO / "config" / "config.yaml"] + ([REPO / extra] if extra else [])
    config = _merged_config(*files)
    validate(config, str(SCHEMA))
    grouped = mtsig_config.check_run(config)
    assert sum(len(v) for v in grouped.values()) == len(config["run"])


def _documented_defaults() -> dict[str, object]:
    """key path -> the default config/README.md's table of top-level keys gives (a single literal)."""
    text = (REPO / "config" / "README.md").read_text(encoding="utf-8")
    table = text.split("## Top-level keys", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([a-z_.]+)` \| `([^`]+)` \|", table, flags=re.M)
    return {key: yaml.safe_load(value) for key, value in rows}


def _pop(config: dict, key: str) -> None:
    *parents, last = key.split(".")
    for part in parents:
        config = config[part]
    config.pop(last, None)


def _get(config: dict, key: str) -> object:
    for part in key.split("."):
        config = config[part]
    return config


#: Keys whose documented default is the default run's choice in config/config.yaml, not the schema's (which
#: runs nothing extra when a config of one's own leaves the key out).
RUN_CHOICES = {"segment_level.experiments"}


def test_documented_defaults_are_what_a_config_without_the_key_gets() -> None:
    """Every default in config/README.md is the value the pipeline uses: the default run's, and, with the key
    left out of the config, the schema's (so a config of one's own gets what the README promises)."""
    documented = _documented_defaults()
    assert len(documented) >= 12  # the table is parsed, not skipped
    run = _merged_config(REPO / "config" / "config.yaml")
    validate(run, str(SCHEMA))
    for key, value in documented.items():
        assert _get(run, key) == value, (
            f"config/config.yaml sets {key} = {_get(run, key)!r}, README says {value!r}"
        )
    # The schema's defaults are constants, one per key: every key left out at once, one validation, gives each
    # key the value it gets when left out alone.
    config = _merged_config(REPO / "config" / "config.yaml")
    for key in documented.keys() - RUN_CHOICES:
        _pop(config, key)
    validate(config, str(SCHEMA))
    for key, value in documented.items():
        if key in RUN_CHOICES:
            continue
        assert _get(config, key) == value, (
            f"without {key} the schema gives {_get(config, key)!r}, README {value!r}"
        )


def test_schema_rejects_unknown_keys_and_bad_values() -> None:
    config = _merged_config(REPO / "config" / "config.yaml")
    bad = {**config, "resampling": {**config["resampling"], "pvalue": "c/(B-1)"}}
    with pytest.raises(Exception, match="pvalue|c/\\(B-1\\)"):
        validate(bad, str(SCHEMA))
    with pytest.raises(Exception, match="metricz"):
        validate({**config, "metricz": ["bleu"]}, str(SCHEMA))


def test_zero_variance_convention_default_and_values() -> None:
    config = _merged_config(REPO / "config" / "config.yaml")
    validate(config, str(SCHEMA))
    experiments = config["experiments"]
    # WMT22 ja-en follows its MTurk DA organisers (keep an all-equal worker with z = 0); en-liv its Appraise
    # organisers (make_rankings.py drops zero-sd annotators)
    assert experiments["wmt22-ja-en"]["standardise"]["zero_variance"] == "zero"
    assert experiments["wmt22-en-liv"]["standardise"]["zero_variance"] == "drop"
    liv = {**experiments["wmt22-en-liv"], "standardise": {}}
    validate({**config, "experiments": {**experiments, "wmt22-en-liv": liv}}, str(SCHEMA))
    assert liv["standardise"]["zero_variance"] == "drop"  # the schema's default
    bad = {**experiments["wmt22-en-liv"], "standardise": {"zero_variance": "keep"}}
    with pytest.raises(Exception, match="keep"):
        validate({**config, "experiments": {**experiments, "wmt22-en-liv": bad}}, str(SCHEMA))


def test_segment_level_convention_default_and_command_line_override() -> None:
    config = _merged_config(REPO / "config" / "config.yaml")
    del config["segment_level"]["convention"]
    validate(config, str(SCHEMA))
    assert config["segment_level"]["convention"] == "both"  # the schema's default
    with pytest.raises(Exception, match="tool"):
        validate({**config, "segment_level": {**config["segment_level"], "convention": "tool"}}, str(SCHEMA))
    # `--config segment_level='{convention: rankeval_tool}'` (config/README.md): Snakemake reads the value with YAML's
    # BaseLoader (every scalar a string) and merges it into the config file's mapping, keeping the JCML sets
    override = parse_config(["segment_level={convention: rankeval_tool}"])
    assert override == {"segment_level": {"convention": "rankeval_tool"}}
    update_config(config, override)
    validate(config, str(SCHEMA))
    assert config["segment_level"]["convention"] == "rankeval_tool"
    assert set(config["segment_level"]["jcml"]) == {"jcml-wmt08-de-en", "jcml-wmt10-de-en"}


def test_run_with_undefined_experiment_names_them() -> None:
    config = _merged_config(REPO / "config" / "config.yaml")
    config["run"] = ["wmt12-es-en", "no-such-pair"]
    with pytest.raises(InputError, match="no-such-pair"):
        mtsig_config.check_run(config)


def test_data_root_env_overrides_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """MTSIG_DATA, then an existing data_root folder, then the download root (docs/design.md, Configuration)."""
    (tmp_path / "configured").mkdir()
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.setenv("MTSIG_DATA", str(tmp_path / "elsewhere"))
    root = mtsig_config.resolve_data_root({"data_root": "configured"}, tmp_path)
    assert (root.path, root.origin, root.downloads) == (
        (tmp_path / "elsewhere").resolve(),
        "MTSIG_DATA",
        False,
    )
    monkeypatch.setenv("MTSIG_DATA", "elsewhere")  # relative: from the directory the command was started in
    root = mtsig_config.resolve_data_root({"data_root": "configured"}, REPO, start_dir=lambda: tmp_path)
    assert root.path == (tmp_path / "elsewhere").resolve()
    monkeypatch.setenv("MTSIG_DATA", str(tmp_path / "missing"))
    with pytest.raises(InputError, match=r"MTSIG_DATA=.*missing names no folder.*or unset it"):
        mtsig_config.resolve_data_root({"data_root": "configured"}, tmp_path)
    monkeypatch.delenv("MTSIG_DATA")
    root = mtsig_config.resolve_data_root({"data_root": "configured"}, tmp_path)
    assert (root.path, root.origin) == ((tmp_path / "configured").resolve(), "data_root")
    root = mtsig_config.resolve_data_root({"data_root": "../no-such-folder"}, tmp_path)
    assert (root.path, root.downloads) == ((tmp_path / "data" / "downloads").resolve(), True)
    monkeypatch.setenv("MTSIG_DATA", "data/downloads")  # naming the download root selects it, to be filled
    assert mtsig_config.resolve_data_root({"data_root": "configured"}, tmp_path, lambda: tmp_path).downloads


def test_start_directory_is_found_behind_snakemakes_directory_option(tmp_path: Path) -> None:
    """``--directory`` moves Snakemake into the work directory before the Snakefile is read; a relative MTSIG_DATA
    is still taken from where the command was typed."""
    start = tmp_path / "clone"
    work = start / "quick-check" / "run"
    work.mkdir(parents=True)
    # no --directory: the current directory
    assert mtsig_config.started_in(work, None, "/somewhere/else") == work
    # the shell's $PWD, checked against the relative --directory
    assert mtsig_config.started_in(work, "quick-check/run", str(start)) == start
    # $PWD stale (a program started snakemake elsewhere): the work directory minus the relative --directory
    assert mtsig_config.started_in(work, Path("quick-check/run"), str(tmp_path)) == start.resolve()
    assert mtsig_config.started_in(work, "./quick-check/run/", None) == start.resolve()
    # an absolute --directory: only $PWD can say, and it must exist
    assert mtsig_config.started_in(work, str(work), str(start)) == start
    with pytest.raises(InputError, match="give MTSIG_DATA as an absolute path"):
        mtsig_config.started_in(work, str(work), None)
    with pytest.raises(InputError, match="give MTSIG_DATA as an absolute path"):
        mtsig_config.started_in(work, str(work), str(tmp_path / "gone"))
    with pytest.raises(InputError, match="give MTSIG_DATA as an absolute path"):
        mtsig_config.started_in(work, "../x", None)


def test_data_globs_match_files_not_yet_downloaded_as_on_disk(tmp_path: Path) -> None:
    """A metrics-task study's patterns select the same files from the manifest's list (download root, before the
    download) as from the folder (an existing data root)."""
    paths = [
        "system-scores/baselines/BLEU.sys.score.gz",
        "system-scores/baselines/sub/chrF.sys.score.gz",
        "system-scores/submissions/COMET.sys.score.gz",
        "da/ad-sys-scores-cs-en.csv",
        "system-scores/README",
    ]
    for path in paths:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("")
    for pattern in (
        "system-scores/baselines/*.sys.score.gz",
        "system-scores/*/*.sys.score.gz",
        "system-scores/**/*.gz",
        "**/*.csv",
        "da/ad-sys-scores-??-en.csv",
        "system-scores/[bs]*/C*",
    ):
        on_disk = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.glob(pattern) if p.is_file())
        assert sorted(mtsig_config.glob_relative(paths, pattern)) == on_disk, pattern


def _quick_start_commands() -> list[str]:
    text = (REPO / "README.md").read_text()
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.*?)```", section, flags=re.S)


def test_readme_test_command_is_what_ci_runs() -> None:
    blocks = _quick_start_commands()
    assert len(blocks) == 2, "the quick start has two commands: run the pipeline, run the tests"
    test_command = blocks[1].strip().splitlines()[-1]
    ci_lines = [line.strip() for line in (REPO / ".ci" / "run").read_text().splitlines()]
    assert test_command in ci_lines, f"README's test command {test_command!r} is not what .ci/run runs"
    assert "snakemake --cores 8" in blocks[0]


def _bench_pipeline_constant(name: str) -> str:
    """A string constant of benchmarks/bench_pipeline.py, read from its source (the benchmark is a script)."""
    tree = ast.parse((REPO / "benchmarks" / "bench_pipeline.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [name]:
            return ast.literal_eval(node.value)
    raise LookupError(name)


def test_the_timing_table_times_the_quick_start_as_printed() -> None:
    """benchmarks/timings.md, which README and docs link for exact figures, is written by bench_pipeline.py for the
    quick start's two commands as README prints them."""
    blocks = _quick_start_commands()
    assert _bench_pipeline_constant("DEFAULT_RUN_COMMAND") in blocks[0]
    assert _bench_pipeline_constant("TEST_COMMAND") == blocks[1].strip().splitlines()[-1]
    table = (REPO / "benchmarks" / "timings.md").read_text(encoding="utf-8")
    for name in ("DEFAULT_RUN_COMMAND", "TEST_COMMAND"):
        assert f"| `{_bench_pipeline_constant(name)}` |" in table


def test_a_local_run_ends_within_seconds_of_its_last_job() -> None:
    """While jobs wait for a core, Snakemake checks them again after each `max-jobs-per-timespan` timespan (a
    timer), and its process exits only once the last of those timers has fired: profiles/default keeps the
    timespan to seconds, so that a run, and each test that runs the pipeline, ends soon after its last job."""
    profile = yaml.safe_load((REPO / "profiles" / "default" / "config.yaml").read_text(encoding="utf-8"))
    limit = re.fullmatch(r"(\d+)/(\d+)s", profile["max-jobs-per-timespan"])
    assert limit, profile["max-jobs-per-timespan"]
    jobs, seconds = map(int, limit.groups())
    assert seconds <= 5 and jobs >= 100
