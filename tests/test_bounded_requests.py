"""Every request a step makes is bounded, and the harnesses agree on what went wrong.

A call has its timeout; so do the requests around it: `tools/list` (which the World sends after
a tool error), starting the server's lifespan and closing it. A tool that blocks the event loop
gets the same verdict on every harness, and so do arguments deeper than the SDK client carries.
Tests that would hang without the bound are stopped by a timeout of 60 s, so a regression fails instead.

The tests of this concern that start processes are in tests/spawning/test_bounded_requests.py.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import servers
from conftest import HARNESS_KINDS, make_harness

from mcpbdd.harness import RequestTimeout
from mcpbdd.model.config import Settings
from mcpbdd.model.errors import ServerCannotStart
from mcpbdd.model.kinds import HarnessKind
from mcpbdd.model.outcome import Channel
from mcpbdd.scenario.runtime import RunLoop
from mcpbdd.scenario.world import World

pytestmark = pytest.mark.timeout(60)
"""A test that would hang without the bound fails after 60 s instead (pytest-timeout; the suite's default is longer)."""


@pytest.fixture
def run_loop() -> Iterator[RunLoop]:
    loop = RunLoop()
    yield loop
    loop.close()


# tools/list ---------------------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("kind", HARNESS_KINDS)
async def test_a_listing_the_server_never_answers_fails_naming_tools_list(kind: str) -> None:
    async with make_harness(kind, servers.silent_listing, timeout=0.3) as harness:
        with pytest.raises(RequestTimeout, match=r"^tools/list got no answer within the call timeout of 0\.3 s$"):
            await harness.list_tools(None)


# starting and closing the server's lifespan ----------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("kind", HARNESS_KINDS)
async def test_a_lifespan_that_never_starts_fails_naming_the_start(kind: str) -> None:
    # The client harness says it as a server that cannot start (`ServerCannotStart`), naming the same request.
    started = r"starting the server \(its lifespan\) got no answer within .* 0\.3 s$"
    with pytest.raises((RequestTimeout, ServerCannotStart), match=started):
        async with make_harness(kind, servers.stuck_startup, start_timeout=0.3):
            pass


@pytest.mark.anyio
@pytest.mark.parametrize("kind", HARNESS_KINDS)
async def test_a_lifespan_whose_shutdown_hangs_fails_the_close_naming_it(kind: str) -> None:
    expected = r"^closing the server \(its lifespan's shutdown\) got no answer within the call timeout of 0\.3 s$"
    with pytest.raises(RequestTimeout, match=expected):
        async with make_harness(kind, servers.stuck_shutdown, timeout=0.3) as harness:
            assert (await harness.call_tool(None, "ping", {})).ok


@pytest.mark.parametrize("harness", ["context", "client"])
def test_closing_a_scenario_whose_lifespan_hangs_returns_the_error(run_loop: RunLoop, harness: str) -> None:
    world = World(
        Settings(server="servers:stuck_shutdown", harness=HarnessKind(harness), timeout=0.3), run_loop.owner()
    )
    assert world.call_tool("ping").ok
    [error] = world.close()
    assert isinstance(error, RequestTimeout) and error.request == "closing the server (its lifespan's shutdown)"


# a tool that blocks the event loop ---------------------------------------------------------------------

BLOCKED = "no answer within the call timeout of 0.2 s"


@pytest.mark.anyio
@pytest.mark.parametrize("kind", HARNESS_KINDS)
async def test_a_tool_blocking_the_loop_is_a_timed_out_call_on_every_in_process_harness(kind: str) -> None:
    async with make_harness(kind, servers.awkward, timeout=0.2) as harness:
        outcome = await harness.call_tool(None, "block", {"seconds": 1.0})
    assert outcome.channel is Channel.TRANSPORT_FAILURE
    assert (outcome.failure or "").startswith(BLOCKED)
    assert "blocking the event loop" in (outcome.failure or "") or "blocked the event loop" in (outcome.failure or "")


@pytest.mark.anyio
async def test_the_context_harness_says_the_tool_blocked_the_loop() -> None:
    async with make_harness("context", servers.awkward, timeout=0.2) as harness:
        outcome = await harness.call_tool(None, "block", {"seconds": 1.0})
    assert (outcome.failure or "").startswith(f"{BLOCKED}: the tool blocked the event loop for ")
    assert "so no timeout could interrupt it" in (outcome.failure or "")


@pytest.mark.anyio
@pytest.mark.parametrize("kind", HARNESS_KINDS)
async def test_a_quick_call_is_not_mistaken_for_a_blocked_loop(kind: str) -> None:
    async with make_harness(kind, servers.awkward, timeout=5.0) as harness:
        outcome = await harness.call_tool(None, "block", {"seconds": 0.01})
    assert outcome.ok, outcome.describe()
