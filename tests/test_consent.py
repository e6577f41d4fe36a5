"""Consent gates: the seven rules, why the gate (not the SDK's sealed state) stops a replay, and the subject binding."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import make_harness
from mcp_types import CallToolResult, InputRequiredResult
from servers import RUNS, awkward

from mcpbdd.checks import expect
from mcpbdd.examples.notes import mcp
from mcpbdd.kit.clock import FrozenClock
from mcpbdd.kit.consent import CONSENT_KEY, RECORD_PREFIX, ConsentGate, Shown
from mcpbdd.kit.doubles import Doubles
from mcpbdd.kit.principals import Principal
from mcpbdd.model import answers
from mcpbdd.model.outcome import Channel, Outcome
from mcpbdd.storage import StorageService

pytestmark = pytest.mark.anyio

ALICE, BOB = Principal("alice", "acme"), Principal("bob", "acme")
NOTE = {"id": "n-1", "title": "Old", "body": "x", "tags": [], "author": "alice", "created_at": "2026-01-01T00:00:00Z"}
MODERN = ["context", "client-auto"]
EVERY_ERA = [*MODERN, "client-legacy"]
REPLACED = {**NOTE, "title": "Board minutes", "body": "Approved", "author": "bob"}


def doubles() -> Doubles:
    clock = FrozenClock()
    storage = StorageService(clock=clock)
    storage.seed("acme", {"notes/n-1": NOTE})
    return Doubles(storage, clock)


async def ask(harness: Any, caller: Principal = ALICE) -> Outcome:
    first: Outcome = await harness.call_tool(caller, "delete_note", {"note_id": "n-1"})
    assert CONSENT_KEY in expect.input_required(first, kind="elicitation")
    return first


def yes() -> dict[str, Any]:
    return {CONSENT_KEY: answers.accept({CONSENT_KEY: True})}


def deleted(d: Doubles) -> bool:
    return "notes/n-1" not in d.storage.snapshot("acme")


def records(d: Doubles) -> list[str]:
    return [key for key in d.storage.snapshot("acme") if key.startswith(RECORD_PREFIX)]


def the_question(outcome: Outcome) -> tuple[str, str]:
    """The key and message of the one consent question (a legacy question is keyed by the harness)."""
    [key] = expect.input_required(outcome, kind="elicitation")
    return key, outcome.questions[key].message


@pytest.mark.parametrize("kind", ["client-auto"])
async def test_the_sdk_alone_lets_a_replayed_confirmation_run_the_tool_again(kind: str) -> None:
    """The fact the gate exists for: a sealed request state is replayable within its TTL."""
    RUNS.clear()
    async with make_harness(kind, awkward) as harness:
        first = await harness.call_tool(None, "launch", {})
        [key] = expect.input_required(first)
        go = {key: answers.accept({"go": True})}
        await harness.resume(None, first, go, first.request_state)
        replayed = await harness.resume(None, first, go, first.request_state)
    assert replayed.channel is Channel.OK
    assert RUNS == ["launched", "launched"]


@pytest.mark.parametrize("kind", MODERN)
async def test_round_one_stores_a_bound_record_and_does_nothing_else(kind: str) -> None:
    d = doubles()
    async with make_harness(kind, mcp, doubles=d) as harness:
        await ask(harness)
    [key] = records(d)
    record = d.storage.read("acme", key)
    assert record["binding"]["caller"] == {"client_id": "mcpbdd-client", "subject": "alice"}
    assert record["binding"]["tool"] == "delete_note" and record["binding"]["operation"] == "delete the note"
    assert not deleted(d)


@pytest.mark.parametrize("kind", MODERN)
async def test_an_accepted_true_consent_runs_once_and_is_redeemed(kind: str) -> None:
    d = doubles()
    async with make_harness(kind, mcp, doubles=d) as harness:
        first = await ask(harness)
        granted = await harness.resume(ALICE, first, yes(), first.request_state)
        replay = await harness.resume(ALICE, first, yes(), first.request_state)
    assert granted.channel is Channel.OK and deleted(d)
    assert replay.channel is not Channel.OK  # not found now; with the note back it would ask again
    assert len(d.storage.read("acme", "audit/deletions")) == 1
    assert records(d) == []


@pytest.mark.parametrize("kind", MODERN)
@pytest.mark.parametrize(
    "answer",
    [answers.decline(), answers.cancel(), answers.accept({CONSENT_KEY: False}), answers.accept({CONSENT_KEY: "yes"})],
)
async def test_anything_but_a_true_accept_on_ones_own_record_is_declined(kind: str, answer: Any) -> None:
    d = doubles()
    async with make_harness(kind, mcp, doubles=d) as harness:
        first = await ask(harness)
        refused = await harness.resume(ALICE, first, {CONSENT_KEY: answer}, first.request_state)
    expect.reason_is(refused, "consent_declined")
    assert refused.questions == {} and not deleted(d) and records(d) == []


async def ask_then_replace_the_note(harness: Any, d: Any) -> tuple[Any, str, str]:
    """alice asks to delete n-1; while the question is open, the note under n-1 is replaced.
    Returns the first outcome, the question's key and what it showed."""
    first = await harness.call_tool(ALICE, "delete_note", {"note_id": "n-1"})
    key, asked = the_question(first)
    d.storage.seed("acme", {"notes/n-1": REPLACED})
    return first, key, asked


