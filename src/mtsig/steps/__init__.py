"""The pipeline's steps: one module per ``workflow/rules/*.smk`` file and one function per rule, named after it.

A step reads the rule's input files, calls the library (which takes data, not paths) and writes the rule's outputs;
steps are the only code that reads and writes pipeline files (through :mod:`mtsig.steps.files`, which adds the
manifests). Every step can also be run, and tested, from Python without Snakemake.

Rules are wired to steps by name: ``workflow/scripts/step.py`` calls the step named after the rule with the rule's
named inputs, outputs, params and wildcards as keyword arguments (:func:`run_step`), and the Snakefile checks every
rule against its step when it is parsed (:func:`check_rules`), so renaming an input, output or param on one side
only fails before any job runs.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

#: The step modules, one per ``workflow/rules/*.smk`` file that has rules (``common.smk`` has none).
STEP_MODULES = (
    "data",
    "download",
    "metrics",
    "significance",
    "human",
    "evaluation",
    "figures",
    "segment_level",
    "calibration",
    "human_ranking_calibration",
    "nbest",
    "meta_evaluation",
    "metrics_task",
    "metrics_protocol",
    "human_ranking",
    "replicability",
    "verify",
)

#: Named outputs that a step does not write itself: the manifests, which :mod:`mtsig.steps.files` writes beside
#: each intermediate file.
MANIFEST_OUTPUT_SUFFIX = "_manifest"

#: Arguments a step may take besides the rule's named items.
EXTRA_ARGUMENTS = ("threads",)

#: Snakemake ``priority:`` of the rules whose jobs the rest of the run waits for (higher first when more jobs are
#: ready than cores; every other rule has 0): every experiment starts with ``prepare_texts``; ``metric_stats`` has
#: the longest jobs (METEOR's JVM), which in English wait for ``meteor_paraphrases``; ``calibration``, the longest job of the WMT12 experiments, waits for every
#: metric and for ``human_gold``.
RULE_PRIORITIES = {
    "prepare_texts": 30,
    "meteor_paraphrases": 30,
    "metric_stats": 20,
    "calibration": 20,
    "human_gold": 10,
    # Ready from the start with 73 and 54 input files that Snakemake's scheduler stats again every time it picks
    # jobs (JobScheduler.update_input_sizes): run them first, a few CPU seconds, instead of carrying them along.
    "metrics_task": 25,
    "metrics_task_gold": 25,
    # 198 input files, and the longest job of the metrics tasks (the WMT23 protocol's permutation tests)
    "metrics_protocol": 25,
}


def step_modules_defining(rule: str) -> list[str]:
    """The step modules whose source defines a top-level function named ``rule``, found without importing them: a
    job imports only its own step module (and what that needs), not the plotting, statistics and metric libraries
    of every other step, which would cost each of the pipeline's jobs over a second of CPU."""
    definition = re.compile(rf"^def {re.escape(rule)}\(", re.MULTILINE)
    found = []
    for name in STEP_MODULES:
        spec = importlib.util.find_spec(f"mtsig.steps.{name}")
        source = Path(spec.origin).read_text(encoding="utf-8") if spec and spec.origin else ""
        if definition.search(source):
            found.append(name)
    return found


#: Separates a step's name from the item of a rule made in a loop, one rule per item (``download_dataset__wmt12``).
ITEM_SEPARATOR = "__"


def item_rule(step: str, item: str) -> str:
    """The name of the rule that runs ``step`` for one ``item`` (a dataset): ``<step>__<item>``, with every character
    of ``item`` that a rule name cannot hold replaced by ``_``."""
    return step + ITEM_SEPARATOR + re.sub(r"\W", "_", item)


def step_function(rule: str) -> Callable[..., None]:
    """The function named after ``rule`` (after its step, for a rule made per item: :func:`item_rule`) in the one
    step module that defines it."""
    rule = rule.split(ITEM_SEPARATOR, 1)[0]
    found = []
    for name in step_modules_defining(rule):
        module = importlib.import_module(f"mtsig.steps.{name}")
        function = getattr(module, rule, None)
        if callable(function) and getattr(function, "__module__", None) == module.__name__:
            found.append(function)
    if len(found) != 1:
        raise LookupError(f"rule {rule}: {len(found)} step functions named after it in mtsig.steps")
    return found[0]


def _parameters(function: Callable[..., None]) -> dict[str, inspect.Parameter]:
    return dict(inspect.signature(function).parameters)


