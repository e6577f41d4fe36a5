"""Calls: tools, resources, prompts, as the current caller or as a named user.

Registered for every keyword: a call is the action of a When, and the set-up of a Given
("Given the client calls \"create_note\" with ..." in a Background).
"""

from __future__ import annotations

from typing import Any

from behave import step

from mcpbdd.steps._world import world
from mcpbdd.steps.arguments import call_arguments, inline_arguments, spec_errors


@step('the client calls "{tool:Text}"')
def calls_tool(context: Any, tool: str) -> None:
    """When the client calls "list_notes\""""
    world(context).call_tool(tool, {})


@step('the client calls "{tool:Text}" with:')
def calls_tool_with(context: Any, tool: str) -> None:
    """When the client calls "create_note" with: (a JSON doc string or an argument | value table)"""
    world(context).call_tool(tool, call_arguments(context))


@step('the client calls "{tool:Text}" with {arguments:JsonObject}')
def calls_tool_with_inline(context: Any, tool: str, arguments: str) -> None:
    """When the client calls "get_note" with {"note_id": "n-1"}"""
    world(context).call_tool(tool, inline_arguments(arguments, context))


@step('"{user:Text}" calls "{tool:Text}"')
def user_calls_tool(context: Any, user: str, tool: str) -> None:
    """When "bob" calls "list_notes\""""
    with spec_errors(context):
        world(context).directory.user(user)
    world(context).call_tool(tool, {}, as_user=user)


@step('"{user:Text}" calls "{tool:Text}" with:')
def user_calls_tool_with(context: Any, user: str, tool: str) -> None:
    """When "bob" calls "get_note" with: (a JSON doc string or an argument | value table)"""
    with spec_errors(context):
        world(context).directory.user(user)
    world(context).call_tool(tool, call_arguments(context), as_user=user)


@step('"{user:Text}" calls "{tool:Text}" with {arguments:JsonObject}')
def user_calls_tool_with_inline(context: Any, user: str, tool: str, arguments: str) -> None:
    """When "bob" calls "get_note" with {"note_id": "n-1"}"""
    with spec_errors(context):
        world(context).directory.user(user)
    world(context).call_tool(tool, inline_arguments(arguments, context), as_user=user)


@step('the client reads the resource "{uri:Text}"')
def reads_resource(context: Any, uri: str) -> None:
    """When the client reads the resource "notes://n-1\""""
    world(context).read_resource(uri)


@step('the client gets the prompt "{name:Text}"')
def gets_prompt(context: Any, name: str) -> None:
    """When the client gets the prompt "daily_digest\""""
    world(context).get_prompt(name, {})


@step('the client gets the prompt "{name:Text}" with:')
def gets_prompt_with(context: Any, name: str) -> None:
    """When the client gets the prompt "summarize_notes" with: (an argument | value table)"""
    world(context).get_prompt(name, _prompt_arguments(context))


@step('"{user:Text}" reads the resource "{uri:Text}"')
def user_reads_resource(context: Any, user: str, uri: str) -> None:
    """When "bob" reads the resource "notes://n-1\""""
    with spec_errors(context):
        world(context).directory.user(user)
    world(context).read_resource(uri, as_user=user)


@step('"{user:Text}" gets the prompt "{name:Text}"')
def user_gets_prompt(context: Any, user: str, name: str) -> None:
    """When "bob" gets the prompt "daily_digest\""""
    with spec_errors(context):
        world(context).directory.user(user)
    world(context).get_prompt(name, {}, as_user=user)


@step('"{user:Text}" gets the prompt "{name:Text}" with:')
def user_gets_prompt_with(context: Any, user: str, name: str) -> None:
    """When "bob" gets the prompt "summarize_notes" with: (an argument | value table)"""
    with spec_errors(context):
        world(context).directory.user(user)
    world(context).get_prompt(name, _prompt_arguments(context), as_user=user)


def _prompt_arguments(context: Any) -> dict[str, str]:
    """A prompt's arguments are strings on the wire: a cell read as JSON (`42`) goes as its text."""
    return {key: value if isinstance(value, str) else str(value) for key, value in call_arguments(context).items()}


__all__: list[str] = []  # steps register themselves with behave on import; nothing here is imported by name
