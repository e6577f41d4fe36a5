"""Every use of a private attribute of the MCP SDK, anyio or hypothesis, in one place (with the kit's two,
`lowlevel_server` and `connection_of`, which live in the kit's distribution, `mcpbdd_kit._sdk`, and are
re-exported here with the one `SdkSeamError`).

mcpbdd builds on the SDK's public API wherever one exists; these few things have none.
Each function below names the private attribute it reads, the versions it was checked
on, and what breaks if a release renames or removes it. `tests/test_sdk_seam.py` runs
each of them against the installed versions, so an upgrade that breaks one fails there,
by name, before it fails somewhere obscure in a scenario.

Checked on: mcp 2.3.0 (mcp-types 2.3.0), anyio 4.16.0 and hypothesis 6.170.9.

Importing this module imports neither the SDK nor anyio (the run loop uses it before
anything imports the SDK); each function imports what it needs when called.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from mcpbdd_kit._sdk import SDK_CHECKED, SdkSeamError, connection_of, lowlevel_server, private_attribute

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.tools import Tool as RegisteredTool
    from mcp.server.subscriptions import SubscriptionBus

__all__ = [
    "SDK_CHECKED",
    "SdkSeamError",
    "connection_of",
    "lowlevel_server",
    "registered_tools",
    "registration_holders",
    "request_ids_in_flight",
    "resolver_asking",
    "set_anyio_root_task",
    "drain_stdio_stdout",
    "share_output_validators",
    "spy_on_notifications",
    "start_stdio_process",
    "stop_stdio_process",
    "subscription_bus",
]

# The kit's seams and the one error every seam raises live in the kit's distribution (a production server has
# them without mcpbdd); `_private` is the same helper under the name this module's callers know.
_private = private_attribute


def _stdio(name: str) -> Any:
    from mcp.client import stdio

    return _private(stdio, name, "to start and stop a plain stdio server as stdio_client does", "mcp")


async def start_stdio_process(command: str, args: list[str], env: dict[str, str], errlog: Any, cwd: Any) -> Any:
    """A plain stdio server started as the SDK's `stdio_client` starts it (its own session, stderr to `errlog`).

    `mcp.client.stdio._get_executable_command` and `_create_platform_compatible_process` (mcp 2.3.0), with
    `drain_stdio_stdout` and `stop_stdio_process` below: mcpbdd reads a plain start's stdout itself, in linear
    time (`mcpbdd.harness.processes.plain_client`: the SDK's reader re-joins its buffer at every chunk, so a
    50 MB line took longer than a call timeout), and starts, drains and stops the process exactly as the SDK
    does. If one is renamed, plain stdio starts fail at once, naming it.
    """
    executable = await _stdio("_get_executable_command")(command)
    return await _stdio("_create_platform_compatible_process")(
        command=executable, args=args, env=env, errlog=errlog, cwd=cwd
    )


async def drain_stdio_stdout(process: Any) -> None:
    """`mcp.client.stdio._drain_stdout`: read and drop what is left (a server flushing at exit is not blocked)."""
    await _stdio("_drain_stdout")(process)


async def stop_stdio_process(process: Any) -> None:
    """`mcp.client.stdio._stop_server_process`: close stdin, wait, stop the process group (the SDK's shutdown)."""
    await _stdio("_stop_server_process")(process)


_SHARED_VALIDATORS: dict[str, Any] = {}
"""Compiled output-schema validators by schema (canonical JSON), for every session of the run."""

_SHARED_VALIDATORS_MAX = 4096
"""A run sees a handful of schemas; past this many (a generated surface), start afresh rather than grow."""


def share_output_validators(session: Any) -> None:
    """Let a client session reuse the output-schema validators earlier sessions compiled for the same schema.

    `ClientSession._output_schema_validator` (mcp 2.3.0) compiles a tool's validator once per session, and
    compiling (`check_schema` against the metaschema) is ~60x the cost of validating: with a fresh session
    per scenario it was a third of a client-harness scenario's time (`BENCHMARKS.md`, the whole reporting
    run). A validator depends only on the schema, so this wraps the method on this one session instance:
    a schema compiled before returns the same validator, a new one is compiled by the SDK's own code (and
    a schema that fails to compile raises there every time, as before: failures are never cached). The
    session still judges every result itself, with the SDK's messages. If the SDK renames the method,
    `SdkSeamError` says so and nothing is wrapped.

    Every result of a tool with an output schema asks for its validator, so the common ask is answered
    without serialising the schema: the session hands the same schema object for a tool until a new listing
    replaces it (`ClientSession._absorb_tool_listing` stores the listed object), and the object is held here so
    its identity cannot be reused. A replaced schema (another object) is looked up by its content again.
    """
    compile_for_session = _private(session, "_output_schema_validator", "to share compiled output-schema checks", "mcp")
    last: dict[str, tuple[dict[str, Any], Any]] = {}
    """By tool name: the schema object last asked about and its validator (this session's, so never stale)."""

    def shared(name: str, output_schema: dict[str, Any]) -> Any:
        known = last.get(name)
        if known is not None and known[0] is output_schema:
            return known[1]
        key = json.dumps(output_schema, sort_keys=True, default=repr)
        validator = _SHARED_VALIDATORS.get(key)
        if validator is None:
            validator = compile_for_session(name, output_schema)
            if len(_SHARED_VALIDATORS) >= _SHARED_VALIDATORS_MAX:
                _SHARED_VALIDATORS.clear()
            _SHARED_VALIDATORS[key] = validator
        last[name] = (output_schema, validator)
        return validator

    session._output_schema_validator = shared


def subscription_bus(server: MCPServer[Any]) -> SubscriptionBus:
    """The server's own subscription bus, which the SDK hands every `Context` it builds.

    `MCPServer._subscriptions` (mcp 2.3.0; `MCPServer._handle_call_tool` passes it to
    `Context(subscriptions=...)`). Used by `MockContext` so a tool that publishes a
    change notification publishes it on the server's bus, as in production. If it
    changes, every Context the context harness builds fails to be made.
    """
    bus: SubscriptionBus = _private(server, "_subscriptions", "to build Contexts as the server does", "mcp")
    return bus


def spy_on_notifications(session: Any, hear: Callable[[str, Mapping[str, Any] | None], None]) -> None:
    """Tell `hear` of every notification a client session receives, in receive order, before the SDK sorts it.

    `ClientSession._dispatcher._on_notify_intercept` (mcp 2.3.0): the synchronous intercept each dispatcher
    (`JSONRPCDispatcher` over streams, `DirectDispatcher` in-process) calls for every inbound notification,
    which the session set to its listen demux when it was entered. The SDK's `listen()` keeps only the frames
    tagged with its id and within its acknowledged filter, and consumes the acknowledgement, so what a
    specification must judge (did the acknowledgement come first, was every frame tagged with the listen's
    id, did a kind arrive that was not asked for) is only visible here. This wraps the intercept on this one
    session: `hear` first (it must not raise), then the SDK's own. If the SDK renames either attribute,
    `SdkSeamError` says so and nothing is wrapped.
    """
    dispatcher = _private(session, "_dispatcher", "to see every notification a listen receives", "mcp")
    inner = _private(dispatcher, "_on_notify_intercept", "to see every notification a listen receives", "mcp")

    def spy(method: str, params: Mapping[str, Any] | None) -> bool:
        hear(method, params)
        return bool(inner(method, params)) if inner is not None else False

    dispatcher._on_notify_intercept = spy


def registered_tools(server: object) -> list[RegisteredTool]:
    """The tools registered on an in-process `MCPServer`, with their Python functions (`tool.fn`); [] otherwise.

    `MCPServer._tool_manager.list_tools()` (mcp 2.3.0). The public `MCPServer.list_tools()`
    is async and gives the wire `Tool`s, without the function behind each. Used by the
    error catalog (which tools lack an error contract) and by generated calls (the folders
    of the tools' code, which must not leak into answers). If it changes, both fail with
    `SdkSeamError`. For anything but an `MCPServer` (a server in another process) it is [].
    """
    from mcp.server.mcpserver import MCPServer

    if not isinstance(server, MCPServer):
        return []
    manager = _private(server, "_tool_manager", "to list the tools and their functions", "mcp")
    return list(manager.list_tools())


def registration_holders(server: MCPServer[Any]) -> dict[str, object]:
    """The objects an `MCPServer` keeps its registrations in, by the name a message gives each.

    `MCPServer._tool_manager._tools`, `_resource_manager._resources` and `_templates`, `_prompt_manager._prompts`
    and the low-level server's `_request_handlers` and `_notification_handlers` (mcp 2.3.0): `add_tool`,
    `remove_tool`, `add_prompt`, `@mcp.completion()` and `add_request_handler` change these. The in-process
    harnesses snapshot each holder's attributes (`mcpbdd.harness.registrations`) and put them back when the
    scenario ends, so what one scenario registered at runtime is gone for the next, as it is for a server in a
    fresh process. Each registered tool, resource, template and prompt is a holder too (its description, its
    function). If the SDK renames a manager, `SdkSeamError` names it and no in-process scenario starts.
    """
    managers = {
        "tools": _private(server, "_tool_manager", "to restore its tools after a scenario", "mcp"),
        "resources": _private(server, "_resource_manager", "to restore its resources after a scenario", "mcp"),
        "prompts": _private(server, "_prompt_manager", "to restore its prompts after a scenario", "mcp"),
    }
    holders: dict[str, object] = {"the server": server, "its settings": server.settings}
    holders["its low-level server"] = lowlevel_server(server)
    for name, manager in managers.items():
        holders[f"its {name}"] = manager
        for attribute, registered in vars(manager).items():
            if isinstance(registered, dict):
                kind = {"_templates": "resource template"}.get(attribute, name.removesuffix("s"))
                for key, item in registered.items():
                    holders[f"the {kind} {key!r}"] = item
    return holders


def request_ids_in_flight(session: Any) -> frozenset[Any] | None:
    """The ids of the requests a client session is waiting on, or None when its requests have no wire id.

    `ClientSession._dispatcher` and `JSONRPCDispatcher._pending` (mcp 2.3.0): the SDK's client mints a
    request's id inside `send_raw_request` and never hands it back, and a cancel must name it
    (`notifications/cancelled`). The client harness reads the ids before and while its call runs: the new
    one is the call's. On the in-process 2026-07-28 path (`DirectDispatcher`) requests have no id on any
    wire (the handler runs in the caller's task, cancelled by cancelling that task): None. If the SDK
    renames either, cancelling a call over a wire fails at once, naming it.
    """
    from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher

    dispatcher = _private(session, "_dispatcher", "to find the id of a request it cancels", "mcp")
    if not isinstance(dispatcher, JSONRPCDispatcher):
        return None
    return frozenset(_private(dispatcher, "_pending", "to find the id of a request it cancels", "mcp"))


async def set_anyio_root_task(task: asyncio.Task[Any]) -> bool:
    """Make `task` anyio's root task on the running loop; whether that worked.

    `anyio._backends._asyncio._root_task`, a `RunVar` (anyio 4.16.0); no public API sets
    it. anyio stops its worker threads when the root task ends, and without this it takes
    whichever task `run_until_complete` is running: each behave step's. Pinned to the
    run's long-lived task, one worker thread serves the whole run (the SDK runs a server's
    synchronous tools, resources and prompts in anyio's threads). If anyio changes it, this
    returns False and each step starts a thread of its own again: slower, still correct.
    """
    try:
        from anyio._backends._asyncio import _root_task
    except ImportError:
        return False
    try:
        _root_task.set(task)
    except (AttributeError, LookupError, RuntimeError):
        return False
    return True


def resolver_asking(server: object, tool: str, request: Any) -> str | None:
    """The wire key of the one resolver of `tool` that would ask `request` (a mid-call request), or None.

    A 2025-11-25 server asks a `Resolve(...)` resolver's question mid-call (`ctx.elicit`,
    `sampling/createMessage`, `roots/list`), and the request carries nothing naming the resolver;
    on 2026-07-28 the same question comes back keyed by the resolver's wire key
    (`package.module:qualname`). So the scenario can name it the same way on both eras, this
    reads the tool's resolver plans (`Tool.resolver_plans`, each a private `_ResolverPlan` with
    `fn` and `wire_key`, mcp 2.3.0) and each resolver's return annotation (`Elicit[Model]`,
    `Sample`, `ListRoots`): the one resolver of the request's kind (and, for a form, whose
    model renders to the requested schema) is the one asking. None when the server is not
    in-process, the tool or annotations are unknown, or several resolvers could be asking.
    """
    import typing

    from mcp.server.elicitation import render_elicitation_schema
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.resolve import Elicit, ListRoots, Sample
    from mcp_types import CreateMessageRequest, ElicitRequest, ListRootsRequest

    if not isinstance(server, MCPServer):
        return None
    found = [t for t in registered_tools(server) if t.name == tool]
    if not found:
        return None
    asking: list[str] = []
    for plan in found[0].resolver_plans.values():
        fn, wire_key = getattr(plan, "fn", None), getattr(plan, "wire_key", None)
        if fn is None or not isinstance(wire_key, str):
            continue
        try:
            returns = typing.get_type_hints(fn).get("return")
        except Exception:  # unresolvable annotations: this resolver cannot be told apart
            continue
        members = _union_members(returns)  # `Model | Elicit[Model]`: a resolver that asks only sometimes
        if isinstance(request, ElicitRequest):
            schema = getattr(request.params, "requested_schema", None)
            models = [typing.get_args(m)[0] for m in members if typing.get_origin(m) is Elicit and typing.get_args(m)]
            if any(render_elicitation_schema(model) == schema for model in models):
                asking.append(wire_key)
        elif (isinstance(request, CreateMessageRequest) and Sample in members) or (
            isinstance(request, ListRootsRequest) and ListRoots in members
        ):
            asking.append(wire_key)
    return asking[0] if len(asking) == 1 else None


def _union_members(annotation: Any) -> tuple[Any, ...]:
    """`A | Elicit[A]`, `Optional[Elicit[A]]`, `Union[...]` -> their members; any other annotation -> itself.

    A resolver that asks only when it must is annotated with a union of what it returns
    directly and what it asks (`AgentChoice | Elicit[AgentChoice]`); each member is read.
    """
    import types
    import typing

    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return typing.get_args(annotation)
    return (annotation,)
