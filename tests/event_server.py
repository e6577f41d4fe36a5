"""A test-only MCP server whose progress reports break what a client relies on.

tests/behave_cases/features/failing_progress.feature runs against it (tests/ is on the
PYTHONPATH there) to show each progress check failing with a message naming what arrived:

- `backwards` reports 1, 3 and then 2 of 3: the progress goes back;
- `stops_short` reports 1 and 2 of 3 and returns: the progress never reaches its total;
- `mumbles` reports with no message at all.
"""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer

mcp = MCPServer("event-server")


@mcp.tool()
async def backwards(ctx: Context) -> str:
    """Reports 1, 3, then 2 of 3."""
    for step in (1, 3, 2):
        await ctx.report_progress(step, 3, f"step {step}")
    return "done"


@mcp.tool()
async def stops_short(ctx: Context) -> str:
    """Reports 1 and 2 of 3, then returns."""
    for step in (1, 2):
        await ctx.report_progress(step, 3)
    return "done"


@mcp.tool()
async def mumbles(ctx: Context) -> str:
    """Reports progress without a message."""
    await ctx.report_progress(1, 1)
    return "done"


__all__ = ["backwards", "mcp", "mumbles", "stops_short"]
