"""Glue shared by the workflow scripts: logging to the rule's log, byte-deterministic TSV/NPZ files, and the
manifests that let a step refuse a damaged intermediate file.

Determinism matters: the same config and seed must give byte-identical results whatever ``--cores``, so files carry
no timestamps (``np.savez`` stamps the current time into its zip entries; :func:`save_arrays` does not) and floats
are written with the shortest round-tripping representation.

Every intermediate file (one that a later step reads) is written with a manifest beside it,
``<file>.manifest.json``: its size, sha256, format (columns and rows of a table, shape and dtype of every array) and
the settings it was made with. The reading step checks the file against it before use, so a file that was truncated,
edited or half-written since (even with its modification time kept, which Snakemake cannot see) raises
:class:`~mtsig.errors.InputError` naming the file, the rule that makes it and the command that regenerates it.
Data and manifest are written to temporary files first and renamed into place, so a failed step leaves neither
half-written; a crash between the two renames leaves a manifest that no longer matches, which the reader refuses.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import logging
import os
import sys
import zipfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from mtsig.errors import InputError
from mtsig.runtime import hard_stop
from mtsig.runtime.hard_stop import temporary_path

if TYPE_CHECKING:  # pandas is imported where a table is read: steps that read none start sooner
    import pandas as pd

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


MANIFEST_SUFFIX = ".manifest.json"
MANIFEST_VERSION = 1
_ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError, KeyError)


def remove_temporaries(outputs: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Delete the temporary files (and their manifests' ones) that a job stopped hard left beside its declared
    output files; returns them. Snakemake deletes the outputs themselves, and whole directory outputs, before it
    runs a job again; these it does not know."""
    removed = []
    for output in map(Path, outputs):
        for left in (temporary_path(output), temporary_path(manifest_path(output))):
            if left.is_file():
                left.unlink()
                removed.append(left)
    return removed


def manifest_path(path: str | os.PathLike[str]) -> Path:
    """Where the manifest of an intermediate file lives: ``<file>.manifest.json`` beside it."""
    path = Path(path)
    return path.with_name(path.name + MANIFEST_SUFFIX)


def regenerate_hint(
    path: str | os.PathLike[str], made_by: str | None, target: str | os.PathLike[str] | None
) -> str:
    """How to get a good copy of an intermediate file: the rule that makes it and the Snakemake command.

    ``target`` is the rule's declared output holding the file (a ``directory()`` output for files inside one;
    None: the file itself, or the folder of :data:`FOLDER_OUTPUTS` it is in, its parent or grandparent);
    ``--force`` reruns exactly that job, and the next plain run redoes every step downstream of it.
    """
    rule = f"it is made by rule {made_by}; " if made_by else ""
    if target is None:
        folders = FOLDER_OUTPUTS.get(made_by or "", ())
        target = next((p for p in list(Path(path).parents)[:2] if p.name in folders), None)
    return (
        f"{rule}regenerate it with `snakemake --cores 2 --force {target or path}` (plus the --configfile/--config "
        "options of your run), then rerun snakemake"
    )


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _commit(
    tmp: Path,
    path: Path,
    made_by: str | None,
    settings: Mapping[str, Any] | None,
    description: Mapping[str, Any],
) -> None:
    """Move a fully written temporary file into place, with its manifest when it is an intermediate file.

    The manifest's temporary file is complete before either rename; the data is renamed first, so an interruption
    between the two leaves a stale manifest, which the reader refuses, never a silently wrong file.
    """
    if made_by is None:
        hard_stop.renaming()
        tmp.replace(path)
        return
    manifest = {
        "mtsig_manifest": MANIFEST_VERSION,
        "file": path.name,
        "made_by": made_by,
        "bytes": tmp.stat().st_size,
        "sha256": _sha256(tmp),
        **description,
        "settings": dict(settings or {}),
    }
    final = manifest_path(path)
    manifest_tmp = temporary_path(final)
    manifest_tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    hard_stop.renaming()
    tmp.replace(path)
    hard_stop.renaming()
    manifest_tmp.replace(final)


