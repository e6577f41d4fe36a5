"""MockContext fidelity: the same call gives the same Outcome through the mock context and a real client."""

from __future__ import annotations

from typing import Any

import pytest
from mcp_types import CallToolResult
from servers import awkward

from mcpbdd.examples.notes import NotesState, mcp
from mcpbdd.harness import ClientHarness, ContextHarness, MockContext
from mcpbdd.kit.clock import FrozenClock
from mcpbdd.kit.doubles import Doubles
from mcpbdd.kit.principals import Principal, acting_as
from mcpbdd.model.outcome import Outcome
from mcpbdd.storage import StorageService

pytestmark = pytest.mark.anyio

ALICE = Principal("alice", "acme")

CALLS: list[tuple[str, str, Any]] = [
    ("tool", "create_note", {"title": "Plan", "body": "Ship", "tags": ["q3"]}),
    ("tool", "get_note", {"note_id": "n-1"}),
    ("tool", "get_note", {"note_id": "n-2"}),
    ("tool", "list_notes", {"tag": "q3"}),
    ("tool", "create_note", {"title": ["wrong"]}),
    ("tool", "export_notes", {"format": "json"}),
    ("tool", "export_notes", {"format": "pdf"}),
    ("tool", "delete_note", {"note_id": "n-1"}),
    ("tool", "nope", {}),
    ("resource", "notes://n-1", None),
    ("resource", "notes://n-2", None),
    ("resource", "unknown://x", None),
    ("prompt", "summarize_notes", {"tag": "q3"}),
    ("prompt", "summarize_notes", {}),
    ("prompt", "no_such_prompt", {}),
]


def frozen_doubles() -> Doubles:
    """Fresh storage on a frozen clock: both harnesses then stamp the same created_at."""
    clock = FrozenClock()
    return Doubles(StorageService(clock=clock), clock)


def comparable(outcome: Outcome) -> tuple[Any, ...]:
    """What must agree between harnesses: channel, text, structured content, error code/message/data, questions."""
    error = (outcome.error.code, outcome.error.message, outcome.error.data) if outcome.error else None
    questions = {key: (q.kind, q.message) for key, q in outcome.questions.items()}
    return (outcome.channel, outcome.text, outcome.structured, error, questions)


async def run_calls(harness: Any) -> list[tuple[Any, ...]]:
    async with harness:
        outcomes = []
        for kind, target, arguments in CALLS:
            if kind == "tool":
                outcome = await harness.call_tool(ALICE, target, arguments)
            elif kind == "resource":
                outcome = await harness.read_resource(ALICE, target)
            else:
                outcome = await harness.get_prompt(ALICE, target, arguments)
            outcomes.append(comparable(outcome))
        return outcomes


async def test_the_context_harness_agrees_with_the_modern_client_on_every_call() -> None:
    through_context = await run_calls(ContextHarness(mcp, doubles=frozen_doubles()))
    through_client = await run_calls(ClientHarness(mcp, mode="auto", doubles=frozen_doubles()))
    for call, mine, theirs in zip(CALLS, through_context, through_client, strict=True):
        assert mine == theirs, f"{call}: context harness {mine} != client {theirs}"


async def test_mock_context_is_a_real_sdk_context_usable_from_plain_python() -> None:
    state = NotesState(StorageService(clock=FrozenClock()), FrozenClock())
    mock = MockContext(mcp, lifespan=state)
    with acting_as(ALICE):
        created = await mcp.call_tool("create_note", {"title": "T", "body": "B"}, mock.for_tool("create_note"))
        listed = await mcp.call_tool("list_notes", {}, mock.for_tool("list_notes"))
    assert isinstance(created, CallToolResult) and isinstance(listed, CallToolResult)
    assert not created.is_error
    assert listed.structured_content is not None and listed.structured_content["count"] == 1
    assert state.storage.snapshot("acme")["notes/n-1"]["title"] == "T"


async def test_mock_context_records_progress_instead_of_sending_it() -> None:
    mock = MockContext(awkward)
    result = await awkward.call_tool("report", {}, mock.for_tool("report"))
    assert isinstance(result, CallToolResult) and not result.is_error
    assert mock.recorder.progress == [(1, 2, "halfway")]


async def test_a_context_without_elicitation_refuses_like_a_real_client_would() -> None:
    async with ContextHarness(mcp, capabilities=()) as context, ClientHarness(mcp, capabilities=()) as client:
        for harness in (context, client):
            await harness.call_tool(ALICE, "create_note", {"title": "Old", "body": "x"})
        mine = await context.call_tool(ALICE, "delete_note", {"note_id": "n-1"})
        theirs = await client.call_tool(ALICE, "delete_note", {"note_id": "n-1"})
    assert comparable(mine) == comparable(theirs)
    assert mine.error is not None and mine.error.code == -32021
