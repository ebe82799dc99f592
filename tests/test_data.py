"""The data layer: the sources manifest, verified downloads that leave nothing half-written, derived files."""

from __future__ import annotations

import gzip
import re
import shutil
from pathlib import Path

import pytest

from mtsig.errors import InputError
from mtsig.pipeline.data import (
    DERIVATIONS,
    dataset_downloads,
    default_manifest,
    derivation,
    fetch,
    filter_language_pair,
    obtainable,
    obtainable_files,
    read_manifest,
    remote_derivation,
    sha256_file,
    verify,
    with_derivation_inputs,
)


@pytest.fixture(scope="module")
def manifest():
    return read_manifest(default_manifest())


def test_manifest_matches_the_data_roots_own_checksums(manifest, data_root: Path) -> None:
    """Every data file listed in each folder's SHA256SUMS is in the manifest with the same sha256."""
    listed = {(row.dataset, row.path): row.sha256 for row in manifest.itertuples()}
    for sums in sorted(data_root.glob("*/SHA256SUMS")):
        for line in sums.read_text().splitlines():
            digest, name = line.split(maxsplit=1)
            name = name.removeprefix("./")
            if name in ("README.txt", "PROVENANCE.txt"):
                continue
            assert listed.get((sums.parent.name, name)) == digest, (sums.parent.name, name)
    assert all(s.startswith(("https://", "derived:")) for s in manifest["source"])


def test_data_root_verifies(manifest, data_root: Path) -> None:
    assert verify(manifest, data_root) == []


@pytest.mark.parametrize("dataset", ["wmt22-ja-en", "wmt22-ru-en"])
def test_derivations_reproduce_the_shipped_files(tmp_path: Path, data_root: Path, manifest, dataset) -> None:
    """Every derived file of a WMT22 folder is rebuilt byte for byte by the recipe its manifest row names."""
    rows = manifest[(manifest["dataset"] == dataset) & manifest["source"].str.startswith("derived:")]
    assert sorted(derivation(s)[0] for s in rows["source"]) == ["reconstructed_raw", "sid2line"]
    for row in rows.itertuples():
        recipe, source = derivation(row.source)
        DERIVATIONS[recipe](data_root / dataset / source, tmp_path / recipe)
        assert sha256_file(tmp_path / recipe) == row.sha256 == sha256_file(data_root / dataset / row.path)


def test_derivation_parses_recipe_and_input() -> None:
    assert derivation("derived:sid2line(text/a b.xml)") == ("sid2line", "text/a b.xml")
    assert derivation("derived:mteval-v13a_nist") == ("mteval-v13a_nist", "")
    with pytest.raises(InputError, match="not a derived source"):
        derivation("https://example.org/x")


def _copying_downloader(data_root: Path, manifest, corrupt: str | None = None):
    """A stand-in for the network: serves the data root's files by URL (optionally corrupting one)."""
    by_url = {row.source: data_root / row.dataset / row.path for row in manifest.itertuples()}

    def download(url: str, dest: Path, sha256: str) -> None:
        from mtsig.pipeline.data import _install_verified

        tmp = dest.with_name(dest.name + ".part")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(by_url[url], tmp)
        if corrupt and url.endswith(corrupt):
            with tmp.open("ab") as handle:
                handle.write(b"tampered")
        _install_verified(tmp, dest, sha256, url)

    return download


@pytest.mark.parametrize("dataset", ["wmt22-ja-en", "wmt22-ru-en"])
def test_fetch_downloads_verifies_and_derives(tmp_path: Path, data_root: Path, manifest, dataset) -> None:
    written = fetch(
        manifest, tmp_path, datasets=[dataset], downloader=_copying_downloader(data_root, manifest)
    )
    assert len(written) == (manifest["dataset"] == dataset).sum()
    assert verify(manifest[manifest["dataset"] == dataset], tmp_path) == []
    assert fetch(manifest, tmp_path, datasets=[dataset]) == []  # present and verified: nothing fetched


def test_checksum_mismatch_leaves_nothing_half_written(tmp_path: Path, data_root: Path, manifest) -> None:
    downloader = _copying_downloader(data_root, manifest, corrupt="newstest2012-ref.en")
    with pytest.raises(InputError, match="checksum mismatch"):
        fetch(
            manifest[manifest["source"].map(obtainable)], tmp_path, datasets=["wmt12"], downloader=downloader
        )
    target = tmp_path / "wmt12" / "plain"
    assert not (target / "newstest2012-ref.en").exists()
    assert not list(tmp_path.rglob("*.part"))


def test_verify_reports_missing_and_changed_files(tmp_path: Path, data_root: Path, manifest) -> None:
    jcml = manifest[manifest["dataset"] == "jcml"]
    shutil.copytree(data_root / "jcml", tmp_path / "jcml")
    assert verify(jcml, tmp_path) == []
    (tmp_path / "jcml" / "wmt08.de-en.jcml").write_text("changed")
    (tmp_path / "jcml" / "wmt10-test.de-en.jcml").unlink()
    problems = verify(jcml, tmp_path)
    assert any("wmt08.de-en.jcml: sha256 differs" in p for p in problems)
    assert any("wmt10-test.de-en.jcml: missing" in p for p in problems)


