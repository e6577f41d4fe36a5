"""The warm spare: server processes started ahead for the next scenarios, taken only when started exactly so.

Real processes over stdio: the notes example server for scenarios built as behave builds them (a
`World` per scenario on the run's one loop), and the fork server tests' small server for whole
behave runs, whose processes are found by their temporary folder, after a pass, a failure, a crash,
SIGINT and SIGTERM.

These tests start processes; the in-process tests of this concern are in tests/test_spare.py.
"""

from __future__ import annotations

import asyncio
import functools
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from mcpbdd.harness.connectors import Stdio
from mcpbdd.harness.processes import spare
from mcpbdd.scenario.world import World
from spawning.test_fork_server import FEATURE, ROOT, interrupt_hanging_run, processes_mentioning, project


@pytest.fixture(autouse=True)
def _stop_spares(run_loop: Any) -> Iterator[None]:
    """The spares a test leaves are stopped before its loop closes, as a run's end stops them."""
    yield
    spare.stop_all()


NOTES = "stdio: {python} -m mcpbdd.examples.notes"
NOTES_ENV = {"NOTES_TENANT": "{tenant}", "NOTES_USER": "{user}"}
MARCH = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
NOT_USED = "a spare server process was not used"


def notes_scenario(make_world: Callable[..., World], user: str = "alice", **settings: Any) -> World:
    """A scenario against the notes server over stdio with `spawn = "spare"`, its caller `user` of acme."""
    options: dict[str, Any] = {"server": NOTES, "harness": "client", "env": NOTES_ENV, "spawn": "spare"}
    world = make_world(**{**options, "start_timeout": 120, "timeout": 60, **settings})
    world.add_user(user, "acme")
    return world


def stdio_of(world: World) -> Stdio:
    connector = world.harness.connector  # type: ignore[attr-defined]
    assert isinstance(connector, Stdio)
    return connector


def process_started_at(pid: int) -> float:
    """When `pid` started, on the wall clock, from the kernel's own record (its start in ticks since boot)."""
    ticks = int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[19])
    uptime = float(Path("/proc/uptime").read_text().split()[0])
    return time.time() - (uptime - ticks / os.sysconf("SC_CLK_TCK"))


def gone(pid: int | None) -> bool:
    return not alive(pid)


def alive(pid: int | None) -> bool:
    try:
        return pid is not None and "State:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False


def drive_until(run_loop: Any, condition: Callable[[], bool], seconds: float, what: str) -> None:
    """Let the run's loop run (between steps it does not) until `condition` holds."""

    async def wait() -> None:
        while not condition():
            await asyncio.sleep(0.05)

    try:
        run_loop.loop.run_until_complete(asyncio.wait_for(wait(), seconds))
    except TimeoutError:
        raise AssertionError(f"waited {seconds:g} s for {what}") from None


# -- scenarios: the next one takes a spare started before it began, with its own doubles -----------------------------


def test_the_next_scenario_takes_a_spare_started_before_it_began_and_the_spare_sees_its_doubles(
    make_world: Callable[..., World],
) -> None:
    first = notes_scenario(make_world)
    assert first.call_tool("list_notes").ok
    assert stdio_of(first).spares == {}  # nothing was started ahead of the first scenario: it starts plainly
    ahead = spare.spares()
    assert len(ahead) == spare.AHEAD
    assert first.close() == []
    began = time.time()

    second = notes_scenario(make_world)
    door = {"id": "n-9", "title": "Door code", "body": "4711", "tags": [], "author": "alice"}
    second.seed_storage("acme", {None: {"notes/n-9": {**door, "created_at": "2026-01-01T00:00:00Z"}}})
    second.set_clock(MARCH)  # after the spare started: it reads the clock from the file on each use
    assert second.call_tool("get_note", {"note_id": "n-9"}).ok  # seeded after the spare started
    taken = stdio_of(second).spares[0]
    assert taken is ahead[0]
    assert taken.pid is not None and process_started_at(taken.pid) < began
    assert taken.launch.doubles == second.placement.file.path  # type: ignore[union-attr]
    created = second.call_tool("create_note", {"title": "Standup", "body": "Blocked"})
    assert created.structured["created_at"] == "2026-03-01T09:30:00Z"
    assert second.placement.taken
    assert second.close() == []
    assert not alive(taken.pid)  # stopped with its scenario, as a plain process is
    assert not taken.folder.exists()


