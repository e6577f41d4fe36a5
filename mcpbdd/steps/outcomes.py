"""Outcomes and error channels: what the last call (tool, resource read or prompt) came to.

A failure names the call, who made it ("as alice of tenant acme") and what came back. A
check that could pass while checking nothing (an empty text, a leak check before any
call, a row of one) fails instead, saying how to fix the scenario.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from behave import then

from mcpbdd.kit.errors import parse_code
from mcpbdd.model import expect
from mcpbdd.model.outcome import Channel
from mcpbdd.steps._world import world
from mcpbdd.steps.arguments import SpecError, json_doc_string, location, spec_errors

Check = Callable[..., None]
"""A step's check, given the step's context and the phrase's values by name."""


def _last(context: Any) -> Any:
    return world(context).last


def _on_last(check: Callable[..., None]) -> Check:
    """`check(last outcome, the phrase's values...)`."""
    return lambda context, **values: check(_last(context), *values.values())


def _on_last_and_doc(check: Callable[[Any, Any], None]) -> Check:
    """`check(last outcome, the step's JSON doc string)`."""
    return lambda context: check(_last(context), json_doc_string(context))


def _on_parsed(parse: Callable[[str], Any], check: Callable[[Any, Any], None]) -> Check:
    """`check(last outcome, the phrase's one value read by parse)`; an unreadable word is the spec's mistake."""

    def checks(context: Any, **values: str) -> None:
        (word,) = values.values()
        with spec_errors(context):
            expected = parse(word)
        check(_last(context), expected)

    return checks


# The checks of the last call's outcome, in the order `mcpbdd steps` lists them: (phrase, its example, check).
_CHECKS: tuple[tuple[str, str, Check], ...] = (
    ("the call succeeds", "Then the call succeeds", _on_last(expect.succeeds)),
    (
        "the call does not succeed",
        "Then the call does not succeed  (any outcome but ok: an error, a question, no answer)",
        _on_last(expect.does_not_succeed),
    ),
    ('the result mentions "{text:Text}"', 'Then the result mentions "Groceries"', _on_last(expect.mentions)),
    (
        'the result does not mention "{text:Text}"',
        'Then the result does not mention "Traceback"',
        _on_last(expect.does_not_mention),
    ),
    (
        "the structured result contains:",
        "Then the structured result contains: (JSON; only the keys given; a tool's, a JSON resource's or a prompt's)",
        _on_last_and_doc(expect.structured_contains),
    ),
    (
        "the structured result matches:",
        "Then the structured result matches: (JSON; exact, with markers like #uuid, #string, #ignore)",
        _on_last_and_doc(expect.structured_matches),
    ),
    (
        "the call fails with a tool error",
        "Then the call fails with a tool error",
        _on_last(expect.fails_with_tool_error),
    ),
    (
        'the call fails with a tool error mentioning "{text:Text}"',
        'Then the call fails with a tool error mentioning "not found"',
        lambda context, text: expect.fails_with_tool_error(_last(context), mentioning=text),
    ),
    (
        "the call fails with a protocol error",
        "Then the call fails with a protocol error  (a JSON-RPC error, whatever its code)",
        _on_last(expect.fails_with_a_protocol_error),
    ),
    (
        "the call fails with the protocol error {code:CodeWord}",
        "Then the call fails with the protocol error InvalidParams",
        _on_parsed(parse_code, expect.fails_with_protocol_error),
    ),
    (
        'the error reason is "{reason:Text}"',
        'Then the error reason is "note_not_found"  (either channel: structured tool error or protocol error data)',
        _on_last(expect.reason_is),
    ),
    ('the error suggests "{hint:Text}"', 'Then the error suggests "List the notes"', _on_last(expect.suggests)),
    (
        'the outcome is "{channel:Text}"',
        'Then the outcome is "tool-error"',
        _on_parsed(Channel.parse, expect.channel_is),
    ),
)


def _register(phrase: str, example: str, check: Callable[..., None]) -> None:
    """One step function per phrase (each its own object: reports key step definitions by function)."""

    def checks_the_outcome(context: Any, **values: Any) -> None:
        check(context, **values)

    checks_the_outcome.__doc__ = example
    then(phrase)(checks_the_outcome)


for _check in _CHECKS:
    _register(*_check)


@then('no response mentions "{secret:Text}"')
def no_response_mentions(context: Any, secret: str) -> None:
    """Then no response mentions "sk-live-"  (every response so far; at least one call must come first)"""
    expect.nothing_mentions(world(context).outcomes, secret)


@then('no response to "{user:Text}" mentions "{secret:Text}"')
def no_response_to_user_mentions(context: Any, user: str, secret: str) -> None:
    """Then no response to "erin" mentions "confidential\""""
    with spec_errors(context):
        outcomes = world(context).outcomes_of(user)
    expect.nothing_mentions(outcomes, secret, whose=user)


@then("the call fails the same way {times:d} times in a row")
def fails_the_same_way(context: Any, times: int) -> None:
    """Then the call fails the same way 3 times in a row  (the last call and 2 repeats: the row counts the call made)"""
    if times < 2:
        raise SpecError(
            f"{location(context)}: 'the same way {times} times in a row' is no row: the count includes the call "
            "already made, so it must be at least 2 (the call and one repeat)"
        )
    w = world(context)
    first = w.last
    expect.same_failure(first, w.repeat_last(times - 1))


__all__: list[str] = []  # steps register themselves with behave on import; nothing here is imported by name