def verify_intermediate(
    path: str | os.PathLike[str],
    made_by: str | None = None,
    *,
    target: str | os.PathLike[str] | None = None,
    expected_format: str | None = None,
) -> dict[str, Any]:
    """Check an intermediate file against its manifest (size, sha256, format) and return the manifest.

    Args:
        path: the file.
        made_by: the rule that writes it (named in the error; taken from the manifest when not given).
        target: the declared output holding the file when that is a directory (for the regenerate command).
        expected_format: ``tsv``, ``npz`` or ``text``.

    Raises:
        InputError: the file or its manifest is missing or unreadable, or the file's size or sha256 differs from
            the manifest's (truncated, edited or half-written), or it is not of the expected format. The message
            names the file, the rule that makes it and the command that regenerates it.
    """
    path = Path(path)
    mpath = manifest_path(path)

    def fail(problem: str, rule: str | None = made_by) -> InputError:
        return InputError(f"{problem}; {regenerate_hint(path, rule, target)}", path)

    if not path.is_file():
        raise fail("intermediate file is missing")
    try:
        manifest = json.loads(mpath.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise fail(
            f"intermediate file has no manifest {mpath.name} (written by hand or by an older mtsig)"
        ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        raise fail(f"the manifest {mpath.name} of this intermediate file is unreadable") from None
    required = {"mtsig_manifest", "made_by", "bytes", "sha256", "format"}
    if not isinstance(manifest, dict) or not required <= set(manifest):
        raise fail(f"the manifest {mpath.name} of this intermediate file is incomplete")
    rule = made_by or str(manifest["made_by"])
    size = path.stat().st_size
    if size != manifest["bytes"]:
        raise fail(
            f"intermediate file is truncated or changed: {size} bytes where its manifest records {manifest['bytes']}",
            rule,
        )
    if _sha256(path) != manifest["sha256"]:
        raise fail(
            "intermediate file is corrupted: its sha256 differs from the one its manifest records", rule
        )
    if expected_format is not None and manifest["format"] != expected_format:
        raise fail(f"expected a {expected_format} file, its manifest says {manifest['format']}", rule)
    return manifest


def write_tsv(
    frame: pd.DataFrame,
    path: str | os.PathLike[str],
    *,
    made_by: str | None = None,
    settings: Mapping[str, Any] | None = None,
) -> None:
    """Write a tab-separated table, atomically (a failure leaves no partial file).

    ``made_by`` (the rule writing it) marks an intermediate file: a manifest is written beside it
    (:func:`verify_intermediate`), recording also ``settings``, the options it was made with.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temporary_path(path)
    frame.to_csv(tmp, sep="\t", index=False, lineterminator="\n")
    description = {"format": "tsv", "columns": [str(c) for c in frame.columns], "rows": len(frame)}
    _commit(tmp, path, made_by, settings, description)


def read_tsv(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a table written by :func:`write_tsv`; name columns stay strings (a system may be called ``1`` or ``NA``)."""
    import pandas as pd

    # Floats read back exactly as written: pandas 2 needs float_precision="round_trip"; pandas 3 parses exactly by
    # default and deprecates the argument.
    round_trip = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}
    names = {
        c: str
        for c in (
            "system",
            "sys_x",
            "sys_y",
            "annotator",
            "metric",
            "test",
            "gold",
            "conclusion",
            "doc_id",
            "system1",
            "system2",
            "rater",
            "procedure",
            "procedure_a",
            "procedure_b",
            "lp",
        )
    }
    return pd.read_csv(path, sep="\t", keep_default_na=False, na_values=[""], dtype=names, **round_trip)


def read_intermediate_tsv(
    path: str | os.PathLike[str],
    made_by: str,
    *,
    columns: tuple[str, ...] | list[str] = (),
    target: str | os.PathLike[str] | None = None,
) -> pd.DataFrame:
    """Read a table written by :func:`write_tsv` with ``made_by``, checked against its manifest, with the
    ``columns`` the caller needs. The manifest's settings are in ``frame.attrs["settings"]``.

    Raises:
        InputError: see :func:`verify_intermediate`; or the table does not parse, lacks a needed column or its
            columns or row count differ from the manifest's.
    """
    import pandas as pd

    manifest = verify_intermediate(path, made_by, target=target, expected_format="tsv")
    hint = regenerate_hint(path, made_by, target)
    try:
        frame = read_tsv(path)
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError) as error:
        raise InputError(f"not a readable table ({error}); {hint}", path) from None
    recorded = manifest.get("columns")
    if recorded is not None and [str(c) for c in frame.columns] != recorded:
        raise InputError(f"columns {list(frame.columns)} differ from the manifest's {recorded}; {hint}", path)
    if "rows" in manifest and len(frame) != manifest["rows"]:
        raise InputError(f"{len(frame)} rows where the manifest records {manifest['rows']}; {hint}", path)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(f"missing column(s) {', '.join(missing)}; {hint}", path)
    frame.attrs["settings"] = SharedSettings(manifest.get("settings", {}))
    return frame


