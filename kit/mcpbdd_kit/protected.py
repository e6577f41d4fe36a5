"""The HTTP edge of a protected MCP server: 401 and 403 as the MCP authorization spec words them, and discovery.

`protect()` wraps the Starlette app the SDK builds (`mcp.streamable_http_app()`) so that it
fails closed, wherever and however it is deployed:

- every request that reaches the app needs a bearer token the server's `TokenVerifier`
  accepts (the SDK's own `BearerAuthBackend` and `AuthContextMiddleware` run it, as in
  production), whatever its path, method, mount point, `root_path`, trailing slash or
  encoding; without one the answer is 401 with
  `WWW-Authenticate: Bearer resource_metadata="<metadata URL>"` (and `error="invalid_token"`
  when a token was sent but refused), so a client can discover where to get one. The one
  exception is the public document the MCP authorization spec requires: the RFC 9728
  protected-resource metadata (`GET`, `HEAD` and its CORS preflight `OPTIONS` at
  `/.well-known/oauth-protected-resource<resource path>`, routed first so that no route of the
  app can shadow it);
- a `tools/call` of a tool listed in `tool_scopes` needs those scopes: otherwise 403 with
  `WWW-Authenticate: Bearer error="insufficient_scope", scope="<the scopes>"` (the MCP
  spec's scope challenge), before the tool runs, whatever the method or path carrying it.
  The body is read the way either of the SDK's transports reads it (the standard library's
  JSON and pydantic-core's), so no body means one thing to the gate and another to the SDK;
  a body over `max_body` bytes is 413, one that does not arrive within `body_timeout` 408;
- a websocket is refused (closed with 1008, which the server answers 403 before any upgrade):
  no MCP transport uses one, and the scope gate cannot read its messages; a lifespan passes
  through (it carries no request); any other kind of ASGI scope is refused.

Where the authorization server is: its issuer and JWKS URL from the configuration in
production, and under mcpbdd from the environment mcpbdd starts the server with
(`authorization_server()`), the way `upstream_base()` points outbound calls at doubles. A
process whose environment redirects them says so on its log at start-up (WARNING, naming
the variables): a production server that inherited them would trust another issuer.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Final, TypeVar, cast
from urllib.parse import urlparse

import anyio
import pydantic_core
from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, BearerAuthBackend
from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.routes import build_resource_metadata_url, create_protected_resource_routes
from pydantic import AnyHttpUrl
from starlette._utils import get_route_path
from starlette.applications import Starlette
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "BODY_TIMEOUT",
    "ENV_ISSUER",
    "ENV_JWKS",
    "MAX_GATED_BODY",
    "PUBLIC_METHODS",
    "ScopeGate",
    "authorization_server",
    "protect",
]

logger = logging.getLogger("mcpbdd.kit.protected")

ENV_ISSUER: Final = "MCPBDD_AUTH_ISSUER"
"""The issuer of the run's fake authorization server (set by mcpbdd when a scenario requires a token)."""
ENV_JWKS: Final = "MCPBDD_AUTH_JWKS"
"""The JWKS URL of the run's fake authorization server."""
MAX_GATED_BODY: Final = 4 * 1024 * 1024
"""The largest request body the scope gate reads to learn which tool is called (larger: 413)."""
BODY_TIMEOUT: Final = 30.0
"""Seconds the scope gate waits for a whole request body (slower: 408), so a trickling client holds nothing long."""
PUBLIC_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS"})
"""The methods the public metadata document answers without a token (OPTIONS: its CORS preflight)."""

_REASONS: Final = {
    401: "invalid_token",
    403: "insufficient_scope",
    408: "request_timeout",
    413: "request_too_large",
}


def authorization_server(
    issuer: str | None, jwks_url: str | None, environ: Mapping[str, str] | None = None
) -> tuple[str, str]:
    """(issuer, JWKS URL): the run's fake authorization server under mcpbdd, the configured one otherwise.

    The environment wins, and saying so is loud: a WARNING on `mcpbdd.kit.protected` names each
    variable and what it replaced, so a production server that inherited a test environment
    cannot trust another issuer silently.
    """
    env = os.environ if environ is None else environ
    redirected = {name: env[name] for name in (ENV_ISSUER, ENV_JWKS) if env.get(name)}
    if redirected:
        logger.warning(
            "the authorization server is redirected by the environment (%s), in place of the configured "
            "issuer %r and JWKS %r: only mcpbdd sets these, for a test run; unset them in production",
            ", ".join(f"{name}={value}" for name, value in redirected.items()),
            issuer,
            jwks_url,
        )
    issuer, jwks_url = env.get(ENV_ISSUER) or issuer, env.get(ENV_JWKS) or jwks_url
    if not issuer or not jwks_url:
        raise ValueError("a protected server needs its authorization server's issuer and JWKS URL")
    return issuer, jwks_url


App = TypeVar("App", bound=Starlette)
"""The app `protect` returns is the one it was given (a Starlette app, or a subclass such as FastAPI's)."""


