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
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult

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


def build_with_a_failing_rule() -> MCPServer:
    """A rule that cannot decide for one tool (it raises) and returns a non-bool for another."""
    mcp = MCPServer("shaky")

    @mcp.tool()
    def export_report() -> str:
        """Its rule raises."""
        return "report.pdf"

    @mcp.tool()
    def audit_log() -> str:
        """Its rule returns the tenant's name, not a bool."""
        return "log"

    @mcp.tool()
    def ping() -> str:
        """Everyone may ping."""
        return "pong"

    def shaky(ctx: ServerRequestContext[Any, Any], tool: str) -> bool:
        if tool == "export_report":
            raise KeyError("plan")  # e.g. a tenant without a plan in the rule's table
        if tool == "audit_log":
            return "acme"  # type: ignore[return-value]  # meant `tenant == "acme"`
        return True

    show_tools_when(mcp, shaky)
    return mcp


@pytest.mark.anyio
@pytest.mark.parametrize("kind", HARNESS_KINDS)
async def test_a_rule_that_raises_or_answers_no_bool_hides_the_tool_and_lists_the_rest(
    kind: Any, caplog: pytest.LogCaptureFixture
) -> None:
    async with make_harness(kind, build_with_a_failing_rule(), timeout=5.0) as harness:
        assert [tool.name for tool in await harness.list_tools(PREMIUM)] == ["ping"]
        for name in ("export_report", "audit_log"):
            hidden = await harness.send(PREMIUM, Call.tool(name))
            assert hidden.channel is Channel.TOOL_ERROR and hidden.text == f"Unknown tool: {name}", hidden
    assert "the rule raised for the tool 'export_report'" in caplog.text


SPELLINGS = ["Export_Report", "EXPORT_REPORT", "export_report ", " export_report", "export-report"]


@pytest.mark.anyio
@pytest.mark.parametrize("name", SPELLINGS)
async def test_a_hidden_tool_is_not_reached_by_another_spelling_of_its_name(harness: Any, name: str) -> None:
    called = await harness.send(BASIC, Call.tool(name))
    assert called.channel is Channel.TOOL_ERROR and called.text == f"Unknown tool: {name}", called


def build_with_a_question(hidden: set[str]) -> MCPServer:
    """A tool that asks before it acts (2026-07-28 input rounds), and a rule reading `hidden` on each request."""
    mcp = MCPServer("asking")

    @mcp.tool()
    def export_report(ctx: Context) -> InputRequiredResult | str:
        """Asks to confirm, then exports."""
        if ctx.request_state != "asked":
            question = ElicitRequest(
                params=ElicitRequestFormParams(message="Export?", requested_schema={"type": "object", "properties": {}})
            )
            return InputRequiredResult(input_requests={"confirm": question}, request_state="asked")
        return "report.pdf"

    show_tools_when(mcp, lambda ctx, tool: tool not in hidden)
    return mcp


@pytest.mark.anyio
@pytest.mark.parametrize("kind", ["context", "client-auto"])
async def test_a_tool_hidden_between_two_rounds_of_its_call_does_not_run_the_second(kind: str) -> None:
    """Each round of a 2026-07-28 call is a tools/call of its own: the rule is asked again, so a tool hidden
    (a plan downgraded) after its question was asked answers the retry as an unknown tool."""
    hidden: set[str] = set()
    async with make_harness(kind, build_with_a_question(hidden), timeout=5.0) as harness:
        answers = {"confirm": ElicitResult(action="accept", content={})}
        asked = await harness.send(PREMIUM, Call.tool("export_report"))
        done = await harness.resume(PREMIUM, asked, answers, asked.request_state)
        assert done.channel is Channel.OK and done.text == "report.pdf", "while shown, the second round runs it"
        asked = await harness.send(PREMIUM, Call.tool("export_report"))
        assert asked.channel is Channel.INPUT_REQUIRED, asked
        hidden.add("export_report")
        retried = await harness.resume(PREMIUM, asked, answers, asked.request_state)
    assert retried.channel is Channel.TOOL_ERROR and retried.text == "Unknown tool: export_report", retried
