"""The pipeline configuration: experiment files, the data root, validation and per-experiment paths.

The Snakefile validates ``config`` against ``workflow/schemas/config.schema.yaml`` (:func:`validate_config`); this
module does what a schema cannot: merging the per-experiment files, choosing the data root (``MTSIG_DATA``, the
configured ``data_root``, or the download root) and wording what stops a run that lacks data, checking that every
name in ``run`` is defined, and turning an experiment's relative paths into absolute ones.
"""

from __future__ import annotations

import copy
import dataclasses
import fnmatch
import functools
import math
import os
import re
import typing
import urllib.parse
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import yaml

from mtsig.errors import InputError
from mtsig.io import data_path  # an experiment's paths, also the workflow's (mtsig_config.data_path)
from mtsig.io.segment_scores import names_documents
from mtsig.settings import (
    ENGINE_SETTINGS,
    Experiment,
    RunSettings,
    SegmentScoresMetric,
    Synthetic,
    TextSources,
    build,
    metric_entries,
)

DATA_ROOT_ENV = "MTSIG_DATA"

#: The schema of the config (package data, so that an installed wheel validates configs too;
#: ``workflow/schemas/config.schema.yaml``, which the Snakefile validates against, is a link to it). It states
#: each setting's default for the config's readers; the settings dataclasses (:mod:`mtsig.settings`) are the
#: defaults' home, and ``tests/test_settings.py`` keeps the two equal.
SCHEMA_PATH = Path(__file__).resolve().parents[1] / "config.schema.yaml"


#: libyaml's safe loader where PyYAML was built with it (the same documents, parsed several times faster: every
#: ``snakemake`` start reads the schema and the config files), else PyYAML's own.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(stream: Any) -> Any:
    """A YAML document (text or an open file), as ``yaml.safe_load`` reads it."""
    return yaml.load(stream, Loader=SAFE_LOADER)


@functools.cache
def load_schema(path: str | Path = SCHEMA_PATH) -> dict[str, Any]:
    """The config schema as a dict, read once (do not change it)."""
    with open(path, encoding="utf-8") as handle:
        return read_yaml(handle)


