"""A test-only MCP server that ignores cancellation: it finishes its import and stores it whatever the client says.

tests/behave_cases/features/failing_cancellation.feature runs against it (tests/ is on the PYTHONPATH
there, in-process as `stubborn_server:mcp`, over stdio as `{python} -m stubborn_server`) to show
`Then the call was cancelled` and the storage steps failing with messages naming what arrived.

`stubborn_import` works in a task of its own and waits for it through every cancellation (a server
that shields its work, or hands it to a background job, does this by mistake). The SDK's dispatcher
drops the answer of a request its client cancelled (and in-process the harnesses cancel as it does),
but the notes are stored anyway: the storage steps show the half-done work. The SDK's own servers
stop a cancelled handler; the notes example's `import_notebook` does.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.mcpserver import Context, MCPServer

from mcpbdd.kit.clock import SystemClock
from mcpbdd.kit.doubles import scenario_doubles
from mcpbdd.storage import InMemoryProvider, StorageService


@asynccontextmanager
async def _storage(_server: MCPServer[StorageService]) -> AsyncIterator[StorageService]:
    """The scenario's storage (in-process or from the environment of a process mcpbdd started), else memory."""
    doubles = scenario_doubles()
    yield doubles.storage if doubles is not None else StorageService(InMemoryProvider(), SystemClock())


mcp: MCPServer[StorageService] = MCPServer("stubborn", lifespan=_storage)


def _tenant() -> str:
    token = get_access_token()
    tenant = (token.claims or {}).get("tenant") if token is not None else None
    return str(tenant or os.environ.get("NOTES_TENANT", "acme"))


@mcp.tool()
async def stubborn_import(titles: list[str], ctx: Context[StorageService, Any], pace_ms: int = 50) -> str:
    """Imports note by note, reporting each, and stores them all at the end, ignoring any cancellation."""
    notebook = ctx.request_context.lifespan_context.tenant(_tenant())

    async def work() -> str:
        for done, title in enumerate(titles, 1):
            await ctx.report_progress(done, len(titles), f"Imported {title!r}")
            await asyncio.sleep(pace_ms / 1000)
        await notebook.set_many({f"notes/{title.lower()}": {"title": title} for title in titles})
        return f"Imported {len(titles)} notes"

    job = asyncio.ensure_future(work())
    while True:
        try:
            return await asyncio.shield(job)
        except asyncio.CancelledError:  # the mistake this server exists for: the cancel is swallowed
            if job.done():
                return job.result()


if __name__ == "__main__":
    mcp.run("stdio")
