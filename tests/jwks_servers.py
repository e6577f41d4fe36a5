"""Identity providers at their worst, on loopback: a JWKS that drips, one too large, garbage, down, rotating.

`JwksServer` serves one JWKS on 127.0.0.1 (the standard library's HTTP server in a thread, as the
fake authorization server is) and counts what it does, so a test can say how many fetches a
verifier made and how many bytes it let a server push at it. Its `mode` decides each answer:

- `serve`: the current `keys` as a JWKS (after `delay` seconds);
- `drip`: a declared 4 KiB body, one byte every `drip_every` seconds, until the client gives up;
- `huge`: `huge_bytes` of JSON-ish whitespace, close-delimited (or with its length declared);
- `raw`: `raw` as it is (garbage of any kind);
- `gzip`: the current keys, gzip-encoded whatever the client asked for (a decompression bomb's shape);
- `fail`: HTTP 500.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from mcpbdd.authorization.keys import SigningKey

__all__ = ["JwksServer"]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        owner = self.server.owner
        with owner.lock:
            owner.requests += 1
        with contextlib.suppress(OSError):  # the client gave up: exactly what a bounded client does
            getattr(self, f"_{owner.mode}")(owner)

    def _serve(self, owner: JwksServer) -> None:
        time.sleep(owner.delay)
        self._answer(200, owner.document())

    def _raw(self, owner: JwksServer) -> None:
        self._answer(200, owner.raw)

    def _gzip(self, owner: JwksServer) -> None:
        body = gzip.compress(owner.document())
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _fail(self, owner: JwksServer) -> None:
        self._answer(500, b'{"error": "down"}')

    def _drip(self, owner: JwksServer) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "4096")
        self.end_headers()
        while not owner.stopping.is_set():
            self.wfile.write(b" ")
            self.wfile.flush()
            owner.count(1)
            time.sleep(owner.drip_every)

    def _huge(self, owner: JwksServer) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if owner.declare_length:
            self.send_header("Content-Length", str(owner.huge_bytes))
        self.end_headers()
        chunk = b" " * 65536
        for _ in range(owner.huge_bytes // len(chunk)):
            self.wfile.write(chunk)
            owner.count(len(chunk))

    def _answer(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.server.owner.count(len(body))


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, owner: JwksServer) -> None:
        self.owner = owner
        super().__init__(("127.0.0.1", 0), _Handler)


class JwksServer:
    """One loopback JWKS endpoint whose behaviour a test sets (`mode`), counting requests and bytes sent."""

    def __init__(self, *keys: SigningKey) -> None:
        self.keys = list(keys)
        self.mode = "serve"
        self.delay = 0.0
        self.drip_every = 0.2
        self.huge_bytes = 64 * 1024 * 1024
        self.declare_length = False
        self.raw = b""
        self.requests = 0
        self.sent = 0
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self._server = _Server(self)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/jwks.json"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), name="test-jwks", daemon=True)
        self._thread.start()

    def document(self) -> bytes:
        return json.dumps({"keys": [key.jwk for key in self.keys]}).encode()

    def count(self, sent: int) -> None:
        with self.lock:
            self.sent += sent

    def stop(self) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> JwksServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
