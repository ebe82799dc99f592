"""Shared fixtures. Tests that need the real data fail loudly (never skip) when it is missing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _data_root() -> Path:
    root = os.environ.get("MTSIG_DATA")
    candidates = [Path(root)] if root else [REPO.parent / "shared" / "data", REPO / "data"]
    for candidate in candidates:
        if (candidate / "wmt12").is_dir():
            return candidate.resolve()
    raise RuntimeError(
        "The real data is missing: set MTSIG_DATA to the data root (CI uses ../shared/data); "
        f"looked in {', '.join(str(c) for c in candidates)}"
    )


@pytest.fixture(scope="session", autouse=True)
def _cache_in_a_temporary_folder(tmp_path_factory: pytest.TempPathFactory):
    """Indexes that mtsig keeps between runs (MTSIG_CACHE_DIR, e.g. METEOR's paraphrase index) go to a temporary
    folder: tests write nothing outside the repository and temporary folders."""
    previous = os.environ.get("MTSIG_CACHE_DIR")
    os.environ["MTSIG_CACHE_DIR"] = str(tmp_path_factory.mktemp("mtsig-cache"))
    yield
    if previous is None:
        os.environ.pop("MTSIG_CACHE_DIR", None)
    else:
        os.environ["MTSIG_CACHE_DIR"] = previous


@pytest.fixture(scope="session")
def data_root() -> Path:
    """The data root (``MTSIG_DATA`` or ``../shared/data``); a missing root is an error, not a skip."""
    return _data_root()


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO
