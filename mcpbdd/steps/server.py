"""Server and harness: which server, which client capabilities, which tools and resource templates it offers."""

from __future__ import annotations

from typing import Any

from behave import given, then

from mcpbdd.model.kinds import HARNESS_TAG, HarnessKind
from mcpbdd.steps._world import world
from mcpbdd.steps.arguments import spec_errors, table_column


@given('the MCP server "{target:Text}"')
def the_mcp_server(context: Any, target: str) -> None:
    """Given the MCP server "mcpbdd.examples.notes:mcp\""""
    from mcpbdd.harness.targets import ServerTarget

    w = world(context)
    with spec_errors(context):
        w.use_server(target)
    # A server in another process is reached by the client harness only. Named by the scenario itself (not
    # pinned by a @harness tag), it makes the scenario one for the client passes: skipped, saying so, on a
    # context pass, instead of failing there.
    pinned = any(tag.startswith(HARNESS_TAG) for tag in context.scenario.effective_tags)
    if w.harness_kind is HarnessKind.CONTEXT and not pinned and ServerTarget.parse(target).kind != "inprocess":
        context.scenario.skip(
            f"the server {target!r} runs in another process, which only the client harness reaches: "
            "this scenario runs on the client passes (-D mcpbdd.harness=client), not on a context pass"
        )


@given('the client declares the capabilities "{names:Names}"')
def the_client_declares(context: Any, names: list[str]) -> None:
    """Given the client declares the capabilities "elicitation, roots\""""
    with spec_errors(context):
        world(context).declare_capabilities(names)


@given("the client declares no capabilities")
def the_client_declares_nothing(context: Any) -> None:
    """Given the client declares no capabilities"""
    world(context).declare_capabilities(())


@then('the server offers the tool "{name:Text}"')
def offers_the_tool(context: Any, name: str) -> None:
    """Then the server offers the tool "create_note\""""
    from mcpbdd.checks import server as check

    check.offers_tools(world(context).offered_tools(), [name])


@then("the server offers the tools:")
def offers_the_tools(context: Any) -> None:
    """Then the server offers the tools: (a table with a name column; at least these)"""
    from mcpbdd.checks import server as check

    check.offers_tools(world(context).offered_tools(), table_column(context, "name"))


@then("the server offers exactly the tools:")
def offers_exactly_the_tools(context: Any) -> None:
    """Then the server offers exactly the tools: (a table with a name column; all of them)"""
    from mcpbdd.checks import server as check

    check.offers_tools(world(context).offered_tools(), table_column(context, "name"), exactly=True)


@then('the server offers the resource template "{uri_template:Text}"')
def offers_the_resource_template(context: Any, uri_template: str) -> None:
    """Then the server offers the resource template "notes://{note_id}\""""
    from mcpbdd.checks import server as check
    from mcpbdd.checks.offered import list_templates

    check.offers_resource_template(world(context).ask(list_templates), uri_template)


__all__: list[str] = []  # steps register themselves with behave on import; nothing here is imported by name
