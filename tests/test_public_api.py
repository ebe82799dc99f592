"""mtsig's public face (src/mtsig/__init__.py): ``import mtsig`` gives the main entry points, each the object of its
home module, loaded on first use, so that the import itself loads nothing (every pipeline job pays for it); and
docs/cli.md's "From Python" section names each of them (its examples run in tests/test_readme_commands.py)."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import mtsig

REPO = Path(__file__).resolve().parents[1]


def test_import_mtsig_loads_no_module_of_the_package_nor_numpy() -> None:
    code = (
        "import sys; import mtsig; "
        "print(sorted(m for m in sys.modules if m.startswith(('mtsig.', 'numpy', 'pandas', 'scipy'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("name", sorted(mtsig.PUBLIC))
def test_each_public_name_is_its_modules_object(name: str) -> None:
    home = importlib.import_module(mtsig.PUBLIC[name])
    assert getattr(mtsig, name) is getattr(home, name)
    assert name in mtsig.__all__ and name in dir(mtsig)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'pairwise_test'"):
        mtsig.pairwise_test  # noqa: B018


def test_the_public_face_covers_each_group_and_the_docs_name_it() -> None:
    """The groups of the public face (the metrics, the pairwise tests, the meta-evaluation, the protocol tables, the
    human-ranking procedures and the ESA reader) each have their names, and docs/cli.md's section names every
    public name."""
    for name in ("get_metric", "pairwise_tests", "ResamplingOptions", "williams_table", "run_protocol", "protocol_table_text",
                 "rank_systems", "PROCEDURES", "read_esa"):  # fmt: skip
        assert name in mtsig.PUBLIC, name
    text = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    section = text.split("## From Python: `import mtsig`", 1)[1].split("\n## ", 1)[0]
    assert [name for name in mtsig.PUBLIC if f"`{name}`" not in section] == []


def test_the_resampling_package_exposes_the_engine_and_not_its_internals() -> None:
    """mtsig.stats.resampling re-exports what a user of the engine names (the entry point and its options, the test
    registry, the result, the schemes, the relabelled-pairs input), each its module's object, and none of the
    draws, operands or tuning constants; the engine takes its settings as one options object."""
    import inspect

    from mtsig.stats import resampling
    from mtsig.stats.resampling import engine, registry

    assert sorted(resampling.__all__) == sorted(
        ["pairwise_tests", "ResamplingOptions", "TESTS", "TestSpec", "ALL_TESTS", "PAPER_TESTS",
         "PValueConvention", "PairwiseResult", "SCHEMES", "RelabelledPairs"]
    )  # fmt: skip
    assert resampling.ResamplingOptions is engine.ResamplingOptions and resampling.TESTS is registry.TESTS
    for internal in ("DRAW_BLOCK_SIZE", "CACHE_FRIENDLY_BYTES", "bootstrap_indices", "float32_is_exact"):
        assert not hasattr(resampling, internal), internal
    parameters = list(inspect.signature(resampling.pairwise_tests).parameters)
    assert parameters == ["stats", "score", "systems", "options"]
    with pytest.raises(TypeError):
        resampling.ResamplingOptions(1)  # type: ignore[misc]  # keyword-only: every setting is named
