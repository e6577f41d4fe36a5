"""A production server that imports only the kit (mcpbdd_kit): a consent gate on a tool and the protected HTTP edge.

tests/spawning/test_kit_install.py runs it with the Python of a venv that holds mcpbdd-kit and nothing of mcpbdd:
it calls its tool through a real `mcp.Client` (the gate asks, the client consents, the tool runs once), knocks on
its HTTP edge without a token (401, naming the metadata) and reads the metadata, then prints what it saw as JSON.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx
import mcp_types
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer

from mcpbdd_kit.clock import SystemClock
from mcpbdd_kit.consent import CONSENT_KEY, ConsentGate
from mcpbdd_kit.jwks import JwksVerifier
from mcpbdd_kit.protected import protect
from mcpbdd_kit.storage import StorageService

__all__: list[str] = []

server = MCPServer("kit-only")
storage = StorageService()
GATE = ConsentGate("delete the note")
deleted: list[str] = []
asked: list[str] = []


@server.tool()
async def delete_note(note_id: str, ctx: Context) -> Any:
    """Delete a note after the user consents (each consent deletes once)."""
    notebook = storage.tenant("acme")
    decision = await GATE.check(ctx, notebook, SystemClock(), arguments={"note_id": note_id}, target=note_id)
    if not decision.granted:
        return decision.response  # the question, or the refusal
    deleted.append(note_id)
    return f"deleted {note_id}"


async def consent(context: Any, params: mcp_types.ElicitRequestParams) -> mcp_types.ElicitResult:
    """The user says yes to what the gate asks."""
    asked.append(params.message)
    return mcp_types.ElicitResult(action="accept", content={CONSENT_KEY: True})


async def main() -> None:
    async with Client(server, elicitation_callback=consent) as client:
        result = await client.call_tool("delete_note", {"note_id": "n-1"})
    resource = "https://mcp.example/mcp"
    verifier = JwksVerifier("https://as.example/jwks", issuer="https://as.example", audience=resource)
    app = protect(
        server.streamable_http_app(), verifier, resource_url=resource, authorization_servers=["https://as.example"]
    )
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="https://mcp.example") as http:
        door = await http.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        metadata = await http.get("/.well-known/oauth-protected-resource/mcp")
    seen = {
        "asked": asked,
        "result": [block.text for block in result.content if isinstance(block, mcp_types.TextContent)],
        "deleted": deleted,
        "door": [door.status_code, door.headers.get("www-authenticate", "")],
        "metadata": [metadata.status_code, metadata.json().get("resource")],
    }
    print(json.dumps(seen))


if __name__ == "__main__":
    anyio.run(main)
