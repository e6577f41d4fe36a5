"""The scenario's doubles across the process boundary: one SQLite file, a shared clock, loopback routes.

Real files, real server processes over stdio, a real loopback HTTP server: what the storage and
clock steps see over stdio is what the server process wrote and read.

The tests of this concern that start processes are in tests/spawning/test_process_doubles.py.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from mcpbdd.harness.handover import Placement
from mcpbdd.kit import doubles as kit_doubles
from mcpbdd.kit.doubles import ENV_DOUBLES, from_environment, scenario_doubles
from mcpbdd.kit.upstream import ENV_ALL, LoopbackRoutes
from mcpbdd.model.errors import DoublesNotTaken
from mcpbdd.scenario.world import World
from mcpbdd.storage.doubles_file import DoublesFile, FileClock
from mcpbdd.upstream import LoopbackServer, Upstream


def test_every_caller_process_and_the_scenario_sign_listing_cursors_with_the_scenario_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over stdio each caller has a process: a cursor one issued must continue in another."""
    path = str(tmp_path / "d.sqlite")
    placement = Placement("stdio: server", Upstream(), file=DoublesFile.create(path))
    placement.doubles.storage.seed("acme", {"notes/n-1": 1, "notes/n-2": 2, "notes/n-3": 3})
    monkeypatch.setenv(ENV_DOUBLES, path)

    def process() -> kit_doubles.Doubles:
        monkeypatch.setattr(kit_doubles, "_from_file", {})  # as in a fresh process
        found = from_environment()
        assert found is not None
        return found

    alice, bob = process(), process()
    first = asyncio.run(alice.storage.tenant("acme").list("notes/", limit=1))
    assert first.next_cursor is not None
    rest = asyncio.run(bob.storage.tenant("acme").list("notes/", cursor=first.next_cursor, limit=5))
    assert [key for key, _ in rest.items] == ["notes/n-2", "notes/n-3"]
    scenario_side = asyncio.run(placement.doubles.storage.tenant("acme").list("notes/", cursor=first.next_cursor))
    assert [key for key, _ in scenario_side.items] == ["notes/n-2", "notes/n-3"]
    other = DoublesFile.create(tmp_path / "other.sqlite")  # another scenario: another secret
    assert placement.file is not None and other.cursor_secret() != placement.file.cursor_secret()
    for opened in (alice, bob):
        opened.storage.close()
    other.close()
    placement.close()


NOTES_OVER_STDIO = "stdio: {python} -m mcpbdd.examples.notes"
MARCH = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)


# -- the file: one clock, one storage, marks ---------------------------------------------------------------


def test_a_clock_moved_through_one_opening_of_the_file_is_read_through_another(tmp_path: Path) -> None:
    """Two openings stand for the scenario and a server process: the server reads what the scenario set."""
    scenario, server = DoublesFile(tmp_path / "d.sqlite"), None
    try:
        moved = FileClock(scenario, MARCH)
        server = DoublesFile(tmp_path / "d.sqlite")
        seen = FileClock(server)
        assert seen.now() == MARCH
        moved.advance(timedelta(hours=2))
        assert seen.now() == MARCH + timedelta(hours=2)
        moved.set(datetime(2026, 3, 1, 9, 30, 0, 123457, tzinfo=UTC))  # microseconds survive the file
        assert seen.now().microsecond == 123457
        with pytest.raises(ValueError, match="moves forward only"):
            moved.advance(-1)
        with pytest.raises(ValueError, match="has no timezone"):
            moved.set(datetime(2026, 3, 1))
    finally:
        scenario.close()
        if server is not None:
            server.close()


def test_a_created_file_is_empty_in_wal_mode_and_its_own(tmp_path: Path) -> None:
    """`create` writes a new file from the image of an empty one: each is separate, WAL mode (several processes
    read and write it), with the tables a fresh file gets; it never overwrites a file already there."""
    first, second = DoublesFile.create(tmp_path / "a.sqlite"), DoublesFile.create(tmp_path / "b.sqlite")
    try:
        first.mark()
        FileClock(first, MARCH)
        assert first.taken and not second.taken and second.instant() is None
        with sqlite3.connect(tmp_path / "b.sqlite") as conn:
            assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
            tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"mcpbdd_storage", "mcpbdd_clock", "mcpbdd_taken"} <= tables
        with pytest.raises(FileExistsError):
            DoublesFile.create(tmp_path / "a.sqlite")
        assert first.taken
    finally:
        first.close()
        second.close()


def test_the_file_tells_whether_a_process_took_the_doubles(tmp_path: Path) -> None:
    scenario, server = DoublesFile(tmp_path / "d.sqlite"), DoublesFile(tmp_path / "d.sqlite")
    assert not scenario.taken
    server.mark()
    assert scenario.taken
    scenario.close()
    server.close()


