"""A server whose one answer changes with its mode, for `mcpbdd verify` to judge (run over stdio).

`python tests/drift_server.py MODE`: `stable` (the recorded build), `random` (its build id is new
on every call: a value that became volatile), `string` (its version, a number, became a string
that changes on every call)
and `leaky` (its note now holds the secret in base64). Its token is always `Bearer <secret>`,
the secret being `DRIFT_SECRET` from the environment: a cassette recorded with `--secret`
holds the mask there.
"""

from __future__ import annotations

import base64
import os
import secrets
import sys

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

MODE = sys.argv[1] if len(sys.argv) > 1 else "stable"
SECRET = os.environ.get("DRIFT_SECRET", "")
mcp = MCPServer("drift")


class Status(BaseModel):
    version: int | str
    build: str
    token: str
    note: str


@mcp.tool()
def status() -> Status:
    """The build's status; what changed in this mode (see the module docstring)."""
    return Status(
        version=str(secrets.randbelow(1000)) if MODE == "string" else 5,
        build=secrets.token_hex(6) if MODE == "random" else "b-1",
        token=f"Bearer {SECRET}",
        note=base64.b64encode(SECRET.encode()).decode() if MODE == "leaky" else "n",
    )


if __name__ == "__main__":
    mcp.run("stdio")
