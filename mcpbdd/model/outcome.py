"""The Call and its Outcome: one request (tool, resource read, prompt) and what it came to, on either harness.

A `Call` is the request as a value: the method, its target (a tool or prompt name, a
resource URI) and its arguments. Both harnesses take it at one entry point (`send`), a
round's retry sends it again with the answers, and "the same call again" re-sends it.

Other MCP test tools collapse every failure into "error". A client, and so a
specification, must tell them apart, because each channel means something different
to the model and to the user:

- `ok`: a result.
- `tool_error`: a `CallToolResult` with `is_error=True`: the tool ran (or was looked up)
  and reports a failure *to the model*, which can read it and recover.
- `protocol_error`: a JSON-RPC error (code, message, data): the request itself was
  refused.
- `input_required`: the server needs answers before it can go on (the questions, by key).
- `transport_failure`: no answer at all: a timeout, a disconnect, a crashed server.

Both harnesses build the same Outcome, so every assertion is written once against it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final, Literal

from mcp_types import (
    INVALID_REQUEST,
    CallToolResult,
    CreateMessageRequest,
    ElicitRequest,
    GetPromptResult,
    ListRootsRequest,
    ReadResourceResult,
    TextContent,
    TextResourceContents,
)

from mcpbdd._text import clip
from mcpbdd.model.http_answer import HttpAnswer

if TYPE_CHECKING:
    from mcpbdd.model.cancellation import Cancellation

Method = Literal["tools/call", "resources/read", "prompts/get"]
"""The request methods a scenario makes (the ones that can end in every channel, questions included)."""

TOOLS_CALL: Final = "tools/call"
RESOURCES_READ: Final = "resources/read"
PROMPTS_GET: Final = "prompts/get"


@dataclass(frozen=True, slots=True)
class Call:
    """One request as a value: what a harness sends, a retry repeats and an Outcome remembers.

    Build it with `Call.tool`, `Call.resource` or `Call.prompt`; plain strings keep it cheap
    (the harness maps it to the SDK's request in one place, where an unknown method fails).
    """

    method: Method
    target: str
    """The tool or prompt name, or the resource URI."""
    arguments: dict[str, Any] | None = None

    @classmethod
    def tool(cls, name: str, arguments: dict[str, Any] | None = None) -> Call:
        return cls(TOOLS_CALL, name, arguments)

    @classmethod
    def resource(cls, uri: str) -> Call:
        return cls(RESOURCES_READ, uri)

    @classmethod
    def prompt(cls, name: str, arguments: dict[str, str] | None = None) -> Call:
        return cls(PROMPTS_GET, name, arguments)

    def __str__(self) -> str:
        """`tools/call delete_note`: how titles and messages name the call."""
        return f"{self.method} {self.target}"


class Channel(StrEnum):
    """The five ways a call can end. The value is the word specifications use."""

    OK = "ok"
    TOOL_ERROR = "tool-error"
    PROTOCOL_ERROR = "protocol-error"
    INPUT_REQUIRED = "input-required"
    TRANSPORT_FAILURE = "transport-failure"

    @classmethod
    def parse(cls, word: str) -> Channel:
        """Accept `tool-error`, `tool_error` and `tool error` alike; name the valid words otherwise."""
        normal = word.strip().lower().replace("_", "-").replace(" ", "-")
        for channel in cls:
            if channel.value == normal:
                return channel
        valid = ", ".join(c.value for c in cls)
        raise ValueError(f"unknown outcome {word!r}: use one of {valid}")


@dataclass(frozen=True)
class ProtocolError:
    """A JSON-RPC error as the client received it."""

    code: int
    message: str
    data: Any = None


@dataclass(frozen=True)
class Question:
    """One open input request: what the server asks and in which form.

    `kind` is `elicitation`, `sampling` or `roots`; `request` is the SDK's request model
    (an `ElicitRequest`, `CreateMessageRequest` or `ListRootsRequest`).
    """

    key: str
    kind: str
    request: ElicitRequest | CreateMessageRequest | ListRootsRequest
    aliases: tuple[str, ...] = ()
    """Other names the server's code gives it: a 2025-11-25 mid-call question asked by a `Resolve(...)`
    resolver (keyed `elicitation-1`) also answers to the resolver's wire key, as it would on 2026-07-28."""

    @property
    def message(self) -> str:
        """The text a user would see (the elicitation message, or the sampling prompt's text)."""
        params = self.request.params
        if isinstance(self.request, ElicitRequest):
            return str(getattr(params, "message", ""))
        if isinstance(self.request, CreateMessageRequest) and params is not None:
            texts = [getattr(m.content, "text", "") for m in getattr(params, "messages", [])]
            return "\n".join(t for t in texts if t)
        return ""


def question_kind(request: object) -> str:
    """The vocabulary's name for an input request model."""
    if isinstance(request, ElicitRequest):
        return "elicitation"
    if isinstance(request, CreateMessageRequest):
        return "sampling"
    if isinstance(request, ListRootsRequest):
        return "roots"
    return type(request).__name__


Result = CallToolResult | ReadResourceResult | GetPromptResult


@dataclass(frozen=True, slots=True)
class Progress:
    """One progress report a server sent during a call (`ctx.report_progress(progress, total, message)`)."""

    progress: float
    total: float | None = None
    message: str | None = None

    def __str__(self) -> str:
        """`2 of 3 ("Imported 'Milk'")`: how failure messages list the reports."""
        amount = f"{self.progress:g}" + (f" of {self.total:g}" if self.total is not None else "")
        return amount + (f" ({self.message!r})" if self.message is not None else "")


LOG_LEVELS: Final = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
"""The protocol's log levels, least severe first (RFC 5424's order)."""


@dataclass(frozen=True, slots=True)
class LogMessage:
    """One log message a server sent during a call (`ctx.info(...)`, `ctx.log(level, data, logger_name=...)`)."""

    level: str
    data: Any
    logger: str | None = None

    @property
    def text(self) -> str:
        """The data as a reader sees it: a string as it is, anything else as JSON."""
        return self.data if isinstance(self.data, str) else json.dumps(self.data, default=str, ensure_ascii=False)

    def __str__(self) -> str:
        """`warning 'Skipped an empty note' (from notes.import)`: how failure messages list the messages."""
        return f"{self.level} {clip(self.text, 120)!r}" + (f" (from {self.logger})" if self.logger else "")


@dataclass(frozen=True)
class Outcome:
    """What one call came to (the harnesses build it); read it with the properties."""

    channel: Channel
    call: Call
    """The request this answers (a round's retry answers the same Call)."""
    result: Result | None = None
    error: ProtocolError | None = None
    questions: dict[str, Question] = field(default_factory=dict)
    request_state: str | None = None
    failure: str | None = None
    duration: float = 0.0
    note: str | None = None
    """Context for a reader, e.g. which tools the server offers when this one is unknown."""
    caller: str | None = None
    """Who made the call, as a failure message names them (`alice of tenant acme`); the World sets it when it
    records the exchange, so a reader never has to guess who "the client" was. None: not known (a bare harness)."""
    pending: Any = field(default=None, compare=False, repr=False)
    progress: tuple[Progress, ...] = field(default=(), compare=False)
    """The progress reports the server sent during this call, in order (tools only: the SDK client asks for
    progress on `tools/call`, which both eras need a progress token for)."""
    log_messages: tuple[LogMessage, ...] = field(default=(), compare=False)
    """The log messages the server sent during this call, in order."""
    log_level: str | None = field(default=None, compare=False)
    """The level from which the client asked for log messages on this call (None: it asked for none)."""
    logs_opt_in: bool = field(default=False, compare=False)
    """Whether this call's era makes log messages a per-request opt-in (2026-07-28: no level asked, none sent).
    Set by the harness whenever a level was asked or a message arrived."""
    """The harness's handle on a call still running while its questions are open (2025-11-25 era)."""
    http: HttpAnswer | None = None
    """The HTTP refusal (401, 403) the call met at a protected server's edge, instead of an MCP answer."""
    cancellation: Cancellation | None = field(default=None, compare=False)
    """How the client cancelled this call part-way and what it saw after (`mcpbdd.model.cancellation`); None: it
    did not. A cancelled call is a `transport-failure` (the client uses no answer), its failure saying so."""

    @property
    def method(self) -> str:
        return self.call.method

    @property
    def target(self) -> str:
        return self.call.target

    @property
    def arguments(self) -> dict[str, Any] | None:
        return self.call.arguments

    @property
    def ok(self) -> bool:
        return self.channel is Channel.OK

    @property
    def text(self) -> str:
        """Every text the client received for this call, joined: result text, error message, questions."""
        parts: list[str] = []
        if isinstance(self.result, CallToolResult):
            parts.extend(block.text for block in self.result.content if isinstance(block, TextContent))
        elif isinstance(self.result, ReadResourceResult):
            parts.extend(c.text for c in self.result.contents if isinstance(c, TextResourceContents))
        elif isinstance(self.result, GetPromptResult):
            if self.result.description:
                parts.append(self.result.description)
            parts.extend(getattr(m.content, "text", "") for m in self.result.messages)
        if self.error is not None:
            parts.append(self.error.message)
            if self.error.data is not None:
                parts.append(json.dumps(self.error.data, default=str))
        parts.extend(q.message for q in self.questions.values())
        if self.failure:
            parts.append(self.failure)
        return "\n".join(parts)

    @property
    def structured(self) -> Any:
        """The result as JSON, what "the structured result" steps compare (None when there is none).

        A tool's structured content; a resource's JSON contents (a JSON mime type, or text that
        parses as JSON: the value itself for one content, a list for several); a prompt's
        `{"description", "messages"}` as the client receives them. One notion for the three kinds
        of call, so a specification checks a JSON resource or a prompt's messages the way it
        checks a tool's result.
        """
        if isinstance(self.result, CallToolResult):
            return self.result.structured_content
        if isinstance(self.result, ReadResourceResult):
            values = [resource_json(content) for content in self.result.contents]
            if not values or any(value is _NOT_JSON for value in values):
                return None
            return values[0] if len(values) == 1 else values
        if isinstance(self.result, GetPromptResult):
            shown = {"description", "messages"}
            return self.result.model_dump(mode="json", by_alias=True, exclude_none=True, include=shown)
        return None

    @property
    def signature(self) -> tuple[Any, ...]:
        """What "fails the same way" compares: channel, code and text."""
        code = self.error.code if self.error else None
        return (self.channel, code, self.text if not self.ok else None)

    @property
    def request_line(self) -> str:
        """What was called and by whom: `tools/call 'get_note' as alice of tenant acme`."""
        return f"{self.method} {self.target!r}" + (f" as {self.caller}" if self.caller else "")

    def describe(self) -> str:
        """One readable paragraph for assertion messages: what was called, by whom, and what came back."""
        call = self.request_line
        if self.channel is Channel.OK:
            body = f"succeeded: {clip(self.text)!s}"
        elif self.channel is Channel.TOOL_ERROR:
            body = f"failed with a tool error: {clip(self.text)}"
        elif self.channel is Channel.PROTOCOL_ERROR and self.error is not None:
            data = f" data={json.dumps(self.error.data, default=str)}" if self.error.data is not None else ""
            body = f"failed with the protocol error {self.error.code} {self.error.message!r}{data}"
        elif self.channel is Channel.INPUT_REQUIRED:
            asked = ", ".join(f"{q.key!r} by {q.kind}: {clip(q.message, 80)}" for q in self.questions.values())
            body = f"asked for input: {asked}"
        else:
            body = f"got no answer: {self.failure}"
        notes = [n for n in (self.note, no_back_channel_explanation(self.error)) if n]
        return f"{call} {body}" + "".join(f"\n  ({n})" for n in notes)


_NOT_JSON: Final = object()


def resource_json(content: object) -> Any:
    """A resource content's text parsed as JSON (whatever its mime type); `_NOT_JSON` for a blob or other text."""
    if not isinstance(content, TextResourceContents):
        return _NOT_JSON
    try:
        return json.loads(content.text)
    except ValueError:
        return _NOT_JSON


_NO_BACK_CHANNEL = re.compile(r"^Cannot send '(?P<method>[^']+)': .*no back-channel for server-initiated requests")

_ASKING_THE_2026_WAY = {
    "elicitation/create": ("called ctx.elicit()", "Elicit(message, Model)"),
    "sampling/createMessage": ("asked the client's model (sampling/createMessage)", "Sample(messages, max_tokens=...)"),
    "roots/list": ("asked for the client's roots (roots/list)", "ListRoots()"),
}


def no_back_channel_explanation(error: ProtocolError | None) -> str | None:
    """What the SDK's NoBackChannelError (-32600 "no back-channel") means for a specification, and the two fixes.

    The bare SDK message reads like a transport fault; it is a server written for the
    2025-11-25 protocol (asking the client mid-call) meeting a 2026-07-28 connection, where a
    request has no channel back to the client. None for any other error.
    """
    if error is None or error.code != INVALID_REQUEST:
        return None
    found = _NO_BACK_CHANNEL.match(error.message)
    if found is None:
        return None
    method = found["method"]
    what, marker = _ASKING_THE_2026_WAY.get(method, (f"sent the client a {method!r} request mid-call", None))
    ask = (
        f"ask the 2026-07-28 way, with a parameter `Annotated[T, Resolve(fn)]` whose `fn` returns `{marker}` "
        "(the SDK then returns the question as input required, and the scenario answers it)"
        if marker
        else "ask the 2026-07-28 way, by returning an InputRequiredResult"
    )
    return (
        f"the tool {what}, which needs a channel back to the client during the call; on the 2026-07-28 protocol "
        "a request has none, so the SDK refused it (NoBackChannelError). Fix the server: "
        f"{ask}; or, if the server speaks only 2025-11-25, pin the scenario to that handshake with the tag "
        "@harness.client.legacy"
    )


__all__ = [
    "PROMPTS_GET",
    "RESOURCES_READ",
    "TOOLS_CALL",
    "Call",
    "Channel",
    "Method",
    "LOG_LEVELS",
    "LogMessage",
    "Outcome",
    "Progress",
    "ProtocolError",
    "Question",
    "Result",
    "no_back_channel_explanation",
    "question_kind",
]
