"""The public data: a sources manifest (origin and sha256 of every file), verified download, derived files.

``data/sources.tsv`` lists, per file the pipeline reads, its dataset folder, path, sha256 and public origin (a URL
pinned to a commit), or ``derived:<recipe>(<input>)`` for a file rebuilt from another file of its folder (the WMT22
ja-en and ru-en segment-id maps and reconstructed raw scores; see each folder's README). A download goes to a temporary file, is checked against its sha256, and only
then renamed into place: a checksum mismatch or an interrupted transfer leaves nothing half-written.
"""

from __future__ import annotations

import hashlib
import os
import re
import urllib.request
from collections.abc import Callable, Iterable
from pathlib import Path

import pandas as pd

from mtsig.errors import InputError
from mtsig.io.documents import read_wmt_xml_documents

MANIFEST_COLUMNS = ["dataset", "path", "sha256", "source"]


def read_manifest(path: str | Path) -> pd.DataFrame:
    """The sources manifest (TSV: dataset, path, sha256, source)."""
    manifest = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    if list(manifest.columns) != MANIFEST_COLUMNS:
        raise InputError(f"expected columns {MANIFEST_COLUMNS}, found {list(manifest.columns)}", path, 1)
    return manifest


def sha256_file(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _install_verified(tmp: Path, dest: Path, sha256: str, origin: str) -> None:
    """Rename ``tmp`` to ``dest`` if its checksum is right; otherwise delete it and raise."""
    actual = sha256_file(tmp)
    if actual != sha256:
        tmp.unlink(missing_ok=True)
        raise InputError(f"checksum mismatch for {origin}: expected sha256 {sha256}, got {actual}", dest)
    tmp.replace(dest)


def download_file(url: str, dest: Path, sha256: str, *, timeout: float = 60.0) -> None:
    """Download ``url`` to ``dest`` through a temporary file, verifying its sha256 before it appears."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".part")
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response, tmp.open("wb") as out:
            while block := response.read(1 << 20):
                out.write(block)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _install_verified(tmp, dest, sha256, url)


def derive_sid2line(xml_path: Path, out: Path) -> None:
    """Rebuild ``<lp>.sid2line.tsv``: WMT22 DA segment ids number the segments after sorting the documents by id
    (plain code-point order), keeping the order inside each document (wmt22-ja-en/README.txt)."""
    doc_ids = read_wmt_xml_documents(xml_path)
    positions: dict[str, list[int]] = {}
    for line, doc in enumerate(doc_ids, start=1):
        positions.setdefault(str(doc), []).append(line)
    rows = ["da_sid\tdoc_id\tseg_id_in_doc\ttxt_line"]
    sid = 0
    for doc in sorted(positions):
        for seg, line in enumerate(positions[doc], start=1):
            sid += 1
            rows.append(f"{sid}\t{doc}\t{seg}\t{line}")
    out.write_text("\n".join(rows) + "\n", encoding="utf-8")


def derive_reconstructed_raw(stnd_path: Path, out: Path, mean_sd_path: Path | None = None) -> None:
    """Rebuild ``ad-<lp>-good-raw.RECONSTRUCTED.tsv``: each rating's raw 0-100 score is ``round(z * sd_w +
    mean_w)`` with worker w's printed mean and sd (the inverse of WMT's standardisation; wmt22-ja-en/README.txt).
    Same rows in the same order, all tab-separated, the z column replaced by the integer raw score. The moments
    are read from ``ad-<lp>-trk-mean-sd.txt`` beside ``ad-<lp>-good-stnd.csv`` unless ``mean_sd_path`` is given."""
    from mtsig.io.human import load_r_mean_sd

    mean_sd_path = mean_sd_path or stnd_path.with_name(
        stnd_path.name.replace("-good-stnd.csv", "-trk-mean-sd.txt")
    )
    table = load_r_mean_sd(mean_sd_path)
    moments = dict(zip(table["annotator"], zip(table["mean"], table["sd"], strict=True), strict=True))
    lines = stnd_path.read_text(encoding="utf-8").splitlines()
    header = lines[0].split()
    worker, score = header.index("WorkerId"), header.index("score")
    rows = ["\t".join(header)]
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if fields[worker] not in moments:
            raise InputError(
                f"worker {fields[worker]} has no mean/sd in {mean_sd_path.name}", stnd_path, number
            )
        mean, sd = moments[fields[worker]]
        fields[score] = str(int(round(float(fields[score]) * sd + mean)))
        rows.append("\t".join(fields))
    out.write_text("\n".join(rows) + "\n", encoding="utf-8")


#: ``derived:<recipe>(<input>)``: the function that rebuilds a file from ``<input>``, a path in the same folder.
DERIVATIONS: dict[str, Callable[[Path, Path], None]] = {
    "sid2line": derive_sid2line,
    "reconstructed_raw": derive_reconstructed_raw,
}


def derivation(source: str) -> tuple[str, str]:
    """``(recipe, input)`` of a manifest source ``derived:<recipe>(<input>)`` (input "" when there is none)."""
    match = re.fullmatch(r"derived:([\w-]+)(?:\((.*)\))?", source)
    if match is None:
        raise InputError(f"not a derived source: {source!r}")
    return match.group(1), match.group(2) or ""


def fetch(
    manifest: pd.DataFrame,
    root: Path,
    *,
    datasets: Iterable[str] | None = None,
    downloader: Callable[[str, Path, str], None] = download_file,
) -> list[Path]:
    """Obtain every manifest file missing under ``root`` (downloaded, or derived after its inputs), verified.

    Files already present are verified, not fetched again. Returns the paths written.
    """
    wanted = manifest if datasets is None else manifest[manifest["dataset"].isin(list(datasets))]
    written: list[Path] = []
    # downloads first: derived files are built from downloaded ones
    for row in sorted(wanted.itertuples(index=False), key=lambda r: r.source.startswith("derived:")):
        dest = root / row.dataset / row.path
        if dest.exists():
            if sha256_file(dest) != row.sha256:
                raise InputError(f"present but its sha256 differs from the manifest ({row.sha256})", dest)
            continue
        if row.source.startswith("derived:"):
            recipe, source = derivation(row.source)
            if recipe not in DERIVATIONS or not source:
                raise InputError(
                    f"{row.path} is derived ({row.source}); obtain it with the data folder's README instructions",
                    dest,
                )
            tmp = dest.with_name(dest.name + ".part")
            DERIVATIONS[recipe](root / row.dataset / source, tmp)
            _install_verified(tmp, dest, row.sha256, row.source)
        else:
            downloader(row.source, dest, row.sha256)
        written.append(dest)
    return written


def verify(manifest: pd.DataFrame, root: Path) -> list[str]:
    """Problems with the data under ``root``: missing files and checksum mismatches (empty when all is well)."""
    problems = []
    for row in manifest.itertuples(index=False):
        path = root / row.dataset / row.path
        if not path.exists():
            problems.append(f"{path}: missing")
        elif sha256_file(path) != row.sha256:
            problems.append(f"{path}: sha256 differs from the manifest")
    return problems


def default_manifest() -> Path:
    """``data/sources.tsv`` of the repository."""
    return Path(
        os.environ.get("MTSIG_MANIFEST", Path(__file__).resolve().parents[2] / "data" / "sources.tsv")
    )
