"""Each private SDK or anyio attribute mcpbdd relies on (`mcpbdd._sdk`) still does its job on the installed versions.

An SDK upgrade that renames one fails here, naming the seam, rather than deep inside a scenario. (The
tests check behaviour, not version numbers: a newer SDK that keeps the attributes passes; after
checking one, update `mcpbdd._sdk.SDK_CHECKED`.)
"""

from __future__ import annotations

import ast
import asyncio
import importlib
import json
import re
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio.to_thread
import pytest
from mcp.server import Server
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

from mcpbdd import _hypothesis, _sdk
from mcpbdd._sdk import SdkSeamError, lowlevel_server, registered_tools, set_anyio_root_task, subscription_bus
from mcpbdd.checks.generated.inputs import generate_inputs
from mcpbdd.harness import MockContext

PACKAGE = Path(_sdk.__file__).parent


def _server() -> MCPServer[Any]:
    server = MCPServer("seam")

    @server.tool()
    def echo(text: str) -> str:
        """Says it back."""
        return text

    return server


def test_lowlevel_server_has_the_handlers_and_the_lifespan() -> None:
    lowlevel = lowlevel_server(_server())
    assert isinstance(lowlevel, Server)
    assert lowlevel.get_request_handler("tools/call") is not None
    assert callable(lowlevel.lifespan)


async def _enter_lifespan(lowlevel: Server[Any]) -> Any:
    async with lowlevel.lifespan(lowlevel) as state:
        return state


def test_lowlevel_server_lifespan_can_be_entered() -> None:
    lowlevel = lowlevel_server(_server())
    asyncio.run(_enter_lifespan(lowlevel))


def test_subscription_bus_is_the_servers_bus_and_builds_contexts() -> None:
    server = _server()
    bus = subscription_bus(server)
    assert bus is subscription_bus(server)  # the server's own, not a fresh one per call
    assert callable(bus.publish) and callable(bus.subscribe)  # what `SubscriptionBus` promises
    context = MockContext(server).for_tool("echo", {"text": "hi"})
    assert isinstance(context, Context)


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_spy_on_notifications_sees_every_frame_in_order_and_the_sdk_still_gets_them(mode: str) -> None:
    from mcp import Client

    server = _server()

    @server.tool()
    async def change(ctx: Context) -> str:
        """Announces that the tools list changed, the era's way."""
        if mode == "auto":
            await ctx.notify_tools_changed()
        else:
            await ctx.request_context.session.send_tool_list_changed()
        return "changed"

    heard: list[tuple[str, Any]] = []
    async with Client(server, mode=mode) as client:
        _sdk.spy_on_notifications(client.session, lambda method, params: heard.append((method, params)))
        if mode == "auto":
            async with client.listen(tools_list_changed=True) as subscription:
                await client.call_tool("change", {})
                event = await subscription.__anext__()  # the SDK's own demux still delivers it
                assert type(event).__name__ == "ToolsListChanged"
        else:
            await client.call_tool("change", {})
            await asyncio.sleep(0.05)
    methods = [method for method, _ in heard]
    expected = ["notifications/tools/list_changed"]
    if mode == "auto":  # the acknowledgement, which the SDK consumes, is seen first
        expected = ["notifications/subscriptions/acknowledged", *expected]
    assert [m for m in methods if m in expected] == expected


def test_spy_on_notifications_names_a_missing_attribute() -> None:
    class Bare:
        pass

    with pytest.raises(SdkSeamError, match="Bare has no _dispatcher any more"):
        _sdk.spy_on_notifications(Bare(), lambda method, params: None)


def test_registered_tools_gives_names_and_functions() -> None:
    tools = registered_tools(_server())
    assert [tool.name for tool in tools] == ["echo"]
    assert tools[0].fn("hi") == "hi"


def test_registered_tools_of_something_else_is_empty() -> None:
    assert registered_tools(None) == []
    assert registered_tools(object()) == []


def test_a_missing_private_attribute_is_named() -> None:
    class NotQuiteAServer:
        pass

    with pytest.raises(SdkSeamError, match=r"NotQuiteAServer has no _lowlevel_server any more .*mcp 2\.3"):
        lowlevel_server(NotQuiteAServer())  # type: ignore[arg-type]


