"""The scenario's doubles across the process boundary: one SQLite file, a shared clock, loopback routes.

Real files, real server processes over stdio, a real loopback HTTP server: what the storage and
clock steps see over stdio is what the server process wrote and read.

These tests start processes; the in-process tests of this concern are in tests/test_process_doubles.py.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from mcpbdd.model.errors import DoublesNotTaken
from mcpbdd.scenario.world import World
from mcpbdd.storage import MISSING

NOTES_OVER_STDIO = "stdio: {python} -m mcpbdd.examples.notes"
NOTES_ENV = {"NOTES_TENANT": "{tenant}", "NOTES_USER": "{user}"}
MARCH = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)


def stdio_world(make_world: Callable[..., World]) -> World:
    return make_world(server=NOTES_OVER_STDIO, harness="client", env=NOTES_ENV)


# -- the World over stdio: the steps see what the server process sees -----------------------------------------


def test_over_stdio_seeded_storage_the_clock_and_ttls_reach_the_server_process(
    make_world: Callable[..., World],
) -> None:
    world = stdio_world(make_world)
    world.add_user("alice", "acme")
    door = {"id": "n-9", "title": "Door code", "body": "4711", "tags": [], "author": "alice"}
    world.seed_storage("acme", {15 * 60: {"notes/n-9": {**door, "created_at": "2026-01-01T00:00:00Z"}}})
    world.take_baseline()
    assert world.call_tool("get_note", {"note_id": "n-9"}).ok  # seeded before the process started
    world.advance_clock(timedelta(minutes=10))
    assert world.call_tool("get_note", {"note_id": "n-9"}).ok
    world.set_clock(MARCH)  # far past the TTL: the server's next read sees it
    assert world.call_tool("get_note", {"note_id": "n-9"}).channel.value == "tool-error"
    assert world.read_storage("acme", "notes/n-9") is MISSING
    created = world.call_tool("create_note", {"title": "Standup", "body": "Blocked"})
    assert created.structured["created_at"] == "2026-03-01T09:30:00Z"
    assert world.storage_changes("acme").added["notes/n-1"]["title"] == "Standup"
    assert world.placement.taken
    path = world.placement.file.path  # type: ignore[union-attr]
    assert world.close() == []
    assert not Path(path).parent.exists()  # the scenario's file goes with the scenario


def test_over_stdio_a_call_timed_out_on_a_held_upstream_names_the_request_and_both_timeouts(
    make_world: Callable[..., World],
) -> None:
    """In-process a timing-out route is an instant ReadTimeout; a process waits its own timeout."""
    world = make_world(server=NOTES_OVER_STDIO, harness="client", env=NOTES_ENV, timeout=1.0)
    world.add_user("alice", "acme")
    world.upstream.time_out("https://docs.example.com", "GET", "/documents/d-42")
    outcome = world.call_tool("import_note", {"document_id": "d-42"})  # the server waits 3 s (NOTES_DOCS_TIMEOUT)
    described = outcome.describe()
    assert "no answer within the call timeout of 1 s" in described
    assert (
        "the server was still waiting on GET https://docs.example.com/documents/d-42, which the scenario holds "
        "without an answer (times out): over stdio or HTTP the server waits its own upstream timeout, longer here "
        "than the call timeout of 1 s (in-process it gets httpx.ReadTimeout at once)"
    ) in described
    world.close()


def test_over_stdio_each_caller_has_a_process_of_their_own_sharing_the_doubles(
    make_world: Callable[..., World],
) -> None:
    world = stdio_world(make_world)
    world.add_user("alice", "acme")
    world.add_user("bob", "acme")
    world.add_user("erin", "globex")
    assert world.call_tool("create_note", {"title": "Plan", "body": "Ship"}, as_user="alice").ok
    bobs = world.call_tool("list_notes", {}, as_user="bob")
    erins = world.call_tool("list_notes", {}, as_user="erin")
    assert bobs.structured["count"] == 1 and bobs.structured["notes"][0]["author"] == "alice"
    assert erins.structured == {"notes": [], "count": 0}
    connector = world.harness.connector  # type: ignore[attr-defined]
    assert [caller.user for caller in connector.started_for] == ["alice", "bob", "erin"]
    assert world.close() == []


def test_a_server_process_that_keeps_its_own_state_fails_the_storage_step_after_a_call(
    make_world: Callable[..., World],
) -> None:
    """The issue's lie: a server that never took the doubles, and a storage step that would have passed."""
    world = make_world(server="stdio: {python} -m servers", harness="client", cwd=str(Path(__file__).parents[1]))
    world.add_user("alice", "acme")
    world.take_baseline()
    assert world.call_tool("whoami", {}).ok
    with pytest.raises(DoublesNotTaken, match=r'the server "stdio: \{python\} -m servers" did not take them'):
        world.storage_changes("acme")
    with pytest.raises(DoublesNotTaken, match="moving the clock forward by 1:00:00"):
        world.advance_clock(timedelta(hours=1))
    assert world.close() == []


def test_a_server_mcpbdd_starts_over_http_gets_the_doubles_and_stops_with_the_scenario(
    make_world: Callable[..., World],
) -> None:
    world = make_world(server="http: {python} -m mcpbdd.examples.notes --http 127.0.0.1:{port}", harness="client")
    world.add_user("alice", "acme")
    world.add_user("erin", "globex")
    world.set_clock(MARCH)
    created = world.call_tool("create_note", {"title": "Standup", "body": "Blocked"}, as_user="alice")
    assert created.structured["created_at"] == "2026-03-01T09:30:00Z"
    assert world.read_storage("acme", "notes/n-1")["author"] == "alice"
    assert world.call_tool("list_notes", {}, as_user="erin").structured == {"notes": [], "count": 0}
    process = world.harness.connector._process  # type: ignore[attr-defined]
    assert world.close() == []
    assert process.poll() is not None  # stopped (process group and all) with the scenario
