"""Caching hints (SEP-2549) as data: how long a client may keep a listing or a read, and who may share it.

On 2026-07-28 every list result and every read result carries `ttlMs` (how long it stays fresh) and `cacheScope`
(`public`: any client may share it; `private`: only the authorization context that got it). A
server that leaves them out makes every client guess, so an absent hint fails naming the
method. 2025-11-25 has no caching hints: the steps skip there, saying so. How either harness gets them and the
checks of them are `mcpbdd.checks.cache_hints`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from mcp_types.version import MODERN_PROTOCOL_VERSIONS

__all__ = ["LISTINGS", "READ", "CacheHints"]

LISTINGS: Final = {
    "tools list": "tools/list",
    "resources list": "resources/list",
    "prompts list": "prompts/list",
    "resource templates list": "resources/templates/list",
}
"""The listing a phrase names -> the method whose result carries its hints."""

READ: Final = "resources/read"
"""The method whose result a read's hints are on (`Then the read may be cached for ...`)."""


@dataclass(frozen=True)
class CacheHints:
    """The caching hints of one result as they arrived (None: the result carried none)."""

    method: str
    era: str
    """The protocol version the result was answered on."""
    ttl_ms: int | None
    scope: str | None
    refused: str | None = None
    """What the client could not accept in the answer (`cacheScope, ttlMs`) when it refused it: no hint is known."""
    target: str | None = None
    """What the result is of, when it is one of several (a read's resource URI)."""

    @property
    def has_hints(self) -> bool:
        """Whether the era has caching hints at all (2025-11-25 has none)."""
        return self.era in MODERN_PROTOCOL_VERSIONS

    def __str__(self) -> str:
        of = f" for {self.target!r}" if self.target is not None else ""
        if self.refused is not None:
            return (
                f"the SDK's client refused the server's {self.method} answer{of} (on {self.era}; missing or invalid: "
                f"{self.refused}), so no client can use it"
            )
        ttl = "no ttlMs" if self.ttl_ms is None else f"ttlMs {self.ttl_ms}"
        scope = "no cacheScope" if self.scope is None else f"cacheScope {self.scope!r}"
        return f"the {self.method} result{of} (on {self.era}) carried {ttl} and {scope}"
