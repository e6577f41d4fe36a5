"""Server and harness: which server, which client capabilities, which tools it offers."""

from __future__ import annotations

from typing import Any

from behave import given, then

from mcpbdd import expect
from mcpbdd.steps._world import world
from mcpbdd.steps.arguments import table_column


@given('the MCP server "{target:Text}"')
def the_mcp_server(context: Any, target: str) -> None:
    world(context).use_server(target)


@given('the client declares the capabilities "{names:Names}"')
def the_client_declares(context: Any, names: list[str]) -> None:
    world(context).declare_capabilities(names)


@given("the client declares no capabilities")
def the_client_declares_nothing(context: Any) -> None:
    world(context).declare_capabilities(())


@then('the server offers the tool "{name:Text}"')
def offers_the_tool(context: Any, name: str) -> None:
    expect.offers_tools(world(context).offered_tools(), [name])


@then("the server offers the tools:")
def offers_the_tools(context: Any) -> None:
    expect.offers_tools(world(context).offered_tools(), table_column(context, "name"))


@then("the server offers exactly the tools:")
def offers_exactly_the_tools(context: Any) -> None:
    expect.offers_tools(world(context).offered_tools(), table_column(context, "name"), exactly=True)
