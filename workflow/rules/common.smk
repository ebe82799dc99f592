# Configuration, validation and the input functions shared by every rule.
import sys
from pathlib import Path

from snakemake.utils import min_version

min_version("9.0")

sys.path.insert(
    0, str(Path(workflow.basedir) / "src")
)  # a checkout works without `pip install -e .`

from mtsig import config as mtsig_config  # noqa: E402

BASE_DIR = Path(workflow.basedir)
RESULTS = Path("results")

mtsig_config.merge_experiment_files(config, BASE_DIR)
# A schema error names the config file (or the --config option) that set the key; --config values nested in a
# mapping arrive as strings and are read as YAML where the schema wants a number, boolean or list.
mtsig_config.validate_config(
    config,
    BASE_DIR / "workflow" / "schemas" / "config.schema.yaml",
    mtsig_config.config_sources(
        workflow.configfiles,
        workflow.config_settings.configfiles,
        workflow.config_settings.config,
        workflow.config_settings.config_args or [],
        [BASE_DIR / f for f in config.get("experiment_files", [])],
    ),
)


DATA_ROOT = mtsig_config.resolve_data_root(config, BASE_DIR)
RUN = mtsig_config.check_run(config)
OUTPUT_EXPERIMENTS = RUN["outputs"] + RUN["synthetic"]
ALPHAS = config["evaluation"]["alphas"]
SHARDS = config["resampling"]["pair_shards"]


wildcard_constraints:
    **mtsig_config.wildcard_constraints(config),


def experiment_spec(name):
    return mtsig_config.experiment(config, name, RESULTS)


def metrics_of(name):
    return experiment_spec(name)["metrics"]


def raw_inputs(wildcards):
    """The experiment's data files (or, for a synthetic experiment, the generated ones)."""
    spec = experiment_spec(wildcards.experiment)
    if wildcards.experiment in RUN["synthetic"]:
        return [RESULTS / wildcards.experiment / "synthetic" / "done.flag"]
    paths = [mtsig_config.data_path(DATA_ROOT, spec["reference"])]
    paths += list(mtsig_config.output_paths(spec, DATA_ROOT).values())
    if "documents" in spec:
        paths.append(mtsig_config.data_path(DATA_ROOT, spec["documents"]["path"]))
    return [str(p) for p in paths]


def human_inputs(wildcards):
    spec = experiment_spec(wildcards.experiment)
    if wildcards.experiment in RUN["synthetic"]:
        return [RESULTS / wildcards.experiment / "synthetic" / "done.flag"]
    human = spec["human"]
    keys = [k for k in ("path", "sid2line", "header") if k in human]
    files = [human[k] for k in keys]
    moments = spec["standardise"].get("moments")
    files += [moments] if moments else []
    return [str(mtsig_config.data_path(DATA_ROOT, f)) for f in files]


def tests_of_experiment(name):
    """Configured tests; the document tests need segment-to-document ids."""
    tests = config["resampling"]["tests"]
    if "documents" not in experiment_spec(name):
        tests = [t for t in tests if not t.endswith("_documents")]
    return tests


def output_experiment_targets(name):
    exp = RESULTS / name
    targets = [
        exp / "scores.tsv",
        exp / "gold.tsv",
        exp / "accuracy.tsv",
        exp / "test_agreement.tsv",
    ]
    targets += [exp / "tests" / f"{m}.tsv" for m in metrics_of(name)]
    targets += [
        RESULTS / "tables" / f"{name}.md",
        RESULTS / "figures" / name / "done.flag",
    ]
    return targets


def all_targets():
    targets = []
    for name in OUTPUT_EXPERIMENTS:
        targets += output_experiment_targets(name)
    for name in segment_level_names():
        targets.append(RESULTS / name / "segment_level.tsv")
    for name in calibration_names():
        targets += [
            RESULTS / "calibration" / f"{name}.tsv",
            RESULTS / name / "section2.tsv",
        ]
    for name in RUN["nbest"]:
        targets += [RESULTS / name / "systems.tsv", RESULTS / name / "ablation.tsv"]
    targets.append(RESULTS / "tables" / "README.md")
    return [str(t) for t in targets]


def segment_level_names():
    """Ranking data sets with a segment-level table: configured WMT experiments that run, and JCML sets."""
    wmt = [n for n in config["segment_level"]["experiments"] if n in OUTPUT_EXPERIMENTS]
    return wmt + RUN["jcml"]


def calibration_names():
    return [n for n in config["calibration"]["experiments"] if n in OUTPUT_EXPERIMENTS]


def manifest(path):
    """The manifest written beside an intermediate file (its size, sha256, format and settings), which the
    reading step checks (mtsig.steps.files.verify_intermediate). Declared as an output so that Snakemake removes it
    with the file on failure, and reruns the job when it is missing."""
    return f"{path}.manifest.json"


def shard_manifests(wildcards):
    """The manifests of one metric's shards: merge_tests reads them with the shards (and so keeps them, like the
    shards, until the merge is done)."""
    shards = RESULTS / wildcards.experiment / "tests" / "shards"
    return [
        manifest(shards / f"{wildcards.metric}.{shard}.{ext}")
        for shard in range(SHARDS)
        for ext in ("tsv", "npz")
    ]


def selection_metric(wildcards):
    """Distribution pairs are chosen by BLEU (the paper's Fig. 5), or by the first metric when BLEU is not run."""
    metrics = metrics_of(wildcards.experiment)
    chosen = "bleu" if "bleu" in metrics else metrics[0]
    return RESULTS / wildcards.experiment / "stats" / f"{chosen}.npz"


def experiment_tests(wildcards):
    return expand(
        RESULTS / "{experiment}" / "tests" / "{metric}.tsv",
        experiment=wildcards.experiment,
        metric=metrics_of(wildcards.experiment),
    )


def tables_index_entries():
    """(table, the rule that writes it) for every table of the run, in the index's order."""
    tables = RESULTS / "tables"
    entries = [(tables / f"{name}.md", "tables") for name in OUTPUT_EXPERIMENTS]
    entries += [
        (tables / f"{name}.segment_level.md", "segment_level")
        for name in segment_level_names()
    ]
    entries += [(tables / f"{name}.md", "nbest") for name in RUN["nbest"]]
    entries += [
        (tables / f"{name}.section2.md", "section2") for name in calibration_names()
    ]
    return [(str(table), rule) for table, rule in entries]


def tables_index_inputs(wildcards):
    return [table for table, _ in tables_index_entries()]


def predicted_ranking_names(name):
    return list(config["segment_level"]["predicted_rankings"].get(name, {}))


def segment_level_inputs(wildcards):
    """The ranking data, the metric inputs (WMT) and any user-supplied predicted rankings."""
    name = wildcards.experiment
    files = config["segment_level"]["predicted_rankings"].get(name, {}).values()
    predicted = {
        "predicted": [str(mtsig_config.data_path(DATA_ROOT, p)) for p in files]
    }
    if name in RUN["jcml"]:
        jcml = config["segment_level"]["jcml"][name]
        return {"jcml": str(mtsig_config.data_path(DATA_ROOT, jcml)), **predicted}
    return {
        **predicted,
        "rankings": human_inputs(wildcards),
        "texts": str(RESULTS / name / "texts"),
        "stats": [str(RESULTS / name / "stats" / f"{m}.npz") for m in metrics_of(name)],
    }
