"""Assertions about Outcomes, for steps and for pytest alike.

Each function raises `AssertionError` with a message a product owner can read: what was
expected, what the call actually came to (who made it, its channel, code and text), and
where it helps, what to try instead. The steps are one-line wrappers around these.

Every green must mean something was checked: a check that would pass whatever the server
does (an empty text to look for, a table with no rows, a leak check before any call, a
storage check of a tenant nobody knows) raises `VacuousCheck` instead, naming what was
vacuous and how to fix the scenario.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

from mcp_types import Tool

from mcpbdd._text import clip
from mcpbdd.kit.errors import code_name, declared_retryable, reason_and_hint
from mcpbdd.model import matching, paths
from mcpbdd.model.answers import required_fields
from mcpbdd.model.errors import Broken as Broken  # `expect.Broken`: what a broken specification raises
from mcpbdd.model.errors import VacuousCheck
from mcpbdd.model.outcome import RESOURCES_READ, Channel, Outcome, Question
from mcpbdd.storage import MISSING, StorageDiff

_Open = TypeVar("_Open")
"""The scenario's open round of questions, whatever its type (`asks_for_input` hands it back)."""


def _needs_words(text: str, what: str, fix: str) -> None:
    """An empty (or blank) text is in every response, so a check for it would pass whatever the server says."""
    if not text.strip():
        raise VacuousCheck(
            f"The {what} is empty, and every text contains the empty text, so this checks nothing: {fix}"
        )


def _needs_content(
    expected: Any,
    *,
    contains: bool,
    what: str = "structured result",
    instead: str = "use 'Then the call succeeds' when success is all that matters",
) -> None:
    """`{}` (for contains) and a bare `#ignore` match every structured result: such a check says nothing."""
    if expected == "#ignore" or (contains and expected == {}):
        raise VacuousCheck(
            f"The expected JSON is {json.dumps(expected)}, which every {what} "
            f"{'contains' if contains else 'matches'}, so this checks nothing: name the keys and values that matter "
            f"(or {instead})"
        )


def succeeds(outcome: Outcome) -> None:
    if not outcome.ok:
        raise AssertionError(f"Expected the call to succeed, but {outcome.describe()}")


def does_not_succeed(outcome: Outcome) -> None:
    if outcome.ok:
        raise AssertionError(f"Expected the call not to succeed, but {outcome.describe()}")


