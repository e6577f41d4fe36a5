"""A server that misbehaves under load, over Streamable HTTP with mcpbdd's test tokens: for the Locust attacks.

    python tests/locust_servers.py PORT

`echo` answers at once; `stall` never answers (a hung handler); `flood` answers 4 MB of text each time;
`refuse` raises a JSON-RPC error (-32001, reason `over_quota`) on the protocol channel.
"""

from __future__ import annotations

import sys

import anyio
import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError

from mcpbdd.kit.auth import mount_test_auth

FLOOD_BYTES = 4 * 1024 * 1024

mcp = MCPServer("misbehaving")


@mcp.tool()
async def echo(text: str) -> str:
    """Answer at once."""
    return text


@mcp.tool()
async def stall() -> str:
    """Never answer (an hour is forever to a load run)."""
    await anyio.sleep(3600)
    return "late"


@mcp.tool()
async def flood() -> str:
    """Answer far more than any call should."""
    return "x" * FLOOD_BYTES


@mcp.tool()
async def refuse() -> str:
    """Refuse on the protocol channel, with a declared reason."""
    raise MCPError(-32001, "over quota", {"reason": "over_quota"})


if __name__ == "__main__":
    port = int(sys.argv[1])
    app = mount_test_auth(mcp.streamable_http_app(host="127.0.0.1"))
    anyio.run(uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")).serve)
