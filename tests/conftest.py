"""Shared fixtures: the anyio backend, the harnesses under test, and the test-only servers."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))  # makes `servers` (the test-only MCP servers) importable

HARNESS_KINDS = ("context", "client-auto", "client-legacy")


def pytest_configure(config: pytest.Config) -> None:
    """Make this process a child subreaper: no process a test starts can leave its tree, so the process
    counts (`processes.py`) find forks whose parent has gone too."""
    from processes import become_subreaper

    become_subreaper()


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
