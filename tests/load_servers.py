"""A server with faults that show only under load, for the load checks' failing cases and the attacks on the driver.

Each tool is right when called one at a time and wrong when called by many callers at once, or slow, or
hostile on purpose:

- `create_note` keeps "the current tenant" in a cache shared by every request (a module-level dict, the bug)
  and reads it back after an await: one at a time it is the caller's, under concurrency another request has
  replaced it, so the note lands in another tenant's storage;
- `append_note` keeps a tenant's notes in one list and updates it by read, await, write: under concurrency
  two callers read the same list and the second write loses the first's note (acknowledged, then lost);
- `slow_echo` answers after `ms` milliseconds; `stall` never answers; `flaky` fails every third call with the
  declared reason `rate_limited`; `flood` answers `kb` kilobytes; `die` ends the server process.

Run it over HTTP with `python tests/load_servers.py --http 127.0.0.1:PORT` (stdio without `--http`).
"""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, cast

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent

from mcpbdd.kit.clock import SystemClock
from mcpbdd.kit.doubles import scenario_doubles
from mcpbdd.kit.errors import ErrorContract, Failure
from mcpbdd.storage import InMemoryProvider, StorageService

_CURRENT: dict[str, str] = {}
"""The bug: "the current request's tenant", shared by every request in the process."""

_CALLS = itertools.count(1)


@asynccontextmanager
async def lifespan(_server: MCPServer[StorageService]) -> AsyncIterator[StorageService]:
    doubles = scenario_doubles()
    if doubles is not None:
        yield doubles.storage
        return
    storage = StorageService(InMemoryProvider(), SystemClock())
    yield storage


mcp: MCPServer[StorageService] = MCPServer("load-faults", lifespan=lifespan)


def _tenant() -> tuple[str, str]:
    token = get_access_token()
    if token is None or not (token.claims or {}).get("tenant"):
        raise ToolError("Sign in first.")
    return str((token.claims or {})["tenant"]), token.subject or token.client_id


def _storage(ctx: Context) -> StorageService:
    return cast(StorageService, ctx.request_context.lifespan_context)


@mcp.tool()
async def create_note(title: str, ctx: Context) -> dict[str, Any]:
    """Create a note (through the shared "current tenant" cache: leaks across tenants under concurrency)."""
    tenant, user = _tenant()
    _CURRENT["tenant"] = tenant
    await asyncio.sleep(0.002)  # e.g. a permission lookup: another request runs meanwhile
    notebook = _storage(ctx).tenant(_CURRENT["tenant"])
    key = f"notes/{user}-{abs(hash(title)) % 10**9}"
    await notebook.set(key, {"title": title, "author": user})
    return {"stored": key}


@mcp.tool()
async def list_notes(ctx: Context) -> dict[str, Any]:
    """The caller's tenant's notes."""
    tenant, _ = _tenant()
    notebook = _storage(ctx).tenant(tenant)
    page = await notebook.list("notes/", limit=1000)
    return {"notes": [value for _, value in page.items]}


@mcp.tool()
async def append_note(title: str, ctx: Context) -> dict[str, Any]:
    """Append a note to the tenant's one list (read, await, write: loses writes under concurrency)."""
    tenant, user = _tenant()
    notebook = _storage(ctx).tenant(tenant)
    notes = list(await notebook.get("notebook/all", []))
    await asyncio.sleep(0.002)
    notes.append({"title": title, "author": user})
    await notebook.set("notebook/all", notes)
    return {"count": len(notes)}


@mcp.tool()
async def slow_echo(text: str, ms: int = 50) -> str:
    """Answer `text` after `ms` milliseconds."""
    await asyncio.sleep(ms / 1000)
    return text


@mcp.tool()
async def stall() -> str:
    """Never answer (until cancelled)."""
    await asyncio.Event().wait()
    return "never"


FLAKY = ErrorContract("flaky", Failure("rate_limited", "Too many requests.", hint="Wait a second.", retryable=True))


@mcp.tool()
async def flaky() -> Any:
    """Fail every third call with the declared tool error `rate_limited`."""
    if next(_CALLS) % 3 == 0:
        return FLAKY.fail("rate_limited", "Too many requests right now.")
    return "fine"


@mcp.tool()
async def flood(kb: int = 512) -> str:
    """Answer `kb` kilobytes of text."""
    return "x" * (kb * 1024)


_FIRST_DIE: dict[str, float] = {}
"""When `die` was first called in this process (it ends the process `after_ms` later)."""


@mcp.tool()
async def die(after_ms: int = 0) -> str:
    """End the server process `after_ms` after its first call of this tool (a crash mid-load); until then, "alive"."""
    if after_ms and _FIRST_DIE.setdefault("at", asyncio.get_running_loop().time()) + after_ms / 1000 > (
        asyncio.get_running_loop().time()
    ):
        return "alive"
    os._exit(3)


if __name__ == "__main__":  # python tests/load_servers.py [--http HOST:PORT]: the example's way of serving
    from mcpbdd.examples.serving import serve

    serve(mcp)


@mcp.tool()
async def list_titles(ctx: Context) -> str:
    """The caller's tenant's note titles as plain text, one a line (no JSON around them)."""
    tenant, _ = _tenant()
    page = await _storage(ctx).tenant(tenant).list("notes/", limit=1000)
    return "\n".join(str(value["title"]) for _, value in page.items)


@mcp.tool()
async def count_notes(ctx: Context) -> CallToolResult:
    """How many notes the caller's tenant holds, in words; the notes themselves only in the structured content."""
    tenant, _ = _tenant()
    page = await _storage(ctx).tenant(tenant).list("notes/", limit=1000)
    notes = [value for _, value in page.items]
    return CallToolResult(
        content=[TextContent(type="text", text=f"{len(notes)} notes")], structured_content={"notes": notes}
    )


@mcp.tool()
async def stamp_note(note: dict[str, Any]) -> str:
    """Adds the note's title to its `seen` list in place and refuses a note that arrives already stamped: an
    in-process server may change what it was handed, so each call must be handed its own arguments."""
    seen = note["seen"]
    if seen:
        raise ToolError(f"this note arrived already stamped by {seen}")
    seen.append(note["title"])
    return f"stamped {note['title']}"


@mcp.tool()
async def padded_titles(ctx: Context) -> str:
    """The caller's tenant's note titles after a page of padding (multi-byte characters): a long answer."""
    tenant, _ = _tenant()
    page = await _storage(ctx).tenant(tenant).list("notes/", limit=1000)
    return "é" * 65_536 + "\n" + "\n".join(str(value["title"]) for _, value in page.items)