def test_a_missing_hypothesis_attribute_names_hypothesis_and_its_checked_version(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A hypothesis upgrade that breaks a seam must point at hypothesis, not at the MCP SDK."""
    from hypothesis.internal.conjecture import providers

    monkeypatch.delattr(providers, "_get_local_constants")
    checked = _sdk.SDK_CHECKED["hypothesis"]
    with pytest.raises(SdkSeamError) as raised, _hypothesis.hypothesis_without_local_constants():
        pass
    said = str(raised.value)
    assert f"checked on hypothesis {checked}): install hypothesis {checked}" in said, said
    assert "providers has no _get_local_constants" in said and not re.search(r"\bmcp\b", said), said


def test_every_seam_is_in_all() -> None:
    """`_sdk.__all__` names every public function of the seam module (`resolver_asking` was missing)."""
    public = {
        name
        for name, value in vars(_sdk).items()
        if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == _sdk.__name__
    }
    assert public <= set(_sdk.__all__), public - set(_sdk.__all__)


async def _forever() -> None:
    await asyncio.Event().wait()


async def _worker_thread() -> threading.Thread:
    return await anyio.to_thread.run_sync(threading.current_thread)


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    yield loop
    for task in asyncio.all_tasks(loop):
        task.cancel()
    loop.run_until_complete(asyncio.sleep(0))
    loop.close()


def _two_runs(loop: asyncio.AbstractEventLoop) -> tuple[threading.Thread, threading.Thread]:
    """The anyio worker thread of two separate `run_until_complete` calls, as two behave steps make them."""
    return loop.run_until_complete(_worker_thread()), loop.run_until_complete(_worker_thread())


def test_pinning_anyio_root_task_keeps_one_worker_thread_across_runs(loop: asyncio.AbstractEventLoop) -> None:
    keeper = loop.create_task(_forever())
    assert loop.run_until_complete(set_anyio_root_task(keeper)) is True
    first, second = _two_runs(loop)
    assert first is second


def test_without_the_pin_each_run_starts_a_thread(loop: asyncio.AbstractEventLoop) -> None:
    """The seam's reason to exist: if this fails, anyio keeps its threads by itself and the seam can go."""
    first, second = _two_runs(loop)
    assert first is not second


SDK_PACKAGES = ("mcp", "mcp_types", "anyio")

NOT_THE_SDK = {
    **{
        ("examples/notes_app.py", name): "the example server's own helpers, which its app module shares"
        for name in ("_find", "_caller", "_state", "_notebook")
    },
    ("runner/plan.py", "_actions"): "argparse's list of a parser's options (behave's parser)",
    ("storage/service.py", "_entries"): "another StorageService's own state",
    ("storage/service.py", "_expiry"): "another StorageService's own state",
    ("storage/service.py", "_read_cursor"): "another StorageService's own state",
    ("storage/service.py", "_issue_cursor"): "another StorageService's own state",
    ("harness/processes/fork_child.py", "_run_exitfuncs"): "the interpreter's atexit step (a fork exits by os._exit)",
}
"""Private reads outside the seam that are not the SDK's or anyio's, each with its reason."""


def _private_reads(path: Path, root: Path = PACKAGE) -> list[tuple[str, str]]:
    """`x._name` in a module (not on self, cls, os or a CLI worker); private names or modules imported from the SDK."""
    where = path.relative_to(root).as_posix()
    found: list[tuple[str, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            owner = node.value
            if not (isinstance(owner, ast.Name) and owner.id in ("self", "cls", "os", "worker")):
                found.append((where, node.attr))
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in SDK_PACKAGES:
            names = [*node.module.split("."), *(alias.name for alias in node.names)]
            if any(name.startswith("_") for name in names):
                found.append((where, f"from {node.module}"))
    return found


def test_no_module_but_the_seam_reaches_into_the_sdk() -> None:
    reads = [
        read
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name not in ("_sdk.py", "_hypothesis.py")
        for read in _private_reads(path)
    ]
    assert [read for read in reads if read not in NOT_THE_SDK] == []


def test_the_reach_check_finds_a_private_read(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("from anyio._backends._asyncio import _root_task\ntools = server._tool_manager\n")
    assert _private_reads(probe, tmp_path) == [
        ("probe.py", "from anyio._backends._asyncio"),
        ("probe.py", "_tool_manager"),
    ]


class Note(BaseModel):
    id: str
    words: int


def _schema_server() -> MCPServer[Any]:
    server = MCPServer("schemas")

    @server.tool()
    def note(words: int) -> Note:
        """A note with a word count (an output schema)."""
        return Note(id="n-1", words=words)

    return server


@pytest.mark.anyio
async def test_sessions_share_compiled_output_validators_and_still_judge_every_result() -> None:
    from mcp import Client

    server = _schema_server()
    validators = []
    for _ in range(2):  # two sessions, as two scenarios have
        async with Client(server) as client:
            _sdk.share_output_validators(client.session)
            ok = await client.call_tool("note", {"words": 3})
            assert ok.structured_content == {"id": "n-1", "words": 3}
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            schema = tools["note"].output_schema
            assert schema is not None
            validators.append(client.session._output_schema_validator("note", schema))
    assert validators[0] is validators[1]  # compiled once, for both sessions
    assert list(validators[0].iter_errors({"id": 7}))  # and it still judges: a wrong result has errors
    assert not list(validators[0].iter_errors({"id": "n-2", "words": 1}))


class Titled(BaseModel):
    title: str


@pytest.mark.anyio
async def test_a_tool_whose_schema_a_new_listing_replaced_is_judged_by_the_new_schema() -> None:
    """A validator found by the schema's identity is never the replaced schema's, though the tool keeps its name."""
    from mcp import Client

    server = _schema_server()
    async with Client(server, cache=None) as client:
        _sdk.share_output_validators(client.session)
        for words in (1, 2):  # the second result is judged by the validator found by identity
            answer = await client.call_tool("note", {"words": words})
            assert answer.structured_content == {"id": "n-1", "words": words}
        server.remove_tool("note")

        @server.tool(name="note")
        def titled() -> Titled:
            """The same tool, now with another output schema."""
            return Titled(title="t")

        await client.list_tools()  # the session takes the new schema
        assert (await client.call_tool("note", {})).structured_content == {"title": "t"}  # the old one would refuse
        server.remove_tool("note")

        @server.tool(name="note")
        def untitled() -> Note:
            """Back to the first schema, but breaking it: judged, and refused."""
            return Note.model_construct(id="n-1")

        await client.list_tools()
        with pytest.raises(RuntimeError, match="Invalid structured content"):
            await client.call_tool("note", {})


@pytest.mark.anyio
async def test_a_schema_that_does_not_compile_fails_every_time_and_is_never_shared() -> None:
    from mcp import Client

    async with Client(_schema_server()) as client:
        _sdk.share_output_validators(client.session)
        broken = {"type": "object", "properties": {"id": {"type": 12}}}
        for _ in range(2):
            with pytest.raises(RuntimeError, match="Invalid schema for tool x"):
                client.session._output_schema_validator("x", broken)
    assert json.dumps(broken, sort_keys=True) not in _sdk._SHARED_VALIDATORS


def test_sharing_validators_on_something_else_names_the_missing_method() -> None:
    with pytest.raises(SdkSeamError, match="_output_schema_validator"):
        _sdk.share_output_validators(object())


def test_a_seed_draws_the_same_inputs_whatever_modules_are_loaded(tmp_path: Path) -> None:
    """hypothesis mixes the literals of loaded "local" modules into its draws; generated calls must not, or a
    feature run alone and the same feature in a whole suite would send different calls from one seed."""
    schema = {"type": "object", "properties": {"text": {"type": "string"}, "n": {"type": "integer"}}}
    before = generate_inputs(schema, 200, seed=7, generator="builtin")[0]
    probe = tmp_path / "constants_probe.py"
    probe.write_text("".join(f"WORD_{i} = 'probe-constant-{i}'\nNUMBER_{i} = {7_000_000 + i}\n" for i in range(300)))
    sys.path.insert(0, str(tmp_path))
    try:
        importlib.import_module("constants_probe")
        after = generate_inputs(schema, 200, seed=7, generator="builtin")[0]
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("constants_probe", None)
    assert after == before
    assert not any("probe-constant" in json.dumps(value) for value in after)


def test_the_stdio_process_helpers_a_plain_start_uses_are_there() -> None:
    """`plain_client` starts, drains and stops a plain start with the SDK's own helpers (`_sdk.start_stdio_process`)."""
    for name in ("_get_executable_command", "_create_platform_compatible_process", "_drain_stdout"):
        assert callable(_sdk._stdio(name))
    assert callable(_sdk._stdio("_stop_server_process"))
    with pytest.raises(SdkSeamError, match="_no_such_helper"):
        _sdk._stdio("_no_such_helper")


@pytest.mark.anyio
async def test_request_ids_in_flight_names_a_wire_sessions_waiting_requests_and_none_in_process() -> None:
    """The client harness reads a running request's id here to cancel it (`notifications/cancelled`)."""
    from mcp import Client

    server = _server()
    async with Client(server, mode="legacy") as wire, Client(server) as direct:
        assert _sdk.request_ids_in_flight(wire.session) == frozenset()
        waiting = asyncio.ensure_future(wire.session.send_ping())
        await asyncio.sleep(0)
        during = _sdk.request_ids_in_flight(wire.session)
        await waiting
        assert during is not None and len(during) == 1  # the ping's id, while it waited
        assert _sdk.request_ids_in_flight(direct.session) is None  # the in-process 2026-07-28 path has no wire ids


def test_request_ids_in_flight_on_something_else_names_the_missing_attribute() -> None:
    with pytest.raises(SdkSeamError, match="object has no _dispatcher any more"):
        _sdk.request_ids_in_flight(object())


def test_registration_holders_name_where_the_server_keeps_what_it_registered() -> None:
    server = _server()
    holders = _sdk.registration_holders(server)
    assert holders["the server"] is server and holders["its low-level server"] is lowlevel_server(server)
    assert "echo" in vars(holders["its tools"])["_tools"]
    assert {"its resources", "its prompts", "its settings", "the tool 'echo'"} <= set(holders)
    assert "tools/call" in vars(holders["its low-level server"])["_request_handlers"]


def test_registration_holders_of_something_else_names_the_missing_manager() -> None:
    class NotQuiteAServer:
        settings = None

    with pytest.raises(SdkSeamError, match="NotQuiteAServer has no _tool_manager any more"):
        _sdk.registration_holders(NotQuiteAServer())  # type: ignore[arg-type]
