"""Shared fixtures: the anyio backend, the harnesses under test, and the test-only servers; the fast tier's guard."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable, Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))  # makes `servers` (the test-only MCP servers) importable

import no_processes  # noqa: E402 (tests/ just made importable)

HARNESS_KINDS = ("context", "client-auto", "client-legacy")


def pytest_configure(config: pytest.Config) -> None:
    """Make this process a child subreaper: no process a test starts can leave its tree, so the process
    counts (`processes.py`) find forks whose parent has gone too. Guard the fast tier (`no_processes.py`)."""
    from processes import become_subreaper

    become_subreaper()
    no_processes.install()


PROJECT_RUN = "project_run"
"""The session fixture (tests/spawning/conftest.py) that runs the project's specifications once."""


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """How pytest-xdist (`-n 2 --dist loadgroup`, the Makefile's) shares the tests out, and first things first.

    A worker runs a whole module (its module-scoped fixtures, often a real run other tests read, set up once, not
    once per worker), and every reader of the session's project run, whatever its module, on the one worker that
    runs it. Those readers go first (the longest piece of work starts at once), and get its timeout. Runs before
    pytest-xdist's own hook (tryfirst), which reads the `xdist_group` marks."""
    from behave_passes import PROJECT_RUN_TIMEOUT

    for item in items:
        if PROJECT_RUN in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group(PROJECT_RUN))
            item.add_marker(pytest.mark.timeout(PROJECT_RUN_TIMEOUT))
        elif item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))
    items.sort(key=lambda item: PROJECT_RUN not in getattr(item, "fixturenames", ()))


# Every phase of every test goes through the fast tier's guard: outside tests/spawning/, no process may start.
@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    return (yield from no_processes.guarded_phase(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    return (yield from no_processes.guarded_phase(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, None, None]:
    return (yield from no_processes.guarded_phase(item))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def make_harness(kind: str, server: Any, **options: Any) -> Any:
    """A harness of the given kind (context, client-auto, client-legacy) for `server`."""
    from mcpbdd.harness import ClientHarness, ContextHarness

    if kind == "context":
        return ContextHarness(server, **options)
    return ClientHarness(server, mode=kind.split("-")[1], **options)


@pytest.fixture(params=HARNESS_KINDS)
async def notes_harness(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    """Each harness, entered on the bundled notes server."""
    from mcpbdd.examples.notes import mcp

    async with make_harness(request.param, mcp, timeout=5.0) as harness:
        yield harness


@pytest.fixture
def run_loop() -> Iterator[Any]:
    """The run's one event loop, as behave's hooks make it (`mcpbdd.scenario.runtime.RunLoop`), closed after."""
    from mcpbdd.scenario.runtime import RunLoop

    loop = RunLoop()
    yield loop
    loop.close()


@pytest.fixture
def make_world(run_loop: Any) -> Iterator[Callable[..., Any]]:
    """Builds Worlds from settings (`make_world(server=..., harness=...)`), each closed after the test.

    A test may close a World itself to assert on what closing reported (closing twice is harmless).
    """
    from mcpbdd.model.config import Settings
    from mcpbdd.scenario.world import World

    worlds: list[Any] = []

    def make(**settings: Any) -> Any:
        world = World(Settings(**settings), run_loop.owner())
        worlds.append(world)
        return world

    yield make
    for world in reversed(worlds):
        world.close()
