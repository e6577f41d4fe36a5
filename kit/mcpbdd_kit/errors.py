"""Error contracts, and JSON-RPC error codes by name.

A tool declares the failures it can report: a stable machine token (`reason`), the
channel (a tool error the model reads, or a protocol error with its JSON-RPC code),
whether a retry can help, and a recovery hint. `fail(reason)` then builds exactly that
failure, so what a client sees never depends on how a developer phrased an exception:

    contract = ErrorContract(
        "delete_note",
        Failure("note_not_found", "The note does not exist.", hint="List the notes to see which ids exist."),
        Failure("consent_declined", "The user refused.", hint="Ask the user again if they change their mind."),
    )

    @mcp.tool()
    @contract.raises
    async def delete_note(note_id: str) -> Deleted:
        ...
        raise contract.error("note_not_found", f"Note {note_id} does not exist.")

`raise contract.error(...)` keeps the tool's return annotation honest (`-> Deleted`: the SDK refuses
`Deleted | CallToolResult`), and `@contract.raises` (under `@mcp.tool()`) turns the raised failure
into the declared result. `return contract.fail(...)` builds the same result for code that returns.

A tool-channel failure is a `CallToolResult` with `is_error=True` whose text leads with
the sentence, then `Recovery: <hint>`, and whose structured content is
`{"error": {"reason", "message", "retryable", "recovery": {"hint"}}}`; a protocol-channel
failure raises `MCPError` whose `data` carries the same fields (the declared reason
always wins over caller data). An undeclared reason is a bug: it becomes an internal
error naming the declared ones.

Specifications may write JSON-RPC codes as numbers (-32602) or names (`InvalidParams`,
`invalid params`); the names come from the SDK's own constants.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Literal, NoReturn, ParamSpec, TypeVar, cast, overload

import mcp_types
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS, CallToolResult, TextContent

_SDK_CONSTANTS = (
    "PARSE_ERROR",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "INVALID_PARAMS",
    "INTERNAL_ERROR",
    "CONNECTION_CLOSED",
    "REQUEST_TIMEOUT",
    "HEADER_MISMATCH",
    "MISSING_REQUIRED_CLIENT_CAPABILITY",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "URL_ELICITATION_REQUIRED",
)


def _camel(constant: str) -> str:
    return "".join(part.capitalize() for part in constant.split("_"))


CODES: dict[str, int] = {_camel(name): getattr(mcp_types, name) for name in _SDK_CONSTANTS if hasattr(mcp_types, name)}
"""`InvalidParams` -> -32602, and so on for every code the SDK names."""

_BY_NUMBER: dict[int, str] = {number: name for name, number in CODES.items()}


def _normal(word: str) -> str:
    return re.sub(r"[\s_\-]", "", word).lower()


_BY_NORMAL: dict[str, int] = {_normal(name): number for name, number in CODES.items()}


def parse_code(text: str) -> int:
    """A JSON-RPC code from a number (`-32602`) or a name (`InvalidParams`, `invalid params`)."""
    stripped = text.strip()
    if re.fullmatch(r"[+-]?\d+", stripped):
        return int(stripped)
    number = _BY_NORMAL.get(_normal(stripped))
    if number is None:
        known = ", ".join(f"{name} ({code})" for name, code in CODES.items())
        raise ValueError(f"unknown JSON-RPC error {text!r}: write a number or one of {known}")
    return number


def code_name(code: int) -> str:
    """`-32602 (InvalidParams)` for a known code, the bare number otherwise."""
    name = _BY_NUMBER.get(code)
    return f"{code} ({name})" if name else str(code)


# -- error contracts ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Failure:
    """One failure a tool declares it can report."""

    reason: str
    message: str
    channel: Literal["tool", "protocol"] = "tool"
    code: int = INVALID_PARAMS
    """The JSON-RPC code, for the protocol channel."""
    retryable: bool = False
    hint: str = ""
    changes_state: bool = False
    """Whether state may have changed when this failure is reported (the catalog shows it)."""

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", self.reason):
            raise ValueError(f"failure reason {self.reason!r} must be a snake_case token (a-z, 0-9, _)")
        if self.channel not in ("tool", "protocol"):
            raise ValueError(f"failure channel {self.channel!r} must be 'tool' or 'protocol'")

    def payload(self, message: str) -> dict[str, Any]:
        """The machine-readable error both channels carry."""
        return {
            "reason": self.reason,
            "message": message,
            "retryable": self.retryable,
            "recovery": {"hint": self.hint},
        }


P = ParamSpec("P")
R = TypeVar("R")


class DeclaredFailure(ToolError):
    """A declared tool-channel failure raised by a tool; `@contract.raises` turns it into the declared result.

    A `ToolError` so that, raised from a tool that forgot the decorator, the SDK still answers with a
    tool error (not a crash) whose text names the fix; but without the decorator the structured
    `reason` is lost, and a specification reading it fails, as it should.
    """

    def __init__(self, contract: ErrorContract, failure: Failure, message: str | None) -> None:
        super().__init__(
            f"{message or failure.message} (declared failure {failure.reason!r} of {contract.tool} raised outside "
            f"@{contract.tool}'s contract.raises: its reason is lost)"
        )
        self.contract = contract
        self.failure = failure
        self.sentence = message

    def result(self) -> CallToolResult:
        """The declared tool-channel result."""
        return tool_failure(self.failure, self.sentence)


def tool_failure(failure: Failure, message: str | None = None) -> CallToolResult:
    """The tool-channel result for `failure`: sentence, then the recovery hint, plus structured content."""
    sentence = message or failure.message
    text = f"{sentence}\nRecovery: {failure.hint}" if failure.hint else sentence
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content={"error": failure.payload(sentence)},
        is_error=True,
    )


def _is_async(fn: Callable[..., Any]) -> bool:
    """Whether the SDK awaits `fn` as a tool: a coroutine function, through any `functools.partial`, or an object
    whose `__call__` is one (the SDK's own rule: an object with an async `__call__` is an async tool too)."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(type(fn).__call__)


class ErrorContract:
    """The failures one tool declares; `fail(reason)` builds exactly one of them."""

    def __init__(self, tool: str, *failures: Failure) -> None:
        self.tool = tool
        self.failures: dict[str, Failure] = {}
        for failure in failures:
            if failure.reason in self.failures:
                raise ValueError(f"{tool}: the failure reason {failure.reason!r} is declared twice")
            self.failures[failure.reason] = failure
        CONTRACTS[tool] = self

    def fail(self, reason: str, message: str | None = None, *, data: dict[str, Any] | None = None) -> CallToolResult:
        """Return the declared tool-channel failure, or raise the declared protocol error.

        An undeclared reason is a bug in the server: it raises an internal error naming the
        declared reasons, rather than inventing a contract the tool never made.
        """
        failure = self._declared(reason)
        if failure.channel == "tool":
            return tool_failure(failure, message)
        self._raise(failure, message, data)

    def error(
        self, reason: str, message: str | None = None, *, data: dict[str, Any] | None = None
    ) -> DeclaredFailure | MCPError:
        """The declared failure as an exception to raise (`raise contract.error("note_not_found")`).

        A protocol-channel failure is the `MCPError` itself, so it reaches the client as a JSON-RPC
        error with or without `@contract.raises`; a tool-channel failure needs the decorator to become
        the declared `CallToolResult`. An undeclared reason is the internal error `fail` raises.
        """
        failure = self._declared(reason)
        if failure.channel == "tool":
            return DeclaredFailure(self, failure, message)
        sentence = message or failure.message
        return MCPError(code=failure.code, message=sentence, data={**(data or {}), **failure.payload(sentence)})

    @overload
    def raises(self, fn: Callable[P, Coroutine[Any, Any, R]]) -> Callable[P, Coroutine[Any, Any, R]]: ...
    @overload
    def raises(self, fn: Callable[P, R]) -> Callable[P, R]: ...
    def raises(self, fn: Callable[P, Any]) -> Callable[P, Any]:
        """Decorate a tool (under `@mcp.tool()`) so that `raise contract.error(...)` answers with the declared result.

        The wrapper keeps the tool's signature (the SDK reads parameters and the output schema through
        `__wrapped__`) and returns the declared `CallToolResult`, which the SDK passes through as it
        does a returned `contract.fail(...)` (a generator tool is read whole inside it, as the SDK would read it
        into a list). Only this contract's failures are caught: another
        contract's failure raised here is a wiring bug and stays one.
        """
        if _is_async(fn):
            run = cast(Callable[P, Coroutine[Any, Any, Any]], fn)

            @functools.wraps(run)
            async def guarded(*args: P.args, **kwargs: P.kwargs) -> Any:
                try:
                    return await run(*args, **kwargs)
                except DeclaredFailure as failure:
                    if failure.contract is not self:
                        raise
                    return failure.result()

            return guarded

        @functools.wraps(fn)
        def guarded_sync(*args: P.args, **kwargs: P.kwargs) -> Any:
            try:
                result = fn(*args, **kwargs)
                # A generator tool runs as the SDK reads it into a list, after this returned: read it here, so a
                # failure it raises midway is still this contract's to answer.
                return list(result) if inspect.isgenerator(result) else result
            except DeclaredFailure as failure:
                if failure.contract is not self:
                    raise
                return failure.result()

        return guarded_sync

    def _declared(self, reason: str) -> Failure:
        failure = self.failures.get(reason)
        if failure is None:
            declared = ", ".join(sorted(self.failures)) or "none"
            raise MCPError(
                code=INTERNAL_ERROR,
                message=f"{self.tool} reported the undeclared failure {reason!r} (declared: {declared})",
            )
        return failure

    def _raise(self, failure: Failure, message: str | None, data: dict[str, Any] | None) -> NoReturn:
        sentence = message or failure.message
        payload = {**(data or {}), **failure.payload(sentence)}  # the declared fields always win
        raise MCPError(code=failure.code, message=sentence, data=payload)


CONTRACTS: dict[str, ErrorContract] = {}
"""Every contract declared in this process, by tool name (what `mcpbdd catalog` reads)."""


def reason_and_hint(structured: Any, error_data: Any) -> tuple[str | None, str | None]:
    """The declared reason and recovery hint of a failure, from either channel (None when absent)."""
    for source in (structured, error_data):
        error = source.get("error", source) if isinstance(source, dict) else None
        if isinstance(error, dict) and isinstance(error.get("reason"), str):
            recovery = error.get("recovery")
            hint = recovery.get("hint") if isinstance(recovery, dict) else None
            return error["reason"], hint if isinstance(hint, str) else None
    return None, None


def declared_retryable(structured: Any, error_data: Any) -> bool | None:
    """Whether a failure says a retry can help, from either channel (None: it does not say).

    Read from the same place as `reason_and_hint`: `{"error": {"retryable": ...}}` in a tool
    error's structured content, or `retryable` in a protocol error's data.
    """
    for source in (structured, error_data):
        error = source.get("error", source) if isinstance(source, dict) else None
        if isinstance(error, dict) and isinstance(error.get("retryable"), bool):
            return bool(error["retryable"])
    return None


__all__ = [
    "CODES",
    "CONTRACTS",
    "DeclaredFailure",
    "ErrorContract",
    "Failure",
    "code_name",
    "declared_retryable",
    "parse_code",
    "reason_and_hint",
    "tool_failure",
]
