"""What both harnesses share: the interface, the call timeout, and turning answers into Outcomes.

Keeping the classification in one place is what makes the promise "the same scenario
gives the same verdict on both harnesses" checkable: a result, an `MCPError`, an
`InputRequiredResult` or a timeout becomes the same Outcome whichever harness saw it.
"""

from __future__ import annotations

import asyncio
import time
from abc import abstractmethod
from collections.abc import Awaitable, Callable, Coroutine
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol, TypedDict, TypeVar, Unpack

from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, CallToolResult, InputRequiredResult, InputResponses, Tool
from pydantic import ValidationError

from mcpbdd.harness.limits import SERIALIZATION_DEPTH_ERROR, too_deep
from mcpbdd.harness.listening import Listening
from mcpbdd.kit.principals import Principal
from mcpbdd.model.announcements import Topic
from mcpbdd.model.cancellation import CancelPlan
from mcpbdd.model.outcome import Call, Channel, Outcome, ProtocolError, Question, Result, question_kind

__all__ = [
    "CLIENT_REFUSED",
    "DEFAULT_TIMEOUT",
    "Harness",
    "Request",
    "RequestTimeout",
    "Rounds",
    "ServerError",
    "bounded",
    "classify",
    "from_answer",
    "round_options",
]

DEFAULT_TIMEOUT = 5.0
CLIENT_REFUSED = "the client refused the server's answer: "
"""How a transport failure starts when the SDK client raised on an answer it cannot accept."""

T = TypeVar("T")


class Rounds(TypedDict, total=False):
    """A call's input-required round options, as keywords of `send` and of every shortcut.

    Declared once, so the call path (`send` of each harness) and the shortcuts cannot disagree
    on them; `round_options` gives them with None for what was left out.
    """

    input_responses: InputResponses | None
    """Answers to the questions the previous round asked (2026-07-28 rounds)."""
    request_state: str | None
    """The server's opaque state, echoed back unchanged with the answers."""


def round_options(rounds: Rounds) -> dict[str, Any]:
    """`rounds` as the SDK's keyword arguments, each named (None when not given)."""
    return {"input_responses": rounds.get("input_responses"), "request_state": rounds.get("request_state")}


class RequestTimeout(AssertionError, TimeoutError):
    """A request other than the call itself (`tools/list`, closing the server) got no answer in time.

    A call's own timeout is an Outcome (`transport-failure`); a listing or a close has no Outcome
    to carry it, so it fails the step that needed it, naming the request and the timeout. An
    `AssertionError` because it is the server's failure a specification found (behave then reports
    a failed step with this message, not an error with a traceback), and a `TimeoutError` for Python.
    """

    def __init__(self, request: str, timeout: float, why: str = "") -> None:
        self.request = request
        self.timeout = timeout
        message = f"{request} got no answer within the call timeout of {timeout:g} s"
        super().__init__(f"{message}: {why}" if why else message)


class ServerError(MCPError, AssertionError):
    """The server answered a request other than the call itself (`completion/complete`, `tools/list`, a
    `logging/setLevel`, ...) with a JSON-RPC error.

    A call's own error is an Outcome (`protocol-error`) a phrase judges; any other request has no Outcome
    to carry it, so the step that needed it fails, naming the request and what the server said. An
    `AssertionError` because the server missed what the specification expects (behave reports a *failed*
    step with this message, never an error with mcpbdd's traceback); an `MCPError` still, with the server's
    code, message and data, for code that tells a method the server does not serve from other errors.
    """

    def __init__(self, request: str, error: MCPError) -> None:
        super().__init__(error.code, error.message, error.data)
        self.request = request
        data = f" (data: {error.data!r})" if error.data is not None else ""
        self.text = f"The server answered {request} with the protocol error {error.code}: {error.message}{data}"

    def __str__(self) -> str:
        return self.text


async def bounded(request: str, timeout: float, awaitable: Awaitable[T], why: str = "") -> T:
    """Await `awaitable` (one request the harness makes for a step) under `timeout`, or raise `RequestTimeout`.

    Every request a step makes is bounded, so a server that never answers one fails the step
    instead of hanging it; a server that answers it with an error fails the step too (`ServerError`).
    """
    try:
        async with asyncio.timeout(timeout):
            return await awaitable
    except TimeoutError:
        raise RequestTimeout(request, timeout, why) from None
    except ServerError:
        raise
    except MCPError as exc:
        raise ServerError(request, exc) from exc


