"""Calls: tools, resources, prompts, as the current caller or as a named user.

Registered for every keyword: a call is the action of a When, and the set-up of a Given
("Given the client calls \"create_note\" with ..." in a Background).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from behave import step

from mcpbdd.model.outcome import Call
from mcpbdd.steps._world import world
from mcpbdd.steps.arguments import call_arguments, inline_arguments, spec_errors

Arguments = Callable[[Any, str | None], dict[str, Any]]
"""How a phrasing gives its call's arguments: from the step (table, doc string) or its inline JSON."""


def _none(context: Any, inline: str | None) -> dict[str, Any]:
    return {}


def _given(context: Any, inline: str | None) -> dict[str, Any]:
    return call_arguments(context)


def _inline(context: Any, inline: str | None) -> dict[str, Any]:
    return inline_arguments(inline or "", context)


def _prompt_given(context: Any, inline: str | None) -> dict[str, Any]:
    return _prompt_arguments(context)


def _resource(uri: str, arguments: dict[str, Any]) -> Call:
    return Call.resource(uri)


# Every phrasing of a call, in the order `mcpbdd steps` lists them: (phrase, its example, the Call it makes
# from the quoted target, where its arguments come from). "the client" is the current caller; a quoted
# user is checked against the directory first, so a misspelt one fails as the specification's mistake.
_PHRASINGS: tuple[tuple[str, str, Callable[[str, dict[str, Any]], Call], Arguments], ...] = (
    ('the client calls "{tool:Text}"', 'When the client calls "list_notes"', Call.tool, _none),
    (
        'the client calls "{tool:Text}" with:',
        'When the client calls "create_note" with: (a JSON doc string or an argument | value table)',
        Call.tool,
        _given,
    ),
    (
        'the client calls "{tool:Text}" with {arguments:JsonObject}',
        'When the client calls "get_note" with {"note_id": "n-1"}',
        Call.tool,
        _inline,
    ),
    ('"{user:Text}" calls "{tool:Text}"', 'When "bob" calls "list_notes"', Call.tool, _none),
    (
        '"{user:Text}" calls "{tool:Text}" with:',
        'When "bob" calls "get_note" with: (a JSON doc string or an argument | value table)',
        Call.tool,
        _given,
    ),
    (
        '"{user:Text}" calls "{tool:Text}" with {arguments:JsonObject}',
        'When "bob" calls "get_note" with {"note_id": "n-1"}',
        Call.tool,
        _inline,
    ),
    (
        'the client reads the resource "{uri:Text}"',
        'When the client reads the resource "notes://n-1"',
        _resource,
        _none,
    ),
    ('the client gets the prompt "{name:Text}"', 'When the client gets the prompt "daily_digest"', Call.prompt, _none),
    (
        'the client gets the prompt "{name:Text}" with:',
        'When the client gets the prompt "summarize_notes" with: (an argument | value table)',
        Call.prompt,
        _prompt_given,
    ),
    ('"{user:Text}" reads the resource "{uri:Text}"', 'When "bob" reads the resource "notes://n-1"', _resource, _none),
    ('"{user:Text}" gets the prompt "{name:Text}"', 'When "bob" gets the prompt "daily_digest"', Call.prompt, _none),
    (
        '"{user:Text}" gets the prompt "{name:Text}" with:',
        'When "bob" gets the prompt "summarize_notes" with: (an argument | value table)',
        Call.prompt,
        _prompt_given,
    ),
)


def _register(phrase: str, example: str, make: Callable[[str, dict[str, Any]], Call], given: Arguments) -> None:
    """One step function per phrasing (each its own object: reports key step definitions by function)."""

    def makes_the_call(context: Any, user: str | None = None, arguments: str | None = None, **target: str) -> None:
        (name,) = target.values()  # the tool, URI or prompt the phrase quotes
        if user is not None:
            with spec_errors(context):
                world(context).directory.user(user)
        world(context).send(make(name, given(context, arguments)), as_user=user)

    makes_the_call.__doc__ = example
    step(phrase)(makes_the_call)


for _phrasing in _PHRASINGS:
    _register(*_phrasing)


def _prompt_arguments(context: Any) -> dict[str, str]:
    """A prompt's arguments are strings on the wire: a cell read as JSON (`42`) goes as its text."""
    return {key: value if isinstance(value, str) else str(value) for key, value in call_arguments(context).items()}


__all__: list[str] = []  # steps register themselves with behave on import; nothing here is imported by name
