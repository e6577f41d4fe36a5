"""A server that echoes its caller's bearer token everywhere (spawning/test_minted_secrets_in_reports.py).

The token is one the fake authorization server minted for the scenario's caller: no project lists
it under `secrets`, and it differs each run. The server repeats it in its result, in a log message
to the client and on its stderr (which the report attaches when the scenario fails). It verifies
nothing: the point is only what a careless server writes.

    python token_echo_server.py PORT
"""

from __future__ import annotations

import sys

import uvicorn
from mcp.server.mcpserver import Context, MCPServer

mcp = MCPServer("token-echo")


@mcp.tool()
async def whoami(ctx: Context) -> str:
    """The Authorization header the call came with, back in the result, a log message and on stderr."""
    sent = (ctx.headers or {}).get("authorization", "no token")
    print(f"whoami: the caller sent {sent}", file=sys.stderr, flush=True)
    await ctx.info(f"the caller sent {sent}")
    return f"you sent {sent}"


if __name__ == "__main__":
    uvicorn.run(mcp.streamable_http_app(host="127.0.0.1"), host="127.0.0.1", port=int(sys.argv[1]), log_level="error")
