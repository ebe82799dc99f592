"""Steps of ``workflow/rules/data.smk``: the synthetic experiments' data, prepared texts and document ids."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from mtsig.errors import InputError
from mtsig.io.documents import read_documents
from mtsig.io.text import load_texts
from mtsig.pipeline import config as mtsig_config
from mtsig.settings import TextSources, build
from mtsig.steps.files import (
    write_text,
    write_tsv,
)

if TYPE_CHECKING:
    from mtsig.studies.synthetic import SyntheticSpec

log = logging.getLogger("mtsig")


def prepare_texts(
    sources: TextSources | Mapping[str, Any],
    data_root: str | Path,
    *,
    texts: str | Path,
    documents: str | Path,
    experiment: str = "",
) -> None:
    """Validate and prepare an experiment's texts (``sources``: what rule ``prepare_texts`` reads of it,
    :class:`mtsig.settings.TextSources`): ``texts/reference.txt`` (with several references, the first; the others
    ``texts/reference.2.txt``, ...), ``texts/systems/<name>.txt`` (HTML entities unescaped if ``unescape_html``),
    ``texts/systems.txt`` (the system order) and ``documents.tsv`` (segment, doc_id; empty doc ids when the
    experiment names no document file). With ``skip_first_line`` line 0 of every text file and of the documents
    file is left out (:func:`without_first_line`; the files are checked parallel as they are).

    An experiment with a ``texts:`` block takes its texts and documents from an MQM file (:func:`mqm_texts`); one
    without texts gets only ``texts/systems.txt`` and the documents of its scores files (:func:`scores_test_set`).
    """
    sources = build(TextSources, sources, f"experiments.{experiment}")
    if not sources.has_texts:
        systems, doc_ids = scores_test_set(sources, data_root)
        write_text(
            "".join(name + "\n" for name in systems),
            Path(texts) / "systems.txt",
            made_by="prepare_texts",
            settings={"systems": len(systems), "segments": len(doc_ids)},
        )
        write_segment_documents(doc_ids, documents)
        log.info("no texts: %d systems x %d segments (from the scores files)", len(systems), len(doc_ids))
        return
    more_references: list[list[str]] = []
    if sources.texts is not None:
        reference, outputs, doc_ids = mqm_texts(sources, data_root, experiment)
    else:
        reference_files = mtsig_config.reference_paths(sources, data_root)
        references, outputs = load_texts(
            reference_files, mtsig_config.output_paths(sources, data_root), unescape=sources.unescape_html
        )
        streams = references if isinstance(references[0], list) else [references]
        skip = int(sources.skip_first_line)
        if skip:
            streams, outputs = without_first_line(streams, outputs, reference_files)
        reference, more_references = streams[0], streams[1:]
        doc_ids = np.full(len(reference), "", dtype=object)
        if sources.documents is not None:
            doc_ids = read_documents(
                mtsig_config.data_path(data_root, sources.documents.path),
                sources.documents.format,
                len(reference) + skip,
            )[skip:]
    write_prepared_texts(reference, outputs, Path(texts), more_references=more_references)
    write_segment_documents(doc_ids, documents)
    log.info("%d systems x %d segments; %d documents", len(outputs), len(reference), len(set(doc_ids)))


def without_first_line(
    streams: Sequence[list[str]], outputs: Mapping[str, list[str]], reference_files: Sequence[Path]
) -> tuple[list[list[str]], dict[str, list[str]]]:
    """The reference streams and outputs without their line 0 (``skip_first_line``: WMT24's canary line, which
    no rating refers to; segment i is then line i + 1 of every file). A file of one line leaves no segment: an
    error naming it."""
    if len(streams[0]) < 2:
        raise InputError("skip_first_line: the reference has no line after its first", reference_files[0])
    return [lines[1:] for lines in streams], {name: lines[1:] for name, lines in outputs.items()}


def write_segment_documents(doc_ids: Sequence[str] | np.ndarray, documents: str | Path) -> None:
    """``documents.tsv``: segment, doc_id (empty ids: no documents), an intermediate of rule prepare_texts."""
    write_tsv(
        pd.DataFrame({"segment": np.arange(len(doc_ids)), "doc_id": doc_ids}),
        documents,
        made_by="prepare_texts",
        settings={"segments": len(doc_ids)},
    )


def mqm_texts(
    sources: TextSources, data_root: str | Path, experiment: str = ""
) -> tuple[list[str], dict[str, list[str]], np.ndarray]:
    """Reference, outputs of the experiment's ``systems`` and documents from an MQM file (``texts: {format: mqm,
    path, reference_system}``): the targets with the ``<v>`` span tags removed (Freitag et al. 2021's release);
    the reference is the ``reference_system``'s text, which is then not a system.

    Raises:
        InputError: the reference is also listed as a system; a system is absent or lacks an annotated segment.
    """
    from mtsig.io.mqm import read_mqm

    if sources.texts is None:
        raise InputError(f"experiment {experiment!r} has no texts block (an MQM file)")
    reference_system = sources.texts.reference_system
    if reference_system in sources.systems:
        raise InputError(
            f"experiment {experiment!r}: {reference_system!r} is the reference (texts.reference_system) and "
            "cannot also be a system"
        )
    annotations = read_mqm(
        mtsig_config.data_path(data_root, sources.texts.path), reference_system=reference_system
    )
    return annotations.references(), annotations.system_outputs(list(sources.systems)), annotations.documents


def scores_test_set(sources: TextSources, data_root: str | Path) -> tuple[list[str], np.ndarray]:
    """The systems and segment documents of an experiment without texts (:func:`shared_test_set` of its declared
    metrics, ``sources.segment_scores``): every scores file must score every system of ``systems`` on every
    segment, all on one number of segments; the documents are the first file's that has them, else empty ids.

    Raises:
        InputError: naming the scores file (and line): a system or segment missing, another segment count.
    """
    from mtsig.metrics.segment_scores import SegmentScores, shared_test_set

    systems = list(sources.systems)
    metrics = [
        SegmentScores.from_declaration(name, declaration, Path(data_root))
        for name, declaration in sources.segment_scores.items()
    ]
    n_segments, found = shared_test_set(metrics, systems)
    return systems, found if found is not None else np.full(n_segments, "", dtype=object)


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


def write_synthetic_experiment(spec: SyntheticSpec, out_dir: str | Path) -> None:
    """Write the synthetic experiment ``spec`` (:mod:`mtsig.studies.synthetic`) into ``out_dir``: reference.txt,
    system.<name>.txt, documents.tsv, ratings.tsv and truth.tsv."""
    from mtsig.studies.synthetic import generate_ratings, generate_texts, system_names

    out_dir = Path(out_dir)
    references, outputs, quality = generate_texts(spec)
    write_text("\n".join(references) + "\n", out_dir / "reference.txt")
    for name, lines in outputs.items():
        write_text("\n".join(lines) + "\n", out_dir / f"system.{name}.txt")
    docs = [f"doc{i // spec.segments_per_document:04d}" for i in range(spec.segments)]
    write_text("\n".join(docs) + "\n", out_dir / "documents.tsv")
    write_tsv(generate_ratings(spec, quality), out_dir / "ratings.tsv")
    truth = pd.DataFrame(
        {"system": system_names(spec), "corruption": spec.corruption(), "mean_quality": quality.mean(axis=1)}
    )
    write_tsv(truth, out_dir / "truth.tsv")


def generate_synthetic(spec: Mapping[str, Any], synthetic: str | Path) -> None:
    """A synthetic experiment with planted system quality and biased annotators (:mod:`mtsig.studies.synthetic`),
    written into the directory ``synthetic``."""
    from mtsig.studies.synthetic import SyntheticSpec

    planted = SyntheticSpec(**spec)
    write_synthetic_experiment(planted, Path(synthetic))
    log.info("synthetic experiment: %s", planted)
