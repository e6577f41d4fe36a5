"""The HTTP edge of a protected MCP server: 401 and 403 as the MCP authorization spec words them, and discovery.

`protect()` wraps the Starlette app the SDK builds (`mcp.streamable_http_app()`) so that:

- every request to the MCP endpoint needs a bearer token the server's `TokenVerifier`
  accepts (the SDK's own `BearerAuthBackend` and `AuthContextMiddleware` run it, as in
  production); without one the answer is 401 with
  `WWW-Authenticate: Bearer resource_metadata="<metadata URL>"` (and `error="invalid_token"`
  when a token was sent but refused), so a client can discover where to get one;
- a `tools/call` of a tool listed in `tool_scopes` needs those scopes: otherwise 403 with
  `WWW-Authenticate: Bearer error="insufficient_scope", scope="<the scopes>"` (the MCP
  spec's scope challenge), before the tool runs;
- `/.well-known/oauth-protected-resource<path>` serves the RFC 9728 metadata: the
  resource's URL, the authorization servers that issue its tokens, the scopes it knows.

Where the authorization server is: its issuer and JWKS URL from the configuration in
production, and under mcpbdd from the environment mcpbdd starts the server with
(`authorization_server()`), the way `upstream_base()` points outbound calls at doubles.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, cast

from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, BearerAuthBackend
from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.routes import build_resource_metadata_url, create_protected_resource_routes
from pydantic import AnyHttpUrl
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "ENV_ISSUER",
    "ENV_JWKS",
    "MAX_GATED_BODY",
    "ScopeGate",
    "authorization_server",
    "protect",
]

ENV_ISSUER: Final = "MCPBDD_AUTH_ISSUER"
"""The issuer of the run's fake authorization server (set by mcpbdd when a scenario requires a token)."""
ENV_JWKS: Final = "MCPBDD_AUTH_JWKS"
"""The JWKS URL of the run's fake authorization server."""
MAX_GATED_BODY: Final = 4 * 1024 * 1024
"""The largest MCP request body the scope gate reads to learn which tool is called (larger: 413)."""


def authorization_server(
    issuer: str | None, jwks_url: str | None, environ: Mapping[str, str] | None = None
) -> tuple[str, str]:
    """(issuer, JWKS URL): the run's fake authorization server under mcpbdd, the configured one otherwise."""
    env = os.environ if environ is None else environ
    issuer, jwks_url = env.get(ENV_ISSUER) or issuer, env.get(ENV_JWKS) or jwks_url
    if not issuer or not jwks_url:
        raise ValueError("a protected server needs its authorization server's issuer and JWKS URL")
    return issuer, jwks_url


def protect(
    app: Any,
    verifier: TokenVerifier,
    *,
    resource_url: str,
    authorization_servers: Sequence[str],
    tool_scopes: Mapping[str, Iterable[str]] | None = None,
    path: str = "/mcp",
) -> Any:
    """Require tokens on `app`'s MCP endpoint at `path`, scopes per tool, and serve the resource's metadata."""
    scopes = {tool: tuple(needed) for tool, needed in (tool_scopes or {}).items()}
    supported = sorted({scope for needed in scopes.values() for scope in needed})
    metadata_url = str(build_resource_metadata_url(AnyHttpUrl(resource_url)))
    # Strings, validated by the SDK's metadata model, which keeps an issuer's empty path empty: RFC 8414 compares
    # issuers exactly, and `AnyHttpUrl("http://as.example")` alone would add a trailing slash.
    servers = cast(list[AnyHttpUrl], list(authorization_servers))
    routes = create_protected_resource_routes(
        resource_url=cast(AnyHttpUrl, resource_url), authorization_servers=servers, scopes_supported=supported or None
    )
    app.router.routes.extend(routes)
    # Starlette wraps the last added outermost: authentication, then the auth context, then the gate.
    app.add_middleware(ScopeGate, path=path, metadata_url=metadata_url, tool_scopes=scopes)
    app.add_middleware(AuthContextMiddleware)
    app.add_middleware(AuthenticationMiddleware, backend=BearerAuthBackend(verifier))
    return app


class ScopeGate:
    """The MCP endpoint's door: 401 without an accepted token, 403 for a tool whose scopes the token lacks."""

    def __init__(
        self, app: ASGIApp, *, path: str, metadata_url: str, tool_scopes: Mapping[str, tuple[str, ...]]
    ) -> None:
        self.app = app
        self.path = path.rstrip("/") or "/"
        self.metadata_url = metadata_url
        self.tool_scopes = dict(tool_scopes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].rstrip("/") != self.path or scope["method"] == "OPTIONS":
            await self.app(scope, receive, send)
            return
        user = scope.get("user")
        if not isinstance(user, AuthenticatedUser):
            challenge = f'Bearer resource_metadata="{self.metadata_url}"'
            if any(name.lower() == b"authorization" for name, _ in scope.get("headers", [])):
                # A token was sent and refused (RFC 6750 section 3.1); without one, no error code is due.
                challenge += ', error="invalid_token", error_description="The access token was not accepted"'
            await self._refuse(send, 401, challenge)
            return
        if scope["method"] != "POST" or not self.tool_scopes:
            await self.app(scope, receive, send)
            return
        body, receive = await _buffered(receive)
        if body is None:
            await self._refuse(send, 413, None)
            return
        missing = self._missing(body, set(user.scopes))
        if missing:
            await self._refuse(
                send,
                403,
                f'Bearer error="insufficient_scope", scope="{" ".join(missing)}", '
                f'resource_metadata="{self.metadata_url}", error_description="This tool needs the scope '
                f'{" ".join(missing)}"',
            )
            return
        await self.app(scope, receive, send)

    def _missing(self, body: bytes, granted: set[str]) -> list[str]:
        """The scopes the tool this body calls needs and the token lacks ([] when it calls no gated tool)."""
        try:
            message = json.loads(body)
        except ValueError:
            return []  # not JSON: the SDK answers it with a parse error; nothing runs
        if not isinstance(message, dict) or message.get("method") != "tools/call":
            return []
        params = message.get("params")
        name = params.get("name") if isinstance(params, dict) else None
        needed = self.tool_scopes.get(name, ()) if isinstance(name, str) else ()
        return [scope for scope in needed if scope not in granted]

    async def _refuse(self, send: Send, status: int, challenge: str | None) -> None:
        error = {401: "invalid_token", 403: "insufficient_scope", 413: "request_too_large"}[status]
        body = json.dumps({"error": error}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        if challenge is not None:
            headers.append((b"www-authenticate", challenge.encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


async def _buffered(receive: Receive) -> tuple[bytes | None, Receive]:
    """The whole request body (None past `MAX_GATED_BODY`) and a `receive` that replays it to the app."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_GATED_BODY:
            return None, receive
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    body = b"".join(chunks)
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return body, replay
