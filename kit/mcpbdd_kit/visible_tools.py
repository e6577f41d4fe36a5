"""Tools offered per caller (a tenant's plan, a feature flag, a scope): listed and callable only where they are on.

The SDK's `MCPServer` lists every registered tool to everyone; a server that turns a tool on per tenant
used to subclass it and override the private `_handle_list_tools`. `show_tools_when` does it through
the server's public request handlers instead, for both `tools/list` and `tools/call`, so that a hidden
tool is hidden the same way wherever the request comes from (a real client on either era, over any
transport, or mcpbdd's context harness, which calls the same handlers):

    async def archive_is_on(ctx: ServerRequestContext[AppState], tool: str) -> bool:
        if tool != "archive_note":
            return True
        return bool(await ctx.lifespan_context.storage.tenant(tenant_of_the_caller()).get("settings/archiving"))

    show_tools_when(mcp, archive_is_on)   # once, after the tools are registered

A hidden tool is absent from `tools/list`, and calling it answers exactly as a tool that does not
exist does (`Unknown tool: <name>`, a tool error), so a caller cannot tell a hidden tool from no tool.
The rule runs inside the request, where `get_access_token()` names the caller. It fails closed: only
`True` shows a tool; a rule that raises (logged) or returns anything else hides it, and the other
tools are listed as usual. Announce a change of
what a caller sees with `mcpbdd.kit.announce.tools_changed(ctx)`.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from mcp.server.context import HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolRequestParams, CallToolResult, ListToolsResult, PaginatedRequestParams, TextContent

from mcpbdd_kit._sdk import lowlevel_server

__all__ = ["ToolRule", "show_tools_when"]

logger = logging.getLogger("mcpbdd.kit.visible_tools")

ToolRule = Callable[[ServerRequestContext[Any, Any], str], bool | Awaitable[bool]]
"""Whether the caller of this request may see and call the tool named: plain or async."""


async def _allowed(rule: ToolRule, ctx: ServerRequestContext[Any, Any], name: str) -> bool:
    """Whether `rule` shows `name`: only a plain `True` does. A rule that raises hides the tool (logged with its
    traceback) rather than failing the whole listing for every caller or showing what it could not decide on;
    one that returns anything else (None from a forgotten return, a tenant's name) hides it too."""
    try:
        verdict = rule(ctx, name)
        if inspect.isawaitable(verdict):
            verdict = await verdict
    except Exception:
        logger.exception("show_tools_when: the rule raised for the tool %r; the tool is hidden from this caller", name)
        return False
    return verdict is True


def show_tools_when(server: MCPServer[Any], rule: ToolRule) -> None:
    """List and run a tool of `server` only for the callers `rule` allows (call once, after registering tools)."""
    lowlevel = lowlevel_server(server)
    listing, calling = lowlevel.get_request_handler("tools/list"), lowlevel.get_request_handler("tools/call")
    if listing is None or calling is None:
        raise ValueError(f"{server.name!r} serves no tools/list or tools/call: register its tools first")
    list_tools, call_tool = listing.handler, calling.handler

    async def visible_list(ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams) -> HandlerResult:
        answer: HandlerResult = await list_tools(ctx, params)
        if not isinstance(answer, ListToolsResult):
            return answer  # an error or a result of another shape: not ours to filter
        shown = [tool for tool in answer.tools if await _allowed(rule, ctx, tool.name)]
        return answer.model_copy(update={"tools": shown})

    async def visible_call(ctx: ServerRequestContext[Any, Any], params: CallToolRequestParams) -> HandlerResult:
        if not await _allowed(rule, ctx, params.name):
            # What the SDK answers for a name it does not know: a hidden tool is no tool to this caller.
            unknown = TextContent(type="text", text=f"Unknown tool: {params.name}")
            return CallToolResult(content=[unknown], is_error=True)
        called: HandlerResult = await call_tool(ctx, params)
        return called

    lowlevel.add_request_handler("tools/list", PaginatedRequestParams, visible_list)
    lowlevel.add_request_handler("tools/call", CallToolRequestParams, visible_call)
