"""How a step reaches the scenario's World."""

from __future__ import annotations

from typing import Any

from mcpbdd.scenario.world import World


def world(context: Any) -> World:
    """The World the mcpbdd hooks put on behave's context for this scenario."""
    found = getattr(context, "mcp", None)
    if not isinstance(found, World):
        raise RuntimeError("mcpbdd's hooks are not installed: add `from mcpbdd.behave import *` to your environment.py")
    return found


__all__ = ["world"]
