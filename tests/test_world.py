"""The World and its owner task: isolation between scenarios, resources across steps, cleanup."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import Client

from mcpbdd.examples.notes import mcp
from mcpbdd.kit.principals import Directory, Principal
from mcpbdd.model.errors import NoCallYet
from mcpbdd.model.outcome import Channel
from mcpbdd.scenario.runtime import OwnerTaskDied, RunLoop
from mcpbdd.scenario.world import World

NOTES = "mcpbdd.examples.notes:mcp"


@pytest.mark.parametrize("harness", ["context", "client"])
def test_nothing_leaks_from_one_scenario_to_the_next(make_world: Callable[..., World], harness: str) -> None:
    first = make_world(server=NOTES, harness=harness)
    first.add_user("alice", "acme")
    assert first.call_tool("create_note", {"title": "Secret", "body": "x"}).ok
    assert first.close() == []

    second = make_world(server=NOTES, harness=harness)
    assert second.caller is None
    assert second.outcomes == [] and len(second.trace) == 0
    second.add_user("alice", "acme")
    listed = second.call_tool("list_notes", {})
    assert listed.structured == {"notes": [], "count": 0}
    assert second.close() == []


def test_a_client_opened_in_one_step_serves_calls_in_later_steps_and_closes_cleanly(run_loop: RunLoop) -> None:
    """The failure mode the owner task exists for: 'exit cancel scope in a different task'."""
    owner = run_loop.owner()
    client = owner.enter(Client(mcp))  # step 1 opens
    first = owner.run(client.list_tools())  # step 2 calls
    second = owner.run(client.list_tools())  # step 3 calls again
    assert [t.name for t in first.tools] == [t.name for t in second.tools]
    assert owner.close() == []  # cleanup exits in the owner task: no cancel-scope error


def test_cleanup_exits_resources_in_reverse_order_and_reports_failures(run_loop: RunLoop) -> None:
    events: list[str] = []

    @asynccontextmanager
    async def resource(name: str, fail: bool = False) -> AsyncIterator[str]:
        events.append(f"enter {name}")
        yield name
        events.append(f"exit {name}")
        if fail:
            raise RuntimeError(f"{name} failed to close")

    owner = run_loop.owner()
    owner.enter(resource("lifespan", fail=True))
    owner.enter(resource("session"))
    errors = owner.close()
    assert events == ["enter lifespan", "enter session", "exit session", "exit lifespan"]
    assert [str(e) for e in errors] == ["lifespan failed to close"]


def _interrupt_me() -> None:
    """A real SIGINT to this process (Python runs its handler at the next line, as for a Ctrl-C)."""
    os.kill(os.getpid(), signal.SIGINT)


def test_an_interrupt_while_closing_is_raised_once_everything_is_closed(run_loop: RunLoop) -> None:
    events: list[str] = []

    @asynccontextmanager
    async def resource(name: str, interrupt: bool = False) -> AsyncIterator[str]:
        yield name
        if interrupt:
            _interrupt_me()
        await asyncio.sleep(0.01)  # the close goes on past the signal
        events.append(f"exit {name}")

    owner = run_loop.owner()
    owner.enter(resource("lifespan"))
    owner.enter(resource("session", interrupt=True))
    with pytest.raises(KeyboardInterrupt):
        owner.close()
    assert events == ["exit session", "exit lifespan"]
    assert owner.close_errors == []  # an interrupt is not a close error


def test_a_run_loop_gives_sigint_back_when_it_closes() -> None:
    loop = RunLoop()
    assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    loop.close()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_second_interrupt_while_closing_stops_waiting(run_loop: RunLoop) -> None:
    events: list[str] = []

    @asynccontextmanager
    async def stubborn() -> AsyncIterator[None]:
        yield
        _interrupt_me()
        await asyncio.sleep(0.01)
        _interrupt_me()  # the user insists
        await asyncio.sleep(0.01)
        events.append("closed")

    owner = run_loop.owner()
    owner.enter(stubborn())
    with pytest.raises(KeyboardInterrupt):
        owner.close()
    assert events == []


def test_an_interrupt_during_a_step_cancels_it_at_an_await_and_is_raised(run_loop: RunLoop) -> None:
    seen: list[str] = []

    async def step() -> None:
        _interrupt_me()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            seen.append("cancelled at the await")
            raise

    owner = run_loop.owner()
    client = owner.enter(Client(mcp))
    with pytest.raises(KeyboardInterrupt):
        owner.run(step())
    assert seen == ["cancelled at the await"]  # not a KeyboardInterrupt raised mid-line inside a task
    assert owner.run(client.list_tools()).tools  # the scenario's resources are intact
    assert owner.close() == []


def test_an_error_entering_a_resource_reaches_the_step_and_the_owner_survives(run_loop: RunLoop) -> None:
    @asynccontextmanager
    async def broken() -> AsyncIterator[None]:
        raise ConnectionError("server refused")
        yield

    owner = run_loop.owner()
    with pytest.raises(ConnectionError, match="server refused"):
        owner.enter(broken())
    assert owner.enter(Client(mcp)) is not None
    assert owner.close() == []


def test_a_closed_owner_refuses_new_resources(run_loop: RunLoop) -> None:
    owner = run_loop.owner()
    owner.close()
    with pytest.raises((RuntimeError, OwnerTaskDied), match=r"closed|gone"):
        owner.enter(Client(mcp))


def test_an_outcome_step_before_any_call_says_what_is_missing(make_world: Callable[..., World]) -> None:
    world = make_world(server=NOTES)
    with pytest.raises(NoCallYet, match="no call has been made yet"):
        _ = world.last


def test_calling_a_tool_the_server_lacks_names_the_tools_it_offers(make_world: Callable[..., World]) -> None:
    world = make_world(server=NOTES)
    outcome = world.call_tool("archive_notes", {})
    assert outcome.channel is Channel.TOOL_ERROR
    assert outcome.note is not None
    assert "it offers: create_note, get_note, list_notes, delete_note, export_notes" in outcome.note
    assert "it offers" in outcome.describe()


def test_settings_cannot_change_after_the_first_call(make_world: Callable[..., World]) -> None:
    world = make_world(server=NOTES)
    world.call_tool("list_notes", {})
    with pytest.raises(RuntimeError, match="before the first call"):
        world.declare_capabilities(["roots"])


def test_a_missing_server_target_says_how_to_configure_one(make_world: Callable[..., World]) -> None:
    world = make_world()
    with pytest.raises(ValueError, match=r"\[tool.mcpbdd\]"):
        world.call_tool("anything", {})


def test_repeating_a_call_repeats_it_as_the_same_caller(make_world: Callable[..., World]) -> None:
    world = make_world(server=NOTES, harness="client")
    world.add_user("alice", "acme")
    world.add_user("erin", "globex")
    world.call_tool("create_note", {"title": "A", "body": "a"}, as_user="alice")
    repeats = world.repeat_last(2)
    assert [o.structured["author"] for o in repeats] == ["alice", "alice"]
    assert [e.caller for e in world.trace.exchanges] == ["alice", "alice", "alice"]


def test_sync_tools_reuse_one_worker_thread_across_steps(make_world: Callable[..., World]) -> None:
    """The SDK runs sync tools in anyio worker threads; they must outlive a step, not start per step."""
    import threading

    world = make_world(server=NOTES)
    world.add_user("alice", "acme")
    world.call_tool("list_notes", {})  # the first sync call may start the worker
    started: list[str] = []
    original = threading.Thread.start

    def counting_start(thread: threading.Thread) -> None:
        started.append(thread.name)
        original(thread)

    threading.Thread.start = counting_start  # type: ignore[method-assign, assignment]  # counted, then restored
    try:
        for _ in range(20):
            assert world.call_tool("list_notes", {}).ok
    finally:
        threading.Thread.start = original  # type: ignore[method-assign]
    assert started == [], f"{len(started)} threads started across 20 steps"


def test_a_foreign_storage_adapter_gets_every_storage_step(
    make_world: Callable[..., World], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server keeping its state in a JSON file: seeded, read and diffed through the project's adapter."""
    monkeypatch.setenv("MCPBDD_TEST_JSON_STATE", str(tmp_path / "state.json"))
    world = make_world(server="servers:json_notes", storage_adapter="servers:json_adapter")
    world.add_user("alice", "acme")
    world.seed_storage("globex", {None: {"motto": "We are globex"}})
    world.take_baseline()
    assert world.call_tool("remember", {"key": "todo", "text": "Ship it"}).ok
    assert world.storage.read("acme", "todo") == "Ship it"
    assert not world.storage_changes("globex")
    assert world.storage_changes("acme").added == {"todo": "Ship it"}
    assert world.other_tenants() == ["globex"]