@pytest.mark.parametrize("kind", EVERY_ERA)
async def test_a_consent_deletes_only_the_note_its_question_showed(kind: str) -> None:
    """The note under n-1 changes while alice decides: her yes asks again; a yes to the same note deletes once."""
    d = doubles()
    async with make_harness(kind, mcp, doubles=d) as harness:
        first, key, asked = await ask_then_replace_the_note(harness, d)
        again = await harness.resume(ALICE, first, {key: answers.accept({CONSENT_KEY: True})}, first.request_state)
        key, asked_again = the_question(again)
        replaced_kept = d.storage.read("acme", "notes/n-1") == REPLACED
        open_records = len(records(d))
        done = await harness.resume(ALICE, again, {key: answers.accept({CONSENT_KEY: True})}, again.request_state)
    assert '"Old"' in asked and '"Board minutes"' in asked_again and "changed since you were asked" in asked_again
    assert replaced_kept
    assert open_records == (0 if kind == "client-legacy" else 1)  # the stale record is spent, the new one stored
    assert done.channel is Channel.OK and deleted(d)
    assert len(d.storage.read("acme", "audit/deletions")) == 1 and records(d) == []


@pytest.mark.parametrize("kind", EVERY_ERA)
async def test_a_refusal_after_the_note_changed_is_still_a_refusal(kind: str) -> None:
    d = doubles()
    async with make_harness(kind, mcp, doubles=d) as harness:
        first, key, _ = await ask_then_replace_the_note(harness, d)
        refused = await harness.resume(ALICE, first, {key: answers.decline()}, first.request_state)
    expect.reason_is(refused, "consent_declined")
    assert refused.questions == {} and d.storage.read("acme", "notes/n-1") == REPLACED and records(d) == []


async def test_a_gate_reads_its_target_one_way() -> None:
    """A fixed phrase binds the arguments alone; `shown` binds what the question showed: never both."""

    async def shown() -> Shown:
        return Shown("n-1")

    with pytest.raises(TypeError, match=r"exactly one of target= .* or shown="):
        await ConsentGate("delete").check(None, None, None, arguments={}, target="n-1", shown=shown)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="exactly one"):
        await ConsentGate("delete").check(None, None, None, arguments={})  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", MODERN)