def test_scenario_doubles_in_a_process_come_from_the_file_its_environment_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = str(tmp_path / "d.sqlite")
    scenario = DoublesFile(path)
    FileClock(scenario, MARCH)
    scenario.provider.set_many("acme", [("notes/n-1", '{"title": "seeded"}', None)])
    monkeypatch.setenv(ENV_DOUBLES, path)
    monkeypatch.setenv(ENV_ALL, '{"https://docs.example.com": "http://127.0.0.1:9"}')
    monkeypatch.setattr(kit_doubles, "_from_file", {})  # as in a fresh process
    assert from_environment() is from_environment()  # one set of doubles per process
    assert not scenario.taken
    doubles = scenario_doubles()
    assert doubles is not None and scenario.taken
    assert doubles.clock.now() == MARCH
    assert doubles.storage.read("acme", "notes/n-1") == {"title": "seeded"}
    assert isinstance(doubles.upstream, LoopbackRoutes)
    assert doubles.upstream.urls == {"https://docs.example.com": "http://127.0.0.1:9"}
    monkeypatch.delenv(ENV_DOUBLES)
    assert from_environment() is None  # production: nothing set, nothing taken
    doubles.storage.close()
    scenario.close()


# -- the upstream routes as a process sees them ----------------------------------------------------------


def test_loopback_routes_send_a_production_url_to_its_loopback_double() -> None:
    upstream = Upstream()
    upstream.answer("https://docs.example.com", "GET", "/documents/d-1", 200, {"title": "Brief"})
    with LoopbackServer(upstream) as loopback:
        routes = LoopbackRoutes.from_environment(loopback.environment())
        loopback_url = loopback.url_for("https://docs.example.com")

        async def fetch() -> tuple[httpx.Response, httpx.Response]:
            async with httpx.AsyncClient(transport=routes.transport()) as client:
                production = await client.get("https://docs.example.com/documents/d-1?x=1")
                direct = await client.get(f"{loopback_url}/documents/d-1")
                return production, direct

        production, direct = asyncio.run(fetch())
    assert production.json() == {"title": "Brief"} and direct.json() == {"title": "Brief"}
    assert upstream.received("https://docs.example.com", "GET", "/documents/d-1") == 2


def test_loopback_routes_refuse_an_origin_the_scenario_does_not_name() -> None:
    routes = LoopbackRoutes({"https://docs.example.com": "http://127.0.0.1:9"})

    async def fetch() -> None:
        async with httpx.AsyncClient(transport=routes.transport()) as client:
            await client.get("https://billing.example.com/invoices")

    with pytest.raises(httpx.ConnectError, match=r"no upstream double for https://billing.example.com"):
        asyncio.run(fetch())


def test_loopback_routes_load_no_certificates_until_a_request_is_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    """A lifespan that builds a client over the routes and sends nothing pays no TLS set-up (15-60 ms each time)."""
    import ssl

    def refused(*args: object, **kwargs: object) -> ssl.SSLContext:
        raise AssertionError("a TLS context was built before any request was sent")

    monkeypatch.setattr(ssl, "create_default_context", refused)

    async def open_and_close() -> None:
        async with httpx.AsyncClient(transport=LoopbackRoutes({}).transport()):
            pass

    asyncio.run(open_and_close())  # the notes server's lifespan with no document service does exactly this


# -- where the doubles go, and when that is decided --------------------------------------------------------


def test_a_server_at_a_url_cannot_take_the_doubles_and_the_message_says_what_to_do() -> None:
    placement = Placement("http://127.0.0.1:8000/mcp", Upstream())
    placement.relied('seeding the storage of tenant "acme"')  # before any answer: remembered, not decided
    with pytest.raises(DoublesNotTaken) as failure:
        placement.answered()
    message = str(failure.value)
    assert message.startswith("An earlier step relies on the scenario's doubles (seeding the storage of tenant")
    assert "runs at a URL mcpbdd did not start" in message and "`http: <command with {port}>`" in message
    assert "storage_adapter" in message


def test_a_storage_adapter_excuses_the_server_from_taking_the_doubles() -> None:
    placement = Placement("http://127.0.0.1:8000/mcp", Upstream(), excused=True)
    placement.relied('reading the storage of tenant "acme"')
    placement.answered()
    placement.relied('reading the storage of tenant "acme"')


def test_choosing_a_server_process_moves_the_doubles_to_a_file_and_keeps_the_clock(
    make_world: Callable[..., World],
) -> None:
    world = make_world(server="mcpbdd.examples.notes:mcp")
    assert world.placement.file is None
    world.set_clock(MARCH)
    world.use_server(NOTES_OVER_STDIO)
    assert world.placement.file is not None and world.clock.now() == MARCH


def test_choosing_a_server_in_memory_after_a_server_process_keeps_the_clock(
    make_world: Callable[..., World],
) -> None:
    world = make_world(server=NOTES_OVER_STDIO)
    world.set_clock(MARCH)
    world.use_server("mcpbdd.examples.notes:mcp")  # the file's clock was read after the file was removed
    assert world.placement.file is None and world.clock.now() == MARCH


def test_storage_seeded_before_a_server_process_is_chosen_is_refused_clearly(make_world: Callable[..., World]) -> None:
    world = make_world(server="mcpbdd.examples.notes:mcp")
    world.seed_storage("acme", {None: {"notes/n-1": {}}})
    with pytest.raises(ValueError, match="the storage was seeded before the server was chosen"):
        world.use_server(NOTES_OVER_STDIO)
