"""The pinned environments say what the tests run with.

workflow/envs/mtsig.yaml (every rule's environment under ``--use-conda``) and the top-level environment.yml
(``conda env create -f environment.yml``) pin the versions the results and the tests were produced with. These
tests fail when the two files disagree, when a dependency of pyproject.toml is not pinned (or pinned outside its
range), or when the environment running the tests has other versions than the pins: then update the pins, or the
environment, so that what a conda user installs is what was tested.
"""

from __future__ import annotations

import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[1]
RULE_ENV = REPO / "workflow" / "envs" / "mtsig.yaml"
CONDA_ENV = REPO / "environment.yml"
CONSTRAINTS = REPO / "constraints.txt"
SELF_INSTALL = "-e .[test]"


def conda_and_pip(path: Path) -> tuple[list[str], dict[str, str], list[str]]:
    """The conda specs, the pip pins ``name -> version`` (canonical names) and the other pip lines of a conda
    environment file; a pip line that is a requirement but not an exact ``==`` pin is an error."""
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    conda, pins, other = [], {}, []
    for entry in document["dependencies"]:
        if isinstance(entry, str):
            conda.append(entry)
            continue
        for line in entry["pip"]:
            if line.startswith("-"):
                other.append(line)
                continue
            requirement = Requirement(line)
            specifiers = list(requirement.specifier)
            assert len(specifiers) == 1 and specifiers[0].operator == "==", (
                f"{path.name}: {line} is not a pin"
            )
            pins[canonicalize_name(requirement.name)] = specifiers[0].version
    return conda, pins, other


def project_requirements() -> tuple[list[Requirement], list[Requirement]]:
    """pyproject.toml's runtime dependencies, and every requirement of its extras except mtsig's own."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runtime = [Requirement(line) for line in project["dependencies"]]
    extras = [
        Requirement(line)
        for lines in project["optional-dependencies"].values()
        for line in lines
        if canonicalize_name(Requirement(line).name) != "mtsig"
    ]
    return runtime, extras


def test_environment_yml_holds_every_pin_of_the_rules_environment():
    rule_conda, rule_pins, rule_other = conda_and_pip(RULE_ENV)
    conda, pins, _ = conda_and_pip(CONDA_ENV)
    assert rule_other == []  # the rules import mtsig from the checkout
    assert conda == rule_conda
    assert {name: pins.get(name) for name in rule_pins} == rule_pins


def test_every_dependency_is_pinned_within_its_range():
    runtime, extras = project_requirements()
    _, rule_pins, _ = conda_and_pip(RULE_ENV)
    _, pins, other = conda_and_pip(CONDA_ENV)
    # the library's dependencies in the rules' environment, the extras' too in environment.yml
    for requirement, pinned in [(r, rule_pins) for r in runtime] + [(r, pins) for r in extras]:
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"{requirement.name} (pyproject.toml) has no pin"
        assert requirement.specifier.contains(pinned[name]), f"{name}=={pinned[name]} is not {requirement}"
    declared = {canonicalize_name(r.name) for r in runtime}
    assert set(rule_pins) == declared, "the rules' environment pins exactly the library's dependencies"
    assert set(pins) == declared | {canonicalize_name(r.name) for r in extras}
    assert other == [SELF_INSTALL], "environment.yml installs mtsig from the checkout with its extras"


def test_constraints_file_holds_the_library_pins():
    _, rule_pins, _ = conda_and_pip(RULE_ENV)
    lines = [line.split("#")[0].strip() for line in CONSTRAINTS.read_text(encoding="utf-8").splitlines()]
    constraints = {}
    for line in filter(None, lines):
        requirement = Requirement(line)
        specifiers = list(requirement.specifier)
        assert len(specifiers) == 1 and specifiers[0].operator == "==", (
            f"constraints.txt: {line} is not a pin"
        )
        constraints[canonicalize_name(requirement.name)] = specifiers[0].version
    assert constraints == rule_pins


@pytest.mark.parametrize("path", [RULE_ENV, CONDA_ENV], ids=lambda p: p.name)
def test_library_pins_are_the_versions_the_tests_run_with(path: Path):
    """The library's versions decide the results' bytes (checksums/): the tests run with exactly the pinned ones
    (README's install command takes constraints.txt). The workflow and test tools need only lie within
    pyproject.toml's ranges (checked above): their releases change no result."""
    conda, pins, _ = conda_and_pip(path)
    _, library, _ = conda_and_pip(RULE_ENV)
    python = next(spec for spec in conda if spec.startswith("python="))
    assert python == f"python={sys.version_info.major}.{sys.version_info.minor}"
    installed = {name: metadata.version(name) for name in library}
    assert installed == {name: pins[name] for name in library}, (
        f"{path.name} pins other library versions than the environment running the tests: "
        'install with pip install -e ".[test]" -c constraints.txt'
    )
