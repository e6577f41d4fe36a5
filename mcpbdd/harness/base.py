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
from typing import Any, Protocol

from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, CallToolResult, InputRequiredResult, InputResponses, Tool
from pydantic import ValidationError

from mcpbdd.outcome import Call, Channel, Outcome, ProtocolError, Question, Result, question_kind
from mcpbdd.principals import Principal

__all__ = ["CLIENT_REFUSED", "DEFAULT_TIMEOUT", "Harness", "Request", "classify", "from_answer"]

DEFAULT_TIMEOUT = 5.0
CLIENT_REFUSED = "the client refused the server's answer: "
"""How a transport failure starts when the SDK client raised on an answer it cannot accept."""


class Harness(AbstractAsyncContextManager["Harness"], Protocol):
    """A way to reach a server: what the World calls, and the shortcuts every harness shares.

    Entered once per scenario (its lifespan, its sessions), then called. A harness implements
    `send` (the one call path: a `Call` in, an `Outcome` out), `list_tools` and
    `server_stderr`; it subclasses this protocol to get `resume` and the pytest shortcuts
    (`call_tool`, `read_resource`, `get_prompt`), which are defined here once, in terms of `send`.
    """

    @abstractmethod
    async def send(
        self,
        caller: Principal | None,
        call: Call,
        *,
        input_responses: InputResponses | None = None,
        request_state: str | None = None,
    ) -> Outcome:
        """Make `call` as `caller` (None: anonymous), optionally with answers and the echoed request state."""
        ...

    @abstractmethod
    async def list_tools(self, caller: Principal | None) -> list[Tool]: ...

    @abstractmethod
    def server_stderr(self) -> str:
        """What the server process wrote to stderr ('' when there is no process)."""
        ...

    async def resume(
        self, caller: Principal | None, outcome: Outcome, answers: InputResponses, request_state: str | None
    ) -> Outcome:
        """Answer an `input_required` outcome's questions and return what the call comes to next.

        The 2026-07-28 way (and the default): the same Call again, with `input_responses` and the
        echoed `request_state`. A harness that parks mid-call questions answers those instead.
        """
        return await self.send(caller, outcome.call, input_responses=answers or None, request_state=request_state)

    # Shortcuts for pytest users. Plain functions returning `send`'s coroutine: no extra frame per call.

    def call_tool(
        self,
        caller: Principal | None,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        input_responses: InputResponses | None = None,
        request_state: str | None = None,
    ) -> Coroutine[Any, Any, Outcome]:
        """`await harness.call_tool(caller, name, arguments)`: `send` with `Call.tool(name, arguments)`."""
        return self.send(
            caller, Call.tool(name, arguments), input_responses=input_responses, request_state=request_state
        )

    def read_resource(
        self,
        caller: Principal | None,
        uri: str,
        *,
        input_responses: InputResponses | None = None,
        request_state: str | None = None,
    ) -> Coroutine[Any, Any, Outcome]:
        """`await harness.read_resource(caller, uri)`: `send` with `Call.resource(uri)`."""
        return self.send(caller, Call.resource(uri), input_responses=input_responses, request_state=request_state)

    def get_prompt(
        self,
        caller: Principal | None,
        name: str,
        arguments: dict[str, str] | None = None,
        *,
        input_responses: InputResponses | None = None,
        request_state: str | None = None,
    ) -> Coroutine[Any, Any, Outcome]:
        """`await harness.get_prompt(caller, name, arguments)`: `send` with `Call.prompt(name, arguments)`."""
        return self.send(
            caller, Call.prompt(name, arguments), input_responses=input_responses, request_state=request_state
        )


Request = Callable[[], Awaitable[Any]]
"""The SDK request a harness makes for one Call, ready to await."""


async def classify(call: Call, request: Request, timeout: float) -> Outcome:
    """Run `request` (the SDK's for `call`) under `timeout` and classify whatever happens into an Outcome.

    A hung call never hangs the run: it becomes a `transport_failure` naming the timeout.
    (`asyncio.timeout`, not `anyio.fail_after`: mcpbdd runs on asyncio and it is ~3x cheaper
    per call, which is most of the harness's own overhead.)
    """
    started = time.perf_counter()
    try:
        async with asyncio.timeout(timeout):
            answer = await request()
    except TimeoutError:
        return Outcome(
            Channel.TRANSPORT_FAILURE,
            call,
            failure=f"no answer within the call timeout of {timeout:g} s",
            duration=time.perf_counter() - started,
        )
    except (RuntimeError, ValidationError) as exc:
        # The SDK client refused what the server sent (e.g. structured content that breaks the
        # advertised output schema): no usable answer reached the caller.
        return Outcome(
            Channel.TRANSPORT_FAILURE,
            call,
            failure=f"{CLIENT_REFUSED}{type(exc).__name__}: {exc}",
            duration=time.perf_counter() - started,
        )
    except MCPError as exc:
        duration = time.perf_counter() - started
        if exc.code == CONNECTION_CLOSED:
            return Outcome(
                Channel.TRANSPORT_FAILURE,
                call,
                failure=f"connection closed: {exc}",
                duration=duration,
            )
        error = ProtocolError(exc.error.code, exc.error.message, exc.error.data)
        return Outcome(Channel.PROTOCOL_ERROR, call, error=error, duration=duration)
    return from_answer(call, answer, time.perf_counter() - started)


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
