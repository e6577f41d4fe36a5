"""Outcome normalisation: every channel, on every harness, from the real SDK."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import HARNESS_KINDS, make_harness
from servers import awkward

from mcpbdd.kit.principals import Principal
from mcpbdd.model.outcome import Call, Channel, ProtocolError, no_back_channel_explanation

pytestmark = pytest.mark.anyio

ALICE = Principal("alice", "acme")


async def test_a_result_is_ok_with_its_structured_content(notes_harness: Any) -> None:
    outcome = await notes_harness.call_tool(ALICE, "create_note", {"title": "Plan", "body": "Ship"})
    assert outcome.channel is Channel.OK
    assert outcome.structured == {
        "id": "n-1",
        "title": "Plan",
        "body": "Ship",
        "tags": [],
        "author": "alice",
        "created_at": outcome.structured["created_at"],
    }
    assert outcome.structured["created_at"].endswith("Z")
    assert '"title": "Plan"' in outcome.text


@pytest.mark.parametrize(
    ("tool", "arguments", "text"),
    [
        ("get_note", {"note_id": "n-9"}, "Note n-9 not found"),
        ("create_note", {"title": 42}, "validation error"),
        ("no_such_tool", {}, "Unknown tool: no_such_tool"),
    ],
    ids=["domain failure", "input schema", "unknown tool"],
)
async def test_tool_errors_are_the_tool_channel(notes_harness: Any, tool: str, arguments: Any, text: str) -> None:
    outcome = await notes_harness.call_tool(ALICE, tool, arguments)
    assert outcome.channel is Channel.TOOL_ERROR
    assert outcome.error is None
    assert text in outcome.text


async def test_an_mcp_error_is_the_protocol_channel_with_code_message_and_data(notes_harness: Any) -> None:
    outcome = await notes_harness.call_tool(ALICE, "export_notes", {"format": "pdf"})
    assert outcome.channel is Channel.PROTOCOL_ERROR
    assert outcome.error is not None
    assert (outcome.error.code, outcome.error.message) == (-32602, "Unsupported export format 'pdf'")
    assert outcome.error.data["format"] == "pdf" and outcome.error.data["supported"] == ["markdown", "json"]
    assert outcome.error.data["reason"] == "export_format_unsupported"  # the declared contract, on the protocol channel


async def test_a_missing_resource_is_invalid_params_with_its_uri(notes_harness: Any) -> None:
    outcome = await notes_harness.read_resource(ALICE, "notes://n-404")
    assert outcome.channel is Channel.PROTOCOL_ERROR
    assert outcome.error is not None and outcome.error.code == -32602
    assert outcome.error.data == {"uri": "notes://n-404"}


async def test_a_question_is_input_required_with_the_question(notes_harness: Any) -> None:
    await notes_harness.call_tool(ALICE, "create_note", {"title": "Old", "body": "x"})
    outcome = await notes_harness.call_tool(ALICE, "delete_note", {"note_id": "n-1"})
    assert outcome.channel is Channel.INPUT_REQUIRED
    [question] = outcome.questions.values()
    assert question.kind == "elicitation"
    assert question.message.startswith('Allow the assistant to delete the note "Old" (n-1)?')


async def test_a_prompt_renders(notes_harness: Any) -> None:
    outcome = await notes_harness.get_prompt(ALICE, "summarize_notes", {"tag": "x"})
    assert outcome.channel is Channel.OK
    assert "Summarise these notes tagged 'x'" in outcome.text


@pytest.mark.parametrize("kind", HARNESS_KINDS)
async def test_a_hung_call_is_a_transport_failure_naming_the_timeout(kind: str) -> None:
    async with make_harness(kind, awkward, timeout=0.2) as harness:
        outcome = await harness.call_tool(None, "hang", {})
    assert outcome.channel is Channel.TRANSPORT_FAILURE
    assert outcome.failure == "no answer within the call timeout of 0.2 s"
    assert outcome.duration < 5


@pytest.mark.parametrize("kind", HARNESS_KINDS)
async def test_a_crash_is_a_tool_error_that_withholds_the_details(kind: str) -> None:
    async with make_harness(kind, awkward) as harness:
        outcome = await harness.call_tool(None, "crash", {})
    assert outcome.channel is Channel.TOOL_ERROR
    assert outcome.text == "Error executing tool crash"
    assert "hunter2" not in outcome.text


@pytest.mark.parametrize("kind", HARNESS_KINDS)
async def test_the_caller_reaches_the_server_through_its_auth_context(kind: str) -> None:
    async with make_harness(kind, awkward) as harness:
        signed_in = await harness.call_tool(ALICE, "whoami", {})
        anonymous = await harness.call_tool(None, "whoami", {})
    assert signed_in.structured == {"subject": "alice", "tenant": "acme"}
    assert anonymous.structured == {"subject": None, "tenant": None}


@pytest.mark.parametrize("kind", ["context", "client-auto"])
async def test_ctx_elicit_on_the_2026_protocol_is_explained_with_both_fixes(kind: str) -> None:
    """The SDK's bare -32600 "no back-channel" reads like a transport fault; the failure says what it means."""
    async with make_harness(kind, awkward) as harness:
        outcome = await harness.call_tool(None, "ask_mid_call", {})
    assert outcome.channel is Channel.PROTOCOL_ERROR
    assert outcome.error is not None and outcome.error.code == -32600
    assert "no back-channel for server-initiated requests" in outcome.error.message
    described = outcome.describe()
    assert "the tool called ctx.elicit(), which needs a channel back to the client during the call" in described
    assert "(NoBackChannelError)" in described
    assert "`Annotated[T, Resolve(fn)]` whose `fn` returns `Elicit(message, Model)`" in described
    assert "pin the scenario to that handshake with the tag @harness.client.legacy" in described


