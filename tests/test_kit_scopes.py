"""`mcpbdd.kit.scopes.ToolScopes`: one declaration of each tool's scopes, read by the tool's own check and the edge.

The tool's check on every harness (a caller whose token lacks the scope gets the tool error `insufficient_scope`
before the tool runs; no token at all is refused unless the declaration says whose scopes such a caller holds), and
the same object handed to `protect()` (the edge's 403 is covered by tests/test_protected_edge.py and, with the
example's `TOOL_SCOPES`, tests/spawning/test_protected_deployments.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from conftest import HARNESS_KINDS, make_harness
from mcp.server.mcpserver import MCPServer

from mcpbdd.examples.notes_auth import TOOL_SCOPES
from mcpbdd.kit.principals import Principal
from mcpbdd.kit.scopes import ToolScopes
from mcpbdd.model.outcome import Call, Channel

SCOPES = ToolScopes({"approve_expense": ["expenses:approve"], "count_expenses": ["expenses:read"]})
APPROVED: list[str] = []

MANAGER = Principal("mia", "acme", scopes=("expenses:approve",))
CLERK = Principal("carl", "acme", scopes=("expenses:read",))


def build() -> MCPServer:
    mcp = MCPServer("expenses")

    @mcp.tool()
    @SCOPES.required
    async def approve_expense(expense_id: str) -> str:
        """Approve an expense (managers only)."""
        APPROVED.append(expense_id)
        return f"approved {expense_id}"

    @mcp.tool()
    @SCOPES.required
    def count_expenses() -> int:
        """A synchronous tool under the same declaration."""
        return 3

    return mcp


@pytest.fixture(params=HARNESS_KINDS)
async def harness(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    APPROVED.clear()
    async with make_harness(request.param, build(), timeout=5.0) as entered:
        yield entered


@pytest.mark.anyio
async def test_a_caller_with_the_scope_runs_the_tool(harness: Any) -> None:
    outcome = await harness.send(MANAGER, Call.tool("approve_expense", {"expense_id": "e-1"}))
    assert outcome.channel is Channel.OK and APPROVED == ["e-1"]
    assert (await harness.send(CLERK, Call.tool("count_expenses"))).channel is Channel.OK


@pytest.mark.anyio
async def test_a_caller_without_it_is_refused_before_the_tool_runs(harness: Any) -> None:
    outcome = await harness.send(CLERK, Call.tool("approve_expense", {"expense_id": "e-1"}))
    assert outcome.channel is Channel.TOOL_ERROR and APPROVED == []
    assert outcome.structured["error"]["reason"] == "insufficient_scope"
    assert "approve_expense needs the scope expenses:approve, which the caller lacks." in outcome.text


@pytest.mark.anyio
async def test_a_caller_without_a_token_is_refused(harness: Any) -> None:
    outcome = await harness.send(None, Call.tool("approve_expense", {"expense_id": "e-1"}))
    assert outcome.channel is Channel.TOOL_ERROR and APPROVED == []


def test_a_declared_local_user_without_a_token_holds_what_the_declaration_says() -> None:
    local = ToolScopes({"approve_expense": ["expenses:approve"]}, without_token=lambda: ["expenses:approve"])
    assert local.missing("approve_expense") == []
    assert SCOPES.missing("approve_expense") == ["expenses:approve"]  # no token, no grant: fail closed


def test_a_tool_the_table_does_not_declare_cannot_be_guarded_by_mistake() -> None:
    with pytest.raises(ValueError, match=r"'approve_expens' has no scopes declared \(declared: approve_expense"):

        @SCOPES.required
        def approve_expens() -> None: ...


def test_an_empty_or_spaced_scope_is_refused() -> None:
    with pytest.raises(ValueError, match="must be non-empty scope names without spaces"):
        ToolScopes({"x": ["a b"]})
    with pytest.raises(ValueError, match="must be non-empty scope names without spaces"):
        ToolScopes({"x": []})


def test_the_examples_edge_reads_the_same_declaration() -> None:
    assert isinstance(TOOL_SCOPES, ToolScopes)
    assert dict(TOOL_SCOPES) == {
        "create_note": ("notes:write",),
        "import_note": ("notes:write",),
        "delete_note": ("notes:delete",),
    }
