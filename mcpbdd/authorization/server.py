"""The fake authorization server: the run's issuer, on 127.0.0.1, started on first use and stopped at exit.

It serves what a resource server and a client read from a real one, nothing more:

- `GET /.well-known/oauth-authorization-server`: RFC 8414 metadata (issuer, jwks_uri,
  the endpoints a client would use, the algorithms it signs with);
- `GET /jwks.json`: the run's public signing key as a JWKS.

It is not an OAuth server: it has no login, no consent, no client registration, and its
token endpoint answers `unsupported_grant_type`. Tokens are minted in the scenario's own
process (`tokens.py`) for the callers the scenario names, as a real server would mint them
at the end of a flow.
"""

from __future__ import annotations

import atexit
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from mcpbdd.authorization.keys import ALGORITHM, run_key

__all__ = ["JWKS_PATH", "METADATA_PATH", "FakeAuthorizationServer", "fake_authorization_server"]

METADATA_PATH = "/.well-known/oauth-authorization-server"
JWKS_PATH = "/jwks.json"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    timeout = 5.0
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet: nothing here is worth a line per request
        pass

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        documents = {METADATA_PATH: self.server.fake.metadata, JWKS_PATH: self.server.fake.jwks}
        if path not in documents:
            self._send(404, {"error": "not_found", "error_description": f"the fake authorization server has no {path}"})
            return
        self._send(200, documents[path]())

    def do_POST(self) -> None:
        self._send(400, {"error": "unsupported_grant_type", "error_description": "mcpbdd mints tokens itself"})

    def _send(self, status: int, document: dict[str, Any]) -> None:
        body = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, fake: FakeAuthorizationServer) -> None:
        self.fake = fake
        super().__init__(("127.0.0.1", 0), _Handler)


class FakeAuthorizationServer:
    """One loopback authorization server: its issuer URL, its metadata, its JWKS."""

    def __init__(self) -> None:
        self._server = _Server(self)
        port = self._server.server_address[1]
        self.issuer = f"http://127.0.0.1:{port}"
        self._thread = threading.Thread(target=self._server.serve_forever, name="mcpbdd-fake-as", daemon=True)
        self._thread.start()

    @property
    def jwks_url(self) -> str:
        return self.issuer + JWKS_PATH

    @property
    def metadata_url(self) -> str:
        return self.issuer + METADATA_PATH

    def metadata(self) -> dict[str, Any]:
        """RFC 8414 authorization-server metadata (the endpoints are named; only the JWKS is served)."""
        return {
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token",
            "jwks_uri": self.jwks_url,
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "client_credentials"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_basic"],
            "id_token_signing_alg_values_supported": [ALGORITHM],
        }

    def jwks(self) -> dict[str, Any]:
        return {"keys": [run_key().jwk]}

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __repr__(self) -> str:
        return f"FakeAuthorizationServer({self.issuer!r})"


_running: FakeAuthorizationServer | None = None
_lock = threading.Lock()


def fake_authorization_server() -> FakeAuthorizationServer:
    """The run's fake authorization server, started on first use (with the run's key) and stopped at exit."""
    global _running
    with _lock:
        if _running is None:
            run_key()  # made before the first request for the JWKS, not while one waits
            _running = FakeAuthorizationServer()
            atexit.register(_running.stop)
        return _running
