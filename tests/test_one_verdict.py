"""One verdict wherever a scenario runs, in-process: what a scenario registers on the server is put back, and a
server's error on a request other than the call is a failed step naming the request.

The same scenarios on every target (context, client in both eras, stdio, HTTP) are
tests/spawning/test_one_verdict.py; these are the pieces, through the Python API.
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import HARNESS_KINDS, make_harness
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.prompts import Prompt
from mcp.shared.exceptions import MCPError
from mcp_types import EmptyResult, SetLevelRequestParams

from mcpbdd._sdk import lowlevel_server
from mcpbdd.checks.completions import complete_prompt_argument
from mcpbdd.harness.base import ServerError, bounded
from mcpbdd.harness.registrations import Registrations
from mcpbdd.kit.principals import Principal

ALICE = Principal("alice", "acme")


def _server() -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer("changing")

    def grown() -> str:
        return "grown"

    @server.tool()
    def grow() -> str:
        server.add_tool(grown)
        return "ok"

    @server.tool()
    def shrink() -> str:
        server.remove_tool("shrink")
        return "ok"

    @server.tool()
    def retitle() -> str:
        server._tool_manager.get_tool("retitle").description = "changed at runtime"  # type: ignore[union-attr]
        return "ok"

    @server.prompt()
    def greet(name: str) -> str:
        return f"Hello {name}"

    @server.completion()  # type: ignore[no-untyped-call, untyped-decorator]  # the SDK leaves it unannotated
    async def complete(ref: Any, argument: Any, context: Any) -> Any:
        raise RuntimeError("the index is gone")

    return server


def test_registrations_put_back_what_changed_and_say_what_it_was() -> None:
    server = _server()
    taken = Registrations.take(server)
    server.add_tool(lambda: "x", name="added")
    server.remove_tool("grow")
    server.add_prompt(Prompt.from_function(lambda: "hi", name="hello"))
    server.remove_prompt("greet")
    lowlevel_server(server).add_request_handler("logging/setLevel", SetLevelRequestParams, _set_level)
    server.settings.debug = True
    changed = taken.restore()
    assert "its tools: _tools added 'added'; removed 'grow'" in changed
    assert "its prompts: _prompts added 'hello'; removed 'greet'" in changed
    assert "its low-level server: _request_handlers added 'logging/setLevel'" in changed
    assert "its settings: debug was replaced" in changed
    assert [tool.name for tool in server._tool_manager.list_tools()] == ["grow", "shrink", "retitle"]
    assert [prompt.name for prompt in server._prompt_manager.list_prompts()] == ["greet"]
    assert lowlevel_server(server).get_request_handler("logging/setLevel") is None
    assert server.settings.debug is False
    assert taken.restore() == []  # nothing changed since


async def _set_level(ctx: Any, params: SetLevelRequestParams) -> EmptyResult:
    raise MCPError(-32603, "the log level is stuck")


def test_nothing_changed_is_nothing_restored() -> None:
    assert Registrations.take(_server()).restore() == []


@pytest.mark.anyio
@pytest.mark.parametrize("kind", HARNESS_KINDS)
async def test_what_a_handler_registers_at_runtime_is_gone_when_the_harness_closes(kind: str) -> None:
    server = _server()
    async with make_harness(kind, server) as harness:
        for tool in ("grow", "shrink", "retitle"):
            assert (await harness.call_tool(ALICE, tool)).ok
        assert sorted(tool.name for tool in await harness.list_tools(ALICE)) == ["grow", "grown", "retitle"]
    restored = harness.restored if kind == "context" else harness.connector.restored
    assert restored == [
        "its tools: _tools added 'grown'; removed 'shrink'",
        "the tool 'retitle': description was replaced",
    ]
    async with make_harness(kind, server) as harness:
        offered = {tool.name: tool.description for tool in await harness.list_tools(ALICE)}
    assert sorted(offered) == ["grow", "retitle", "shrink"] and offered["retitle"] != "changed at runtime"


@pytest.mark.anyio
@pytest.mark.parametrize("kind", HARNESS_KINDS)
async def test_a_server_error_on_completion_is_an_assertion_naming_the_request(kind: str) -> None:
    async with make_harness(kind, _server()) as harness:
        with pytest.raises(ServerError) as failed:
            await complete_prompt_argument(harness, ALICE, "greet", "name", "a")
    assert isinstance(failed.value, AssertionError) and isinstance(failed.value, MCPError)
    assert str(failed.value) == (
        "The server answered completion/complete with the protocol error -32603: Error completing argument name"
    )


@pytest.mark.anyio
async def test_a_server_error_on_the_legacy_log_level_is_an_assertion_naming_logging_set_level() -> None:
    server = _server()
    lowlevel_server(server).add_request_handler("logging/setLevel", SetLevelRequestParams, _set_level)
    async with make_harness("client-legacy", server) as harness:
        harness.log_level = "debug"
        with pytest.raises(ServerError, match="answered logging/setLevel with the protocol error -32603: the log"):
            await harness.call_tool(ALICE, "grow")


@pytest.mark.anyio
async def test_bounded_keeps_the_servers_code_message_and_data() -> None:
    async def refused() -> None:
        raise MCPError(-32602, "no such cursor", {"cursor": "x"})

    with pytest.raises(ServerError) as failed:
        await bounded("tools/list", 1.0, refused())
    error = failed.value
    assert (error.code, error.message, error.data, error.request) == (
        -32602,
        "no such cursor",
        {"cursor": "x"},
        "tools/list",
    )
    assert (
        str(error)
        == "The server answered tools/list with the protocol error -32602: no such cursor (data: {'cursor': 'x'})"
    )


@pytest.mark.parametrize("harness", ["context", "client"])
def test_the_next_scenario_in_process_does_not_see_what_the_last_registered(make_world: Any, harness: str) -> None:
    first = make_world(server="verdict_server:mcp", harness=harness)
    first.add_user("alice", "acme")
    assert first.call_tool("grow").ok and "grown" in first.tool_names()
    assert first.close() == []
    second = make_world(server="verdict_server:mcp", harness=harness)
    second.add_user("alice", "acme")
    assert "grown" not in second.tool_names()
    assert not second.call_tool("grown").ok


def test_a_factory_target_gives_each_scenario_a_server_of_its_own(make_world: Any) -> None:
    servers = []
    for _ in range(2):
        world = make_world(server="verdict_server:fresh_server", harness="context")
        servers.append(world.harness.server)
        assert world.close() == []
    assert servers[0] is not servers[1]
