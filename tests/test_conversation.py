"""Conversations: naming questions, answering them on both eras, limits and mistakes, and the events they emit."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from conftest import HARNESS_KINDS, make_harness
from servers import awkward

from mcpbdd.checks import expect
from mcpbdd.examples.notes import mcp
from mcpbdd.kit.principals import Principal
from mcpbdd.model import answers
from mcpbdd.model.outcome import Call, Channel
from mcpbdd.model.trace import ExchangeRecorded
from mcpbdd.scenario.conversation import Conversation, ConversationError, RoundAnswered, RoundLimitExceeded
from mcpbdd.scenario.world import World

ALICE = Principal("alice", "acme")
WORLD_KINDS = {"context": ("context", "auto"), "client-auto": ("client", "auto"), "client-legacy": ("client", "legacy")}


def notes_world(make_world: Callable[..., World], kind: str, **settings: object) -> World:
    harness, mode = WORLD_KINDS[kind]
    world = make_world(server="mcpbdd.examples.notes:mcp", **settings)
    world.use_harness(harness, mode)
    world.add_user("alice", "acme")
    world.call_tool("create_note", {"title": "Old", "body": "Milk"})
    return world


@pytest.mark.parametrize("kind", HARNESS_KINDS)
def test_a_question_answers_to_its_key_its_short_name_and_its_kind_and_order(
    make_world: Callable[..., World], kind: str
) -> None:
    world = notes_world(make_world, kind)
    world.call_tool("suggest_title", {"note_id": "n-1"})
    by_order = world.question("sampling-1")
    assert by_order is world.question(None) is world.question(None, "sampling")
    # On 2025-11-25 the mid-call request names nothing; the resolver asking it is found in the tool's code.
    assert world.question("ask_model_for_title") is by_order
    assert world.question("mcpbdd.examples.notes:ask_model_for_title") is by_order
    with pytest.raises(ConversationError, match="no elicitation question is open"):
        world.question(None, "elicitation")


@pytest.mark.parametrize("kind", HARNESS_KINDS)
def test_two_open_calls_are_answered_independently(make_world: Callable[..., World], kind: str) -> None:
    world = notes_world(make_world, kind)
    world.call_tool("delete_note", {"note_id": "n-1"})
    assert world.call_tool("list_notes", {}).structured["count"] == 1  # the first call is still waiting
    outcome = world.answer(None, answers.accept({"confirm": True}))
    assert outcome is not None and outcome.structured == {"id": "n-1", "deleted": True}
    assert world.rounds == 2
    assert world.call_tool("list_notes", {}).structured["count"] == 0


@pytest.mark.parametrize("kind", HARNESS_KINDS)
def test_a_wrong_kind_of_answer_is_refused_before_anything_is_sent(make_world: Callable[..., World], kind: str) -> None:
    world = notes_world(make_world, kind)
    world.call_tool("delete_note", {"note_id": "n-1"})
    sent = len(world.trace)
    with pytest.raises(ValueError, match="asks by elicitation, so it cannot be answered by roots"):
        world.answer(None, answers.roots([("file:///tmp", None)]))
    assert len(world.trace) == sent


@pytest.mark.anyio
@pytest.mark.parametrize("kind", HARNESS_KINDS)
async def test_a_form_asked_by_a_resolver_answers_to_the_resolver_on_every_era(kind: str) -> None:
    async with make_harness(kind, awkward) as harness:
        first = await harness.call_tool(None, "launch", {})
        [question] = expect.input_required(first, kind="elicitation").values()
        names = Conversation(None, first).names_of(question)
        assert "servers:ask_to_go" in names and "ask_to_go" in names and "elicitation-1" in names
        await harness.resume(None, first, {question.key: answers.accept({"go": False})}, first.request_state)


@pytest.mark.anyio
@pytest.mark.parametrize("kind", HARNESS_KINDS)
@pytest.mark.parametrize(
    ("tool", "resolver"), [("launch_maybe", "ask_to_go_unless_told"), ("launch_optionally", "ask_to_go_or_nothing")]
)
async def test_a_resolver_annotated_with_a_union_answers_to_the_resolver_on_every_era(
    kind: str, tool: str, resolver: str
) -> None:
    """`Go | Elicit[Go]` (asks only sometimes) and `Elicit[Go] | None` name the question like `Elicit[Go]` does."""
    async with make_harness(kind, awkward) as harness:
        first = await harness.call_tool(None, tool, {})
        [question] = expect.input_required(first, kind="elicitation").values()
        names = Conversation(None, first).names_of(question)
        assert f"servers:{resolver}" in names and resolver in names, names
        await harness.resume(None, first, {question.key: answers.accept({"go": True})}, first.request_state)


@pytest.mark.parametrize("kind", HARNESS_KINDS)
def test_an_answer_that_does_not_fit_the_form_is_refused_before_anything_is_sent(
    make_world: Callable[..., World], kind: str
) -> None:
    world = notes_world(make_world, kind)
    world.call_tool("delete_note", {"note_id": "n-1"})
    sent = len(world.trace)
    with pytest.raises(ValueError, match=r"'confirm' is a boolean, not 1 \(the question asks for: confirm"):
        world.answer(None, answers.accept({"confirm": 1}))
    assert len(world.trace) == sent


@pytest.mark.parametrize("kind", ["context", "client-auto"])
def test_a_server_that_keeps_asking_stops_at_the_round_limit(make_world: Callable[..., World], kind: str) -> None:
    harness, mode = WORLD_KINDS[kind]
    world = make_world(server="servers:awkward", max_rounds=3)
    world.use_harness(harness, mode)
    world.call_tool("interrogate", {})
    world.answer("again", answers.accept({}))
    world.answer("again", answers.accept({}))
    with pytest.raises(RoundLimitExceeded, match=r"still asking after 3 rounds, the limit \(max_rounds = 3\)"):
        world.answer("again", answers.accept({}))


def test_tampering_needs_a_request_state_which_the_older_era_does_not_have(make_world: Callable[..., World]) -> None:
    world = notes_world(make_world, "client-legacy")
    world.call_tool("delete_note", {"note_id": "n-1"})
    with pytest.raises(ConversationError, match="no request state to tamper with"):
        world.retry_tampered()


@pytest.mark.anyio
@pytest.mark.parametrize("kind", HARNESS_KINDS)
async def test_the_python_api_drives_a_round_by_hand(kind: str) -> None:
    async with make_harness(kind, mcp) as harness:
        await harness.call_tool(ALICE, "create_note", {"title": "Old", "body": "Milk"})
        first = await harness.call_tool(ALICE, "delete_note", {"note_id": "n-1"})
        [(key, question)] = expect.input_required(first, kind="elicitation").items()
        assert "cannot be undone" in question.message
        final = await harness.resume(ALICE, first, {key: answers.decline()}, first.request_state)
    assert final.channel is Channel.TOOL_ERROR
    expect.reason_is(final, "consent_declined")


@pytest.mark.parametrize("kind", HARNESS_KINDS)
def test_the_world_tells_each_round_before_the_exchange_it_leads_to(
    make_world: Callable[..., World], kind: str
) -> None:
    world = notes_world(make_world, kind)
    told: list[tuple[str, object]] = []
    world.events.subscribe(ExchangeRecorded, lambda event: told.append(("exchange", event.exchange.outcome.channel)))
    world.events.subscribe(RoundAnswered, lambda event: told.append(("round", event)))
    world.call_tool("delete_note", {"note_id": "n-1"})
    world.answer(None, answers.accept({"confirm": True}))
    assert [what for what, _ in told] == ["exchange", "round", "exchange"]
    assert told[0][1] is Channel.INPUT_REQUIRED and told[2][1] is Channel.OK
    round_ = told[1][1]
    assert isinstance(round_, RoundAnswered)
    assert round_.number == 1 and round_.conversation is world.last_conversation
    assert round_.conversation.call == Call.tool("delete_note", {"note_id": "n-1"})
    [(key, answer)] = round_.answers.items()
    assert key in round_.questions and answer == answers.accept({"confirm": True})


def test_a_tampered_retry_is_told_as_a_round_with_no_answers(make_world: Callable[..., World]) -> None:
    world = notes_world(make_world, "client-auto")
    rounds: list[RoundAnswered] = []
    world.events.subscribe(RoundAnswered, rounds.append)
    world.call_tool("delete_note", {"note_id": "n-1"})
    assert world.retry_tampered().channel is Channel.PROTOCOL_ERROR
    assert [(r.number, dict(r.answers)) for r in rounds] == [(1, {})]


@pytest.mark.parametrize("kind", HARNESS_KINDS)
def test_repeating_the_last_call_re_sends_its_call_as_its_caller(make_world: Callable[..., World], kind: str) -> None:
    world = notes_world(make_world, kind)
    world.add_user("bob", "acme")
    world.read_resource("notes://n-1", as_user="bob")
    repeats = world.repeat_last(2)
    assert [o.call for o in repeats] == [Call.resource("notes://n-1")] * 2
    assert [e.caller for e in world.trace.exchanges[-3:]] == ["bob"] * 3
