"""Every request a step makes is bounded, and the harnesses agree on what went wrong.

A call has its timeout; so do the requests around it: `tools/list` (which the World sends after
a tool error), starting the server's lifespan and closing it. A tool that blocks the event loop
gets the same verdict on every harness, and so do arguments deeper than the SDK client carries.
Tests that would hang without the bound are stopped by a timeout of 60 s, so a regression fails instead.

These tests start processes; the in-process tests of this concern are in tests/test_bounded_requests.py.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import servers
from behave_passes import BehavePass
from conftest import HARNESS_KINDS, TESTS, make_harness
from expected_failures import assert_each_scenario_fails_with
from processes import processes_marked

from mcpbdd.harness import ClientHarness, RequestTimeout
from mcpbdd.harness.connectors import Stdio, python_command
from mcpbdd.harness.limits import CLIENT_ARGUMENT_DEPTH, STDIO_ARGUMENT_DEPTH, TRANSPORT_LIMIT, nesting_depth
from mcpbdd.harness.processes.process_options import ProcessOptions
from mcpbdd.model.config import Settings
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


def stdio(name: str, marker: str = "") -> Stdio:
    return Stdio(
        python_command("servers", name), ProcessOptions(cwd=str(TESTS), extra_env={"MCPBDD_TEST_MARKER": marker})
    )


def nested(levels: int) -> dict[str, Any]:
    """Arguments nesting `levels` deep (the arguments object is level 1)."""
    value: Any = 0
    for _ in range(levels - 1):
        value = [value]
    arguments = {"value": value}
    assert nesting_depth(arguments) == levels
    return arguments


@pytest.mark.anyio
async def test_over_stdio_a_listing_the_server_never_answers_fails_naming_tools_list() -> None:
    async with ClientHarness(stdio("silent_listing"), timeout=0.5) as harness:
        with pytest.raises(RequestTimeout, match=r"^tools/list got no answer within the call timeout of 0\.5 s$"):
            await harness.list_tools(None)
        assert (await harness.call_tool(None, "refuse", {})).channel is Channel.TOOL_ERROR  # still talking


@pytest.mark.parametrize(
    ("harness", "server"),
    [
        ("context", "servers:silent_listing"),
        ("client", "servers:silent_listing"),
        ("client", f"stdio: {python_command('servers', 'silent_listing')}"),
    ],
    ids=["context", "client", "stdio"],
)
def test_a_step_whose_tool_error_leads_to_a_silent_listing_fails_naming_it(
    run_loop: RunLoop, harness: str, server: str
) -> None:
    """The World lists the tools after a tool error (a misspelt name reads as one); that listing is bounded too."""
    world = World(Settings(server=server, harness=HarnessKind(harness), timeout=0.5, cwd=str(TESTS)), run_loop.owner())
    try:
        with pytest.raises(RequestTimeout) as raised:
            world.call_tool("refuse")
        assert str(raised.value) == (
            "tools/list got no answer within the call timeout of 0.5 s: asked after tools/call 'refuse' was "
            "answered (tool-error), to tell whether the server offers that tool"
        )
        assert world.last.channel is Channel.TOOL_ERROR  # the call's own answer is in the trace
    finally:
        assert world.close() == []


@pytest.mark.anyio
async def test_over_stdio_a_shutdown_that_hangs_is_ended_by_the_sdks_kill() -> None:
    """Not bounded by mcpbdd (cutting the SDK's shielded stop short could leave the process): it kills it itself."""
    marker = uuid.uuid4().hex
    async with ClientHarness(stdio("stuck_shutdown", marker), timeout=0.3) as harness:
        assert (await harness.call_tool(None, "ping", {})).ok
        assert processes_marked(marker)
    assert processes_marked(marker) == []


# a tool that blocks the event loop ---------------------------------------------------------------------

BLOCKED = "no answer within the call timeout of 0.2 s"


@pytest.mark.anyio
async def test_over_stdio_a_tool_blocking_its_loop_is_the_same_timed_out_call() -> None:
    async with ClientHarness(stdio("awkward"), timeout=0.2) as harness:
        assert (await harness.call_tool(None, "whoami", {})).ok  # started: the timeout is the call's alone
        outcome = await harness.call_tool(None, "block", {"seconds": 1.0})
    assert outcome.channel is Channel.TRANSPORT_FAILURE
    assert (outcome.failure or "").startswith(BLOCKED)


# arguments deeper than the SDK client carries ----------------------------------------------------------


def _too_deep_failure(levels: int) -> str:
    return (
        f"{TRANSPORT_LIMIT}: not sent, not the tool's failure: the arguments nest {levels} levels deep and the SDK's "
        f'client serialises at most {CLIENT_ARGUMENT_DEPTH} (mcp 2.3.0; deeper it raises "Maximum serialization '
        'depth exceeded"), so no client can send them'
    )


@pytest.mark.anyio
@pytest.mark.parametrize("kind", [*HARNESS_KINDS, "stdio"])
async def test_arguments_deeper_than_the_client_carries_fail_alike_on_every_harness(kind: str) -> None:
    arguments = nested(CLIENT_ARGUMENT_DEPTH + 10)
    harness = ClientHarness(stdio("awkward"), timeout=5.0) if kind == "stdio" else make_harness(kind, servers.awkward)
    async with harness:
        outcome = await harness.call_tool(None, "depth", arguments)
        at_the_limit = await harness.call_tool(None, "depth", nested(STDIO_ARGUMENT_DEPTH - 1))
    assert outcome.channel is Channel.TRANSPORT_FAILURE
    assert outcome.failure == _too_deep_failure(nesting_depth(arguments))
    assert at_the_limit.ok, at_the_limit.describe()  # every harness carries what stdio parses


@pytest.mark.anyio
@pytest.mark.parametrize("levels", [STDIO_ARGUMENT_DEPTH, STDIO_ARGUMENT_DEPTH + 10])
async def test_over_stdio_arguments_the_server_cannot_parse_are_refused_not_left_to_time_out(levels: int) -> None:
    """The SDK's own parser decides (a scalar innermost counts as a level): 199 levels ending in 0 are one too many."""
    async with ClientHarness(stdio("awkward"), timeout=30.0) as harness:
        outcome = await harness.call_tool(None, "depth", nested(levels))
        alive = await harness.call_tool(None, "depth", {"value": []})
    assert outcome.channel is Channel.TRANSPORT_FAILURE
    assert (outcome.failure or "").startswith(f"{TRANSPORT_LIMIT}: not sent over stdio, not the tool's failure")
    assert f"at most {STDIO_ARGUMENT_DEPTH} levels on mcp 2.3.0" in (outcome.failure or "")
    assert alive.ok  # nothing was sent that could have wedged the server


# the same through behave ------------------------------------------------------------------------------

UNANSWERED = "tests/behave_cases/features/unanswered_requests.feature"
LISTING_AFTER_REFUSAL = (
    "tools/list got no answer within the call timeout of 0.3 s: asked after tools/call 'refuse' was answered "
    "(tool-error), to tell whether the server offers that tool"
)


@pytest.mark.parametrize("behave_pass", ["context", "client"], indirect=True)
def test_each_unanswered_request_fails_its_step_naming_it(tmp_path: Path, behave_pass: BehavePass) -> None:
    expected = {
        "a tool error, then a listing the server never answers": [LISTING_AFTER_REFUSAL],
        "the tools of a server that never lists them": ["tools/list got no answer within the call timeout of 0.3 s"],
        "a tool that blocks the event loop": [
            "Expected the call to succeed, but tools/call 'block'",
            "got no answer: no answer within the call timeout of 0.3 s: ",
            "event loop",
        ],
    }
    if behave_pass.name == "client":
        expected["a server over stdio that never lists its tools"] = [LISTING_AFTER_REFUSAL]
    other = "client" if behave_pass.name == "context" else "context"
    options = [*behave_pass.options, "-D", "mcpbdd.timeout=0.3", "--tags", f"not @harness.{other}"]
    assert_each_scenario_fails_with(UNANSWERED, expected, options, tmp_path / "report.json")