class Harness(AbstractAsyncContextManager["Harness"], Protocol):
    """A way to reach a server: what the World calls, and the shortcuts every harness shares.

    Entered once per scenario (its lifespan, its sessions), then called. A harness implements
    `send` (the one call path: a `Call` in, an `Outcome` out), `list_tools` and
    `server_stderr`; it subclasses this protocol to get `resume` and the pytest shortcuts
    (`call_tool`, `read_resource`, `get_prompt`), which are defined here once, in terms of `send`.
    """

    log_level: str | None = None
    """The level from which the client asks for log messages on the calls it makes (None: it asks for none).
    The World sets it before each call (a harness shared by a feature's scenarios serves each its own)."""

    cancel_next: CancelPlan | None = None
    """A cancel planned for the next call (`mcpbdd.model.cancellation`), which takes it: the harness cancels that
    call part-way and its Outcome says what followed. None: the call runs to its end."""

    @abstractmethod
    async def send(self, caller: Principal | None, call: Call, **rounds: Unpack[Rounds]) -> Outcome:
        """Make `call` as `caller` (None: anonymous), optionally with answers and the echoed request state."""
        ...

    @abstractmethod
    async def list_tools(self, caller: Principal | None) -> list[Tool]: ...

    @abstractmethod
    def server_stderr(self) -> str:
        """What the server process wrote to stderr ('' when there is no process)."""
        ...

    async def listen(
        self, caller: Principal | None, topic: Topic, now: Callable[[], int]
    ) -> AbstractAsyncContextManager[Listening]:
        """Get ready to listen for changes to `topic` as `caller`: the context manager the scenario's owner task
        enters (it opens the listen, the era's way) and exits at the scenario's end. `now` counts the calls made."""
        raise NotImplementedError(f"{type(self).__name__} cannot listen for changes")

    async def settle(self, caller: Principal | None) -> None:
        """Give what the server sent a chance to arrive before a check that nothing did (a round trip, or a turn)."""
        for _ in range(3):
            await asyncio.sleep(0)

    async def resume(
        self, caller: Principal | None, outcome: Outcome, answers: InputResponses, request_state: str | None
    ) -> Outcome:
        """Answer an `input_required` outcome's questions and return what the call comes to next.

        The 2026-07-28 way (and the default): the same Call again, with `input_responses` and the
        echoed `request_state`. A harness that parks mid-call questions answers those instead.
        """
        return await self.send(caller, outcome.call, input_responses=answers or None, request_state=request_state)

    # Shortcuts for pytest users. Plain functions returning `send`'s coroutine: no extra frame per call.

    def send_cancelled(self, caller: Principal | None, call: Call, plan: CancelPlan) -> Coroutine[Any, Any, Outcome]:
        """`await harness.send_cancelled(caller, call, CancelPlan.after_progress(1))`: `send`, cancelled part-way."""
        self.cancel_next = plan
        return self.send(caller, call)

    def call_tool(
        self, caller: Principal | None, name: str, arguments: dict[str, Any] | None = None, **rounds: Unpack[Rounds]
    ) -> Coroutine[Any, Any, Outcome]:
        """`await harness.call_tool(caller, name, arguments)`: `send` with `Call.tool(name, arguments)`."""
        return self.send(caller, Call.tool(name, arguments), **rounds)

    def read_resource(
        self, caller: Principal | None, uri: str, **rounds: Unpack[Rounds]
    ) -> Coroutine[Any, Any, Outcome]:
        """`await harness.read_resource(caller, uri)`: `send` with `Call.resource(uri)`."""
        return self.send(caller, Call.resource(uri), **rounds)

    def get_prompt(
        self, caller: Principal | None, name: str, arguments: dict[str, str] | None = None, **rounds: Unpack[Rounds]
    ) -> Coroutine[Any, Any, Outcome]:
        """`await harness.get_prompt(caller, name, arguments)`: `send` with `Call.prompt(name, arguments)`."""
        return self.send(caller, Call.prompt(name, arguments), **rounds)


Request = Callable[[], Awaitable[Any]]
"""The SDK request a harness makes for one Call, ready to await."""


