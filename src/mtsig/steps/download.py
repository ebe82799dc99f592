"""Step of ``workflow/rules/download.smk``: the verified download of the public data a run reads."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from mtsig.errors import InputError

log = logging.getLogger("mtsig")


def download_dataset(dataset: str, manifest: str | Path, *, files: Sequence[str]) -> None:
    """Download (and derive) the files of one dataset of the data manifest (``data/sources.tsv``), each verified by
    its sha256: the rule's outputs ``files``, ``<data root>/<dataset>/<path>`` for paths of the manifest (the files
    the run reads, or the dataset's other files: :func:`mtsig.pipeline.data.dataset_downloads`; a file derived from
    one the rule does not make finds it in place, an input of the rule). ``$MTSIG_DATA_MIRROR`` replaces the host
    of every URL.

    A file that cannot be obtained (not found, a checksum mismatch, the network failing on every try) ends the job
    with one line naming the dataset, the file and the reason, and the two ways to provide the data; nothing is
    left half-written (Snakemake removes the job's other outputs).
    """
    import os

    from mtsig.pipeline.config import DATA_ROOT_ENV
    from mtsig.pipeline.data import MIRROR_ENV, PARALLEL_DOWNLOADS, DownloadError, fetch, read_manifest

    rows = read_manifest(manifest)
    rows = rows[rows["dataset"] == dataset]
    by_ending = {f"/{dataset}/{path}": index for index, path in zip(rows.index, rows["path"], strict=True)}
    roots, chosen = set(), []
    for file in map(str, files):
        ending = next((e for e in by_ending if file.endswith(e)), None)
        if ending is None:
            raise InputError(f"not a file of dataset {dataset} in the manifest", file)
        roots.add(file.removesuffix(ending))
        chosen.append(by_ending[ending])
    if len(roots) != 1:
        raise InputError(f"the files of dataset {dataset} are not in one data root: {sorted(roots)}")
    rows, root = rows.loc[chosen], Path(roots.pop())
    try:
        written = fetch(
            rows,
            root,
            mirror=os.environ.get(MIRROR_ENV) or None,
            workers=PARALLEL_DOWNLOADS,
        )
    except DownloadError as error:
        retry = "rerun to try again" if error.transient else "the origin does not serve the pinned file"
        log.error(
            "mtsig: error: dataset %s: %s; %s, or set %s to a data root that has %s/ (data/README.md)",
            dataset,
            error,
            retry,
            DATA_ROOT_ENV,
            dataset,
        )
        raise SystemExit(2) from None
    log.info("dataset %s: %d files obtained and verified", dataset, len(written))
