"""The public data: a sources manifest (origin and sha256 of every file), verified download, derived files.

``data/sources.tsv`` lists, per file the pipeline reads, its dataset folder, path, sha256 and public origin (a URL
pinned to a commit), or ``derived:<recipe>(<input>)`` for a file rebuilt from public data: from another file of its
folder (the WMT22 ja-en and ru-en segment-id maps and reconstructed raw scores; see each folder's README), or, for
``lp_filter``, from a file of the organisers' repository of which it keeps one language pair's rows.

A download goes to a temporary ``.part`` file, is checked against its sha256, and only then renamed into place: a
checksum mismatch or an interrupted transfer leaves nothing half-written. A transfer that fails on the way (no
connection, a connection dropped mid-file, a timeout, a server error) is tried again after 1, 2, 4, ... seconds;
a file the server does not have (HTTP 404) or whose checksum differs is not. ``$MTSIG_DATA_MIRROR`` (a base URL
such as ``http://127.0.0.1:8000/``) replaces the scheme and host of every source URL, keeping its path.
"""

from __future__ import annotations

import glob
import gzip
import hashlib
import http.client
import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import pandas as pd

from mtsig.errors import InputError
from mtsig.io.documents import read_wmt_xml_documents
from mtsig.runtime import hard_stop

MANIFEST_COLUMNS = ["dataset", "path", "sha256", "source"]

#: Environment variable: a base URL replacing the scheme and host of every source URL (a mirror, or a test server).
MIRROR_ENV = "MTSIG_DATA_MIRROR"

#: Tries per file, and the wait before the second one (doubled before each further one: 1, 2, 4, 8 s).
DOWNLOAD_ATTEMPTS = 5
BACKOFF_SECONDS = 1.0

#: Files of one dataset downloaded at the same time.
PARALLEL_DOWNLOADS = 8

#: HTTP statuses worth trying again: the server may answer the next request.
RETRYABLE_HTTP_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})

#: Suffix of the temporary files a download or derivation writes before the checked file is renamed into place.
PARTIAL_SUFFIX = ".part"

Downloader = Callable[[str, Path, "str | None"], None]


class DownloadError(InputError):
    """A file could not be obtained: not found at its origin, a checksum mismatch, or the transfer failed on every
    try (``transient``: a later run may succeed). The message names the file (its destination) and the reason."""

    def __init__(self, problem: str, path: str | Path | None = None, *, transient: bool = False) -> None:
        super().__init__(problem, path)
        self.transient = transient


class _TransientError(Exception):
    """A failed transfer that may succeed when tried again."""


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


def mirrored(url: str, mirror: str | None) -> str:
    """``url`` with its scheme and host replaced by ``mirror`` (a base URL, possibly with a path prefix), its path
    and query kept; ``url`` itself without a mirror."""
    if not mirror:
        return url
    parts = urllib.parse.urlsplit(url)
    return mirror.rstrip("/") + parts.path + (f"?{parts.query}" if parts.query else "")


def _install_verified(tmp: Path, dest: Path, sha256: str, origin: str) -> None:
    """Rename ``tmp`` to ``dest`` if its checksum is right; otherwise delete it and raise."""
    actual = sha256_file(tmp)
    if actual != sha256:
        tmp.unlink(missing_ok=True)
        raise DownloadError(f"checksum mismatch for {origin}: expected sha256 {sha256}, got {actual}", dest)
    hard_stop.renaming()
    tmp.replace(dest)


