"""The wheel works alone: built from the checkout, installed into a fresh virtual environment, used from a folder
with no checkout. Slow (a build and a venv): CI runs it with ``pytest -m slow``."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

import mtsig

REPO = Path(__file__).resolve().parents[1]


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False)


@pytest.mark.slow
def test_wheel_installed_in_a_fresh_venv_runs_compare_power_and_the_library(
    tmp_path: Path, data_root: Path
) -> None:
    # The wheel, built from the checkout as `python -m build` does: in an isolated build environment that pip fills
    # with the build-system requirements of pyproject.toml from the package registry (no cache written).
    dist = tmp_path / "dist"
    built = _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(dist), str(REPO)],
        tmp_path, {**os.environ, "PIP_NO_CACHE_DIR": "1"},
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = dist.glob("mtsig-*.whl")
    assert wheel.name == f"mtsig-{mtsig.__version__}-py3-none-any.whl"
    # A fresh venv; its dependencies (numpy, sacrebleu, pycocoevalcap with the Meteor jar, ...) come from the
    # running interpreter's site-packages, as a registry would provide them: the test installs nothing from the
    # network. mtsig itself only from the wheel, which the venv's own site-packages put first.
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    environment["PATH"] = f"{env_dir / 'bin'}{os.pathsep}{environment['PATH']}"
    installed = _run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)],
        tmp_path, environment,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr[-2000:]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = _run([str(python), "-c", "import mtsig; print(mtsig.__file__)"], elsewhere, environment)
    assert where.returncode == 0 and str(env_dir) in where.stdout, where.stdout + where.stderr

    es_en = data_root / "wmt12" / "system-outputs" / "es-en"
    for name, lines in (("ref", "plain/newstest2012-ref.en"),):
        (elsewhere / name).write_text(
            "\n".join((data_root / "wmt12" / lines).read_text().splitlines()[:200]) + "\n"
        )
    for system in ("onlineA", "onlineB"):
        text = (es_en / f"newstest2012.es-en.{system}").read_text().splitlines()[:200]
        (elsewhere / system).write_text("\n".join(text) + "\n")
    mtsig_command = str(env_dir / "bin" / "mtsig")
    compare = _run(
        [mtsig_command, "compare", "--ref", "ref", "--metrics", "bleu,chrf,ter,meteor", "--samples", "200",
         "--unescape-html", "--tsv", "onlineA", "onlineB"],
        elsewhere, environment,
    )  # fmt: skip
    assert compare.returncode == 0, compare.stderr
    assert {"bleu", "chrF2", "TER", "METEOR"} <= {
        line.split("\t")[0] for line in compare.stdout.splitlines()
    } or (len(compare.stdout.splitlines()) == 1 + 4 * 2 * 3)
    power = _run(
        [mtsig_command, "power", "--ref", "ref", "--trials", "5", "--samples", "50", "--sizes", "50,100",
         "--differences", "0.5,1", "onlineA", "onlineB"],
        elsewhere, environment,
    )  # fmt: skip
    assert power.returncode == 0 and "minimum detectable difference" in power.stdout, power.stderr
    library = _run(
        [str(python), "-c",
         "import numpy as np; from mtsig.metrics import get_metric;"
         "from mtsig.stats.resampling import ResamplingOptions, pairwise_tests;"
         "refs=open('ref').read().splitlines(); outs={s: open(s).read().splitlines() for s in ('onlineA','onlineB')};"
         "m=get_metric('bleu');"
         "r=pairwise_tests(m.stats_many(outs, refs), m.score, list(outs), ResamplingOptions(tests=['bootstrap'], n_samples=100, seed=1));"
         "print(len(r.table))"],
        elsewhere, environment,
    )  # fmt: skip
    assert library.returncode == 0 and library.stdout.strip() == "2", library.stderr
    # The settings' defaults come from the config schema, which the wheel carries (QC's alpha is 0.05 there).
    defaults = _run(
        [str(python), "-c", "from mtsig.settings import QualityControl, build; print(build(QualityControl).alpha)"],
        elsewhere, environment,
    )  # fmt: skip
    assert defaults.returncode == 0 and defaults.stdout.strip() == "0.05", defaults.stderr
    # Without Java, METEOR says so in one line (exit 2), the other metrics still run.
    no_java = {**environment, "PATH": str(env_dir / "bin")}
    meteor = _run(
        [mtsig_command, "compare", "--ref", "ref", "--metrics", "meteor", "--samples", "50", "--unescape-html", "onlineA",
         "onlineB"],
        elsewhere, no_java,
    )  # fmt: skip
    assert meteor.returncode == 2 and meteor.stderr.startswith("mtsig: error:") and "Java" in meteor.stderr
    assert len(meteor.stderr.splitlines()) == 1