async def test_an_expired_record_asks_again(kind: str) -> None:
    d = doubles()
    async with make_harness(kind, mcp, doubles=d) as harness:
        first = await ask(harness)
        d.clock.advance(11 * 60)  # type: ignore[attr-defined]
        again = await harness.resume(ALICE, first, yes(), first.request_state)
    assert again.channel is Channel.INPUT_REQUIRED and not deleted(d)


async def test_a_foreign_or_malformed_record_asks_again_and_leaves_the_owners_record() -> None:
    """On the context harness the state is plaintext, so the gate's own binding is what refuses bob."""
    d = doubles()
    async with make_harness("context", mcp, doubles=d) as harness:
        first = await ask(harness)
        as_bob = await harness.resume(BOB, first, yes(), first.request_state)
        d.storage.seed("acme", {"consent/garbage": "not a record"})
        malformed = await harness.resume(ALICE, first, yes(), "consent/garbage")
        no_record = await harness.resume(ALICE, first, yes(), "consent/never-issued")
        still_good = await harness.resume(ALICE, first, yes(), first.request_state)
    assert as_bob.channel is malformed.channel is no_record.channel is Channel.INPUT_REQUIRED
    assert still_good.channel is Channel.OK and deleted(d)


async def test_on_the_wire_another_callers_replay_is_refused_by_the_sealed_state() -> None:
    d = doubles()
    async with make_harness("client-auto", mcp, doubles=d) as harness:
        first = await ask(harness)
        as_bob = await harness.resume(BOB, first, yes(), first.request_state)
    expect.fails_with_protocol_error(as_bob, -32602)
    assert not deleted(d)


@pytest.mark.parametrize("kind", MODERN)
async def test_a_pre_answered_accept_without_a_question_is_not_consent(kind: str) -> None:
    d = doubles()
    async with make_harness(kind, mcp, doubles=d) as harness:
        outcome = await harness.call_tool(ALICE, "delete_note", {"note_id": "n-1"}, input_responses=yes())
    assert outcome.channel is Channel.INPUT_REQUIRED and not deleted(d)


@pytest.mark.parametrize("kind", ["context", "client-auto", "client-legacy"])
async def test_a_client_without_elicitation_cannot_consent(kind: str) -> None:
    d = doubles()
    async with make_harness(kind, mcp, doubles=d, capabilities=("sampling",)) as harness:
        outcome = await harness.call_tool(ALICE, "delete_note", {"note_id": "n-1"}, input_responses=yes())
    expect.fails_with_protocol_error(outcome, -32021)
    assert not deleted(d) and records(d) == []


async def test_a_record_can_be_carried_between_hand_built_mock_contexts() -> None:
    """Each hand-built MockContext has its own storage: carry_record moves round one's record to round two's."""
    from mcpbdd.examples.notes import NotesState
    from mcpbdd.harness import MockContext
    from mcpbdd.kit.consent import carry_record
    from mcpbdd.kit.principals import acting_as

    first_storage, second_storage = doubles().storage, doubles().storage
    clock = FrozenClock()
    round_one = MockContext(mcp, lifespan=NotesState(first_storage, clock))
    round_two = MockContext(mcp, lifespan=NotesState(second_storage, clock))
    with acting_as(ALICE):
        asked = await mcp.call_tool(
            "delete_note", {"note_id": "n-1"}, round_one.for_tool("delete_note", {"note_id": "n-1"})
        )
        assert isinstance(asked, InputRequiredResult)
        state = asked.request_state
        await carry_record(first_storage.tenant("acme"), second_storage.tenant("acme"), state)
        done = await mcp.call_tool(
            "delete_note",
            {"note_id": "n-1"},
            round_two.for_tool("delete_note", {"note_id": "n-1"}, input_responses=yes(), request_state=state),
        )
    assert isinstance(done, CallToolResult) and not done.is_error
    assert "notes/n-1" not in second_storage.snapshot("acme")
    with pytest.raises(ValueError, match="no consent record"):
        await carry_record(first_storage.tenant("acme"), second_storage.tenant("acme"), "consent/never")