def fails_with_tool_error(outcome: Outcome, mentioning: str | None = None) -> None:
    if mentioning is not None:
        _needs_words(
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
    _needs_words(hint, "hint to look for", "write the words the recovery hint must contain")
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
    _needs_words(text, "text to look for", "write the words the result must mention")
    if text.lower() not in outcome.text.lower():
        raise AssertionError(f"Expected the response to mention {text!r}, but {outcome.describe()}")


def does_not_mention(outcome: Outcome, text: str) -> None:
    """The result (or error) text does not contain `text`, case-insensitively."""
    _needs_words(text, "text that must not appear", "write the words the result must not mention")
    if text.lower() in outcome.text.lower():
        raise AssertionError(f"Expected the response not to mention {text!r}, but {outcome.describe()}")


def structured_contains(outcome: Outcome, expected: Any) -> None:
    _needs_content(expected, contains=True)
    _structured(outcome)
    matching.assert_contains(expected, outcome.structured, what=f"structured result of {outcome.request_line}")


def structured_matches(outcome: Outcome, expected: Any) -> None:
    _needs_content(expected, contains=False)
    _structured(outcome)
    matching.assert_matches(expected, outcome.structured, what=f"structured result of {outcome.request_line}")


def value_at(outcome: Outcome, path: str, expected: Any) -> None:
    """The structured result's value at the JSON `path` (`$.count`) matches `expected` (exact, markers allowed).

    A malformed path is a ValueError (the specification's mistake); a path the result does not
    have is an AssertionError naming where the path broke off (the server's answer).
    """
    paths.path_steps(path)
    _needs_content(expected, contains=False)
    _structured(outcome)
    try:
        actual = paths.lookup(outcome.structured, path)
    except LookupError as exc:
        raise AssertionError(f"Expected {path} to be {_json(expected)}, but {exc}: {outcome.describe()}") from None
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
    _needs_words(secret, "text that must never appear", "write the secret (or a telling part of it)")
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


def offers_tools(tools: Sequence[Tool], names: Iterable[str], *, exactly: bool = False) -> None:
    """The server offers at least `names` (or exactly them). No name at all is a check only with `exactly`."""
    offered = [tool.name for tool in tools]
    wanted = list(names)
    if not wanted and not exactly:
        raise VacuousCheck(
            "The table lists no tool (a heading and no rows), and every server offers at least no tools, so this "
            "checks nothing: add a row per tool the server must offer, or use 'Then the server offers exactly the "
            "tools:' to say it offers none"
        )
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


def offers_resource_template(templates: Sequence[str], uri_template: str) -> None:
    """The server offers a resource template with exactly this URI template (`notes://{note_id}`)."""
    if not uri_template.strip():
        raise VacuousCheck("The resource template to look for is empty: write its URI template, e.g. notes://{id}")
    if uri_template not in templates:
        offered = ", ".join(templates) or "no resource templates"
        raise AssertionError(
            f"Expected the server to offer the resource template {uri_template!r}, but it offers: {offered}"
        )


def question_says(question: Question, text: str) -> None:
    """The question's message (what the user sees) contains `text`, case-insensitively."""
    _needs_words(text, "text the question must say", "write the words the question must say")
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


def asks_for_input(conversation: _Open | None, last: Outcome, *, what: str = "input") -> _Open:
    """A question is open: `conversation` is the scenario's open round (None: none), returned for the step to use.

    The round stays open across other calls until it is answered, so the failure names
    what the last call came to, not the call that asked. Typed loosely because the round
    belongs to the scenario layer, above this one.
    """
    if conversation is None:
        raise AssertionError(f"Expected the server to ask for {what}, but {last.describe()}")
    return conversation


def asks_by(question: Question, kind: str, *, named: str | None = None) -> None:
    """The question asks by `kind` (elicitation, sampling, roots); `named`: what the specification called it.

    A question is found by name whatever its kind, so that a wrong kind is reported as
    such here instead of as a question the server did not ask.
    """
    if question.kind != kind:
        name = question.key if named is None else named
        raise AssertionError(f"Expected the server to ask {name!r} by {kind}, but it asks by {question.kind}")


def asks_nothing(conversation: object | None, last: Outcome) -> None:
    """No question is open after the last call (`conversation`: the scenario's open round, None when none).

    About the scenario's open round, not only the last call: a question asked earlier and
    never answered is still waiting, and "the server asks nothing" would hide it.
    """
    if last.channel is Channel.INPUT_REQUIRED:
        asked = ", ".join(f"{key!r} by {q.kind}" for key, q in last.questions.items()) or "a question"
        raise AssertionError(f"Expected the server to ask nothing, but it asks {asked}: {last.describe()}")
    if conversation is not None:
        raise AssertionError(
            "Expected the server to ask nothing, but an earlier question is still open (unanswered); "
            f"the last call: {last.describe()}"
        )


def answer_sent_before(answered_last: bool) -> None:
    """A step that says the server asks *again* claims an answer (or a replay) was sent first; without one it would
    only repeat that the server asked."""
    if not answered_last:
        raise AssertionError("Expected the server to ask again after an answer, but no answer was sent before")


def input_required(outcome: Outcome, kind: str | None = None) -> dict[str, Question]:
    """The call asked for input (of `kind`, when given); returns its questions by key, for pytest users."""
    if outcome.channel is not Channel.INPUT_REQUIRED:
        raise AssertionError(f"Expected the server to ask for input, but {outcome.describe()}")
    if kind is not None and not any(q.kind == kind for q in outcome.questions.values()):
        asked = ", ".join(f"{k!r} by {q.kind}" for k, q in outcome.questions.items())
        raise AssertionError(f"Expected a question by {kind}, but the server asks {asked}")
    return dict(outcome.questions)


def took_rounds(actual: int, expected: int, outcome: Outcome | None = None) -> None:
    """The last call (`outcome`, named in the failure) took `expected` rounds; a call that asked nothing took 1."""
    if expected < 1:
        raise ValueError(f"a call takes at least 1 round, so {expected} round(s) can never be right: count from 1")
    if actual != expected:
        which = f" ({outcome.request_line})" if outcome is not None else ""
        raise AssertionError(f"Expected the call{which} to take {expected} round(s), but it took {actual}")


def storage_holds(value: Any, expected: Any, tenant: str, key: str, held: Sequence[str] = ()) -> None:
    """The stored value equals `expected` (exact JSON, markers allowed); a missing key says so, with `held`'s keys."""
    if value is MISSING:
        raise AssertionError(f"The storage of tenant {tenant!r} has no key {key!r}; {_keys_held(key, held)}")
    matching.assert_matches(expected, value, what=f"value of {key!r} in tenant {tenant!r}")


def storage_contains(value: Any, expected: Any, tenant: str, key: str, held: Sequence[str] = ()) -> None:
    """The stored value contains `expected` (only the keys given, markers allowed); a missing key says so."""
    _needs_content(expected, contains=True, what="stored value", instead=f"use 'holds {key!r} equal to:' for all of it")
    if value is MISSING:
        raise AssertionError(f"The storage of tenant {tenant!r} has no key {key!r}; {_keys_held(key, held)}")
    matching.assert_contains(expected, value, what=f"value of {key!r} in tenant {tenant!r}")


def _keys_held(key: str, held: Sequence[str], shown: int = 10) -> str:
    """What the tenant does hold: every key when few, else the nearest to `key` (a typo shows at once)."""
    if not held:
        return "it holds no key at all"
    if len(held) <= shown:
        return f"it holds: {', '.join(sorted(held))}"
    nearest = difflib.get_close_matches(key, held, n=shown, cutoff=0.0)
    return f"the nearest of the {len(held)} keys it holds: {', '.join(nearest)}"


def storage_empty(held: Sequence[str], tenant: str) -> None:
    """The tenant's storage holds no key at all (`held`: the keys it holds now)."""
    if held:
        raise AssertionError(
            f"Expected the storage of tenant {tenant!r} to be empty, but it holds {len(held)} key(s): "
            f"{_keys_held('', held).removeprefix('it holds: ')}"
        )


def storage_lacks(value: Any, tenant: str, key: str) -> None:
    if value is not MISSING:
        raise AssertionError(
            f"Expected the storage of tenant {tenant!r} to have no key {key!r}, but it holds {_json(value)}"
        )


def storage_known(tenant: str, known: Sequence[str], claim: str) -> None:
    """`tenant` is one the scenario named or whose storage holds something; else `claim` holds whatever happens."""
    if tenant not in known:
        raise VacuousCheck(
            f"The scenario knows no tenant {tenant!r} (known: {', '.join(known) or 'none'}) and its storage holds "
            f"nothing, so {claim} whatever the server does: check the tenant's name, or introduce it with "
            f'Given the tenant "{tenant}"'
        )


def storage_baseline_taken(baseline: Mapping[str, Any] | None) -> None:
    """ "Unchanged" compares with the storage just before the first When step; before it, nothing can have changed."""
    if baseline is None:
        raise VacuousCheck(
            "'Unchanged' compares with the storage just before the first When step, and no When step has run yet, "
            "so nothing can have changed: put this step after the When step whose effect it checks"
        )


def other_tenants_exist(others: Sequence[str], in_play: Sequence[str]) -> None:
    """There is at least one tenant besides the caller's to compare; otherwise "every other" means none."""
    if not others:
        own = ", ".join(repr(t) for t in in_play)
        knows = f"knows only {own} (the last call's caller's tenant)" if own else "knows no tenant at all"
        raise VacuousCheck(
            f"There is no other tenant to compare: the scenario {knows} and no other tenant's storage holds "
            "anything, so 'every other tenant is unchanged' checks nothing. Introduce another tenant "
            '(Given the user "erin" of tenant "globex") or seed one (Given the storage of tenant "globex" holds: ...)'
        )


def upstream_can_receive(origin: str, declared: Sequence[str], calls: int) -> None:
    """A "received nothing" check means something only after a call, and only for an origin a route answers.

    A request no route matches already fails the call that sent it, so for an origin no route
    names, "it received no request" is true of every scenario that gets this far.
    """
    if calls == 0:
        raise VacuousCheck(
            f"No call has been made yet in this scenario, so the server cannot have sent {origin} anything: "
            "put this step after the calls it is about"
        )
    if origin not in declared:
        raise VacuousCheck(
            f"No route in this scenario answers for {origin} (routes answer for: {', '.join(declared) or 'none'}), "
            "so any request to it would already have failed the call that sent it and this check cannot fail: "
            f'check the origin, or declare what it answers (Given the upstream "{origin}" answers ...)'
        )


def upstream_body_names_something(expected: Any) -> None:
    """A body check of `{}` (or `#ignore`) holds for every JSON body: it checks nothing."""
    _needs_content(
        expected,
        contains=True,
        what="JSON body",
        instead="use 'received POST \"/path\" 1 time' when the request is all that matters",
    )


def storage_unchanged(changes: Mapping[str, StorageDiff], *, except_under: str | None = None) -> None:
    """No tenant in `changes` has a difference; the failure shows each tenant's diff.

    `except_under`: the prefix already left out of `changes` (`StorageDiff.outside`), named in the failure.
    """
    changed = {tenant: d for tenant, d in changes.items() if d}
    outside = f" outside {except_under!r}" if except_under else ""
    if changed:
        parts = [
            f"The storage of tenant {tenant!r} changed{outside}:\n{d.render()}" for tenant, d in sorted(changed.items())
        ]
        raise AssertionError("\n".join(parts))


def _json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return clip(text, 300, flat=False)


__all__ = [
    "VacuousCheck",
    "answer_sent_before",
    "asks_nothing",
    "asks_by",
    "asks_for_input",
    "channel_is",
    "does_not_mention",
    "does_not_succeed",
    "fails_with_protocol_error",
    "fails_with_tool_error",
    "fails_with_tool_error_reason",
    "input_required",
    "mentions",
    "nothing_mentions",
    "offers_resource_template",
    "offers_tools",
    "other_tenants_exist",
    "question_requires",
    "question_says",
    "reason_is",
    "retryable",
    "same_failure",
    "storage_baseline_taken",
    "storage_contains",
    "storage_empty",
    "storage_holds",
    "storage_known",
    "storage_lacks",
    "storage_unchanged",
    "structured_contains",
    "structured_matches",
    "succeeds",
    "suggests",
    "took_rounds",
    "upstream_body_names_something",
    "upstream_can_receive",
    "value_at",
]
