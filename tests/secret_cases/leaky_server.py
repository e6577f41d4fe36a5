"""A server that leaks the secret it is given in every form a report can show (spawning/test_secrets_in_reports.py).

Each tool writes the secret a different way: as plain text, inside structured content and
a JSON text (escaped once, then again by the report), in base64 and in a Basic credential,
in an upstream request's path, query and bearer token (URL-encoded by httpx), on its
stdout (which behave captures into JUnit) and, over stdio, on its stderr (which the
report attaches when the scenario fails).
"""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from urllib.parse import quote

import httpx
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

from mcpbdd.kit.doubles import scenario_doubles
from mcpbdd.kit.upstream import upstream_base
from mcpbdd.upstream import Upstream

VAULT = "https://vault.example.com"


@asynccontextmanager
async def lifespan(_server: MCPServer[httpx.AsyncClient]) -> AsyncIterator[httpx.AsyncClient]:
    """The vault's client: over the scenario's upstream doubles under mcpbdd."""
    doubles = scenario_doubles()
    upstream = (doubles.upstream if doubles is not None else None) or Upstream()
    async with httpx.AsyncClient(base_url=upstream_base(VAULT), transport=upstream.transport()) as client:
        yield client


mcp = MCPServer("leaky", lifespan=lifespan)


class Leak(BaseModel):
    """The secret in structured content, as JSON text, in a link (URL-encoded) and in base64."""

    secret: str
    as_json: str
    link: str
    base64: str
    base64url: str
    basic: str


@mcp.tool()
def echo(text: str) -> str:
    """Plain text back, and on stdout."""
    print(f"echo: {text}")
    return f"you said {text}"


@mcp.tool()
def leak(secret: str) -> Leak:
    """Structured content holding the secret as it is, as JSON text (ASCII-escaped), in a link and in base64."""
    data = secret.encode("utf-8")
    return Leak(
        secret=secret,
        as_json=json.dumps({"secret": secret}),
        link=f"{VAULT}/keys/{quote(secret, safe='')}",
        base64=base64.b64encode(data).decode(),
        base64url=base64.urlsafe_b64encode(data).decode().rstrip("="),
        basic="Basic " + base64.b64encode(b"vault:" + data).decode(),
    )


@mcp.tool()
async def lookup(secret: str, ctx: Context) -> str:
    """Asks the vault for the secret: in the path and the query (httpx URL-encodes them), and as a bearer token."""
    client: httpx.AsyncClient = ctx.request_context.lifespan_context
    headers = {"Authorization": f"Bearer {secret}"} if secret.isascii() else {}  # a header is ASCII
    response = await client.get(f"/keys/{secret}", params={"key": secret}, headers=headers)
    return f"the vault answered {response.status_code}"


@mcp.tool()
def complain(secret: str) -> str:
    """Writes the secret to stderr (a stdio server's stderr is attached to a failed scenario)."""
    print(f"warning: the key {secret} is about to expire", file=sys.stderr, flush=True)
    return "complained"


if __name__ == "__main__":
    mcp.run("stdio")