class SharedSettings(dict):
    """A manifest's settings in a table's ``attrs``, shared, not copied: pandas deep-copies a frame's ``attrs``
    into every frame derived from it (each selection, merge or column), and a tests table's settings hold every
    test's signature, which made a tenth of an evaluate job's CPU. They are read, never changed."""

    def __deepcopy__(self, memo: dict) -> SharedSettings:
        return self


def write_text(
    text: str,
    path: str | os.PathLike[str],
    *,
    made_by: str | None = None,
    settings: Mapping[str, Any] | None = None,
) -> None:
    """Write a text file atomically; ``made_by`` marks an intermediate file (a manifest beside it)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temporary_path(path)
    tmp.write_text(text, encoding="utf-8")
    _commit(tmp, path, made_by, settings, {"format": "text", "lines": text.count("\n")})


def write_markdown(
    text: str,
    path: str | os.PathLike[str],
    html: str | os.PathLike[str],
    *,
    made_by: str | None = None,
    settings: Mapping[str, Any] | None = None,
) -> None:
    """A Markdown table (:func:`write_text`) and, at ``html``, the same as an HTML page, which is what
    ``snakemake --report`` shows (:func:`mtsig.report.html.markdown_page`; the report offers Markdown only as a
    download)."""
    from mtsig.report.html import markdown_page

    write_text(text, path, made_by=made_by, settings=settings)
    write_text(markdown_page(text), html)


def read_intermediate_text(
    path: str | os.PathLike[str],
    made_by: str | None = None,
    *,
    target: str | os.PathLike[str] | None = None,
) -> str:
    """A text file written by :func:`write_text` with ``made_by``, checked against its manifest."""
    verify_intermediate(path, made_by, target=target, expected_format="text")
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(f"not UTF-8 text; {regenerate_hint(path, made_by, target)}", path) from None


def _write_npz(tmp: Path, arrays: Mapping[str, np.ndarray]) -> dict[str, Any]:
    """Write arrays as a zip of ``.npy`` members with fixed timestamps; return their shapes and dtypes."""
    description = {}
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_STORED) as archive:
        for name in sorted(arrays):
            array = np.asarray(arrays[name])
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, array, allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=_FIXED_ZIP_TIME)
            info.external_attr = 0o644 << 16
            archive.writestr(info, buffer.getvalue())
            description[name] = {"shape": list(array.shape), "dtype": array.dtype.str}
    return {"format": "npz", "arrays": description}


def save_arrays(path: str | os.PathLike[str], **arrays: np.ndarray) -> None:
    """Save arrays as an ``.npz`` readable by ``np.load``, byte-identical for identical arrays."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temporary_path(path)
    _write_npz(tmp, arrays)
    hard_stop.renaming()
    tmp.replace(path)


