"""Scripted client sessions driven through `mcpbdd record`: a real `mcp.Client` over stdio.

The client's configuration names `mcpbdd record --out FILE -- <server command>` in place of the
server command, exactly as a desktop client's would. The tests run them here (`SESSIONS`); as a script:
`python tests/recorded_sessions.py notes|everything CASSETTE [--secret S ...] -- SERVER-COMMAND...`.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from mcpbdd.record import through_recorder


def _accept(answer: dict[str, Any]) -> Any:
    async def callback(_context: Any, _params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content=answer)

    return callback


async def notes_session(params: StdioServerParameters) -> None:
    """Create a note, read it back, delete it with consent (2026-07-28: an input-required round)."""
    async with Client(params, elicitation_callback=_accept({"confirm": True})) as client:
        created = await client.call_tool("create_note", {"title": "Plan", "body": "Ship on Friday"})
        note_id = created.structured_content["id"]
        await client.call_tool("get_note", {"note_id": note_id})
        await client.call_tool("delete_note", {"note_id": note_id})
        await client.call_tool("get_note", {"note_id": note_id})


async def everything_session(params: StdioServerParameters) -> None:
    """Echo, a sum, a structured result, a bad argument, an unknown tool, an elicitation answered."""
    answer = {"name": "Ada", "check": True}
    async with Client(params, elicitation_callback=_accept(answer), mode="legacy") as client:
        await client.call_tool("echo", {"message": "hello"})
        await client.call_tool("get-sum", {"a": 2, "b": 3})
        await client.call_tool("get-structured-content", {"location": "New York"})
        await client.call_tool("get-sum", {"a": "one", "b": 3})
        with contextlib.suppress(MCPError):  # a protocol error is part of the recorded session too
            await client.call_tool("no-such-tool", {})
        await client.call_tool("trigger-elicitation-request", {})


async def notes_over_http(url: str, token: str) -> None:
    """The notes session over Streamable HTTP (through `mcpbdd record --listen ... --to ...`), as a signed-in user."""
    consent = _accept({"confirm": True})
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
        Client(streamable_http_client(url, http_client=http), elicitation_callback=consent) as client,
    ):
        created = await client.call_tool("create_note", {"title": "Plan", "body": "Ship on Friday"})
        note_id = created.structured_content["id"]
        await client.call_tool("get_note", {"note_id": note_id})
        await client.call_tool("delete_note", {"note_id": note_id})


SESSIONS = {"notes": notes_session, "everything": everything_session}


def main(argv: Sequence[str]) -> None:
    name, cassette, *rest = argv
    cut = rest.index("--")
    secrets = [value for option, value in zip(rest[:cut:2], rest[1:cut:2], strict=True) if option == "--secret"]
    anyio.run(SESSIONS[name], through_recorder(Path(cassette), rest[cut + 1 :], secrets=secrets))


if __name__ == "__main__":
    main(sys.argv[1:])
