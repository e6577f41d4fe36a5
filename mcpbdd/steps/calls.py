"""Calls: tools, resources, prompts, as the current caller or as a named user.

Registered for every keyword: a call is the action of a When, and the set-up of a Given
("Given the client calls \"create_note\" with ..." in a Background). "The client" is the
current caller; a quoted user is checked against the directory before anything else is
read, so a misspelt one fails as the specification's mistake.
"""

from __future__ import annotations

from typing import Any

from behave import step

from mcpbdd.steps._world import world
from mcpbdd.steps.arguments import call_arguments, inline_arguments, spec_errors


def _known(context: Any, user: str) -> str:
    """`user`, once the directory knows them: an unknown user is the specification's mistake, named as such."""
    with spec_errors(context):
        world(context).directory.user(user)
    return user


def _prompt_arguments(context: Any) -> dict[str, str]:
    """A prompt's arguments are strings on the wire: a cell read as JSON (`42`) goes as its text."""
    return {key: value if isinstance(value, str) else str(value) for key, value in call_arguments(context).items()}


@step('the client calls "{tool:Text}"')
def client_calls(context: Any, tool: str) -> None:
    """When the client calls "list_notes\""""
    from mcpbdd.model.outcome import Call

    world(context).send(Call.tool(tool, {}))


@step('the client calls "{tool:Text}" with:')
def client_calls_with(context: Any, tool: str) -> None:
    """When the client calls "create_note" with: (a JSON doc string or an argument | value table)"""
    from mcpbdd.model.outcome import Call

    world(context).send(Call.tool(tool, call_arguments(context)))


@step('the client calls "{tool:Text}" with {arguments:JsonObject}')
def client_calls_with_inline(context: Any, tool: str, arguments: str) -> None:
    """When the client calls "get_note" with {"note_id": "n-1"}"""
    from mcpbdd.model.outcome import Call

    world(context).send(Call.tool(tool, inline_arguments(arguments, context)))


@step('"{user:Text}" calls "{tool:Text}"')
def user_calls(context: Any, user: str, tool: str) -> None:
    """When "bob" calls "list_notes\""""
    from mcpbdd.model.outcome import Call

    world(context).send(Call.tool(tool, {}), as_user=_known(context, user))


@step('"{user:Text}" calls "{tool:Text}" with:')
def user_calls_with(context: Any, user: str, tool: str) -> None:
    """When "bob" calls "get_note" with: (a JSON doc string or an argument | value table)"""
    from mcpbdd.model.outcome import Call

    as_user = _known(context, user)
    world(context).send(Call.tool(tool, call_arguments(context)), as_user=as_user)


@step('"{user:Text}" calls "{tool:Text}" with {arguments:JsonObject}')
def user_calls_with_inline(context: Any, user: str, tool: str, arguments: str) -> None:
    """When "bob" calls "get_note" with {"note_id": "n-1"}"""
    from mcpbdd.model.outcome import Call

    as_user = _known(context, user)
    world(context).send(Call.tool(tool, inline_arguments(arguments, context)), as_user=as_user)


@step('the client reads the resource "{uri:Text}"')
def client_reads(context: Any, uri: str) -> None:
    """When the client reads the resource "notes://n-1\""""
    from mcpbdd.model.outcome import Call

    world(context).send(Call.resource(uri))


@step('the client gets the prompt "{name:Text}"')
def client_gets_prompt(context: Any, name: str) -> None:
    """When the client gets the prompt "daily_digest\""""
    from mcpbdd.model.outcome import Call

    world(context).send(Call.prompt(name, {}))


@step('the client gets the prompt "{name:Text}" with:')
def client_gets_prompt_with(context: Any, name: str) -> None:
    """When the client gets the prompt "summarize_notes" with: (an argument | value table)"""
    from mcpbdd.model.outcome import Call

    world(context).send(Call.prompt(name, _prompt_arguments(context)))


@step('"{user:Text}" reads the resource "{uri:Text}"')
def user_reads(context: Any, user: str, uri: str) -> None:
    """When "bob" reads the resource "notes://n-1\""""
    from mcpbdd.model.outcome import Call

    world(context).send(Call.resource(uri), as_user=_known(context, user))


@step('"{user:Text}" gets the prompt "{name:Text}"')
def user_gets_prompt(context: Any, user: str, name: str) -> None:
    """When "bob" gets the prompt "daily_digest\""""
    from mcpbdd.model.outcome import Call

    world(context).send(Call.prompt(name, {}), as_user=_known(context, user))


@step('"{user:Text}" gets the prompt "{name:Text}" with:')
def user_gets_prompt_with(context: Any, user: str, name: str) -> None:
    """When "bob" gets the prompt "summarize_notes" with: (an argument | value table)"""
    from mcpbdd.model.outcome import Call

    as_user = _known(context, user)
    world(context).send(Call.prompt(name, _prompt_arguments(context)), as_user=as_user)


__all__: list[str] = []  # steps register themselves with behave on import; nothing here is imported by name