def save_intermediate_arrays(
    path: str | os.PathLike[str],
    arrays: Mapping[str, np.ndarray],
    *,
    made_by: str,
    settings: Mapping[str, Any] | None = None,
) -> None:
    """:func:`save_arrays` for an intermediate file: a manifest (shape and dtype of every array, size, sha256,
    ``settings``) is written beside it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temporary_path(path)
    description = _write_npz(tmp, arrays)
    _commit(tmp, path, made_by, settings, description)


def load_arrays(path: str | os.PathLike[str]) -> dict[str, np.ndarray]:
    """Load every array of an ``.npz`` file into memory."""
    with np.load(path, allow_pickle=False) as data:
        return {name: data[name] for name in data.files}


def load_intermediate_arrays(
    path: str | os.PathLike[str],
    made_by: str,
    *,
    required: tuple[str, ...] | list[str] = (),
    target: str | os.PathLike[str] | None = None,
) -> dict[str, np.ndarray]:
    """Every array of an intermediate ``.npz``, checked against its manifest (size, sha256, and the shape and
    dtype of every array) and for the ``required`` arrays.

    Raises:
        InputError: see :func:`verify_intermediate`; or the file is not a readable ``.npz``, an array differs
            from the manifest's description, or a required array is missing.
    """
    manifest = verify_intermediate(path, made_by, target=target, expected_format="npz")
    hint = regenerate_hint(path, made_by, target)
    try:
        arrays = load_arrays(path)
    except _ZIP_ERRORS as error:
        raise InputError(
            f"not a readable .npz file ({type(error).__name__}: {error}); {hint}", path
        ) from None
    described = manifest.get("arrays", {})
    if set(arrays) != set(described):
        raise InputError(
            f"holds arrays {sorted(arrays)}, its manifest lists {sorted(described)}; {hint}", path
        )
    for name, array in arrays.items():
        if list(array.shape) != described[name]["shape"] or array.dtype.str != described[name]["dtype"]:
            raise InputError(
                f"array {name!r} is {array.dtype.str} {list(array.shape)}, its manifest records "
                f"{described[name]['dtype']} {described[name]['shape']}; {hint}",
                path,
            )
    missing = [name for name in required if name not in arrays]
    if missing:
        raise InputError(f"missing array(s) {', '.join(missing)}; {hint}", path)
    return arrays


def save_stats(
    path: str | os.PathLike[str],
    stats: np.ndarray,
    systems: list[str],
    details: str,
    options: Mapping[str, Any],
) -> None:
    """Store a metric's sufficient statistics (systems x segments x k) with the system names, its settings and
    the options it was built with (JSON), so that later steps score the statistics with the same settings.
    The file is an intermediate file of rule ``metric_stats`` (a manifest beside it records the metric, its
    options and the shape)."""
    metric = metric_name_of(path)
    save_intermediate_arrays(
        path,
        {
            "stats": stats,
            "systems": np.asarray(systems, dtype=str),
            "details": np.asarray(details),
            "options": np.asarray(json.dumps(dict(options), sort_keys=True)),
        },
        made_by="metric_stats",
        settings={"metric": metric, "options": dict(options), "details": details},
    )


def load_stats(path: str | os.PathLike[str]) -> tuple[np.ndarray, list[str], str, dict[str, Any]]:
    """Inverse of :func:`save_stats`: (stats, system names, details, metric options).

    Raises:
        InputError: the file fails its manifest check (:func:`load_intermediate_arrays`), or its arrays are
            inconsistent: statistics that are not systems x segments x k numbers, one row per system name, or
            options that are not a JSON mapping. The message names the file and how to regenerate it.
    """
    arrays = load_intermediate_arrays(
        path, "metric_stats", required=("stats", "systems", "details", "options")
    )
    hint = regenerate_hint(path, "metric_stats", None)
    stats, systems = arrays["stats"], [str(s) for s in arrays["systems"]]
    if stats.ndim != 3 or not np.issubdtype(stats.dtype, np.number):
        raise InputError(
            f"statistics must be systems x segments x k numbers, found {stats.dtype} {stats.shape}; {hint}",
            path,
        )
    if stats.shape[0] != len(systems) or len(set(systems)) != len(systems):
        raise InputError(f"{stats.shape[0]} rows of statistics for system names {systems}; {hint}", path)
    try:
        options = json.loads(str(arrays["options"]))
    except json.JSONDecodeError:
        options = None
    if not isinstance(options, dict):
        raise InputError(f"the recorded metric options are not a JSON mapping; {hint}", path)
    return stats, systems, str(arrays["details"]), options


def metric_name_of(path: str | os.PathLike[str]) -> str:
    """``results/x/stats/bleu.npz`` -> ``bleu``."""
    return Path(path).stem


#: What one job per experiment writes for each of its metrics, by kind: the name (of the metric) in the folder
#: output that holds it. Rule metric_stats' folder ``stats`` holds the statistics; rule merge_tests' folders
#: ``tests``, ``intervals`` and ``distributions`` hold the tests table, the pair and the system intervals, and a
#: folder of the kept distributions.
PER_METRIC_NAMES = {
    "stats": "{metric}.npz",
    "tests": "{metric}.tsv",
    "intervals": "{metric}.tsv",
    "system_intervals": "{metric}.systems.tsv",
    "distributions": "{metric}",
}

#: The rules whose outputs are such folders, with the names of those folders: the rules declare their folder
#: outputs from it (``folder_outputs`` in workflow/rules/common.smk), and a file in one is regenerated by forcing
#: its folder (:func:`regenerate_hint`).
FOLDER_OUTPUTS = {"metric_stats": ("stats",), "merge_tests": ("tests", "intervals", "distributions")}


def per_metric_path(folder: str | os.PathLike[str], kind: str, metric: str) -> Path:
    """Where ``metric``'s file of ``kind`` (:data:`PER_METRIC_NAMES`) is in ``folder``."""
    return Path(folder) / PER_METRIC_NAMES[kind].format(metric=metric)
