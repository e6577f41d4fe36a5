"""The expectations behind "the server asks ...": each passes on what it claims and fails with the step's words.

The questions come from the bundled notes server on the context harness (delete_note asks
for consent by elicitation), so the failures are checked against what a server really asks.
"""

from __future__ import annotations

import pytest
from conftest import make_harness

from mcpbdd.checks import expect
from mcpbdd.examples.notes import mcp
from mcpbdd.kit.clock import FrozenClock
from mcpbdd.kit.consent import CONSENT_KEY
from mcpbdd.kit.doubles import Doubles
from mcpbdd.kit.principals import Principal
from mcpbdd.model.outcome import Outcome
from mcpbdd.storage import StorageService

pytestmark = pytest.mark.anyio

ALICE = Principal("alice", "acme")
NOTE = {"id": "n-1", "title": "Old", "body": "x", "tags": [], "author": "alice", "created_at": "2026-01-01T00:00:00Z"}


async def _calls() -> tuple[Outcome, Outcome]:
    """(a call that succeeded, a call that asks for consent), as alice of tenant acme."""
    clock = FrozenClock()
    storage = StorageService(clock=clock)
    storage.seed("acme", {"notes/n-1": NOTE})
    async with make_harness("context", mcp, doubles=Doubles(storage, clock)) as harness:
        listed = await harness.call_tool(ALICE, "list_notes", {})
        asking = await harness.call_tool(ALICE, "delete_note", {"note_id": "n-1"})
    return listed, asking


async def test_asks_for_input_hands_back_the_open_round_and_fails_with_what_the_last_call_came_to() -> None:
    listed, asking = await _calls()
    round_open = object()  # the scenario's Conversation: expect only passes it back
    assert expect.asks_for_input(round_open, asking) is round_open
    with pytest.raises(AssertionError) as failure:
        expect.asks_for_input(None, listed)
    assert str(failure.value) == f"Expected the server to ask for input, but {listed.describe()}"
    assert str(failure.value).startswith("Expected the server to ask for input, but tools/call 'list_notes'")
    with pytest.raises(AssertionError, match=r"^Expected the server to ask for consent, but tools/call 'list_notes'"):
        expect.asks_for_input(None, listed, what="consent")


async def test_asks_by_names_the_question_as_the_specification_did_and_the_kind_it_asks_by() -> None:
    _, asking = await _calls()
    [question] = expect.input_required(asking, kind="elicitation").values()
    expect.asks_by(question, "elicitation")
    with pytest.raises(AssertionError) as failure:
        expect.asks_by(question, "sampling", named="consent")
    assert str(failure.value) == "Expected the server to ask 'consent' by sampling, but it asks by elicitation"
    with pytest.raises(AssertionError) as failure:
        expect.asks_by(question, "roots")
    assert str(failure.value) == f"Expected the server to ask {CONSENT_KEY!r} by roots, but it asks by elicitation"


def test_answer_sent_before_fails_when_nothing_was_answered_yet() -> None:
    expect.answer_sent_before(True)
    with pytest.raises(AssertionError) as failure:
        expect.answer_sent_before(False)
    assert str(failure.value) == "Expected the server to ask again after an answer, but no answer was sent before"
