"""Glue shared by the workflow scripts: logging to the rule's log, byte-deterministic TSV/NPZ files.

Determinism matters: the same config and seed must give byte-identical results whatever ``--cores``, so files carry
no timestamps (``np.savez`` stamps the current time into its zip entries; :func:`save_arrays` does not) and floats
are written with the shortest round-tripping representation.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import sys
import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mtsig.errors import InputError

_FIXED_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


@contextlib.contextmanager
def logged(log_path: str | os.PathLike[str] | None) -> Iterator[logging.Logger]:
    """Send logging and uncaught errors of a workflow script to the rule's ``log:`` file (and stderr)."""
    logger = logging.getLogger("mtsig")
    logger.setLevel(logging.INFO)
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_path is not None:
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(log_path, mode="w", encoding="utf-8"))
    for handler in handlers:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        logger.addHandler(handler)
    try:
        yield logger
    except Exception:
        logger.exception("failed")
        raise
    finally:
        for handler in handlers:
            logger.removeHandler(handler)
            handler.close()


def write_tsv(frame: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """Write a tab-separated table, atomically (a failure leaves no partial file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    frame.to_csv(tmp, sep="\t", index=False, lineterminator="\n")
    tmp.replace(path)


def read_tsv(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a table written by :func:`write_tsv`; name columns stay strings (a system may be called ``1`` or ``NA``)."""
    names = {
        c: str for c in ("system", "sys_x", "sys_y", "annotator", "metric", "test", "gold", "conclusion")
    }
    return pd.read_csv(
        path, sep="\t", keep_default_na=False, na_values=[""], dtype=names, float_precision="round_trip"
    )


def write_text(text: str, path: str | os.PathLike[str]) -> None:
    """Write a text file atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def save_arrays(path: str | os.PathLike[str], **arrays: np.ndarray) -> None:
    """Save arrays as an ``.npz`` readable by ``np.load``, byte-identical for identical arrays."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_STORED) as archive:
        for name in sorted(arrays):
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.asarray(arrays[name]), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=_FIXED_ZIP_TIME)
            info.external_attr = 0o644 << 16
            archive.writestr(info, buffer.getvalue())
    tmp.replace(path)


def load_arrays(path: str | os.PathLike[str]) -> dict[str, np.ndarray]:
    """Load every array of an ``.npz`` file into memory."""
    with np.load(path, allow_pickle=False) as data:
        return {name: data[name] for name in data.files}


def save_stats(
    path: str | os.PathLike[str],
    stats: np.ndarray,
    systems: list[str],
    details: str,
    options: Mapping[str, Any],
) -> None:
    """Store a metric's sufficient statistics (systems x segments x k) with the system names, its settings and
    the options it was built with (JSON), so that later steps score the statistics with the same settings."""
    save_arrays(
        path,
        stats=stats,
        systems=np.asarray(systems, dtype=str),
        details=np.asarray(details),
        options=np.asarray(json.dumps(dict(options), sort_keys=True)),
    )


def load_stats(path: str | os.PathLike[str]) -> tuple[np.ndarray, list[str], str, dict[str, Any]]:
    """Inverse of :func:`save_stats`: (stats, system names, details, metric options).

    Raises:
        InputError: the file records no metric options (written by an older mtsig, whose later steps scored
            every metric with its default options: METEOR with English parameters whatever the language).
    """
    data = load_arrays(path)
    if "options" not in data:
        raise InputError(
            "these statistics record no metric options (written by an older mtsig); delete the file and "
            "rerun its metric_stats step",
            path,
        )
    options = json.loads(str(data["options"]))
    return data["stats"], [str(s) for s in data["systems"]], str(data["details"]), options


def metric_name_of(path: str | os.PathLike[str]) -> str:
    """``results/x/stats/bleu.npz`` -> ``bleu``."""
    return Path(path).stem


def by_metric(paths: list[str]) -> Mapping[str, str]:
    """Map metric name -> path for a rule's list of per-metric inputs."""
    return {metric_name_of(p): p for p in paths}
