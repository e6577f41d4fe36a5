"""What both harnesses share: the interface, the call timeout, and turning answers into Outcomes.

Keeping the classification in one place is what makes the promise "the same scenario
gives the same verdict on both harnesses" checkable: a result, an `MCPError`, an
`InputRequiredResult` or a timeout becomes the same Outcome whichever harness saw it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol, TypeVar

from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, CallToolResult, InputRequiredResult, InputResponses, Tool
from pydantic import ValidationError

from mcpbdd.outcome import Channel, Outcome, ProtocolError, Question, Result, question_kind
from mcpbdd.principals import Principal

T = TypeVar("T")

DEFAULT_TIMEOUT = 5.0
CLIENT_REFUSED = "the client refused the server's answer: "
"""How a transport failure starts when the SDK client raised on an answer it cannot accept."""


class Harness(AbstractAsyncContextManager["Harness"], Protocol):
    """A way to reach a server. Entered once per scenario (its lifespan, its sessions), then called."""

    name: str
    capabilities: frozenset[str]

    async def list_tools(self, caller: Principal | None) -> list[Tool]: ...

    async def call_tool(
        self, caller: Principal | None, name: str, arguments: dict[str, Any] | None = None
    ) -> Outcome: ...

    async def read_resource(self, caller: Principal | None, uri: str) -> Outcome: ...

    async def get_prompt(
        self, caller: Principal | None, name: str, arguments: dict[str, str] | None = None
    ) -> Outcome: ...

    async def resume(
        self, caller: Principal | None, outcome: Outcome, answers: InputResponses, request_state: str | None
    ) -> Outcome:
        """Answer an `input_required` outcome's questions and return what the call comes to next."""
        ...


async def retry_with_answers(
    harness: Any, caller: Principal | None, outcome: Outcome, answers: InputResponses, request_state: str | None
) -> Outcome:
    """The 2026-07-28 way on: the same request again, with `input_responses` and the echoed `request_state`."""
    options = {"input_responses": answers or None, "request_state": request_state}
    if outcome.method == "tools/call":
        return await harness.call_tool(caller, outcome.target, outcome.arguments, **options)
    if outcome.method == "resources/read":
        return await harness.read_resource(caller, outcome.target, **options)
    return await harness.get_prompt(caller, outcome.target, outcome.arguments, **options)


Call = Callable[[], Awaitable[Any]]


async def classify(
    method: str,
    target: str,
    arguments: dict[str, Any] | None,
    call: Call,
    timeout: float,
) -> Outcome:
    """Run `call` under `timeout` and classify whatever happens into an Outcome.

    A hung call never hangs the run: it becomes a `transport_failure` naming the timeout.
    (`asyncio.timeout`, not `anyio.fail_after`: mcpbdd runs on asyncio and it is ~3x cheaper
    per call, which is most of the harness's own overhead.)
    """
    started = time.perf_counter()
    try:
        async with asyncio.timeout(timeout):
            answer = await call()
    except TimeoutError:
        return Outcome(
            Channel.TRANSPORT_FAILURE,
            method,
            target,
            arguments,
            failure=f"no answer within the call timeout of {timeout:g} s",
            duration=time.perf_counter() - started,
        )
    except (RuntimeError, ValidationError) as exc:
        # The SDK client refused what the server sent (e.g. structured content that breaks the
        # advertised output schema): no usable answer reached the caller.
        return Outcome(
            Channel.TRANSPORT_FAILURE,
            method,
            target,
            arguments,
            failure=f"{CLIENT_REFUSED}{type(exc).__name__}: {exc}",
            duration=time.perf_counter() - started,
        )
    except MCPError as exc:
        duration = time.perf_counter() - started
        if exc.code == CONNECTION_CLOSED:
            return Outcome(
                Channel.TRANSPORT_FAILURE,
                method,
                target,
                arguments,
                failure=f"connection closed: {exc}",
                duration=duration,
            )
        error = ProtocolError(exc.error.code, exc.error.message, exc.error.data)
        return Outcome(Channel.PROTOCOL_ERROR, method, target, arguments, error=error, duration=duration)
    return from_answer(method, target, arguments, answer, time.perf_counter() - started)


def from_answer(method: str, target: str, arguments: dict[str, Any] | None, answer: Any, duration: float) -> Outcome:
    """Classify a successful answer: a result, a tool error, or a request for input."""
    if isinstance(answer, InputRequiredResult):
        questions = {
            key: Question(key=key, kind=question_kind(request), request=request)
            for key, request in (answer.input_requests or {}).items()
        }
        return Outcome(
            Channel.INPUT_REQUIRED,
            method,
            target,
            arguments,
            questions=questions,
            request_state=answer.request_state,
            duration=duration,
        )
    channel = Channel.TOOL_ERROR if isinstance(answer, CallToolResult) and answer.is_error else Channel.OK
    result: Result = answer
    return Outcome(channel, method, target, arguments, result=result, duration=duration)
