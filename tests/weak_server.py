"""A deliberately weak MCP server: every tool here breaks a contract that mcpbdd's contract checks must catch.

Test-only (tests/test_contract.py, tests/test_generated.py and the failing scenarios in
tests/behave_cases/features/failing_contracts.feature). Each weakness is one a real server
ships by accident:

- `lookup` puts a traceback (stack frames, its own file path) in the error it reports;
- `shout` crashes on a string longer than 1,000 characters;
- `reading` advertises an output schema stricter than what it returns (`json_schema_extra`
  adds constraints pydantic does not enforce, so the SDK lets the result through);
- `connect` names its configured API key in an error;
- `stall` hangs on a string with a control character;
- `panic` answers a protocol-level internal error (-32603) to an empty string;
- `pick_color` advertises "any string" but takes only a few;
- `silent` returns a result with no text content;
- `untyped` advertises no output schema;
- `broken_schema` advertises an input schema that is not valid JSON Schema;
- `remember` writes before it validates, so a call it refuses still changes its memory;
- `profile` names the folder it looked in, an absolute path of the server's installation.
"""

from __future__ import annotations

import traceback
from pathlib import Path
from typing import Annotated, Literal

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, CallToolResult
from pydantic import BaseModel, Field, WithJsonSchema

API_KEY = "sk-weak-0123456789"
"""The secret `connect` leaks; tests configure it as a secret the generated calls must not reveal."""

mcp = MCPServer("weak")

MEMORY: list[str] = []
"""What `remember` stored (module state on purpose: the snapshot hook of the generated calls watches it)."""

TABLE = {"pi": "3.14159"}


@mcp.tool()
def lookup(key: str) -> str:
    """Look a constant up; on a miss the error carries the whole traceback (stack frames and this file's path)."""
    try:
        return TABLE[key]
    except KeyError:
        raise ToolError(f"lookup failed:\n{traceback.format_exc()}") from None


@mcp.tool()
def shout(text: str) -> str:
    """Upper-case a text; a fixed-size buffer makes anything longer than 1,000 characters crash."""
    if len(text) > 1000:
        raise RuntimeError("buffer overflow")
    return text.upper()


class Station(BaseModel):
    """One weather station's reading. The advertised schema says more than pydantic checks."""

    code: str = Field(json_schema_extra={"pattern": "^[A-Z]{3}$"})
    level: int = Field(json_schema_extra={"maximum": 10})


class Readings(BaseModel):
    stations: list[Station]


@mcp.tool()
def reading(region: str) -> Readings:
    """Readings of a region: the second station's code is lower-case and its level above the advertised maximum."""
    return Readings(stations=[Station(code="AMS", level=3), Station(code="rtm", level=11)])


@mcp.tool()
def connect(host: str) -> str:
    """Pretend to connect upstream; the error names the API key it used."""
    raise ToolError(f"could not reach {host!r} with the API key {API_KEY}")


@mcp.tool()
async def stall(text: str) -> str:
    """Echo a text; a control character sends it into an endless wait."""
    if any(ord(c) < 32 for c in text):
        await anyio.sleep_forever()
    return text


@mcp.tool()
def panic(name: str) -> str:
    """Greet someone; an empty name becomes a protocol-level internal error."""
    if not name:
        raise MCPError(code=INTERNAL_ERROR, message="Internal error")
    return f"Hello, {name}"


@mcp.tool()
def pick_color(color: Annotated[Literal["red", "green"], WithJsonSchema({"type": "string"})]) -> str:
    """Advertises any string, accepts red or green only."""
    return color


@mcp.tool()
def silent() -> CallToolResult:
    """Succeeds with no content at all: a client that reads text sees nothing."""
    return CallToolResult(content=[])


@mcp.tool(structured_output=False)
def untyped(text: str) -> str:
    """Plain text, no output schema."""
    return text


@mcp.tool()
def broken_schema(size: Annotated[int, WithJsonSchema({"type": "integr"})]) -> str:
    """Its input schema names a type JSON Schema does not have."""
    return str(size)


@mcp.tool()
def remember(item: str) -> str:
    """Store an item; one longer than 100 characters is refused, but only after it was stored."""
    MEMORY.append(item)
    if len(item) > 100:
        raise ToolError("An item is at most 100 characters.")
    return f"remembered {len(MEMORY)} item(s)"


@mcp.tool()
def profile(name: str) -> str:
    """Load a settings profile; the error names the absolute folder it looked in."""
    raise ToolError(f"No profile {name!r} in {Path(__file__).resolve().parent / 'profiles'}")
