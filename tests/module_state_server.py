"""A server that keeps its orders in a module-level dict (test-only): the newcomer's trap tests/test_module_state.py
shows mcpbdd naming."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

mcp = MCPServer("orders")
ORDERS: dict[str, int] = {}
LIMITS = {"max_qty": 10}


@mcp.tool()
def place_order(item: str) -> str:
    """Place an order (kept in a module-level dict: it outlives the scenario in-process)."""
    ORDERS[item] = ORDERS.get(item, 0) + 1
    return f"o-{sum(ORDERS.values())}"


@mcp.tool()
def read_limits() -> int:
    """Reads module state without changing it."""
    return LIMITS["max_qty"]


__all__ = ["mcp"]
