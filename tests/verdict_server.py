"""A test-only MCP server whose scenarios must get one verdict on every target: context, client, legacy, stdio, HTTP.

tests/behave_cases/features/one_verdict.feature runs against it (tests/ is on the PYTHONPATH there:
in-process as `verdict_server:mcp`, over stdio as `{python} tests/verdict_server.py`, over HTTP with
`--http 127.0.0.1:{port}`), and tests/spawning/test_one_verdict.py compares the verdicts:

- `grow` adds the tool `grown` to the module-level server, and `shrink` removes `doomed`: in a fresh
  process the next scenario sees neither change, so in-process it must not either;
- `shielded_save` reports progress and saves inside `anyio.CancelScope(shield=True)`, then waits:
  a cancel the client sends meanwhile lets the save finish (the shield holds, as in production) and
  stops the handler at its next await;
- it is made with `subscriptions=False`, so it declares no `listChanged` and no `resources.subscribe`
  on either era: a listen must fail at once saying so;
- its completion handler raises: `completion/complete` is answered with an error, which must fail the
  scenario naming the request, never end it with a traceback; so do a prompt, a resource and a
  resource template.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer

if __name__ == "__main__":  # run as a script: the repository is importable, as from tests/
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mcpbdd.kit.clock import SystemClock
from mcpbdd.kit.doubles import scenario_doubles
from mcpbdd.storage import InMemoryProvider, StorageService

TENANT = "acme"


@asynccontextmanager
async def _storage(_server: MCPServer[StorageService]) -> AsyncIterator[StorageService]:
    """The scenario's storage (in-process, or from the environment of a process mcpbdd started), else memory."""
    doubles = scenario_doubles()
    yield doubles.storage if doubles is not None else StorageService(InMemoryProvider(), SystemClock())


mcp: MCPServer[StorageService] = MCPServer("verdict", lifespan=_storage, subscriptions=False)
# The SDK logs each handler's exception with a rich traceback, which can take seconds on a loaded machine (in-process,
# on the event loop the call's timeout runs on): the failures below are meant, so they are not logged.
logging.getLogger("mcp").setLevel(logging.CRITICAL)


def grown() -> str:
    """A tool `grow` adds at runtime."""
    return "I was added at runtime"


@mcp.tool()
def grow() -> str:
    """Adds the tool `grown` to this server (a runtime registration)."""
    mcp.add_tool(grown)
    return "grown"


@mcp.tool()
def doomed() -> str:
    """A tool `shrink` removes."""
    return "still here"


@mcp.tool()
def shrink() -> str:
    """Removes the tool `doomed` from this server."""
    mcp.remove_tool("doomed")
    return "doomed is gone"


@mcp.tool()
async def touch() -> str:
    """Changes nothing and announces nothing."""
    return "touched"


@mcp.tool()
async def shielded_save(ctx: Context[Any, StorageService]) -> str:
    """Saves inside a shield (a cancel waits for it), then waits: a cancel stops it there."""
    storage = ctx.request_context.lifespan_context.tenant(TENANT)
    with anyio.CancelScope(shield=True):
        await ctx.report_progress(1, 2, "saving")
        await anyio.sleep(0.1)
        await storage.set("saved", {"done": True})
    await anyio.sleep(5)
    return "saved, then waited"


@mcp.prompt()
def greet(name: str) -> str:
    """A prompt whose argument the broken completion handler is asked about."""
    return f"Hello {name}"


@mcp.prompt()
def broken_prompt() -> str:
    """A prompt that cannot be rendered."""
    raise RuntimeError("the prompt's template is gone")


@mcp.resource("verdict://broken")
def broken_resource() -> str:
    """A resource that cannot be read."""
    raise RuntimeError("the disk is gone")


@mcp.resource("verdict://broken/{name}")
def broken_template(name: str) -> str:
    """A resource template none of whose resources can be read."""
    raise RuntimeError(f"the disk holding {name} is gone")


@mcp.completion()  # type: ignore[no-untyped-call, untyped-decorator]  # the SDK leaves it unannotated
async def complete(ref: Any, argument: Any, context: Any) -> Any:
    """Always fails: the SDK answers `completion/complete` with an internal error."""
    raise RuntimeError("the completion index is gone")


def fresh_server() -> MCPServer[Any]:
    """A factory target (`verdict_server:fresh_server`): mcpbdd builds a server of its own for each scenario."""
    return MCPServer("fresh verdict")


if __name__ == "__main__":
    from mcpbdd.examples.serving import serve

    serve(mcp)
