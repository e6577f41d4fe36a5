"""A deliberately unreliable MCP server, for specifying what a client sees when a server fails hard.

Run over stdio (`python -m mcpbdd.examples.unreliable`): `crash` kills the whole process in
the middle of a call, after writing why to stderr, the way an out-of-memory kill or a fatal
error in a native library would. A client sees the connection end with no answer; mcpbdd
reports it as a transport failure with the process's exit code and the end of its stderr.
"""

from __future__ import annotations

import os
import sys

from mcp.server.mcpserver import MCPServer

mcp = MCPServer("unreliable", instructions="A server that fails hard on request.")


@mcp.tool()
def status() -> str:
    """Answers normally: the server is up."""
    return "all systems nominal"


@mcp.tool()
def crash(reason: str = "the index is corrupt") -> str:
    """Dies mid-call: writes a fatal message to stderr and exits with code 3 before answering."""
    print(f"fatal: {reason}, giving up", file=sys.stderr, flush=True)
    os._exit(3)


if __name__ == "__main__":
    mcp.run("stdio")


__all__ = ["crash", "mcp", "status"]