def test_a_file_no_recipe_makes_stops_fetch_before_any_download(tmp_path: Path, manifest) -> None:
    """wmt12's NIST oracle is the output of NIST's Perl tool: fetch says so before it downloads anything."""
    called = []
    with pytest.raises(InputError, match=r"nist_mteval-v13a_es-en.tsv is derived.*README"):
        fetch(manifest, tmp_path, datasets=["wmt12"], downloader=lambda *args: called.append(args))
    assert called == [] and not list(tmp_path.rglob("*.*"))


def test_obtainable_files_leave_out_only_what_no_recipe_makes(manifest) -> None:
    files = obtainable_files(manifest)
    assert set(files) == set(manifest["dataset"])
    left_out = manifest[~manifest["source"].map(obtainable)]
    assert list(left_out["path"]) == ["oracles/nist_mteval-v13a_es-en.tsv"]
    assert sum(map(len, files.values())) == len(manifest) - 1
    assert len(files["wmt23"]) == 702 and len(files["wmt20-ja-en"]) == 8


def test_a_derived_file_brings_the_files_its_recipe_reads(manifest) -> None:
    """wmt22-ru-en/README: the reconstructed raw scores are the standardised ratings times each worker's printed sd
    plus mean (two files), and the segment-id map comes from the test set's XML; a downloaded file brings nothing."""
    raw = "da/ad-ruen-good-raw.RECONSTRUCTED.tsv"
    assert with_derivation_inputs(manifest, "wmt22-ru-en", [raw, "da/ru-en.sid2line.tsv"]) == [
        raw, "da/ad-ruen-good-stnd.csv", "da/ad-ruen-trk-mean-sd.txt", "da/ru-en.sid2line.tsv",
        "text/wmttest2022.ru-en.all.xml",
    ]  # fmt: skip
    assert with_derivation_inputs(manifest, "wmt22-ru-en", ["da/ad-ruen-good-stnd.csv"]) == [
        "da/ad-ruen-good-stnd.csv"
    ]


def test_the_download_rules_split_each_dataset_by_what_the_run_reads(manifest) -> None:
    """A run reading WMT22 ja-en's standardised ratings only: its download rule makes that file; the rest rule makes
    the dataset's 25 other files, the reconstructed raw scores among them, and reads the standardised file from the
    first (its recipe's input); a dataset the run does not read has only a rest rule."""
    downloads = dataset_downloads(manifest, {("wmt22-ja-en", "da/ad-jaen-good-stnd.csv")})
    ja_en = downloads["wmt22-ja-en"]
    assert ja_en.read == ("da/ad-jaen-good-stnd.csv",)
    assert len(ja_en.rest) == 25 and "da/ad-jaen-good-raw.RECONSTRUCTED.tsv" in ja_en.rest
    assert ja_en.rest_needs == ("da/ad-jaen-good-stnd.csv",)
    jcml = downloads["jcml"]
    assert jcml.read == () and jcml.rest == ("wmt10-test.de-en.jcml", "wmt08.de-en.jcml")  # manifest order
    assert set(downloads) == set(manifest["dataset"])


def test_wmt23_sources_are_the_pinned_commit_of_its_provenance(manifest, data_root: Path) -> None:
    """Every wmt23 file comes from the raw URL pattern that wmt23/PROVENANCE.txt pins (commit and folder)."""
    pattern = re.search(r"Raw URL pattern: (\S+)<path>", (data_root / "wmt23" / "PROVENANCE.txt").read_text())
    assert pattern is not None
    rows = manifest[manifest["dataset"] == "wmt23"]
    assert len(rows) == 702
    assert all(source == pattern[1] + path for source, path in zip(rows["source"], rows["path"], strict=True))


def test_lp_filter_keeps_one_pairs_rows_unchanged(tmp_path: Path, data_root: Path, manifest) -> None:
    """The organisers' all-pairs file filtered to ja-en is the data root's file (rows of another pair around it are
    dropped; the organisers' own files give the same, checked when the manifest rows were written)."""
    rows = manifest[manifest["source"].str.startswith("derived:lp_filter(")]
    assert len(rows) == 6
    for row in rows.itertuples():
        recipe, pair, url = remote_derivation(row.source)
        assert (
            (recipe, pair) == ("lp_filter", "ja-en") and url.endswith(".seg.score.gz") and "/3e434fc" in url
        )
        body = (data_root / row.dataset / row.path).read_bytes()
        other = body.replace(b"\tja-en\t", b"\tde-en\t").splitlines(keepends=True)
        source = tmp_path / "all-pairs.gz"
        source.write_bytes(gzip.compress(b"".join(other[:100]) + body + b"".join(other[100:])))
        filter_language_pair(source, pair, tmp_path / "kept")
        assert sha256_file(tmp_path / "kept") == row.sha256
