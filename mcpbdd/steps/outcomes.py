"""Outcomes and error channels: what the last call (tool, resource read or prompt) came to.

A failure names the call, who made it ("as alice of tenant acme") and what came back. A
check that could pass while checking nothing (an empty text, a leak check before any
call, a row of one) fails instead, saying how to fix the scenario.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from behave import then

from mcpbdd.steps._world import world
from mcpbdd.steps.arguments import SpecError, json_doc_string, location, location_line, parse_json, spec_errors

if TYPE_CHECKING:
    from mcpbdd.model.outcome import Outcome


def _last(context: Any) -> Outcome:
    """The outcome every check here is about: the last call's (a clear failure when there was none)."""
    return world(context).last


@then("the call succeeds")
def call_succeeds(context: Any) -> None:
    """Then the call succeeds"""
    from mcpbdd.checks import outcomes as check

    check.succeeds(_last(context))


@then("the call does not succeed")
def call_does_not_succeed(context: Any) -> None:
    """Then the call does not succeed  (any outcome but ok: an error, a question, no answer)"""
    from mcpbdd.checks import outcomes as check

    check.does_not_succeed(_last(context))


@then('the result mentions "{text:Text}"')
def result_mentions(context: Any, text: str) -> None:
    """Then the result mentions "Groceries\""""
    from mcpbdd.checks import outcomes as check

    check.mentions(_last(context), text)


@then('the result does not mention "{text:Text}"')
def result_does_not_mention(context: Any, text: str) -> None:
    """Then the result does not mention "Traceback\""""
    from mcpbdd.checks import outcomes as check

    check.does_not_mention(_last(context), text)


@then("the structured result contains:")
def structured_result_contains(context: Any) -> None:
    """Then the structured result contains: (JSON; only the keys given; a tool's, a JSON resource's or a prompt's)"""
    from mcpbdd.checks import outcomes as check

    check.structured_contains(_last(context), json_doc_string(context))


@then("the structured result matches:")
def structured_result_matches(context: Any) -> None:
    """Then the structured result matches: (JSON; exact, with markers like #uuid, #string, #ignore)"""
    from mcpbdd.checks import outcomes as check

    check.structured_matches(_last(context), json_doc_string(context))


@then('the result\'s "{path:Text}" is {value:JsonValue}')
def result_value_is(context: Any, path: str, value: str) -> None:
    """Then the result's "$.count" is 2  (a JSON value at a path of the structured result; markers allowed)"""
    from mcpbdd.checks import outcomes as check

    expected = parse_json(value, context, what="the expected value", first_line=location_line(context))
    with spec_errors(context):
        check.value_at(_last(context), path, expected)


@then("the call fails with a tool error")
def fails_with_tool_error(context: Any) -> None:
    """Then the call fails with a tool error"""
    from mcpbdd.checks import outcomes as check

    check.fails_with_tool_error(_last(context))


@then('the call fails with a tool error mentioning "{text:Text}"')
def fails_with_tool_error_mentioning(context: Any, text: str) -> None:
    """Then the call fails with a tool error mentioning "not found\""""
    from mcpbdd.checks import outcomes as check

    check.fails_with_tool_error(_last(context), mentioning=text)


@then("the call fails with a protocol error")
def fails_with_a_protocol_error(context: Any) -> None:
    """Then the call fails with a protocol error  (a JSON-RPC error, whatever its code)"""
    from mcpbdd.checks import outcomes as check

    check.fails_with_a_protocol_error(_last(context))


@then("the call fails with the protocol error {code:CodeWord}")
def fails_with_the_protocol_error(context: Any, code: str) -> None:
    """Then the call fails with the protocol error InvalidParams"""
    from mcpbdd.checks import outcomes as check
    from mcpbdd.kit.errors import parse_code

    with spec_errors(context):
        expected = parse_code(code)
    check.fails_with_protocol_error(_last(context), expected)


@then('the error reason is "{reason:Text}"')
def error_reason_is(context: Any, reason: str) -> None:
    """Then the error reason is "note_not_found"  (either channel: structured tool error or protocol error data)"""
    from mcpbdd.checks import outcomes as check

    check.reason_is(_last(context), reason)


@then('the call fails with the tool error "{reason:Text}"')
def fails_with_the_tool_error(context: Any, reason: str) -> None:
    """Then the call fails with the tool error "note_not_found"  (a tool error declaring that reason)"""
    from mcpbdd.checks import outcomes as check

    check.fails_with_tool_error_reason(_last(context), reason)


@then("the error is retryable")
def error_is_retryable(context: Any) -> None:
    """Then the error is retryable  (the failure declares `retryable: true`, on either channel)"""
    from mcpbdd.checks import outcomes as check

    check.retryable(_last(context), True)


@then("the error is not retryable")
def error_is_not_retryable(context: Any) -> None:
    """Then the error is not retryable  (the failure declares `retryable: false`; saying nothing fails)"""
    from mcpbdd.checks import outcomes as check

    check.retryable(_last(context), False)


@then('the error suggests "{hint:Text}"')
def error_suggests(context: Any, hint: str) -> None:
    """Then the error suggests "List the notes\""""
    from mcpbdd.checks import outcomes as check

    check.suggests(_last(context), hint)


@then('the outcome is "{channel:Text}"')
def outcome_is(context: Any, channel: str) -> None:
    """Then the outcome is "tool-error\""""
    from mcpbdd.checks import outcomes as check
    from mcpbdd.model.outcome import Channel

    with spec_errors(context):
        expected = Channel.parse(channel)
    check.channel_is(_last(context), expected)


@then('no response mentions "{secret:Text}"')
def no_response_mentions(context: Any, secret: str) -> None:
    """Then no response mentions "sk-live-"  (every response so far; at least one call must come first)"""
    from mcpbdd.checks import outcomes as check

    check.nothing_mentions(world(context).outcomes, secret)


@then('no response to "{user:Text}" mentions "{secret:Text}"')
def no_response_to_user_mentions(context: Any, user: str, secret: str) -> None:
    """Then no response to "erin" mentions "confidential\""""
    from mcpbdd.checks import outcomes as check

    with spec_errors(context):
        outcomes = world(context).outcomes_of(user)
    check.nothing_mentions(outcomes, secret, whose=user)


@then("the call fails the same way {times:d} times in a row")
def fails_the_same_way(context: Any, times: int) -> None:
    """Then the call fails the same way 3 times in a row  (the last call and 2 repeats: the row counts the call made)"""
    from mcpbdd.checks import outcomes as check

    if times < 2:
        raise SpecError(
            f"{location(context)}: 'the same way {times} times in a row' is no row: the count includes the call "
            "already made, so it must be at least 2 (the call and one repeat)"
        )
    w = world(context)
    first = w.last
    check.same_failure(first, w.repeat_last(times - 1))


__all__: list[str] = []  # steps register themselves with behave on import; nothing here is imported by name
