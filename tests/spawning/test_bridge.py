"""The loopback HTTP bridge in front of a stdio server (`mcpbdd.record.bridge`): what a URL-only client sees.

A real `mcp.Client` over Streamable HTTP, on both eras, through the bridge `mcpbdd conformance --official`
starts (`bridge_command`, run as an `http:` command): the server's answers and errors arrive as the server
wrote them, a server that dies is reported with its exit code and stderr (never an answer made up by the
bridge), the eras do not leak into each other, and no process is left when it stops. No npm needed.
"""

from __future__ import annotations

import uuid

import httpx
import pytest
from conftest import TESTS
from processes import processes_marked

from mcpbdd.harness import ClientHarness
from mcpbdd.harness.processes.http_process import HttpProcess
from mcpbdd.harness.processes.process_options import ProcessOptions
from mcpbdd.harness.targets import ServerTarget
from mcpbdd.model.outcome import Channel
from mcpbdd.runner.official import bridge_command

pytestmark = pytest.mark.usefixtures("own_fork_servers")  # a marked process left behind is a bridge's leak

NOTES = ServerTarget.parse("stdio: {python} -m mcpbdd.examples.notes")


def bridged(target: ServerTarget, marker: str) -> HttpProcess:
    options = ProcessOptions(cwd=str(TESTS), extra_env={"MCPBDD_TEST_MARKER": marker}, spawn="plain")
    return HttpProcess(bridge_command(target), options)


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_stdio_server_answers_through_the_bridge_as_it_wrote(mode: str) -> None:
    marker = uuid.uuid4().hex
    async with ClientHarness(bridged(NOTES, marker), mode=mode, timeout=20) as harness:
        tools = await harness.list_tools(None)
        assert "create_note" in {tool.name for tool in tools}
        missing = await harness.read_resource(None, "notes://nothing-here")
        assert processes_marked(marker)  # the bridge and, in its process group, the stdio server
    assert missing.channel is Channel.PROTOCOL_ERROR
    assert missing.error is not None and missing.error.code == -32602  # the server's own answer, passed through
    assert missing.error.data == {"uri": "notes://nothing-here"}
    assert processes_marked(marker) == []


@pytest.mark.anyio
async def test_a_module_target_runs_as_a_stdio_process_behind_the_bridge() -> None:
    marker = uuid.uuid4().hex
    async with ClientHarness(bridged(ServerTarget.parse("servers:awkward"), marker), timeout=20) as harness:
        tools = await harness.list_tools(None)
    assert "die" in {tool.name for tool in tools}
    assert processes_marked(marker) == []


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_server_that_dies_fails_the_call_never_answers_it(mode: str) -> None:
    marker = uuid.uuid4().hex
    process = bridged(ServerTarget.parse("stdio: {python} -m servers"), marker)
    async with ClientHarness(process, mode=mode) as harness:
        alive = await harness.call_tool(None, "whoami", {})
        dead = await harness.call_tool(None, "die", {})
        said = process.stderr()
    assert alive.ok, alive.failure
    # The SDK's HTTP client turns the 502 into its own -32603 "Server returned an error response": never a result.
    assert dead.channel in (Channel.PROTOCOL_ERROR, Channel.TRANSPORT_FAILURE), dead
    # So the bridge says why on its stderr, which the harness reports with a failed start (`HttpProcess.diagnose`).
    assert "mcpbdd bridge: answered 502: the stdio server exited with code 3" in said, said
    assert processes_marked(marker) == []


@pytest.mark.anyio
async def test_the_502_body_says_how_the_server_ended() -> None:
    """What a client without the SDK sees (the official suite): the exit code and the end of the stderr."""
    from contextlib import AsyncExitStack

    marker = uuid.uuid4().hex
    process = bridged(ServerTarget.parse("stdio: {python} -m servers"), marker)
    envelope = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "die", "_meta": envelope}}
    async with AsyncExitStack() as stack:
        await process.start(stack)
        async with httpx.AsyncClient(timeout=20) as client:
            answer = await client.post(process.url, json=call, headers={"accept": "application/json"})
            again = await client.post(process.url, json={**call, "params": {"name": "whoami", "_meta": envelope}})
    assert answer.status_code == 502
    assert "the stdio server exited with code 3" in answer.text
    assert "fatal: the index is corrupt, giving up" in answer.text
    assert again.status_code == 200 and again.json()["id"] == 7  # a new process; the client's own id comes back
    assert processes_marked(marker) == []


@pytest.mark.anyio
async def test_one_off_probes_are_each_answered_by_a_fresh_fork_and_none_is_left() -> None:
    """What the official suite's statelessness probes are: sessionless requests without the 2026-07-28 envelope,
    each served by a process of its own (a fork of the bridge's warm parent, one started ahead); all answered,
    and nothing outlives the bridge (its warm parent and the spare included)."""
    from contextlib import AsyncExitStack

    marker = uuid.uuid4().hex
    process = bridged(NOTES, marker)
    async with AsyncExitStack() as stack:
        await process.start(stack)
        async with httpx.AsyncClient(timeout=30) as client:
            for number in range(3):
                ping = {"jsonrpc": "2.0", "id": number, "method": "ping"}
                answer = await client.post(process.url, json=ping, headers={"accept": "application/json"})
                assert answer.status_code == 200 and answer.json()["id"] == number, answer.text
    assert processes_marked(marker) == []
