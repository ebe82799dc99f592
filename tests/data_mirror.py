"""A loopback mirror of the public data, for the download tests: an HTTP server on 127.0.0.1 (a free port) that
serves a data root's files under the URL paths of ``data/sources.tsv``, so that the workflow, given
``MTSIG_DATA_MIRROR=<its url>``, downloads from it exactly as from the origins. It can fail on purpose for chosen
paths: answer 404, drop the connection mid-file (every time, or once), serve other bytes, or stall mid-file until
released.

A remote derivation's input (the WMT20 metrics task's ``<METRIC>.seg.score.gz``, all language pairs) is not in the
data root: the mirror serves a gzip of the data root's filtered file with rows of another pair added around it, so
that filtering must drop them and gives the data root's file back.

Also a command for a manual check of the whole run from an empty data root (docs in data/README.md):
``python tests/data_mirror.py ../shared/data`` serves until interrupted and prints the ``MTSIG_DATA_MIRROR`` to use.
"""

from __future__ import annotations

import gzip
import socket
import sys
import threading
import urllib.parse
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from mtsig.pipeline.data import read_manifest, remote_derivation  # noqa: E402

#: What the mirror can do instead of serving a path: answer 404; drop the connection after half of the body,
#: every time or only the first time; serve the body with a byte changed; send half of the body, then wait.
FAULTS = ("404", "drop", "drop_once", "corrupt", "stall")


def _other_pair_rows(body: bytes, pair: str) -> bytes:
    """The first rows of a WMT segment-score file, relabelled to another language pair."""
    rows = body.splitlines(keepends=True)[:50]
    return b"".join(row.replace(f"\t{pair}\t".encode(), b"\tcs-en\t", 1) for row in rows)


def mirror_files(data_root: Path, datasets: Iterable[str] | None = None) -> dict[str, Path | bytes]:
    """URL path -> the file (or, for a remote derivation's input, the bytes) the mirror serves there."""
    manifest = read_manifest(REPO / "data" / "sources.tsv")
    if datasets is not None:
        manifest = manifest[manifest["dataset"].isin(list(datasets))]
    files: dict[str, Path | bytes] = {}
    for row in manifest.itertuples(index=False):
        local = data_root / row.dataset / row.path
        remote = remote_derivation(row.source)
        if remote is not None:
            _, pair, url = remote
            body = local.read_bytes()
            decoys = _other_pair_rows(body, pair)
            files[urllib.parse.urlsplit(url).path] = gzip.compress(decoys + body + decoys, mtime=0)
        elif row.source.startswith(("https://", "http://")):
            files[urllib.parse.urlsplit(row.source).path] = local
    return files


class DataMirror:
    """The server, as a context manager: ``url`` is the base URL to give as ``MTSIG_DATA_MIRROR``. ``faults`` maps a
    URL path ending to one of :data:`FAULTS`; ``served`` lists the paths asked for (GET), in order."""

    def __init__(self, data_root: Path, datasets: Iterable[str] | None = None) -> None:
        self.files = mirror_files(data_root, datasets)
        self.faults: dict[str, str] = {}
        self.served: list[str] = []
        self.release = threading.Event()  # ends every stall
        self.stalled = threading.Event()  # set when a stall has sent its half
        self._dropped: set[str] = set()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/"

    def __enter__(self) -> DataMirror:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self._server.shutdown()
        self._server.server_close()

    def fault(self, path: str) -> str | None:
        return next((f for ending, f in self.faults.items() if path.endswith(ending)), None)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        mirror = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # quiet
                pass

            def _body(self) -> bytes | None:
                path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
                found = mirror.files.get(path)
                if found is None or mirror.fault(path) == "404":
                    self.send_error(404)
                    return None
                return found if isinstance(found, bytes) else found.read_bytes()

            def do_HEAD(self) -> None:
                body = self._body()
                if body is not None:
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()

            def do_GET(self) -> None:
                path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
                mirror.served.append(path)
                body = self._body()
                if body is None:
                    return
                fault = mirror.fault(path)
                if fault == "drop_once" and path in mirror._dropped:
                    fault = None
                if fault == "corrupt":
                    body = body[:-1] + bytes([body[-1] ^ 1])
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if fault in ("drop", "drop_once", "stall"):
                    self.wfile.write(body[: len(body) // 2])
                    self.wfile.flush()
                    if fault == "stall":
                        mirror.stalled.set()
                        mirror.release.wait()
                    mirror._dropped.add(path)
                    self.close_connection = True
                    try:
                        self.connection.shutdown(socket.SHUT_RDWR)
                    except OSError:  # the client is gone (a test killed it)
                        pass
                    return
                self.wfile.write(body)

        return Handler


if __name__ == "__main__":
    root = Path(sys.argv[1] if len(sys.argv) > 1 else REPO.parent / "shared" / "data").resolve()
    with DataMirror(root) as serving:
        print(f"serving {root}: export MTSIG_DATA_MIRROR={serving.url}", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
