"""Assertions about Outcomes, for steps and for pytest alike.

Each function raises `AssertionError` with a message a product owner can read: what was
expected, what the call actually came to (its channel, code and text), and where it
helps, what to try instead. The steps are one-line wrappers around these.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from mcp_types import Tool

from mcpbdd import matching
from mcpbdd._text import clip
from mcpbdd.answers import required_fields
from mcpbdd.kit.errors import code_name, reason_and_hint
from mcpbdd.outcome import Channel, Outcome, Question
from mcpbdd.storage import MISSING, StorageDiff


def succeeds(outcome: Outcome) -> None:
    if not outcome.ok:
        raise AssertionError(f"Expected the call to succeed, but {outcome.describe()}")


def does_not_succeed(outcome: Outcome) -> None:
    if outcome.ok:
        raise AssertionError(f"Expected the call not to succeed, but {outcome.describe()}")


def fails_with_tool_error(outcome: Outcome, mentioning: str | None = None) -> None:
    if outcome.channel is not Channel.TOOL_ERROR:
        raise AssertionError(f"Expected a tool error, but {outcome.describe()}")
    if mentioning is not None and mentioning.lower() not in outcome.text.lower():
        raise AssertionError(f"Expected the tool error to mention {mentioning!r}, but {outcome.describe()}")


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


def suggests(outcome: Outcome, hint: str) -> None:
    """The failure's recovery hint contains `hint`, case-insensitively."""
    _, actual = _declared(outcome)
    if actual is None:
        raise AssertionError(
            f"Expected the failure to suggest {hint!r}, but it gives no recovery hint: {outcome.describe()}"
        )
    if hint.lower() not in actual.lower():
        raise AssertionError(f"Expected the failure to suggest {hint!r}, but its recovery hint is {actual!r}")


def channel_is(outcome: Outcome, channel: Channel) -> None:
    if outcome.channel is not channel:
        raise AssertionError(f'Expected the outcome "{channel.value}", but {outcome.describe()}')


def mentions(outcome: Outcome, text: str) -> None:
    """The result (or error) text contains `text`, case-insensitively."""
    if text.lower() not in outcome.text.lower():
        raise AssertionError(f"Expected the response to mention {text!r}, but {outcome.describe()}")


def structured_contains(outcome: Outcome, expected: Any) -> None:
    _structured(outcome)
    matching.assert_contains(expected, outcome.structured, what="structured result")


def structured_matches(outcome: Outcome, expected: Any) -> None:
    _structured(outcome)
    matching.assert_matches(expected, outcome.structured, what="structured result")


def _structured(outcome: Outcome) -> None:
    if not outcome.ok:
        raise AssertionError(f"Expected a structured result, but {outcome.describe()}")
    if outcome.structured is None:
        raise AssertionError(
            f"Expected a structured result, but {outcome.method} {outcome.target!r} returned none "
            f"(text: {outcome.text[:300]!r})"
        )


def nothing_mentions(outcomes: Iterable[Outcome], secret: str) -> None:
    """No result, error or question of the scenario contains `secret` (case-sensitive: it is a secret)."""
    leaks = [o for o in outcomes if secret in o.text]
    if leaks:
        where = "\n".join(f"  - {o.describe()}" for o in leaks)
        raise AssertionError(f"{len(leaks)} response(s) mention {secret!r}:\n{where}")


def same_failure(first: Outcome, repeats: Sequence[Outcome]) -> None:
    """Every repeat failed like `first`: same channel, same code, same text."""
    if first.ok:
        raise AssertionError(f"Expected the call to have failed before repeating it, but {first.describe()}")
    for number, repeat in enumerate(repeats, start=1):
        if repeat.signature != first.signature:
            raise AssertionError(
                f"Repeat {number} of {len(repeats)} did not fail the same way.\n"
                f"  first:  {first.describe()}\n  repeat: {repeat.describe()}"
            )


def offers_tools(tools: Sequence[Tool], names: Iterable[str], *, exactly: bool = False) -> None:
    offered = [tool.name for tool in tools]
    wanted = list(names)
    missing = [name for name in wanted if name not in offered]
    extra = [name for name in offered if name not in wanted] if exactly else []
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"missing: {', '.join(missing)}")
        if extra:
            parts.append(f"not expected: {', '.join(extra)}")
        raise AssertionError(
            f"The server's tools differ from the specification ({'; '.join(parts)}). "
            f"It offers: {', '.join(offered) or 'no tools'}"
        )


def question_says(question: Question, text: str) -> None:
    """The question's message (what the user sees) contains `text`, case-insensitively."""
    if text.lower() not in question.message.lower():
        raise AssertionError(
            f"Expected the question {question.key!r} to say {text!r}, but it says {question.message!r}"
        )


def question_requires(question: Question, fields: Sequence[str]) -> None:
    """The question's form requires exactly these fields (in any order)."""
    if question.kind != "elicitation":
        raise AssertionError(f"The question {question.key!r} asks by {question.kind}; only a form requires fields")
    required = required_fields(question)
    if sorted(required) != sorted(fields):
        raise AssertionError(
            f"Expected the question {question.key!r} to require the fields {', '.join(fields)}, "
            f"but it requires {', '.join(required) or 'no fields'}"
        )


def input_required(outcome: Outcome, kind: str | None = None) -> dict[str, Question]:
    """The call asked for input (of `kind`, when given); returns its questions by key, for pytest users."""
    if outcome.channel is not Channel.INPUT_REQUIRED:
        raise AssertionError(f"Expected the server to ask for input, but {outcome.describe()}")
    if kind is not None and not any(q.kind == kind for q in outcome.questions.values()):
        asked = ", ".join(f"{k!r} by {q.kind}" for k, q in outcome.questions.items())
        raise AssertionError(f"Expected a question by {kind}, but the server asks {asked}")
    return dict(outcome.questions)


def took_rounds(actual: int, expected: int) -> None:
    if actual != expected:
        raise AssertionError(f"Expected the call to take {expected} round(s), but it took {actual}")


def storage_holds(value: Any, expected: Any, tenant: str, key: str) -> None:
    """The stored value equals `expected` (exact JSON, markers allowed); a missing key says so."""
    if value is MISSING:
        raise AssertionError(f"The storage of tenant {tenant!r} has no key {key!r}")
    matching.assert_matches(expected, value, what=f"value of {key!r} in tenant {tenant!r}")


def storage_lacks(value: Any, tenant: str, key: str) -> None:
    if value is not MISSING:
        raise AssertionError(
            f"Expected the storage of tenant {tenant!r} to have no key {key!r}, but it holds {_json(value)}"
        )


def storage_unchanged(changes: Mapping[str, StorageDiff]) -> None:
    """No tenant in `changes` has a difference; the failure shows each tenant's diff."""
    changed = {tenant: d for tenant, d in changes.items() if d}
    if changed:
        parts = [f"The storage of tenant {tenant!r} changed:\n{d.render()}" for tenant, d in sorted(changed.items())]
        raise AssertionError("\n".join(parts))


def _json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return clip(text, 300, flat=False)
