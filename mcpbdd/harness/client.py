"""The client harness: a real `mcp.Client` per caller, what a client on the wire sees.

In-process by default (`mode="auto"`: the SDK's modern per-request path, protocol
2026-07-28) or through the initialize handshake over in-memory streams
(`mode="legacy"`, protocol 2025-11-25).

Every caller gets a session of their own, as two real users would; they all talk to
*one* server lifespan, entered once for the scenario, so what alice writes bob of the
same tenant can read. (The SDK enters a server's lifespan per `Client`; we hand each
Client a view of the server whose lifespan is the scenario's shared one.)

The caller's identity travels the way the SDK's auth middleware carries it: the
access token in `auth_context_var`. It is set around each call (the modern path runs
the handler in the calling task) and while a session is opened (the legacy path's
server tasks inherit it from there).

On the legacy path a server asks its questions mid-call (`elicitation/create`,
`sampling/createMessage`, `roots/list`). The harness parks such a request, keeps the
call running in the background, and returns an `input_required` Outcome naming the
question by kind and order (`elicitation-1`): the same shape a modern server's
`InputRequiredResult` gives. An in-process server's question asked by a `Resolve(...)`
resolver also answers to the resolver's name, as it does on 2026-07-28 (`_sdk.resolver_asking`).

Over HTTP a protected server may refuse a request before MCP sees it (401, 403): the connector
records the refusal, and the call's outcome is a `transport-failure` carrying it (`Outcome.http`),
even when the refusal came while the caller's session was being opened.

What a server sends during a call belongs to that call's Outcome: a tool call asks for progress
(the SDK's progress callback, so the client sends the progress token both eras need), and the
log messages that arrive while the call runs are its own (calls of a scenario run one at a time;
on 2025-11-25 a call parked on a question while another runs could share them). The level asked
for (`log_level`) goes in each request's `_meta` on 2026-07-28, and as a session's
`logging/setLevel` on 2025-11-25 when the server declares logging.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar, Unpack

from mcp import Client
from mcp.client.session import ClientRequestContext
from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.mcpserver import MCPServer
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types import (
    LOG_LEVEL_META_KEY,
    CancelledNotification,
    CancelledNotificationParams,
    CreateMessageRequest,
    CreateMessageRequestParams,
    ElicitRequest,
    ElicitRequestParams,
    ElicitResult,
    ErrorData,
    InputResponses,
    ListRootsRequest,
    ListRootsResult,
    LoggingMessageNotificationParams,
    Tool,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcpbdd._sdk import request_ids_in_flight, resolver_asking, share_output_validators, spy_on_notifications
from mcpbdd.harness.base import DEFAULT_TIMEOUT, Harness, RequestTimeout, Rounds, bounded, classify, round_options
from mcpbdd.harness.cancelling import RequestScope, cancel_part_way, stop_abandoned
from mcpbdd.harness.connectors import Connector, InProcess
from mcpbdd.harness.limits import too_deep
from mcpbdd.harness.listening import Ear, Listening
from mcpbdd.harness.targets import error_summary
from mcpbdd.kit.doubles import Doubles
from mcpbdd.kit.principals import Principal, acting_as, authenticated_user
from mcpbdd.model.announcements import Topic, cannot_listen, undeclared
from mcpbdd.model.cancellation import CancelPlan
from mcpbdd.model.errors import ServerCannotStart
from mcpbdd.model.kinds import CAPABILITIES, Capability, ClientMode, check_capabilities, client_mode
from mcpbdd.model.outcome import (
    PROMPTS_GET,
    RESOURCES_READ,
    TOOLS_CALL,
    Call,
    Channel,
    LogMessage,
    Outcome,
    Progress,
    Question,
    question_kind,
)

__all__ = ["ClientHarness", "EnterInOwner", "InFlightCall", "ParkedQuestion"]

T = TypeVar("T")

EnterInOwner = Callable[[Callable[[], Awaitable[T]]], Awaitable[T]]
"""Runs a coroutine function inside the task that owns the scenario's resources."""


@dataclass
class ParkedQuestion:
    """A mid-call server request waiting for a later step to answer it."""

    question: Question
    answer: asyncio.Future[Any]


