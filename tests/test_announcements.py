"""Announcements: a listen is opened the era's way, owned by the scenario, and the checks read what really arrived.

The World tests listen on the bundled notes server on the context harness (the server's own
`subscriptions/listen` handler, its frames recorded) and the in-process client in both eras
(`subscriptions/listen` on 2026-07-28, the session's notifications and `resources/subscribe` on
2025-11-25). The check tests build what a listen received as plain data and show each check
failing, naming the frames, or refusing a check that would check nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from mcpbdd.checks import announcements
from mcpbdd.model.announcements import ACKNOWLEDGED, LISTS, RESOURCE_UPDATED, SUBSCRIPTION_ID_KEY, Frame, Listen, Topic
from mcpbdd.model.errors import VacuousCheck

NOTES = "mcpbdd.examples.notes:mcp"
TARGETS = pytest.mark.parametrize(
    ("harness", "mode"),
    [("context", None), ("client", "auto"), ("client", "legacy")],
    ids=["context", "auto", "legacy"],
)
TOOLS = Topic.of_list("tools")
NOTE = Topic.resource("notes://n-1")


def _world(make_world: Callable[..., Any], harness: str, mode: str | None) -> Any:
    # A short call timeout: a check of an announcement that never comes waits that long.
    world = make_world(server=NOTES, harness=harness, client_mode=mode or "auto", timeout=0.5)
    world.add_user("alice", "acme")
    return world


@TARGETS
def test_a_listen_hears_the_tools_list_change_and_a_note_edit(
    make_world: Callable[..., Any], harness: str, mode: str | None
) -> None:
    world = _world(make_world, harness, mode)
    world.call_tool("create_note", {"title": "Plan", "body": "Ship", "slug": "n-1"})
    tools = world.listens.listen_for(TOOLS)
    world.listens.listen_for(NOTE)
    world.call_tool("set_archiving", {"enabled": True})
    world.call_tool("edit_note", {"note_id": "n-1", "body": "Ship on Friday"})
    world.listens.check_announced(TOOLS)
    world.listens.check_announced(NOTE)
    received = world.listens.received()
    assert [listen.topic for listen in received] == [TOOLS, NOTE]
    own = received[0].own
    modern = mode != "legacy"
    assert received[0].modern is modern
    if modern:  # the acknowledgement first, every frame tagged with the listen's id
        assert own[0].method == ACKNOWLEDGED
        assert {frame.tag for frame in own} == {tools.subscription_id}
    assert [frame.method for frame in own if frame.topic is not None] == [LISTS["tools"]]
    assert [frame.topic for frame in received[1].own if frame.topic is not None] == [NOTE]
    heard = [entry.kind for entry in world.journal.entries if entry.kind not in ("progress", "log message")]
    assert heard.count("tools list changed") == 1 and heard.count("resource updated") == 1  # in the reports too
    assert heard.count("listen acknowledged") == (2 if modern else 0)
    assert world.close() == []


@TARGETS
def test_a_listen_told_nothing_it_asked_for_announces_nothing(
    make_world: Callable[..., Any], harness: str, mode: str | None
) -> None:
    world = _world(make_world, harness, mode)
    world.listens.listen_for(Topic.of_list("prompts"))
    world.call_tool("set_archiving", {"enabled": True})  # the tools list: not what this listen asked for
    world.listens.check_nothing()
    with pytest.raises(AssertionError, match="Expected the server to announce that the prompts list changed"):
        world.listens.check_announced(Topic.of_list("prompts"))


def test_announces_nothing_fails_when_the_announcement_came(make_world: Callable[..., Any]) -> None:
    world = _world(make_world, "client", "auto")
    world.listens.listen_for(TOOLS)
    world.call_tool("set_archiving", {"enabled": True})
    with pytest.raises(AssertionError, match="Expected the server to announce nothing, but it announced that the"):
        world.listens.check_nothing()


@TARGETS
def test_every_listen_closes_with_the_scenario_even_when_it_failed(
    make_world: Callable[..., Any], harness: str, mode: str | None
) -> None:
    world = _world(make_world, harness, mode)
    world.listens.listen_for(TOOLS)
    with pytest.raises(AssertionError):
        world.listens.check_announced(Topic.of_list("prompts"))  # no listen for it: the scenario fails here
    assert world.close() == []
    if harness == "context":  # the server's listen handler ran as a task of its own: it is gone
        loop = world.owner.loop
        assert not [task for task in asyncio.all_tasks(loop) if "ListenHandler" in repr(task.get_coro())]


def _listen(*frames: Frame, topic: Topic = TOOLS, modern: bool = True, opened_after: int = 0) -> Listen:
    return Listen(topic, modern, "listen-1" if modern else None, frames, opened_after, "alice")


def _frame(method: str, tag: Any = "listen-1", calls: int = 1, **params: Any) -> Frame:
    meta = {"_meta": {SUBSCRIPTION_ID_KEY: tag}} if tag is not None else {}
    return Frame(method, {**meta, **params}, calls)


ACK = _frame(ACKNOWLEDGED, calls=0, notifications={"toolsListChanged": True})


def test_the_checks_pass_on_a_well_behaved_stream() -> None:
    listen = _listen(ACK, _frame(LISTS["tools"]))
    announcements.announced([listen], TOOLS, waited=0)
    other = Listen(
        TOOLS, True, "listen-1", (ACK, _frame(LISTS["prompts"], tag="listen-2")), 0, "alice", frozenset({"listen-2"})
    )
    announcements.announced_nothing([other], 1)  # a frame of the connection's other listen is not this one's


def test_each_protocol_check_fails_naming_what_arrived() -> None:
    with pytest.raises(AssertionError, match=r"acknowledgement as the first frame.*tools list changed tagged"):
        announcements.announced([_listen(_frame(LISTS["tools"]), ACK)], TOOLS, waited=0)
    with pytest.raises(AssertionError, match="tagged with an id no listen of this client has"):
        announcements.announced([_listen(ACK, _frame(LISTS["tools"], tag="listen-9"))], TOOLS, waited=0)
    with pytest.raises(AssertionError, match="carries none"):
        announcements.announced([_listen(ACK, _frame(LISTS["tools"], tag=None))], TOOLS, waited=0)
    with pytest.raises(AssertionError, match=r"a kind it did not ask for \(the prompts list changed\)"):
        announcements.announced([_listen(ACK, _frame(LISTS["prompts"]))], TOOLS, waited=0)
    with pytest.raises(AssertionError, match='resource "notes://n-9" changed, which no listen subscribed to'):
        legacy = _listen(_frame(RESOURCE_UPDATED, tag=None, uri="notes://n-9"), topic=NOTE, modern=False)
        announcements.announced_nothing([legacy], 1)


def test_an_announcement_that_never_came_names_what_did() -> None:
    with pytest.raises(AssertionError, match=r"waited 2 s\), but alice's listen for the tools list \('listen-1'\) "):
        announcements.announced([_listen(ACK)], TOOLS, waited=2)


def test_an_announcement_missing_on_2025_11_25_says_how_that_era_announces() -> None:
    """The SDK's ctx.notify_tools_changed() reaches only 2026-07-28 listens: a server using it is silent on 2025."""
    with pytest.raises(AssertionError, match=r"received nothing \(on 2025-11-25 .*send_tool_list_changed\(\)"):
        announcements.announced([_listen(modern=False)], TOOLS, waited=1)
    with pytest.raises(AssertionError) as modern:
        announcements.announced([_listen(ACK)], TOOLS, waited=1)
    assert "2025-11-25" not in str(modern.value)  # the hint is for the era that needs it only


