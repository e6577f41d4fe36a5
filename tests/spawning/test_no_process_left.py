"""A run leaves no process it started, directly or not, and one helper asks for the death signal.

A helper a server starts in its own process group outlived the run (adopted by init), whether the server was
forked or started plainly, because the SDK stops a server's group only when the server does not end by
itself; and a server that ignores SIGTERM kept running after the fork server was killed (its parent-death
signal was SIGTERM). Real processes, found in /proc (`tests/processes.py`; this process is a subreaper, so
an orphan stays among its descendants instead of going to init).

These tests start processes; the in-process tests of this concern are in tests/test_no_process_left.py.
"""

from __future__ import annotations

import json
import os
import signal
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import anyio
import pytest
from processes import MARKER_ENV, alive, mcpbdd_run, processes_marked, wait_until

from mcpbdd.harness import ClientHarness
from mcpbdd.harness.connectors import Stdio
from mcpbdd.harness.processes import spare, spawn
from mcpbdd.harness.processes.parent_death import die_with_parent
from mcpbdd.harness.processes.process_options import ProcessOptions
from mcpbdd.harness.processes.spawn import SpawnMode
from spawning.test_fork_faults import SERVER

pytestmark = pytest.mark.usefixtures("own_fork_servers")  # its fork servers' own lifetimes


@pytest.fixture(autouse=True)
def _stop_servers() -> Iterator[None]:
    yield
    spawn.stop_all()
    spare.stop_all()


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "srv" / "server.py"
    path.parent.mkdir()
    path.write_text(SERVER)
    return path


async def helper_of(harness: ClientHarness) -> dict[str, int]:
    started = await harness.call_tool(None, "start_helper", {})
    assert started.ok, started.failure
    found: dict[str, int] = json.loads(started.text)
    assert alive(found["helper"])
    return found


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["fork", "plain", "spare"])
async def test_a_helper_in_the_servers_group_ends_with_the_scenario(script: Path, mode: SpawnMode) -> None:
    stdio = Stdio(f"{{python}} {script}", ProcessOptions(spawn=mode))
    async with ClientHarness(stdio, timeout=30, start_timeout=120) as harness:
        found = await helper_of(harness)
    wait_until(lambda: not alive(found["pid"]), 30, "the server to stop")
    wait_until(lambda: not alive(found["helper"]), 10, f"the helper {found['helper']} to end with its server")


FEATURE = """Feature: a server with a helper
  Scenario: the server starts a helper
    When the client calls "start_helper"
    Then the call succeeds
"""


@pytest.mark.parametrize("mode", ["fork", "plain"])
def test_after_a_run_no_process_it_started_is_left(tmp_path: Path, script: Path, mode: str) -> None:
    (tmp_path / "features" / "steps").mkdir(parents=True)
    (tmp_path / "features" / "steps" / "steps.py").write_text("from mcpbdd.steps import *  # noqa: F403\n")
    (tmp_path / "features" / "environment.py").write_text("from mcpbdd.behave import *  # noqa: F403\n")
    (tmp_path / "features" / "helper.feature").write_text(FEATURE)
    marker = uuid.uuid4().hex
    run = mcpbdd_run(
        *("--results", str(tmp_path / "results"), "--junit", str(tmp_path / "junit"), "--no-coverage"),
        *("-D", "mcpbdd.harness=client", "-D", f"mcpbdd.server=stdio: {{python}} {script}"),
        *("-D", f"mcpbdd.spawn={mode}", "-D", "mcpbdd.start_timeout=120", "features"),
        cwd=tmp_path,
        env={MARKER_ENV: marker},
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed" in run.stdout, run.stdout + run.stderr
    wait_until(lambda: processes_marked(marker) == [], 10, f"no process of the run left: {processes_marked(marker)}")


@pytest.mark.anyio
async def test_killing_the_fork_server_ends_its_servers_even_one_that_ignores_sigterm(script: Path) -> None:
    stdio = Stdio(f"{{python}} {script}", ProcessOptions(spawn="fork", extra_env={"IGNORE_SIGTERM": "1"}))
    async with ClientHarness(stdio, timeout=30, start_timeout=120) as harness:
        found = await helper_of(harness)
        os.kill(found["parent"], signal.SIGKILL)  # the fork server
        # Waited for with the loop running: the transport sees the fork server hang up.
        await waited(lambda: not alive(found["parent"]), "the fork server to die")
        await waited(lambda: not alive(found["pid"]), "the server that ignores SIGTERM to end with its fork server")
        await waited(lambda: not alive(found["helper"]), "the server's helper to end with it")


async def waited(condition: Callable[[], bool], what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"waited {timeout:g} s for {what}"
        await anyio.sleep(0.05)


def test_a_fork_whose_parent_died_before_it_asked_is_told_so() -> None:
    """`die_with_parent` says when the parent is already gone (no signal would come): the caller ends itself."""
    read, write = os.pipe()
    middle = os.fork()
    if middle == 0:  # pragma: no cover - in the forks
        parent = os.getpid()
        child = os.fork()
        if child == 0:
            os.close(read)
            while os.getppid() == parent:  # wait for the parent to die first
                pass
            os.write(write, b"yes" if not die_with_parent(signal.SIGKILL, parent) else b"no")
            os._exit(0)
        os._exit(0)
    os.close(write)
    os.waitpid(middle, 0)
    with os.fdopen(read, "rb") as said:
        assert said.read() == b"yes"