def test_a_storage_adapter_that_cannot_be_loaded_says_so(make_world: Callable[..., World]) -> None:
    with pytest.raises(ValueError, match="storage_adapter 'servers:nope' cannot be loaded"):
        make_world(server=NOTES, storage_adapter="servers:nope")


def test_the_client_is_the_first_caller_declared_until_the_scenario_chooses() -> None:
    """Declaring more users never changes who "the client" is; only `Given the caller is` (or signing out) does."""
    directory = Directory()
    directory.add_user("alice", "acme")
    directory.add_user("erin", "globex")
    directory.add_tenant("initech")
    assert directory.caller == Principal("alice", "acme")
    directory.add_user("alice", "acme", ("notes:read",))  # the client, declared again: her new scopes count
    assert directory.caller == Principal("alice", "acme", ("notes:read",))
    directory.switch_to("erin")
    directory.add_user("bob", "acme")
    assert directory.caller == Principal("erin", "globex")
    directory.sign_out()
    directory.add_user("carol", "acme")
    assert directory.caller is None, "a declaration after 'nobody is signed in' signs nobody in"


def test_a_tenant_declared_first_makes_its_default_user_the_client() -> None:
    directory = Directory()
    directory.add_tenant("initech")
    directory.add_user("alice", "acme")
    assert directory.caller == Principal("initech-user", "initech")


def test_every_outcome_the_world_records_names_its_caller(make_world: Callable[..., World]) -> None:
    world = make_world(server=NOTES)
    world.add_user("alice", "acme")
    world.add_user("erin", "globex")
    as_client = world.call_tool("get_note", {"note_id": "n-9"})
    as_erin = world.call_tool("get_note", {"note_id": "n-9"}, as_user="erin")
    world.sign_out()
    anonymous = world.call_tool("list_notes", {})
    assert as_client.describe().startswith("tools/call 'get_note' as alice of tenant acme failed with a tool error")
    assert as_erin.describe().startswith("tools/call 'get_note' as erin of tenant globex failed")
    assert anonymous.describe().startswith("tools/call 'list_notes' as an anonymous caller (no access token) failed")
    assert world.last is anonymous and [e.outcome for e in world.trace.exchanges] == world.outcomes
