"""The client side of the HTTP edge: the bearer token on each request, the refusals met on the way back.

The HTTP connector gives every caller's httpx client an `EdgeAuth`: before each request it
asks for the caller's token then (a minted JWT changes when a step spoils or re-grants it,
without a new session), and after it records a refusal of the MCP endpoint (401 or 403,
with its `WWW-Authenticate`) in the scenario's `EdgeLog`. The client harness takes the
refusal recorded during a call and puts it on the call's outcome (`Outcome.http`).
"""

from __future__ import annotations

from collections.abc import Callable, Generator

import httpx2

from mcpbdd.kit.principals import Principal
from mcpbdd.model.http_answer import HttpAnswer

__all__ = ["EDGE_REFUSALS", "NO_TOKEN", "BearerSource", "EdgeAuth", "EdgeLog"]

NO_TOKEN = ""
"""What a `BearerSource` returns for a request that must carry no token at all."""

EDGE_REFUSALS = frozenset({401, 403})
"""The statuses a protected server refuses a request with before MCP sees it (RFC 6750)."""

BearerSource = Callable[[Principal | None, str], str | None]
"""(caller, MCP URL) -> the bearer token to send, `NO_TOKEN` for none, None to send the configured one."""


class EdgeLog:
    """The last refusal each caller met at the MCP endpoint since it was last taken."""

    def __init__(self) -> None:
        self._refusals: dict[str | None, HttpAnswer] = {}

    def record(self, caller: Principal | None, answer: HttpAnswer) -> None:
        self._refusals[caller.user if caller else None] = answer

    def take(self, caller: Principal | None) -> HttpAnswer | None:
        """The refusal `caller` met since the last take (None: none), forgotten once taken."""
        return self._refusals.pop(caller.user if caller else None, None)


class EdgeAuth(httpx2.Auth):
    """Puts `caller`'s current token on each request to `url`, and records the refusals it gets back."""

    def __init__(self, caller: Principal | None, url: str, token: Callable[[], str | None], log: EdgeLog) -> None:
        self.caller = caller
        self.url = url
        self.token = token
        self.log = log

    def auth_flow(self, request: httpx2.Request) -> Generator[httpx2.Request, httpx2.Response, None]:
        token = self.token()
        if token:
            request.headers["Authorization"] = f"Bearer {token}"
        response = yield request
        if response.status_code in EDGE_REFUSALS and str(request.url).split("?", 1)[0] == self.url:
            challenge = response.headers.get("www-authenticate")
            self.log.record(self.caller, HttpAnswer(response.status_code, challenge, self.url))
