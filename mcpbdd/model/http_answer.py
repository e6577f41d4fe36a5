"""What a client met at a server's HTTP edge instead of an MCP answer: a 401, a 403, and its challenge.

Over Streamable HTTP a protected server refuses a request before MCP sees it: 401 when
the bearer token is missing or refused, 403 when it lacks a scope the request needs. The
`WWW-Authenticate` header says why and where to go next (RFC 6750, RFC 9728: the
protected-resource metadata URL, the scope to ask for). The HTTP connector records it;
the outcome of the call carries it, so the authorization steps read status and challenge,
not prose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["HttpAnswer", "challenge_params"]

_PARAM = re.compile(r'([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))')


def challenge_params(challenge: str) -> dict[str, str]:
    """The auth-params of a `Bearer` challenge: `{"error": "insufficient_scope", "scope": "notes:write", ...}`."""
    scheme, _, rest = challenge.strip().partition(" ")
    if scheme.lower() != "bearer":
        return {}
    return {m[1].lower(): (m[2].replace('\\"', '"') if m[2] is not None else m[3]) for m in _PARAM.finditer(rest)}


@dataclass(frozen=True)
class HttpAnswer:
    """An HTTP refusal of a request to the MCP endpoint (status 400 or more)."""

    status: int
    challenge: str | None = None
    """The `WWW-Authenticate` header, as sent (None: the server sent none)."""
    url: str = ""

    @property
    def params(self) -> dict[str, str]:
        return challenge_params(self.challenge or "")

    def __str__(self) -> str:
        told = f" (WWW-Authenticate: {self.challenge})" if self.challenge else " (no WWW-Authenticate header)"
        return f"HTTP {self.status}{told}"
