"""`mcpbdd.kit.visible_tools.show_tools_when`: a tool listed and callable only for the callers a rule allows.

The same server on every harness (context, client on 2026-07-28, client on 2025-11-25): a hidden tool is absent from
the listing and calling it answers as a tool that does not exist; the rule sees the caller's identity.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from conftest import HARNESS_KINDS, make_harness
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import MCPServer

from mcpbdd.kit.principals import Principal
from mcpbdd.kit.visible_tools import show_tools_when
from mcpbdd.model.outcome import Call, Channel

PREMIUM = Principal("alice", "acme")
BASIC = Principal("bob", "globex")


def build() -> MCPServer:
    mcp = MCPServer("plans")

    @mcp.tool()
    def export_report() -> str:
        """Export the quarter's report (premium tenants only)."""
        return "report.pdf"

    @mcp.tool()
    def ping() -> str:
        """Everyone may ping."""
        return "pong"

    async def premium_only(ctx: ServerRequestContext[Any, Any], tool: str) -> bool:
        token = get_access_token()
        tenant = (token.claims or {}).get("tenant") if token is not None else None
        return tool != "export_report" or tenant == "acme"

    show_tools_when(mcp, premium_only)
    return mcp


@pytest.fixture(params=HARNESS_KINDS)
async def harness(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    async with make_harness(request.param, build(), timeout=5.0) as entered:
        yield entered


@pytest.mark.anyio
async def test_a_premium_tenant_sees_and_calls_the_tool(harness: Any) -> None:
    assert sorted(tool.name for tool in await harness.list_tools(PREMIUM)) == ["export_report", "ping"]
    outcome = await harness.send(PREMIUM, Call.tool("export_report"))
    assert outcome.channel is Channel.OK, outcome


@pytest.mark.anyio
async def test_another_tenant_neither_sees_it_nor_can_call_it(harness: Any) -> None:
    assert [tool.name for tool in await harness.list_tools(BASIC)] == ["ping"]
    hidden = await harness.send(BASIC, Call.tool("export_report"))
    unknown = await harness.send(BASIC, Call.tool("no_such_tool"))
    assert hidden.channel is unknown.channel is Channel.TOOL_ERROR
    assert hidden.text == "Unknown tool: export_report"
    assert unknown.text == "Unknown tool: no_such_tool"  # the same answer: a hidden tool is no tool


def test_a_server_without_tools_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="'empty' serves no tools/list or tools/call"):
        from mcp.server import Server

        class Bare:
            name = "empty"
            _lowlevel_server = Server("empty")

        show_tools_when(Bare(), lambda ctx, tool: True)  # type: ignore[arg-type]