@dataclass
class InFlightCall:
    """A legacy-era call still running because the server is waiting for answers to its questions."""

    task: asyncio.Task[Outcome]
    caller: Principal | None
    call: Call
    questions: dict[str, ParkedQuestion] = field(default_factory=dict)
    asked: asyncio.Event = field(default_factory=asyncio.Event)
    numbers: dict[str, itertools.count[int]] = field(default_factory=dict)
    """Per-kind counters: a mid-call request has no key, so it is named `elicitation-1`, ... within its call."""

    def open_questions(self) -> dict[str, Question]:
        return {key: parked.question for key, parked in self.questions.items() if not parked.answer.done()}


class ClientHarness(Harness):
    """Drives a real `mcp.Client` (one per caller): in-process, over stdio, or over HTTP (see `connectors`)."""

    name = "client"

    def __init__(
        self,
        server: MCPServer[Any] | Connector,
        *,
        mode: ClientMode | str = ClientMode.AUTO,
        capabilities: Iterable[str] = CAPABILITIES,
        timeout: float = DEFAULT_TIMEOUT,
        tenant_claim: str = "tenant",
        doubles: Doubles | None = None,
        enter_in_owner: EnterInOwner[Any] | None = None,
        start_timeout: float = 20.0,
    ) -> None:
        self.connector: Connector = InProcess(server, doubles) if isinstance(server, MCPServer) else server
        self.mode = client_mode(mode)
        self.capabilities = frozenset(check_capabilities(capabilities))
        self.timeout = timeout
        self.tenant_claim = tenant_claim
        self.doubles = doubles
        """Handed to the server's lifespan (`mcpbdd.kit.doubles.scenario_doubles()`) while it is entered."""
        self._enter_in_owner = enter_in_owner
        self.start_timeout = start_timeout
        self._stack: AsyncExitStack | None = None
        self._clients: dict[Principal | None, Client] = {}
        self._in_flight: list[InFlightCall] = []
        self._logs: list[LogMessage] = []
        """Every log message any session received, in order: a call's own are those that arrive while it runs."""
        self._ears: dict[int, Ear] = {}
        """Each session's ear (by `id`), spying on its notifications from its first listen on."""
        self._session_levels: dict[int, str] = {}
        self._abandoned: list[asyncio.Task[Outcome]] = []
        """In-process handlers that swallowed their cancellation and ran on: stopped when the harness closes."""
        """Each handshake-era session's last `logging/setLevel` level, by `id` (a Client is unhashable)."""

    async def __aenter__(self) -> ClientHarness:
        stack = AsyncExitStack()
        await stack.__aenter__()
        try:
            started = self.connector.start(stack)
            # An in-process lifespan runs on this loop: bound it here (a process connector bounds its own start).
            if self.connector.kind == "inprocess":
                started = bounded("starting the server (its lifespan)", self.start_timeout, started)
            await started
        except BaseException as exc:
            await stack.aclose()
            if isinstance(exc, Exception) and not isinstance(exc, ServerCannotStart):
                # A process that ends before it listens, a lifespan that raises: the server cannot start.
                told = isinstance(exc, ConnectionError | RequestTimeout)  # already says what happened
                why = str(exc) if told else f"it raised {error_summary(exc)}"
                raise ServerCannotStart(why) from exc
            raise
        self._stack = stack
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        in_flight, self._in_flight = self._in_flight, []
        for call in in_flight:
            call.task.cancel()
        await asyncio.gather(*(call.task for call in in_flight), return_exceptions=True)
        await stop_abandoned(self._abandoned, self.timeout)
        self._clients.clear()
        if self._stack is not None:
            stack, self._stack = self._stack, None
            closing = stack.__aexit__(*exc_info)
            # Bounded in-process only: a process's stop is the SDK's own bounded, shielded escalation to a kill,
            # which a cancellation here could cut short and leave the process behind.
            if self.connector.kind == "inprocess":
                closing = bounded("closing the server (its lifespan's shutdown)", self.timeout, closing)
            await closing

    # sessions ------------------------------------------------------------------------------

    async def session(self, caller: Principal | None) -> Client:
        """The caller's own connected Client, opened on first use (in the owner task)."""
        client = self._clients.get(caller)
        if client is None:
            opener = self._open_session(caller)
            client = await (self._enter_in_owner(lambda: opener) if self._enter_in_owner else opener)
            self._clients[caller] = client
        return client

    async def _open_session(self, caller: Principal | None) -> Client:
        if self._stack is None:
            raise RuntimeError("enter the ClientHarness (async with) before calling the server")
        callbacks: dict[str, Any] = {}
        if Capability.ELICITATION in self.capabilities:
            callbacks["elicitation_callback"] = self._on_elicitation
        if Capability.SAMPLING in self.capabilities:
            callbacks["sampling_callback"] = self._on_sampling
        if Capability.ROOTS in self.capabilities:
            callbacks["list_roots_callback"] = self._on_list_roots
        callbacks["logging_callback"] = self._on_log
        client = Client(self.connector.target(caller), mode=self.mode, cache=None, **callbacks)
        with acting_as(caller, self.tenant_claim):
            try:
                async with asyncio.timeout(self.start_timeout):
                    entered = await self._stack.enter_async_context(client)
            except TimeoutError:
                why = self.connector.diagnose()
                raise ServerCannotStart(
                    f"it did not answer within {self.start_timeout:g} s of starting" + (f"; {why}" if why else "")
                ) from None
            except Exception as exc:  # the SDK's ExceptionGroup around "Connection closed", a refused connection
                why = self.connector.diagnose()
                ended = "it ended before its first answer" if why else "it gave no first answer"
                raise ServerCannotStart(f"{ended} ({_summary(exc)})" + (f"; {why}" if why else "")) from None
        share_output_validators(entered.session)  # compiled schema checks reused across sessions (`_sdk.py`)
        return entered

    async def _on_log(self, params: LoggingMessageNotificationParams) -> None:
        self._logs.append(LogMessage(params.level, params.data, params.logger))

    async def _ask_for_logs(self, client: Client, level: str | None) -> dict[str, Any] | None:
        """How this call asks for log messages from `level`: the request's `_meta` on 2026-07-28; on 2025-11-25 a
        `logging/setLevel` for the session when the server declares logging (nothing to add to the request)."""
        if level is None:
            return None
        if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return {LOG_LEVEL_META_KEY: level}
        if self._session_levels.get(id(client)) != level and client.server_capabilities.logging is not None:
            await bounded("logging/setLevel", self.timeout, client.session.set_logging_level(level))  # type: ignore[arg-type]
            self._session_levels[id(client)] = level
        return None

    # listens ------------------------------------------------------------------------------------

    async def listen(
        self, caller: Principal | None, topic: Topic, now: Callable[[], int]
    ) -> AbstractAsyncContextManager[Listening]:
        """The caller's session (opened now, outside the owner task) with its ear, and the listen to enter."""
        client = await self.session(caller)
        ear = self._ears.get(id(client))
        if ear is None:
            ear = self._ears[id(client)] = Ear()
            spy_on_notifications(client.session, ear.hear)
        ear.now = now
        return self._listening(client, caller, topic, ear)

    @asynccontextmanager
    async def _listening(
        self, client: Client, caller: Principal | None, topic: Topic, ear: Ear
    ) -> AsyncIterator[Listening]:
        """2026-07-28: a `subscriptions/listen` stream (its acknowledgement awaited, bounded); 2025-11-25: the
        session's notifications, with `resources/subscribe` for a resource. Closed when the owner exits it."""
        start, label, opened = len(ear.frames), caller.user if caller else "the anonymous caller", ear.now()
        modern = client.protocol_version in MODERN_PROTOCOL_VERSIONS
        declared = undeclared(topic, client.server_capabilities)
        if declared is not None and (modern or topic.uri is not None):  # a client would not ask: fail now, saying why
            raise cannot_listen(topic, declared, str(client.protocol_version))
        if not modern:  # a list's changes come (or not) as session notifications: the check says what was declared
            if topic.uri is not None:
                await self._legacy_subscribe(client, caller, topic.uri, ear, start)
            try:
                yield Listening(topic, False, None, ear, start, label, opened, declared)
            finally:
                if topic.uri is not None:
                    with contextlib.suppress(Exception), warnings.catch_warnings():
                        warnings.simplefilter("ignore", MCPDeprecationWarning)
                        await bounded("resources/unsubscribe", self.timeout, client.unsubscribe_resource(topic.uri))
            return
        wanted: dict[str, Any] = topic.wire_filter()
        async with AsyncExitStack() as stack:
            try:
                with acting_as(caller, self.tenant_claim):
                    async with asyncio.timeout(self.timeout):
                        subscription = await stack.enter_async_context(client.listen(**wanted))
            except TimeoutError:
                heard = "; ".join(str(frame) for frame in ear.frames[start:]) or "nothing"
                raise AssertionError(
                    f"The server did not acknowledge subscriptions/listen for {topic} within the call timeout of "
                    f"{self.timeout:g} s; the connection received: {heard}"
                ) from None
            except MCPError as exc:
                raise AssertionError(f"The server refused subscriptions/listen for {topic}: {exc}") from None
            ear.ids.add(subscription.subscription_id)
            yield Listening(topic, True, subscription.subscription_id, ear, start, label, opened)

    async def _legacy_subscribe(self, client: Client, caller: Principal | None, uri: str, ear: Ear, start: int) -> None:
        """`resources/subscribe` (2025-11-25): a refusal fails the step that listened, saying what the server said."""
        try:
            with acting_as(caller, self.tenant_claim), warnings.catch_warnings():
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await bounded("resources/subscribe", self.timeout, client.subscribe_resource(uri))
        except MCPError as exc:
            raise AssertionError(
                f'The server refused resources/subscribe for the resource "{uri}": {exc.code} {exc.message}'
            ) from None

    async def settle(self, caller: Principal | None) -> None:
        """A round trip (a ping on 2025-11-25, which 2026-07-28 removed: a `tools/list` there), so what the server
        sent before answering it has arrived."""
        client = await self.session(caller)
        with acting_as(caller, self.tenant_claim):
            if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
                await bounded("tools/list", self.timeout, client.session.list_tools())
            else:
                with warnings.catch_warnings():  # the SDK warns that 2026-07-28 removed ping; this is 2025-11-25
                    warnings.simplefilter("ignore", MCPDeprecationWarning)
                    await bounded("ping", self.timeout, client.send_ping())
        await super().settle(caller)

    # mid-call questions (legacy era) ----------------------------------------------------------

    async def _park(self, request: ElicitRequest | CreateMessageRequest | ListRootsRequest) -> Any:
        running = [call for call in self._in_flight if not call.task.done()]
        if not running:
            raise RuntimeError("the server asked a question outside of any call")
        # A legacy request carries no link to the call it belongs to; the newest running call asked it.
        call = running[-1]
        kind = question_kind(request)
        number = next(call.numbers.setdefault(kind, itertools.count(1)))
        resolver = resolver_asking(getattr(self.connector, "server", None), call.call.target, request)
        aliases = (resolver,) if resolver is not None and call.call.method == TOOLS_CALL else ()
        question = Question(key=f"{kind}-{number}", kind=kind, request=request, aliases=aliases)
        parked = ParkedQuestion(question, asyncio.get_running_loop().create_future())
        call.questions[question.key] = parked
        call.asked.set()
        return await parked.answer

    async def _on_elicitation(
        self, context: ClientRequestContext, params: ElicitRequestParams
    ) -> ElicitResult | ErrorData:
        answer: ElicitResult | ErrorData = await self._park(ElicitRequest(params=params))
        return answer

    async def _on_sampling(self, context: ClientRequestContext, params: CreateMessageRequestParams) -> Any:
        return await self._park(CreateMessageRequest(params=params))

    async def _on_list_roots(self, context: ClientRequestContext) -> ListRootsResult | ErrorData:
        answer: ListRootsResult | ErrorData = await self._park(ListRootsRequest())
        return answer

    @property
    def in_flight(self) -> list[InFlightCall]:
        """Legacy calls still waiting on parked questions, oldest first."""
        return [call for call in self._in_flight if not call.task.done()]

    # calls ------------------------------------------------------------------------------------

    async def send(self, caller: Principal | None, call: Call, **rounds: Unpack[Rounds]) -> Outcome:
        """Make `call` as `caller` over the caller's own Client; a legacy call that asks mid-call is parked."""
        plan, self.cancel_next = self.cancel_next, None  # a planned cancel belongs to this call, however it ends
        if self.connector.kind == "stdio":  # a stdio server drops a line it cannot parse: refuse it here, not hang
            limit = too_deep(call.arguments, stdio=True)
            if limit is not None:
                return Outcome(Channel.TRANSPORT_FAILURE, call, failure=limit)
        edge = getattr(self.connector, "edge", None)  # an HTTP connector records 401s and 403s (`authorization.edge`)
        if edge is not None:
            edge.take(caller)  # a refusal met before this call is not this call's
        client = self._clients.get(caller)  # the caller's session, open after its first call
        if client is None:
            try:
                client = await self.session(caller)
            except ServerCannotStart:
                refusal = edge.take(caller) if edge is not None else None
                if refusal is None:
                    raise
                # Refused at the HTTP edge before any MCP answer: the call's outcome, not a server that cannot start.
                return Outcome(
                    Channel.TRANSPORT_FAILURE, call, failure=f"the server refused the request: {refusal}", http=refusal
                )
        if plan is not None:
            outcome = await self._request_cancelled(client, caller, call, rounds, plan)
        else:
            outcome = await self._request(client, caller, call, rounds)
        refusal = edge.take(caller) if edge is not None else None
        if refusal is not None and outcome.channel is not Channel.OK:
            return replace(
                outcome,
                channel=Channel.TRANSPORT_FAILURE,
                failure=f"the server refused the request: {refusal}",
                http=refusal,
            )
        return outcome

    async def _request(self, client: Client, caller: Principal | None, call: Call, rounds: Rounds) -> Outcome:
        level = self.log_level
        meta = await self._ask_for_logs(client, level) if level is not None else None
        reports: list[Progress] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            reports.append(Progress(progress, total, message))

        user = authenticated_user(caller, self.tenant_claim) if caller is not None else None

        async def request() -> Any:
            # `acting_as(caller)`, spelled out as the context harness does: this is every call's path, where a
            # generator-based context manager per call is work a load repeats thousands of times a second.
            token = auth_context_var.set(user)
            try:
                return await _session_request(client, call, rounds, on_progress, meta)
            finally:
                auth_context_var.reset(token)

        modern = client.protocol_version in MODERN_PROTOCOL_VERSIONS
        if modern:  # questions come back as results: nothing to park
            before = len(self._logs)
            outcome = await classify(call, request, self.timeout)
            return self._diagnosed(self._with_events(outcome, reports, before, level, modern))

        async def classified() -> Outcome:
            before = len(self._logs)
            return self._with_events(await classify(call, request, self.timeout), reports, before, level, modern)

        # A handshake-era connection (mode "legacy", or "auto" that fell back): questions arrive mid-call.
        task = asyncio.ensure_future(classified())
        in_flight = InFlightCall(task=task, caller=caller, call=call)
        self._in_flight.append(in_flight)
        return await self.wait_for(in_flight)

    async def _request_cancelled(
        self, client: Client, caller: Principal | None, call: Call, rounds: Rounds, plan: CancelPlan
    ) -> Outcome:
        """`call`, cancelled part-way as `plan` says (`harness.cancelling`); the Outcome says what followed.

        Over a wire the cancel is `notifications/cancelled` naming the request's id, the frame the SDK's client
        sends when a request's scope is cancelled (over 2026-07-28 HTTP its transport turns that frame into
        closing the request's stream, the era's cancel). The SDK's in-process 2026-07-28 client runs the handler
        in the caller's task: the cancel is that task's, as the SDK's is. Mid-call questions are not parked here.
        """
        level = self.log_level
        meta = await self._ask_for_logs(client, level) if level is not None else None
        reports: list[Progress] = []
        progressed = asyncio.Event()

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            reports.append(Progress(progress, total, message))
            progressed.set()

        async def request() -> Any:
            with acting_as(caller, self.tenant_claim):
                return await _session_request(client, call, rounds, on_progress, meta)

        waiting = request_ids_in_flight(client.session)
        handler = RequestScope() if waiting is None else None  # in-process 2026-07-28: the handler is in this task
        send_cancel = handler.cancel if handler is not None else lambda: self._send_cancel(client, waiting)
        asked = (lambda: handler.run(request)) if handler is not None else request
        before = len(self._logs)
        run = lambda: classify(call, asked, self.timeout)  # noqa: E731
        count = lambda: len(reports)  # noqa: E731
        abandoned = self._abandoned.append
        outcome = await cancel_part_way(call, run, plan, count, progressed, send_cancel, abandoned, handler)
        modern = client.protocol_version in MODERN_PROTOCOL_VERSIONS
        return self._diagnosed(self._with_events(outcome, reports, before, level, modern))

    async def _send_cancel(self, client: Client, waiting: frozenset[Any] | None) -> None:
        """`notifications/cancelled` for the request the client started after `waiting` (its ids then)."""
        started = (request_ids_in_flight(client.session) or frozenset()) - (waiting or frozenset())
        for request_id in started:  # the call's own request (one: calls of a scenario run one at a time)
            params = CancelledNotificationParams(request_id=request_id, reason="the scenario cancelled the call")
            await client.session.send_notification(CancelledNotification(params=params))

    def _with_events(
        self, outcome: Outcome, reports: list[Progress], before: int, level: str | None, modern: bool
    ) -> Outcome:
        """The outcome with what the server sent while it ran: its progress reports and the log messages since
        `before`, the level the call asked from and whether its era makes log messages an opt-in. Untouched (no
        copy) when nothing arrived and nothing was asked: the common call pays nothing."""
        logs = self._logs
        if not (reports or level or len(logs) > before):
            return outcome
        return replace(
            outcome, progress=tuple(reports), log_messages=tuple(logs[before:]), log_level=level, logs_opt_in=modern
        )

    async def wait_for(self, in_flight: InFlightCall) -> Outcome:
        """Wait until a legacy call finishes, or asks a question: then report it as `input_required`.

        The call keeps running in the background while its question is parked, as on a
        real connection; other calls can be made meanwhile.
        """
        in_flight.asked.clear()
        waiter = asyncio.ensure_future(in_flight.asked.wait())
        try:
            await asyncio.wait({in_flight.task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()
        if in_flight.task.done():
            self._in_flight.remove(in_flight)
            return self._diagnosed(in_flight.task.result())
        return Outcome(Channel.INPUT_REQUIRED, in_flight.call, questions=in_flight.open_questions(), pending=in_flight)

    async def resume(
        self, caller: Principal | None, outcome: Outcome, answers: InputResponses, request_state: str | None
    ) -> Outcome:
        """Answer open questions: a parked mid-call request gets its result; a modern call is retried."""
        in_flight = outcome.pending
        if not isinstance(in_flight, InFlightCall):
            return await super().resume(caller, outcome, answers, request_state)
        for key, response in answers.items():
            parked = in_flight.questions.get(key)
            if parked is None or parked.answer.done():
                raise ValueError(f"the server has no open question {key!r} in this call")
            parked.answer.set_result(response)
        return await self.wait_for(in_flight)

    def _diagnosed(self, outcome: Outcome) -> Outcome:
        """A transport failure says what became of the server, when the connector knows (exit code, stderr)."""
        if outcome.channel is not Channel.TRANSPORT_FAILURE:
            return outcome
        why = self.connector.diagnose()
        return replace(outcome, failure=f"{outcome.failure}; {why}") if why else outcome

    def server_stderr(self) -> str:
        """What the server process wrote to stderr (empty in-process)."""
        return self.connector.stderr()

    async def list_tools(self, caller: Principal | None = None) -> list[Tool]:
        """Every page of `tools/list`, all of them bounded by the call timeout like every request."""
        client = await self.session(caller)
        return await bounded("tools/list", self.timeout, self._all_tools(client, caller))

    async def _all_tools(self, client: Client, caller: Principal | None) -> list[Tool]:
        tools: list[Tool] = []
        cursor: str | None = None
        with acting_as(caller, self.tenant_claim):
            while True:
                page = await client.list_tools(cursor=cursor)
                tools.extend(page.tools)
                cursor = page.next_cursor
                if not cursor:
                    return tools


def _summary(exc: BaseException) -> str:
    """The innermost error of `exc` in one line (`MCPError: Connection closed`, not an ExceptionGroup's traceback)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, ConnectionError) and str(exc):
        return str(exc)
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _session_request(
    client: Client, call: Call, rounds: Rounds, on_progress: ProgressFnT, meta: dict[str, Any] | None
) -> Awaitable[Any]:
    """The one place a Call becomes the SDK client's request (each round shown: `allow_input_required`).

    A tool call asks for progress (`on_progress`: the SDK then sends a progress token, which a server needs
    on either era before it may report progress); the SDK's reads and prompts take no progress callback.
    `meta` is the request's own `_meta` (the log level asked for on 2026-07-28).
    """
    session = client.session
    options: dict[str, Any] = {**round_options(rounds), "allow_input_required": True}
    if meta is not None:
        options["meta"] = meta
    if call.method == TOOLS_CALL:
        return session.call_tool(call.target, call.arguments, progress_callback=on_progress, **options)
    if call.method == RESOURCES_READ:
        return session.read_resource(call.target, **options)
    if call.method == PROMPTS_GET:
        return session.get_prompt(call.target, call.arguments, **options)
    raise ValueError(f"cannot send {call.method!r}: use one of {TOOLS_CALL}, {RESOURCES_READ}, {PROMPTS_GET}")
