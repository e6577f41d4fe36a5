"""How a step reaches the scenario's World."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcpbdd.scenario.world import World


def world(context: Any) -> World:
    """The World the mcpbdd hooks put on behave's context for this scenario.

    Imported here, not at the top: importing the steps (every behave start, `mcpbdd steps`) loads neither the
    World nor the SDK behind it; the hooks have loaded both by the time a step runs.
    """
    from mcpbdd.scenario.world import World

    found = getattr(context, "mcp", None)
    if not isinstance(found, World):
        raise RuntimeError("mcpbdd's hooks are not installed: add `from mcpbdd.behave import *` to your environment.py")
    return found


__all__ = ["world"]