def resolve_ref(node: Mapping[str, Any], schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """Follow a local ``$ref`` (``#/$defs/name``, ``#/$defs/name/properties/key``)."""
    while "$ref" in node:
        target: Any = schema
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def fill_defaults(value: Any, node: Mapping[str, Any], schema: Mapping[str, Any]) -> Any:
    """Fill in the schema's defaults in ``value`` (validated against ``node``, a node of ``schema``) in place, as
    Snakemake's ``validate`` fills the config: jsonschema's own recipe (its FAQ, "Why doesn't my schema's default
    property set the default on my instance?"), in which each ``properties`` keyword the validator meets sets its
    absent properties' defaults before their values are validated, in alternatives (``oneOf``, ``if``) too. Each
    default is a copy, so the cached schema is never changed. Returns ``value``. (The schema states the defaults
    of :mod:`mtsig.settings`; ``tests/test_settings.py`` compares the two with it.)"""
    validator = _default_filling_validator()(schema)
    if node is not schema:  # (evolve would pick the validator class named by the root's $schema)
        validator = validator.evolve(schema=node)
    for _ in validator.iter_errors(value):  # the walk fills the defaults; the config was validated before
        pass
    return value


@functools.cache
def _default_filling_validator() -> Any:
    """The Draft 2020-12 validator class whose ``properties`` keyword sets absent defaults first."""
    from jsonschema import Draft202012Validator, validators

    check_properties = Draft202012Validator.VALIDATORS["properties"]

    def set_defaults(
        validator: Any, properties: Mapping[str, Any], instance: Any, node: Mapping[str, Any]
    ) -> Any:
        if isinstance(instance, dict):
            for key, child in properties.items():
                if "default" in child:
                    instance.setdefault(key, copy.deepcopy(child["default"]))
        yield from check_properties(validator, properties, instance, node)

    return validators.extend(Draft202012Validator, {"properties": set_defaults})


#: Every kind of experiment a name in ``run`` may be (:func:`check_run`), and the config block that defines the
#: experiments of that kind by name: the registry a new study defined by name joins.
EXPERIMENT_KINDS: dict[str, tuple[str, ...]] = {
    "outputs": ("experiments",),
    "synthetic": ("synthetic",),
    "jcml": ("segment_level", "jcml"),
    "nbest": ("nbest",),
    "metrics_task": ("metrics_task",),
    "metrics_protocol": ("metrics_protocol",),
    "human_ranking": ("human_ranking",),
}
#: The sections of an experiment file whose definitions :func:`merge_experiment_files` adds to the config.
EXPERIMENT_FILE_SECTIONS = ("experiments", "metrics_task", "metrics_protocol", "human_ranking")


def run_settings(config: Mapping[str, Any]) -> RunSettings:
    """:class:`RunSettings` of a validated config: each top-level block as its settings dataclass."""
    blocks = {f.name: f.type for f in dataclasses.fields(RunSettings)}
    hints = typing.get_type_hints(RunSettings)
    return RunSettings(**{name: build(hints[name], config.get(name, {}), name) for name in blocks})


def output_settings(resampling: Mapping[str, Any]) -> dict[str, Any]:
    """``resampling`` without :data:`mtsig.settings.ENGINE_SETTINGS`: what a rule's outputs may depend on."""
    return {key: value for key, value in resampling.items() if key not in ENGINE_SETTINGS}


def merge_experiment_files(config: dict[str, Any], base_dir: Path) -> None:
    """Add the experiments (metrics-task studies, metrics-task protocols, human rankings) defined in
    ``config["experiment_files"]`` to ``config["experiments"]`` (``config["metrics_task"]``,
    ``config["metrics_protocol"]``, ``config["human_ranking"]``) in place.

    A definition already present in ``config`` (e.g. from a ``--configfile`` of the user's) wins over the file.
    Each file has the shape of a stand-alone config: ``run: [...]`` and ``experiments: {name: {...}}``,
    ``metrics_task: {name: {...}}``, ``metrics_protocol: {name: {...}}`` and/or ``human_ranking: {name: {...}}``.
    """
    for relative in config.get("experiment_files", []):
        path = (base_dir / relative).resolve()
        if not path.is_file():
            raise InputError("experiment file listed in experiment_files does not exist", path)
        with path.open(encoding="utf-8") as handle:
            loaded = read_yaml(handle) or {}
        sections = [key for key in EXPERIMENT_FILE_SECTIONS if key in loaded]
        if not sections or not all(isinstance(loaded[key], Mapping) for key in sections):
            raise InputError(
                "an experiment file must define a mapping `experiments:`, `metrics_task:`, `metrics_protocol:` or "
                "`human_ranking:`",
                path,
            )
        for section in sections:
            defined = config.setdefault(section, {})
            for name, spec in loaded[section].items():
                defined.setdefault(name, spec)


# --- validation -------------------------------------------------------------------------------------------------

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def _fits(value: Any, node: Mapping[str, Any], schema: Mapping[str, Any]) -> bool:
    """Whether ``value`` has a type (or enum/const value) the schema node allows; constraints are left to the
    validator."""
    node = resolve_ref(node, schema)
    if "oneOf" in node or "anyOf" in node:
        return any(_fits(value, alternative, schema) for alternative in node.get("oneOf", node.get("anyOf")))
    if "const" in node:
        return value == node["const"] and type(value) is type(node["const"])
    if "enum" in node:
        return any(value == option and type(value) is type(option) for option in node["enum"])
    types = node.get("type")
    if types is None:
        return True
    allowed = [types] if isinstance(types, str) else list(types)
    if isinstance(value, bool):  # a bool is an int to Python, never to JSON schema
        return "boolean" in allowed
    return any(isinstance(value, _JSON_TYPES.get(name, ())) for name in allowed)


def coerce_command_line_values(value: Any, node: Mapping[str, Any], schema: Mapping[str, Any]) -> Any:
    """Read the strings Snakemake's ``--config`` leaves in nested values as YAML, where the schema wants another
    type.

    ``--config resampling='{pair_shards: 16}'`` reaches the workflow as ``{"pair_shards": "16"}``: Snakemake
    parses a nested value with YAML's BaseLoader, which keeps every scalar a string. A string stays a string where
    the schema allows one; elsewhere it is parsed as YAML (``"16"`` -> 16, ``"true"`` -> True, ``"[1, 2]"`` ->
    [1, 2]) and kept only if the result has a type the schema allows, so a wrong value still fails validation
    with its own text. Returns the coerced value; mappings and lists are coerced in place as well.
    """
    node = resolve_ref(node, schema)
    if isinstance(value, str) and not _fits(value, node, schema):
        try:
            parsed = yaml.safe_load(value)
        except yaml.YAMLError:
            return value
        if not isinstance(parsed, str) and _fits(parsed, node, schema):
            value = parsed
    alternatives = node.get("oneOf", node.get("anyOf"))
    if alternatives:
        fitting = [a for a in alternatives if _fits(value, a, schema)]
        return coerce_command_line_values(value, fitting[0], schema) if fitting else value
    if isinstance(value, dict):
        properties = node.get("properties", {})
        extra = node.get("additionalProperties")
        for key in list(value):
            child = properties.get(key, extra if isinstance(extra, Mapping) else None)
            if child is not None:
                value[key] = coerce_command_line_values(value[key], child, schema)
    elif isinstance(value, list) and isinstance(node.get("items"), Mapping):
        for index, item in enumerate(value):
            value[index] = coerce_command_line_values(item, node["items"], schema)
    return value


def _defines(data: Any, path: Sequence[Any]) -> bool:
    """Whether a config source sets the key path (list indices count as set by whoever set the list)."""
    for part in path:
        if isinstance(data, Mapping) and part in data:
            data = data[part]
        elif isinstance(data, list) and isinstance(part, int) and part < len(data):
            return True
        else:
            return False
    return True


def validate_config(
    config: dict[str, Any], schema_path: str | Path, sources: Sequence[tuple[str, Mapping[str, Any]]]
) -> None:
    """Validate the merged config against the schema, then fill in its defaults (:func:`fill_defaults`).

    ``sources`` are (name, contents) of every place the config came from, lowest precedence first: config files
    by path, ``--config ...`` for the command line. A schema error names the key path, the problem and the
    source that set the key (the highest-precedence one that defines it; every source when none does, e.g. a
    missing required key).

    Raises:
        InputError: the config breaks the schema.
    """
    import jsonschema

    schema = load_schema(schema_path)
    coerce_command_line_values(config, schema, schema)
    validator = jsonschema.Draft202012Validator(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(config))
    if error is not None:
        _raise_config_error(list(error.absolute_path), error.message, sources)
    # JSON Schema cannot refuse NaN (every comparison with it is false) nor tell inf from a large number.
    for path, value in _numbers_in(config):
        if not math.isfinite(value):
            _raise_config_error(path, f"{value!r} is not a finite number", sources)
    fill_defaults(config, schema, schema)


def _raise_config_error(
    path: list[str | int], problem: str, sources: Sequence[tuple[str, Mapping[str, Any]]]
) -> NoReturn:
    """An InputError naming the key, the problem and the source that set the key (see :func:`validate_config`)."""
    defining = [name for name, data in sources if _defines(data, path)]
    where = defining[-1] if defining else ", ".join(name for name, _ in sources)
    key = ".".join(str(part) for part in path) or "(top level)"
    raise InputError(f"config key {key}: {problem}", where)


def _numbers_in(data: Any, path: tuple[str | int, ...] = ()) -> list[tuple[list[str | int], float]]:
    """Every float in a nested config, with its key path."""
    if isinstance(data, float):
        return [(list(path), data)]
    if isinstance(data, Mapping):
        return [found for key, value in data.items() for found in _numbers_in(value, (*path, key))]
    if isinstance(data, list):
        return [found for i, value in enumerate(data) for found in _numbers_in(value, (*path, i))]
    return []


def config_sources(
    config_files: Sequence[str | Path],
    command_line_files: Sequence[str | Path],
    command_line: Mapping[str, Any],
    command_line_args: Sequence[str],
    experiment_files: Sequence[str | Path] = (),
) -> list[tuple[str, Mapping[str, Any]]]:
    """The config's sources in Snakemake's precedence order, lowest first: the experiment files (an experiment
    defined elsewhere wins), the workflow's ``configfile:``, each ``--configfile``, then ``--config``."""
    command_line_files = [Path(f).resolve() for f in command_line_files]
    directive = [f for f in map(lambda f: Path(f).resolve(), config_files) if f not in command_line_files]
    sources: list[tuple[str, Mapping[str, Any]]] = []
    for path in [*map(Path, experiment_files), *directive, *command_line_files]:
        try:
            with path.open(encoding="utf-8") as handle:
                sources.append((str(path), read_yaml(handle) or {}))
        except (OSError, yaml.YAMLError):
            sources.append((str(path), {}))
    if command_line:
        sources.append(("--config " + " ".join(command_line_args), command_line))
    return sources


#: The workflow's own data root, relative to the repository: used when neither ``$MTSIG_DATA`` nor the configured
#: ``data_root`` names an existing folder, and filled by the download rules (workflow/rules/data.smk).
DOWNLOAD_ROOT = Path("data") / "downloads"


@dataclass(frozen=True)
class DataRoot:
    """Where the pipeline reads its data, and why.

    ``origin`` is ``"MTSIG_DATA"`` (the environment variable), ``"data_root"`` (the config key, an existing folder)
    or ``"download"`` (:data:`DOWNLOAD_ROOT` of the repository, which the download rules fill). Only the download
    root is ever written by the workflow; the other two are read as they are."""

    path: Path
    origin: str

    @property
    def downloads(self) -> bool:
        """Whether the workflow downloads the files this root lacks (the download root, however selected)."""
        return self.origin == "download"


def started_in(cwd: Path, workdir: str | Path | None, shell_pwd: str | None) -> Path:
    """The directory ``snakemake`` was started in, before ``--directory`` moved it into the work directory.

    Snakemake changes into ``--directory`` (``workdir``, as given) before it reads the Snakefile, so the process's
    current directory ``cwd`` is the start directory only when there was no ``--directory``. Otherwise it is the
    shell's ``$PWD`` (every POSIX shell exports its current directory) if ``--directory`` leads from there to
    ``cwd``; failing that, for a relative ``--directory`` without ``..``, ``cwd`` with as many trailing parts
    removed as ``--directory`` has (checked the same way).

    Raises:
        InputError: the start directory cannot be known (an absolute ``--directory`` and no ``$PWD``, or a
            relative one that neither ``$PWD`` nor ``cwd`` explains).
    """
    if workdir is None:
        return cwd
    workdir = Path(workdir)

    def leads_to_cwd(start: Path) -> bool:
        try:
            return (start / workdir).resolve().samefile(cwd)
        except OSError:
            return False

    if (
        shell_pwd
        and Path(shell_pwd).is_absolute()
        and Path(shell_pwd).is_dir()
        and leads_to_cwd(Path(shell_pwd))
    ):
        return Path(shell_pwd)
    parts = Path(os.path.normpath(workdir)).parts
    if not workdir.is_absolute() and ".." not in parts and len(parts) <= len(cwd.resolve().parents):
        candidate = cwd.resolve().parents[len(parts) - 1] if parts != (".",) else cwd.resolve()
        if leads_to_cwd(candidate):
            return candidate
    raise InputError(
        f"{DATA_ROOT_ENV} is a relative path and the directory snakemake was started in is unknown "
        f"(--directory {workdir}, no usable $PWD): give {DATA_ROOT_ENV} as an absolute path"
    )


def resolve_data_root(
    config: Mapping[str, Any], base_dir: Path, start_dir: Callable[[], Path] | None = None
) -> DataRoot:
    """The data root (docs/design.md, "Configuration"), first of:

    1. ``$MTSIG_DATA``, a relative path taken from the directory the command was started in (``start_dir()``,
       :func:`started_in`; the current directory by default); it must be an existing folder;
    2. ``config["data_root"]`` relative to ``base_dir`` (the repository), if that folder exists;
    3. :data:`DOWNLOAD_ROOT` of ``base_dir``, which the workflow's download rules fill.

    ``$MTSIG_DATA`` naming the download root itself also selects 3 (``MTSIG_DATA=data/downloads``).

    Raises:
        InputError: ``$MTSIG_DATA`` is set but names no folder.
    """
    download_root = (base_dir / DOWNLOAD_ROOT).resolve()
    from_env = os.environ.get(DATA_ROOT_ENV)
    if from_env:
        path = Path(from_env).expanduser()
        if not path.is_absolute():
            path = (start_dir or Path.cwd)() / path
        path = path.resolve()
        if path == download_root:
            return DataRoot(path, "download")
        if not path.is_dir():
            raise InputError(
                f"{DATA_ROOT_ENV}={from_env} names no folder ({path}): set it to a data root (data/README.md), "
                f"or unset it to let the workflow download what it needs into {download_root}"
            )
        return DataRoot(path, DATA_ROOT_ENV)
    configured = (base_dir / config["data_root"]).resolve()
    if configured.is_dir() and configured != download_root:
        return DataRoot(configured, "data_root")
    return DataRoot(download_root, "download")


def missing_data_message(
    root: DataRoot, relative: str | Path, download_root: Path, unset_to_download: bool
) -> str:
    """The line that stops a run reading an existing data root that lacks a file: the file, its dataset, and the two
    ways to provide it: another data root, or the download root (selected by unsetting ``$MTSIG_DATA`` when
    ``unset_to_download``, else by naming it)."""
    relative = Path(relative)
    dataset = relative.parts[0]
    origin = DATA_ROOT_ENV if root.origin == DATA_ROOT_ENV else "config data_root"
    download = (
        f"unset {DATA_ROOT_ENV} to let the workflow download it into {download_root}"
        if unset_to_download
        else f"set {DATA_ROOT_ENV}={download_root} to let the workflow download it there"
    )
    return (
        f"dataset {dataset}: {relative} is missing from the data root {root.path} ({origin}, read as it is); "
        f"set {DATA_ROOT_ENV} to a data root that has {dataset}/ (data/README.md), or {download}"
    )


def undownloadable_message(root: DataRoot, relative: str | Path, source: str | None) -> str:
    """The line that stops a run whose download root lacks a file that the workflow cannot download."""
    relative = Path(relative)
    why = f"its source is {source}" if source else "data/sources.tsv does not list it"
    return (
        f"dataset {relative.parts[0]}: {relative} is not in {root.path} and the workflow cannot download it ({why}); "
        f"set {DATA_ROOT_ENV} to a data root that has it (data/README.md)"
    )


def unreachable_message(root: DataRoot, dataset: str, url: str, reason: str) -> str:
    """The line that stops a run whose download root lacks a dataset when its origin cannot be reached."""
    parts = urllib.parse.urlsplit(url)
    host = f"{parts.scheme}://{parts.netloc}"
    return (
        f"dataset {dataset} is not in {root.path} and cannot be downloaded ({host}: {reason}); connect to the "
        f"internet and rerun to let the workflow download it there, or set {DATA_ROOT_ENV} to a data root that has "
        f"{dataset}/ (data/README.md)"
    )


def glob_relative(paths: Iterable[str], pattern: str) -> list[str]:
    """The ``paths`` (relative, ``/``-separated) that ``pattern`` matches as :meth:`pathlib.Path.glob` would under
    their root: ``*``, ``?`` and ``[...]`` within one part, ``**`` for any number of parts."""

    def matches(path: Sequence[str], parts: Sequence[str]) -> bool:
        if not parts:
            return not path
        if parts[0] == "**":
            return any(matches(path[i:], parts[1:]) for i in range(len(path) + 1))
        return bool(path) and fnmatch.fnmatchcase(path[0], parts[0]) and matches(path[1:], parts[1:])

    wanted = pattern.split("/")
    return [p for p in paths if matches(p.split("/"), wanted)]


def experiment_kinds(config: Mapping[str, Any]) -> dict[str, str]:
    """Map every defined experiment name to its kind (:data:`EXPERIMENT_KINDS`: ``outputs``, ``synthetic``,
    ``jcml``, ``nbest``, ``metrics_task``, ``metrics_protocol`` or ``human_ranking``)."""
    kinds: dict[str, str] = {}
    for kind, (section, *inner) in EXPERIMENT_KINDS.items():
        names = config.get(section, {})
        for key in inner:
            names = names.get(key, {})
        for name in names:
            if name in kinds:
                raise InputError(f"experiment {name!r} is defined twice (as {kinds[name]} and as {kind})")
            kinds[name] = kind
    return kinds


def check_run(config: Mapping[str, Any]) -> dict[str, list[str]]:
    """Group the names in ``config["run"]`` by kind; an undefined name is an error listing the defined ones."""
    kinds = experiment_kinds(config)
    unknown = [name for name in config["run"] if name not in kinds]
    if unknown:
        raise InputError(
            f"run names undefined experiment(s) {', '.join(unknown)}; defined: {', '.join(sorted(kinds)) or 'none'}"
        )
    grouped: dict[str, list[str]] = {kind: [] for kind in EXPERIMENT_KINDS}
    for name in config["run"]:
        grouped[kinds[name]].append(name)
    return grouped


def synthetic_experiment(name: str, block: Mapping[str, Any], results_dir: Path) -> dict[str, Any]:
    """The experiment block of a synthetic experiment (``synthetic.<name>``, :class:`mtsig.settings.Synthetic`)
    whose data the pipeline generates under ``results/{name}/synthetic/`` (see :mod:`mtsig.studies.synthetic`)."""
    from mtsig.studies.synthetic import SyntheticSpec, system_names

    settings = build(Synthetic, block, f"synthetic.{name}")
    generator = SyntheticSpec(**{key: getattr(settings, key) for key in Synthetic.GENERATOR})
    data = results_dir / name / "synthetic"
    return {
        "description": f"synthetic: {generator.systems} systems of planted quality (seed {generator.seed})",
        "source_language": "xx",
        "target_language": "en",
        "reference": str(data / "reference.txt"),
        "outputs": str(data / "system.{system}.txt"),
        "systems": system_names(generator),
        "documents": {"format": "tsv", "path": str(data / "documents.tsv")},
        "meteor": {"language": "other"},
        "human": {"format": "tidy", "path": str(data / "ratings.tsv")},
        "qc": settings.qc,
        "gold": settings.gold,
    }


def synthetic_generator(block: Mapping[str, Any]) -> dict[str, Any]:
    """The generator's part of a ``synthetic.<name>`` block (rule ``generate_synthetic``'s params: its gold and QC
    change no generated file), defaults filled in."""
    settings = build(Synthetic, block)
    return {key: getattr(settings, key) for key in Synthetic.GENERATOR}


def experiment(config: Mapping[str, Any], name: str, results_dir: Path = Path("results")) -> Experiment:
    """A system-output experiment (real or synthetic) as its settings (:class:`mtsig.settings.Experiment`, the
    dataclasses' defaults filled in), with the run's ``metrics`` where it lists none.

    Raises:
        InputError: a metric is listed twice (:func:`mtsig.settings.metric_entries`).
    """
    if name in config.get("synthetic", {}):
        block = synthetic_experiment(name, config["synthetic"][name], results_dir.resolve())
    else:
        block = dict(config["experiments"][name])
    spec = build(Experiment, {"metrics": config["metrics"], **block}, f"experiments.{name}")
    metric_entries(spec.metrics or (), name)  # a metric listed twice is an error
    return spec


def metric_declarations(entries: Sequence[str | Mapping[str, Any]], experiment_name: str = "") -> list[str]:
    """The metric names of a ``metrics:`` list, in order (:func:`mtsig.settings.metric_entries`, which refuses a
    name listed twice)."""
    return list(metric_entries(list(entries), experiment_name)[0])


def segment_score_files(
    declarations: Mapping[str, SegmentScoresMetric], data_root: str | Path
) -> dict[str, Path]:
    """Metric name -> scores file of every metric read from segment scores (``declarations``)."""
    return {name: data_path(data_root, declaration.path) for name, declaration in declarations.items()}


def scores_with_documents(
    declarations: Mapping[str, SegmentScoresMetric], data_root: str | Path
) -> list[str]:
    """The declared metrics whose files give each segment's document
    (:func:`mtsig.io.segment_scores.names_documents`)."""
    return [
        name
        for name, declaration in declarations.items()
        if names_documents(data_path(data_root, declaration.path), declaration.format)
    ]


def has_documents(sources: TextSources, data_root: str | Path) -> bool:
    """Whether the experiment's segments have documents: a ``documents:`` file, an MQM texts file, or (an
    experiment without texts) a scores file that carries them."""
    if sources.documents is not None or sources.texts is not None:
        return True
    return not sources.has_texts and bool(scores_with_documents(sources.segment_scores, data_root))


def reference_paths(sources: TextSources | Experiment, data_root: str | Path) -> list[Path]:
    """The experiment's reference file(s): ``reference`` is one path or a list (several references per segment,
    sacrebleu's reference streams, in the order listed)."""
    references = sources.reference or ()
    return [data_path(data_root, r) for r in ([references] if isinstance(references, str) else references)]


def output_paths(sources: TextSources, data_root: str | Path) -> dict[str, Path]:
    """System name -> output file, from the experiment's ``outputs`` pattern."""
    return {system: data_path(data_root, path) for system, path in sources.output_files().items()}


def one_of(names: Iterable[str]) -> str:
    """A wildcard constraint (regular expression) matching exactly these names, and nothing when there are none."""
    return "|".join(re.escape(n) for n in names) or r"(?!x)x"


def wildcard_constraints(config: Mapping[str, Any]) -> dict[str, str]:
    """The rules' global wildcard constraints. ``metric`` is derived from the config (the run's ``metrics`` and
    every experiment's own ``metrics``), so that it names exactly the metrics the schema admitted."""
    metrics = dict.fromkeys(metric_declarations(config["metrics"]))
    for spec in config.get("experiments", {}).values():
        metrics.update(dict.fromkeys(metric_declarations(spec.get("metrics", []))))
    return {"experiment": r"[A-Za-z0-9_+-]+", "metric": one_of(metrics), "shard": r"\d+"}
