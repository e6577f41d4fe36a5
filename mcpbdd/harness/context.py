"""The context harness: the server's own handler path, a real Context, no transport.

A call goes to the handler the server registered for the method (`tools/call`,
`resources/read`, `prompts/get`), which is what `ServerRunner` calls in production:
`MCPServer._handle_call_tool` and friends build the real `Context`, run argument
validation and `Resolve(...)` dependencies, and map tool exceptions to tool errors.
Exceptions that escape the handler are mapped to JSON-RPC errors with the SDK's own
modern-era boundary (`modern_error_data`), as the in-process client would see them.

What is skipped is the transport and the server's middleware chain. One consequence
a specification can see: the `RequestStateBoundary` middleware seals `request_state`
only on the wire, so here the state a tool returns is plaintext and is not
tamper-checked (docs: "What differs between the harnesses").
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import replace
from typing import Any, Unpack, cast

from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.mcpserver import MCPServer
from mcp.server.runner import modern_error_data
from mcp.shared.exceptions import MCPError
from mcp_types import (
    LOG_LEVEL_META_KEY,
    CallToolRequestParams,
    ErrorData,
    GetPromptRequestParams,
    ListToolsResult,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    RequestParamsMeta,
    SubscriptionFilter,
    SubscriptionsListenRequestParams,
    Tool,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcpbdd._sdk import lowlevel_server
from mcpbdd.harness.base import DEFAULT_TIMEOUT, Harness, Rounds, bounded, classify, round_options
from mcpbdd.harness.cancelling import RequestScope, cancel_part_way, stop_abandoned
from mcpbdd.harness.exits import exit_error, exit_in
from mcpbdd.harness.limits import too_deep
from mcpbdd.harness.listening import Ear, Listening, Tap, wait_for
from mcpbdd.harness.mock_context import MockContext, Recorder
from mcpbdd.harness.registrations import Registrations
from mcpbdd.kit.doubles import Doubles, providing
from mcpbdd.kit.principals import Principal, authenticated_user
from mcpbdd.model.announcements import Topic, cannot_listen, undeclared
from mcpbdd.model.cancellation import CancelPlan
from mcpbdd.model.kinds import CAPABILITIES
from mcpbdd.model.outcome import (
    PROMPTS_GET,
    RESOURCES_READ,
    TOOLS_CALL,
    Call,
    Channel,
    LogMessage,
    Outcome,
    Progress,
)

__all__ = ["ContextHarness"]


class ContextHarness(Harness):
    """Calls an `MCPServer`'s handlers directly with a MockContext, inside the server's lifespan.

    Use `async with ContextHarness(server) as harness:` from pytest, or let a World own it.
    """

    name = "context"

    def __init__(
        self,
        server: MCPServer[Any],
        *,
        capabilities: Iterable[str] = CAPABILITIES,
        timeout: float = DEFAULT_TIMEOUT,
        tenant_claim: str = "tenant",
        doubles: Doubles | None = None,
        start_timeout: float = 20.0,
    ) -> None:
        self.server = server
        self.start_timeout = start_timeout
        """Seconds the server's lifespan may take to start; its shutdown gets the call timeout (`timeout`)."""
        self.capabilities = frozenset(capabilities)
        self.timeout = timeout
        self.tenant_claim = tenant_claim
        self.doubles = doubles
        """Handed to the server's lifespan (`mcpbdd.kit.doubles.scenario_doubles()`) while it is entered."""
        self.recorder = Recorder()
        self._stack: AsyncExitStack | None = None
        self._mock: MockContext | None = None
        self._asked_level: str | None = None
        self._ear = Ear()
        """What the listens of the one mock connection received."""
        self._abandoned: list[asyncio.Task[Outcome]] = []
        """Handlers that swallowed their cancellation and ran on: stopped when the harness closes."""
        lowlevel = lowlevel_server(server)
        self._lowlevel = lowlevel
        self.restored: list[str] = []
        """What the scenario had changed in the server's registrations, put back when it closed (`registrations`)."""

    async def __aenter__(self) -> ContextHarness:
        stack = AsyncExitStack()
        await stack.__aenter__()
        registrations = Registrations.take(self.server)  # put back last, after the lifespan's shutdown
        stack.callback(self._restore, registrations)
        try:
            with providing(self.doubles) if self.doubles is not None else contextlib.nullcontext():
                lifespan = stack.enter_async_context(self._lowlevel.lifespan(self._lowlevel))
                state = await bounded("starting the server (its lifespan)", self.start_timeout, lifespan)
        except BaseException:
            await stack.aclose()
            raise
        self._stack = stack
        self._mock = MockContext(self.server, lifespan=state, capabilities=self.capabilities, recorder=self.recorder)
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await stop_abandoned(self._abandoned, self.timeout)
        if self._stack is not None:
            stack, self._stack = self._stack, None
            await bounded("closing the server (its lifespan's shutdown)", self.timeout, stack.__aexit__(*exc_info))

    def _restore(self, registrations: Registrations) -> None:
        self.restored = registrations.restore()

    @property
    def mock(self) -> MockContext:
        if self._mock is None:
            raise RuntimeError("enter the ContextHarness (async with) before calling the server")
        return self._mock

    async def _handle(self, caller: Principal | None, method: str, params: Any, raw: dict[str, Any]) -> Any:
        """Run the server's registered handler for `method`, mapping escapes as the SDK boundary does.

        `raw` is what the handler sees on `ctx.request_context.params` (built by `send`, no model dump).
        """
        entry = self._lowlevel.get_request_handler(method)
        if entry is None:
            raise MCPError(code=-32601, message="Method not found", data=method)
        request_context = self.mock.request_context(method, raw)
        # Inline rather than `acting_as(...)`: a generator context manager per call is measurable here.
        token = auth_context_var.set(authenticated_user(caller, self.tenant_claim) if caller is not None else None)
        try:
            answer = await entry.handler(request_context, params)
        except MCPError:
            raise
        except Exception as exc:
            raise MCPError.from_error_data(modern_error_data(exc)) from exc
        except BaseException as exc:  # a sys.exit in the server: what a client sees of it (`mcpbdd.harness.exits`)
            exited = exit_in(exc)
            if exited is None:
                raise
            raise exit_error(exited, method) from None
        finally:
            auth_context_var.reset(token)
        if isinstance(answer, ErrorData):
            raise MCPError.from_error_data(answer)
        return answer

    async def handle(self, caller: Principal | None, method: str, params: Any, raw: dict[str, Any]) -> Any:
        """A request other than a call (`completion/complete`) through the server's handler, as a call runs."""
        return await self._handle(caller, method, params, raw)

    async def send(self, caller: Principal | None, call: Call, **rounds: Unpack[Rounds]) -> Outcome:
        """Make `call` through the server's registered handler. The one place a Call becomes SDK params."""
        params: CallToolRequestParams | ReadResourceRequestParams | GetPromptRequestParams
        options = round_options(rounds)
        if call.method == TOOLS_CALL:
            raw = {"name": call.target, "arguments": call.arguments}
            params = CallToolRequestParams(name=call.target, arguments=call.arguments, **options)
        elif call.method == RESOURCES_READ:
            raw = {"uri": call.target}
            params = ReadResourceRequestParams(uri=call.target, **options)
        elif call.method == PROMPTS_GET:
            raw = {"name": call.target, "arguments": call.arguments}
            params = GetPromptRequestParams(name=call.target, arguments=call.arguments, **options)
        else:
            raise ValueError(f"cannot send {call.method!r}: use one of {TOOLS_CALL}, {RESOURCES_READ}, {PROMPTS_GET}")
        limit = too_deep(call.arguments)  # what the client harness's SDK client refuses to send
        if limit is not None:
            return Outcome(Channel.TRANSPORT_FAILURE, call, failure=limit)
        level = self.log_level
        if level != self._asked_level:  # the mock is the one connection: its requests carry the level asked for
            # `_meta` is open by the spec; the SDK's TypedDict names only progressToken, so the key is cast in
            self.mock.meta = cast("RequestParamsMeta", {LOG_LEVEL_META_KEY: level}) if level is not None else None
            self._asked_level = level
        # Calls on this harness run one at a time: what the recorder gains meanwhile is this call's own.
        progress, notifications = self.recorder.progress, self.recorder.notifications
        before, sent = len(progress), len(notifications)
        plan, self.cancel_next = self.cancel_next, None
        handle = lambda: self._handle(caller, call.method, params, raw)  # noqa: E731
        outcome = await (
            classify(call, handle, self.timeout) if plan is None else self._cancelled(call, handle, plan, before)
        )
        if level is None and len(progress) == before and len(notifications) == sent:
            return outcome  # nothing asked, nothing sent: the common call pays no copy
        return self._with_events(outcome, progress[before:], notifications[sent:], level)

    async def _cancelled(
        self, call: Call, handle: Callable[[], Awaitable[Any]], plan: CancelPlan, before: int
    ) -> Outcome:
        """`handle()` cancelled part-way as `plan` says: the handler's request scope is cancelled, as the SDK's
        dispatcher cancels it on the wire's `notifications/cancelled` (a shield in the handler holds)."""
        handler = RequestScope()
        run = lambda: classify(call, lambda: handler.run(handle), self.timeout)  # noqa: E731
        progressed = asyncio.Event()
        self.recorder.progressed = progressed.set
        try:
            reports = lambda: len(self.recorder.progress) - before  # noqa: E731
            abandoned = self._abandoned.append
            return await cancel_part_way(call, run, plan, reports, progressed, handler.cancel, abandoned, handler)
        finally:
            self.recorder.progressed = None

    def _with_events(
        self,
        outcome: Outcome,
        reports: list[tuple[float, float | None, str | None]],
        notified: list[tuple[str, dict[str, Any]]],
        level: str | None,
    ) -> Outcome:
        """The outcome with what the handler sent while it ran (progress, log messages) and the level it asked."""
        logs = tuple(
            LogMessage(str(message.get("level")), message.get("data"), message.get("logger"))
            for method, message in notified
            if method == "notifications/message"
        )
        return replace(
            outcome,
            progress=tuple(Progress(*report) for report in reports),
            log_messages=logs,
            log_level=level,
            logs_opt_in=self.mock.protocol_version in MODERN_PROTOCOL_VERSIONS,
        )

    async def listen(
        self, caller: Principal | None, topic: Topic, now: Callable[[], int]
    ) -> AbstractAsyncContextManager[Listening]:
        """A listen through the server's own `subscriptions/listen` handler, its frames recorded (no transport)."""
        self._ear.now = now
        return self._listening(caller, topic, self._ear)

    @asynccontextmanager
    async def _listening(self, caller: Principal | None, topic: Topic, ear: Ear) -> AsyncIterator[Listening]:
        """Run the server's listen handler as a task of its own (the stream), until the owner exits the listen."""
        era = self.mock.protocol_version
        declared = undeclared(topic, self._lowlevel.get_capabilities(protocol_version=era))
        entry = self._lowlevel.get_request_handler("subscriptions/listen")
        if declared is not None or entry is None:  # what a client reads in the capabilities: it would not ask
            raise cannot_listen(topic, declared or "the server serves no subscriptions/listen", era)
        wanted = SubscriptionFilter.model_validate(topic.wire_filter())
        params = SubscriptionsListenRequestParams(notifications=wanted)
        raw = params.model_dump(mode="json", by_alias=True, exclude_none=True)
        request_context = self.mock.request_context("subscriptions/listen", raw, Recorder(notifications=Tap(ear)))
        start, label, opened = len(ear.frames), caller.user if caller else "the anonymous caller", ear.now()
        token = auth_context_var.set(authenticated_user(caller, self.tenant_claim) if caller is not None else None)
        try:
            stream = asyncio.ensure_future(entry.handler(request_context, params))  # the task copies the context
        finally:
            auth_context_var.reset(token)
        try:
            await asyncio.sleep(0)  # the handler's first turn usually sends the acknowledgement: no waiter needed
            await wait_for([ear], lambda: len(ear.frames) > start or stream.done(), self.timeout)
            if stream.done() and len(ear.frames) == start:
                failure = stream.exception() if not stream.cancelled() else None
                raise AssertionError(
                    f"The server's subscriptions/listen for {topic} ended before acknowledging"
                    + (f": {type(failure).__name__}: {failure}" if failure is not None else "")
                )
            if len(ear.frames) == start:
                raise AssertionError(
                    f"The server did not acknowledge subscriptions/listen for {topic} within the call timeout of "
                    f"{self.timeout:g} s; it sent nothing"
                )
            ear.ids.add(request_context.request_id)
            yield Listening(topic, True, request_context.request_id, ear, start, label, opened)
        finally:
            stream.cancel()
            await asyncio.gather(stream, return_exceptions=True)

    async def list_tools(self, caller: Principal | None = None) -> list[Tool]:
        """The server's tools as `caller` is offered them: its `tools/list` handler, bounded by the call timeout.

        Through the registered handler, as a client's request runs, so that a server that lists tools per
        caller (`mcpbdd.kit.visible_tools`, or a handler of its own) lists the same on every harness.
        """
        return await bounded("tools/list", self.timeout, self._listed_tools(caller))

    async def _listed_tools(self, caller: Principal | None) -> list[Tool]:
        answer = await self._handle(caller, "tools/list", PaginatedRequestParams(), {})
        listed = answer if isinstance(answer, ListToolsResult) else ListToolsResult.model_validate(answer)
        return list(listed.tools)

    def server_stderr(self) -> str:
        """No process, no stderr: the server runs in this one."""
        return ""
