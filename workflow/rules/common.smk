# Configuration, validation and the input functions shared by every rule.
import functools
import itertools
import os
import sys
from pathlib import Path
from types import SimpleNamespace

from snakemake.io import is_callable, is_flagged
from snakemake.utils import min_version

min_version("9.0")

sys.path.insert(
    0, str(Path(workflow.basedir) / "src")
)  # a checkout works without `pip install -e .`

from mtsig.pipeline import config as mtsig_config  # noqa: E402
from mtsig.pipeline import data as mtsig_data  # noqa: E402
from mtsig import settings as mtsig_settings  # noqa: E402
from mtsig import steps as mtsig_steps  # noqa: E402
from mtsig.steps import files as mtsig_files  # noqa: E402
from mtsig.errors import InputError  # noqa: E402
from mtsig.settings import as_block  # noqa: E402

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


def stop(message):
    """End the run with one line (no traceback, exit status 2), before any job starts: at parse time or from an
    input function while Snakemake builds the DAG."""
    print(f"mtsig: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def start_directory():
    """The directory snakemake was started in (a relative MTSIG_DATA is taken from there)."""
    return mtsig_config.started_in(
        Path.cwd(), workflow.overwrite_workdir, os.environ.get("PWD")
    )


try:
    DATA = mtsig_config.resolve_data_root(config, BASE_DIR, start_directory)
except InputError as error:
    stop(error)
DATA_ROOT = DATA.path
if os.environ.get(mtsig_config.DATA_ROOT_ENV):
    # Every job, and a cluster job's own Snakemake started in another directory, reads the same folder.
    os.environ[mtsig_config.DATA_ROOT_ENV] = str(DATA_ROOT)
MANIFEST = BASE_DIR / "data" / "sources.tsv"
#: With the download root: dataset -> the files of data/sources.tsv its download rule makes (data.smk).
DOWNLOADABLE = (
    mtsig_data.obtainable_files(mtsig_data.read_manifest(MANIFEST))
    if DATA.downloads
    else {}
)
DOWNLOADABLE_FILES = {(d, p) for d, paths in DOWNLOADABLE.items() for p in paths}
RUN = mtsig_config.check_run(config)
OUTPUT_EXPERIMENTS = RUN["outputs"] + RUN["synthetic"]
#: The top-level blocks as their settings (mtsig.settings): the rules' params come from them.
SETTINGS = mtsig_config.run_settings(config)
ALPHAS = as_block(SETTINGS.evaluation.alphas)
SHARDS = SETTINGS.resampling.pair_shards
# The resampling settings a rule's outputs depend on (params); the engine's own, which change no number, stay out.
RESAMPLING = mtsig_config.output_settings(config["resampling"])
# Jobs running the resampling engine: its memory cap (a resource, so changing it reruns nothing) plus headroom for
# the statistics and the interpreter.
MEMORY_CAP_MB = SETTINGS.resampling.memory_cap_mb
ENGINE_MEM_MB = MEMORY_CAP_MB + 1024


wildcard_constraints:
    **mtsig_config.wildcard_constraints(config),


def folder_outputs(rule):
    """The outputs of ``rule`` that are folders of one file per metric (mtsig.steps.files.FOLDER_OUTPUTS), each
    named after its folder: ``{name: directory(results/{experiment}/name)}``."""
    return {
        name: directory(RESULTS / "{experiment}" / name)
        for name in mtsig_files.FOLDER_OUTPUTS[rule]
    }


def pdf_output(path):
    """``{"pdf": path}`` when the run writes PDFs too (``figures.pdf``), else nothing: a rule's optional output."""
    return {"pdf": path} if SETTINGS.figures.pdf else {}


@functools.cache
def experiment_spec(name):
    """A system-output experiment as its settings (mtsig.settings.Experiment)."""
    return mtsig_config.experiment(config, name, RESULTS)


def metrics_of(name):
    return list(experiment_spec(name).metric_names)


#: Experiments scored with the run's own text metrics (not only declared segment scores).
TEXT_EXPERIMENTS = [
    name
    for name in OUTPUT_EXPERIMENTS
    if set(metrics_of(name)) - set(experiment_spec(name).declarations)
]

#: Experiments whose metrics are meta-evaluated against their humans (by meta_evaluation), the real ones with at
#: least two metrics.
META_EVALUATION_EXPERIMENTS = [
    name for name in RUN["outputs"] if len(metrics_of(name)) >= 2
]
META_EVALUATION = RESULTS / "{experiment}" / "meta_evaluation"


def outputs_of(pattern, **wildcards):
    """A rule's output pattern (``rules.X.output.name``) with some wildcards filled in and the others kept."""
    return expand(pattern, **wildcards, allow_missing=True)


def experiment_output(pattern, wildcards):
    """A rule's output (``rules.X.output.name``) of the job's experiment: an input of a rule with fewer wildcards
    (or other ones) than the rule that writes it."""
    return outputs_of(pattern, experiment=wildcards.experiment)[0]


#: Host of a source URL -> why it cannot be reached (None: it answers), asked once per run (data_files).
PROBED_HOSTS = {}
#: Whether data_files asks the origins of missing files: not while files_read_by_run calls the input functions at
#: parse time, when Snakemake cannot yet tell a dry run from a run (the DAG's own calls ask).
ASK_ORIGINS = True


def data_files(paths):
    """Data-root files an input function asks for, as strings; each one the data root cannot provide ends the run
    with one line naming the file, its dataset and the two ways to provide it (data/README.md).

    An existing data root (MTSIG_DATA, or the configured data_root) is read as it is: a missing file is an error.
    The download root's missing files are made by the download rules (data.smk) if data/sources.tsv can make
    them, after a check, outside dry runs, that their origin answers (one request per host).
    """
    checked = []
    for path in map(Path, paths):
        checked.append(str(path))
        # not in a dataset of the data root: an absolute experiment path, or a synthetic experiment's data
        if not path.is_relative_to(DATA_ROOT) or path == DATA_ROOT:
            continue
        relative = path.relative_to(DATA_ROOT)
        dataset, inside = relative.parts[0], relative.relative_to(relative.parts[0])
        if not DATA.downloads:
            if not path.exists():
                unset_to_download = (
                    DATA.origin == mtsig_config.DATA_ROOT_ENV
                    and not (BASE_DIR / config["data_root"]).is_dir()
                )
                stop(
                    mtsig_config.missing_data_message(
                        DATA,
                        relative,
                        BASE_DIR / mtsig_config.DOWNLOAD_ROOT,
                        unset_to_download,
                    )
                )
        elif (dataset, inside.as_posix()) not in DOWNLOADABLE_FILES:
            if not path.exists():
                stop(
                    mtsig_config.undownloadable_message(
                        DATA, relative, manifest_source(dataset, inside)
                    )
                )
        elif not path.exists() and ASK_ORIGINS and not workflow.dryrun:
            url = mtsig_data.mirrored(
                dataset_url(dataset), os.environ.get(mtsig_data.MIRROR_ENV)
            )
            host = url.split("/", 3)[2]
            if host not in PROBED_HOSTS:
                PROBED_HOSTS[host] = mtsig_data.probe(url)
            if PROBED_HOSTS[host] is not None:
                stop(
                    mtsig_config.unreachable_message(
                        DATA, dataset, url, PROBED_HOSTS[host]
                    )
                )
    return checked


@functools.cache
def manifest_rows():
    """data/sources.tsv's sources by (dataset, path)."""
    return mtsig_data.read_manifest(MANIFEST).set_index(["dataset", "path"])["source"]


def manifest_source(dataset, inside):
    """The source column of a file in data/sources.tsv, or None when it is not listed."""
    return manifest_rows().get((dataset, inside.as_posix()))


@functools.cache
def dataset_url(dataset):
    """A URL the dataset's files are downloaded from (the first of data/sources.tsv): its origin answers or not."""
    for source in manifest_rows().loc[dataset]:
        remote = mtsig_data.remote_derivation(source)
        if remote or source.startswith(("https://", "http://")):
            return remote[2] if remote else source


def files_read_by_run():
    """(dataset, path) of every data-root file a job of the run reads: each input function of the job's rule
    called with the job's wildcards (run_jobs), as Snakemake calls it to build the DAG. Every data-root file
    reaches a rule through data_files, so these are the files the download rules make (download.smk).
    """
    global ASK_ORIGINS
    read, ASK_ORIGINS = set(), False
    try:
        for rule, wildcards in run_jobs():
            values = [v if isinstance(v, list) else [v] for v in wildcards.values()]
            for combination in itertools.product(*values):
                job = dict(zip(wildcards, combination))
                for item in filter(is_callable, rule.rule.input):
                    files, _ = rule.rule.apply_input_function(item, job)
                    read.update(data_root_parts(files))
    finally:
        ASK_ORIGINS = True
    return read


def data_root_parts(files):
    """(dataset, path inside it) of every file under the data root among ``files`` (a path, or lists and
    mappings of them, as an input function returns)."""
    if isinstance(files, dict):
        files = list(files.values())
    if not isinstance(files, (list, tuple)):
        files = [files]
    for file in files:
        if isinstance(file, (list, tuple, dict)):
            yield from data_root_parts(file)
        elif Path(file).is_relative_to(DATA_ROOT) and Path(file) != DATA_ROOT:
            relative = Path(file).relative_to(DATA_ROOT)
            yield relative.parts[0], relative.relative_to(relative.parts[0]).as_posix()


def data_glob(root, pattern):
    """Files under ``root`` (a folder of the data root) that ``pattern`` matches: on disk, or, with the download
    root, among the files the download rules make (they may not be there yet)."""
    if not DATA.downloads:
        return [str(p) for p in root.glob(pattern)]
    relative = root.relative_to(DATA_ROOT)
    dataset, inside = relative.parts[0], relative.relative_to(relative.parts[0])
    prefix = "" if inside == Path(".") else inside.as_posix() + "/"
    paths = [
        p.removeprefix(prefix)
        for p in DOWNLOADABLE.get(dataset, ())
        if p.startswith(prefix)
    ]
    return [str(root / p) for p in mtsig_config.glob_relative(paths, pattern)]


def generated_data(wildcards):
    """The data directory that rule generate_synthetic writes for a synthetic experiment."""
    return outputs_of(
        rules.generate_synthetic.output.synthetic, experiment=wildcards.experiment
    )


def raw_inputs(wildcards):
    """The experiment's data files (or, for a synthetic experiment, the generated ones)."""
    if wildcards.experiment in RUN["synthetic"]:
        return generated_data(wildcards)
    sources = experiment_spec(wildcards.experiment).text_sources()
    if sources.texts is not None:  # the texts of an MQM file
        paths = [mtsig_config.data_path(DATA_ROOT, sources.texts.path)]
    elif not sources.has_texts:  # test set and documents from the scores files
        files = mtsig_config.segment_score_files(sources.segment_scores, DATA_ROOT)
        paths = list(files.values())
    else:
        paths = mtsig_config.reference_paths(sources, DATA_ROOT)
        paths += list(mtsig_config.output_paths(sources, DATA_ROOT).values())
    if sources.documents is not None:
        paths.append(mtsig_config.data_path(DATA_ROOT, sources.documents.path))
    return data_files(paths)


def text_sources(wildcards):
    """prepare_texts' params: what it reads of the experiment (mtsig.settings.TextSources), as a plain block."""
    return as_block(experiment_spec(wildcards.experiment).text_sources())


def training_run_inputs(wildcards):
    """The reference(s) and every run file of the experiment's `training_runs`."""
    spec = experiment_spec(wildcards.experiment)
    paths = mtsig_config.reference_paths(spec, DATA_ROOT)
    paths += [
        mtsig_config.data_path(DATA_ROOT, p)
        for runs in (spec.training_runs or {}).values()
        for p in runs
    ]
    return data_files(paths)


def human_inputs(wildcards):
    """The experiment's human judgment files (or, for a synthetic experiment, the generated ones)."""
    if wildcards.experiment in RUN["synthetic"]:
        return generated_data(wildcards)
    spec = experiment_spec(wildcards.experiment)
    human = spec.human
    files = (
        [human.path] if isinstance(human.path, str) else list(human.path)
    )  # esa, mturk_batch: a list
    named = (human.sid2line, human.header, human.z_path, human.documents)
    files += [f for f in named if f is not None]
    files += [human.complete_from["path"]] if human.complete_from is not None else []
    files += [spec.standardise.moments] if spec.standardise.moments else []
    return data_files(mtsig_config.data_path(DATA_ROOT, f) for f in files)


def experiment_block(key):
    """The params of one block of an experiment (``human``, ``qc``, ``standardise``, ``gold``): its settings as a
    plain block."""
    return lambda wildcards: as_block(
        getattr(experiment_spec(wildcards.experiment), key)
    )


def metric_inputs(wildcards):
    """The files of the experiment's metrics read from segment scores (so that the statistics are remade when one
    changes)."""
    files = mtsig_config.segment_score_files(
        experiment_spec(wildcards.experiment).declarations, DATA_ROOT
    )
    return data_files(
        [
            files[metric]
            for metric in metrics_of(wildcards.experiment)
            if metric in files
        ]
    )


def metric_options(wildcards):
    """metric_stats' params: the options each built-in metric is built with, by metric."""
    spec = experiment_spec(wildcards.experiment)
    return {
        metric: spec.metric_options(metric)
        for metric in metrics_of(wildcards.experiment)
        if metric not in spec.declarations
    }


def metric_declarations(wildcards):
    """metric_stats' params: the declaration of each metric read from segment scores, by metric."""
    spec = experiment_spec(wildcards.experiment)
    return {
        metric: as_block(spec.declarations[metric])
        for metric in metrics_of(wildcards.experiment)
        if metric in spec.declarations
    }


def meteor_paraphrase_index(wildcards):
    """The paraphrase table's index, for an experiment scored with METEOR in a language whose jar settings match
    paraphrases (English)."""
    if "meteor" not in metrics_of(wildcards.experiment):
        return []
    from mtsig.metrics.meteor import meteor_settings

    language = experiment_spec(wildcards.experiment).meteor.language
    if "paraphrase" not in meteor_settings(language).modules:
        return []
    return rules.meteor_paraphrases.output.index


def tests_of_experiment(name):
    """Configured tests; the document tests need segment-to-document ids."""
    tests = as_block(SETTINGS.resampling.tests)
    if not mtsig_config.has_documents(experiment_spec(name).text_sources(), DATA_ROOT):
        tests = [t for t in tests if not t.endswith("_documents")]
    return tests


def per_metric_files(folder, kind, wildcards, metrics=None):
    """The file of ``kind`` (mtsig.steps.files.PER_METRIC_NAMES) of each of the experiment's metrics (or of
    ``metrics``), in its metric order, inside ``folder``, a folder output of one job per experiment
    (``rules.X.output.name``). A param of the rules that read them, which take the folder as their input:
    Snakemake tracks the folder, not the files in it."""
    folder = experiment_output(folder, wildcards)
    return [
        str(mtsig_files.per_metric_path(folder, kind, metric))
        for metric in metrics or metrics_of(wildcards.experiment)
    ]


def stats_of(wildcards, metrics=None):
    """Every metric's statistics of the experiment (or those of ``metrics``), in rule metric_stats' folder."""
    return per_metric_files(
        rules.metric_stats.output.stats, "stats", wildcards, metrics
    )


def experiment_tests(wildcards):
    """Every metric's tests table of the experiment, in rule merge_tests' folder."""
    return per_metric_files(rules.merge_tests.output.tests, "tests", wildcards)


def job_outputs(rule, **wildcards):
    """Every file a job of ``rule`` (``rules.X``) writes, its wildcards filled in: its named outputs, manifests,
    HTML pages and figures included, except the ``temp()`` ones, which Snakemake deletes once they are read (the
    shards of resample_tests). A target of ``all`` for each of them is what makes a run notice one that is missing
    (docs/design.md, "Every output is a target")."""
    # the proxy rules.X gives the patterns; the rule behind it (rule.rule), their flags
    flagged = rule.rule.output
    promised = [p for p, f in zip(rule.output, flagged) if not is_flagged(f, "temp")]
    return outputs_of(promised, **wildcards)


def english_meteor(name):
    """The experiment's METEOR statistics read the paraphrase index (rule meteor_paraphrases)."""
    return bool(meteor_paraphrase_index(SimpleNamespace(experiment=name)))


def output_experiment_jobs(name):
    """The jobs of a system-output experiment, each as (rule, wildcards): texts, statistics, scores, tests,
    gold, evaluation, clusters, tables and figures, and power and training runs where configured.
    """
    jobs = [(rules.generate_synthetic, {})] if name in RUN["synthetic"] else []
    jobs += [(rules.prepare_texts, {}), (rules.metric_stats, {})]
    jobs += [(rules.corpus_scores, {}), (rules.merge_tests, {})]
    jobs += [(rules.human_gold, {}), (rules.evaluate, {}), (rules.clusters, {})]
    jobs += [(rules.tables, {}), (rules.figures, {})]
    if name in SETTINGS.power.experiments:
        jobs += [(rules.power, {})]
    if experiment_spec(name).training_runs is not None:
        jobs += [(rules.training_runs, {})]
    return [(rule, {"experiment": name, **wildcards}) for rule, wildcards in jobs]


#: The studies defined by name (EXPERIMENT_KINDS of mtsig.pipeline.config) whose rules files add themselves with
#: add_named_study: the experiments of the run each one runs for, the rules of its jobs per experiment and its table
#: (the pattern and the rule that writes it). run_jobs plans their jobs and tables_index_entries lists their tables,
#: in the order the Snakefile includes their rules files.
NAMED_STUDIES = []


def add_named_study(names, job_rules, table, table_rule):
    """Add a study defined by name to the run (NAMED_STUDIES): at the end of its rules file, after its rules."""
    NAMED_STUDIES.append((list(names), list(job_rules), table, table_rule))


def run_jobs():
    """Every job of the run that writes results, as (rule, wildcards); ``all`` asks for all their outputs
    (job_outputs), so that the next run remakes any that is missing."""
    jobs = []
    for name in OUTPUT_EXPERIMENTS:
        jobs += output_experiment_jobs(name)
    if any(english_meteor(name) for name in OUTPUT_EXPERIMENTS):
        jobs += [(rules.meteor_paraphrases, {})]
    per_experiment = [
        (rules.segment_level, segment_level_names()),
        (rules.calibration, calibration_names()),
        (rules.section2, calibration_names()),
        (rules.nbest, RUN["nbest"]),
        (rules.meta_evaluation, META_EVALUATION_EXPERIMENTS),
    ]
    for rule, names in per_experiment:
        jobs += [(rule, {"experiment": name}) for name in names]
    for names, job_rules, _, _ in NAMED_STUDIES:
        jobs += [(rule, {"experiment": name}) for name in names for rule in job_rules]
    if RUN["metrics_task"]:
        jobs += [(rules.metrics_task_gold, {})]
    if OUTPUT_EXPERIMENTS or RUN["metrics_protocol"]:
        jobs += [(rules.replicability, {})]
    delta_protocols = [
        n for n in RUN["metrics_protocol"] if PROTOCOL_SETTINGS[n].delta_metrics
    ]
    if TEXT_EXPERIMENTS or RUN["metrics_task"] or delta_protocols:
        jobs += [(rules.delta_agreement, {})]
    # the study belongs to its human-ranking experiment: a config that runs other experiments never plans it
    study = SETTINGS.human_ranking_calibration
    if study.language_pairs and study.experiment in RUN["human_ranking"]:
        jobs += [(rules.human_ranking_calibration, {})]
    return jobs + [(rules.tables_index, {})]


def all_targets():
    """Every file the run writes under results/ (logs aside): all outputs of every job (run_jobs)."""
    targets = [
        str(path)
        for rule, wildcards in run_jobs()
        for path in job_outputs(rule, **wildcards)
    ]
    return list(dict.fromkeys(targets))


def segment_level_names():
    """Ranking data sets with a segment-level table: configured WMT experiments that run, and JCML sets."""
    wmt = [n for n in SETTINGS.segment_level.experiments if n in OUTPUT_EXPERIMENTS]
    return wmt + RUN["jcml"]


def power_metric(name):
    """The metric of the experiment's power table (power.metric), which the experiment must compute."""
    metric = SETTINGS.power.metric
    if metric not in metrics_of(name):
        raise ValueError(
            f"power.metric {metric} is not among the metrics of experiment {name}: {metrics_of(name)}"
        )
    return metric


def calibration_names():
    return [n for n in SETTINGS.calibration.experiments if n in OUTPUT_EXPERIMENTS]


def power_names():
    return [n for n in SETTINGS.power.experiments if n in OUTPUT_EXPERIMENTS]


def manifest(path):
    """The manifest written beside an intermediate file (its size, sha256, format and settings), which the
    reading step checks (mtsig.steps.files.verify_intermediate). Declared as an output so that Snakemake removes
    it with the file on failure, and reruns the job when it is missing."""
    return f"{path}.manifest.json"


def merge_tests_inputs(wildcards):
    """What merge_tests reads: every shard of resample_tests of every metric (metric after metric, in the
    experiment's order) with its manifest (read with the shard, and so kept, like the shard, until the merge is
    done), or, unsharded (pair_shards: 1), resample_tests' own inputs, from which merge_tests computes each
    metric's one shard itself rather than in jobs of their own."""
    experiment = wildcards.experiment
    if SHARDS == 1:
        return {
            "stats_folder": experiment_output(
                rules.metric_stats.output.stats, wildcards
            ),
            "documents": experiment_output(
                rules.prepare_texts.output.documents, wildcards
            ),
        }
    shard = rules.resample_tests.output
    metrics = metrics_of(experiment)

    def shards(pattern):
        return [
            path
            for metric in metrics
            for path in expand(
                pattern, shard=range(SHARDS), experiment=experiment, metric=metric
            )
        ]

    return {
        "shard_tests": shards(shard.shard_tests),
        "shard_distributions": shards(shard.shard_distributions),
        "shard_intervals": shards(shard.shard_intervals),
        "shard_system_intervals": shards(shard.shard_system_intervals),
        "manifests": shards(shard.shard_tests_manifest)
        + shards(shard.shard_distributions_manifest)
        + shards(shard.shard_intervals_manifest)
        + shards(shard.shard_system_intervals_manifest),
    }


def selection_metric(wildcards):
    """Distribution pairs are chosen by BLEU (the paper's Fig. 5), or by the first metric when BLEU is not run:
    its statistics file (a param, beside rule metric_stats' folder as the input)."""
    metrics = metrics_of(wildcards.experiment)
    return stats_of(wildcards, ["bleu" if "bleu" in metrics else metrics[0]])[0]


def tables_index_entries():
    """(table, the rule that writes it) for every table of the run, in the index's order."""
    entries = [(rules.tables.output.md, "tables", OUTPUT_EXPERIMENTS)]
    entries += [(rules.clusters.output.markdown, "clusters", OUTPUT_EXPERIMENTS)]
    entries += [(rules.segment_level.output.md, "segment_level", segment_level_names())]
    entries += [(rules.nbest.output.md, "nbest", RUN["nbest"])]
    entries += [(rules.section2.output.md, "section2", calibration_names())]
    entries += [
        (
            rules.meta_evaluation.output.md,
            "meta_evaluation",
            META_EVALUATION_EXPERIMENTS,
        )
    ]
    entries += [
        (table, table_rule, names) for names, _, table, table_rule in NAMED_STUDIES
    ]
    return [
        (table, rule)
        for pattern, rule, names in entries
        for table in outputs_of(pattern, experiment=names)
    ]


def tables_index_inputs(wildcards):
    return [table for table, _ in tables_index_entries()]


def predicted_ranking_names(name):
    return list(SETTINGS.segment_level.predicted_rankings.get(name, {}))


def predicted_inputs(wildcards):
    files = SETTINGS.segment_level.predicted_rankings.get(wildcards.experiment, {})
    return data_files(mtsig_config.data_path(DATA_ROOT, p) for p in files.values())


def nbest_inputs(wildcards):
    """The n-best experiment's gold and every system file it scores (the organisers' baseline, nbest.systems)."""
    spec = config["nbest"][wildcards.experiment]
    files = [spec["gold"], spec["baseline"], *spec.get("systems", {}).values()]
    return data_files(mtsig_config.data_path(DATA_ROOT, f) for f in files)


def jcml_input(wildcards):
    """A JCML set's file (none for a WMT experiment)."""
    if wildcards.experiment not in RUN["jcml"]:
        return []
    jcml = SETTINGS.segment_level.jcml[wildcards.experiment]
    return data_files([mtsig_config.data_path(DATA_ROOT, jcml)])[0]


def wmt_only(function):
    """An input function that gives nothing for a JCML set (segment_level's WMT inputs)."""
    return lambda wildcards: (
        [] if wildcards.experiment in RUN["jcml"] else function(wildcards)
    )


def human_ranking_ratings(wildcards):
    """A human-ranking experiment's rating files (its ``ratings``)."""
    spec = config["human_ranking"][wildcards.experiment]
    return data_files(mtsig_config.data_path(DATA_ROOT, p) for p in spec["ratings"])


def human_ranking_documents(wildcards):
    """The ``<lp>.docs`` file of each of a human-ranking experiment's language pairs."""
    spec = config["human_ranking"][wildcards.experiment]
    folder = mtsig_config.data_path(DATA_ROOT, spec["documents"])
    return data_files(folder / f"{lp}.docs" for lp in spec["lps"])


def human_ranking_calibration_table(wildcards):
    """The hook of the ranking procedures' error rates with known truth: the table of rule
    ``human_ranking_calibration`` (results/{experiment}/calibration.tsv) when the workflow has that rule, else
    nothing (the page then has no calibration section)."""
    if "human_ranking_calibration" not in {r.name for r in workflow.rules}:
        return []
    return outputs_of(
        rules.human_ranking_calibration.output.table, experiment=wildcards.experiment
    )


def metrics_task_files(name, key):
    """A metrics-task study's per-pair files of one kind (``human_system_scores``, ``da_system_scores``,
    ``human_segment_scores``: patterns with ``{lp}``, relative to the study's root), for each of its pairs.
    """
    spec = config["metrics_task"][name]
    root = mtsig_config.data_path(DATA_ROOT, spec["root"])
    return data_files(root / spec[key].format(lp=lp) for lp in spec["pairs"])


def metrics_task_metric_files(wildcards):
    """The study's metric-score files: every file matching one of its patterns, the variants' included."""
    name = wildcards.experiment
    spec = config["metrics_task"][name]
    root = mtsig_config.data_path(DATA_ROOT, spec["root"])
    patterns = list(spec["metric_scores"])
    for variant in spec["variants"].values():
        patterns += variant.get("metric_scores", [])
    files = sorted({p for pattern in patterns for p in data_glob(root, pattern)})
    if not files:
        stop(f"metrics_task {name}: no file matches {patterns} under {root}")
    return data_files(files)


def metrics_task_gold_inputs():
    """The DA files of every pair of every study run: segment means, and both system files (for the names)."""
    keys = ("human_segment_scores", "da_system_scores", "human_system_scores")
    return [
        f
        for name in RUN["metrics_task"]
        for key in keys
        for f in metrics_task_files(name, key)
    ]


def metrics_task_gold_outputs(filename):
    """``results/<study>/<lp>/<filename>`` for every pair of every study run."""
    return [
        str(RESULTS / name / lp / filename)
        for name in RUN["metrics_task"]
        for lp in config["metrics_task"][name]["pairs"]
    ]


#: Each metrics-task protocol experiment's settings (mtsig.settings.MetricsProtocol), built once: the one shape of its
#: block, which its input function, its rule's params and the studies reading its outputs take from here.
try:
    PROTOCOL_SETTINGS = {
        name: mtsig_settings.build(
            mtsig_settings.MetricsProtocol, block, f"metrics_protocol.{name}"
        )
        for name, block in config["metrics_protocol"].items()
    }
except InputError as error:
    stop(error)


def metrics_protocol_inputs(wildcards):
    """Every file a metrics-task protocol experiment reads: each language pair's source, references, system
    outputs and documents, and the score files of its protocols, MQM gold and system scores (mtsig.studies.
    metrics_protocol.experiment.experiment_score_keys and experiment_files), found from the files' names alone (on disk, or, with the download
    root, among the files the download rules make), so that the download rules can fetch them.
    """
    from mtsig.io.mtme import LAYOUT_PATTERNS, layout_from_names
    from mtsig.studies.metrics_protocol import MetricSelection
    from mtsig.studies.metrics_protocol.experiment import (
        experiment_files,
        experiment_score_keys,
        settings_protocols,
    )

    settings = PROTOCOL_SETTINGS[wildcards.experiment]
    root = mtsig_config.data_path(DATA_ROOT, settings.root)
    try:
        test_sets = {}
        for lp in settings.lps:
            names = [
                Path(p).relative_to(root).as_posix()
                for pattern in LAYOUT_PATTERNS
                for p in data_glob(root, pattern.format(lp=lp))
            ]
            test_sets[lp] = layout_from_names(root, lp, names)
        keys = experiment_score_keys(
            settings_protocols(settings), test_sets, MetricSelection.of(settings)
        )
        files = experiment_files(test_sets, keys)
    except InputError as error:
        stop(f"metrics_protocol {wildcards.experiment}: {error}")
    return data_files(files)


def ranking_languages(wildcards):
    """segment_level's params: (source, target) language of a WMT experiment's rankings as its RNK file names them
    (its human block); None for a JCML set."""
    if wildcards.experiment in RUN["jcml"]:
        return None
    human = experiment_spec(wildcards.experiment).human
    return [human.source_language, human.target_language]


#: The results folder of the study: results/<folder>/calibration.tsv (human_ranking_calibration.folder, else the
#: experiment's name).
HUMAN_RANKING_CALIBRATION = RESULTS / SETTINGS.human_ranking_calibration.results_folder


def ranking_calibration_source():
    """The human-ranking experiment whose ESA ratings the study reads (mtsig.settings.HumanRanking)."""
    name = SETTINGS.human_ranking_calibration.experiment
    if name not in config["human_ranking"]:
        defined = ", ".join(config["human_ranking"]) or "none"
        stop(
            f"human_ranking_calibration.experiment {name} is no human_ranking experiment (defined: {defined})"
        )
    return mtsig_settings.build(
        mtsig_settings.HumanRanking,
        config["human_ranking"][name],
        f"human_ranking.{name}",
    )
