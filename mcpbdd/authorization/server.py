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
import threading
from typing import TYPE_CHECKING, Any

from mcpbdd._loopback_http import LoopbackHttp
from mcpbdd.authorization.keys import ALGORITHM, run_key

if TYPE_CHECKING:
    from starlette.applications import Starlette

__all__ = ["JWKS_PATH", "METADATA_PATH", "FakeAuthorizationServer", "fake_authorization_server"]

METADATA_PATH = "/.well-known/oauth-authorization-server"
JWKS_PATH = "/jwks.json"
TOKEN_PATH = "/token"


def _app(fake: FakeAuthorizationServer) -> Starlette:
    """The two documents, a token endpoint that refuses every grant, and a JSON 404 for anything else."""
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    def send(status: int, document: dict[str, Any]) -> Response:
        return JSONResponse(document, status_code=status, headers={"Cache-Control": "no-store"})

    async def metadata(request: Request) -> Response:
        return send(200, fake.metadata())

    async def jwks(request: Request) -> Response:
        return send(200, fake.jwks())

    async def token(request: Request) -> Response:
        return send(400, {"error": "unsupported_grant_type", "error_description": "mcpbdd mints tokens itself"})

    async def not_found(request: Request, exc: Exception) -> Response:
        if isinstance(exc, HTTPException) and exc.status_code == 405:
            return send(405, {"error": "method_not_allowed", "error_description": f"{request.method} is not served"})
        path = request.url.path
        return send(404, {"error": "not_found", "error_description": f"the fake authorization server has no {path}"})

    routes = [
        Route(METADATA_PATH, metadata, methods=["GET"]),
        Route(JWKS_PATH, jwks, methods=["GET"]),
        Route(TOKEN_PATH, token, methods=["POST"]),
    ]
    app = Starlette(routes=routes, exception_handlers={404: not_found, 405: not_found})
    app.router.redirect_slashes = False  # `/jwks.json/` is not served (a 404), as a path no route names
    return app


class FakeAuthorizationServer:
    """One loopback authorization server: its issuer URL, its metadata, its JWKS."""

    def __init__(self) -> None:
        self._http = LoopbackHttp("mcpbdd-fake-as")
        self.issuer = self._http.serve(_app(self))

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
            "token_endpoint": f"{self.issuer}{TOKEN_PATH}",
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
        """Close its port and join its thread (at exit, for the run's server)."""
        self._http.stop()

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