def _transfer(url: str, tmp: Path, timeout: float) -> None:
    """Copy the body at ``url`` into ``tmp``. Raises :class:`_TransientError` for what may succeed when tried
    again (no connection, a dropped connection, fewer bytes than announced, a timeout, a retryable status), and
    :class:`DownloadError` (without a path) for a status that will not change (such as 404)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response, tmp.open("wb") as out:
            announced = response.headers.get("Content-Length")
            received = 0
            while block := response.read(1 << 20):
                out.write(block)
                received += len(block)
    except urllib.error.HTTPError as error:
        if error.code in RETRYABLE_HTTP_STATUSES:
            raise _TransientError(f"HTTP {error.code} {error.reason}") from error
        raise DownloadError(f"{url} answered HTTP {error.code} {error.reason}") from error
    except urllib.error.URLError as error:  # no connection: refused, unknown host, ...
        raise _TransientError(str(error.reason)) from error
    except (http.client.HTTPException, OSError) as error:  # dropped, reset or timed out during the transfer
        raise _TransientError(f"{type(error).__name__}: {error}") from error
    if announced is not None and received != int(announced):
        raise _TransientError(f"connection dropped after {received} of {announced} bytes")


def download_file(
    url: str,
    dest: Path,
    sha256: str | None,
    *,
    timeout: float = 60.0,
    attempts: int | None = None,
    backoff_seconds: float | None = None,
    sleep: Callable[[float], None] | None = None,
) -> None:
    """Download ``url`` to ``dest`` through ``dest.part``, verifying its sha256 (unless None: an intermediate
    whose product is verified) before it appears. A transient failure is tried again after ``backoff_seconds``,
    then twice as long each time, ``attempts`` tries in all (by default :data:`BACKOFF_SECONDS` and
    :data:`DOWNLOAD_ATTEMPTS`, read when called).

    Raises:
        DownloadError: naming ``dest``: not found (or another final HTTP status), a checksum mismatch, or every
            try failed (with the last reason). Nothing is left at ``dest`` or ``dest.part``.
    """
    attempts = DOWNLOAD_ATTEMPTS if attempts is None else attempts
    backoff_seconds = BACKOFF_SECONDS if backoff_seconds is None else backoff_seconds
    sleep = time.sleep if sleep is None else sleep
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + PARTIAL_SUFFIX)
    for attempt in range(1, attempts + 1):
        try:
            _transfer(url, tmp, timeout)
            break
        except _TransientError as error:
            tmp.unlink(missing_ok=True)
            if attempt == attempts:
                raise DownloadError(
                    f"could not download {url} ({attempts} tries): {error}", dest, transient=True
                ) from None
            sleep(backoff_seconds * 2 ** (attempt - 1))
        except DownloadError as error:
            tmp.unlink(missing_ok=True)
            raise DownloadError(error.problem, dest) from None
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    if sha256 is None:
        hard_stop.renaming()
        tmp.replace(dest)
    else:
        _install_verified(tmp, dest, sha256, url)


def probe(url: str, timeout: float = 10.0) -> str | None:
    """None when the host of ``url`` answers (whatever the HTTP status: a missing file is the download's to
    report), else why it cannot be reached (no network, unknown host, refused, timed out)."""
    request = urllib.request.Request(url, method="HEAD")
    try:
        with urllib.request.urlopen(request, timeout=timeout):
            return None
    except urllib.error.HTTPError:
        return None
    except urllib.error.URLError as error:
        return str(error.reason)
    except (http.client.HTTPException, OSError) as error:
        return f"{type(error).__name__}: {error}"


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


def moments_name(stnd_name: str) -> str:
    """The workers' printed means and sds beside a WMT22 standardised rating file: ``ad-<lp>-trk-mean-sd.txt`` for
    ``ad-<lp>-good-stnd.csv`` (the organisers' names; wmt22-ja-en/README.txt)."""
    return stnd_name.replace("-good-stnd.csv", "-trk-mean-sd.txt")


def derive_reconstructed_raw(stnd_path: Path, out: Path, mean_sd_path: Path | None = None) -> None:
    """Rebuild ``ad-<lp>-good-raw.RECONSTRUCTED.tsv``: each rating's raw 0-100 score is ``round(z * sd_w +
    mean_w)`` with worker w's printed mean and sd (the inverse of WMT's standardisation; wmt22-ja-en/README.txt).
    Same rows in the same order, all tab-separated, the z column replaced by the integer raw score. The moments
    are read from ``ad-<lp>-trk-mean-sd.txt`` beside ``ad-<lp>-good-stnd.csv`` unless ``mean_sd_path`` is given."""
    from mtsig.io.human.wmt_mturk_da import load_r_mean_sd

    mean_sd_path = mean_sd_path or stnd_path.with_name(moments_name(stnd_path.name))
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


def filter_language_pair(source: Path, pair: str, out: Path) -> None:
    """Rebuild ``<METRIC>.<lp>.seg.score`` from the WMT20 metrics task's ``<METRIC>.seg.score.gz`` (every pair):
    the lines whose second tab-separated field is ``pair``, unchanged and in order (wmt20-ja-en/PROVENANCE.txt)."""
    wanted = pair.encode()
    with gzip.open(source, "rb") as lines, out.open("wb") as kept:
        for line in lines:
            fields = line.split(b"\t", 2)
            if len(fields) > 1 and fields[1] == wanted:
                kept.write(line)


#: ``derived:<recipe>(<input>)``: the function that rebuilds a file from ``<input>``, a path in the same folder.
DERIVATIONS: dict[str, Callable[[Path, Path], None]] = {
    "sid2line": derive_sid2line,
    "reconstructed_raw": derive_reconstructed_raw,
}

#: ``derived:<recipe>(<pair>, <url>)``: the function that rebuilds a file from a downloaded file and a language pair.
REMOTE_DERIVATIONS: dict[str, Callable[[Path, str, Path], None]] = {
    "lp_filter": filter_language_pair,
}


def derivation(source: str) -> tuple[str, str]:
    """``(recipe, input)`` of a manifest source ``derived:<recipe>(<input>)`` (input "" when there is none)."""
    match = re.fullmatch(r"derived:([\w-]+)(?:\((.*)\))?", source)
    if match is None:
        raise InputError(f"not a derived source: {source!r}")
    return match.group(1), match.group(2) or ""


def remote_derivation(source: str) -> tuple[str, str, str] | None:
    """``(recipe, pair, url)`` of ``derived:<recipe>(<pair>, <url>)`` with a recipe of :data:`REMOTE_DERIVATIONS`,
    else None."""
    if not source.startswith("derived:"):
        return None
    recipe, argument = derivation(source)
    pair, _, url = (part.strip() for part in argument.partition(","))
    if recipe not in REMOTE_DERIVATIONS or not url.startswith(("https://", "http://")):
        return None
    return recipe, pair, url


def obtainable(source: str) -> bool:
    """Whether :func:`fetch` can make a file of this source: a URL, a remote derivation, or a local derivation
    with a recipe and an input (not, e.g., ``derived:mteval-v13a_nist``, the output of a Perl tool)."""
    if source.startswith(("https://", "http://")) or remote_derivation(source) is not None:
        return True
    if source.startswith("derived:"):
        recipe, argument = derivation(source)
        return recipe in DERIVATIONS and bool(argument)
    return False


def derivation_inputs(source: str) -> list[str]:
    """The files of its own folder a local derivation (:data:`DERIVATIONS`) reads: its named input, and for
    ``reconstructed_raw`` the workers' moments beside it (:func:`moments_name`); none for a download."""
    if not source.startswith("derived:") or remote_derivation(source) is not None:
        return []
    recipe, argument = derivation(source)
    if recipe not in DERIVATIONS or not argument:
        return []
    if recipe == "reconstructed_raw":
        stnd = PurePosixPath(argument)
        return [argument, str(stnd.with_name(moments_name(stnd.name)))]
    return [argument]


@dataclass(frozen=True)
class DatasetDownload:
    """What the download rules of one dataset make (paths relative to its folder, in manifest order): ``read``,
    the files the run reads with the files their derivations read (rule ``download_dataset__<dataset>``);
    ``rest``, its other obtainable files (``download_dataset__<dataset>__rest``, which only a target asking for
    them runs: ``snakemake download_data``); ``rest_needs``, the files of ``read`` that a derivation of ``rest``
    reads (that rule's inputs)."""

    read: tuple[str, ...]
    rest: tuple[str, ...]
    rest_needs: tuple[str, ...]


def with_derivation_inputs(manifest: pd.DataFrame, dataset: str, paths: Iterable[str]) -> list[str]:
    """``paths`` of ``dataset`` and every file of its folder their derivations read, recursively, in manifest
    order: what :func:`fetch` must have to make ``paths``."""
    rows = manifest[manifest["dataset"] == dataset]
    sources = dict(zip(rows["path"], rows["source"], strict=True))
    wanted, queue = set(), list(paths)
    while queue:
        path = queue.pop()
        if path not in wanted:
            wanted.add(path)
            queue += derivation_inputs(sources.get(path, ""))
    return [path for path in rows["path"] if path in wanted]


def dataset_downloads(manifest: pd.DataFrame, read: Iterable[tuple[str, str]]) -> dict[str, DatasetDownload]:
    """Dataset -> its :class:`DatasetDownload`, for every dataset with a file :func:`fetch` can make: the run reads
    the ``(dataset, path)`` pairs of ``read``, so that a run downloads only what its rules read."""
    read = set(read)
    downloads = {}
    for dataset, files in obtainable_files(manifest).items():
        reads = [p for p in files if (dataset, p) in read]
        needed = [p for p in with_derivation_inputs(manifest, dataset, reads) if p in files]
        rest = [p for p in files if p not in needed]
        rest_needs = [p for p in with_derivation_inputs(manifest, dataset, rest) if p in needed]
        downloads[dataset] = DatasetDownload(tuple(needed), tuple(rest), tuple(rest_needs))
    return downloads


def obtainable_files(manifest: pd.DataFrame) -> dict[str, list[str]]:
    """Dataset -> the paths (relative to its folder) of the files :func:`fetch` can make, in manifest order."""
    files: dict[str, list[str]] = {}
    for row in manifest.itertuples(index=False):
        if obtainable(row.source):
            files.setdefault(row.dataset, []).append(row.path)
    return files


def _remove_partial_files(dest: Path) -> None:
    """Temporary files an earlier, killed, download or derivation of ``dest`` left behind."""
    for stale in dest.parent.glob(glob.escape(dest.name) + "*" + PARTIAL_SUFFIX):
        stale.unlink(missing_ok=True)


def _obtain_remote(row, dest: Path, downloader: Downloader, mirror: str | None) -> None:
    """Download a row's file, or (a remote derivation) download its input and derive it; verified either way."""
    remote = remote_derivation(row.source)
    if remote is None:
        downloader(mirrored(row.source, mirror), dest, row.sha256)
        return
    recipe, pair, url = remote
    source = dest.with_name(dest.name + ".source" + PARTIAL_SUFFIX)
    tmp = dest.with_name(dest.name + PARTIAL_SUFFIX)
    try:
        downloader(mirrored(url, mirror), source, None)
        REMOTE_DERIVATIONS[recipe](source, pair, tmp)
        _install_verified(tmp, dest, row.sha256, row.source)
    finally:
        source.unlink(missing_ok=True)
        tmp.unlink(missing_ok=True)


def fetch(
    manifest: pd.DataFrame,
    root: Path,
    *,
    datasets: Iterable[str] | None = None,
    downloader: Downloader = download_file,
    mirror: str | None = None,
    workers: int = 1,
) -> list[Path]:
    """Obtain every manifest file missing under ``root`` (downloaded, or derived after its inputs), verified.

    Files already present are verified, not fetched again. Downloads (and remote derivations) run ``workers`` at a
    time; derivations from files of the folder follow. ``mirror`` replaces the scheme and host of every URL
    (:func:`mirrored`). Returns the paths written.

    Raises:
        DownloadError: the first file that could not be obtained (files verified before it stay).
        InputError: a present file whose sha256 differs, or a file no recipe can make.
    """
    wanted = manifest if datasets is None else manifest[manifest["dataset"].isin(list(datasets))]
    remote, local = [], []
    for row in wanted.itertuples(index=False):
        dest = root / row.dataset / row.path
        if dest.exists():
            if sha256_file(dest) != row.sha256:
                raise InputError(f"present but its sha256 differs from the manifest ({row.sha256})", dest)
            continue
        if not obtainable(row.source):
            raise InputError(
                f"{row.path} is derived ({row.source}); obtain it with the data folder's README instructions",
                dest,
            )
        dest.parent.mkdir(parents=True, exist_ok=True)
        _remove_partial_files(dest)
        is_remote = row.source.startswith(("https://", "http://")) or remote_derivation(row.source)
        (remote if is_remote else local).append((row, dest))
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = [pool.submit(_obtain_remote, row, dest, downloader, mirror) for row, dest in remote]
        done, _ = wait(futures, return_when=FIRST_EXCEPTION)
        failed = [future for future in futures if future in done and future.exception() is not None]
        if failed:
            for future in futures:
                future.cancel()
            raise failed[0].exception()  # type: ignore[misc]
    # derived files are built from downloaded ones
    for row, dest in local:
        recipe, source = derivation(row.source)
        tmp = dest.with_name(dest.name + PARTIAL_SUFFIX)
        try:
            DERIVATIONS[recipe](root / row.dataset / source, tmp)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        _install_verified(tmp, dest, row.sha256, row.source)
    return [dest for _, dest in remote + local]


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
        os.environ.get("MTSIG_MANIFEST", Path(__file__).resolve().parents[3] / "data" / "sources.tsv")
    )
