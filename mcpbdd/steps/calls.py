"""Calls: tools, resources, prompts, as the current caller or as a named user."""

from __future__ import annotations

from typing import Any

from behave import when

from mcpbdd.steps._world import world
from mcpbdd.steps.arguments import call_arguments, inline_arguments


@when('the client calls "{tool:Text}"')
def calls_tool(context: Any, tool: str) -> None:
    world(context).call_tool(tool, {})


@when('the client calls "{tool:Text}" with:')
def calls_tool_with(context: Any, tool: str) -> None:
    world(context).call_tool(tool, call_arguments(context))


@when('the client calls "{tool:Text}" with {arguments}')
def calls_tool_with_inline(context: Any, tool: str, arguments: str) -> None:
    world(context).call_tool(tool, inline_arguments(arguments, context))


@when('"{user:Text}" calls "{tool:Text}"')
def user_calls_tool(context: Any, user: str, tool: str) -> None:
    world(context).call_tool(tool, {}, as_user=user)


@when('"{user:Text}" calls "{tool:Text}" with:')
def user_calls_tool_with(context: Any, user: str, tool: str) -> None:
    world(context).call_tool(tool, call_arguments(context), as_user=user)


@when('the client reads the resource "{uri:Text}"')
def reads_resource(context: Any, uri: str) -> None:
    world(context).read_resource(uri)


@when('the client gets the prompt "{name:Text}"')
def gets_prompt(context: Any, name: str) -> None:
    world(context).get_prompt(name, {})


@when('the client gets the prompt "{name:Text}" with:')
def gets_prompt_with(context: Any, name: str) -> None:
    arguments = {key: value if isinstance(value, str) else str(value) for key, value in call_arguments(context).items()}
    world(context).get_prompt(name, arguments)