async def classify(call: Call, request: Request, timeout: float) -> Outcome:
    """Run `request` (the SDK's for `call`) under `timeout` and classify whatever happens into an Outcome.

    A hung call never hangs the run: it becomes a `transport_failure` naming the timeout.
    (`asyncio.timeout`, not `anyio.fail_after`: mcpbdd runs on asyncio and it is ~3x cheaper
    per call, which is most of the harness's own overhead.)

    A timeout can only fire when the event loop gets control. A tool that blocks the loop
    (`time.sleep` or blocking I/O in an async tool) on a harness that runs it on this loop
    (the context harness, the in-process client) would otherwise come back late and pass,
    while a server in another process gets the timeout: so an answer that comes back after the
    timeout without the timeout having fired is the same `transport_failure`, saying the loop
    was blocked. Arguments deeper than the SDK client serialises are its `transport_failure`
    too, worded alike whether the SDK raised or a harness without a client checked first.
    """
    started = time.perf_counter()
    try:
        async with asyncio.timeout(timeout) as scope:
            answer = await request()
    except TimeoutError:
        duration = time.perf_counter() - started
        failure = f"no answer within the call timeout of {timeout:g} s"
        if duration - timeout > max(timeout, _LATE):
            failure += (
                f": the call came back only after {duration:.1f} s, so something kept the timeout from interrupting "
                "it: the tool blocking the event loop (synchronous code such as time.sleep or blocking I/O in an "
                "async function), or a sync tool's worker thread, which cannot be cancelled"
            )
        return Outcome(Channel.TRANSPORT_FAILURE, call, failure=failure, duration=duration)
    except (RuntimeError, ValidationError) as exc:
        # The SDK client refused what the server sent (e.g. structured content that breaks the
        # advertised output schema): no usable answer reached the caller.
        return Outcome(
            Channel.TRANSPORT_FAILURE,
            call,
            failure=f"{CLIENT_REFUSED}{type(exc).__name__}: {exc}",
            duration=time.perf_counter() - started,
        )
    except ValueError as exc:
        limit = too_deep(call.arguments) if SERIALIZATION_DEPTH_ERROR in str(exc) else None
        if limit is None:
            raise
        return Outcome(Channel.TRANSPORT_FAILURE, call, failure=limit, duration=time.perf_counter() - started)
    except MCPError as exc:
        duration = time.perf_counter() - started
        if duration > timeout:
            return _overran(call, timeout, duration, scope.expired())
        if exc.code == CONNECTION_CLOSED:
            return Outcome(
                Channel.TRANSPORT_FAILURE,
                call,
                failure=f"connection closed: {exc}",
                duration=duration,
            )
        error = ProtocolError(exc.error.code, exc.error.message, exc.error.data)
        return Outcome(Channel.PROTOCOL_ERROR, call, error=error, duration=duration)
    duration = time.perf_counter() - started
    if duration > timeout:
        return _overran(call, timeout, duration, scope.expired())
    return from_answer(call, answer, duration)


_LATE = 0.5
"""Seconds past its timeout after which a timed-out call is said to have been kept from being interrupted."""


def _overran(call: Call, timeout: float, duration: float, expired: bool) -> Outcome:
    """An answer that came after the timeout: what the other harnesses say of it (a timed-out call), and why."""
    if expired:
        why = f"the call ignored its cancellation and answered after {duration:.1f} s"
    else:
        why = (
            f"the tool blocked the event loop for {duration:.1f} s (synchronous code such as time.sleep or "
            "blocking I/O in an async function), so no timeout could interrupt it"
        )
    failure = f"no answer within the call timeout of {timeout:g} s: {why}"
    return Outcome(Channel.TRANSPORT_FAILURE, call, failure=failure, duration=duration)


def from_answer(call: Call, answer: Any, duration: float) -> Outcome:
    """Classify a successful answer: a result, a tool error, or a request for input."""
    if isinstance(answer, InputRequiredResult):
        questions = {
            key: Question(key=key, kind=question_kind(request), request=request)
            for key, request in (answer.input_requests or {}).items()
        }
        return Outcome(
            Channel.INPUT_REQUIRED,
            call,
            questions=questions,
            request_state=answer.request_state,
            duration=duration,
        )
    channel = Channel.TOOL_ERROR if isinstance(answer, CallToolResult) and answer.is_error else Channel.OK
    result: Result = answer
    return Outcome(channel, call, result=result, duration=duration)
