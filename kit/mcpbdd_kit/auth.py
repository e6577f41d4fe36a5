"""Test authentication for servers reached over HTTP: tokens that carry a scenario's caller.

Over Streamable HTTP the caller travels as a bearer token, verified by the server's
`TokenVerifier`. mcpbdd's client sends, per user, either the token configured for that
user (`tokens = {alice = "..."}` under `[tool.mcpbdd]`, for a server with real tokens) or
a test token `mcpbdd:<tenant>:<user>[:<scope>,<scope>]`. A server mounts
`TestTokenVerifier` in its *test* configuration to accept those, so tenant and caller
steps mean the same thing over the wire as in-process:

    app = mcp.streamable_http_app()
    mount_test_auth(app)            # never in production

Never mount it in production: anyone can mint such a token. Mounting it logs a WARNING
(`mcpbdd.kit.auth`) saying so, so a server that ships its test configuration is not silent about it.
"""

from __future__ import annotations

import logging
from typing import Any

from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend
from mcp.server.auth.provider import AccessToken
from starlette.middleware.authentication import AuthenticationMiddleware

from mcpbdd_kit.principals import DEFAULT_CLIENT_ID, TOKEN_PREFIX, Principal

logger = logging.getLogger("mcpbdd.kit.auth")


def test_token(principal: Principal) -> str:
    """The bearer token mcpbdd sends for `principal` when no real token is configured."""
    return principal.token


class TestTokenVerifier:
    """An SDK `TokenVerifier` that accepts mcpbdd's test tokens (for test configurations only)."""

    __test__ = False  # not a pytest test class, whatever its name says

    def __init__(self, tenant_claim: str = "tenant", client_id: str = DEFAULT_CLIENT_ID) -> None:
        self.tenant_claim = tenant_claim
        self.client_id = client_id

    async def verify_token(self, token: str) -> AccessToken | None:
        if not token.startswith(TOKEN_PREFIX):
            return None
        parts = token[len(TOKEN_PREFIX) :].split(":", 2)  # scopes (the last part) may contain ":"
        if len(parts) not in (2, 3) or not parts[0] or not parts[1]:
            return None
        tenant, user = parts[0], parts[1]
        scopes = [s for s in parts[2].split(",") if s] if len(parts) == 3 else []
        return AccessToken(
            token=token, client_id=self.client_id, scopes=scopes, subject=user, claims={self.tenant_claim: tenant}
        )


def mount_test_auth(app: Any, verifier: TestTokenVerifier | None = None) -> Any:
    """Authenticate bearer tokens on a Starlette app with the SDK's own middleware (unauthenticated calls pass).

    The SDK's `BearerAuthBackend` fills the request's user, its `AuthContextMiddleware` puts
    the access token where `get_access_token()` reads it: the same path production auth takes.
    """
    logger.warning(
        "mcpbdd's test authentication is mounted: anyone can sign in as anyone (tokens mcpbdd:<tenant>:<user>); "
        "a test configuration only, never a production one"
    )
    app.add_middleware(AuthContextMiddleware)  # inner: runs after authentication
    app.add_middleware(AuthenticationMiddleware, backend=BearerAuthBackend(verifier or TestTokenVerifier()))
    return app


__all__ = ["TestTokenVerifier", "mount_test_auth", "test_token"]