def protect(
    app: App,
    verifier: TokenVerifier,
    *,
    resource_url: str,
    authorization_servers: Sequence[str],
    tool_scopes: Mapping[str, Iterable[str]] | None = None,
    max_body: int = MAX_GATED_BODY,
    body_timeout: float = BODY_TIMEOUT,
) -> App:
    """Require an accepted token on every request to `app` but its metadata, scopes per tool; serve the metadata."""
    scopes = {tool: tuple(needed) for tool, needed in (tool_scopes or {}).items()}
    supported = sorted({scope for needed in scopes.values() for scope in needed})
    metadata_url = str(build_resource_metadata_url(AnyHttpUrl(resource_url)))
    # Strings, validated by the SDK's metadata model, which keeps an issuer's empty path empty: RFC 8414 compares
    # issuers exactly, and `AnyHttpUrl("http://as.example")` alone would add a trailing slash.
    servers = cast(list[AnyHttpUrl], list(authorization_servers))
    routes = create_protected_resource_routes(
        resource_url=cast(AnyHttpUrl, resource_url), authorization_servers=servers, scopes_supported=supported or None
    )
    # First: the one path the gate lets through must reach the metadata, whatever route the app has (a catch-all).
    app.router.routes[:0] = routes
    public = {urlparse(metadata_url).path}
    # Starlette wraps the last added outermost: authentication, then the auth context, then the gate.
    app.add_middleware(
        ScopeGate,
        metadata_url=metadata_url,
        tool_scopes=scopes,
        public_paths=public,
        max_body=max_body,
        body_timeout=body_timeout,
    )
    app.add_middleware(AuthContextMiddleware)
    app.add_middleware(AuthenticationMiddleware, backend=BearerAuthBackend(verifier))
    return app


class ScopeGate:
    """The app's door: 401 without an accepted token, 403 for a tool whose scopes the token lacks (see the module)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        metadata_url: str,
        tool_scopes: Mapping[str, tuple[str, ...]],
        public_paths: Iterable[str] = (),
        max_body: int = MAX_GATED_BODY,
        body_timeout: float = BODY_TIMEOUT,
    ) -> None:
        self.app = app
        self.metadata_url = metadata_url
        self.tool_scopes = dict(tool_scopes)
        self.public_paths = frozenset(public_paths)
        self.max_body = max_body
        self.body_timeout = body_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            await self.app(scope, receive, send)
            return
        if kind == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": "this server takes no websocket"})
            return
        if kind != "http":
            raise RuntimeError(f"the protected edge refuses an ASGI scope of type {kind!r}: it cannot check it")
        if self._public(scope):
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
        if not self.tool_scopes:
            await self.app(scope, receive, send)
            return
        await self._gated(scope, receive, send, set(user.scopes))

    def _public(self, scope: Scope) -> bool:
        """The metadata document, read as the router reads the path (so the router sends it to the metadata)."""
        return scope.get("method") in PUBLIC_METHODS and get_route_path(scope) in self.public_paths

    async def _gated(self, scope: Scope, receive: Receive, send: Send, granted: set[str]) -> None:
        """Any method, any path: whatever body the app will read is read first, and a gated tool needs its scopes."""
        with anyio.move_on_after(self.body_timeout) as deadline:
            body, replay = await _buffered(receive, self.max_body)
        if deadline.cancelled_caught:
            await self._refuse(send, 408, None)
            return
        if body is _TOO_LARGE:
            await self._refuse(send, 413, None)
            return
        if body is None:
            return  # the client went away before its request arrived: nothing to answer, nothing runs
        missing = self._missing(body, granted)
        if missing:
            await self._refuse(
                send,
                403,
                f'Bearer error="insufficient_scope", scope="{" ".join(missing)}", '
                f'resource_metadata="{self.metadata_url}", error_description="This tool needs the scope '
                f'{" ".join(missing)}"',
            )
            return
        await self.app(scope, replay, send)

    def _missing(self, body: bytes, granted: set[str]) -> list[str]:
        """The scopes the tools this body calls need and the token lacks ([] when it calls no gated tool)."""
        needed = [scope for name in called_tools(body) for scope in self.tool_scopes.get(name, ())]
        return [scope for scope in dict.fromkeys(needed) if scope not in granted]

    async def _refuse(self, send: Send, status: int, challenge: str | None) -> None:
        body = json.dumps({"error": _REASONS[status]}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        if challenge is not None:
            headers.append((b"www-authenticate", challenge.encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def called_tools(body: bytes) -> set[str]:
    """The tools a request body calls, as any of the SDK's readers could read it (a batch: each of its members).

    The SDK's transports read a body with two parsers: pydantic-core (the session transport) and the standard
    library (the stateless one, which also takes a byte-order mark or UTF-16). A name either of them would see
    is a name the gate checks; a body neither reads is one no transport runs.
    """
    names: set[str] = set()
    for parse in (json.loads, pydantic_core.from_json):
        try:
            document = parse(body)
        except (ValueError, RecursionError):
            continue
        for message in document if isinstance(document, list) else [document]:
            if isinstance(message, dict) and message.get("method") == "tools/call":
                params = message.get("params")
                name = params.get("name") if isinstance(params, dict) else None
                if isinstance(name, str):
                    names.add(name)
    return names


_TOO_LARGE: Final = b"\x00too large"
"""`_buffered`'s answer for a body past its limit (compared by identity)."""


async def _buffered(receive: Receive, limit: int) -> tuple[bytes | None, Receive]:
    """The whole request body (`_TOO_LARGE` past `limit`, None if the client left) and a `receive` replaying it."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None, receive
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return _TOO_LARGE, receive
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