def test_a_sub_resource_is_its_resources_own() -> None:
    assert Topic.resource("notes://n-1").covers(Topic.resource("notes://n-1/attachments/a"))
    assert not Topic.resource("notes://n-1").covers(Topic.resource("notes://n-10"))
    assert not TOOLS.covers(NOTE)


def test_checks_that_would_check_nothing_are_broken() -> None:
    with pytest.raises(VacuousCheck, match="no listen for the tools list is open"):
        announcements.announced([], TOOLS, waited=0)
    with pytest.raises(VacuousCheck, match="no listen for anything is open"):
        announcements.announced_nothing([], 3)
    with pytest.raises(VacuousCheck, match="no call was made since the listen opened"):
        announcements.announced_nothing([_listen(ACK, opened_after=2)], 2)
    with pytest.raises(ValueError, match="there is no 'templates' list"):
        Topic.of_list("templates")


def test_a_frame_is_a_journal_entry_of_plain_json() -> None:
    kind, payload = _frame(RESOURCE_UPDATED, uri="notes://n-1").journal_entry()
    assert kind == "resource updated"
    assert payload["params"]["uri"] == "notes://n-1" and payload["after_calls"] == 1
    assert _frame(LISTS["prompts"]).journal_entry()[0] == "prompts list changed"
    assert ACK.journal_entry()[0] == "listen acknowledged"
