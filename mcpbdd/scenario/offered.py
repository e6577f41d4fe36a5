"""A server's tools and surface outside a run, listed exactly as a scenario lists them.

`mcpbdd surface dump`, `mcpbdd surface approve` and `mcpbdd lint` read the server this way, so
what they write or judge is what the snapshot and lint steps would see in a scenario: a World,
the harness a scenario would use for the target (the context harness for `module:attr`, else
the client harness), any target kind (module, stdio command, URL).
"""

from __future__ import annotations

from typing import Any

from mcp.types import Tool

__all__ = ["current_surface", "offered_tools"]


def offered_tools(server: str | None = None) -> list[Tool]:
    """The configured (or given) server's tools in its own order (duplicates kept).

    ValueError when no server is given or configured; a server that does not start raises what a
    scenario's first call would.
    """
    from mcpbdd.harness.targets import ServerTarget
    from mcpbdd.model.config import load_settings
    from mcpbdd.model.kinds import HarnessKind
    from mcpbdd.scenario.runtime import RunLoop
    from mcpbdd.scenario.world import World

    settings = load_settings({})
    target = server or settings.server
    if not target:
        raise ValueError("no server: pass --server package.module:attr (or a stdio command, a URL) or set server")
    loop = RunLoop()
    try:
        world = World(settings, loop.owner())
        try:
            world.use_server(target)
            inprocess = ServerTarget.parse(target).kind == "inprocess"
            world.use_harness(HarnessKind.CONTEXT if inprocess else HarnessKind.CLIENT)
            return world.offered_tools()
        finally:
            world.close()
    finally:
        loop.close()


def current_surface(server: str | None = None) -> dict[str, Any]:
    """The configured (or given) server's tool surface: what `mcpbdd surface dump` writes and snapshots hold."""
    from mcpbdd.checks.surface import surface_of

    return surface_of(offered_tools(server))
