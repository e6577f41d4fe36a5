"""A server that echoes its caller's bearer token everywhere (spawning/test_minted_secrets_in_reports.py).

The token is one the fake authorization server minted for the scenario's caller: no project lists
it under `secrets`, and it differs each run. The server repeats it in its result, in a log message
to the client and on its stderr (which the report attaches when the scenario fails), whole or cut and
escaped. It verifies nothing: the point is only what a careless server writes.

    python token_echo_server.py PORT
"""

from __future__ import annotations

import sys

import uvicorn
from mcp.server.mcpserver import Context, MCPServer

mcp = MCPServer("token-echo")


def _heard(ctx: Context) -> str:
    """The Authorization header the call came with, noted in `tokens-seen.txt` (beside the features, outside
    the reports) so the test knows which token to look for in pieces."""
    sent = (ctx.headers or {}).get("authorization", "no token")
    with open("tokens-seen.txt", "a", encoding="utf-8") as seen:
        seen.write(sent.removeprefix("Bearer ") + "\n")
    return sent


@mcp.tool()
async def whoami(ctx: Context) -> str:
    """The Authorization header the call came with, back in the result, a log message and on stderr."""
    sent = _heard(ctx)
    print(f"whoami: the caller sent {sent}", file=sys.stderr, flush=True)
    await ctx.info(f"the caller sent {sent}")
    return f"you sent {sent}"


@mcp.tool()
async def whoami_cut(ctx: Context) -> str:
    """The token cut and escaped the ways a careless server does: its signature alone in a log message and on
    stderr (the rest cut off by a limit), the whole with each dot escaped as JSON does in the result."""
    token = _heard(ctx).removeprefix("Bearer ")
    signature = token.rsplit(".", 1)[-1]
    print(f"whoami_cut: ...{signature}", file=sys.stderr, flush=True)
    await ctx.info(f"the caller's token ends ...{signature}")
    return "you sent " + token.replace(".", "\\u002e")


if __name__ == "__main__":
    uvicorn.run(mcp.streamable_http_app(host="127.0.0.1"), host="127.0.0.1", port=int(sys.argv[1]), log_level="error")
