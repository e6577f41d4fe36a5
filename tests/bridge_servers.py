"""A stdio server that breaks a rule the official suite fails (not only warns about), for the bridge's tests.

`python tests/bridge_servers.py`: the `conformance_servers.clean` server's tools, but a resource that does
not exist reads as an empty `contents` list, which SEP-2164 says a server MUST NOT answer (the suite's
`sep-2164-no-empty-contents` fails). Served over stdio, so the suite reaches it only through mcpbdd's
loopback bridge: the failure must come through it, not be laundered into a pass.
"""

from __future__ import annotations

from typing import Any

from conformance_servers import _tools
from mcp.server.mcpserver import Context, MCPServer

__all__ = ["empty_not_found"]


class _EmptyNotFound(MCPServer[Any]):
    async def read_resource(self, uri: Any, context: Context[Any, Any] | None = None) -> Any:
        return []


empty_not_found = _EmptyNotFound("empty-not-found")
_tools(empty_not_found)


if __name__ == "__main__":
    empty_not_found.run("stdio")