def check_rule(
    rule: str,
    inputs: Iterable[str],
    outputs: Iterable[str],
    params: Iterable[str],
    wildcards: Iterable[str],
    engine_settings: Iterable[str] = (),
) -> list[str]:
    """Problems wiring ``rule`` to its step (empty when it fits): every argument of the step without a default
    must be one named input, output, param, wildcard or engine setting (a resource of the rule named in
    :data:`mtsig.settings.ENGINE_SETTINGS`, :func:`engine_params`) of the rule, no name may be two of them, and
    every named output except the manifests must be an argument (a step writes each output it declares)."""
    parameters = _parameters(step_function(rule))
    kinds = {
        "input": list(inputs),
        "output": list(outputs),
        "params": list(params),
        "wildcards": list(wildcards),
        "engine setting": list(engine_settings),
    }
    problems = []
    seen: dict[str, str] = {}
    for kind, names in kinds.items():
        for name in names:
            if name in seen and name in parameters:
                problems.append(f"{name!r} is both a named {seen[name]} and a named {kind}")
            seen.setdefault(name, kind)
    for name, parameter in parameters.items():
        required = parameter.default is inspect.Parameter.empty
        if name not in seen and name not in EXTRA_ARGUMENTS and required:
            problems.append(f"the step needs {name!r}, which the rule does not name")
    for name in kinds["output"]:
        if not name.endswith(MANIFEST_OUTPUT_SUFFIX) and name not in parameters:
            problems.append(f"output {name!r} is not an argument of the step, which would not write it")
    return [f"rule {rule}: {p}" for p in problems]


def check_rules(rules: Iterable[Any], script_name: str = "step.py") -> None:
    """Check every Snakemake rule whose script is ``step.py`` against its step (:func:`check_rule`); called by the
    Snakefile once all rules are defined. Raises ValueError listing every problem."""
    from mtsig.settings import ENGINE_SETTINGS

    problems = []
    for rule in rules:
        if not str(getattr(rule, "script", "") or "").endswith(script_name):
            continue
        problems += check_rule(
            rule.name,
            rule.input._names,
            rule.output._names,
            rule.params._names,
            rule.wildcard_names,
            [name for name in rule.resources if name in ENGINE_SETTINGS],
        )
    if problems:
        raise ValueError("rules and steps disagree:\n" + "\n".join(problems))


def _value(value: Any) -> Any:
    """A named item as the step sees it: a path string, or a list of them for a list of files."""
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple):  # Snakemake's Namedlist is a list
        return [_value(v) for v in value]
    return value


def step_arguments(
    rule: str, named: Mapping[str, Mapping[str, Any]], threads: int = 1
) -> tuple[Callable[..., None], dict[str, Any]]:
    """The step of ``rule`` and its keyword arguments, taken by name from ``named`` (kind -> name -> value)."""
    function = step_function(rule)
    available = {name: value for items in named.values() for name, value in items.items()}
    available["threads"] = threads
    arguments = {n: _value(available[n]) for n in _parameters(function) if n in available}
    return function, arguments


def engine_params(params: dict[str, Any], resources: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` with the engine's settings (:data:`mtsig.settings.ENGINE_SETTINGS`: the memory cap, the number
    of shards) that a rule passes as resources put back: each as a param of its own (a step taking
    ``memory_cap_mb``), and into ``params["resampling"]`` when the rule passes that block (a step building
    :class:`mtsig.settings.Resampling`). They change no number, so they are not params, whose change would make
    Snakemake rerun the job; Snakemake does not track resources."""
    from mtsig.settings import ENGINE_SETTINGS

    engine = {key: int(resources[key]) for key in ENGINE_SETTINGS if key in resources}
    if not engine:
        return params
    params = {**params, **engine}
    if "resampling" in params:
        params["resampling"] = {**params["resampling"], **engine}
    return params


def run_step(snakemake: Any) -> None:
    """Run the step named after ``snakemake.rule`` with the rule's named items, logging to the rule's log."""
    from mtsig.runtime import hard_stop
    from mtsig.runtime.job_usage import job_usage_path, write_job_usage
    from mtsig.steps.files import logged, remove_temporaries

    named = {
        "input": dict(snakemake.input.items()),
        "output": dict(snakemake.output.items()),
        "params": engine_params(dict(snakemake.params.items()), dict(snakemake.resources.items())),
        "wildcards": dict(snakemake.wildcards.items()),
    }
    function, arguments = step_arguments(snakemake.rule, named, threads=snakemake.threads)
    # A job stopped hard before left its temporary files; and the tests' hard stops (mtsig.runtime.hard_stop).
    remove_temporaries(snakemake.output)
    hard_stop.arm(snakemake.rule, snakemake.rule.split(ITEM_SEPARATOR, 1)[0])
    hard_stop.reached("start")
    with logged(snakemake.log[0] if snakemake.log else None):
        function(**arguments)
    hard_stop.reached("end")
    if snakemake.log:
        write_job_usage(job_usage_path(snakemake.log[0]))
