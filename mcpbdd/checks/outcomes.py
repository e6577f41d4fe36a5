"""The checks of a call's outcome: its channel, its text, its structured result, its declared failure.

Each function raises `AssertionError` with a message a product owner can read: what was
expected, what the call actually came to (who made it, its channel, code and text), and
where it helps, what to try instead. The steps of `mcpbdd/steps/outcomes.py` are one-line
wrappers around these; pytest users call them through `mcpbdd.expect`.

A check that would pass whatever the server does (an empty text to look for, a leak check
before any call, a repeat with nothing to compare) raises `VacuousCheck` instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcpbdd.checks.guards import json_text, needs_content, needs_words
from mcpbdd.kit.errors import code_name, declared_retryable, reason_and_hint
from mcpbdd.model import matching, paths
from mcpbdd.model.errors import VacuousCheck
from mcpbdd.model.outcome import RESOURCES_READ, Channel, Outcome


def succeeds(outcome: Outcome) -> None:
    if not outcome.ok:
        raise AssertionError(f"Expected the call to succeed, but {outcome.describe()}")


def does_not_succeed(outcome: Outcome) -> None:
    if outcome.ok:
        raise AssertionError(f"Expected the call not to succeed, but {outcome.describe()}")


def fails_with_tool_error(outcome: Outcome, mentioning: str | None = None) -> None:
    if mentioning is not None:
        needs_words(
            mentioning,
            "text the tool error must mention",
            "write the words it must mention, or use 'Then the call fails with a tool error'",
        )
    if outcome.channel is not Channel.TOOL_ERROR:
        raise AssertionError(f"Expected a tool error, but {outcome.describe()}")
    if mentioning is not None and mentioning.lower() not in outcome.text.lower():
        raise AssertionError(f"Expected the tool error to mention {mentioning!r}, but {outcome.describe()}")


def fails_with_tool_error_reason(outcome: Outcome, reason: str) -> None:
    """A tool error (not a protocol error) whose declared reason is `reason`: the channel and the contract in one."""
    if outcome.channel is not Channel.TOOL_ERROR:
        raise AssertionError(f"Expected the tool error {reason!r}, but {outcome.describe()}")
    reason_is(outcome, reason)


def fails_with_a_protocol_error(outcome: Outcome) -> None:
    """The request was refused with a JSON-RPC error, whatever its code."""
    if outcome.channel is not Channel.PROTOCOL_ERROR:
        raise AssertionError(f"Expected a protocol error, but {outcome.describe()}")


def fails_with_protocol_error(outcome: Outcome, code: int) -> None:
    if outcome.channel is not Channel.PROTOCOL_ERROR or outcome.error is None:
        raise AssertionError(f"Expected the protocol error {code_name(code)}, but {outcome.describe()}")
    if outcome.error.code != code:
        raise AssertionError(
            f"Expected the protocol error {code_name(code)}, but got {code_name(outcome.error.code)}: "
            f"{outcome.describe()}"
        )


def _declared(outcome: Outcome) -> tuple[str | None, str | None]:
    if outcome.ok or outcome.channel is Channel.INPUT_REQUIRED:
        raise AssertionError(f"Expected a failure with a declared reason, but {outcome.describe()}")
    return reason_and_hint(outcome.structured, outcome.error.data if outcome.error else None)


def reason_is(outcome: Outcome, reason: str) -> None:
    """The failure's declared reason (from the tool error's structured content or the protocol error's data)."""
    actual, _ = _declared(outcome)
    if actual is None:
        raise AssertionError(
            f"Expected the failure reason {reason!r}, but the failure declares none: {outcome.describe()}"
        )
    if actual != reason:
        raise AssertionError(f"Expected the failure reason {reason!r}, but it is {actual!r}: {outcome.describe()}")


def retryable(outcome: Outcome, expected: bool = True) -> None:
    """The failure says whether a retry can help (`retryable`, from either channel), and says `expected`.

    A failure that does not say is not taken as "not retryable": a contract that declares
    nothing is a different thing from one that declares `retryable: false`.
    """
    if outcome.ok or outcome.channel is Channel.INPUT_REQUIRED:
        raise AssertionError(f"Expected a failure that says whether a retry can help, but {outcome.describe()}")
    actual = declared_retryable(outcome.structured, outcome.error.data if outcome.error else None)
    wanted = "retryable" if expected else "not retryable"
    if actual is None:
        raise AssertionError(
            f"Expected the failure to be {wanted}, but it does not say whether a retry can help (no 'retryable' in "
            f"its structured error or error data): {outcome.describe()}"
        )
    if actual is not expected:
        said = "retryable" if actual else "not retryable"
        raise AssertionError(f"Expected the failure to be {wanted}, but it says it is {said}: {outcome.describe()}")


def suggests(outcome: Outcome, hint: str) -> None:
    """The failure's recovery hint contains `hint`, case-insensitively."""
    needs_words(hint, "hint to look for", "write the words the recovery hint must contain")
    _, actual = _declared(outcome)
    if actual is None:
        raise AssertionError(
            f"Expected the failure to suggest {hint!r}, but it gives no recovery hint: {outcome.describe()}"
        )
    if hint.lower() not in actual.lower():
        raise AssertionError(
            f"Expected the failure to suggest {hint!r}, but its recovery hint is {actual!r}: {outcome.describe()}"
        )


