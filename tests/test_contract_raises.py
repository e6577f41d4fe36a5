"""`raise contract.error(...)` under `@contract.raises`: the declared failure from a tool whose annotation stays honest.

A real `MCPServer` and a real in-process `mcp.Client` (both eras): what a client sees from the raised form is exactly
what the returned form (`contract.fail`) gives, and every way to get the wiring wrong says so instead of passing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import TextContent
from pydantic import BaseModel

from mcpbdd.kit.errors import DeclaredFailure, ErrorContract, Failure

NOT_FOUND = Failure("expense_not_found", "No such expense.", hint="List the expenses to see which ids exist.")
LOCKED = Failure("expense_locked", "The expense is locked.", channel="protocol", code=-32000)


class Expense(BaseModel):
    id: str
    amount: int


def build() -> MCPServer:
    mcp = MCPServer("expenses")
    get = ErrorContract("get_expense", NOT_FOUND, LOCKED)
    returned = ErrorContract("get_expense_returned", NOT_FOUND)
    other = ErrorContract("other_tool", NOT_FOUND)

    @mcp.tool()
    @get.raises
    async def get_expense(expense_id: str) -> Expense:
        """Return one expense."""
        if expense_id == "locked":
            raise get.error("expense_locked", "Expense e-9 is locked by an approval.")
        if expense_id != "e-1":
            raise get.error("expense_not_found", f"Expense {expense_id} not found.")
        return Expense(id="e-1", amount=12)

    @mcp.tool()
    async def get_expense_returned(expense_id: str) -> Expense:
        """The same tool, written with `return contract.fail(...)` (the documented older form)."""
        return returned.fail("expense_not_found", f"Expense {expense_id} not found.")  # type: ignore[return-value]

    @mcp.tool()
    @get.raises
    def count_expenses(owner: str) -> int:
        """A synchronous tool under the decorator."""
        raise get.error("expense_not_found", f"{owner} has no expenses.")

    @mcp.tool()
    async def undecorated(expense_id: str) -> Expense:
        """Raises a declared failure but forgot `@contract.raises`."""
        raise get.error("expense_not_found", f"Expense {expense_id} not found.")

    @mcp.tool()
    @get.raises
    async def foreign(expense_id: str) -> Expense:
        """Raises another contract's failure: not this contract's to translate."""
        raise other.error("expense_not_found", "from another tool's contract")

    return mcp


@pytest.fixture(params=["auto", "legacy"])
async def client(request: pytest.FixtureRequest) -> Any:
    async with Client(build(), mode=request.param) as connected:
        yield connected


@pytest.mark.anyio
async def test_a_raised_failure_is_the_declared_result_exactly_as_the_returned_form(client: Client) -> None:
    raised = await client.call_tool("get_expense", {"expense_id": "e-7"})
    returned = await client.call_tool("get_expense_returned", {"expense_id": "e-7"})
    assert raised.is_error and returned.is_error
    assert (
        raised.structured_content
        == returned.structured_content
        == {
            "error": {
                "reason": "expense_not_found",
                "message": "Expense e-7 not found.",
                "retryable": False,
                "recovery": {"hint": "List the expenses to see which ids exist."},
            }
        }
    )
    assert isinstance(raised.content[0], TextContent)
    assert raised.content[0].text == "Expense e-7 not found.\nRecovery: List the expenses to see which ids exist."


@pytest.mark.anyio
async def test_the_decorated_tool_keeps_its_parameters_and_output_schema(client: Client) -> None:
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert tools["get_expense"].input_schema["required"] == ["expense_id"]
    assert tools["get_expense"].output_schema is not None
    assert set(tools["get_expense"].output_schema["properties"]) == {"id", "amount"}
    ok = await client.call_tool("get_expense", {"expense_id": "e-1"})
    assert not ok.is_error and ok.structured_content == {"id": "e-1", "amount": 12}


@pytest.mark.anyio
async def test_a_protocol_channel_failure_is_raised_as_the_json_rpc_error(client: Client) -> None:
    with pytest.raises(MCPError) as caught:
        await client.call_tool("get_expense", {"expense_id": "locked"})
    assert caught.value.error.code == -32000
    assert caught.value.error.data["reason"] == "expense_locked"


@pytest.mark.anyio
async def test_a_synchronous_tool_works_under_the_decorator(client: Client) -> None:
    result = await client.call_tool("count_expenses", {"owner": "alice"})
    assert result.is_error and result.structured_content["error"]["reason"] == "expense_not_found"


@pytest.mark.anyio
async def test_without_the_decorator_the_reason_is_lost_and_the_text_names_the_fix(client: Client) -> None:
    result = await client.call_tool("undecorated", {"expense_id": "e-7"})
    assert result.is_error and not result.structured_content
    assert isinstance(result.content[0], TextContent)
    assert "raised outside @get_expense's contract.raises: its reason is lost" in result.content[0].text


@pytest.mark.anyio
async def test_another_contracts_failure_is_not_translated(client: Client) -> None:
    result = await client.call_tool("foreign", {"expense_id": "e-7"})
    assert result.is_error and not result.structured_content
    assert isinstance(result.content[0], TextContent)
    assert "of other_tool raised outside" in result.content[0].text


def test_an_undeclared_reason_is_the_internal_error_naming_the_declared_ones() -> None:
    contract = ErrorContract("pay", NOT_FOUND)
    with pytest.raises(MCPError, match=r"undeclared failure 'paid_twice' \(declared: expense_not_found\)"):
        contract.error("paid_twice")
    assert isinstance(contract.error("expense_not_found"), DeclaredFailure)


def build_odd_shapes() -> MCPServer:
    """Tools of the shapes the SDK accepts that are not plain `async def`: an object with an async `__call__`, a
    tool decorated twice, a helper of the tool raising its failure from deeper down."""
    mcp = MCPServer("odd")
    contract = ErrorContract("odd_export", NOT_FOUND)
    twice = ErrorContract("odd_twice", NOT_FOUND)

    class Exporter:
        """Export one expense (an object the SDK calls as an async tool)."""

        async def __call__(self, expense_id: str) -> str:
            raise contract.error("expense_not_found", f"Expense {expense_id} not found.")

    mcp.tool(name="odd_export", description="Export one expense.")(contract.raises(Exporter()))

    def lookup(expense_id: str) -> Expense:
        raise twice.error("expense_not_found", f"Expense {expense_id} not found.")

    @mcp.tool()
    @twice.raises
    @twice.raises
    async def odd_twice(expense_id: str) -> Expense:
        """Decorated twice by mistake; its helper raises."""
        return lookup(expense_id)

    return mcp


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize("tool", ["odd_export", "odd_twice"])
async def test_a_callable_object_or_a_tool_decorated_twice_still_answers_the_declared_failure(
    mode: str, tool: str
) -> None:
    async with Client(build_odd_shapes(), mode=mode) as client:
        result = await client.call_tool(tool, {"expense_id": "e-7"})
    assert result.is_error, result
    assert result.structured_content == {
        "error": {
            "reason": "expense_not_found",
            "message": "Expense e-7 not found.",
            "retryable": False,
            "recovery": {"hint": "List the expenses to see which ids exist."},
        }
    }


def build_generator() -> MCPServer:
    """A synchronous generator tool (the SDK answers with the list of what it yields) raising midway."""
    mcp = MCPServer("generated")
    contract = ErrorContract("list_expenses", NOT_FOUND)

    @mcp.tool()
    @contract.raises
    def list_expenses(owner: str) -> Iterable[str]:
        """Yield the owner's expenses; an unknown owner is the declared failure, found after the first one."""
        yield "e-1"
        if owner != "alice":
            raise contract.error("expense_not_found", f"{owner} has no more expenses.")
        yield "e-2"

    return mcp


@pytest.mark.anyio
async def test_a_generator_tool_failing_midway_answers_the_declared_failure() -> None:
    async with Client(build_generator()) as client:
        listed = await client.call_tool("list_expenses", {"owner": "alice"})
        failed = await client.call_tool("list_expenses", {"owner": "bob"})
    assert not listed.is_error and listed.structured_content == {"result": ["e-1", "e-2"]}, listed
    assert failed.is_error and failed.structured_content is not None, failed
    assert failed.structured_content["error"]["reason"] == "expense_not_found"
