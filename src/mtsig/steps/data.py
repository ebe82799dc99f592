"""Steps of ``workflow/rules/data.smk``: the synthetic experiments' data, prepared texts and document ids, and the
verified download of the public data."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mtsig import config as mtsig_config
from mtsig.io.documents import read_documents
from mtsig.io.text import load_texts
from mtsig.steps.files import (
    write_text,
    write_tsv,
)

log = logging.getLogger("mtsig")


def prepare_texts(
    spec: Mapping[str, Any], data_root: str | Path, *, texts: str | Path, documents: str | Path
) -> None:
    """Validate and prepare an experiment's texts: ``texts/reference.txt`` (with several references, the first;
    the others ``texts/reference.2.txt``, ...), ``texts/systems/<name>.txt`` (HTML entities unescaped if
    ``unescape_html``), ``texts/systems.txt`` (the system order) and ``documents.tsv`` (segment, doc_id; empty doc
    ids when the experiment names no document file)."""
    references, outputs = load_texts(
        mtsig_config.reference_paths(spec, data_root),
        mtsig_config.output_paths(spec, data_root),
        unescape=bool(spec.get("unescape_html", False)),
    )
    streams = references if isinstance(references[0], list) else [references]
    reference = streams[0]
    n_segments = len(reference)
    if "documents" in spec:
        doc_ids = read_documents(
            mtsig_config.data_path(data_root, spec["documents"]["path"]),
            spec["documents"]["format"],
            n_segments,
        )
    else:
        doc_ids = np.full(n_segments, "", dtype=object)
    write_prepared_texts(reference, outputs, Path(texts), more_references=streams[1:])
    write_tsv(
        pd.DataFrame({"segment": np.arange(n_segments), "doc_id": doc_ids}),
        documents,
        made_by="prepare_texts",
        settings={"segments": n_segments},
    )
    log.info("%d systems x %d segments; %d documents", len(outputs), n_segments, len(set(doc_ids)))


def write_prepared_texts(
    reference: Sequence[str],
    outputs: Mapping[str, Sequence[str]],
    texts_dir: Path,
    more_references: Sequence[Sequence[str]] = (),
) -> None:
    """``texts/reference.txt``, ``texts/reference.<k>.txt`` for the k-th further reference (k = 2, 3, ...),
    ``texts/systems/<name>.txt`` and ``texts/systems.txt`` (the system order), each an intermediate file of rule
    ``prepare_texts`` with its manifest."""
    settings = {"systems": len(outputs), "segments": len(reference)}

    def write(lines: Sequence[str], path: Path) -> None:
        write_text("".join(line + "\n" for line in lines), path, made_by="prepare_texts", settings=settings)

    write(reference, texts_dir / "reference.txt")
    for k, lines in enumerate(more_references, start=2):
        write(lines, texts_dir / f"reference.{k}.txt")
    for name, lines in outputs.items():
        write(lines, texts_dir / "systems" / f"{name}.txt")
    write(list(outputs), texts_dir / "systems.txt")


def generate_synthetic(spec: Mapping[str, Any], synthetic: str | Path) -> None:
    """A synthetic experiment with planted system quality and biased annotators (:mod:`mtsig.studies.synthetic`),
    written into the directory ``synthetic``."""
    from mtsig.studies.synthetic import SyntheticSpec, write_synthetic_experiment

    planted = SyntheticSpec(**spec)
    write_synthetic_experiment(planted, Path(synthetic))
    log.info("synthetic experiment: %s", planted)


def download_data(manifest: str | Path, root: str | Path) -> None:
    """Download (and derive) every file of the data manifest (``data/sources.tsv``) into ``root``, each verified
    by its sha256."""
    from mtsig.data import fetch, read_manifest

    written = fetch(read_manifest(manifest), Path(root))
    log.info("%d files obtained and verified", len(written))