def channel_is(outcome: Outcome, channel: Channel) -> None:
    if outcome.channel is not channel:
        raise AssertionError(f'Expected the outcome "{channel.value}", but {outcome.describe()}')


def mentions(outcome: Outcome, text: str) -> None:
    """The result (or error) text contains `text`, case-insensitively."""
    needs_words(text, "text to look for", "write the words the result must mention")
    if text.lower() not in outcome.text.lower():
        raise AssertionError(f"Expected the response to mention {text!r}, but {outcome.describe()}")


def does_not_mention(outcome: Outcome, text: str) -> None:
    """The result (or error) text does not contain `text`, case-insensitively."""
    needs_words(text, "text that must not appear", "write the words the result must not mention")
    if text.lower() in outcome.text.lower():
        raise AssertionError(f"Expected the response not to mention {text!r}, but {outcome.describe()}")


def structured_contains(outcome: Outcome, expected: Any) -> None:
    needs_content(expected, contains=True)
    _structured(outcome)
    matching.assert_contains(expected, outcome.structured, what=f"structured result of {outcome.request_line}")


def structured_matches(outcome: Outcome, expected: Any) -> None:
    needs_content(expected, contains=False)
    _structured(outcome)
    matching.assert_matches(expected, outcome.structured, what=f"structured result of {outcome.request_line}")


def value_at(outcome: Outcome, path: str, expected: Any) -> None:
    """The structured result's value at the JSON `path` (`$.count`) matches `expected` (exact, markers allowed).

    A malformed path is a ValueError (the specification's mistake); a path the result does not
    have is an AssertionError naming where the path broke off (the server's answer).
    """
    paths.path_steps(path)
    needs_content(expected, contains=False)
    _structured(outcome)
    try:
        actual = paths.lookup(outcome.structured, path)
    except LookupError as exc:
        raise AssertionError(f"Expected {path} to be {json_text(expected)}, but {exc}: {outcome.describe()}") from None
    where = f"value at {path} of the structured result of {outcome.request_line}"
    matching.assert_matches(expected, actual, what=where)


def _structured(outcome: Outcome) -> None:
    if not outcome.ok:
        raise AssertionError(f"Expected a structured result, but {outcome.describe()}")
    if outcome.structured is None:
        what = "no JSON contents" if outcome.method == RESOURCES_READ else "none"
        raise AssertionError(
            f"Expected a structured result, but {outcome.request_line} returned {what}{_mime_types(outcome)} "
            f"(text: {outcome.text[:300]!r})"
        )


def _mime_types(outcome: Outcome) -> str:
    """` (mime type text/markdown)`: why a resource's text was not read as JSON."""
    contents = getattr(outcome.result, "contents", None) or []
    types = sorted({str(getattr(c, "mime_type", None) or "none given") for c in contents})
    return f" (mime type {', '.join(types)})" if types else ""


def nothing_mentions(outcomes: Sequence[Outcome], secret: str, *, whose: str | None = None) -> None:
    """No result, error or question of the scenario (or of `whose` calls) contains `secret` (case-sensitive).

    With no call made yet (by `whose`) there is no response to look at, and the check would pass
    whatever the server leaks later: it fails instead.
    """
    needs_words(secret, "text that must never appear", "write the secret (or a telling part of it)")
    if not outcomes:
        if whose is not None:
            raise VacuousCheck(
                f"{whose!r} has made no call in this scenario, so no response to them can mention {secret!r} yet: "
                f'put this step after the calls it is about (When "{whose}" calls ...)'
            )
        raise VacuousCheck(
            f"No call has been made yet in this scenario, so no response can mention {secret!r} yet: "
            "put this step after the calls whose responses it checks"
        )
    leaks = [o for o in outcomes if secret in o.text]
    if leaks:
        where = "\n".join(f"  - {o.describe()}" for o in leaks)
        raise AssertionError(f"{len(leaks)} response(s) mention {secret!r}:\n{where}")


def same_failure(first: Outcome, repeats: Sequence[Outcome]) -> None:
    """Every repeat failed like `first`: same channel, same code, same text. No repeat at all checks nothing."""
    if not repeats:
        raise VacuousCheck("No repeat to compare with the first call, so this checks nothing: repeat it at least once")
    if first.ok:
        raise AssertionError(f"Expected the call to have failed before repeating it, but {first.describe()}")
    total = len(repeats) + 1
    for number, repeat in enumerate(repeats, start=2):
        if repeat.signature != first.signature:
            raise AssertionError(
                f"Call {number} of {total} in a row did not fail the same way.\n"
                f"  first:  {first.describe()}\n  call {number}: {repeat.describe()}"
            )


__all__ = [
    "channel_is",
    "does_not_mention",
    "does_not_succeed",
    "fails_with_a_protocol_error",
    "fails_with_protocol_error",
    "fails_with_tool_error",
    "fails_with_tool_error_reason",
    "mentions",
    "nothing_mentions",
    "reason_is",
    "retryable",
    "same_failure",
    "structured_contains",
    "structured_matches",
    "succeeds",
    "suggests",
    "value_at",
]
