"""A test-only MCP server whose progress reports and log messages break what a client relies on.

tests/behave_cases/features/failing_progress.feature and failing_logs.feature run against it
(tests/ is on the PYTHONPATH there) to show each check failing with a message naming what arrived:

- `backwards` reports 1, 3 and then 2 of 3: the progress goes back;
- `stops_short` reports 1 and 2 of 3 and returns: the progress never reaches its total;
- `mumbles` reports with no message at all;
- `chatty` logs whatever the client asked for: it sends its log message as a plain notification,
  past the SDK's per-request level check, which a 2026-07-28 server must not do;
- `leaky` logs the API key it uses.

Its tools list and its one resource (`events://status`) may be cached by any client (public): the
caching-hint failures of failing_discovery.feature use it.

`levelled` is a second server, a well-behaved 2025-11-25 one: it handles `logging/setLevel`
(so it declares the logging capability) and drops what is below the level set, the
application's job on that era; `tests/test_logs.py` shows the client harness asking it.
"""

from __future__ import annotations

from typing import Any

from mcp.server import CacheHint
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import (
    LOG_LEVEL_META_KEY,
    EmptyResult,
    LoggingMessageNotification,
    LoggingMessageNotificationParams,
    SetLevelRequestParams,
)

from mcpbdd._sdk import lowlevel_server

API_KEY = "sk-event-4242"

# Its tools list and reads may be shared by every client (public), unlike the notes server's: for the caching-hint
# failures.
mcp = MCPServer(
    "event-server",
    cache_hints={
        "tools/list": CacheHint(ttl_ms=1_500, scope="public"),
        "resources/read": CacheHint(ttl_ms=1_500, scope="public"),
    },
)


@mcp.resource("events://status", mime_type="text/plain")
async def status() -> str:
    """A status line any client may keep (its read is public)."""
    return "all quiet"


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


@mcp.tool()
async def chatty(ctx: Context) -> str:
    """Logs at error level whether or not the client asked for log messages."""
    params = LoggingMessageNotificationParams(level="error", data="disk almost full", logger="chatty")
    await ctx.request_context.session.send_notification(LoggingMessageNotification(params=params), ctx.request_id)
    return "done"


@mcp.tool()
async def leaky(ctx: Context) -> str:
    """Logs the API key it connects with."""
    await ctx.info(f"connecting with {API_KEY}", logger_name="leaky")
    return "done"


levelled = MCPServer("levelled")
LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
SET_LEVELS: list[str] = []
"""Every level a client set with `logging/setLevel`, in order (the last one is in force)."""


async def _set_level(_ctx: Any, params: SetLevelRequestParams) -> EmptyResult:
    SET_LEVELS.append(params.level)
    return EmptyResult()


lowlevel_server(levelled).add_request_handler("logging/setLevel", SetLevelRequestParams, _set_level)


@levelled.tool()
async def report(ctx: Context) -> str:
    """Logs at debug, info and warning; on 2025-11-25 only what the level set allows."""
    requested = (ctx.request_context.meta or {}).get(LOG_LEVEL_META_KEY)  # 2026-07-28: the SDK filters by it
    floor = LEVELS.index(SET_LEVELS[-1]) if SET_LEVELS and requested is None else 0
    for level in ("debug", "info", "warning"):
        if LEVELS.index(level) >= floor:
            await ctx.log(level, f"a {level} message")
    return "done"


__all__ = [
    "API_KEY",
    "SET_LEVELS",
    "backwards",
    "chatty",
    "leaky",
    "levelled",
    "mcp",
    "mumbles",
    "report",
    "stops_short",
]
