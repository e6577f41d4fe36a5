"""Outcomes and error channels: what the last call (tool, resource read or prompt) came to."""

from __future__ import annotations

from typing import Any

from behave import then

from mcpbdd import expect
from mcpbdd.errors import parse_code
from mcpbdd.outcome import Channel
from mcpbdd.steps._world import world
from mcpbdd.steps.arguments import json_doc_string


@then("the call succeeds")
def call_succeeds(context: Any) -> None:
    expect.succeeds(world(context).last)


@then('the result mentions "{text:Text}"')
def result_mentions(context: Any, text: str) -> None:
    expect.mentions(world(context).last, text)


@then("the structured result contains:")
def structured_contains(context: Any) -> None:
    expect.structured_contains(world(context).last, json_doc_string(context))


@then("the structured result matches:")
def structured_matches(context: Any) -> None:
    expect.structured_matches(world(context).last, json_doc_string(context))


@then("the call fails with a tool error")
def fails_with_tool_error(context: Any) -> None:
    expect.fails_with_tool_error(world(context).last)


@then('the call fails with a tool error mentioning "{text:Text}"')
def fails_with_tool_error_mentioning(context: Any, text: str) -> None:
    expect.fails_with_tool_error(world(context).last, mentioning=text)


@then("the call fails with the protocol error {code:CodeWord}")
def fails_with_protocol_error(context: Any, code: str) -> None:
    expect.fails_with_protocol_error(world(context).last, parse_code(code))


@then('the outcome is "{channel:Text}"')
def outcome_is(context: Any, channel: str) -> None:
    expect.channel_is(world(context).last, Channel.parse(channel))


@then('no response mentions "{secret:Text}"')
def no_response_mentions(context: Any, secret: str) -> None:
    expect.nothing_mentions(world(context).outcomes, secret)


@then("the call fails the same way {times:d} times in a row")
def fails_the_same_way(context: Any, times: int) -> None:
    w = world(context)
    first = w.last
    expect.same_failure(first, w.repeat_last(times))