async def test_ctx_elicit_on_the_2025_handshake_asks_and_needs_no_explanation() -> None:
    """The second fix works: on the legacy handshake the same tool's question arrives mid-call."""
    async with make_harness("client-legacy", awkward) as harness:
        outcome = await harness.call_tool(None, "ask_mid_call", {})
    assert outcome.channel is Channel.INPUT_REQUIRED
    assert [q.message for q in outcome.questions.values()] == ["Go ahead?"]


def test_only_the_no_back_channel_error_gets_the_explanation() -> None:
    other = ProtocolError(code=-32600, message="Invalid request")
    assert no_back_channel_explanation(other) is None
    assert no_back_channel_explanation(None) is None
    sampling = ProtocolError(
        code=-32600,
        message="Cannot send 'sampling/createMessage': this transport context has no back-channel for "
        "server-initiated requests.",
    )
    assert "returns `Sample(messages, max_tokens=...)`" in (no_back_channel_explanation(sampling) or "")


async def test_every_call_goes_through_send_and_its_outcome_carries_the_call(notes_harness: Any) -> None:
    created = await notes_harness.send(ALICE, Call.tool("create_note", {"title": "Plan", "body": "Ship"}))
    read = await notes_harness.send(ALICE, Call.resource("notes://n-1"))
    prompt = await notes_harness.send(ALICE, Call.prompt("summarize_notes", {"tag": "x"}))
    assert [o.channel for o in (created, read, prompt)] == [Channel.OK] * 3
    assert read.call == Call("resources/read", "notes://n-1") and "Ship" in read.text
    assert (prompt.method, prompt.target, prompt.arguments) == ("prompts/get", "summarize_notes", {"tag": "x"})
    shortcut = await notes_harness.read_resource(ALICE, "notes://n-1")
    assert (shortcut.call, shortcut.text) == (read.call, read.text)


async def test_a_call_of_another_method_is_refused_naming_the_methods(notes_harness: Any) -> None:
    with pytest.raises(ValueError, match="cannot send 'tools/list': use one of tools/call, resources/read"):
        await notes_harness.send(ALICE, Call("tools/list", "anything"))  # type: ignore[arg-type]