def test_a_second_callers_process_starts_plainly_and_leaves_the_spares_to_the_next_scenarios(
    make_world: Callable[..., World], capfd: pytest.CaptureFixture[str]
) -> None:
    world = notes_scenario(make_world, "alice")
    world.add_user("bob", "acme")
    assert world.call_tool("list_notes").ok
    ahead = spare.spares()
    assert world.call_tool("list_notes", as_user="bob").ok
    assert [caller.user if caller else None for caller in stdio_of(world).started_for] == ["alice", "bob"]
    assert stdio_of(world).spares == {}
    assert spare.spares() == ahead
    assert NOT_USED not in capfd.readouterr().err


def test_a_spare_started_for_another_caller_is_not_used_but_stopped_saying_why_once(
    make_world: Callable[..., World], run_loop: Any, capfd: pytest.CaptureFixture[str]
) -> None:
    alice = notes_scenario(make_world, "alice")
    assert alice.call_tool("list_notes").ok
    started_as_alice = [started.pid for started in spare.spares()]
    assert alice.close() == []
    for number in range(2):  # both spares were started as alice's scenarios: neither fits bob's
        bob = notes_scenario(make_world, "bob")
        listed = bob.call_tool("list_notes")
        assert listed.ok, listed.failure
        assert stdio_of(bob).spares == {}
        assert bob.close() == []
        drive_until(run_loop, functools.partial(gone, started_as_alice[number]), 30, "the unused spare to stop")
    again = notes_scenario(make_world, "bob")
    assert again.call_tool("list_notes").ok
    assert 0 in stdio_of(again).spares  # started as bob's, while bob's scenarios ran
    err = capfd.readouterr().err
    assert err.count(NOT_USED) == 1, err
    assert "it differs in $NOTES_USER)" in err


def test_a_spare_started_in_another_working_directory_is_not_used(
    make_world: Callable[..., World], tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    here = notes_scenario(make_world, cwd=str(tmp_path / "a"))
    assert here.call_tool("list_notes").ok
    assert here.close() == []
    there = notes_scenario(make_world, cwd=str(tmp_path / "b"))
    assert there.call_tool("list_notes").ok
    assert stdio_of(there).spares == {}
    assert "it differs in the working directory)" in capfd.readouterr().err


def test_no_spare_is_started_for_a_server_given_loopback_urls_opened_per_scenario(
    make_world: Callable[..., World], capfd: pytest.CaptureFixture[str]
) -> None:
    world = notes_scenario(make_world, upstreams=("https://docs.example.com",))
    assert world.call_tool("list_notes").ok
    assert spare.spares() == []
    assert "no spare server process for" in capfd.readouterr().err


# -- whole runs: no process is left behind, whatever way the run ends --------------------------------------------


def test_a_run_with_a_pass_a_failure_and_a_crash_on_spares_leaves_no_process(tmp_path: Path) -> None:
    _script, command = project(tmp_path, FEATURE, spawn="spare")
    temporary = tmp_path / "tmp"  # the run's temporary files: spares' folders, reserved doubles files
    temporary.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LINGER_AFTER_EOF": "1", "TMPDIR": str(temporary)}
    run = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert "1 scenario passed, 2 failed" in run.stdout, run.stdout + run.stderr
    assert "exited with code 3" in run.stdout  # the crash, on a spare (the third scenario's process)
    assert "spawn = spare" in run.stderr
    assert processes_mentioning(str(tmp_path)) == []  # LINGER_AFTER_EOF: a spare left would have lived on
    assert list(temporary.iterdir()) == []


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_or_terminated_run_leaves_no_spare(tmp_path: Path, signum: signal.Signals) -> None:
    started = tmp_path / "hang-started"
    hang = 'Feature: hang\n  Scenario: a call that never ends\n    When the client calls "hang"\n'
    _script, command = project(tmp_path, hang, spawn="spare")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HANG_STARTED": str(started), "LINGER_AFTER_EOF": "1"}
    # the scenario's process and the spares started for the next scenarios: a shell and a server each
    started_all = lambda servers: len(servers) >= 2 * (1 + spare.AHEAD)  # noqa: E731
    interrupt_hanging_run(command, tmp_path, env, started, signum, ready=started_all)
